//! Scatter and sea in a headless app: instances stand on the drawn ground where their rules
//! allow, are exactly the points the query gives, come and go with their pieces frame by frame,
//! share their assets, and the sea follows its switch and the focus.

mod common;

use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use bevy_noise_terrain::core::advanced::slope_degrees;
use bevy_noise_terrain::core::{ScatterLayer, ScatterRule, ScatterShape};
use bevy_noise_terrain::prelude::*;
use bevy_noise_terrain::{
    BuildPriority, PieceHeights, PieceKey, ScatterBatch, ScatterBudget, ScatterEntities, ScatterInstance,
    ScatterLooks, ScatterOf, ScatterOnPiece, SeaSurface,
};
use common::{app_with_focus, default_terrain, move_focus, settle};

fn layers() -> Vec<ScatterLayer> {
    let trees = ScatterLayer {
        name: "trees".into(),
        rule: ScatterRule {
            seed: 5,
            density: 0.02,
            spacing: 2.0,
            heights: [0.0, 0.8],
            slopes: [0.0, 35.0],
            ..default()
        },
        view_distance: 250.0,
        ..default()
    };
    let rocks = ScatterLayer {
        name: "rocks".into(),
        rule: ScatterRule {
            seed: 6,
            density: 0.01,
            spacing: 3.0,
            heights: [0.0, 10.0],
            slopes: [15.0, 90.0],
            ..default()
        },
        shape: ScatterShape::Rock,
        align_to_ground: true,
        view_distance: 120.0,
        ..default()
    };
    vec![trees, rocks]
}

fn endless() -> TerrainPreset {
    TerrainPreset {
        layout: TerrainLayout::Endless {
            chunk_size: 32.0,
            chunk_vertices: 17,
            view_distance: 300.0,
            lod_levels: 3,
        },
        noise: NoiseSettings { octaves: 5, frequency: 3.0, seed: 3, ..default() },
        world_size: 400.0,
        height_scale: 60.0,
        water_level: 0.3,
        scatter: layers(),
        sea: true,
        ..default()
    }
}

/// New things a frame of streaming spawns at most in these tests: small, so that streaming
/// spreads spawns over frames here too (the settled checks wait for them).
const BUDGET: usize = 60;

/// An app whose pieces carry every thing as an entity, despawned as soon as no piece places it
/// (the tests of far batches and of the despawn budget set their own).
fn app(params: TerrainPreset) -> App {
    app_with(params, f32::INFINITY, usize::MAX)
}

/// An app whose pieces nearer than `near` carry entities, despawning at most `despawns` a frame.
fn app_with(params: TerrainPreset, near: f32, despawns: usize) -> App {
    let mut app = app_with_focus(params);
    app.init_asset::<StandardMaterial>()
        .insert_resource(ScatterBudget { spawns: BUDGET, despawns })
        .insert_resource(ScatterEntities { distance: near });
    app
}

/// Each instance: its world position, layer and piece.
fn instances(app: &mut App) -> Vec<(Vec3, u8, Entity)> {
    let mut q = app.world_mut().query::<(&GlobalTransform, &ScatterInstance, &ScatterOf)>();
    q.iter(app.world()).map(|(at, i, of)| (at.translation(), i.layer, of.0)).collect()
}

/// On the shown finest chunks, every point of each of `layers` stands, and nothing else; returns
/// how many chunks were looked at.
fn check_finest_chunks_carry_their_points(app: &mut App, layers: &[u8]) -> usize {
    let (pieces, list) = (shown_pieces(app), instances(app));
    let finest: Vec<_> =
        pieces.iter().filter(|p| matches!(p.1, PieceKey::Chunk(k) if k.level == 0)).collect();
    for &layer in layers {
        for &&(piece, key, b) in &finest {
            let shown: Vec<_> =
                list.iter().filter(|i| i.2 == piece && i.1 == layer).map(|i| [i.0.x, i.0.z]).collect();
            let rect = [b[0] as f32, b[1] as f32, b[2] as f32, b[3] as f32];
            let expected = queried(app, usize::from(layer), rect);
            assert!(same_points(&shown, &expected), "layer {layer} on {key:?}: {shown:?} {expected:?}");
        }
    }
    finest.len()
}

/// The things spawned since `things` (the instances a frame before) are at most the budget;
/// `things` becomes the instances now. Returns how many were spawned.
fn check_spawned_within_the_budget(app: &mut App, things: &mut HashSet<Entity>, frame: usize) -> usize {
    let now = thing_entities(app);
    let spawned = now.difference(things).count();
    assert!(spawned <= BUDGET, "frame {frame}: {spawned} things spawned");
    *things = now;
    spawned
}

/// Every instance's entity.
fn thing_entities(app: &mut App) -> HashSet<Entity> {
    let mut q = app.world_mut().query_filtered::<Entity, With<ScatterInstance>>();
    q.iter(app.world()).collect()
}

/// The shown pieces: entity, key, bounds.
fn shown_pieces(app: &mut App) -> Vec<(Entity, PieceKey, [f64; 4])> {
    let mut q = app.world_mut().query::<(Entity, &TerrainPiece, &Visibility)>();
    q.iter(app.world())
        .filter(|(_, _, v)| **v != Visibility::Hidden)
        .map(|(e, p, _)| (e, p.spec.key, p.bounds))
        .collect()
}

/// The layer's points in `rect` from the query, `(x, z)` as `f32`.
fn queried(app: &mut App, layer: usize, rect: [f32; 4]) -> Vec<[f32; 2]> {
    let terrain = default_terrain(app);
    let mut state = bevy::ecs::system::SystemState::<ScatterQuery>::new(app.world_mut());
    let query = state.get(app.world()).unwrap();
    let points = query.points(terrain, layer, rect).expect("a terrain with that layer");
    points.iter().map(|p| [p.position[0] as f32, p.position[2] as f32]).collect()
}

/// Whether two point sets are the same, to the rounding of a piece's `f32` translation.
fn same_points(a: &[[f32; 2]], b: &[[f32; 2]]) -> bool {
    let near = |p: &[f32; 2], q: &[f32; 2]| (p[0] - q[0]).abs() < 1e-3 && (p[1] - q[1]).abs() < 1e-3;
    a.len() == b.len() && a.iter().all(|p| b.iter().any(|q| near(p, q)))
}

/// Every instance stands on a shown piece, inside it, on its drawn ground, and no two of a layer
/// stand at one point.
fn check_instances_on_shown_pieces(app: &mut App) -> usize {
    let pieces = shown_pieces(app);
    let list = instances(app);
    let mut points = HashSet::new();
    for &(at, layer, _) in &list {
        assert!(
            points.insert((layer, at.x.to_bits(), at.z.to_bits())),
            "two things of layer {layer} at {at}"
        );
    }
    let mut q = app.world_mut().query::<&PieceHeights>();
    for &(at, _, piece) in &list {
        let Some(&(_, _, b)) = pieces.iter().find(|(e, ..)| *e == piece) else {
            panic!("an instance of a piece that is not shown");
        };
        let (x, z) = (f64::from(at.x), f64::from(at.z));
        assert!(
            x >= b[0] - 1e-3 && x <= b[2] + 1e-3 && z >= b[1] - 1e-3 && z <= b[3] + 1e-3,
            "{at} outside {b:?}"
        );
        let h = q.get(app.world(), piece).unwrap();
        let ground = h.geometry.placement(h.height_scale, [h.stats.min, h.stats.max]).height_at(&h.map, x, z);
        let ground = ground.expect("on its piece") as f32;
        assert!((ground - at.y).abs() < 1e-3, "{at} over ground {ground}");
    }
    list.len()
}

#[test]
fn instances_stand_where_their_rules_allow_and_are_the_querys_points() {
    let mut app = app(endless());
    settle(&mut app);
    let list = instances(&mut app);
    let trees = list.iter().filter(|i| i.1 == 0).count();
    let rocks = list.iter().filter(|i| i.1 == 1).count();
    assert!(trees > 200 && rocks > 10, "{trees} trees, {rocks} rocks");
    check_instances_on_shown_pieces(&mut app);
    // On the finest chunks every point of the rule stands, and nothing else.
    check_finest_chunks_carry_their_points(&mut app, &[0, 1]);
    // The rules' limits hold for every queried point: on land, slopes in range.
    let terrain = default_terrain(&mut app);
    let mut state = bevy::ecs::system::SystemState::<ScatterQuery>::new(app.world_mut());
    let query = state.get(app.world()).unwrap();
    for (layer, slopes) in [(0, [0.0, 35.0]), (1, [15.0, 90.0])] {
        let points = query.points(terrain, layer, [-200.0, -200.0, 200.0, 200.0]).unwrap();
        assert!(points.len() > 100, "layer {layer}: {}", points.len());
        for p in &points {
            let slope = slope_degrees(p.normal[1]);
            assert!(slope >= slopes[0] && slope <= slopes[1], "{slope}");
            assert!(p.position[1] > f64::from(0.3f32 * 60.0), "under water: {:?}", p.position);
        }
    }
    // Rocks beyond their view distance stand on no piece.
    let far_rocks =
        list.iter().filter(|i| i.1 == 1 && i.0.xz().length() > 120.0 + 3.0 * 32.0 * 1.5 * 2.0).count();
    assert_eq!(far_rocks, 0);
}

#[test]
fn instances_come_and_go_with_their_pieces_in_every_frame_of_a_flight() {
    let mut app = app(endless());
    settle(&mut app);
    let assets = |app: &App| {
        (
            app.world().resource::<Assets<Mesh>>().len(),
            app.world().resource::<Assets<StandardMaterial>>().len(),
        )
    };
    let mut counts = Vec::new();
    let mut mesh_counts = Vec::new();
    let mut entity_counts = Vec::new();
    let mut things = thing_entities(&mut app);
    // 10 km at 40 units a frame, with a look at every frame.
    for frame in 1..=250 {
        move_focus(&mut app, Vec3::new(40.0 * frame as f32, 0.0, 7.0 * frame as f32));
        app.update();
        // In flight new ground may wait for its first build (the focus outruns the builds
        // here); every instance shown stands on a shown piece, in every frame.
        check_instances_on_shown_pieces(&mut app);
        // Streaming spawns at most the budget in a frame; the rest wait.
        check_spawned_within_the_budget(&mut app, &mut things, frame);
        if frame % 50 == 0 {
            settle(&mut app);
            counts.push(check_instances_on_shown_pieces(&mut app));
            mesh_counts.push(assets(&app));
            entity_counts.push(app.world().entities().count_spawned() as usize);
            things = thing_entities(&mut app);
        }
    }
    // Steady: the count moves with the ground under the view, not with the distance flown.
    let (lo, hi) = counts.iter().fold((usize::MAX, 0), |(lo, hi), &c| (lo.min(c), hi.max(c)));
    assert!(lo > 0 && hi < lo * 3, "{counts:?}");
    let (lo, hi) = entity_counts.iter().fold((usize::MAX, 0), |(lo, hi), &c| (lo.min(c), hi.max(c)));
    assert!(hi < lo * 3, "entities {entity_counts:?}");
    // Mesh and material assets do not grow with the instances: one per shape, the terrain's pool.
    let first = mesh_counts[0];
    assert!(mesh_counts.iter().all(|&m| m.0 <= first.0 + 8 && m.1 <= first.1 + 8), "{mesh_counts:?}");
    let mut q = app.world_mut().query_filtered::<&Mesh3d, With<ScatterInstance>>();
    let handles: HashSet<_> = q.iter(app.world()).map(|m| m.0.id()).collect();
    assert_eq!(handles.len(), 2, "one mesh per layer's shape");
}

/// Updates until settled; in every frame at most the budget of things is spawned. Returns in
/// how many frames the budget held things back (it was spent and things still waited).
fn settle_within_the_budget(app: &mut App) -> usize {
    let (mut things, mut held_back) = (thing_entities(app), 0);
    for frame in 0.. {
        assert!(frame < 100_000, "not settled after {frame} frames");
        common::update_and_wait_for_builds(app);
        let spawned = check_spawned_within_the_budget(app, &mut things, frame);
        held_back += usize::from(spawned == BUDGET && common::jobs(app).is_busy());
        // Every shown thing stands on its shown piece, also while others wait.
        check_instances_on_shown_pieces(app);
        // A moved focus reaches the layout a frame later: a few frames always run.
        if frame > 3 && common::settled(app) {
            break;
        }
    }
    held_back
}

#[test]
fn streaming_spawns_new_things_within_the_budget_and_settles_with_all_of_them() {
    let mut app = app(endless());
    // From nothing, and after a step of a few chunks (new ground, splits and merges).
    let first = settle_within_the_budget(&mut app);
    move_focus(&mut app, Vec3::new(120.0, 0.0, 40.0));
    let step = settle_within_the_budget(&mut app);
    assert!(first > 5 && step > 0, "the budget held things back in {first} and {step} frames");
    // Settled, every point of the rule stands on the finest chunks: nothing was left waiting.
    assert!(check_finest_chunks_carry_their_points(&mut app, &[0]) > 0);
}

#[test]
fn a_piece_shown_anew_or_replacing_another_keeps_the_things_it_places_again() {
    let mut app = app(endless());
    settle(&mut app);
    // Each thing by its point, layer and piece; and what each piece shows.
    let things = |app: &mut App| {
        let mut q = app.world_mut().query::<(Entity, &ScatterInstance, &ScatterOf)>();
        let list: Vec<_> = q
            .iter(app.world())
            .map(|(e, i, of)| {
                (
                    (i.layer, i.in_terrain.translation.x.to_bits(), i.in_terrain.translation.z.to_bits()),
                    (e, of.0),
                )
            })
            .collect();
        list.into_iter().collect::<std::collections::HashMap<_, _>>()
    };
    let shows = |app: &mut App| {
        let mut q = app.world_mut().query::<(Entity, &TerrainPiece)>();
        q.iter(app.world()).map(|(e, p)| (e, p.shown.clone())).collect::<std::collections::HashMap<_, _>>()
    };
    let (before, shown_before) = (things(&mut app), shows(&mut app));
    // A step of one chunk: levels change around the focus, so neighbours are stitched anew.
    move_focus(&mut app, Vec3::new(40.0, 0.0, 0.0));
    settle(&mut app);
    let (after, shown_after) = (things(&mut app), shows(&mut app));
    let shown_anew: HashSet<Entity> = shown_after
        .iter()
        .filter(|(e, s)| shown_before.get(*e).is_some_and(|b| b != *s))
        .map(|(e, _)| *e)
        .collect();
    // Every thing at the same point on a piece that was shown anew is the same entity; so is
    // every thing at the same point on a piece that replaced the one it stood on (a finer or
    // coarser chunk over the same ground).
    let (mut kept, mut passed) = (0, 0);
    for (point, &(entity, piece)) in &after {
        let Some(&(was, on)) = before.get(point) else { continue };
        if on == piece && shown_anew.contains(&piece) {
            assert_eq!(was, entity, "a thing respawned at an unchanged point");
            kept += 1;
        } else if on != piece && !shown_after.contains_key(&on) {
            assert_eq!(was, entity, "a thing respawned on the piece that replaced its own");
            passed += 1;
        }
    }
    assert!(
        !shown_anew.is_empty() && kept > 10 && passed > 10,
        "{} pieces shown anew, {kept} things kept, {passed} passed on",
        shown_anew.len()
    );
}

/// `global` has the place and turn of `expected`.
fn check_stands_at(global: &GlobalTransform, expected: GlobalTransform) {
    assert!(global.translation().distance(expected.translation()) < 1e-2, "{global:?} vs {expected:?}");
    for axis in [Vec3::X, Vec3::Y] {
        assert!((global.rotation() * axis).distance(expected.rotation() * axis) < 1e-4);
    }
}

/// Every instance stands where its terrain entity's transform puts its place in the terrain,
/// with the visibility `visibility`; returns how many there are.
fn check_instances_follow_the_terrain(app: &mut App, visibility: Visibility) -> usize {
    let terrain = default_terrain(app);
    let frame = *app.world().get::<GlobalTransform>(terrain).unwrap();
    let mut q = app.world_mut().query::<(&GlobalTransform, &Transform, &Visibility, &ScatterInstance)>();
    let mut n = 0;
    for (global, transform, seen, thing) in q.iter(app.world()) {
        check_stands_at(global, frame.mul_transform(thing.in_terrain));
        assert!(transform.translation.distance(global.translation()) < 1e-2);
        assert_eq!(*seen, visibility);
        n += 1;
    }
    n
}

/// Every far piece's batch stands where its terrain entity's transform puts the piece's place in
/// the terrain (a batch whose piece went stands where it stood), with the visibility
/// `visibility`; returns how many there are.
fn check_batches_follow_the_terrain(app: &mut App, visibility: Visibility) -> usize {
    let terrain = default_terrain(app);
    let frame = *app.world().get::<GlobalTransform>(terrain).unwrap();
    let mut q = app.world_mut().query::<(&GlobalTransform, &Transform, &Visibility, &ScatterBatch)>();
    let mut n = 0;
    for (global, transform, seen, batch) in q.iter(app.world()) {
        assert_eq!(*seen, visibility);
        assert_eq!(*global, GlobalTransform::from(*transform));
        n += 1;
        let Some(piece) = app.world().get::<Transform>(batch.piece) else { continue };
        check_stands_at(global, frame.mul_transform(Transform::from_translation(piece.translation)));
    }
    n
}

#[test]
fn things_move_and_hide_with_their_terrain_entity() {
    // Near pieces carry entities, far ones batches.
    let mut app = app_with(endless(), 100.0, usize::MAX);
    settle(&mut app);
    assert!(check_instances_follow_the_terrain(&mut app, Visibility::Inherited) > 100);
    assert!(check_batches_follow_the_terrain(&mut app, Visibility::Inherited) > 10);
    let terrain = default_terrain(&mut app);
    let moved = Transform::from_xyz(300.0, -20.0, -150.0).with_rotation(Quat::from_rotation_y(0.7));
    app.world_mut().entity_mut(terrain).insert(moved);
    // In the frame the terrain moves, its things and batches stand where it put them.
    app.update();
    check_instances_follow_the_terrain(&mut app, Visibility::Inherited);
    check_batches_follow_the_terrain(&mut app, Visibility::Inherited);
    app.world_mut().entity_mut(terrain).insert(Visibility::Hidden);
    app.update();
    check_instances_follow_the_terrain(&mut app, Visibility::Hidden);
    check_batches_follow_the_terrain(&mut app, Visibility::Hidden);
    // Things placed while it is hidden and moved are hidden and moved too; shown again, all are.
    for frame in 1..=40 {
        move_focus(&mut app, Vec3::new(40.0 * frame as f32, 0.0, 0.0));
        app.update();
        check_instances_follow_the_terrain(&mut app, Visibility::Hidden);
        check_batches_follow_the_terrain(&mut app, Visibility::Hidden);
    }
    settle(&mut app);
    check_instances_follow_the_terrain(&mut app, Visibility::Hidden);
    assert!(check_batches_follow_the_terrain(&mut app, Visibility::Hidden) > 10);
    app.world_mut().entity_mut(terrain).insert(Visibility::Inherited);
    app.update();
    assert!(check_instances_follow_the_terrain(&mut app, Visibility::Inherited) > 100);
    assert!(check_batches_follow_the_terrain(&mut app, Visibility::Inherited) > 10);
}

#[test]
fn a_parameter_change_swaps_the_instances_without_a_frame_without_them() {
    let mut app = app(endless());
    settle(&mut app);
    let before = instances(&mut app).len();
    // New ground, and new points for the trees: almost every thing is new (a parameter change
    // spawns them all at once, whatever the streaming budget).
    let mut params = app.world_mut().resource_mut::<TerrainParams>();
    params.noise.seed = 77;
    params.scatter[0].rule.seed = 9;
    let mut frames = 0;
    loop {
        assert!(frames < 100_000, "not settled after {frames} frames");
        common::update_and_wait_for_builds(&mut app);
        frames += 1;
        let n = check_instances_on_shown_pieces(&mut app);
        assert!(n > before / 3, "frame {frames}: {n} instances, {before} before");
        if common::settled(&mut app) {
            break;
        }
    }
    // The new ground's points, not the old ones.
    let pieces = shown_pieces(&mut app);
    let list = instances(&mut app);
    let &(piece, _, b) = pieces.iter().find(|p| matches!(p.1, PieceKey::Chunk(k) if k.level == 0)).unwrap();
    let shown: Vec<_> = list.iter().filter(|i| i.2 == piece && i.1 == 0).map(|i| [i.0.x, i.0.z]).collect();
    let rect = [b[0] as f32, b[1] as f32, b[2] as f32, b[3] as f32];
    let expected = queried(&mut app, 0, rect);
    assert!(!expected.is_empty() && same_points(&shown, &expected));
}

#[test]
fn custom_layers_use_the_games_look_and_the_patch_carries_every_layer() {
    let mut params = TerrainPreset {
        resolution: 64,
        world_size: 200.0,
        height_scale: 30.0,
        water_level: 0.3,
        ..default()
    };
    let custom = ScatterLayer {
        name: "crystals".into(),
        shape: ScatterShape::Custom,
        rule: ScatterRule { density: 0.01, heights: [0.0, 10.0], slopes: [0.0, 90.0], ..default() },
        ..default()
    };
    params.scatter = vec![custom, layers()[0].clone()];
    let mut app = app(params);
    let mesh = app.world_mut().resource_mut::<Assets<Mesh>>().add(Cuboid::new(1.0, 1.0, 1.0));
    let material =
        app.world_mut().resource_mut::<Assets<StandardMaterial>>().add(StandardMaterial::default());
    app.world_mut().resource_mut::<ScatterLooks>().set_custom("crystals", mesh.clone(), material.clone());
    settle(&mut app);
    check_instances_on_shown_pieces(&mut app);
    let mut q = app.world_mut().query::<(&ScatterInstance, &Mesh3d, &MeshMaterial3d<StandardMaterial>)>();
    let crystals: Vec<_> = q.iter(app.world()).filter(|(i, ..)| i.layer == 0).collect();
    // About density · area of the 200-unit patch above water.
    assert!(crystals.len() > 40, "{}", crystals.len());
    assert!(crystals.iter().all(|(_, m, mat)| m.0 == mesh && mat.0 == material));
    let on_patch = instances(&mut app).len();
    let expected = queried(&mut app, 0, [-100.0, -100.0, 100.0, 100.0]).len()
        + queried(&mut app, 1, [-100.0, -100.0, 100.0, 100.0]).len();
    assert_eq!(on_patch, expected);
}

#[test]
fn the_sea_follows_its_switch_the_water_level_and_the_focus() {
    let mut app = app(endless());
    settle(&mut app);
    let sea = |app: &mut App| {
        let mut q = app.world_mut().query_filtered::<&Transform, With<SeaSurface>>();
        q.iter(app.world()).copied().collect::<Vec<_>>()
    };
    let s = sea(&mut app);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].translation.y, 0.3 * 60.0);
    assert_eq!(s[0].scale.x, 600.0, "twice the view distance");
    move_focus(&mut app, Vec3::new(500.0, 0.0, -250.0));
    settle(&mut app);
    let s = sea(&mut app);
    assert!((s[0].translation.x - 500.0).abs() < 1.0 && (s[0].translation.z + 250.0).abs() < 1.0, "{s:?}");
    app.world_mut().resource_mut::<TerrainParams>().water_level = 0.5;
    settle(&mut app);
    assert_eq!(sea(&mut app)[0].translation.y, 0.5 * 60.0);
    app.world_mut().resource_mut::<TerrainParams>().sea = false;
    settle(&mut app);
    assert!(sea(&mut app).is_empty());
}

/// Each far batch: its entity, layer, piece, instances and world-space vertex positions.
fn batches(app: &mut App) -> Vec<(Entity, ScatterBatch, Vec<Vec3>)> {
    let mut q = app.world_mut().query::<(Entity, &ScatterBatch, &Mesh3d, &GlobalTransform)>();
    let meshes = app.world().resource::<Assets<Mesh>>();
    q.iter(app.world())
        .map(|(e, b, mesh, at)| {
            let mesh = meshes.get(&mesh.0).expect("a batch's mesh");
            let positions = mesh.attribute(Mesh::ATTRIBUTE_POSITION).and_then(|p| p.as_float3()).unwrap();
            (e, *b, positions.iter().map(|&p| at.transform_point(Vec3::from(p))).collect())
        })
        .collect()
}

/// The focus's distance to a piece's square.
fn distance_to(bounds: [f64; 4], focus: Vec3) -> f64 {
    let (x, z) = (f64::from(focus.x), f64::from(focus.z));
    let dx = (bounds[0] - x).max(x - bounds[2]).max(0.0);
    let dz = (bounds[1] - z).max(z - bounds[3]).max(0.0);
    dx.hypot(dz)
}

#[test]
fn far_pieces_draw_the_same_things_as_one_mesh_per_layer() {
    // The same world, its pieces' things as entities everywhere, and only within 50 units.
    let mut everywhere = app(endless());
    let mut near = app_with(endless(), 50.0, usize::MAX);
    settle(&mut everywhere);
    settle(&mut near);
    let key_of = |app: &mut App| {
        let mut q = app.world_mut().query::<(Entity, &TerrainPiece)>();
        q.iter(app.world()).map(|(e, p)| (e, p.spec.key)).collect::<std::collections::HashMap<_, _>>()
    };
    let (keys_everywhere, keys_near) = (key_of(&mut everywhere), key_of(&mut near));
    let list = instances(&mut everywhere);
    let mut q = everywhere.world_mut().query::<(&ScatterInstance, &ScatterOf)>();
    let things: Vec<_> = q.iter(everywhere.world()).map(|(i, of)| (*i, keys_everywhere[&of.0])).collect();
    // Near pieces carry entities, far ones batches, each by its distance.
    for (_, layer, piece) in instances(&mut near) {
        let bounds = shown_pieces(&mut near).into_iter().find(|p| p.0 == piece).expect("shown").2;
        assert!(distance_to(bounds, Vec3::ZERO) < 50.0, "layer {layer} entity on a far piece");
    }
    let far = batches(&mut near);
    let looks = near.world().resource::<ScatterLooks>();
    let shapes = [
        looks.batch_shape(ScatterShape::Tree, "").unwrap(),
        looks.batch_shape(ScatterShape::Rock, "").unwrap(),
    ];
    let (mut batched, mut checked) = (0, 0);
    for (_, batch, positions) in &far {
        let key = keys_near[&batch.piece];
        let bounds = shown_pieces(&mut near).into_iter().find(|p| p.0 == batch.piece).expect("shown").2;
        assert!(distance_to(bounds, Vec3::ZERO) >= 50.0, "a batch on a near piece");
        // The things the piece would carry as entities, each copied into the mesh where the
        // entity would stand.
        let expected: Vec<&ScatterInstance> =
            things.iter().filter(|(i, k)| *k == key && i.layer == batch.layer).map(|(i, _)| i).collect();
        assert_eq!(batch.instances as usize, expected.len(), "{key:?} layer {}", batch.layer);
        let shape = shapes[usize::from(batch.layer)]
            .attribute(Mesh::ATTRIBUTE_POSITION)
            .unwrap()
            .as_float3()
            .unwrap();
        assert_eq!(positions.len(), shape.len() * expected.len());
        for group in positions.chunks(shape.len()) {
            let standing = expected.iter().any(|thing| {
                group
                    .iter()
                    .zip(shape)
                    .all(|(&p, &s)| thing.in_terrain.transform_point(Vec3::from(s)).distance(p) < 1e-3)
            });
            assert!(standing, "a thing in {key:?}'s batch where no entity would stand");
            checked += 1;
        }
        batched += expected.len();
    }
    let entities = instances(&mut near).len();
    assert!(batched > 100 && entities > 50 && checked == batched, "{batched} batched, {entities} entities");
    // Together they are every thing, whichever way each piece draws its own.
    assert_eq!(batched + entities, list.len());
    // Batches of a layer share its material; each has its own mesh.
    let mut q =
        near.world_mut().query_filtered::<(&Mesh3d, &MeshMaterial3d<StandardMaterial>), With<ScatterBatch>>();
    let parts: Vec<_> = q.iter(near.world()).map(|(m, mat)| (m.0.id(), mat.0.id())).collect();
    assert_eq!(parts.iter().map(|p| p.0).collect::<HashSet<_>>().len(), parts.len());
    assert_eq!(parts.iter().map(|p| p.1).collect::<HashSet<_>>().len(), 1);
}

#[test]
fn a_piece_coming_near_keeps_its_batches_until_its_things_are_spawned() {
    let mut app = app_with(endless(), 50.0, usize::MAX);
    settle(&mut app);
    // Each far piece's batched things, by piece.
    let mut before: std::collections::HashMap<Entity, (usize, Vec<Entity>)> = Default::default();
    for (entity, batch, _) in batches(&mut app) {
        let e = before.entry(batch.piece).or_default();
        e.0 += batch.instances as usize;
        e.1.push(entity);
    }
    let mut q = app.world_mut().query_filtered::<(Entity, &Mesh3d), With<ScatterBatch>>();
    let meshes: Vec<(Entity, AssetId<Mesh>)> = q.iter(app.world()).map(|(e, m)| (e, m.0.id())).collect();
    // Pieces beyond 50 units come within it (each is rebuilt with entities, spawned 60 a frame).
    move_focus(&mut app, Vec3::new(70.0, 0.0, 0.0));
    let (mut held, mut frames, mut gone) = (0, 0, 0);
    loop {
        assert!(frames < 100_000, "not settled after {frames} frames");
        common::update_and_wait_for_builds(&mut app);
        frames += 1;
        // A batch's mesh leaves the assets in the frame the batch goes (freed off the frame).
        let assets = app.world().resource::<Assets<Mesh>>();
        for &(batch, mesh) in &meshes {
            let present = app.world().get_entity(batch).is_ok();
            assert_eq!(assets.contains(mesh), present, "frame {frames}: batch {batch} present {present}");
            gone += usize::from(!present);
        }
        let mut q = app.world_mut().query::<(Entity, &ScatterOnPiece)>();
        let waiting: Vec<(Entity, usize)> = q.iter(app.world()).map(|(e, on)| (e, on.waiting())).collect();
        for (piece, waits) in waiting {
            let Some((_, old)) = before.get(&piece) else { continue };
            if waits > 0 {
                // Its things are not all spawned: its batches are still drawn.
                assert!(
                    old.iter().all(|&b| app.world().get_entity(b).is_ok()),
                    "frame {frames}: a bare piece"
                );
                held += 1;
            }
        }
        if frames > 3 && common::settled(&mut app) {
            break;
        }
    }
    // Settled: every piece that came near carries as entities what its batches held; no batch
    // is left of them.
    let mut q = app.world_mut().query::<(Entity, &ScatterOnPiece)>();
    let now: Vec<(Entity, usize)> = q.iter(app.world()).map(|(e, on)| (e, on.len())).collect();
    let mut came_near = 0;
    for (piece, n) in now {
        let Some((count, old)) = before.get(&piece) else { continue };
        assert_eq!(n, *count);
        assert!(old.iter().all(|&b| app.world().get_entity(b).is_err()));
        came_near += 1;
    }
    assert!(came_near > 2 && held > 0, "{came_near} pieces came near, held in {held} piece-frames");
    assert!(gone > 0, "no batch went");
    assert!(batches(&mut app).iter().all(|(_, b, _)| app.world().get_entity(b.piece).is_ok()));
}

/// The settings that live outside the parameters are followed in a running app, in whatever
/// frame they change (the system that follows them runs only in frames with something to do).
#[test]
fn settings_outside_the_parameters_take_effect_in_a_running_app() {
    let mut params = endless();
    params.scatter.push(ScatterLayer {
        name: "crystals".into(),
        shape: ScatterShape::Custom,
        rule: ScatterRule { density: 0.002, heights: [0.0, 10.0], slopes: [0.0, 90.0], ..default() },
        ..default()
    });
    let mut app = app_with(params, 50.0, usize::MAX);
    // A custom look whose mesh's data arrives later (as a loaded file's would).
    let mesh = app.world().resource::<Assets<Mesh>>().reserve_handle();
    let material =
        app.world_mut().resource_mut::<Assets<StandardMaterial>>().add(StandardMaterial::default());
    app.world_mut().resource_mut::<ScatterLooks>().set_custom("crystals", mesh.clone(), material);
    settle(&mut app);
    let shared =
        |app: &App| app.world().resource::<ScatterLooks>().batch_shape(ScatterShape::Custom, "crystals");
    assert!(shared(&app).is_none(), "a mesh without data shared with far pieces");
    let piece_distance = |app: &mut App, piece: Entity| {
        let bounds = shown_pieces(app).into_iter().find(|p| p.0 == piece).expect("shown").2;
        distance_to(bounds, Vec3::ZERO)
    };
    let farthest_with_entities = |app: &mut App| {
        let pieces: HashSet<Entity> = instances(app).into_iter().map(|(_, _, piece)| piece).collect();
        pieces.into_iter().map(|piece| piece_distance(app, piece)).fold(0.0, f64::max)
    };
    assert!(farthest_with_entities(&mut app) < 50.0);
    // The data arrives: the next frame shares it.
    app.world_mut()
        .resource_mut::<Assets<Mesh>>()
        .insert(mesh.id(), Cuboid::new(1.0, 1.0, 1.0).into())
        .unwrap();
    app.update();
    assert!(shared(&app).is_some_and(|m| m.count_vertices() == 24), "the loaded mesh is not shared");
    // Things as entities out to 120 units: the pieces between 50 and 120 are rebuilt with them.
    app.world_mut().insert_resource(ScatterEntities { distance: 120.0 });
    settle(&mut app);
    let farthest = farthest_with_entities(&mut app);
    assert!((50.0..120.0).contains(&farthest), "entities out to {farthest} units");
    for (_, batch, _) in batches(&mut app) {
        assert!(piece_distance(&mut app, batch.piece) >= 120.0, "a batch on a piece within 120 units");
    }
}

#[test]
fn things_no_piece_places_go_within_the_despawn_budget() {
    const DESPAWNS: usize = 5;
    let mut app = app_with(endless(), 80.0, DESPAWNS);
    // Builds land the frame after they start: pieces land during the flight, in the same
    // frames on every machine.
    app.insert_resource(BuildPriority::InFrame);
    settle(&mut app);
    let mut things = thing_entities(&mut app);
    let (mut most, mut lingered) = (0, 0);
    for frame in 1..=120 {
        move_focus(&mut app, Vec3::new(4.0 * frame as f32, 0.0, 0.0));
        app.update();
        let now = thing_entities(&mut app);
        let gone = things.difference(&now).count();
        assert!(gone <= DESPAWNS, "frame {frame}: {gone} despawned");
        most = most.max(gone);
        // Things whose piece went stay, standing where they stood, until despawned.
        let mut q = app.world_mut().query::<&ScatterOf>();
        lingered += q.iter(app.world()).filter(|of| app.world().get_entity(of.0).is_err()).count();
        things = now;
    }
    settle(&mut app);
    // Settled, none is left: every thing stands on a shown piece.
    check_instances_on_shown_pieces(&mut app);
    assert!(most == DESPAWNS && lingered > 0, "at most {most} a frame, {lingered} lingered");
}
