//! [`ScatterRule`]: how many points a layer of things wants, how far apart, and on which ground.

use crate::clamp::{SLOPE_DEGREES_RANGE, UNIT_RANGE, clamp_or};
use crate::color::rules::CUT_DEPTH_RANGE;
use crate::color::rules::slope_degrees;
use crate::map::postprocess::smoothstep;

/// Allowed points per world unit², on ground every filter fully accepts.
pub const SCATTER_DENSITY_RANGE: (f32, f32) = (1e-6, 100.0);
/// Allowed minimum spacing between two points, world units.
pub const SCATTER_SPACING_RANGE: (f32, f32) = (0.0, 1e4);

/// A rule's land heights (noise units, 0 at the water line) are clamped to this range.
pub const SCATTER_HEIGHT_RANGE: (f32, f32) = (0.0, 10.0);
/// Allowed random scale factors.
pub const SCATTER_SCALE_RANGE: (f32, f32) = (1e-3, 1e3);

/// Where and how densely one kind of thing (trees, rocks, reeds) is placed.
///
/// Points come from a grid of square cells in world space, one candidate per cell at a hashed
/// place, so the points of a region never depend on how the world is cut into pieces. Each
/// candidate is kept with the probability [`ScatterRule::weight`] gives its ground: 1 well
/// inside every range, falling smoothly to 0 at the ranges' limits (the soft edges lie inside
/// the ranges, so no point is ever placed outside them), and never under water.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct ScatterRule {
    /// Whether it places anything.
    pub enabled: bool,
    /// Seed of its hash: two rules with different seeds place unrelated points.
    pub seed: u32,
    /// Points per world unit² where the ground passes every filter fully,
    /// [`SCATTER_DENSITY_RANGE`], and at most `1 / spacing²` (a documented clamp: one point per
    /// cell, and a cell no narrower than the spacing).
    pub density: f32,
    /// Least distance between any two points of the rule, world units,
    /// [`SCATTER_SPACING_RANGE`].
    pub spacing: f32,
    /// Land heights it covers, `[low, high]`, as a share of the way from the water line (0) to
    /// a height of 1 (1), the colour rules' land scale; `low` is at least 0: nothing under water.
    pub heights: [f32; 2],
    /// Slopes it covers, degrees from level, `[low, high]` in `[0, 90]`.
    pub slopes: [f32; 2],
    /// Depths of the erosion filter's cut it covers, `[low, high]` (0 where nothing is cut);
    /// the default covers every depth.
    pub cuts: [f32; 2],
    /// Width of the soft edge inside each end of the height range (same units), `[0, 1]`.
    pub height_blend: f32,
    /// Width of the soft edge inside each end of the slope range, degrees, `[0, 90]`.
    pub slope_blend: f32,
    /// Random scale of each point, `[low, high]` in [`SCATTER_SCALE_RANGE`] (uniform).
    pub scale: [f32; 2],
}

impl Default for ScatterRule {
    fn default() -> Self {
        Self {
            enabled: true,
            seed: 0,
            density: 0.01,
            spacing: 4.0,
            heights: [0.0, 1.0],
            slopes: [0.0, 90.0],
            cuts: [-1.0, 10.0],
            height_blend: 0.05,
            slope_blend: 5.0,
            scale: [0.8, 1.2],
        }
    }
}

/// What a rule sees of the ground at one point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ground {
    /// Height in noise units (the mesh's `y` divided by the height scale).
    pub height: f32,
    /// Unit normal of the ground, `y` up.
    pub normal: [f32; 3],
    /// The erosion filter's cut depth there (0 without the filter).
    pub cut: f32,
}

impl ScatterRule {
    /// The rule with every value in its documented range (NaN takes the default's value), the
    /// density at most `1 / spacing²`, and each range's ends in order.
    pub fn clamped(&self) -> Self {
        let d = Self::default();
        let ordered = |[a, b]: [f32; 2], range: (f32, f32), default: [f32; 2]| {
            let (a, b) = (clamp_or(a, range, default[0]), clamp_or(b, range, default[1]));
            [a.min(b), a.max(b)]
        };
        let spacing = clamp_or(self.spacing, SCATTER_SPACING_RANGE, d.spacing);
        let most = if spacing > 0.0 {
            (1.0 / (spacing * spacing)).min(SCATTER_DENSITY_RANGE.1)
        } else {
            SCATTER_DENSITY_RANGE.1
        };
        let density = clamp_or(self.density, SCATTER_DENSITY_RANGE, d.density).min(most);
        Self {
            enabled: self.enabled,
            seed: self.seed,
            density: density.max(SCATTER_DENSITY_RANGE.0),
            spacing,
            heights: ordered(self.heights, SCATTER_HEIGHT_RANGE, d.heights),
            slopes: ordered(self.slopes, SLOPE_DEGREES_RANGE, d.slopes),
            cuts: ordered(self.cuts, CUT_DEPTH_RANGE, d.cuts),
            height_blend: clamp_or(self.height_blend, UNIT_RANGE, d.height_blend),
            slope_blend: clamp_or(self.slope_blend, SLOPE_DEGREES_RANGE, d.slope_blend),
            scale: ordered(self.scale, SCATTER_SCALE_RANGE, d.scale),
        }
    }

    /// Side of the rule's cells, world units: `1 / √density` (one candidate per cell gives the
    /// density), never below the spacing (with a margin of a few millionths, for rounding). For
    /// a clamped rule.
    pub fn cell_size(&self) -> f64 {
        (1.0 / f64::from(self.density).sqrt()).max(f64::from(self.spacing) * (1.0 + 4e-6))
    }

    /// The heights (noise units, `[low, high]`) outside which [`weight`](Self::weight) is 0
    /// whatever the rest of the ground, widened a hair for rounding: a ground that can tell a
    /// point's height lies outside them need not be asked for the rest. For a clamped rule.
    pub fn height_window(&self, water_level: f32) -> [f32; 2] {
        let land = (1.0 - water_level).max(1e-6);
        let [low, high] = [self.heights[0].max(0.0), self.heights[1]].map(|l| water_level + l * land);
        let margin = 1e-5 * (1.0 + low.abs().max(high.abs()));
        [low - margin, high + margin]
    }

    /// The share of candidates kept on `ground`, `[0, 1]`: the product of the height and slope
    /// windows, 0 under water, at or beyond any limit, and outside the cut range. For a clamped
    /// rule; `water_level` in noise units.
    pub fn weight(&self, ground: &Ground, water_level: f32) -> f32 {
        let land = (ground.height - water_level) / (1.0 - water_level).max(1e-6);
        if land.is_nan() || land < 0.0 || !(self.cuts[0]..=self.cuts[1]).contains(&ground.cut) {
            return 0.0;
        }
        let slope = slope_degrees(ground.normal[1]);
        inside(land, self.heights, self.height_blend) * inside(slope, self.slopes, self.slope_blend)
    }
}

/// 1 well inside `[low, high]`, rising smoothly from 0 over `blend` inside each end, 0 at the
/// ends and beyond; a range from 0 has no edge at 0 (the shore, level ground).
fn inside(x: f32, [low, high]: [f32; 2], blend: f32) -> f32 {
    if !(low..=high).contains(&x) {
        return 0.0;
    }
    let blend = blend.min((high - low) * 0.5).max(1e-6);
    let rise = if low <= 0.0 { 1.0 } else { smoothstep(low, low + blend, x) };
    rise * (1.0 - smoothstep(high - blend, high, x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(height: f32) -> Ground {
        Ground { height, normal: [0.0, 1.0, 0.0], cut: 0.0 }
    }

    #[test]
    fn nothing_under_water_or_beyond_a_limit() {
        let rule =
            ScatterRule { heights: [0.1, 0.5], slopes: [0.0, 30.0], ..ScatterRule::default() }.clamped();
        assert_eq!(rule.weight(&flat(0.19), 0.2), 0.0, "under water");
        assert_eq!(rule.weight(&flat(0.2 + 0.8 * 0.1), 0.2), 0.0, "at the low limit");
        assert_eq!(rule.weight(&flat(0.2 + 0.8 * 0.5), 0.2), 0.0, "at the high limit");
        assert_eq!(rule.weight(&flat(0.2 + 0.8 * 0.3), 0.2), 1.0, "well inside");
        let steep = Ground { normal: [0.6, 0.8, 0.0], ..flat(0.2 + 0.8 * 0.3) }; // 36.9 degrees
        assert_eq!(rule.weight(&steep, 0.2), 0.0);
    }

    /// Every height the rule keeps lies in its window, and the window is no wider than the
    /// rule's heights (with its hair of margin).
    #[test]
    fn the_height_window_holds_every_kept_height() {
        for (heights, water) in
            [([0.0, 0.012], 0.24), ([0.1, 0.5], 0.2), ([0.02, 10.0], -0.5), ([0.3, 0.4], 1.5)]
        {
            let rule = ScatterRule { heights, ..ScatterRule::default() }.clamped();
            let [low, high] = rule.height_window(water);
            let land = (1.0 - water).max(1e-6);
            assert!(low <= water + rule.heights[0] * land && high >= water + rule.heights[1] * land);
            assert!(high - low <= (rule.heights[1] - rule.heights[0]) * land + 1e-3);
            for k in 0..=20_000 {
                let h = low - 0.5 + k as f32 * ((high - low + 1.0) / 20_000.0);
                if rule.weight(&flat(h), water) > 0.0 {
                    assert!((low..=high).contains(&h), "{h} kept outside {low}..{high}");
                }
            }
        }
    }

    #[test]
    fn a_range_from_the_water_line_keeps_the_shore() {
        let rule = ScatterRule::default().clamped();
        assert_eq!(rule.weight(&flat(0.2001), 0.2), 1.0);
        assert_eq!(rule.weight(&flat(f32::NAN), 0.2), 0.0);
    }

    #[test]
    fn density_is_clamped_by_the_spacing_and_nan_takes_the_default() {
        let r = ScatterRule { density: 5.0, spacing: 2.0, ..ScatterRule::default() }.clamped();
        assert_eq!(r.density, 0.25);
        assert!((r.cell_size() - 2.0).abs() < 1e-4);
        let r =
            ScatterRule { density: f32::NAN, spacing: f32::NAN, scale: [2.0, 1.0], ..ScatterRule::default() }
                .clamped();
        assert_eq!((r.density, r.spacing, r.scale), (0.01, 4.0, [1.0, 2.0]));
    }
}
