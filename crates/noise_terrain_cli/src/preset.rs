//! RON presets: the same files the plugin and its inspector read and write.

use std::path::Path;

use noise_terrain_core::{ColorRamp, Erosion, NoiseSettings, PostProcess, read_preset_bytes};
use serde::Deserialize;

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

    /// Reads a preset through the core's bounded reader (at most
    /// [`MAX_PRESET_BYTES`](noise_terrain_core::MAX_PRESET_BYTES), whatever the file is); errors
    /// name the file and what is wrong with it.
    pub fn load(path: &Path) -> Result<Self, String> {
        let shown = path.display();
        let bytes = read_preset_bytes(path).map_err(|e| e.to_string())?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| format!("{shown}: not a text file (invalid UTF-8 at byte {})", e.valid_up_to()))?;
        if text.trim().is_empty() {
            return Err(format!("{shown}: the file is empty"));
        }
        ron::from_str(text).map_err(|e| format!("{shown}: not a terrain preset: {e}"))
    }
}
