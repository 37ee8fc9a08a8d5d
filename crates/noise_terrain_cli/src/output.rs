//! Writing files: heightmap encodings, RGB images, and a temporary file renamed into place, so
//! that a failed write never destroys the file that was there.

use std::path::Path;

use noise_terrain_core::Heightmap;

/// A heightmap file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HeightFormat {
    /// 16-bit greyscale PNG, heights `[0, 1]` to `0..=65535` (clamped).
    Png,
    /// Raw 16-bit little-endian, row-major, no header (`.r16`, as Unity and Unreal import).
    R16,
    /// Raw 32-bit float little-endian, row-major, no header (`.r32`).
    R32,
}

impl HeightFormat {
    /// The format a file name asks for, by its extension.
    pub fn from_path(path: &Path) -> Result<Self, String> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("png") => Ok(HeightFormat::Png),
            Some("r16" | "raw") => Ok(HeightFormat::R16),
            Some("r32") => Ok(HeightFormat::R32),
            _ => Err(format!("`{}` should end in .png, .r16 (or .raw) or .r32", path.display())),
        }
    }

    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            HeightFormat::Png => "png",
            HeightFormat::R16 => "r16",
            HeightFormat::R32 => "r32",
        }
    }

    /// The file's bytes.
    pub fn encode(self, map: &Heightmap) -> Result<Vec<u8>, String> {
        match self {
            HeightFormat::Png => map.encode_png16().map_err(|e| e.to_string()),
            HeightFormat::R16 => Ok(map.to_u16().iter().flat_map(|v| v.to_le_bytes()).collect()),
            HeightFormat::R32 => Ok(map.encode_r32()),
        }
    }
}

/// An 8-bit RGB PNG of `width × height` pixels.
pub fn encode_rgb_png(width: u32, height: u32, rgb: &[u8]) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgb).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// Writes `bytes` to `path` through `path.tmp` and a rename: a failure leaves the old file (the
/// core's [`write_atomically`](noise_terrain_core::advanced::write_atomically), which the plugin shares).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    noise_terrain_core::advanced::write_atomically(path, bytes).map_err(|e| e.to_string())
}
