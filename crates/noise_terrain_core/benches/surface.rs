//! What the plugin does with a 1024×1024 map besides the noise: the mesh arrays ([`Surface`])
//! (fresh, and rebuilt into the arrays of the previous build) and the ramp texture (into the
//! previous texels), on one thread and on two.
//!
//! `cargo bench -p noise_terrain_core --bench surface`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use noise_terrain_core::Surface;
use noise_terrain_core::{ColorRamp, Heightmap, NoiseSettings};

const SIZE: u32 = 1024;

fn bench(c: &mut Criterion) {
    let padded =
        Heightmap::generate_region(&NoiseSettings::default(), [-1, -1], SIZE + 2, SIZE + 2, SIZE as f64)
            .unwrap();
    let ramp = ColorRamp::terrain();
    let mut group = c.benchmark_group("terrain_1024");
    group.throughput(Throughput::Elements(SIZE as u64 * SIZE as u64)).sample_size(20);
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        group.bench_function(format!("surface_{threads}_threads"), |b| {
            b.iter(|| pool.install(|| black_box(Surface::from_padded(&padded, 100.0, 20.0))))
        });
        let mut reused = Surface::from_padded(&padded, 100.0, 20.0);
        group.bench_function(format!("surface_rebuild_{threads}_threads"), |b| {
            b.iter(|| pool.install(|| reused.rebuild(black_box(&padded), 100.0, 20.0)))
        });
        let mut texels = Vec::new();
        group.bench_function(format!("paint_{threads}_threads"), |b| {
            b.iter(|| pool.install(|| ramp.paint_heights_into(black_box(&padded), 0.4, true, &mut texels)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
