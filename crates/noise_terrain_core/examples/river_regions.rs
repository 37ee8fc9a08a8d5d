//! The endless example's world's river regions, routed one after another on one thread: the
//! median time of a region's routing (sampling the field on its window, post-processing, routing
//! the water) over `count` regions.
//!
//! `cargo run --release -p noise_terrain_core --example river_regions [count]`

use std::time::Instant;

use noise_terrain_core::{RegionKey, RegionRivers, TerrainPreset};

fn main() {
    let count: i64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(9);
    let world = TerrainPreset::river_mountains().river_world().clamped();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a thread pool");
    let mut times: Vec<f64> = (0..count)
        .map(|k| {
            let start = Instant::now();
            let region = one.install(|| RegionRivers::solve(&world, RegionKey { x: k, y: -k }));
            std::hint::black_box(region);
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!("{count} regions: median {:.1} ms, fastest {:.1} ms", times[times.len() / 2], times[0]);
}
