//! Interpolation curves that blend the corner contributions of a lattice cell.

/// How the fractional position inside a lattice cell is bent before blending the corners.
///
/// The curve decides whether the lattice shows: a curve whose slope is not zero at the cell border
/// leaves a visible crease there: pyramids and diamonds in value noise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum Fade {
    /// Truncation: always the lower corner (`0`). Blocky and discontinuous at every cell border.
    Step,
    /// `t`: continuous, but the slope jumps at every border, so the grid shows as creases.
    Linear,
    /// `t²(3 - 2t)`: slope 0 at both ends, curvature ±6 there.
    Cubic,
    /// `t³(t(6t - 15) + 10)`: slope and curvature 0 at both ends. The default.
    #[default]
    Quintic,
    /// `(1 - cos(πt)) / 2`: slope 0 at both ends, curvature ±π²/2 there.
    Cosine,
}

impl Fade {
    /// Every curve, in the order of the inspector's chips.
    pub const ALL: [Fade; 5] = [Fade::Step, Fade::Linear, Fade::Cubic, Fade::Quintic, Fade::Cosine];

    /// Applies the curve to `t` in `[0, 1]`; every curve maps 0 to 0 and (but for `Step`) 1 to 1.
    #[inline(always)]
    pub fn apply(self, t: f32) -> f32 {
        match self {
            Fade::Step => 0.0,
            Fade::Linear => t,
            Fade::Cubic => t * t * (3.0 - 2.0 * t),
            Fade::Quintic => t * t * t * (t * (t * 6.0 - 15.0) + 10.0),
            Fade::Cosine => (1.0 - (std::f32::consts::PI * t).cos()) * 0.5,
        }
    }

    /// The curve's slope at `t` in `[0, 1]`: what a point's movement inside a cell is multiplied
    /// by. `Step` is flat between its jumps.
    #[inline(always)]
    pub fn derivative(self, t: f32) -> f32 {
        match self {
            Fade::Step => 0.0,
            Fade::Linear => 1.0,
            Fade::Cubic => 6.0 * t * (1.0 - t),
            Fade::Quintic => 30.0 * t * t * (t * (t - 2.0) + 1.0),
            Fade::Cosine => std::f32::consts::FRAC_PI_2 * (std::f32::consts::PI * t).sin(),
        }
    }

    /// The curve's second derivative at `t` in `[0, 1]` (its curvature), for second derivatives
    /// of the noise. `Step` and `Linear` have none between their creases.
    #[inline(always)]
    pub fn second_derivative(self, t: f32) -> f32 {
        match self {
            Fade::Step | Fade::Linear => 0.0,
            Fade::Cubic => 6.0 - 12.0 * t,
            Fade::Quintic => 60.0 * t * (t * (2.0 * t - 3.0) + 1.0),
            Fade::Cosine => {
                std::f32::consts::PI * std::f32::consts::FRAC_PI_2 * (std::f32::consts::PI * t).cos()
            }
        }
    }

    /// Applies the curve to every element of `t` (written so that each curve's loop vectorises).
    #[inline(always)]
    pub fn apply_slice(self, t: &[f32], out: &mut [f32]) {
        match self {
            Fade::Step => out.iter_mut().for_each(|o| *o = Fade::Step.apply(0.0)),
            Fade::Linear => out.iter_mut().zip(t).for_each(|(o, &t)| *o = Fade::Linear.apply(t)),
            Fade::Cubic => out.iter_mut().zip(t).for_each(|(o, &t)| *o = Fade::Cubic.apply(t)),
            Fade::Quintic => out.iter_mut().zip(t).for_each(|(o, &t)| *o = Fade::Quintic.apply(t)),
            Fade::Cosine => out.iter_mut().zip(t).for_each(|(o, &t)| *o = Fade::Cosine.apply(t)),
        }
    }

    /// [`apply`](Self::apply) and [`derivative`](Self::derivative) of every element of `t`, in one
    /// loop per curve that vectorises.
    #[inline(always)]
    pub fn apply_and_derivative_slice(self, t: &[f32], out: &mut [f32], slope: &mut [f32]) {
        let both = |fade: Fade, out: &mut [f32], slope: &mut [f32]| {
            for ((o, d), &t) in out.iter_mut().zip(slope.iter_mut()).zip(t) {
                (*o, *d) = (fade.apply(t), fade.derivative(t));
            }
        };
        match self {
            Fade::Step => both(Fade::Step, out, slope),
            Fade::Linear => both(Fade::Linear, out, slope),
            Fade::Cubic => both(Fade::Cubic, out, slope),
            Fade::Quintic => both(Fade::Quintic, out, slope),
            Fade::Cosine => both(Fade::Cosine, out, slope),
        }
    }

    /// [`apply`](Self::apply), [`derivative`](Self::derivative) and
    /// [`second_derivative`](Self::second_derivative) of every element of `t`, in one loop per
    /// curve that vectorises.
    #[inline(always)]
    pub fn curves_slice(self, t: &[f32], [out, slope, curvature]: [&mut [f32]; 3]) {
        let all = |fade: Fade, out: &mut [f32], slope: &mut [f32], curvature: &mut [f32]| {
            for (((o, d), c), &t) in out.iter_mut().zip(slope.iter_mut()).zip(curvature.iter_mut()).zip(t) {
                (*o, *d, *c) = (fade.apply(t), fade.derivative(t), fade.second_derivative(t));
            }
        };
        match self {
            Fade::Step => all(Fade::Step, out, slope, curvature),
            Fade::Linear => all(Fade::Linear, out, slope, curvature),
            Fade::Cubic => all(Fade::Cubic, out, slope, curvature),
            Fade::Quintic => all(Fade::Quintic, out, slope, curvature),
            Fade::Cosine => all(Fade::Cosine, out, slope, curvature),
        }
    }

    /// The largest slope of the curve on `[0, 1]`; infinite for `Step`, which jumps.
    ///
    /// Noise built with the curve changes by at most this factor times the corner spread per unit
    /// of movement, which is what the continuity tests hold the noise to.
    pub fn max_slope(self) -> f32 {
        match self {
            Fade::Step => f32::INFINITY,
            Fade::Linear => 1.0,
            Fade::Cubic => 1.5,
            Fade::Quintic => 1.875,
            Fade::Cosine => std::f32::consts::FRAC_PI_2,
        }
    }

    /// Short lower-case name, as the export tool's `--fade` flag spells it.
    pub fn name(self) -> &'static str {
        match self {
            Fade::Step => "step",
            Fade::Linear => "linear",
            Fade::Cubic => "cubic",
            Fade::Quintic => "quintic",
            Fade::Cosine => "cosine",
        }
    }
}

crate::field::names::parse_by_name!(Fade);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivatives_match_central_differences() {
        for fade in Fade::ALL.into_iter().filter(|&f| f != Fade::Step) {
            for k in 1..100 {
                let t = k as f32 / 100.0;
                let h = 1e-3;
                let numeric = (fade.apply(t + h) - fade.apply(t - h)) / (2.0 * h);
                assert!((fade.derivative(t) - numeric).abs() < 2e-3, "{fade:?} at {t}");
            }
        }
        assert_eq!(Fade::Step.derivative(0.3), 0.0);
    }

    #[test]
    fn second_derivatives_match_differences_of_the_slope() {
        for fade in Fade::ALL {
            for k in 1..100 {
                let t = k as f32 / 100.0;
                let h = 1e-3;
                let numeric = (fade.derivative(t + h) - fade.derivative(t - h)) / (2.0 * h);
                assert!((fade.second_derivative(t) - numeric).abs() < 1e-2, "{fade:?} at {t}");
            }
        }
    }

    const SMOOTH: [Fade; 3] = [Fade::Cubic, Fade::Quintic, Fade::Cosine];

    fn slope(f: Fade, t: f32) -> f64 {
        let h = 1e-3;
        (f.apply(t + h) as f64 - f.apply(t - h) as f64) / (2.0 * h as f64)
    }

    #[test]
    fn curves_end_at_zero_and_one() {
        for f in Fade::ALL {
            assert_eq!(f.apply(0.0), 0.0, "{f:?}");
        }
        for f in [Fade::Linear, Fade::Cubic, Fade::Quintic, Fade::Cosine] {
            assert!((f.apply(1.0) - 1.0).abs() < 1e-6, "{f:?}");
        }
    }

    #[test]
    fn smooth_curves_have_zero_slope_at_both_ends() {
        for f in SMOOTH {
            // One-sided difference quotients shrink with h only if the slope is 0.
            let at_start = f.apply(1e-3) / 1e-3;
            let at_end = (1.0 - f.apply(1.0 - 1e-3)) / 1e-3;
            assert!(at_start < 0.01 && at_end < 0.01, "{f:?}: {at_start} {at_end}");
        }
        assert!((slope(Fade::Linear, 0.5) - 1.0).abs() < 1e-3);
    }

    #[test]
    fn only_quintic_has_zero_curvature_at_the_ends() {
        // With f(0) = f'(0) = 0, the curvature at 0 is the limit of 2 f(h) / h².
        let curvature_at_start = |f: Fade| 2.0 * f.apply(0.01) / 1e-4;
        assert!(curvature_at_start(Fade::Quintic) < 0.25);
        assert!((curvature_at_start(Fade::Cubic) - 6.0).abs() < 0.1);
        assert!((curvature_at_start(Fade::Cosine) - 4.93).abs() < 0.05);
    }

    #[test]
    fn quintic_is_about_a_thirtieth_of_cubic_at_one_hundredth() {
        let ratio = Fade::Cubic.apply(0.01) / Fade::Quintic.apply(0.01);
        assert!((28.0..=31.0).contains(&ratio), "ratio {ratio}");
    }

    #[test]
    fn max_slope_bounds_the_measured_slope() {
        for f in [Fade::Linear, Fade::Cubic, Fade::Quintic, Fade::Cosine] {
            let measured = (1..1000).map(|i| slope(f, i as f32 / 1000.0)).fold(0.0, f64::max);
            assert!(measured <= f.max_slope() as f64 + 1e-3, "{f:?}");
            assert!(measured >= f.max_slope() as f64 - 1e-2, "{f:?} bound is loose");
        }
    }

    #[test]
    fn names_round_trip() {
        for f in Fade::ALL {
            assert_eq!(f.name().parse::<Fade>(), Ok(f));
        }
        assert!("smooth".parse::<Fade>().is_err());
    }
}
