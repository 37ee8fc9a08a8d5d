//! 2-D gradient fBm, 5 octaves, lacunarity 2, persistence 0.5, over a 1024×1024 grid on one thread
//! (and on two): this crate against the `noise` and `fastnoise-lite` crates with the same settings,
//! in one run.
//!
//! `cargo bench -p noise_terrain_core --bench fbm_2d`

mod common;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use common::{OCTAVES, SIZE, fastnoise, fastnoise_grid, ours, per_point};
use fastnoise_lite::NoiseType;
use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
use noise_terrain_core::Basis;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("fbm_2d_gradient_1024");
    group.throughput(Throughput::Elements(SIZE as u64 * SIZE as u64)).sample_size(10);

    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    group.bench_function("noise_terrain_core", |b| b.iter(|| black_box(ours(&one, Basis::Gradient))));
    group.bench_function("noise_terrain_core_2_threads", |b| {
        b.iter(|| black_box(ours(&two, Basis::Gradient)))
    });

    let fbm = Fbm::<Perlin>::new(7).set_octaves(OCTAVES as usize).set_lacunarity(2.0).set_persistence(0.5);
    group.bench_function("noise", |b| b.iter(|| black_box(per_point(|x, y| fbm.get([x, y])))));

    let fnl = fastnoise(NoiseType::Perlin);
    group.bench_function("fastnoise-lite", |b| b.iter(|| black_box(fastnoise_grid(&fnl))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
