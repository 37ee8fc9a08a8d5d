//! Helpers the headless test binaries share: one app builder, one `settle`.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_noise_terrain::prelude::*;
use bevy_noise_terrain::{TerrainJobs, TerrainStatus};

/// Resident memory of this process in bytes (Linux), or 0 where unknown.
pub fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|pages| pages.parse::<u64>().ok()))
        .map_or(0, |pages| pages * 4096)
}

/// A headless app (`MinimalPlugins`, transforms, mesh and image assets; no window, no GPU) with
/// the plugin and `params` in the resource.
pub fn app(params: TerrainParams) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin, AssetPlugin::default()))
        .init_asset::<Mesh>()
        .init_asset::<Image>()
        .insert_resource(params)
        .add_plugins(TerrainPlugin::default());
    app
}

/// The same with a [`TerrainFocus`] at the origin, for the endless layout.
pub fn app_with_focus(params: TerrainParams) -> App {
    let mut app = app(params);
    app.world_mut().spawn((TerrainFocus::default(), Transform::default()));
    app
}

/// The (single) focus.
pub fn focus(app: &mut App) -> Entity {
    let mut q = app.world_mut().query_filtered::<Entity, With<TerrainFocus>>();
    q.single(app.world()).unwrap()
}

/// Moves the (single) focus.
pub fn move_focus(app: &mut App, to: Vec3) {
    let mut q = app.world_mut().query_filtered::<&mut Transform, With<TerrainFocus>>();
    q.single_mut(app.world_mut()).unwrap().translation = to;
}

/// The default terrain entity (the one the resource drives).
pub fn default_terrain(app: &mut App) -> Entity {
    let mut q = app.world_mut().query_filtered::<Entity, With<DefaultTerrain>>();
    q.iter(app.world()).next().expect("a default terrain")
}

/// The default terrain's bookkeeping.
pub fn jobs(app: &mut App) -> &TerrainJobs {
    let terrain = default_terrain(app);
    app.world().get::<TerrainJobs>(terrain).expect("a terrain has its jobs")
}

/// How many piece jobs the default terrain has started.
pub fn jobs_started(app: &mut App) -> u64 {
    jobs(app).jobs_started()
}

/// Whether every terrain shows every wanted piece and nothing is being built or waits.
pub fn settled(app: &mut App) -> bool {
    let mut q = app.world_mut().query::<(&TerrainJobs, &TerrainStatus)>();
    let mut any = false;
    for (jobs, status) in q.iter(app.world()) {
        any = true;
        if jobs.is_busy()
            || status.stats.pieces_shown != jobs.desired().len()
            || status.stats.pieces_shown == 0
        {
            return false;
        }
    }
    any
}

/// Updates until every terrain shows every wanted piece and nothing is being built (at most
/// 60 s). A moved focus reaches the layout a frame later (transforms propagate after `Update`),
/// so a few frames always run.
pub fn settle(app: &mut App) {
    let start = Instant::now();
    for _ in 0..3 {
        app.update();
    }
    loop {
        app.update();
        if settled(app) {
            app.update();
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "the terrain did not settle");
        std::thread::sleep(Duration::from_micros(200));
    }
}
