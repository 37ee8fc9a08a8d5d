//! Post-processing one chunk's heights with their gradients in world space, as the endless
//! layout's builds do: a 129² chunk of the endless example's field (7-octave gradient fBm),
//! raised to the power 1.5. One thread.
//!
//! `cargo bench -p noise_terrain_core --bench postprocess`

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

use noise_terrain_core::{GridWindow, Heightmap, NoiseSettings, PostProcess, fill_grid_with_gradients};

const SIDE: u32 = 129;

fn bench(c: &mut Criterion) {
    let noise = NoiseSettings { octaves: 7, frequency: 3.0, seed: 11, ..Default::default() };
    let window = GridWindow { origin: [4096, 1024], width: SIDE, height: SIDE, pixels_per_unit: 4096.0 };
    let samples = (SIDE * SIDE) as usize;
    let (mut heights, mut gradients) = (vec![0.0; samples], vec![[0.0; 2]; samples]);
    fill_grid_with_gradients(&noise.sampler(), window, &mut heights, &mut gradients);
    let post = PostProcess { power: 1.5, ..Default::default() };
    let bounds = noise.value_bounds();
    let mut group = c.benchmark_group("postprocess_chunk_129");
    group.throughput(Throughput::Elements(samples as u64));
    group.bench_function("power_with_gradients", |b| {
        b.iter_batched_ref(
            || (Heightmap::from_samples(SIDE, SIDE, heights.clone()).expect("a 129² map"), gradients.clone()),
            |(map, gradients)| post.apply_in_world_with_gradients(map, gradients, window, bounds),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
