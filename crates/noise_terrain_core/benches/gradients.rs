//! Heights and gradients together against heights alone: gradient fBm (5 octaves, lacunarity 2,
//! persistence 0.5) over a 1024×1024 grid on one thread, in one run.
//!
//! `cargo bench -p noise_terrain_core --bench gradients`

mod common;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use common::{FREQUENCY, OCTAVES, SIZE};
use noise_terrain_core::{Basis, GridWindow, NoiseSettings, fill_grid, fill_grid_with_gradients};

fn bench(c: &mut Criterion) {
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let n = (SIZE * SIZE) as usize;
    let window = GridWindow { origin: [0, 0], width: SIZE, height: SIZE, pixels_per_unit: f64::from(SIZE) };
    let mut group = c.benchmark_group("gradient_fbm_1024_heights_and_gradients");
    group.throughput(Throughput::Elements(n as u64)).sample_size(10);
    for basis in [Basis::Gradient, Basis::Value] {
        let sampler =
            NoiseSettings { basis, octaves: OCTAVES, frequency: FREQUENCY as f32, ..Default::default() }
                .sampler();
        let (mut heights, mut gradients) = (vec![0.0f32; n], vec![[0.0f32; 2]; n]);
        group.bench_function(format!("{}_heights", basis.name()), |b| {
            b.iter(|| one.install(|| fill_grid(&sampler, window, black_box(&mut heights))))
        });
        group.bench_function(format!("{}_heights_and_gradients", basis.name()), |b| {
            b.iter(|| {
                one.install(|| {
                    fill_grid_with_gradients(&sampler, window, &mut heights, black_box(&mut gradients))
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
