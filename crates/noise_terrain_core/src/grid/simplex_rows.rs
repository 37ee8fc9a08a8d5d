//! Simplex noise's row path: the skew and the corners of one octave over a row, or over a
//! batch of whole rows of a narrow grid.

use super::*;
use crate::grid::lanes::Twice;

/// How many whole rows of a grid `width` pixels wide one call fills: several for simplex noise
/// on the row path (without slopes), whose corners take any points in any order, so that a
/// chunk-sized grid's rows (65 pixels: eight blocks of eight and one of a single pixel) run
/// through the corners in full blocks and pay each octave's set-up once per batch instead of once
/// per row; one otherwise. The bits are the same either way.
pub(super) fn rows_at_once(sampler: &FieldSampler, width: usize, height: usize) -> usize {
    let s = &sampler.settings;
    let simplex_rows = s.basis == Basis::Simplex
        && sampler.filter.is_none()
        && s.row_path()
        && !sampler.fractal.kind.needs_slopes();
    if !simplex_rows { 1 } else { super::rows::batch_of(width, height) }
}

/// One octave of simplex noise over the rows at `pys` (one or a batch): the skew in one loop per
/// row (from the octave's x cells and their shares of the skew, which the rows of the grid share)
/// and the corners in another over all the rows at once; with AVX-512 the corners' gradients come
/// from the octave's table of lattice points, which the next rows share, where its cells are wide
/// enough for the table (row by row then: the table follows the rows in order).
#[inline(always)]
pub(super) fn simplex_layer(
    (lattice, octave, isa): (&Lattice, usize, Isa),
    xs: &[f64],
    scale: f64,
    pys: impl Iterator<Item = f64>,
    scratch: &mut RowScratch,
    layer: &mut [f32],
) {
    let RowScratch { skews, i0, i1, fx, u, .. } = scratch;
    skews[octave].split(xs, scale);
    skews[octave].skew_rows(pys, [i0, i1], [fx, u]);
    let n = xs.len();
    #[cfg(target_arch = "x86_64")]
    if isa != Isa::BASELINE {
        let width = layer.len();
        let (i, j) = (&scratch.i0[..width], &scratch.i1[..width]);
        let offsets = (&scratch.fx[..width], &scratch.u[..width]);
        // With AVX-512 (and its emulation), the octave's table row by row where it serves the
        // octave's cells: it follows rows in order (a batch's blocks may straddle two rows, not
        // monotone across the seam). AVX2 hashes every corner: reading the table through its
        // three-register picks made simplex grids 3% to 5% slower (Xeon model 167, 2026-12-06).
        let tabled =
            isa.wide() && super::kernels::SimplexTable::serves((i[0].min(i[n - 1]), i[0].max(i[n - 1])), n);
        let table = &mut scratch.simplex_tables[octave];
        // Two blocks side by side with AVX-512 (the corners are a long chain of dependent
        // operations): 1024² and 129² grids 5% to 7% faster on an Intel Xeon (2026-12-07).
        return super::lanes::with_lanes!(isa, wide as Twice, |s| {
            if tabled {
                for (r, layer) in layer.chunks_mut(n).enumerate() {
                    let row = r * n..(r + 1) * n;
                    let (i, j) = (&i[row.clone()], &j[row.clone()]);
                    let offsets = (&offsets.0[row.clone()], &offsets.1[row]);
                    super::kernels::simplex::simplex_row(
                        s,
                        lattice.seed,
                        (i, j),
                        offsets,
                        Some(&mut *table),
                        layer,
                    )
                }
            } else {
                super::kernels::simplex::simplex_row(s, lattice.seed, (i, j), offsets, None, layer)
            }
        });
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (isa, octave);
    let corners = scratch.i0.iter().zip(&scratch.i1).zip(scratch.fx.iter().zip(&scratch.u));
    for (o, ((&i, &j), (&x0, &y0))) in layer.iter_mut().zip(corners) {
        *o = corners_2d(lattice.seed, i, j, x0, y0);
    }
}
