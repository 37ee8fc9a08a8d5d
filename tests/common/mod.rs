//! Helpers the headless test binaries share: one app builder, one `settle`.
//!
//! Nothing here waits for an amount of time: a test waits for builds to finish (an event the
//! build threads send) or for a state of the app, so that a slow or busy machine takes longer
//! and passes all the same. The limits below are reached only by a hang, and say what was
//! awaited.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_noise_terrain::pieces::{builds_finished, wait_for_builds_after};
use bevy_noise_terrain::prelude::*;
use bevy_noise_terrain::{TerrainJobs, TerrainStatus};

/// How long a test waits for one build, or for a state, before it calls it a hang: no build of
/// the tests takes a hundredth of it, even on a slow machine with every core busy.
pub const HANG: Duration = Duration::from_secs(600);

/// How many frames [`settle`] runs before it calls it a hang: each frame either takes in a
/// finished build or does frame-paced work (swaps, things spawned within a budget), and no
/// test's terrain needs a thousandth of this.
const SETTLE_FRAMES: usize = 1_000_000;

/// Resident memory of this process in bytes (Linux), or 0 where unknown.
pub fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|pages| pages.parse::<u64>().ok()))
        .map_or(0, |pages| pages * 4096)
}

/// A headless app (`MinimalPlugins`, transforms, mesh and image assets; no window, no GPU) with
/// the plugin and `params` in the resource.
pub fn app(params: TerrainPreset) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin, AssetPlugin::default()))
        .init_asset::<Mesh>()
        .init_asset::<Image>()
        .insert_resource(TerrainParams(params))
        .add_plugins((TerrainPlugin::default(), TerrainScatterPlugin, TerrainSeaPlugin, TerrainRiversPlugin));
    app
}

/// The same with a [`TerrainFocus`] at the origin, for the endless layout.
pub fn app_with_focus(params: TerrainPreset) -> App {
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

/// How many pieces all terrains are building.
pub fn building(app: &mut App) -> usize {
    let mut q = app.world_mut().query::<&TerrainStatus>();
    q.iter(app.world()).map(|status| status.stats.pieces_building).sum()
}

/// One update; then, while a terrain still has pieces building, waits until a build finishes
/// (one that finished during the update counts: the next update takes it in). This is how a
/// test gives the builds their time: by their events, not by a sleep.
pub fn update_and_wait_for_builds(app: &mut App) {
    let seen = builds_finished();
    app.update();
    let building = building(app);
    if building > 0 {
        assert!(
            wait_for_builds_after(seen, HANG).is_some(),
            "no terrain build finished in {HANG:?} while {building} pieces were building: a hang"
        );
    }
}

/// Updates until every terrain shows every wanted piece and nothing is being built, waiting for
/// the builds between frames. A moved focus reaches the layout a frame later (transforms
/// propagate after `Update`), so a few frames always run.
pub fn settle(app: &mut App) {
    for _ in 0..3 {
        app.update();
    }
    for _ in 0..SETTLE_FRAMES {
        update_and_wait_for_builds(app);
        if settled(app) {
            app.update();
            return;
        }
    }
    let stats = app.world().resource::<TerrainStats>().clone();
    panic!("the terrain did not settle in {SETTLE_FRAMES} frames: {stats:?}");
}

/// Updates until `reached` holds, for a state that a build reaches while it runs (erosion under
/// way, say), so that no build event marks it: between frames the test yields the core to the
/// builds for a moment. Panics naming `what` after [`HANG`].
pub fn update_until(app: &mut App, what: &str, mut reached: impl FnMut(&mut App) -> bool) {
    let start = Instant::now();
    loop {
        app.update();
        if reached(app) {
            return;
        }
        assert!(start.elapsed() < HANG, "waited {HANG:?} for {what}: a hang");
        std::thread::sleep(Duration::from_millis(1));
    }
}
