//! RON presets: the same files the plugin and its inspector read and write.

use std::path::Path;

use noise_terrain_core::advanced::read_preset_bytes;
use noise_terrain_core::{NoiseSettings, TerrainPreset};

/// A preset: the core's [`TerrainPreset`], the very settings (and defaults) the plugin and its
/// inspector use, so every preset the plugin saves loads here. The tool builds one map whatever
/// the preset's `layout` (the patch it describes); unknown fields are ignored.
pub type Preset = TerrainPreset;

/// What the tool uses without a preset: the core's default field (as `--help` lists it) and the
/// preset's colours, water level and height scale, at 512².
pub fn without_file() -> Preset {
    Preset { noise: NoiseSettings::default(), resolution: 512, ..Preset::default() }
}

/// Reads a preset through the core's bounded reader (at most
/// [`MAX_PRESET_BYTES`](noise_terrain_core::limits::MAX_PRESET_BYTES), whatever the file is); errors name
/// the file and what is wrong with it.
pub fn load(path: &Path) -> Result<Preset, String> {
    let shown = path.display();
    let bytes = read_preset_bytes(path).map_err(|e| e.to_string())?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| format!("{shown}: not a text file (invalid UTF-8 at byte {})", e.valid_up_to()))?;
    if text.trim().is_empty() {
        return Err(format!("{shown}: the file is empty"));
    }
    ron::from_str(text).map_err(|e| format!("{shown}: not a terrain preset: {e}"))
}
