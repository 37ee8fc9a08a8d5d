//! Stream-power rivers on the patch, headless: the river network lands on the patch's piece as a
//! component in the frame its mesh does, with water ribbons when asked for, painted into the
//! texture, and goes when stream power is turned off.

mod common;

use bevy::prelude::*;
use bevy_noise_terrain::core::advanced::RIVER_WATER;
use bevy_noise_terrain::core::{ColorRules, Erosion, RiverEnd, StreamPower};
use bevy_noise_terrain::prelude::*;
use bevy_noise_terrain::{PieceHeights, RiverWater};
use common::{app as headless_app, settle};

fn river_params(steps: u32) -> TerrainPreset {
    TerrainPreset {
        resolution: 96,
        colors: ColorRules::plain(),
        erosion: Erosion { stream_power: StreamPower { steps, ..default() }, ..default() },
        river_water: true,
        ..default()
    }
}

/// The patch's piece entity, its heights and its rivers (if any).
fn patch(app: &mut App) -> (Entity, PieceHeights, Option<TerrainRivers>) {
    let mut q = app.world_mut().query::<(Entity, &PieceHeights, Option<&TerrainRivers>)>();
    let found: Vec<_> = q.iter(app.world()).map(|(e, h, r)| (e, h.clone(), r.cloned())).collect();
    assert_eq!(found.len(), 1, "one patch");
    found.into_iter().next().unwrap()
}

fn river_water(app: &mut App) -> Vec<(Entity, Option<Handle<Mesh>>)> {
    let mut q = app.world_mut().query_filtered::<(&ChildOf, Option<&Mesh3d>), With<RiverWater>>();
    q.iter(app.world()).map(|(parent, mesh)| (parent.parent(), mesh.map(|m| m.0.clone()))).collect()
}

#[test]
fn the_patch_carries_its_rivers_on_the_ground_downhill_painted_and_as_water() {
    let params = river_params(60);
    let mut app = headless_app(params.clone());
    settle(&mut app);
    let (piece, heights, rivers) = patch(&mut app);
    let rivers = rivers.expect("rivers on the patch");
    assert!(rivers.lines.len() > 5, "{} rivers", rivers.lines.len());
    let n = params.resolution;
    let step = params.world_size / (n - 1) as f32;
    let half = params.world_size / 2.0;
    let piece_entity = app.world().entity(piece);
    let texture = piece_entity.get::<TerrainPiece>().unwrap().image.clone();
    let image = app.world().resource::<Assets<Image>>().get(&texture).unwrap().clone();
    let texels = image.data.as_ref().unwrap();
    let mut joins = 0;
    for line in &rivers.lines {
        assert!(line.vertices.len() >= 2);
        for pair in line.vertices.windows(2) {
            let (a, b) = (pair[0].position, pair[1].position);
            // Neighbouring cells, downhill (or level across a lake), with growing area.
            assert!((a.xz() - b.xz()).abs().max_element() <= step * 1.001, "{a} to {b}");
            assert!(b.y <= a.y + 1e-4, "uphill from {a} to {b}");
            assert!(pair[1].area >= pair[0].area);
        }
        for v in &line.vertices {
            // On a vertex of the patch, at or above its ground (above only over a lake).
            let (fx, fz) = ((v.position.x + half) / step, (v.position.z + half) / step);
            let (x, z) = (fx.round() as u32, fz.round() as u32);
            assert!((fx - x as f32).abs() < 1e-3 && (fz - z as f32).abs() < 1e-3, "{v:?} off the grid");
            let ground = heights.map.get(x, z).unwrap() * params.height_scale;
            assert!(v.position.y >= ground - 1e-4, "{v:?} under the ground {ground}");
            // Painted: land under a river takes the river water's colour.
            if heights.map.get(x, z).unwrap() >= params.water_level {
                let texel = &texels[((z * n + x) * 4) as usize..][..3];
                for (c, w) in texel.iter().zip(RIVER_WATER) {
                    assert!(
                        (*c as i32 - w as i32).abs() <= 30,
                        "texel {texel:?} under a river at ({x}, {z})"
                    );
                }
            }
        }
        if line.end == RiverEnd::Confluence {
            joins += 1;
            let last = line.vertices.last().unwrap().position;
            let on_another = rivers
                .lines
                .iter()
                .any(|other| !std::ptr::eq(other, line) && other.vertices.iter().any(|v| v.position == last));
            assert!(on_another, "a confluence at {last} on no other river");
        }
    }
    assert!(joins > 0, "no river joins another");
    // The ribbons: one water child of the patch, with a mesh.
    let water = river_water(&mut app);
    assert_eq!(water.len(), 1);
    assert_eq!(water[0].0, piece);
    let mesh = water[0].1.clone().expect("a ribbon mesh");
    assert!(app.world().resource::<Assets<Mesh>>().get(&mesh).unwrap().count_vertices() > 0);
    // The nearest river vertex to a point is one of them.
    let first = rivers.lines[0].vertices[0].position;
    let (nearest, distance) = rivers.nearest(first.xz()).unwrap();
    assert_eq!((nearest.position, distance), (first, 0.0));

    // Water off: the rivers stay, the ribbons go.
    app.world_mut().resource_mut::<TerrainParams>().river_water = false;
    settle(&mut app);
    assert!(patch(&mut app).2.is_some());
    assert!(river_water(&mut app).is_empty());
    // Stream power off: the rivers go too.
    app.world_mut().resource_mut::<TerrainParams>().erosion.stream_power.steps = 0;
    settle(&mut app);
    assert!(patch(&mut app).2.is_none());
    assert!(river_water(&mut app).is_empty());
}

#[test]
fn an_endless_terrain_ignores_stream_power() {
    let params = TerrainPreset {
        layout: TerrainLayout::Endless {
            chunk_size: 64.0,
            chunk_vertices: 17,
            view_distance: 100.0,
            lod_levels: 2,
        },
        ..river_params(40)
    };
    let mut app = headless_app(params);
    settle(&mut app);
    let mut q = app.world_mut().query::<(&TerrainPiece, Option<&TerrainRivers>)>();
    let pieces: Vec<bool> = q.iter(app.world()).map(|(_, r)| r.is_some()).collect();
    assert!(!pieces.is_empty() && pieces.iter().all(|has| !has), "chunks carry no rivers");
    assert!(river_water(&mut app).is_empty());
}

#[test]
fn a_change_cancels_a_long_evolution_and_every_frame_keeps_the_last_good_patch() {
    let params = river_params(20);
    let mut app = headless_app(params.clone());
    settle(&mut app);
    let (piece, good, rivers) = patch(&mut app);
    assert!(rivers.is_some());
    // 5000 steps at 512²: minutes of work, started and then replaced.
    let long = TerrainPreset {
        resolution: 512,
        erosion: Erosion { stream_power: StreamPower { steps: 5000, ..default() }, ..default() },
        ..params.clone()
    };
    app.world_mut().resource_mut::<TerrainParams>().0 = long.clone();
    let still_good = |app: &mut App| {
        let (entity, heights, rivers) = patch(app);
        assert_eq!(entity, piece);
        assert_eq!(heights.map, good.map, "the last good patch left the screen");
        assert!(rivers.is_some(), "its rivers went with it");
    };
    let progress = |app: &App| app.world().resource::<TerrainStats>().erosion_progress;
    common::update_until(&mut app, "the long evolution to start", |app| {
        still_good(app);
        progress(app).is_some()
    });
    for _ in 0..5 {
        app.update();
        still_good(&mut app);
    }
    let quick = TerrainPreset { erosion: Erosion::default(), ..long };
    app.world_mut().resource_mut::<TerrainParams>().0 = quick;
    // Every frame until the new patch lands shows the old one whole, and the evolution seen in
    // them stays near where it was cancelled (had it been waited for, they would see it run on).
    let mut furthest = 0.0f32;
    common::update_until(&mut app, "the patch after the cancelled evolution", |app| {
        furthest = furthest.max(progress(app).unwrap_or(0.0));
        let (_, heights, rivers) = patch(app);
        if heights.map.width() == 512 {
            assert!(rivers.is_none(), "the new patch has no stream power");
            return true;
        }
        assert_eq!(heights.map, good.map, "a frame without the last good patch");
        false
    });
    assert!(furthest < 0.5, "the cancelled evolution ran on to {furthest}");
    settle(&mut app);
}
