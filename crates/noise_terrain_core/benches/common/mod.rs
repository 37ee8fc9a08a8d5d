//! Shared by the benches: the grid, the settings and the peers' per-point loops.
#![allow(dead_code)] // each bench uses part of it

use fastnoise_lite::{FastNoiseLite, FractalType, NoiseType};
use noise_terrain_core::basis::Worley;
use noise_terrain_core::{Basis, GradientKernel, Heightmap, NoiseSettings};

/// Samples per side of the grid.
pub const SIZE: u32 = 1024;
/// fBm octaves.
pub const OCTAVES: u32 = 5;
/// Lattice cells across the map at the first octave.
pub const FREQUENCY: f64 = 8.0;

/// Our fBm of `basis` over the grid, in `pool` (lacunarity 2, persistence 0.5; Worley jitter 0.6;
/// gradient noise with Perlin's kernel, the peers' algorithm: the default rounded kernel costs a
/// few percent more, measured by `--bench gradients`).
pub fn ours(pool: &rayon::ThreadPool, basis: Basis) -> f32 {
    ours_with_jitter(pool, basis, 0.6)
}

/// [`ours`] with another Worley jitter.
pub fn ours_with_jitter(pool: &rayon::ThreadPool, basis: Basis, jitter: f32) -> f32 {
    let settings = NoiseSettings {
        basis,
        octaves: OCTAVES,
        frequency: FREQUENCY as f32,
        worley: Worley { jitter, ..Default::default() },
        gradient_kernel: GradientKernel::Perlin,
        ..Default::default()
    };
    pool.install(|| Heightmap::generate(&settings, SIZE, SIZE).unwrap().samples()[SIZE as usize + 1])
}

/// Sums `f` over the grid's points in lattice units (the `noise` crate has no grid call).
pub fn per_point(f: impl Fn(f64, f64) -> f64) -> f64 {
    let step = FREQUENCY / SIZE as f64;
    let mut sum = 0.0;
    for j in 0..SIZE {
        for i in 0..SIZE {
            sum += f(i as f64 * step, j as f64 * step);
        }
    }
    sum
}

/// fastnoise-lite set up for fBm of `noise_type` with the same settings.
pub fn fastnoise(noise_type: NoiseType) -> FastNoiseLite {
    let mut n = FastNoiseLite::with_seed(7);
    n.set_noise_type(Some(noise_type));
    n.set_fractal_type(Some(FractalType::FBm));
    n.set_fractal_octaves(Some(OCTAVES as i32));
    n.set_fractal_lacunarity(Some(2.0));
    n.set_fractal_gain(Some(0.5));
    n.set_frequency(Some((FREQUENCY / SIZE as f64) as f32));
    n
}

/// Sums fastnoise-lite over the grid (its frequency maps pixels to lattice units).
pub fn fastnoise_grid(n: &FastNoiseLite) -> f32 {
    let mut sum = 0.0;
    for j in 0..SIZE {
        for i in 0..SIZE {
            sum += n.get_noise_2d(i as f32, j as f32);
        }
    }
    sum
}
