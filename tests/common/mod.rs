//! Helpers the headless test binaries share.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_noise_terrain::TerrainJobs;
use bevy_noise_terrain::prelude::*;

/// Resident memory of this process in bytes (Linux), or 0 where unknown.
pub fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|pages| pages.parse::<u64>().ok()))
        .map_or(0, |pages| pages * 4096)
}

/// Updates until every wanted piece is built and shown (at most 60 s). A moved focus reaches
/// the layout a frame later (transforms propagate after `Update`), so a few frames always run.
pub fn settle(app: &mut App) {
    let start = Instant::now();
    for _ in 0..3 {
        app.update();
    }
    loop {
        app.update();
        let jobs = app.world().resource::<TerrainJobs>();
        let stats = app.world().resource::<TerrainStats>();
        if !jobs.is_busy() && stats.pieces_shown == jobs.desired().len() && stats.pieces_shown > 0 {
            app.update();
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "the terrain did not settle");
    }
}
