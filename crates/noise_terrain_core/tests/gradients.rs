//! `NoiseSettings::sample_with_gradient` against central differences, for every basis × fade ×
//! fractal, with and without the domain warp. At a crease (where the two one-sided differences
//! disagree) the analytic gradient must match one side.
//!
//! The full run, 10^5 points per combination, is
//! `cargo test --release -p noise_terrain_core --test gradients -- --ignored`.

use noise_terrain_core::basis::{DistanceMetric, Worley, WorleyReturn};
use noise_terrain_core::{Basis, Fade, Fractal, GradientKernel, NoiseSettings, Warp};

/// A small deterministic generator of points in `[-5, 5]²`.
fn points(n: usize, seed: u64) -> impl Iterator<Item = (f64, f64)> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 10.0 - 5.0
    };
    (0..n).map(move |_| (next(), next()))
}

/// Worley's metric and return for a combination: every metric and every return in turn.
fn worley_for(a: usize, b: usize) -> Worley {
    Worley {
        metric: DistanceMetric::ALL[(a + b) % DistanceMetric::ALL.len()],
        return_type: WorleyReturn::ALL[(a + 3 * b) % WorleyReturn::ALL.len()],
        ..Default::default()
    }
}

/// Checks one partial derivative along a line through a point: `field(t)` is the field `t` map
/// units along the axis, `slope(t)` the analytic derivative there, `h` the step and `unit` the
/// slopes' order of magnitude (half the frequency). Passes when the analytic slope matches the
/// central difference within 1e-2 relative; else (a crease or a jump within the step) when it is
/// one side's slope over a sixteenth of the step (less precise in f32, so twice the tolerance),
/// or, where creases crowd, when the difference across the step is the mean of the analytic slope
/// over it (the field is continuous but for the step fade's jumps, which the one-sided test
/// catches). Returns whether the point was a crease; `what` names it in the failure.
fn check_slope(
    field: impl Fn(f64) -> f32,
    slope: impl Fn(f64) -> f32,
    (h, unit): (f64, f64),
    what: impl Fn() -> String,
) -> bool {
    let within = |numeric: f64, value: f64, tolerance: f64| {
        (value - numeric).abs() <= tolerance * numeric.abs().max(unit)
    };
    let here = f64::from(field(0.0));
    let central = (f64::from(field(h)) - f64::from(field(-h))) / (2.0 * h);
    let analytic = f64::from(slope(0.0));
    if within(central, analytic, 1e-2) {
        return false;
    }
    let fine = h / 16.0;
    let (forward, backward) =
        ((f64::from(field(fine)) - here) / fine, (here - f64::from(field(-fine))) / fine);
    let mean = (0..64).map(|k| f64::from(slope(((k as f64 + 0.5) / 32.0 - 1.0) * h))).sum::<f64>() / 64.0;
    assert!(
        within(forward, analytic, 2e-2) || within(backward, analytic, 2e-2) || within(central, mean, 2e-2),
        "{}: analytic {analytic}, central {central}, one-sided {forward} and {backward}, mean over the step {mean}",
        what()
    );
    true
}

/// The difference step for `s` and the slope scale `check_slope` takes: a thousandth of a base
/// lattice cell; slopes per map unit are of the order of the frequency.
fn step_for(s: &NoiseSettings) -> (f64, f64) {
    (1e-3 / f64::from(s.frequency), 0.5 * f64::from(s.frequency))
}

/// Checks `points_per_case` points of every combination; returns how many were creases.
fn check_every_combination(points_per_case: usize) -> usize {
    let mut creases = 0;
    for basis in Basis::ALL {
        for fade in Fade::ALL {
            for fractal in Fractal::ALL {
                for warp in [0.0, 0.6] {
                    let s = NoiseSettings {
                        basis,
                        fade,
                        fractal,
                        octaves: 4,
                        frequency: 3.0,
                        seed: 11,
                        warp: Warp { amplitude: warp, frequency: 0.7, octaves: 2 },
                        // Turned octaves and the rounded kernel on half of the combinations each,
                        // every fractal both ways, and every Worley metric and return in turn.
                        rotate_octaves: (fade as usize + fractal as usize) % 2 == 1,
                        gradient_kernel: GradientKernel::ALL
                            [(fade as usize + (warp > 0.0) as usize + fractal as usize / 2) % 2],
                        worley: worley_for(fade as usize + 2 * (warp > 0.0) as usize, fractal as usize),
                        ..Default::default()
                    };
                    let sampler = s.sampler();
                    let step = step_for(&s);
                    for (x, y) in
                        points(points_per_case, (basis as u64) * 1000 + fade as u64 * 10 + fractal as u64)
                    {
                        let d = sampler.sample_with_gradient(x, y);
                        let here = sampler.sample(x, y);
                        assert_eq!(
                            d.value.to_bits(),
                            here.to_bits(),
                            "{s:?} at ({x}, {y}): the value differs"
                        );
                        for (axis, (ux, uy)) in [(1.0, 0.0), (0.0, 1.0)].into_iter().enumerate() {
                            let crease = check_slope(
                                |t| sampler.sample(x + t * ux, y + t * uy),
                                |t| sampler.sample_with_gradient(x + t * ux, y + t * uy).gradient[axis],
                                step,
                                || {
                                    format!(
                                        "{basis:?} {fade:?} {fractal:?} warp {warp} at ({x}, {y}), axis {axis}"
                                    )
                                },
                            );
                            creases += usize::from(crease);
                        }
                    }
                }
            }
        }
    }
    creases
}

#[test]
fn gradients_match_central_differences_for_every_basis_fade_fractal_and_warp() {
    let creases = check_every_combination(300);
    // 280 combinations × 300 points × 2 axes: creases are rare.
    assert!(creases < 280 * 300 * 2 / 20, "{creases} creases");
}

#[test]
#[ignore = "10^5 points per combination: minutes in release"]
fn gradients_match_on_a_hundred_thousand_points_per_combination() {
    let creases = check_every_combination(100_000);
    println!("{creases} of {} derivatives at creases", 280 * 100_000 * 2);
}

#[test]
fn the_cell_return_is_flat_everywhere() {
    let s = NoiseSettings {
        basis: Basis::Worley,
        worley: noise_terrain_core::basis::Worley {
            return_type: noise_terrain_core::basis::WorleyReturn::Cell,
            ..Default::default()
        },
        ..Default::default()
    };
    for (x, y) in points(1000, 3) {
        assert_eq!(s.sample_with_gradient(x, y).gradient, [0.0, 0.0]);
    }
}

/// `sample_3d_with_gradient` against central differences in x, y and z for every basis × fade ×
/// fractal (turned octaves on half of them); at a crease one side's slope or the mean of the
/// gradient over the step, as in 2-D.
#[test]
fn three_d_gradients_match_central_differences() {
    let mut creases = 0;
    for basis in Basis::ALL {
        for fade in Fade::ALL {
            for fractal in Fractal::ALL {
                let s = NoiseSettings {
                    basis,
                    fade,
                    fractal,
                    octaves: 4,
                    frequency: 3.0,
                    seed: 5,
                    rotate_octaves: (fade as usize + fractal as usize).is_multiple_of(2),
                    worley: worley_for(fade as usize, fractal as usize),
                    ..Default::default()
                };
                let sampler = s.sampler();
                let step = step_for(&s);
                for (k, (x, y)) in
                    points(150, basis as u64 * 97 + fade as u64 * 7 + fractal as u64).enumerate()
                {
                    let z = (k as f64 * 0.37).sin() * 4.0;
                    let d = sampler.sample_3d_with_gradient(x, y, z);
                    let here = sampler.sample_3d(x, y, z);
                    assert_eq!(d.value.to_bits(), here.to_bits(), "{s:?} at ({x}, {y}, {z})");
                    for axis in 0..3 {
                        let at = |t: f64| {
                            let mut p = [x, y, z];
                            p[axis] += t;
                            p
                        };
                        let crease = check_slope(
                            |t| {
                                let [a, b, c] = at(t);
                                sampler.sample_3d(a, b, c)
                            },
                            |t| {
                                let [a, b, c] = at(t);
                                sampler.sample_3d_with_gradient(a, b, c).gradient[axis]
                            },
                            step,
                            || format!("{basis:?} {fade:?} {fractal:?} at ({x}, {y}, {z}), axis {axis}"),
                        );
                        creases += usize::from(crease);
                    }
                }
            }
        }
    }
    assert!(creases < 140 * 150 * 3 / 20, "{creases} creases");
}
