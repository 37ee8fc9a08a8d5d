//! The field's tests: settings and their validation, sampling at points, exact gradients.

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
                amplitude: if rng.next_u64().is_multiple_of(2) { 0.0 } else { rng.range(0.0, 100.0) as f32 },
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
                    assert_eq!(h.to_bits(), s.sample_1d(t + n).to_bits(), "{basis:?} {fade:?} n {n} t {t}");
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
