//! `tiles`: a heightmap larger than memory, generated and written tile by tile.
//!
//! Tile `(row, column)` holds the map's pixels from `(column · tile, row · tile)` on, `tile +
//! overlap` per side: with `--overlap 1` each tile repeats the first row and column of its
//! neighbours, as terrain engines expect, and shares those edge samples with them exactly. Tiles
//! sample the same pixel lattice as one map of the whole size, so put side by side they are that
//! map, bit for bit. While one tile is generated (on all cores) the one before it is written by
//! another thread: at most one tile's heights and two tiles' file bytes are in memory.

use std::path::PathBuf;
use std::sync::mpsc::sync_channel;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use noise_terrain_core::{HeightStats, Heightmap};

use crate::Failure;
use crate::args::NoiseArgs;
use crate::output::{HeightFormat, write_atomically};
use crate::usage::usage_error;

/// The largest side of a tiled map.
const MAX_SIDE: u32 = 1 << 20;

/// `tiles`' flags.
#[derive(Args, Debug, Clone)]
pub struct TilesArgs {
    #[command(flatten)]
    pub(crate) noise: NoiseArgs,
    /// Size of the whole map: N for N x N, or WxH, each side 1..=1048576.
    #[arg(long, value_name = "N|WxH", value_parser = whole_size)]
    size: (u32, u32),
    /// Samples per tile side (before the overlap), 1..=8192.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=8192))]
    tile: u32,
    /// Samples each tile repeats of its right and lower neighbours, 0..=16.
    #[arg(long, value_name = "K", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=16))]
    overlap: u32,
    /// File format of the tiles.
    #[arg(long, value_enum, default_value = "r16")]
    format: HeightFormat,
    /// Folder for the tiles (created if missing), named `tile_r{row}_c{column}.{format}`.
    #[arg(long, value_name = "DIR")]
    out_dir: PathBuf,
    /// No progress bar (it is also off when stderr is not a terminal).
    #[arg(long)]
    quiet: bool,
}

fn whole_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text.split_once(['x', 'X']).unwrap_or((text, text));
    let side = |t: &str| t.trim().parse::<u32>().ok().filter(|v| (1..=MAX_SIDE).contains(v));
    match (side(w), side(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(format!("`{text}` is not N or WxH with sides in 1..={MAX_SIDE}")),
    }
}

/// The name of tile `(row, column)`.
pub fn tile_name(row: u32, column: u32, format: HeightFormat) -> String {
    format!("tile_r{row:03}_c{column:03}.{}", format.extension())
}

/// `tiles`.
pub fn run(a: &TilesArgs) -> Result<(), Failure> {
    if a.tile + a.overlap > 8192 {
        return Err(usage_error(
            "--overlap",
            &format!("a tile of {} plus {} overlap is more than 8192 samples a side", a.tile, a.overlap),
        ));
    }
    let field = a.noise.field()?;
    let (width, height) = a.size;
    let (columns, rows) = (width.div_ceil(a.tile), height.div_ceil(a.tile));
    std::fs::create_dir_all(&a.out_dir).map_err(|e| format!("{}: {e}", a.out_dir.display()))?;
    let start = Instant::now();
    let progress =
        if a.quiet { ProgressBar::hidden() } else { ProgressBar::new(u64::from(columns) * u64::from(rows)) };
    progress.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} tiles, {elapsed} elapsed, about {eta} left ({msg})",
        )
        .expect("a valid template"),
    );
    // A tile's window of the whole map's pixel lattice.
    let tile_at = |row: u32, column: u32| -> Result<([u32; 2], Heightmap), String> {
        let at = [column * a.tile, row * a.tile];
        let map = Heightmap::generate_region(
            &field.noise,
            [i64::from(at[0]), i64::from(at[1])],
            a.tile + a.overlap,
            a.tile + a.overlap,
            f64::from(width),
        )
        .map_err(|e| e.to_string())?;
        Ok((at, map))
    };
    // The part of a tile that is its own (not its neighbours' overlap, not past the map).
    let own = |at: [u32; 2], map: &Heightmap| -> (u32, u32) {
        (a.tile.min(width - at[0]).min(map.width()), a.tile.min(height - at[1]).min(map.height()))
    };

    // Stretching needs the whole map's lowest and highest height: a first pass finds them.
    let mut range = (0.0f32, 1.0f32);
    if field.post.clamped().stretch {
        progress.set_message("first pass: the range to stretch");
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for row in 0..rows {
            for column in 0..columns {
                let (at, map) = tile_at(row, column)?;
                let (w, h) = own(at, &map);
                for y in 0..h {
                    for &v in &map.row(y)[..w as usize] {
                        (lo, hi) = (lo.min(v), hi.max(v));
                    }
                }
                progress.inc(1);
            }
        }
        range = (lo, hi);
        progress.reset();
    }

    progress.set_message(format!("{width}x{height} in {}x{} tiles of {}", columns, rows, a.tile + a.overlap));
    let (send, receive) = sync_channel::<(PathBuf, Vec<u8>)>(1);
    let writer = std::thread::spawn(move || -> Result<(), String> {
        for (path, bytes) in receive {
            write_atomically(&path, &bytes)?;
        }
        Ok(())
    });
    let (mut lo, mut hi, mut sum, mut count) = (f32::INFINITY, f32::NEG_INFINITY, 0.0f64, 0u64);
    let mut generate = || -> Result<(), String> {
        for row in 0..rows {
            for column in 0..columns {
                let (at, mut map) = tile_at(row, column)?;
                field.post.apply_in_part(&mut map, at, [width, height], range);
                let (w, h) = own(at, &map);
                for y in 0..h {
                    for &v in &map.row(y)[..w as usize] {
                        (lo, hi) = (lo.min(v), hi.max(v));
                        sum += f64::from(v);
                    }
                }
                count += u64::from(w) * u64::from(h);
                let bytes = a.format.encode(&map)?;
                drop(map);
                // The writer stopped only because a write failed: its error is reported below.
                if send.send((a.out_dir.join(tile_name(row, column, a.format)), bytes)).is_err() {
                    return Ok(());
                }
                progress.inc(1);
            }
        }
        Ok(())
    };
    let generated = generate();
    drop(send);
    let written = writer.join().map_err(|_| "the writer thread panicked".to_string())?;
    generated?;
    written?;
    progress.finish_and_clear();
    let stats = HeightStats { min: lo, max: hi, mean: (sum / count.max(1) as f64) as f32 };
    let ms = start.elapsed().as_secs_f64() * 1e3;
    println!("{}", crate::summary(width.into(), height.into(), stats, ms));
    Ok(())
}
