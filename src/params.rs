//! [`TerrainParams`]: the resource that describes the terrain, and its validation.

use bevy::prelude::*;
use bevy::reflect::reflect_remote;
use noise_terrain_core::{Basis, Clamped, ColorRamp, Fade, Fractal, NoiseSettings};

/// Fewest vertices per side of the terrain grid.
pub const MIN_RESOLUTION: u32 = 2;
/// Most vertices per side: 2048² vertices is about 170 MB of vertex data, texture and heights.
pub const MAX_RESOLUTION: u32 = 2048;
/// Allowed world size per side, in metres (world units).
pub const WORLD_SIZE_RANGE: (f32, f32) = (0.01, 1e6);
/// Allowed height scale, in world units.
pub const HEIGHT_SCALE_RANGE: (f32, f32) = (0.0, 1e5);

/// Everything the terrain is made from. Change it (from game code or the inspector) and the plugin
/// regenerates the mesh and texture in the background.
///
/// Out-of-range values are clamped (with a warning in the log) before generation; the resource
/// itself keeps what was written, so a slider can be dragged back.
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(Resource, Default, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct TerrainParams {
    /// The noise field: basis, fade, fractal, octaves, frequency, seed, offset, period.
    #[reflect(remote = NoiseSettingsReflect)]
    pub noise: NoiseSettings,
    /// Vertices per side of the square grid (and texels per side of its texture), `2..=2048`.
    pub resolution: u32,
    /// Side length of the terrain in world units; it is centred on its entity's origin.
    pub world_size: f32,
    /// World height of a noise height of 1.
    pub height_scale: f32,
    /// Noise height of the shoreline, `[0, 1]`: the ramp's water colours sit below it.
    pub water_level: f32,
    /// Colours from deep water to snow.
    #[reflect(remote = ColorRampReflect)]
    pub ramp: ColorRamp,
    /// Paint heights above 1 orange (only reachable with normalisation off).
    pub show_overflow: bool,
}

impl Default for TerrainParams {
    fn default() -> Self {
        Self {
            noise: NoiseSettings { octaves: 6, frequency: 3.0, ..NoiseSettings::default() },
            resolution: 256,
            world_size: 100.0,
            height_scale: 24.0,
            water_level: 0.42,
            ramp: ColorRamp::terrain(),
            show_overflow: true,
        }
    }
}

fn clamp_f32(value: f32, (lo, hi): (f32, f32), fallback: f32) -> f32 {
    if value.is_nan() { fallback } else { value.clamp(lo, hi) }
}

impl TerrainParams {
    /// The parameters with every value in its documented range, and what had to change.
    pub fn validated(&self) -> (TerrainParams, Vec<Clamped>) {
        let default = Self::default();
        let mut changes = self.noise.validate();
        let used = TerrainParams {
            noise: self.noise.clamped(),
            resolution: self.resolution.clamp(MIN_RESOLUTION, MAX_RESOLUTION),
            world_size: clamp_f32(self.world_size, WORLD_SIZE_RANGE, default.world_size),
            height_scale: clamp_f32(self.height_scale, HEIGHT_SCALE_RANGE, default.height_scale),
            water_level: clamp_f32(self.water_level, (0.0, 1.0), default.water_level),
            ..self.clone()
        };
        let mut note = |field, given: String, now: String| {
            if given != now {
                changes.push(Clamped { field, given, used: now });
            }
        };
        note("resolution", self.resolution.to_string(), used.resolution.to_string());
        note("world_size", self.world_size.to_string(), used.world_size.to_string());
        note("height_scale", self.height_scale.to_string(), used.height_scale.to_string());
        note("water_level", self.water_level.to_string(), used.water_level.to_string());
        (used, changes)
    }
}

/// Reflection mirror of the core's [`Basis`].
#[reflect_remote(Basis)]
#[allow(missing_docs)]
pub enum BasisReflect {
    Value,
    Gradient,
}

/// Reflection mirror of the core's [`Fade`].
#[reflect_remote(Fade)]
#[allow(missing_docs)]
pub enum FadeReflect {
    Step,
    Linear,
    Cubic,
    Quintic,
    Cosine,
}

/// Reflection mirror of the core's [`Fractal`].
#[reflect_remote(Fractal)]
#[allow(missing_docs)]
pub enum FractalReflect {
    None,
    Fbm,
}

/// Reflection mirror of the core's [`NoiseSettings`]: field for field.
#[reflect_remote(NoiseSettings)]
#[allow(missing_docs)]
pub struct NoiseSettingsReflect {
    #[reflect(remote = BasisReflect)]
    pub basis: Basis,
    #[reflect(remote = FadeReflect)]
    pub fade: Fade,
    #[reflect(remote = FractalReflect)]
    pub fractal: Fractal,
    pub octaves: u32,
    pub lacunarity: f32,
    pub persistence: f32,
    pub frequency: f32,
    pub seed: u32,
    pub offset: bevy::math::DVec2,
    pub normalize: bool,
    pub period: Option<u32>,
}

/// Reflection of the core's [`ColorRamp`] as one opaque value.
#[reflect_remote(ColorRamp)]
#[derive(Clone)]
#[reflect(opaque, Clone)]
#[allow(missing_docs)]
pub struct ColorRampReflect {
    pub stops: Vec<noise_terrain_core::RampStop>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        let (used, changes) = TerrainParams::default().validated();
        assert!(changes.is_empty(), "{changes:?}");
        assert_eq!(used, TerrainParams::default());
    }

    #[test]
    fn out_of_range_values_are_clamped_and_named() {
        let mut p = TerrainParams::default();
        p.noise.octaves = 1000;
        p.noise.frequency = f32::NAN;
        p.resolution = 0;
        p.height_scale = f32::INFINITY;
        let (used, changes) = p.validated();
        assert_eq!(used.noise.octaves, 12);
        assert_eq!(used.noise.frequency, NoiseSettings::default().frequency);
        assert_eq!(used.resolution, MIN_RESOLUTION);
        assert_eq!(used.height_scale, HEIGHT_SCALE_RANGE.1);
        let fields: Vec<_> = changes.iter().map(|c| c.field).collect();
        assert_eq!(fields, ["octaves", "frequency", "resolution", "height_scale"]);
    }
}
