//! Headless export of a noise heightmap: no window, no Bevy.
//!
//! ```text
//! cargo run --release -p noise_terrain_core --example export -- --octaves 6 --size 512 --out map.png
//! ```
//!
//! Flags: `--basis value|gradient`, `--fade step|linear|cubic|quintic|cosine`, `--fractal none|fbm`,
//! `--octaves N`, `--lacunarity L`, `--persistence P`, `--frequency F`, `--seed S`, `--offset X,Y`,
//! `--no-normalize`, `--period N`, `--size N` or `--size WxH`, `--octave K` (only octave K's raw
//! layer, in [0, 1]), `--out FILE`.
//!
//! Pixel `(i, j)` of a `W×H` map samples the field at `(offset.x + i/W, offset.y + j/W)` before the
//! base frequency, so `--frequency W` puts a lattice point on every pixel. A `.png` file is 16-bit
//! greyscale (heights `[0, 1]` to `0..=65535`, clamped); a `.r32` file is raw little-endian `f32`,
//! row-major, no header. The tool prints one JSON line: width, height, min, max, mean, ms. Bad flags
//! print an error and exit with code 2.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use noise_terrain_core::{Heightmap, NoiseSettings};

/// What the command line asks for.
struct Request {
    settings: NoiseSettings,
    width: u32,
    height: u32,
    octave: Option<u32>,
    out: PathBuf,
}

fn parse_number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value.parse().map_err(|_| format!("{flag}: `{value}` is not a valid number"))
}

fn parse_size(value: &str) -> Result<(u32, u32), String> {
    let (w, h) = value.split_once('x').unwrap_or((value, value));
    Ok((parse_number("--size", w)?, parse_number("--size", h)?))
}

fn parse_offset(value: &str) -> Result<glam::DVec2, String> {
    let (x, y) = value.split_once(',').ok_or_else(|| format!("--offset: expected X,Y, got `{value}`"))?;
    Ok(glam::DVec2::new(parse_number("--offset", x)?, parse_number("--offset", y)?))
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Request, String> {
    let mut settings = NoiseSettings::default();
    let (mut width, mut height) = (512, 512);
    let (mut octave, mut out) = (None, None);
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        if flag == "--no-normalize" {
            settings.normalize = false;
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--basis" => settings.basis = value.parse()?,
            "--fade" => settings.fade = value.parse()?,
            "--fractal" => settings.fractal = value.parse()?,
            "--octaves" => settings.octaves = parse_number(&flag, &value)?,
            "--lacunarity" => settings.lacunarity = parse_number(&flag, &value)?,
            "--persistence" => settings.persistence = parse_number(&flag, &value)?,
            "--frequency" => settings.frequency = parse_number(&flag, &value)?,
            "--seed" => settings.seed = parse_number(&flag, &value)?,
            "--offset" => settings.offset = parse_offset(&value)?,
            "--period" => settings.period = Some(parse_number(&flag, &value)?),
            "--size" => (width, height) = parse_size(&value)?,
            "--octave" => octave = Some(parse_number(&flag, &value)?),
            "--out" => out = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown flag `{flag}`")),
        }
    }
    let out = out.ok_or("--out FILE is required (.png or .r32)")?;
    Ok(Request { settings, width, height, octave, out })
}

/// Encodes the map as the file's extension asks.
fn encode(map: &Heightmap, path: &Path) -> Result<Vec<u8>, String> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("r32") => Ok(map.samples().iter().flat_map(|h| h.to_le_bytes()).collect()),
        Some("png") => {
            let mut bytes = Vec::new();
            let mut encoder = png::Encoder::new(&mut bytes, map.width(), map.height());
            encoder.set_color(png::ColorType::Grayscale);
            encoder.set_depth(png::BitDepth::Sixteen);
            let pixels: Vec<u8> = map.to_u16().iter().flat_map(|v| v.to_be_bytes()).collect();
            let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
            writer.write_image_data(&pixels).map_err(|e| e.to_string())?;
            writer.finish().map_err(|e| e.to_string())?;
            Ok(bytes)
        }
        _ => Err(format!("{}: the extension must be .png or .r32", path.display())),
    }
}

/// Writes next to the target and renames, so an earlier file survives a failed write.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let fail = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut file = std::fs::File::create(&tmp).map_err(fail)?;
    file.write_all(bytes).and_then(|_| file.sync_all()).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

fn run(request: Request) -> Result<String, String> {
    let start = Instant::now();
    let (w, h) = (request.width, request.height);
    let map = match request.octave {
        Some(k) => Heightmap::generate_octave(&request.settings, k, w, h),
        None => Heightmap::generate(&request.settings, w, h),
    }
    .map_err(|e| e.to_string())?;
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    write_atomically(&request.out, &encode(&map, &request.out)?)?;
    let s = map.stats();
    Ok(format!(
        r#"{{"width":{w},"height":{h},"min":{},"max":{},"mean":{},"ms":{ms:.2}}}"#,
        s.min, s.max, s.mean
    ))
}

fn main() -> ExitCode {
    let result =
        parse_args(std::env::args().skip(1)).map_err(|e| (e, 2)).and_then(|r| run(r).map_err(|e| (e, 1)));
    match result {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err((message, code)) => {
            eprintln!("export: {message}");
            ExitCode::from(code)
        }
    }
}
