//! [`TerrainPreset`]: the settings of a terrain that the plugin, its inspector and the
//! `noise-terrain` tool share (the plugin's `TerrainParams` adds only its layout), with their
//! defaults and ranges written once.

use crate::clamp::clamp_or;
use crate::scatter::layer::clamped_layers;
use crate::{Clamped, ColorRamp, ColorRules, Erosion, NoiseSettings, PostProcess, ScatterLayer};

/// Vertices per side of a patch: at least 2; at most 2048 (2048² vertices is about 170 MB of
/// vertex data, texture and heights).
pub const RESOLUTION_RANGE: (u32, u32) = (2, 2048);
/// Side length of a patch in world units.
pub const WORLD_SIZE_RANGE: (f32, f32) = (0.01, 1e6);
/// World height of a noise height of 1.
pub const HEIGHT_SCALE_RANGE: (f32, f32) = (0.0, 1e5);
/// Noise height of the shoreline.
pub const WATER_LEVEL_RANGE: (f32, f32) = (0.0, 1.0);

/// A terrain's settings: the field, what is done with its map, and how it is shown. What a
/// preset file holds (the plugin's files add a `layout`, which the tool ignores); a field a file
/// leaves out takes its default here.
///
/// ```
/// use noise_terrain_core::TerrainPreset;
///
/// let preset = TerrainPreset { water_level: 0.3, height_scale: 80.0, ..Default::default() };
/// let (valid, clamped) = TerrainPreset { water_level: 7.0, ..preset.clone() }.validated();
/// assert_eq!((valid.water_level, clamped.len()), (1.0, 1));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct TerrainPreset {
    /// The noise field.
    pub noise: NoiseSettings,
    /// Whole-map post-processing.
    pub post: PostProcess,
    /// Stream power, droplet and thermal erosion after post-processing (off by default);
    /// droplets and scree for a map 512 cells across ([`Erosion::for_map`] scales them), stream
    /// power in world units.
    pub erosion: Erosion,
    /// Vertices per side of a patch (and texels of its texture), [`RESOLUTION_RANGE`].
    pub resolution: u32,
    /// Side length of a patch in world units, [`WORLD_SIZE_RANGE`].
    pub world_size: f32,
    /// World height of a noise height of 1, [`HEIGHT_SCALE_RANGE`].
    pub height_scale: f32,
    /// Noise height of the shoreline, [`WATER_LEVEL_RANGE`]: the ramp's water colours sit below.
    pub water_level: f32,
    /// Colours from deep water to snow.
    pub ramp: ColorRamp,
    /// Layers painted over the ramp by height, slope and the erosion filter's cut.
    pub colors: ColorRules,
    /// Paint heights above 1 orange (only reachable with normalisation off).
    pub show_overflow: bool,
    /// Things placed on the ground (none by default), at most
    /// [`MAX_SCATTER_LAYERS`](crate::limits::MAX_SCATTER_LAYERS).
    pub scatter: Vec<ScatterLayer>,
    /// Show a sea surface at the water level (off by default).
    pub sea: bool,
    /// Show the rivers of stream power as water over their channels (off by default; the
    /// texture paints them either way).
    pub river_water: bool,
}

impl Default for TerrainPreset {
    fn default() -> Self {
        Self {
            noise: NoiseSettings { octaves: 6, frequency: 3.0, ..NoiseSettings::default() },
            post: PostProcess::default(),
            erosion: Erosion::default(),
            resolution: 256,
            world_size: 100.0,
            height_scale: 24.0,
            water_level: 0.42,
            ramp: ColorRamp::terrain(),
            colors: ColorRules::landscape(),
            show_overflow: true,
            scatter: Vec::new(),
            sea: false,
            river_water: false,
        }
    }
}

impl TerrainPreset {
    /// The settings with every value in its range (NaN takes the default), and what changed.
    pub fn validated(&self) -> (TerrainPreset, Vec<Clamped>) {
        let mut changes = self.noise.validate();
        let used = self.clamped();
        let mut note = |field, given: String, now: String| {
            if given != now {
                changes.push(Clamped { field, given, used: now });
            }
        };
        note("post", format!("{:?}", self.post), format!("{:?}", used.post));
        note("erosion", format!("{:?}", self.erosion), format!("{:?}", used.erosion));
        note("colors", format!("{:?}", self.colors), format!("{:?}", used.colors));
        note("ramp", format!("{:?}", self.ramp), format!("{:?}", used.ramp));
        note("scatter", format!("{:?}", self.scatter), format!("{:?}", used.scatter));
        note("resolution", self.resolution.to_string(), used.resolution.to_string());
        note("world_size", self.world_size.to_string(), used.world_size.to_string());
        note("height_scale", self.height_scale.to_string(), used.height_scale.to_string());
        note("water_level", self.water_level.to_string(), used.water_level.to_string());
        (used, changes)
    }

    /// The settings with every value in its range (NaN takes the default): what
    /// [`validated`](Self::validated) uses, without telling what changed (no text is made, so
    /// it is cheap enough for every build).
    pub fn clamped(&self) -> TerrainPreset {
        let default = Self::default();
        TerrainPreset {
            noise: self.noise.clamped(),
            post: self.post.clamped(),
            erosion: self.erosion.clamped(),
            colors: self.colors.clamped(),
            ramp: self.ramp.clamped(),
            resolution: self.resolution.clamp(RESOLUTION_RANGE.0, RESOLUTION_RANGE.1),
            world_size: clamp_or(self.world_size, WORLD_SIZE_RANGE, default.world_size),
            height_scale: clamp_or(self.height_scale, HEIGHT_SCALE_RANGE, default.height_scale),
            water_level: clamp_or(self.water_level, WATER_LEVEL_RANGE, default.water_level),
            scatter: clamped_layers(&self.scatter),
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_in_range_and_validation_is_a_fixed_point() {
        let (used, changes) = TerrainPreset::default().validated();
        assert!(changes.is_empty(), "{changes:?}");
        assert_eq!(used, TerrainPreset::default());
        let bad = TerrainPreset {
            resolution: 0,
            world_size: f32::NAN,
            height_scale: -1.0,
            water_level: 7.0,
            ..TerrainPreset::default()
        };
        let (used, changes) = bad.validated();
        let fields: Vec<_> = changes.iter().map(|c| c.field).collect();
        assert_eq!(fields, ["resolution", "world_size", "height_scale", "water_level"]);
        assert_eq!(
            (used.resolution, used.world_size, used.height_scale, used.water_level),
            (2, 100.0, 0.0, 1.0)
        );
        assert_eq!(bad.clamped(), used, "clamped is validated without the notes");
        assert!(used.validated().1.is_empty(), "clamped settings stay as they are");
    }
}
