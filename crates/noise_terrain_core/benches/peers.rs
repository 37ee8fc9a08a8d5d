//! Value, simplex and Worley fBm (5 octaves, lacunarity 2, persistence 0.5) over a 1024×1024
//! grid on one thread, against the peer crates that have each basis, in one run.
//!
//! `cargo bench -p noise_terrain_core --bench peers`

mod common;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use common::{FREQUENCY, OCTAVES, SIZE, fastnoise, fastnoise_grid, ours, ours_with_jitter, per_point};
use fastnoise_lite::{CellularDistanceFunction, CellularReturnType, NoiseType};
use noise::{Fbm, MultiFractal, NoiseFn, Value, Worley};
use noise_terrain_core::Basis;

fn bench(c: &mut Criterion) {
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();

    let mut group = c.benchmark_group("value_fbm_1024");
    group.throughput(Throughput::Elements(SIZE as u64 * SIZE as u64)).sample_size(10);
    group.bench_function("noise_terrain_core", |b| b.iter(|| black_box(ours(&one, Basis::Value))));
    let fnl = fastnoise(NoiseType::Value);
    group.bench_function("fastnoise-lite", |b| b.iter(|| black_box(fastnoise_grid(&fnl))));
    let value = Fbm::<Value>::new(7).set_octaves(OCTAVES as usize);
    group.bench_function("noise", |b| b.iter(|| black_box(per_point(|x, y| value.get([x, y])))));
    group.finish();

    let mut group = c.benchmark_group("simplex_fbm_1024");
    group.throughput(Throughput::Elements(SIZE as u64 * SIZE as u64)).sample_size(10);
    group.bench_function("noise_terrain_core", |b| b.iter(|| black_box(ours(&one, Basis::Simplex))));
    let mut simd = simdnoise::NoiseBuilder::fbm_2d(SIZE as usize, SIZE as usize);
    simd.with_freq((FREQUENCY / SIZE as f64) as f32)
        .with_octaves(OCTAVES as u8)
        .with_lacunarity(2.0)
        .with_gain(0.5);
    group.bench_function("simdnoise", |b| b.iter(|| black_box(simd.generate().1)));
    let fnl = fastnoise(NoiseType::OpenSimplex2);
    group.bench_function("fastnoise-lite", |b| b.iter(|| black_box(fastnoise_grid(&fnl))));
    group.finish();

    let mut group = c.benchmark_group("worley_fbm_1024");
    group.throughput(Throughput::Elements(SIZE as u64 * SIZE as u64)).sample_size(10);
    group.bench_function("noise_terrain_core", |b| b.iter(|| black_box(ours(&one, Basis::Worley))));
    let fnl = fastnoise_cellular(0.6);
    group.bench_function("fastnoise-lite", |b| b.iter(|| black_box(fastnoise_grid(&fnl))));
    let worley = Fbm::<Worley>::new(7).set_octaves(OCTAVES as usize);
    group.bench_function("noise", |b| b.iter(|| black_box(per_point(|x, y| worley.get([x, y])))));
    group.finish();

    // Jitter 1, feature points anywhere in their cells: fastnoise-lite still searches 3×3 cells
    // (and can miss the nearest point); we search 5×5 where a point can be that far, so this is
    // our hardest case.
    let mut group = c.benchmark_group("worley_jitter_1_fbm_1024");
    group.throughput(Throughput::Elements(SIZE as u64 * SIZE as u64)).sample_size(10);
    group.bench_function("noise_terrain_core", |b| {
        b.iter(|| black_box(ours_with_jitter(&one, Basis::Worley, 1.0)))
    });
    let fnl = fastnoise_cellular(1.0);
    group.bench_function("fastnoise-lite", |b| b.iter(|| black_box(fastnoise_grid(&fnl))));
    group.finish();
}

/// fastnoise-lite's cellular fBm: Euclidean F1 distance with `jitter`.
fn fastnoise_cellular(jitter: f32) -> fastnoise_lite::FastNoiseLite {
    let mut fnl = fastnoise(NoiseType::Cellular);
    fnl.set_cellular_distance_function(Some(CellularDistanceFunction::Euclidean));
    fnl.set_cellular_return_type(Some(CellularReturnType::Distance));
    fnl.set_cellular_jitter(Some(jitter));
    fnl
}

criterion_group!(benches, bench);
criterion_main!(benches);
