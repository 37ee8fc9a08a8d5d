//! Chunk-sized grids against a large one: `Heightmap::generate_region` (the call the plugin's
//! chunks make: sampler set-up and the row path) for 65², 129² and 1024² samples of each basis'
//! fBm (5 octaves, lacunarity 2, persistence 0.5; Worley F1 with jitter 1), one thread. Chunk
//! sizes are called from the bench's thread, as a game's task threads call them (grids that
//! small are filled on the calling thread); 1024² runs in a one-thread pool. Throughput is in
//! samples, so criterion prints M samples/s directly.
//!
//! `cargo bench -p noise_terrain_core --bench grid_sizes`

mod common;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use common::{FREQUENCY, OCTAVES};
use noise_terrain_core::basis::Worley;
use noise_terrain_core::{Basis, Heightmap, NoiseSettings};

fn bench(c: &mut Criterion) {
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    for basis in Basis::ALL {
        let settings = NoiseSettings {
            basis,
            octaves: OCTAVES,
            frequency: FREQUENCY as f32,
            worley: Worley { jitter: 1.0, ..Default::default() },
            ..Default::default()
        };
        let mut group = c.benchmark_group(format!("grid_sizes_{}", basis.name()));
        group.sample_size(20);
        for size in [65u32, 129, 1024] {
            group.throughput(Throughput::Elements(u64::from(size) * u64::from(size)));
            // Chunk-like: 1024 pixels per map unit, so every size samples the same lattice density.
            let generate = || {
                Heightmap::generate_region(black_box(&settings), [3 * 64, -5 * 64], size, size, 1024.0)
                    .unwrap()
            };
            group.bench_function(format!("{size}"), |b| {
                if size > 129 { b.iter(|| one.install(generate)) } else { b.iter(generate) }
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
