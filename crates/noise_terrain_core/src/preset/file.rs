//! Reading a preset file with a bound, and writing any file so that a failure keeps the file that
//! was there: the one reader and writer the plugin and the `noise-terrain` tool share, so that no
//! file, pipe or device can make either of them read without end, and no full disk or crash
//! mid-write loses a user's file.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The largest preset read, in bytes: presets are a few kilobytes; anything near this is not one.
pub const MAX_PRESET_BYTES: u64 = 1 << 20;

/// How large a refused preset is: its size where it is known, or only that it is larger than
/// the limit (a pipe, a device, a file that grows while it is read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresetSize {
    /// The file's size in bytes, as its metadata reports it.
    Bytes(u64),
    /// More than [`MAX_PRESET_BYTES`] arrived before the read stopped.
    MoreThanTheLimit,
}

impl std::fmt::Display for PresetSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PresetSize::Bytes(n) => write!(f, "{n} bytes"),
            PresetSize::MoreThanTheLimit => write!(f, "more than {MAX_PRESET_BYTES} bytes"),
        }
    }
}

/// Why a preset file could not be read. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum PresetReadError {
    /// The operating system refused (a missing file, a folder, no permission...).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The file is larger than any preset.
    #[error("{}: {size} is too large for a preset (at most {MAX_PRESET_BYTES} bytes)", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// How large it is.
        size: PresetSize,
    },
}

/// The bytes of the preset at `path`: at most [`MAX_PRESET_BYTES`] are kept, whatever the file's
/// metadata says. A regular file reported larger is refused before reading; anything else (a pipe,
/// a device such as `/dev/zero`, a `/proc` file that reports 0 bytes, a file that grows) is read
/// up to the limit plus one byte, and refused if that byte arrives. Memory stays within the
/// limit plus one read buffer.
pub fn read_preset_bytes(path: &Path) -> Result<Vec<u8>, PresetReadError> {
    let io = |source| PresetReadError::Io { path: path.to_path_buf(), source };
    let file = std::fs::File::open(path).map_err(io)?;
    let metadata = file.metadata().map_err(io)?;
    if metadata.is_file() && metadata.len() > MAX_PRESET_BYTES {
        return Err(PresetReadError::TooLarge {
            path: path.to_path_buf(),
            size: PresetSize::Bytes(metadata.len()),
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_PRESET_BYTES + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > MAX_PRESET_BYTES {
        return Err(PresetReadError::TooLarge {
            path: path.to_path_buf(),
            size: PresetSize::MoreThanTheLimit,
        });
    }
    Ok(bytes)
}

/// Why a file could not be written. Every variant names the file; the file that was there is
/// unchanged.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The folder to write into does not exist.
    #[error("{}: the folder {} does not exist", path.display(), folder.display())]
    NoFolder {
        /// The file.
        path: PathBuf,
        /// Its folder.
        folder: PathBuf,
    },
    /// The operating system refused (a read-only folder, a full disk...).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
}

/// Writes `bytes` to `path` through `path.tmp`, flushed to the disk and renamed over `path`: a
/// failure at any point leaves the old file as it was (and removes the temporary one).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !folder.is_dir() {
        return Err(WriteError::NoFolder { path: path.to_path_buf(), folder });
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let written = std::fs::File::create(&tmp)
        .and_then(|mut file| file.write_all(bytes).and_then(|()| file.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    written.map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        WriteError::Io { path: path.to_path_buf(), source }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("noise_terrain_preset_file_{name}_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn small_files_are_read_whole_and_large_ones_refused_with_their_size() {
        let dir = folder("sizes");
        let (small, big) = (dir.join("small.ron"), dir.join("big.ron"));
        std::fs::write(&small, b"(water_level: 0.3)").unwrap();
        std::fs::File::create(&big).unwrap().set_len(MAX_PRESET_BYTES + 10).unwrap();
        assert_eq!(read_preset_bytes(&small).unwrap(), b"(water_level: 0.3)");
        let error = read_preset_bytes(&big).unwrap_err();
        assert!(
            matches!(error, PresetReadError::TooLarge { size: PresetSize::Bytes(n), .. } if n == MAX_PRESET_BYTES + 10)
        );
        let message = error.to_string();
        assert!(
            message.contains("big.ron") && message.contains(&format!("{} bytes", MAX_PRESET_BYTES + 10)),
            "{message}"
        );
        assert!(message.contains(&format!("at most {MAX_PRESET_BYTES} bytes")), "{message}");
        // A file of exactly the limit is still a preset's size.
        std::fs::File::create(&big).unwrap().set_len(MAX_PRESET_BYTES).unwrap();
        assert_eq!(read_preset_bytes(&big).unwrap().len() as u64, MAX_PRESET_BYTES);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    #[cfg(unix)]
    fn a_device_that_reports_no_size_is_read_to_the_limit_only() {
        let error = read_preset_bytes(Path::new("/dev/zero")).unwrap_err();
        assert!(
            matches!(error, PresetReadError::TooLarge { size: PresetSize::MoreThanTheLimit, .. }),
            "{error}"
        );
        assert!(error.to_string().starts_with("/dev/zero: more than 1048576 bytes"), "{error}");
    }

    #[test]
    fn missing_files_and_folders_name_the_path() {
        let missing = read_preset_bytes(Path::new("/no/such/preset.ron")).unwrap_err();
        assert!(
            matches!(missing, PresetReadError::Io { .. })
                && missing.to_string().starts_with("/no/such/preset.ron: ")
        );
        let dir = folder("dir");
        assert!(matches!(read_preset_bytes(&dir), Err(PresetReadError::Io { .. })));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_failed_write_keeps_the_file_that_was_there() {
        let dir = std::env::temp_dir().join(format!("noise_terrain_write_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("kept.ron");
        write_atomically(&file, b"first").unwrap();
        write_atomically(&file, b"second").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"second");
        // A folder where the temporary file would go: the write fails, the file stays.
        std::fs::create_dir_all(dir.join("kept.ron.tmp")).unwrap();
        let failed = write_atomically(&file, b"third").unwrap_err();
        assert!(failed.to_string().contains("kept.ron"), "{failed}");
        assert_eq!(std::fs::read(&file).unwrap(), b"second");
        let missing = write_atomically(&dir.join("nowhere/x.ron"), b"x").unwrap_err();
        assert!(matches!(missing, WriteError::NoFolder { .. }), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
