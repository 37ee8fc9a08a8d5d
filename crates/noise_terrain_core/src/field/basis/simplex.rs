//! Simplex noise: the lattice is a grid of triangles
//! (tetrahedra in 3-D), so a point blends 3 (4) corners instead of 4 (8), each with a radial
//! kernel `(r₀² - d²)⁴` instead of a fade curve.
//!
//! The 2-D gradients are 16 unit vectors at multiples of 22.5°, picked from four hash bits with
//! selects instead of a table lookup, so that a row of points vectorises (a table needs gathers);
//! 3-D uses the 64-direction table of gradient noise. Each corner adds at most
//! `(r₀² - d²)⁴ · d`; the largest sum of those over a cell, found by a dense search, is 0.01008
//! in 2-D (`r₀² = 0.5`) and 0.02507 in 3-D (`r₀² = 0.6`). The scales 98 and 39 sit just under
//! the reciprocals, so the output is within `[-1, 1]` by construction (the tests hold it to that
//! on 10^6 points). Simplex noise has no square period: it ignores the lattice's period. The fade
//! curve is not used either.

use super::gradient_table::GRADIENTS_3D;
use super::lattice::Lattice;
use crate::field::coord::{sanitize, split};
use crate::field::dual::{Dual, Jet};
use crate::field::hash::{hash2_spread, hash3, spread_x, spread_y};

/// Skew factor from the square grid to the triangle grid, `(√3 - 1) / 2`.
const F2: f64 = 0.366_025_403_784_438_6;
/// Unskew factor, `(3 - √3) / 6`.
pub(crate) const G2: f64 = 0.211_324_865_405_187_1;
const F3: f64 = 1.0 / 3.0;
const G3: f64 = 1.0 / 6.0;
pub(crate) const SCALE_2D: f32 = 98.0;
const SCALE_3D: f32 = 39.0;

/// One corner's contribution: the kernel times the gradient's dot product with the offset.
#[inline(always)]
fn corner(r0: f32, d2: f32, dot: f32) -> f32 {
    let t = r0 - d2;
    // `max` rather than a branch: one instruction per lane in a vectorised loop.
    let t = t.max(0.0);
    t * t * t * t * dot
}

/// [`gradient_2d`]'s sixteen gradients by component (x, y), in the order of the hash's top four
/// bits (the SIMD rows pick them from registers).
pub(crate) static GRADIENTS_BY_COMPONENT: [[f32; 16]; 2] = {
    let mut components = [[0.0; 16]; 2];
    let mut k = 0;
    while k < 16 {
        let [x, y] = gradient_2d((k as u32) << 28);
        (components[0][k], components[1][k]) = (x, y);
        k += 1;
    }
    components
};

/// The gradient picked by the top four bits of `hash`: angle `k · 22.5°`, a first-quadrant
/// vector (bits 28 and 29), turned a quarter (bit 30) and a half (bit 31).
#[inline(always)]
pub(crate) const fn gradient_2d(hash: u32) -> [f32; 2] {
    const C: f32 = 0.923_879_5; // cos 22.5°
    const S: f32 = 0.382_683_43; // sin 22.5°
    const D: f32 = std::f32::consts::FRAC_1_SQRT_2;
    // Independent bit tests become vector blends; a chain of `b == n` tests would become a
    // table lookup, which stops the loop around it from vectorising.
    let (odd, upper) = (hash & (1 << 28) != 0, hash & (1 << 29) != 0);
    let c = if upper {
        if odd { S } else { D }
    } else if odd {
        C
    } else {
        1.0
    };
    let s = if upper {
        if odd { C } else { D }
    } else if odd {
        S
    } else {
        0.0
    };
    let (x, y) = if hash & (1 << 30) == 0 { (c, s) } else { (-s, c) };
    // A half turn negates both: their sign bits flip.
    let half = hash & (1 << 31);
    [f32::from_bits(x.to_bits() ^ half), f32::from_bits(y.to_bits() ^ half)]
}

/// `g · (dx, dy)` for the gradient [`gradient_2d`] picks from `hash`, as `gx·dx + gy·dy` (the
/// AVX-512 row picks `g` from a 16-entry table with the same bits).
#[inline(always)]
fn gradient_dot_2d(hash: u32, dx: f32, dy: f32) -> f32 {
    let [gx, gy] = gradient_2d(hash);
    gx * dx + gy * dy
}

/// The first corner of the triangle holding `(x, y)` and the offset from it.
///
/// The skew `x + (x + y)·F2` is taken from each coordinate's cell and fraction ([`split`]): the
/// cells' shares ([`SkewAxis`], in `f64` once per cell) hold its large, exact parts, so that what
/// is left per point is small and runs in `f32` ([`skew_cells`]). A grid row computes the shares
/// of its x cells once for all its rows (`grid/rows.rs`); only the `f32` part runs per pixel, 8 or
/// 16 lanes at a time where an `f64` skew ran 4 or 8. Mathematically the skew of `x` and `y`
/// whole; the offsets carry `f32` rounding (about 1e-7 of a cell) at any distance from the origin.
#[inline(always)]
pub(crate) fn skew_2d(x: f64, y: f64) -> (i32, i32, f32, f32) {
    let ((cx, fx), (cy, fy)) = (split(x), split(y));
    skew_cells(SkewAxis::new(cx), fx, SkewAxis::new(cy), fy)
}

/// One coordinate's cell `c` and its share of the skew: with `c·F2 = floor + fraction`, the
/// skewed cell gains `floor` on both axes, the skewed fraction `fraction`, and the offset from
/// the triangle's first corner `unskew = c·G2 − floor·(1 − 2·G2)` (the large terms of `c` cancel:
/// `G2 = F2·(1 − 2·G2)`, so `unskew` is `fraction·(1 − 2·G2)` within `f64` rounding).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SkewAxis {
    /// `c + floor`, the skewed cell along this axis before the other axis' and the fraction's parts.
    pub(crate) cell_and_floor: i32,
    pub(crate) floor: i32,
    pub(crate) fraction: f32,
    pub(crate) unskew: f32,
}

impl SkewAxis {
    /// The share of cell `cell` (within `±COORDINATE_LIMIT`, as [`split`] gives it).
    #[inline(always)]
    pub(crate) fn new(cell: i32) -> Self {
        let product = f64::from(cell) * F2;
        // The floor through an integer (`f64::floor` is a library call below SSE4.1): the
        // truncation, one less where it rounded up. |product| < 2^31 · F2 < 8e8 for any cell,
        // so it fits an i32, and so does `cell + floor` for cells within the coordinate limit.
        // SAFETY: `product` is finite and within an i32 (above). The unchecked conversion
        // vectorises the rows' loop over their cells (a saturating `as` does not).
        let truncated = unsafe { product.to_int_unchecked::<i32>() };
        let floor = truncated - i32::from(f64::from(truncated) > product);
        let unskew = f64::from(cell) * G2 - f64::from(floor) * (1.0 - 2.0 * G2);
        Self {
            cell_and_floor: cell.wrapping_add(floor),
            floor,
            fraction: (product - f64::from(floor)) as f32,
            unskew: unskew as f32,
        }
    }
}

/// [`skew_2d`] of the point at fraction `fx` of cell `x` and `fy` of `y`, from the cells' shares
/// of the skew: the point path's and the grid rows' one definition.
#[inline(always)]
pub(crate) fn skew_cells(x: SkewAxis, fx: f32, y: SkewAxis, fy: f32) -> (i32, i32, f32, f32) {
    let s = (x.fraction + y.fraction) + (fx + fy) * F2 as f32;
    // SAFETY: fractions lie in [0, 1], so `fx + s` and `fy + s` in [0, 5): finite and within an
    // i32; being at least 0 their truncation is their floor. The unchecked conversion vectorises.
    let (p, q) = unsafe { ((fx + s).to_int_unchecked::<i32>(), (fy + s).to_int_unchecked::<i32>()) };
    let t = (p + q) as f32 * G2 as f32;
    let shift = x.unskew + y.unskew;
    let i = x.cell_and_floor.wrapping_add(y.floor).wrapping_add(p);
    let j = y.cell_and_floor.wrapping_add(x.floor).wrapping_add(q);
    (i, j, (fx - p as f32 + t) + shift, (fy - q as f32 + t) + shift)
}

/// The triangle holding the point from [`skew_2d`]: each corner's hash and the offset from it to
/// the point.
#[inline(always)]
fn triangle_2d(seed: u32, i: i32, j: i32, x0: f32, y0: f32) -> [(u32, f32, f32); 3] {
    let upper = x0 > y0;
    let (i1, j1) = if upper { (1, 0) } else { (0, 1) };
    let g2 = G2 as f32;
    let (x1, y1) = (x0 - i1 as f32 + g2, y0 - j1 as f32 + g2);
    let (x2, y2) = (x0 - 1.0 + 2.0 * g2, y0 - 1.0 + 2.0 * g2);
    // The corners' hashes from two multiplications: neighbours add the spread of 1.
    let (sx, sy, one_x, one_y) = (spread_x(i), spread_y(j), spread_x(1), spread_y(1));
    let h0 = hash2_spread(sx, sy, seed);
    let h1 = hash2_spread(
        if upper { sx.wrapping_add(one_x) } else { sx },
        if upper { sy } else { sy.wrapping_add(one_y) },
        seed,
    );
    let h2 = hash2_spread(sx.wrapping_add(one_x), sy.wrapping_add(one_y), seed);
    [(h0, x0, y0), (h1, x1, y1), (h2, x2, y2)]
}

/// The three corners' contributions for the triangle from [`skew_2d`], scaled to `[-1, 1]`.
/// Branch-free, so that loops over points vectorise.
#[inline(always)]
pub(crate) fn corners_2d(seed: u32, i: i32, j: i32, x0: f32, y0: f32) -> f32 {
    let [(h0, x0, y0), (h1, x1, y1), (h2, x2, y2)] = triangle_2d(seed, i, j, x0, y0);
    let n = corner(0.5, x0 * x0 + y0 * y0, gradient_dot_2d(h0, x0, y0))
        + corner(0.5, x1 * x1 + y1 * y1, gradient_dot_2d(h1, x1, y1))
        + corner(0.5, x2 * x2 + y2 * y2, gradient_dot_2d(h2, x2, y2));
    (n * SCALE_2D).clamp(-1.0, 1.0)
}

/// [`corners_2d`] (the same bits) and its gradient per unit of `x` and `y`; flat where the value
/// is clamped. Branch-free, so that rows vectorise: a corner outside its kernel's reach adds a
/// zero. Shared by the point and the grid paths.
#[inline(always)]
pub(crate) fn corners_2d_with_gradient(seed: u32, i: i32, j: i32, x0: f32, y0: f32) -> Dual {
    let value = corners_2d(seed, i, j, x0, y0);
    let mut gradient = [0.0f32; 2];
    for (h, dx, dy) in triangle_2d(seed, i, j, x0, y0) {
        // d/dp of t⁴ (g · d), with d moving as the point does and t = r₀² - |d|² (0 outside).
        let t = (0.5 - (dx * dx + dy * dy)).max(0.0);
        let [gx, gy] = gradient_2d(h);
        let dot = gx * dx + gy * dy;
        let t3 = t * t * t;
        gradient[0] += t3 * t * gx - 8.0 * t3 * dx * dot;
        gradient[1] += t3 * t * gy - 8.0 * t3 * dy * dot;
    }
    let flat = value.abs() >= 1.0;
    let slope = |g: f32| if flat { 0.0 } else { g * SCALE_2D };
    Dual::new(value, gradient.map(slope))
}

/// [`simplex_2d`] and its gradient (per unit of `x` and `y`); flat where the value is clamped.
pub(crate) fn simplex_2d_with_gradient(x: f64, y: f64, seed: u32) -> Dual {
    let (i, j, x0, y0) = skew_2d(x, y);
    corners_2d_with_gradient(seed, i, j, x0, y0)
}

/// [`simplex_2d_with_gradient`] and the Hessian; flat where the value is clamped.
pub(crate) fn simplex_2d_with_hessian(x: f64, y: f64, seed: u32) -> Jet {
    let (i, j, x0, y0) = skew_2d(x, y);
    let first = corners_2d_with_gradient(seed, i, j, x0, y0);
    let mut h = [[0.0f32; 2]; 2];
    for (hash, dx, dy) in triangle_2d(seed, i, j, x0, y0) {
        let t = 0.5 - (dx * dx + dy * dy);
        if t > 0.0 {
            // d²/dp² of t⁴ (g · d): -8t³ (g dᵀ + d gᵀ) + 48 t² (g · d) d dᵀ - 8 t³ (g · d) I.
            let (g, d) = (gradient_2d(hash), [dx, dy]);
            let dot = g[0] * dx + g[1] * dy;
            let (t2, t3) = (t * t, t * t * t);
            for (a, row) in h.iter_mut().enumerate() {
                for (b, cell) in row.iter_mut().enumerate() {
                    let identity = if a == b { 1.0 } else { 0.0 };
                    *cell += -8.0 * t3 * (g[a] * d[b] + d[a] * g[b]) + 48.0 * t2 * dot * d[a] * d[b]
                        - 8.0 * t3 * dot * identity;
                }
            }
        }
    }
    let h = h.map(|row| row.map(|v| v * SCALE_2D));
    Jet::new(first, h).flat_if(first.value.abs() >= 1.0)
}

/// 2-D simplex noise at `(x, y)`, in `[-1, 1]`.
#[inline(always)]
pub fn simplex_2d(lattice: &Lattice, x: f64, y: f64) -> f32 {
    let (i, j, x0, y0) = skew_2d(x, y);
    corners_2d(lattice.seed, i, j, x0, y0)
}

/// The four corners of the tetrahedron holding `(x, y, z)`: each one's gradient and the offset
/// from it to the point.
#[inline(always)]
fn tetrahedron_3d(lattice: &Lattice, x: f64, y: f64, z: f64) -> [([f32; 3], [f32; 3]); 4] {
    let (x, y, z) = (sanitize(x), sanitize(y), sanitize(z));
    let s = (x + y + z) * F3;
    let (i, j, k) = ((x + s).floor(), (y + s).floor(), (z + s).floor());
    let t = (i + j + k) * G3;
    let (x0, y0, z0) = ((x - (i - t)) as f32, (y - (j - t)) as f32, (z - (k - t)) as f32);
    // Which of the six tetrahedra of the skewed cube holds the point.
    let ((i1, j1, k1), (i2, j2, k2)) = if x0 >= y0 {
        if y0 >= z0 {
            ((1, 0, 0), (1, 1, 0))
        } else if x0 >= z0 {
            ((1, 0, 0), (1, 0, 1))
        } else {
            ((0, 0, 1), (1, 0, 1))
        }
    } else if y0 < z0 {
        ((0, 0, 1), (0, 1, 1))
    } else if x0 < z0 {
        ((0, 1, 0), (0, 1, 1))
    } else {
        ((0, 1, 0), (1, 1, 0))
    };
    let g3 = G3 as f32;
    let (i, j, k) = (i as i64 as i32, j as i64 as i32, k as i64 as i32);
    let seed = lattice.seed;
    let corner = |oi: i32, oj: i32, ok: i32, d: [f32; 3]| {
        (GRADIENTS_3D[(hash3(i + oi, j + oj, k + ok, seed) >> 26) as usize], d)
    };
    [
        corner(0, 0, 0, [x0, y0, z0]),
        corner(i1, j1, k1, [x0 - i1 as f32 + g3, y0 - j1 as f32 + g3, z0 - k1 as f32 + g3]),
        corner(i2, j2, k2, [x0 - i2 as f32 + 2.0 * g3, y0 - j2 as f32 + 2.0 * g3, z0 - k2 as f32 + 2.0 * g3]),
        corner(1, 1, 1, [x0 - 1.0 + 3.0 * g3, y0 - 1.0 + 3.0 * g3, z0 - 1.0 + 3.0 * g3]),
    ]
}

/// 3-D simplex noise at `(x, y, z)`, in `[-1, 1]`.
pub fn simplex_3d(lattice: &Lattice, x: f64, y: f64, z: f64) -> f32 {
    let c = tetrahedron_3d(lattice, x, y, z);
    let kernel = |(g, d): ([f32; 3], [f32; 3])| {
        corner(0.6, d[0] * d[0] + d[1] * d[1] + d[2] * d[2], g[0] * d[0] + g[1] * d[1] + g[2] * d[2])
    };
    let n = kernel(c[0]) + kernel(c[1]) + kernel(c[2]) + kernel(c[3]);
    (n * SCALE_3D).clamp(-1.0, 1.0)
}

/// [`simplex_3d`] and its gradient (per unit of `x`, `y` and `z`); flat where the value is
/// clamped.
pub(crate) fn simplex_3d_with_gradient(lattice: &Lattice, x: f64, y: f64, z: f64) -> Dual<3> {
    let value = simplex_3d(lattice, x, y, z);
    let mut gradient = [0.0f32; 3];
    if value.abs() < 1.0 {
        for (g, d) in tetrahedron_3d(lattice, x, y, z) {
            let t = 0.6 - (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if t > 0.0 {
                // d/dp of t⁴ (g · d) with t = r₀² - |d|²: t⁴ g - 8 t³ (g · d) d.
                let dot = g[0] * d[0] + g[1] * d[1] + g[2] * d[2];
                let t3 = t * t * t;
                for k in 0..3 {
                    gradient[k] += t3 * t * g[k] - 8.0 * t3 * dot * d[k];
                }
            }
        }
    }
    Dual::new(value, gradient.map(|g| g * SCALE_3D))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::fade::Fade;
    use crate::test_support::random_points;

    /// The last eight gradients are the first eight negated, sign bit and all (the AVX2 rows pick
    /// from the first eight and negate the offset for the others, which gives the same products
    /// only if so).
    #[test]
    fn the_last_eight_gradients_negate_the_first_eight() {
        for k in 0..8 {
            for [first, last] in GRADIENTS_BY_COMPONENT.map(|c| [c[k], c[k + 8]]) {
                assert_eq!(last.to_bits(), (-first).to_bits(), "gradient {k} and {}", k + 8);
            }
        }
    }

    /// The skew from the cells' shares is the skew of the whole coordinates in `f64` (the
    /// definition before the shares, and the textbook's): the same triangle wherever a point is
    /// not within 1e-5 of its edges, and offsets within 2e-6 of the `f64` ones, near the origin
    /// and up to a billion units away.
    #[test]
    fn the_skew_from_the_cells_shares_is_the_skew_of_the_whole_coordinates() {
        let whole = |x: f64, y: f64| {
            let s = (x + y) * F2;
            let (u, v) = (x + s, y + s);
            let (i, j) = (u.floor(), v.floor());
            let t = (i + j) * G2;
            ((i, j), (x - (i - t), y - (j - t)), (u - i, v - j))
        };
        let (mut compared, mut largest) = (0, 0.0f64);
        for centre in [0.0, -3.7e3, 1.0e6, -2.5e8, 9.9e8] {
            for [x, y, _] in random_points(20_000, 3, 50.0) {
                let (x, y) = (centre + x, -0.7 * centre + y);
                let ((i, j), (x0, y0), (u, v)) = whole(x, y);
                if [u, v].iter().any(|f| f.min(1.0 - f) < 1e-5) {
                    continue;
                }
                let (si, sj, sx0, sy0) = skew_2d(x, y);
                assert_eq!((f64::from(si), f64::from(sj)), (i, j), "the triangle at ({x}, {y})");
                let error = (f64::from(sx0) - x0).abs().max((f64::from(sy0) - y0).abs());
                assert!(error < 2e-6, "offsets at ({x}, {y}): {sx0}, {sy0} against {x0}, {y0}");
                (compared, largest) = (compared + 1, largest.max(error));
            }
        }
        assert!(compared > 99_000, "{compared} points away from the edges");
        println!("largest offset error {largest:e}");
    }

    #[test]
    fn stays_in_range_and_uses_most_of_it() {
        let lattice = Lattice::new(21, Fade::Quintic);
        let (mut lo, mut hi) = (0f32, 0f32);
        for [x, y, z] in random_points(1_000_000, 8, 1e4) {
            let (a, b) = (simplex_2d(&lattice, x, y), simplex_3d(&lattice, x, y, z));
            assert!((-1.0..=1.0).contains(&a) && (-1.0..=1.0).contains(&b));
            (lo, hi) = (lo.min(a), hi.max(a));
        }
        assert!(lo < -0.6 && hi > 0.6, "{lo}..{hi}");
    }

    #[test]
    fn the_sixteen_gradients_are_unit_vectors_at_every_22_5_degrees() {
        let mut angles: Vec<i32> = (0..16u32)
            .map(|k| {
                let [gx, gy] = gradient_2d(k << 28);
                assert!((gx.hypot(gy) - 1.0).abs() < 1e-6);
                (gy.atan2(gx).to_degrees().rem_euclid(360.0) / 22.5).round() as i32
            })
            .collect();
        angles.sort();
        assert_eq!(angles, (0..16).collect::<Vec<_>>());
    }

    #[test]
    fn is_continuous() {
        // Slope of one corner, |∇((r0 - d²)⁴ g·d)| <= 8t³d² + t⁴ with t = r0 - d²: at most 0.12
        // for r0 = 0.5 and 0.24 for r0 = 0.6; times the 3 or 4 corners, times the scale.
        let lattice = Lattice::new(2, Fade::Quintic);
        let h = 1e-4;
        for k in 0..20_000 {
            let x = -1.0 + k as f64 * h;
            let step2 = (simplex_2d(&lattice, x + h, 0.3) - simplex_2d(&lattice, x, 0.3)).abs();
            let step3 = (simplex_3d(&lattice, 0.7, x + h, 0.3) - simplex_3d(&lattice, 0.7, x, 0.3)).abs();
            assert!(step2 as f64 <= 3.0 * 0.12 * 98.0 * h, "2-D step {step2} at {x}");
            assert!(step3 as f64 <= 4.0 * 0.24 * 39.0 * h, "3-D step {step3} at {x}");
        }
    }

    #[test]
    fn seeds_change_the_field_and_bad_input_is_finite() {
        let (a, b) = (Lattice::new(1, Fade::Quintic), Lattice::new(2, Fade::Quintic));
        assert_ne!(simplex_2d(&a, 0.3, 0.4), simplex_2d(&b, 0.3, 0.4));
        for v in [f64::NAN, f64::INFINITY, -1e12] {
            assert!(simplex_2d(&a, v, v).is_finite() && simplex_3d(&a, v, 0.5, v).is_finite());
        }
    }
}
