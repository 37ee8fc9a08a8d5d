//! What every lattice basis needs besides the position: seed, fade curve and period.

use crate::coord::AxisCell;
use crate::fade::Fade;

/// The lattice a basis function is evaluated on: which random numbers (seed), how corners are
/// blended (fade) and whether the lattice repeats (period, in cells).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lattice {
    /// Seed of the hash; different seeds give unrelated fields.
    pub seed: u32,
    /// Curve applied to the position inside a cell before blending.
    pub fade: Fade,
    /// With `Some(p)`, corner indices wrap modulo `p` on every axis and the noise tiles every `p`
    /// units. `None` (or `Some(0)`) is an unbounded lattice.
    pub period: Option<u32>,
}

impl Lattice {
    /// An unbounded lattice with the given seed and fade.
    pub fn new(seed: u32, fade: Fade) -> Self {
        Self { seed, fade, period: None }
    }

    /// A lattice index, wrapped into `0..period` when the lattice is periodic.
    #[inline(always)]
    pub(crate) fn wrap(&self, i: i64) -> i32 {
        match self.period {
            Some(p) if p > 0 => i.rem_euclid(p as i64) as i32,
            _ => i as i32,
        }
    }

    /// Splits one coordinate into its cell and fraction on this lattice.
    #[inline(always)]
    pub(crate) fn axis(&self, x: f64) -> AxisCell {
        AxisCell::new(x, self.period)
    }
}

/// `a + t (b - a)`: exact at `t = 0`, which keeps gradient noise exactly 0 on lattice points.
#[inline(always)]
pub(crate) fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + t * (b - a)
}
