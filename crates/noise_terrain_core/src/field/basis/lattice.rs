//! What every lattice basis needs besides the position: seed, fade curve and period.

use crate::field::coord::{AxisCell, usable_period};
use crate::field::fade::Fade;

/// The lattice a basis function is evaluated on: which random numbers (seed), how corners are
/// blended (fade) and whether the lattice repeats (period, in cells).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lattice {
    /// Seed of the hash; different seeds give unrelated fields.
    pub seed: u32,
    /// Curve applied to the position inside a cell before blending.
    pub fade: Fade,
    /// With `Some(p)`, corner indices wrap modulo `p` on every axis and the noise tiles every `p`
    /// units. `None`, `Some(0)` and periods above `i32::MAX` are an unbounded lattice.
    pub period: Option<u32>,
    /// The shape of each point's contribution to 2-D gradient noise (other bases ignore it).
    pub kernel: super::GradientKernel,
}

impl Lattice {
    /// An unbounded lattice with the given seed and fade.
    pub fn new(seed: u32, fade: Fade) -> Self {
        Self { seed, fade, period: None, kernel: super::GradientKernel::Perlin }
    }

    /// A lattice index, wrapped into `0..period` when the lattice is periodic.
    #[inline(always)]
    pub(crate) fn wrap(&self, i: i64) -> i32 {
        match usable_period(self.period) {
            Some(p) => i.rem_euclid(i64::from(p)) as i32,
            None => i as i32,
        }
    }

    /// The four corners of cell `(x0, y0)` whose right and lower neighbours are `x1` and `y1`
    /// (wrapped already on a periodic lattice), in the order `[x0 y0, x1 y0, x0 y1, x1 y1]`.
    #[inline(always)]
    pub(crate) fn corners<T>(
        &self,
        [x0, x1]: [i32; 2],
        [y0, y1]: [i32; 2],
        corner: impl Fn(&Lattice, i32, i32) -> T,
    ) -> [T; 4] {
        [corner(self, x0, y0), corner(self, x1, y0), corner(self, x0, y1), corner(self, x1, y1)]
    }

    /// Splits one coordinate into its cell and fraction on this lattice.
    #[inline(always)]
    pub(crate) fn axis(&self, x: f64) -> AxisCell {
        AxisCell::new(x, self.period)
    }
}

/// The gradient of a trilinear blend of eight corners, each a value `n` with its own gradient
/// `[∂x, ∂y, ∂z]`, in the order `x0y0z0, x1y0z0, x0y1z0, x1y1z0`, then the same at `z1`; the
/// blend runs along x (`u`), then y (`v`), then z (`w`), whose slopes are `du`, `dv`, `dw`.
/// Value and gradient noise in 3-D share it.
#[inline(always)]
pub(crate) fn trilinear_gradient(
    c: &[(f32, [f32; 3]); 8],
    [u, v, w]: [f32; 3],
    [du, dv, dw]: [f32; 3],
) -> [f32; 3] {
    // Along x: the value and gradient of one pair.
    let pair = |lo: (f32, [f32; 3]), hi: (f32, [f32; 3])| {
        let value = lerp(lo.0, hi.0, u);
        let g = std::array::from_fn::<f32, 3, _>(|k| {
            lerp(lo.1[k], hi.1[k], u) + if k == 0 { du * (hi.0 - lo.0) } else { 0.0 }
        });
        (value, g)
    };
    // Along y: one plane.
    let plane = |z: usize| {
        let (top, gt) = pair(c[4 * z], c[4 * z + 1]);
        let (bottom, gb) = pair(c[4 * z + 2], c[4 * z + 3]);
        let g = std::array::from_fn::<f32, 3, _>(|k| {
            lerp(gt[k], gb[k], v) + if k == 1 { dv * (bottom - top) } else { 0.0 }
        });
        (lerp(top, bottom, v), g)
    };
    let ((p0, g0), (p1, g1)) = (plane(0), plane(1));
    std::array::from_fn(|k| lerp(g0[k], g1[k], w) + if k == 2 { dw * (p1 - p0) } else { 0.0 })
}

/// `a + t (b - a)`: exact at `t = 0`, which keeps gradient noise exactly 0 on lattice points.
#[inline(always)]
pub(crate) fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + t * (b - a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::basis::{Basis, Worley};

    #[test]
    fn a_period_beyond_i32_is_no_period_for_every_basis() {
        let worley = Worley::default();
        for basis in Basis::ALL {
            let huge = Lattice { period: Some(1 << 31), ..Lattice::new(7, Fade::Quintic) };
            let none = Lattice::new(7, Fade::Quintic);
            for (x, y) in [(-0.5, 0.25), (3.7, -2.2), (-1e6, 5e5)] {
                let (a, b) = (basis.unit_2d(&huge, &worley, x, y), basis.unit_2d(&none, &worley, x, y));
                assert_eq!(a.to_bits(), b.to_bits(), "{basis:?} at ({x}, {y})");
                let (a, b) =
                    (basis.unit_3d(&huge, &worley, x, y, -x), basis.unit_3d(&none, &worley, x, y, -x));
                assert_eq!(a.to_bits(), b.to_bits(), "{basis:?} at ({x}, {y}, {})", -x);
            }
        }
    }
}
