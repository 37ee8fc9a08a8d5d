//! [`NoiseSettings`]: what a noise field is made of, its documented ranges and its validation.

use super::*;

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
    pub(super) fn lattice(&self, i: u32) -> Lattice {
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
    pub(super) fn octave_turn(&self, i: u32) -> OctaveTurn {
        if self.rotate_octaves && i > 0 {
            let (sin, cos) = (OCTAVE_ROTATION * i as f64).sin_cos();
            OctaveTurn { cos, sin }
        } else {
            OctaveTurn::NONE
        }
    }
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
    pub(super) fn apply(self, [x, y]: [f64; 2]) -> [f64; 2] {
        [self.cos * x - self.sin * y, self.sin * x + self.cos * y]
    }

    /// A gradient with respect to the turned position, as one with respect to the position
    /// before the turn: `Rᵀ · g`.
    #[inline(always)]
    pub(super) fn gradient_back(self, [gx, gy]: [f32; 2]) -> [f32; 2] {
        let (c, s) = (self.cos as f32, self.sin as f32);
        [c * gx + s * gy, -s * gx + c * gy]
    }
}
