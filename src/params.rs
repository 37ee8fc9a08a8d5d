//! [`TerrainParams`]: the resource that describes the terrain, and its validation.

use bevy::prelude::*;
use bevy::reflect::reflect_remote;
use noise_terrain_core::field::clamp_or;
use noise_terrain_core::{Clamped, ColorRamp, NoiseSettings, PostProcess};

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
    /// Whole-map post-processing: stretch, redistribution, island, terraces.
    #[reflect(remote = PostProcessReflect)]
    pub post: PostProcess,
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
            post: PostProcess::default(),
            resolution: 256,
            world_size: 100.0,
            height_scale: 24.0,
            water_level: 0.42,
            ramp: ColorRamp::terrain(),
            show_overflow: true,
        }
    }
}

impl TerrainParams {
    /// The parameters with every value in its documented range, and what had to change.
    pub fn validated(&self) -> (TerrainParams, Vec<Clamped>) {
        let default = Self::default();
        let mut changes = self.noise.validate();
        let used = TerrainParams {
            noise: self.noise.clamped(),
            post: self.post.clamped(),
            resolution: self.resolution.clamp(MIN_RESOLUTION, MAX_RESOLUTION),
            world_size: clamp_or(self.world_size, WORLD_SIZE_RANGE, default.world_size),
            height_scale: clamp_or(self.height_scale, HEIGHT_SCALE_RANGE, default.height_scale),
            water_level: clamp_or(self.water_level, (0.0, 1.0), default.water_level),
            ..self.clone()
        };
        let mut note = |field, given: String, now: String| {
            if given != now {
                changes.push(Clamped { field, given, used: now });
            }
        };
        note("post", format!("{:?}", self.post), format!("{:?}", used.post));
        note("resolution", self.resolution.to_string(), used.resolution.to_string());
        note("world_size", self.world_size.to_string(), used.world_size.to_string());
        note("height_scale", self.height_scale.to_string(), used.height_scale.to_string());
        note("water_level", self.water_level.to_string(), used.water_level.to_string());
        (used, changes)
    }
}

/// Reflection of the core's [`NoiseSettings`] as one opaque value: the core has no Bevy
/// dependency, so its types cannot derive `Reflect`, and an opaque value needs no field-by-field
/// mirror that would have to follow every new parameter.
#[reflect_remote(NoiseSettings)]
#[derive(Clone)]
#[reflect(opaque, Clone)]
#[allow(missing_docs)]
pub struct NoiseSettingsReflect;

/// Reflection of the core's [`PostProcess`] as one opaque value.
#[reflect_remote(PostProcess)]
#[derive(Clone)]
#[reflect(opaque, Clone)]
#[allow(missing_docs)]
pub struct PostProcessReflect;

/// Reflection of the core's [`ColorRamp`] as one opaque value.
#[reflect_remote(ColorRamp)]
#[derive(Clone)]
#[reflect(opaque, Clone)]
#[allow(missing_docs)]
pub struct ColorRampReflect;

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::reflect::structs::Struct;

    #[test]
    fn params_reflect_field_by_field_and_clone_through_reflection() {
        let mut p = TerrainParams::default();
        p.noise.seed = 99;
        p.post.terraces = 3;
        let names: Vec<_> = (0..p.field_len()).map(|i| p.name_at(i).unwrap()).collect();
        assert!(
            names.contains(&"noise") && names.contains(&"ramp") && names.contains(&"resolution"),
            "{names:?}"
        );
        let cloned = p.reflect_clone().unwrap().take::<TerrainParams>().unwrap();
        assert_eq!(cloned, p);
    }

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
