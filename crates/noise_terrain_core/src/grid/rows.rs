//! What the heights' and the gradients' row paths share: where a grid lies ([`GridWindow`]),
//! when rows go to the thread pool, and the per-row lattice work (cells, runs, simplex skews)
//! done with the point path's operations so that both paths give its bits.

use crate::field::basis::simplex::{skew_2d, skew_2d_in_range};
use crate::field::coord::{AxisCell, COORDINATE_LIMIT, split, split_in_range};

/// Where a grid lies in map units: pixel `(i, j)` is at `((origin.x + i) / ppu, (origin.y + j) / ppu)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridWindow {
    /// Pixel coordinates of the first sample.
    pub origin: [i64; 2],
    /// Samples per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Pixels per map unit.
    pub pixels_per_unit: f64,
}

/// Grids of fewer samples are filled on the calling thread: handing rows to the pool costs a
/// thread switch or two (tens of microseconds), more than a chunk-sized grid takes (a 65² grid of
/// 5-octave fBm is about 20 µs), and a game builds many chunks at once on its own threads anyway.
#[cfg(feature = "parallel")]
pub(crate) const PARALLEL_MIN_SAMPLES: usize = 32 * 1024;

/// Whether a grid of `samples` is worth filling on the pool (see [`PARALLEL_MIN_SAMPLES`]).
#[cfg(feature = "parallel")]
#[inline]
pub(crate) fn worth_parallel(samples: usize) -> bool {
    samples >= PARALLEL_MIN_SAMPLES
}

/// [`skew_2d`] of every point `(x · scale, py)` of the row: the first corner `[i, j]` of its
/// simplex and the offset `[x0, y0]` from it (the outputs at least as long as `xs`). Shared by
/// the heights' and the gradients' row paths, so both give the point path's bits.
#[inline(always)]
pub(crate) fn skew_row(xs: &[f64], scale: f64, py: f64, [i, j]: [&mut [i32]; 2], [x0, y0]: [&mut [f32]; 2]) {
    let outputs = i.iter_mut().zip(j).zip(x0.iter_mut().zip(y0));
    if py.abs() <= COORDINATE_LIMIT && row_in_range(xs, scale) {
        for (&x, ((i, j), (x0, y0))) in xs.iter().zip(outputs) {
            // SAFETY: `py` is in range (checked just above, which fails for NaN) and so is every
            // `x · scale` of the row (see `row_in_range`).
            (*i, *j, *x0, *y0) = unsafe { skew_2d_in_range(x * scale, py) };
        }
    } else {
        for (&x, ((i, j), (x0, y0))) in xs.iter().zip(outputs) {
            (*i, *j, *x0, *y0) = skew_2d(x * scale, py);
        }
    }
}

/// Splits every `x · scale` of a row into its cell (`i0`, and `i1`, its right neighbour, on a
/// periodic lattice) and its fraction, with the point path's operations. Without a period the
/// loop vectorises (`i1` is then `i0 + 1` and not written); periodic lattices wrap per pixel.
#[inline(always)]
pub(crate) fn split_row(
    xs: &[f64],
    scale: f64,
    period: Option<u32>,
    [i0, i1]: [&mut [i32]; 2],
    fx: &mut [f32],
) {
    match period {
        None if row_in_range(xs, scale) => {
            for ((&x, i0), fx) in xs.iter().zip(i0).zip(fx) {
                // SAFETY: every `x · scale` of the row is in range and not NaN (`row_in_range`).
                (*i0, *fx) = unsafe { split_in_range(x * scale) };
            }
        }
        None => {
            for ((&x, i0), fx) in xs.iter().zip(i0).zip(fx) {
                (*i0, *fx) = split(x * scale);
            }
        }
        period => {
            for (i, &x) in xs.iter().enumerate() {
                let cell = AxisCell::new(x * scale, period);
                (i0[i], i1[i], fx[i]) = (cell.i0, cell.i1, cell.f);
            }
        }
    }
}

/// Whether every `x · scale` of the row is within `±COORDINATE_LIMIT` and none is NaN, from its
/// two ends. Why the ends decide, for any pixel spacing:
///
/// `xs[i] = ((origin + i) / ppu + offset) · frequency`, with `origin + i` exact integers rising
/// with `i`, `offset` finite and `frequency` and `scale` finite and positive (clamped settings).
/// IEEE rounding is monotone, so for a finite non-zero `ppu` (positive or negative) the row is
/// monotone: rising or falling, every value lies between the two ends. `ppu = ±inf` makes every
/// quotient 0 (the numerators are finite): a constant row. `ppu = ±0` makes every quotient
/// infinite except `0 / 0 = NaN`; a row that holds that pixel and others has infinite ends,
/// and one that holds only it has a NaN end, so the check fails either way. NaN `ppu` makes
/// every value NaN. In every case where both ends pass, every pixel lies between them.
#[inline(always)]
fn row_in_range(xs: &[f64], scale: f64) -> bool {
    let ends = [xs[0] * scale, xs[xs.len() - 1] * scale];
    ends.iter().all(|v| v.abs() <= COORDINATE_LIMIT)
}

/// The end of the run of equal cells that starts at `start`. Without a period the cells never
/// decrease along a row, so the run's end is found by galloping and bisection instead of a
/// pixel-by-pixel scan (long runs at low octaves).
#[inline(always)]
pub(crate) fn run_end(cells: &[i32], start: usize, sorted: bool) -> usize {
    let cell = cells[start];
    if !sorted {
        return start + 1 + cells[start + 1..].iter().take_while(|&&c| c == cell).count();
    }
    let (mut lo, mut step) = (start + 1, 1);
    let hi = loop {
        let probe = start + step;
        if probe >= cells.len() || cells[probe] != cell {
            break probe.min(cells.len());
        }
        lo = probe + 1;
        step *= 2;
    };
    lo + cells[lo..hi].partition_point(|&c| c == cell)
}
