//! Landscape evolution by the stream-power law: rivers cut into rising ground until their
//! networks drain every slope.
//!
//! Each time step solves `dh/dt = U − K·A^m·S^n + D·∇²h` (`U` uplift, `A` the area draining
//! through a cell, `S` its slope to the cell it drains to, `D` hillslope diffusion) implicitly,
//! in O(n) a step: water is routed over the ground (see `drainage`:
//! depressions filled, cells ordered from the outlets up), then every cell is lowered implicitly
//! against its receiver's new height, in that order, so the step is stable for any length. For
//! `n = 1` that is one division per cell; other `n` take a few Newton steps per cell. Diffusion
//! follows, explicitly, in as many sub-steps as stability needs.
//!
//! Cells under the sea and, with an open border, the map's edge are base level: they keep their
//! height. Lakes (filled depressions) are still water: the ground under them rises with the
//! uplift and is smoothed by diffusion but not cut, and rivers flowing into a lake cut down to its
//! surface.
//!
//! Determinism: routing and incision run in one fixed order, diffusion computes every cell from
//! the previous sub-step; the result is the same bytes on any number of threads.

use std::sync::atomic::{AtomicBool, Ordering};

use super::ErosionError;
use super::diffusion::diffuse;
use super::drainage::{Border, Grid, Routing};
use super::rivers::{Drainage, LandscapeBudget, RiverSettings};
use crate::Heightmap;
use crate::clamp::clamp_or;

/// The most time steps one evolution runs.
pub const MAX_STREAM_POWER_STEPS: u32 = 5_000;
/// Time per step, in the time unit the rates use (any: only products with it matter).
pub const TIME_STEP_RANGE: (f32, f32) = (1e-3, 1e6);
/// Erodibility `K`, in world units^(1 − 2m) per time unit.
pub const ERODIBILITY_RANGE: (f32, f32) = (0.0, 100.0);
/// The drainage area's exponent `m`.
pub const AREA_EXPONENT_RANGE: (f32, f32) = (0.0, 1.5);
/// The slope's exponent `n`.
pub const SLOPE_EXPONENT_RANGE: (f32, f32) = (0.5, 4.0);
/// Hillslope diffusion `D`, world units² per time unit.
pub const DIFFUSION_RANGE: (f32, f32) = (0.0, 1e4);
/// Uplift at the top of the uplift map, world units per time unit.
pub const UPLIFT_RANGE: (f32, f32) = (0.0, 1e4);

/// Stream-power landscape evolution. The defaults suit the default patch (100 world units across,
/// 24 tall): valleys branch down to the sea in 40 steps (300 time units; the implicit scheme
/// takes long steps: 150 steps of 2 carve nearly the same). For a world `k` times larger in every
/// direction, [`scaled`](Self::scaled) gives the settings that carve the same shapes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct StreamPower {
    /// Time steps, `0..=MAX_STREAM_POWER_STEPS`; 0 turns stream power off.
    pub steps: u32,
    /// Length of a step, [`TIME_STEP_RANGE`]. The implicit incision is stable at any length;
    /// shorter steps follow the rivers' retreat more closely.
    pub time_step: f32,
    /// Erodibility `K`, [`ERODIBILITY_RANGE`]: how fast a river of a given size cuts.
    pub erodibility: f32,
    /// `m`, [`AREA_EXPONENT_RANGE`]: how much more a larger river cuts (about 0.5 in nature).
    pub area_exponent: f32,
    /// `n`, [`SLOPE_EXPONENT_RANGE`]: 1 is the classic law (one division per cell); others are
    /// solved by Newton's method.
    pub slope_exponent: f32,
    /// Hillslope diffusion `D`, [`DIFFUSION_RANGE`]: rounds ridges and fills narrow notches.
    pub diffusion: f32,
    /// Uplift rate where the uplift map is 1, [`UPLIFT_RANGE`]. By default the uplift map is the
    /// input height above the sea level, as a share of the height from the sea to 1: the coast
    /// stays put and mountains rise where the noise is high.
    pub uplift: f32,
    /// What the map's edge does.
    pub border: Border,
    /// Where rivers start and how wide they are, for the outputs.
    pub rivers: RiverSettings,
}

impl Default for StreamPower {
    fn default() -> Self {
        Self {
            steps: 0,
            time_step: 7.5,
            erodibility: 0.02,
            area_exponent: 0.5,
            slope_exponent: 1.0,
            diffusion: 0.004,
            uplift: 0.04,
            border: Border::Open,
            rivers: RiverSettings::default(),
        }
    }
}

impl StreamPower {
    /// The settings with every value in range (NaN becomes the default).
    pub fn clamped(&self) -> Self {
        let d = Self::default();
        StreamPower {
            steps: self.steps.min(MAX_STREAM_POWER_STEPS),
            time_step: clamp_or(self.time_step, TIME_STEP_RANGE, d.time_step),
            erodibility: clamp_or(self.erodibility, ERODIBILITY_RANGE, d.erodibility),
            area_exponent: clamp_or(self.area_exponent, AREA_EXPONENT_RANGE, d.area_exponent),
            slope_exponent: clamp_or(self.slope_exponent, SLOPE_EXPONENT_RANGE, d.slope_exponent),
            diffusion: clamp_or(self.diffusion, DIFFUSION_RANGE, d.diffusion),
            uplift: clamp_or(self.uplift, UPLIFT_RANGE, d.uplift),
            border: self.border,
            rivers: self.rivers.clamped(),
        }
    }

    /// Whether it changes the ground.
    pub fn is_active(&self) -> bool {
        self.steps > 0
    }

    /// The settings that carve the same shapes in a world `factor` times larger in every
    /// direction (lengths and heights), over the same time: uplift grows by `factor`, diffusion
    /// by `factor²`, erodibility by `factor^(1 − 2m)`, the rivers' start area by `factor²`.
    pub fn scaled(&self, factor: f32) -> Self {
        let s = self.clamped();
        let k = clamp_or(factor, (1e-6, 1e6), 1.0);
        StreamPower {
            uplift: s.uplift * k,
            diffusion: s.diffusion * k * k,
            erodibility: s.erodibility * k.powf(1.0 - 2.0 * s.area_exponent),
            rivers: RiverSettings { min_area: s.rivers.min_area * k * k, ..s.rivers },
            ..s
        }
        .clamped()
    }
}

/// Where a map lies in the world, for the simulations that work in world units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapWorld {
    /// World units between neighbouring cells, `[1e-4, 1e6]`.
    pub cell_size: f32,
    /// World units of a noise height of 1, `[1e-3, 1e6]` (a flat world is eroded as if it were
    /// this much tall).
    pub height_scale: f32,
    /// Noise height of the sea: cells below it are sea, where rivers end.
    pub sea_level: f32,
}

impl MapWorld {
    /// A patch `world_size` wide sampled by `cells` per side, `height_scale` tall, with the sea at
    /// `sea_level`.
    pub fn patch(world_size: f32, cells: u32, height_scale: f32, sea_level: f32) -> MapWorld {
        MapWorld { cell_size: world_size / (cells.max(2) - 1) as f32, height_scale, sea_level }
    }

    /// The noise height of the coast: the sea level, or 0 without a sea (where non-finite
    /// heights are put, and where the default uplift starts).
    pub fn coast(&self) -> f32 {
        if self.sea_level.is_finite() { self.sea_level } else { 0.0 }
    }

    /// The geometry with every value in range.
    pub fn clamped(&self) -> MapWorld {
        MapWorld {
            cell_size: clamp_or(self.cell_size, (1e-4, 1e6), 1.0),
            height_scale: clamp_or(self.height_scale, (1e-3, 1e6), 1.0),
            sea_level: if self.sea_level.is_finite() { self.sea_level } else { f32::NEG_INFINITY },
        }
    }
}

/// Optional maps that shape an evolution, each one value per cell of the eroded map (a map of
/// another size is ignored).
#[derive(Clone, Copy, Debug, Default)]
pub struct StreamPowerMaps<'a> {
    /// Rain per cell, a weight (1 is the default everywhere; negative or NaN counts as 0).
    pub rain: Option<&'a Heightmap>,
    /// Uplift per cell, a share of [`StreamPower::uplift`] (negative or NaN counts as 0); by
    /// default the input height above the sea.
    pub uplift: Option<&'a Heightmap>,
}

/// Evolves `map` (noise heights) for `settings.steps` time steps and returns where its water
/// goes at the end: drainage areas, lakes and rivers, and the volume budget. `progress` is called
/// with the share done after each step; `cancel` stops it within a step, with `map` half evolved.
/// Non-finite heights are taken as the sea level (0 without a sea). The map is evolved in place,
/// in noise heights (the rates are turned into them), so base-level cells keep their bits.
pub fn evolve_landscape(
    map: &mut Heightmap,
    settings: &StreamPower,
    world: &MapWorld,
    maps: StreamPowerMaps<'_>,
    progress: &dyn Fn(f32),
    cancel: &AtomicBool,
) -> Result<Drainage, ErosionError> {
    let s = settings.clamped();
    let world = world.clamped();
    let grid = grid_of(map, &world);
    let rain = weights_of(map, maps.rain);
    let sea = world.sea_level;
    let rate = s.uplift * s.time_step / world.height_scale;
    let uplift: Vec<f32> = match maps.uplift {
        Some(u) if u.width() == map.width() && u.height() == map.height() => {
            weights_of(map, Some(u)).into_iter().map(|w| w * rate).collect()
        }
        _ => {
            // Without a sea, the uplift map is the height itself.
            let coast = world.coast();
            let room = (1.0 - coast).max(1e-6);
            map.samples().iter().map(|&h| if h > coast { (h - coast) / room * rate } else { 0.0 }).collect()
        }
    };
    let ground = map.samples_mut();
    let coast = world.coast();
    ground.iter_mut().filter(|h| !h.is_finite()).for_each(|h| *h = coast);
    let mut routing = Routing::default();
    let mut budget = LandscapeBudget::default();
    let mut result = Ok(());
    for step in 0..s.steps {
        if cancel.load(Ordering::Relaxed) {
            result = Err(ErosionError::Cancelled);
            break;
        }
        routing.route(ground, grid, s.border, sea, &rain);
        incise(ground, &routing, &uplift, grid, &s, world.height_scale, &mut budget);
        budget.left += diffuse(ground, routing.outlets(), grid, s.diffusion * s.time_step);
        progress((step + 1) as f32 / s.steps as f32);
    }
    // A cancelled evolution builds no outputs (its routing may never have run).
    result?;
    routing.route(ground, grid, s.border, sea, &rain);
    let mut drainage = Drainage::from_routing(routing, ground, grid, &s.rivers);
    drainage.budget = budget;
    Ok(drainage)
}

/// Where water goes on `map` (noise heights) as it is, without changing it: drainage areas,
/// lakes and rivers, routed as [`evolve_landscape`] routes them (`border`, the sea of `world`,
/// an optional `rain` map of the map's size). Non-finite heights count as the sea level.
pub fn drainage_of(
    map: &Heightmap,
    world: &MapWorld,
    border: Border,
    rain: Option<&Heightmap>,
    rivers: &RiverSettings,
) -> Drainage {
    let world = world.clamped();
    let grid = grid_of(map, &world);
    let rain = weights_of(map, rain);
    // A copy only where a height has to be replaced.
    let ground: std::borrow::Cow<[f32]> = if map.samples().iter().all(|h| h.is_finite()) {
        map.samples().into()
    } else {
        map.samples().iter().map(|&h| if h.is_finite() { h } else { world.coast() }).collect()
    };
    let mut routing = Routing::default();
    routing.route(&ground, grid, border, world.sea_level, &rain);
    Drainage::from_routing(routing, &ground, grid, rivers)
}

/// The router's view of `map` placed by `world`.
fn grid_of(map: &Heightmap, world: &MapWorld) -> Grid {
    Grid { width: map.width() as usize, height: map.height() as usize, cell_size: world.cell_size }
}

/// Non-negative weights from an optional map of `map`'s size (empty when there is none).
fn weights_of(map: &Heightmap, weights: Option<&Heightmap>) -> Vec<f32> {
    weights
        .filter(|m| m.width() == map.width() && m.height() == map.height())
        .map(|m| m.samples().iter().map(|&v| if v > 0.0 { v } else { 0.0 }).collect())
        .unwrap_or_default()
}

/// Uplift and river incision of one step, in place, in the routing's order (receivers first),
/// in noise heights (`height_scale` world units each); adds what it raised and cut to `budget`.
fn incise(
    ground: &mut [f32],
    routing: &Routing,
    uplift: &[f32],
    grid: Grid,
    s: &StreamPower,
    height_scale: f32,
    budget: &mut LandscapeBudget,
) {
    let (m, n) = (s.area_exponent, s.slope_exponent);
    // In noise heights the law reads K·A^m·H^(n−1)·(Δh/L)^n; with 1 / Lⁿ to an edge neighbour
    // and to a diagonal one.
    let k_dt = s.erodibility * s.time_step * height_scale.powf(n - 1.0);
    let per_length = [grid.cell_size, grid.cell_size * std::f32::consts::SQRT_2].map(|l| 1.0 / l.powf(n));
    let (mut raised_sum, mut cut_sum) = (0.0f64, 0.0f64);
    for &c in &routing.order {
        let c = c as usize;
        if routing.is_outlet(c) {
            continue;
        }
        let old = ground[c];
        let raised = old + uplift[c];
        // In f64 from the f32 values as stored, so that the budget balances to rounding of sums.
        raised_sum += f64::from(raised) - f64::from(old);
        let r = routing.receiver(c);
        // Rivers entering a lake cut down to its surface, not to its floor.
        let base = if routing.is_lake(r) { ground[r].max(routing.spill[r]) } else { ground[r] };
        if routing.is_lake(c) || raised <= base {
            ground[c] = raised;
            continue;
        }
        let apart = c.abs_diff(r);
        let diagonal = apart != 1 && apart != grid.width;
        let area = routing.area[c];
        // The classic exponent without `powf`, which took a third of the step.
        let area_term = if m == 0.5 { area.sqrt() } else { area.powf(m) };
        let f = k_dt * area_term * per_length[usize::from(diagonal)];
        ground[c] = base + drop_above_base(raised - base, f, n);
        cut_sum += f64::from(raised) - f64::from(ground[c]);
    }
    budget.uplifted += raised_sum;
    budget.eroded += cut_sum;
}

/// The height `δ` above its receiver that a cell `above` over it ends a step at: the root of
/// `δ + f·δⁿ = above` in `[0, above]` (for `n = 1`, `above / (1 + f)`).
fn drop_above_base(above: f32, f: f32, n: f32) -> f32 {
    if n == 1.0 {
        return above / (1.0 + f);
    }
    // Newton's method, kept inside the bracket where the residual changes sign.
    let (mut lo, mut hi) = (0.0f32, above);
    let mut d = above;
    for _ in 0..24 {
        let residual = d + f * d.powf(n) - above;
        if residual > 0.0 {
            hi = d;
        } else {
            lo = d;
        }
        let slope = 1.0 + f * n * d.powf(n - 1.0);
        let next = d - residual / slope;
        let next = if next > lo && next < hi && next.is_finite() { next } else { 0.5 * (lo + hi) };
        if (next - d).abs() <= 1e-7 * above {
            return next;
        }
        d = next;
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NoiseSettings, RiverEnd};

    #[test]
    fn newton_finds_the_implicit_drop_for_every_exponent() {
        for n in [0.5f32, 0.8, 1.0, 1.5, 2.0, 4.0] {
            for (above, f) in [(1.0f32, 0.1f32), (5.0, 3.0), (0.01, 50.0), (100.0, 1e-4)] {
                let d = drop_above_base(above, f, n);
                assert!((0.0..=above).contains(&d), "n {n}: {d} outside [0, {above}]");
                let residual = d + f * d.powf(n) - above;
                assert!(residual.abs() <= 1e-4 * above, "n {n}, above {above}, f {f}: residual {residual}");
            }
        }
    }

    fn hills(n: u32) -> Heightmap {
        let settings = NoiseSettings { octaves: 5, frequency: 3.0, seed: 3, ..Default::default() };
        Heightmap::generate(&settings, n, n).unwrap()
    }

    fn evolve(map: &mut Heightmap, settings: &StreamPower, world: &MapWorld) -> Drainage {
        evolve_landscape(map, settings, world, StreamPowerMaps::default(), &|_| {}, &AtomicBool::new(false))
            .unwrap()
    }

    #[test]
    fn at_steady_state_slope_follows_the_power_of_area() {
        // Uniform uplift on a closed-sided map draining to an open border, long enough to reach
        // steady state: K·A^m·S = U on every channel cell, so S = (U/K)·A^(−m).
        let n = 48;
        let mut map = hills(n);
        let world = MapWorld { cell_size: 1.0, height_scale: 10.0, sea_level: f32::NEG_INFINITY };
        let uplift = Heightmap::from_fn(n, n, |_, _| 1.0).unwrap();
        let settings = StreamPower { steps: 3000, time_step: 20.0, diffusion: 0.0, ..StreamPower::default() };
        let maps = StreamPowerMaps { uplift: Some(&uplift), rain: None };
        evolve_landscape(&mut map, &settings, &world, maps, &|_| {}, &AtomicBool::new(false)).unwrap();
        let ground: Vec<f32> = map.samples().iter().map(|h| h * world.height_scale).collect();
        let mut routing = Routing::default();
        let grid = Grid { width: n as usize, height: n as usize, cell_size: 1.0 };
        routing.route(&ground, grid, Border::Open, f32::NEG_INFINITY, &[]);
        let (k, u) = (settings.erodibility, settings.uplift);
        let mut checked = 0;
        let mut channels = Vec::new();
        for c in 0..ground.len() {
            let r = routing.receiver(c);
            if r == c || routing.is_lake(c) {
                continue;
            }
            let slope = (ground[c] - ground[r]) / grid.distance_between(c as u32, r as u32);
            let expected = u / (k * routing.area[c].sqrt());
            assert!(
                (slope - expected).abs() <= 0.02 * expected,
                "cell {c}: slope {slope}, expected {expected}"
            );
            checked += 1;
            if routing.area[c] >= 10.0 {
                channels.push((f64::from(routing.area[c]).ln(), f64::from(slope).ln()));
            }
        }
        assert!(checked > 2000, "{checked} cells checked");
        // The channels' fit of ln S against ln A: slope −m/n, intercept ln((U/K)^(1/n)).
        let count = channels.len() as f64;
        let (mx, my) = channels.iter().fold((0.0, 0.0), |(a, b), p| (a + p.0 / count, b + p.1 / count));
        let sxy: f64 = channels.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let sxx: f64 = channels.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
        let (fit_slope, intercept) = (sxy / sxx, my - sxy / sxx * mx);
        assert!((fit_slope + 0.5).abs() < 0.05, "ln S ~ {fit_slope} ln A");
        let steepness = intercept.exp();
        let expected = f64::from(u / k);
        assert!((steepness - expected).abs() < 0.05 * expected, "(U/K) fitted {steepness}, {expected}");
        assert!(channels.len() > 100, "{} channel cells", channels.len());
    }

    #[test]
    fn rivers_cut_valleys_and_the_coast_and_border_stay() {
        let n = 96;
        let original = hills(n);
        let mut map = original.clone();
        let world = MapWorld::patch(100.0, n, 24.0, 0.42);
        let settings = StreamPower { steps: 40, ..StreamPower::default() };
        let drainage = evolve(&mut map, &settings, &world);
        let (before, after) = (original.samples(), map.samples());
        for (i, (&b, &a)) in before.iter().zip(after).enumerate() {
            let (x, y) = (i as u32 % n, i as u32 / n);
            let edge = x == 0 || y == 0 || x == n - 1 || y == n - 1;
            if edge || b < 0.42 {
                assert_eq!(a, b, "base level moved at ({x}, {y})");
            }
            assert!(a.is_finite());
        }
        assert!(!drainage.rivers.is_empty());
        // The slope-area law emerges: along rivers, slope falls with drainage area as A^(−m/n) (−0.5
        // under even uplift; steeper here, where the uplift falls toward the coast with the
        // big rivers). Measured: −0.20 for the noise, −0.73 after.
        let flint = |map: &Heightmap| {
            let d = drainage_of(map, &world, Border::Open, None, &RiverSettings::default());
            let mut routing = Routing::default();
            let ground: Vec<f32> = map.samples().iter().map(|h| h * 24.0).collect();
            let grid = Grid { width: n as usize, height: n as usize, cell_size: world.cell_size };
            routing.route(&ground, grid, Border::Open, 0.42 * 24.0, &[]);
            let points: Vec<(f64, f64)> = (0..ground.len())
                .filter(|&c| !routing.is_outlet(c) && !routing.is_lake(c) && routing.area[c] >= 25.0)
                .filter_map(|c| {
                    let r = routing.receiver(c);
                    let slope = (ground[c] - ground[r]) / grid.distance_between(c as u32, r as u32);
                    (slope > 0.0).then(|| (f64::from(routing.area[c]).ln(), f64::from(slope).ln()))
                })
                .collect();
            let count = points.len() as f64;
            let (mx, my) = points.iter().fold((0.0, 0.0), |(a, b), p| (a + p.0 / count, b + p.1 / count));
            let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
            let sxx: f64 = points.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
            let lakes = d.lakes.samples().iter().filter(|&&l| l > 0.0).count();
            (sxy / sxx, lakes)
        };
        let ((noise_law, noise_lakes), (carved_law, carved_lakes)) = (flint(&original), flint(&map));
        assert!((-1.0..-0.4).contains(&carved_law), "slope ~ area^{carved_law} after");
        assert!(noise_law > -0.3, "slope ~ area^{noise_law} before");
        // The evolution drained the noise's pits: every land cell runs to the sea or the edge.
        assert!(
            noise_lakes > 100 && carved_lakes == 0,
            "{noise_lakes} lake cells before, {carved_lakes} after"
        );
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn the_same_bytes_on_one_two_and_seven_threads_and_across_runs() {
        let settings = StreamPower { steps: 20, ..StreamPower::default() };
        let world = MapWorld::patch(100.0, 80, 24.0, 0.42);
        let runs: Vec<(Vec<u32>, usize)> = [1, 2, 7, 2]
            .into_iter()
            .map(|threads| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let mut map = hills(80);
                let drainage = pool.install(|| evolve(&mut map, &settings, &world));
                (map.samples().iter().map(|h| h.to_bits()).collect(), drainage.rivers.len())
            })
            .collect();
        assert!(runs.iter().all(|r| *r == runs[0]), "threads or runs changed the result");
    }

    #[test]
    fn cancelling_stops_within_a_step_and_bad_values_are_clamped() {
        let mut map = hills(64);
        let cancel = AtomicBool::new(false);
        let settings = StreamPower { steps: MAX_STREAM_POWER_STEPS, ..StreamPower::default() };
        let world = MapWorld::patch(100.0, 64, 24.0, 0.42);
        let steps = std::cell::Cell::new(0);
        let report = |_| {
            steps.set(steps.get() + 1);
            if steps.get() == 3 {
                cancel.store(true, Ordering::Relaxed);
            }
        };
        let result =
            evolve_landscape(&mut map, &settings, &world, StreamPowerMaps::default(), &report, &cancel);
        assert_eq!(result.err(), Some(ErosionError::Cancelled));
        assert_eq!(steps.get(), 3);
        assert!(map.stats().max < 2.0, "back in noise units");
        let wild = StreamPower {
            steps: u32::MAX,
            time_step: f32::NAN,
            slope_exponent: 100.0,
            diffusion: -1.0,
            ..StreamPower::default()
        }
        .clamped();
        assert_eq!(wild.steps, MAX_STREAM_POWER_STEPS);
        assert_eq!(wild.time_step, StreamPower::default().time_step);
        assert_eq!((wild.slope_exponent, wild.diffusion), (4.0, 0.0));
        // NaN heights and a zero height scale give finite ground.
        let mut odd = Heightmap::from_fn(16, 16, |x, _| if x == 5 { f32::NAN } else { 0.6 }).unwrap();
        let flat = MapWorld { cell_size: 0.0, height_scale: 0.0, sea_level: f32::NAN };
        evolve(&mut odd, &StreamPower { steps: 5, ..StreamPower::default() }, &flat);
        assert!(odd.samples().iter().all(|h| h.is_finite()));
    }

    #[test]
    fn tiny_flat_and_closed_maps_evolve_without_trouble() {
        let settings = StreamPower { steps: 10, border: Border::Closed, ..StreamPower::default() };
        let world = MapWorld::patch(10.0, 4, 5.0, -1.0);
        for (w, h) in [(1, 1), (2, 1), (1, 5), (3, 3), (7, 2)] {
            for border in [Border::Open, Border::Closed] {
                let mut map =
                    Heightmap::from_fn(w, h, |x, y| 0.3 + 0.1 * ((x * 7 + y * 3) % 5) as f32).unwrap();
                let drainage = evolve(&mut map, &StreamPower { border, ..settings }, &world);
                assert!(map.samples().iter().all(|v| v.is_finite()), "{w}×{h} {border:?}");
                let total: f32 = drainage.area.samples().iter().sum();
                assert!(total.is_finite() && total > 0.0);
            }
        }
        // A closed flat map without sea drains to one cell, the first.
        let mut flat = Heightmap::from_fn(8, 8, |_, _| 0.5).unwrap();
        let drainage = evolve(&mut flat, &settings, &world);
        let most = drainage.area.samples().iter().copied().fold(0.0f32, f32::max);
        assert_eq!(drainage.area.samples()[0], most);
        assert!((most - 64.0 * world.cell_size * world.cell_size).abs() < 1e-3, "{most}");
        assert!(drainage.rivers.iter().all(|r| r.end != RiverEnd::Sea && r.end != RiverEnd::Border));
    }

    #[test]
    fn the_volume_budget_balances() {
        for border in [Border::Open, Border::Closed] {
            let original = hills(64);
            let mut map = original.clone();
            let world = MapWorld::patch(100.0, 64, 24.0, 0.42);
            let settings = StreamPower { steps: 40, diffusion: 0.05, border, ..StreamPower::default() };
            let budget = evolve(&mut map, &settings, &world).budget;
            let volume = |m: &Heightmap| m.samples().iter().map(|&h| f64::from(h)).sum::<f64>();
            let change = volume(&map) - volume(&original);
            let expected = budget.uplifted - budget.eroded - budget.left;
            assert!(budget.uplifted > 0.0 && budget.eroded > 0.0 && budget.left != 0.0, "{budget:?}");
            let scale = budget.uplifted.max(budget.eroded);
            assert!(
                (change - expected).abs() <= 1e-4 * scale,
                "{border:?}: changed {change}, budget {expected}"
            );
        }
    }

    #[test]
    fn flat_tiny_steep_unchanged_and_huge_runs_stay_finite() {
        let world = MapWorld::patch(100.0, 48, 24.0, 0.42);
        let steep =
            Heightmap::from_fn(48, 48, |x, y| if (x / 4 + y / 4) % 2 == 0 { 1e6 } else { 0.0 }).unwrap();
        let cases = [
            (Heightmap::from_fn(48, 48, |_, _| 0.6).unwrap(), 20),
            (Heightmap::from_fn(2, 2, |x, y| 0.5 + 0.1 * (x + y) as f32).unwrap(), 20),
            (steep, 20),
            (hills(48), 0),
        ];
        for (mut map, steps) in cases {
            let before = map.clone();
            let drainage = evolve(&mut map, &StreamPower { steps, ..StreamPower::default() }, &world);
            assert!(map.samples().iter().all(|h| h.is_finite()), "{steps} steps");
            assert!(drainage.area.samples().iter().all(|a| a.is_finite() && *a > 0.0));
            if steps == 0 {
                assert_eq!(map, before, "no step changes nothing");
            }
        }
        // Huge settings are clamped, and the erosion's validation says so.
        let huge = StreamPower { steps: u32::MAX, time_step: 1e30, ..StreamPower::default() };
        assert_eq!(huge.clamped().steps, MAX_STREAM_POWER_STEPS);
        assert_eq!(huge.clamped().time_step, TIME_STEP_RANGE.1);
        let erosion = crate::Erosion { stream_power: huge, ..Default::default() };
        let notes = erosion.validate();
        assert!(notes.len() == 1 && notes[0].used.contains("steps: 5000"), "{notes:?}");
        // A huge step is stable (implicit): steps of 1e6 time units stay finite.
        let mut map = hills(48);
        let big = StreamPower { steps: 2, time_step: 1e6, ..StreamPower::default() };
        evolve(&mut map, &big, &world);
        assert!(map.samples().iter().all(|h| h.is_finite()));
    }

    #[test]
    fn scaled_settings_carve_the_same_shape_in_a_larger_world() {
        let n = 64;
        let settings = StreamPower { steps: 16, ..StreamPower::default() };
        let small = MapWorld::patch(100.0, n, 24.0, 0.42);
        let large = MapWorld::patch(1000.0, n, 240.0, 0.42);
        let (mut a, mut b) = (hills(n), hills(n));
        evolve(&mut a, &settings, &small);
        evolve(&mut b, &settings.scaled(10.0), &large);
        // Rounding steers a few cells' water to another neighbour; the shapes stay the same.
        let start = hills(n);
        let mean_abs =
            |f: &dyn Fn(usize) -> f32| (0..a.samples().len()).map(f).sum::<f32>() / a.samples().len() as f32;
        let apart = mean_abs(&|i| (a.samples()[i] - b.samples()[i]).abs());
        let carved = mean_abs(&|i| (a.samples()[i] - start.samples()[i]).abs());
        assert!(apart < 0.02 * carved, "the two differ by {apart} on average; the carving moved {carved}");
    }
}
