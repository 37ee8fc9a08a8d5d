//! Reading and writing the plugin's files safely: presets (RON) and heightmap exports.
//!
//! Writes go to a temporary file beside the target, which is then renamed over it, so a crash
//! or a full disk mid-write never destroys the earlier file. Reads are size-limited and every
//! error names the file and the problem.

use std::path::{Path, PathBuf};

use noise_terrain_core::Heightmap;
use noise_terrain_core::advanced::{PresetReadError, WriteError, read_preset_bytes};
pub use noise_terrain_core::limits::MAX_PRESET_BYTES;

use crate::params::TerrainPreset;

/// Why a file could not be read or written. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file could not be written (the core's atomic writer, which the `noise-terrain` tool
    /// shares: the file that was there is unchanged).
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The file could not be read, or is larger than any preset (the core's bounded reader,
    /// which the `noise-terrain` tool shares: at most [`MAX_PRESET_BYTES`] are read).
    #[error(transparent)]
    Read(#[from] PresetReadError),
    /// The file is empty.
    #[error("{}: the file is empty", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The file is not UTF-8 text (a binary file).
    #[error("{}: not a text file (invalid UTF-8 at byte {at})", path.display())]
    NotText {
        /// The file.
        path: PathBuf,
        /// Offset of the first invalid byte.
        at: usize,
    },
    /// The text is not a valid preset (syntax or schema), with line and column.
    #[error("{}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// The data could not be encoded.
    #[error("{}: {message}", path.display())]
    Encode {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// Writes `bytes` to `path` through a temporary file and a rename (the core's
/// [`write_atomically`](noise_terrain_core::advanced::write_atomically)).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    Ok(noise_terrain_core::advanced::write_atomically(path, bytes)?)
}

/// Reads (at most [`MAX_PRESET_BYTES`], whatever the file is) and parses a preset. Nothing else
/// changes when it fails.
pub fn load_preset(path: &Path) -> Result<TerrainPreset, FileError> {
    parse_preset(path, &read_preset_bytes(path)?)
}

/// Parses preset bytes read from `path` (used for the error messages).
pub fn parse_preset(path: &Path, bytes: &[u8]) -> Result<TerrainPreset, FileError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| FileError::NotText { path: path.to_path_buf(), at: e.valid_up_to() })?;
    if text.trim().is_empty() {
        return Err(FileError::Empty { path: path.to_path_buf() });
    }
    ron::from_str(text).map_err(|e| FileError::Parse { path: path.to_path_buf(), message: e.to_string() })
}

/// The preset as RON text.
pub fn preset_text(params: &TerrainPreset) -> String {
    let config = ron::ser::PrettyConfig::new().depth_limit(3);
    // Serialising plain data into a string cannot fail.
    ron::ser::to_string_pretty(params, config).unwrap_or_default()
}

/// Saves a preset through a temporary file and a rename.
pub fn save_preset(path: &Path, params: &TerrainPreset) -> Result<(), FileError> {
    write_atomically(path, preset_text(params).as_bytes())
}

/// The `.ron` files in `folder`, sorted by name; empty if the folder cannot be read.
pub fn list_presets(folder: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    found.sort();
    found
}

/// Writes `base.png` (16-bit greyscale) and `base.r32` (raw little-endian `f32`) and returns their
/// paths.
pub fn export_heightmap(map: &Heightmap, base: &Path) -> Result<[PathBuf; 2], FileError> {
    let png_path = base.with_extension("png");
    let r32_path = base.with_extension("r32");
    let png = map
        .encode_png16()
        .map_err(|e| FileError::Encode { path: png_path.clone(), message: e.to_string() })?;
    write_atomically(&png_path, &png)?;
    write_atomically(&r32_path, &map.encode_r32())?;
    Ok([png_path, r32_path])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TerrainLayout;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bevy_noise_terrain_{name}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn presets_round_trip() {
        let dir = temp_dir("round_trip");
        let mut params = TerrainPreset::default();
        params.noise.seed = 1234;
        params.post.terraces = 7;
        let path = dir.join("mine.ron");
        save_preset(&path, &params).unwrap();
        assert_eq!(load_preset(&path).unwrap(), params);
        assert_eq!(list_presets(&dir), vec![path]);
    }

    #[test]
    fn a_preset_that_names_no_kernel_keeps_perlins_and_new_terrains_take_the_rounded_one() {
        use crate::core::GradientKernel;
        let old = parse_preset(Path::new("old.ron"), b"(noise: (seed: 3))").unwrap();
        assert_eq!(old.noise.gradient_kernel, GradientKernel::Perlin, "written before the rounded default");
        assert_eq!(old.noise.seed, 3);
        let new = TerrainPreset::default();
        assert_eq!(new.noise.gradient_kernel, GradientKernel::Rounded);
        // Saved now, the kernel is named, so the file reads back as it was.
        let text = preset_text(&new);
        assert_eq!(parse_preset(Path::new("new.ron"), text.as_bytes()).unwrap(), new, "{text}");
    }

    #[test]
    fn files_saved_by_earlier_versions_load_with_their_layout_and_save_the_same_way() {
        // The resource used to hold every field itself, the layout among them.
        let old = b"(noise: (seed: 8), layout: Endless(chunk_size: 32.0, chunk_vertices: 33, view_distance: 500.0, lod_levels: 3), resolution: 77, sea: true)";
        let read = parse_preset(Path::new("old.ron"), old).unwrap();
        let layout = TerrainLayout::Endless {
            chunk_size: 32.0,
            chunk_vertices: 33,
            view_distance: 500.0,
            lod_levels: 3,
        };
        assert_eq!((read.noise.seed, read.layout, read.resolution, read.sea), (8, layout, 77, true));
        // The resource is saved as its preset alone: no wrapper in the file.
        let text = preset_text(&read);
        assert!(text.trim_start().starts_with('(') && text.contains("layout: Endless("), "{text}");
        let as_resource = ron::ser::to_string(&crate::TerrainParams(read.clone())).unwrap();
        assert_eq!(ron::ser::to_string(&read).unwrap(), as_resource);
        assert_eq!(parse_preset(Path::new("new.ron"), text.as_bytes()).unwrap(), read);
    }

    #[test]
    fn endless_rivers_are_saved_and_files_without_them_load_dry() {
        let old = parse_preset(Path::new("old.ron"), b"(noise: (seed: 8), layout: Endless(chunk_size: 32.0, chunk_vertices: 33, view_distance: 500.0, lod_levels: 3))").unwrap();
        assert_eq!(old.endless_rivers, crate::core::EndlessRivers::default());
        assert!(!old.has_endless_rivers());
        let rivers =
            crate::core::EndlessRivers { enabled: true, min_area: 5e4, lakes: false, ..Default::default() };
        let new = TerrainPreset { endless_rivers: rivers, ..old };
        assert!(new.has_endless_rivers());
        let text = preset_text(&new);
        assert!(text.contains("endless_rivers:"), "{text}");
        assert_eq!(parse_preset(Path::new("new.ron"), text.as_bytes()).unwrap(), new);
    }

    #[test]
    fn bad_preset_files_give_errors_that_name_the_file() {
        let dir = temp_dir("bad");
        let cases: [(&str, Vec<u8>, Option<&str>); 4] = [
            ("empty.ron", vec![], Some("empty")),
            ("binary.ron", vec![0xff, 0xfe, 0x00, 0x81], Some("not a text file")),
            (
                "truncated.ron",
                preset_text(&TerrainPreset::default()).as_bytes()[..200].to_vec(),
                Some("truncated.ron:"),
            ),
            ("schema.ron", b"(resolution: \"many\")".to_vec(), None),
        ];
        for (name, bytes, expected) in cases {
            let path = dir.join(name);
            std::fs::write(&path, &bytes).unwrap();
            let message = load_preset(&path).unwrap_err().to_string();
            assert!(message.contains(name), "{message}");
            if let Some(expected) = expected {
                assert!(message.contains(expected), "{message}");
            }
        }
        let big = dir.join("big.ron");
        std::fs::File::create(&big).unwrap().set_len(100 << 20).unwrap();
        let too_large = load_preset(&big);
        assert!(
            matches!(too_large, Err(FileError::Read(PresetReadError::TooLarge { size: noise_terrain_core::advanced::PresetSize::Bytes(n), .. })) if n == 100 << 20),
            "{too_large:?}"
        );
        assert!(matches!(
            load_preset(&dir.join("missing.ron")),
            Err(FileError::Read(PresetReadError::Io { .. }))
        ));
    }

    #[test]
    fn a_failed_write_keeps_the_earlier_file() {
        let dir = temp_dir("keep");
        let path = dir.join("keep.ron");
        save_preset(&path, &TerrainPreset::default()).unwrap();
        let before = std::fs::read(&path).unwrap();
        // A folder where the temporary file should go makes the write fail half-way.
        std::fs::create_dir(dir.join("keep.ron.tmp")).unwrap();
        let mut changed = TerrainPreset::default();
        changed.noise.seed = 5;
        assert!(save_preset(&path, &changed).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), before);
        let missing = save_preset(&dir.join("no/such/folder/x.ron"), &changed).unwrap_err();
        assert!(matches!(missing, FileError::Write(WriteError::NoFolder { .. })), "{missing}");
    }

    #[test]
    fn export_writes_png_and_raw() {
        let dir = temp_dir("export");
        let map = Heightmap::from_samples(2, 2, vec![0.0, 0.5, 1.0, 0.25]).unwrap();
        let [png, r32] = export_heightmap(&map, &dir.join("map")).unwrap();
        assert_eq!(std::fs::read(&r32).unwrap().len(), 16);
        assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    }
}
