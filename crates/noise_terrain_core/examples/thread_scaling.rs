//! Two threads against one on the same grid, measured in pairs: each round times a one-thread
//! and a two-thread fill back to back, so both see the same load from the machine's other
//! tenants, and the ratio is taken per round. On a shared VM this is steadier than dividing two
//! criterion results measured a minute apart.
//!
//! ```text
//! cargo run --release -p noise_terrain_core --example thread_scaling [rounds]
//! ```

use std::time::{Duration, Instant};

use noise_terrain_core::{Heightmap, NoiseSettings};

/// The `fbm_2d` bench's grid and settings: gradient fBm, 5 octaves, 1024 × 1024.
fn fill(pool: &rayon::ThreadPool) -> Duration {
    let settings = NoiseSettings { octaves: 5, frequency: 8.0, ..Default::default() };
    let start = Instant::now();
    let map = pool.install(|| Heightmap::generate(&settings, 1024, 1024).unwrap());
    let elapsed = start.elapsed();
    std::hint::black_box(map);
    elapsed
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(300).max(1);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    // Warm-up: both pools' threads started, caches and allocator settled.
    for _ in 0..20 {
        fill(&one);
        fill(&two);
    }
    let pairs: Vec<(f64, f64)> = (0..rounds)
        .map(|round| {
            // Alternate which goes first, so that neither always follows the other.
            let (a, b) = if round % 2 == 0 {
                let a = fill(&one);
                (a, fill(&two))
            } else {
                let b = fill(&two);
                (fill(&one), b)
            };
            (a.as_secs_f64() * 1e3, b.as_secs_f64() * 1e3)
        })
        .collect();
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        (at(0.25), at(0.5), at(0.75))
    };
    let (_, one_ms, _) = median(pairs.iter().map(|p| p.0).collect());
    let (_, two_ms, _) = median(pairs.iter().map(|p| p.1).collect());
    let (low, ratio, high) = median(pairs.iter().map(|(a, b)| a / b).collect());
    println!(
        "{rounds} paired rounds: one thread {one_ms:.2} ms, two threads {two_ms:.2} ms (medians); \
         per-round ratio median {ratio:.2}x, quartiles {low:.2}x to {high:.2}x"
    );
}
