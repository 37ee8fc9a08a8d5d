//! Placing one scatter layer on one chunk: 200 candidates on a 64-unit chunk (a 129² chunk of
//! the endless layout at its finest level has that side in the plugin's defaults, but the cost
//! depends only on the candidates), the ground sampled from the field ([`WorldGround`]) with
//! its exact normal: 7-octave gradient fBm with power 1.5, with and without the erosion filter
//! (the endless example's field); and the example's reeds, a narrow band of heights at the shore,
//! where most candidates are left out from bounds of their height. One thread (placement has no
//! threads of its own).
//!
//! `cargo bench -p noise_terrain_core --bench scatter`

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

use noise_terrain_core::{
    ErosionFilter, Ground, NoiseSettings, PostProcess, ScatterLayer, ScatterLevels, ScatterRule, WorldGround,
    scatter_points,
};

const CHUNK: f64 = 64.0;
const CANDIDATES: f64 = 200.0;

fn bench(c: &mut Criterion) {
    let plain = NoiseSettings { octaves: 7, frequency: 3.0, seed: 11, ..Default::default() };
    let filtered = NoiseSettings {
        erosion_filter: ErosionFilter { enabled: true, scale: 8.0, octaves: 4, ..Default::default() },
        ..plain
    };
    let post = PostProcess { power: 1.5, ..Default::default() };
    // Every candidate passes the filters: the cost of a layer at its busiest.
    let rule = ScatterRule {
        density: (CANDIDATES / (CHUNK * CHUNK)) as f32,
        spacing: 1.0,
        heights: [0.0, 10.0],
        slopes: [0.0, 90.0],
        ..Default::default()
    };
    let levels = ScatterLevels { water_level: 0.0, height_scale: 420.0 };
    let mut group = c.benchmark_group("scatter_chunk_200");
    group.throughput(Throughput::Elements(CANDIDATES as u64));
    for (name, noise) in [("fbm7", plain), ("fbm7_erosion_filter", filtered)] {
        let ground = WorldGround::new(&noise, &post, 2000.0, 420.0);
        place_on_new_chunks(&mut group, name, &rule, levels, || |x, z| Some(ground.at(x, z)));
    }
    // The example's reeds: a band a hundredth of the land's height above the water, where the
    // ground is asked only for candidates whose height bounds reach the band
    // (`WorldGround::within`); most candidates are left out.
    let reeds = ScatterLayer::landscape().into_iter().find(|l| l.name == "reeds").expect("reeds");
    let shore = ScatterRule { density: rule.density, spacing: 1.0, ..reeds.rule };
    let levels = ScatterLevels { water_level: 0.24, height_scale: 420.0 };
    for (name, noise) in [("fbm7_shore", plain), ("fbm7_erosion_filter_shore", filtered)] {
        let ground = WorldGround::new(&noise, &post, 2000.0, 420.0);
        let heights = shore.clamped().height_window(levels.water_level);
        place_on_new_chunks(&mut group, name, &shore, levels, || ground.within(heights));
    }
    group.finish();
}

/// Benchmarks `rule` placed on a new chunk each iteration, as streaming places them, the ground
/// of each chunk from `ground`.
fn place_on_new_chunks<G: FnMut(f64, f64) -> Option<Ground>>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    rule: &ScatterRule,
    levels: ScatterLevels,
    mut ground: impl FnMut() -> G,
) {
    let mut out = Vec::with_capacity(256);
    let mut k = 0.0;
    group.bench_function(name, |b| {
        b.iter(|| {
            k += 1.0;
            out.clear();
            let rect = [k * CHUNK, 300.0, (k + 1.0) * CHUNK, 300.0 + CHUNK];
            scatter_points(rule, levels, rect, 1.0, ground(), &mut out).unwrap();
            black_box(out.len())
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
