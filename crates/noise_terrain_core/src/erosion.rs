//! Hydraulic erosion by droplets and thermal erosion (scree), deterministic on any number of
//! threads.
//!
//! Hydraulic erosion follows Hans Theobald Beyer's thesis "Implementation of a method for
//! hydraulic erosion" (2015): a droplet rolls downhill with some inertia, picks up sediment
//! while it is below its capacity (slope × speed × water × capacity), drops it where it slows or
//! climbs, evaporates, and dies after `lifetime` steps. Thermal erosion moves material from every
//! cell to its lower neighbours wherever the slope is steeper than the talus angle.
//!
//! The simulation works in cells: a height of 1 is [`Erosion::scale`] cells tall. The classic
//! parameters assume gentle slopes per cell (heights of `[0, 1]` over a few hundred cells, a
//! scale near 1 to 3, the default 2); at true world slopes (tens of cells tall) the droplets carry
//! so much that they flatten the map.
//!
//! Determinism: the map is cut into square tiles at least twice as wide as the farthest a droplet
//! can reach (its lifetime in cells plus its brush radius). Tiles are processed in four phases
//! (a 2 × 2 checkerboard): the reach of two tiles of one phase never overlaps, so they run in
//! parallel on copies of their surroundings and write back without conflict. Each droplet's start
//! comes from hashing the seed with its tile and number. The result is the same bytes for any
//! number of threads and on every run. Thermal erosion computes every cell's outflow from the
//! previous state (two passes), also independent of the threads.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::Heightmap;
use crate::chunks::for_each_chunk;
use crate::clamp::clamp_or;
use crate::hash::hash2;

/// The most droplets one erosion simulates; more are clamped (and reported by
/// [`Erosion::validate`]).
pub const MAX_DROPLETS: u32 = 10_000_000;
/// The most thermal iterations.
pub const MAX_THERMAL_ITERATIONS: u32 = 10_000;

/// Droplet erosion. The defaults are the widely used ones (radius 3, inertia 0.05, capacity 4,
/// deposit 0.3, erode 0.3, evaporation 0.01, gravity 4, lifetime 30).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct Hydraulic {
    /// Droplets simulated, `0..=MAX_DROPLETS`; 0 turns hydraulic erosion off.
    pub droplets: u32,
    /// Radius of the erosion brush in cells, `[1, 8]`.
    pub radius: f32,
    /// How much a droplet keeps its direction, `[0, 0.99]`.
    pub inertia: f32,
    /// Sediment capacity factor, `[0, 64]`.
    pub capacity: f32,
    /// The slope used for capacity on flat ground, `[0, 1]`.
    pub min_slope: f32,
    /// Share of excess sediment deposited per step, `[0, 1]`.
    pub deposit: f32,
    /// Share of free capacity eroded per step, `[0, 1]`.
    pub erode: f32,
    /// Share of water evaporated per step, `[0, 1]`.
    pub evaporation: f32,
    /// Gravity: how fast droplets speed up downhill, `[0, 64]`.
    pub gravity: f32,
    /// Steps a droplet lives (one cell each), `1..=128`.
    pub lifetime: u32,
    /// Seed of the droplets' start points.
    pub seed: u32,
}

impl Default for Hydraulic {
    fn default() -> Self {
        Self {
            droplets: 0,
            radius: 3.0,
            inertia: 0.05,
            capacity: 4.0,
            min_slope: 0.01,
            deposit: 0.3,
            erode: 0.3,
            evaporation: 0.01,
            gravity: 4.0,
            lifetime: 30,
            seed: 1,
        }
    }
}

/// Thermal erosion: material slides down slopes steeper than the talus angle.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct Thermal {
    /// Iterations, `0..=MAX_THERMAL_ITERATIONS`; 0 turns thermal erosion off.
    pub iterations: u32,
    /// The steepest stable slope, degrees, `[1, 89]`.
    pub talus_angle: f32,
    /// Share of the excess moved per iteration, `[0, 1]` (above 0.5 it may overshoot).
    pub amount: f32,
}

impl Default for Thermal {
    fn default() -> Self {
        Self { iterations: 0, talus_angle: 35.0, amount: 0.5 }
    }
}

/// Hydraulic erosion followed by thermal erosion. The default erodes nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct Erosion {
    /// Droplets.
    pub hydraulic: Hydraulic,
    /// Scree.
    pub thermal: Thermal,
    /// How many cells tall a height of 1 is for the simulation, `[0.01, 1000]`: the classic
    /// droplet parameters suit gentle slopes, 1 to 3.
    pub scale: f32,
}

impl Default for Erosion {
    fn default() -> Self {
        Self { hydraulic: Hydraulic::default(), thermal: Thermal::default(), scale: 2.0 }
    }
}

/// What [`erode`] produces besides the eroded heights, one value per cell.
#[derive(Clone, Debug, PartialEq)]
pub struct ErosionMaps {
    /// How many droplet steps passed through each cell: where water ran.
    pub flow: Heightmap,
    /// Material deposited in each cell minus material eroded from it, in noise heights: positive
    /// on sediment fans, negative in channels.
    pub deposition: Heightmap,
    /// Totals for checking the mass balance, in noise heights summed over cells.
    pub totals: ErosionTotals,
}

/// Sums over the whole hydraulic run (noise heights).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ErosionTotals {
    /// Material taken from the ground.
    pub eroded: f64,
    /// Material put back on the ground.
    pub deposited: f64,
    /// Sediment droplets still carried when they died (it leaves the map).
    pub carried_away: f64,
}

/// Why [`erode`] stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErosionError {
    /// The cancel flag was set: the heights are half eroded, discard them.
    #[error("erosion was cancelled")]
    Cancelled,
}

impl ErosionMaps {
    /// The part of the maps inside `frame` (see [`Heightmap::crop`]), for a map eroded with a
    /// border.
    pub fn crop(&self, frame: crate::Frame) -> Result<ErosionMaps, crate::HeightmapError> {
        Ok(ErosionMaps {
            flow: self.flow.crop(frame)?,
            deposition: self.deposition.crop(frame)?,
            totals: self.totals,
        })
    }

    /// Tints RGBA8 `texels` of the eroded `heights` (one texel per cell): land where much water
    /// ran is darker (wet channels, by the logarithm of the flow against the map's largest), and
    /// land where sediment settled turns toward the colour of silt (fans). Water (below
    /// `water_level`) is left alone.
    pub fn tint(&self, texels: &mut [u8], heights: &Heightmap, water_level: f32) {
        const SILT: [f32; 3] = [176.0, 160.0, 120.0];
        let most = self.flow.samples().iter().copied().fold(0.0f32, f32::max);
        let log_most = (1.0 + most).ln().max(1e-6);
        let cells = heights.samples().iter().zip(self.flow.samples()).zip(self.deposition.samples());
        for (texel, ((&h, &flow), &deposit)) in texels.chunks_exact_mut(4).zip(cells) {
            if h < water_level {
                continue;
            }
            let wet = (1.0 + flow).ln() / log_most;
            let darken = 1.0 - 0.45 * wet * wet;
            // A hundredth of the height range of sediment is a full fan.
            let silt = (deposit * 100.0).clamp(0.0, 0.7);
            for (c, target) in texel[..3].iter_mut().zip(SILT) {
                let mixed = *c as f32 * (1.0 - silt) + target * silt;
                *c = (mixed * darken).round().clamp(0.0, 255.0) as u8;
            }
        }
    }
}

impl Erosion {
    /// The settings with every value in range (NaN becomes the default).
    pub fn clamped(&self) -> Self {
        let (h, d) = (self.hydraulic, Hydraulic::default());
        let (t, dt) = (self.thermal, Thermal::default());
        Erosion {
            hydraulic: Hydraulic {
                droplets: h.droplets.min(MAX_DROPLETS),
                radius: clamp_or(h.radius, (1.0, 8.0), d.radius),
                inertia: clamp_or(h.inertia, (0.0, 0.99), d.inertia),
                capacity: clamp_or(h.capacity, (0.0, 64.0), d.capacity),
                min_slope: clamp_or(h.min_slope, (0.0, 1.0), d.min_slope),
                deposit: clamp_or(h.deposit, (0.0, 1.0), d.deposit),
                erode: clamp_or(h.erode, (0.0, 1.0), d.erode),
                evaporation: clamp_or(h.evaporation, (0.0, 1.0), d.evaporation),
                gravity: clamp_or(h.gravity, (0.0, 64.0), d.gravity),
                lifetime: h.lifetime.clamp(1, 128),
                seed: h.seed,
            },
            thermal: Thermal {
                iterations: t.iterations.min(MAX_THERMAL_ITERATIONS),
                talus_angle: clamp_or(t.talus_angle, (1.0, 89.0), dt.talus_angle),
                amount: clamp_or(t.amount, (0.0, 1.0), dt.amount),
            },
            scale: clamp_or(self.scale, (0.01, 1000.0), 2.0),
        }
    }

    /// Whether anything erodes.
    pub fn is_active(&self) -> bool {
        let c = self.clamped();
        c.hydraulic.droplets > 0 || c.thermal.iterations > 0
    }

    /// What [`clamped`](Self::clamped) changes, as `(field, given, used)` lines for logs.
    pub fn validate(&self) -> Vec<crate::Clamped> {
        let used = self.clamped();
        let mut out = Vec::new();
        let given = format!("{self:?}");
        if used != *self {
            out.push(crate::Clamped { field: "erosion", given, used: format!("{used:?}") });
        }
        out
    }
}

/// A droplet's view of the map: heights of its region in cells (a copy), with flow and
/// deposition accumulators, and the region's place in the map.
struct Region {
    x0: i64,
    y0: i64,
    width: usize,
    height: usize,
    heights: Vec<f32>,
    flow: Vec<f32>,
    deposition: Vec<f32>,
    totals: [f64; 3],
}

impl Region {
    fn index(&self, x: usize, y: usize) -> usize {
        y * self.width + x
    }

    /// Height and gradient at a point inside the region, by bilinear interpolation.
    fn height_and_gradient(&self, px: f32, py: f32) -> (f32, f32, f32) {
        let (x, y) = (px as usize, py as usize);
        let (u, v) = (px - x as f32, py - y as f32);
        let i = self.index(x, y);
        let (nw, ne, sw, se) = (
            self.heights[i],
            self.heights[i + 1],
            self.heights[i + self.width],
            self.heights[i + self.width + 1],
        );
        let gx = (ne - nw) * (1.0 - v) + (se - sw) * v;
        let gy = (sw - nw) * (1.0 - u) + (se - ne) * u;
        let h = nw * (1.0 - u) * (1.0 - v) + ne * u * (1.0 - v) + sw * (1.0 - u) * v + se * u * v;
        (h, gx, gy)
    }

    /// Whether a droplet at `(px, py)` has a cell to stand in (and its right and lower
    /// neighbours).
    fn inside(&self, px: f32, py: f32) -> bool {
        px >= 0.0 && py >= 0.0 && (px as usize) + 1 < self.width && (py as usize) + 1 < self.height
    }
}

/// Simulates the `count` droplets of a tile on its region, in a fixed order.
fn run_droplets(
    region: &mut Region,
    h: &Hydraulic,
    tile: (u32, [i64; 4]),
    count: u32,
    brush: &[(i32, i32, f32)],
) {
    let (tile_index, [tx0, ty0, tx1, ty1]) = tile;
    for k in 0..count {
        // Start point: hashed from the seed, the tile and the droplet's number.
        let a = hash2(tile_index as i32, k as i32, h.seed);
        let b = hash2(k as i32, tile_index as i32, h.seed ^ 0x9E37_79B9);
        let fx = (a >> 8) as f32 / (1u32 << 24) as f32;
        let fy = (b >> 8) as f32 / (1u32 << 24) as f32;
        let mut px = (tx0 - region.x0) as f32 + fx * (tx1 - tx0) as f32;
        let mut py = (ty0 - region.y0) as f32 + fy * (ty1 - ty0) as f32;
        let (mut dx, mut dy) = (0.0f32, 0.0f32);
        let (mut speed, mut water, mut sediment) = (1.0f32, 1.0f32, 0.0f32);
        for _ in 0..h.lifetime {
            if !region.inside(px, py) {
                break;
            }
            let (cx, cy) = (px as usize, py as usize);
            let (u, v) = (px - cx as f32, py - cy as f32);
            let (height, gx, gy) = region.height_and_gradient(px, py);
            dx = dx * h.inertia - gx * (1.0 - h.inertia);
            dy = dy * h.inertia - gy * (1.0 - h.inertia);
            let length = (dx * dx + dy * dy).sqrt();
            if length.is_nan() || length <= 1e-12 {
                break;
            }
            (dx, dy) = (dx / length, dy / length);
            let here = region.index(cx, cy);
            region.flow[here] += 1.0;
            px += dx;
            py += dy;
            if !region.inside(px, py) {
                break;
            }
            let dh = region.height_and_gradient(px, py).0 - height;
            let capacity = (-dh).max(h.min_slope) * speed * water * h.capacity;
            if sediment > capacity || dh > 0.0 {
                // Uphill: fill the pit up to the new height; otherwise drop part of the excess.
                let amount = if dh > 0.0 { dh.min(sediment) } else { (sediment - capacity) * h.deposit };
                sediment -= amount;
                let corners = [
                    (here, (1.0 - u) * (1.0 - v)),
                    (here + 1, u * (1.0 - v)),
                    (here + region.width, (1.0 - u) * v),
                    (here + region.width + 1, u * v),
                ];
                for (i, w) in corners {
                    region.heights[i] += amount * w;
                    region.deposition[i] += amount * w;
                }
                region.totals[1] += f64::from(amount);
            } else {
                // Erode with the brush, never more than the drop to the next point.
                let amount = ((capacity - sediment) * h.erode).min(-dh);
                let mut weight_sum = 0.0;
                for &(ox, oy, w) in brush {
                    let (x, y) = (cx as i64 + i64::from(ox), cy as i64 + i64::from(oy));
                    if x >= 0 && y >= 0 && (x as usize) < region.width && (y as usize) < region.height {
                        weight_sum += w;
                    }
                }
                for &(ox, oy, w) in brush {
                    let (x, y) = (cx as i64 + i64::from(ox), cy as i64 + i64::from(oy));
                    if x < 0 || y < 0 || x as usize >= region.width || y as usize >= region.height {
                        continue;
                    }
                    let i = region.index(x as usize, y as usize);
                    let take = (amount * w / weight_sum).min(region.heights[i].max(0.0));
                    region.heights[i] -= take;
                    region.deposition[i] -= take;
                    sediment += take;
                    region.totals[0] += f64::from(take);
                }
            }
            speed = (speed * speed - dh * h.gravity).max(0.0).sqrt();
            water *= 1.0 - h.evaporation;
        }
        region.totals[2] += f64::from(sediment);
    }
}

/// The brush: cell offsets within `radius` and weights falling linearly to 0 at the radius.
fn brush(radius: f32) -> Vec<(i32, i32, f32)> {
    let r = radius.ceil() as i32;
    let mut cells = Vec::new();
    for oy in -r..=r {
        for ox in -r..=r {
            let d = ((ox * ox + oy * oy) as f32).sqrt();
            if d < radius {
                cells.push((ox, oy, 1.0 - d / radius));
            }
        }
    }
    cells
}

/// Erodes `map` (heights in noise units) with `settings`: hydraulic erosion, then thermal. A
/// height of 1 is `settings.scale` cells tall. `progress` is called with the share done, from 0
/// to 1; when `cancel` is set the function returns [`ErosionError::Cancelled`] promptly, with
/// `map` half eroded (erode a copy where the original must survive).
pub fn erode(
    map: &mut Heightmap,
    settings: &Erosion,
    progress: &(dyn Fn(f32) + Sync),
    cancel: &AtomicBool,
) -> Result<ErosionMaps, ErosionError> {
    let s = settings.clamped();
    let scale = s.scale;
    let (width, height) = (map.width() as usize, map.height() as usize);
    let mut cells: Vec<f32> = map.samples().iter().map(|&h| h * scale).collect();
    let mut flow = vec![0.0f32; cells.len()];
    let mut deposition = vec![0.0f32; cells.len()];
    let mut totals = [0.0f64; 3];
    let h = s.hydraulic;
    let total_work =
        f64::from(h.droplets) + f64::from(s.thermal.iterations) * (cells.len() as f64 / 64.0).max(1.0);
    let mut done = 0.0f64;

    if h.droplets > 0 && width >= 2 && height >= 2 {
        let brush = brush(h.radius);
        let reach = i64::from(h.lifetime) + h.radius.ceil() as i64 + 2;
        let tile = (2 * reach).max(32);
        let (tiles_x, tiles_y) = ((width as i64 + tile - 1) / tile, (height as i64 + tile - 1) / tile);
        let tile_count = (tiles_x * tiles_y) as u64;
        // Droplets per tile in proportion to its area; the rounding goes to the first tiles.
        let area = (width * height) as u64;
        let tile_bounds = |t: i64| {
            let (tx, ty) = (t % tiles_x, t / tiles_x);
            let (x0, y0) = (tx * tile, ty * tile);
            [x0, y0, (x0 + tile).min(width as i64), (y0 + tile).min(height as i64)]
        };
        let share = |t: i64| {
            let [x0, y0, x1, y1] = tile_bounds(t);
            ((x1 - x0) * (y1 - y0)) as u64
        };
        let mut counts: Vec<u32> =
            (0..tile_count as i64).map(|t| (u64::from(h.droplets) * share(t) / area) as u32).collect();
        let assigned: u64 = counts.iter().map(|&c| u64::from(c)).sum();
        let tiles = counts.len();
        for k in 0..(u64::from(h.droplets) - assigned) as usize {
            counts[k % tiles] += 1;
        }
        for phase in 0..4 {
            if cancel.load(Ordering::Relaxed) {
                return Err(ErosionError::Cancelled);
            }
            let members: Vec<i64> = (0..tile_count as i64)
                .filter(|t| (t % tiles_x) % 2 == phase % 2 && (t / tiles_x) % 2 == phase / 2)
                .collect();
            let simulate = |t: &i64| -> Region {
                let [x0, y0, x1, y1] = tile_bounds(*t);
                let (rx0, ry0) = ((x0 - reach).max(0), (y0 - reach).max(0));
                let (rx1, ry1) = ((x1 + reach).min(width as i64), (y1 + reach).min(height as i64));
                let (rw, rh) = ((rx1 - rx0) as usize, (ry1 - ry0) as usize);
                let mut region = Region {
                    x0: rx0,
                    y0: ry0,
                    width: rw,
                    height: rh,
                    heights: Vec::with_capacity(rw * rh),
                    flow: Vec::with_capacity(rw * rh),
                    deposition: Vec::with_capacity(rw * rh),
                    totals: [0.0; 3],
                };
                for y in ry0 as usize..ry1 as usize {
                    let row = y * width + rx0 as usize..y * width + rx1 as usize;
                    region.heights.extend_from_slice(&cells[row.clone()]);
                    region.flow.extend_from_slice(&flow[row.clone()]);
                    region.deposition.extend_from_slice(&deposition[row]);
                }
                if !cancel.load(Ordering::Relaxed) {
                    run_droplets(&mut region, &h, (*t as u32, [x0, y0, x1, y1]), counts[*t as usize], &brush);
                }
                region
            };
            #[cfg(feature = "parallel")]
            let regions: Vec<Region> = {
                use rayon::prelude::*;
                members.par_iter().map(simulate).collect()
            };
            #[cfg(not(feature = "parallel"))]
            let regions: Vec<Region> = members.iter().map(simulate).collect();
            if cancel.load(Ordering::Relaxed) {
                return Err(ErosionError::Cancelled);
            }
            // The regions of one phase do not overlap: writing them back in order is exact.
            for region in regions {
                for y in 0..region.height {
                    let map_row = (region.y0 as usize + y) * width + region.x0 as usize;
                    let local = y * region.width..(y + 1) * region.width;
                    cells[map_row..map_row + region.width].copy_from_slice(&region.heights[local.clone()]);
                    flow[map_row..map_row + region.width].copy_from_slice(&region.flow[local.clone()]);
                    deposition[map_row..map_row + region.width].copy_from_slice(&region.deposition[local]);
                }
                for (sum, part) in totals.iter_mut().zip(region.totals) {
                    *sum += part;
                }
            }
            done += members.iter().map(|&t| f64::from(counts[t as usize])).sum::<f64>();
            progress((done / total_work) as f32);
        }
    }

    let t = s.thermal;
    if t.iterations > 0 && width >= 2 && height >= 2 {
        let talus = t.talus_angle.to_radians().tan();
        let mut grid = ThermalGrid::new(&cells, width, height);
        let step = (cells.len() as f64 / 64.0).max(1.0);
        for iteration in 0..t.iterations {
            if cancel.load(Ordering::Relaxed) {
                return Err(ErosionError::Cancelled);
            }
            grid.step(talus, t.amount);
            done += step;
            if iteration % 8 == 7 {
                progress((done / total_work) as f32);
            }
        }
        grid.write_to(&mut cells);
    }

    for (h, c) in map.samples_mut().iter_mut().zip(&cells) {
        *h = c / scale;
    }
    progress(1.0);
    let to_map = |values: Vec<f32>| {
        Heightmap::from_samples(width as u32, height as u32, values).expect("the map's size")
    };
    let inverse = 1.0 / scale;
    Ok(ErosionMaps {
        flow: to_map(flow),
        deposition: to_map(deposition.into_iter().map(|d| d * inverse).collect()),
        totals: ErosionTotals {
            eroded: totals[0] / f64::from(scale),
            deposited: totals[1] / f64::from(scale),
            carried_away: totals[2] / f64::from(scale),
        },
    })
}

/// The three padded rows around row `y` (of a map `pw` wide) as 3-wide windows, one per
/// interior cell.
fn padded_windows<T>(data: &[T], pw: usize, y: usize) -> impl Iterator<Item = ((&[T], &[T]), &[T])> {
    let row = |r: usize| &data[r * pw..(r + 1) * pw];
    row(y - 1).windows(3).zip(row(y).windows(3)).zip(row(y + 1).windows(3))
}

/// Height of the ring around the padded map: higher than any cell, so nothing flows out of the
/// map and the loops need no bounds checks.
const WALL: f32 = f32::MAX;

/// Thermal erosion of `cells` (`width × height`, heights in cells).
///
/// Each iteration, every cell sends `amount` of half its largest excess over the talus slope to
/// its lower neighbours, in proportion to their excess; every cell's sending is computed from
/// the same state (a first pass keeps, per cell, what it sends and that over its total excess),
/// and a second pass adds up what each cell receives. Both passes run row by row on all cores
/// over a map padded with a wall, in loops that vectorise.
struct ThermalGrid {
    width: usize,
    /// The heights with a one-cell wall around them, row-major, `width + 2` wide.
    padded: Vec<f32>,
    next: Vec<f32>,
    /// Per padded cell: what it sends, and that over its total excess (0 on the wall).
    flows: Vec<[f32; 2]>,
}

impl ThermalGrid {
    fn new(cells: &[f32], width: usize, height: usize) -> Self {
        let pw = width + 2;
        let mut padded = vec![WALL; pw * (height + 2)];
        for (y, row) in cells.chunks(width).enumerate() {
            padded[(y + 1) * pw + 1..(y + 1) * pw + 1 + width].copy_from_slice(row);
        }
        let len = padded.len();
        Self { width, next: padded.clone(), padded, flows: vec![[0.0; 2]; len] }
    }

    fn step(&mut self, talus: f32, amount: f32) {
        let pw = self.width + 2;
        let rows = self.padded.len() / pw;
        let padded = &self.padded;
        let windows = |data, y| padded_windows(data, pw, y);
        // The excess of `here` over each of its 8 neighbours (negative: no flow).
        let diagonal = talus * std::f32::consts::SQRT_2;
        let drops = move |here: f32, a: &[f32], h: &[f32], b: &[f32]| {
            [
                here - a[0] - diagonal,
                here - a[1] - talus,
                here - a[2] - diagonal,
                here - h[0] - talus,
                here - h[2] - talus,
                here - b[0] - diagonal,
                here - b[1] - talus,
                here - b[2] - diagonal,
            ]
        };
        // Pass 1: what every cell sends, and that over its total excess.
        for_each_chunk(&mut self.flows[..], pw, |y, flows| {
            if y == 0 || y + 1 >= rows {
                return;
            }
            for (flow, ((a, h), b)) in flows[1..pw - 1].iter_mut().zip(windows(padded, y)) {
                let (mut total, mut largest) = (0.0f32, 0.0f32);
                for drop in drops(h[1], a, h, b) {
                    // Selects, not `max`: they vectorise without NaN handling.
                    let drop = if drop > 0.0 { drop } else { 0.0 };
                    total += drop;
                    largest = if drop > largest { drop } else { largest };
                }
                let send = if total > 0.0 { amount * largest * 0.5 } else { 0.0 };
                *flow = [send, if total > 0.0 { send / total } else { 0.0 }];
            }
        });
        // Pass 2: what every cell keeps and receives: each neighbour sends its ratio times its
        // own excess over this cell.
        let flows = &self.flows;
        for_each_chunk(&mut self.next[..], pw, |y, next| {
            if y == 0 || y + 1 >= rows {
                return;
            }
            let cells = windows(padded, y).zip(padded_windows(flows, pw, y));
            for (out, (((a, h), b), ((fa, fh), fb))) in next[1..pw - 1].iter_mut().zip(cells) {
                let here = h[1];
                let neighbours = [a[0], a[1], a[2], h[0], h[2], b[0], b[1], b[2]];
                let ratio = [fa[0][1], fa[1][1], fa[2][1], fh[0][1], fh[2][1], fb[0][1], fb[1][1], fb[2][1]];
                let slope = [diagonal, talus, diagonal, talus, talus, diagonal, talus, diagonal];
                let mut received = 0.0f32;
                for k in 0..8 {
                    let excess = neighbours[k] - here - slope[k];
                    let excess = if excess > 0.0 { excess } else { 0.0 };
                    // The wall has ratio 0: the select keeps its huge height out of the sum.
                    received += if ratio[k] > 0.0 { ratio[k] * excess } else { 0.0 };
                }
                *out = here - fh[1][0] + received;
            }
        });
        std::mem::swap(&mut self.padded, &mut self.next);
    }

    /// The heights without the wall.
    fn write_to(&self, cells: &mut [f32]) {
        let pw = self.width + 2;
        for (y, row) in cells.chunks_mut(self.width).enumerate() {
            row.copy_from_slice(&self.padded[(y + 1) * pw + 1..(y + 1) * pw + 1 + self.width]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoiseSettings;

    fn terrain(n: u32) -> Heightmap {
        Heightmap::generate(&NoiseSettings { octaves: 6, ..Default::default() }, n, n).unwrap()
    }

    fn hydraulic(droplets: u32) -> Erosion {
        Erosion { hydraulic: Hydraulic { droplets, ..Default::default() }, ..Default::default() }
    }

    fn run(map: &mut Heightmap, settings: &Erosion, scale: f32) -> ErosionMaps {
        erode(map, &Erosion { scale, ..*settings }, &|_| {}, &AtomicBool::new(false)).unwrap()
    }

    #[test]
    fn removed_material_equals_deposited_plus_carried_away() {
        let mut map = terrain(128);
        let before: f64 = map.samples().iter().map(|&h| f64::from(h)).sum();
        let settings = Erosion {
            hydraulic: Hydraulic { droplets: 60_000, lifetime: 128, ..Default::default() },
            ..Default::default()
        };
        let maps = run(&mut map, &settings, 10.0);
        let t = maps.totals;
        assert!(t.eroded > 0.0 && t.deposited > 0.0, "{t:?}");
        let balance = (t.eroded - t.deposited - t.carried_away).abs() / t.eroded;
        assert!(balance < 1e-3, "{t:?}: off by {balance}");
        // The map lost what the droplets carried away.
        let after: f64 = map.samples().iter().map(|&h| f64::from(h)).sum();
        assert!(
            ((before - after) - t.carried_away).abs() / t.eroded < 1e-3,
            "{} vs {}",
            before - after,
            t.carried_away
        );
        let deposition: f64 = maps.deposition.samples().iter().map(|&d| f64::from(d)).sum();
        assert!((deposition + before - after).abs() / t.eroded < 1e-3);
    }

    #[test]
    fn heights_stay_finite_on_flat_tiny_steep_and_empty_runs() {
        let cases: Vec<(Heightmap, Erosion)> = vec![
            (Heightmap::from_fn(64, 64, |_, _| 0.5).unwrap(), hydraulic(5_000)),
            (Heightmap::from_fn(2, 2, |x, y| (x + y) as f32).unwrap(), hydraulic(1_000)),
            (Heightmap::from_fn(1, 1, |_, _| 0.3).unwrap(), hydraulic(1_000)),
            (
                Heightmap::from_fn(48, 48, |x, y| if (x / 4 + y / 4) % 2 == 0 { 1e6 } else { 0.0 }).unwrap(),
                hydraulic(5_000),
            ),
            (terrain(32), hydraulic(0)),
            (
                terrain(32),
                Erosion { thermal: Thermal { iterations: 50, ..Default::default() }, ..hydraulic(2_000) },
            ),
        ];
        for (mut map, settings) in cases {
            let maps = run(&mut map, &settings, 30.0);
            assert!(map.samples().iter().all(|h| h.is_finite()), "{settings:?}");
            assert!(maps.flow.samples().iter().all(|f| f.is_finite() && *f >= 0.0));
        }
        // 10^8 droplets are clamped, and the clamp is reported.
        let wild = hydraulic(100_000_000);
        assert_eq!(wild.clamped().hydraulic.droplets, MAX_DROPLETS);
        assert_eq!(wild.validate().len(), 1);
        let nan = Erosion {
            hydraulic: Hydraulic { inertia: f32::NAN, radius: 1e9, ..Default::default() },
            ..Default::default()
        };
        assert_eq!(nan.clamped().hydraulic.inertia, Hydraulic::default().inertia);
        assert_eq!(nan.clamped().hydraulic.radius, 8.0);
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn the_same_bytes_for_one_two_and_seven_threads() {
        let settings =
            Erosion { thermal: Thermal { iterations: 10, ..Default::default() }, ..hydraulic(30_000) };
        let runs: Vec<(Vec<u32>, Vec<u32>)> = [1, 2, 7]
            .into_iter()
            .map(|threads| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let mut map = terrain(200);
                let maps = pool.install(|| run(&mut map, &settings, 50.0));
                let bits = |m: &Heightmap| m.samples().iter().map(|h| h.to_bits()).collect::<Vec<_>>();
                (bits(&map), bits(&maps.flow))
            })
            .collect();
        assert!(runs[0] == runs[1] && runs[1] == runs[2], "the threads changed the result");
        assert_ne!(
            runs[0].0,
            terrain(200).samples().iter().map(|h| h.to_bits()).collect::<Vec<_>>(),
            "nothing eroded"
        );
    }

    #[test]
    fn after_enough_thermal_iterations_no_slope_exceeds_the_talus_angle() {
        let mut map = Heightmap::from_fn(40, 40, |x, y| {
            if (15..25).contains(&x) && (15..25).contains(&y) { 1.0 } else { 0.0 }
        })
        .unwrap();
        let settings = Erosion {
            thermal: Thermal { iterations: 3000, talus_angle: 30.0, amount: 0.5 },
            ..Default::default()
        };
        let scale = 20.0;
        let before: f64 = map.samples().iter().map(|&h| f64::from(h)).sum();
        run(&mut map, &settings, scale);
        let talus = 30f32.to_radians().tan();
        let mut steepest = 0.0f32;
        for y in 0..40 {
            for x in 0..39 {
                let a = map.get(x, y).unwrap() * scale;
                steepest = steepest.max((a - map.get(x + 1, y).unwrap() * scale).abs());
                let b = map.get(y, x).unwrap() * scale;
                steepest = steepest.max((b - map.get(y, x + 1).unwrap() * scale).abs());
            }
        }
        // Tolerance: 2% of the talus slope.
        assert!(steepest <= talus * 1.02, "a slope of {steepest} cells per cell, talus {talus}");
        let after: f64 = map.samples().iter().map(|&h| f64::from(h)).sum();
        assert!(
            (before - after).abs() < 1e-3 * before,
            "thermal erosion keeps the mass: {before} vs {after}"
        );
    }

    #[test]
    fn water_gathers_in_valleys_and_cuts_channels() {
        let mut map = terrain(128);
        let maps = run(&mut map, &hydraulic(100_000), 3.0);
        let mut flow: Vec<f32> = maps.flow.samples().to_vec();
        flow.sort_by(|a, b| b.total_cmp(a));
        let total: f32 = flow.iter().sum();
        let top: f32 = flow[..flow.len() / 20].iter().sum();
        // Spread evenly the top 5% would carry 5%; droplets gather in valleys.
        assert!(top / total > 0.2, "the top 5% of cells carry {:.0}% of the flow", 100.0 * top / total);
        let cut = maps.deposition.samples().iter().filter(|&&d| d < 0.0).count();
        let filled = maps.deposition.samples().iter().filter(|&&d| d > 0.0).count();
        // Most cells lose ground (much of the sediment leaves the map); some gain it.
        assert!(cut > 1000 && filled > 10, "{cut} cells cut, {filled} filled");
        let t = maps.totals;
        assert!(t.deposited > 0.1 * t.eroded, "{t:?}");
    }

    #[test]
    fn cancelling_returns_promptly() {
        let mut map = terrain(256);
        let cancel = AtomicBool::new(false);
        let settings = Erosion {
            thermal: Thermal { iterations: 10_000, ..Default::default() },
            ..hydraulic(MAX_DROPLETS)
        };
        let start = std::time::Instant::now();
        // Cancel as soon as the first progress report arrives.
        let result = erode(&mut map, &settings, &|_| cancel.store(true, Ordering::Relaxed), &cancel);
        assert_eq!(result, Err(ErosionError::Cancelled));
        assert!(start.elapsed() < std::time::Duration::from_secs(10), "{:?}", start.elapsed());
    }
}
