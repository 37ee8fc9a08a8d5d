//! `endless-rivers`: the endless world's river network over a rectangle, as GeoJSON.
//!
//! The network is the plugin's (the same regions routed the same way), so two rectangles that
//! overlap hold the same rivers where they overlap: each river segment belongs to the rectangle
//! its upper end lies in (the far edges excluded), and a river is cut where it leaves.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use noise_terrain_core::limits::{ENDLESS_RIVER_AREA_RANGE, ENDLESS_RIVER_WIDTH_RANGE};
use noise_terrain_core::{EndlessRivers, RiverNetwork, river_runs};

use crate::Failure;
use crate::args::{NoiseArgs, within};
use crate::help;
use crate::output::write_atomically;
use crate::preset::Preset;
use crate::usage::usage_error;

/// `endless-rivers`' flags: the field (a preset's, with its world size, height scale, water
/// level and endless rivers), the rectangle and the file.
#[derive(Args, Debug, Clone)]
pub struct EndlessRiversArgs {
    #[command(flatten)]
    pub(crate) noise: NoiseArgs,
    /// The rectangle's corner with the smallest x and z, world units: `X,Z`.
    #[arg(long, value_name = "X,Z", value_parser = corner, allow_hyphen_values = true)]
    pub from: (f64, f64),
    /// The opposite corner, world units: `X,Z`.
    #[arg(long, value_name = "X,Z", value_parser = corner, allow_hyphen_values = true)]
    pub to: (f64, f64),
    #[arg(long, value_name = "A", value_parser = within(ENDLESS_RIVER_AREA_RANGE),
        help = help::real_or_preset("Drainage area where a river starts, world units^2", ENDLESS_RIVER_AREA_RANGE, EndlessRivers::default().min_area))]
    pub river_area: Option<f32>,
    #[arg(long, value_name = "W", value_parser = within(ENDLESS_RIVER_WIDTH_RANGE),
        help = help::real_or_preset("River width = W x sqrt(drainage area)", ENDLESS_RIVER_WIDTH_RANGE, EndlessRivers::default().width))]
    pub river_width: Option<f32>,
    /// Where to write the network (GeoJSON).
    #[arg(long, short, value_name = "FILE.geojson")]
    pub out: PathBuf,
}

/// An `X,Z` pair of finite numbers.
fn corner(text: &str) -> Result<(f64, f64), String> {
    let parse = |t: &str| t.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    match text.split_once(',').map(|(x, z)| (parse(x), parse(z))) {
        Some((Some(x), Some(z))) => Ok((x, z)),
        _ => Err(format!("`{text}` is not X,Z (two finite numbers)")),
    }
}

/// Most drainage regions one rectangle may need (about 32 km across in a world of 2 km map units).
const MAX_REGIONS: f64 = 256.0;

impl EndlessRiversArgs {
    /// The preset (or the defaults) with the noise flags and the rivers' flags applied, its
    /// endless rivers on.
    pub fn preset(&self) -> Result<Preset, clap::Error> {
        let field = self.noise.field()?;
        let mut preset = field.preset.clone();
        (preset.noise, preset.post) = (field.noise, field.post);
        preset.endless_rivers.enabled = true;
        if let Some(area) = self.river_area {
            preset.endless_rivers.min_area = area;
        }
        if let Some(width) = self.river_width {
            preset.endless_rivers.width = width;
        }
        Ok(preset)
    }
}

/// `endless-rivers`: routes the regions the rectangle needs and writes its rivers.
pub fn run(a: &EndlessRiversArgs) -> Result<(), Failure> {
    let start = Instant::now();
    let world = a.preset()?.river_world();
    let (x0, z0, x1, z1) = (a.from.0, a.from.1, a.to.0, a.to.1);
    if x1 <= x0 || z1 <= z0 {
        return Err(usage_error("--to", "must lie beyond --from in both x and z"));
    }
    let size = f64::from(world.clamped().world_size);
    let rect = [x0 / size, z0 / size, x1 / size, z1 / size];
    let region = noise_terrain_core::advanced::REGION_CELLS as f64
        / noise_terrain_core::advanced::DRAINAGE_CELLS_PER_UNIT;
    let regions = ((rect[2] - rect[0]) / region + 2.0) * ((rect[3] - rect[1]) / region + 2.0);
    if regions > MAX_REGIONS {
        return Err(usage_error(
            "--to",
            &format!("the rectangle needs about {regions:.0} drainage regions; at most {MAX_REGIONS}"),
        ));
    }
    let network = RiverNetwork::new(world);
    let segments = network.segments_starting_in(rect);
    let height_scale = network.world().height_scale;
    let mut out = String::from("{\"type\":\"FeatureCollection\",\"features\":[");
    for (k, run) in river_runs(&segments).enumerate() {
        if k > 0 {
            out.push(',');
        }
        let ends = std::iter::once((run[0].positions()[0], run[0].water[0], run[0].area[0], run[0].width[0]))
            .chain(run.iter().map(|s| (s.positions()[1], s.water[1], s.area[1], s.width[1])));
        let (mut coordinates, mut areas, mut widths) = (Vec::new(), Vec::new(), Vec::new());
        for (p, water, area, width) in ends {
            coordinates.push(format!("[{},{},{}]", p[0] * size, p[1] * size, water * height_scale));
            areas.push(area.to_string());
            widths.push(width.to_string());
        }
        let _ = write!(
            out,
            "\n{{\"type\":\"Feature\",\"geometry\":{{\"type\":\"LineString\",\"coordinates\":[{}]}},\
             \"properties\":{{\"area\":[{}],\"width\":[{}]}}}}",
            coordinates.join(","),
            areas.join(","),
            widths.join(","),
        );
    }
    out.push_str("\n]}\n");
    write_atomically(&a.out, out.as_bytes())?;
    println!(
        "{{\"segments\":{},\"regions\":{},\"ms\":{:.1}}}",
        segments.len(),
        network.solves(),
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
