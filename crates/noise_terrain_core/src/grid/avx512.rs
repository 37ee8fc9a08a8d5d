//! One octave of 2-D noise over a row, written for AVX-512, for every basis.
//!
//! Value and gradient noise: the portable row path looks each run's corners up once and blends
//! the run's pixels; at fine octaves the runs are a few pixels and that set-up per run is most of
//! the cost, while a pixel loop that hashes its own corners pays four hashes per pixel (and reads
//! the 64-entry gradient table one lane at a time). Here the corners of every lattice column the
//! row crosses are hashed once, sixteen columns at a time, into a table, and each block of sixteen
//! pixels picks its corners from the sixteen table entries at its first cell with one-register
//! permutes (AVX-512 holds the gradient table itself in eight registers and picks from it with
//! two-register permutes); where a block spans 16 to 31 cells, from 32 entries with two-register
//! permutes. Where a block spans more (cells narrower than about half a pixel), its pixels hash
//! their own corners. Worley noise's 3×3 search reads a table of the feature points of the row's
//! three rows of cells the same way; simplex noise picks its 16 gradients from one register, by
//! indices read from a table of the lattice points the octave's rows share ([`SimplexTable`]).
//!
//! The operations are those of the point path's functions ([`corner_gradient_2d`],
//! [`blend_gradients_2d`], [`blend_rounded_2d`], [`corner_value_2d`], [`blend_values_2d`],
//! `corners_2d`, `column_point`, `offer`) in the same order, with no fused multiply-add, so the
//! bits are the point path's (the grid's property tests compare every level with it).
//!
//! [`corner_gradient_2d`]: crate::field::basis::gradient::corner_gradient_2d
//! [`blend_gradients_2d`]: crate::field::basis::gradient_kernel::blend_gradients_2d
//! [`blend_rounded_2d`]: crate::field::basis::gradient_kernel::blend_rounded_2d
//! [`corner_value_2d`]: crate::field::basis::value::corner_value_2d
//! [`blend_values_2d`]: crate::field::basis::value::blend_values_2d

use std::arch::x86_64::*;

use crate::field::basis::DistanceMetric;
use crate::field::basis::gradient_kernel::{GradientKernel, ROUNDED_SCALE};
use crate::field::basis::gradient_table::GRADIENTS_2D_BY_COMPONENT;
use crate::field::basis::simplex;
use crate::field::coord::AxisCell;
use crate::field::hash::{PRIME_X, spread_seed, spread_x, spread_y};
use crate::grid::column_table::{ColumnTable, Row, plane_offset};

/// One octave's row of gradient noise into `out[k]` for every `k < out.len()` (the row's inputs
/// at least as long); `columns` is scratch.
#[target_feature(enable = "avx512f")]
pub(crate) fn gradient_row(
    seed: u32,
    kernel: GradientKernel,
    row: Row,
    columns: &mut ColumnTable,
    out: &mut [f32],
) {
    let table = Table::new();
    let blend = Blend::new(kernel, row.cy, row.v);
    let column = |sx: __m512i, row: __m512i| {
        let (x, y) = table.corner(sx, row);
        [x, y]
    };
    let pixel = |[x0, y0, x1, y1]: [__m512; 4], [x0n, y0n, x1n, y1n]: [__m512; 4], fx, u| {
        blend.at([(x0, y0), (x0n, y0n), (x1, y1), (x1n, y1n)], fx, u)
    };
    lattice_row(seed, row, (column, pixel), columns, out);
}

/// One octave's row of value noise, in `[-1, 1]` as the row path keeps it, into `out[k]` for
/// every `k < out.len()` (the row's inputs at least as long); `columns` is scratch.
#[target_feature(enable = "avx512f")]
pub(crate) fn value_row(seed: u32, row: Row, columns: &mut ColumnTable, out: &mut [f32]) {
    let v = _mm512_set1_ps(row.v);
    let column = |sx: __m512i, row: __m512i| [unit_value(mix(_mm512_xor_si512(sx, row)))];
    let pixel = |[v0, v1]: [__m512; 2], [v0n, v1n]: [__m512; 2], _fx, u| {
        let value = lerp(lerp(v0, v0n, u), lerp(v1, v1n, u), v);
        _mm512_sub_ps(_mm512_mul_ps(value, _mm512_set1_ps(2.0)), _mm512_set1_ps(1.0))
    };
    lattice_row(seed, row, (column, pixel), columns, out);
}

/// One octave's row of simplex noise from each pixel's skew (`skew_2d`: the first corner
/// `(i[k], j[k])` of its triangle and the offset `(x0[k], y0[k])` from it) into `out[k]` for every
/// `k < out.len()` (the inputs at least as long): [`corners_2d`]'s operations in lanes, the
/// gradients picked from a 16-entry table in one register. The corners' gradient indices come
/// from `table` (the lattice points of this row and the ones before it, hashed once) where a
/// block of sixteen pixels spans at most seven lattice columns and two lattice rows; other
/// blocks, and every block without a table, hash their own three corners.
///
/// [`corners_2d`]: crate::field::basis::simplex::corners_2d
#[target_feature(enable = "avx512f")]
pub(crate) fn simplex_row(
    seed: u32,
    (i, j): (&[i32], &[i32]),
    (x0, y0): (&[f32], &[f32]),
    mut table: Option<&mut SimplexTable>,
    out: &mut [f32],
) {
    let n = out.len();
    assert!(i.len() >= n && j.len() >= n && x0.len() >= n && y0.len() >= n, "inputs shorter than the row");
    if n == 0 {
        return;
    }
    // SAFETY: unaligned loads of 16 `f32` from arrays of 16.
    let [gx, gy] = simplex::GRADIENTS_BY_COMPONENT.map(|c| unsafe { _mm512_loadu_ps(c.as_ptr()) });
    let spread = spread_seed(seed);
    let seed = _mm512_set1_epi32(spread as i32);
    let (one_x, one_y) = (_mm512_set1_epi32(PRIME_X as i32), _mm512_set1_epi32(spread_y(1) as i32));
    let prime_y = one_y;
    let g2 = simplex::G2 as f32;
    let (zero, one, r0) = (_mm512_setzero_ps(), _mm512_set1_ps(1.0), _mm512_set1_ps(0.5));
    let (g2, g2x2) = (_mm512_set1_ps(g2), _mm512_set1_ps(2.0 * g2));
    // One corner's share from its gradient index `k`: the kernel `max(r0 - d², 0)⁴` times the
    // gradient's dot product.
    let corner = |k: __m512i, dx: __m512, dy: __m512| {
        let (gx, gy) = (_mm512_permutexvar_ps(k, gx), _mm512_permutexvar_ps(k, gy));
        let dot = _mm512_add_ps(_mm512_mul_ps(gx, dx), _mm512_mul_ps(gy, dy));
        let d2 = _mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy));
        let t = _mm512_max_ps(_mm512_sub_ps(r0, d2), zero);
        let t4 = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(t, t), t), t);
        _mm512_mul_ps(t4, dot)
    };
    let index = |h: __m512i| _mm512_srli_epi32::<28>(mix_to_last_step(_mm512_xor_si512(h, seed)));
    // The row's lattice points, from its two ends (the skew is monotone along a row).
    let span = |v: &[i32]| (v[0].min(v[n - 1]), v[0].max(v[n - 1]));
    let tabled = match table.as_deref_mut() {
        Some(table) => table.prepare(spread, span(i), span(j), n),
        None => false,
    };
    let table = table.filter(|_| tabled);
    let (step_x, step_y) = (_mm512_set1_epi32(1), _mm512_set1_epi32(SimplexTable::READ as i32));
    let mut at = 0;
    while at < n {
        let lanes = (n - at).min(16);
        let mask: __mmask16 = if lanes == 16 { !0 } else { (1u16 << lanes) - 1 };
        // SAFETY: lanes `at..at + lanes` are within every input (asserted above); the masked
        // loads touch no other lanes.
        let (ci, cj, x0, y0) = unsafe {
            (
                _mm512_maskz_loadu_epi32(mask, i.as_ptr().add(at).cast()),
                _mm512_maskz_loadu_epi32(mask, j.as_ptr().add(at).cast()),
                _mm512_maskz_loadu_ps(mask, x0.as_ptr().add(at)),
                _mm512_maskz_loadu_ps(mask, y0.as_ptr().add(at)),
            )
        };
        // The triangle: the middle corner is one step along x where `x0 > y0`, else along y.
        let upper = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(x0, y0);
        let (i1, j1) = (_mm512_mask_blend_ps(upper, zero, one), _mm512_mask_blend_ps(upper, one, zero));
        let (x1, y1) = (_mm512_add_ps(_mm512_sub_ps(x0, i1), g2), _mm512_add_ps(_mm512_sub_ps(y0, j1), g2));
        let (x2, y2) =
            (_mm512_add_ps(_mm512_sub_ps(x0, one), g2x2), _mm512_add_ps(_mm512_sub_ps(y0, one), g2x2));
        let last = at + lanes - 1;
        let block = (i[at].min(i[last]), i[at].max(i[last]), j[at].min(j[last]), j[at].max(j[last]));
        let read = table.as_deref().and_then(|t| t.read(block));
        let [k0, k1, k2] = match read {
            Some((near, far, (i_min, j_min))) => {
                // Each corner's place among the 24 entries read: eight per lattice row.
                let row = _mm512_sub_epi32(cj, _mm512_set1_epi32(j_min));
                let column = _mm512_sub_epi32(ci, _mm512_set1_epi32(i_min));
                let k0 = _mm512_add_epi32(_mm512_slli_epi32::<3>(row), column);
                let k1 = _mm512_add_epi32(k0, _mm512_mask_blend_epi32(upper, step_y, step_x));
                let k2 = _mm512_add_epi32(k0, _mm512_add_epi32(step_x, step_y));
                [k0, k1, k2].map(|k| _mm512_permutex2var_epi32(near, k, far))
            }
            None => {
                let (sx, sy) = (_mm512_mullo_epi32(ci, one_x), _mm512_mullo_epi32(cj, prime_y));
                let (sx1, sy1) = (_mm512_add_epi32(sx, one_x), _mm512_add_epi32(sy, one_y));
                let h1 = _mm512_xor_si512(
                    _mm512_mask_blend_epi32(upper, sx, sx1),
                    _mm512_mask_blend_epi32(upper, sy1, sy),
                );
                [_mm512_xor_si512(sx, sy), h1, _mm512_xor_si512(sx1, sy1)].map(index)
            }
        };
        let sum = _mm512_add_ps(_mm512_add_ps(corner(k0, x0, y0), corner(k1, x1, y1)), corner(k2, x2, y2));
        let value = _mm512_mul_ps(sum, _mm512_set1_ps(simplex::SCALE_2D));
        // `clamp(-1, 1)`, NaN passing through as in `Blend::at`.
        let value = _mm512_min_ps(one, _mm512_max_ps(_mm512_set1_ps(-1.0), value));
        // SAFETY: lanes `at..at + lanes` are within `out`; the masked store writes no others.
        unsafe { _mm512_mask_storeu_ps(out.as_mut_ptr().add(at), mask, value) };
        at += 16;
    }
}

/// The gradient indices (the top four bits of each corner's hash, as [`simplex_row`] picks its
/// gradients) of the simplex lattice points that rows of one octave read, kept from row to row:
/// neighbouring rows of pixels read nearly the same lattice points, so most are hashed once per
/// grid instead of three times per pixel. Lattice row `j` sits in slot `j mod slots`, with
/// columns `first..first + width`.
#[derive(Default)]
pub(crate) struct SimplexTable {
    /// The seed's spread the entries are for.
    seed: u32,
    first: i32,
    width: usize,
    /// The lattice row each slot holds, if any (a power of two of them).
    rows: Vec<Option<i32>>,
    entries: Vec<u8>,
}

impl SimplexTable {
    /// Entries a block reads per lattice row: seven columns of cells and their right neighbours.
    const READ: usize = 8;
    /// Columns kept on either side of a row's own, so that the next rows (whose lattice points
    /// drift along x) still fit.
    const SLACK: i64 = 8;

    /// Whether rows of `n` pixels whose triangles' first corners span `columns` read the table:
    /// only blocks spanning at most seven columns do, so where the row's blocks span five on
    /// average or more, most would hash their own corners anyway.
    pub(crate) fn serves(columns: (i32, i32), n: usize) -> bool {
        (i64::from(columns.1) - i64::from(columns.0) + 1) * 16 <= n as i64 * 5
    }

    /// Makes the table hold the lattice points of a row of `n` pixels whose triangles' first
    /// corners span `columns` and `rows`, keeping the lattice rows it holds already (a row of
    /// pixels needs about one new lattice row per pixel a cell is wide); false where the row's
    /// cells are too narrow for its blocks to read the table.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn prepare(&mut self, seed: u32, columns: (i32, i32), rows: (i32, i32), n: usize) -> bool {
        // Blocks read up to `READ` columns from their first and three rows from their first.
        let (left, right) = (i64::from(columns.0), i64::from(columns.1) + Self::READ as i64);
        let (top, bottom) = (i64::from(rows.0), i64::from(rows.1) + 2);
        let height = (bottom - top + 1) as usize;
        if !Self::serves(columns, n) {
            return false;
        }
        let held = i64::from(self.first)..i64::from(self.first) + self.width as i64;
        let fits = held.contains(&left) && held.contains(&right) && self.rows.len() >= height;
        if self.seed != seed || !fits {
            self.seed = seed;
            self.first = (left - Self::SLACK) as i32;
            self.width = ((right - left + 1 + 2 * Self::SLACK) as usize).next_multiple_of(16);
            self.rows.clear();
            self.rows.resize(height.next_power_of_two(), None);
            self.entries.resize(self.rows.len() * self.width, 0);
        }
        let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let (prime_x, spread) = (_mm512_set1_epi32(PRIME_X as i32), _mm512_set1_epi32(seed as i32));
        for row in top..=bottom {
            let (row, slot) = (row as i32, self.slot(row as i32));
            if self.rows[slot] == Some(row) {
                continue;
            }
            let sy = _mm512_xor_si512(_mm512_set1_epi32(spread_y(row) as i32), spread);
            for c in (0..self.width).step_by(16) {
                let cells = _mm512_add_epi32(_mm512_set1_epi32(self.first.wrapping_add(c as i32)), iota);
                let h = _mm512_xor_si512(_mm512_mullo_epi32(cells, prime_x), sy);
                let k = _mm512_cvtepi32_epi8(_mm512_srli_epi32::<28>(mix_to_last_step(h)));
                let at = slot * self.width + c;
                // SAFETY: `at + 16 <= (slot + 1) * width <= entries.len()`, as `width` is a
                // multiple of 16.
                unsafe { _mm_storeu_si128(self.entries.as_mut_ptr().add(at).cast(), k) };
            }
            self.rows[slot] = Some(row);
        }
        true
    }

    /// The slot of lattice row `row`.
    fn slot(&self, row: i32) -> usize {
        row as u32 as usize & (self.rows.len() - 1)
    }

    /// For a block whose first corners span columns `i_min..=i_max` and rows `j_min..=j_max`:
    /// the entries of its three lattice rows from column `i_min` (eight each: the first two rows
    /// in `near`, the third in `far`) and `(i_min, j_min)`; `None` where the block spans more
    /// than seven columns or two rows, or lies outside the table.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn read(
        &self,
        (i_min, i_max, j_min, j_max): (i32, i32, i32, i32),
    ) -> Option<(__m512i, __m512i, (i32, i32))> {
        let from = i64::from(i_min) - i64::from(self.first);
        let narrow =
            i64::from(i_max) - i64::from(i_min) < Self::READ as i64 - 1 && j_max.wrapping_sub(j_min) <= 1;
        if !narrow || from < 0 || from as usize + Self::READ > self.width {
            return None;
        }
        let rows = [j_min, j_min.wrapping_add(1), j_min.wrapping_add(2)];
        if rows.iter().any(|&row| self.rows[self.slot(row)] != Some(row)) {
            return None;
        }
        // SAFETY: each read is `READ` bytes from `slot * width + from`, within the slot's row
        // as `from + READ <= width` (checked above).
        let [a, b, c] = rows.map(|row| unsafe {
            _mm_loadl_epi64(self.entries.as_ptr().add(self.slot(row) * self.width + from as usize).cast())
        });
        let near = _mm512_cvtepu8_epi32(_mm_unpacklo_epi64(a, b));
        Some((near, _mm512_cvtepu8_epi32(c), (i_min, j_min)))
    }
}

/// Worley noise's search of each pixel's 3×3 block of cells, in [`search_order_2d`]'s order with
/// [`offer`]'s operations: F1, F2 (orderings of `metric`) and the nearest point's hash into `f1`,
/// `f2` and `nearest` for every pixel `k < f1.len()` (cell `x0[k]`, fraction `fx[k]`, the row's
/// cell and fraction `(iy, fy)`; an unbounded lattice, cells monotone along the row). The feature
/// points of the row's three rows of cells are computed once per column into `columns`, which a
/// block of sixteen pixels reads with one-register permutes where its cells span at most 13
/// columns and two-register ones up to 29 (cells down to about half a pixel); a block whose cells
/// span more hashes its own. The farther cells (search radius 2 and more) are the caller's.
///
/// [`search_order_2d`]: crate::field::basis::worley::search_order_2d
/// [`offer`]: crate::field::basis::worley::offer
#[target_feature(enable = "avx512f")]
pub(crate) fn worley_near_cells(
    (seed, jitter, metric): (u32, f32, DistanceMetric),
    (iy, fy): (i32, f32),
    (x0, fx): (&[i32], &[f32]),
    columns: &mut Vec<f32>,
    (f1, f2, nearest): (&mut [f32], &mut [f32], &mut [u32]),
) {
    use DistanceMetric::*;
    let squared = |x: __m512, y: __m512| _mm512_add_ps(_mm512_mul_ps(x, x), _mm512_mul_ps(y, y));
    let abs = |v: __m512| _mm512_abs_ps(v);
    let out = (f1, f2, nearest);
    // The metric is matched outside the pixel loop, as on the portable path.
    match metric {
        Euclidean | EuclideanSquared => {
            worley_near_with(squared, (seed, jitter), (iy, fy), (x0, fx), columns, out)
        }
        Manhattan => {
            let manhattan = |x, y| _mm512_add_ps(abs(x), abs(y));
            worley_near_with(manhattan, (seed, jitter), (iy, fy), (x0, fx), columns, out)
        }
        Chebyshev => {
            // `max(max(0, |x|), |y|)`: the first `max` leaves `|x|` as it is.
            let chebyshev = |x, y| _mm512_max_ps(abs(x), abs(y));
            worley_near_with(chebyshev, (seed, jitter), (iy, fy), (x0, fx), columns, out)
        }
    }
}

/// [`worley_near_cells`] with the metric's ordering in lanes.
#[inline]
#[target_feature(enable = "avx512f")]
fn worley_near_with(
    measure: impl Fn(__m512, __m512) -> __m512,
    (seed, jitter): (u32, f32),
    (iy, fy): (i32, f32),
    (x0, fx): (&[i32], &[f32]),
    columns: &mut Vec<f32>,
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
    let rows: [__m512i; 3] = std::array::from_fn(|k| {
        _mm512_set1_epi32((spread_seed(seed) ^ spread_y(iy.wrapping_add(k as i32 - 1))) as i32)
    });
    let prime_x = _mm512_set1_epi32(PRIME_X as i32);
    let (half, jitter, fy) = (_mm512_set1_ps(0.5), _mm512_set1_ps(jitter), _mm512_set1_ps(fy));
    // `feature(h, axis, jitter)`: `0.5 + (unit_value(bits) - 0.5) · jitter`.
    let feature =
        |bits: __m512i| _mm512_add_ps(half, _mm512_mul_ps(_mm512_sub_ps(unit_value(bits), half), jitter));
    let second = _mm512_set1_epi32(0x9E37_79B9u32 as i32);
    // The feature point of the cells at spread x `sx` in row `dy` (-1, 0, 1): its x inside the
    // cell, its y relative to the pixel row (`dy + y inside - fy`) and the cell's hash.
    let point = |sx: __m512i, dy: usize| {
        let h = mix(_mm512_xor_si512(sx, rows[dy]));
        let y = _mm512_add_ps(_mm512_set1_ps(dy as f32 - 1.0), feature(mix(_mm512_add_epi32(h, second))));
        [feature(h), _mm512_sub_ps(y, fy), _mm512_castsi512_ps(h)]
    };
    // The row's columns: its cells and one more on each side.
    let first = x0[0].min(x0[n - 1]).wrapping_sub(1);
    let count = (i64::from(x0[0].max(x0[n - 1])) - i64::from(first) + 2) as usize;
    // A block reads the table where its cells span at most 29 columns (with their neighbours, the
    // 32 entries of two registers; at most 13 fit one): worth building where cells are at least
    // about 16/29 pixels wide on average. Each plane has room for 32 entries past any column.
    let tabled = (count - 3) * 16 <= n * 29;
    let stride = count.next_multiple_of(16) + 32;
    if tabled {
        columns.resize(columns.len().max(9 * stride), 0.0);
        let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        for c in (0..count).step_by(16) {
            let cell = _mm512_add_epi32(_mm512_set1_epi32(first.wrapping_add(c as i32)), iota);
            let sx = _mm512_mullo_epi32(cell, prime_x);
            for dy in 0..3 {
                for (k, plane) in point(sx, dy).into_iter().enumerate() {
                    // SAFETY: `(3 dy + k) · stride + c + 16 <= 9 · stride`, as `c < count <= stride - 32`.
                    unsafe { _mm512_storeu_ps(columns.as_mut_ptr().add((3 * dy + k) * stride + c), plane) };
                }
            }
        }
    }
    let mut at = 0;
    while at < n {
        let lanes = (n - at).min(16);
        let mask: __mmask16 = if lanes == 16 { !0 } else { (1u16 << lanes) - 1 };
        // SAFETY: lanes `at..at + lanes` are within every input (asserted above); the masked
        // loads touch no other lanes.
        let (cell, fx) = unsafe {
            (
                _mm512_maskz_loadu_epi32(mask, x0.as_ptr().add(at).cast()),
                _mm512_maskz_loadu_ps(mask, fx.as_ptr().add(at)),
            )
        };
        let (a, b) = (x0[at], x0[at + lanes - 1]);
        let base = a.min(b);
        let span = i64::from(a.max(b)) - i64::from(base);
        // The points of cell (dx, dy) from each pixel's: from the 16 (or 32) columns of the table
        // at the block's first cell's left neighbour, or hashed.
        let (one_register, two_registers) = (tabled && span <= 13, tabled && span <= 29);
        let offset = plane_offset(base.wrapping_sub(1), first, count);
        let sx = _mm512_mullo_epi32(cell, prime_x);
        let cell_point = |dx: i32, dy: usize| {
            let index = || {
                _mm512_add_epi32(_mm512_sub_epi32(cell, _mm512_set1_epi32(base)), _mm512_set1_epi32(dx + 1))
            };
            // SAFETY: `offset + 32 <= count + 32 <= stride` in each plane (the block's columns lie
            // within the row's).
            let plane = |k: usize, half: usize| unsafe {
                _mm512_loadu_ps(columns.as_ptr().add((3 * dy + k) * stride + offset + 16 * half))
            };
            if one_register {
                let index = index();
                std::array::from_fn::<__m512, 3, _>(|k| _mm512_permutexvar_ps(index, plane(k, 0)))
            } else if two_registers {
                let index = index();
                std::array::from_fn::<__m512, 3, _>(|k| {
                    _mm512_permutex2var_ps(plane(k, 0), index, plane(k, 1))
                })
            } else {
                point(_mm512_add_epi32(sx, _mm512_set1_epi32(spread_x(dx) as i32)), dy)
            }
        };
        let (mut best, mut second_best) = (_mm512_set1_ps(f32::INFINITY), _mm512_set1_ps(f32::INFINITY));
        let mut hash = _mm512_setzero_si512();
        for dy in 0..3 {
            for dx in -1..=1 {
                let [inside, y, h] = cell_point(dx, dy);
                let d = measure(_mm512_sub_ps(_mm512_add_ps(_mm512_set1_ps(dx as f32), inside), fx), y);
                let closer = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(d, best);
                let nearer = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(d, second_best);
                second_best =
                    _mm512_mask_blend_ps(closer, _mm512_mask_blend_ps(nearer, second_best, d), best);
                best = _mm512_mask_blend_ps(closer, best, d);
                hash = _mm512_mask_blend_epi32(closer, hash, _mm512_castps_si512(h));
            }
        }
        // SAFETY: lanes `at..at + lanes` are within the outputs; the masked stores write no others.
        unsafe {
            _mm512_mask_storeu_ps(f1.as_mut_ptr().add(at), mask, best);
            _mm512_mask_storeu_ps(f2.as_mut_ptr().add(at), mask, second_best);
            _mm512_mask_storeu_epi32(nearest.as_mut_ptr().add(at).cast(), mask, hash);
        }
        at += 16;
    }
}

/// The row of a lattice basis with `Q` planes of values per lattice column and row of corners
/// (`P = 2Q`, the upper row's then the lower row's): `column(spread x, a row's share of the hash)`
/// gives sixteen columns' planes of one row of corners, and `pixel(the cell's left column, its
/// right column, fx, u)` blends them.
#[inline]
#[target_feature(enable = "avx512f")]
fn lattice_row<const Q: usize, const P: usize>(
    seed: u32,
    Row { x0, fx, u, cy, .. }: Row,
    (column, pixel): (
        impl Fn(__m512i, __m512i) -> [__m512; Q],
        impl Fn([__m512; P], [__m512; P], __m512, __m512) -> __m512,
    ),
    table: &mut ColumnTable,
    out: &mut [f32],
) {
    const { assert!(P == 2 * Q, "two rows of corners") };
    let n = out.len();
    assert!(x0.len() >= n && fx.len() >= n && u.len() >= n, "inputs shorter than the row");
    if n == 0 {
        return;
    }
    // `hash2(x, y, seed)` is `mix(spread_seed ^ spread_x(x) ^ spread_y(y))`: the rows' share of it.
    let rows = [spread_seed(seed) ^ spread_y(cy.i0), spread_seed(seed) ^ spread_y(cy.i1)];
    let rows = rows.map(|r| _mm512_set1_epi32(r as i32));
    let prime_x = _mm512_set1_epi32(PRIME_X as i32);
    // The row's columns: its cells and each one's right neighbour.
    let first = x0[0].min(x0[n - 1]);
    let count = (i64::from(x0[0].max(x0[n - 1])) - i64::from(first) + 2) as usize;
    // A block of 16 pixels reads the table where its cells and their right neighbours span at
    // most 32 columns (two registers; 16 fit one): worth building where cells are at least about
    // 16/30 pixels wide on average. Each plane has room for 32 entries past any column.
    let tabled = (count - 2) * 16 <= n * 30;
    if tabled {
        let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        for r in table.prepare(cy.i0, (first, count), Q) {
            for c in (0..count).step_by(16) {
                let cell = _mm512_add_epi32(_mm512_set1_epi32(first.wrapping_add(c as i32)), iota);
                for (q, plane) in column(_mm512_mullo_epi32(cell, prime_x), rows[r]).into_iter().enumerate() {
                    let at = table.start(r, (q, Q), count) + c;
                    // SAFETY: the plane starting at `at - c` holds `ColumnTable::stride(count)`
                    // entries and `c + 16 <= count + 15 < stride`.
                    unsafe { _mm512_storeu_ps(table.planes.as_mut_ptr().add(at), plane) };
                }
            }
        }
    }
    // Where plane `k` (the upper row's `Q`, then the lower row's) starts.
    let starts: [usize; P] = std::array::from_fn(|k| table.start(k / Q, (k % Q, Q), count));
    let columns = &table.planes;
    let one = _mm512_set1_epi32(1);
    let mut at = 0;
    while at < n {
        let lanes = (n - at).min(16);
        let mask: __mmask16 = if lanes == 16 { !0 } else { (1u16 << lanes) - 1 };
        // SAFETY: lanes `at..at + lanes` are within every input (asserted above); the masked
        // loads touch no other lanes.
        let (cell, fx, u) = unsafe {
            (
                _mm512_maskz_loadu_epi32(mask, x0.as_ptr().add(at).cast()),
                _mm512_maskz_loadu_ps(mask, fx.as_ptr().add(at)),
                _mm512_maskz_loadu_ps(mask, u.as_ptr().add(at)),
            )
        };
        // The block's first cell (its cells are monotone) and how many more it spans.
        let (a, b) = (x0[at], x0[at + lanes - 1]);
        let base = a.min(b);
        let span = i64::from(a.max(b)) - i64::from(base);
        let index = _mm512_sub_epi32(cell, _mm512_set1_epi32(base));
        let next = _mm512_add_epi32(index, one);
        let offset = plane_offset(base, first, count - 1);
        // SAFETY: `offset + 32 <= count - 1 + 32 <= ColumnTable::stride(count)` in each plane.
        let plane = |k: usize, half: usize| unsafe {
            _mm512_loadu_ps(columns.as_ptr().add(starts[k] + offset + 16 * half))
        };
        let (left, right) = if tabled && span < 15 {
            let planes: [__m512; P] = std::array::from_fn(|k| plane(k, 0));
            (planes.map(|p| _mm512_permutexvar_ps(index, p)), planes.map(|p| _mm512_permutexvar_ps(next, p)))
        } else if tabled && span < 31 {
            let planes: [(__m512, __m512); P] = std::array::from_fn(|k| (plane(k, 0), plane(k, 1)));
            let pick = |index| planes.map(|(low, high)| _mm512_permutex2var_ps(low, index, high));
            (pick(index), pick(next))
        } else {
            // `spread_x` of the pixel's cell and of the next one (`spread_x(1)` is the prime).
            let sx = _mm512_mullo_epi32(cell, prime_x);
            let both = |sx| {
                let (upper, lower) = (column(sx, rows[0]), column(sx, rows[1]));
                std::array::from_fn(|k| if k < Q { upper[k] } else { lower[k - Q] })
            };
            (both(sx), both(_mm512_add_epi32(sx, prime_x)))
        };
        let value = pixel(left, right, fx, u);
        // SAFETY: lanes `at..at + lanes` are within `out`; the masked store writes no others.
        unsafe { _mm512_mask_storeu_ps(out.as_mut_ptr().add(at), mask, value) };
        at += 16;
    }
}

/// `a + t (b - a)` in lanes, as [`lerp`](crate::field::basis::lattice::lerp).
#[inline]
#[target_feature(enable = "avx512f")]
fn lerp(a: __m512, b: __m512, t: __m512) -> __m512 {
    _mm512_add_ps(a, _mm512_mul_ps(t, _mm512_sub_ps(b, a)))
}

/// [`unit_value`](crate::field::hash::unit_value) in lanes: the upper 24 bits over 2^24 (exact).
#[inline]
#[target_feature(enable = "avx512f")]
fn unit_value(h: __m512i) -> __m512 {
    _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32::<8>(h)), _mm512_set1_ps(1.0 / 16_777_216.0))
}

/// [`mix`](crate::field::hash::mix) in lanes: the hash of each lane's input.
#[inline]
#[target_feature(enable = "avx512f")]
fn mix(h: __m512i) -> __m512i {
    let h = mix_to_last_step(h);
    _mm512_xor_si512(h, _mm512_srli_epi32::<16>(h))
}

/// [`mix`] without its last step, `h ^= h >> 16`, which leaves the top sixteen bits alone.
#[inline]
#[target_feature(enable = "avx512f")]
fn mix_to_last_step(h: __m512i) -> __m512i {
    let h = _mm512_xor_si512(h, _mm512_srli_epi32::<16>(h));
    let h = _mm512_mullo_epi32(h, _mm512_set1_epi32(0x7FEB_352D));
    let h = _mm512_xor_si512(h, _mm512_srli_epi32::<15>(h));
    _mm512_mullo_epi32(h, _mm512_set1_epi32(0x846C_A68Bu32 as i32))
}

/// The 64-entry gradient table, 16 entries to a register: x components and y components.
struct Table {
    x: [__m512; 4],
    y: [__m512; 4],
}

impl Table {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new() -> Self {
        // SAFETY: unaligned loads of 16 `f32` from rows of 16.
        let load = |c: usize, quarter: usize| unsafe {
            _mm512_loadu_ps(GRADIENTS_2D_BY_COMPONENT[c][16 * quarter..].as_ptr())
        };
        Self { x: [0, 1, 2, 3].map(|q| load(0, q)), y: [0, 1, 2, 3].map(|q| load(1, q)) }
    }

    /// The gradient of each lane's lattice point, from its spread x and the row's share of the hash.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn corner(&self, sx: __m512i, row: __m512i) -> (__m512, __m512) {
        let index = index(_mm512_xor_si512(sx, row));
        // A permute across each half's two registers picks by the low five bits; bit 5 the half.
        let upper = _mm512_test_epi32_mask(index, _mm512_set1_epi32(32));
        let pick = |t: &[__m512; 4]| {
            let low = _mm512_permutex2var_ps(t[0], index, t[1]);
            let high = _mm512_permutex2var_ps(t[2], index, t[3]);
            _mm512_mask_blend_ps(upper, low, high)
        };
        (pick(&self.x), pick(&self.y))
    }
}

/// The blend's constants along the row: [`blend_gradients_2d`] or [`blend_rounded_2d`] in lanes.
///
/// [`blend_gradients_2d`]: crate::field::basis::gradient_kernel::blend_gradients_2d
/// [`blend_rounded_2d`]: crate::field::basis::gradient_kernel::blend_rounded_2d
struct Blend {
    rounded: bool,
    scale: __m512,
    /// `fy`, `fy - 1`, `v`, and `8 fy(1 - fy)` as `envelope_value` computes it.
    fy: __m512,
    fy1: __m512,
    v: __m512,
    r8: __m512,
}

impl Blend {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new(kernel: GradientKernel, cy: AxisCell, v: f32) -> Self {
        Self {
            rounded: kernel == GradientKernel::Rounded,
            scale: _mm512_set1_ps(match kernel {
                GradientKernel::Perlin => std::f32::consts::SQRT_2,
                GradientKernel::Rounded => ROUNDED_SCALE,
            }),
            fy: _mm512_set1_ps(cy.f),
            fy1: _mm512_set1_ps(cy.f - 1.0),
            v: _mm512_set1_ps(v),
            r8: _mm512_set1_ps(8.0 * (cy.f * (1.0 - cy.f))),
        }
    }

    /// The noise at each lane from its corner gradients `[g00, g10, g01, g11]` (x and y), its
    /// fraction `fx` and faded weight `u`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn at(&self, [g00, g10, g01, g11]: [(__m512, __m512); 4], fx: __m512, u: __m512) -> __m512 {
        let one = _mm512_set1_ps(1.0);
        let dot = |g: (__m512, __m512), dx: __m512, dy: __m512| {
            _mm512_add_ps(_mm512_mul_ps(g.0, dx), _mm512_mul_ps(g.1, dy))
        };
        let fx1 = _mm512_sub_ps(fx, one);
        let (n00, n10) = (dot(g00, fx, self.fy), dot(g10, fx1, self.fy));
        let (n01, n11) = (dot(g01, fx, self.fy1), dot(g11, fx1, self.fy1));
        let raw = lerp(lerp(n00, n10, u), lerp(n01, n11, u), self.v);
        let mut value = _mm512_mul_ps(raw, self.scale);
        if self.rounded {
            let w = _mm512_mul_ps(_mm512_mul_ps(fx, _mm512_sub_ps(one, fx)), self.r8);
            value = _mm512_mul_ps(value, _mm512_sub_ps(one, _mm512_mul_ps(w, w)));
        }
        // `clamp(-1, 1)`; NaN would pass through as `clamp` lets it (max and min return their
        // second operand when one is NaN).
        _mm512_min_ps(_mm512_set1_ps(1.0), _mm512_max_ps(_mm512_set1_ps(-1.0), value))
    }
}

/// The gradient table's index of each lane's hash input: the top six bits of [`mix`], which its
/// last step leaves as they are.
#[inline]
#[target_feature(enable = "avx512f")]
fn index(h: __m512i) -> __m512i {
    _mm512_srli_epi32::<26>(mix_to_last_step(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::basis::Lattice;
    use crate::field::basis::gradient::corner_gradient_2d;
    use crate::field::basis::gradient_kernel::{blend_gradients_2d, blend_rounded_2d};
    use crate::field::basis::simplex::corners_2d;
    use crate::field::basis::value::{blend_values_2d, corner_value_2d};
    use crate::field::basis::worley::{column_point, offer, search_order_2d};
    use crate::field::fade::Fade;
    use crate::grid::test_rows::{skewed_row, split_cells};

    /// Whether this CPU runs the kernels (the emulated copy's build says yes: see
    /// `avx512_emulated`).
    fn runs_here() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
    }

    /// Cell widths in pixels that take each of a row's ways to its corners: blocks that hash their
    /// own (cells under about half a pixel), read two registers of the table, or one.
    const PIXELS_PER_CELL: [f64; 7] = [0.3, 0.6, 1.0, 1.7, 4.0, 13.0, 40.0];

    /// Rows' starts and pixel steps in cells (before the cells' width): near the origin and a
    /// million cells away, rising and falling.
    const ROWS: [(f64, f64); 4] = [(-3.7, 1.0), (1.0e6 + 0.3, 1.0), (2.9, -1.0), (-2.0e6, -1.0)];

    /// Rows of value and gradient noise (both kernels) going down through rows of cells, with
    /// the table of corners kept from row to row, at every width of cell in [`PIXELS_PER_CELL`]
    /// and every row of [`ROWS`], 203 pixels long (a last block of 11 lanes): every pixel has the
    /// point path's bits.
    #[test]
    #[ignore = "needs AVX-512F: run with --ignored on such a CPU (CI and scripts/device_check.sh do); the emulated copy checks the same bits on every CPU"]
    fn value_and_gradient_rows_give_the_point_path_bits() {
        assert!(runs_here(), "this CPU lacks AVX-512F: these tests need it");
        let (n, seed) = (203, 11);
        let kernels = [None, Some(GradientKernel::Perlin), Some(GradientKernel::Rounded)];
        for (pixels_per_cell, (x, step), kernel) in every_triple(&PIXELS_PER_CELL, &ROWS, &kernels) {
            let lattice = Lattice { kernel: kernel.unwrap_or_default(), ..Lattice::new(seed, Fade::Quintic) };
            let (x0, fx, u) = split_cells(x, step / pixels_per_cell, n, lattice.fade);
            let mut table = ColumnTable::default();
            for r in 0..24 {
                let cy = AxisCell::new(-1.3 + r as f64 * 0.35, None);
                let v = lattice.fade.apply(cy.f);
                let mut out = vec![f32::NAN; n];
                let row = Row { x0: &x0, fx: &fx, u: &u, cy, v };
                // SAFETY: this CPU has AVX-512F (checked above).
                unsafe {
                    match kernel {
                        None => value_row(seed, row, &mut table, &mut out),
                        Some(kernel) => gradient_row(seed, kernel, row, &mut table, &mut out),
                    }
                }
                for k in 0..n {
                    let ([x0, x1], y) = ([x0[k], x0[k] + 1], [cy.i0, cy.i1]);
                    let expected = match kernel {
                        None => {
                            blend_values_2d(&lattice.corners([x0, x1], y, corner_value_2d), u[k], v) * 2.0
                                - 1.0
                        }
                        Some(kernel) => {
                            let g = lattice.corners([x0, x1], y, corner_gradient_2d);
                            match kernel {
                                GradientKernel::Perlin => blend_gradients_2d(&g, fx[k], cy.f, u[k], v),
                                GradientKernel::Rounded => blend_rounded_2d(&g, fx[k], cy.f, u[k], v),
                            }
                        }
                    };
                    let case =
                        format!("{kernel:?}, {pixels_per_cell} px per cell, x {x}, step {step}, row {r}");
                    assert_eq!(out[k].to_bits(), expected.to_bits(), "{case}, pixel {k}");
                }
            }
        }
    }

    /// Worley noise's search of the 3×3 cells around each pixel, every metric, jitter 1 and 0.6,
    /// at every width of cell in [`PIXELS_PER_CELL`] and every row of [`ROWS`]: F1, F2 and the
    /// nearest point's hash are the point path's, in its order of cells, bit for bit.
    #[test]
    #[ignore = "needs AVX-512F: run with --ignored on such a CPU (CI and scripts/device_check.sh do); the emulated copy checks the same bits on every CPU"]
    fn worley_rows_give_the_point_path_bits() {
        assert!(runs_here(), "this CPU lacks AVX-512F: these tests need it");
        let (n, seed) = (203, 4);
        let lattice = Lattice::new(seed, Fade::Quintic);
        let metrics = [
            DistanceMetric::Euclidean,
            DistanceMetric::EuclideanSquared,
            DistanceMetric::Manhattan,
            DistanceMetric::Chebyshev,
        ];
        let mut columns = Vec::new();
        for (pixels_per_cell, (x, step), metric) in every_triple(&PIXELS_PER_CELL, &ROWS, &metrics) {
            let (x0, fx, _) = split_cells(x, step / pixels_per_cell, n, lattice.fade);
            for (jitter, y) in [(1.0, -0.4), (0.6, 7.25)] {
                let cy = AxisCell::new(y, None);
                let (mut f1, mut f2, mut nearest) = (vec![f32::NAN; n], vec![f32::NAN; n], vec![0; n]);
                // SAFETY: this CPU has AVX-512F (checked above).
                unsafe {
                    let out = (&mut f1[..], &mut f2[..], &mut nearest[..]);
                    worley_near_cells((seed, jitter, metric), (cy.i0, cy.f), (&x0, &fx), &mut columns, out)
                };
                for k in 0..n {
                    let (mut a, mut b, mut h) = (f32::INFINITY, f32::INFINITY, 0);
                    for (dx, dy) in search_order_2d(1) {
                        let (inside, y, hash) =
                            column_point(&lattice, i64::from(x0[k]) + dx, (cy.i0, dy), jitter, cy.f);
                        offer(
                            &mut a,
                            &mut b,
                            &mut h,
                            metric.ordering(&[dx as f32 + inside - fx[k], y]),
                            hash,
                        );
                    }
                    let case = format!(
                        "{metric:?}, jitter {jitter}, {pixels_per_cell} px per cell, x {x}, step {step}"
                    );
                    assert_eq!(
                        [f1[k].to_bits(), f2[k].to_bits(), nearest[k]],
                        [a.to_bits(), b.to_bits(), h],
                        "{case}, pixel {k}"
                    );
                }
            }
        }
    }

    /// Every triple of one item from each slice.
    fn every_triple<A: Copy, B: Copy, C: Copy>(a: &[A], b: &[B], c: &[C]) -> Vec<(A, B, C)> {
        a.iter().flat_map(|&a| b.iter().flat_map(move |&b| c.iter().map(move |&c| (a, b, c)))).collect()
    }

    /// Rows of one octave going down and then up again, at cells 3 to 40 pixels wide, near the
    /// origin and a million lattice units away, rising and falling: the row with the kept table
    /// gives `corners_2d`'s bits for every pixel, and at cells 8 pixels wide or more nearly every
    /// block reads the table (so the table path is what was checked).
    #[test]
    #[ignore = "needs AVX-512F: run with --ignored on such a CPU (CI and scripts/device_check.sh do); the emulated copy checks the same bits on every CPU"]
    fn simplex_rows_reading_the_kept_table_give_the_point_path_bits() {
        assert!(runs_here(), "this CPU lacks AVX-512F: these tests need it");
        let n = 203;
        for pixels_per_cell in [3.0, 4.5, 8.0, 13.0, 40.0] {
            for (x, step) in [(-3.7, 1.0), (1.0e6 + 0.3, 1.0), (2.9, -1.0), (-2.0e6, -1.0)] {
                let (step, mut table) = (step / pixels_per_cell, SimplexTable::default());
                let (mut blocks, mut read) = (0, 0);
                let rows = (0..150).chain((0..150).rev()).map(|r| x * 0.5 + r as f64 / pixels_per_cell);
                for (r, y) in rows.enumerate() {
                    let ([i, j], [x0, y0]) = skewed_row(x, y, step, n);
                    // A new seed for the rows back up: what the table holds is then not theirs.
                    let seed = if r < 200 { 5 } else { 6 };
                    let mut out = vec![f32::NAN; n];
                    // SAFETY: this CPU has AVX-512F (checked above).
                    unsafe { simplex_row(seed, (&i, &j), (&x0, &y0), Some(&mut table), &mut out) };
                    for k in 0..n {
                        let expected = corners_2d(seed, i[k], j[k], x0[k], y0[k]);
                        let case = format!("{pixels_per_cell} px per cell, x {x}, step {step}, row {r}");
                        assert_eq!(out[k].to_bits(), expected.to_bits(), "{case}, pixel {k}");
                    }
                    for at in (0..n).step_by(16) {
                        let last = (at + 15).min(n - 1);
                        let block =
                            (i[at].min(i[last]), i[at].max(i[last]), j[at].min(j[last]), j[at].max(j[last]));
                        blocks += 1;
                        // SAFETY: as above.
                        read += usize::from(unsafe { table.read(block) }.is_some());
                    }
                }
                if pixels_per_cell >= 8.0 {
                    assert!(
                        read * 10 >= blocks * 9,
                        "{pixels_per_cell} px per cell: {read} of {blocks} read"
                    );
                }
            }
        }
    }

    /// A block is read from the table where its right corners fall within the eight entries it
    /// reads per lattice row and its corners within three rows, and not otherwise.
    #[test]
    #[ignore = "needs AVX-512F: run with --ignored on such a CPU (CI and scripts/device_check.sh do); the emulated copy checks the same bits on every CPU"]
    fn simplex_blocks_read_the_table_only_within_their_entries() {
        assert!(runs_here(), "this CPU lacks AVX-512F: these tests need it");
        let mut table = SimplexTable::default();
        // SAFETY: this CPU has AVX-512F (checked above).
        assert!(unsafe { table.prepare(spread_seed(1), (100, 140), (20, 30), 1000) });
        // SAFETY: as above.
        let read = |block| unsafe { table.read(block) }.is_some();
        assert!(read((100, 106, 20, 21)) && read((134, 140, 30, 31)));
        assert!(!read((100, 107, 20, 21)), "a right corner eight columns on");
        assert!(!read((100, 106, 20, 22)), "a corner four rows down");
        assert!(!read((100, 106, 40, 41)), "rows the table does not hold");
    }
}
