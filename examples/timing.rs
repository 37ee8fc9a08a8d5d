//! Measures what a slider drag costs: from a parameter change to the new mesh and image in the
//! assets, in a headless app (no window, no GPU), for 256x256 and 1024x1024 terrains.
//!
//! ```text
//! cargo run --example timing     # the dev profile here builds every crate at opt-level 2
//! ```

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_noise_terrain::prelude::*;

/// Updates until the terrain generation counter passes `after`; returns the time it took.
fn until_generated(app: &mut App, after: u64) -> Duration {
    let start = Instant::now();
    while app.world().resource::<TerrainStats>().generation <= after {
        app.update();
        assert!(start.elapsed() < Duration::from_secs(120), "no terrain after two minutes");
    }
    start.elapsed()
}

fn main() {
    println!("| resolution | change -> mesh and image ready (median of 7) | of which the job |");
    println!("|---|---|---|");
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
        println!(
            "| {resolution}x{resolution} | {:.1} ms | {:.1} ms |",
            total[3].as_secs_f64() * 1e3,
            job[3].as_secs_f64() * 1e3
        );
    }
}
