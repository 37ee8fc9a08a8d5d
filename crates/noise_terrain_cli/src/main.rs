//! `noise-terrain`: heightmaps, normal maps, colour maps, tiled exports larger than memory and
//! 1-D curves from coherent noise. Run `noise-terrain --help`, or `noise-terrain <command> --help`.
//!
//! Usage errors (a bad flag, a value out of range, a combination that cannot work) print a
//! message naming the flag and exit with code 2; failures to read or write exit with code 1.
//! Every command that makes a map prints one JSON line on stdout: width, height, min, max, mean
//! and the time it took in milliseconds.

mod args;
mod curve;
mod endless_rivers;
mod help;
mod info;
mod maps;
mod output;
mod preset;
mod rivers;
mod tiles;
mod usage;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use noise_terrain_core::HeightStats;
use noise_terrain_core::limits::MAX_SAMPLES;

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
    /// The endless world's river network over a rectangle (GeoJSON), as the plugin routes it.
    EndlessRivers(endless_rivers::EndlessRiversArgs),
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
        Command::EndlessRivers(a) => endless_rivers::run(a),
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::help::number;

    /// The settings a command line makes, as text (floats in their shortest exact form, so that
    /// equal text is equal bits), and whether the core keeps them as they are.
    fn settings(line: &[String]) -> Result<(String, bool), clap::Error> {
        let cli = Cli::try_parse_from(line)?;
        let (field, erosion, world) = match &cli.command {
            Command::Heightmap(a) => (a.noise.field()?, Some(&a.erosion), Some(&a.world)),
            Command::Normals(a) => (a.noise.field()?, Some(&a.erosion), Some(&a.world)),
            Command::Color(a) => (a.noise.field()?, Some(&a.erosion), Some(&a.world)),
            Command::Curve(a) => (a.field()?, None, None),
            Command::Tiles(a) => (a.noise.field()?, None, None),
            Command::Info(a) => (a.noise.field()?, None, None),
            Command::EndlessRivers(a) => {
                let preset = a.preset()?;
                return Ok((format!("{preset:?}"), preset.validated().1.is_empty()));
            }
        };
        let mut preset = field.preset.clone();
        preset.noise = field.noise;
        preset.post = field.post;
        if let Some(erosion) = erosion {
            preset.erosion = erosion.settings(&field.preset.erosion);
        }
        if let Some(world) = world {
            world.apply(&mut preset);
        }
        let kept = preset.validated().1.is_empty();
        Ok((format!("{preset:?}"), kept))
    }

    /// The text between `open` and the next `]` in `help`.
    fn bracket<'a>(help: &'a str, open: &str) -> Option<&'a str> {
        let start = help.find(open)? + open.len();
        Some(&help[start..start + help[start..].find(']')?])
    }

    /// `[lo, hi]` of a help text.
    fn real_range(help: &str) -> Option<(f32, f32)> {
        let inside = bracket(help, ", [")?;
        let (lo, hi) = inside.split_once(", ")?;
        Some((lo.parse().ok()?, hi.parse().ok()?))
    }

    /// `lo..=hi` of a help text.
    fn count_range(help: &str) -> Option<(u64, u64)> {
        let word = help.split([' ', ',', '(', ')']).find(|w| w.contains("..="))?;
        let (lo, hi) = word.split_once("..=")?;
        Some((lo.parse().ok()?, hi.parse().ok()?))
    }

    /// Every flag's help says what the tool does: the default it names, given as the flag,
    /// changes nothing; both ends of its range are taken and the core keeps them as they are;
    /// just past either end is refused. The ranges and defaults are the core's: a flag whose
    /// help drifted from them fails here.
    #[test]
    fn help_ranges_and_defaults_agree_with_the_core() {
        let (mut defaults, mut ranges) = (0, 0);
        for command in Cli::command().get_subcommands() {
            let name = command.get_name();
            let required: &[&str] = match name {
                "heightmap" | "normals" | "color" => &["--out", "map.png"],
                "curve" => &["--out", "curve.csv"],
                "tiles" => &["--size", "64", "--tile", "32", "--out-dir", "tiles"],
                "info" => &[],
                "endless-rivers" => &["--from", "0,0", "--to", "1,1", "--out", "rivers.geojson"],
                other => panic!("a new subcommand {other}: say what it needs"),
            };
            let line = |extra: &[&str]| -> Vec<String> {
                ["noise-terrain", name].iter().chain(required).chain(extra).map(|s| s.to_string()).collect()
            };
            let (plain, kept) = settings(&line(&[])).unwrap();
            assert!(kept, "{name}: the defaults are clamped by the core");
            for arg in command.get_arguments() {
                let Some(long) = arg.get_long() else { continue };
                let flag = format!("--{long}");
                if required.contains(&flag.as_str()) {
                    continue;
                }
                let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                if let Some(default) = bracket(&help, "[default: ").filter(|d| !d.contains(' ')) {
                    let given = settings(&line(&[&flag, default]))
                        .unwrap_or_else(|e| panic!("{name} {flag} {default}: {e}"));
                    assert_eq!(
                        given.0, plain,
                        "{name} {flag}: the help's default {default} is not the default"
                    );
                    defaults += 1;
                }
                let ends = match (real_range(&help), count_range(&help)) {
                    (Some((lo, hi)), _) => {
                        let step = |v: f32| (v.abs() * 1e-3).max(1e-3);
                        Some(([number(lo), number(hi)], [lo - step(lo), hi + step(hi)].map(number)))
                    }
                    (None, Some((lo, hi))) => {
                        let below = lo.checked_sub(1).map_or("-1".to_string(), |v| v.to_string());
                        Some(([lo.to_string(), hi.to_string()], [below, (hi + 1).to_string()]))
                    }
                    (None, None) => None,
                };
                let Some((inside, outside)) = ends else { continue };
                for end in &inside {
                    let (_, kept) = settings(&line(&[&flag, end])).unwrap_or_else(|e| {
                        panic!("{name} {flag} {end} is refused, but its help allows it: {e}")
                    });
                    assert!(kept, "{name} {flag} {end}: the core clamps what the help allows");
                }
                for past in &outside {
                    assert!(
                        settings(&line(&[&flag, past])).is_err(),
                        "{name} {flag} {past} is taken: {help}"
                    );
                }
                ranges += 1;
            }
        }
        assert!(defaults > 100 && ranges > 100, "{defaults} defaults and {ranges} ranges checked");
    }
}
