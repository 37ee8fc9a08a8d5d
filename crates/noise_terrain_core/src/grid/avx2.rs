//! One octave of 2-D noise over a row, written for AVX2 (8 lanes, 16 registers), for every basis:
//! the CPUs without AVX-512 (Zen 3 and earlier, most Intel desktop parts).
//!
//! The same scheme as `avx512.rs`, narrower. Value and gradient noise hash the corners of the
//! row's lattice columns once, eight columns at a time, into a [`ColumnTable`] kept from row to
//! row, and each block of eight pixels picks its corners from the table with `vpermps` from one
//! register of eight entries, or from two to four registers blended by the index's high bits,
//! where its cells and their right neighbours span up to 32 columns (cells down to about a
//! quarter of a pixel); a block spanning more hashes its own corners. Worley noise's 3×3 search
//! reads a table of the feature points of the row's three rows of cells the same way. Simplex
//! noise picks its sixteen gradients from one register of eight, negated for the other eight.
//! Heights with gradients have rows of their own too (`*_row_with_gradient`).
//!
//! The operations are those of the point path's functions (`corner_gradient_2d`,
//! `blend_gradients_2d`, `blend_rounded_2d`, `corner_value_2d`, `blend_values_2d`, `corners_2d`,
//! `column_point`, `offer`) in the same order, with no fused multiply-add, so the bits are the
//! point path's (the grid's property tests compare every level with it).

use std::arch::x86_64::*;

use crate::field::basis::DistanceMetric;
use crate::field::basis::gradient_kernel::{GradientKernel, ROUNDED_SCALE};
use crate::field::basis::gradient_table::GRADIENTS_2D_BY_COMPONENT;
use crate::field::basis::simplex;
use crate::field::coord::AxisCell;
use crate::field::hash::{PRIME_X, spread_seed, spread_x, spread_y};
use crate::grid::column_table::{ColumnTable, Row, plane_offset};

/// Lanes of a register.
const LANES: usize = 8;

/// Registers a block reads from a table at most: `ColumnTable::READ` entries.
const MOST_REGISTERS: usize = ColumnTable::READ / LANES;

/// One octave's row of gradient noise into `out[k]` for every `k < out.len()` (the row's inputs
/// at least as long); `columns` is kept for the next row of the octave.
#[target_feature(enable = "avx2")]
pub(crate) fn gradient_row(
    seed: u32,
    kernel: GradientKernel,
    row: Row,
    columns: &mut ColumnTable,
    out: &mut [f32],
) {
    let blend = Blend::new(kernel, row.cy, row.v);
    let column = |sx: __m256i, row: __m256i| corner_gradient(_mm256_xor_si256(sx, row));
    let pixel = |[x0, y0, x1, y1]: [__m256; 4], [x0n, y0n, x1n, y1n]: [__m256; 4], fx, u, _| {
        [blend.at([(x0, y0), (x0n, y0n), (x1, y1), (x1n, y1n)], fx, u)]
    };
    lattice_row(seed, row, (column, pixel), columns, [out]);
}

/// [`gradient_row`] with each pixel's gradient: `PerlinRowBlend`'s or `RoundedRowBlend`'s
/// operations in lanes (the same bits as the point path's), the fade's slope along x `du[k]` and
/// along y `dv`, the gradient times `per` (per lattice unit of the octave to per map unit), into
/// `values`, `dx` and `dy` for every `k < values.len()` (the inputs and the other outputs at least
/// as long).
#[target_feature(enable = "avx2")]
pub(crate) fn gradient_row_with_gradient(
    (seed, kernel): (u32, GradientKernel),
    (row, du, dv): (Row, &[f32], f32),
    per: f32,
    columns: &mut ColumnTable,
    out: [&mut [f32]; 3],
) {
    assert!(du.len() >= out[0].len(), "slopes shorter than the row");
    let blend = Blend::new(kernel, row.cy, row.v);
    let (dv, per) = (_mm256_set1_ps(dv), _mm256_set1_ps(per));
    let column = |sx: __m256i, row: __m256i| corner_gradient(_mm256_xor_si256(sx, row));
    let pixel = |[x0, y0, x1, y1]: [__m256; 4], [x0n, y0n, x1n, y1n]: [__m256; 4], fx, u, (at, lanes)| {
        // SAFETY: lanes `at..at + lanes` are within the row, and `du` is as long (asserted above).
        let du = unsafe { load(du, at, lanes) };
        let [value, gx, gy] =
            blend.at_with_gradient([(x0, y0), (x0n, y0n), (x1, y1), (x1n, y1n)], fx, (u, du), dv);
        [value, _mm256_mul_ps(gx, per), _mm256_mul_ps(gy, per)]
    };
    lattice_row(seed, row, (column, pixel), columns, out);
}

/// One octave's row of value noise, in `[-1, 1]` as the row path keeps it, into `out[k]` for
/// every `k < out.len()` (the row's inputs at least as long); `columns` is kept for the next row.
#[target_feature(enable = "avx2")]
pub(crate) fn value_row(seed: u32, row: Row, columns: &mut ColumnTable, out: &mut [f32]) {
    let v = _mm256_set1_ps(row.v);
    let column = |sx: __m256i, row: __m256i| [unit_value(mix(_mm256_xor_si256(sx, row)))];
    let pixel = |[v0, v1]: [__m256; 2], [v0n, v1n]: [__m256; 2], _fx, u, _| {
        let value = lerp(lerp(v0, v0n, u), lerp(v1, v1n, u), v);
        [_mm256_sub_ps(_mm256_mul_ps(value, _mm256_set1_ps(2.0)), _mm256_set1_ps(1.0))]
    };
    lattice_row(seed, row, (column, pixel), columns, [out]);
}

/// [`value_row`] with each pixel's gradient: `blend_values_2d_with_gradient`'s operations in
/// lanes, then mapped to `[-1, 1]` as `Basis::signed_2d_with_gradient` maps them, with the fade's
/// slope along x `du[k]` and along y `dv`, the gradient times `per` (per lattice unit of the
/// octave to per map unit), into `values`, `dx` and `dy` for every `k < values.len()` (the inputs
/// and the other outputs at least as long).
#[target_feature(enable = "avx2")]
pub(crate) fn value_row_with_gradient(
    seed: u32,
    (row, du, dv): (Row, &[f32], f32),
    per: f32,
    columns: &mut ColumnTable,
    out: [&mut [f32]; 3],
) {
    assert!(du.len() >= out[0].len(), "slopes shorter than the row");
    let v = _mm256_set1_ps(row.v);
    let (dv, per, two) = (_mm256_set1_ps(dv), _mm256_set1_ps(per), _mm256_set1_ps(2.0));
    let column = |sx: __m256i, row: __m256i| [unit_value(mix(_mm256_xor_si256(sx, row)))];
    let pixel = |[c0, c2]: [__m256; 2], [c1, c3]: [__m256; 2], _fx, u, (at, lanes)| {
        // SAFETY: lanes `at..at + lanes` are within the row, and `du` is as long (asserted above).
        let du = unsafe { load(du, at, lanes) };
        let value = lerp(lerp(c0, c1, u), lerp(c2, c3, u), v);
        // d/du of the bilinear blend, times du/dx (and the same in y).
        let twist = _mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(c0, c1), c2), c3);
        let dx = _mm256_mul_ps(du, _mm256_add_ps(_mm256_sub_ps(c1, c0), _mm256_mul_ps(twist, v)));
        let dy = _mm256_mul_ps(dv, _mm256_add_ps(_mm256_sub_ps(c2, c0), _mm256_mul_ps(twist, u)));
        let slope = |d: __m256| _mm256_mul_ps(_mm256_mul_ps(d, two), per);
        [_mm256_sub_ps(_mm256_mul_ps(value, two), _mm256_set1_ps(1.0)), slope(dx), slope(dy)]
    };
    lattice_row(seed, row, (column, pixel), columns, out);
}

/// The row of a lattice basis with `Q` planes of values per lattice column and row of corners
/// (`P = 2Q`, the upper row's then the lower row's): `column(spread x, a row's share of the hash)`
/// gives eight columns' planes of one row of corners, and `pixel(the cell's left column, its
/// right column, fx, u, (at, lanes))` blends them into `O` outputs for the pixels
/// `at..at + lanes`, written to `out` for every `k < out[0].len()`.
#[inline]
#[target_feature(enable = "avx2")]
fn lattice_row<const Q: usize, const P: usize, const O: usize>(
    seed: u32,
    Row { x0, fx, u, cy, .. }: Row,
    (column, pixel): (
        impl Fn(__m256i, __m256i) -> [__m256; Q],
        impl Fn([__m256; P], [__m256; P], __m256, __m256, (usize, usize)) -> [__m256; O],
    ),
    table: &mut ColumnTable,
    mut out: [&mut [f32]; O],
) {
    const { assert!(P == 2 * Q, "two rows of corners") };
    let n = out[0].len();
    assert!(x0.len() >= n && fx.len() >= n && u.len() >= n, "inputs shorter than the row");
    assert!(out.iter().all(|o| o.len() >= n), "outputs shorter than the row");
    if n == 0 {
        return;
    }
    // `hash2(x, y, seed)` is `mix(spread_seed ^ spread_x(x) ^ spread_y(y))`: the rows' share of it.
    let rows = [spread_seed(seed) ^ spread_y(cy.i0), spread_seed(seed) ^ spread_y(cy.i1)];
    let rows = rows.map(|r| _mm256_set1_epi32(r as i32));
    let prime_x = _mm256_set1_epi32(PRIME_X as i32);
    // The row's columns: its cells and each one's right neighbour.
    let first = x0[0].min(x0[n - 1]);
    let count = (i64::from(x0[0].max(x0[n - 1])) - i64::from(first) + 2) as usize;
    // A block reads the table where its cells and their right neighbours span at most 32 columns:
    // worth building where cells are at least about 8/30 pixels wide on average.
    let tabled = (count - 2) * LANES <= n * 30;
    if tabled {
        for r in table.prepare(cy.i0, (first, count), Q) {
            for c in (0..count).step_by(LANES) {
                let cell = _mm256_add_epi32(_mm256_set1_epi32(first.wrapping_add(c as i32)), iota());
                for (q, plane) in column(_mm256_mullo_epi32(cell, prime_x), rows[r]).into_iter().enumerate() {
                    let at = table.start(r, (q, Q), count) + c;
                    // SAFETY: the plane starting at `at - c` holds `ColumnTable::stride(count)`
                    // entries and `c + 8 <= count + 7 < stride`.
                    unsafe { _mm256_storeu_ps(table.planes.as_mut_ptr().add(at), plane) };
                }
            }
        }
    }
    let starts: [usize; P] = std::array::from_fn(|k| table.start(k / Q, (k % Q, Q), count));
    let planes = &table.planes;
    let one = _mm256_set1_epi32(1);
    let mut at = 0;
    while at < n {
        let lanes = (n - at).min(LANES);
        // SAFETY: lanes `at..at + lanes` are within every input (asserted above).
        let (cell, fx, u) = unsafe { (load_i32(x0, at, lanes), load(fx, at, lanes), load(u, at, lanes)) };
        // The block's first cell (its cells are monotone) and how many registers of the table its
        // cells and their right neighbours span.
        let (a, b) = (x0[at], x0[at + lanes - 1]);
        let base = a.min(b);
        let registers = (i64::from(a.max(b)) - i64::from(base) + 2).unsigned_abs().div_ceil(LANES as u64);
        let value = if tabled && registers <= MOST_REGISTERS as u64 {
            let index = _mm256_sub_epi32(cell, _mm256_set1_epi32(base));
            let next = _mm256_add_epi32(index, one);
            let offset = plane_offset(base, first, count - 2);
            // SAFETY: `offset + 32 <= count - 2 + 32 <= ColumnTable::stride(count)`: each plane's
            // reads stay within it.
            let reads = starts.map(|start| unsafe { planes.as_ptr().add(start + offset) });
            // SAFETY: as just above.
            let (left, right) = unsafe {
                match registers {
                    1 => pick_columns::<1, P>(reads, (index, next)),
                    2 => pick_columns::<2, P>(reads, (index, next)),
                    3 => pick_columns::<3, P>(reads, (index, next)),
                    _ => pick_columns::<MOST_REGISTERS, P>(reads, (index, next)),
                }
            };
            pixel(left, right, fx, u, (at, lanes))
        } else {
            // `spread_x` of the pixel's cell and of the next one (`spread_x(1)` is the prime).
            let sx = _mm256_mullo_epi32(cell, prime_x);
            let both = |sx| {
                let (upper, lower) = (column(sx, rows[0]), column(sx, rows[1]));
                std::array::from_fn(|k| if k < Q { upper[k] } else { lower[k - Q] })
            };
            pixel(both(sx), both(_mm256_add_epi32(sx, prime_x)), fx, u, (at, lanes))
        };
        for (out, value) in out.iter_mut().zip(value) {
            // SAFETY: lanes `at..at + lanes` are within every output (asserted above).
            unsafe { store(out, at, lanes, value) };
        }
        at += LANES;
    }
}

/// Each lane's entry `index` and `next` of `R` registers of table entries read from each plane's
/// pointer (`R · 8` entries): `vpermps` from every register, blended by which register the index
/// falls in.
///
/// # Safety
/// Every pointer must be valid for reading `R · 8` `f32`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pick_columns<const R: usize, const P: usize>(
    reads: [*const f32; P],
    (index, next): (__m256i, __m256i),
) -> ([__m256; P], [__m256; P]) {
    // Register `r`'s blend masks: the lanes whose index falls in it or a later one.
    let beyond = |index: __m256i| -> [__m256; R] {
        std::array::from_fn(|r| {
            _mm256_castsi256_ps(_mm256_cmpgt_epi32(index, _mm256_set1_epi32(8 * r as i32 - 1)))
        })
    };
    let (beyond_index, beyond_next) = (beyond(index), beyond(next));
    let pick = |registers: &[__m256; R], index: __m256i, beyond: &[__m256; R]| {
        let mut picked = _mm256_permutevar8x32_ps(registers[0], index);
        for r in 1..R {
            picked = _mm256_blendv_ps(picked, _mm256_permutevar8x32_ps(registers[r], index), beyond[r]);
        }
        picked
    };
    let mut left = [_mm256_setzero_ps(); P];
    let mut right = [_mm256_setzero_ps(); P];
    for k in 0..P {
        // SAFETY: the caller's contract.
        let registers: [__m256; R] =
            std::array::from_fn(|r| unsafe { _mm256_loadu_ps(reads[k].add(LANES * r)) });
        left[k] = pick(&registers, index, &beyond_index);
        right[k] = pick(&registers, next, &beyond_next);
    }
    (left, right)
}

/// One octave's row of simplex noise from each pixel's skew (`skew_2d`: the first corner
/// `(i[k], j[k])` of its triangle and the offset `(x0[k], y0[k])` from it) into `out[k]` for every
/// `k < out.len()` (the inputs at least as long): `corners_2d`'s operations in lanes.
#[target_feature(enable = "avx2")]
pub(crate) fn simplex_row(seed: u32, (i, j): (&[i32], &[i32]), (x0, y0): (&[f32], &[f32]), out: &mut [f32]) {
    // `simplex_blocks` holds the inputs to the row's length.
    simplex_blocks(seed, (i, j), (x0, y0), out.len(), |at, lanes, corners| {
        let shares = corners.map(|c| _mm256_mul_ps(_mm256_mul_ps(c.t3(), c.t), c.dot()));
        // SAFETY: lanes `at..at + lanes` are within `out`.
        unsafe { store(out, at, lanes, simplex_value(shares)) };
    });
}

/// [`simplex_row`] with each pixel's gradient: `corners_2d_with_gradient`'s operations in lanes,
/// the gradient times `per` (per lattice unit of the octave to per map unit), into `values`, `dx`
/// and `dy` for every `k < i.len()` (the other inputs and the outputs at least as long).
#[target_feature(enable = "avx2")]
pub(crate) fn simplex_row_with_gradient(
    seed: u32,
    (i, j): (&[i32], &[i32]),
    (x0, y0): (&[f32], &[f32]),
    per: f32,
    [values, dx, dy]: [&mut [f32]; 3],
) {
    // `simplex_blocks` holds the other inputs to the row's length.
    let n = i.len();
    assert!(values.len() >= n && dx.len() >= n && dy.len() >= n, "outputs shorter than the row");
    let (eight, scale, per) = (_mm256_set1_ps(8.0), _mm256_set1_ps(simplex::SCALE_2D), _mm256_set1_ps(per));
    simplex_blocks(seed, (i, j), (x0, y0), n, |at, lanes, corners| {
        let (mut shares, mut gradient) = ([_mm256_setzero_ps(); 3], [_mm256_setzero_ps(); 2]);
        for (c, share) in corners.iter().zip(&mut shares) {
            // d/dp of t⁴ (g · d): t³·t·g − 8·t³·d·(g · d), per component, added corner by corner.
            let (t3, dot) = (c.t3(), c.dot());
            let t4 = _mm256_mul_ps(t3, c.t);
            *share = _mm256_mul_ps(t4, dot);
            let eight_t3 = _mm256_mul_ps(eight, t3);
            for ((sum, g), d) in gradient.iter_mut().zip(c.g).zip(c.d) {
                let term =
                    _mm256_sub_ps(_mm256_mul_ps(t4, g), _mm256_mul_ps(_mm256_mul_ps(eight_t3, d), dot));
                *sum = _mm256_add_ps(*sum, term);
            }
        }
        let value = simplex_value(shares);
        let flat = clamped(value);
        let [gx, gy] = gradient.map(|g| _mm256_mul_ps(_mm256_andnot_ps(flat, _mm256_mul_ps(g, scale)), per));
        // SAFETY: lanes `at..at + lanes` are within every output (asserted above).
        unsafe {
            store(values, at, lanes, value);
            store(dx, at, lanes, gx);
            store(dy, at, lanes, gy);
        }
    });
}

/// One corner of each lane's simplex triangle: the gradient its hash picks (the bits of
/// `gradient_2d`'s), the offset from it and the kernel's base `t = max(r0 - |d|², 0)`.
#[derive(Clone, Copy)]
struct SimplexCorner {
    g: [__m256; 2],
    d: [__m256; 2],
    t: __m256,
}

impl SimplexCorner {
    /// `g · d`, as `gx·dx + gy·dy`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn dot(&self) -> __m256 {
        _mm256_add_ps(_mm256_mul_ps(self.g[0], self.d[0]), _mm256_mul_ps(self.g[1], self.d[1]))
    }

    /// `t³`, as `(t·t)·t` (the first two products of `corner`'s `t⁴`).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn t3(&self) -> __m256 {
        _mm256_mul_ps(_mm256_mul_ps(self.t, self.t), self.t)
    }
}

/// The lanes where a value in `[-1, 1]` was clamped (`|value| >= 1`; not where it is NaN), whose
/// gradients the point path makes flat.
#[inline]
#[target_feature(enable = "avx2")]
fn clamped(value: __m256) -> __m256 {
    _mm256_cmp_ps::<_CMP_GE_OQ>(_mm256_andnot_ps(_mm256_set1_ps(-0.0), value), _mm256_set1_ps(1.0))
}

/// `corners_2d`'s value from the corners' shares `t⁴ (g · d)`: their sum in order, scaled and
/// clamped to `[-1, 1]` ([`clamp_unit`]).
#[inline]
#[target_feature(enable = "avx2")]
fn simplex_value([a, b, c]: [__m256; 3]) -> __m256 {
    clamp_unit(_mm256_mul_ps(_mm256_add_ps(_mm256_add_ps(a, b), c), _mm256_set1_ps(simplex::SCALE_2D)))
}

/// `clamp(-1, 1)` in lanes; NaN passes through as `clamp` lets it (max and min return their
/// second operand when one is NaN).
#[inline]
#[target_feature(enable = "avx2")]
fn clamp_unit(value: __m256) -> __m256 {
    _mm256_min_ps(_mm256_set1_ps(1.0), _mm256_max_ps(_mm256_set1_ps(-1.0), value))
}

/// The three corners of the first `n` pixels' triangles, eight pixels at a time: `block(at,
/// lanes, corners)` for the pixels `at..at + lanes`. The gradients come from the first eight in
/// one register, turned half way by the hash's bit 31 (the index's bit 3: the last eight negate
/// the first eight, sign bits and all).
#[inline]
#[target_feature(enable = "avx2")]
fn simplex_blocks(
    seed: u32,
    (i, j): (&[i32], &[i32]),
    (x0, y0): (&[f32], &[f32]),
    n: usize,
    mut block: impl FnMut(usize, usize, [SimplexCorner; 3]),
) {
    assert!(i.len() >= n && j.len() >= n && x0.len() >= n && y0.len() >= n, "inputs shorter than the row");
    // SAFETY: unaligned loads of 8 `f32` from arrays of 16.
    let [gx, gy] = simplex::GRADIENTS_BY_COMPONENT.map(|c| unsafe { _mm256_loadu_ps(c.as_ptr()) });
    let seed = _mm256_set1_epi32(spread_seed(seed) as i32);
    let (one_x, one_y) = (_mm256_set1_epi32(PRIME_X as i32), _mm256_set1_epi32(spread_y(1) as i32));
    let prime_y = one_y;
    let g2 = simplex::G2 as f32;
    let (zero, one, r0) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0), _mm256_set1_ps(0.5));
    let (g2, g2x2) = (_mm256_set1_ps(g2), _mm256_set1_ps(2.0 * g2));
    let sign = _mm256_set1_epi32(i32::MIN);
    let corner = |h: __m256i, dx: __m256, dy: __m256| {
        let mixed = mix_to_last_step(_mm256_xor_si256(h, seed));
        // `vpermps` reads the index's low three bits (the hash's bits 28 to 30).
        let k = _mm256_srli_epi32::<28>(mixed);
        let half = _mm256_castsi256_ps(_mm256_and_si256(mixed, sign));
        let g = [gx, gy].map(|g| _mm256_xor_ps(_mm256_permutevar8x32_ps(g, k), half));
        let d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy));
        SimplexCorner { g, d: [dx, dy], t: _mm256_max_ps(_mm256_sub_ps(r0, d2), zero) }
    };
    let mut at = 0;
    while at < n {
        let lanes = (n - at).min(LANES);
        // SAFETY: lanes `at..at + lanes` are within every input (asserted above).
        let (ci, cj, x0, y0) = unsafe {
            (load_i32(i, at, lanes), load_i32(j, at, lanes), load(x0, at, lanes), load(y0, at, lanes))
        };
        // The triangle: the middle corner is one step along x where `x0 > y0`, else along y.
        let upper = _mm256_cmp_ps::<_CMP_GT_OQ>(x0, y0);
        let (i1, j1) = (_mm256_blendv_ps(zero, one, upper), _mm256_blendv_ps(one, zero, upper));
        let (x1, y1) = (_mm256_add_ps(_mm256_sub_ps(x0, i1), g2), _mm256_add_ps(_mm256_sub_ps(y0, j1), g2));
        let (x2, y2) =
            (_mm256_add_ps(_mm256_sub_ps(x0, one), g2x2), _mm256_add_ps(_mm256_sub_ps(y0, one), g2x2));
        let (sx, sy) = (_mm256_mullo_epi32(ci, one_x), _mm256_mullo_epi32(cj, prime_y));
        let (sx1, sy1) = (_mm256_add_epi32(sx, one_x), _mm256_add_epi32(sy, one_y));
        let upper_i = _mm256_castps_si256(upper);
        let h1 = _mm256_xor_si256(_mm256_blendv_epi8(sx, sx1, upper_i), _mm256_blendv_epi8(sy1, sy, upper_i));
        block(
            at,
            lanes,
            [
                corner(_mm256_xor_si256(sx, sy), x0, y0),
                corner(h1, x1, y1),
                corner(_mm256_xor_si256(sx1, sy1), x2, y2),
            ],
        );
        at += LANES;
    }
}

/// Worley noise's search of each pixel's 3×3 block of cells, in `search_order_2d`'s order with
/// `offer`'s operations: F1, F2 (orderings of `metric`) and the nearest point's hash into `f1`,
/// `f2` and `nearest` for every pixel `k < f1.len()` (cell `x0[k]`, fraction `fx[k]`, the row's
/// cell and fraction `(iy, fy)`; an unbounded lattice, cells monotone along the row). The feature
/// points of the row's three rows of cells are computed once per column into `columns`, which a
/// block of eight pixels reads from one to four registers where its cells and their neighbours
/// span at most 32 columns (cells down to about a quarter of a pixel); a block whose cells span
/// more hashes its own. The farther cells (search radius 2 and more) are the caller's.
#[target_feature(enable = "avx2")]
pub(crate) fn worley_near_cells(
    (seed, jitter, metric): (u32, f32, DistanceMetric),
    (iy, fy): (i32, f32),
    (x0, fx): (&[i32], &[f32]),
    columns: &mut Vec<f32>,
    (f1, f2, nearest): (&mut [f32], &mut [f32], &mut [u32]),
) {
    use DistanceMetric::*;
    let squared = |x: __m256, y: __m256| _mm256_add_ps(_mm256_mul_ps(x, x), _mm256_mul_ps(y, y));
    // `|v|`: the sign bit cleared.
    let abs = |v: __m256| _mm256_andnot_ps(_mm256_set1_ps(-0.0), v);
    let out = (f1, f2, nearest);
    // The metric is matched outside the pixel loop, as on the portable path.
    match metric {
        Euclidean | EuclideanSquared => {
            worley_near_with(squared, (seed, jitter), (iy, fy), (x0, fx), columns, out)
        }
        Manhattan => {
            let manhattan = |x, y| _mm256_add_ps(abs(x), abs(y));
            worley_near_with(manhattan, (seed, jitter), (iy, fy), (x0, fx), columns, out)
        }
        Chebyshev => {
            // `max(max(0, |x|), |y|)`: the first `max` leaves `|x|` as it is.
            let chebyshev = |x, y| _mm256_max_ps(abs(x), abs(y));
            worley_near_with(chebyshev, (seed, jitter), (iy, fy), (x0, fx), columns, out)
        }
    }
}

/// [`worley_near_cells`] with the metric's ordering in lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn worley_near_with(
    measure: impl Fn(__m256, __m256) -> __m256,
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
    let rows: [__m256i; 3] = std::array::from_fn(|k| {
        _mm256_set1_epi32((spread_seed(seed) ^ spread_y(iy.wrapping_add(k as i32 - 1))) as i32)
    });
    let prime_x = _mm256_set1_epi32(PRIME_X as i32);
    let (half, jitter, fy) = (_mm256_set1_ps(0.5), _mm256_set1_ps(jitter), _mm256_set1_ps(fy));
    // `feature(h, axis, jitter)`: `0.5 + (unit_value(bits) - 0.5) · jitter`.
    let feature =
        |bits: __m256i| _mm256_add_ps(half, _mm256_mul_ps(_mm256_sub_ps(unit_value(bits), half), jitter));
    let second = _mm256_set1_epi32(0x9E37_79B9u32 as i32);
    // The feature point of the cells at spread x `sx` in row `dy` (-1, 0, 1): its x inside the
    // cell, its y relative to the pixel row (`dy + y inside - fy`) and the cell's hash.
    let point = |sx: __m256i, dy: usize| {
        let h = mix(_mm256_xor_si256(sx, rows[dy]));
        let y = _mm256_add_ps(_mm256_set1_ps(dy as f32 - 1.0), feature(mix(_mm256_add_epi32(h, second))));
        [feature(h), _mm256_sub_ps(y, fy), _mm256_castsi256_ps(h)]
    };
    // The row's columns: its cells and one more on each side.
    let first = x0[0].min(x0[n - 1]).wrapping_sub(1);
    let count = (i64::from(x0[0].max(x0[n - 1])) - i64::from(first) + 2) as usize;
    // A block reads the table where its cells and their neighbours span at most 32 columns:
    // worth building where cells are at least about 8/29 pixels wide on average.
    let tabled = (count - 3) * LANES <= n * 29;
    let stride = ColumnTable::stride(count);
    if tabled {
        columns.resize(columns.len().max(9 * stride), 0.0);
        for c in (0..count).step_by(LANES) {
            let cell = _mm256_add_epi32(_mm256_set1_epi32(first.wrapping_add(c as i32)), iota());
            let sx = _mm256_mullo_epi32(cell, prime_x);
            for dy in 0..3 {
                for (k, plane) in point(sx, dy).into_iter().enumerate() {
                    // SAFETY: `(3 dy + k) · stride + c + 8 <= 9 · stride`, as `c < count < stride - 8`.
                    unsafe { _mm256_storeu_ps(columns.as_mut_ptr().add((3 * dy + k) * stride + c), plane) };
                }
            }
        }
    }
    let mut at = 0;
    while at < n {
        let lanes = (n - at).min(LANES);
        // SAFETY: lanes `at..at + lanes` are within every input (asserted above).
        let (cell, fx) = unsafe { (load_i32(x0, at, lanes), load(fx, at, lanes)) };
        let (a, b) = (x0[at], x0[at + lanes - 1]);
        let base = a.min(b);
        // Registers of the table the block's cells and their neighbours span.
        let registers = (i64::from(a.max(b)) - i64::from(base) + 3).unsigned_abs().div_ceil(LANES as u64);
        let tabled_block = tabled && registers <= MOST_REGISTERS as u64;
        let registers = registers as usize;
        let offset = plane_offset(base.wrapping_sub(1), first, count);
        let sx = _mm256_mullo_epi32(cell, prime_x);
        // The point of cell (dx, dy) from each pixel's: from the table's registers at the
        // block's first cell's left neighbour, or hashed.
        let cell_point = |dx: i32, dy: usize| {
            if !tabled_block {
                return point(_mm256_add_epi32(sx, _mm256_set1_epi32(spread_x(dx) as i32)), dy);
            }
            let index =
                _mm256_add_epi32(_mm256_sub_epi32(cell, _mm256_set1_epi32(base)), _mm256_set1_epi32(dx + 1));
            std::array::from_fn::<__m256, 3, _>(|k| {
                // SAFETY: `offset + 32 <= count + 32 <= stride` in each plane (the block's
                // columns lie within the row's).
                let read = |r: usize| unsafe {
                    _mm256_loadu_ps(columns.as_ptr().add((3 * dy + k) * stride + offset + LANES * r))
                };
                let mut picked = _mm256_permutevar8x32_ps(read(0), index);
                for r in 1..registers {
                    let beyond = _mm256_cmpgt_epi32(index, _mm256_set1_epi32(8 * r as i32 - 1));
                    let other = _mm256_permutevar8x32_ps(read(r), index);
                    picked = _mm256_blendv_ps(picked, other, _mm256_castsi256_ps(beyond));
                }
                picked
            })
        };
        let (mut best, mut second_best) = (_mm256_set1_ps(f32::INFINITY), _mm256_set1_ps(f32::INFINITY));
        let mut hash = _mm256_setzero_ps();
        for dy in 0..3 {
            for dx in -1..=1 {
                let [inside, y, h] = cell_point(dx, dy);
                let d = measure(_mm256_sub_ps(_mm256_add_ps(_mm256_set1_ps(dx as f32), inside), fx), y);
                // `offer` as minima: distances are never NaN nor -0.0, so `min(F2, max(F1, d))`
                // and `min(F1, d)` give its bits.
                let closer = _mm256_cmp_ps::<_CMP_LT_OQ>(d, best);
                second_best = _mm256_min_ps(second_best, _mm256_max_ps(best, d));
                best = _mm256_min_ps(best, d);
                hash = _mm256_blendv_ps(hash, h, closer);
            }
        }
        // SAFETY: lanes `at..at + lanes` are within the outputs.
        unsafe {
            store(f1, at, lanes, best);
            store(f2, at, lanes, second_best);
            store_u32(nearest, at, lanes, _mm256_castps_si256(hash));
        }
        at += LANES;
    }
}

/// The lanes `0, 1, …, 7`.
#[inline]
#[target_feature(enable = "avx2")]
fn iota() -> __m256i {
    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
}

/// The mask of the first `lanes` lanes (all set in their sign bits), for masked loads and stores.
#[inline]
#[target_feature(enable = "avx2")]
fn first_lanes(lanes: usize) -> __m256i {
    _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes as i32), iota())
}

/// Lanes `at..at + lanes` of `values` (at most eight; the others zero).
///
/// # Safety
/// `at + lanes <= values.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load(values: &[f32], at: usize, lanes: usize) -> __m256 {
    // SAFETY: the caller's contract; the masked load touches only the first `lanes` lanes.
    unsafe {
        let from = values.as_ptr().add(at);
        if lanes == LANES { _mm256_loadu_ps(from) } else { _mm256_maskload_ps(from, first_lanes(lanes)) }
    }
}

/// [`load`] of `i32` lanes.
///
/// # Safety
/// `at + lanes <= values.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_i32(values: &[i32], at: usize, lanes: usize) -> __m256i {
    // SAFETY: as in `load`.
    unsafe {
        let from = values.as_ptr().add(at);
        if lanes == LANES {
            _mm256_loadu_si256(from.cast())
        } else {
            _mm256_maskload_epi32(from, first_lanes(lanes))
        }
    }
}

/// Writes the first `lanes` lanes of `value` to `out[at..at + lanes]`.
///
/// # Safety
/// `at + lanes <= out.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store(out: &mut [f32], at: usize, lanes: usize, value: __m256) {
    // SAFETY: the caller's contract; the masked store writes only the first `lanes` lanes.
    unsafe {
        let to = out.as_mut_ptr().add(at);
        if lanes == LANES {
            _mm256_storeu_ps(to, value)
        } else {
            _mm256_maskstore_ps(to, first_lanes(lanes), value)
        }
    }
}

/// [`store`] of `u32` lanes.
///
/// # Safety
/// `at + lanes <= out.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store_u32(out: &mut [u32], at: usize, lanes: usize, value: __m256i) {
    // SAFETY: as in `store`.
    unsafe {
        let to = out.as_mut_ptr().add(at).cast::<i32>();
        if lanes == LANES {
            _mm256_storeu_si256(to.cast(), value)
        } else {
            _mm256_maskstore_epi32(to, first_lanes(lanes), value)
        }
    }
}

/// `a + t (b - a)` in lanes, as [`lerp`](crate::field::basis::lattice::lerp).
#[inline]
#[target_feature(enable = "avx2")]
fn lerp(a: __m256, b: __m256, t: __m256) -> __m256 {
    _mm256_add_ps(a, _mm256_mul_ps(t, _mm256_sub_ps(b, a)))
}

/// [`unit_value`](crate::field::hash::unit_value) in lanes: the upper 24 bits over 2^24 (exact).
#[inline]
#[target_feature(enable = "avx2")]
fn unit_value(h: __m256i) -> __m256 {
    _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32::<8>(h)), _mm256_set1_ps(1.0 / 16_777_216.0))
}

/// [`mix`](crate::field::hash::mix) in lanes: the hash of each lane's input.
#[inline]
#[target_feature(enable = "avx2")]
fn mix(h: __m256i) -> __m256i {
    let h = mix_to_last_step(h);
    _mm256_xor_si256(h, _mm256_srli_epi32::<16>(h))
}

/// [`mix`] without its last step, `h ^= h >> 16`, which leaves the top sixteen bits alone.
#[inline]
#[target_feature(enable = "avx2")]
fn mix_to_last_step(h: __m256i) -> __m256i {
    let h = _mm256_xor_si256(h, _mm256_srli_epi32::<16>(h));
    let h = _mm256_mullo_epi32(h, _mm256_set1_epi32(0x7FEB_352D));
    let h = _mm256_xor_si256(h, _mm256_srli_epi32::<15>(h));
    _mm256_mullo_epi32(h, _mm256_set1_epi32(0x846C_A68Bu32 as i32))
}

/// The gradient of each lane's lattice point from its hash input (`corner_gradient_2d`): the
/// 64-entry table's entry at the top six bits of [`mix`], which its last step leaves as they are.
///
/// The table is four quarter turns of its first sixteen entries (entry `16q + m` is entry `m`
/// turned `q` quarters), so the entry is picked from those sixteen in two registers per
/// component and turned: cheaper than two gathers. Negation is `0 - v`, which keeps the table's
/// `+0.0` where a turned component is zero; the one `-0.0` (entry 48's x) is set apart.
#[inline]
#[target_feature(enable = "avx2")]
fn corner_gradient(h: __m256i) -> [__m256; 2] {
    let index = _mm256_srli_epi32::<26>(mix_to_last_step(h));
    // SAFETY: unaligned loads of 8 `f32` from arrays of 64.
    let [x, y] = GRADIENTS_2D_BY_COMPONENT
        .each_ref()
        .map(|c| unsafe { [_mm256_loadu_ps(c.as_ptr()), _mm256_loadu_ps(c.as_ptr().add(LANES))] });
    // Bit `b` of the index moved to each lane's sign, for `vblendvps`.
    let bit = |b: i32| _mm256_castsi256_ps(_mm256_sllv_epi32(index, _mm256_set1_epi32(31 - b)));
    let pick = |g: [__m256; 2]| {
        _mm256_blendv_ps(_mm256_permutevar8x32_ps(g[0], index), _mm256_permutevar8x32_ps(g[1], index), bit(3))
    };
    let (x, y) = (pick(x), pick(y));
    // An odd quarter turn swaps the components; turns of one and two negate the first, turns of
    // two and three the second: `(x, y)`, `(-y, x)`, `(-x, -y)`, `(y, -x)`.
    let (odd, half) = (bit(4), bit(5));
    let (first, second) = (_mm256_blendv_ps(x, y, odd), _mm256_blendv_ps(y, x, odd));
    let zero = _mm256_setzero_ps();
    let negate_if = |v: __m256, mask: __m256| _mm256_blendv_ps(v, _mm256_sub_ps(zero, v), mask);
    let first = negate_if(first, _mm256_xor_ps(odd, half));
    let second = negate_if(second, half);
    let entry_48 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(index, _mm256_set1_epi32(48)));
    let first = _mm256_or_ps(first, _mm256_and_ps(entry_48, _mm256_set1_ps(-0.0)));
    [first, second]
}

/// The blend's constants along the row: `blend_gradients_2d` or `blend_rounded_2d` in lanes.
struct Blend {
    rounded: bool,
    scale: __m256,
    /// `fy`, `fy - 1`, `v`, and `8 fy(1 - fy)` as `envelope_value` computes it.
    fy: __m256,
    fy1: __m256,
    v: __m256,
    r8: __m256,
    /// `RoundedRowBlend`'s slopes of the envelope: `[-2 r8, 4 r8, -16 (1 - 2 fy)]`.
    envelope_slopes: [__m256; 3],
}

impl Blend {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(kernel: GradientKernel, cy: AxisCell, v: f32) -> Self {
        let r8 = 8.0 * (cy.f * (1.0 - cy.f));
        Self {
            rounded: kernel == GradientKernel::Rounded,
            scale: _mm256_set1_ps(match kernel {
                GradientKernel::Perlin => std::f32::consts::SQRT_2,
                GradientKernel::Rounded => ROUNDED_SCALE,
            }),
            fy: _mm256_set1_ps(cy.f),
            fy1: _mm256_set1_ps(cy.f - 1.0),
            v: _mm256_set1_ps(v),
            r8: _mm256_set1_ps(r8),
            envelope_slopes: [-2.0 * r8, 4.0 * r8, -16.0 * (1.0 - 2.0 * cy.f)].map(|c| _mm256_set1_ps(c)),
        }
    }

    /// The noise at each lane from its corner gradients `[g00, g10, g01, g11]` (x and y), its
    /// fraction `fx` and faded weight `u`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn at(&self, [g00, g10, g01, g11]: [(__m256, __m256); 4], fx: __m256, u: __m256) -> __m256 {
        let one = _mm256_set1_ps(1.0);
        let dot = |g: (__m256, __m256), dx: __m256, dy: __m256| {
            _mm256_add_ps(_mm256_mul_ps(g.0, dx), _mm256_mul_ps(g.1, dy))
        };
        let fx1 = _mm256_sub_ps(fx, one);
        let (n00, n10) = (dot(g00, fx, self.fy), dot(g10, fx1, self.fy));
        let (n01, n11) = (dot(g01, fx, self.fy1), dot(g11, fx1, self.fy1));
        let raw = lerp(lerp(n00, n10, u), lerp(n01, n11, u), self.v);
        let mut value = _mm256_mul_ps(raw, self.scale);
        if self.rounded {
            let w = _mm256_mul_ps(_mm256_mul_ps(fx, _mm256_sub_ps(one, fx)), self.r8);
            value = _mm256_mul_ps(value, _mm256_sub_ps(one, _mm256_mul_ps(w, w)));
        }
        clamp_unit(value)
    }

    /// [`Self::at`] (the same bits) and its gradient per cell, from the faded weight `u` and its
    /// slope `du` along x and the slope `dv` along y: `PerlinRowBlend::new` and `raw_at` per lane,
    /// then `PerlinRowBlend::at` or `RoundedRowBlend::at`; flat where the value is clamped.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn at_with_gradient(
        &self,
        [g00, g10, g01, g11]: [(__m256, __m256); 4],
        fx: __m256,
        (u, du): (__m256, __m256),
        dv: __m256,
    ) -> [__m256; 3] {
        let (one, v, s) = (_mm256_set1_ps(1.0), self.v, self.scale);
        let (add, sub, mul) = (_mm256_add_ps, _mm256_sub_ps, _mm256_mul_ps);
        // `PerlinRowBlend::new`.
        let y_terms = [mul(g00.1, self.fy), mul(g10.1, self.fy), mul(g01.1, self.fy1), mul(g11.1, self.fy1)];
        let (upper_y, lower_y) = (sub(g10.1, g00.1), sub(g11.1, g01.1));
        let bx = lerp(sub(g10.0, g00.0), sub(g11.0, g01.0), v);
        let x0 = lerp(sub(mul(upper_y, self.fy), g10.0), sub(mul(lower_y, self.fy1), g11.0), v);
        let (ay, by) = (lerp(g00.1, g01.1, v), lerp(upper_y, lower_y, v));
        let [ax, bx_s, x0] = [mul(lerp(g00.0, g01.0, v), s), mul(bx, s), mul(x0, s)];
        let [ay, by, dv] = [mul(ay, s), mul(by, s), mul(dv, s)];
        // `raw_at`.
        let fx1 = sub(fx, one);
        let n = [
            add(mul(g00.0, fx), y_terms[0]),
            add(mul(g10.0, fx1), y_terms[1]),
            add(mul(g01.0, fx), y_terms[2]),
            add(mul(g11.0, fx1), y_terms[3]),
        ];
        let (top, bottom) = (lerp(n[0], n[1], u), lerp(n[2], n[3], u));
        let gx = add(add(ax, mul(u, bx_s)), mul(du, add(x0, mul(bx_s, fx))));
        let gy = add(add(ay, mul(u, by)), mul(dv, sub(bottom, top)));
        let raw = lerp(top, bottom, v);
        let (value, gx, gy) = if self.rounded {
            // `RoundedRowBlend::at`: the product rule, m ∇(raw·s) + (raw·s) ∇m.
            let p = mul(fx, sub(one, fx));
            let w = mul(p, self.r8);
            let m = sub(one, mul(w, w));
            let scaled = mul(raw, s);
            let q = mul(w, scaled);
            let [x0s, x1s, ys] = self.envelope_slopes;
            let gx = add(mul(m, gx), mul(q, add(x0s, mul(x1s, fx))));
            let gy = add(mul(m, gy), mul(q, mul(p, ys)));
            (mul(scaled, m), gx, gy)
        } else {
            (mul(raw, s), gx, gy)
        };
        let value = clamp_unit(value);
        let flat = clamped(value);
        [value, _mm256_andnot_ps(flat, gx), _mm256_andnot_ps(flat, gy)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::basis::gradient_table::GRADIENTS_2D;
    use crate::field::hash::mix;

    /// Every one of the 64 entries, reached through hash inputs whose top six bits after the mix
    /// are its index, comes out with the table's bits (signs of zero included).
    #[test]
    #[ignore = "needs AVX2: run with --ignored on such a CPU (CI does where the CPU has it)"]
    fn turned_quarters_give_every_gradient_of_the_table_bit_for_bit() {
        assert!(std::arch::is_x86_feature_detected!("avx2"), "this CPU lacks AVX2: this test needs it");
        let mut inputs = [None; 64];
        for h in 0u32.. {
            inputs[(mix(h) >> 26) as usize].get_or_insert(h);
            if inputs.iter().all(Option::is_some) {
                break;
            }
        }
        for chunk in inputs.chunks(LANES) {
            let lanes: [i32; LANES] = std::array::from_fn(|k| chunk[k].expect("found above") as i32);
            // SAFETY: this CPU has AVX2 (checked above); unaligned loads and stores of 8 lanes.
            let [x, y] = unsafe {
                let [x, y] = corner_gradient(_mm256_loadu_si256(lanes.as_ptr().cast()));
                let (mut xs, mut ys) = ([0.0f32; LANES], [0.0f32; LANES]);
                _mm256_storeu_ps(xs.as_mut_ptr(), x);
                _mm256_storeu_ps(ys.as_mut_ptr(), y);
                [xs, ys]
            };
            for k in 0..LANES {
                let index = (mix(lanes[k] as u32) >> 26) as usize;
                let expected = GRADIENTS_2D[index];
                assert_eq!([x[k].to_bits(), y[k].to_bits()], expected.map(f32::to_bits), "entry {index}");
            }
        }
    }
}
