//! Worley (cellular) noise: one jittered feature point per lattice cell; the value is a function
//! of the distances to the nearest feature points.
//!
//! # Jitter and the search neighbourhood
//! The feature point of cell `i` lies in `[i + (1-j)/2, i + (1+j)/2]` on every axis, for jitter
//! `j` in `[0, 1]`. A point outside the `(2r+1)^n` cells around the query's cell is at least
//! `D = r + (1-j)/2` away (on one axis, so in every metric). The nearest point is at most
//! `B1 = metric((1+j)/2, ..)` away (the own cell's point), the second nearest at most
//! `B2 = metric(1 + j/2, (1+j)/2, ..)` (the own point and the nearer face neighbour). The search
//! radius `r` is the smallest with `B <= D`, so the result is exact and continuous at every
//! jitter: 3×3 cells for F1 up to `j ≈ 0.65` (Euclidean, 2-D), 5×5 above, and so on.
//!
//! In 2-D the 3×3 block comes first; a point outside it is at least one cell away, so the
//! farther cells are searched only for queries whose F1 (F2 when the return needs it) is still
//! above 1 after the block: at jitter 1 that is a small share of them, and a 1024×1024 grid
//! takes a quarter of the time a full 5×5 search took.
//!
//! # Returns and ranges (all mapped to `[0, 1]`)
//! - `F1`: distance to the nearest point, divided by `B1` (squared for squared Euclidean).
//! - `F2`: distance to the second nearest, divided by `B2`.
//! - `F2 - F1`: divided by `B2`. Zero on the cell walls, so it draws the cells' outlines.
//! - `Cell`: a random value in `[0, 1)` per cell, constant over the nearest point's region.
//!
//! Worley noise tiles with the lattice's period; the fade curve is not used.

use super::lattice::Lattice;
use crate::clamp::{UNIT_RANGE, clamp_or};
use crate::field::coord::split;
use crate::field::dual::{Dual, Jet};
use crate::field::hash::{hash2, hash3, mix, unit_value};

/// What Worley noise returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum WorleyReturn {
    /// Distance to the nearest feature point: round cells, dark at the points.
    #[default]
    F1,
    /// Distance to the second nearest feature point.
    F2,
    /// `F2 - F1`: the cell walls.
    F2MinusF1,
    /// A random value per cell (flat Voronoi cells).
    Cell,
}

impl WorleyReturn {
    /// The return before clamping as a combination `a₁ · F1 + a₂ · F2` of the distances (for
    /// its derivatives): `(raw, a₁, a₂)`, from the bounds, the distances and the finished value
    /// (the cell return's, which is flat).
    #[inline(always)]
    pub(crate) fn as_combination(
        self,
        (b1, b2): (f32, f32),
        (f1, f2): (f32, f32),
        value: f32,
    ) -> (f32, f32, f32) {
        match self {
            WorleyReturn::F1 => (f1 / b1, 1.0 / b1, 0.0),
            WorleyReturn::F2 => (f2 / b2, 0.0, 1.0 / b2),
            WorleyReturn::F2MinusF1 => ((f2 - f1) / b2, -1.0 / b2, 1.0 / b2),
            WorleyReturn::Cell => (value, 0.0, 0.0),
        }
    }

    /// Every return, in the order of the inspector's chips.
    pub const ALL: [WorleyReturn; 4] =
        [WorleyReturn::F1, WorleyReturn::F2, WorleyReturn::F2MinusF1, WorleyReturn::Cell];

    /// Name as the export tool's `--worley-return` spells it.
    pub fn name(self) -> &'static str {
        match self {
            WorleyReturn::F1 => "f1",
            WorleyReturn::F2 => "f2",
            WorleyReturn::F2MinusF1 => "f2-f1",
            WorleyReturn::Cell => "cell",
        }
    }

    /// Maps `(F1, F2, nearest cell's hash)` to `[0, 1]` for this return; `f1` and `f2` are true
    /// measures (not orderings) and `bounds` come from `Worley::unit_bounds`.
    #[inline(always)]
    pub(crate) fn finish(self, (b1, b2): (f32, f32), f1: f32, f2: f32, cell_hash: u32) -> f32 {
        let v = match self {
            WorleyReturn::F1 => f1 / b1,
            WorleyReturn::F2 => f2 / b2,
            WorleyReturn::F2MinusF1 => (f2 - f1) / b2,
            WorleyReturn::Cell => unit_value(mix(cell_hash ^ 0x5851_F42D)),
        };
        v.clamp(0.0, 1.0)
    }

    fn needs_second(self) -> bool {
        matches!(self, WorleyReturn::F2 | WorleyReturn::F2MinusF1)
    }
}

/// How Worley noise measures distance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum DistanceMetric {
    /// Straight-line distance: round cells.
    #[default]
    Euclidean,
    /// Squared straight-line distance: same cells, softer falloff.
    EuclideanSquared,
    /// Sum of the axis distances: diamond-shaped cells.
    Manhattan,
    /// Largest axis distance: square cells.
    Chebyshev,
}

impl DistanceMetric {
    /// Every metric, in the order of the inspector's chips.
    pub const ALL: [DistanceMetric; 4] = [
        DistanceMetric::Euclidean,
        DistanceMetric::EuclideanSquared,
        DistanceMetric::Manhattan,
        DistanceMetric::Chebyshev,
    ];

    /// Name as the export tool's `--worley-metric` spells it.
    pub fn name(self) -> &'static str {
        match self {
            DistanceMetric::Euclidean => "euclidean",
            DistanceMetric::EuclideanSquared => "euclidean2",
            DistanceMetric::Manhattan => "manhattan",
            DistanceMetric::Chebyshev => "chebyshev",
        }
    }

    /// The metric's value of an offset vector.
    #[inline(always)]
    pub fn measure(self, d: &[f32]) -> f32 {
        match self {
            DistanceMetric::Euclidean => d.iter().map(|v| v * v).sum::<f32>().sqrt(),
            DistanceMetric::EuclideanSquared => d.iter().map(|v| v * v).sum(),
            DistanceMetric::Manhattan => d.iter().map(|v| v.abs()).sum(),
            DistanceMetric::Chebyshev => d.iter().fold(0.0, |m, v| m.max(v.abs())),
        }
    }

    /// A value with the same order as [`measure`](Self::measure), cheaper to compute: the squared
    /// distance for Euclidean. [`from_ordering`](Self::from_ordering) turns it into the measure.
    #[inline(always)]
    pub fn ordering(self, d: &[f32]) -> f32 {
        match self {
            DistanceMetric::Euclidean => DistanceMetric::EuclideanSquared.measure(d),
            other => other.measure(d),
        }
    }

    /// The measure from an [`ordering`](Self::ordering) value. `sqrt` is monotonic and correctly
    /// rounded, so the smallest `sqrt` is the `sqrt` of the smallest square, bit for bit.
    #[inline(always)]
    pub fn from_ordering(self, v: f32) -> f32 {
        match self {
            DistanceMetric::Euclidean => v.sqrt(),
            DistanceMetric::EuclideanSquared | DistanceMetric::Manhattan | DistanceMetric::Chebyshev => v,
        }
    }

    /// A true distance (not squared), used for the search radius.
    fn true_distance(self, d: &[f32]) -> f32 {
        match self {
            DistanceMetric::EuclideanSquared => DistanceMetric::Euclidean.measure(d),
            other => other.measure(d),
        }
    }
}

/// The Worley parameters of a field.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct Worley {
    /// What the noise returns.
    pub return_type: WorleyReturn,
    /// How distance is measured.
    pub metric: DistanceMetric,
    /// How far feature points stray from their cell centres, `[0, 1]` (clamped): 0 is a regular
    /// grid, 1 spreads them over the whole cell.
    pub jitter: f32,
}

impl Default for Worley {
    fn default() -> Self {
        Self { return_type: WorleyReturn::F1, metric: DistanceMetric::Euclidean, jitter: 0.9 }
    }
}

impl Worley {
    /// The jitter in `[0, 1]`; NaN becomes the default's (the one rule: [`NoiseSettings::clamped`](crate::NoiseSettings::clamped) uses it too).
    pub(crate) fn jitter(&self) -> f32 {
        clamp_or(self.jitter, UNIT_RANGE, Worley::default().jitter)
    }

    /// The distance bounds `(B1, B2)` in `dims` dimensions, in the metric's own units.
    fn bounds(&self, dims: usize, measure: impl Fn(&[f32]) -> f32) -> (f32, f32) {
        let j = self.jitter();
        let own = [(1.0 + j) / 2.0; 3];
        let mut second = own;
        second[0] = 1.0 + j / 2.0;
        (measure(&own[..dims]), measure(&second[..dims]))
    }

    /// The smallest search radius (in cells) that is exact for this jitter, metric and return.
    pub fn search_radius(&self, dims: usize) -> i64 {
        let (b1, b2) = self.bounds(dims, |d| self.metric.true_distance(d));
        let bound = if self.return_type.needs_second() { b2 } else { b1 };
        let reach = bound - (1.0 - self.jitter()) / 2.0;
        (reach.ceil() as i64).max(1)
    }

    /// The bounds `(B1, B2)` in the metric's own units, which the returns are divided by.
    pub(crate) fn unit_bounds(&self, dims: usize) -> (f32, f32) {
        self.bounds(dims, |d| self.metric.measure(d))
    }
}

/// What every 2-D search of one [`Worley`] setting shares: its search radius, clamped jitter and
/// bounds, computed once per field (the grid's runs at fine octaves are a few pixels long, and
/// computing these per run cost a quarter of the time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct WorleySearch {
    pub(crate) worley: Worley,
    /// The search radius in cells.
    pub(crate) radius: i64,
    /// The clamped jitter.
    pub(crate) jitter: f32,
    /// `(B1, B2)`, which the returns are divided by.
    pub(crate) bounds: (f32, f32),
}

impl WorleySearch {
    /// The 2-D search of `worley`.
    pub(crate) fn new(worley: &Worley) -> Self {
        Self {
            worley: *worley,
            radius: worley.search_radius(2),
            jitter: worley.jitter(),
            bounds: worley.unit_bounds(2),
        }
    }
}

/// Position of a cell's feature point inside the cell on one axis, from independent hash bits.
#[inline(always)]
pub(crate) fn feature(hash: u32, axis: u32, jitter: f32) -> f32 {
    let bits = if axis == 0 { hash } else { mix(hash.wrapping_add(axis.wrapping_mul(0x9E37_79B9))) };
    0.5 + (unit_value(bits) - 0.5) * jitter
}

/// Offers distance `d` of the point of cell `h` to a running (F1, F2, nearest hash), branch-free
/// so that the grid's row loop vectorises and gives the same bits as the point path.
#[inline(always)]
pub(crate) fn offer(f1: &mut f32, f2: &mut f32, nearest: &mut u32, d: f32, h: u32) {
    let closer = d < *f1;
    *f2 = if closer {
        *f1
    } else if d < *f2 {
        d
    } else {
        *f2
    };
    *f1 = if closer { d } else { *f1 };
    *nearest = if closer { h } else { *nearest };
}

/// The feature point of the cell in column `x` (absolute, unwrapped) and row `iy + dy`, for a
/// query in row `iy` at fraction `fy`: its x inside the cell, its y relative to the query row
/// (`dy + y - fy`) and the cell's hash. A query at cell `ix`, fraction `fx`, is
/// `(x - ix) + x_inside - fx` away along x.
#[inline(always)]
pub(crate) fn column_point(
    lattice: &Lattice,
    x: i64,
    (iy, dy): (i32, i64),
    jitter: f32,
    fy: f32,
) -> (f32, f32, u32) {
    let (inside, y, h) = column_point_in_row(lattice, x, (iy, dy), jitter);
    (inside, y - fy, h)
}

/// [`column_point`] before the query's fraction is subtracted: `(x inside, dy + y inside, hash)`,
/// the same for every query in row `iy` (the grid keeps these for the pixel rows that share a row
/// of cells).
#[inline(always)]
pub(crate) fn column_point_in_row(
    lattice: &Lattice,
    x: i64,
    (iy, dy): (i32, i64),
    jitter: f32,
) -> (f32, f32, u32) {
    let h = hash2(lattice.wrap(x), lattice.wrap(iy as i64 + dy), lattice.seed);
    (feature(h, 0, jitter), dy as f32 + feature(h, 1, jitter), h)
}

/// The cells a 2-D query searches, as `(dx, dy)` offsets from its own cell, in the order both the
/// point path and the grid offer them: the 3×3 block around the query first, then (for radius 2
/// and more) the farther cells, rows outside and columns inside. A farther cell's point is at
/// least [`FARTHER_CELLS_AT_LEAST`] away, so a query whose running F1 (or F2, when the return needs it)
/// is already that close can skip them with the very same result.
pub(crate) fn search_order_2d(r: i64) -> impl Iterator<Item = (i64, i64)> {
    let block = (-1..=1).flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)));
    let farther = (-r..=r)
        .flat_map(move |dy| (-r..=r).map(move |dx| (dx, dy)))
        .filter(|(dx, dy)| dx.abs() > 1 || dy.abs() > 1);
    block.chain(farther)
}

/// A lower bound, in every metric's ordering units, on the distance from a query to the feature
/// point of a cell outside its 3×3 block: such a point is at least one whole cell away along
/// one axis (feature points stay inside their cells), and the `f32` operations that compute the
/// offset and the ordering round monotonically, so they never go below it.
pub(crate) const FARTHER_CELLS_AT_LEAST: f32 = 1.0;

/// The running value that decides whether the farther cells can still matter: F2 for returns
/// that use it, else F1 (the nearest point's hash changes only with F1).
#[inline(always)]
pub(crate) fn deciding(worley: &Worley, f1: f32, f2: f32) -> f32 {
    if worley.return_type.needs_second() { f2 } else { f1 }
}

/// The two nearest feature points of a 2-D query, in the metric's ordering units, with the
/// offsets from the query to them and the nearest cell's hash.
struct NearestTwo<const N: usize = 2> {
    f1: f32,
    f2: f32,
    nearest: u32,
    offsets: [[f32; N]; 2],
}

impl<const N: usize> NearestTwo<N> {
    /// As [`offer`], keeping the offsets too.
    #[inline(always)]
    fn offer(&mut self, d: f32, offset: [f32; N], h: u32) {
        if d < self.f1 {
            (self.f2, self.offsets[1]) = (self.f1, self.offsets[0]);
            (self.f1, self.offsets[0], self.nearest) = (d, offset, h);
        } else if d < self.f2 {
            (self.f2, self.offsets[1]) = (d, offset);
        }
    }
}

/// The search both [`worley_2d`] and [`worley_2d_with_gradient`] run: the same cells in the same
/// order as the grid, so the same F1 and F2 bit for bit.
#[inline(always)]
fn nearest_two_2d(lattice: &Lattice, worley: &Worley, x: f64, y: f64) -> NearestTwo {
    let ((ix, fx), (iy, fy)) = (split(x), split(y));
    let (r, j) = (worley.search_radius(2), worley.jitter());
    let mut n = NearestTwo { f1: f32::INFINITY, f2: f32::INFINITY, nearest: 0, offsets: [[0.0; 2]; 2] };
    for (k, (dx, dy)) in search_order_2d(r).enumerate() {
        if k == 9 && deciding(worley, n.f1, n.f2) <= FARTHER_CELLS_AT_LEAST {
            break;
        }
        let (inside, cy, h) = column_point(lattice, ix as i64 + dx, (iy, dy), j, fy);
        let offset = [dx as f32 + inside - fx, cy];
        n.offer(worley.metric.ordering(&offset), offset, h);
    }
    n
}

/// 2-D Worley noise at `(x, y)`, in `[0, 1]`.
pub fn worley_2d(lattice: &Lattice, worley: &Worley, x: f64, y: f64) -> f32 {
    let n = nearest_two_2d(lattice, worley, x, y);
    worley.return_type.finish(
        worley.unit_bounds(2),
        worley.metric.from_ordering(n.f1),
        worley.metric.from_ordering(n.f2),
        n.nearest,
    )
}

impl DistanceMetric {
    /// The gradient of the metric's measure of the offset `d` from a query to a point, as the
    /// query moves (the offset moves the other way). One-sided where the measure has a crease.
    fn measure_gradient<const N: usize>(self, d: [f32; N]) -> [f32; N] {
        let sign = |v: f32| if v < 0.0 { -1.0 } else { 1.0 };
        let g = match self {
            DistanceMetric::Euclidean => {
                let length = d.iter().map(|v| v * v).sum::<f32>().sqrt();
                if length > 0.0 { d.map(|v| v / length) } else { [0.0; N] }
            }
            DistanceMetric::EuclideanSquared => d.map(|v| 2.0 * v),
            DistanceMetric::Manhattan => d.map(sign),
            DistanceMetric::Chebyshev => {
                // The axis of the largest component (the first of equal ones).
                let axis = (1..N).fold(0, |best, k| if d[k].abs() > d[best].abs() { k } else { best });
                std::array::from_fn(|k| if k == axis { sign(d[k]) } else { 0.0 })
            }
        };
        g.map(|v| -v)
    }

    /// The Hessian of the metric's measure of the offset `d` as the query moves (two sign flips
    /// cancel). Manhattan and Chebyshev are piecewise linear: none between their creases.
    fn measure_hessian(self, d: [f32; 2]) -> [[f32; 2]; 2] {
        match self {
            DistanceMetric::Euclidean => {
                let length = (d[0] * d[0] + d[1] * d[1]).sqrt();
                if length > 0.0 {
                    // (I - d̂ d̂ᵀ) / |d|.
                    let (nx, ny) = (d[0] / length, d[1] / length);
                    let xy = -nx * ny / length;
                    [[(1.0 - nx * nx) / length, xy], [xy, (1.0 - ny * ny) / length]]
                } else {
                    [[0.0; 2]; 2]
                }
            }
            DistanceMetric::EuclideanSquared => [[2.0, 0.0], [0.0, 2.0]],
            DistanceMetric::Manhattan | DistanceMetric::Chebyshev => [[0.0; 2]; 2],
        }
    }
}

/// [`worley_2d`] and its gradient in lattice units (per cell): the distance to the nearest
/// points changes as the query moves; the cell return is flat, and so is a clamped value.
pub(crate) fn worley_2d_with_gradient(lattice: &Lattice, worley: &Worley, x: f64, y: f64) -> Dual {
    worley_2d_with_hessian(lattice, worley, x, y).first
}

/// [`worley_2d_with_gradient`] and the Hessian, per cell.
pub(crate) fn worley_2d_with_hessian(lattice: &Lattice, worley: &Worley, x: f64, y: f64) -> Jet {
    let n = nearest_two_2d(lattice, worley, x, y);
    let (b1, b2) = worley.unit_bounds(2);
    let metric = worley.metric;
    let (f1, f2) = (metric.from_ordering(n.f1), metric.from_ordering(n.f2));
    let value = worley.return_type.finish((b1, b2), f1, f2, n.nearest);
    let [g1, g2] = n.offsets.map(|d| metric.measure_gradient(d));
    let [h1, h2] = n.offsets.map(|d| metric.measure_hessian(d));
    let (raw, a1, a2) = worley.return_type.as_combination((b1, b2), (f1, f2), value);
    let gradient = [0, 1].map(|a| g1[a] * a1 + g2[a] * a2);
    let hessian = [0, 1].map(|a| [0, 1].map(|b| h1[a][b] * a1 + h2[a][b] * a2));
    let clamped = !(0.0..=1.0).contains(&raw);
    Jet::new(Dual::new(value, gradient), hessian).flat_if(clamped)
}

/// 3-D Worley noise at `(x, y, z)`, in `[0, 1]`.
pub fn worley_3d(lattice: &Lattice, worley: &Worley, x: f64, y: f64, z: f64) -> f32 {
    let n = nearest_two_3d(lattice, worley, x, y, z);
    worley.return_type.finish(
        worley.unit_bounds(3),
        worley.metric.from_ordering(n.f1),
        worley.metric.from_ordering(n.f2),
        n.nearest,
    )
}

/// The two nearest feature points of a 3-D query (orderings, offsets, the nearest hash).
fn nearest_two_3d(lattice: &Lattice, worley: &Worley, x: f64, y: f64, z: f64) -> NearestTwo<3> {
    let ((ix, fx), (iy, fy), (iz, fz)) = (split(x), split(y), split(z));
    let (r, j) = (worley.search_radius(3), worley.jitter());
    let mut n = NearestTwo { f1: f32::INFINITY, f2: f32::INFINITY, nearest: 0, offsets: [[0.0; 3]; 2] };
    for dz in -r..=r {
        let cz = lattice.wrap(iz as i64 + dz);
        for dy in -r..=r {
            let cy = lattice.wrap(iy as i64 + dy);
            for dx in -r..=r {
                let h = hash3(lattice.wrap(ix as i64 + dx), cy, cz, lattice.seed);
                let p = [
                    dx as f32 + feature(h, 0, j) - fx,
                    dy as f32 + feature(h, 1, j) - fy,
                    dz as f32 + feature(h, 2, j) - fz,
                ];
                n.offer(worley.metric.ordering(&p), p, h);
            }
        }
    }
    n
}

/// [`worley_3d`] and its gradient in lattice units (per cell); the cell return and clamped
/// values are flat.
pub(crate) fn worley_3d_with_gradient(lattice: &Lattice, worley: &Worley, x: f64, y: f64, z: f64) -> Dual<3> {
    let n = nearest_two_3d(lattice, worley, x, y, z);
    let (b1, b2) = worley.unit_bounds(3);
    let metric = worley.metric;
    let (f1, f2) = (metric.from_ordering(n.f1), metric.from_ordering(n.f2));
    let value = worley.return_type.finish((b1, b2), f1, f2, n.nearest);
    let [g1, g2] = n.offsets.map(|d| metric.measure_gradient(d));
    let (raw, a1, a2) = worley.return_type.as_combination((b1, b2), (f1, f2), value);
    let clamped = !(0.0..=1.0).contains(&raw);
    Dual::new(value, std::array::from_fn(|k| if clamped { 0.0 } else { g1[k] * a1 + g2[k] * a2 }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::fade::Fade;
    use crate::test_support::{SplitMix, random_points};

    fn settings(return_type: WorleyReturn, metric: DistanceMetric, jitter: f32) -> Worley {
        Worley { return_type, metric, jitter }
    }

    /// F1 and F2 by brute force over 9×9 cells: the reference the bounded search must match.
    fn brute_force_2d(lattice: &Lattice, w: &Worley, x: f64, y: f64) -> (f32, f32) {
        let ((ix, fx), (iy, fy)) = (split(x), split(y));
        let (mut f1, mut f2, mut nearest) = (f32::INFINITY, f32::INFINITY, 0);
        for dy in -4..=4 {
            for dx in -4..=4 {
                let h = hash2(lattice.wrap(ix as i64 + dx), lattice.wrap(iy as i64 + dy), lattice.seed);
                let p = [dx as f32 + feature(h, 0, w.jitter) - fx, dy as f32 + feature(h, 1, w.jitter) - fy];
                offer(&mut f1, &mut f2, &mut nearest, w.metric.measure(&p), h);
            }
        }
        (f1, f2)
    }

    #[test]
    fn the_search_radius_finds_the_true_nearest_points() {
        let lattice = Lattice::new(4, Fade::Quintic);
        let mut rng = SplitMix(17);
        for _ in 0..20_000 {
            let metric = DistanceMetric::ALL[(rng.next_u64() % DistanceMetric::ALL.len() as u64) as usize];
            let jitter = rng.range(0.0, 1.0) as f32;
            let (x, y) = (rng.range(-100.0, 100.0), rng.range(-100.0, 100.0));
            let (f1, f2) = brute_force_2d(&lattice, &settings(WorleyReturn::F1, metric, jitter), x, y);
            let (b1, b2) = settings(WorleyReturn::F1, metric, jitter).bounds(2, |d| metric.measure(d));
            let got_f1 = worley_2d(&lattice, &settings(WorleyReturn::F1, metric, jitter), x, y) * b1;
            let got_f2 = worley_2d(&lattice, &settings(WorleyReturn::F2, metric, jitter), x, y) * b2;
            assert!((got_f1 - f1).abs() < 1e-4 * b1, "{metric:?} j={jitter}: F1 {got_f1} vs {f1}");
            assert!((got_f2 - f2).abs() < 1e-4 * b2, "{metric:?} j={jitter}: F2 {got_f2} vs {f2}");
        }
    }

    #[test]
    fn radius_grows_with_jitter_only_when_needed() {
        let w = |r, j| settings(r, DistanceMetric::Euclidean, j);
        assert_eq!(w(WorleyReturn::F1, 0.6).search_radius(2), 1);
        assert_eq!(w(WorleyReturn::F1, 1.0).search_radius(2), 2);
        assert_eq!(w(WorleyReturn::F2, 0.3).search_radius(2), 1);
        assert_eq!(w(WorleyReturn::F2, 1.0).search_radius(2), 2);
        assert_eq!(settings(WorleyReturn::F1, DistanceMetric::Chebyshev, 1.0).search_radius(2), 1);
    }

    #[test]
    fn every_return_and_metric_stays_in_zero_one() {
        let lattice = Lattice::new(8, Fade::Quintic);
        let mut rng = SplitMix(3);
        for [x, y, z] in random_points(200_000, 6, 1e3) {
            let w = settings(
                WorleyReturn::ALL[(rng.next_u64() % WorleyReturn::ALL.len() as u64) as usize],
                DistanceMetric::ALL[(rng.next_u64() % DistanceMetric::ALL.len() as u64) as usize],
                rng.range(0.0, 1.0) as f32,
            );
            let (a, b) = (worley_2d(&lattice, &w, x, y), worley_3d(&lattice, &w, x, y, z));
            assert!((0.0..=1.0).contains(&a) && (0.0..=1.0).contains(&b), "{w:?}: {a} {b}");
        }
    }

    #[test]
    fn f1_is_continuous_at_full_jitter() {
        // Distances are 1-Lipschitz: F1 moves at most h per step (divided by B1), in every metric
        // whose unit ball contains the Euclidean one along an axis.
        let lattice = Lattice::new(12, Fade::Quintic);
        for metric in [DistanceMetric::Euclidean, DistanceMetric::Manhattan, DistanceMetric::Chebyshev] {
            let w = settings(WorleyReturn::F1, metric, 1.0);
            let (b1, _) = w.bounds(2, |d| metric.measure(d));
            let h = 1e-3;
            for k in 0..20_000 {
                let x = -10.0 + k as f64 * h;
                let step = (worley_2d(&lattice, &w, x + h, 0.37) - worley_2d(&lattice, &w, x, 0.37)).abs();
                assert!(step <= (h as f32 / b1) * 1.01 + 1e-6, "{metric:?}: step {step} at {x}");
                let step3 =
                    (worley_3d(&lattice, &w, 0.2, x + h, 0.37) - worley_3d(&lattice, &w, 0.2, x, 0.37)).abs();
                let (b13, _) = w.bounds(3, |d| metric.measure(d));
                assert!(step3 <= (h as f32 / b13) * 1.01 + 1e-6, "{metric:?} 3-D: step {step3} at {x}");
            }
        }
    }

    #[test]
    fn periodic_worley_tiles() {
        let lattice = Lattice { period: Some(6), ..Lattice::new(5, Fade::Quintic) };
        let w = Worley::default();
        for k in 0..1000 {
            let (x, y) = ((k % 40) as f64 / 8.0, (k / 40) as f64 / 8.0);
            assert_eq!(worley_2d(&lattice, &w, x, y), worley_2d(&lattice, &w, x + 6.0, y - 12.0));
        }
    }
}
