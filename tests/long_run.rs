//! 10,000 parameter edits in a headless app: the asset counts and the memory stay flat.

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_noise_terrain::TerrainJobs;
use bevy_noise_terrain::prelude::*;

/// Resident memory of this process in bytes (Linux), or 0 where unknown.
fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|pages| pages.parse::<u64>().ok()))
        .map_or(0, |pages| pages * 4096)
}

#[test]
fn ten_thousand_edits_keep_assets_and_memory_flat() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default()))
        .init_asset::<Mesh>()
        .init_asset::<Image>()
        .insert_resource(TerrainParams { resolution: 24, ..default() })
        .add_plugins(TerrainPlugin::default());
    let settle = |app: &mut App| {
        let start = Instant::now();
        while app.world().resource::<TerrainJobs>().is_busy()
            || app.world().resource::<TerrainStats>().generation == 0
        {
            app.update();
            assert!(start.elapsed() < Duration::from_secs(60));
        }
        app.update();
    };
    settle(&mut app);
    let counts = |app: &App| {
        (app.world().resource::<Assets<Mesh>>().len(), app.world().resource::<Assets<Image>>().len())
    };
    let assets_before = counts(&app);
    let mut memory_after_warmup = 0;
    for edit in 0..10_000u32 {
        let mut params = app.world_mut().resource_mut::<TerrainParams>();
        params.noise.seed = edit;
        params.resolution = 16 + edit % 17;
        app.update();
        if edit == 1_000 {
            memory_after_warmup = resident_bytes();
        }
    }
    settle(&mut app);
    assert_eq!(counts(&app), assets_before);
    assert!(app.world().resource::<TerrainJobs>().jobs_started() > 100);
    let growth = resident_bytes().saturating_sub(memory_after_warmup);
    assert!(growth < 16 << 20, "memory grew by {} KiB over 9,000 edits", growth >> 10);
}
