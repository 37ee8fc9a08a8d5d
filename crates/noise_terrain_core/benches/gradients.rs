//! Heights and gradients together against heights alone: gradient fBm (5 octaves, lacunarity 2,
//! persistence 0.5) over a 1024×1024 grid on one thread, in one run, and value and simplex fBm
//! likewise; the same for the damped
//! fractal of gradient and simplex noise (heights on the row path, gradients point by point with
//! Hessians) and fBm with turned
//! octaves (point by point), and gradient fBm with Perlin's kernel (the others take the default,
//! rounded one). Then gradient (both kernels), value and
//! simplex fBm over the same ground as 64 chunks of 129² (8 × 8, neighbours sharing their border samples,
//! as the plugin's endless terrain builds them), each chunk's outputs small enough to stay in
//! cache. It first prints the instruction-set level each basis runs at (measured at start-up,
//! or pinned by `NOISE_TERRAIN_ISA`), for heights and for heights with gradients.
//!
//! `cargo bench -p noise_terrain_core --bench gradients`

mod common;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use common::{FREQUENCY, OCTAVES, SIZE};
use noise_terrain_core::advanced::{gradients_grid_level, grid_level};
use noise_terrain_core::{
    Basis, Fractal, GradientKernel, GridWindow, NoiseSettings, fill_grid, fill_grid_with_gradients,
};

fn bench(c: &mut Criterion) {
    for basis in [Basis::Gradient, Basis::Value, Basis::Simplex] {
        let (heights, with_gradients) = (grid_level(basis), gradients_grid_level(basis, false));
        let filtered = gradients_grid_level(basis, true);
        eprintln!(
            "{basis:?}: heights at {heights}, with gradients at {with_gradients}, filtered at {filtered}"
        );
    }
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let n = (SIZE * SIZE) as usize;
    let window = GridWindow { origin: [0, 0], width: SIZE, height: SIZE, pixels_per_unit: f64::from(SIZE) };
    let mut group = c.benchmark_group("gradient_fbm_1024_heights_and_gradients");
    group.throughput(Throughput::Elements(n as u64)).sample_size(10);
    let fbm = NoiseSettings { octaves: OCTAVES, frequency: FREQUENCY as f32, ..Default::default() };
    let perlin = NoiseSettings { gradient_kernel: GradientKernel::Perlin, ..fbm };
    let cases = [
        ("gradient", fbm),
        ("value", NoiseSettings { basis: Basis::Value, ..fbm }),
        ("simplex", NoiseSettings { basis: Basis::Simplex, ..fbm }),
        ("gradient_damped", NoiseSettings { fractal: Fractal::Damped, ..fbm }),
        ("simplex_damped", NoiseSettings { basis: Basis::Simplex, fractal: Fractal::Damped, ..fbm }),
        ("gradient_turned", NoiseSettings { rotate_octaves: true, ..fbm }),
        ("gradient_perlin", perlin),
    ];
    for (name, settings) in cases {
        let sampler = settings.sampler();
        let (mut heights, mut gradients) = (vec![0.0f32; n], vec![[0.0f32; 2]; n]);
        group.bench_function(format!("{name}_heights"), |b| {
            b.iter(|| one.install(|| fill_grid(&sampler, window, black_box(&mut heights))))
        });
        group.bench_function(format!("{name}_heights_and_gradients"), |b| {
            b.iter(|| {
                one.install(|| {
                    fill_grid_with_gradients(&sampler, window, &mut heights, black_box(&mut gradients))
                })
            })
        });
    }
    group.finish();

    // 129² chunks (under the grid's parallel threshold, so filled on the calling thread).
    const CHUNK: u32 = 129;
    let mut group = c.benchmark_group("gradient_fbm_chunks_heights_and_gradients");
    let chunk_samples = (CHUNK * CHUNK) as usize;
    group.throughput(Throughput::Elements(64 * chunk_samples as u64)).sample_size(10);
    let chunks: Vec<GridWindow> = (0..64)
        .map(|k| GridWindow {
            origin: [(k % 8) * (CHUNK as i64 - 1), (k / 8) * (CHUNK as i64 - 1)],
            width: CHUNK,
            height: CHUNK,
            pixels_per_unit: f64::from(SIZE),
        })
        .collect();
    let chunked = [
        ("gradient", fbm),
        ("gradient_perlin", perlin),
        ("value", NoiseSettings { basis: Basis::Value, ..fbm }),
        ("simplex", NoiseSettings { basis: Basis::Simplex, ..fbm }),
    ];
    for (name, settings) in chunked {
        let sampler = settings.sampler();
        let (mut heights, mut gradients) = (vec![0.0f32; chunk_samples], vec![[0.0f32; 2]; chunk_samples]);
        group.bench_function(format!("{name}_heights"), |b| {
            b.iter(|| chunks.iter().for_each(|&w| fill_grid(&sampler, w, black_box(&mut heights))))
        });
        group.bench_function(format!("{name}_heights_and_gradients"), |b| {
            b.iter(|| {
                chunks.iter().for_each(|&w| {
                    fill_grid_with_gradients(&sampler, w, &mut heights, black_box(&mut gradients))
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
