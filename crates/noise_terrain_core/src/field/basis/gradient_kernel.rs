//! The shape of each lattice point's contribution to 2-D gradient noise, and the rounded kernel.
//!
//! Perlin's corner contribution is the dot product `g · d` times the separable weights
//! `w(dx) w(dy)`. Their support is a square, which reaches farther along the diagonals than along
//! the axes, so the noise's power spectrum leans toward the lattice axes: 1.20 times as much
//! power within ±10° of the axes as of the diagonals (`tests/axis_bias.rs`). No gradient set or
//! hash changes that: the spectrum of independent random gradients depends only on their
//! covariance, the same for every set symmetric under quarter turns (64 directions, Perlin's 8,
//! the 4 diagonals and the 4 axes all measure 1.17 to 1.25). Nor does another fade: over the
//! separable kernels whose weights sum to 1 the figure stays above 1.11 (linear 1.12, cubic
//! 1.13, quintic 1.20; `scripts/kernel_bias.py`).
//!
//! The rounded kernel multiplies Perlin's blend by the envelope `1 - (8 fx(1-fx) fy(1-fy))²`
//! of the position in the cell. The envelope repeats with the lattice, so it is the same factor
//! seen from every corner: the kernel is Perlin's times `1 - (8 |dx|(1-|dx|) |dy|(1-|dy|))²`,
//! which leaves the axes alone and trims the square toward its diagonals, most at offsets
//! `(±½, ±½)` (by 3/4): axis bias 1.07. It stays 0 on every lattice point (Perlin's blend is 0
//! there), tiles like Perlin's, is as smooth (a polynomial factor), and costs a few operations per
//! sample instead of one per corner, a few percent over Perlin's: it is the default
//! ([`GradientKernel`]); Perlin's stays a choice (the `noise_maps` demo of value against gradient noise keeps it). Across a cell the
//! noise's variance changes like that of the earlier per-corner trim `1 - (2 dx dy)²` (centre
//! over edge midpoint 0.56; Perlin's 1), which it replaced at the same figure and scale.
//!
//! A separable kernel `w(dx) w(dy)` narrower than Perlin's would keep the blend's cost (two
//! weights per pixel along x instead of one) and can reach the same figure, `(1 - t²)⁴` 1.078, but
//! only by varying the noise's variance across the cell more: at the cell's centre it is 0.40 of
//! that at an edge's midpoint (the rounded kernel 0.56, Perlin's 1); over that family the bias
//! falls as the variance ratio falls (`scripts/kernel_bias.py` computes both from the kernel).
//!
//! # Range
//! Each corner adds at most `|d|` times its weight, and the envelope is 1 on the cell's edges and
//! 3/4 at its centre; a dense search over the cell puts the largest product at the centre,
//! `(√2 / 2) · 3/4`. The scale `4√2 / 3` maps that to 1, reached where the four gradients point
//! at the centre (the 64-set holds the diagonals).

use super::lattice::lerp;
use crate::field::dual::{Dual, Jet};

/// How a lattice point's contribution to 2-D gradient noise is shaped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum GradientKernel {
    /// Perlin's: the dot product times the separable fade weights. Leans toward the lattice axes
    /// (axis bias 1.20). The classic noise; the `noise_maps` demo keeps it.
    Perlin,
    /// Perlin's times the envelope `1 - (8 fx(1-fx) fy(1-fy))²` across each cell, which trims it
    /// toward the diagonals: axis bias 1.07, at a few percent more than Perlin's cost. The default.
    #[default]
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
pub(crate) const ROUNDED_SCALE: f32 = 1.885_618_1;

/// One corner's contribution at offset `d` from it, with its gradient and Hessian per cell.
#[derive(Clone, Copy)]
pub(crate) struct Corner {
    value: f32,
    gradient: [f32; 2],
    hessian: [[f32; 2]; 2],
}

/// Perlin's contribution `g · d`: linear, so its Hessian is zero.
/// Blends the four corner gradients `[g00, g10, g01, g11]` at `(fx, fy)` with faded weights
/// `(u, v)`, scaled to `[-1, 1]`. Shared by the point and the row paths, so both give the same
/// bits.
#[inline(always)]
pub(crate) fn blend_gradients_2d(g: &[[f32; 2]; 4], fx: f32, fy: f32, u: f32, v: f32) -> f32 {
    (perlin_raw_2d(g, fx, fy, u, v) * std::f32::consts::SQRT_2).clamp(-1.0, 1.0)
}

/// Perlin's blend of the four dot products before its scale, at most `√2 / 2` in magnitude.
#[inline(always)]
pub(crate) fn perlin_raw_2d(g: &[[f32; 2]; 4], fx: f32, fy: f32, u: f32, v: f32) -> f32 {
    let n00 = g[0][0] * fx + g[0][1] * fy;
    let n10 = g[1][0] * (fx - 1.0) + g[1][1] * fy;
    let n01 = g[2][0] * fx + g[2][1] * (fy - 1.0);
    let n11 = g[3][0] * (fx - 1.0) + g[3][1] * (fy - 1.0);
    lerp(lerp(n00, n10, u), lerp(n01, n11, u), v)
}

/// [`blend_gradients_2d`] and its gradient per cell, from the position in the cell, the faded
/// weights and the fade's slopes there. Shared by the point and the grid paths.
#[inline(always)]
pub(crate) fn blend_gradients_2d_with_gradient(
    g: &[[f32; 2]; 4],
    [fx, fy]: [f32; 2],
    [u, v]: [f32; 2],
    [du, dv]: [f32; 2],
) -> Dual {
    PerlinRowBlend::new(g, fy, v, dv, std::f32::consts::SQRT_2).at(fx, u, du)
}

/// One cell's Perlin blend along a line of constant y: what depends only on the corners and
/// `y`, computed once per run of pixels in the cell (the grid path) or per point.
pub(crate) struct PerlinRowBlend {
    /// The x gradients, `[g00, g10, g01, g11]`, for the dot products.
    gx: [f32; 4],
    /// Each corner's y offset times its y gradient: the dot products' other halves.
    y_terms: [f32; 4],
    /// The weight along y.
    v: f32,
    /// `∂/∂x` (times the scale) as `ax + u·bx + du·(x0 + bx·fx)`: the blend of the x gradients
    /// is linear in `u`, and the weighted difference of the dot products linear in `fx`.
    dx: [f32; 3],
    /// `∂/∂y` (times the scale) as `ay + u·by + dv·(bottom - top)`: `[ay, by, dv]`.
    dy: [f32; 3],
}

impl PerlinRowBlend {
    /// The constants of the corner gradients `g` at `fy`, with the weight `v` and its slope `dv`;
    /// the gradient comes times `scale`.
    #[inline(always)]
    pub(crate) fn new(g: &[[f32; 2]; 4], fy: f32, v: f32, dv: f32, scale: f32) -> Self {
        let [g00, g10, g01, g11] = *g;
        let y_terms = [g00[1] * fy, g10[1] * fy, g01[1] * (fy - 1.0), g11[1] * (fy - 1.0)];
        let bx = lerp(g10[0] - g00[0], g11[0] - g01[0], v);
        let x0 = lerp((g10[1] - g00[1]) * fy - g10[0], (g11[1] - g01[1]) * (fy - 1.0) - g11[0], v);
        let (ay, by) = (lerp(g00[1], g01[1], v), lerp(g10[1] - g00[1], g11[1] - g01[1], v));
        Self {
            gx: [g00[0], g10[0], g01[0], g11[0]],
            y_terms,
            v,
            dx: [lerp(g00[0], g01[0], v) * scale, bx * scale, x0 * scale],
            dy: [ay * scale, by * scale, dv * scale],
        }
    }

    /// The raw blend at `fx` with weight `u` and its slope `du` (bit for bit
    /// [`perlin_raw_2d`]), and its gradient per cell times the scale.
    #[inline(always)]
    pub(crate) fn raw_at(&self, fx: f32, u: f32, du: f32) -> (f32, [f32; 2]) {
        let (gx, y) = (&self.gx, &self.y_terms);
        let n = [gx[0] * fx + y[0], gx[1] * (fx - 1.0) + y[1], gx[2] * fx + y[2], gx[3] * (fx - 1.0) + y[3]];
        let (top, bottom) = (lerp(n[0], n[1], u), lerp(n[2], n[3], u));
        let [ax, bx, x0] = self.dx;
        let [ay, by, dv] = self.dy;
        let dx = ax + u * bx + du * (x0 + bx * fx);
        let dy = ay + u * by + dv * (bottom - top);
        (lerp(top, bottom, self.v), [dx, dy])
    }

    /// The value at `fx` (bit for bit [`blend_gradients_2d`] when the scale is `√2`) and its
    /// gradient per cell; flat where the value is clamped.
    #[inline(always)]
    pub(crate) fn at(&self, fx: f32, u: f32, du: f32) -> Dual {
        let (raw, [dx, dy]) = self.raw_at(fx, u, du);
        let value = (raw * std::f32::consts::SQRT_2).clamp(-1.0, 1.0);
        // Flat where the value is clamped; a select, not a branch, so that rows vectorise.
        let flat = value.abs() >= 1.0;
        Dual::new(value, [if flat { 0.0 } else { dx }, if flat { 0.0 } else { dy }])
    }
}

#[inline(always)]
pub(crate) fn perlin_corner(g: [f32; 2], [dx, dy]: [f32; 2]) -> Corner {
    Corner { value: g[0] * dx + g[1] * dy, gradient: g, hessian: [[0.0; 2]; 2] }
}

/// The rounded kernel's envelope `1 - w²`, `w = 8 fx(1-fx) fy(1-fy)`, at `(fx, fy)` in the
/// cell, with its gradient and Hessian per cell.
#[inline(always)]
fn envelope(fx: f32, fy: f32) -> Jet {
    let (p, r) = (fx * (1.0 - fx), fy * (1.0 - fy));
    let (dp, dr) = (1.0 - 2.0 * fx, 1.0 - 2.0 * fy);
    let w = p * (8.0 * r);
    let dw = [8.0 * dp * r, 8.0 * p * dr];
    // ∇(1 - w²) = -2w ∇w; its Hessian -2 (∇w ∇wᵀ + w ∇²w), ∇²w = 8 [[-2r, p'r'], [p'r', -2p]].
    let ddw = [[-16.0 * r, 8.0 * dp * dr], [8.0 * dp * dr, -16.0 * p]];
    let h = |a: usize, b: usize| -2.0 * (dw[a] * dw[b] + w * ddw[a][b]);
    let first = Dual::new(1.0 - w * w, [-2.0 * w * dw[0], -2.0 * w * dw[1]]);
    Jet::new(first, [[h(0, 0), h(0, 1)], [h(1, 0), h(1, 1)]])
}

/// The envelope's value alone, with [`envelope`]'s operations (in a run of pixels `8 r` is
/// fixed, so each pixel pays five operations).
#[inline(always)]
fn envelope_value(fx: f32, fy: f32) -> f32 {
    let w = fx * (1.0 - fx) * (8.0 * (fy * (1.0 - fy)));
    1.0 - w * w
}

/// Rounded 2-D gradient noise in a cell, in `[-1, 1]`: Perlin's raw blend (the corner gradients
/// `[g00, g10, g01, g11]` at `(fx, fy)` with the faded weights `(u, v)`) times the envelope,
/// scaled. Shared by the point and the row paths, so both give the same bits.
#[inline(always)]
pub(crate) fn blend_rounded_2d(g: &[[f32; 2]; 4], fx: f32, fy: f32, u: f32, v: f32) -> f32 {
    (perlin_raw_2d(g, fx, fy, u, v) * ROUNDED_SCALE * envelope_value(fx, fy)).clamp(-1.0, 1.0)
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
    RoundedRowBlend::new(g, fy, v, dv).at(fx, u, du)
}

/// [`blend_rounded_2d_with_gradient`] along a line of constant y: Perlin's row constants, scaled
/// to the rounded kernel's range, and the envelope's factor along y.
pub(crate) struct RoundedRowBlend {
    perlin: PerlinRowBlend,
    /// `8 fy(1-fy)`: the envelope's `w / p`.
    r8: f32,
    /// `(∂m/∂x) / w` as `x0 + x1·fx`, and `(∂m/∂y) / (w·p)`: `[x0, x1, y]` (each times
    /// `w·s·raw` in the product rule).
    slopes: [f32; 3],
}

impl RoundedRowBlend {
    /// The constants of the corner gradients `g` at `fy`, with the weight `v` and its slope `dv`.
    #[inline(always)]
    pub(crate) fn new(g: &[[f32; 2]; 4], fy: f32, v: f32, dv: f32) -> Self {
        let r8 = 8.0 * (fy * (1.0 - fy));
        let perlin = PerlinRowBlend::new(g, fy, v, dv, ROUNDED_SCALE);
        // ∇m = -2w ∇w, ∇w = (8r (1 - 2fx), 8p (1 - 2fy)).
        Self { perlin, r8, slopes: [-2.0 * r8, 4.0 * r8, -16.0 * (1.0 - 2.0 * fy)] }
    }

    /// The value at `fx` with weight `u` and its slope `du` (bit for bit [`blend_rounded_2d`]),
    /// and its gradient per cell; flat where the value is clamped (the step fade's blend reaches
    /// past the range).
    #[inline(always)]
    pub(crate) fn at(&self, fx: f32, u: f32, du: f32) -> Dual {
        let (raw, [gx, gy]) = self.perlin.raw_at(fx, u, du);
        let p = fx * (1.0 - fx);
        let w = p * self.r8;
        let m = 1.0 - w * w;
        let scaled = raw * ROUNDED_SCALE;
        let value = (scaled * m).clamp(-1.0, 1.0);
        // The product rule: m ∇(raw·s) + (raw·s) ∇m.
        let q = w * scaled;
        let [x0, x1, y] = self.slopes;
        let (dx, dy) = (m * gx + q * (x0 + x1 * fx), m * gy + q * (p * y));
        // A select, not a branch, so that rows vectorise.
        let flat = value.abs() >= 1.0;
        Dual::new(value, [if flat { 0.0 } else { dx }, if flat { 0.0 } else { dy }])
    }
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
    let (x1, y1) = (fx - 1.0, fy - 1.0);
    let offsets = [[fx, fy], [x1, fy], [fx, y1], [x1, y1]];
    let corners = [0, 1, 2, 3].map(|k| perlin_corner(g[k], offsets[k]));
    // Perlin's raw blend stays within ±√2/2, so the unit scale's clamp never acts.
    let raw = blend_corners(&corners, weights, slopes, curvatures, 1.0);
    let envelope = envelope(fx, fy);
    let (m, dm, hm) = (envelope.first.value, envelope.first.gradient, envelope.hessian);
    let (n, dn, hn) = (raw.first.value, raw.first.gradient, raw.hessian);
    let s = ROUNDED_SCALE;
    let value = (n * s * m).clamp(-1.0, 1.0);
    let gradient = [0, 1].map(|a| s * (m * dn[a] + n * dm[a]));
    let h = |a: usize, b: usize| s * (m * hn[a][b] + dn[a] * dm[b] + dm[a] * dn[b] + n * hm[a][b]);
    Jet::new(Dual::new(value, gradient), [[h(0, 0), h(0, 1)], [h(1, 0), h(1, 1)]]).flat_if(value.abs() >= 1.0)
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
    fn the_envelope_is_one_on_the_cell_edges_and_three_quarters_at_the_centre() {
        for t in [0.0, 0.2, 0.5, 0.9, 1.0] {
            for (fx, fy) in [(t, 0.0), (t, 1.0), (0.0, t), (1.0, t)] {
                assert_eq!(envelope_value(fx, fy), 1.0, "({fx}, {fy})");
            }
        }
        assert_eq!(envelope_value(0.5, 0.5), 0.75);
        // The same factor mirrored across the cell: seen alike from every corner.
        for (fx, fy) in [(0.3, 0.8), (0.1, 0.45)] {
            let m = envelope_value(fx, fy);
            for (x, y) in [(1.0 - fx, fy), (fx, 1.0 - fy), (1.0 - fx, 1.0 - fy)] {
                assert!((envelope_value(x, y) - m).abs() < 1e-6, "({x}, {y})");
            }
        }
    }

    #[test]
    fn envelope_derivatives_match_differences() {
        let h = 1e-3;
        for (fx, fy) in [(0.3, 0.4), (0.7, 0.2), (0.9, 0.9), (0.05, 0.6), (0.5, 0.5)] {
            let e = envelope(fx, fy);
            assert_eq!(e.first.value, envelope_value(fx, fy));
            for axis in 0..2 {
                let step = |s: f32| if axis == 0 { envelope(fx + s, fy) } else { envelope(fx, fy + s) };
                let (ahead, behind) = (step(h), step(-h));
                let slope = (ahead.first.value - behind.first.value) / (2.0 * h);
                assert!((e.first.gradient[axis] - slope).abs() < 2e-3, "({fx}, {fy}) axis {axis}");
                for other in 0..2 {
                    let curve = (ahead.first.gradient[other] - behind.first.gradient[other]) / (2.0 * h);
                    assert!((e.hessian[axis][other] - curve).abs() < 2e-2, "({fx}, {fy}) {axis} {other}");
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
                        perlin_corner(g, d).value.abs() * w
                    })
                    .sum::<f32>()
                    * envelope_value(fx, fy);
                if sum > largest.0 {
                    largest = (sum, fx, fy);
                }
            }
        }
        assert_eq!((largest.1, largest.2), (0.5, 0.5), "{largest:?}");
        assert!((largest.0 * ROUNDED_SCALE - 1.0).abs() < 1e-5, "{largest:?}");
    }
}
