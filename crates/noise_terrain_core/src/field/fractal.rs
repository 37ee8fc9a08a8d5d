//! Fractal sums of a basis: octaves of rising frequency and falling amplitude.

use crate::field::dual::Octave;

/// The fewest octaves a fractal sums.
pub const MIN_OCTAVES: u32 = 1;
/// The most octaves a fractal sums: past this an octave is finer than any map we can generate
/// (2^11 times the base frequency at lacunarity 2) and adds only flicker.
pub const MAX_OCTAVES: u32 = 12;
/// How much the seed moves per octave, so that no octave is a compressed copy of another.
pub(crate) const OCTAVE_SEED_STEP: u32 = 1013;

/// How the octaves of a field are combined.
///
/// Every kind maps into `[0, 1]`: fBm and billow by dividing by the amplitude sum (unless
/// normalisation is off), the multifractals by bounds computed from their parameters with interval
/// arithmetic ([`FractalParams::raw_bounds`]), never by clamping. Musgrave writes the octave
/// weights as `lacunarity^(-iH)`; here they are `persistenceⁱ`, the same thing with
/// `persistence = lacunarity^(-H)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum Fractal {
    /// One layer of the basis at the base frequency; the octave settings are ignored.
    None,
    /// Fractal Brownian motion: `Σ persistenceⁱ · basis(p · lacunarityⁱ)`, basis in `[0, 1]`.
    #[default]
    Fbm,
    /// `Σ persistenceⁱ · |noise|` with noise in `[-1, 1]`: puffy, rounded hills with creases.
    Billow,
    /// Musgrave's ridged multifractal: sharp ridges from `(offset - |noise|)²`, each octave
    /// weighted by the one before (`gain`). Mountain ranges.
    Ridged,
    /// Musgrave's hybrid multifractal: smooth valleys, rough peaks (`offset`).
    Hybrid,
    /// Musgrave's heterogeneous terrain: detail scaled by the height so far (`offset`).
    Hetero,
    /// Derivative-damped fBm:
    /// `Σ persistenceⁱ · noiseᵢ / (1 + k·|Σⱼ≤ᵢ ∇noiseⱼ|²)` with noise in `[-1, 1]` and each
    /// gradient per lattice cell of its own octave. Detail fades where the slopes so far are
    /// steep, so flanks are smooth and flats rough: an eroded look without simulation, the same
    /// everywhere (it suits endless terrain). `k` is [`FractalParams::damping`].
    Damped,
}

impl Fractal {
    /// Every fractal, in the order of the inspector's chips.
    pub const ALL: [Fractal; 7] = [
        Fractal::None,
        Fractal::Fbm,
        Fractal::Billow,
        Fractal::Ridged,
        Fractal::Hybrid,
        Fractal::Hetero,
        Fractal::Damped,
    ];

    /// Short lower-case name, as the export tool's `--fractal` flag spells it.
    pub fn name(self) -> &'static str {
        match self {
            Fractal::None => "none",
            Fractal::Fbm => "fbm",
            Fractal::Billow => "billow",
            Fractal::Ridged => "ridged",
            Fractal::Hybrid => "hybrid",
            Fractal::Hetero => "hetero",
            Fractal::Damped => "damped",
        }
    }

    /// Whether the kind uses the multifractal `offset` parameter.
    pub fn uses_offset(self) -> bool {
        matches!(self, Fractal::Ridged | Fractal::Hybrid | Fractal::Hetero)
    }

    /// Whether each octave's value depends on the slopes of the octaves before it: then the
    /// octaves must be sampled with their gradients ([`FractalParams::raw_with_slopes`]).
    pub fn needs_slopes(self) -> bool {
        self == Fractal::Damped
    }
}

crate::field::names::parse_by_name!(Fractal);

/// Musgrave's loops stop once the running weight falls to this; later octaves add nothing visible.
const WEIGHT_CUTOFF: f32 = 0.001;

/// A closed interval, for the bounds of the multifractals.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Interval {
    lo: f32,
    hi: f32,
}

impl Interval {
    fn new(a: f32, b: f32) -> Self {
        Self { lo: a.min(b), hi: a.max(b) }
    }

    fn add(self, o: Interval) -> Self {
        Self { lo: self.lo + o.lo, hi: self.hi + o.hi }
    }

    fn mul(self, o: Interval) -> Self {
        let p = [self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi];
        Self {
            lo: p.iter().copied().fold(f32::INFINITY, f32::min),
            hi: p.iter().copied().fold(f32::NEG_INFINITY, f32::max),
        }
    }

    fn scale(self, k: f32) -> Self {
        Self::new(self.lo * k, self.hi * k)
    }

    fn min_with(self, k: f32) -> Self {
        Self { lo: self.lo.min(k), hi: self.hi.min(k) }
    }

    fn clamp(self, lo: f32, hi: f32) -> Self {
        Self { lo: self.lo.clamp(lo, hi), hi: self.hi.clamp(lo, hi) }
    }

    fn hull(self, o: Interval) -> Self {
        Self { lo: self.lo.min(o.lo), hi: self.hi.max(o.hi) }
    }
}

/// The fractal part of a field's settings, already clamped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FractalParams {
    /// How octaves combine.
    pub kind: Fractal,
    /// Octaves summed (clamped to `1..=12` when evaluated).
    pub octaves: u32,
    /// Frequency factor per octave.
    pub lacunarity: f32,
    /// Amplitude factor per octave (Musgrave's `lacunarity^(-H)`).
    pub persistence: f32,
    /// fBm and billow: divide by the amplitude sum.
    pub normalize: bool,
    /// Ridged, hybrid and hetero: Musgrave's `offset`.
    pub offset: f32,
    /// Ridged: Musgrave's `gain`, how strongly an octave's ridges feed the next.
    pub gain: f32,
    /// Damped: `k`, how strongly the slopes so far damp the next octave (0: plain fBm of
    /// `[-1, 1]` noise).
    pub damping: f32,
}

/// One octave's value and its slope per lattice cell of that octave, for
/// [`FractalParams::raw_with_slopes`]. With `T = f32` plain numbers; with [`Dual`](crate::field::dual::Dual)
/// each also carries its own gradient in the field's coordinates (for the slope, a row of the
/// octave's Hessian).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sloped<T> {
    /// The octave's value in `[-1, 1]`.
    pub value: T,
    /// `[∂/∂u, ∂/∂v]` in the octave's own lattice units.
    pub slope: [T; 2],
}

impl FractalParams {
    /// Number of octaves actually evaluated.
    pub fn octave_count(&self) -> u32 {
        if self.kind == Fractal::None { 1 } else { clamp_octaves(self.octaves) }
    }

    /// Musgrave's raw value. `noise(i, scale)` is octave `i` in `[-1, 1]` at the position times
    /// `scale = lacunarityⁱ`. fBm's raw value sums layers mapped to `[0, 1]`. With `T = f32` the
    /// height; with [`Dual`](crate::field::dual::Dual) octaves (their gradients in the field's coordinates),
    /// the height and its exact gradient by the chain rule.
    #[inline(always)]
    pub fn raw<T: Octave>(&self, mut noise: impl FnMut(u32, f64) -> T) -> T {
        let octaves = self.octave_count();
        let (lacunarity, persistence, offset) = (self.lacunarity as f64, self.persistence, self.offset);
        let c = T::constant;
        let mut scale = 1.0f64;
        let mut amplitude = 1.0f32;
        match self.kind {
            Fractal::None => noise(0, 1.0).times(0.5).plus(0.5),
            Fractal::Fbm | Fractal::Billow => {
                let mut sum = c(0.0);
                for i in 0..octaves {
                    let n = noise(i, scale);
                    let layer = if self.kind == Fractal::Fbm { n.times(0.5).plus(0.5) } else { n.abs() };
                    sum = sum + layer.times(amplitude);
                    amplitude *= persistence;
                    scale *= lacunarity;
                }
                sum
            }
            Fractal::Ridged => {
                let mut signal = c(offset) - noise(0, 1.0).abs();
                signal = signal * signal;
                let mut result = signal;
                let mut weight = c(1.0);
                let mut i = 1;
                while weight.value() > WEIGHT_CUTOFF && i < octaves {
                    scale *= lacunarity;
                    amplitude *= persistence;
                    weight = signal.times(self.gain).clamp(0.0, 1.0);
                    signal = c(offset) - noise(i, scale).abs();
                    signal = signal * signal;
                    signal = signal * weight;
                    result = result + signal.times(amplitude);
                    i += 1;
                }
                result
            }
            Fractal::Hybrid => {
                let mut result = noise(0, 1.0) + c(offset);
                let mut weight = result;
                let mut i = 1;
                while weight.value() > WEIGHT_CUTOFF && i < octaves {
                    scale *= lacunarity;
                    amplitude *= persistence;
                    weight = weight.min_constant(1.0);
                    let signal = (noise(i, scale) + c(offset)).times(amplitude);
                    result = result + weight * signal;
                    weight = weight * signal;
                    i += 1;
                }
                result
            }
            Fractal::Hetero => {
                let mut value = c(offset) + noise(0, 1.0);
                for i in 1..octaves {
                    scale *= lacunarity;
                    amplitude *= persistence;
                    value = value + (noise(i, scale) + c(offset)).times(amplitude) * value;
                }
                value
            }
            // Without slopes nothing damps: the undamped sum (1-D profiles and 3-D volumes,
            // which have no gradients here).
            Fractal::Damped => {
                self.damped_sum(|i, scale| Sloped { value: noise(i, scale), slope: [c(0.0); 2] })
            }
        }
    }

    /// [`raw`](Self::raw) from octaves that come with their slopes: the damped fractal damps
    /// each octave by the slopes summed so far; every other kind uses the values alone.
    #[inline(always)]
    pub fn raw_with_slopes<T: Octave>(&self, mut noise: impl FnMut(u32, f64) -> Sloped<T>) -> T {
        match self.kind {
            Fractal::Damped => self.damped_sum(noise),
            Fractal::None
            | Fractal::Fbm
            | Fractal::Billow
            | Fractal::Ridged
            | Fractal::Hybrid
            | Fractal::Hetero => self.raw(|i, scale| noise(i, scale).value),
        }
    }

    /// The damped fractal's sum (see [`Fractal::Damped`]).
    #[inline(always)]
    fn damped_sum<T: Octave>(&self, mut noise: impl FnMut(u32, f64) -> Sloped<T>) -> T {
        let c = T::constant;
        let lacunarity = self.lacunarity as f64;
        let (mut scale, mut amplitude) = (1.0f64, 1.0f32);
        let (mut sum, mut slopes) = (c(0.0), [c(0.0); 2]);
        for i in 0..self.octave_count() {
            (sum, slopes) = damped_step(sum, slopes, noise(i, scale), self.damping, amplitude);
            amplitude *= self.persistence;
            scale *= lacunarity;
        }
        sum
    }

    /// Bounds of [`raw`](Self::raw) over all noise values in `[-1, 1]`, by interval arithmetic
    /// over the same loop (and over every octave the loop can stop after).
    pub fn raw_bounds(&self) -> (f32, f32) {
        let octaves = self.octave_count();
        let (p, offset) = (self.persistence, self.offset);
        let noise = Interval::new(-1.0, 1.0);
        let shifted = noise.add(Interval::new(offset, offset));
        let bounds = match self.kind {
            Fractal::None => Interval::new(0.0, 1.0),
            Fractal::Fbm => Interval::new(0.0, amplitude_sum(octaves, p)),
            Fractal::Billow => Interval::new(0.0, amplitude_sum(octaves, p)),
            Fractal::Ridged => {
                // (offset - |n|)² for |n| in [0, 1].
                let below = Interval::new(offset - 1.0, offset);
                let squared = if below.lo >= 0.0 {
                    below.mul(below)
                } else {
                    Interval::new(0.0, below.lo.abs().max(below.hi.abs()).powi(2))
                };
                let (mut signal, mut result, mut all) = (squared, squared, squared);
                let mut amplitude = 1.0;
                for _ in 1..octaves {
                    amplitude *= p;
                    let weight = signal.scale(self.gain).clamp(0.0, 1.0);
                    signal = squared.mul(weight);
                    result = result.add(signal.scale(amplitude));
                    all = all.hull(result);
                }
                all
            }
            Fractal::Hybrid => {
                let (mut result, mut weight) = (shifted, shifted);
                let mut all = result;
                let mut amplitude = 1.0;
                for _ in 1..octaves {
                    amplitude *= p;
                    let capped = weight.min_with(1.0);
                    let signal = shifted.scale(amplitude);
                    result = result.add(capped.mul(signal));
                    weight = capped.mul(signal);
                    all = all.hull(result);
                }
                all
            }
            Fractal::Hetero => {
                let mut value = shifted;
                let mut amplitude = 1.0;
                for _ in 1..octaves {
                    amplitude *= p;
                    value = value.mul(Interval::new(1.0, 1.0).add(shifted.scale(amplitude)));
                }
                value
            }
            // Each octave in [-1, 1] times a damping factor in (0, 1].
            Fractal::Damped => {
                let sum = amplitude_sum(octaves, p);
                Interval::new(-sum, sum)
            }
        };
        (bounds.lo, bounds.hi)
    }

    /// The fractal's height: [`raw`](Self::raw) mapped to `[0, 1]` (see [`Fractal`]). fBm and
    /// billow without normalisation return the raw sum, which reaches up to the amplitude sum.
    /// Computes the bounds each call: grids use [`raw_to_unit`](Self::raw_to_unit) once instead.
    pub fn evaluate(&self, noise: impl FnMut(u32, f64) -> f32) -> f32 {
        self.raw_to_unit().apply(self.raw(noise))
    }

    /// The map from raw values to heights, computed once per parameter set.
    pub fn raw_to_unit(&self) -> RawToUnit {
        let keep_raw = matches!(self.kind, Fractal::Fbm | Fractal::Billow) && !self.normalize;
        let (lo, hi) = self.raw_bounds();
        RawToUnit { lo, inv_range: if hi > lo { 1.0 / (hi - lo) } else { 0.0 }, keep_raw }
    }
}

/// One octave `n` of the damped fractal with amplitude `amplitude` and damping `k`: the sum and
/// the slopes so far, updated. The grid's row path runs the same step over whole rows.
#[inline(always)]
pub(crate) fn damped_step<T: Octave>(
    sum: T,
    slopes: [T; 2],
    n: Sloped<T>,
    k: f32,
    amplitude: f32,
) -> (T, [T; 2]) {
    let slopes = [slopes[0] + n.slope[0], slopes[1] + n.slope[1]];
    let steepness = slopes[0] * slopes[0] + slopes[1] * slopes[1];
    let damp = (steepness.times(k) + T::constant(1.0)).recip();
    (sum + (n.value * damp).times(amplitude), slopes)
}

/// Maps a fractal's raw value to `[0, 1]` by its bounds: see [`FractalParams::raw_to_unit`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RawToUnit {
    lo: f32,
    inv_range: f32,
    keep_raw: bool,
}

impl RawToUnit {
    /// The height for a raw value (`f32`), or the height and its gradient ([`Dual`](crate::field::dual::Dual)).
    #[inline(always)]
    pub fn apply<T: Octave>(&self, raw: T) -> T {
        if self.keep_raw { raw } else { (raw - T::constant(self.lo)).times(self.inv_range).clamp(0.0, 1.0) }
    }
}

impl RawToUnit {
    /// [`apply`](Self::apply) to every raw value of `raw`, written to `heights` (as long): the
    /// choice between keeping and mapping is made once, outside the loop, which then vectorises
    /// (inside, the compiler loaded the mapping's constants with gathers on every iteration).
    #[inline(always)]
    pub(crate) fn apply_to_row(&self, raw: &[f32], heights: &mut [std::mem::MaybeUninit<f32>]) {
        let pairs = heights.iter_mut().zip(raw);
        if self.keep_raw {
            pairs.for_each(|(h, &raw)| _ = h.write(raw));
        } else {
            let (lo, inv_range) = (self.lo, self.inv_range);
            pairs.for_each(|(h, &raw)| _ = h.write(((raw - lo) * inv_range).clamp(0.0, 1.0)));
        }
    }

    /// The factor from a raw value's slope to the height's (where the height is not clamped).
    #[inline(always)]
    pub(crate) fn slope_scale(&self) -> f32 {
        if self.keep_raw { 1.0 } else { self.inv_range }
    }
}

/// One octave in `[-1, 1]` with its gradient and its second derivatives `[xx, xy, yy]` per lattice
/// unit of its own: what the erosion filter's slope takes of the coarse octaves of fBm, billow or
/// a single layer. The point path and the grid's rows add octaves with [`add_to`](Self::add_to)
/// alone, so they agree bit for bit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct OctaveJet {
    pub(crate) value: f32,
    pub(crate) gradient: [f32; 2],
    pub(crate) hessian: [f32; 3],
}

impl OctaveJet {
    /// The slope `[∂/∂x, ∂/∂y]` per map unit and its derivatives `[xx, xy, yy]` per map unit² of
    /// the raw sum of `kind` with this octave of amplitude `amplitude` added (`per` map units per
    /// lattice unit of the octave). Only fBm, billow and a single layer.
    #[inline(always)]
    pub(crate) fn add_to(
        self,
        kind: Fractal,
        amplitude: f32,
        per: f32,
        (slope, hessian): ([f32; 2], [f32; 3]),
    ) -> ([f32; 2], [f32; 3]) {
        let factor = match kind {
            Fractal::None => 0.5,
            Fractal::Billow => {
                if self.value < 0.0 {
                    -amplitude
                } else {
                    amplitude
                }
            }
            Fractal::Fbm | Fractal::Ridged | Fractal::Hybrid | Fractal::Hetero | Fractal::Damped => {
                0.5 * amplitude
            }
        };
        let (once, twice) = (per * factor, per * per * factor);
        (
            [slope[0] + self.gradient[0] * once, slope[1] + self.gradient[1] * once],
            [0, 1, 2].map(|c| hessian[c] + self.hessian[c] * twice),
        )
    }
}

/// Clamps an octave count to `MIN_OCTAVES..=MAX_OCTAVES`.
pub(crate) fn clamp_octaves(octaves: u32) -> u32 {
    octaves.clamp(MIN_OCTAVES, MAX_OCTAVES)
}

/// The seed of octave `i`: `seed + 1013·i`, wrapping.
#[inline(always)]
pub(crate) fn octave_seed(seed: u32, i: u32) -> u32 {
    seed.wrapping_add(OCTAVE_SEED_STEP.wrapping_mul(i))
}

/// `Σ persistenceⁱ` for `i` in `0..octaves` (octaves clamped): the largest fBm sum of `[0, 1]`
/// layers, which normalisation divides by. `amplitude_sum(5, 0.5) == 1.9375`.
pub fn amplitude_sum(octaves: u32, persistence: f32) -> f32 {
    let mut amplitude = 1.0;
    let mut sum = 0.0;
    for _ in 0..clamp_octaves(octaves) {
        sum += amplitude;
        amplitude *= persistence;
    }
    sum
}

/// The lattice period of octave `i` when the base octave repeats every `period` cells.
///
/// With integer lacunarity `L` this is `period · Lⁱ`, so every octave keeps the field's period and
/// the sum tiles exactly. With a fractional lacunarity it is `round(period · Lⁱ)` and the octaves
/// only approximately share a period. `None` when the period does not fit an `i32` lattice.
pub(crate) fn octave_period(period: Option<u32>, lacunarity: f32, i: u32) -> Option<u32> {
    let p = period.filter(|&p| p > 0)? as f64;
    let scaled = (p * (lacunarity as f64).powi(i as i32)).round();
    (scaled >= 1.0 && scaled <= i32::MAX as f64).then_some(scaled as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amplitude_sum_is_the_sum_of_the_octaves_amplitudes() {
        assert_eq!(amplitude_sum(5, 0.5), 1.9375);
        assert_eq!(amplitude_sum(1, 0.9), 1.0);
        assert_eq!(amplitude_sum(0, 0.5), 1.0, "octaves are clamped to at least one");
        assert_eq!(amplitude_sum(1000, 0.5), amplitude_sum(MAX_OCTAVES, 0.5));
    }

    fn params(kind: Fractal) -> FractalParams {
        FractalParams {
            kind,
            octaves: 5,
            lacunarity: 2.0,
            persistence: 0.5,
            normalize: true,
            offset: 1.0,
            gain: 2.0,
            damping: 1.0,
        }
    }

    #[test]
    fn fbm_of_constant_layers_is_the_amplitude_sum() {
        let fbm = params(Fractal::Fbm);
        assert_eq!(fbm.raw(|_, _| 1.0), 1.9375);
        assert_eq!(fbm.evaluate(|_, _| 1.0), 1.0);
        assert_eq!(FractalParams { normalize: false, ..fbm }.evaluate(|_, _| 1.0), 1.9375);
    }

    #[test]
    fn octaves_get_their_index_and_scale() {
        let mut seen = Vec::new();
        FractalParams { lacunarity: 3.0, octaves: 4, ..params(Fractal::Fbm) }.raw(|i, scale| {
            seen.push((i, scale));
            0.0
        });
        assert_eq!(seen, vec![(0, 1.0), (1, 3.0), (2, 9.0), (3, 27.0)]);
    }

    #[test]
    fn bounds_hold_for_extreme_noise_sequences() {
        // Every octave at -1, 0 or +1, in all 3^5 combinations, for many parameter sets.
        let mut rng = crate::test_support::SplitMix(77);
        for _ in 0..300 {
            for kind in Fractal::ALL {
                let p = FractalParams {
                    kind,
                    octaves: 5,
                    lacunarity: 2.0,
                    persistence: rng.range(0.0, 1.0) as f32,
                    normalize: true,
                    offset: rng.range(0.0, 2.0) as f32,
                    gain: rng.range(0.0, 4.0) as f32,
                    damping: rng.range(0.0, 8.0) as f32,
                };
                let (lo, hi) = p.raw_bounds();
                for code in 0..243u32 {
                    let raw = p.raw(|i, _| ((code / 3u32.pow(i)) % 3) as f32 - 1.0);
                    assert!(raw >= lo - 1e-4 && raw <= hi + 1e-4, "{p:?}: {raw} outside {lo}..{hi}");
                    // With slopes too (only the damped fractal reads them): any slopes at all.
                    let slope = rng.range(-50.0, 50.0) as f32;
                    let raw = p.raw_with_slopes(|i, _| Sloped {
                        value: ((code / 3u32.pow(i)) % 3) as f32 - 1.0,
                        slope: [slope * i as f32, -slope],
                    });
                    assert!(raw >= lo - 1e-4 && raw <= hi + 1e-4, "{p:?}: {raw} outside {lo}..{hi}");
                }
            }
        }
    }

    #[test]
    fn damping_divides_each_octave_by_the_steepness_so_far() {
        let p = FractalParams { octaves: 3, damping: 0.5, ..params(Fractal::Damped) };
        // Octave slopes (1, 0), (0, 2), (1, 0): sums (1, 0), (1, 2), (2, 2); |.|² 1, 5, 8.
        let slopes = [[1.0, 0.0], [0.0, 2.0], [1.0, 0.0]];
        let raw = p.raw_with_slopes(|i, _| Sloped { value: 1.0, slope: slopes[i as usize] });
        let expected = 1.0 / 1.5 + 0.5 / 3.5 + 0.25 / 5.0;
        assert!((raw - expected).abs() < 1e-6, "{raw} vs {expected}");
        // No damping, or no slopes: the plain sum of signed octaves.
        let plain = |i: u32| [0.3, -0.7, 0.9][i as usize];
        let undamped = FractalParams { damping: 0.0, ..p }
            .raw_with_slopes(|i, _| Sloped { value: plain(i), slope: slopes[i as usize] });
        assert_eq!(undamped, 0.3 - 0.7 * 0.5 + 0.9 * 0.25);
        assert_eq!(p.raw(|i, _| plain(i)), undamped);
    }

    /// Octave `i` of the test field at a point already multiplied by the octave's frequency.
    fn noise(i: u32, x: f64, y: f64) -> f32 {
        use crate::field::basis::{Lattice, gradient_2d_noise};
        gradient_2d_noise(&Lattice::new(octave_seed(7, i), crate::Fade::Quintic), x, y)
    }

    /// Musgrave's three multifractals as printed in "Texturing and Modeling" (2nd ed., ch. 16),
    /// with `exponent_array[i] = lacunarity^(-i·H)`, written independently of `raw`.
    #[allow(clippy::too_many_arguments)]
    fn musgrave(
        kind: Fractal,
        x: f64,
        y: f64,
        h: f64,
        lacunarity: f64,
        octaves: u32,
        offset: f64,
        gain: f64,
    ) -> f64 {
        let exponent: Vec<f64> = (0..octaves).map(|i| lacunarity.powf(-(i as f64) * h)).collect();
        let (mut px, mut py) = (x, y);
        match kind {
            Fractal::Ridged => {
                let mut signal = offset - (noise(0, px, py) as f64).abs();
                signal *= signal;
                let mut result = signal;
                let mut weight;
                let mut i = 1;
                while i < octaves {
                    px *= lacunarity;
                    py *= lacunarity;
                    weight = (signal * gain).clamp(0.0, 1.0);
                    if weight <= 0.001 {
                        break;
                    }
                    signal = offset - (noise(i, px, py) as f64).abs();
                    signal *= signal;
                    signal *= weight;
                    result += signal * exponent[i as usize];
                    i += 1;
                }
                result
            }
            Fractal::Hybrid => {
                let mut result = (noise(0, px, py) as f64 + offset) * exponent[0];
                let mut weight = result;
                px *= lacunarity;
                py *= lacunarity;
                let mut i = 1;
                while weight > 0.001 && i < octaves {
                    if weight > 1.0 {
                        weight = 1.0;
                    }
                    let signal = (noise(i, px, py) as f64 + offset) * exponent[i as usize];
                    result += weight * signal;
                    weight *= signal;
                    px *= lacunarity;
                    py *= lacunarity;
                    i += 1;
                }
                result
            }
            Fractal::Hetero => {
                let mut value = offset + noise(0, px, py) as f64;
                px *= lacunarity;
                py *= lacunarity;
                for i in 1..octaves {
                    let increment = (noise(i, px, py) as f64 + offset) * exponent[i as usize] * value;
                    value += increment;
                    px *= lacunarity;
                    py *= lacunarity;
                }
                value
            }
            Fractal::None | Fractal::Fbm | Fractal::Billow | Fractal::Damped => {
                unreachable!("not one of Musgrave's multifractals")
            }
        }
    }

    #[test]
    fn multifractals_match_musgraves_formulas() {
        let mut rng = crate::test_support::SplitMix(5);
        for (h, lacunarity) in [(1.0, 2.0), (0.8, 2.2), (0.25, 1.9)] {
            for (kind, offset, gain) in
                [(Fractal::Ridged, 1.0, 2.0), (Fractal::Hybrid, 0.7, 0.0), (Fractal::Hetero, 0.8, 0.0)]
            {
                let p = FractalParams {
                    kind,
                    octaves: 7,
                    lacunarity,
                    persistence: (lacunarity as f64).powf(-h) as f32,
                    normalize: true,
                    offset,
                    gain,
                    damping: 0.0,
                };
                for _ in 0..2000 {
                    let (x, y) = (rng.range(-50.0, 50.0), rng.range(-50.0, 50.0));
                    let ours = p.raw(|i, scale| noise(i, x * scale, y * scale));
                    let reference = musgrave(kind, x, y, h, lacunarity as f64, 7, offset as f64, gain as f64);
                    assert!(
                        (ours as f64 - reference).abs() < 1e-5 * reference.abs().max(1.0),
                        "{kind:?}: {ours} vs {reference}"
                    );
                    let height = p.evaluate(|i, scale| noise(i, x * scale, y * scale));
                    assert!((0.0..=1.0).contains(&height));
                }
            }
        }
    }

    #[test]
    fn octave_seeds_step_by_1013() {
        assert_eq!(octave_seed(7, 0), 7);
        assert_eq!(octave_seed(7, 3), 7 + 3 * 1013);
        assert_eq!(octave_seed(u32::MAX, 1), 1012);
    }

    #[test]
    fn integer_lacunarity_keeps_the_period() {
        assert_eq!(octave_period(Some(4), 2.0, 3), Some(32));
        assert_eq!(octave_period(Some(4), 3.0, 2), Some(36));
        assert_eq!(octave_period(None, 2.0, 3), None);
        assert_eq!(octave_period(Some(0), 2.0, 3), None);
        assert_eq!(octave_period(Some(1 << 30), 2.0, 11), None);
    }
}
