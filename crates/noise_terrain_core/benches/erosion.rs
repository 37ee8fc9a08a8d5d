//! Erosion of a 1024 x 1024 map: 250,000 droplets (one thread and two), and 100 thermal
//! iterations (one thread).

use std::hint::black_box;
use std::sync::atomic::AtomicBool;

use criterion::{Criterion, criterion_group, criterion_main};
use noise_terrain_core::{Erosion, Heightmap, Hydraulic, NoiseSettings, Thermal, erode};

fn erosion(c: &mut Criterion) {
    let map = Heightmap::generate(&NoiseSettings { octaves: 6, ..Default::default() }, 1024, 1024).unwrap();
    let hydraulic =
        Erosion { hydraulic: Hydraulic { droplets: 250_000, ..Default::default() }, ..Default::default() };
    let thermal =
        Erosion { thermal: Thermal { iterations: 100, ..Default::default() }, ..Default::default() };
    let cancel = AtomicBool::new(false);
    let mut group = c.benchmark_group("erosion_1024");
    group.sample_size(10);
    for (name, settings, threads) in [
        ("hydraulic_250k_1_thread", hydraulic, 1),
        ("hydraulic_250k_2_threads", hydraulic, 2),
        ("thermal_100_1_thread", thermal, 1),
    ] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut eroded = map.clone();
                pool.install(|| black_box(erode(&mut eroded, &settings, &|_| {}, &cancel).unwrap()));
            })
        });
    }
    group.finish();
}

criterion_group!(benches, erosion);
criterion_main!(benches);
