//! The erosion filter: gullies that run downhill, cut into a field from its height and exact
//! gradient at each point alone.
//!
//! Water runs against the gradient, so an eroded slope is striped along its downhill direction.
//! Each octave of the filter lays a lattice of cells over the map (`scale · 2ᵏ` cells per lattice
//! cell of the field's base frequency); every cell has a pivot (its centre, jittered by a hash)
//! and a pattern of parallel gullies through that pivot, running along the downhill direction of
//! the field's coarse octaves (those at most half as fine as the first gully octave: finer bumps
//! would turn the gullies at every step). The four cells around a point are blended with smooth weights, so the pattern is
//! continuous (no seams between cells) and local (it does not depend on how far the point is
//! from the origin). Octave `k` follows the slope of the field plus the gullies of the octaves
//! before it (by [`bend`](ErosionFilter::bend)), so finer gullies on a coarse gully's flanks turn
//! toward its bottom and join it: the pattern branches downhill. Gullies fade where the ground
//! is flat and, by choice, on peaks and valley floors.
//!
//! This is a look, not a simulation: no water flows and nothing is deposited, so the result is
//! the same for any window of the map (chunk by chunk, at any level of detail), at a fixed
//! cost per point. A gully is as deep as the ground drops across its cell (times the strength),
//! so flats stay flat and steep flanks are cut deep; the profile across a gully averages zero
//! (gullies take away as much ground as the ridges between them add, so the ground keeps its mean
//! height and the shore stays where it was), and a smooth minimum with the room left keeps heights
//! within the field's own bounds. Where the gullies of one octave cancel the slope that the next
//! follows, the next one's gullies fade, and deep gullies bend the slope less: the filtered
//! field's gradient stays within a small multiple of the field's own plus the gullies' designed
//! steepness (no needles where gullies turn). The filter carries the exact gradient through every step (including the
//! direction's dependence on the position, which takes the coarse octaves' second derivatives),
//! so mesh normals stay exact.
//!
//! The formulation: two-by-two blended cells, a polynomial gully profile with a ridge-sharpness
//! blend, depths from the coarse slope, a smooth minimum with the field's bounds.
//!
//! Here: the settings ([`ErosionFilter`]) and their ranges; the gullies themselves:
//! `gullies.rs`.

use crate::clamp::{UNIT_RANGE, clamp_or};
use crate::field::coord::split;
use crate::field::dual::{Dual, Octave, Varying};
use crate::field::hash::{spread_seed, spread_x, spread_y};

mod gullies;
#[cfg(test)]
mod tests;

pub(crate) use gullies::{DUAL_PARTS, GullyNumber, GullyParts, GullyPlan, GullyState, PARTS, pivot_offset};

/// [`ErosionFilter::strength`] is clamped to this range.
pub const FILTER_STRENGTH_RANGE: (f32, f32) = (0.0, 4.0);
/// [`ErosionFilter::scale`] is clamped to this range.
pub const FILTER_SCALE_RANGE: (f32, f32) = (0.25, 64.0);
/// The most octaves of gullies: at `scale` 4 the eighth is 512 times finer than the field's base
/// lattice, finer than any map shows.
pub const MAX_FILTER_OCTAVES: u32 = 8;
/// [`ErosionFilter::gain`] is clamped to this range.
pub const FILTER_GAIN_RANGE: (f32, f32) = (0.0, 1.0);

/// How far a cell's pivot may sit from the cell's centre, as a share of the cell (each axis).
const PIVOT_JITTER: f32 = 0.7;
/// The slope (of heights scaled to a range of 1, per lattice cell of the base frequency) below
/// which ground counts as flat: gullies fade out there, as their direction is undefined.
const FLAT_SLOPE: f32 = 0.04;
/// How much the seed moves per octave of gullies.
const FILTER_SEED_STEP: u32 = 7919;
/// How short the slope an octave follows (the field's, bent by the gullies before) may get, as a
/// share of the field's own steepness, before the octave's gullies fade. Where the bends cancel
/// the slope, its direction turns through a half circle within a fraction of a cell, and gullies
/// that followed it would stand as needles; they keep `q³ / (1 + q³)` of their depth, for `q` the
/// bent slope's square over this share of the steepness, squared (where nothing bends the slope,
/// `q` is at least 4 and nearly all of the depth is kept).
const TURNING_SLOPE: f32 = 0.5;
/// The most `bend × strength` the filter applies (a deeper filter bends the slope less): how
/// fast a gully's walls turn the slope that the next octave follows grows with both, and past
/// this the next octave's direction turns through more than a radian within one of its cells,
/// which compresses its gullies into steps.
const MOST_BEND: f32 = 0.2;

/// Settings of the erosion filter: plain data, off by default.
///
/// Each octave of the filter lays cells over the map (`scale · 2ᵏ` per lattice cell of the base
/// frequency), each with a jittered pivot and parallel gullies through it along the downhill
/// direction of the field's coarse octaves; the four cells around a point are blended smoothly, and
/// octave `k` follows the slope of the field plus the gullies before it, so finer gullies branch
/// into coarser ones. A look, not a simulation: evaluated at each point alone, so any window of the
/// map (a chunk, a patch) gives the same heights, with the exact gradient.
///
/// Heights and depths are shares of the field's height range (its
/// [`value_bounds`](crate::NoiseSettings::value_bounds), 0 to 1 for a normalised field);
/// distances are in lattice cells of the field's base frequency.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct ErosionFilter {
    /// Whether the filter is applied. It applies to fBm, billow and a single layer, without
    /// domain warp: [`NoiseSettings::clamped`](crate::NoiseSettings::clamped) turns it off for
    /// other fields (its exact gradient needs the field's second derivatives, which the
    /// multifractals' products and the warp do not give here) and
    /// [`validate`](crate::NoiseSettings::validate) says so.
    pub enabled: bool,
    /// How deep gullies cut, `[0, 4]`: a gully's depth is this times the height the ground drops
    /// across one of its cells (0.5: gully walls about as steep as the slope they cut into; 0 is
    /// no cut).
    pub strength: f32,
    /// Gully cells per lattice cell of the base frequency at the first octave, `[0.25, 64]`: 2
    /// puts about two gullies across each hill of the first octave.
    pub scale: f32,
    /// Octaves of gullies, each twice as fine as the one before, `1..=8`.
    pub octaves: u32,
    /// Depth factor per octave beyond the halving of the cell, `[0, 1]` (1: each octave's
    /// gullies as deep for their cells as the first's, so half as deep; 0.5: a quarter).
    pub gain: f32,
    /// How much each octave follows the slope of the gullies so far, `[0, 1]`: 0, every octave
    /// runs straight down the field's own slope (parallel stripes); 1, finer gullies turn
    /// toward the bottoms of coarser ones and join them (branching). Deep gullies bend less: the
    /// bend applied is at most `0.2 / strength`, past which the finer gullies would turn through
    /// more than a radian within one of their cells and stand as steps.
    pub bend: f32,
    /// Shape across a gully, `[0, 1]`: 0, rounded ridges and rounded gullies (a smooth wave); 1,
    /// sharp ridge crests between parabolic gullies, as water leaves them.
    pub sharpness: f32,
    /// How much the peaks are kept, `[0, 1]`: 1 fades the gullies out toward the highest heights
    /// (from half the range up), 0 cuts peaks like any slope.
    pub keep_peaks: f32,
    /// How much the valley floors are kept, `[0, 1]`: 1 fades the gullies out toward the lowest
    /// heights (from half the range down), so valleys stay smooth; 0 cuts them too.
    pub keep_floors: f32,
    /// Seed of the gullies' pivots (independent of the field's seed).
    pub seed: u32,
}

impl Default for ErosionFilter {
    fn default() -> Self {
        Self {
            enabled: false,
            strength: 0.3,
            scale: 2.0,
            octaves: 4,
            gain: 1.0,
            bend: 1.0,
            sharpness: 0.6,
            keep_peaks: 0.3,
            keep_floors: 0.7,
            seed: 0,
        }
    }
}

impl ErosionFilter {
    /// The settings with every parameter inside its documented range; NaN takes the default.
    pub fn clamped(&self) -> Self {
        let d = Self::default();
        Self {
            enabled: self.enabled,
            strength: clamp_or(self.strength, FILTER_STRENGTH_RANGE, d.strength),
            scale: clamp_or(self.scale, FILTER_SCALE_RANGE, d.scale),
            octaves: self.octaves.clamp(1, MAX_FILTER_OCTAVES),
            gain: clamp_or(self.gain, FILTER_GAIN_RANGE, d.gain),
            bend: clamp_or(self.bend, UNIT_RANGE, d.bend),
            sharpness: clamp_or(self.sharpness, UNIT_RANGE, d.sharpness),
            keep_peaks: clamp_or(self.keep_peaks, UNIT_RANGE, d.keep_peaks),
            keep_floors: clamp_or(self.keep_floors, UNIT_RANGE, d.keep_floors),
            seed: self.seed,
        }
    }

    /// The filter prepared for a field with value bounds `(lo, hi)` and base `frequency` (cells
    /// per map unit); `None` when it is off or cuts nothing.
    pub(crate) fn plan(&self, (lo, hi): (f32, f32), frequency: f32) -> Option<GullyPlan> {
        let s = self.clamped();
        let range = hi - lo;
        if !s.enabled || s.strength == 0.0 || range <= 0.0 || !range.is_finite() {
            return None;
        }
        let octaves = s.octaves as usize;
        let mut depth = [0.0f32; MAX_FILTER_OCTAVES as usize];
        let mut cells = [0.0f64; MAX_FILTER_OCTAVES as usize];
        let mut seeds = [0u32; MAX_FILTER_OCTAVES as usize];
        let mut per_unit = [0.0f32; MAX_FILTER_OCTAVES as usize];
        for k in 0..octaves {
            cells[k] = s.scale as f64 * f64::from(1u32 << k);
            per_unit[k] = (cells[k] * frequency as f64) as f32;
            // Per unit of steepness (range per base lattice cell): the drop across one cell.
            depth[k] = s.strength * s.gain.powi(k as i32) * range / cells[k] as f32;
            seeds[k] = spread_seed(s.seed.wrapping_add(FILTER_SEED_STEP.wrapping_mul(k as u32)));
        }
        let sigma = s.sharpness;
        Some(GullyPlan {
            octaves,
            depth,
            cells,
            per_unit,
            seeds,
            // See `MOST_BEND`: deep gullies bend the slope less.
            bend: s.bend * (MOST_BEND / s.strength).min(1.0),
            profile: [16.0 - 8.0 * sigma, 32.0 * (1.0 - sigma)],
            // `-1 + a/12 - b/80`: the profile's mean across a gully.
            profile_mean: -1.0 + (16.0 - 8.0 * sigma) / 12.0 - 32.0 * (1.0 - sigma) / 80.0,
            keep: [s.keep_floors, s.keep_peaks],
            lo,
            range,
            inv_range: 1.0 / range,
            slope_unit: 1.0 / (frequency * range),
            frequency,
        })
    }
}
