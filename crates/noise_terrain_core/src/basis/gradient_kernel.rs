//! The shape of each lattice point's contribution to 2-D gradient noise, and the rounded kernel.
//!
//! Perlin's corner contribution is the dot product `g · d` times the separable weights
//! `w(dx) w(dy)`. Their support is a square, which reaches farther along the diagonals than along
//! the axes, so the noise's power spectrum leans toward the lattice axes: 1.20 times as much
//! power within ±10° of the axes as of the diagonals (`tests/axis_bias.rs`). No gradient set or
//! hash changes that: the spectrum of independent random gradients depends only on their
//! covariance, the same for every set symmetric under quarter turns (64 directions, Perlin's 8,
//! the 4 diagonals and the 4 axes all measure 1.17 to 1.25). The rounded kernel multiplies each
//! contribution by `1 - (2 dx dy)²`, which trims the square's corners and leaves the axes
//! alone: 1.076. It stays 0 on every lattice point (the own corner's `d` is 0, the others' weights
//! are 0), tiles like Perlin's and is as smooth (the factor is a polynomial); it costs about 8%
//! more per sample on the row path, so it is a choice ([`GradientKernel`]), off by default.
//!
//! A separable kernel `w(dx) w(dy)` narrower than Perlin's would keep the blend's cost (two
//! weights per pixel along x instead of one) and can reach the same figure, `(1 - t²)⁴` 1.078, but
//! only by varying the noise's variance across the cell more: at the cell's centre it is 0.40 of
//! that at an edge's midpoint (the rounded kernel 0.56, Perlin's 1); over that family the bias
//! falls as the variance ratio falls (`scripts/kernel_bias.py` computes both from the kernel).
//!
//! # Range
//! Every trimmed contribution is at most `|d| (1 - (2 dx dy)²)` and the blend's weights sum to 1;
//! a dense search over the cell puts the largest sum at the centre, `(√2 / 2) · 3/4`. The scale
//! `4√2 / 3` maps that to 1, reached where the four gradients point at the centre (the 64-set
//! holds the diagonals).

use super::lattice::lerp;
use crate::dual::{Dual, Jet};

/// How a lattice point's contribution to 2-D gradient noise is shaped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum GradientKernel {
    /// Perlin's: the dot product times the separable fade weights. Leans toward the lattice axes
    /// (axis bias 1.20). The default: seed 000's noise.
    #[default]
    Perlin,
    /// Perlin's trimmed by `1 - (2 dx dy)²` on the diagonals: axis bias 1.076, about 8% slower.
    Rounded,
}

impl GradientKernel {
    /// Both kernels, in the order of the inspector's chips.
    pub const ALL: [GradientKernel; 2] = [GradientKernel::Perlin, GradientKernel::Rounded];

    /// Short lower-case name, as the export tool's `--gradient-kernel` flag spells it.
    pub fn name(self) -> &'static str {
        match self {
            GradientKernel::Perlin => "perlin",
            GradientKernel::Rounded => "rounded",
        }
    }
}

/// Scale from the rounded raw value, at most `(√2 / 2) · 3/4`, to `[-1, 1]`.
const ROUNDED_SCALE: f32 = 1.885_618_1;

/// One corner's contribution at offset `d` from it, with its gradient and Hessian per cell.
#[derive(Clone, Copy)]
pub(crate) struct Corner {
    value: f32,
    gradient: [f32; 2],
    hessian: [[f32; 2]; 2],
}

/// Perlin's contribution `g · d`: linear, so its Hessian is zero.
#[inline(always)]
pub(crate) fn perlin_corner(g: [f32; 2], [dx, dy]: [f32; 2]) -> Corner {
    Corner { value: g[0] * dx + g[1] * dy, gradient: g, hessian: [[0.0; 2]; 2] }
}

/// The rounded contribution `(g · d) · (1 - (2 dx dy)²)`.
#[inline(always)]
fn rounded_corner(g: [f32; 2], [dx, dy]: [f32; 2]) -> Corner {
    let dot = g[0] * dx + g[1] * dy;
    // `1 - (2 dx dy)²` as `1 - (4 dy²) dx²`: in a run of pixels `dy` is fixed, so `4 dy²` is
    // computed once per run and each pixel pays a multiply and a subtraction per corner.
    let trim = 1.0 - (4.0 * dy * dy) * (dx * dx);
    // ∇trim = -8 (dx dy², dx² dy); its Hessian -8 [[dy², 2 dx dy], [2 dx dy, dx²]].
    let t = [-8.0 * dx * dy * dy, -8.0 * dx * dx * dy];
    let txy = -16.0 * dx * dy;
    Corner {
        value: dot * trim,
        gradient: [g[0] * trim + dot * t[0], g[1] * trim + dot * t[1]],
        hessian: [
            [2.0 * g[0] * t[0] - 8.0 * dy * dy * dot, g[0] * t[1] + g[1] * t[0] + dot * txy],
            [g[0] * t[1] + g[1] * t[0] + dot * txy, 2.0 * g[1] * t[1] - 8.0 * dx * dx * dot],
        ],
    }
}

/// The four corners `[g00, g10, g01, g11]` at `(fx, fy)` in the cell, trimmed.
#[inline(always)]
fn rounded_corners(g: &[[f32; 2]; 4], fx: f32, fy: f32) -> [Corner; 4] {
    let (x1, y1) = (fx - 1.0, fy - 1.0);
    [
        rounded_corner(g[0], [fx, fy]),
        rounded_corner(g[1], [x1, fy]),
        rounded_corner(g[2], [fx, y1]),
        rounded_corner(g[3], [x1, y1]),
    ]
}

/// Rounded 2-D gradient noise in a cell, in `[-1, 1]`: the corner gradients
/// `[g00, g10, g01, g11]`, the position `(fx, fy)` and the faded weights `(u, v)`. Shared by the
/// point and the row paths, so both give the same bits.
#[inline(always)]
pub(crate) fn blend_rounded_2d(g: &[[f32; 2]; 4], fx: f32, fy: f32, u: f32, v: f32) -> f32 {
    let c = rounded_corners(g, fx, fy);
    let raw = lerp(lerp(c[0].value, c[1].value, u), lerp(c[2].value, c[3].value, u), v);
    (raw * ROUNDED_SCALE).clamp(-1.0, 1.0)
}

/// [`blend_rounded_2d`] (the same bits) and its gradient per cell, from the fade's slopes
/// `(du, dv)`; flat where the value is clamped. Shared by the point and the grid paths.
#[inline(always)]
pub(crate) fn blend_rounded_2d_with_gradient(
    g: &[[f32; 2]; 4],
    [fx, fy]: [f32; 2],
    [u, v]: [f32; 2],
    [du, dv]: [f32; 2],
) -> Dual {
    // The Hessian terms are never read here and compile away.
    blend_corners(&rounded_corners(g, fx, fy), [u, v], [du, dv], [0.0, 0.0], ROUNDED_SCALE).first
}

/// [`blend_rounded_2d_with_gradient`] and the Hessian per cell, with the fade's curvatures.
#[inline(always)]
pub(crate) fn blend_rounded_2d_with_hessian(
    g: &[[f32; 2]; 4],
    [fx, fy]: [f32; 2],
    weights: [f32; 2],
    slopes: [f32; 2],
    curvatures: [f32; 2],
) -> Jet {
    blend_corners(&rounded_corners(g, fx, fy), weights, slopes, curvatures, ROUNDED_SCALE)
}

/// The bilinear blend `a + v (b - a)` of the corners (`a`, `b` the lower and upper pairs blended
/// along x by `u`), times `scale` and clamped to `[-1, 1]`, with its gradient and Hessian by the
/// product rule through the faded weights; flat where clamped. The value takes the blend's own
/// operations, so it is bit for bit what the plain blends give.
#[inline(always)]
pub(crate) fn blend_corners(
    c: &[Corner; 4],
    [u, v]: [f32; 2],
    [du, dv]: [f32; 2],
    [ddu, ddv]: [f32; 2],
    scale: f32,
) -> Jet {
    // One pair blended along x: value, gradient and Hessian.
    let pair = |lo: &Corner, hi: &Corner| {
        let step = hi.value - lo.value;
        let value = lerp(lo.value, hi.value, u);
        let gradient =
            [lerp(lo.gradient[0], hi.gradient[0], u) + du * step, lerp(lo.gradient[1], hi.gradient[1], u)];
        let h = |a: usize, b: usize| lerp(lo.hessian[a][b], hi.hessian[a][b], u);
        let xx = h(0, 0) + 2.0 * du * (hi.gradient[0] - lo.gradient[0]) + ddu * step;
        let xy = h(0, 1) + du * (hi.gradient[1] - lo.gradient[1]);
        (value, gradient, [[xx, xy], [xy, h(1, 1)]])
    };
    let (a, ga, ha) = pair(&c[0], &c[1]);
    let (b, gb, hb) = pair(&c[2], &c[3]);
    let value = (lerp(a, b, v) * scale).clamp(-1.0, 1.0);
    let dx = ga[0] + v * (gb[0] - ga[0]);
    let dy = ga[1] + v * (gb[1] - ga[1]) + dv * (b - a);
    let xx = ha[0][0] + v * (hb[0][0] - ha[0][0]);
    let xy = ha[0][1] + v * (hb[0][1] - ha[0][1]) + dv * (gb[0] - ga[0]);
    let yy = ha[1][1] + v * (hb[1][1] - ha[1][1]) + 2.0 * dv * (gb[1] - ga[1]) + ddv * (b - a);
    let flat = value.abs() >= 1.0;
    let first = Dual::new(value, [if flat { 0.0 } else { dx * scale }, if flat { 0.0 } else { dy * scale }]);
    Jet::new(first, [[xx * scale, xy * scale], [xy * scale, yy * scale]]).flat_if(flat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trim_leaves_the_axes_and_zeros_alone() {
        let g = [0.6, 0.8];
        // On an axis through the corner the trim is 1: Perlin's contribution.
        for d in [[0.3, 0.0], [0.0, -0.7]] {
            assert_eq!(rounded_corner(g, d).value, perlin_corner(g, d).value);
        }
        // At the corner itself: 0, whatever the gradient.
        assert_eq!(rounded_corner(g, [0.0, 0.0]).value, 0.0);
        // On the diagonal at (½, ½): trimmed by 3/4.
        assert!((rounded_corner(g, [0.5, 0.5]).value - 0.75 * 0.7).abs() < 1e-6);
    }

    #[test]
    fn corner_derivatives_match_differences() {
        let g = [-0.28, 0.96];
        let h = 1e-3;
        for d in [[0.3, 0.4], [-0.7, 0.2], [0.9, -0.9], [0.05, -0.6]] {
            let c = rounded_corner(g, d);
            for axis in 0..2 {
                let step = |s: f32| {
                    let mut p = d;
                    p[axis] += s;
                    rounded_corner(g, p)
                };
                let (ahead, behind) = (step(h), step(-h));
                let slope = (ahead.value - behind.value) / (2.0 * h);
                assert!((c.gradient[axis] - slope).abs() < 2e-3, "{d:?} axis {axis}");
                for other in 0..2 {
                    let curve = (ahead.gradient[other] - behind.gradient[other]) / (2.0 * h);
                    assert!((c.hessian[axis][other] - curve).abs() < 2e-2, "{d:?} {axis} {other}");
                }
            }
        }
    }

    #[test]
    fn the_largest_sum_is_at_the_centre_and_scales_to_one() {
        // Each corner's gradient pointing along its own offset (the best case), over the cell.
        let quintic = |t: f32| t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
        let mut largest = (0.0f32, 0.0, 0.0);
        for i in 0..=100 {
            for j in 0..=100 {
                let (fx, fy) = (i as f32 / 100.0, j as f32 / 100.0);
                let (u, v) = (quintic(fx), quintic(fy));
                let offsets = [[fx, fy], [fx - 1.0, fy], [fx, fy - 1.0], [fx - 1.0, fy - 1.0]];
                let weights = [(1.0 - u) * (1.0 - v), u * (1.0 - v), (1.0 - u) * v, u * v];
                let sum: f32 = offsets
                    .iter()
                    .zip(weights)
                    .map(|(&d, w)| {
                        let len = d[0].hypot(d[1]);
                        let g = if len > 0.0 { [d[0] / len, d[1] / len] } else { [1.0, 0.0] };
                        rounded_corner(g, d).value.abs() * w
                    })
                    .sum();
                if sum > largest.0 {
                    largest = (sum, fx, fy);
                }
            }
        }
        assert_eq!((largest.1, largest.2), (0.5, 0.5), "{largest:?}");
        assert!((largest.0 * ROUNDED_SCALE - 1.0).abs() < 1e-5, "{largest:?}");
    }
}
