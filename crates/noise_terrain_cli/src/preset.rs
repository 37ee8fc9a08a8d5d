//! RON presets: the same files the plugin and its inspector read and write.

use std::path::Path;

use noise_terrain_core::{ColorRamp, Erosion, NoiseSettings, PostProcess};
use serde::Deserialize;

/// The largest preset read: presets are a few hundred bytes; a bigger file is not one.
const MAX_PRESET_BYTES: u64 = 1 << 20;

/// The fields of a plugin preset (`TerrainParams`) that the tool uses. Fields it has no use for
/// (`layout`, `world_size`, `show_overflow`, ...) are accepted and ignored, so every preset the
/// plugin saves loads here.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Preset {
    /// The noise field.
    pub noise: NoiseSettings,
    /// Its post-processing.
    pub post: PostProcess,
    /// Colours for `color`.
    pub ramp: ColorRamp,
    /// Noise height of the shoreline, for `color`.
    pub water_level: f32,
    /// World height of a noise height of 1 (the patch is 100 units wide), for `normals` and
    /// hillshading.
    pub height_scale: f32,
    /// Vertices per side: the size when `--size` is not given.
    pub resolution: u32,
    /// Erosion after post-processing (off unless the preset or the flags turn it on).
    pub erosion: Erosion,
}

impl Default for Preset {
    fn default() -> Self {
        // The plugin's defaults, so a preset that leaves a field out means the same here.
        Self {
            noise: NoiseSettings { octaves: 6, frequency: 3.0, ..NoiseSettings::default() },
            post: PostProcess::default(),
            ramp: ColorRamp::terrain(),
            water_level: 0.42,
            height_scale: 24.0,
            resolution: 256,
            erosion: Erosion::default(),
        }
    }
}

impl Preset {
    /// What the tool uses without a preset: the core's default field (as `--help` lists it) and
    /// the plugin's colours, water level and height scale.
    pub fn without_file() -> Self {
        Self { noise: NoiseSettings::default(), resolution: 512, ..Self::default() }
    }

    /// Reads a preset; errors name the file and what is wrong with it.
    pub fn load(path: &Path) -> Result<Self, String> {
        let shown = path.display();
        let size = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?.len();
        if size > MAX_PRESET_BYTES {
            return Err(format!("{shown}: {size} bytes is not a preset (at most {MAX_PRESET_BYTES})"));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
        ron::from_str(&text).map_err(|e| format!("{shown}: not a terrain preset: {e}"))
    }
}
