//! Long runs in a headless app: 10,000 parameter edits of the patch, and ten minutes of
//! simulated flight over endless terrain. The asset counts and the memory stay flat.

mod common;

use common::{app, app_with_focus, jobs_started, resident_bytes, settle};

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_noise_terrain::pieces::ASSET_POOL_SIZE;
use bevy_noise_terrain::prelude::*;

/// Resident memory is the whole process's: the two tests measure it one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn ten_thousand_edits_keep_assets_and_memory_flat() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut app = app(TerrainParams { resolution: 24, ..default() });
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
    assert!(jobs_started(&mut app) > 100);
    let growth = resident_bytes().saturating_sub(memory_after_warmup);
    assert!(growth < 16 << 20, "memory grew by {} KiB over 9,000 edits", growth >> 10);
}

#[test]
fn ten_minutes_of_flight_keep_assets_bounded_and_memory_flat() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut app =
        app_with_focus(TerrainParams { layout: TerrainLayout::ENDLESS, world_size: 2000.0, ..default() });
    let focus = common::focus(&mut app);
    let live_pieces = |app: &mut App| app.world_mut().query::<&TerrainPiece>().iter(app.world()).count();
    let counts = |app: &App| {
        (app.world().resource::<Assets<Mesh>>().len(), app.world().resource::<Assets<Image>>().len())
    };
    let mut memory_after_warmup = 0;
    let mut most_over_live = 0usize;
    // 36,000 frames of 1/60 s at 200 units/s: 120 km. Each frame waits up to 2 ms for the jobs,
    // as a frame-paced game leaves the cores to them, so that chunks are built as they fly by.
    for frame in 0..36_000u32 {
        app.world_mut().get_mut::<Transform>(focus).unwrap().translation.x = frame as f32 * 200.0 / 60.0;
        app.update();
        let start = Instant::now();
        while app.world().resource::<TerrainStats>().pieces_building > 0
            && start.elapsed() < Duration::from_millis(2)
        {
            std::thread::sleep(Duration::from_micros(200));
        }
        if frame % 500 == 0 {
            let live = live_pieces(&mut app);
            let (meshes, images) = counts(&app);
            // One mesh and one image per live piece, plus the pool (and a frame's worth of
            // despawned pieces whose assets are freed on the next update).
            most_over_live = most_over_live.max(meshes.max(images).saturating_sub(live));
            assert!(
                meshes <= live + ASSET_POOL_SIZE + 24 && images <= live + ASSET_POOL_SIZE + 24,
                "frame {frame}: {meshes} meshes, {images} images for {live} pieces"
            );
        }
        if frame == 3_000 {
            // Measured with every wanted chunk built, here and at the end: how many jobs are
            // still in flight depends on how busy the machine is, not on what the plugin keeps.
            settle(&mut app);
            memory_after_warmup = resident_bytes();
        }
    }
    settle(&mut app);
    let growth = resident_bytes().saturating_sub(memory_after_warmup);
    println!(
        "flight: {} chunk jobs, at most {most_over_live} assets beyond the live pieces, memory grew by {} KiB",
        jobs_started(&mut app),
        growth >> 10
    );
    assert!(jobs_started(&mut app) > 10_000);
    assert!(growth < 16 << 20, "memory grew by {} KiB over 33,000 frames", growth >> 10);
}
