//! Value and gradient noise over a row, heights alone and with gradients (see the module above).

use super::{clamp_unit, lerp, mix, mix_to_last_step, registers_spanning, unit_value};
use crate::field::basis::gradient_kernel::{GradientKernel, ROUNDED_SCALE};
use crate::field::coord::AxisCell;
use crate::field::hash::{PRIME_X, spread_seed, spread_y};
use crate::grid::column_table::{ColumnTable, Row, RowY, STREAM_PADDING, plane_offset};
use crate::grid::lanes::{Lanes, array, inlined, map};
use crate::grid::lattice_rows::Octave;

/// One octave's row of gradient noise into `out[k]` for every `k < out.len()` (the row's inputs
/// at least as long), written or added (see [`Octave`]); `columns` is kept for the next row of
/// the octave.
pub(crate) fn gradient_row<S: Lanes>(
    s: S,
    (seed, kernel): (u32, GradientKernel),
    row: Row,
    columns: &mut ColumnTable,
    (out, octave): (&mut [f32], Octave),
) {
    s.vectorize(inlined!(|| {
        let per_row = (
            inlined!(|y: RowY| Blend::new(s, kernel, y.cy, y.v)),
            inlined!(|m, a, b| Blend::select(m, a, b)),
        );
        let pixel = inlined!(|[x0, y0, x1, y1]: [S::F; 4],
                              [x0n, y0n, x1n, y1n]: [S::F; 4],
                              fx,
                              u,
                              _,
                              blend: &Blend<S>| {
            [blend.at([(x0, y0), (x0n, y0n), (x1, y1), (x1n, y1n)], fx, u)]
        });
        let column = inlined!(|sx, row| gradient(s, sx ^ row));
        heights_row(s, (seed, row), (column, per_row, pixel), columns, (out, octave));
    }))
}

/// [`gradient_row`] with each pixel's gradient: `PerlinRowBlend`'s or `RoundedRowBlend`'s
/// operations in lanes (the same bits as the point path's), the fade's slope along x `du[k]` and
/// along y `dv`, the gradient times `per` (per lattice unit of the octave to per map unit), into
/// `values`, `dx` and `dy` for every `k < values.len()` (the inputs and the other outputs at least
/// as long).
pub(crate) fn gradient_row_with_gradient<S: Lanes>(
    s: S,
    (seed, kernel): (u32, GradientKernel),
    (row, du, dv): (Row, &[f32], f32),
    per: f32,
    columns: &mut ColumnTable,
    out: [&mut [f32]; 3],
) {
    assert!(du.len() >= out[0].len() && row.ys.len() == 1, "slopes shorter than the row, or several rows");
    s.vectorize(inlined!(|| {
        let per_row = (
            inlined!(|y: RowY| Blend::new(s, kernel, y.cy, y.v)),
            inlined!(|m, a, b| Blend::select(m, a, b)),
        );
        let (dv, per) = (s.splat(dv), s.splat(per));
        let pixel = inlined!(|[x0, y0, x1, y1]: [S::F; 4],
                              [x0n, y0n, x1n, y1n]: [S::F; 4],
                              fx,
                              u,
                              (at, lanes),
                              blend: &Blend<S>| {
            // SAFETY: lanes `at..at + lanes` are within the row, and `du` is as long (asserted above).
            let du = unsafe { s.load_first(du, at, lanes) };
            let [value, gx, gy] =
                blend.at_with_gradient([(x0, y0), (x0n, y0n), (x1, y1), (x1n, y1n)], fx, (u, du), dv);
            [value, gx * per, gy * per]
        });
        let column = inlined!(|sx, row| gradient(s, sx ^ row));
        lattice_row::<S, _, _, _, _, false>(s, seed, row, (column, per_row, pixel), columns, out, keep);
    }))
}

/// One octave's row of value noise, in `[-1, 1]` as the row path keeps it, into `out[k]` for
/// every `k < out.len()` (the row's inputs at least as long), written or added (see [`Octave`]);
/// `columns` is kept for the next row.
pub(crate) fn value_row<S: Lanes>(
    s: S,
    seed: u32,
    row: Row,
    columns: &mut ColumnTable,
    (out, octave): (&mut [f32], Octave),
) {
    s.vectorize(inlined!(|| {
        let per_row = (inlined!(|y: RowY| s.splat(y.v)), inlined!(|m, a, b| s.select(m, a, b)));
        let pixel = inlined!(|[v0, v1]: [S::F; 2], [v0n, v1n]: [S::F; 2], _fx, u, _, &v: &S::F| {
            let value = lerp::<S>(lerp::<S>(v0, v0n, u), lerp::<S>(v1, v1n, u), v);
            [value * s.splat(2.0) - s.splat(1.0)]
        });
        let column = inlined!(|sx, row| [corner_value(s, sx ^ row)]);
        heights_row(s, (seed, row), (column, per_row, pixel), columns, (out, octave));
    }))
}

/// [`value_row`] with each pixel's gradient: `blend_values_2d_with_gradient`'s operations in
/// lanes, then mapped to `[-1, 1]` as `Basis::signed_2d_with_gradient` maps them, with the fade's
/// slope along x `du[k]` and along y `dv`, the gradient times `per` (per lattice unit of the
/// octave to per map unit), into `values`, `dx` and `dy` for every `k < values.len()` (the inputs
/// and the other outputs at least as long).
pub(crate) fn value_row_with_gradient<S: Lanes>(
    s: S,
    seed: u32,
    (row, du, dv): (Row, &[f32], f32),
    per: f32,
    columns: &mut ColumnTable,
    out: [&mut [f32]; 3],
) {
    assert!(du.len() >= out[0].len() && row.ys.len() == 1, "slopes shorter than the row, or several rows");
    s.vectorize(inlined!(|| {
        let per_row = (inlined!(|y: RowY| s.splat(y.v)), inlined!(|m, a, b| s.select(m, a, b)));
        let (dv, per, two) = (s.splat(dv), s.splat(per), s.splat(2.0));
        let pixel = inlined!(|[c0, c2]: [S::F; 2], [c1, c3]: [S::F; 2], _fx, u, (at, lanes), &v: &S::F| {
            // SAFETY: lanes `at..at + lanes` are within the row, and `du` is as long (asserted above).
            let du = unsafe { s.load_first(du, at, lanes) };
            let value = lerp::<S>(lerp::<S>(c0, c1, u), lerp::<S>(c2, c3, u), v);
            // d/du of the bilinear blend, times du/dx (and the same in y).
            let twist = c0 - c1 - c2 + c3;
            let dx = du * (c1 - c0 + twist * v);
            let dy = dv * (c2 - c0 + twist * u);
            [value * two - s.splat(1.0), dx * two * per, dy * two * per]
        });
        let column = inlined!(|sx, row| [corner_value(s, sx ^ row)]);
        lattice_row::<S, _, _, _, _, false>(s, seed, row, (column, per_row, pixel), columns, out, keep);
    }))
}

/// [`lattice_row`] of heights alone, written or added to the fBm's sums (see [`Octave`]).
#[inline(always)]
fn heights_row<S: Lanes, const Q: usize, const P: usize, C: Copy>(
    s: S,
    (seed, row): (u32, Row),
    closures: (
        impl Fn(S::I, S::I) -> [S::F; Q],
        (impl Fn(RowY) -> C, impl Fn(S::M, C, C) -> C),
        impl Fn([S::F; P], [S::F; P], S::F, S::F, (usize, usize), &C) -> [S::F; 1],
    ),
    columns: &mut ColumnTable,
    (out, octave): (&mut [f32], Octave),
) {
    match octave {
        Octave::Layer => lattice_row::<S, Q, P, 1, C, false>(s, seed, row, closures, columns, [out], keep),
        Octave::Fbm(amplitude) => {
            let (amplitude, half) = (s.splat(amplitude), s.splat(0.5));
            let add = inlined!(|sum: S::F, n: S::F| sum + amplitude * (n * half + half));
            lattice_row::<S, Q, P, 1, C, true>(s, seed, row, closures, columns, [out], add);
        }
    }
}

/// The values as they are: what [`lattice_row`] takes to write rather than add.
#[inline(always)]
fn keep<F>(_: F, value: F) -> F {
    value
}

/// The rows of a lattice basis with `Q` planes of values per lattice column and row of corners
/// (`P = 2Q`, the upper row's then the lower row's): `column(spread x, a row's share of the hash)`
/// gives `LANES` columns' planes of one row of corners; `per_row.0(row)` a row's constants and
/// `per_row.1(mask, a, b)` `a` where `mask` is set, else `b`; and `pixel(the cell's left column,
/// its right column, fx, u, (at, lanes), the row's constants)` blends them into `O` outputs for
/// the pixels `at..at + lanes` of the row (of one row: see below), written to `out`. Several
/// rows (`row.ys`) run as one stream of `row.ys.len()` rows of `out[0].len() / row.ys.len()`
/// pixels: a block that spans the end of a row and the start of the next takes the next row's
/// constants and corners in those lanes (hashing its corners). With `ADD` each output's lanes
/// become `add(what they held, the value)` rather than the value.
#[inline(always)]
fn lattice_row<S: Lanes, const Q: usize, const P: usize, const O: usize, C: Copy, const ADD: bool>(
    s: S,
    seed: u32,
    row: Row,
    closures: (
        impl Fn(S::I, S::I) -> [S::F; Q],
        (impl Fn(RowY) -> C, impl Fn(S::M, C, C) -> C),
        impl Fn([S::F; P], [S::F; P], S::F, S::F, (usize, usize), &C) -> [S::F; O],
    ),
    table: &mut ColumnTable,
    out: [&mut [f32]; O],
    add: impl Fn(S::F, S::F) -> S::F,
) {
    // A single row compiled apart from the stream's code: one function for both left single
    // rows, which are every 1024² grid's, up to 8% slower.
    if row.ys.len() > 1 {
        lattice_rows::<S, Q, P, O, C, true, ADD>(s, seed, row, closures, table, out, add)
    } else {
        lattice_rows::<S, Q, P, O, C, false, ADD>(s, seed, row, closures, table, out, add)
    }
}

/// [`lattice_row`] over one row, or with `STREAM` over several.
#[inline(always)]
fn lattice_rows<
    S: Lanes,
    const Q: usize,
    const P: usize,
    const O: usize,
    C: Copy,
    const STREAM: bool,
    const ADD: bool,
>(
    s: S,
    seed: u32,
    Row { x0, fx, u, ys }: Row,
    (column, (row_constants, select), pixel): (
        impl Fn(S::I, S::I) -> [S::F; Q],
        (impl Fn(RowY) -> C, impl Fn(S::M, C, C) -> C),
        impl Fn([S::F; P], [S::F; P], S::F, S::F, (usize, usize), &C) -> [S::F; O],
    ),
    table: &mut ColumnTable,
    out: [&mut [f32]; O],
    add: impl Fn(S::F, S::F) -> S::F,
) {
    const { assert!(P == 2 * Q, "two rows of corners") };
    assert!(if STREAM { !ys.is_empty() } else { ys.len() == 1 }, "one row, or a stream of rows");
    let count = if STREAM { ys.len() } else { 1 };
    let (total, n) = (out[0].len(), out[0].len() / count);
    // A block that runs past a row's end reads a whole register of cells from a pixel of it.
    const { assert!(S::LANES <= STREAM_PADDING + 1, "blocks wider than the cells' padding") };
    let padding = if STREAM { S::LANES - 1 } else { 0 };
    assert!(
        x0.len() >= n + padding && fx.len() >= n + padding && u.len() >= n + padding,
        "inputs shorter than the row"
    );
    assert!(out.iter().all(|o| o.len() >= total), "outputs shorter than the rows");
    assert!(
        count == 1 || (n * count == total && n >= S::LANES),
        "a stream of whole rows wider than a register"
    );
    if n == 0 {
        return;
    }
    // `hash2(x, y, seed)` is `mix(spread_seed ^ spread_x(x) ^ spread_y(y))`: the rows' share of it.
    let shares = inlined!(|y: RowY| {
        let rows = [spread_seed(seed) ^ spread_y(y.cy.i0), spread_seed(seed) ^ spread_y(y.cy.i1)];
        map(rows, inlined!(|r| s.splat_i(r as i32)))
    });
    let prime_x = s.splat_i(PRIME_X as i32);
    // The rows' columns: their cells and each one's right neighbour.
    let first = x0[0].min(x0[n - 1]);
    let columns = (i64::from(x0[0].max(x0[n - 1])) - i64::from(first) + 2) as usize;
    // A block reads the table where its cells and their right neighbours span at most
    // `ColumnTable::READ` columns: worth building where cells are at least about `LANES / 30`
    // pixels wide on average.
    let tabled = (columns - 2) * S::LANES <= n * 30;
    // Row `r`'s constants and hash shares, its corners in the table, and where each plane starts.
    let start_row = inlined!(|r: usize, table: &mut ColumnTable| {
        let (y, rows) = (ys[r], shares(ys[r]));
        if tabled {
            // The rows of corners (upper 0, lower 1) the table does not hold yet.
            for half in table.prepare(y.cy.i0, (first, columns), Q) {
                for c in (0..columns).step_by(S::LANES) {
                    let cell = s.splat_i(first.wrapping_add(c as i32)) + s.iota();
                    let planes = column(cell * prime_x, rows[half]);
                    for (q, &plane) in planes.iter().enumerate() {
                        let at = table.start(half, (q, Q), columns) + c;
                        // SAFETY: the plane starting at `at - c` holds `ColumnTable::stride(columns)`
                        // entries and `c + LANES <= columns + 15 < stride`.
                        unsafe { s.store(table.planes.as_mut_ptr().add(at), plane) };
                    }
                }
            }
        }
        let starts: [usize; P] = std::array::from_fn(|k| table.start(k / Q, (k % Q, Q), columns));
        (row_constants(y), rows, starts)
    });
    let one = s.splat_i(1);
    // `spread_x` of each lane's cell and of the next one (`spread_x(1)` is the prime), both rows
    // of corners hashed.
    let hashed = inlined!(|cell: S::I, rows: [S::I; 2]| {
        let sx = cell * prime_x;
        let both = inlined!(|sx| {
            let (upper, lower) = (column(sx, rows[0]), column(sx, rows[1]));
            array(inlined!(|k| if k < Q { upper[k] } else { lower[k - Q] }))
        });
        (both(sx), both(sx + prime_x))
    });
    // Where a row's blocks of its own start: after the pixels of the block that ran on from the
    // row before.
    let mut from = 0;
    for r in 0..count {
        let (constants, rows, starts) = start_row(r, table);
        // The table's address once a row: read through its borrow, it was loaded again per block.
        let planes = table.planes.as_ptr();
        // The row's own blocks: whole ones, and on the last row the short one at its end.
        let last = r + 1 == count;
        let end = if last { n } else { from + (n - from) / S::LANES * S::LANES };
        let mut col = from;
        while col < end {
            let lanes = (end - col).min(S::LANES);
            // SAFETY: lanes `col..col + lanes` are within every input (asserted above).
            let (cell, fx, u) = unsafe {
                (s.load_first_i(x0, col, lanes), s.load_first(fx, col, lanes), s.load_first(u, col, lanes))
            };
            // The block's first cell (its cells are monotone) and how many registers of the
            // table its cells and their right neighbours span.
            let (a, b) = (x0[col], x0[col + lanes - 1]);
            let base = a.min(b);
            let registers =
                if tabled { registers_spanning::<S>(i64::from(a.max(b)) - i64::from(base) + 2) } else { 0 };
            let index = cell - s.splat_i(base);
            // Where each plane's entries for the block start: `offset + READ <= columns - 2 +
            // READ <= ColumnTable::stride(columns)`, so each plane's reads stay within it.
            let offset = plane_offset(base, first, columns - 2);
            let reads =
                inlined!(|| (starts.map(|start| planes.wrapping_add(start + offset)), (index, index + one)));
            // SAFETY: the picks below read within each plane (above).
            let (left, right) = unsafe {
                match registers {
                    1 => pick_columns::<S, 1, P>(s, reads()),
                    2 => pick_columns::<S, 2, P>(s, reads()),
                    3 => pick_columns::<S, 3, P>(s, reads()),
                    4 => pick_columns::<S, 4, P>(s, reads()),
                    _ => hashed(cell, rows),
                }
            };
            let at = r * n + col;
            let value = pixel(left, right, fx, u, (at, lanes), &constants);
            for o in 0..O {
                // SAFETY: lanes `at..at + lanes` are within every output (asserted above).
                unsafe { emit::<S, ADD>(s, &mut *out[o], (at, lanes), value[o], &add) };
            }
            col += S::LANES;
        }
        if last || end == n {
            from = 0;
            continue;
        }
        // The block that runs past the row's end into the next row: the cells from `end` on read
        // the row's first ones again there (padded, asserted above), and the lanes from `here` on
        // take the next row's constants and rows of corners, hashed.
        let here = n - end;
        // SAFETY: `end < n`, so lanes `end..end + LANES` are within every input's padding.
        let (cell, fx, u) = unsafe {
            (
                s.load_first_i(x0, end, S::LANES),
                s.load_first(fx, end, S::LANES),
                s.load_first(u, end, S::LANES),
            )
        };
        let (mask, next) = (s.first_lanes(here), ys[r + 1]);
        let next_rows = shares(next);
        let rows = array(inlined!(|k| s.select_i(mask, rows[k], next_rows[k])));
        let (left, right) = hashed(cell, rows);
        let at = r * n + end;
        let value = pixel(left, right, fx, u, (at, S::LANES), &select(mask, constants, row_constants(next)));
        for o in 0..O {
            // SAFETY: lanes `at..at + LANES` are within the rows (`r + 1 < count`, `n >= LANES`),
            // so within every output (asserted above).
            unsafe { emit::<S, ADD>(s, &mut *out[o], (at, S::LANES), value[o], &add) };
        }
        from = S::LANES - here;
    }
}

/// Lanes `at..at + lanes` of `out` become `value`, or with `ADD` `add(what they held, value)`.
///
/// # Safety
/// The lanes must be within `out`.
#[inline(always)]
unsafe fn emit<S: Lanes, const ADD: bool>(
    s: S,
    out: &mut [f32],
    (at, lanes): (usize, usize),
    value: S::F,
    add: &impl Fn(S::F, S::F) -> S::F,
) {
    // SAFETY: the lanes are within `out` (the caller's promise).
    unsafe {
        let value = if ADD { add(s.load_first(out, at, lanes), value) } else { value };
        s.store_first(out, at, lanes, value);
    }
}

/// Each lane's entry `index` and `next` of `R` registers of table entries read from each plane's
/// pointer (`R · LANES` entries).
///
/// # Safety
/// Every pointer must be valid for reading `R · LANES` `f32`.
#[inline(always)]
unsafe fn pick_columns<S: Lanes, const R: usize, const P: usize>(
    s: S,
    (reads, (index, next)): ([*const f32; P], (S::I, S::I)),
) -> ([S::F; P], [S::F; P]) {
    let mut left = [s.splat(0.0); P];
    let mut right = [s.splat(0.0); P];
    for k in 0..P {
        // SAFETY: the caller's contract.
        let registers: [S::F; R] = array(inlined!(|r| unsafe { s.load(reads[k].add(S::LANES * r)) }));
        left[k] = s.pick(&registers, index);
        right[k] = s.pick(&registers, next);
    }
    (left, right)
}

/// [`corner_value_2d`](crate::field::basis::value::corner_value_2d) of each lane's hash input.
#[inline(always)]
fn corner_value<S: Lanes>(s: S, h: S::I) -> S::F {
    unit_value(s, mix(s, h))
}

/// [`corner_gradient_2d`](crate::field::basis::gradient::corner_gradient_2d) of each lane's hash
/// input: the 64-entry table's entry at the top six bits of [`mix`], which its last step leaves
/// as they are.
#[inline(always)]
pub(super) fn gradient<S: Lanes>(s: S, h: S::I) -> [S::F; 2] {
    s.gradient_2d(s.shr::<26>(mix_to_last_step(s, h)))
}

/// The blend's constants along the row: `blend_gradients_2d` or `blend_rounded_2d` in lanes.
#[derive(Clone, Copy)]
struct Blend<S: Lanes> {
    s: S,
    rounded: bool,
    scale: S::F,
    /// `fy`, `fy - 1`, `v`, and `8 fy(1 - fy)` as `envelope_value` computes it.
    fy: S::F,
    fy1: S::F,
    v: S::F,
    r8: S::F,
    /// `RoundedRowBlend`'s slopes of the envelope: `[-2 r8, 4 r8, -16 (1 - 2 fy)]`.
    envelope_slopes: [S::F; 3],
}

impl<S: Lanes> Blend<S> {
    #[inline(always)]
    fn new(s: S, kernel: GradientKernel, cy: AxisCell, v: f32) -> Self {
        let r8 = 8.0 * (cy.f * (1.0 - cy.f));
        Self {
            s,
            rounded: kernel == GradientKernel::Rounded,
            scale: s.splat(match kernel {
                GradientKernel::Perlin => std::f32::consts::SQRT_2,
                GradientKernel::Rounded => ROUNDED_SCALE,
            }),
            fy: s.splat(cy.f),
            fy1: s.splat(cy.f - 1.0),
            v: s.splat(v),
            r8: s.splat(r8),
            envelope_slopes: map([-2.0 * r8, 4.0 * r8, -16.0 * (1.0 - 2.0 * cy.f)], inlined!(|c| s.splat(c))),
        }
    }

    /// `a`'s constants where `mask` is set, else `b`'s (the lanes of two rows in one block).
    #[inline(always)]
    fn select(mask: S::M, a: Self, b: Self) -> Self {
        let s = a.s;
        let pick = inlined!(|x: S::F, y: S::F| s.select(mask, x, y));
        Self {
            s,
            rounded: a.rounded,
            scale: a.scale,
            fy: pick(a.fy, b.fy),
            fy1: pick(a.fy1, b.fy1),
            v: pick(a.v, b.v),
            r8: pick(a.r8, b.r8),
            envelope_slopes: array(inlined!(|k| pick(a.envelope_slopes[k], b.envelope_slopes[k]))),
        }
    }

    /// The noise at each lane from its corner gradients `[g00, g10, g01, g11]` (x and y), its
    /// fraction `fx` and faded weight `u`.
    #[inline(always)]
    fn at(&self, [g00, g10, g01, g11]: [(S::F, S::F); 4], fx: S::F, u: S::F) -> S::F {
        let one = self.s.splat(1.0);
        let dot = inlined!(|g: (S::F, S::F), dx: S::F, dy: S::F| g.0 * dx + g.1 * dy);
        let fx1 = fx - one;
        let (n00, n10) = (dot(g00, fx, self.fy), dot(g10, fx1, self.fy));
        let (n01, n11) = (dot(g01, fx, self.fy1), dot(g11, fx1, self.fy1));
        let raw = lerp::<S>(lerp::<S>(n00, n10, u), lerp::<S>(n01, n11, u), self.v);
        let mut value = raw * self.scale;
        if self.rounded {
            let w = fx * (one - fx) * self.r8;
            value = value * (one - w * w);
        }
        clamp_unit(self.s, value)
    }

    /// [`Self::at`] (the same bits) and its gradient per cell, from the faded weight `u` and its
    /// slope `du` along x and the slope `dv` along y: `PerlinRowBlend::new` and `raw_at` per lane,
    /// then `PerlinRowBlend::at` or `RoundedRowBlend::at`; flat where the value is clamped.
    #[inline(always)]
    fn at_with_gradient(
        &self,
        [g00, g10, g01, g11]: [(S::F, S::F); 4],
        fx: S::F,
        (u, du): (S::F, S::F),
        dv: S::F,
    ) -> [S::F; 3] {
        let (one, v, s) = (self.s.splat(1.0), self.v, self.scale);
        let lerp = lerp::<S>;
        // `PerlinRowBlend::new`.
        let y_terms = [g00.1 * self.fy, g10.1 * self.fy, g01.1 * self.fy1, g11.1 * self.fy1];
        let (upper_y, lower_y) = (g10.1 - g00.1, g11.1 - g01.1);
        let bx = lerp(g10.0 - g00.0, g11.0 - g01.0, v);
        let x0 = lerp(upper_y * self.fy - g10.0, lower_y * self.fy1 - g11.0, v);
        let (ay, by) = (lerp(g00.1, g01.1, v), lerp(upper_y, lower_y, v));
        let [ax, bx_s, x0] = [lerp(g00.0, g01.0, v) * s, bx * s, x0 * s];
        let [ay, by, dv] = [ay * s, by * s, dv * s];
        // `raw_at`.
        let fx1 = fx - one;
        let n = [
            g00.0 * fx + y_terms[0],
            g10.0 * fx1 + y_terms[1],
            g01.0 * fx + y_terms[2],
            g11.0 * fx1 + y_terms[3],
        ];
        let (top, bottom) = (lerp(n[0], n[1], u), lerp(n[2], n[3], u));
        let gx = ax + u * bx_s + du * (x0 + bx_s * fx);
        let gy = ay + u * by + dv * (bottom - top);
        let raw = lerp(top, bottom, v);
        let (value, gx, gy) = if self.rounded {
            // `RoundedRowBlend::at`: the product rule, m ∇(raw·s) + (raw·s) ∇m.
            let p = fx * (one - fx);
            let w = p * self.r8;
            let m = one - w * w;
            let scaled = raw * s;
            let q = w * scaled;
            let [x0s, x1s, ys] = self.envelope_slopes;
            let gx = m * gx + q * (x0s + x1s * fx);
            let gy = m * gy + q * (p * ys);
            (scaled * m, gx, gy)
        } else {
            (raw * s, gx, gy)
        };
        let value = clamp_unit(self.s, value);
        let flat = self.s.beyond_unit(value);
        [value, self.s.zero_where(flat, gx), self.s.zero_where(flat, gy)]
    }
}
