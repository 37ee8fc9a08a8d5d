//! `--rivers` and `--drainage`: the river network as GeoJSON and the drainage area as a 16-bit
//! PNG, after stream power.
//!
//! GeoJSON because it is one text file that GIS tools (QGIS, geojson.io), game-side scripts and
//! every JSON parser read, holds lines with attributes, and keeps the network's order; a river's
//! vertices carry their height as the third coordinate and their drainage areas and widths as
//! arrays in the feature's properties (LineStrings have no per-vertex attributes).

use std::fmt::Write as _;

use noise_terrain_core::{Drainage, Heightmap, RiverEnd};

use crate::Failure;
use crate::args::ErosionArgs;
use crate::output::write_atomically;
use crate::usage::usage_error;

/// The name a river end has in the file.
fn end_name(end: RiverEnd) -> &'static str {
    match end {
        RiverEnd::Confluence => "confluence",
        RiverEnd::Sea => "sea",
        RiverEnd::Border => "border",
        RiverEnd::Sink => "sink",
    }
}

/// The network as a GeoJSON FeatureCollection: coordinates in world units from the map's first
/// sample (x east, y south, z up; `height_scale` world units per noise height).
pub fn geojson(drainage: &Drainage, height_scale: f32) -> String {
    let mut out = String::from("{\"type\":\"FeatureCollection\",\"features\":[");
    let cell = drainage.cell_size;
    for (k, river) in drainage.rivers.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push_str("\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":[");
        let numbers = |f: &dyn Fn(usize) -> f32| {
            (0..river.points.len()).map(|i| format!("{}", f(i))).collect::<Vec<_>>().join(",")
        };
        let coordinates: Vec<String> = river
            .points
            .iter()
            .map(|p| format!("[{},{},{}]", p.x as f32 * cell, p.y as f32 * cell, p.height * height_scale))
            .collect();
        out.push_str(&coordinates.join(","));
        let _ = write!(
            out,
            "]}},\"properties\":{{\"end\":\"{}\",\"area\":[{}],\"width\":[{}]}}}}",
            end_name(river.end),
            numbers(&|i| river.points[i].area),
            numbers(&|i| river.points[i].width),
        );
    }
    out.push_str("\n]}\n");
    out
}

/// The drainage area as 16-bit grey levels: `ln(area / cell)` against `ln(largest / cell)`.
pub fn drainage_png(drainage: &Drainage) -> Result<Vec<u8>, String> {
    let area = &drainage.area;
    let cell = (drainage.cell_size * drainage.cell_size).max(f32::MIN_POSITIVE);
    let largest = area.samples().iter().copied().fold(cell, f32::max);
    let span = (largest / cell).ln().max(1e-6);
    let levels = area.samples().iter().map(|&a| (a.max(cell) / cell).ln() / span).collect();
    let map = Heightmap::from_samples(area.width(), area.height(), levels).map_err(|e| e.to_string())?;
    map.encode_png16().map_err(|e| e.to_string())
}

/// Writes the files `--rivers` and `--drainage` of `args` ask for, from the erosion's
/// `drainage`; a usage error when they are asked for without stream power.
pub fn write_outputs(
    args: &ErosionArgs,
    drainage: Option<&Drainage>,
    height_scale: f32,
) -> Result<(), Failure> {
    let (rivers, drainage_file) = (args.rivers.as_deref(), args.drainage.as_deref());
    if rivers.is_none() && drainage_file.is_none() {
        return Ok(());
    }
    let Some(drainage) = drainage else {
        let flag = if rivers.is_some() { "--rivers" } else { "--drainage" };
        return Err(usage_error(flag, "needs --stream-power STEPS (or a preset with stream power on)"));
    };
    if let Some(path) = rivers {
        write_atomically(path, geojson(drainage, height_scale).as_bytes())?;
    }
    if let Some(path) = drainage_file {
        write_atomically(path, &drainage_png(drainage)?)?;
    }
    Ok(())
}
