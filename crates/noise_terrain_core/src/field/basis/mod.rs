//! Basis functions: the single-layer noises that fractals sum.
//!
//! Each file holds one basis. [`Basis`] picks one at run time and maps its output to `[0, 1]`
//! ([`Basis::unit_2d`]) for fBm and heightmaps, or to `[-1, 1]` ([`Basis::signed_2d`]) for the
//! multifractals, which need noise centred on zero.

pub(crate) mod gradient;
pub(crate) mod gradient_kernel;
pub(crate) mod gradient_table;
pub(crate) mod lattice;
pub(crate) mod simplex;
pub(crate) mod value;
pub(crate) mod worley;

pub use gradient::{gradient_1d, gradient_2d_noise, gradient_3d_noise};
pub use gradient_kernel::GradientKernel;
pub use lattice::Lattice;
pub use simplex::{simplex_2d, simplex_3d};
pub use value::{value_1d, value_2d, value_3d};
pub use worley::{DistanceMetric, Worley, WorleyReturn, worley_2d, worley_3d};

use crate::field::dual::{Dual, Jet};

/// Which single-layer noise a field is built from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum Basis {
    /// Random values on the lattice, blended: [`value_2d`]. Cheap; the grid shows faintly.
    Value,
    /// Random unit gradients on the lattice (Perlin): [`gradient_2d_noise`]. No visible grid.
    #[default]
    Gradient,
    /// Gradients on a triangle lattice with radial kernels: [`simplex_2d`]. No fade, no period.
    Simplex,
    /// Distances to jittered feature points: [`worley_2d`]. Cells, cracks, pebbles.
    Worley,
}

impl Basis {
    /// Every basis, in the order of the inspector's chips.
    pub const ALL: [Basis; 4] = [Basis::Value, Basis::Gradient, Basis::Simplex, Basis::Worley];

    /// The basis at `(x, y)` in `[0, 1]`.
    #[inline(always)]
    pub fn unit_2d(self, lattice: &Lattice, worley: &Worley, x: f64, y: f64) -> f32 {
        match self {
            Basis::Value => value_2d(lattice, x, y),
            Basis::Gradient => gradient_2d_noise(lattice, x, y) * 0.5 + 0.5,
            Basis::Simplex => simplex_2d(lattice, x, y) * 0.5 + 0.5,
            Basis::Worley => worley_2d(lattice, worley, x, y),
        }
    }

    /// The basis at `(x, y)` in `[-1, 1]`.
    #[inline(always)]
    pub fn signed_2d(self, lattice: &Lattice, worley: &Worley, x: f64, y: f64) -> f32 {
        match self {
            Basis::Gradient => gradient_2d_noise(lattice, x, y),
            Basis::Simplex => simplex_2d(lattice, x, y),
            Basis::Value | Basis::Worley => self.unit_2d(lattice, worley, x, y) * 2.0 - 1.0,
        }
    }

    /// [`unit_2d`](Self::unit_2d) and its exact gradient per lattice unit (one-sided at creases:
    /// Worley's cell borders, clamped values, the step fade's jumps).
    #[inline]
    pub fn unit_2d_with_gradient(self, lattice: &Lattice, worley: &Worley, x: f64, y: f64) -> Dual {
        let half = |d: Dual| Dual::new(d.value * 0.5 + 0.5, [d.gradient[0] * 0.5, d.gradient[1] * 0.5]);
        match self {
            Basis::Value => value::value_2d_with_gradient(lattice, x, y),
            Basis::Gradient => half(gradient::gradient_2d_with_gradient(lattice, x, y)),
            Basis::Simplex => half(simplex::simplex_2d_with_gradient(x, y, lattice.seed)),
            Basis::Worley => worley::worley_2d_with_gradient(lattice, worley, x, y),
        }
    }

    /// [`signed_2d`](Self::signed_2d) and its exact gradient per lattice unit.
    #[inline]
    pub fn signed_2d_with_gradient(self, lattice: &Lattice, worley: &Worley, x: f64, y: f64) -> Dual {
        match self {
            Basis::Gradient => gradient::gradient_2d_with_gradient(lattice, x, y),
            Basis::Simplex => simplex::simplex_2d_with_gradient(x, y, lattice.seed),
            Basis::Value | Basis::Worley => {
                let d = self.unit_2d_with_gradient(lattice, worley, x, y);
                Dual::new(d.value * 2.0 - 1.0, [d.gradient[0] * 2.0, d.gradient[1] * 2.0])
            }
        }
    }

    /// [`signed_2d_with_gradient`](Self::signed_2d_with_gradient) (the same bits) and the
    /// Hessian per lattice unit (zero at clamps and in the cell return).
    #[inline]
    pub(crate) fn signed_2d_with_hessian(self, lattice: &Lattice, worley: &Worley, x: f64, y: f64) -> Jet {
        match self {
            Basis::Value => value::value_2d_with_hessian(lattice, x, y).affine(2.0, -1.0),
            Basis::Gradient => gradient::gradient_2d_with_hessian(lattice, x, y),
            Basis::Simplex => simplex::simplex_2d_with_hessian(x, y, lattice.seed),
            Basis::Worley => worley::worley_2d_with_hessian(lattice, worley, x, y).affine(2.0, -1.0),
        }
    }

    /// The basis at `x` in `[0, 1]`. Simplex and Worley have no 1-D form here: they are their
    /// 2-D noise along `y = 0`.
    #[inline(always)]
    pub fn unit_1d(self, lattice: &Lattice, worley: &Worley, x: f64) -> f32 {
        match self {
            Basis::Value => value_1d(lattice, x),
            Basis::Gradient => gradient_1d(lattice, x) * 0.5 + 0.5,
            Basis::Simplex | Basis::Worley => self.unit_2d(lattice, worley, x, 0.0),
        }
    }

    /// The basis at `(x, y, z)` in `[0, 1]`.
    #[inline(always)]
    pub fn unit_3d(self, lattice: &Lattice, worley: &Worley, x: f64, y: f64, z: f64) -> f32 {
        match self {
            Basis::Value => value_3d(lattice, x, y, z),
            Basis::Gradient => gradient_3d_noise(lattice, x, y, z) * 0.5 + 0.5,
            Basis::Simplex => simplex_3d(lattice, x, y, z) * 0.5 + 0.5,
            Basis::Worley => worley_3d(lattice, worley, x, y, z),
        }
    }

    /// [`unit_3d`](Self::unit_3d) and its exact gradient per lattice unit (one-sided at creases).
    #[inline]
    pub fn unit_3d_with_gradient(
        self,
        lattice: &Lattice,
        worley: &Worley,
        x: f64,
        y: f64,
        z: f64,
    ) -> Dual<3> {
        let half = |d: Dual<3>| Dual::new(d.value * 0.5 + 0.5, d.gradient.map(|g| g * 0.5));
        match self {
            Basis::Value => value::value_3d_with_gradient(lattice, x, y, z),
            Basis::Gradient => half(gradient::gradient_3d_with_gradient(lattice, x, y, z)),
            Basis::Simplex => half(simplex::simplex_3d_with_gradient(lattice, x, y, z)),
            Basis::Worley => worley::worley_3d_with_gradient(lattice, worley, x, y, z),
        }
    }

    /// Whether the basis honours a lattice period (simplex's triangle lattice has no square one).
    pub fn supports_period(self) -> bool {
        !matches!(self, Basis::Simplex)
    }

    /// Short lower-case name, as the export tool's `--basis` flag spells it.
    pub fn name(self) -> &'static str {
        match self {
            Basis::Value => "value",
            Basis::Gradient => "gradient",
            Basis::Simplex => "simplex",
            Basis::Worley => "worley",
        }
    }
}

crate::field::names::parse_by_name!(Basis, WorleyReturn, DistanceMetric, GradientKernel);
