//! Headless tests of the endless layout: chunks around a focus, levels of detail, stitching,
//! parameter changes and queries.

mod common;

use common::{app_with_focus as app_with, jobs_started, move_focus, settle};

use std::collections::{HashMap, HashSet};

use bevy::mesh::VertexAttributeValues;
use bevy::prelude::*;
use bevy_noise_terrain::core::advanced::Side;
use bevy_noise_terrain::core::{ChunkKey, EndlessRivers, ErosionFilter};
use bevy_noise_terrain::prelude::*;
use bevy_noise_terrain::{BuildPriority, PieceHeights, PieceKey, TerrainValidation};

const CHUNK: f32 = 32.0;

fn endless() -> TerrainPreset {
    TerrainPreset {
        layout: TerrainLayout::Endless {
            chunk_size: CHUNK,
            chunk_vertices: 17,
            view_distance: 400.0,
            lod_levels: 3,
        },
        height_scale: 30.0,
        ..default()
    }
}

/// Every shown chunk: key, entity translation, mesh positions and normals.
struct Chunk {
    key: ChunkKey,
    /// `[min x, min z, max x, max z]` of its square.
    bounds: [f32; 4],
    translation: Vec3,
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    shown: u64,
}

fn chunks(app: &mut App) -> HashMap<ChunkKey, Chunk> {
    let mut q = app.world_mut().query::<(&TerrainPiece, &Mesh3d, &Transform, &Visibility)>();
    let world = app.world();
    let meshes = world.resource::<Assets<Mesh>>();
    let mut out = HashMap::new();
    for (piece, mesh, transform, visibility) in q.iter(world) {
        let (PieceKey::Chunk(key), Some((shown, _))) =
            (piece.spec.key, piece.shown.as_ref().map(|s| (s.generation, s.stitch)))
        else {
            continue;
        };
        if *visibility == Visibility::Hidden {
            continue;
        }
        let mesh = meshes.get(&mesh.0).unwrap();
        let float3 = |id| match mesh.attribute(id) {
            Some(VertexAttributeValues::Float32x3(v)) => v.clone(),
            other => panic!("{other:?}"),
        };
        let b = piece.bounds.map(|v| v as f32);
        let chunk = Chunk {
            key,
            bounds: b,
            translation: transform.translation,
            positions: float3(Mesh::ATTRIBUTE_POSITION),
            normals: float3(Mesh::ATTRIBUTE_NORMAL),
            shown,
        };
        out.insert(key, chunk);
    }
    out
}

/// Spacing of the world lattice the coverage checks sample.
const LATTICE: f32 = 15.3;

/// The points `(i, j)` of the lattice (at `i · LATTICE, j · LATTICE`) within `radius` of `focus`.
fn lattice_near(focus: Vec3, radius: f32) -> Vec<(i32, i32)> {
    let (ci, cj) = ((focus.x / LATTICE).round() as i32, (focus.z / LATTICE).round() as i32);
    let reach = (radius / LATTICE).ceil() as i32 + 1;
    let mut points = Vec::new();
    for j in cj - reach..=cj + reach {
        for i in ci - reach..=ci + reach {
            let (x, z) = (i as f32 * LATTICE, j as f32 * LATTICE);
            if (x - focus.x).hypot(z - focus.z) <= radius {
                points.push((i, j));
            }
        }
    }
    points
}

/// Vertex indices of one edge of an `n × n` grid, in order.
fn edge(n: usize, side: Side) -> Vec<usize> {
    (0..n)
        .map(|k| match side {
            Side::West => k * n,
            Side::East => k * n + n - 1,
            Side::North => k,
            Side::South => (n - 1) * n + k,
        })
        .collect()
}

#[test]
fn chunks_appear_around_the_focus_and_their_count_stays_steady_over_10_km() {
    let mut app = app_with(endless());
    settle(&mut app);
    let first = chunks(&mut app);
    assert!(first.len() > 20, "{} chunks", first.len());
    assert!(first.contains_key(&ChunkKey { level: 0, x: 0, z: 0 }));
    assert!(first.contains_key(&ChunkKey { level: 0, x: -1, z: -1 }));
    assert!(first.keys().any(|k| k.level == 2), "coarse chunks far away");
    let counts = |app: &App| {
        (app.world().resource::<Assets<Mesh>>().len(), app.world().resource::<Assets<Image>>().len())
    };
    let mut most = counts(&app);
    for step in 1..=10 {
        move_focus(&mut app, Vec3::new(1000.0 * step as f32, 0.0, -300.0 * step as f32));
        settle(&mut app);
        let now = chunks(&mut app);
        let near = ChunkKey {
            level: 0,
            x: (1000.0 * step as f32 / CHUNK).floor() as i64,
            z: (-300.0 * step as f32 / CHUNK).floor() as i64,
        };
        assert!(now.contains_key(&near), "step {step}: no fine chunk under the focus");
        assert!(
            now.len().abs_diff(first.len()) <= first.len() / 5,
            "{} vs {} chunks",
            now.len(),
            first.len()
        );
        let c = counts(&app);
        most = (most.0.max(c.0), most.1.max(c.1));
    }
    let live = chunks(&mut app).len();
    let pool = bevy_noise_terrain::pieces::ASSET_POOL_SIZE;
    assert!(most.0 <= live + pool + 8 && most.1 <= live + pool + 8, "{most:?} assets for {live} chunks");
}

#[test]
fn neighbours_share_edges_and_joins_between_levels_are_stitched() {
    edges_are_shared_and_stitched(endless());
}

#[test]
fn with_the_erosion_filter_neighbours_share_edges_and_joins_are_stitched() {
    let mut params = endless();
    params.noise.erosion_filter = ErosionFilter { enabled: true, ..default() };
    assert!(params.noise.sampler().has_erosion_filter());
    edges_are_shared_and_stitched(params);
}

/// Same-level neighbours bit-identical at their edges (positions and normals), every fine vertex
/// of a join between levels on the coarse edge, no triangle facing down.
fn edges_are_shared_and_stitched(params: TerrainPreset) {
    let mut app = app_with(params);
    move_focus(&mut app, Vec3::new(37.0, 0.0, -81.0));
    settle(&mut app);
    let report = edge_faults(&chunks(&mut app));
    assert!(report.faults.is_empty(), "{:#?}", report.faults);
    assert!(report.same > 20 && report.joins > 4, "{} same-level edges, {} joins", report.same, report.joins);
}

/// What [`edge_faults`] found: edges checked, and what is wrong.
struct EdgeReport {
    same: usize,
    joins: usize,
    faults: Vec<String>,
}

/// Checks every shown chunk's edges against the shown chunk across each: same level,
/// bit-identical positions (in world space) and normals; coarser (any number of levels), every
/// fine edge vertex within 1e-4 of the coarse edge. And no triangle faces down.
fn edge_faults(chunks: &HashMap<ChunkKey, Chunk>) -> EdgeReport {
    let n = 17;
    let mut report = EdgeReport { same: 0, joins: 0, faults: Vec::new() };
    for (key, chunk) in chunks {
        for side in Side::ALL {
            let across = key.neighbour(side);
            if let Some(other) = chunks.get(&across) {
                for (a, b) in edge(n, side).into_iter().zip(edge(n, side.opposite())) {
                    let pa = chunk.translation + Vec3::from_array(chunk.positions[a]);
                    let pb = other.translation + Vec3::from_array(other.positions[b]);
                    if pa != pb || chunk.normals[a] != other.normals[b] {
                        report.faults.push(format!("{key:?} {side:?}: {pa} vs {pb} beside the same level"));
                        break;
                    }
                }
                report.same += 1;
                continue;
            }
            // The coarser chunk across, if one shows there (an ancestor of the chunk across that
            // is not the chunk's own).
            let ancestor = |k: ChunkKey, level: u8| (k.level..level).fold(k, |k, _| k.parent());
            let coarse = (key.level + 1..=key.level + 8)
                .map(|level| ancestor(across, level))
                .take_while(|a| *a != ancestor(*key, a.level))
                .find_map(|a| chunks.get(&a));
            let Some(coarse) = coarse else { continue };
            let along = |p: Vec3| if matches!(side, Side::West | Side::East) { p.z } else { p.x };
            let across_of = |p: Vec3| if matches!(side, Side::West | Side::East) { p.x } else { p.z };
            let coarse_edge: Vec<Vec3> = edge(n, side.opposite())
                .into_iter()
                .map(|i| coarse.translation + Vec3::from_array(coarse.positions[i]))
                .collect();
            for i in edge(n, side) {
                let p = chunk.translation + Vec3::from_array(chunk.positions[i]);
                let Some(k) = coarse_edge.iter().rposition(|q| along(*q) <= along(p) + 1e-3) else {
                    continue;
                };
                let q0 = coarse_edge[k];
                let y = match coarse_edge.get(k + 1) {
                    Some(q1) if (along(p) - along(q0)).abs() > 1e-3 => {
                        q0.y + (along(p) - along(q0)) / (along(*q1) - along(q0)) * (q1.y - q0.y)
                    }
                    _ => q0.y,
                };
                if (p.y - y).abs() >= 1e-4 || (across_of(p) - across_of(q0)).abs() > 1e-3 {
                    report.faults.push(format!(
                        "{key:?} {side:?}: {} off the coarse edge of {:?}",
                        p.y - y,
                        coarse.key
                    ));
                    break;
                }
            }
            report.joins += 1;
        }
        // No triangle at any edge is degenerate or faces down.
        for quad in 0..(n - 1) * (n - 1) {
            let (x, z) = (quad % (n - 1), quad / (n - 1));
            let [a, b, c, d] = [z * n + x, z * n + x + 1, (z + 1) * n + x, (z + 1) * n + x + 1]
                .map(|i| Vec3::from_array(chunk.positions[i]));
            if [[a, c, b], [b, c, d]].iter().any(|[p, q, r]| (*q - *p).cross(*r - *p).y <= 1e-6) {
                report.faults.push(format!("{key:?}: a triangle faces down"));
            }
        }
    }
    report
}

/// Checks every frame of a flight: no crack or overlap at any edge or join, no point of the
/// ground covered twice, none that had ground losing it; counts what the flight exercised.
#[derive(Default)]
struct FlightCheck {
    /// Frames whose set of shown chunks differed from the frame before.
    changes: usize,
    /// Frames in which a finished build waited for its neighbours' (a swap in progress).
    waits: usize,
    /// Joins between levels checked.
    joins: usize,
    /// Lattice points near the focus that waited for their first build, summed over frames.
    uncovered: usize,
    covered: HashSet<(i32, i32)>,
    keys_before: Vec<ChunkKey>,
}

impl FlightCheck {
    fn frame(&mut self, app: &mut App, focus: Vec3, frame: usize) {
        let chunks = chunks(app);
        let report = edge_faults(&chunks);
        assert!(report.faults.is_empty(), "frame {frame}: {:#?}", report.faults);
        self.joins += report.joins;
        // Points of a fixed world lattice within 250 units of the focus (the view is 400): none
        // lies in two shown chunks (no overlap), and none that had ground in the frame before
        // loses it (no hole). Ground entering the view may wait for its first build: that is
        // latency, not a hole, and the settled view is covered everywhere.
        let bounds: Vec<[f32; 4]> = chunks.values().map(|c| c.bounds).collect();
        let mut covered_now = HashSet::new();
        for (point, p, covering) in coverage(&bounds, focus) {
            assert!(covering <= 1, "frame {frame}: {covering} chunks over {p:?}");
            if covering == 1 {
                covered_now.insert(point);
            } else {
                assert!(!self.covered.contains(&point), "frame {frame}: the ground at {p:?} went");
                self.uncovered += 1;
            }
        }
        self.covered = covered_now;
        let mut keys: Vec<ChunkKey> = chunks.keys().copied().collect();
        keys.sort_by_key(|k| (k.level, k.x, k.z));
        self.changes += usize::from(keys != self.keys_before);
        self.keys_before = keys;
        let mut q = app.world_mut().query::<&TerrainPiece>();
        self.waits += usize::from(q.iter(app.world()).any(TerrainPiece::is_waiting));
    }

    /// The settled view around `focus` is covered everywhere, once.
    fn settled(app: &mut App, focus: Vec3) {
        let bounds: Vec<[f32; 4]> = chunks(app).values().map(|c| c.bounds).collect();
        for (_, p, covering) in coverage(&bounds, focus) {
            assert_eq!(covering, 1, "settled: {covering} chunks over {p:?}");
        }
    }
}

/// Each lattice point within 250 units of `focus` (the view is 400): the point, its position
/// and how many of the chunk squares `bounds` cover it.
fn coverage(bounds: &[[f32; 4]], focus: Vec3) -> Vec<((i32, i32), [f32; 2], usize)> {
    lattice_near(focus, 250.0)
        .into_iter()
        .map(|point| {
            let p = [point.0 as f32 * LATTICE, point.1 as f32 * LATTICE];
            let covering =
                bounds.iter().filter(|b| b[0] <= p[0] && p[0] < b[2] && b[1] <= p[1] && p[1] < b[3]).count();
            (point, p, covering)
        })
        .collect()
}

/// The focus of frame `frame`: diagonally at about 6 units a frame, so that a level boundary
/// crosses a chunk every few frames.
fn diagonal(frame: usize) -> Vec3 {
    Vec3::new(frame as f32 * 5.0, 0.0, frame as f32 * -3.0)
}

/// Builds in the frame (`BuildPriority::InFrame`): every build lands the frame after it starts,
/// so the flight's frames are the same on every machine, and the counts it asserts with them.
#[test]
fn no_frame_of_a_flight_with_level_changes_shows_a_crack_a_hole_or_an_overlap() {
    drop(flight_in_the_frame(endless()));
}

/// The endless test world with rivers and lakes: a map unit of 800 units, so that a drainage
/// region (half a map unit) spans a dozen chunks, rivers from a unit wide up.
fn endless_with_rivers() -> TerrainPreset {
    let rivers = EndlessRivers {
        enabled: true,
        min_area: 400.0,
        width: 0.05,
        channel_depth: 1.5,
        valley_width: 12.0,
        lakes: true,
    };
    TerrainPreset { world_size: 800.0, endless_rivers: rivers, ..endless() }
}

#[test]
fn with_rivers_no_frame_of_a_flight_with_level_changes_shows_a_crack_a_hole_or_an_overlap() {
    let app = flight_in_the_frame(endless_with_rivers());
    // The rivers are there: chunks with river lines, and water where they run.
    let mut app = app;
    let mut q = app.world_mut().query::<(&TerrainRivers, &Transform, &Visibility)>();
    let mut vertices = Vec::new();
    for (rivers, at, visibility) in q.iter(app.world()) {
        if *visibility != Visibility::Hidden {
            let mid = |l: &bevy_noise_terrain::RiverLine| l.vertices[l.vertices.len() / 2];
            vertices.extend(rivers.lines.iter().map(|l| (mid(l), at.translation)));
        }
    }
    assert!(vertices.len() > 20, "{} river lines on the shown chunks", vertices.len());
    // The water query finds each river where its line runs, at its water's height, and the
    // water lies in a channel: the ground there is below it.
    let mut state = bevy::ecs::system::SystemState::<TerrainQuery>::new(app.world_mut());
    let query = state.get(app.world()).unwrap();
    let mut near = 0;
    for (v, _) in &vertices {
        let p = v.position;
        let water = query.water_at(p.x, p.z).unwrap_or_else(|| panic!("no water at {p}"));
        let Water::River { height, width, flow } = water else { panic!("{water:?} at a river's vertex") };
        assert!((height - p.y).abs() < 1e-3 * (1.0 + p.y.abs()), "{height} against {}", p.y);
        assert!((width - v.width).abs() < 1e-4 * (1.0 + v.width), "width {width} against {}", v.width);
        assert!((flow.length() - 1.0).abs() < 1e-4, "{flow}");
        // Near the focus (the finest chunks, two units between vertices) the mesh resolves the
        // channel: its ground at the river's line is below the banks (a quarter of the 1.5-unit
        // channel above the water).
        if p.xz().distance(diagonal(319).xz()) < CHUNK {
            let ground = query.height_at(p.x, p.z).unwrap();
            assert!(ground < height + 0.375, "ground {ground} over the banks of the water {height} at {p}");
            near += 1;
        }
    }
    println!("{} river lines, {near} near the focus", vertices.len());
}

#[test]
fn with_rivers_neighbours_share_edges_and_joins_are_stitched() {
    edges_are_shared_and_stitched(endless_with_rivers());
}

/// A flight over `params` built in the frame, every frame checked; the app after it.
fn flight_in_the_frame(params: TerrainPreset) -> App {
    let mut app = app_with(params);
    app.insert_resource(BuildPriority::InFrame);
    settle(&mut app);
    let mut check = FlightCheck::default();
    for frame in 0..320 {
        move_focus(&mut app, diagonal(frame));
        app.update();
        check.frame(&mut app, diagonal(frame), frame);
    }
    settle(&mut app);
    FlightCheck::settled(&mut app, diagonal(319));
    let FlightCheck { changes, waits, joins, uncovered, .. } = check;
    println!(
        "{changes} frames with a new set of chunks, {waits} with a build waiting for its neighbours, {joins} joins checked, {uncovered} point-frames waited for a first build"
    );
    assert!(changes > 40, "only {changes} frames changed the chunks");
    assert!(waits > 10, "only {waits} frames had a build waiting: the test did not catch a swap in progress");
    app
}

/// The same flight on the build threads, as a game runs it: each step of the focus waits for
/// its builds to land (by their events), and every frame in between is checked, however the
/// builds' landings fall on a machine of any speed or load.
#[test]
fn no_frame_of_a_stepped_flight_on_the_build_threads_shows_a_crack_a_hole_or_an_overlap() {
    stepped_flight_on_the_build_threads(endless());
}

/// With rivers, the chunks whose regions are not routed yet route them on a thread of their own
/// while the others build on the chunk threads: every frame still whole.
#[test]
fn with_rivers_no_frame_of_a_stepped_flight_on_the_build_threads_shows_a_crack_a_hole_or_an_overlap() {
    stepped_flight_on_the_build_threads(endless_with_rivers());
}

/// A flight over `params` on the build threads whose every step waits for its builds, every
/// frame checked.
fn stepped_flight_on_the_build_threads(params: TerrainPreset) {
    let mut app = app_with(params);
    settle(&mut app);
    let mut check = FlightCheck::default();
    let (mut frame, mut steps_with_new_chunks, mut keys_before) = (0, 0, check.keys_before.clone());
    for step in 0..160 {
        let focus = diagonal(2 * step);
        move_focus(&mut app, focus);
        for _ in 0..2 {
            app.update();
            check.frame(&mut app, focus, frame);
            frame += 1;
        }
        while !common::settled(&mut app) {
            common::update_and_wait_for_builds(&mut app);
            check.frame(&mut app, focus, frame);
            frame += 1;
        }
        steps_with_new_chunks += usize::from(check.keys_before != keys_before);
        keys_before = check.keys_before.clone();
    }
    FlightCheck::settled(&mut app, diagonal(318));
    println!(
        "{frame} frames, {} with a new set of chunks, {} with a build waiting for its neighbours, {} joins checked",
        check.changes, check.waits, check.joins
    );
    assert!(steps_with_new_chunks > 40, "only {steps_with_new_chunks} steps changed the chunks");
}

#[test]
fn a_parameter_change_builds_every_chunk_once_nearest_first_and_shows_them_all_at_once() {
    let mut app = app_with(endless());
    settle(&mut app);
    let before = chunks(&mut app);
    let started = jobs_started(&mut app);
    app.world_mut().resource_mut::<TerrainParams>().noise.seed = 77;
    // The order in which chunks start building, and that every frame shows one generation.
    let mut order: Vec<ChunkKey> = Vec::new();
    for frame in 0.. {
        assert!(frame < 100_000, "the new generation did not reach every chunk in {frame} frames");
        common::update_and_wait_for_builds(&mut app);
        let mut q = app.world_mut().query::<&TerrainPiece>();
        for piece in q.iter(app.world()) {
            if let PieceKey::Chunk(key) = piece.spec.key
                && piece.is_building()
                && !order.contains(&key)
            {
                order.push(key);
            }
        }
        let now = chunks(&mut app);
        assert!(now.len() == before.len(), "no chunk disappears during the change");
        let generations: std::collections::HashSet<u64> = now.values().map(|c| c.shown).collect();
        assert_eq!(generations.len(), 1, "old and new chunks side by side: {generations:?}");
        if generations.contains(&2) {
            break;
        }
    }
    settle(&mut app);
    assert_eq!(jobs_started(&mut app) - started, before.len() as u64, "one job per chunk");
    assert_eq!(order.len(), before.len());
    let distance = |k: &ChunkKey| k.distance_to([0.0, 0.0], f64::from(CHUNK));
    let quarter = order.len() / 4;
    let mean = |keys: &[ChunkKey]| keys.iter().map(distance).sum::<f64>() / keys.len() as f64;
    assert!(mean(&order[..quarter]) < mean(&order[order.len() - quarter..]), "not nearest first");
    // A burst of ten changes ends at the last settings.
    for seed in 0..10 {
        app.world_mut().resource_mut::<TerrainParams>().noise.seed = 1000 + seed;
        app.update();
    }
    settle(&mut app);
    let mut q = app.world_mut().query::<&PieceHeights>();
    assert!(q.iter(app.world()).all(|h| h.params.noise.seed == 1009));
    assert_eq!(app.world().resource::<TerrainStats>().generation, 12);
}

#[test]
fn queries_agree_with_the_meshes_and_rays_from_afar_hit() {
    let mut app = app_with(endless());
    settle(&mut app);
    let chunks = chunks(&mut app);
    let mut state = bevy::ecs::system::SystemState::<TerrainQuery>::new(app.world_mut());
    let query = state.get(app.world()).unwrap();
    // On every vertex of a few chunks, height_at is the vertex height.
    for chunk in chunks.values().take(12) {
        for p in chunk.positions.iter().step_by(7) {
            let world = chunk.translation + Vec3::from_array(*p);
            let h = query.height_at(world.x, world.z).expect("inside a loaded chunk");
            assert!((h - world.y).abs() < 1e-3 * (1.0 + world.y.abs()), "{h} vs {}", world.y);
            let n = query.normal_at(world.x, world.z).unwrap();
            assert!(n.y > 0.0 && (n.length() - 1.0).abs() < 1e-4);
        }
    }
    // Rays from a million units away, grazing rays, and a ray straight down all hit the ground.
    for (origin, target) in [
        (Vec3::new(1e6, 3e5, -2e5), Vec3::new(10.0, 0.0, 20.0)),
        (Vec3::new(-390.0, 31.0, 0.0), Vec3::new(0.0, 0.0, 0.0)),
        (Vec3::new(5.0, 500.0, 5.0), Vec3::new(5.0, 0.0, 5.0)),
    ] {
        let ray = Ray3d::new(origin, Dir3::new(target - origin).unwrap());
        let hit = query.raycast(ray).unwrap_or_else(|| panic!("a ray from {origin} missed"));
        let ground = query.height_at(hit.x, hit.z).unwrap();
        assert!((hit.y - ground).abs() < 0.05, "{hit} vs ground {ground}");
    }
    assert_eq!(query.raycast(Ray3d::new(Vec3::new(0.0, 500.0, 0.0), Dir3::Y)), None);
    assert_eq!(query.height_at(1e6, 1e6), None, "nothing is loaded there");
}

#[test]
fn bad_layout_values_are_clamped_and_the_last_terrain_stays() {
    let mut app = app_with(endless());
    settle(&mut app);
    let shown = app.world().resource::<TerrainStats>().pieces_shown;
    for bad in [
        TerrainLayout::Endless { chunk_size: 0.0, chunk_vertices: 1, view_distance: 1e9, lod_levels: 100 },
        TerrainLayout::Endless {
            chunk_size: f32::NAN,
            chunk_vertices: 64,
            view_distance: f32::NAN,
            lod_levels: 0,
        },
    ] {
        app.world_mut().resource_mut::<TerrainParams>().layout = bad;
        // The first frames after the change still show the last terrain.
        app.update();
        assert!(app.world().resource::<TerrainStats>().pieces_shown > 0);
        let fields: Vec<_> = app.world().resource::<TerrainValidation>().0.iter().map(|c| c.field).collect();
        assert!(fields.contains(&"layout"), "{fields:?}");
        settle(&mut app);
        let stats = app.world().resource::<TerrainStats>();
        assert!(stats.pieces_shown > 0 && stats.vertex_count > 0);
    }
    // Back to a good layout: a terrain like the first.
    app.world_mut().resource_mut::<TerrainParams>().layout = endless().layout;
    settle(&mut app);
    assert_eq!(app.world().resource::<TerrainStats>().pieces_shown, shown);
}

#[test]
fn a_chunk_despawned_by_game_code_comes_back() {
    let mut app = app_with(endless());
    settle(&mut app);
    let shown = app.world().resource::<TerrainStats>().pieces_shown;
    let mut q = app.world_mut().query::<(Entity, &TerrainPiece)>();
    let (victim, key) = q.iter(app.world()).map(|(e, p)| (e, p.spec.key)).next().expect("a piece");
    app.world_mut().entity_mut(victim).despawn();
    settle(&mut app);
    let mut q = app.world_mut().query::<&TerrainPiece>();
    let again: Vec<_> = q.iter(app.world()).filter(|p| p.spec.key == key).collect();
    assert_eq!(again.len(), 1, "{key:?} is wanted: a new piece takes its place");
    assert!(again[0].shown.is_some(), "and shows");
    assert_eq!(app.world().resource::<TerrainStats>().pieces_shown, shown);
}

/// A chunk stitched anew as the levels around it change starts from the samples of its build
/// before, and the samples go once kept for `CHUNK_SAMPLES_KEPT_FOR` of the app's real time.
#[test]
fn chunks_stitched_anew_start_from_their_kept_samples_which_go_in_time() {
    use bevy::time::TimeUpdateStrategy;
    use bevy_noise_terrain::pieces::CHUNK_SAMPLES_KEPT_FOR;
    let mut app = app_with(endless());
    // The real-time clock stands still until the end (the samples' age is read on it).
    app.insert_resource(TimeUpdateStrategy::ManualDuration(std::time::Duration::ZERO));
    settle(&mut app);
    let kept = |app: &mut App| {
        let mut q = app.world_mut().query::<(Entity, &TerrainPiece)>();
        q.iter(app.world())
            .filter(|(_, p)| p.shown.is_some() && !p.retiring)
            .map(|(e, p)| (e, (p.spec.stitch, p.kept_samples().cloned())))
            .collect::<HashMap<_, _>>()
    };
    let before = kept(&mut app);
    assert!(before.values().all(|(_, samples)| samples.is_some()), "every chunk keeps its samples");
    // Two chunk sizes along x: the levels' rings move, and chunks beside them are stitched anew.
    move_focus(&mut app, Vec3::new(2.0 * CHUNK, 0.0, 0.0));
    settle(&mut app);
    let after = kept(&mut app);
    let restitched: Vec<_> =
        after.iter().filter(|(e, (stitch, _))| before.get(e).is_some_and(|(was, _)| was != stitch)).collect();
    assert!(restitched.len() > 4, "only {} chunks stitched anew", restitched.len());
    for (entity, (_, samples)) in restitched {
        let (now, then) = (samples.as_ref(), before[entity].1.as_ref());
        assert!(now.zip(then).is_some_and(|(a, b)| std::sync::Arc::ptr_eq(a, b)), "{entity}: sampled again");
    }
    app.insert_resource(TimeUpdateStrategy::ManualDuration(CHUNK_SAMPLES_KEPT_FOR * 2));
    app.update();
    assert!(kept(&mut app).values().all(|(_, samples)| samples.is_none()), "samples kept past their time");
}

/// A chunk stitched anew keeps its river water (the same entity and mesh: nothing to make or
/// upload again), and every chunk with rivers has one water child.
#[test]
fn a_chunk_stitched_anew_keeps_its_river_water() {
    let mut app = app_with(endless_with_rivers());
    settle(&mut app);
    let waters = |app: &mut App| {
        let mut children =
            app.world_mut().query_filtered::<(Entity, &ChildOf), With<bevy_noise_terrain::RiverWater>>();
        let mut by_piece: HashMap<Entity, Vec<Entity>> = HashMap::new();
        for (water, parent) in children.iter(app.world()) {
            by_piece.entry(parent.parent()).or_default().push(water);
        }
        let mut pieces = app.world_mut().query::<(Entity, &TerrainPiece, Option<&TerrainRivers>)>();
        pieces
            .iter(app.world())
            .filter(|(_, p, _)| p.shown.is_some() && !p.retiring)
            .map(|(e, p, rivers)| {
                (e, (p.spec.stitch, rivers.cloned(), by_piece.get(&e).cloned().unwrap_or_default()))
            })
            .collect::<HashMap<_, _>>()
    };
    let before = waters(&mut app);
    move_focus(&mut app, Vec3::new(2.0 * CHUNK, 0.0, 0.0));
    settle(&mut app);
    let after = waters(&mut app);
    let mut kept = 0;
    for (entity, (stitch, rivers, water)) in &after {
        assert_eq!(water.len(), usize::from(rivers.is_some()), "{entity}: {} water children", water.len());
        let Some((was_stitch, was_rivers, was_water)) = before.get(entity) else { continue };
        if was_stitch != stitch && rivers.is_some() && was_rivers == rivers {
            assert_eq!(was_water, water, "{entity}: its water was made again");
            kept += 1;
        }
    }
    assert!(kept > 0, "no chunk with rivers was stitched anew");
}

#[test]
fn after_a_flight_faster_than_the_builds_the_terrain_settles() {
    // At 40 units a frame most chunks retire before their builds land; a retiring piece that
    // went with a build it never showed once kept the terrain "waiting" for ever.
    let mut app = app_with(endless());
    settle(&mut app);
    for frame in 1..=50 {
        move_focus(&mut app, Vec3::new(40.0 * frame as f32, 0.0, 7.0 * frame as f32));
        app.update();
    }
    settle(&mut app);
    let stats = app.world().resource::<TerrainStats>().clone();
    assert_eq!(stats.pieces_shown, common::jobs(&mut app).desired().len());
    assert_eq!((stats.pieces_queued, stats.pieces_building), (0, 0));
}
