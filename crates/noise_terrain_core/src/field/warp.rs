//! Domain warp (offset turbulence): the sample position is displaced by a secondary
//! noise per axis before the field is evaluated.

use crate::clamp::clamp_or;
use crate::field::basis::gradient::gradient_2d_with_gradient;
use crate::field::basis::{Lattice, gradient_2d_noise};
use crate::field::coord::sanitize;
use crate::field::dual::Octave;
use crate::field::fade::Fade;
use crate::field::fractal::{amplitude_sum, octave_period, octave_seed};

/// The most octaves of warp noise.
pub const MAX_WARP_OCTAVES: u32 = 8;
/// Warp amplitude is clamped to `[0, MAX_WARP_AMPLITUDE]` lattice cells.
pub const MAX_WARP_AMPLITUDE: f32 = 100.0;
/// Warp frequency (relative to the field's base frequency) is clamped to this range.
pub const WARP_FREQUENCY_RANGE: (f32, f32) = (1e-3, 1e3);

/// Seeds of the two displacement fields, far from the field's own octave seeds.
const SEED_X: u32 = 0x6A09_E667;
const SEED_Y: u32 = 0xBB67_AE85;

/// How the sample position is displaced.
///
/// Each axis is moved by `amplitude · d`, with `d` in `[-1, 1]` a normalised gradient-noise fBm
/// (lacunarity 2, persistence 0.5) at `frequency` times the field's base frequency. Amplitude is in
/// lattice cells of the base frequency: 1 moves a point by up to one cell ("100%"); values well
/// above 1 fold the field into swirls and stay finite.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct Warp {
    /// Displacement in base lattice cells, `[0, 100]`; 0 turns the warp off.
    pub amplitude: f32,
    /// Frequency of the warp noise relative to the field's base frequency, `[0.001, 1000]`.
    pub frequency: f32,
    /// Octaves of warp noise, `1..=8`.
    pub octaves: u32,
}

impl Default for Warp {
    fn default() -> Self {
        Self { amplitude: 0.0, frequency: 1.0, octaves: 1 }
    }
}

impl Warp {
    /// The warp with every parameter in range (NaN becomes the default).
    pub fn clamped(&self) -> Self {
        Self {
            amplitude: clamp_or(self.amplitude, (0.0, MAX_WARP_AMPLITUDE), 0.0),
            frequency: clamp_or(self.frequency, WARP_FREQUENCY_RANGE, 1.0),
            octaves: self.octaves.clamp(1, MAX_WARP_OCTAVES),
        }
    }

    /// Whether the warp moves anything.
    pub fn is_active(&self) -> bool {
        self.amplitude > 0.0
    }

    /// One displacement component in `[-1, 1]` at `(x, y)` in warp-lattice units: `noise` is
    /// gradient noise, plain or with its gradient.
    #[inline(always)]
    fn component<T: Octave>(
        &self,
        seed: u32,
        period: Option<u32>,
        (x, y): (f64, f64),
        noise: impl Fn(&Lattice, f64, f64) -> T,
    ) -> T {
        let mut sum = T::constant(0.0);
        let (mut amplitude, mut scale) = (1.0f32, 1.0f64);
        for i in 0..self.octaves {
            let lattice = Lattice {
                period: octave_period(period, 2.0, i),
                ..Lattice::new(octave_seed(seed, i), Fade::Quintic)
            };
            sum = sum + noise(&lattice, x * scale, y * scale).at_scale(scale as f32).times(amplitude);
            amplitude *= 0.5;
            scale *= 2.0;
        }
        sum.divided_by(amplitude_sum(self.octaves, 0.5))
    }

    /// The displaced position of `(x, y)` (in base lattice units) for a field with `seed` and
    /// lattice `period`: each axis moves by at most the (clamped) amplitude. The warp tiles with
    /// the field when `period · frequency` is an integer. Out-of-range parameters are clamped
    /// first (see [`clamped`](Self::clamped)).
    #[inline]
    pub fn displace(&self, seed: u32, period: Option<u32>, x: f64, y: f64) -> (f64, f64) {
        let ((x, y), _) = self.displace_with(seed, period, x, y, gradient_2d_noise);
        (x, y)
    }

    /// [`displace`](Self::displace) and its Jacobian `[[∂x'/∂x, ∂x'/∂y], [∂y'/∂x, ∂y'/∂y]]`.
    pub fn displace_with_jacobian(
        &self,
        seed: u32,
        period: Option<u32>,
        x: f64,
        y: f64,
    ) -> ((f64, f64), [[f32; 2]; 2]) {
        let ((x, y), moves) = self.displace_with(seed, period, x, y, gradient_2d_with_gradient);
        let a = self.clamped().amplitude;
        let jacobian = match moves {
            Some([dx, dy]) => [
                [1.0 + a * dx.gradient[0], a * dx.gradient[1]],
                [a * dy.gradient[0], 1.0 + a * dy.gradient[1]],
            ],
            None => [[1.0, 0.0], [0.0, 1.0]],
        };
        ((x, y), jacobian)
    }

    /// The displaced position and the two displacement components (`None` without a warp),
    /// with `noise` plain or with its gradient.
    #[inline(always)]
    fn displace_with<T: Octave>(
        &self,
        seed: u32,
        period: Option<u32>,
        x: f64,
        y: f64,
        noise: impl Fn(&Lattice, f64, f64) -> T,
    ) -> ((f64, f64), Option<[T; 2]>) {
        let w = self.clamped();
        if !w.is_active() {
            return ((x, y), None);
        }
        let (x, y) = (sanitize(x), sanitize(y));
        let f = w.frequency as f64;
        let period = period.and_then(|p| {
            let cells = p as f64 * f;
            (cells >= 1.0 && (cells - cells.round()).abs() < 1e-9).then_some(cells.round() as u32)
        });
        let (wx, wy) = (x * f, y * f);
        let a = w.amplitude as f64;
        // Sampled at the position times f: the gradients per base lattice unit are f times those
        // per warp lattice unit.
        let dx = w.component(seed.wrapping_add(SEED_X), period, (wx, wy), &noise).at_scale(f as f32);
        let dy = w.component(seed.wrapping_add(SEED_Y), period, (wx, wy), &noise).at_scale(f as f32);
        ((x + a * dx.value() as f64, y + a * dy.value() as f64), Some([dx, dy]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_amplitude_is_the_identity() {
        let w = Warp { amplitude: 0.0, frequency: 3.0, octaves: 4 };
        assert_eq!(w.displace(1, None, 0.123, -4.5), (0.123, -4.5));
    }

    #[test]
    fn displacement_is_bounded_by_the_amplitude() {
        let w = Warp { amplitude: 2.5, frequency: 0.7, octaves: 3 };
        let mut moved = 0;
        for k in 0..10_000 {
            let (x, y) = (k as f64 * 0.0137, k as f64 * -0.0071);
            let (wx, wy) = w.displace(9, None, x, y);
            assert!((wx - x).abs() <= 2.5 + 1e-9 && (wy - y).abs() <= 2.5 + 1e-9);
            moved += ((wx - x).abs() > 0.1) as u32;
        }
        assert!(moved > 1000, "the warp barely moves points: {moved}");
    }

    #[test]
    fn clamping_handles_bad_numbers() {
        let w = Warp { amplitude: f32::INFINITY, frequency: f32::NAN, octaves: 0 }.clamped();
        assert_eq!(w, Warp { amplitude: MAX_WARP_AMPLITUDE, frequency: 1.0, octaves: 1 });
        let (x, y) = w.displace(0, None, 1e12, f64::NAN);
        assert!(x.is_finite() && y.is_finite());
    }

    #[test]
    fn an_unclamped_warp_is_clamped_inside() {
        // u32::MAX octaves would loop for minutes, and an amplitude of 1e6 moves points a million
        // cells: both are clamped, so the move stays within the largest amplitude and equals the
        // clamped warp's.
        let wild = Warp { amplitude: 1e6, frequency: 1e9, octaves: u32::MAX };
        let (x, y) = wild.displace(3, None, 0.3, 0.7);
        assert!((x - 0.3).abs() <= MAX_WARP_AMPLITUDE as f64 && (y - 0.7).abs() <= MAX_WARP_AMPLITUDE as f64);
        assert_eq!((x, y), wild.clamped().displace(3, None, 0.3, 0.7));
    }
}
