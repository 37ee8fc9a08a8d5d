//! Value and gradient noise's row path (and the runs of equal cells Worley noise shares): the
//! octave's cells along x, then the level's own rows, the runs, or every pixel on its own where
//! cells are only a few pixels wide.

use super::worley_rows::{
    WORLEY_PER_PIXEL_BELOW, WORLEY_TABLE_BELOW, WorleyColumns, finish_worley, nearest_points,
    worley_per_pixel,
};
use super::*;

/// What a row of heights does with its octave's values: writes them, or adds them to the fBm's
/// sums there as the fractal adds an octave (`sum + amplitude · (n · ½ + ½)`, the same operations
/// in the same order as `FractalParams::raw`), so that the octave's layer is never stored and
/// read back. Only the level's own rows add (see [`simd_lattice_layer`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Octave {
    /// The values written.
    Layer,
    /// Added to the fBm's running sums with this amplitude.
    Fbm(f32),
}

/// Swaps the row's working buffers (`i0`, `i1`, `fx`, `u`) with the cells kept for `octave`.
#[inline(always)]
pub(super) fn swap_cells(scratch: &mut RowScratch, octave: usize) {
    let RowScratch { i0, i1, fx, u, x_cells, .. } = scratch;
    let kept = &mut x_cells[octave];
    std::mem::swap(i0, &mut kept.i0);
    std::mem::swap(i1, &mut kept.i1);
    std::mem::swap(fx, &mut kept.fx);
    std::mem::swap(u, &mut kept.u);
}

/// One octave of value, gradient or Worley noise over the row at base-lattice y `ys[0]` (or the
/// batch of rows at `ys`: value and gradient noise's SIMD rows only, see `rows_at_once`; the
/// octave's y is `y · scale`): the octave's cells along x split for the row segment `xs` unless
/// kept already, then
/// the level's own rows ([`simd_lattice_layer`]) or Worley's per-pixel search, which read the
/// kept cells where they are, or the runs ([`cell_layer`]), which read them from the row's
/// working buffers (swapped in and back).
#[inline(always)]
pub(super) fn lattice_layer(
    sampler: &FieldSampler,
    (octave, isa): (usize, Isa),
    (xs, scale): (&[f64], f64),
    ys: &[f64],
    scratch: &mut RowScratch,
    (layer, into): (&mut [f32], Octave),
) {
    let (s, lattice) = (&sampler.settings, &sampler.lattices[octave]);
    #[cfg(target_arch = "x86_64")]
    if takes_simd_rows(s.basis, lattice, isa) {
        // Padded for a stream of rows (see `column_table::Row`).
        let padding = if ys.len() > 1 { column_table::STREAM_PADDING } else { 0 };
        scratch.x_cells[octave].split(xs, scale, lattice, padding);
        let RowScratch { x_cells, column_tables, row_ys, .. } = scratch;
        row_ys.clear();
        for &y in ys {
            let cy = AxisCell::new(y * scale, lattice.period);
            row_ys.push(column_table::RowY { cy, v: lattice.fade.apply(cy.f) });
        }
        return simd_lattice_layer(
            (s.basis, lattice, isa),
            (&x_cells[octave], row_ys),
            &mut column_tables[octave],
            (layer, into),
        );
    }
    // Only value and gradient noise's SIMD rows come in batches (`rows_at_once`) or add to the
    // sums (see `Octave`).
    assert!(ys.len() == 1 && into == Octave::Layer, "one row, written");
    let (width, py) = (layer.len(), ys[0] * scale);
    scratch.x_cells[octave].split(xs, scale, lattice, 0);
    // Cells a few pixels wide: every pixel searches on its own. With AVX2 and AVX-512 the
    // per-pixel search reads a table of the row's feature points, and pays at wider cells.
    let worley_below = if isa == Isa::BASELINE { WORLEY_PER_PIXEL_BELOW } else { WORLEY_TABLE_BELOW };
    let short =
        lattice.period.is_none() && runs_shorter_than(&scratch.x_cells[octave].i0[..width], worley_below);
    if s.basis == Basis::Worley && short {
        let search = &sampler.worley_search;
        let RowScratch { x_cells, f1, f2, nearest, .. } = scratch;
        let cells = (&x_cells[octave].i0[..width], &x_cells[octave].fx[..width]);
        let (f1, f2, nearest) = (&mut f1[..width], &mut f2[..width], &mut nearest[..width]);
        worley_per_pixel(
            (search, isa),
            lattice,
            split(py),
            cells,
            (&mut *f1, &mut *f2, &mut *nearest),
            #[cfg(target_arch = "x86_64")]
            &mut scratch.worley_columns[octave],
        );
        return finish_worley(search, f1, f2, nearest, layer);
    }
    swap_cells(scratch, octave);
    cell_layer(sampler, octave, xs, scale, py, scratch, layer);
    swap_cells(scratch, octave);
}

/// Whether value or gradient noise's heights take the level's own rows at every octave on a grid
/// `width` pixels wide, so that batches of whole rows stream through the kernel's blocks
/// ([`column_table::Row`]): a 65-pixel row alone is four blocks of 16 and one of a single pixel
/// with AVX-512, a quarter more blocks than its pixels need.
pub(super) fn streams_rows(sampler: &FieldSampler, isa: Isa, width: usize) -> bool {
    let s = &sampler.settings;
    every_octave_takes_simd_rows(sampler, isa)
        && width >= 16
        && s.row_path()
        && !sampler.fractal.kind.needs_slopes()
}

/// Whether value or gradient noise's every octave takes the level's own rows (see
/// [`takes_simd_rows`]): then whole rows can stream ([`streams_rows`]) and fBm's octaves add to
/// the sums in the kernel ([`Octave::Fbm`]).
pub(super) fn every_octave_takes_simd_rows(sampler: &FieldSampler, isa: Isa) -> bool {
    let octaves = &sampler.lattices[..sampler.fractal.octave_count() as usize];
    #[cfg(target_arch = "x86_64")]
    return octaves.iter().all(|lattice| takes_simd_rows(sampler.settings.basis, lattice, isa));
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (isa, octaves);
        false
    }
}

/// Whether value or gradient noise's octave on `lattice` takes the level's own rows
/// ([`simd_lattice_layer`]): at the AVX2 and AVX-512 levels, on an unbounded lattice.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn takes_simd_rows(basis: Basis, lattice: &Lattice, isa: Isa) -> bool {
    isa != Isa::BASELINE && lattice.period.is_none() && matches!(basis, Basis::Value | Basis::Gradient)
}

/// One octave of value or gradient noise over the rows `ys` (one, or a batch streamed through
/// the kernel's blocks) with the level's own rows (`kernels/lattice.rs`), from the octave's
/// cells kept in `cells`, read where they are, and its table of corners `columns` (not swapped
/// into the row's working buffers: that copy for every row and octave costs 65² grids 7% to 15%).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn simd_lattice_layer(
    (basis, lattice, isa): (Basis, &Lattice, Isa),
    (cells, ys): (&XCells, &[column_table::RowY]),
    columns: &mut column_table::ColumnTable,
    out: (&mut [f32], Octave),
) {
    let (x0, fx, u) = (&cells.i0[..], &cells.fx[..], &cells.u[..]);
    let row = column_table::Row { x0, fx, u, ys };
    let (seed, kernel) = (lattice.seed, lattice.kernel);
    super::lanes::with_lanes!(isa, |s| match basis {
        Basis::Gradient => super::kernels::lattice::gradient_row(s, (seed, kernel), row, columns, out),
        Basis::Value => super::kernels::lattice::value_row(s, seed, row, columns, out),
        Basis::Simplex | Basis::Worley => unreachable!("value and gradient noise only"),
    })
}

/// One octave of value, gradient or Worley noise over the row, once `scratch` holds the row's
/// cells along x (`i0`, `i1`, `fx`, `u`; [`XCells::split`], swapped in): the pixels are split
/// into runs that share a lattice cell, whose corners (or feature points) are looked up once, or
/// where cells are a few pixels wide every pixel looks up its own. (Value and gradient noise at
/// the SIMD levels take [`simd_lattice_layer`] instead, and Worley noise in narrow cells its
/// per-pixel search: see [`lattice_layer`].)
#[inline(always)]
pub(super) fn cell_layer(
    sampler: &FieldSampler,
    octave: usize,
    xs: &[f64],
    scale: f64,
    py: f64,
    scratch: &mut RowScratch,
    layer: &mut [f32],
) {
    let (s, width, lattice) = (&sampler.settings, layer.len(), &sampler.lattices[octave]);
    let fade = lattice.fade;
    let cy = AxisCell::new(py, lattice.period);
    let v = fade.apply(cy.f);
    // Cells a few pixels wide: every pixel on its own (see the thresholds).
    let short = |pixels| lattice.period.is_none() && runs_shorter_than(&scratch.i0[..width], pixels);
    if s.basis == Basis::Value && short(VALUE_PER_PIXEL_BELOW) {
        let cells = (&scratch.i0[..width], &scratch.u[..width]);
        return value_per_pixel(lattice, [cy.i0, cy.i1], v, cells, layer);
    }
    if s.basis == Basis::Gradient && short(GRADIENT_PER_PIXEL_BELOW) {
        let cells = (&scratch.i0[..width], &scratch.fx[..width], &scratch.u[..width]);
        return gradient_per_pixel(lattice, cy, v, cells, layer);
    }
    // Worley's search radius, jitter and bounds come from the sampler, computed once: at fine
    // octaves a run is a few pixels and computing them per run cost a quarter of the time.
    let search = &sampler.worley_search;
    let mut columns = WorleyColumns { first: i64::MIN };
    let mut band = std::mem::take(&mut scratch.bands[octave]);
    let band_ready = s.basis == Basis::Worley && {
        // The row's cells, unwrapped, from its two ends (a row's positions are monotone).
        let (a, b) = (split(xs[0] * scale).0, split(xs[width - 1] * scale).0);
        band.prepare(search, lattice, split(py).0, (i64::from(a.min(b)), i64::from(a.max(b))), width)
    };
    let mut start = 0;
    while start < width {
        let end = run_end(&scratch.i0[..width], start, lattice.period.is_none());
        let x0 = scratch.i0[start];
        let x1 = if lattice.period.is_some() { scratch.i1[start] } else { x0 + 1 };
        let (fx, u) = (&scratch.fx[start..end], &scratch.u[start..end]);
        let out = &mut layer[start..end];
        match s.basis {
            Basis::Gradient => {
                let g = lattice.corners([x0, x1], [cy.i0, cy.i1], corner_gradient_2d);
                // The kernel is matched outside the pixel loop, so that each loop vectorises.
                let pixels = out.iter_mut().zip(fx).zip(u);
                match lattice.kernel {
                    GradientKernel::Perlin => {
                        pixels.for_each(|((o, &fx), &u)| *o = blend_gradients_2d(&g, fx, cy.f, u, v))
                    }
                    GradientKernel::Rounded => {
                        pixels.for_each(|((o, &fx), &u)| *o = blend_rounded_2d(&g, fx, cy.f, u, v))
                    }
                }
            }
            Basis::Value => {
                let c = lattice.corners([x0, x1], [cy.i0, cy.i1], corner_value_2d);
                for (o, &u) in out.iter_mut().zip(u) {
                    *o = blend_values_2d(&c, u, v) * 2.0 - 1.0;
                }
            }
            Basis::Simplex => unreachable!("simplex noise has its own row path"),
            Basis::Worley => {
                // Worley's neighbourhood needs the unwrapped cell (a periodic lattice wraps `i0`).
                let cell = (split(xs[start] * scale).0, split(py));
                columns.update(search, lattice, cell, band_ready.then_some(&band), scratch);
                nearest_points(search, scratch, start..end);
                let (f1, f2, nearest) =
                    (&scratch.f1[start..end], &scratch.f2[start..end], &scratch.nearest[start..end]);
                finish_worley(search, f1, f2, nearest, out);
            }
        }
        start = end;
    }
    scratch.bands[octave] = band;
}

/// At the baseline level (AVX2 and AVX-512 have rows of their own), value noise in cells
/// narrower than this many pixels (on average along the row) takes the per-pixel path
/// ([`value_per_pixel`]). Measured on a Zen 4 EPYC (AVX-512), fBm of 5 octaves:
/// 16 and 40 beat the run path at 1024² and in 129² chunks by 1.13x to 1.20x (40 a little
/// ahead at 1024², where it also takes the 32-pixel octave), every octave per pixel loses (0.83x
/// to 0.89x).
pub(super) const VALUE_PER_PIXEL_BELOW: usize = 40;

/// At the baseline level (AVX2 and AVX-512 have rows of their own), gradient noise in cells
/// narrower than this many pixels takes the per-pixel path
/// ([`gradient_per_pixel`]): its corner gradients come from a table, which the pixel loop reads
/// one lane at a time, so it pays only where runs are a few pixels (a 65² grid's finest octaves:
/// 2x there; 2 and 8 measured slower, per pixel everywhere 2x slower at 1024²).
pub(super) const GRADIENT_PER_PIXEL_BELOW: usize = 4;

/// Whether the runs of equal cells in a row (`cells`, never decreasing or never increasing: an
/// unbounded lattice) are on average shorter than `pixels`.
#[inline(always)]
pub(super) fn runs_shorter_than(cells: &[i32], pixels: usize) -> bool {
    let runs = (i64::from(cells[cells.len() - 1]) - i64::from(cells[0])).unsigned_abs() + 1;
    (cells.len() as u64) < runs.saturating_mul(pixels as u64)
}

/// One octave of value noise over a row of short runs (an unbounded lattice): every pixel
/// hashes its own four corners (`cells`: each pixel's cell and faded x weight; `[y0, y1]` and
/// `v` the row's), in one loop that vectorises. Where a cell spans a few pixels this costs less
/// than finding each run's end and looking its corners up once; the corners are
/// [`corner_value_2d`]'s bits.
#[inline(always)]
pub(super) fn value_per_pixel(
    lattice: &Lattice,
    [y0, y1]: [i32; 2],
    v: f32,
    (x0, u): (&[i32], &[f32]),
    layer: &mut [f32],
) {
    for ((o, &x0), &u) in layer.iter_mut().zip(x0).zip(u) {
        let c = lattice.corners([x0, x0 + 1], [y0, y1], corner_value_2d);
        *o = blend_values_2d(&c, u, v) * 2.0 - 1.0;
    }
}

/// One octave of gradient noise over a row of short runs (an unbounded lattice), as
/// [`value_per_pixel`]: each pixel (`cells`: its cell, fraction and faded weight) looks up its own
/// four corner gradients, [`corner_gradient_2d`]'s bits, and blends them with the kernel.
#[inline(always)]
pub(super) fn gradient_per_pixel(
    lattice: &Lattice,
    cy: AxisCell,
    v: f32,
    (x0, fx, u): (&[i32], &[f32], &[f32]),
    layer: &mut [f32],
) {
    let corners = |x0: i32| lattice.corners([x0, x0 + 1], [cy.i0, cy.i1], corner_gradient_2d);
    let cells = x0.iter().zip(fx).zip(u);
    // The kernel is matched outside the pixel loop, as on the run path.
    match lattice.kernel {
        GradientKernel::Perlin => {
            for (o, ((&x0, &fx), &u)) in layer.iter_mut().zip(cells) {
                *o = blend_gradients_2d(&corners(x0), fx, cy.f, u, v);
            }
        }
        GradientKernel::Rounded => {
            for (o, ((&x0, &fx), &u)) in layer.iter_mut().zip(cells) {
                *o = blend_rounded_2d(&corners(x0), fx, cy.f, u, v);
            }
        }
    }
}
