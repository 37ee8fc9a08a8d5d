//! What a process's first grid pays that its later ones do not: times one cold fill of a
//! 1024² grid (5 octaves, frequency 8, seed 7: the peers harness's field) with some of the
//! first-time work done before the clock starts, then the median of 21 later fills, each into a
//! fresh allocation as the first one was. Run one process per case, on one core:
//!
//! ```sh
//! for case in cold level pool pages small all; do
//!   taskset -c 0 cargo run -q --release -p noise_terrain_core --example first_grid -- gradient $case
//! done
//! ```
//!
//! Cases: `cold` does nothing first; `level` measures the instruction-set level first; `pool`
//! starts the thread pool first; `pages` has the allocator hand out memory the process has
//! touched before (as later fills get it); `small` fills a 64² grid first (the level, the code
//! and the tables, not the pool or the pages); `all` does the first three.

use std::time::Instant;

use noise_terrain_core::advanced::grid_level;
use noise_terrain_core::{Basis, Heightmap, NoiseSettings};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let basis = match args.get(1).map_or("gradient", String::as_str) {
        "value" => Basis::Value,
        "simplex" => Basis::Simplex,
        "worley" => Basis::Worley,
        _ => Basis::Gradient,
    };
    let case = args.get(2).map_or("cold", String::as_str);
    let settings = NoiseSettings { octaves: 5, frequency: 8.0, seed: 7, basis, ..NoiseSettings::default() };
    let n = 1024;
    if matches!(case, "level" | "all") {
        grid_level(basis);
    }
    if matches!(case, "pool" | "all") {
        rayon::broadcast(|_| ());
    }
    if matches!(case, "pages" | "all") {
        // Touched and freed twice: the first block comes fresh from the system and, freed,
        // raises the allocator's threshold for doing so again; the second comes from its heap,
        // which keeps it when it is freed, as after the first fill.
        for _ in 0..2 {
            drop(std::hint::black_box(vec![1.0f32; n * n]));
        }
    }
    if case == "small" {
        // Everything else a first grid meets (code, tables, scratch) on a grid of 64².
        drop(std::hint::black_box(Heightmap::generate(&settings, 64, 64)));
    }
    let t = Instant::now();
    let first = Heightmap::generate(&settings, n as u32, n as u32).expect("a valid size");
    let first_ms = t.elapsed().as_secs_f64() * 1e3;
    drop(std::hint::black_box(first));
    let mut later: Vec<f64> = (0..21)
        .map(|_| {
            let t = Instant::now();
            drop(std::hint::black_box(Heightmap::generate(&settings, n as u32, n as u32)));
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    later.sort_by(f64::total_cmp);
    let warm = later[later.len() / 2];
    println!(
        "{basis:?} {case:5}: first {first_ms:.2} ms, later {warm:.2} ms (median of 21), first/later {:.2}, level {}",
        first_ms / warm,
        grid_level(basis)
    );
}
