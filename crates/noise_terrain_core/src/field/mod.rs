//! [`NoiseSettings`]: plain data describing one noise field, and sampling it at a point.

pub(crate) mod basis;
pub(crate) mod coord;
pub(crate) mod dual;
pub(crate) mod erosion_filter;
pub(crate) mod fade;
pub(crate) mod fractal;
pub(crate) mod hash;
pub(crate) mod names;
pub(crate) mod warp;

use glam::DVec2;

use crate::clamp::clamp_or;
use crate::field::basis::worley::WorleySearch;
use crate::field::basis::{Basis, GradientKernel, Lattice, Worley};
use crate::field::coord::sanitize;
use crate::field::dual::Dual;
use crate::field::erosion_filter::{ErosionFilter, GullyPlan};
use crate::field::fade::Fade;
use crate::field::fractal::{Fractal, FractalParams, MAX_OCTAVES, MIN_OCTAVES, OctaveJet, RawToUnit, Sloped};
use crate::field::warp::Warp;

/// Lacunarity is clamped to this range: below 1 the octaves would get coarser, above 8 the second
/// octave is already finer than most maps.
pub const LACUNARITY_RANGE: (f32, f32) = (1.0, 8.0);
/// Persistence is clamped to this range: above 2 the finest octave dominates completely.
pub const PERSISTENCE_RANGE: (f32, f32) = (0.0, 2.0);
/// Base frequency (lattice cells per unit of map) is clamped to this range.
pub const FREQUENCY_RANGE: (f32, f32) = (1e-6, 1e6);
/// The largest period, in lattice cells of the base frequency.
pub const MAX_PERIOD: u32 = 1 << 20;
/// Musgrave's multifractal offset is clamped to this range.
pub const FRACTAL_OFFSET_RANGE: (f32, f32) = (0.0, 2.0);
/// Musgrave's ridged gain is clamped to this range.
pub const GAIN_RANGE: (f32, f32) = (0.0, 8.0);
/// The damped fractal's `k` is clamped to this range: past 16 every octave after the first is
/// all but flattened wherever the ground slopes.
pub const DAMPING_RANGE: (f32, f32) = (0.0, 16.0);

/// Everything that defines a noise field: plain data, cheap to copy, equal settings give equal
/// bits.
///
/// A position `(x, y)` in map units is shifted by `offset`, multiplied by `frequency` (lattice
/// cells per map unit) and handed to the fractal, whose octave `i` samples the basis at
/// `lacunarityⁱ` times that with seed `seed + 1013·i`.
///
/// ```
/// use noise_terrain_core::{Basis, Fractal, NoiseSettings};
///
/// let ridges = NoiseSettings { basis: Basis::Simplex, fractal: Fractal::Ridged, octaves: 5, ..Default::default() };
/// assert!((0.0..=1.0).contains(&ridges.sample(3.5, -2.0)));
/// // Out-of-range values are clamped, and validation names each change.
/// let clamped = NoiseSettings { lacunarity: f32::NAN, ..ridges }.validate();
/// assert_eq!(clamped.len(), 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct NoiseSettings {
    /// The single-layer noise.
    pub basis: Basis,
    /// Interpolation curve inside a lattice cell.
    pub fade: Fade,
    /// The shape of each lattice point's contribution to 2-D gradient noise: rounded (the
    /// default, little axis bias) or Perlin's (see [`GradientKernel`]). A file that names no
    /// kernel reads as Perlin's: it was written before the rounded kernel became the default, and
    /// keeps the terrain it made.
    #[cfg_attr(feature = "serialize", serde(default = "kernel_of_files_that_name_none"))]
    pub gradient_kernel: GradientKernel,
    /// How octaves combine.
    pub fractal: Fractal,
    /// Number of octaves, clamped to `1..=12`.
    pub octaves: u32,
    /// Frequency factor per octave (2: each octave twice as fine), clamped to `[1, 8]`.
    pub lacunarity: f32,
    /// Amplitude factor per octave (0.5: each octave half as high), clamped to `[0, 2]`.
    pub persistence: f32,
    /// Lattice cells per map unit at the first octave, clamped to `[1e-6, 1e6]`.
    pub frequency: f32,
    /// Seed of the first octave.
    pub seed: u32,
    /// Shift of the map in map units (panning); `f64` so that far-away maps stay smooth.
    pub offset: DVec2,
    /// Divide the fBm sum by the amplitude sum so that heights stay in `[0, 1]`.
    pub normalize: bool,
    /// Make the field tile every `period` lattice cells of the base frequency (every
    /// `period / frequency` map units). Exact with integer lacunarity; simplex ignores it.
    pub period: Option<u32>,
    /// Musgrave's `offset` for the ridged, hybrid and hetero fractals, `[0, 2]`.
    pub fractal_offset: f32,
    /// Musgrave's `gain` for the ridged fractal, `[0, 8]`.
    pub gain: f32,
    /// `k` of the damped fractal, `[0, 16]`: each octave is divided by `1 + k·|slopes so far|²`.
    pub damping: f32,
    /// Return, metric and jitter of Worley noise.
    pub worley: Worley,
    /// Domain warp of the sample position.
    pub warp: Warp,
    /// Turn octave `i` by `i` times the golden angle (about 137.5°, an irrational share of a
    /// turn) about the origin, so that no two octaves share their lattice's axes and fBm shows
    /// no grid-aligned ridges. Off by default (classic fBm, octaves on one lattice's axes); ignored with a period (a turned
    /// lattice does not tile) and by the 1-D profile; volumes turn about the z axis. Grids of
    /// turned fields are sampled point by point (rows no longer follow the lattice).
    pub rotate_octaves: bool,
    /// Gullies cut into the fractal's heights, point by point from their exact gradient, before
    /// post-processing (see [`ErosionFilter`]); off by default. Heights stay within
    /// [`value_bounds`](Self::value_bounds).
    pub erosion_filter: ErosionFilter,
}

/// The turn between successive octaves with [`NoiseSettings::rotate_octaves`]: the golden angle,
/// `π (3 - √5)` radians.
pub const OCTAVE_ROTATION: f64 = 2.399_963_229_728_653;

impl Default for NoiseSettings {
    fn default() -> Self {
        Self {
            basis: Basis::Gradient,
            fade: Fade::Quintic,
            gradient_kernel: GradientKernel::Rounded,
            fractal: Fractal::Fbm,
            octaves: 5,
            lacunarity: 2.0,
            persistence: 0.5,
            frequency: 4.0,
            seed: 7,
            offset: DVec2::ZERO,
            normalize: true,
            period: None,
            fractal_offset: 1.0,
            gain: 2.0,
            damping: 1.0,
            worley: Worley::default(),
            warp: Warp::default(),
            rotate_octaves: false,
            erosion_filter: ErosionFilter::default(),
        }
    }
}

/// The kernel of settings read from a file that names none: Perlin's, the default when such
/// files were written.
#[cfg(feature = "serialize")]
fn kernel_of_files_that_name_none() -> GradientKernel {
    GradientKernel::Perlin
}

/// One parameter that [`NoiseSettings::validate`] had to change.
#[derive(Clone, Debug, PartialEq)]
pub struct Clamped {
    /// The field's name.
    pub field: &'static str,
    /// The value as given.
    pub given: String,
    /// The value used instead.
    pub used: String,
}

impl std::fmt::Display for Clamped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} is out of range, using {}", self.field, self.given, self.used)
    }
}

impl NoiseSettings {
    /// The settings with every parameter inside its documented range; NaN takes the default.
    /// [`sample`](Self::sample) applies this itself, so out-of-range settings never panic or give
    /// NaN.
    pub fn clamped(&self) -> Self {
        let default = Self::default();
        Self {
            octaves: self.octaves.clamp(MIN_OCTAVES, MAX_OCTAVES),
            lacunarity: clamp_or(self.lacunarity, LACUNARITY_RANGE, default.lacunarity),
            persistence: clamp_or(self.persistence, PERSISTENCE_RANGE, default.persistence),
            frequency: clamp_or(self.frequency, FREQUENCY_RANGE, default.frequency),
            offset: DVec2::new(sanitize(self.offset.x), sanitize(self.offset.y)),
            // Simplex noise has no square period: a period would be silently ignored.
            period: self.period.filter(|&p| p > 0 && self.basis.supports_period()).map(|p| p.min(MAX_PERIOD)),
            fractal_offset: clamp_or(self.fractal_offset, FRACTAL_OFFSET_RANGE, default.fractal_offset),
            gain: clamp_or(self.gain, GAIN_RANGE, default.gain),
            damping: clamp_or(self.damping, DAMPING_RANGE, default.damping),
            worley: Worley { jitter: self.worley.jitter(), ..self.worley },
            warp: self.warp.clamped(),
            rotate_octaves: self.rotate_octaves && self.period.is_none(),
            erosion_filter: ErosionFilter {
                enabled: self.erosion_filter.enabled && self.supports_erosion_filter(),
                ..self.erosion_filter.clamped()
            },
            ..*self
        }
    }

    /// Whether the [`ErosionFilter`] can apply to this field: fBm, billow or a single layer,
    /// without domain warp (the filter's exact gradient takes the field's second derivatives).
    pub fn supports_erosion_filter(&self) -> bool {
        let fractal = match self.fractal {
            Fractal::None | Fractal::Fbm | Fractal::Billow => true,
            Fractal::Ridged | Fractal::Hybrid | Fractal::Hetero | Fractal::Damped => false,
        };
        fractal && !self.warp.clamped().is_active()
    }

    /// What [`clamped`](Self::clamped) changes, one entry per parameter, for logs and the
    /// inspector. Empty when the settings are valid.
    pub fn validate(&self) -> Vec<Clamped> {
        let used = self.clamped();
        let mut out = Vec::new();
        let mut check = |field, given: String, now: String| {
            if given != now {
                out.push(Clamped { field, given, used: now });
            }
        };
        // `{:?}` tells NaN and -0 apart from the clamped values.
        check("octaves", self.octaves.to_string(), used.octaves.to_string());
        check("lacunarity", format!("{:?}", self.lacunarity), format!("{:?}", used.lacunarity));
        check("persistence", format!("{:?}", self.persistence), format!("{:?}", used.persistence));
        check("frequency", format!("{:?}", self.frequency), format!("{:?}", used.frequency));
        check("offset", format!("{:?}", self.offset), format!("{:?}", used.offset));
        if self.period.is_some() && !self.basis.supports_period() {
            let used = format!("none ({} noise cannot tile)", self.basis.name());
            check("period", format!("{:?}", self.period), used);
        } else {
            check("period", format!("{:?}", self.period), format!("{:?}", used.period));
        }
        check("fractal_offset", format!("{:?}", self.fractal_offset), format!("{:?}", used.fractal_offset));
        check("gain", format!("{:?}", self.gain), format!("{:?}", used.gain));
        check("damping", format!("{:?}", self.damping), format!("{:?}", used.damping));
        check("worley.jitter", format!("{:?}", self.worley.jitter), format!("{:?}", used.worley.jitter));
        check("warp.amplitude", format!("{:?}", self.warp.amplitude), format!("{:?}", used.warp.amplitude));
        check("warp.frequency", format!("{:?}", self.warp.frequency), format!("{:?}", used.warp.frequency));
        check("warp.octaves", self.warp.octaves.to_string(), used.warp.octaves.to_string());
        if self.rotate_octaves && !used.rotate_octaves {
            check("rotate_octaves", "true".into(), "false (a turned lattice cannot tile)".into());
        }
        if self.erosion_filter.enabled && !used.erosion_filter.enabled {
            let why = "false (the erosion filter needs fBm, billow or no fractal, without warp)";
            check("erosion_filter.enabled", "true".into(), why.into());
        }
        let (f, u) = (&self.erosion_filter, &used.erosion_filter);
        check("erosion_filter.strength", format!("{:?}", f.strength), format!("{:?}", u.strength));
        check("erosion_filter.scale", format!("{:?}", f.scale), format!("{:?}", u.scale));
        check("erosion_filter.octaves", f.octaves.to_string(), u.octaves.to_string());
        check("erosion_filter.gain", format!("{:?}", f.gain), format!("{:?}", u.gain));
        check("erosion_filter.bend", format!("{:?}", f.bend), format!("{:?}", u.bend));
        check("erosion_filter.sharpness", format!("{:?}", f.sharpness), format!("{:?}", u.sharpness));
        check("erosion_filter.keep_peaks", format!("{:?}", f.keep_peaks), format!("{:?}", u.keep_peaks));
        check("erosion_filter.keep_floors", format!("{:?}", f.keep_floors), format!("{:?}", u.keep_floors));
        out
    }

    /// Number of octaves actually summed: 1 without a fractal, else the clamped count.
    pub fn octave_count(&self) -> u32 {
        self.fractal_params().octave_count()
    }

    /// The fractal part of the settings.
    pub fn fractal_params(&self) -> FractalParams {
        FractalParams {
            kind: self.fractal,
            octaves: self.octaves,
            lacunarity: self.lacunarity,
            persistence: self.persistence,
            normalize: self.normalize,
            offset: self.fractal_offset,
            gain: self.gain,
            damping: self.damping,
        }
    }

    /// Frequency of octave `i` in lattice cells per map unit: `frequency · lacunarityⁱ`.
    pub fn octave_frequency(&self, i: u32) -> f64 {
        let s = self.clamped();
        s.frequency as f64 * (s.lacunarity as f64).powi(i as i32)
    }

    /// Amplitude of octave `i` in the sum: `persistenceⁱ`.
    pub fn octave_amplitude(&self, i: u32) -> f32 {
        self.clamped().persistence.powi(i as i32)
    }

    /// The lattice of octave `i`: its seed, the fade and its period.
    fn lattice(&self, i: u32) -> Lattice {
        Lattice {
            seed: fractal::octave_seed(self.seed, i),
            fade: self.fade,
            period: fractal::octave_period(self.period, self.lacunarity, i),
            kernel: self.gradient_kernel,
        }
    }

    /// Computed bounds of [`sample`](Self::sample)'s values: `(0, 1)`, or up to the amplitude
    /// sum for fBm and billow with normalisation off. Bounds, not the range a given map
    /// reaches: the same for every window of the field, which is what world-space stretching
    /// needs (see [`PostProcess::apply_in_world`](crate::PostProcess::apply_in_world)).
    pub fn value_bounds(&self) -> (f32, f32) {
        let s = self.clamped();
        match s.fractal {
            Fractal::Fbm | Fractal::Billow if !s.normalize => {
                (0.0, fractal::amplitude_sum(s.octave_count(), s.persistence))
            }
            Fractal::None
            | Fractal::Fbm
            | Fractal::Billow
            | Fractal::Ridged
            | Fractal::Hybrid
            | Fractal::Hetero
            | Fractal::Damped => (0.0, 1.0),
        }
    }

    /// A sampler for many points: clamps once and precomputes the octave lattices and bounds.
    pub fn sampler(&self) -> FieldSampler {
        FieldSampler::new(self)
    }

    /// The height at `(x, y)` in map units. In `[0, 1]`, except fBm and billow with
    /// normalisation off, which reach up to the amplitude sum. Bad parameters are clamped first.
    /// For many points use [`sampler`](Self::sampler).
    pub fn sample(&self, x: f64, y: f64) -> f32 {
        self.sampler().sample(x, y)
    }

    /// [`sample`](Self::sample) and its exact gradient per map unit, `[∂h/∂x, ∂h/∂y]`: through
    /// every basis and fade, every fractal and the domain warp (by the chain rule). The value is
    /// [`sample`](Self::sample)'s, bit for bit. Where the field has a crease (billow and ridged
    /// at a zero crossing, Worley's cell borders, clamped values) the gradient is one side's; the
    /// step fade's blocks are flat. The gradient is always finite (see
    /// [`Dual::with_finite_gradient`]).
    pub fn sample_with_gradient(&self, x: f64, y: f64) -> Dual {
        self.sampler().sample_with_gradient(x, y)
    }

    /// Whether [`fill_grid_with_gradients`](crate::fill_grid_with_gradients) takes its row path for
    /// these settings (value, gradient or simplex noise without warp or turned octaves, any
    /// fractal but the damped one, whose gradient needs every octave's second derivatives),
    /// within about twice the time of [`fill_grid`](crate::fill_grid) (with the erosion filter
    /// on, twice the filtered heights' time, which is many times the unfiltered field's: see
    /// `docs/performance.md`); other fields (Worley's among them) are sampled point by
    /// point, many times slower, and a caller that needs speed more than exact gradients can take
    /// differences of the heights instead (the plugin's meshes do).
    pub fn gradients_on_the_row_path(&self) -> bool {
        let s = self.clamped();
        s.row_path() && s.basis != Basis::Worley && !s.fractal.needs_slopes()
    }

    /// Whether grids of these (clamped) settings can be filled row by row along the lattice's
    /// axes: not with a warp, nor with turned octaves.
    pub(crate) fn row_path(&self) -> bool {
        let turned = self.rotate_octaves && self.octave_count() > 1;
        !self.warp.is_active() && !turned
    }

    /// The height along a line (a 1-D profile): the 1-D basis at `x`, same fractal (the damped
    /// fractal undamped: there are no 1-D slopes here; the erosion filter, a 2-D map's, not
    /// applied).
    pub fn sample_1d(&self, x: f64) -> f32 {
        self.sampler().sample_1d(x)
    }

    /// The value in a volume: the 3-D basis at `(x, y, z)`, same fractal (`offset` moves x and
    /// y; the warp and the erosion filter are 2-D and not applied; the damped fractal is undamped:
    /// there are no 3-D slopes here).
    pub fn sample_3d(&self, x: f64, y: f64, z: f64) -> f32 {
        self.sampler().sample_3d(x, y, z)
    }

    /// [`sample_3d`](Self::sample_3d) and its exact gradient per map unit, `[∂/∂x, ∂/∂y, ∂/∂z]`
    /// (the value bit for bit [`sample_3d`](Self::sample_3d)'s; always finite).
    pub fn sample_3d_with_gradient(&self, x: f64, y: f64, z: f64) -> Dual<3> {
        self.sampler().sample_3d_with_gradient(x, y, z)
    }

    /// The raw layer of octave `i` at `(x, y)`, in `[0, 1]`, before its amplitude is applied and
    /// without warp: what a grey tile of one octave shows.
    pub fn octave(&self, i: u32, x: f64, y: f64) -> f32 {
        let s = self.clamped();
        let f = s.octave_frequency(i);
        let [x, y] = s.octave_turn(i).apply([(x + s.offset.x) * f, (y + s.offset.y) * f]);
        s.basis.unit_2d(&s.lattice(i), &s.worley, x, y)
    }

    /// The turn of octave `i`: by `i` golden angles with [`rotate_octaves`](Self::rotate_octaves),
    /// else none.
    fn octave_turn(&self, i: u32) -> OctaveTurn {
        if self.rotate_octaves && i > 0 {
            let (sin, cos) = (OCTAVE_ROTATION * i as f64).sin_cos();
            OctaveTurn { cos, sin }
        } else {
            OctaveTurn::NONE
        }
    }
}

/// How many of the first octaves of `settings` (clamped) give the slope that the erosion filter's
/// gullies follow: those whose lattice is at most half as fine as the filter's first octave (at
/// least one). Finer octaves would turn the gullies at every bump of their own size.
fn coarse_octaves(settings: &NoiseSettings) -> u32 {
    let finest = settings.erosion_filter.scale as f64 / 2.0;
    let lacunarity = settings.lacunarity as f64;
    let coarse = (1..settings.octave_count()).take_while(|&i| lacunarity.powi(i as i32) <= finest).count();
    1 + coarse as u32
}

/// A rotation of an octave's coordinates about the origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct OctaveTurn {
    cos: f64,
    sin: f64,
}

impl OctaveTurn {
    /// No rotation.
    const NONE: OctaveTurn = OctaveTurn { cos: 1.0, sin: 0.0 };

    /// The turned position `R · [x, y]`.
    #[inline(always)]
    fn apply(self, [x, y]: [f64; 2]) -> [f64; 2] {
        [self.cos * x - self.sin * y, self.sin * x + self.cos * y]
    }

    /// A gradient with respect to the turned position, as one with respect to the position
    /// before the turn: `Rᵀ · g`.
    #[inline(always)]
    fn gradient_back(self, [gx, gy]: [f32; 2]) -> [f32; 2] {
        let (c, s) = (self.cos as f32, self.sin as f32);
        [c * gx + s * gy, -s * gx + c * gy]
    }
}

/// [`NoiseSettings`] prepared for sampling many points: clamped once, with the octave lattices and
/// the fractal's bounds computed once.
///
/// ```
/// use noise_terrain_core::{FieldSampler, NoiseSettings};
///
/// let sampler = FieldSampler::new(&NoiseSettings { octaves: 6, ..Default::default() });
/// let heights: Vec<f32> = (0..100).map(|i| sampler.sample(i as f64 * 0.01, 0.5)).collect();
/// assert!(heights.iter().all(|h| (0.0..=1.0).contains(h)));
/// ```
#[derive(Clone, Debug)]
pub struct FieldSampler {
    pub(crate) settings: NoiseSettings,
    pub(crate) fractal: FractalParams,
    pub(crate) to_unit: RawToUnit,
    pub(crate) lattices: [Lattice; MAX_OCTAVES as usize],
    turns: [OctaveTurn; MAX_OCTAVES as usize],
    pub(crate) worley_search: WorleySearch,
    /// The erosion filter, prepared; `None` when it is off.
    pub(crate) filter: Option<GullyPlan>,
    /// How many of the first octaves give the slope the filter's gullies follow: those at most
    /// half as fine as its first octave.
    pub(crate) filter_octaves: u32,
}

impl FieldSampler {
    /// Prepares `settings` (clamped) for sampling.
    pub fn new(settings: &NoiseSettings) -> Self {
        let settings = settings.clamped();
        let fractal = settings.fractal_params();
        Self {
            settings,
            fractal,
            to_unit: fractal.raw_to_unit(),
            lattices: std::array::from_fn(|i| settings.lattice(i as u32)),
            turns: std::array::from_fn(|i| settings.octave_turn(i as u32)),
            worley_search: WorleySearch::new(&settings.worley),
            filter: settings.erosion_filter.plan(settings.value_bounds(), settings.frequency),
            filter_octaves: coarse_octaves(&settings),
        }
    }

    /// Map point `(x, y)` in lattice units of the base frequency, `(x + offset) · frequency`,
    /// with the grids' operations (the erosion filter's cells are laid out there).
    #[inline(always)]
    pub(crate) fn base_position(&self, x: f64, y: f64) -> [f64; 2] {
        let s = &self.settings;
        [(x + s.offset.x) * s.frequency as f64, (y + s.offset.y) * s.frequency as f64]
    }

    /// Octave `i`'s position: `[x, y]` (the base lattice position times the octave's scale),
    /// turned when the settings turn octaves. Octave 0 is never turned: not even multiplied by
    /// the identity, which would make an infinite coordinate NaN (`∞ · 0`) where the grid's rows
    /// keep it infinite.
    #[inline(always)]
    fn octave_position(&self, i: u32, x: f64, y: f64) -> [f64; 2] {
        if self.settings.rotate_octaves && i > 0 { self.turns[i as usize].apply([x, y]) } else { [x, y] }
    }

    /// Whether the erosion filter applies (it is on and the field supports it).
    pub fn has_erosion_filter(&self) -> bool {
        self.filter.is_some()
    }

    /// The clamped settings.
    pub fn settings(&self) -> &NoiseSettings {
        &self.settings
    }

    /// See [`NoiseSettings::sample`].
    #[inline]
    pub fn sample(&self, x: f64, y: f64) -> f32 {
        match &self.filter {
            Some(plan) => self.filtered(plan, x, y).0,
            None => self.unfiltered(x, y),
        }
    }

    /// How deep the erosion filter cuts at `(x, y)`, as a share of the field's height range, in
    /// `[0, 1]` (0 everywhere with the filter off): what colour rules paint gullies by.
    pub fn sample_cut_depth(&self, x: f64, y: f64) -> f32 {
        self.filter.as_ref().map_or(0.0, |plan| self.filtered(plan, x, y).1)
    }

    /// Bounds `[low, high]` of the height [`sample`](Self::sample) gives at `(x, y)`, for a
    /// fraction of its cost: the height itself without the erosion filter; with it, the field's
    /// height before the filter, widened by the most the filter's gullies can move it there (from
    /// the coarse slope alone). For skipping points whose height is sure to be out of a range.
    pub fn sample_bounds(&self, x: f64, y: f64) -> [f32; 2] {
        let h = self.unfiltered(x, y);
        match &self.filter {
            Some(plan) => {
                let most = plan.most_change(h, self.coarse_slope_length(x, y));
                [h - most, h + most]
            }
            None => [h, h],
        }
    }

    /// The height with the erosion filter and the depth of its cut.
    fn filtered(&self, plan: &GullyPlan, x: f64, y: f64) -> (f32, f32) {
        let (slope, _) = self.coarse_slope(x, y);
        plan.apply(self.base_position(x, y), self.unfiltered(x, y), slope)
    }

    /// The fractal's height before the erosion filter.
    #[inline]
    fn unfiltered(&self, x: f64, y: f64) -> f32 {
        let s = &self.settings;
        let f = s.frequency as f64;
        let (px, py) = s.warp.displace(s.seed, s.period, (x + s.offset.x) * f, (y + s.offset.y) * f);
        let raw = if self.fractal.kind.needs_slopes() {
            self.fractal.raw_with_slopes(|i, scale| {
                let [x, y] = self.octave_position(i, px * scale, py * scale);
                let n = s.basis.signed_2d_with_gradient(&self.lattices[i as usize], &s.worley, x, y);
                Sloped { value: n.value, slope: self.turns[i as usize].gradient_back(n.gradient) }
            })
        } else {
            self.fractal.raw(|i, scale| {
                let [x, y] = self.octave_position(i, px * scale, py * scale);
                s.basis.signed_2d(&self.lattices[i as usize], &s.worley, x, y)
            })
        };
        self.to_unit.apply(raw)
    }

    /// See [`NoiseSettings::sample_with_gradient`].
    pub fn sample_with_gradient(&self, x: f64, y: f64) -> Dual {
        self.sample_with_gradient_and_cut(x, y).0
    }

    /// [`sample_with_gradient`](Self::sample_with_gradient) and
    /// [`sample_cut_depth`](Self::sample_cut_depth) from one evaluation of the erosion filter (half
    /// the time of asking for both).
    pub fn sample_with_gradient_and_cut(&self, x: f64, y: f64) -> (Dual, f32) {
        let Some(plan) = &self.filter else { return (self.unfiltered_with_gradient(x, y), 0.0) };
        let ([gx, gy], [xx, xy, yy]) = self.coarse_slope(x, y);
        let slope = [Dual::new(gx, [xx, xy]), Dual::new(gy, [xy, yy])];
        let (height, cut) = plan.apply(self.base_position(x, y), self.unfiltered_with_gradient(x, y), slope);
        (height.with_finite_gradient(), cut)
    }

    /// The slope per map unit of the field's first [`filter_octaves`](Self::filter_octaves)
    /// octaves (fBm, billow or a single layer, without warp: the fields the erosion filter applies
    /// to) and its derivatives `[∂²/∂x², ∂²/∂x∂y, ∂²/∂y²]` per map unit²: the slope the filter's
    /// gullies follow.
    fn coarse_slope(&self, x: f64, y: f64) -> ([f32; 2], [f32; 3]) {
        let s = &self.settings;
        let [px, py] = self.base_position(x, y);
        let (mut scale, mut amplitude) = (1.0f64, 1.0f32);
        let mut sums = ([0.0f32; 2], [0.0f32; 3]);
        for i in 0..self.filter_octaves {
            let [x, y] = self.octave_position(i, px * scale, py * scale);
            let n = s.basis.signed_2d_with_hessian(&self.lattices[i as usize], &s.worley, x, y);
            let (mut g, mut h) = (n.first.gradient, n.hessian);
            if s.rotate_octaves && i > 0 {
                // Turned back to the field's axes: the gradient by Rᵀ, the Hessian by Rᵀ H R.
                let turn = self.turns[i as usize];
                g = turn.gradient_back(g);
                let columns = h.map(|column| turn.gradient_back(column));
                h = [0, 1].map(|a| turn.gradient_back([columns[0][a], columns[1][a]]));
            }
            let octave =
                OctaveJet { value: n.first.value, gradient: g, hessian: [h[0][0], h[0][1], h[1][1]] };
            sums = octave.add_to(self.fractal.kind, amplitude, scale as f32 * s.frequency, sums);
            amplitude *= self.fractal.persistence;
            scale *= s.lacunarity as f64;
        }
        let k = self.to_unit.slope_scale();
        (sums.0.map(|g| g * k), sums.1.map(|h| h * k))
    }

    /// At least the length of [`coarse_slope`](Self::coarse_slope)'s slope, from the octaves'
    /// gradients alone (no second derivatives): their sum's length, with a relative margin for
    /// the other path's rounding; for billow the sum of their lengths, as an octave whose value
    /// is within rounding of 0 could take either sign there.
    fn coarse_slope_length(&self, x: f64, y: f64) -> f32 {
        let s = &self.settings;
        let [px, py] = self.base_position(x, y);
        let (mut scale, mut amplitude) = (1.0f64, 1.0f32);
        let (mut sum, mut lengths) = ([0.0f32; 2], 0.0f32);
        for i in 0..self.filter_octaves {
            let [x, y] = self.octave_position(i, px * scale, py * scale);
            let n = s.basis.signed_2d_with_gradient(&self.lattices[i as usize], &s.worley, x, y);
            let octave = OctaveJet { value: n.value, gradient: n.gradient, hessian: [0.0; 3] };
            // Turning a gradient keeps its length, and lengths are all billow needs.
            let (g, _) =
                octave.add_to(self.fractal.kind, amplitude, scale as f32 * s.frequency, ([0.0; 2], [0.0; 3]));
            let g = if s.rotate_octaves && i > 0 { self.turns[i as usize].gradient_back(g) } else { g };
            sum = [sum[0] + g[0], sum[1] + g[1]];
            lengths += g[0].hypot(g[1]);
            amplitude *= self.fractal.persistence;
            scale *= s.lacunarity as f64;
        }
        let length = match self.fractal.kind {
            Fractal::Billow => lengths,
            _ => sum[0].hypot(sum[1]),
        };
        length * self.to_unit.slope_scale() * 1.001
    }

    /// The fractal's height before the erosion filter and its gradient per map unit.
    fn unfiltered_with_gradient(&self, x: f64, y: f64) -> Dual {
        let s = &self.settings;
        let f = s.frequency as f64;
        let ((px, py), j) =
            s.warp.displace_with_jacobian(s.seed, s.period, (x + s.offset.x) * f, (y + s.offset.y) * f);
        let j = s.warp.is_active().then_some(j);
        // A gradient per lattice unit of octave `i` (at `scale`), to per base lattice unit,
        // through the warp (when there is one), to per map unit.
        let to_map = |[gx, gy]: [f32; 2], scale: f64| {
            let (k, f) = (scale as f32, f as f32);
            match j {
                Some(j) => {
                    let (gx, gy) = (gx * k, gy * k);
                    [(gx * j[0][0] + gy * j[1][0]) * f, (gx * j[0][1] + gy * j[1][1]) * f]
                }
                // One factor per octave, as the grid's rows apply it.
                None => [gx * (k * f), gy * (k * f)],
            }
        };
        let lattice = |i: u32| &self.lattices[i as usize];
        let raw = if self.fractal.kind.needs_slopes() {
            // Each octave's slope (per lattice unit of its own) changes with the position by a
            // row of the octave's Hessian.
            self.fractal.raw_with_slopes(|i, scale| {
                let [x, y] = self.octave_position(i, px * scale, py * scale);
                let n = s.basis.signed_2d_with_hessian(lattice(i), &s.worley, x, y);
                // Turned back to the field's axes: the gradient by Rᵀ, the Hessian by Rᵀ H R.
                let turn = self.turns[i as usize];
                let columns = n.hessian.map(|column| turn.gradient_back(column));
                let h = [0, 1].map(|a| turn.gradient_back([columns[0][a], columns[1][a]]));
                let g = turn.gradient_back(n.first.gradient);
                let slope = |a: usize| Dual::new(g[a], to_map(h[a], scale));
                Sloped { value: Dual::new(n.first.value, to_map(g, scale)), slope: [slope(0), slope(1)] }
            })
        } else {
            self.fractal.raw(|i, scale| {
                let [x, y] = self.octave_position(i, px * scale, py * scale);
                let n = s.basis.signed_2d_with_gradient(lattice(i), &s.worley, x, y);
                // Unturned octaves skip the identity turn, which would make a -0 slope +0 where
                // the grid's rows keep it (a single layer has no sum to do the same).
                let g = if s.rotate_octaves && i > 0 {
                    self.turns[i as usize].gradient_back(n.gradient)
                } else {
                    n.gradient
                };
                Dual::new(n.value, to_map(g, scale))
            })
        };
        self.to_unit.apply(raw).with_finite_gradient()
    }

    /// See [`NoiseSettings::sample_1d`].
    pub fn sample_1d(&self, x: f64) -> f32 {
        let s = &self.settings;
        let px = (x + s.offset.x) * s.frequency as f64;
        let raw = self
            .fractal
            .raw(|i, scale| s.basis.unit_1d(&self.lattices[i as usize], &s.worley, px * scale) * 2.0 - 1.0);
        self.to_unit.apply(raw)
    }

    /// See [`NoiseSettings::sample_3d`].
    pub fn sample_3d(&self, x: f64, y: f64, z: f64) -> f32 {
        let s = &self.settings;
        let f = s.frequency as f64;
        let (px, py, pz) = ((x + s.offset.x) * f, (y + s.offset.y) * f, z * f);
        let raw = self.fractal.raw(|i, scale| {
            let [x, y] = self.octave_position(i, px * scale, py * scale);
            s.basis.unit_3d(&self.lattices[i as usize], &s.worley, x, y, pz * scale) * 2.0 - 1.0
        });
        self.to_unit.apply(raw)
    }

    /// See [`NoiseSettings::sample_3d_with_gradient`].
    pub fn sample_3d_with_gradient(&self, x: f64, y: f64, z: f64) -> Dual<3> {
        let s = &self.settings;
        let f = s.frequency as f64;
        let (px, py, pz) = ((x + s.offset.x) * f, (y + s.offset.y) * f, z * f);
        let raw = self.fractal.raw(|i, scale| {
            let [x, y] = self.octave_position(i, px * scale, py * scale);
            let n = s.basis.unit_3d_with_gradient(&self.lattices[i as usize], &s.worley, x, y, pz * scale);
            // To `[-1, 1]` as `sample_3d` does; the gradient turned back about z, then per
            // lattice unit of the octave to per map unit.
            let [gx, gy] = self.turns[i as usize].gradient_back([n.gradient[0], n.gradient[1]]);
            let (k, f) = (scale as f32, f as f32);
            Dual::new(n.value * 2.0 - 1.0, [gx, gy, n.gradient[2]].map(|g| g * 2.0 * k * f))
        });
        self.to_unit.apply(raw).with_finite_gradient()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{SplitMix, correlation, random_points};

    fn with(f: impl FnOnce(&mut NoiseSettings)) -> NoiseSettings {
        let mut s = NoiseSettings::default();
        f(&mut s);
        s
    }

    /// The largest change of `settings.sample` per map unit along one axis: per octave, the
    /// basis' largest slope in `[0, 1]` units times the octave's frequency and amplitude.
    fn slope_bound(settings: &NoiseSettings) -> f64 {
        let s = settings.fade.max_slope() as f64;
        let basis_slope = match settings.basis {
            // A convex blend of values in [0, 1): the fade's slope times the spread, at most 1.
            Basis::Value => s,
            // Raw: |g| = 1 from the dot products, plus the fade's slope times the largest corner
            // difference (2√2); times √2 for the scale and ½ for the map to [0, 1].
            Basis::Gradient => (1.0 + s * 2.0 * 2f64.sqrt()) * 2f64.sqrt() * 0.5,
            Basis::Simplex | Basis::Worley => unreachable!("they have continuity tests of their own"),
        };
        let mut total = 0.0;
        for i in 0..settings.octave_count() {
            total += basis_slope * settings.octave_frequency(i) * settings.octave_amplitude(i) as f64;
        }
        total / fractal::amplitude_sum(settings.octave_count(), settings.persistence) as f64
    }

    fn assert_continuous(settings: &NoiseSettings, start: f64, steps: usize, h: f64) {
        let bound = slope_bound(settings) * h * 1.0001 + 1e-6;
        for axis in 0..2 {
            let mut prev = settings.sample(start, start);
            for k in 1..steps {
                let t = start + k as f64 * h;
                let now = if axis == 0 { settings.sample(t, start) } else { settings.sample(start, t) };
                let step = (now - prev).abs() as f64;
                assert!(step <= bound, "{settings:?}: step {step} > {bound} at {t} (axis {axis})");
                prev = now;
            }
        }
    }

    #[test]
    fn continuity_near_origin_across_zero_and_far_away() {
        for basis in [Basis::Value, Basis::Gradient] {
            for fade in [Fade::Linear, Fade::Cubic, Fade::Quintic, Fade::Cosine] {
                let near = with(|s| {
                    (s.basis, s.fade) = (basis, fade);
                    s.offset = DVec2::new(-0.37, -0.61);
                });
                assert_continuous(&near, -1.0, 4000, 5e-4);
                let far = with(|s| {
                    (s.basis, s.fade) = (basis, fade);
                    s.offset = DVec2::splat(1e7);
                });
                assert_continuous(&far, 0.0, 2000, 5e-4);
            }
        }
    }

    #[test]
    fn step_fade_is_caught_by_the_continuity_bound() {
        // The bound is tight enough to notice a real jump: step fade breaks it.
        let s = with(|s| s.fade = Fade::Step);
        let h = 5e-4;
        let bound = 10.0 * h;
        let jumps = (0..4000)
            .filter(|&k| {
                let x = k as f64 * h;
                (s.sample(x + h, 0.3) - s.sample(x, 0.3)).abs() as f64 > bound
            })
            .count();
        assert!(jumps > 10, "{jumps}");
    }

    #[test]
    fn every_basis_fractal_and_warp_stays_in_zero_one_for_random_settings() {
        let mut rng = SplitMix(42);
        // 200 random settings x 5000 points = 10^6 samples.
        for _ in 0..200 {
            let s = NoiseSettings {
                basis: Basis::ALL[(rng.next_u64() % Basis::ALL.len() as u64) as usize],
                fractal: Fractal::ALL[(rng.next_u64() % Fractal::ALL.len() as u64) as usize],
                fractal_offset: rng.range(0.0, 2.0) as f32,
                gain: rng.range(0.0, 8.0) as f32,
                worley: Worley {
                    return_type: crate::field::basis::WorleyReturn::ALL
                        [(rng.next_u64() % crate::field::basis::WorleyReturn::ALL.len() as u64) as usize],
                    metric: crate::field::basis::DistanceMetric::ALL
                        [(rng.next_u64() % crate::field::basis::DistanceMetric::ALL.len() as u64) as usize],
                    jitter: rng.range(0.0, 1.0) as f32,
                },
                warp: Warp {
                    amplitude: if rng.next_u64().is_multiple_of(2) {
                        0.0
                    } else {
                        rng.range(0.0, 100.0) as f32
                    },
                    frequency: rng.range(0.1, 4.0) as f32,
                    octaves: 1 + (rng.next_u64() % 3) as u32,
                },
                fade: Fade::ALL[(rng.next_u64() % 5) as usize],
                octaves: 1 + (rng.next_u64() % 12) as u32,
                lacunarity: rng.range(1.0, 8.0) as f32,
                persistence: rng.range(0.0, 2.0) as f32,
                frequency: rng.range(0.01, 100.0) as f32,
                seed: rng.next_u64() as u32,
                ..NoiseSettings::default()
            };
            for [x, y, _] in random_points(5000, rng.next_u64(), 100.0) {
                let h = s.sample(x, y);
                assert!((0.0..=1.0).contains(&h), "{s:?} at {x} {y}: {h}");
            }
        }
    }

    #[test]
    fn warp_zero_is_the_unwarped_field_bit_for_bit_and_large_warps_are_finite() {
        let plain = NoiseSettings::default();
        let zero = with(|s| s.warp = Warp { amplitude: 0.0, frequency: 3.0, octaves: 4 });
        let huge = with(|s| s.warp = Warp { amplitude: 50.0, frequency: 2.0, octaves: 3 });
        let mut differs = 0;
        for [x, y, _] in random_points(20_000, 31, 20.0) {
            assert_eq!(plain.sample(x, y).to_bits(), zero.sample(x, y).to_bits());
            let h = huge.sample(x, y);
            assert!((0.0..=1.0).contains(&h));
            differs += (h != plain.sample(x, y)) as u32;
        }
        assert!(differs > 19_000);
    }

    #[test]
    fn without_normalisation_heights_exceed_one() {
        let s = with(|s| {
            s.normalize = false;
            s.basis = Basis::Value;
            s.frequency = 11.0;
            s.octaves = 4;
        });
        let max = (0..200 * 200)
            .map(|k| s.sample((k % 200) as f64 / 200.0, (k / 200) as f64 / 200.0))
            .fold(0f32, f32::max);
        assert!(max > 1.0 && max <= fractal::amplitude_sum(4, 0.5), "{max}");
        assert_eq!(s.value_bounds(), (0.0, fractal::amplitude_sum(4, 0.5)));
        assert!(max <= s.value_bounds().1);
        assert_eq!(with(|s| s.fractal = Fractal::Ridged).value_bounds(), (0.0, 1.0));
    }

    #[test]
    fn periodic_fields_tile_bit_for_bit() {
        let bases = Basis::ALL.into_iter().filter(|b| b.supports_period());
        for (basis, kernel) in bases.flat_map(|b| GradientKernel::ALL.map(|k| (b, k))) {
            for lacunarity in [2.0, 3.0] {
                let s = with(|s| {
                    s.basis = basis;
                    s.gradient_kernel = kernel;
                    s.frequency = 1.0;
                    s.period = Some(5);
                    s.lacunarity = lacunarity;
                    s.offset = DVec2::new(-2.25, 0.5);
                });
                for k in 0..2000 {
                    let (x, y) = ((k % 50) as f64 / 16.0 - 1.5, (k / 50) as f64 / 8.0 - 2.0);
                    let h = s.sample(x, y);
                    assert_eq!(h.to_bits(), s.sample(x + 5.0, y).to_bits());
                    assert_eq!(h.to_bits(), s.sample(x, y + 5.0).to_bits());
                    assert_eq!(h.to_bits(), s.sample(x - 10.0, y + 15.0).to_bits());
                }
            }
        }
        // Sanity: without a period, the same shift gives a different field.
        let s = with(|s| s.frequency = 1.0);
        assert_ne!(s.sample(0.3, 0.3), s.sample(5.3, 0.3));
    }

    #[test]
    fn periodic_1d_noise_repeats_exactly() {
        // noise(t) = f(t mod n), with linear and cosine interpolation, over octaves.
        for basis in [Basis::Value, Basis::Gradient] {
            for fade in [Fade::Linear, Fade::Cosine, Fade::Quintic] {
                for period in [1, 4, 7] {
                    let s = with(|s| {
                        (s.basis, s.fade, s.frequency, s.octaves) = (basis, fade, 1.0, 5);
                        s.period = Some(period);
                    });
                    let n = f64::from(period);
                    for k in 0..3000 {
                        let t = k as f64 / 64.0 - 20.0;
                        let h = s.sample_1d(t);
                        assert_eq!(
                            h.to_bits(),
                            s.sample_1d(t + n).to_bits(),
                            "{basis:?} {fade:?} n {n} t {t}"
                        );
                        assert_eq!(h.to_bits(), s.sample_1d(t - 3.0 * n).to_bits());
                    }
                }
            }
        }
        // Without a period the profile does not repeat at those shifts.
        let s = with(|s| (s.basis, s.frequency) = (Basis::Value, 1.0));
        assert!((0..100).any(|k| s.sample_1d(k as f64 / 8.0) != s.sample_1d(k as f64 / 8.0 + 4.0)));
    }

    #[test]
    fn octave_two_is_not_a_compressed_copy_of_octave_one() {
        let s = NoiseSettings::default();
        let (mut one, mut two) = (Vec::new(), Vec::new());
        for [x, y, _] in random_points(20_000, 9, 10.0) {
            // Octave 2 at p looks at the lattice where octave 1 looks at p · lacunarity.
            two.push(s.octave(2, x, y) as f64);
            one.push(s.octave(1, x * 2.0, y * 2.0) as f64);
        }
        let r = correlation(&one, &two);
        assert!(r.abs() < 0.05, "correlation {r}");
        // With the same seed for both octaves the two series would be identical.
        let same_seed = s.basis.unit_2d(&s.lattice(1), &s.worley, 3.0, 5.0);
        assert_eq!(same_seed, s.octave(1, 3.0 / 8.0, 5.0 / 8.0));
    }

    #[test]
    fn same_settings_same_bits_different_seeds_different_fields() {
        let a = NoiseSettings::default();
        let b = with(|s| s.seed = 8);
        let points = random_points(20_000, 5, 50.0);
        let first: Vec<u32> = points.iter().map(|p| a.sample(p[0], p[1]).to_bits()).collect();
        let again: Vec<u32> = points.iter().map(|p| a.sample(p[0], p[1]).to_bits()).collect();
        assert_eq!(first, again);
        let fa: Vec<f64> = points.iter().map(|p| a.sample(p[0], p[1]) as f64).collect();
        let fb: Vec<f64> = points.iter().map(|p| b.sample(p[0], p[1]) as f64).collect();
        let r = correlation(&fa, &fb);
        assert!(r.abs() < 0.05, "seeds 7 and 8 correlate: {r}");
    }

    #[test]
    fn bad_numbers_give_finite_heights() {
        let bad = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e12, -1e12];
        let settings = [
            NoiseSettings::default(),
            with(|s| s.frequency = f32::NAN),
            with(|s| s.frequency = f32::INFINITY),
            with(|s| s.lacunarity = 0.0),
            with(|s| s.lacunarity = f32::NAN),
            with(|s| s.persistence = f32::INFINITY),
            with(|s| s.octaves = 1000),
            with(|s| s.octaves = 0),
            with(|s| s.offset = DVec2::new(f64::NAN, f64::INFINITY)),
            with(|s| s.period = Some(0)),
            with(|s| s.period = Some(u32::MAX)),
        ];
        for s in settings {
            for &x in &bad {
                for &y in &[0.5, x] {
                    let h = s.sample(x, y);
                    assert!((0.0..=1.0).contains(&h), "{s:?} at {x} {y}: {h}");
                    assert!(s.sample_1d(x).is_finite() && s.sample_3d(x, y, x).is_finite());
                    assert!(s.octave(3, x, y).is_finite());
                }
            }
        }
    }

    #[test]
    fn validate_names_what_it_clamps() {
        assert!(NoiseSettings::default().validate().is_empty());
        let s = with(|s| {
            s.octaves = 0;
            s.frequency = f32::NAN;
            s.lacunarity = 0.0;
        });
        let fields: Vec<_> = s.validate().iter().map(|c| c.field).collect();
        assert_eq!(fields, ["octaves", "lacunarity", "frequency"]);
        assert_eq!(s.validate()[0].to_string(), "octaves 0 is out of range, using 1");
        assert_eq!(s.clamped().frequency, 4.0);
    }

    #[test]
    fn a_period_on_simplex_noise_is_reported_not_silently_ignored() {
        let s = with(|s| {
            s.basis = Basis::Simplex;
            s.period = Some(4);
        });
        let report = s.validate();
        assert_eq!(report.len(), 1, "{report:?}");
        assert_eq!(report[0].field, "period");
        assert!(report[0].used.contains("simplex noise cannot tile"), "{}", report[0]);
        assert_eq!(s.clamped().period, None);
        assert!(with(|s| s.period = Some(4)).validate().is_empty(), "gradient noise tiles");
    }

    #[test]
    fn a_nan_jitter_follows_one_rule_everywhere() {
        let s = with(|s| {
            s.basis = Basis::Worley;
            s.worley.jitter = f32::NAN;
        });
        let default = NoiseSettings { basis: Basis::Worley, ..NoiseSettings::default() };
        assert_eq!(s.clamped().worley.jitter, Worley::default().jitter);
        assert_eq!(s.worley.jitter(), Worley::default().jitter);
        // The point path (which reads the jitter unclamped) and the clamped settings agree.
        for k in 0..50 {
            let (x, y) = (k as f64 * 0.173, k as f64 * -0.091);
            assert_eq!(s.sample(x, y), default.sample(x, y));
        }
    }

    #[test]
    fn one_and_three_dimensional_fields_are_continuous_and_in_range() {
        let s = NoiseSettings::default();
        let bound = slope_bound(&s) * 1e-3 * 1.0001;
        for k in 0..5000 {
            let x = -2.5 + k as f64 * 1e-3;
            let (a, b) = (s.sample_1d(x), s.sample_1d(x + 1e-3));
            assert!((0.0..=1.0).contains(&a) && ((a - b).abs() as f64) <= bound * 2.0);
            let (a, b) = (s.sample_3d(0.3, 0.7, x), s.sample_3d(0.3, 0.7, x + 1e-3));
            assert!((0.0..=1.0).contains(&a) && ((a - b).abs() as f64) <= bound * 2.0);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

        /// The bounds hold the height the sampler gives, with and without its gradient, for
        /// any field the filter applies to and any filter (and are the height itself without
        /// the filter).
        #[test]
        fn sample_bounds_hold_the_height(
            basis in 0usize..4,
            kind in 0usize..3,
            octaves in 1u32..9,
            persistence in 0.2f32..0.9,
            lacunarity in 1.5f32..3.0,
            rotate in proptest::bool::ANY,
            normalize in proptest::bool::ANY,
            seed in 0u32..1000,
            filter in (0.0f32..4.0, 0.25f32..16.0, 1u32..9, 0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0),
            points in 0u64..1000,
        ) {
            let (strength, scale, filter_octaves, gain, bend, sharpness, keep_peaks, keep_floors) = filter;
            let settings = NoiseSettings {
                basis: Basis::ALL[basis],
                fractal: [Fractal::Fbm, Fractal::Billow, Fractal::None][kind],
                octaves,
                persistence,
                lacunarity,
                rotate_octaves: rotate,
                normalize,
                seed,
                frequency: 2.0,
                erosion_filter: ErosionFilter {
                    enabled: true,
                    strength,
                    scale,
                    octaves: filter_octaves,
                    gain,
                    bend,
                    sharpness,
                    keep_peaks,
                    keep_floors,
                    seed,
                },
                ..NoiseSettings::default()
            };
            let s = settings.sampler();
            for [x, y, _] in random_points(64, points, 20.0) {
                let [low, high] = s.sample_bounds(x, y);
                let (h, (d, _)) = (s.sample(x, y), s.sample_with_gradient_and_cut(x, y));
                proptest::prop_assert!(low <= h && h <= high, "{low} {h} {high} at {x}, {y}");
                proptest::prop_assert!(low <= d.value && d.value <= high, "{low} {} {high}", d.value);
                if !s.has_erosion_filter() {
                    proptest::prop_assert_eq!([low.to_bits(), high.to_bits()], [h.to_bits(); 2]);
                }
            }
        }
    }

    /// The bounds are narrow enough to tell most points of the example's shore apart: a band of
    /// a hundredth of the height range holds fewer than one point in five by its bounds.
    #[test]
    fn sample_bounds_are_narrow() {
        let settings = NoiseSettings {
            octaves: 7,
            frequency: 3.0,
            seed: 11,
            erosion_filter: ErosionFilter { enabled: true, scale: 8.0, octaves: 4, ..Default::default() },
            ..Default::default()
        };
        let s = settings.sampler();
        let points = random_points(2000, 4, 2.0);
        let (lo, hi) = settings.value_bounds();
        let band = [lo + 0.39 * (hi - lo), lo + 0.40 * (hi - lo)];
        let overlapping = points
            .iter()
            .filter(|[x, y, _]| {
                let [low, high] = s.sample_bounds(*x, *y);
                high >= band[0] && low <= band[1]
            })
            .count();
        assert!(overlapping < points.len() / 5, "{overlapping} of {}", points.len());
    }
}
