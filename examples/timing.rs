//! Measures what a slider drag costs, in a headless app (no window, no GPU), for 256x256 and
//! 1024x1024 terrains: from one parameter change to the new mesh and image in the assets, and
//! during a drag (a new value every 60 Hz frame for two seconds) how often a new terrain appears.
//!
//! ```text
//! cargo run --example timing     # the dev profile here builds every crate at opt-level 2
//! ```

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_noise_terrain::prelude::*;

/// Updates until the terrain generation counter passes `after`; returns the time it took. Sleeps
/// 1 ms between updates, as a frame-paced game's main thread leaves the cores to the job (a busy
/// loop of updates would take one of them).
fn until_generated(app: &mut App, after: u64) -> Duration {
    let start = Instant::now();
    while app.world().resource::<TerrainStats>().generation <= after {
        app.update();
        std::thread::sleep(Duration::from_millis(1));
        assert!(start.elapsed() < Duration::from_secs(120), "no terrain after two minutes");
    }
    start.elapsed()
}

/// Changes the seed every 60 Hz frame for two seconds; returns the mean time between new terrains.
fn drag_interval(app: &mut App) -> Duration {
    const FRAME: Duration = Duration::from_micros(16_667);
    let first = app.world().resource::<TerrainStats>().generation;
    let start = Instant::now();
    let mut frame = 0;
    while start.elapsed() < Duration::from_secs(2) {
        frame += 1;
        app.world_mut().resource_mut::<TerrainParams>().noise.seed = 1000 + frame;
        app.update();
        std::thread::sleep((start + FRAME * frame).saturating_duration_since(Instant::now()));
    }
    let terrains = app.world().resource::<TerrainStats>().generation - first;
    start.elapsed() / terrains.max(1) as u32
}

fn main() {
    println!(
        "| resolution | change -> mesh and image ready (median of 7) | of which the job | drag: a new terrain every |"
    );
    println!("|---|---|---|---|");
    for resolution in [256, 1024] {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, AssetPlugin::default()))
            .init_asset::<Mesh>()
            .init_asset::<Image>()
            .insert_resource(TerrainParams { resolution, ..default() })
            .add_plugins(TerrainPlugin::default());
        until_generated(&mut app, 0);
        let (mut total, mut job) = (Vec::new(), Vec::new());
        for seed in 1..=7 {
            let generation = app.world().resource::<TerrainStats>().generation;
            app.world_mut().resource_mut::<TerrainParams>().noise.seed = seed;
            total.push(until_generated(&mut app, generation));
            job.push(app.world().resource::<TerrainStats>().generation_time);
        }
        total.sort();
        job.sort();
        let drag = drag_interval(&mut app);
        println!(
            "| {resolution}x{resolution} | {:.1} ms | {:.1} ms | {:.1} ms |",
            total[3].as_secs_f64() * 1e3,
            job[3].as_secs_f64() * 1e3,
            drag.as_secs_f64() * 1e3
        );
    }
}
