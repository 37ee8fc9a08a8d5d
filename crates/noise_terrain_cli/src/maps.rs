//! `heightmap`, `normals` and `color`: one map in memory, written as one file.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use glam::Vec3;
use noise_terrain_core::advanced::{Frame, OVERFLOW_COLOR};
use noise_terrain_core::limits::{HEIGHT_SCALE_RANGE, WATER_LEVEL_RANGE, WORLD_SIZE_RANGE};
use noise_terrain_core::{ErosionMaps, Heightmap, MapWorld};

use crate::args::{ErosionArgs, Field, NoiseArgs, within};
use crate::help;
use crate::output::{HeightFormat, encode_rgb_png, write_atomically};
use crate::preset::without_file;
use crate::usage::usage_error;
use crate::{Failure, map_size, summary};

/// The size and file every map command takes.
#[derive(Args, Debug, Clone)]
pub struct MapArgs {
    /// Map size: N for N x N, or WxH; at most 8192x8192 samples (`tiles` goes further)
    /// [default: the preset's resolution, else 512].
    #[arg(long, value_name = "N|WxH", value_parser = map_size)]
    pub size: Option<(u32, u32)>,
    /// The file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// `heightmap`'s flags.
#[derive(Args, Debug, Clone)]
pub struct HeightmapArgs {
    #[command(flatten)]
    pub(crate) noise: NoiseArgs,
    #[command(flatten)]
    pub(crate) erosion: ErosionArgs,
    #[command(flatten)]
    pub(crate) map: MapArgs,
    #[command(flatten)]
    pub(crate) world: WorldArgs,
    /// Only octave K's raw layer, in [0, 1], without post-processing (K from 0).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(0..12))]
    octave: Option<u32>,
}

/// Where the map lies in the world: its width, the height of a noise height of 1 and the sea.
/// Stream power's rates are in these world units; normal maps and hillshading take their slopes
/// from them.
#[derive(Args, Debug, Clone)]
pub struct WorldArgs {
    #[arg(long, value_name = "W", value_parser = within(WORLD_SIZE_RANGE), help_heading = "World",
        help = help::real_or_preset("World width of the map", WORLD_SIZE_RANGE, without_file().world_size))]
    world_size: Option<f32>,
    #[arg(long, value_name = "H", value_parser = within(HEIGHT_SCALE_RANGE), help_heading = "World",
        help = help::real_or_preset("World height of a noise height of 1", HEIGHT_SCALE_RANGE, without_file().height_scale))]
    height_scale: Option<f32>,
    #[arg(long, value_name = "L", value_parser = within(WATER_LEVEL_RANGE), help_heading = "World",
        help = help::real_or_preset("Noise height of the shoreline (the sea of stream power, the ramp's \
             water colours below it)", WATER_LEVEL_RANGE, without_file().water_level))]
    water_level: Option<f32>,
}

/// The world the flags and the preset describe.
#[derive(Clone, Copy, Debug, PartialEq)]
struct World {
    world_size: f32,
    height_scale: f32,
    water_level: f32,
}

impl WorldArgs {
    /// Puts the given flags into `preset` (what a command line means, for the help's tests).
    #[cfg(test)]
    pub(crate) fn apply(&self, preset: &mut crate::preset::Preset) {
        let world = self.world(preset);
        (preset.world_size, preset.height_scale, preset.water_level) =
            (world.world_size, world.height_scale, world.water_level);
    }

    /// The flags, else the preset's values.
    fn world(&self, preset: &crate::preset::Preset) -> World {
        World {
            world_size: self.world_size.unwrap_or(preset.world_size),
            height_scale: self.height_scale.unwrap_or(preset.height_scale),
            water_level: self.water_level.unwrap_or(preset.water_level),
        }
    }
}

impl World {
    /// The erosion's view of a map `width` samples wide.
    fn map_world(&self, width: u32) -> MapWorld {
        MapWorld::patch(self.world_size, width, self.height_scale, self.water_level)
    }
}

/// `normals`' flags.
#[derive(Args, Debug, Clone)]
pub struct NormalsArgs {
    #[command(flatten)]
    pub(crate) noise: NoiseArgs,
    #[command(flatten)]
    pub(crate) erosion: ErosionArgs,
    #[command(flatten)]
    pub(crate) map: MapArgs,
    #[command(flatten)]
    pub(crate) world: WorldArgs,
    /// Green points down (DirectX, Unreal) instead of up (OpenGL, Unity, Godot).
    #[arg(long)]
    directx: bool,
}

/// `color`'s flags.
#[derive(Args, Debug, Clone)]
pub struct ColorArgs {
    #[command(flatten)]
    pub(crate) noise: NoiseArgs,
    #[command(flatten)]
    pub(crate) erosion: ErosionArgs,
    #[command(flatten)]
    pub(crate) map: MapArgs,
    #[command(flatten)]
    pub(crate) world: WorldArgs,
    /// Shade slopes lit from the north-west, 45 degrees up.
    #[arg(long)]
    hillshade: bool,
    /// Paint heights above 1 with the ramp's top colour instead of orange.
    #[arg(long)]
    no_overflow_color: bool,
}

/// A map made with a one-sample border (for slopes), post-processed as one map.
struct ReliefMap {
    field: Field,
    size: (u32, u32),
    /// The heights with their border.
    padded: Heightmap,
    /// The heights without it.
    heights: Heightmap,
    /// Where water ran and sediment settled, when the map was eroded.
    erosion: Option<ErosionMaps>,
    /// Where it lies in the world.
    world: World,
    start: Instant,
}

impl ReliefMap {
    /// The map the flags describe, checking first that `map.out` is a PNG.
    fn new(
        noise: &NoiseArgs,
        erosion_args: &ErosionArgs,
        map: &MapArgs,
        world: &WorldArgs,
    ) -> Result<Self, Failure> {
        check_png(&map.out)?;
        let field = noise.field()?;
        let (w, h) = size_of(map, &field);
        let start = Instant::now();
        let mut padded = Heightmap::generate_region(&field.noise, [-1, -1], w + 2, h + 2, f64::from(w))
            .map_err(|e| e.to_string())?;
        field.post.apply_in_frame(&mut padded, Frame { x: 1, y: 1, width: w, height: h });
        let interior = Frame { x: 1, y: 1, width: w, height: h };
        let world = world.world(&field.preset);
        let erosion = match erosion_args.apply(&field.preset.erosion, &mut padded, &world.map_world(w)) {
            Some(maps) => Some(maps.crop(interior).map_err(|e| e.to_string())?),
            None => None,
        };
        let drainage = erosion.as_ref().and_then(|e| e.drainage.as_ref());
        crate::rivers::write_outputs(erosion_args, drainage, world.height_scale)?;
        let heights = padded.crop(interior).map_err(|e| e.to_string())?;
        Ok(Self { field, size: (w, h), padded, heights, erosion, world, start })
    }

    /// Writes `rgb` as a PNG to `path` and prints the summary line.
    fn finish(&self, path: &std::path::Path, rgb: &[u8]) -> Result<(), Failure> {
        let (w, h) = self.size;
        write_atomically(path, &encode_rgb_png(w, h, rgb)?)?;
        println!(
            "{}",
            summary(w.into(), h.into(), self.heights.stats(), self.start.elapsed().as_secs_f64() * 1e3)
        );
        Ok(())
    }
}

/// Unit normals (x east, y south, z up) of the bordered map's interior, from central differences
/// of the heights.
fn normals_of(padded: &Heightmap, height_scale: f32, world_size: f32) -> Vec<Vec3> {
    let (w, h) = (padded.width() - 2, padded.height() - 2);
    let step = world_size / (w.max(2) - 1) as f32;
    let at = |x: u32, y: u32| padded.get(x, y).unwrap_or(0.0) * height_scale;
    let mut out = Vec::with_capacity(w as usize * h as usize);
    for y in 1..=h {
        for x in 1..=w {
            let dx = (at(x + 1, y) - at(x - 1, y)) / (2.0 * step);
            let dy = (at(x, y + 1) - at(x, y - 1)) / (2.0 * step);
            out.push(Vec3::new(-dx, -dy, 1.0).normalize());
        }
    }
    out
}

fn size_of(map: &MapArgs, field: &Field) -> (u32, u32) {
    map.size.unwrap_or_else(|| {
        let n = field.preset.resolution.clamp(1, 8192);
        (n, n)
    })
}

/// `heightmap`.
pub fn heightmap(a: &HeightmapArgs) -> Result<(), Failure> {
    let format = HeightFormat::from_path(&a.map.out).map_err(|e| usage_error("--out", &e))?;
    let field = a.noise.field()?;
    let (w, h) = size_of(&a.map, &field);
    let world = a.world.world(&field.preset);
    let start = Instant::now();
    let (map, erosion) = match a.octave {
        Some(k) => Heightmap::generate_octave(&field.noise, k, w, h).map(|map| (map, None)),
        None => Heightmap::generate(&field.noise, w, h).map(|mut map| {
            field.post.apply(&mut map);
            let maps = a.erosion.apply(&field.preset.erosion, &mut map, &world.map_world(w));
            (map, maps)
        }),
    }
    .map_err(|e| e.to_string())?;
    let drainage = erosion.as_ref().and_then(|e| e.drainage.as_ref());
    crate::rivers::write_outputs(&a.erosion, drainage, world.height_scale)?;
    write_atomically(&a.map.out, &format.encode(&map)?)?;
    println!("{}", summary(w.into(), h.into(), map.stats(), start.elapsed().as_secs_f64() * 1e3));
    Ok(())
}

/// `normals`.
pub fn normals(a: &NormalsArgs) -> Result<(), Failure> {
    let map = ReliefMap::new(&a.noise, &a.erosion, &a.map, &a.world)?;
    let flip = if a.directx { -1.0 } else { 1.0 };
    let rgb: Vec<u8> = normals_of(&map.padded, map.world.height_scale, map.world.world_size)
        .into_iter()
        .flat_map(|n| {
            // Tangent space: x east, y north (OpenGL) or south (DirectX), z out of the surface.
            let n = Vec3::new(n.x, -n.y * flip, n.z);
            n.to_array().map(|c| ((c * 0.5 + 0.5) * 255.0 + 0.5) as u8)
        })
        .collect();
    map.finish(&a.map.out, &rgb)
}

/// `color`.
pub fn color(a: &ColorArgs) -> Result<(), Failure> {
    let map = ReliefMap::new(&a.noise, &a.erosion, &a.map, &a.world)?;
    let preset = &map.field.preset;
    let water = map.world.water_level;
    let mut texels = preset.ramp.paint_heights(&map.heights, water, !a.no_overflow_color);
    if let Some(erosion) = &map.erosion {
        erosion.tint(&mut texels, &map.heights, water);
    }
    if a.hillshade {
        // Light from the north-west (x west, y north in image space), 45 degrees up.
        let light = Vec3::new(-1.0, -1.0, 2.0_f32.sqrt()).normalize();
        let normals = normals_of(&map.padded, map.world.height_scale, map.world.world_size);
        for ((texel, n), &h) in texels.chunks_exact_mut(4).zip(normals).zip(map.heights.samples()) {
            let shade = 0.35 + 0.65 * n.dot(light).max(0.0) / light.z;
            // Water is flat: only the land is shaded.
            if h >= water && texel[..3] != OVERFLOW_COLOR {
                for c in &mut texel[..3] {
                    *c = (*c as f32 * shade.min(1.25)).min(255.0) as u8;
                }
            }
        }
    }
    let rgb: Vec<u8> = texels.chunks_exact(4).flat_map(|t| [t[0], t[1], t[2]]).collect();
    map.finish(&a.map.out, &rgb)
}

fn check_png(path: &std::path::Path) -> Result<(), Failure> {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("png") => Ok(()),
        _ => Err(usage_error("--out", &format!("`{}` should end in .png", path.display()))),
    }
}
