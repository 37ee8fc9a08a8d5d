//! Value, simplex and Worley fBm (5 octaves, lacunarity 2, persistence 0.5) over a 1024×1024
//! grid on one thread, against the peer crates that have each basis, in one run.
//!
//! `cargo bench -p noise_terrain_core --bench peers`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use fastnoise_lite::{CellularDistanceFunction, CellularReturnType, FastNoiseLite, FractalType, NoiseType};
use noise::{Fbm, MultiFractal, NoiseFn, Value, Worley};
use noise_terrain_core::{Basis, Heightmap, NoiseSettings, Worley as OurWorley};

const SIZE: u32 = 1024;
const OCTAVES: u32 = 5;
const FREQUENCY: f64 = 8.0;

fn ours(pool: &rayon::ThreadPool, basis: Basis) -> f32 {
    let settings = NoiseSettings {
        basis,
        octaves: OCTAVES,
        frequency: FREQUENCY as f32,
        worley: OurWorley { jitter: 0.6, ..Default::default() },
        ..Default::default()
    };
    pool.install(|| Heightmap::generate(&settings, SIZE, SIZE).unwrap().samples()[SIZE as usize + 1])
}

fn per_point(f: impl Fn(f64, f64) -> f64) -> f64 {
    let step = FREQUENCY / SIZE as f64;
    let mut sum = 0.0;
    for j in 0..SIZE {
        for i in 0..SIZE {
            sum += f(i as f64 * step, j as f64 * step);
        }
    }
    sum
}

fn fastnoise(noise_type: NoiseType) -> FastNoiseLite {
    let mut n = FastNoiseLite::with_seed(7);
    n.set_noise_type(Some(noise_type));
    n.set_fractal_type(Some(FractalType::FBm));
    n.set_fractal_octaves(Some(OCTAVES as i32));
    n.set_fractal_lacunarity(Some(2.0));
    n.set_fractal_gain(Some(0.5));
    n.set_frequency(Some((FREQUENCY / SIZE as f64) as f32));
    n.set_cellular_distance_function(Some(CellularDistanceFunction::Euclidean));
    n.set_cellular_return_type(Some(CellularReturnType::Distance));
    n.set_cellular_jitter(Some(0.6));
    n
}

fn fastnoise_grid(n: &FastNoiseLite) -> f32 {
    let mut sum = 0.0;
    for j in 0..SIZE {
        for i in 0..SIZE {
            sum += n.get_noise_2d(i as f32, j as f32);
        }
    }
    sum
}

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
    let fnl = fastnoise(NoiseType::Cellular);
    group.bench_function("fastnoise-lite", |b| b.iter(|| black_box(fastnoise_grid(&fnl))));
    let worley = Fbm::<Worley>::new(7).set_octaves(OCTAVES as usize);
    group.bench_function("noise", |b| b.iter(|| black_box(per_point(|x, y| worley.get([x, y])))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
