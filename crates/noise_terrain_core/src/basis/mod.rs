//! Basis functions: the single-layer noises that fractals sum.
//!
//! Each file holds one basis in 1-D, 2-D and 3-D. [`Basis`] picks one at run time and maps its
//! output to `[0, 1]`, the range the fractals and heightmaps work in.

mod gradient;
mod gradient_table;
mod lattice;
mod value;

pub use gradient::{gradient_1d, gradient_2d_noise, gradient_3d_noise};
pub use lattice::Lattice;
pub use value::{value_1d, value_2d, value_3d};

/// Which single-layer noise a field is built from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum Basis {
    /// Random values on the lattice, blended: [`value_2d`]. Cheap; the grid shows faintly.
    Value,
    /// Random unit gradients on the lattice (Perlin): [`gradient_2d_noise`]. No visible grid.
    #[default]
    Gradient,
}

impl Basis {
    /// Every basis, in the order of the inspector's chips.
    pub const ALL: [Basis; 2] = [Basis::Value, Basis::Gradient];

    /// The basis at `x`, mapped to `[0, 1]`.
    #[inline(always)]
    pub fn unit_1d(self, lattice: &Lattice, x: f64) -> f32 {
        match self {
            Basis::Value => value_1d(lattice, x),
            Basis::Gradient => gradient_1d(lattice, x) * 0.5 + 0.5,
        }
    }

    /// The basis at `(x, y)`, mapped to `[0, 1]`.
    #[inline(always)]
    pub fn unit_2d(self, lattice: &Lattice, x: f64, y: f64) -> f32 {
        match self {
            Basis::Value => value_2d(lattice, x, y),
            Basis::Gradient => gradient_2d_noise(lattice, x, y) * 0.5 + 0.5,
        }
    }

    /// The basis at `(x, y, z)`, mapped to `[0, 1]`.
    #[inline(always)]
    pub fn unit_3d(self, lattice: &Lattice, x: f64, y: f64, z: f64) -> f32 {
        match self {
            Basis::Value => value_3d(lattice, x, y, z),
            Basis::Gradient => gradient_3d_noise(lattice, x, y, z) * 0.5 + 0.5,
        }
    }

    /// Short lower-case name, as the export tool's `--basis` flag spells it.
    pub fn name(self) -> &'static str {
        match self {
            Basis::Value => "value",
            Basis::Gradient => "gradient",
        }
    }
}

impl std::str::FromStr for Basis {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Basis::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| format!("unknown basis `{s}` (expected value or gradient)"))
    }
}
