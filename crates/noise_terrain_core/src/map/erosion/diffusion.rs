//! Hillslope diffusion: `dh/dt = D·∇²h`, the soil creep that rounds ridges between rivers.
//!
//! Explicit five-point sub-steps, as many as stability needs. Every cell of a sub-step is computed
//! from the previous one, so the map is updated in place a band of rows per task: each band keeps
//! the old copy of the row it is on and of the row above, and the rows just outside every band are
//! copied before the bands start. The row loop has no branches (the map's edge is a padded copy of
//! the edge cell, base-level cells are a select), so it vectorises, and it is compiled for each
//! instruction-set level like the grid's row path; every level gives the same bits, on any number
//! of threads.

use crate::isa::Isa;
use crate::world::chunks::for_each_chunk;

use super::drainage::{BAND_ROWS, CellMask, Grid};

/// Most diffusion sub-steps in one time step; a faster diffusion is limited to what these allow.
pub const MAX_DIFFUSION_SUBSTEPS: u32 = 64;

/// The explicit five-point stencil is stable up to a quarter per sub-step; this leaves room.
const STABLE_SHARE: f32 = 0.2;

/// Diffuses `ground` over `rate` (D × time, world units²) in stable explicit sub-steps, in place.
/// Cells in `fixed` keep their height (base level); no material crosses the map's edge. Returns
/// the volume that went into the fixed cells (which keep their height: it leaves the map).
pub(super) fn diffuse(ground: &mut [f32], fixed: CellMask<'_>, grid: Grid, rate: f32) -> f64 {
    let (w, h) = (grid.width, grid.height);
    if rate.is_nan() || rate <= 0.0 || w < 2 || h < 2 {
        return 0.0;
    }
    let per_cell = rate / (grid.cell_size * grid.cell_size);
    let substeps = (per_cell / STABLE_SHARE).ceil().clamp(1.0, MAX_DIFFUSION_SUBSTEPS as f32) as u32;
    let k = (per_cell / substeps as f32).min(STABLE_SHARE);
    let before = mass(ground);
    let isa = Isa::best();
    let band_len = BAND_ROWS * w;
    let mut halo = Vec::new();
    for _ in 0..substeps {
        // The old rows just above and just below every band (none past the map's edge).
        halo.clear();
        for band in 0..h.div_ceil(BAND_ROWS) {
            let (y0, y1) = (band * BAND_ROWS, ((band + 1) * BAND_ROWS).min(h));
            let rows = [y0.checked_sub(1), Some(y1).filter(|&y| y < h)];
            for y in rows {
                // A row past the edge is not read: any copy stands in for it.
                let y = y.unwrap_or(y0);
                halo.extend_from_slice(&ground[y * w..(y + 1) * w]);
            }
        }
        let halo = &halo[..];
        for_each_chunk(ground, band_len, |band, rows| {
            let own = &halo[band * 2 * w..(band + 1) * 2 * w];
            let (y0, y1) = (band * BAND_ROWS, band * BAND_ROWS + rows.len() / w);
            let above = (y0 > 0).then(|| &own[..w]);
            let below = (y1 < h).then(|| &own[w..]);
            let flags = &fixed.flags[y0 * w..y1 * w];
            diffuse_band_at(isa, rows, w, above, below, flags, fixed.bit, k);
        });
    }
    before - mass(ground)
}

/// The total of `ground` in `f64`, summed in a fixed order of lanes (the same bits on any CPU).
fn mass(ground: &[f32]) -> f64 {
    const LANES: usize = 8;
    let mut lanes = [0.0f64; LANES];
    let mut chunks = ground.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (lane, &g) in lanes.iter_mut().zip(chunk) {
            *lane += f64::from(g);
        }
    }
    let rest: f64 = chunks.remainder().iter().map(|&g| f64::from(g)).sum();
    lanes.iter().sum::<f64>() + rest
}

crate::isa::dispatch! {
    /// [`diffuse_band`] compiled for a level (the same bits at every level).
    #[allow(clippy::too_many_arguments)]
    fn diffuse_band_at(
        rows: &mut [f32],
        width: usize,
        above: Option<&[f32]>,
        below: Option<&[f32]>,
        flags: &[u8],
        bit: u8,
        k: f32,
    ) => diffuse_band
}

/// One sub-step over the rows of a band, in place. `above` and `below` are the old rows just
/// outside it (`None` at the map's edge, where a missing neighbour counts as level with the cell:
/// no flux); cells whose `flags` have `bit` keep their height.
#[inline(always)]
fn diffuse_band(
    rows: &mut [f32],
    width: usize,
    above: Option<&[f32]>,
    below: Option<&[f32]>,
    flags: &[u8],
    bit: u8,
    k: f32,
) {
    let count = rows.len() / width;
    // The old row being updated, padded with a copy of its edge cells, and the old row above it
    // (swapped, not copied, when the next row comes).
    let mut this = vec![0.0f32; width + 2];
    let mut previous = vec![0.0f32; width + 2];
    for y in 0..count {
        let row = y * width..(y + 1) * width;
        this[1..width + 1].copy_from_slice(&rows[row.clone()]);
        this[0] = this[1];
        this[width + 1] = this[width];
        let (out, later) = rows[row.start..].split_at_mut(width);
        let north: &[f32] = match (y, above) {
            (0, Some(above)) => above,
            (0, None) => &this[1..width + 1],
            _ => &previous[1..width + 1],
        };
        let south: &[f32] = match (y + 1 < count, below) {
            (true, _) => &later[..width],
            (false, Some(below)) => below,
            (false, None) => &this[1..width + 1],
        };
        diffuse_row(north, &this, south, &flags[row], bit, k, out);
        std::mem::swap(&mut this, &mut previous);
    }
}

/// One row's new heights from the old rows `north` and `south` and the old row itself (`this`,
/// padded by one cell each side).
#[inline(always)]
fn diffuse_row(north: &[f32], this: &[f32], south: &[f32], flags: &[u8], bit: u8, k: f32, out: &mut [f32]) {
    let width = out.len();
    let (north, south, flags) = (&north[..width], &south[..width], &flags[..width]);
    let (west, here, east) = (&this[..width], &this[1..width + 1], &this[2..width + 2]);
    for x in 0..width {
        let h = here[x];
        let new = h + k * (west[x] + east[x] + north[x] + south[x] - 4.0 * h);
        out[x] = if flags[x] & bit != 0 { h } else { new };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free(n: usize) -> Vec<u8> {
        vec![0; n]
    }

    /// The plain loop the banded kernel must match bit for bit.
    fn reference(ground: &mut [f32], fixed: &[u8], grid: Grid, k: f32) {
        let (w, h) = (grid.width, grid.height);
        let old = ground.to_vec();
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                if fixed[i] != 0 {
                    continue;
                }
                let here = old[i];
                let west = if x > 0 { old[i - 1] } else { here };
                let east = if x + 1 < w { old[i + 1] } else { here };
                let north = if y > 0 { old[i - w] } else { here };
                let south = if y + 1 < h { old[i + w] } else { here };
                ground[i] = here + k * (west + east + north + south - 4.0 * here);
            }
        }
    }

    #[test]
    fn every_level_and_band_matches_the_plain_stencil_bit_for_bit() {
        // 70 rows: bands of 32, 32 and 6; odd widths leave a vector remainder.
        for (w, h) in [(37, 70), (2, 2), (3, 33), (129, 65)] {
            let grid = Grid { width: w, height: h, cell_size: 1.0 };
            let start: Vec<f32> = (0..w * h).map(|i| ((i * 7919) % 101) as f32 * 0.01).collect();
            let fixed: Vec<u8> = (0..w * h).map(|i| u8::from(i % 13 == 0) * 4).collect();
            let mut expected = start.clone();
            // 0.15 per cell²: one sub-step of k = 0.15.
            reference(&mut expected, &fixed, grid, 0.15);
            let mut got = start.clone();
            diffuse(&mut got, CellMask { flags: &fixed, bit: 4 }, grid, 0.15);
            assert_eq!(got, expected, "{w}×{h}");
            for isa in crate::isa::levels_under_test() {
                let mut band = start.clone();
                diffuse_band_at(isa, &mut band, w, None, None, &fixed, 4, 0.15);
                assert_eq!(band, expected, "{w}×{h} {isa:?}");
            }
        }
    }

    #[test]
    fn diffusion_keeps_the_mass_of_a_closed_map_and_flattens_it() {
        let grid = Grid { width: 16, height: 12, cell_size: 0.5 };
        let mut ground: Vec<f32> = (0..192).map(|i| if i % 7 == 0 { 3.0 } else { 1.0 }).collect();
        let before: f32 = ground.iter().sum();
        let flags = free(192);
        // 0.5 per cell² per call: three sub-steps each.
        for _ in 0..200 {
            let left = diffuse(&mut ground, CellMask { flags: &flags, bit: 1 }, grid, 0.125);
            assert!(left.abs() < 1e-3, "nothing leaves a map without base level: {left}");
        }
        let after: f32 = ground.iter().sum();
        assert!((before - after).abs() < 1e-3 * before, "{before} vs {after}");
        let spread = ground.iter().fold(0.0f32, |m, &g| m.max((g - after / 192.0).abs()));
        assert!(spread < 0.01, "still {spread} from the mean");
    }

    #[test]
    fn what_flows_into_base_level_is_reported_as_left() {
        let grid = Grid { width: 10, height: 10, cell_size: 1.0 };
        let mut ground = vec![1.0f32; 100];
        // The left column is base level at 0: material creeps into it and leaves.
        let flags: Vec<u8> = (0..100).map(|i| u8::from(i % 10 == 0)).collect();
        for i in (0..100).step_by(10) {
            ground[i] = 0.0;
        }
        let before: f64 = ground.iter().map(|&g| f64::from(g)).sum();
        let left = diffuse(&mut ground, CellMask { flags: &flags, bit: 1 }, grid, 0.2);
        let after: f64 = ground.iter().map(|&g| f64::from(g)).sum();
        assert!(left > 0.0);
        assert!((before - after - left).abs() < 1e-9, "{before} - {after} vs {left}");
        assert!((0..100).step_by(10).all(|i| ground[i] == 0.0), "base level keeps its height");
    }

    #[test]
    fn a_very_fast_diffusion_stays_stable() {
        let grid = Grid { width: 20, height: 20, cell_size: 1.0 };
        let mut ground: Vec<f32> = (0..400).map(|i| ((i * 37) % 11) as f32).collect();
        diffuse(&mut ground, CellMask { flags: &free(400), bit: 1 }, grid, 1e6);
        assert!(ground.iter().all(|g| (0.0..=10.0).contains(g)), "no overshoot");
    }

    #[test]
    fn no_rate_or_a_single_row_leaves_the_map_alone() {
        let grid = Grid { width: 5, height: 1, cell_size: 1.0 };
        let mut ground = vec![0.0, 1.0, 0.0, 2.0, 0.0];
        let flags = free(5);
        for rate in [0.0, -1.0, f32::NAN, 1.0] {
            assert_eq!(diffuse(&mut ground, CellMask { flags: &flags, bit: 1 }, grid, rate), 0.0);
        }
        assert_eq!(ground, [0.0, 1.0, 0.0, 2.0, 0.0]);
    }
}
