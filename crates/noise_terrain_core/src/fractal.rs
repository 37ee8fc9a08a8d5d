//! Fractal sums of a basis: octaves of rising frequency and falling amplitude (seed 000, seed 002).

/// The fewest octaves a fractal sums.
pub const MIN_OCTAVES: u32 = 1;
/// The most octaves a fractal sums: past this an octave is finer than any map we can generate
/// (2^11 times the base frequency at lacunarity 2) and adds only flicker.
pub const MAX_OCTAVES: u32 = 12;
/// How much the seed moves per octave, so that no octave is a compressed copy of another.
pub const OCTAVE_SEED_STEP: u32 = 1013;

/// How the octaves of a field are combined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum Fractal {
    /// One layer of the basis at the base frequency; the octave settings are ignored.
    None,
    /// Fractal Brownian motion: `Σ persistenceⁱ · basis(p · lacunarityⁱ)`.
    #[default]
    Fbm,
}

impl Fractal {
    /// Every fractal, in the order of the inspector's chips.
    pub const ALL: [Fractal; 2] = [Fractal::None, Fractal::Fbm];

    /// Short lower-case name, as the export tool's `--fractal` flag spells it.
    pub fn name(self) -> &'static str {
        match self {
            Fractal::None => "none",
            Fractal::Fbm => "fbm",
        }
    }
}

impl std::str::FromStr for Fractal {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Fractal::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| format!("unknown fractal `{s}` (expected none or fbm)"))
    }
}

/// Clamps an octave count to `MIN_OCTAVES..=MAX_OCTAVES`.
pub fn clamp_octaves(octaves: u32) -> u32 {
    octaves.clamp(MIN_OCTAVES, MAX_OCTAVES)
}

/// The seed of octave `i`: `seed + 1013·i`, wrapping.
#[inline(always)]
pub fn octave_seed(seed: u32, i: u32) -> u32 {
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
pub fn octave_period(period: Option<u32>, lacunarity: f32, i: u32) -> Option<u32> {
    let p = period.filter(|&p| p > 0)? as f64;
    let scaled = (p * (lacunarity as f64).powi(i as i32)).round();
    (scaled >= 1.0 && scaled <= i32::MAX as f64).then_some(scaled as u32)
}

/// Sums `octaves` layers as fBm. `layer(i, scale)` returns octave `i` in `[0, 1]` at the position
/// multiplied by `scale = lacunarityⁱ`. With `normalize` the result is divided by
/// [`amplitude_sum`] and stays in `[0, 1]`; without, it reaches up to that sum (seed 000's
/// overflow).
#[inline(always)]
pub fn fbm(
    octaves: u32,
    lacunarity: f32,
    persistence: f32,
    normalize: bool,
    mut layer: impl FnMut(u32, f64) -> f32,
) -> f32 {
    let mut sum = 0.0;
    let mut amplitude = 1.0f32;
    let mut amplitudes = 0.0;
    let mut scale = 1.0f64;
    for i in 0..clamp_octaves(octaves) {
        sum += amplitude * layer(i, scale);
        amplitudes += amplitude;
        amplitude *= persistence;
        scale *= lacunarity as f64;
    }
    if normalize { sum / amplitudes } else { sum }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amplitude_sum_matches_seed_000() {
        assert_eq!(amplitude_sum(5, 0.5), 1.9375);
        assert_eq!(amplitude_sum(1, 0.9), 1.0);
        assert_eq!(amplitude_sum(0, 0.5), 1.0, "octaves are clamped to at least one");
        assert_eq!(amplitude_sum(1000, 0.5), amplitude_sum(MAX_OCTAVES, 0.5));
    }

    #[test]
    fn fbm_of_constant_layers_is_the_amplitude_sum() {
        assert_eq!(fbm(5, 2.0, 0.5, false, |_, _| 1.0), 1.9375);
        assert_eq!(fbm(5, 2.0, 0.5, true, |_, _| 1.0), 1.0);
    }

    #[test]
    fn fbm_passes_octave_index_and_scale() {
        let mut seen = Vec::new();
        fbm(4, 3.0, 0.5, false, |i, scale| {
            seen.push((i, scale));
            0.0
        });
        assert_eq!(seen, vec![(0, 1.0), (1, 3.0), (2, 9.0), (3, 27.0)]);
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
