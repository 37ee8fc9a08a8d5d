//! Simplex noise over a row, heights alone and with gradients, and the table of lattice points
//! the rows of an octave share (see the module above).

use super::{clamp_unit, mix_to_last_step};
use crate::field::basis::simplex::{G2, SCALE_2D};
use crate::field::hash::{PRIME_X, spread_seed, spread_y};
use crate::grid::lanes::{Lanes, inlined, map};

/// One octave's row of simplex noise from each pixel's skew (`skew_2d`: the first corner
/// `(i[k], j[k])` of its triangle and the offset `(x0[k], y0[k])` from it) into `out[k]` for every
/// `k < out.len()` (the inputs at least as long): `corners_2d`'s operations in lanes. The corners'
/// gradient indices come from `table` where the caller keeps one (see [`SimplexTable`]).
pub(crate) fn simplex_row<S: Lanes>(
    s: S,
    seed: u32,
    (i, j): (&[i32], &[i32]),
    (x0, y0): (&[f32], &[f32]),
    table: Option<&mut SimplexTable>,
    out: &mut [f32],
) {
    s.vectorize(inlined!(|| {
        let n = out.len();
        // Each corner's share `t⁴ (g · d)` as soon as it is found.
        let share = inlined!(|c: SimplexCorner<S>| c.t3() * c.t * c.dot());
        let block = inlined!(|at, lanes, shares: [S::F; 3]| {
            // SAFETY: lanes `at..at + lanes` are within `out`.
            unsafe { s.store_first(out, at, lanes, simplex_value(s, shares)) };
        });
        // Rows without a table compiled apart: no table code, nor its constants, in their loop.
        match table {
            Some(table) => {
                simplex_blocks::<S, true, _>(s, seed, (i, j), (x0, y0), n, Some(table), (share, block))
            }
            None => simplex_blocks::<S, false, _>(s, seed, (i, j), (x0, y0), n, None, (share, block)),
        }
    }))
}

/// [`simplex_row`] with each pixel's gradient: `corners_2d_with_gradient`'s operations in lanes,
/// the gradient times `per` (per lattice unit of the octave to per map unit), into `values`, `dx`
/// and `dy` for every `k < i.len()` (the other inputs and the outputs at least as long).
pub(crate) fn simplex_row_with_gradient<S: Lanes>(
    s: S,
    seed: u32,
    (i, j): (&[i32], &[i32]),
    (x0, y0): (&[f32], &[f32]),
    per: f32,
    [values, dx, dy]: [&mut [f32]; 3],
) {
    // `simplex_blocks` holds the other inputs to the row's length.
    let n = i.len();
    assert!(values.len() >= n && dx.len() >= n && dy.len() >= n, "outputs shorter than the row");
    s.vectorize(inlined!(|| {
        let (eight, scale, per) = (s.splat(8.0), s.splat(SCALE_2D), s.splat(per));
        simplex_blocks::<S, false, _>(
            s,
            seed,
            (i, j),
            (x0, y0),
            n,
            None,
            (
                inlined!(|c| c),
                inlined!(|at, lanes, corners: [SimplexCorner<S>; 3]| {
                    let zero = s.splat(0.0);
                    let (mut shares, mut gradient) = ([zero; 3], [zero; 2]);
                    for (c, share) in corners.iter().zip(&mut shares) {
                        // d/dp of t⁴ (g · d): t³·t·g − 8·t³·d·(g · d), per component, added corner by corner.
                        let (t3, dot) = (c.t3(), c.dot());
                        let t4 = t3 * c.t;
                        *share = t4 * dot;
                        let eight_t3 = eight * t3;
                        for (sum, (&g, &d)) in gradient.iter_mut().zip(c.g.iter().zip(&c.d)) {
                            *sum = *sum + (t4 * g - eight_t3 * d * dot);
                        }
                    }
                    let value = simplex_value(s, shares);
                    let flat = s.beyond_unit(value);
                    let [gx, gy] = map(gradient, inlined!(|g| s.zero_where(flat, g * scale) * per));
                    // SAFETY: lanes `at..at + lanes` are within every output (asserted above).
                    unsafe {
                        s.store_first(values, at, lanes, value);
                        s.store_first(dx, at, lanes, gx);
                        s.store_first(dy, at, lanes, gy);
                    }
                }),
            ),
        )
    }))
}

/// One corner of each lane's simplex triangle: the gradient its hash picks (the bits of
/// `gradient_2d`'s), the offset from it and the kernel's base `t = max(r0 - |d|², 0)`.
#[derive(Clone, Copy)]
struct SimplexCorner<S: Lanes> {
    g: [S::F; 2],
    d: [S::F; 2],
    t: S::F,
}

impl<S: Lanes> SimplexCorner<S> {
    /// `g · d`, as `gx·dx + gy·dy`.
    #[inline(always)]
    fn dot(&self) -> S::F {
        self.g[0] * self.d[0] + self.g[1] * self.d[1]
    }

    /// `t³`, as `(t·t)·t` (the first two products of `corner`'s `t⁴`).
    #[inline(always)]
    fn t3(&self) -> S::F {
        self.t * self.t * self.t
    }
}

/// `corners_2d`'s value from the corners' shares `t⁴ (g · d)`: their sum in order, scaled and
/// clamped to `[-1, 1]`.
#[inline(always)]
fn simplex_value<S: Lanes>(s: S, [a, b, c]: [S::F; 3]) -> S::F {
    clamp_unit(s, (a + b + c) * s.splat(SCALE_2D))
}

/// The three corners of the first `n` pixels' triangles, `LANES` pixels at a time: `block(at,
/// lanes, corners)` for the pixels `at..at + lanes`. Their gradients' indices come from `table`
/// (the lattice points of this row and the ones before it, hashed once) where a block spans at
/// most seven lattice columns and two lattice rows; other blocks, and every block without a
/// table, hash their own three corners. Where `TABLED` is false, `table` is not read (and no
/// code for it compiled).
#[inline(always)]
fn simplex_blocks<S: Lanes, const TABLED: bool, C: Copy>(
    s: S,
    seed: u32,
    (i, j): (&[i32], &[i32]),
    (x0, y0): (&[f32], &[f32]),
    n: usize,
    table: Option<&mut SimplexTable>,
    (each, mut block): (impl Fn(SimplexCorner<S>) -> C, impl FnMut(usize, usize, [C; 3])),
) {
    let mut table = if TABLED { table } else { None };
    assert!(i.len() >= n && j.len() >= n && x0.len() >= n && y0.len() >= n, "inputs shorter than the row");
    if n == 0 {
        return;
    }
    let spread = spread_seed(seed);
    let seed = s.splat_i(spread as i32);
    let (one_x, one_y) = (s.splat_i(PRIME_X as i32), s.splat_i(spread_y(1) as i32));
    let prime_y = one_y;
    let g2 = G2 as f32;
    let (zero, one, r0) = (s.splat(0.0), s.splat(1.0), s.splat(0.5));
    let (g2, g2x2) = (s.splat(g2), s.splat(2.0 * g2));
    // A corner from its gradient and its offset.
    let corner = inlined!(|g: [S::F; 2], dx: S::F, dy: S::F| {
        let t = s.max(r0 - (dx * dx + dy * dy), zero);
        each(SimplexCorner { g, d: [dx, dy], t })
    });
    // The row's lattice points, from its two ends (the skew is monotone along a row).
    let span = |v: &[i32]| (v[0].min(v[n - 1]), v[0].max(v[n - 1]));
    let tabled = match table.as_deref_mut() {
        Some(table) => table.prepare(s, spread, span(i), span(j), n),
        None => false,
    };
    let table = table.filter(|_| tabled);
    let (step_x, step_y) = (s.splat_i(1), s.splat_i(SimplexTable::READ as i32));
    let mut at = 0;
    while at < n {
        let lanes = (n - at).min(S::LANES);
        // SAFETY: lanes `at..at + lanes` are within every input (asserted above).
        let (ci, cj, x0, y0) = unsafe {
            (
                s.load_first_i(i, at, lanes),
                s.load_first_i(j, at, lanes),
                s.load_first(x0, at, lanes),
                s.load_first(y0, at, lanes),
            )
        };
        // The triangle: the middle corner is one step along x where `x0 > y0`, else along y.
        let upper = s.gt(x0, y0);
        let (i1, j1) = (s.select(upper, one, zero), s.select(upper, zero, one));
        let (x1, y1) = (x0 - i1 + g2, y0 - j1 + g2);
        let (x2, y2) = (x0 - one + g2x2, y0 - one + g2x2);
        let read = table.as_deref().and_then(|table| {
            let last = at + lanes - 1;
            table.read((i[at].min(i[last]), i[at].max(i[last]), j[at].min(j[last]), j[at].max(j[last])))
        });
        let [grad0, grad1, grad2] = match read {
            Some((rows, (i_min, j_min))) => {
                // Each corner's place among the 24 entries read: eight per lattice row.
                let k0 = s.shl::<3>(cj - s.splat_i(j_min)) + (ci - s.splat_i(i_min));
                let k1 = k0 + s.select_i(upper, step_x, step_y);
                let k2 = k0 + (step_x + step_y);
                map(s.pick_bytes(rows, [k0, k1, k2]), inlined!(|k| s.simplex_gradient(k)))
            }
            None => {
                let (sx, sy) = (ci * one_x, cj * prime_y);
                let (sx1, sy1) = (sx + one_x, sy + one_y);
                let h1 = s.select_i(upper, sx1, sx) ^ s.select_i(upper, sy, sy1);
                let hashes = [sx ^ sy, h1, sx1 ^ sy1];
                map(hashes, inlined!(|h| s.simplex_gradient_of_hash(mix_to_last_step(s, h ^ seed))))
            }
        };
        block(at, lanes, [corner(grad0, x0, y0), corner(grad1, x1, y1), corner(grad2, x2, y2)]);
        at += S::LANES;
    }
}

/// What a block reads from a [`SimplexTable`]: its three lattice rows' eight entries and its
/// first corners' smallest column and row.
type TableRead<'a> = ([&'a [u8; 8]; 3], (i32, i32));

/// The gradient indices (the top four bits of each corner's hash, as the rows pick their
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
    /// Forgets what the rows of lattice points were for (kept buffers, to be made again): for a scratch kept from one
    /// grid to the next.
    pub(crate) fn forget(&mut self) {
        self.rows.fill(None);
    }

    /// Entries a block reads per lattice row: seven columns of cells and their right neighbours.
    const READ: usize = 8;
    /// Columns kept on either side of a row's own, so that the next rows (whose lattice points
    /// drift along x) still fit.
    const SLACK: i64 = 8;

    /// Whether rows of `n` pixels whose triangles' first corners span `columns` read the table:
    /// only blocks of 16 pixels spanning at most seven columns do, so where the row's blocks span
    /// five on average or more, most would hash their own corners anyway.
    pub(crate) fn serves(columns: (i32, i32), n: usize) -> bool {
        (i64::from(columns.1) - i64::from(columns.0) + 1) * 16 <= n as i64 * 5
    }

    /// Makes the table hold the lattice points of a row of `n` pixels whose triangles' first
    /// corners span `columns` and `rows`, keeping the lattice rows it holds already (a row of
    /// pixels needs about one new lattice row per pixel a cell is wide); false where the row's
    /// cells are too narrow for its blocks to read the table.
    #[inline(always)]
    pub(crate) fn prepare<S: Lanes>(
        &mut self,
        s: S,
        seed: u32,
        columns: (i32, i32),
        rows: (i32, i32),
        n: usize,
    ) -> bool {
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
            self.width = ((right - left + 1 + 2 * Self::SLACK) as usize).next_multiple_of(32);
            self.rows.clear();
            self.rows.resize(height.next_power_of_two(), None);
            self.entries.resize(self.rows.len() * self.width, 0);
        }
        let (prime_x, spread) = (s.splat_i(PRIME_X as i32), s.splat_i(seed as i32));
        const { assert!(32 % S::LANES == 0, "rows of entries in whole registers") };
        for row in top..=bottom {
            let (row, slot) = (row as i32, self.slot(row as i32));
            if self.rows[slot] == Some(row) {
                continue;
            }
            let sy = s.splat_i(spread_y(row) as i32) ^ spread;
            for c in (0..self.width).step_by(S::LANES) {
                let cells = s.splat_i(self.first.wrapping_add(c as i32)) + s.iota();
                let k = s.shr::<28>(mix_to_last_step(s, (cells * prime_x) ^ sy));
                let at = slot * self.width + c;
                // SAFETY: `at + LANES <= (slot + 1) * width <= entries.len()`, as `width` is a
                // multiple of 32 (and so of `LANES`, asserted above).
                unsafe { s.store_bytes(self.entries.as_mut_ptr().add(at), k) };
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
    /// the entries of its three lattice rows from column `i_min` (eight each, byte `k` of a row
    /// its column `i_min + k`) and `(i_min, j_min)`; `None` where the block spans more than
    /// seven columns or two rows, or lies outside the table.
    #[inline(always)]
    pub(super) fn read(&self, (i_min, i_max, j_min, j_max): (i32, i32, i32, i32)) -> Option<TableRead<'_>> {
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
        let entries = map(
            rows,
            inlined!(|row| {
                let at = self.slot(row) * self.width + from as usize;
                // SAFETY: `READ` (eight) bytes from `slot * width + from`, within the slot's row
                // as `from + READ <= width` (checked above), the slot's row within `entries`.
                unsafe { &*self.entries.as_ptr().add(at).cast::<[u8; 8]>() }
            }),
        );
        Some((entries, (i_min, j_min)))
    }
}
