//! The erosion filter's cost as a ratio, robust to a noisy machine: the bench's field (6-octave
//! gradient fBm, frequency 8) with and without 4 filter octaves, heights with gradients (or, with
//! `heights`, heights alone, as `fill_grid` makes them), one thread, filled alternately (unfiltered, filtered, unfiltered, ...) so that both see the same
//! moments of the machine; prints each grid's median and fastest times and the ratios of each
//! (the fastest are the least disturbed by other work on a shared machine). The
//! grids are the bench's: one 1024², 64 chunks of 129² and 256 chunks of 65² (neighbours sharing
//! their border samples).
//!
//! `cargo run --release -p noise_terrain_core --example erosion_filter_ratio [rounds] [heights]`

use std::time::Instant;

use noise_terrain_core::{ErosionFilter, GridWindow, NoiseSettings, fill_grid, fill_grid_with_gradients};

const SIZE: u32 = 1024;

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(15);
    let heights_alone = std::env::args().any(|a| a == "heights");
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a thread pool");
    let plain = NoiseSettings { octaves: 6, frequency: 8.0, ..Default::default() };
    let filtered = NoiseSettings {
        erosion_filter: ErosionFilter { enabled: true, octaves: 4, ..Default::default() },
        ..plain
    };
    let tiles = |chunk: u32| -> Vec<GridWindow> {
        let across = i64::from(SIZE / (chunk - 1));
        (0..across * across)
            .map(|k| GridWindow {
                origin: [(k % across) * i64::from(chunk - 1), (k / across) * i64::from(chunk - 1)],
                width: chunk,
                height: chunk,
                pixels_per_unit: f64::from(SIZE),
            })
            .collect()
    };
    let whole = GridWindow { origin: [0, 0], width: SIZE, height: SIZE, pixels_per_unit: f64::from(SIZE) };
    let what = if heights_alone { "heights alone" } else { "heights with gradients" };
    println!("{what}, {rounds} alternating rounds (ms)");
    println!(
        "| grid | unfiltered median | filtered median | ratio | unfiltered fastest | filtered fastest | ratio |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (name, windows) in [("1024²", vec![whole]), ("129² chunks", tiles(129)), ("65² chunks", tiles(65))]
    {
        let n = windows[0].width as usize * windows[0].height as usize;
        let (mut heights, mut gradients) = (vec![0.0f32; n], vec![[0.0f32; 2]; n]);
        let samplers = [plain.sampler(), filtered.sampler()];
        let mut times = [Vec::new(), Vec::new()];
        for _ in 0..rounds {
            for (sampler, times) in samplers.iter().zip(&mut times) {
                let start = Instant::now();
                one.install(|| {
                    for &w in &windows {
                        if heights_alone {
                            fill_grid(sampler, w, &mut heights);
                        } else {
                            fill_grid_with_gradients(sampler, w, &mut heights, &mut gradients);
                        }
                    }
                });
                times.push(start.elapsed().as_secs_f64() * 1e3);
                std::hint::black_box(&heights);
            }
        }
        let [unfiltered, filtered] = times.map(|mut t| {
            t.sort_by(f64::total_cmp);
            (t[t.len() / 2], t[0])
        });
        println!(
            "| {name} | {:.1} | {:.1} | {:.2}x | {:.1} | {:.1} | {:.2}x |",
            unfiltered.0,
            filtered.0,
            filtered.0 / unfiltered.0,
            unfiltered.1,
            filtered.1,
            filtered.1 / unfiltered.1
        );
    }
}
