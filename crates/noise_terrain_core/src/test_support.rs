//! Helpers shared by the unit tests: a tiny deterministic PRNG, statistics, and rows of pixels
//! split into lattice cells as the grids split them.

use crate::field::basis::simplex::skew_2d;
use crate::field::coord::AxisCell;
use crate::field::fade::Fade;

/// SplitMix64: deterministic random `u64`s for test inputs.
pub(crate) struct SplitMix(pub u64);

impl SplitMix {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    pub(crate) fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo)
    }
}

/// `n` points uniform in `[-extent, extent)³`.
pub(crate) fn random_points(n: usize, seed: u64, extent: f64) -> Vec<[f64; 3]> {
    let mut rng = SplitMix(seed);
    (0..n)
        .map(|_| [rng.range(-extent, extent), rng.range(-extent, extent), rng.range(-extent, extent)])
        .collect()
}

/// Pearson correlation of two equally long series.
pub(crate) fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

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
