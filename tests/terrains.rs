//! Several terrains in one app: each an entity with its own settings, layout, transform, pieces,
//! status and queries.

mod common;

use common::{app_with_focus, default_terrain, settle};

use bevy::prelude::*;
use bevy_noise_terrain::prelude::*;
use bevy_noise_terrain::{PieceHeights, PieceKey, PieceOf, TerrainJobs};

fn world_params() -> TerrainPreset {
    TerrainPreset {
        layout: TerrainLayout::Endless {
            chunk_size: 32.0,
            chunk_vertices: 17,
            view_distance: 300.0,
            lod_levels: 3,
        },
        height_scale: 30.0,
        ..default()
    }
}

/// A small island patch, 80 units above the world's ground so that it is the higher of the two.
fn island_params() -> TerrainPreset {
    TerrainPreset { resolution: 33, world_size: 40.0, height_scale: 20.0, ..default() }
}

const ISLAND_AT: Vec3 = Vec3::new(100.0, 80.0, -20.0);

/// The pieces of `terrain`, checked to be its children too.
fn pieces_of(app: &mut App, terrain: Entity) -> Vec<(Entity, PieceKey)> {
    let mut q = app.world_mut().query::<(Entity, &TerrainPiece, &PieceOf, &ChildOf)>();
    q.iter(app.world())
        .inspect(|(_, _, of, child)| assert_eq!(of.0, child.parent(), "a piece hangs from its own terrain"))
        .filter(|(_, _, of, _)| of.0 == terrain)
        .map(|(e, p, _, _)| (e, p.spec.key))
        .collect()
}

fn jobs_started(app: &App, terrain: Entity) -> u64 {
    app.world().get::<TerrainJobs>(terrain).unwrap().jobs_started()
}

fn status(app: &App, terrain: Entity) -> TerrainStats {
    app.world().get::<TerrainStatus>(terrain).unwrap().stats.clone()
}

#[test]
fn two_terrains_of_different_layouts_settle_apart_answer_apart_and_go_with_all_they_own() {
    let mut app = app_with_focus(world_params());
    let island = app
        .world_mut()
        .spawn((
            Terrain,
            TerrainSettings(island_params()),
            Transform::from_translation(ISLAND_AT),
            Name::new("island"),
        ))
        .id();
    settle(&mut app);
    let world = default_terrain(&mut app);
    assert_ne!(world, island);
    assert!(app.world().get::<DefaultTerrain>(island).is_none(), "a terrain with settings is its own");

    // Each terrain has its own pieces, under its own root.
    let island_pieces = pieces_of(&mut app, island);
    let world_pieces = pieces_of(&mut app, world);
    assert_eq!(island_pieces.iter().map(|p| p.1).collect::<Vec<_>>(), [PieceKey::Patch]);
    assert!(world_pieces.len() > 20 && world_pieces.iter().all(|p| matches!(p.1, PieceKey::Chunk(_))));
    let all = app.world_mut().query::<&TerrainPiece>().iter(app.world()).count();
    assert_eq!(all, island_pieces.len() + world_pieces.len(), "no piece belongs to neither");
    // Their own status; the resource shows the default terrain's.
    assert_eq!(status(&app, island).pieces_shown, 1);
    assert_eq!(status(&app, island).vertex_count, 33 * 33);
    assert_eq!(status(&app, world).pieces_shown, world_pieces.len());
    assert_eq!(*app.world().resource::<TerrainStats>(), status(&app, world));

    // Queries per terrain and over both: over the island, the island is the higher ground.
    let (x, z) = (ISLAND_AT.x + 3.0, ISLAND_AT.z - 5.0);
    let mut state = bevy::ecs::system::SystemState::<TerrainQuery>::new(app.world_mut());
    let query = state.get(app.world()).unwrap();
    let on_island = query.of(island).height_at(x, z).expect("the island is under the point");
    let on_world = query.of(world).height_at(x, z).expect("the world is under it too");
    assert!(on_island > ISLAND_AT.y && on_island <= ISLAND_AT.y + 20.0, "{on_island}");
    assert!(on_world < 31.0, "{on_world}");
    assert_eq!(query.height_at(x, z), Some(on_island));
    assert_eq!(query.of(island).height_at(0.0, 0.0), None, "the island is small");
    assert_eq!(query.height_at(0.0, 0.0), query.of(world).height_at(0.0, 0.0));
    let down = Ray3d::new(Vec3::new(x, 500.0, z), Dir3::NEG_Y);
    assert!((query.raycast(down).unwrap().y - on_island).abs() < 1e-3, "a ray stops on the island");
    assert!((query.of(world).raycast(down).unwrap().y - on_world).abs() < 1e-3);

    // The resource drives the default terrain only; the island's settings drive the island.
    let (world_jobs, island_jobs) = (jobs_started(&app, world), jobs_started(&app, island));
    app.world_mut().resource_mut::<TerrainParams>().noise.seed = 9;
    settle(&mut app);
    assert!(jobs_started(&app, world) >= world_jobs + world_pieces.len() as u64);
    assert_eq!(jobs_started(&app, island), island_jobs, "the island did not change");
    assert!(app.world().get::<TerrainSettings>(world).is_none(), "the resource is its one source");
    assert_eq!(app.world().get::<TerrainStatus>(world).unwrap().params.as_ref().unwrap().noise.seed, 9);
    app.world_mut().get_mut::<TerrainSettings>(island).unwrap().noise.seed = 10;
    settle(&mut app);
    assert_eq!(jobs_started(&app, island), island_jobs + 1);
    assert_eq!(app.world().resource::<TerrainParams>().noise.seed, 9, "the resource is the world's");
    assert_eq!(status(&app, island).generation, 2);

    // Despawning the island takes its pieces and their assets with it.
    let mut q = app.world_mut().query::<(&Mesh3d, &TerrainPiece, &PieceOf)>();
    let (mesh, image) = q
        .iter(app.world())
        .find(|(_, _, of)| of.0 == island)
        .map(|(m, p, _)| (m.0.id(), p.image.id()))
        .unwrap();
    app.world_mut().despawn(island);
    for _ in 0..3 {
        app.update();
    }
    assert!(pieces_of(&mut app, island).is_empty());
    assert!(app.world().resource::<Assets<Mesh>>().get(mesh).is_none(), "its mesh is freed");
    assert!(app.world().resource::<Assets<Image>>().get(image).is_none(), "its image is freed");
    let all = app.world_mut().query::<&TerrainPiece>().iter(app.world()).count();
    assert_eq!(all, pieces_of(&mut app, world).len());
    settle(&mut app);
    assert_eq!(status(&app, world).pieces_shown, world_pieces.len(), "the world is untouched");
}

/// A game system that writes the resource every frame (`ResMut` marks it changed) and another
/// that edits a second terrain's settings: both edits take effect, and stay.
#[test]
fn writing_the_resource_every_frame_and_another_terrains_settings_both_take_effect() {
    #[derive(Resource)]
    struct Island(Entity);
    let mut app = common::app(TerrainPreset { resolution: 24, ..default() });
    let island = app.world_mut().spawn((Terrain, TerrainSettings(island_params()))).id();
    app.insert_resource(Island(island));
    app.add_systems(
        Update,
        (
            |mut params: ResMut<TerrainParams>| params.noise.seed = 31,
            |island: Res<Island>, mut settings: Query<&mut TerrainSettings>| {
                settings.get_mut(island.0).unwrap().noise.seed = 32;
            },
        )
            .before(TerrainSystems::Queue),
    );
    settle(&mut app);
    let world = default_terrain(&mut app);
    let seed_of = |app: &App, terrain: Entity| {
        app.world().get::<TerrainStatus>(terrain).unwrap().params.as_ref().map(|p| p.noise.seed)
    };
    for _ in 0..5 {
        app.update();
        assert_eq!(seed_of(&app, world), Some(31), "the resource's edit holds every frame");
        assert_eq!(seed_of(&app, island), Some(32), "the island's edit holds every frame");
    }
    settle(&mut app);
    let mut q = app.world_mut().query::<(&PieceHeights, &PieceOf)>();
    let seeds: Vec<(Entity, u32)> = q.iter(app.world()).map(|(h, of)| (of.0, h.params.noise.seed)).collect();
    assert!(seeds.iter().any(|&(t, _)| t == world) && seeds.iter().any(|&(t, _)| t == island));
    for (terrain, seed) in seeds {
        assert_eq!(seed, if terrain == world { 31 } else { 32 }, "built from its own edit");
    }
    // Writing equal parameters every frame starts no build once the terrains are built.
    let started = app.world().get::<TerrainJobs>(world).unwrap().jobs_started();
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(app.world().get::<TerrainJobs>(world).unwrap().jobs_started(), started);
}
