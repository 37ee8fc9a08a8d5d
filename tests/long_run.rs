//! Long runs in a headless app: 10,000 parameter edits of the patch, and ten minutes of
//! simulated flight over endless terrain. The asset counts and the memory stay flat.
//!
//! They take a minute or more, so the default test run skips them; CI runs them in a step of
//! its own: `cargo test --test long_run -- --ignored`.
//!
//! Memory is the heap this process holds live, counted by a wrapping allocator: resident memory
//! also keeps whatever the allocator has not handed back to the system after the busiest moment
//! of a run (a pile-up of pieces while the builds fall behind), which is a peak, not a leak.

mod common;

use common::{app, app_with_focus, jobs_started, resident_bytes, settle};

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use bevy::prelude::*;
use bevy_noise_terrain::pieces::ASSET_POOL_SIZE;
use bevy_noise_terrain::prelude::*;

/// The system allocator, counting the bytes it has handed out and not yet taken back.
struct CountingAllocator;

static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to `System`, which upholds `GlobalAlloc`'s contract;
// the counter only adds and subtracts the sizes of blocks `System` handed out or took back.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's `layout` is passed on as `GlobalAlloc::alloc` requires.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let block = unsafe { System.alloc_zeroed(layout) };
        if !block.is_null() {
            LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: the caller guarantees `block` came from this allocator with `layout`.
        unsafe { System.dealloc(block, layout) };
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `block` came from this allocator with `layout`, and
        // `new_size` is valid for `layout`'s alignment.
        let moved = unsafe { System.realloc(block, layout, new_size) };
        if !moved.is_null() {
            LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
            LIVE_BYTES.fetch_add(new_size, Ordering::Relaxed);
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Bytes of heap this process holds live.
fn live_heap_bytes() -> u64 {
    LIVE_BYTES.load(Ordering::Relaxed) as u64
}

/// The heap count is the whole process's: the two tests measure it one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
#[ignore = "a soak test of a minute or more: cargo test --test long_run -- --ignored"]
fn ten_thousand_edits_keep_assets_and_memory_flat() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut app = app(TerrainPreset { resolution: 24, ..default() });
    settle(&mut app);
    let counts = |app: &App| {
        (app.world().resource::<Assets<Mesh>>().len(), app.world().resource::<Assets<Image>>().len())
    };
    let assets_before = counts(&app);
    let mut memory_after_warmup = (0, 0);
    for edit in 0..10_000u32 {
        let mut params = app.world_mut().resource_mut::<TerrainParams>();
        params.noise.seed = edit;
        params.resolution = 16 + edit % 17;
        app.update();
        if edit == 1_000 {
            memory_after_warmup = (live_heap_bytes(), resident_bytes());
        }
    }
    settle(&mut app);
    assert_eq!(counts(&app), assets_before);
    assert!(jobs_started(&mut app) > 100);
    let growth = live_heap_bytes().saturating_sub(memory_after_warmup.0);
    println!(
        "edits: live heap grew by {} KiB (to {} KiB), resident memory by {} KiB",
        growth >> 10,
        live_heap_bytes() >> 10,
        resident_bytes().saturating_sub(memory_after_warmup.1) >> 10
    );
    assert!(growth < 4 << 20, "live heap grew by {} KiB over 9,000 edits", growth >> 10);
}

#[test]
#[ignore = "a soak test of a minute or more: cargo test --test long_run -- --ignored"]
fn ten_minutes_of_flight_keep_assets_bounded_and_memory_flat() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut app =
        app_with_focus(TerrainPreset { layout: TerrainLayout::ENDLESS, world_size: 2000.0, ..default() });
    let focus = common::focus(&mut app);
    let live_pieces = |app: &mut App| app.world_mut().query::<&TerrainPiece>().iter(app.world()).count();
    let counts = |app: &App| {
        (app.world().resource::<Assets<Mesh>>().len(), app.world().resource::<Assets<Image>>().len())
    };
    let mut memory_after_warmup = (0, 0);
    let mut most_over_live = 0usize;
    // 36,000 frames of 1/60 s at 200 units/s: 120 km. While chunks are building, each frame
    // waits for one of them to finish (as a frame-paced game leaves the cores to them), so that
    // the builds keep up with the flight on a machine of any speed or load.
    for frame in 0..36_000u32 {
        app.world_mut().get_mut::<Transform>(focus).unwrap().translation.x = frame as f32 * 200.0 / 60.0;
        common::update_and_wait_for_builds(&mut app);
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
            memory_after_warmup = (live_heap_bytes(), resident_bytes());
        }
    }
    settle(&mut app);
    let growth = live_heap_bytes().saturating_sub(memory_after_warmup.0);
    println!(
        "flight: {} chunk jobs, at most {most_over_live} assets beyond the live pieces, live heap grew by \
         {} KiB (to {} KiB), resident memory by {} KiB",
        jobs_started(&mut app),
        growth >> 10,
        live_heap_bytes() >> 10,
        resident_bytes().saturating_sub(memory_after_warmup.1) >> 10
    );
    assert!(jobs_started(&mut app) > 10_000);
    // Room for the pool's spare job memory (up to a job slot's worth of chunk arrays, kept for a
    // second), which either moment may hold; a leak of 100 bytes a job would pass 8 MiB.
    assert!(growth < 8 << 20, "live heap grew by {} KiB over 33,000 frames", growth >> 10);
}
