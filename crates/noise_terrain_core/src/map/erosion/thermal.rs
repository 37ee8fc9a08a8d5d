//! Thermal erosion (scree): material slides to lower neighbours wherever the slope is steeper
//! than the talus angle.
//!
//! Each iteration, every cell sends `amount` of half its largest excess over the talus slope to
//! its lower neighbours, in proportion to their excess. Every cell's sending is computed from the
//! same state, so the result does not depend on the order of the cells or on the threads. The
//! map is updated in place, a band of rows per task: a band keeps the old copies of the four
//! rows around the one it writes (in a ring), and the rows just outside it are copied before the
//! bands start. Rows are held with a one-cell wall on each side, higher than any cell, so nothing
//! flows out of the map and the loops, which vectorise, need no bounds checks.

use crate::isa::Isa;
use crate::world::chunks::for_each_chunk;

/// Height of the wall around the map: higher than any cell.
const WALL: f32 = f32::MAX;

/// Rows per band of work.
const BAND_ROWS: usize = 32;

/// The slopes an iteration compares against: to an edge neighbour and to a diagonal one.
#[derive(Clone, Copy)]
struct Talus {
    edge: f32,
    diagonal: f32,
    amount: f32,
}

/// One thermal iteration over `cells` (rows `width` long, heights in cells), in place. `halo` is
/// scratch that this function sizes itself.
pub(super) fn step(cells: &mut [f32], width: usize, talus: f32, amount: f32, halo: &mut Vec<f32>) {
    let height = cells.len() / width;
    let talus = Talus { edge: talus, diagonal: talus * std::f32::consts::SQRT_2, amount };
    let band_len = BAND_ROWS * width;
    // The old copies of the two rows above and the two below every band, before any changes.
    let bands = height.div_ceil(BAND_ROWS);
    halo.clear();
    for band in 0..bands {
        let (y0, y1) = (band * BAND_ROWS, ((band + 1) * BAND_ROWS).min(height));
        for y in [y0 as isize - 2, y0 as isize - 1, y1 as isize, y1 as isize + 1] {
            if (0..height as isize).contains(&y) {
                halo.extend_from_slice(&cells[y as usize * width..(y as usize + 1) * width]);
            } else {
                halo.extend(std::iter::repeat_n(WALL, width));
            }
        }
    }
    let halo = &halo[..];
    let isa = Isa::best();
    for_each_chunk(cells, band_len, |band, rows| {
        let own = &halo[band * 4 * width..(band + 1) * 4 * width];
        relax_band_at(isa, rows, width, own, talus);
    });
}

crate::isa::dispatch! {
    /// [`relax_band`] compiled for a level (the same bits at every level, as for the grid).
    fn relax_band_at(rows: &mut [f32], width: usize, halo: &[f32], talus: Talus) => relax_band
}

/// One iteration over the rows of a band, in place; `halo` holds the old rows two and one above
/// it and one and two below it (walls outside the map).
#[inline(always)]
fn relax_band(rows: &mut [f32], width: usize, halo: &[f32], talus: Talus) {
    let count = rows.len() / width;
    let padded = width + 2;
    // Old rows y - 1 ..= y + 2 (ring slot r % 4), padded with the wall; ratios of rows
    // y - 1 ..= y + 1 (slot r % 3), padded with 0; sends of the same rows.
    let mut old = vec![WALL; 4 * padded];
    let mut ratio = vec![0.0f32; 3 * padded];
    let mut send = vec![0.0f32; 3 * width];
    let slot = |r: isize, ring: isize| r.rem_euclid(ring) as usize;
    // Band row r, for r in -2 .. count + 2: the rows above and below come from the halo.
    let load = |old: &mut [f32], rows: &[f32], r: isize| {
        let (from, k) = match r {
            -2 | -1 => (halo, (r + 2) as usize),
            r if r as usize >= count => (halo, 2 + r as usize - count),
            r => (rows, r as usize),
        };
        let s = slot(r, 4) * padded;
        old[s + 1..s + 1 + width].copy_from_slice(&from[k * width..(k + 1) * width]);
    };
    let sends = |old: &[f32], ratio: &mut [f32], send: &mut [f32], r: isize| {
        let row = |k: isize| &old[slot(k, 4) * padded..(slot(k, 4) + 1) * padded];
        let (rs, ss) = (slot(r, 3) * padded, slot(r, 3) * width);
        row_sends(
            [row(r - 1), row(r), row(r + 1)],
            &mut ratio[rs + 1..rs + 1 + width],
            &mut send[ss..ss + width],
            talus,
        );
    };
    for r in -2..2 {
        load(&mut old, rows, r);
    }
    sends(&old, &mut ratio, &mut send, -1);
    sends(&old, &mut ratio, &mut send, 0);
    for y in 0..count as isize {
        load(&mut old, rows, y + 2);
        sends(&old, &mut ratio, &mut send, y + 1);
        let row = |k: isize| &old[slot(k, 4) * padded..(slot(k, 4) + 1) * padded];
        let ratios = |k: isize| &ratio[slot(k, 3) * padded..(slot(k, 3) + 1) * padded];
        let s = slot(y, 3) * width;
        row_update(
            [row(y - 1), row(y), row(y + 1)],
            [ratios(y - 1), ratios(y), ratios(y + 1)],
            &send[s..s + width],
            &mut rows[y as usize * width..(y as usize + 1) * width],
            talus,
        );
    }
}

/// The three padded rows `[above, here, below]` as their left, centre and right views, each
/// `width` long.
fn shifted(rows: [&[f32]; 3], width: usize) -> [[&[f32]; 3]; 3] {
    rows.map(|row| [&row[..width], &row[1..width + 1], &row[2..width + 2]])
}

/// What every cell of a row sends, and that over its total excess (its `ratio`), from the
/// padded old rows above, at and below it.
#[inline(always)]
fn row_sends(rows: [&[f32]; 3], ratio: &mut [f32], send: &mut [f32], talus: Talus) {
    let width = send.len();
    let [[al, ac, ar], [hl, hc, hr], [bl, bc, br]] = shifted(rows, width);
    let ratio = &mut ratio[..width];
    let Talus { edge, diagonal, amount } = talus;
    for i in 0..width {
        let here = hc[i];
        let drops = [
            here - al[i] - diagonal,
            here - ac[i] - edge,
            here - ar[i] - diagonal,
            here - hl[i] - edge,
            here - hr[i] - edge,
            here - bl[i] - diagonal,
            here - bc[i] - edge,
            here - br[i] - diagonal,
        ];
        let (mut total, mut largest) = (0.0f32, 0.0f32);
        for drop in drops {
            // Selects, not `max`: they vectorise without NaN handling.
            let drop = if drop > 0.0 { drop } else { 0.0 };
            total += drop;
            largest = if drop > largest { drop } else { largest };
        }
        let sent = if total > 0.0 { amount * largest * 0.5 } else { 0.0 };
        send[i] = sent;
        ratio[i] = if total > 0.0 { sent / total } else { 0.0 };
    }
}

/// The new heights of a row: each cell keeps what it does not send and receives, from every
/// neighbour, that neighbour's ratio times its excess over the cell.
#[inline(always)]
fn row_update(rows: [&[f32]; 3], ratios: [&[f32]; 3], send: &[f32], out: &mut [f32], talus: Talus) {
    let width = out.len();
    let [[al, ac, ar], [hl, hc, hr], [bl, bc, br]] = shifted(rows, width);
    let [[ral, rac, rar], [rhl, _, rhr], [rbl, rbc, rbr]] = shifted(ratios, width);
    let send = &send[..width];
    let Talus { edge, diagonal, .. } = talus;
    for i in 0..width {
        let here = hc[i];
        let from = [
            (al[i], ral[i], diagonal),
            (ac[i], rac[i], edge),
            (ar[i], rar[i], diagonal),
            (hl[i], rhl[i], edge),
            (hr[i], rhr[i], edge),
            (bl[i], rbl[i], diagonal),
            (bc[i], rbc[i], edge),
            (br[i], rbr[i], diagonal),
        ];
        let mut received = 0.0f32;
        for (neighbour, ratio, slope) in from {
            let excess = neighbour - here - slope;
            let excess = if excess > 0.0 { excess } else { 0.0 };
            // The wall has ratio 0: the select keeps its huge height out of the sum.
            received += if ratio > 0.0 { ratio * excess } else { 0.0 };
        }
        out[i] = here - send[i] + received;
    }
}
