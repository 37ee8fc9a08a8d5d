//! 2-D gradient fBm, 5 octaves, lacunarity 2, persistence 0.5, over a 1024×1024 grid on one thread:
//! this crate against the `noise` and `fastnoise-lite` crates with the same settings, in one run.
//!
//! `cargo bench -p noise_terrain_core --bench fbm_2d`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
use noise_terrain_core::{Basis, Fade, Fractal, NoiseSettings};

const SIZE: u32 = 1024;
const OCTAVES: u32 = 5;
/// Lattice cells across the map at the first octave.
const FREQUENCY: f64 = 8.0;

fn ours(pool: &rayon::ThreadPool) -> f32 {
    let settings = NoiseSettings {
        basis: Basis::Gradient,
        fade: Fade::Quintic,
        fractal: Fractal::Fbm,
        octaves: OCTAVES,
        frequency: FREQUENCY as f32,
        ..Default::default()
    };
    let map = pool.install(|| noise_terrain_core::Heightmap::generate(&settings, SIZE, SIZE).unwrap());
    map.samples()[SIZE as usize + 1]
}

fn noise_rs(fbm: &Fbm<Perlin>) -> f64 {
    let mut sum = 0.0;
    let step = FREQUENCY / SIZE as f64;
    for j in 0..SIZE {
        for i in 0..SIZE {
            sum += fbm.get([i as f64 * step, j as f64 * step]);
        }
    }
    sum
}

fn fastnoise(noise: &fastnoise_lite::FastNoiseLite) -> f32 {
    let mut sum = 0.0;
    for j in 0..SIZE {
        for i in 0..SIZE {
            sum += noise.get_noise_2d(i as f32, j as f32);
        }
    }
    sum
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("fbm_2d_gradient_1024");
    group.throughput(Throughput::Elements(SIZE as u64 * SIZE as u64));
    group.sample_size(10);

    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    group.bench_function("noise_terrain_core", |b| b.iter(|| black_box(ours(&one))));
    group.bench_function("noise_terrain_core_2_threads", |b| b.iter(|| black_box(ours(&two))));

    let fbm = Fbm::<Perlin>::new(7).set_octaves(OCTAVES as usize).set_lacunarity(2.0).set_persistence(0.5);
    group.bench_function("noise", |b| b.iter(|| black_box(noise_rs(&fbm))));

    let mut fnl = fastnoise_lite::FastNoiseLite::with_seed(7);
    fnl.set_noise_type(Some(fastnoise_lite::NoiseType::Perlin));
    fnl.set_fractal_type(Some(fastnoise_lite::FractalType::FBm));
    fnl.set_fractal_octaves(Some(OCTAVES as i32));
    fnl.set_fractal_lacunarity(Some(2.0));
    fnl.set_fractal_gain(Some(0.5));
    fnl.set_frequency(Some((FREQUENCY / SIZE as f64) as f32));
    group.bench_function("fastnoise-lite", |b| b.iter(|| black_box(fastnoise(&fnl))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
