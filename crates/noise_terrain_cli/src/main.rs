//! `noise-terrain`: heightmaps, normal maps, colour maps, tiled exports larger than memory and
//! 1-D curves from coherent noise. Run `noise-terrain --help`, or `noise-terrain <command> --help`.
//!
//! Usage errors (a bad flag, a value out of range, a combination that cannot work) print a
//! message naming the flag and exit with code 2; failures to read or write exit with code 1.
//! Every command that makes a map prints one JSON line on stdout: width, height, min, max, mean
//! and the time it took in milliseconds.

mod args;
mod curve;
mod info;
mod maps;
mod output;
mod preset;
mod rivers;
mod tiles;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use noise_terrain_core::{HeightStats, MAX_SAMPLES};

/// Terrain from coherent noise, on the command line.
#[derive(Parser, Debug)]
#[command(name = "noise-terrain", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// A heightmap: 16-bit PNG, raw 16-bit (.r16) or raw 32-bit float (.r32), by the extension.
    Heightmap(maps::HeightmapArgs),
    /// An 8-bit RGB tangent-space normal map (PNG).
    Normals(maps::NormalsArgs),
    /// The terrain colours of the ramp (PNG), optionally hillshaded.
    Color(maps::ColorArgs),
    /// 1-D noise along a line, as CSV or as a PNG plot.
    Curve(curve::CurveArgs),
    /// A heightmap larger than memory, written tile by tile.
    Tiles(tiles::TilesArgs),
    /// The settings after validation: what was clamped, and the computed value bounds.
    Info(info::InfoArgs),
}

/// A `N` or `WxH` map size, each side at least 1, within the heightmap limit.
pub(crate) fn map_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text.split_once(['x', 'X']).unwrap_or((text, text));
    let side = |t: &str| t.trim().parse::<u32>().ok().filter(|&v| v > 0);
    let (Some(w), Some(h)) = (side(w), side(h)) else {
        return Err(format!("`{text}` is not N or WxH with sides of at least 1"));
    };
    if u64::from(w) * u64::from(h) > MAX_SAMPLES {
        return Err(format!(
            "{w}x{h} is more than {MAX_SAMPLES} samples (8192x8192); use `tiles` for larger maps"
        ));
    }
    Ok((w, h))
}

/// The one-line JSON summary scripts read.
pub(crate) fn summary(width: u64, height: u64, stats: HeightStats, ms: f64) -> String {
    format!(
        "{{\"width\":{width},\"height\":{height},\"min\":{},\"max\":{},\"mean\":{},\"ms\":{ms:.1}}}",
        stats.min, stats.max, stats.mean
    )
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Heightmap(a) => maps::heightmap(a),
        Command::Normals(a) => maps::normals(a),
        Command::Color(a) => maps::color(a),
        Command::Curve(a) => curve::run(a),
        Command::Tiles(a) => tiles::run(a),
        Command::Info(a) => info::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(e)) => e.exit(),
        Err(Failure::Io(message)) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Why a command failed: a usage error (exit 2, clap's format) or a file that could not be
/// read or written (exit 1).
#[derive(Debug)]
pub(crate) enum Failure {
    /// Bad flags: clap's message and exit code 2.
    Usage(clap::Error),
    /// I/O and encoding failures.
    Io(String),
}

impl From<clap::Error> for Failure {
    fn from(e: clap::Error) -> Self {
        Failure::Usage(e)
    }
}

impl From<String> for Failure {
    fn from(e: String) -> Self {
        Failure::Io(e)
    }
}
