//! The erosion filter's cost: 6-octave gradient fBm (default rounded kernel) with 4 filter
//! octaves against the same field unfiltered, heights with gradients (and heights alone), on one
//! thread, in one run; and with one filter octave, which parts the cost of the coarse slope (with
//! its second derivatives) from that of each octave: one 1024² grid, and the same ground as 64 chunks of 129² and 256 chunks of
//! 65² (neighbours sharing their border samples, as the endless terrain builds them).
//!
//! `cargo bench -p noise_terrain_core --bench erosion_filter`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use noise_terrain_core::{ErosionFilter, GridWindow, NoiseSettings, fill_grid, fill_grid_with_gradients};

const SIZE: u32 = 1024;

fn bench(c: &mut Criterion) {
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let plain = NoiseSettings { octaves: 6, frequency: 8.0, ..Default::default() };
    let filter = ErosionFilter { enabled: true, octaves: 4, ..Default::default() };
    let filtered = NoiseSettings { erosion_filter: filter, ..plain };
    let whole = GridWindow { origin: [0, 0], width: SIZE, height: SIZE, pixels_per_unit: f64::from(SIZE) };
    let tiles = |chunk: u32| -> Vec<GridWindow> {
        let across = (SIZE / (chunk - 1)) as i64;
        (0..across * across)
            .map(|k| GridWindow {
                origin: [(k % across) * (chunk as i64 - 1), (k / across) * (chunk as i64 - 1)],
                width: chunk,
                height: chunk,
                pixels_per_unit: f64::from(SIZE),
            })
            .collect()
    };
    for (group_name, windows) in [
        ("erosion_filter_1024", vec![whole]),
        ("erosion_filter_chunks_129", tiles(129)),
        ("erosion_filter_chunks_65", tiles(65)),
    ] {
        let mut group = c.benchmark_group(group_name);
        let n = windows[0].width as usize * windows[0].height as usize;
        group.throughput(Throughput::Elements((n * windows.len()) as u64)).sample_size(10);
        let one_octave = NoiseSettings { erosion_filter: ErosionFilter { octaves: 1, ..filter }, ..plain };
        for (name, settings) in
            [("unfiltered", plain), ("filtered", filtered), ("filtered_one_octave", one_octave)]
        {
            let sampler = settings.sampler();
            let (mut heights, mut gradients) = (vec![0.0f32; n], vec![[0.0f32; 2]; n]);
            group.bench_function(format!("{name}_heights_and_gradients"), |b| {
                b.iter(|| {
                    one.install(|| {
                        for &w in &windows {
                            fill_grid_with_gradients(&sampler, w, &mut heights, black_box(&mut gradients));
                        }
                    })
                })
            });
            group.bench_function(format!("{name}_heights"), |b| {
                b.iter(|| {
                    one.install(|| {
                        windows.iter().for_each(|&w| fill_grid(&sampler, w, black_box(&mut heights)))
                    })
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
