//! Erosion of a 1024 x 1024 map: 250,000 droplets (one thread and two), and 100 thermal
//! iterations (one thread). Stream power: the first 10 time steps of the default patch's rivers
//! from the noise (the dearest: the noise's pits make the most cells to flood) at 256², 512² and
//! 1024², one thread and two.

use std::hint::black_box;
use std::sync::atomic::AtomicBool;

use criterion::{Criterion, criterion_group, criterion_main};
use noise_terrain_core::{
    Erosion, Heightmap, Hydraulic, MapWorld, NoiseSettings, StreamPower, StreamPowerMaps, Thermal, erode,
    evolve_landscape,
};

/// The default patch's geometry (100 world units across, 24 tall, sea at 0.42) at 1024 cells.
const WORLD: MapWorld = MapWorld { cell_size: 100.0 / 1023.0, height_scale: 24.0, sea_level: 0.42 };

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
                pool.install(|| black_box(erode(&mut eroded, &settings, &WORLD, &|_| {}, &cancel).unwrap()));
            })
        });
    }
    group.finish();
}

fn stream_power(c: &mut Criterion) {
    let settings = StreamPower { steps: 10, ..Default::default() };
    let cancel = AtomicBool::new(false);
    let mut group = c.benchmark_group("stream_power_10_steps");
    group.sample_size(10);
    for n in [256, 512, 1024] {
        let noise = NoiseSettings { octaves: 6, frequency: 3.0, ..Default::default() };
        let map = Heightmap::generate(&noise, n, n).unwrap();
        let world = MapWorld::patch(100.0, n, 24.0, 0.42);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            group.bench_function(format!("{n}_{threads}_thread"), |b| {
                b.iter(|| {
                    let mut evolved = map.clone();
                    let maps = StreamPowerMaps::default();
                    pool.install(|| {
                        black_box(
                            evolve_landscape(&mut evolved, &settings, &world, maps, &|_| {}, &cancel)
                                .unwrap(),
                        )
                    });
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, erosion, stream_power);
criterion_main!(benches);
