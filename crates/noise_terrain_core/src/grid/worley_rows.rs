//! Worley noise's row path: each pixel's nearest feature points from the cells around it, the
//! points of a row of cells kept for the rows of pixels in it.

use super::*;

/// At the baseline level, Worley noise in cells narrower than this many pixels takes the
/// per-pixel path
/// ([`worley_per_pixel`]): the run path's cache of feature points pays for itself only over long
/// runs, and where cells are narrower than pixels it was rebuilt for every pixel (a 65² grid of
/// 5-octave fBm took 1.8 ms, 0.15 ms now). 16 measured best on a Zen 4 EPYC at 65², 129² and
/// 1024² (1.2x to 1.4x over 32 at 1024²; 4 and 8 slower).
pub(super) const WORLEY_PER_PIXEL_BELOW: usize = 16;

/// [`WORLEY_PER_PIXEL_BELOW`] with AVX2 or AVX-512, whose per-pixel search reads the row's
/// feature points from a table instead of hashing them per pixel. Measured on a Zen 4 EPYC at 1024²:
/// fBm of 5 octaves 1.2x to 1.5x faster than with the portable threshold; at 128-pixel cells the
/// run path is still a little ahead.
pub(super) const WORLEY_TABLE_BELOW: usize = 64;

/// One octave of Worley noise over a row of short runs (an unbounded lattice, cells `scratch.i0`
/// and fractions `scratch.fx` of the first `width` pixels, the row's cell and fraction `(iy, fy)`):
/// F1, F2 (orderings) and the nearest point's hash into `scratch.f1`, `f2` and `nearest`. Every
/// pixel searches its own 3×3 block in one loop that vectorises, then the farther cells if it
/// still needs them: the point path's cells in its order, so its bits.
#[inline(always)]
pub(super) fn worley_per_pixel(
    (search, isa): (&WorleySearch, Isa),
    lattice: &Lattice,
    (iy, fy): (i32, f32),
    cells: (&[i32], &[f32]),
    out: (&mut [f32], &mut [f32], &mut [u32]),
    #[cfg(target_arch = "x86_64")] columns: &mut super::kernels::worley::WorleyColumns,
) {
    // With AVX2 and AVX-512 the 3×3 blocks are searched from a table of the row's feature points.
    #[cfg(target_arch = "x86_64")]
    let near_done = isa != Isa::BASELINE && {
        let worley = (lattice.seed, search.jitter, search.worley.metric);
        let out = (&mut *out.0, &mut *out.1, &mut *out.2);
        super::lanes::with_lanes!(isa, |s| {
            super::kernels::worley::worley_near_cells(s, worley, (iy, fy), cells, columns, out)
        });
        true
    };
    #[cfg(not(target_arch = "x86_64"))]
    let near_done = {
        let _ = isa;
        false
    };
    #[inline(always)]
    pub(super) fn with(
        search: &WorleySearch,
        lattice: &Lattice,
        (iy, fy): (i32, f32),
        measure: impl Fn(f32, f32) -> f32,
        ((i0, fx), near_done): ((&[i32], &[f32]), bool),
        (f1, f2, nearest): (&mut [f32], &mut [f32], &mut [u32]),
    ) {
        let (seed, jitter) = (lattice.seed, search.jitter);
        // The distance from a pixel (cell `ix`, fraction `fx`) to the feature point of the cell
        // `(dx, dy)` away, with `column_point`'s operations, and that cell's hash. `lattice.wrap`
        // of an unbounded lattice truncates the sum to `i32`, and the spread is a product modulo
        // 2³², so `spread_x(ix + dx)` is `spread_x(ix) + spread_x(dx)`: one product per pixel.
        let rows: [u32; 3] = std::array::from_fn(|k| spread_y(iy.wrapping_add(k as i32 - 1)));
        let point = |sx: u32, fx: f32, (dx, dy): (i32, i32), row: u32| {
            let h = hash2_spread(sx.wrapping_add(spread_x(dx)), row, seed);
            let y = dy as f32 + feature(h, 1, jitter) - fy;
            (measure(dx as f32 + feature(h, 0, jitter) - fx, y), h)
        };
        // The 3×3 block in the pixel loop, unless the AVX-512 search did it.
        if !near_done {
            for (((&ix, &fx), (f1, f2)), n) in
                i0.iter().zip(fx).zip(f1.iter_mut().zip(f2.iter_mut())).zip(nearest.iter_mut())
            {
                let sx = spread_x(ix);
                let (mut a, mut b, mut h) = (f32::INFINITY, f32::INFINITY, 0);
                // The 3×3 block in `search_order_2d`'s order, written out so that the pixel loop
                // around it vectorises.
                macro_rules! cells {
                    ($(($dx:literal, $dy:literal)),*) => {$(
                        let (d, hash) = point(sx, fx, ($dx, $dy), rows[($dy + 1) as usize]);
                        offer(&mut a, &mut b, &mut h, d, hash);
                    )*};
                }
                cells!((-1, -1), (0, -1), (1, -1), (-1, 0), (0, 0), (1, 0), (-1, 1), (0, 1), (1, 1));
                (*f1, *f2, *n) = (a, b, h);
            }
        }
        // The pixels that still need the farther cells (few: a feature point within one cell
        // of the pixel is likely) take them one by one, as the point path does.
        // A copy of the settings, which the outputs written below cannot alias: the return type
        // `deciding` reads is then loaded once, not per pixel. Most rows have no pixel that needs
        // the farther cells, which a count that vectorises finds (a plain loop: the iterators'
        // `filter(..).count()` was once compiled apart from the level, a sixth of a grid's time).
        let (r, worley) = (search.radius, search.worley);
        let far = |f1: f32, f2: f32| deciding(&worley, f1, f2) > FARTHER_CELLS_AT_LEAST;
        let mut farther = 0usize;
        for (&a, &b) in f1.iter().zip(&*f2) {
            farther += usize::from(far(a, b));
        }
        if r == 1 || farther == 0 {
            return;
        }
        for (((&ix, &fx), (f1, f2)), n) in
            i0.iter().zip(fx).zip(f1.iter_mut().zip(f2.iter_mut())).zip(nearest.iter_mut())
        {
            if far(*f1, *f2) {
                let sx = spread_x(ix);
                for (dx, dy) in search_order_2d(r).skip(9) {
                    let row = spread_y(iy.wrapping_add(dy as i32));
                    let (d, hash) = point(sx, fx, (dx as i32, dy as i32), row);
                    offer(f1, f2, n, d, hash);
                }
            }
        }
    }
    // The metric is matched outside the loops so that each one vectorises.
    use DistanceMetric::*;
    match search.worley.metric {
        Euclidean => {
            with(search, lattice, (iy, fy), |x, y| Euclidean.ordering(&[x, y]), (cells, near_done), out)
        }
        EuclideanSquared => {
            with(search, lattice, (iy, fy), |x, y| EuclideanSquared.measure(&[x, y]), (cells, near_done), out)
        }
        Manhattan => {
            with(search, lattice, (iy, fy), |x, y| Manhattan.measure(&[x, y]), (cells, near_done), out)
        }
        Chebyshev => {
            with(search, lattice, (iy, fy), |x, y| Chebyshev.measure(&[x, y]), (cells, near_done), out)
        }
    }
}

/// Worley's feature points of every column a row of pixels searches at one octave, computed for
/// the first pixel row in a row of cells and kept for the next ones in it (at the first octaves a
/// row of cells spans dozens of pixel rows); each point's y before the query's fraction is
/// subtracted.
#[derive(Default)]
pub(super) struct WorleyBand {
    /// Seed, period, jitter (bits), row of cells, first and last column searched.
    pub(super) key: Option<(u32, Option<u32>, u32, i32, i64, i64)>,
    /// Column-major from the first column, `2r + 1` points per column (rows `-r..=r`).
    pub(super) points: Vec<(f32, f32, u32)>,
}

impl WorleyBand {
    /// Forgets what the feature points were for (kept buffers, to be made again): for a scratch kept from one
    /// grid to the next.
    pub(crate) fn forget(&mut self) {
        self.key = None;
    }

    /// Makes the band hold the columns around cells `first..=last` of row `iy`, unless it does
    /// already; false (and nothing computed) when the row crosses more cells than it has pixels
    /// (a grid coarser than the lattice), where a band would cost more than it saves.
    #[inline(always)]
    pub(super) fn prepare(
        &mut self,
        search: &WorleySearch,
        lattice: &Lattice,
        iy: i32,
        (first, last): (i64, i64),
        pixels: usize,
    ) -> bool {
        let r = search.radius;
        if last - first > pixels as i64 + 2 {
            return false;
        }
        let key = (lattice.seed, lattice.period, search.jitter.to_bits(), iy, first - r, last + r);
        if self.key != Some(key) {
            self.points.clear();
            for x in first - r..=last + r {
                self.points
                    .extend((-r..=r).map(|dy| column_point_in_row(lattice, x, (iy, dy), search.jitter)));
            }
            self.key = Some(key);
        }
        true
    }

    /// The points of column `x`, if it is in the prepared range.
    #[inline(always)]
    pub(super) fn column(&self, x: i64, r: i64) -> Option<&[(f32, f32, u32)]> {
        let n = (2 * r + 1) as usize;
        let at = usize::try_from(x - self.key?.4).ok()? * n;
        self.points.get(at..at + n)
    }
}

/// The Worley feature points of the columns around the current cell, kept in
/// `RowScratch::columns` (column-major): moving one cell right drops one column and adds one.
pub(super) struct WorleyColumns {
    /// Absolute x of the first cached column.
    pub(super) first: i64,
}

impl WorleyColumns {
    /// Brings the cache to the neighbourhood of cell `(x, (y, fy))` and writes the candidate
    /// points of its 3×3 block to `RowScratch::candidates` ([`search_order_2d`]'s first nine).
    #[inline(always)]
    pub(super) fn update(
        &mut self,
        search: &WorleySearch,
        lattice: &Lattice,
        (x, (y, fy)): (i32, (i32, f32)),
        band: Option<&WorleyBand>,
        scratch: &mut RowScratch,
    ) {
        let (r, jitter) = (search.radius, search.jitter);
        let n = (2 * r + 1) as usize;
        let wanted = x as i64 - r;
        // From the band (the row's points, `column_point`'s bits: the same y minus `fy`), or hashed.
        let column = |x: i64, out: &mut Vec<(f32, f32, u32)>| match band.and_then(|b| b.column(x, r)) {
            Some(points) => out.extend(points.iter().map(|&(inside, y, h)| (inside, y - fy, h))),
            None => out.extend((-r..=r).map(|dy| column_point(lattice, x, (y, dy), jitter, fy))),
        };
        if wanted == self.first.wrapping_add(1) && scratch.columns.len() == n * n {
            scratch.columns.drain(..n);
            column(wanted + n as i64 - 1, &mut scratch.columns);
        } else if wanted != self.first || scratch.columns.len() != n * n {
            scratch.columns.clear();
            for c in 0..n as i64 {
                column(wanted + c, &mut scratch.columns);
            }
        }
        self.first = wanted;
        scratch.candidates.clear();
        push_candidates(&scratch.columns, r, search_order_2d(r).take(9), &mut scratch.candidates);
    }
}

/// Appends the cached points of `cells` (offsets from the current cell, for search radius `r`) to
/// `candidates`, as offsets along x from the current cell's left edge.
#[inline(always)]
pub(super) fn push_candidates(
    columns: &[(f32, f32, u32)],
    r: i64,
    cells: impl Iterator<Item = (i64, i64)>,
    candidates: &mut Vec<(f32, f32, u32)>,
) {
    let n = (2 * r + 1) as usize;
    for (dx, dy) in cells {
        let (inside, cy, h) = columns[(dx + r) as usize * n + (dy + r) as usize];
        candidates.push((dx as f32 + inside, cy, h));
    }
}

/// F1, F2 (as orderings) and the nearest point's hash for the pixels `run` of the row, in
/// [`search_order_2d`]'s order: the 3×3 block for every pixel, then the farther cells for the
/// whole run if any pixel still needs them (their points are fetched only then; offering them
/// to a pixel that does not need them changes nothing it uses, so the result is the point path's).
#[inline(always)]
pub(super) fn nearest_points(search: &WorleySearch, scratch: &mut RowScratch, run: std::ops::Range<usize>) {
    #[inline(always)]
    pub(super) fn with(
        search: &WorleySearch,
        measure: impl Fn(f32, f32) -> f32,
        scratch: &mut RowScratch,
        run: std::ops::Range<usize>,
    ) {
        let RowScratch { candidates, columns, fx, f1, f2, nearest, .. } = scratch;
        let (fx, f1, f2, nearest) =
            (&fx[run.clone()], &mut f1[run.clone()], &mut f2[run.clone()], &mut nearest[run]);
        let block: &[(f32, f32, u32); 9] = candidates[..].try_into().expect("the 3×3 block");
        // The candidate loop unrolls and the pixel loop keeps F1, F2 in registers.
        for (((&fx, f1), f2), n) in fx.iter().zip(f1.iter_mut()).zip(f2.iter_mut()).zip(nearest.iter_mut()) {
            let (mut a, mut b, mut h) = (f32::INFINITY, f32::INFINITY, 0);
            for &(cx, cy, ch) in block {
                offer(&mut a, &mut b, &mut h, measure(cx - fx, cy), ch);
            }
            (*f1, *f2, *n) = (a, b, h);
        }
        let (r, worley) = (search.radius, &search.worley);
        if r == 1 || f1.iter().zip(&*f2).all(|(&a, &b)| deciding(worley, a, b) <= FARTHER_CELLS_AT_LEAST) {
            return;
        }
        push_candidates(columns, r, search_order_2d(r).skip(9), candidates);
        for &(cx, cy, h) in &candidates[9..] {
            for (((&fx, f1), f2), n) in
                fx.iter().zip(f1.iter_mut()).zip(f2.iter_mut()).zip(nearest.iter_mut())
            {
                offer(f1, f2, n, measure(cx - fx, cy), h);
            }
        }
    }
    // The metric is matched outside the loops so that each one vectorises.
    use DistanceMetric::*;
    match search.worley.metric {
        Euclidean => with(search, |x, y| Euclidean.ordering(&[x, y]), scratch, run),
        EuclideanSquared => with(search, |x, y| EuclideanSquared.measure(&[x, y]), scratch, run),
        Manhattan => with(search, |x, y| Manhattan.measure(&[x, y]), scratch, run),
        Chebyshev => with(search, |x, y| Chebyshev.measure(&[x, y]), scratch, run),
    }
}

/// Worley's layer values in `[-1, 1]` from F1, F2 (orderings) and the nearest hashes, the return
/// type matched outside the loop so that each loop vectorises.
#[inline(always)]
pub(super) fn finish_worley(search: &WorleySearch, f1: &[f32], f2: &[f32], nearest: &[u32], out: &mut [f32]) {
    #[inline(always)]
    pub(super) fn run(
        rt: WorleyReturn,
        metric: DistanceMetric,
        bounds: (f32, f32),
        f1: &[f32],
        f2: &[f32],
        nearest: &[u32],
        out: &mut [f32],
    ) {
        for (((o, &f1), &f2), &h) in out.iter_mut().zip(f1).zip(f2).zip(nearest) {
            *o = rt.finish(bounds, metric.from_ordering(f1), metric.from_ordering(f2), h) * 2.0 - 1.0;
        }
    }
    let (bounds, metric) = (search.bounds, search.worley.metric);
    match search.worley.return_type {
        WorleyReturn::F1 => run(WorleyReturn::F1, metric, bounds, f1, f2, nearest, out),
        WorleyReturn::F2 => run(WorleyReturn::F2, metric, bounds, f1, f2, nearest, out),
        WorleyReturn::F2MinusF1 => run(WorleyReturn::F2MinusF1, metric, bounds, f1, f2, nearest, out),
        WorleyReturn::Cell => run(WorleyReturn::Cell, metric, bounds, f1, f2, nearest, out),
    }
}
