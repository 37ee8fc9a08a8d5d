//! Colliders of the terrain pieces (feature `avian`), headless: `MinimalPlugins`, avian's physics
//! plugins and a fixed timestep advanced by hand.
#![cfg(feature = "avian")]

mod common;

use common::{resident_bytes, settle};

use std::time::Duration;

use avian3d::prelude::*;
use bevy::mesh::VertexAttributeValues;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_noise_terrain::PieceHeights;
use bevy_noise_terrain::build::PieceGeometry;
use bevy_noise_terrain::core::Heightmap;
use bevy_noise_terrain::physics::{
    KeepAboveTerrain, TerrainCollider, TerrainPhysicsPlugin, heightfield_collider,
};
use bevy_noise_terrain::prelude::*;

const STEP: f32 = 1.0 / 60.0;

/// Rolling country: three octaves, so that the mesh is smooth at the scale of a ball (a ball
/// as wide as a cell in a crease between two steep triangles rests above the crease's bottom).
fn gentle(layout: TerrainLayout) -> TerrainPreset {
    let noise = NoiseSettings { octaves: 3, frequency: 3.0, ..default() };
    // Slopes gentle enough that a resting ball sits within 2% of its radius of the ground below
    // its centre (on a slope of θ the gap is r (1/cos θ - 1): 2% at 11°). The default rounded
    // kernel spans about 1.2x the heights Perlin's did, so the scale is 10 where it was 12.
    TerrainPreset { layout, noise, resolution: 97, height_scale: 10.0, world_size: 100.0, ..default() }
}

fn app_with(params: TerrainPreset) -> App {
    let mut app = common::app_with_focus(params);
    app.add_plugins((PhysicsPlugins::default(), TerrainPhysicsPlugin { collider_distance: 200.0 }))
        .insert_resource(Time::<Fixed>::from_duration(Duration::from_secs_f32(STEP)))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(STEP)));
    // avian registers some resources in `Plugin::finish`, which `App::run` would call.
    app.finish();
    app.cleanup();
    app
}

fn ground(app: &mut App, x: f32, z: f32) -> Option<f32> {
    let mut state = bevy::ecs::system::SystemState::<TerrainQuery>::new(app.world_mut());
    state.get(app.world()).unwrap().height_at(x, z)
}

#[test]
fn the_heightfield_runs_x_then_z_and_scales_by_side_and_height() {
    // Heights that tell the axes apart: x adds a little per column, z a lot per row.
    let heights = Heightmap::from_fn(5, 5, |x, z| 0.01 * x as f32 + 0.1 * z as f32).unwrap();
    let geometry = PieceGeometry { translation: [0.0; 2], origin: [0.0; 2], size: 8.0, vertices: 5 };
    let (collider, centre) = heightfield_collider(&heights, &geometry, 3.0);
    assert_eq!(centre, Vec3::new(4.0, 0.0, 4.0), "a chunk's collider sits at its middle");
    for (x, z) in [(0u32, 0u32), (4, 0), (0, 4), (2, 3), (4, 4)] {
        // Vertex (x, z) is at (2x, 2z) in the piece; the collider is centred on `centre`.
        let at = Vec3::new(2.0 * x as f32, 10.0, 2.0 * z as f32);
        let (distance, _) =
            collider.cast_ray(centre, Quat::IDENTITY, at, Vec3::NEG_Y, 100.0, false).expect("a hit");
        let expected = heights.get(x, z).unwrap() * 3.0;
        assert!(
            (10.0 - distance - expected).abs() < 1e-5,
            "vertex ({x}, {z}): {} vs {expected}",
            10.0 - distance
        );
    }
}

/// Every collider's surface is the mesh's: at every vertex it has the vertex's height, and
/// between vertices (rays a little off each vertex, where no ray grazes a triangle's edge) the
/// height of the mesh's triangles.
fn assert_colliders_match_meshes(app: &mut App) {
    let mut pieces = app.world_mut().query::<(&Mesh3d, &GlobalTransform, &Children, &PieceHeights)>();
    let mut colliders =
        app.world_mut().query_filtered::<(&Collider, &GlobalTransform), With<TerrainCollider>>();
    let mut state = bevy::ecs::system::SystemState::<TerrainQuery>::new(app.world_mut());
    let world = app.world();
    let terrain = state.get(world).unwrap();
    let meshes = world.resource::<Assets<Mesh>>();
    let mut checked = 0;
    for (mesh, at, children, _) in pieces.iter(world) {
        let Some((collider, collider_at)) = children.iter().find_map(|c| colliders.get(world, c).ok()) else {
            continue;
        };
        let Some(VertexAttributeValues::Float32x3(positions)) =
            meshes.get(&mesh.0).unwrap().attribute(Mesh::ATTRIBUTE_POSITION)
        else {
            panic!("positions")
        };
        let surface = |x: f32, z: f32| {
            let from = Vec3::new(x, 1000.0, z);
            let hit = collider.cast_ray(
                collider_at.translation(),
                Quat::IDENTITY,
                from,
                Vec3::NEG_Y,
                5000.0,
                false,
            );
            hit.map(|(distance, _)| from.y - distance)
        };
        for p in positions.iter().step_by(3) {
            let vertex = at.transform_point(Vec3::from_array(*p));
            // Rays through a vertex exactly may slip between its triangles: the collider's
            // height at the vertex comes from points a hair away on either side.
            let e = 1e-3;
            let (Some(a), Some(b)) =
                (surface(vertex.x + e, vertex.z + e), surface(vertex.x - e, vertex.z - e))
            else {
                continue;
            };
            assert!(
                ((a + b) / 2.0 - vertex.y).abs() < 5e-3,
                "collider {} vs mesh vertex {}",
                (a + b) / 2.0,
                vertex.y
            );
            let (x, z) = (vertex.x + 0.31, vertex.z + 0.17);
            if let (Some(collider_y), Some(mesh_y)) = (surface(x, z), terrain.height_at(x, z)) {
                assert!(
                    (collider_y - mesh_y).abs() < 1e-3,
                    "collider {collider_y} vs mesh {mesh_y} at ({x}, {z})"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "only {checked} points were checked");
}

#[test]
fn collider_heights_equal_mesh_heights_patch_and_endless() {
    for layout in [
        TerrainLayout::Patch,
        TerrainLayout::Endless { chunk_size: 32.0, chunk_vertices: 17, view_distance: 300.0, lod_levels: 3 },
    ] {
        let mut app = app_with(gentle(layout));
        settle(&mut app);
        assert_colliders_match_meshes(&mut app);
    }
}

/// Drops balls of `radius` at `spots` and steps until they rest; returns their final positions.
fn drop_balls(app: &mut App, spots: &[Vec2], radius: f32) -> Vec<Entity> {
    let mut balls = Vec::new();
    for spot in spots {
        let y = ground(app, spot.x, spot.y).expect("ground under the spot") + radius + 2.0;
        let ball = app
            .world_mut()
            .spawn((
                RigidBody::Dynamic,
                Collider::sphere(radius),
                // Rolling loses energy, so balls settle in hollows instead of rolling forever;
                // awake, so that none stops on a slope.
                LinearDamping(0.6),
                AngularDamping(0.6),
                SleepingDisabled,
                KeepAboveTerrain { depth: radius },
                // Balls do not collide with each other: each rests on the ground alone.
                CollisionLayers::new(LayerMask(1 << 1), LayerMask(1)),
                Transform::from_xyz(spot.x, y, spot.y),
            ))
            .id();
        balls.push(ball);
    }
    balls
}

fn run_until_rest(app: &mut App, balls: &[Entity], most_seconds: f32) {
    let mut still = 0;
    for _ in 0..(most_seconds / STEP) as usize {
        app.update();
        let moving =
            balls.iter().any(|&b| app.world().get::<LinearVelocity>(b).is_some_and(|v| v.0.length() > 0.005));
        still = if moving { 0 } else { still + 1 };
        if still > 60 {
            return;
        }
    }
}

fn assert_resting_on_the_ground(app: &mut App, balls: &[Entity], radius: f32) {
    for &ball in balls {
        let p = app.world().get::<Transform>(ball).unwrap().translation;
        let below = ground(app, p.x, p.z).expect("still over the terrain");
        let gap = p.y - radius - below;
        assert!(gap.abs() <= 0.02 * radius, "ball at {p}: lowest point {gap} from the ground");
    }
}

#[test]
fn balls_dropped_on_twenty_spots_come_to_rest_on_the_ground() {
    // Deterministic spots (a small linear congruential sequence).
    let mut state = 12345u32;
    let mut next = |range: f32| {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 * range - range
    };
    let spots: Vec<Vec2> = (0..20).map(|_| Vec2::new(next(30.0), next(30.0))).collect();
    for layout in [
        TerrainLayout::Patch,
        TerrainLayout::Endless { chunk_size: 32.0, chunk_vertices: 17, view_distance: 300.0, lod_levels: 3 },
    ] {
        let mut app = app_with(gentle(layout));
        settle(&mut app);
        let balls = drop_balls(&mut app, &spots, 1.0);
        run_until_rest(&mut app, &balls, 60.0);
        assert_resting_on_the_ground(&mut app, &balls, 1.0);
    }
}

#[test]
fn after_a_parameter_change_a_resting_ball_settles_on_the_new_ground() {
    let mut app = app_with(gentle(TerrainLayout::Patch));
    settle(&mut app);
    let balls = drop_balls(&mut app, &[Vec2::new(5.0, -8.0), Vec2::new(-12.0, 3.0)], 1.0);
    run_until_rest(&mut app, &balls, 60.0);
    assert_resting_on_the_ground(&mut app, &balls, 1.0);
    for seed in [99, 3] {
        app.world_mut().resource_mut::<TerrainParams>().noise.seed = seed;
        settle(&mut app);
        run_until_rest(&mut app, &balls, 60.0);
        assert_resting_on_the_ground(&mut app, &balls, 1.0);
    }
}

#[test]
fn a_thousand_regenerations_keep_the_collider_count_and_memory_flat() {
    let mut app = app_with(TerrainPreset { resolution: 24, ..gentle(TerrainLayout::Patch) });
    settle(&mut app);
    let colliders = |app: &mut App| app.world_mut().query::<&TerrainCollider>().iter(app.world()).count();
    assert_eq!(colliders(&mut app), 1);
    let mut memory_after_warmup = 0;
    for seed in 0..1000u32 {
        app.world_mut().resource_mut::<TerrainParams>().noise.seed = seed;
        settle(&mut app);
        assert_eq!(colliders(&mut app), 1, "after regeneration {seed}");
        if seed == 100 {
            memory_after_warmup = resident_bytes();
        }
    }
    let growth = resident_bytes().saturating_sub(memory_after_warmup);
    assert!(growth < 16 << 20, "memory grew by {} KiB", growth >> 10);
}

/// Each solid instance has a collider exactly when its piece has one.
fn assert_instance_colliders_follow_their_pieces(app: &mut App) -> usize {
    let mut q =
        app.world_mut()
            .query::<(&bevy_noise_terrain::ScatterInstance, &bevy_noise_terrain::ScatterOf, Has<Collider>)>();
    let list: Vec<_> = q.iter(app.world()).map(|(i, of, has)| (*i, of.0, has)).collect();
    let mut with = 0;
    for (instance, piece, has) in list {
        let piece_has = app.world().get::<RigidBody>(piece).is_some();
        let solid = instance.solid && instance.shape != bevy_noise_terrain::core::ScatterShape::Reed;
        assert_eq!(has, solid && piece_has, "{instance:?}, piece collider {piece_has}");
        with += usize::from(has);
    }
    with
}

#[test]
fn solid_things_get_colliders_with_their_pieces_and_a_ball_rests_on_one() {
    use bevy_noise_terrain::core::{ScatterLayer, ScatterRule, ScatterShape};
    // Flat-topped crates (the game's own mesh: its box is the collider), and rocks and reeds.
    let crates = ScatterLayer {
        name: "crates".into(),
        shape: ScatterShape::Custom,
        solid: true,
        rule: ScatterRule {
            density: 0.005,
            spacing: 6.0,
            heights: [0.0, 10.0],
            slopes: [0.0, 90.0],
            scale: [1.0, 1.0],
            ..default()
        },
        view_distance: 400.0,
        ..default()
    };
    let rocks = ScatterLayer { name: "rocks".into(), shape: ScatterShape::Rock, ..crates.clone() };
    let reeds = ScatterLayer { name: "reeds".into(), shape: ScatterShape::Reed, ..crates.clone() };
    let layout =
        TerrainLayout::Endless { chunk_size: 32.0, chunk_vertices: 17, view_distance: 300.0, lod_levels: 3 };
    let params = TerrainPreset { scatter: vec![crates, rocks, reeds], water_level: 0.0, ..gentle(layout) };
    let mut app = app_with(params);
    app.init_asset::<StandardMaterial>();
    let mesh = app
        .world_mut()
        .resource_mut::<Assets<Mesh>>()
        .add(Mesh::from(Cuboid::new(4.0, 2.0, 4.0)).translated_by(Vec3::Y));
    let material =
        app.world_mut().resource_mut::<Assets<StandardMaterial>>().add(StandardMaterial::default());
    app.world_mut().resource_mut::<bevy_noise_terrain::ScatterLooks>().set_custom("crates", mesh, material);
    settle(&mut app);
    let near = assert_instance_colliders_follow_their_pieces(&mut app);
    assert!(near > 20, "{near} things with colliders");
    let mut q = app.world_mut().query::<(&bevy_noise_terrain::ScatterInstance, Has<Collider>)>();
    assert!(q.iter(app.world()).all(|(i, has)| i.shape != ScatterShape::Reed || !has), "reeds never");
    // A ball dropped on the crate nearest the origin rests on its top, 2 units up.
    let mut q =
        app.world_mut().query::<(&GlobalTransform, &bevy_noise_terrain::ScatterInstance, Has<Collider>)>();
    let spot = q
        .iter(app.world())
        .filter(|(_, i, has)| i.shape == ScatterShape::Custom && *has)
        .map(|(at, ..)| at.translation())
        .min_by(|a, b| a.xz().length().total_cmp(&b.xz().length()))
        .unwrap();
    let ball = drop_balls(&mut app, &[spot.xz()], 0.5)[0];
    app.world_mut().entity_mut(ball).remove::<KeepAboveTerrain>();
    app.world_mut().entity_mut(ball).get_mut::<Transform>().unwrap().translation.y = spot.y + 4.0;
    run_until_rest(&mut app, &[ball], 20.0);
    let p = app.world().get::<Transform>(ball).unwrap().translation;
    assert!((p.y - 0.5 - spot.y - 2.0).abs() < 0.3, "the ball at {p} is not on the crate at {spot}");
    // Far away, the pieces there have no colliders and neither do their things.
    common::move_focus(&mut app, Vec3::new(5000.0, 0.0, 0.0));
    settle(&mut app);
    assert_instance_colliders_follow_their_pieces(&mut app);
}
