//! What the heights' and the gradients' row paths share: where a grid lies ([`GridWindow`]),
//! when rows go to the thread pool, and the per-row lattice work (cells, runs, simplex skews)
//! done with the point path's operations so that both paths give its bits.

use crate::field::basis::Lattice;
use crate::field::basis::simplex::{SkewAxis, skew_cells};
use crate::field::coord::{AxisCell, COORDINATE_LIMIT, split, split_in_range};

/// Where a grid lies in map units: pixel `(i, j)` is at `((origin.x + i) / ppu, (origin.y + j) / ppu)`.
///
/// ```
/// use noise_terrain_core::{FieldSampler, GridWindow, NoiseSettings, fill_grid};
///
/// let settings = NoiseSettings::default();
/// // 64 × 32 samples, 64 pixels per map unit, starting at pixel (128, 0): the field on
/// // x in [2, 3), y in [0, 0.5).
/// let window = GridWindow { origin: [128, 0], width: 64, height: 32, pixels_per_unit: 64.0 };
/// let mut heights = vec![0.0; 64 * 32];
/// fill_grid(&settings.sampler(), window, &mut heights);
/// assert_eq!(heights[0], settings.sample(2.0, 0.0)); // bit for bit the point path
/// ```
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

/// Narrow grids whose rows come in batches (simplex rows, and value and gradient noise's SIMD
/// rows: whole rows streamed through the kernels' blocks) are filled this many pixels at a time.
const BATCH_PIXELS: usize = 1024;

/// Whole rows of a grid `width × height` per batch: as many as fit in [`BATCH_PIXELS`], spread
/// evenly over the batches (65 rows: five batches of 13), at least one.
pub(crate) fn batch_of(width: usize, height: usize) -> usize {
    if height == 0 {
        return 1;
    }
    let most = (BATCH_PIXELS / width.max(1)).clamp(1, height);
    height.div_ceil(height.div_ceil(most))
}

/// Which row segment of a grid, at which scale, cells split along x are for: the segment's two
/// ends' bits, its length and the scale's bits. Within a grid these tell its segments apart:
/// positions are monotone along a row, so two segments of one length with the same ends hold the
/// same positions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowKey(u64, u64, usize, u64);

impl RowKey {
    /// The key of the x positions `xs` (not empty) at `scale`.
    #[inline(always)]
    pub(crate) fn new(xs: &[f64], scale: f64) -> Self {
        Self(xs[0].to_bits(), xs[xs.len() - 1].to_bits(), xs.len(), scale.to_bits())
    }
}

/// A row segment's cells along x at one octave of a value, gradient or Worley lattice, the same
/// for every row of a grid: split by the first row and kept for the next ones (keyed by
/// [`RowKey`], so that the segments of a very wide grid each have their own). Shared by the
/// heights' and the gradients' row paths: cell indices (`i1` the right neighbours, on a periodic
/// lattice), fractions, faded weights and their slopes, each as long as the segment and the
/// padding [`split`](Self::split) was asked for.
#[derive(Default)]
pub(crate) struct XCells {
    /// The row segment and scale they are for, and the padding.
    key: Option<(RowKey, usize)>,
    pub(crate) i0: Vec<i32>,
    pub(crate) i1: Vec<i32>,
    pub(crate) fx: Vec<f32>,
    pub(crate) u: Vec<f32>,
    pub(crate) du: Vec<f32>,
}

impl XCells {
    /// Forgets what the cells were for (kept buffers, to be made again): for a scratch kept from one
    /// grid to the next.
    pub(crate) fn forget(&mut self) {
        self.key = None;
    }

    /// Splits every `x · scale` of the segment into its cell of `lattice`, fraction, faded weight
    /// and slope, with `padding` elements past the segment's end (its first ones again), unless
    /// the cells are this segment's already.
    #[inline(always)]
    pub(crate) fn split(&mut self, xs: &[f64], scale: f64, lattice: &Lattice, padding: usize) {
        let (width, key) = (xs.len(), Some((RowKey::new(xs, scale), padding)));
        if self.key == key {
            return;
        }
        self.key = key;
        for v in [&mut self.fx, &mut self.u, &mut self.du] {
            v.resize(width + padding, 0.0);
        }
        for v in [&mut self.i0, &mut self.i1] {
            v.resize(width + padding, 0);
        }
        split_row(xs, scale, lattice.period, [&mut self.i0, &mut self.i1], &mut self.fx);
        let (fx, u, du) = (&self.fx[..width], &mut self.u[..width], &mut self.du[..width]);
        lattice.fade.apply_and_derivative_slice(fx, u, du);
        // The padding: the segment's first cells again (see `column_table::Row`).
        for k in width..width + padding {
            let from = (k - width) % width;
            (self.i0[k], self.i1[k]) = (self.i0[from], self.i1[from]);
            (self.fx[k], self.u[k], self.du[k]) = (self.fx[from], self.u[from], self.du[from]);
        }
    }
}

/// A row segment's cells along x at one octave with their shares of the simplex skew
/// ([`SkewAxis`], by component), the same for every row of a grid: [`SkewXs::split`] computes
/// them (in `f64`), [`SkewXs::skew`] a row's skew from them (in `f32`). Shared by the heights'
/// and the gradients' row paths, so both give the point path's bits ([`skew_2d`]).
///
/// [`skew_2d`]: crate::field::basis::simplex::skew_2d
#[derive(Default)]
pub(crate) struct SkewXs {
    /// The row they are for (see [`RowKey`]).
    key: Option<RowKey>,
    cell_and_floor: Vec<i32>,
    floor: Vec<i32>,
    fx: Vec<f32>,
    fraction: Vec<f32>,
    unskew: Vec<f32>,
}

impl SkewXs {
    /// Forgets what the cells were for (kept buffers, to be made again): for a scratch kept from one
    /// grid to the next.
    pub(crate) fn forget(&mut self) {
        self.key = None;
    }

    /// Splits every `x · scale` of the row into its cell, fraction and share of the skew, unless
    /// they are this row's already (see `key`).
    #[inline(always)]
    pub(crate) fn split(&mut self, xs: &[f64], scale: f64) {
        let width = xs.len();
        let key = Some(RowKey::new(xs, scale));
        if self.key == key {
            return;
        }
        self.key = key;
        self.cell_and_floor.resize(width, 0);
        self.floor.resize(width, 0);
        self.fx.resize(width, 0.0);
        self.fraction.resize(width, 0.0);
        self.unskew.resize(width, 0.0);
        // The cells land in `cell_and_floor` (an unbounded lattice writes no right neighbours).
        split_row(xs, scale, None, [&mut self.cell_and_floor, &mut self.floor], &mut self.fx);
        let shares = self.floor.iter_mut().zip(&mut self.fraction).zip(&mut self.unskew);
        for (cell, ((floor, fraction), unskew)) in self.cell_and_floor.iter_mut().zip(shares) {
            let share = SkewAxis::new(*cell);
            (*cell, *floor, *fraction, *unskew) =
                (share.cell_and_floor, share.floor, share.fraction, share.unskew);
        }
    }

    /// [`skew`](Self::skew) of several rows at once, one per y in `pys` (the octave's y), each
    /// into the outputs from `r · n` on for row `r` of `n` pixels (the outputs at least as long
    /// as all the rows).
    #[inline(always)]
    pub(crate) fn skew_rows(
        &self,
        pys: impl IntoIterator<Item = f64>,
        [i, j]: [&mut [i32]; 2],
        [x0, y0]: [&mut [f32]; 2],
    ) {
        let n = self.fx.len();
        for (r, py) in pys.into_iter().enumerate() {
            let at = r * n;
            self.skew(py, [&mut i[at..], &mut j[at..]], [&mut x0[at..], &mut y0[at..]]);
        }
    }

    /// [`skew_2d`](crate::field::basis::simplex::skew_2d) of every point `(x · scale, py)` of the
    /// row [`split`](Self::split) was given: the first corner `[i, j]` of its simplex and the
    /// offset `[x0, y0]` from it (the outputs at least as long as the row).
    #[inline(always)]
    pub(crate) fn skew(&self, py: f64, [i, j]: [&mut [i32]; 2], [x0, y0]: [&mut [f32]; 2]) {
        let (cy, fy) = split(py);
        let y = SkewAxis::new(cy);
        let n = self.fx.len();
        let shares = self.cell_and_floor.iter().zip(&self.floor).zip(self.fraction.iter().zip(&self.unskew));
        let outputs = i[..n].iter_mut().zip(&mut j[..n]).zip(x0[..n].iter_mut().zip(&mut y0[..n]));
        for (((&cell_and_floor, &floor), (&fraction, &unskew)), (&fx, ((i, j), (x0, y0)))) in
            shares.zip(self.fx.iter().zip(outputs))
        {
            let x = SkewAxis { cell_and_floor, floor, fraction, unskew };
            (*i, *j, *x0, *y0) = skew_cells(x, fx, y, fy);
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
