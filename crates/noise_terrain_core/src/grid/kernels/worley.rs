//! Worley noise's search of the 3×3 cells around each pixel of a row (see the module above).

use super::{mix, registers_spanning, unit_value};
use crate::field::basis::DistanceMetric;
use crate::field::hash::{PRIME_X, spread_seed, spread_x, spread_y};
use crate::grid::column_table::{ColumnTable, plane_offset};
use crate::grid::lanes::{Lanes, array, inlined, map};

/// Worley noise's search of each pixel's 3×3 block of cells, in `search_order_2d`'s order with
/// `offer`'s operations: F1, F2 (orderings of `metric`) and the nearest point's hash into `f1`,
/// `f2` and `nearest` for every pixel `k < f1.len()` (cell `x0[k]`, fraction `fx[k]`, the row's
/// cell and fraction `(iy, fy)`; an unbounded lattice, cells monotone along the row). The feature
/// points of the row's three rows of cells are computed once per column into `columns`, which a
/// block of pixels reads from the registers its cells and their neighbours span, up to
/// `ColumnTable::READ` columns (cells down to about a quarter of a pixel with 8 lanes, half a
/// pixel with 16); a block whose cells span more hashes its own. The farther cells (search
/// radius 2 and more) are the caller's.
pub(crate) fn worley_near_cells<S: Lanes>(
    s: S,
    (seed, jitter, metric): (u32, f32, DistanceMetric),
    (iy, fy): (i32, f32),
    (x0, fx): (&[i32], &[f32]),
    columns: &mut WorleyColumns,
    (f1, f2, nearest): (&mut [f32], &mut [f32], &mut [u32]),
) {
    use DistanceMetric::*;
    let out = (f1, f2, nearest);
    let near = (seed, jitter, (iy, fy), (x0, fx));
    // The metric is matched outside the pixel loop, as on the portable path.
    s.vectorize(inlined!(|| match metric {
        Euclidean | EuclideanSquared => {
            worley_near_with(s, inlined!(|x: S::F, y: S::F| x * x + y * y), near, columns, out)
        }
        Manhattan => worley_near_with(s, inlined!(|x, y| s.abs(x) + s.abs(y)), near, columns, out),
        // `max(max(0, |x|), |y|)`: the first `max` leaves `|x|` as it is.
        Chebyshev => worley_near_with(s, inlined!(|x, y| s.max(s.abs(x), s.abs(y))), near, columns, out),
    }))
}

/// [`worley_near_cells`] with the metric's ordering in lanes.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn worley_near_with<S: Lanes>(
    s: S,
    measure: impl Fn(S::F, S::F) -> S::F,
    (seed, jitter, (iy, fy), (x0, fx)): (u32, f32, (i32, f32), (&[i32], &[f32])),
    columns: &mut WorleyColumns,
    (f1, f2, nearest): (&mut [f32], &mut [f32], &mut [u32]),
) {
    let n = f1.len();
    assert!(
        x0.len() >= n && fx.len() >= n && f2.len() >= n && nearest.len() >= n,
        "inputs shorter than the row"
    );
    if n == 0 {
        return;
    }
    let rows: [S::I; 3] = array(inlined!(|k| {
        s.splat_i((spread_seed(seed) ^ spread_y(iy.wrapping_add(k as i32 - 1))) as i32)
    }));
    let prime_x = s.splat_i(PRIME_X as i32);
    let jitter_bits = jitter.to_bits();
    let (half, jitter, fy) = (s.splat(0.5), s.splat(jitter), s.splat(fy));
    // `feature(h, axis, jitter)`: `0.5 + (unit_value(bits) - 0.5) · jitter`.
    let feature = inlined!(|bits: S::I| half + (unit_value(s, bits) - half) * jitter);
    let second = s.splat_i(0x9E37_79B9u32 as i32);
    // The feature point of the cells at spread x `sx` in row `dy` (-1, 0, 1): its x inside the
    // cell, its y relative to the row of cells (`dy + y inside`; the search takes the pixel
    // row's `fy` from it) and the cell's hash.
    let point = inlined!(|sx: S::I, dy: usize| {
        let h = mix(s, sx ^ rows[dy]);
        let y = s.splat(dy as f32 - 1.0) + feature(mix(s, h + second));
        [feature(h), y, s.as_floats(h)]
    });
    // The row's columns: its cells and one more on each side.
    let first = x0[0].min(x0[n - 1]).wrapping_sub(1);
    let count = (i64::from(x0[0].max(x0[n - 1])) - i64::from(first) + 2) as usize;
    // A block reads the table where its cells and their neighbours span at most
    // `ColumnTable::READ` columns: worth building where cells are at least about `LANES / 29`
    // pixels wide on average.
    let tabled = (count - 3) * S::LANES <= n * 29;
    let stride = ColumnTable::stride(count);
    // The rows of pixels in one row of cells share the table: kept until another is needed.
    let key = Some((seed, jitter_bits, iy, first, count));
    if tabled && columns.key != key {
        columns.key = key;
        let columns = &mut columns.points;
        columns.resize(columns.len().max(9 * stride), 0.0);
        for c in (0..count).step_by(S::LANES) {
            let sx = (s.splat_i(first.wrapping_add(c as i32)) + s.iota()) * prime_x;
            for dy in 0..3 {
                let planes = point(sx, dy);
                for (k, &plane) in planes.iter().enumerate() {
                    // SAFETY: `(3 dy + k) · stride + c + LANES <= 9 · stride`, as
                    // `c < count <= stride - READ`.
                    unsafe { s.store(columns.as_mut_ptr().add((3 * dy + k) * stride + c), plane) };
                }
            }
        }
    }
    let mut at = 0;
    while at < n {
        let lanes = (n - at).min(S::LANES);
        // SAFETY: lanes `at..at + lanes` are within every input (asserted above).
        let (cell, fx) = unsafe { (s.load_first_i(x0, at, lanes), s.load_first(fx, at, lanes)) };
        let (a, b) = (x0[at], x0[at + lanes - 1]);
        let base = a.min(b);
        // Registers of the table the block's cells and their neighbours span (0: hashed).
        let registers =
            if tabled { registers_spanning::<S>(i64::from(a.max(b)) - i64::from(base) + 3) } else { 0 };
        // The points of cell (dx, dy) from each pixel's: from `R` registers of the table at the
        // block's first cell's left neighbour (the branch taken once per block, not per cell).
        let offset = plane_offset(base.wrapping_sub(1), first, count);
        let index = cell - s.splat_i(base) + s.splat_i(1);
        // Where plane `3 dy + k`'s entries for the block start: `offset + READ <= count + READ <=
        // stride`, so its reads stay within it (the block's columns lie within the row's).
        let plane = inlined!(|dy: usize, k: usize| columns
            .points
            .as_ptr()
            .wrapping_add((3 * dy + k) * stride + offset));
        // The 3×3 search with the points of cell (dx, dy) from `$point`, compiled once per way
        // to the points.
        macro_rules! search_with {
            (|$dx:ident, $dy:ident| $point:expr) => {
                search(s, &measure, (fx, fy), inlined!(|$dx: i32, $dy: usize| $point))
            };
        }
        let (best, second_best, hash) = match registers {
            1 => search_with!(|dx, dy| tabled_point::<S, 1>(s, plane, index, (dx, dy))),
            2 => search_with!(|dx, dy| tabled_point::<S, 2>(s, plane, index, (dx, dy))),
            3 => search_with!(|dx, dy| tabled_point::<S, 3>(s, plane, index, (dx, dy))),
            4 => search_with!(|dx, dy| tabled_point::<S, 4>(s, plane, index, (dx, dy))),
            _ => {
                let sx = cell * prime_x;
                search_with!(|dx, dy| point(sx + s.splat_i(spread_x(dx) as i32), dy))
            }
        };
        // SAFETY: lanes `at..at + lanes` are within the outputs.
        unsafe {
            s.store_first(f1, at, lanes, best);
            s.store_first(f2, at, lanes, second_best);
            s.store_first_u32(nearest, at, lanes, hash);
        }
        at += S::LANES;
    }
}

/// The 3×3 search of a block of pixels at fractions `fx` (the row's `fy`), the points of cell `(dx, dy)` (dx in
/// `-1..=1`, dy in `0..3`) from `cell_point`: F1, F2 and the nearest point's hash, in
/// `search_order_2d`'s order with `offer`'s operations.
#[inline(always)]
fn search<S: Lanes>(
    s: S,
    measure: &impl Fn(S::F, S::F) -> S::F,
    (fx, fy): (S::F, S::F),
    cell_point: impl Fn(i32, usize) -> [S::F; 3],
) -> (S::F, S::F, S::I) {
    let (mut best, mut second_best) = (s.splat(f32::INFINITY), s.splat(f32::INFINITY));
    let mut hash = s.splat_i(0);
    for dy in 0..3 {
        for dx in -1..=1 {
            let [inside, y, h] = cell_point(dx, dy);
            let d = measure(s.splat(dx as f32) + inside - fx, y - fy);
            // `offer` as minima: distances are never NaN nor -0.0, so `min(F2, max(F1, d))` and
            // `min(F1, d)` give its bits.
            let closer = s.lt(d, best);
            second_best = s.min(second_best, s.max(best, d));
            best = s.min(best, d);
            hash = s.select_i(closer, s.as_ints(h), hash);
        }
    }
    (best, second_best, hash)
}

/// The feature point of cell `(dx, dy)` of each pixel, x inside, y and hash, picked from `R`
/// registers of each plane `plane(dy, k)` by `index` (each pixel's cell from the first's left
/// neighbour).
#[inline(always)]
fn tabled_point<S: Lanes, const R: usize>(
    s: S,
    plane: impl Fn(usize, usize) -> *const f32,
    index: S::I,
    (dx, dy): (i32, usize),
) -> [S::F; 3] {
    let index = index + s.splat_i(dx);
    map(
        [0, 1, 2],
        inlined!(|k| {
            let from = plane(dy, k);
            // SAFETY: `plane`'s argument: `READ` entries from `from`, at least `R · LANES`.
            let registers: [S::F; R] = array(inlined!(|r| unsafe { s.load(from.add(S::LANES * r)) }));
            s.pick(&registers, index)
        }),
    )
}

/// The feature points of a row's three rows of cells over its lattice columns: nine planes
/// (x inside the cell, y from the middle row of cells, the hash; for each of the three rows),
/// kept while the next rows of pixels lie in the same row of cells (a cell `w` pixels tall
/// serves `w` rows of pixels).
#[derive(Default)]
pub(crate) struct WorleyColumns {
    /// What the points are of: the seed, the jitter's bits, the row of cells, the first column
    /// and the number of columns.
    key: Option<(u32, u32, i32, i32, usize)>,
    points: Vec<f32>,
}

impl WorleyColumns {
    /// Forgets what the feature points were for (kept buffers, to be made again): for a scratch kept from one
    /// grid to the next.
    pub(crate) fn forget(&mut self) {
        self.key = None;
    }
}
