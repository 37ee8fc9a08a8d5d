//! Headless export of a noise heightmap: no window, no Bevy.
//!
//! ```text
//! cargo run --release -p noise_terrain_core --example export -- --octaves 6 --size 512 --out map.png
//! ```
//!
//! Flags:
//! - noise: `--basis value|gradient|simplex|worley`, `--fade step|linear|cubic|quintic|cosine`,
//!   `--worley-return f1|f2|f2-f1|cell`, `--worley-metric euclidean|euclidean2|manhattan|chebyshev`,
//!   `--jitter J`, `--seed S`, `--frequency F`, `--offset X,Y`, `--period N`;
//! - fractal: `--fractal none|fbm|billow|ridged|hybrid|hetero`, `--octaves N`, `--lacunarity L`,
//!   `--persistence P`, `--no-normalize`, `--offset-param O` and `--gain G` (multifractals);
//! - warp: `--warp A`, `--warp-frequency F`, `--warp-octaves N`;
//! - post-processing: `--stretch`, `--power E`, `--island S` (strength; `--island-shape
//!   radial|square`, `--island-width W`), `--terraces N` (`--terrace-sharpness S`);
//! - output: `--size N` or `--size WxH`, `--octave K` (only octave K's raw layer, in [0, 1], no
//!   post-processing), `--out FILE`.
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

use noise_terrain_core::{Heightmap, NoiseSettings, PostProcess};

/// What the command line asks for.
struct Request {
    settings: NoiseSettings,
    post: PostProcess,
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
    let mut post = PostProcess::default();
    let (mut width, mut height) = (512, 512);
    let (mut octave, mut out) = (None, None);
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--no-normalize" => settings.normalize = false,
            "--stretch" => post.stretch = true,
            _ => {}
        }
        if matches!(flag.as_str(), "--no-normalize" | "--stretch") {
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
            "--worley-return" => settings.worley.return_type = value.parse()?,
            "--worley-metric" => settings.worley.metric = value.parse()?,
            "--jitter" => settings.worley.jitter = parse_number(&flag, &value)?,
            "--offset-param" => settings.fractal_offset = parse_number(&flag, &value)?,
            "--gain" => settings.gain = parse_number(&flag, &value)?,
            "--warp" => settings.warp.amplitude = parse_number(&flag, &value)?,
            "--warp-frequency" => settings.warp.frequency = parse_number(&flag, &value)?,
            "--warp-octaves" => settings.warp.octaves = parse_number(&flag, &value)?,
            "--power" => post.power = parse_number(&flag, &value)?,
            "--island" => post.island_strength = parse_number(&flag, &value)?,
            "--island-shape" => post.island_shape = value.parse()?,
            "--island-width" => post.island_width = parse_number(&flag, &value)?,
            "--terraces" => post.terraces = parse_number(&flag, &value)?,
            "--terrace-sharpness" => post.terrace_sharpness = parse_number(&flag, &value)?,
            "--out" => out = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown flag `{flag}`")),
        }
    }
    let out = out.ok_or("--out FILE is required (.png or .r32)")?;
    Ok(Request { settings, post, width, height, octave, out })
}

/// Encodes the map as the file's extension asks.
fn encode(map: &Heightmap, path: &Path) -> Result<Vec<u8>, String> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("r32") => Ok(map.encode_r32()),
        Some("png") => map.encode_png16().map_err(|e| e.to_string()),
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
        None => Heightmap::generate(&request.settings, w, h).map(|mut map| {
            request.post.apply(&mut map);
            map
        }),
    }
    .map_err(|e| e.to_string())?;
    for clamped in request.settings.validate() {
        eprintln!("export: {clamped}");
    }
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
