//! Headless tests of the plugin: `MinimalPlugins` and assets, no window, no GPU.

mod common;

use common::{app as headless_app, jobs, jobs_started, settle};

use bevy::mesh::VertexAttributeValues;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_noise_terrain::core::advanced::slope_degrees;
use bevy_noise_terrain::core::{ColorRules, Heightmap, NoiseSettings, PostProcess};
use bevy_noise_terrain::pieces::SPARE_BUFFERS_KEPT_FOR;
use bevy_noise_terrain::prelude::*;
use bevy_noise_terrain::{PieceHeights, PiecePool, TerrainValidation};

fn small_params() -> TerrainPreset {
    TerrainPreset { resolution: 48, ..default() }
}

fn generation(app: &App) -> u64 {
    app.world().resource::<TerrainStats>().generation
}

/// The patch: its piece, mesh handle and heights.
fn patch(app: &App) -> (&TerrainPiece, Handle<Mesh>, &PieceHeights) {
    let world = app.world();
    let mut pieces = world.try_query::<(&TerrainPiece, &Mesh3d, &PieceHeights)>().unwrap();
    let found: Vec<_> = pieces.iter(world).collect();
    assert_eq!(found.len(), 1, "one patch");
    let (piece, mesh, heights) = found[0];
    (piece, mesh.0.clone(), heights)
}

fn mesh_heights(app: &App) -> Vec<f32> {
    let (_, handle, _) = patch(app);
    let mesh = app.world().resource::<Assets<Mesh>>().get(&handle).unwrap();
    match mesh.attribute(Mesh::ATTRIBUTE_POSITION) {
        Some(VertexAttributeValues::Float32x3(p)) => p.iter().map(|p| p[1]).collect(),
        other => panic!("positions: {other:?}"),
    }
}

/// The patch mesh's normals.
fn mesh_normals(app: &App) -> Vec<[f32; 3]> {
    let (_, mesh, _) = patch(app);
    let mesh = app.world().resource::<Assets<Mesh>>().get(&mesh).unwrap();
    match mesh.attribute(Mesh::ATTRIBUTE_NORMAL) {
        Some(VertexAttributeValues::Float32x3(n)) => n.clone(),
        other => panic!("normals: {other:?}"),
    }
}

/// Asserts that the mesh and image hold the terrain of `params` (validated), computed by the core.
fn assert_shows(app: &App, params: &TerrainPreset) {
    let (params, _) = params.validated();
    let n = params.resolution;
    let mut expected = Heightmap::generate(&params.noise, n, n).unwrap();
    params.post.apply(&mut expected);
    let heights = mesh_heights(app);
    assert_eq!(heights.len(), expected.samples().len());
    for (y, h) in heights.iter().zip(expected.samples()) {
        assert_eq!(*y, h * params.height_scale);
    }
    let world = app.world();
    let (piece, _, heights) = patch(app);
    let image = world.resource::<Assets<Image>>().get(&piece.image).unwrap();
    assert_eq!(image.size(), UVec2::splat(n));
    let data = image.data.as_ref().unwrap();
    // Coloured by the rules: the height, and the slope of the mesh's normal at the vertex.
    let normals = mesh_normals(app);
    for (i, &h) in expected.samples().iter().enumerate().step_by(97) {
        let slope = slope_degrees(normals[i][1]);
        let color =
            params.colors.color_for(&params.ramp, (h, slope, 0.0), params.water_level, params.show_overflow);
        assert_eq!(data[i * 4..i * 4 + 3], color, "texel {i}");
    }
    assert_eq!(heights.map.samples(), expected.samples());
}

#[test]
fn the_first_update_generates_the_initial_terrain() {
    let mut app = headless_app(small_params());
    settle(&mut app);
    assert_eq!(generation(&app), 1);
    assert_eq!(jobs_started(&mut app), 1);
    assert_shows(&app, &small_params());
    let pieces = app.world_mut().query_filtered::<&Mesh3d, With<TerrainPiece>>().iter(app.world()).count();
    assert_eq!(pieces, 1);
    let roots = app.world_mut().query_filtered::<Entity, With<Terrain>>().iter(app.world()).count();
    assert_eq!(roots, 1);
    let stats = app.world().resource::<TerrainStats>();
    assert_eq!(stats.vertex_count, 48 * 48);
    assert!(stats.heights.min >= 0.0 && stats.heights.max <= 1.0 && stats.heights.min < stats.heights.max);
}

#[test]
fn one_change_leads_to_exactly_one_regeneration_with_the_new_data() {
    let mut app = headless_app(small_params());
    settle(&mut app);
    let before = mesh_heights(&app);
    let changed =
        TerrainPreset { noise: NoiseSettings { seed: 99, ..small_params().noise }, ..small_params() };
    app.world_mut().resource_mut::<TerrainParams>().0 = changed.clone();
    settle(&mut app);
    for _ in 0..20 {
        app.update();
    }
    assert_eq!((generation(&app), jobs_started(&mut app)), (2, 2));
    assert_ne!(mesh_heights(&app), before);
    assert_shows(&app, &changed);
}

#[test]
fn post_processing_reaches_the_mesh() {
    let mut params = small_params();
    params.post = PostProcess { stretch: true, island_strength: 1.0, terraces: 6, ..default() };
    let mut app = headless_app(params.clone());
    settle(&mut app);
    assert_shows(&app, &params);
    let stats = app.world().resource::<TerrainStats>();
    assert_eq!(stats.heights.min, 0.0, "the island border is at 0");
}

#[test]
fn no_change_means_no_job() {
    let mut app = headless_app(small_params());
    settle(&mut app);
    for _ in 0..100 {
        app.update();
    }
    assert_eq!((generation(&app), jobs_started(&mut app)), (1, 1));
    // Writing an equal value through `set_if_neq` does not start a job either.
    app.world_mut().resource_mut::<TerrainParams>().set_if_neq(TerrainParams(small_params()));
    settle(&mut app);
    assert_eq!(jobs_started(&mut app), 1);
}

#[test]
fn a_burst_of_changes_ends_at_the_last_settings_in_order() {
    let mut app = headless_app(small_params());
    settle(&mut app);
    let mut last = small_params();
    for seed in 0..10 {
        last.noise.seed = 1000 + seed;
        app.world_mut().resource_mut::<TerrainParams>().0 = last.clone();
        app.update();
    }
    let mut seen = Vec::new();
    let mut cursor = app.world().resource::<Messages<TerrainGenerated>>().get_cursor();
    for frame in 0.. {
        assert!(frame < 100_000, "still busy after {frame} frames");
        common::update_and_wait_for_builds(&mut app);
        let messages = app.world().resource::<Messages<TerrainGenerated>>();
        seen.extend(cursor.read(messages).map(|m| m.generation));
        if !jobs(&mut app).is_busy() {
            break;
        }
    }
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "applied out of order: {seen:?}");
    assert_eq!(seen.last(), Some(&generation(&app)));
    assert!(jobs_started(&mut app) <= 11);
    assert_shows(&app, &last);
    assert_eq!(patch(&app).2.params.noise.seed, 1009);
}

fn mesh_positions_address(app: &App) -> usize {
    let (_, handle, _) = patch(app);
    match app.world().resource::<Assets<Mesh>>().get(&handle).unwrap().attribute(Mesh::ATTRIBUTE_POSITION) {
        Some(VertexAttributeValues::Float32x3(p)) => p.as_ptr() as usize,
        other => panic!("positions: {other:?}"),
    }
}

#[test]
fn a_new_terrain_reuses_the_memory_of_the_one_before_and_idle_frees_it() {
    let mut params = small_params();
    let mut app = headless_app(params.clone());
    settle(&mut app);
    let mut addresses = Vec::new();
    for seed in 1..=3 {
        params.noise.seed = seed;
        app.world_mut().resource_mut::<TerrainParams>().0 = params.clone();
        settle(&mut app);
        assert_shows(&app, &params);
        addresses.push(mesh_positions_address(&app));
    }
    // Each terrain is built into the arrays of the one it replaced, so two apart share them.
    assert_eq!(addresses[0], addresses[2]);
    assert_ne!(addresses[0], addresses[1]);
    let n = params.resolution as usize;
    let held = n * n * (12 + 12 + 8 + 4) + (n - 1) * (n - 1) * 6 * 4;
    let spare = app.world().resource::<PiecePool>().spare_bytes();
    assert!(spare >= held, "{spare} < {held}");
    // An idle second and more of the app's real-time clock, stepped by hand.
    app.insert_resource(TimeUpdateStrategy::ManualDuration(SPARE_BUFFERS_KEPT_FOR * 2));
    app.update();
    assert_eq!(app.world().resource::<PiecePool>().spare_bytes(), 0, "an idle terrain keeps a spare copy");
}

#[test]
fn a_thousand_edits_keep_the_asset_counts_constant() {
    let mut app = headless_app(small_params());
    settle(&mut app);
    // One more frame frees the placeholder image the first terrain replaced.
    app.update();
    let counts = |app: &App| {
        (app.world().resource::<Assets<Mesh>>().len(), app.world().resource::<Assets<Image>>().len())
    };
    let before = counts(&app);
    let mut params = small_params();
    for i in 0..1000u32 {
        params.noise.seed = i;
        // Every tenth edit changes the resolution, which replaces the image.
        params.resolution = if (i / 10) % 2 == 0 { 16 } else { 20 };
        app.world_mut().resource_mut::<TerrainParams>().0 = params.clone();
        app.update();
    }
    settle(&mut app);
    app.update();
    assert_eq!(counts(&app), before);
    assert_shows(&app, &params);
}

#[test]
fn out_of_range_parameters_are_clamped_and_never_panic() {
    let mut app = headless_app(small_params());
    settle(&mut app);
    let mut bad = small_params();
    bad.noise.octaves = 1000;
    bad.noise.frequency = f32::NAN;
    bad.noise.lacunarity = 0.0;
    bad.resolution = 0;
    app.world_mut().resource_mut::<TerrainParams>().0 = bad.clone();
    settle(&mut app);
    let fields: Vec<_> = app.world().resource::<TerrainValidation>().0.iter().map(|c| c.field).collect();
    assert_eq!(fields, ["octaves", "lacunarity", "frequency", "resolution"]);
    assert_shows(&app, &bad);
    assert_eq!(mesh_heights(&app).len(), 4, "resolution 0 is clamped to 2x2");
    // The parameters as written are kept, so a slider can move back.
    assert_eq!(app.world().resource::<TerrainParams>().resolution, 0);

    bad.noise.octaves = 0;
    bad.resolution = 100_000;
    bad.noise.frequency = 1.0;
    app.world_mut().resource_mut::<TerrainParams>().0 = bad.clone();
    settle(&mut app);
    assert_eq!(mesh_heights(&app).len(), 2048 * 2048);
    assert!(mesh_heights(&app).iter().all(|h| h.is_finite()));
    assert!(app.world().resource::<TerrainValidation>().0.iter().any(|c| c.field == "resolution"));

    // Every float the resource holds, broken at once: clamped, finite, no panic.
    bad = small_params();
    bad.noise.offset = bevy::math::DVec2::new(f64::NAN, 1e12);
    bad.noise.persistence = f32::INFINITY;
    bad.noise.warp.amplitude = f32::NAN;
    bad.noise.warp.frequency = f32::INFINITY;
    bad.height_scale = f32::NAN;
    bad.world_size = f32::NEG_INFINITY;
    bad.water_level = 1e12;
    bad.post.power = f32::NAN;
    app.world_mut().resource_mut::<TerrainParams>().0 = bad.clone();
    settle(&mut app);
    assert_shows(&app, &bad);
    let (_, handle, _) = patch(&app);
    let mesh = app.world().resource::<Assets<Mesh>>().get(&handle).unwrap();
    let Some(VertexAttributeValues::Float32x3(normals)) = mesh.attribute(Mesh::ATTRIBUTE_NORMAL) else {
        panic!()
    };
    assert!(normals.iter().flatten().all(|v| v.is_finite()));
    let fields: Vec<_> = app.world().resource::<TerrainValidation>().0.iter().map(|c| c.field).collect();
    for field in [
        "offset",
        "persistence",
        "warp.amplitude",
        "warp.frequency",
        "post",
        "world_size",
        "height_scale",
        "water_level",
    ] {
        assert!(fields.contains(&field), "{field} not reported in {fields:?}");
    }
}

#[test]
fn a_terrain_despawned_mid_job_and_spawned_again_is_rebuilt() {
    let mut app = headless_app(small_params());
    settle(&mut app);
    let mut params = small_params();
    params.noise.seed = 5;
    app.world_mut().resource_mut::<TerrainParams>().0 = params.clone();
    app.update();
    assert!(jobs(&mut app).is_busy(), "a job runs");
    let root = app.world_mut().query_filtered::<Entity, With<Terrain>>().single(app.world()).unwrap();
    app.world_mut().despawn(root);
    app.world_mut().spawn((Terrain, Transform::from_xyz(10.0, 0.0, 0.0)));
    settle(&mut app);
    assert_shows(&app, &params);
}

#[test]
fn erosion_reaches_the_patch_and_a_change_cancels_a_running_one() {
    use bevy_noise_terrain::core::advanced::Frame;
    use bevy_noise_terrain::core::{Erosion, Hydraulic, MapWorld, erode};
    // The settings are for a map 512 wide: at 128 a sixteenth of the droplets fall (6,250).
    // The plain ramp: what differs from it is the erosion's tint.
    let mut params = TerrainPreset { resolution: 128, colors: ColorRules::plain(), ..default() };
    params.erosion = Erosion { hydraulic: Hydraulic { droplets: 100_000, ..default() }, ..default() };
    let mut app = headless_app(params.clone());
    settle(&mut app);
    // What the core makes of the same map: the patch with its border, post-processed, eroded.
    let n = params.resolution;
    let mut padded = Heightmap::generate_region(&params.noise, [-1, -1], n + 2, n + 2, f64::from(n)).unwrap();
    params.post.apply_in_frame(&mut padded, Frame { x: 1, y: 1, width: n, height: n });
    let never = std::sync::atomic::AtomicBool::new(false);
    let world = MapWorld::patch(params.world_size, n, params.height_scale, params.water_level);
    erode(&mut padded, &params.erosion.for_map(n), &world, &|_| {}, &never).unwrap();
    let expected = padded.crop(Frame { x: 1, y: 1, width: n, height: n }).unwrap();
    assert_eq!(patch(&app).2.map.samples(), expected.samples());
    let plain = Heightmap::generate(&params.noise, n, n).unwrap();
    assert_ne!(expected.samples(), plain.samples(), "the erosion changed nothing");
    // The texture shows where water ran: land texels differ from the plain ramp colours.
    let (piece, _, _) = patch(&app);
    let image = app.world().resource::<Assets<Image>>().get(&piece.image).unwrap();
    let data = image.data.as_ref().unwrap();
    let tinted = expected
        .samples()
        .iter()
        .enumerate()
        .filter(|&(i, &h)| {
            data[i * 4..i * 4 + 3] != params.ramp.color_for_height(h, params.water_level, true)
        })
        .count();
    assert!(tinted > 100, "only {tinted} texels show the erosion");

    // A long erosion, then new parameters: the long one is cancelled, not waited for.
    let mut long = TerrainPreset { resolution: 512, ..params.clone() };
    long.erosion.hydraulic.droplets = 10_000_000;
    app.world_mut().resource_mut::<TerrainParams>().0 = long.clone();
    let progress = |app: &App| app.world().resource::<TerrainStats>().erosion_progress;
    common::update_until(&mut app, "the long erosion to start", |app| progress(app).is_some());
    let quick = TerrainPreset { erosion: Erosion::default(), ..long };
    app.world_mut().resource_mut::<TerrainParams>().0 = quick.clone();
    // Not waited for: the erosion seen in any frame until the quick terrain shows stays near
    // where it was cancelled (frames run while it would run on: they would see it near its end).
    let mut furthest = 0.0f32;
    common::update_until(&mut app, "the quick terrain", |app| {
        furthest = furthest.max(progress(app).unwrap_or(0.0));
        common::settled(app)
    });
    assert!(furthest < 0.5, "the cancelled erosion ran on to {furthest}");
    assert_shows(&app, &quick);
}

#[test]
fn steep_ground_is_painted_rock_and_level_ground_is_not() {
    // Tall relief: many vertices steeper than 60°.
    let params = TerrainPreset { resolution: 96, height_scale: 60.0, water_level: 0.2, ..default() };
    let mut app = headless_app(params.clone());
    settle(&mut app);
    let rock = params.colors.layers[2].color;
    let normals = mesh_normals(&app);
    let (piece, _, heights) = patch(&app);
    let image = app.world().resource::<Assets<Image>>().get(&piece.image).unwrap();
    let data = image.data.as_ref().unwrap();
    let (mut steep, mut level) = (0, 0);
    for (i, (&h, n)) in heights.map.samples().iter().zip(&normals).enumerate() {
        let slope = slope_degrees(n[1]);
        let texel = [data[i * 4], data[i * 4 + 1], data[i * 4 + 2]];
        let far = texel.iter().zip(rock).map(|(&a, b)| (i32::from(a) - i32::from(b)).abs()).max().unwrap();
        if h > params.water_level && slope > 60.0 {
            steep += 1;
            assert!(far <= 2, "vertex {i}: a {slope:.0}° slope painted {texel:?}");
        } else if h > params.water_level + 0.05 && h < params.water_level + 0.4 && slope < 15.0 {
            // Meadow height, below the ramp's own bare-rock band.
            level += 1;
            assert!(far > 10, "vertex {i}: level ground painted rock");
        }
    }
    assert!(steep > 100 && level > 100, "{steep} steep and {level} level vertices");
}

#[test]
fn every_patch_vertex_has_the_normal_of_the_field_gradient() {
    let params = TerrainPreset { resolution: 40, height_scale: 30.0, ..default() };
    let mut app = headless_app(params.clone());
    settle(&mut app);
    let normals = mesh_normals(&app);
    let n = params.resolution;
    // Pixel (i, j) of the patch samples the field at (i / n, j / n); its n - 1 vertex steps span
    // the world size, so a map unit is world_size · n / (n - 1) world units.
    let k = params.height_scale / (params.world_size * n as f32 / (n - 1) as f32);
    for j in 0..n {
        for i in 0..n {
            let g = params
                .noise
                .sample_with_gradient(f64::from(i) / f64::from(n), f64::from(j) / f64::from(n))
                .gradient;
            let expected = Vec3::new(-g[0] * k, 1.0, -g[1] * k).normalize();
            let normal = Vec3::from_array(normals[(j * n + i) as usize]);
            assert!(
                normal.distance(expected) < 1e-5,
                "vertex ({i}, {j}), border included: {normal} vs {expected}"
            );
        }
    }
}

/// Each chunk build runs on the build threads of the priority in force when it starts (a
/// starved background build on the normal ones too), the patch's on its own (a hook records the
/// name of the thread it runs on and the seed it builds), never on the main thread or Bevy's
/// pools.
#[test]
fn builds_run_on_the_build_threads_of_their_piece_and_priority() {
    use bevy_noise_terrain::{BuildPriority, PieceHook, PieceHooks};
    use std::sync::{Arc, Mutex};
    let threads: Arc<Mutex<Vec<(String, u32)>>> = Arc::default();
    let record = |app: &mut App| {
        let seen = threads.clone();
        let hook = PieceHook::new(
            f32::INFINITY,
            move |_, params: &TerrainPreset| {
                let name = std::thread::current().name().unwrap_or_default().to_string();
                seen.lock().unwrap().push((name, params.noise.seed));
            },
            |_, _, _: Option<()>| {},
        );
        app.world_mut().resource_mut::<PieceHooks>().add(hook);
    };
    // The threads of the builds of `seed`. A starved background build that its rescue overtook may
    // still run later, on its background thread, while the next test step runs: it is a build of
    // the seed before, started at the priority in force then.
    let names = |prefixes: &[&str], seed: u32| {
        let names: Vec<String> = std::mem::take(&mut *threads.lock().unwrap())
            .into_iter()
            .filter_map(|(name, s)| (s == seed).then_some(name))
            .collect();
        assert!(!names.is_empty());
        let numbered = |n: &String| {
            prefixes.iter().any(|p| n.strip_prefix(p).is_some_and(|i| i.parse::<usize>().is_ok()))
        };
        assert!(names.iter().all(numbered), "{prefixes:?}: {names:?}");
    };

    let mut patch = headless_app(small_params());
    record(&mut patch);
    settle(&mut patch);
    names(&["terrain patch "], small_params().noise.seed);

    let layout =
        TerrainLayout::Endless { chunk_size: 64.0, chunk_vertices: 17, view_distance: 200.0, lod_levels: 2 };
    let params = TerrainPreset { layout, ..small_params() };
    let mut endless = common::app_with_focus(params);
    record(&mut endless);
    settle(&mut endless);
    assert_eq!(*endless.world().resource::<BuildPriority>(), BuildPriority::Background, "the default");
    // While the background threads starve (the other tests keep the cores busy), their builds
    // are run again on the normal ones.
    let seed = small_params().noise.seed;
    names(&["terrain chunks (background) ", "terrain chunks "], seed);

    endless.insert_resource(BuildPriority::Normal);
    endless.world_mut().resource_mut::<TerrainParams>().noise.seed = seed + 1;
    settle(&mut endless);
    names(&["terrain chunks "], seed + 1);
}

/// The plugin group's parts are plugins a game can leave out: a headless game drops the window
/// parts, and one without scatter drops scatter; what is left still builds its terrain.
#[test]
fn a_game_picks_the_parts_of_the_plugin_group() {
    let group = |scatter: bool| {
        let mut group = TerrainPlugins.build();
        #[cfg(feature = "inspector")]
        {
            group = group.disable::<bevy_noise_terrain::inspector::TerrainInspectorPlugin>();
        }
        #[cfg(feature = "camera")]
        {
            group = group.disable::<bevy_noise_terrain::camera::TerrainCameraPlugin>();
        }
        if !scatter {
            group = group.disable::<TerrainScatterPlugin>();
        }
        group
    };
    for scatter in [true, false] {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, TransformPlugin, AssetPlugin::default()))
            .init_asset::<Mesh>()
            .init_asset::<Image>()
            .insert_resource(TerrainParams(small_params()))
            .add_plugins(group(scatter));
        settle(&mut app);
        let pieces = app.world_mut().query::<&PieceHeights>().iter(app.world()).count();
        assert_eq!(pieces, 1, "the patch is built (scatter {scatter})");
        assert_eq!(app.world().get_resource::<bevy_noise_terrain::ScatterLooks>().is_some(), scatter);
        assert!(app.world().get_resource::<bevy_noise_terrain::sea::SeaLook>().is_some(), "the sea stays");
    }
}
