//! Landscape evolution by stream power (rivers, see `stream_power`), hydraulic erosion by
//! droplets and thermal erosion (scree), deterministic on any number of threads.
//!
//! Hydraulic erosion by droplets: a droplet rolls downhill with some inertia, picks up sediment
//! while it is below its capacity (slope × speed × water × capacity), drops it where it slows or
//! climbs, evaporates, and dies after `lifetime` steps. Thermal erosion moves material from every
//! cell to its lower neighbours wherever the slope is steeper than the talus angle.
//!
//! [`erode`] works in cells: a height of 1 is [`Erosion::scale`] cells tall, a droplet moves one
//! cell per step. The classic parameters assume gentle slopes per cell (heights of `[0, 1]` over
//! a few hundred cells, a scale near 1 to 3, the default 2). Settings a user picks describe a map
//! [`EROSION_REFERENCE_CELLS`] across; [`Erosion::for_map`] turns them into the simulation's
//! settings for a map of the same ground at another resolution, so that 512² and 1024² of one
//! terrain erode alike.
//!
//! Determinism: droplets run in tiles, in four phases whose tiles never reach each other (see
//! `droplets`); thermal erosion computes every cell's outflow from the previous state (see
//! `thermal`). The result is the same bytes for any number of threads and on every run. Both work
//! on the map in place: the flow and deposition maps are the only extra memory.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::Heightmap;
use crate::clamp::{UNIT_RANGE, clamp_or};

mod diffusion;
mod drainage;
mod droplets;
mod rivers;
mod stream_power;
mod thermal;

pub use diffusion::MAX_DIFFUSION_SUBSTEPS;
pub use drainage::Border;
pub use rivers::{
    Drainage, LandscapeBudget, RIVER_AREA_RANGE, RIVER_WIDTH_RANGE, River, RiverEnd, RiverPoint,
    RiverSettings,
};
pub use stream_power::{
    AREA_EXPONENT_RANGE, DIFFUSION_RANGE, ERODIBILITY_RANGE, MAX_STREAM_POWER_STEPS, MapWorld,
    SLOPE_EXPONENT_RANGE, StreamPower, StreamPowerMaps, TIME_STEP_RANGE, UPLIFT_RANGE, drainage_of,
    evolve_landscape,
};

/// The most droplets one erosion simulates; more are clamped (and reported by
/// [`Erosion::validate`]).
pub const MAX_DROPLETS: u32 = 10_000_000;
/// The most thermal iterations.
pub const MAX_THERMAL_ITERATIONS: u32 = 10_000;
/// How many cells across the map that user settings describe (see [`Erosion::for_map`]).
pub const EROSION_REFERENCE_CELLS: u32 = 512;

/// Droplet erosion. The defaults are the widely used ones (radius 3, inertia 0.05, capacity 4,
/// deposit 0.3, erode 0.3, evaporation 0.01, gravity 4, lifetime 30).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct Hydraulic {
    /// Droplets simulated, `0..=MAX_DROPLETS`; 0 turns hydraulic erosion off.
    pub droplets: u32,
    /// Radius of the erosion brush in cells, `[0.5, 64]`.
    pub radius: f32,
    /// How much a droplet keeps its direction, `[0, 0.99]`.
    pub inertia: f32,
    /// Sediment capacity factor, `[0, 64]`.
    pub capacity: f32,
    /// The slope used for capacity on flat ground, `[0, 1]`.
    pub min_slope: f32,
    /// Share of excess sediment deposited per step, `[0, 1]`.
    pub deposit: f32,
    /// Share of free capacity eroded per step, `[0, 1]`.
    pub erode: f32,
    /// Share of water evaporated per step, `[0, 1]`.
    pub evaporation: f32,
    /// Gravity: how fast droplets speed up downhill, `[0, 64]`.
    pub gravity: f32,
    /// Steps a droplet lives (one cell each), `1..=1024`.
    pub lifetime: u32,
    /// Seed of the droplets' start points.
    pub seed: u32,
}

impl Default for Hydraulic {
    fn default() -> Self {
        Self {
            droplets: 0,
            radius: 3.0,
            inertia: 0.05,
            capacity: 4.0,
            min_slope: 0.01,
            deposit: 0.3,
            erode: 0.3,
            evaporation: 0.01,
            gravity: 4.0,
            lifetime: 30,
            seed: 1,
        }
    }
}

/// Thermal erosion: material slides down slopes steeper than the talus angle.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct Thermal {
    /// Iterations, `0..=MAX_THERMAL_ITERATIONS`; 0 turns thermal erosion off.
    pub iterations: u32,
    /// The steepest stable slope, degrees, `[1, 89]`.
    pub talus_angle: f32,
    /// Share of the excess moved per iteration, `[0, 1]` (above 0.5 it may overshoot).
    pub amount: f32,
}

impl Default for Thermal {
    fn default() -> Self {
        Self { iterations: 0, talus_angle: 35.0, amount: 0.5 }
    }
}

/// Stream power (rivers), then droplets (detail), then thermal erosion. The default erodes
/// nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct Erosion {
    /// Rivers: landscape evolution by the stream-power law, in world units (not scaled by
    /// [`for_map`](Self::for_map): its parameters are already the same at any resolution).
    pub stream_power: StreamPower,
    /// Droplets.
    pub hydraulic: Hydraulic,
    /// Scree.
    pub thermal: Thermal,
    /// How many cells tall a height of 1 is for the simulation, `[0.01, 10000]`: the classic
    /// droplet parameters suit gentle slopes, 1 to 3 on a map 512 cells across.
    pub scale: f32,
}

impl Default for Erosion {
    fn default() -> Self {
        Self {
            stream_power: StreamPower::default(),
            hydraulic: Hydraulic::default(),
            thermal: Thermal::default(),
            scale: 2.0,
        }
    }
}

/// What [`erode`] produces besides the eroded heights, one value per cell.
#[derive(Clone, Debug, PartialEq)]
pub struct ErosionMaps {
    /// How many droplet steps passed through each cell: where water ran.
    pub flow: Heightmap,
    /// Material deposited in each cell minus material eroded from it, in noise heights: positive
    /// on sediment fans, negative in channels.
    pub deposition: Heightmap,
    /// Totals for checking the mass balance, in noise heights summed over cells.
    pub totals: ErosionTotals,
    /// Where water goes after stream power: drainage, lakes and rivers (`None` when stream
    /// power is off).
    pub drainage: Option<Drainage>,
}

/// Sums over the whole hydraulic run (noise heights).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ErosionTotals {
    /// Material taken from the ground.
    pub eroded: f64,
    /// Material put back on the ground.
    pub deposited: f64,
    /// Sediment droplets still carried when they died (it leaves the map).
    pub carried_away: f64,
}

/// Why [`erode`] stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErosionError {
    /// The cancel flag was set: the heights are half eroded, discard them.
    #[error("erosion was cancelled")]
    Cancelled,
}

impl ErosionMaps {
    /// The part of the maps inside `frame` (see [`Heightmap::crop`]), for a map eroded with a
    /// border.
    pub fn crop(&self, frame: crate::advanced::Frame) -> Result<ErosionMaps, crate::HeightmapError> {
        Ok(ErosionMaps {
            flow: self.flow.crop(frame)?,
            deposition: self.deposition.crop(frame)?,
            totals: self.totals,
            drainage: self.drainage.as_ref().map(|d| d.crop(frame)).transpose()?,
        })
    }
}

/// A droplet's brush radius in cells (of a map 512 across).
pub const EROSION_RADIUS_RANGE: (f32, f32) = (0.5, 64.0);
/// How much a droplet keeps its direction.
pub const INERTIA_RANGE: (f32, f32) = (0.0, 0.99);
/// Sediment capacity factor.
pub const CAPACITY_RANGE: (f32, f32) = (0.0, 64.0);
/// How fast droplets speed up downhill.
pub const GRAVITY_RANGE: (f32, f32) = (0.0, 64.0);
/// Steps a droplet lives (on a map 512 across).
pub const LIFETIME_RANGE: (u32, u32) = (1, 1024);
/// Steepest stable slope of thermal erosion, degrees.
pub const TALUS_ANGLE_RANGE: (f32, f32) = (1.0, 89.0);
/// Relief: how many cells of a map 512 across a height of 1 is.
pub const EROSION_SCALE_RANGE: (f32, f32) = (0.01, 10_000.0);

impl Erosion {
    /// The settings with every value in range (NaN becomes the default).
    pub fn clamped(&self) -> Self {
        let (h, d) = (self.hydraulic, Hydraulic::default());
        let (t, dt) = (self.thermal, Thermal::default());
        Erosion {
            stream_power: self.stream_power.clamped(),
            hydraulic: Hydraulic {
                droplets: h.droplets.min(MAX_DROPLETS),
                radius: clamp_or(h.radius, EROSION_RADIUS_RANGE, d.radius),
                inertia: clamp_or(h.inertia, INERTIA_RANGE, d.inertia),
                capacity: clamp_or(h.capacity, CAPACITY_RANGE, d.capacity),
                min_slope: clamp_or(h.min_slope, UNIT_RANGE, d.min_slope),
                deposit: clamp_or(h.deposit, UNIT_RANGE, d.deposit),
                erode: clamp_or(h.erode, UNIT_RANGE, d.erode),
                evaporation: clamp_or(h.evaporation, UNIT_RANGE, d.evaporation),
                gravity: clamp_or(h.gravity, GRAVITY_RANGE, d.gravity),
                lifetime: h.lifetime.clamp(LIFETIME_RANGE.0, LIFETIME_RANGE.1),
                seed: h.seed,
            },
            thermal: Thermal {
                iterations: t.iterations.min(MAX_THERMAL_ITERATIONS),
                talus_angle: clamp_or(t.talus_angle, TALUS_ANGLE_RANGE, dt.talus_angle),
                amount: clamp_or(t.amount, UNIT_RANGE, dt.amount),
            },
            scale: clamp_or(self.scale, EROSION_SCALE_RANGE, 2.0),
        }
    }

    /// The simulation's settings for a map `cells_across` wide of the ground that these settings
    /// describe at [`EROSION_REFERENCE_CELLS`] across. With `k` = `cells_across` / 512: lengths
    /// (brush radius, lifetime, the scale of heights) and thermal iterations grow by `k`, droplets
    /// by `k²` (the same per area), the per-step shares (inertia, deposit, erode, evaporation) are
    /// compounded so that a droplet does over `k` steps what it did over one, gravity shrinks by
    /// `k` (a step drops `1/k` as far in the world) and capacity grows by `k` (a cell holds `1/k³`
    /// as much ground). Measured: 1024² against 512² of the same terrain, the height changes
    /// correlate 0.89 (0.54 without this) and move 0.94 times the volume (0.22 without).
    pub fn for_map(&self, cells_across: u32) -> Erosion {
        let s = self.clamped();
        if cells_across == EROSION_REFERENCE_CELLS {
            return s;
        }
        let k = cells_across.max(1) as f32 / EROSION_REFERENCE_CELLS as f32;
        let (h, t) = (s.hydraulic, s.thermal);
        let per_step = |share: f32| 1.0 - (1.0 - share).powf(1.0 / k);
        let count = |n: u32, factor: f32| (n as f32 * factor).round().clamp(1.0, u32::MAX as f32) as u32;
        Erosion {
            stream_power: s.stream_power,
            hydraulic: Hydraulic {
                droplets: if h.droplets == 0 { 0 } else { count(h.droplets, k * k) },
                radius: h.radius * k,
                inertia: h.inertia.powf(1.0 / k),
                capacity: h.capacity * k,
                min_slope: h.min_slope,
                deposit: per_step(h.deposit),
                erode: per_step(h.erode),
                evaporation: per_step(h.evaporation),
                gravity: h.gravity / k,
                lifetime: count(h.lifetime, k),
                seed: h.seed,
            },
            thermal: Thermal { iterations: if t.iterations == 0 { 0 } else { count(t.iterations, k) }, ..t },
            scale: s.scale * k,
        }
        .clamped()
    }

    /// Whether anything erodes.
    pub fn is_active(&self) -> bool {
        let c = self.clamped();
        c.stream_power.is_active() || c.hydraulic.droplets > 0 || c.thermal.iterations > 0
    }

    /// What [`clamped`](Self::clamped) changes, as `(field, given, used)` lines for logs.
    pub fn validate(&self) -> Vec<crate::Clamped> {
        let used = self.clamped();
        let mut out = Vec::new();
        let given = format!("{self:?}");
        if used != *self {
            out.push(crate::Clamped { field: "erosion", given, used: format!("{used:?}") });
        }
        out
    }
}

/// Erodes `map` (heights in noise units) with `settings`: stream power (in the world units of
/// `world`), then droplets, then thermal erosion. For droplets and scree a height of 1 is
/// `settings.scale` cells tall. `progress` is called with the share done, from 0 to 1; when
/// `cancel` is set the function returns [`ErosionError::Cancelled`] promptly, with `map` half
/// eroded (in noise units still; erode a copy where the original must survive).
pub fn erode(
    map: &mut Heightmap,
    settings: &Erosion,
    world: &MapWorld,
    progress: &(dyn Fn(f32) + Sync),
    cancel: &AtomicBool,
) -> Result<ErosionMaps, ErosionError> {
    let s = settings.clamped();
    let (width, height) = (map.width() as usize, map.height() as usize);
    let (h, t, sp) = (s.hydraulic, s.thermal, s.stream_power);
    let thermal_step_work = (width * height) as f64 / 64.0;
    // A stream-power step costs about as much as one droplet per 40 cells of the map.
    let stream_step_work = (width * height) as f64 / 40.0;
    let total_work = (f64::from(h.droplets)
        + f64::from(t.iterations) * thermal_step_work
        + f64::from(sp.steps) * stream_step_work)
        .max(1.0);
    let mut drainage = None;
    if sp.is_active() {
        let report = |share: f32| {
            progress((f64::from(share) * f64::from(sp.steps) * stream_step_work / total_work) as f32)
        };
        drainage = Some(evolve_landscape(map, &sp, world, StreamPowerMaps::default(), &report, cancel)?);
    }
    let mut done = f64::from(sp.steps) * stream_step_work;
    let big_enough = width >= 2 && height >= 2;
    let simulates = (h.droplets > 0 || t.iterations > 0) && big_enough;
    // Droplets and scree work on the map itself, in cells; the outputs are the only extra
    // memory. Without them the map is not scaled at all: a scale and its inverse would move
    // heights by a rounding step (stream power promises base-level cells keep their bits).
    let scale = if simulates { s.scale } else { 1.0 };
    let cells = map.samples_mut();
    if simulates {
        cells.iter_mut().for_each(|h| *h *= scale);
    }
    let mut flow = vec![0.0f32; cells.len()];
    let mut deposition = vec![0.0f32; cells.len()];
    let mut totals = [0.0f64; 3];
    let mut simulate = || -> Result<(), ErosionError> {
        if h.droplets > 0 && big_enough {
            let ground = droplets::Ground {
                width,
                heights: &mut *cells,
                flow: &mut flow,
                deposition: &mut deposition,
            };
            totals = droplets::run(ground, &h, cancel, |droplets| {
                done += f64::from(droplets);
                progress((done / total_work) as f32);
            })?;
        }
        if t.iterations > 0 && big_enough {
            let talus = t.talus_angle.to_radians().tan();
            let mut halo = Vec::new();
            for iteration in 0..t.iterations {
                if cancel.load(Ordering::Relaxed) {
                    return Err(ErosionError::Cancelled);
                }
                thermal::step(cells, width, talus, t.amount, &mut halo);
                done += thermal_step_work;
                if iteration % 8 == 7 {
                    progress((done / total_work) as f32);
                }
            }
        }
        Ok(())
    };
    let simulated = simulate();
    // Back to noise units, also when cancelled: the map is then half eroded, but in its units.
    if simulates {
        cells.iter_mut().for_each(|h| *h /= scale);
    }
    simulated?;
    // Droplets and scree moved the ground under the rivers: route the water over what they left.
    if let Some(d) = &mut drainage
        && (h.droplets > 0 || t.iterations > 0)
    {
        *d = drainage_of(map, world, sp.border, None, &sp.rivers);
    }
    progress(1.0);
    let to_map = |values: Vec<f32>| {
        Heightmap::from_samples(width as u32, height as u32, values).expect("the map's size")
    };
    let inverse = 1.0 / scale;
    deposition.iter_mut().for_each(|d| *d *= inverse);
    Ok(ErosionMaps {
        flow: to_map(flow),
        deposition: to_map(deposition),
        totals: ErosionTotals {
            eroded: totals[0] / f64::from(scale),
            deposited: totals[1] / f64::from(scale),
            carried_away: totals[2] / f64::from(scale),
        },
        drainage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoiseSettings;
    use std::sync::atomic::AtomicUsize;

    /// Droplets and scree do not use the world's geometry.
    const WORLD: MapWorld = MapWorld { cell_size: 1.0, height_scale: 1.0, sea_level: 0.0 };

    fn terrain(n: u32) -> Heightmap {
        Heightmap::generate(&NoiseSettings { octaves: 6, ..Default::default() }, n, n).unwrap()
    }

    fn hydraulic(droplets: u32) -> Erosion {
        Erosion { hydraulic: Hydraulic { droplets, ..Default::default() }, ..Default::default() }
    }

    fn run(map: &mut Heightmap, settings: &Erosion, scale: f32) -> ErosionMaps {
        erode(map, &Erosion { scale, ..*settings }, &WORLD, &|_| {}, &AtomicBool::new(false)).unwrap()
    }

    #[test]
    fn removed_material_equals_deposited_plus_carried_away() {
        let mut map = terrain(128);
        let before: f64 = map.samples().iter().map(|&h| f64::from(h)).sum();
        let settings = Erosion {
            hydraulic: Hydraulic { droplets: 60_000, lifetime: 128, ..Default::default() },
            ..Default::default()
        };
        let maps = run(&mut map, &settings, 10.0);
        let t = maps.totals;
        assert!(t.eroded > 0.0 && t.deposited > 0.0, "{t:?}");
        let balance = (t.eroded - t.deposited - t.carried_away).abs() / t.eroded;
        assert!(balance < 1e-3, "{t:?}: off by {balance}");
        // The map lost what the droplets carried away.
        let after: f64 = map.samples().iter().map(|&h| f64::from(h)).sum();
        assert!(
            ((before - after) - t.carried_away).abs() / t.eroded < 1e-3,
            "{} vs {}",
            before - after,
            t.carried_away
        );
        let deposition: f64 = maps.deposition.samples().iter().map(|&d| f64::from(d)).sum();
        assert!((deposition + before - after).abs() / t.eroded < 1e-3);
    }

    #[test]
    fn heights_stay_finite_on_flat_tiny_steep_and_empty_runs() {
        let cases: Vec<(Heightmap, Erosion)> = vec![
            (Heightmap::from_fn(64, 64, |_, _| 0.5).unwrap(), hydraulic(5_000)),
            (Heightmap::from_fn(2, 2, |x, y| (x + y) as f32).unwrap(), hydraulic(1_000)),
            (Heightmap::from_fn(1, 1, |_, _| 0.3).unwrap(), hydraulic(1_000)),
            (
                Heightmap::from_fn(48, 48, |x, y| if (x / 4 + y / 4) % 2 == 0 { 1e6 } else { 0.0 }).unwrap(),
                hydraulic(5_000),
            ),
            (terrain(32), hydraulic(0)),
            (
                terrain(32),
                Erosion { thermal: Thermal { iterations: 50, ..Default::default() }, ..hydraulic(2_000) },
            ),
        ];
        for (mut map, settings) in cases {
            let maps = run(&mut map, &settings, 30.0);
            assert!(map.samples().iter().all(|h| h.is_finite()), "{settings:?}");
            assert!(maps.flow.samples().iter().all(|f| f.is_finite() && *f >= 0.0));
        }
        // 10^8 droplets are clamped, and the clamp is reported.
        let wild = hydraulic(100_000_000);
        assert_eq!(wild.clamped().hydraulic.droplets, MAX_DROPLETS);
        assert_eq!(wild.validate().len(), 1);
        let nan = Erosion {
            hydraulic: Hydraulic { inertia: f32::NAN, radius: 1e9, ..Default::default() },
            ..Default::default()
        };
        assert_eq!(nan.clamped().hydraulic.inertia, Hydraulic::default().inertia);
        assert_eq!(nan.clamped().hydraulic.radius, 64.0);
    }

    #[cfg(feature = "parallel")]
    #[test]
    fn the_same_bytes_for_one_two_and_seven_threads() {
        let settings =
            Erosion { thermal: Thermal { iterations: 10, ..Default::default() }, ..hydraulic(30_000) };
        let runs: Vec<(Vec<u32>, Vec<u32>)> = [1, 2, 7]
            .into_iter()
            .map(|threads| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let mut map = terrain(200);
                let maps = pool.install(|| run(&mut map, &settings, 50.0));
                let bits = |m: &Heightmap| m.samples().iter().map(|h| h.to_bits()).collect::<Vec<_>>();
                (bits(&map), bits(&maps.flow))
            })
            .collect();
        assert!(runs[0] == runs[1] && runs[1] == runs[2], "the threads changed the result");
        assert_ne!(
            runs[0].0,
            terrain(200).samples().iter().map(|h| h.to_bits()).collect::<Vec<_>>(),
            "nothing eroded"
        );
    }

    #[test]
    fn after_enough_thermal_iterations_no_slope_exceeds_the_talus_angle() {
        let mut map = Heightmap::from_fn(40, 40, |x, y| {
            if (15..25).contains(&x) && (15..25).contains(&y) { 1.0 } else { 0.0 }
        })
        .unwrap();
        let settings = Erosion {
            thermal: Thermal { iterations: 3000, talus_angle: 30.0, amount: 0.5 },
            ..Default::default()
        };
        let scale = 20.0;
        let before: f64 = map.samples().iter().map(|&h| f64::from(h)).sum();
        run(&mut map, &settings, scale);
        let talus = 30f32.to_radians().tan();
        let mut steepest = 0.0f32;
        for y in 0..40 {
            for x in 0..39 {
                let a = map.get(x, y).unwrap() * scale;
                steepest = steepest.max((a - map.get(x + 1, y).unwrap() * scale).abs());
                let b = map.get(y, x).unwrap() * scale;
                steepest = steepest.max((b - map.get(y, x + 1).unwrap() * scale).abs());
            }
        }
        // Tolerance: 2% of the talus slope.
        assert!(steepest <= talus * 1.02, "a slope of {steepest} cells per cell, talus {talus}");
        let after: f64 = map.samples().iter().map(|&h| f64::from(h)).sum();
        assert!(
            (before - after).abs() < 1e-3 * before,
            "thermal erosion keeps the mass: {before} vs {after}"
        );
    }

    #[test]
    fn water_gathers_in_valleys_and_cuts_channels() {
        let mut map = terrain(128);
        let maps = run(&mut map, &hydraulic(100_000), 3.0);
        let mut flow: Vec<f32> = maps.flow.samples().to_vec();
        flow.sort_by(|a, b| b.total_cmp(a));
        let total: f32 = flow.iter().sum();
        let top: f32 = flow[..flow.len() / 20].iter().sum();
        // Spread evenly the top 5% would carry 5%; droplets gather in valleys.
        assert!(top / total > 0.2, "the top 5% of cells carry {:.0}% of the flow", 100.0 * top / total);
        let cut = maps.deposition.samples().iter().filter(|&&d| d < 0.0).count();
        let filled = maps.deposition.samples().iter().filter(|&&d| d > 0.0).count();
        // Most cells lose ground (much of the sediment leaves the map); some gain it.
        assert!(cut > 1000 && filled > 10, "{cut} cells cut, {filled} filled");
        let t = maps.totals;
        assert!(t.deposited > 0.1 * t.eroded, "{t:?}");
    }

    #[test]
    fn settings_for_a_finer_map_scale_lengths_counts_and_compound_the_shares() {
        let user = Erosion {
            hydraulic: Hydraulic { droplets: 1000, ..Default::default() },
            thermal: Thermal { iterations: 10, ..Default::default() },
            ..Default::default()
        };
        assert_eq!(user.for_map(EROSION_REFERENCE_CELLS), user);
        let (fine, h) = (user.for_map(1024), user.hydraulic);
        assert_eq!(fine.hydraulic.droplets, 4000);
        assert_eq!((fine.hydraulic.radius, fine.hydraulic.lifetime), (2.0 * h.radius, 2 * h.lifetime));
        assert_eq!((fine.scale, fine.thermal.iterations), (2.0 * user.scale, 20));
        // Two fine steps do what one reference step did.
        let twice = |share: f32| 1.0 - (1.0 - share) * (1.0 - share);
        assert!((twice(fine.hydraulic.erode) - h.erode).abs() < 1e-6);
        assert!((twice(fine.hydraulic.evaporation) - h.evaporation).abs() < 1e-6);
        assert!((fine.hydraulic.inertia * fine.hydraulic.inertia - h.inertia).abs() < 1e-6);
        assert_eq!(fine.hydraulic.gravity, h.gravity / 2.0);
        // Off stays off, and huge maps are clamped.
        assert_eq!(Erosion::default().for_map(4096).hydraulic.droplets, 0);
        assert_eq!(Erosion::default().for_map(4096).thermal.iterations, 0);
        assert_eq!(hydraulic(MAX_DROPLETS).for_map(8192).hydraulic.droplets, MAX_DROPLETS);
        assert_eq!(hydraulic(1).for_map(1).hydraulic.radius, 0.5);
    }

    /// The share of all flow that the busiest 5% of cells carry.
    fn top_five_percent_share(maps: &ErosionMaps) -> f32 {
        let mut flow: Vec<f32> = maps.flow.samples().to_vec();
        flow.sort_by(|a, b| b.total_cmp(a));
        let total: f32 = flow.iter().sum();
        flow[..flow.len() / 20].iter().sum::<f32>() / total
    }

    #[test]
    fn a_cone_erodes_into_channels_that_gather_the_flow() {
        let cone = || {
            Heightmap::from_fn(128, 128, |x, y| {
                let (dx, dy) = (x as f32 - 64.0, y as f32 - 64.0);
                1.0 - (dx * dx + dy * dy).sqrt() / 64.0
            })
            .unwrap()
        };
        let eroding = hydraulic(100_000);
        let mut eroded = cone();
        let channels = top_five_percent_share(&run(&mut eroded, &eroding, 2.0));
        // The same droplets without eroding: water runs straight down the plain cone.
        let plain = Erosion {
            hydraulic: Hydraulic { erode: 0.0, deposit: 0.0, ..eroding.hydraulic },
            ..Default::default()
        };
        let spread = top_five_percent_share(&run(&mut cone(), &plain, 2.0));
        // Measured: 12.9% against 7.1% (5% would be perfectly even).
        assert!(channels > 1.5 * spread, "top 5%: {channels} eroding, {spread} on the plain cone");
        // The channels are cut into the flank: around a ring halfway down, the heights vary.
        let ring: Vec<f32> = (0..360)
            .map(|d| {
                let a = (d as f32).to_radians();
                eroded.get((64.0 + 32.0 * a.cos()) as u32, (64.0 + 32.0 * a.sin()) as u32).unwrap()
            })
            .collect();
        let (low, high) = ring.iter().fold((f32::MAX, f32::MIN), |(l, h), &v| (l.min(v), h.max(v)));
        assert!(high - low > 0.01, "the ring varies by {} only", high - low);
    }

    /// Stream power alone through `erode` leaves the map as `evolve_landscape` alone does, bit
    /// for bit (so base-level cells keep their bits), at a width whose relief scale is no power
    /// of two (300 cells: 1.171875 times the reference's).
    #[test]
    fn stream_power_alone_is_not_rescaled() {
        let n = 300;
        let settings =
            Erosion { stream_power: StreamPower { steps: 3, ..Default::default() }, ..Default::default() }
                .for_map(n);
        assert_ne!(settings.scale.log2().fract(), 0.0, "a scale that rounds when applied");
        let world = MapWorld::patch(300.0, n, 40.0, 0.4);
        let (mut direct, mut through_erode) = (terrain(n), terrain(n));
        let never = AtomicBool::new(false);
        let sp = settings.stream_power;
        evolve_landscape(&mut direct, &sp, &world, StreamPowerMaps::default(), &|_| {}, &never).unwrap();
        erode(&mut through_erode, &settings, &world, &|_| {}, &never).unwrap();
        let moved = direct.samples().iter().zip(through_erode.samples()).filter(|(a, b)| a != b).count();
        assert_eq!(moved, 0, "{moved} cells differ");
        let base_level = terrain(n).samples().iter().filter(|&&h| h < 0.4).count();
        assert!(base_level > 1000, "{base_level} cells under the sea");
    }

    #[test]
    fn cancelling_stops_before_the_next_report() {
        // Droplets then scree, and scree alone; ten cells per unit of height: left in cells, the
        // heights would reach 7.
        let thermal = Thermal { iterations: 10_000, ..Default::default() };
        let droplets_first = Erosion { thermal, scale: 10.0, ..hydraulic(MAX_DROPLETS) };
        let scree_alone = Erosion { thermal, scale: 10.0, ..hydraulic(0) };
        for settings in [droplets_first, scree_alone] {
            let mut map = terrain(256);
            let cancel = AtomicBool::new(false);
            // Cancel at the first progress report (after the droplets' first of four phases, or
            // the eighth scree iteration) and count the reports: work that went on after the
            // cancel would report again. Counted, not timed, so a busy machine cannot fail it.
            let reports = AtomicUsize::new(0);
            let report = |_| {
                reports.fetch_add(1, Ordering::Relaxed);
                cancel.store(true, Ordering::Relaxed);
            };
            let result = erode(&mut map, &settings, &WORLD, &report, &cancel);
            assert_eq!(result, Err(ErosionError::Cancelled));
            assert_eq!(reports.into_inner(), 1, "reports with {settings:?}");
            // Half eroded, but in noise units: the heights stay near their range.
            let stats = map.stats();
            assert!(stats.min > -0.5 && stats.max < 1.5, "{stats:?}");
        }
    }
}
