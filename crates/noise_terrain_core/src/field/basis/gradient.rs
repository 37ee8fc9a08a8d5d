//! Gradient (Perlin) noise: a random unit vector at every lattice point; each corner contributes
//! the dot product of its vector with the offset from the corner to the point.
//!
//! # Gradient sets
//! - 1-D: a slope uniform in `[-1, 1)` from the lattice value.
//! - 2-D: 64 unit vectors at angles `2πk/64`. Perlin's 8 or 12 directions cluster along the axes
//!   and diagonals and show as 45° streaks; 64 even directions are indistinguishable from random
//!   angles but cost one table lookup (the top 6 bits of the hash).
//! - 3-D: 64 unit vectors on a Fibonacci spiral over the sphere: close to uniform, none on an axis
//!   or body diagonal, so slices through the volume show no grid-aligned ridges.
//!
//! # Range
//! With unit gradients the raw N-D value is at most `√N / 2` in magnitude (every corner vector
//! pointing at the cell centre). It is scaled by `2 / √N` (`2`, `√2`, `2/√3`) to `[-1, 1]`. The 1-D
//! and 2-D sets contain the extreme directions, so `±1` is reached; the 3-D set lacks the exact
//! body diagonals and stays within about `±0.97` (measured in the tests). The result is 0 on every
//! lattice point, whatever the fade.

use super::gradient_kernel::{
    GradientKernel, blend_corners, blend_gradients_2d, blend_gradients_2d_with_gradient, blend_rounded_2d,
    blend_rounded_2d_with_gradient, blend_rounded_2d_with_hessian, perlin_corner,
};
use super::gradient_table::{GRADIENTS_2D, GRADIENTS_3D};
use super::lattice::{Lattice, lerp, trilinear_gradient};
use crate::field::dual::{Dual, Jet};
use crate::field::fade::Fade;
use crate::field::hash::{hash1, hash2, hash3, unit_value};

/// Scale from the raw 3-D value, bounded by `√3 / 2`, to `[-1, 1]`.
const SCALE_3D: f32 = 1.154_700_5;

#[inline(always)]
fn gradient_2d(hash: u32) -> [f32; 2] {
    GRADIENTS_2D[(hash >> 26) as usize]
}

#[inline(always)]
fn gradient_3d(hash: u32) -> [f32; 3] {
    GRADIENTS_3D[(hash >> 26) as usize]
}

/// 1-D gradient noise at `x`, in `[-1, 1]`.
pub fn gradient_1d(lattice: &Lattice, x: f64) -> f32 {
    let cx = lattice.axis(x);
    let s = lattice.seed;
    let slope = |i| unit_value(hash1(i, s)) * 2.0 - 1.0;
    let n0 = slope(cx.i0) * cx.f;
    let n1 = slope(cx.i1) * (cx.f - 1.0);
    (lerp(n0, n1, lattice.fade.apply(cx.f)) * 2.0).clamp(-1.0, 1.0)
}

/// The gradient of lattice point `(ix, iy)`.
#[inline(always)]
pub(crate) fn corner_gradient_2d(lattice: &Lattice, ix: i32, iy: i32) -> [f32; 2] {
    gradient_2d(hash2(ix, iy, lattice.seed))
}

/// 2-D gradient noise at `(x, y)`, in `[-1, 1]`.
pub fn gradient_2d_noise(lattice: &Lattice, x: f64, y: f64) -> f32 {
    let (g, [fx, fy]) = cell_2d(lattice, x, y);
    let (u, v) = (lattice.fade.apply(fx), lattice.fade.apply(fy));
    match lattice.kernel {
        GradientKernel::Perlin => blend_gradients_2d(&g, fx, fy, u, v),
        GradientKernel::Rounded => blend_rounded_2d(&g, fx, fy, u, v),
    }
}

/// The cell holding `(x, y)`: its corner gradients `[g00, g10, g01, g11]` and the position in it.
#[inline(always)]
fn cell_2d(lattice: &Lattice, x: f64, y: f64) -> ([[f32; 2]; 4], [f32; 2]) {
    let (cx, cy) = (lattice.axis(x), lattice.axis(y));
    (lattice.corners([cx.i0, cx.i1], [cy.i0, cy.i1], corner_gradient_2d), [cx.f, cy.f])
}

/// [`gradient_2d_noise`] and its gradient in lattice units (per cell); flat where the value is
/// clamped.
pub(crate) fn gradient_2d_with_gradient(lattice: &Lattice, x: f64, y: f64) -> Dual {
    let (g, f) = cell_2d(lattice, x, y);
    let fade = lattice.fade;
    blend_with_gradient(lattice.kernel, &g, f, f.map(|t| fade.apply(t)), f.map(|t| fade.derivative(t)))
}

/// The kernel's blend of the corners and its gradient per cell.
#[inline(always)]
fn blend_with_gradient(
    kernel: GradientKernel,
    g: &[[f32; 2]; 4],
    f: [f32; 2],
    weights: [f32; 2],
    slopes: [f32; 2],
) -> Dual {
    match kernel {
        GradientKernel::Perlin => blend_gradients_2d_with_gradient(g, f, weights, slopes),
        GradientKernel::Rounded => blend_rounded_2d_with_gradient(g, f, weights, slopes),
    }
}

/// [`gradient_2d_with_gradient`] (the same bits) and the Hessian, per cell; flat where the
/// value is clamped.
pub(crate) fn gradient_2d_with_hessian(lattice: &Lattice, x: f64, y: f64) -> Jet {
    let (g, f) = cell_2d(lattice, x, y);
    gradient_jet_in_cell(lattice.kernel, lattice.fade, &g, f)
}

/// The value, gradient and Hessian per cell of gradient noise in a cell with corner gradients
/// `g` at the position `f` in it: shared by the point path and the grid's rows (which look the
/// corners up once per run of pixels), so both give the same bits.
#[inline(always)]
pub(crate) fn gradient_jet_in_cell(
    kernel: GradientKernel,
    fade: Fade,
    g: &[[f32; 2]; 4],
    f: [f32; 2],
) -> Jet {
    let fades =
        [f.map(|t| fade.apply(t)), f.map(|t| fade.derivative(t)), f.map(|t| fade.second_derivative(t))];
    gradient_jet_from_fades(kernel, g, f, fades)
}

/// [`gradient_jet_in_cell`] from the fade's values, slopes and curvatures at `f`
/// (`[weights, slopes, curvatures]`, each `[x, y]`): the grid's rows compute those for a whole
/// row at once, so that their pixel loops match no fade and vectorise.
#[inline(always)]
pub(crate) fn gradient_jet_from_fades(
    kernel: GradientKernel,
    g: &[[f32; 2]; 4],
    f: [f32; 2],
    [weights, slopes, curvatures]: [[f32; 2]; 3],
) -> Jet {
    let [fx, fy] = f;
    let jet = match kernel {
        GradientKernel::Perlin => {
            let (x1, y1) = (fx - 1.0, fy - 1.0);
            let offsets = [[fx, fy], [x1, fy], [fx, y1], [x1, y1]];
            let corners = [0, 1, 2, 3].map(|k| perlin_corner(g[k], offsets[k]));
            blend_corners(&corners, weights, slopes, curvatures, std::f32::consts::SQRT_2)
        }
        GradientKernel::Rounded => blend_rounded_2d_with_hessian(g, [fx, fy], weights, slopes, curvatures),
    };
    // Value and gradient exactly as the gradient-only path computes them (the same blend of the
    // same numbers).
    Jet::new(blend_with_gradient(kernel, g, f, weights, slopes), jet.hessian)
}

/// 3-D gradient noise at `(x, y, z)`, in `[-1, 1]` (in practice within about `±0.97`).
pub fn gradient_3d_noise(lattice: &Lattice, x: f64, y: f64, z: f64) -> f32 {
    let (cx, cy, cz) = (lattice.axis(x), lattice.axis(y), lattice.axis(z));
    let s = lattice.seed;
    let dot = |ix, iy, iz, dx: f32, dy: f32, dz: f32| {
        let g = gradient_3d(hash3(ix, iy, iz, s));
        g[0] * dx + g[1] * dy + g[2] * dz
    };
    let (fx, fy, fz) = (cx.f, cy.f, cz.f);
    let fade = lattice.fade;
    let (u, v, w) = (fade.apply(fx), fade.apply(fy), fade.apply(fz));
    let plane = |iz, dz| {
        let top = lerp(dot(cx.i0, cy.i0, iz, fx, fy, dz), dot(cx.i1, cy.i0, iz, fx - 1.0, fy, dz), u);
        let bottom =
            lerp(dot(cx.i0, cy.i1, iz, fx, fy - 1.0, dz), dot(cx.i1, cy.i1, iz, fx - 1.0, fy - 1.0, dz), u);
        lerp(top, bottom, v)
    };
    let raw = lerp(plane(cz.i0, fz), plane(cz.i1, fz - 1.0), w);
    (raw * SCALE_3D).clamp(-1.0, 1.0)
}

/// [`gradient_3d_noise`] and its gradient in lattice units (per cell); flat where the value is
/// clamped.
pub(crate) fn gradient_3d_with_gradient(lattice: &Lattice, x: f64, y: f64, z: f64) -> Dual<3> {
    let cells = [lattice.axis(x), lattice.axis(y), lattice.axis(z)];
    let fade = lattice.fade;
    let corner = |k: usize| {
        let pick =
            |axis: usize| if k >> axis & 1 == 0 { (cells[axis].i0, 0.0) } else { (cells[axis].i1, 1.0) };
        let ((ix, ox), (iy, oy), (iz, oz)) = (pick(0), pick(1), pick(2));
        let g = gradient_3d(hash3(ix, iy, iz, lattice.seed));
        let d = [cells[0].f - ox, cells[1].f - oy, cells[2].f - oz];
        (g[0] * d[0] + g[1] * d[1] + g[2] * d[2], g)
    };
    let corners = std::array::from_fn(corner);
    let raw =
        trilinear_gradient(&corners, cells.map(|c| fade.apply(c.f)), cells.map(|c| fade.derivative(c.f)));
    let value = gradient_3d_noise(lattice, x, y, z);
    let flat = value.abs() >= 1.0;
    Dual::new(value, raw.map(|g| if flat { 0.0 } else { g * SCALE_3D }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::fade::Fade;
    use crate::test_support::random_points;

    #[test]
    fn tables_hold_unit_vectors_spread_evenly() {
        for g in GRADIENTS_2D {
            assert!((g[0].hypot(g[1]) - 1.0).abs() < 1e-6);
        }
        for g in GRADIENTS_3D {
            assert!(((g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt() - 1.0).abs() < 1e-6);
        }
        // Evenly spread: the mean vector is (almost) zero and every octant of the sphere is used.
        let mean: [f32; 3] =
            GRADIENTS_3D.iter().fold([0.0; 3], |m, g| [m[0] + g[0], m[1] + g[1], m[2] + g[2]]);
        assert!(mean.iter().all(|c| c.abs() < 0.5), "{mean:?}");
        let mut octants = [0; 8];
        for g in GRADIENTS_3D {
            octants[(g[0] > 0.0) as usize | ((g[1] > 0.0) as usize) << 1 | ((g[2] > 0.0) as usize) << 2] += 1;
        }
        assert!(octants.iter().all(|&c| (5..=11).contains(&c)), "{octants:?}");
    }

    #[test]
    fn is_exactly_zero_on_every_lattice_point() {
        for (fade, kernel) in Fade::ALL.into_iter().flat_map(|f| GradientKernel::ALL.map(|k| (f, k))) {
            let lattice = Lattice { kernel, ..Lattice::new(7, fade) };
            for y in -64..64 {
                assert_eq!(gradient_1d(&lattice, y as f64), 0.0);
                for x in -64..64 {
                    assert_eq!(gradient_2d_noise(&lattice, x as f64, y as f64), 0.0);
                    assert_eq!(gradient_3d_noise(&lattice, x as f64, y as f64, (x ^ y) as f64), 0.0);
                }
            }
        }
    }

    #[test]
    fn stays_in_documented_range_on_a_million_points() {
        let lattice = Lattice::new(3, Fade::Quintic);
        let (mut lo2, mut hi2, mut lo3, mut hi3) = (0f32, 0f32, 0f32, 0f32);
        for [x, y, z] in random_points(1_000_000, 2, 1e4) {
            let n1 = gradient_1d(&lattice, x);
            let n2 = gradient_2d_noise(&lattice, x, y);
            let n3 = gradient_3d_noise(&lattice, x, y, z);
            assert!((-1.0..=1.0).contains(&n1) && (-1.0..=1.0).contains(&n2));
            assert!((-0.97..=0.97).contains(&n3), "3-D {n3} at {x} {y} {z}");
            (lo2, hi2, lo3, hi3) = (lo2.min(n2), hi2.max(n2), lo3.min(n3), hi3.max(n3));
        }
        // The scale is not too generous either: random points get well into the range.
        assert!(lo2 < -0.8 && hi2 > 0.8, "2-D range {lo2}..{hi2}");
        let rounded = Lattice { kernel: GradientKernel::Rounded, ..lattice };
        let (mut lo, mut hi) = (0f32, 0f32);
        for [x, y, _] in random_points(1_000_000, 5, 1e4) {
            let n = gradient_2d_noise(&rounded, x, y);
            assert!((-1.0..=1.0).contains(&n));
            (lo, hi) = (lo.min(n), hi.max(n));
        }
        assert!(lo < -0.8 && hi > 0.8, "rounded range {lo}..{hi}");
        assert!(lo3 < -0.7 && hi3 > 0.7, "3-D range {lo3}..{hi3}");
    }

    #[test]
    fn two_d_set_holds_the_diagonals_that_reach_plus_and_minus_one() {
        // At a cell centre the raw value is the mean of g·(±½, ±½); it reaches √2/2 (scaled: 1)
        // only if the table holds the four diagonals.
        let d = std::f32::consts::FRAC_1_SQRT_2;
        for target in [[d, d], [-d, d], [d, -d], [-d, -d]] {
            assert!(
                GRADIENTS_2D
                    .iter()
                    .any(|g| (g[0] - target[0]).abs() < 1e-6 && (g[1] - target[1]).abs() < 1e-6)
            );
        }
    }
}
