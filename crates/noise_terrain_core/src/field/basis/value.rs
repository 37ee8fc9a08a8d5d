//! Value noise: a random number at every lattice point, blended in between.
//!
//! Output range: `[0, 1)`. Every output is a convex blend of lattice values, which are in `[0, 1)`.
//! Highs and lows sit on the lattice points, so the grid stays faintly visible even with a smooth
//! fade; gradient noise is the cure.

use super::lattice::{Lattice, lerp, trilinear_gradient};
use crate::field::dual::{Dual, Jet};
use crate::field::fade::Fade;
use crate::field::hash::{hash1, hash2, hash3, unit_value};

/// 1-D value noise at `x` (a terrain profile), in `[0, 1)`.
pub fn value_1d(lattice: &Lattice, x: f64) -> f32 {
    let cx = lattice.axis(x);
    let s = lattice.seed;
    let u = lattice.fade.apply(cx.f);
    lerp(unit_value(hash1(cx.i0, s)), unit_value(hash1(cx.i1, s)), u)
}

/// The lattice value of point `(ix, iy)`.
#[inline(always)]
pub(crate) fn corner_value_2d(lattice: &Lattice, ix: i32, iy: i32) -> f32 {
    unit_value(hash2(ix, iy, lattice.seed))
}

/// Blends the corner values `[v00, v10, v01, v11]` with faded weights `(u, v)`. Shared by the
/// point and the row paths, so both give the same bits.
#[inline(always)]
pub(crate) fn blend_values_2d(c: &[f32; 4], u: f32, v: f32) -> f32 {
    lerp(lerp(c[0], c[1], u), lerp(c[2], c[3], u), v)
}

/// 2-D value noise at `(x, y)`, in `[0, 1)`.
pub fn value_2d(lattice: &Lattice, x: f64, y: f64) -> f32 {
    let (cx, cy) = (lattice.axis(x), lattice.axis(y));
    let c = lattice.corners([cx.i0, cx.i1], [cy.i0, cy.i1], corner_value_2d);
    blend_values_2d(&c, lattice.fade.apply(cx.f), lattice.fade.apply(cy.f))
}

/// [`value_2d`] and its gradient in lattice units (per cell).
pub(crate) fn value_2d_with_gradient(lattice: &Lattice, x: f64, y: f64) -> Dual {
    let (cx, cy) = (lattice.axis(x), lattice.axis(y));
    let c = lattice.corners([cx.i0, cx.i1], [cy.i0, cy.i1], corner_value_2d);
    let fade = lattice.fade;
    blend_values_2d_with_gradient(
        &c,
        [fade.apply(cx.f), fade.apply(cy.f)],
        [fade.derivative(cx.f), fade.derivative(cy.f)],
    )
}

/// [`blend_values_2d`] and its gradient per cell, from the faded weights `(u, v)` and the fade's
/// slopes there. Shared by the point and the grid paths.
#[inline(always)]
pub(crate) fn blend_values_2d_with_gradient(c: &[f32; 4], [u, v]: [f32; 2], [du, dv]: [f32; 2]) -> Dual {
    // d/du of the bilinear blend, times du/dx (and the same in y).
    let twist = c[0] - c[1] - c[2] + c[3];
    let dx = du * ((c[1] - c[0]) + twist * v);
    let dy = dv * ((c[2] - c[0]) + twist * u);
    Dual::new(blend_values_2d(c, u, v), [dx, dy])
}

/// [`value_2d_with_gradient`] and the Hessian, per cell.
pub(crate) fn value_2d_with_hessian(lattice: &Lattice, x: f64, y: f64) -> Jet {
    let (cx, cy) = (lattice.axis(x), lattice.axis(y));
    let c = lattice.corners([cx.i0, cx.i1], [cy.i0, cy.i1], corner_value_2d);
    value_jet_in_cell(lattice.fade, &c, [cx.f, cy.f])
}

/// The value in `[0, 1]`, gradient and Hessian per cell of value noise in a cell with corner
/// values `c` at the position `[fx, fy]` in it: shared by the point path and the grid's rows.
#[inline(always)]
pub(crate) fn value_jet_in_cell(fade: Fade, c: &[f32; 4], f: [f32; 2]) -> Jet {
    let fades =
        [f.map(|t| fade.apply(t)), f.map(|t| fade.derivative(t)), f.map(|t| fade.second_derivative(t))];
    value_jet_from_fades(c, fades)
}

/// [`value_jet_in_cell`] from the fade's values, slopes and curvatures at the position
/// (`[weights, slopes, curvatures]`, each `[x, y]`), for the grid's rows (see
/// [`gradient_jet_from_fades`](super::gradient::gradient_jet_from_fades)).
#[inline(always)]
pub(crate) fn value_jet_from_fades(c: &[f32; 4], [[u, v], [du, dv], [ddu, ddv]]: [[f32; 2]; 3]) -> Jet {
    let first = blend_values_2d_with_gradient(c, [u, v], [du, dv]);
    // The bilinear blend's own derivatives in (u, v), then the fades' chain rule.
    let twist = c[0] - c[1] - c[2] + c[3];
    let (along_u, along_v) = ((c[1] - c[0]) + twist * v, (c[2] - c[0]) + twist * u);
    let cross = du * dv * twist;
    Jet::new(first, [[ddu * along_u, cross], [cross, ddv * along_v]])
}

/// 3-D value noise at `(x, y, z)`, in `[0, 1)`.
pub fn value_3d(lattice: &Lattice, x: f64, y: f64, z: f64) -> f32 {
    let (cx, cy, cz) = (lattice.axis(x), lattice.axis(y), lattice.axis(z));
    let s = lattice.seed;
    let fade = lattice.fade;
    let (u, v, w) = (fade.apply(cx.f), fade.apply(cy.f), fade.apply(cz.f));
    let corner = |ix, iy, iz| unit_value(hash3(ix, iy, iz, s));
    let plane = |iz| {
        let top = lerp(corner(cx.i0, cy.i0, iz), corner(cx.i1, cy.i0, iz), u);
        let bottom = lerp(corner(cx.i0, cy.i1, iz), corner(cx.i1, cy.i1, iz), u);
        lerp(top, bottom, v)
    };
    lerp(plane(cz.i0), plane(cz.i1), w)
}

/// [`value_3d`] and its gradient in lattice units (per cell).
pub(crate) fn value_3d_with_gradient(lattice: &Lattice, x: f64, y: f64, z: f64) -> Dual<3> {
    let cells = [lattice.axis(x), lattice.axis(y), lattice.axis(z)];
    let fade = lattice.fade;
    let corner = |k: usize| {
        let pick = |axis: usize| if k >> axis & 1 == 0 { cells[axis].i0 } else { cells[axis].i1 };
        (unit_value(hash3(pick(0), pick(1), pick(2), lattice.seed)), [0.0; 3])
    };
    let corners = std::array::from_fn(corner);
    let gradient =
        trilinear_gradient(&corners, cells.map(|c| fade.apply(c.f)), cells.map(|c| fade.derivative(c.f)));
    Dual::new(value_3d(lattice, x, y, z), gradient)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::fade::Fade;
    use crate::test_support::random_points;

    #[test]
    fn stays_in_zero_to_one_on_a_million_points() {
        for fade in Fade::ALL {
            let lattice = Lattice::new(11, fade);
            for [x, y, z] in random_points(1_000_000 / 5, 1, 1e4) {
                for n in [value_1d(&lattice, x), value_2d(&lattice, x, y), value_3d(&lattice, x, y, z)] {
                    assert!((0.0..1.0).contains(&n), "{fade:?} at {x} {y} {z}: {n}");
                }
            }
        }
    }

    #[test]
    fn equals_the_lattice_value_on_lattice_points() {
        let lattice = Lattice::new(5, Fade::Quintic);
        for y in -20..20 {
            for x in -20..20 {
                let expected = unit_value(hash2(x, y, 5));
                assert_eq!(value_2d(&lattice, x as f64, y as f64), expected);
            }
        }
    }

    #[test]
    fn linear_fade_interpolates_halfway() {
        let lattice = Lattice::new(9, Fade::Linear);
        let (a, b) = (unit_value(hash1(3, 9)), unit_value(hash1(4, 9)));
        assert!((value_1d(&lattice, 3.5) - (a + b) / 2.0).abs() < 1e-6);
        let lattice = Lattice::new(9, Fade::Cosine);
        assert!((value_1d(&lattice, 3.5) - (a + b) / 2.0).abs() < 1e-6);
        assert!((value_1d(&lattice, 3.25) - (a + (b - a) * 0.146_446_6)).abs() < 1e-6);
    }
}
