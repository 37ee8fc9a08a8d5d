//! The same terrain eroded at two resolutions: with [`Erosion::for_map`] the height changes of
//! the finer map, averaged down to the coarser one, follow the coarser map's and move about the
//! same volume; with the same settings in cells they do not.
//!
//! The README's figure (512² against 1024²) comes from
//! `cargo test --release -p noise_terrain_core --test erosion_likeness -- --ignored --nocapture`.

use std::sync::atomic::AtomicBool;

use noise_terrain_core::{Erosion, Heightmap, Hydraulic, NoiseSettings, erode};

/// The height change of the preset `eroded_valleys`' terrain at `n × n`, eroded with `settings`.
fn height_change(n: u32, settings: &Erosion) -> Vec<f32> {
    let noise = NoiseSettings { octaves: 7, frequency: 2.5, seed: 5, ..Default::default() };
    let before = Heightmap::generate(&noise, n, n).unwrap();
    let mut after = before.clone();
    let world = noise_terrain_core::MapWorld { cell_size: 1.0, height_scale: 1.0, sea_level: 0.0 };
    erode(&mut after, settings, &world, &|_| {}, &AtomicBool::new(false)).unwrap();
    after.samples().iter().zip(before.samples()).map(|(a, b)| a - b).collect()
}

/// `values` (`n × n`) averaged over 2 × 2 blocks.
fn halve(values: &[f32], n: usize) -> Vec<f32> {
    let h = n / 2;
    (0..h * h)
        .map(|i| {
            let (x, y) = (i % h * 2, i / h * 2);
            (values[y * n + x]
                + values[y * n + x + 1]
                + values[(y + 1) * n + x]
                + values[(y + 1) * n + x + 1])
                / 4.0
        })
        .collect()
}

/// Pearson correlation of `a` and `b`, and the volume `b` moves over the volume `a` moves.
fn likeness(a: &[f32], b: &[f32]) -> (f64, f64) {
    let n = a.len() as f64;
    let mean = |v: &[f32]| v.iter().map(|&x| f64::from(x)).sum::<f64>() / n;
    let (ma, mb) = (mean(a), mean(b));
    let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (f64::from(x) - ma, f64::from(y) - mb);
        cov += x * y;
        va += x * x;
        vb += y * y;
    }
    let volume = |v: &[f32]| v.iter().map(|&x| f64::from(x).abs()).sum::<f64>();
    (cov / (va * vb).sqrt(), volume(b) / volume(a))
}

/// `(correlation, volume ratio)` of `coarse²` against `2·coarse²` eroded with `settings`, in
/// world units and in cells.
fn figures(coarse: u32, settings: &Erosion) -> [(f64, f64); 2] {
    let fine = 2 * coarse;
    let world = likeness(
        &height_change(coarse, &settings.for_map(coarse)),
        &halve(&height_change(fine, &settings.for_map(fine)), fine as usize),
    );
    let cells =
        likeness(&height_change(coarse, settings), &halve(&height_change(fine, settings), fine as usize));
    [world, cells]
}

fn settings(droplets: u32) -> Erosion {
    Erosion { hydraulic: Hydraulic { droplets, ..Default::default() }, ..Default::default() }
}

#[test]
fn world_units_erode_256_and_512_alike() {
    let [(world, world_volume), (cells, cells_volume)] = figures(256, &settings(400_000));
    println!(
        "world units: correlation {world:.3}, volume {world_volume:.3}; cells: {cells:.3}, {cells_volume:.3}"
    );
    assert!(world > 0.6 && world > cells + 0.2, "correlation {world} in world units, {cells} in cells");
    assert!((0.8..1.25).contains(&world_volume), "volume ratio {world_volume}");
    assert!(cells_volume < 0.5, "in cells the finer map moves much less: {cells_volume}");
}

#[test]
#[ignore = "the README's figure: seconds in release"]
fn world_units_erode_512_and_1024_alike() {
    let [(world, world_volume), (cells, cells_volume)] = figures(512, &settings(150_000));
    println!(
        "world units: correlation {world:.3}, volume {world_volume:.3}; cells: {cells:.3}, {cells_volume:.3}"
    );
    assert!(world > 0.8 && (0.8..1.25).contains(&world_volume));
}
