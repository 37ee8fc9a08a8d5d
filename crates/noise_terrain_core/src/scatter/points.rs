//! [`scatter_points`]: the points a [`ScatterRule`] places in a rectangle of the world.
//!
//! The world is cut into square cells [`ScatterRule::cell_size`] wide, aligned on the origin.
//! Each cell has one candidate, at a place hashed from the rule's seed and the cell's integer
//! coordinates, at least half the spacing from the cell's sides: two candidates of neighbouring
//! cells are therefore at least the spacing apart along the axis that separates them, so every
//! pair of points keeps the spacing. A rectangle takes the candidates that lie in it (half-open,
//! so rectangles that tile a region take each candidate once), and keeps each one with the
//! rule's weight of the ground under it. Nothing depends on the rectangle but which cells are
//! looked at: any tiling of a region, at any level of detail, gives the same points, bit for bit.

use std::f32::consts::TAU;

use super::rule::{Ground, ScatterRule};

/// Most cells one call looks at (a rectangle that needs more is refused, see
/// [`ScatterError::TooManyCells`]): 16.7 million, a square of 4096 cells a side.
pub const MAX_SCATTER_CELLS: u64 = 1 << 24;

/// One placed thing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScatterPoint {
    /// `x` and `z` where it stands, and `y`: the ground's height times the height scale.
    pub position: [f64; 3],
    /// Unit normal of the ground there.
    pub normal: [f32; 3],
    /// Its random scale, in the rule's scale range.
    pub scale: f32,
    /// Its random turn about the vertical, radians in `[0, 2π)`.
    pub rotation: f32,
    /// A random number in `[0, 1)` that orders the points for thinning: keeping the points
    /// whose rank is below a share keeps that share of them, and a smaller share keeps a subset
    /// of a larger one's points.
    pub rank: f32,
}

/// Why no points were placed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScatterError {
    /// The rectangle has a coordinate that is not finite, or a side that is negative.
    #[error("scatter rectangle {0:?} is not a finite [min x, min z, max x, max z]")]
    BadRectangle([f64; 4]),
    /// The rectangle covers more cells than [`MAX_SCATTER_CELLS`].
    #[error("scatter rectangle covers {cells} cells of the rule, more than {MAX_SCATTER_CELLS}")]
    TooManyCells {
        /// Cells it covers.
        cells: u64,
    },
}

/// Where the ground of the points lies: the water level in noise units and the world height of
/// a noise height of 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScatterLevels {
    /// Noise height of the shoreline: nothing is placed below it.
    pub water_level: f32,
    /// World height of a noise height of 1.
    pub height_scale: f32,
}

/// Appends to `out` the points `rule` places in `rect` (`[min x, min z, max x, max z]`, world
/// units, half-open: `min ≤ x < max`), whose rank is below `share` (1 keeps all of them; see
/// [`ScatterPoint::rank`]), in cell order (rows of `z`, then `x`). `ground` tells what lies at a
/// point (`None`: nothing is placed there); it is asked only for candidates in the rectangle and
/// under the share. A disabled rule places nothing. The rule is clamped first.
///
/// ```
/// use noise_terrain_core::{Ground, ScatterLevels, ScatterRule, scatter_points};
///
/// let rule = ScatterRule { density: 0.01, spacing: 4.0, ..Default::default() };
/// let levels = ScatterLevels { water_level: 0.4, height_scale: 100.0 };
/// // Flat land above the water everywhere: the rule's height and slope limits accept it.
/// let ground = |_x: f64, _z: f64| Some(Ground { height: 0.5, normal: [0.0, 1.0, 0.0], cut: 0.0 });
/// let mut points = Vec::new();
/// scatter_points(&rule, levels, [0.0, 0.0, 100.0, 100.0], 1.0, ground, &mut points).unwrap();
/// assert!(points.iter().all(|p| (0.0..100.0).contains(&p.position[0])));
/// ```
pub fn scatter_points(
    rule: &ScatterRule,
    levels: ScatterLevels,
    rect: [f64; 4],
    share: f32,
    ground: impl FnMut(f64, f64) -> Option<Ground>,
    out: &mut Vec<ScatterPoint>,
) -> Result<(), ScatterError> {
    scatter_points_ranked(rule, levels, rect, [0.0, share], ground, out)
}

/// [`scatter_points`] for the points whose rank is in `[ranks[0], ranks[1])`: the points a
/// share `ranks[1]` keeps that a share `ranks[0]` does not (the ground is asked only for those
/// candidates). A piece of a coarser level of detail has placed the rest already; with
/// `ranks[0] = 0` it is [`scatter_points`] with the share `ranks[1]`.
pub fn scatter_points_ranked(
    rule: &ScatterRule,
    levels: ScatterLevels,
    rect: [f64; 4],
    ranks: [f32; 2],
    mut ground: impl FnMut(f64, f64) -> Option<Ground>,
    out: &mut Vec<ScatterPoint>,
) -> Result<(), ScatterError> {
    let [x0, z0, x1, z1] = rect;
    if !rect.iter().all(|v| v.is_finite()) || x1 < x0 || z1 < z0 {
        return Err(ScatterError::BadRectangle(rect));
    }
    let rule = rule.clamped();
    let c = rule.cell_size();
    let (i0, i1) = ((x0 / c).floor(), (x1 / c).floor());
    let (j0, j1) = ((z0 / c).floor(), (z1 / c).floor());
    let cells = (i1 - i0 + 1.0) * (j1 - j0 + 1.0);
    if cells > MAX_SCATTER_CELLS as f64 {
        return Err(ScatterError::TooManyCells { cells: cells.min(u64::MAX as f64) as u64 });
    }
    let [lowest, share] = ranks;
    if !rule.enabled || share.is_nan() || lowest.is_nan() || share <= 0.0 || share <= lowest {
        return Ok(());
    }
    // The spacing with a margin for rounding of coordinates up to about 1e6 units.
    let spacing = (f64::from(rule.spacing) * (1.0 + 1e-6) + c * 1e-9).min(c);
    let jitter = c - spacing;
    let (lo, span) = (rule.scale[0], rule.scale[1] - rule.scale[0]);
    for j in j0 as i64..=j1 as i64 {
        for i in i0 as i64..=i1 as i64 {
            let mut bits = CellBits::new(rule.seed, i, j);
            let x = i as f64 * c + spacing * 0.5 + bits.unit_f64() * jitter;
            let z = j as f64 * c + spacing * 0.5 + bits.unit_f64() * jitter;
            let (keep, scale, rotation, rank) = (bits.unit(), bits.unit(), bits.unit(), bits.unit());
            if !(x0..x1).contains(&x) || !(z0..z1).contains(&z) || rank >= share || rank < lowest {
                continue;
            }
            let Some(g) = ground(x, z) else { continue };
            if keep >= rule.weight(&g, levels.water_level) {
                continue;
            }
            out.push(ScatterPoint {
                position: [x, f64::from(g.height * levels.height_scale), z],
                normal: g.normal,
                scale: lo + scale * span,
                rotation: rotation * TAU,
                rank,
            });
        }
    }
    Ok(())
}

/// The random bits of one cell: a SplitMix64 stream seeded from the rule's seed and the cell.
struct CellBits(u64);

impl CellBits {
    fn new(seed: u32, i: i64, j: i64) -> Self {
        let start = u64::from(seed).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (i as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ (j as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
        Self(mix64(start))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }

    /// Uniform in `[0, 1)`, 53 bits.
    fn unit_f64(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[0, 1)`, 24 bits.
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 * (1.0 / (1u32 << 24) as f32)
    }
}

/// SplitMix64's finaliser.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const LEVELS: ScatterLevels = ScatterLevels { water_level: 0.2, height_scale: 100.0 };

    /// Rolling ground: heights from 0 to 1 and slopes up to about 50 degrees.
    fn hills(x: f64, z: f64) -> Option<Ground> {
        let (sx, sz) = ((x * 0.05).sin() as f32, (z * 0.031).cos() as f32);
        let height = 0.5 + 0.25 * (sx + sz);
        let (dx, dz) =
            (100.0 * 0.25 * 0.05 * (x * 0.05).cos() as f32, -100.0 * 0.25 * 0.031 * (z * 0.031).sin() as f32);
        let n = glam::Vec3::new(-dx, 1.0, -dz).normalize();
        Some(Ground { height, normal: n.to_array(), cut: 0.0 })
    }

    fn points(rule: &ScatterRule, rect: [f64; 4]) -> Vec<ScatterPoint> {
        let mut out = Vec::new();
        scatter_points(rule, LEVELS, rect, 1.0, hills, &mut out).unwrap();
        out
    }

    fn sorted(mut p: Vec<ScatterPoint>) -> Vec<ScatterPoint> {
        p.sort_by(|a, b| {
            a.position[2].total_cmp(&b.position[2]).then(a.position[0].total_cmp(&b.position[0]))
        });
        p
    }

    fn rule() -> ScatterRule {
        ScatterRule {
            density: 0.02,
            spacing: 3.0,
            slopes: [0.0, 35.0],
            heights: [0.05, 0.8],
            ..ScatterRule::default()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Any cut of a rectangle into pieces gives the same points, bit for bit.
        #[test]
        fn points_do_not_depend_on_how_the_region_is_cut(
            cx in 1u32..7, cz in 1u32..7, ox in -500.0f64..500.0, oz in -500.0f64..500.0, seed in any::<u32>(),
        ) {
            let rule = ScatterRule { seed, ..rule() };
            let whole = [ox, oz, ox + 300.0, oz + 300.0];
            let expected = sorted(points(&rule, whole));
            let mut tiled = Vec::new();
            for a in 0..cz {
                for b in 0..cx {
                    let x = |k: u32| if k == cx { whole[2] } else { ox + 300.0 * f64::from(k) / f64::from(cx) };
                    let z = |k: u32| if k == cz { whole[3] } else { oz + 300.0 * f64::from(k) / f64::from(cz) };
                    tiled.extend(points(&rule, [x(b), z(a), x(b + 1), z(a + 1)]));
                }
            }
            prop_assert!(!expected.is_empty());
            prop_assert_eq!(sorted(tiled), expected);
        }

        /// Every pair of points keeps the spacing.
        #[test]
        fn every_pair_keeps_the_spacing(spacing in 0.0f32..12.0, density in 0.001f32..0.5, seed in any::<u32>()) {
            let rule = ScatterRule { seed, spacing, density, heights: [0.0, 10.0], slopes: [0.0, 90.0], ..ScatterRule::default() };
            let p = points(&rule, [-1000.0, 2000.0, -900.0, 2100.0]);
            for (k, a) in p.iter().enumerate() {
                for b in &p[k + 1..] {
                    let d = (a.position[0] - b.position[0]).hypot(a.position[2] - b.position[2]);
                    prop_assert!(d >= f64::from(spacing), "{d} < {spacing}");
                }
            }
        }
    }

    #[test]
    fn two_threads_place_what_one_places() {
        let rect = [-300.0, -300.0, 300.0, 300.0];
        let one = sorted(points(&rule(), rect));
        let halves = std::thread::scope(|s| {
            let a = s.spawn(|| points(&rule(), [-300.0, -300.0, 0.0, 300.0]));
            let b = s.spawn(|| points(&rule(), [0.0, -300.0, 300.0, 300.0]));
            [a.join().unwrap(), b.join().unwrap()].concat()
        });
        assert!(!one.is_empty());
        assert_eq!(sorted(halves), one);
    }

    #[test]
    fn density_on_flat_ground_is_the_rules() {
        let flat = |_: f64, _: f64| Some(Ground { height: 0.5, normal: [0.0, 1.0, 0.0], cut: 0.0 });
        for (density, spacing) in [(0.01, 4.0), (0.05, 4.0), (0.2, 2.2), (1.0, 0.0)] {
            let rule = ScatterRule { density, spacing, ..ScatterRule::default() };
            let mut out = Vec::new();
            let side = 2000.0;
            scatter_points(
                &rule,
                LEVELS,
                [-side / 2.0, -side / 2.0, side / 2.0, side / 2.0],
                1.0,
                flat,
                &mut out,
            )
            .unwrap();
            let measured = out.len() as f64 / (side * side);
            let err = (measured / f64::from(density) - 1.0).abs();
            assert!(err < 0.05, "density {density}: {measured}");
        }
    }

    #[test]
    fn no_point_under_water_above_its_height_or_beyond_its_slope() {
        let rule = rule();
        let p = points(&rule, [0.0, 0.0, 2000.0, 2000.0]);
        assert!(p.len() > 1000, "{}", p.len());
        for point in &p {
            let g = hills(point.position[0], point.position[2]).unwrap();
            let land = (g.height - LEVELS.water_level) / (1.0 - LEVELS.water_level);
            assert!(land > 0.05 && land < 0.8, "{land}");
            assert!(crate::advanced::slope_degrees(point.normal[1]) < 35.0);
            assert_eq!(point.position[1], f64::from(g.height * 100.0));
            assert!((0.8..=1.2).contains(&point.scale) && (0.0..TAU).contains(&point.rotation));
        }
    }

    #[test]
    fn a_smaller_share_keeps_a_subset_near_its_size() {
        let rule = rule();
        let rect = [0.0, 0.0, 1500.0, 1500.0];
        let all = points(&rule, rect);
        let mut half = Vec::new();
        scatter_points(&rule, LEVELS, rect, 0.5, hills, &mut half).unwrap();
        assert!(half.iter().all(|p| all.contains(p)));
        let share = half.len() as f64 / all.len() as f64;
        assert!((share - 0.5).abs() < 0.05, "{share}");
    }

    /// The points of a rank window are those the larger share keeps and the smaller does not:
    /// with the smaller share's points, exactly the larger share's, bit for bit.
    #[test]
    fn a_rank_window_adds_what_a_larger_share_keeps() {
        let rule = rule();
        let rect = [-130.0, 40.0, 170.0, 260.0];
        let (mut small, mut window, mut large) = (Vec::new(), Vec::new(), Vec::new());
        scatter_points(&rule, LEVELS, rect, 0.3, hills, &mut small).unwrap();
        scatter_points_ranked(&rule, LEVELS, rect, [0.3, 0.7], hills, &mut window).unwrap();
        scatter_points(&rule, LEVELS, rect, 0.7, hills, &mut large).unwrap();
        assert!(!small.is_empty() && !window.is_empty());
        assert!(window.iter().all(|p| (0.3..0.7).contains(&p.rank)));
        assert_eq!(sorted([small, window].concat()), sorted(large));
        let mut none = Vec::new();
        scatter_points_ranked(&rule, LEVELS, rect, [0.7, 0.3], hills, &mut none).unwrap();
        scatter_points_ranked(&rule, LEVELS, rect, [f32::NAN, 1.0], hills, &mut none).unwrap();
        assert!(none.is_empty(), "an empty or NaN window places nothing");
    }

    #[test]
    fn bad_rectangles_are_refused_not_looped_over() {
        let mut out = Vec::new();
        let r = ScatterRule::default();
        let e = scatter_points(&r, LEVELS, [0.0, 0.0, f64::NAN, 1.0], 1.0, hills, &mut out);
        assert!(matches!(e, Err(ScatterError::BadRectangle(_))));
        let e = scatter_points(&r, LEVELS, [0.0, 0.0, -1.0, 1.0], 1.0, hills, &mut out);
        assert!(matches!(e, Err(ScatterError::BadRectangle(_))));
        let e = scatter_points(&r, LEVELS, [-1e12, -1e12, 1e12, 1e12], 1.0, hills, &mut out);
        assert!(matches!(e, Err(ScatterError::TooManyCells { .. })));
        assert!(out.is_empty());
    }

    #[test]
    fn the_seed_and_the_disabled_switch_change_the_points() {
        let rect = [0.0, 0.0, 500.0, 500.0];
        let a = points(&rule(), rect);
        let b = points(&ScatterRule { seed: 1, ..rule() }, rect);
        assert!(!a.is_empty() && a != b);
        assert!(points(&ScatterRule { enabled: false, ..rule() }, rect).is_empty());
    }
}
