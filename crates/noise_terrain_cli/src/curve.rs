//! `curve`: 1-D noise along a line, the profile of a terrain seen from the side.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use noise_terrain_core::{Basis, Fade, HeightStats};

use crate::Failure;
use crate::args::{Field, NoiseArgs};
use crate::output::{encode_rgb_png, write_atomically};
use crate::usage::usage_error;

/// How the curve blends between lattice points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Interpolation {
    /// Straight lines between lattice values: corners at every lattice point.
    Linear,
    /// `(1 - cos(πt)) / 2`: smooth, flat at every lattice point.
    Cosine,
}

/// `curve`'s flags. Its basis and fade start from value noise and `--interpolation`, not from
/// the maps' defaults.
#[derive(Args, Debug, Clone)]
#[command(mut_arg("basis", |a| a.help(crate::help::named("Basis noise", Basis::Value.name()))))]
#[command(mut_arg("fade", |a| a.help("Fade curve of value and gradient noise (--interpolation, when given, sets it instead)")))]
pub struct CurveArgs {
    #[command(flatten)]
    pub(crate) noise: NoiseArgs,
    /// How values are blended between lattice points (sets the fade) [default: cosine].
    #[arg(long, value_enum)]
    interpolation: Option<Interpolation>,
    /// Points along the curve, 2..=1000000.
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u32).range(2..=1_000_000))]
    samples: u32,
    /// Length of the line in map units (the map's width is 1).
    #[arg(long, value_name = "L", default_value_t = 1.0, value_parser = crate::args::within((1e-6, 1e6)))]
    length: f32,
    /// Size of the PNG plot.
    #[arg(long, value_name = "WxH", default_value = "800x240", value_parser = crate::map_size)]
    plot_size: (u32, u32),
    /// The file: `.csv` (x,height per line) or `.png` (a plot).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

impl CurveArgs {
    /// The field the curve samples: the flags', with value noise without `--basis`, and the
    /// fade `--interpolation` sets (cosine where neither it nor `--fade` is given).
    pub(crate) fn field(&self) -> Result<Field, clap::Error> {
        let mut field = self.noise.field()?;
        if self.noise.basis.is_none() {
            field.noise.basis = Basis::Value;
        }
        if self.interpolation.is_some() || self.noise.fade.is_none() {
            field.noise.fade = match self.interpolation.unwrap_or(Interpolation::Cosine) {
                Interpolation::Linear => Fade::Linear,
                Interpolation::Cosine => Fade::Cosine,
            };
        }
        Ok(field)
    }
}

/// `curve`. Without `--basis` the curve is value noise, the 1-D noise of a map generator's
/// profile; with a period the curve repeats every `period / frequency` map units.
pub fn run(a: &CurveArgs) -> Result<(), Failure> {
    let extension = a.out.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let plot = match extension.as_deref() {
        Some("csv") => false,
        Some("png") => true,
        _ => return Err(usage_error("--out", &format!("`{}` should end in .csv or .png", a.out.display()))),
    };
    let field = a.field()?;
    let start = std::time::Instant::now();
    let sampler = field.noise.sampler();
    let step = f64::from(a.length) / f64::from(a.samples - 1);
    let points: Vec<(f64, f32)> =
        (0..a.samples).map(|i| (i as f64 * step, sampler.sample_1d(i as f64 * step))).collect();
    let bytes = if plot { plot_png(&points, a.plot_size)? } else { csv(&points).into_bytes() };
    write_atomically(&a.out, &bytes)?;
    let heights: Vec<f32> = points.iter().map(|p| p.1).collect();
    let stats = HeightStats {
        min: heights.iter().copied().fold(f32::INFINITY, f32::min),
        max: heights.iter().copied().fold(f32::NEG_INFINITY, f32::max),
        mean: (heights.iter().map(|&h| f64::from(h)).sum::<f64>() / heights.len() as f64) as f32,
    };
    println!("{}", crate::summary(heights.len() as u64, 1, stats, start.elapsed().as_secs_f64() * 1e3));
    Ok(())
}

fn csv(points: &[(f64, f32)]) -> String {
    let mut text = String::from("x,height\n");
    for (x, h) in points {
        let _ = writeln!(text, "{x},{h}");
    }
    text
}

/// A plot: the curve in dark blue over a white field with grey lines at heights 0, 0.5 and 1.
fn plot_png(points: &[(f64, f32)], (w, h): (u32, u32)) -> Result<Vec<u8>, String> {
    let mut rgb = vec![255u8; w as usize * h as usize * 3];
    let top = points.iter().map(|p| p.1).fold(1.0f32, f32::max);
    let row = |value: f32| ((1.0 - value / top) * (h - 1) as f32).round().clamp(0.0, (h - 1) as f32) as u32;
    let mut put = |x: u32, y: u32, color: [u8; 3]| {
        let i = (y as usize * w as usize + x as usize) * 3;
        rgb[i..i + 3].copy_from_slice(&color);
    };
    for level in [0.0, 0.5, 1.0] {
        for x in 0..w {
            put(x, row(level), [200, 200, 200]);
        }
    }
    let last = (points.len() - 1) as f32;
    let mut previous: Option<(u32, u32)> = None;
    for (k, &(_, value)) in points.iter().enumerate() {
        let x = ((k as f32 / last) * (w - 1) as f32).round() as u32;
        let y = row(value);
        // A vertical run joins each point to the one before, so steep parts stay connected.
        let from = previous.map_or(y, |(_, py)| py);
        for yy in from.min(y)..=from.max(y) {
            put(x, yy, [20, 40, 120]);
        }
        previous = Some((x, y));
    }
    encode_rgb_png(w, h, &rgb)
}
