//! Hydraulic erosion by droplets, in tiles that run in parallel without
//! depending on the threads.
//!
//! The map is cut into square tiles at least twice as wide as the farthest a droplet can reach
//! (its lifetime in cells plus its brush radius). Tiles are processed in four phases (a 2 × 2
//! checkerboard): the regions (a tile and its reach) of two tiles of one phase never overlap, so
//! they run in parallel, each on its own rows of the map, in place. A droplet never leaves its
//! region, and each droplet's start comes from hashing the seed with its tile and number, so the
//! result is the same bytes for any number of threads and on every run.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{ErosionError, Hydraulic};
use crate::field::hash::hash2;

/// The map in cells, with the flow and deposition accumulators, all `width` wide.
pub(super) struct Ground<'a> {
    pub(super) width: usize,
    pub(super) heights: &'a mut [f32],
    pub(super) flow: &'a mut [f32],
    pub(super) deposition: &'a mut [f32],
}

/// A droplet's part of the map: the rows of one rectangle of the heights, flow and deposition,
/// borrowed from the map.
struct Region<'a> {
    width: usize,
    heights: Vec<&'a mut [f32]>,
    flow: Vec<&'a mut [f32]>,
    deposition: Vec<&'a mut [f32]>,
    /// Eroded, deposited and carried away, in cells.
    totals: [f64; 3],
}

impl Region<'_> {
    fn height(&self) -> usize {
        self.heights.len()
    }

    /// Height and gradient at a point inside the region, by bilinear interpolation.
    fn height_and_gradient(&self, px: f32, py: f32) -> (f32, f32, f32) {
        let (x, y) = (px as usize, py as usize);
        let (u, v) = (px - x as f32, py - y as f32);
        let (top, bottom) = (&self.heights[y], &self.heights[y + 1]);
        let (nw, ne, sw, se) = (top[x], top[x + 1], bottom[x], bottom[x + 1]);
        let gx = (ne - nw) * (1.0 - v) + (se - sw) * v;
        let gy = (sw - nw) * (1.0 - u) + (se - ne) * u;
        let h = nw * (1.0 - u) * (1.0 - v) + ne * u * (1.0 - v) + sw * (1.0 - u) * v + se * u * v;
        (h, gx, gy)
    }

    /// Whether a droplet at `(px, py)` has a cell to stand in (and its right and lower
    /// neighbours).
    fn inside(&self, px: f32, py: f32) -> bool {
        px >= 0.0 && py >= 0.0 && (px as usize) + 1 < self.width && (py as usize) + 1 < self.height()
    }

    /// Whether cell `(x, y)` (which may be outside) is in the region.
    fn contains(&self, x: i64, y: i64) -> bool {
        x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height()
    }
}

/// The tiles of a map and how many droplets each gets.
struct Tiling {
    tile: i64,
    tiles_x: i64,
    width: i64,
    height: i64,
    reach: i64,
    counts: Vec<u32>,
}

impl Tiling {
    fn new(width: usize, height: usize, h: &Hydraulic) -> Self {
        let reach = i64::from(h.lifetime) + h.radius.ceil() as i64 + 2;
        let tile = (2 * reach).max(32);
        let (width, height) = (width as i64, height as i64);
        let (tiles_x, tiles_y) = ((width + tile - 1) / tile, (height + tile - 1) / tile);
        let mut tiling = Tiling { tile, tiles_x, width, height, reach, counts: Vec::new() };
        // Droplets per tile in proportion to its area; the rounding goes to the first tiles.
        let area = (width * height) as u64;
        let mut counts: Vec<u32> = (0..tiles_x * tiles_y)
            .map(|t| {
                let [x0, y0, x1, y1] = tiling.bounds(t);
                (u64::from(h.droplets) * ((x1 - x0) * (y1 - y0)) as u64 / area) as u32
            })
            .collect();
        let assigned: u64 = counts.iter().map(|&c| u64::from(c)).sum();
        let tiles = counts.len();
        for k in 0..(u64::from(h.droplets) - assigned) as usize {
            counts[k % tiles] += 1;
        }
        tiling.counts = counts;
        tiling
    }

    /// Tile `t`'s cells, `[x0, y0, x1, y1)`.
    fn bounds(&self, t: i64) -> [i64; 4] {
        let (x0, y0) = ((t % self.tiles_x) * self.tile, (t / self.tiles_x) * self.tile);
        [x0, y0, (x0 + self.tile).min(self.width), (y0 + self.tile).min(self.height)]
    }

    /// Tile `t`'s region: the tile and the reach of its droplets, clipped to the map.
    fn region(&self, t: i64) -> [usize; 4] {
        let [x0, y0, x1, y1] = self.bounds(t);
        let r = self.reach;
        [(x0 - r).max(0), (y0 - r).max(0), (x1 + r).min(self.width), (y1 + r).min(self.height)]
            .map(|v| v as usize)
    }

    /// The tiles of `phase` (0 to 3), in order.
    fn phase(&self, phase: i64) -> Vec<i64> {
        (0..self.counts.len() as i64)
            .filter(|t| (t % self.tiles_x) % 2 == phase % 2 && (t / self.tiles_x) % 2 == phase / 2)
            .collect()
    }
}

/// Splits `data` (rows `width` long) into the rows of each rectangle `[x0, y0, x1, y1)` of
/// `rects`, which must not overlap.
fn split_rects<'a>(data: &'a mut [f32], width: usize, rects: &[[usize; 4]]) -> Vec<Vec<&'a mut [f32]>> {
    let mut parts: Vec<Vec<&mut [f32]>> = rects.iter().map(|_| Vec::new()).collect();
    let mut order: Vec<usize> = (0..rects.len()).collect();
    order.sort_by_key(|&r| rects[r][0]);
    for (y, row) in data.chunks_mut(width).enumerate() {
        let (mut rest, mut start) = (row, 0);
        for &r in order.iter().filter(|&&r| (rects[r][1]..rects[r][3]).contains(&y)) {
            let [x0, _, x1, _] = rects[r];
            assert!(x0 >= start, "rectangles overlap");
            let (piece, tail) = std::mem::take(&mut rest)[x0 - start..].split_at_mut(x1 - x0);
            parts[r].push(piece);
            (rest, start) = (tail, x1);
        }
    }
    parts
}

/// Runs `h.droplets` droplets over `ground`, reporting the droplets done after each phase;
/// returns the totals eroded, deposited and carried away (in cells).
pub(super) fn run(
    ground: Ground<'_>,
    h: &Hydraulic,
    cancel: &AtomicBool,
    mut report: impl FnMut(u32),
) -> Result<[f64; 3], ErosionError> {
    let height = ground.heights.len() / ground.width.max(1);
    let tiling = Tiling::new(ground.width, height, h);
    let brush = brush(h.radius);
    let mut totals = [0.0f64; 3];
    let Ground { width, heights, flow, deposition } = ground;
    for phase in 0..4 {
        if cancel.load(Ordering::Relaxed) {
            return Err(ErosionError::Cancelled);
        }
        let tiles = tiling.phase(phase);
        let rects: Vec<[usize; 4]> = tiles.iter().map(|&t| tiling.region(t)).collect();
        let (mut hs, mut fs, mut ds) = (
            split_rects(heights, width, &rects),
            split_rects(flow, width, &rects),
            split_rects(deposition, width, &rects),
        );
        let regions: Vec<(i64, Region<'_>)> = (0..tiles.len())
            .rev()
            .map(|k| {
                let region = Region {
                    width: rects[k][2] - rects[k][0],
                    heights: hs.pop().expect("one per tile"),
                    flow: fs.pop().expect("one per tile"),
                    deposition: ds.pop().expect("one per tile"),
                    totals: [0.0; 3],
                };
                (tiles[k], region)
            })
            .collect();
        let simulate = |(t, mut region): (i64, Region<'_>)| {
            if !cancel.load(Ordering::Relaxed) {
                let [x0, y0, x1, y1] = tiling.bounds(t);
                let [rx0, ry0, ..] = tiling.region(t).map(|v| v as i64);
                let start = [x0 - rx0, y0 - ry0, x1 - rx0, y1 - ry0];
                run_droplets(&mut region, h, (t as u32, start), tiling.counts[t as usize], &brush);
            }
            (t, region.totals)
        };
        #[cfg(feature = "parallel")]
        let mut results: Vec<(i64, [f64; 3])> = {
            use rayon::prelude::*;
            regions.into_par_iter().map(simulate).collect()
        };
        #[cfg(not(feature = "parallel"))]
        let mut results: Vec<(i64, [f64; 3])> = regions.into_iter().map(simulate).collect();
        if cancel.load(Ordering::Relaxed) {
            return Err(ErosionError::Cancelled);
        }
        // Sum in tile order: the totals do not depend on the threads either.
        results.sort_by_key(|&(t, _)| t);
        for (_, part) in &results {
            for (sum, part) in totals.iter_mut().zip(part) {
                *sum += part;
            }
        }
        report(tiles.iter().map(|&t| tiling.counts[t as usize]).sum());
    }
    Ok(totals)
}

/// Simulates the `count` droplets of a tile on its region, in a fixed order; `tile` is the
/// tile's number and its cells in region coordinates.
fn run_droplets(
    region: &mut Region<'_>,
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
        let mut px = tx0 as f32 + fx * (tx1 - tx0) as f32;
        let mut py = ty0 as f32 + fy * (ty1 - ty0) as f32;
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
            region.flow[cy][cx] += 1.0;
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
                    (cx, cy, (1.0 - u) * (1.0 - v)),
                    (cx + 1, cy, u * (1.0 - v)),
                    (cx, cy + 1, (1.0 - u) * v),
                    (cx + 1, cy + 1, u * v),
                ];
                for (x, y, w) in corners {
                    region.heights[y][x] += amount * w;
                    region.deposition[y][x] += amount * w;
                }
                region.totals[1] += f64::from(amount);
            } else {
                // Erode with the brush, never more than the drop to the next point.
                let amount = ((capacity - sediment) * h.erode).min(-dh);
                let cell = |&(ox, oy, w): &(i32, i32, f32)| {
                    let (x, y) = (cx as i64 + i64::from(ox), cy as i64 + i64::from(oy));
                    region.contains(x, y).then_some((x as usize, y as usize, w))
                };
                let weight_sum: f32 = brush.iter().filter_map(cell).map(|(_, _, w)| w).sum();
                for &(ox, oy, w) in brush {
                    let (x, y) = (cx as i64 + i64::from(ox), cy as i64 + i64::from(oy));
                    if !region.contains(x, y) {
                        continue;
                    }
                    let (x, y) = (x as usize, y as usize);
                    let take = (amount * w / weight_sum).min(region.heights[y][x].max(0.0));
                    region.heights[y][x] -= take;
                    region.deposition[y][x] -= take;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rectangles_get_exactly_their_cells() {
        let mut data: Vec<f32> = (0..100).map(|i| i as f32).collect();
        let rects = [[5, 0, 10, 3], [0, 1, 4, 4], [0, 6, 10, 10]];
        let parts = split_rects(&mut data, 10, &rects);
        for (rect, rows) in rects.iter().zip(&parts) {
            let [x0, y0, x1, y1] = *rect;
            assert_eq!(rows.len(), y1 - y0);
            for (k, row) in rows.iter().enumerate() {
                let expected: Vec<f32> = (x0..x1).map(|x| ((y0 + k) * 10 + x) as f32).collect();
                assert_eq!(row.to_vec(), expected);
            }
        }
    }

    #[test]
    #[should_panic(expected = "rectangles overlap")]
    fn overlapping_rectangles_are_refused() {
        let mut data = vec![0.0f32; 100];
        split_rects(&mut data, 10, &[[0, 0, 6, 2], [5, 1, 10, 3]]);
    }

    #[test]
    fn regions_of_one_phase_never_overlap() {
        for (size, lifetime, radius) in [(1000, 30, 3.0), (257, 128, 8.0), (64, 1, 1.0), (333, 60, 6.0)] {
            let h = Hydraulic { droplets: 1000, lifetime, radius, ..Default::default() };
            let tiling = Tiling::new(size, size + 7, &h);
            for phase in 0..4 {
                let rects: Vec<[usize; 4]> = tiling.phase(phase).iter().map(|&t| tiling.region(t)).collect();
                for (i, a) in rects.iter().enumerate() {
                    for b in &rects[i + 1..] {
                        let apart = a[2] <= b[0] || b[2] <= a[0] || a[3] <= b[1] || b[3] <= a[1];
                        assert!(apart, "{a:?} and {b:?} overlap");
                    }
                }
            }
            assert_eq!(tiling.counts.iter().sum::<u32>(), 1000);
        }
    }
}
