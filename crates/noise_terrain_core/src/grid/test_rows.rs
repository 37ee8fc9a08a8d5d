//! Rows of pixels split into lattice cells as the grids split them, for the SIMD kernels' tests.

use crate::field::basis::simplex::skew_2d;
use crate::field::coord::AxisCell;
use crate::field::fade::Fade;

/// A row of `n` pixels `step` cells apart from `x` on an unbounded lattice, as the grids split it:
/// cells, fractions and faded weights.
pub(crate) fn split_cells(x: f64, step: f64, n: usize, fade: Fade) -> (Vec<i32>, Vec<f32>, Vec<f32>) {
    let cells: Vec<AxisCell> = (0..n).map(|k| AxisCell::new(x + k as f64 * step, None)).collect();
    let fx: Vec<f32> = cells.iter().map(|c| c.f).collect();
    (cells.iter().map(|c| c.i0).collect(), fx.clone(), fx.iter().map(|&f| fade.apply(f)).collect())
}

/// The first corners `(i, j)` and offsets `(x0, y0)` of a row of `n` pixels `step` lattice units
/// apart from `(x, y)`, as the grids' skew gives them.
pub(crate) fn skewed_row(x: f64, y: f64, step: f64, n: usize) -> ([Vec<i32>; 2], [Vec<f32>; 2]) {
    let corners: Vec<_> = (0..n).map(|k| skew_2d(x + k as f64 * step, y)).collect();
    let (i, j) = (corners.iter().map(|c| c.0).collect(), corners.iter().map(|c| c.1).collect());
    ([i, j], [corners.iter().map(|c| c.2).collect(), corners.iter().map(|c| c.3).collect()])
}
