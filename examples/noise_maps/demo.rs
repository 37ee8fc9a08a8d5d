//! What the `noise_maps` demo shows, without the window: the start settings, ramp and water level
//! of value against gradient noise, and the 1-D profiles. `tests/noise_maps_demo.rs` checks what the
//! demo claims (value noise climbs past the snow line, gradient noise hardly does; linear and
//! cosine profiles; periods) against these same functions.

use bevy_noise_terrain::core::{Basis, ColorRamp, Fade, GradientKernel, Heightmap, NoiseSettings, RampStop};

/// Pixels per side of each map.
pub const MAP_SIZE: u32 = 440;
/// The height of the shoreline.
pub const WATER_LEVEL: f32 = 0.45;
/// The height where snow begins on [`ramp`]: value noise climbs past it at seed 7 and gradient
/// noise, whose values sit closer to the middle, hardly does.
pub const SNOW_LINE: f32 = 0.8;

/// The demo's start: linear fade on purpose, so the lattice shows; seed 7, five octaves; its
/// gradient noise blends the corners with Perlin's classic kernel.
pub fn start_settings() -> NoiseSettings {
    let gradient_kernel = GradientKernel::Perlin;
    NoiseSettings {
        fade: Fade::Linear,
        octaves: 5,
        frequency: 4.0,
        seed: 7,
        gradient_kernel,
        ..Default::default()
    }
}

/// Water through sand, meadow, forest and rock to snow above [`SNOW_LINE`], for
/// `ColorRamp::color_for_height` at [`WATER_LEVEL`].
pub fn ramp() -> ColorRamp {
    // A height h above the water sits at ramp position 0.5 + 0.5 (h - water) / (1 - water).
    let at = |h: f32| 0.5 + 0.5 * (h - WATER_LEVEL) / (1.0 - WATER_LEVEL);
    let stop = |position: f32, color: [u8; 3]| RampStop { position, color };
    ColorRamp {
        stops: vec![
            stop(0.0, [16, 42, 96]),
            stop(0.42, [38, 96, 164]),
            stop(0.5, [84, 150, 196]),
            stop(0.5, [214, 200, 148]),
            stop(at(0.47), [128, 176, 84]),
            stop(at(0.6), [64, 124, 52]),
            stop(at(0.7), [118, 104, 90]),
            stop(at(SNOW_LINE - 0.02), [160, 152, 146]),
            stop(at(SNOW_LINE), [242, 244, 248]),
            stop(1.0, [255, 255, 255]),
        ],
    }
}

/// The map of one basis with the demo's other settings.
pub fn map(settings: &NoiseSettings, basis: Basis) -> Heightmap {
    Heightmap::generate(&NoiseSettings { basis, ..*settings }, MAP_SIZE, MAP_SIZE)
        .expect("the map size is valid")
}

/// The share of a map's samples above the snow line.
pub fn snow_share(map: &Heightmap) -> f32 {
    map.samples().iter().filter(|&&h| h >= SNOW_LINE).count() as f32 / map.samples().len() as f32
}

/// The 1-D panel: lattice cells across a plot.
pub const PROFILE_CELLS: u32 = 16;
/// Samples per lattice cell of a plot (a power of two: periodic plots then repeat exactly).
pub const PROFILE_SAMPLES_PER_CELL: u32 = 32;

/// 1-D value noise over [`PROFILE_CELLS`] lattice cells, [`PROFILE_SAMPLES_PER_CELL`] samples
/// per cell: `octaves` of fBm with `fade` between the lattice values (linear, or the
/// cosine curve `(1 - cos(απ)) / 2`), repeating every `period` cells when given
/// (`noise(t) = f(t mod n)`).
pub fn profile(seed: u32, fade: Fade, octaves: u32, period: Option<u32>) -> Vec<f32> {
    let settings = NoiseSettings {
        basis: Basis::Value,
        fade,
        octaves,
        frequency: 1.0,
        period,
        seed,
        ..Default::default()
    };
    let sampler = settings.sampler();
    (0..PROFILE_CELLS * PROFILE_SAMPLES_PER_CELL)
        .map(|k| sampler.sample_1d(f64::from(k) / f64::from(PROFILE_SAMPLES_PER_CELL)))
        .collect()
}
