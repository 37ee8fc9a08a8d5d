//! Fuzzing `NoiseSettings` and coordinates with proptest: no panic, every output in its
//! documented range. The regular test run checks a few thousand cases; the long run is
//!
//! ```text
//! FUZZ_CASES=10000000 cargo test --release -p noise_terrain_core --test fuzz -- --ignored --nocapture
//! ```

use glam::DVec2;
use noise_terrain_core::advanced::amplitude_sum;
use noise_terrain_core::basis::{DistanceMetric, Worley, WorleyReturn};
use noise_terrain_core::{
    Basis, ErosionFilter, Fade, Fractal, GradientKernel, Heightmap, IslandShape, NoiseSettings, PostProcess,
    Warp,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Any `f32`, biased toward the values that break things.
fn wild_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(0.0f32),
        Just(-0.0f32),
        Just(1e12f32),
        Just(-1e12f32),
        Just(f32::MIN_POSITIVE),
        -10.0f32..10.0,
        any::<f32>(),
    ]
}

/// Any `f64`, biased the same way.
fn wild_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(1e12),
        Just(-1e12),
        Just(1e7 + 0.5),
        -100.0f64..100.0,
        any::<f64>(),
    ]
}

fn settings() -> impl Strategy<Value = NoiseSettings> {
    (
        (
            0..Basis::ALL.len(),
            (0..Fade::ALL.len(), 0..GradientKernel::ALL.len()),
            0..Fractal::ALL.len(),
            prop_oneof![Just(0u32), Just(1000), any::<u32>(), 0u32..14],
            wild_f32(),
            wild_f32(),
            wild_f32(),
        ),
        (
            any::<u32>(),
            wild_f64(),
            wild_f64(),
            any::<bool>(),
            prop::option::of(any::<u32>()),
            wild_f32(),
            wild_f32(),
            any::<bool>(),
        ),
        (
            wild_f32(),
            0..WorleyReturn::ALL.len(),
            0..DistanceMetric::ALL.len(),
            wild_f32(),
            wild_f32(),
            any::<u32>(),
            wild_f32(),
        ),
        erosion_filter(),
    )
        .prop_map(
            |(
                (b, (f, kernel), fr, octaves, lac, pers, freq),
                (seed, ox, oy, normalize, period, off, gain, rotate_octaves),
                (jitter, r, m, wa, wf, wo, damping),
                erosion_filter,
            )| {
                NoiseSettings {
                    basis: Basis::ALL[b],
                    fade: Fade::ALL[f],
                    gradient_kernel: GradientKernel::ALL[kernel],
                    fractal: Fractal::ALL[fr],
                    octaves,
                    lacunarity: lac,
                    persistence: pers,
                    frequency: freq,
                    seed,
                    offset: DVec2::new(ox, oy),
                    normalize,
                    period,
                    fractal_offset: off,
                    gain,
                    damping,
                    worley: Worley {
                        return_type: WorleyReturn::ALL[r],
                        metric: DistanceMetric::ALL[m],
                        jitter,
                    },
                    warp: Warp { amplitude: wa, frequency: wf, octaves: wo },
                    rotate_octaves,
                    erosion_filter,
                }
            },
        )
}

/// Erosion filter settings, on or off, with wild numbers.
fn erosion_filter() -> impl Strategy<Value = ErosionFilter> {
    (
        any::<bool>(),
        wild_f32(),
        wild_f32(),
        prop_oneof![Just(0u32), any::<u32>(), 0u32..10],
        wild_f32(),
        wild_f32(),
        wild_f32(),
        wild_f32(),
        wild_f32(),
        any::<u32>(),
    )
        .prop_map(
            |(enabled, strength, scale, octaves, gain, bend, sharpness, keep_peaks, keep_floors, seed)| {
                ErosionFilter {
                    enabled,
                    strength,
                    scale,
                    octaves,
                    gain,
                    bend,
                    sharpness,
                    keep_peaks,
                    keep_floors,
                    seed,
                }
            },
        )
}

/// The documented range of a height: `[0, 1]`, or `[0, amplitude sum]` for fBm and billow with
/// normalisation off.
fn height_range(s: &NoiseSettings) -> (f32, f32) {
    let c = s.clamped();
    let unnormalised = matches!(c.fractal, Fractal::Fbm | Fractal::Billow) && !c.normalize;
    (0.0, if unnormalised { amplitude_sum(c.octaves, c.persistence) * (1.0 + 1e-6) } else { 1.0 })
}

fn check(s: &NoiseSettings, x: f64, y: f64, z: f64) -> Result<(), TestCaseError> {
    let (lo, hi) = height_range(s);
    for (what, h) in
        [("sample", s.sample(x, y)), ("sample_1d", s.sample_1d(x)), ("sample_3d", s.sample_3d(x, y, z))]
    {
        prop_assert!(
            h >= lo && h <= hi,
            "{} = {} outside {}..{} for {:?} at {} {} {}",
            what,
            h,
            lo,
            hi,
            s,
            x,
            y,
            z
        );
    }
    let d = s.sample_with_gradient(x, y);
    prop_assert!(
        d.value.to_bits() == s.sample(x, y).to_bits() && d.gradient.iter().all(|g| g.is_finite()),
        "sample_with_gradient {:?} for {:?} at {} {}",
        d,
        s,
        x,
        y
    );
    let d3 = s.sample_3d_with_gradient(x, y, z);
    prop_assert!(
        d3.value.to_bits() == s.sample_3d(x, y, z).to_bits() && d3.gradient.iter().all(|g| g.is_finite()),
        "sample_3d_with_gradient {:?} for {:?}",
        d3,
        s
    );
    let octave = s.octave(3, x, y);
    prop_assert!((0.0..=1.0).contains(&octave), "octave {} for {:?}", octave, s);
    Ok(())
}

fn run(cases: u32) {
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    let strategy = (settings(), wild_f64(), wild_f64(), wild_f64());
    runner.run(&strategy, |(s, x, y, z)| check(&s, x, y, z)).unwrap();
}

#[test]
fn fuzz_quick() {
    run(3000);
}

/// The long run: `FUZZ_CASES` cases (default 10 million).
#[test]
#[ignore = "long: run with --ignored, see the file's documentation"]
fn fuzz_long() {
    let cases = std::env::var("FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000_000);
    let start = std::time::Instant::now();
    run(cases);
    println!("fuzz: {cases} cases passed in {:.1} s", start.elapsed().as_secs_f64());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Whole maps with post-processing, including sizes outside the limits.
    #[test]
    fn heightmaps_with_post_processing_stay_in_range(
        s in settings(),
        (w, h) in prop_oneof![(0u32..2, 0u32..40), (1u32..40, 1u32..40), Just((100_000u32, 100_000u32))],
        stretch in any::<bool>(),
        power in wild_f32(),
        island in wild_f32(),
        width in wild_f32(),
        terraces in prop_oneof![Just(0u32), 2u32..20, any::<u32>()],
        sharpness in wild_f32(),
    ) {
        let post = PostProcess {
            stretch, power, island_shape: IslandShape::Radial, island_strength: island, island_width: width,
            terraces, terrace_sharpness: sharpness,
        };
        match Heightmap::generate(&s, w, h) {
            Ok(mut map) => {
                post.apply(&mut map);
                // Stretch and terraces end in [0, 1]; otherwise the field's range, raised to the
                // redistribution power.
                let p = post.clamped();
                let (_, field_hi) = height_range(&s);
                let hi = if p.stretch || p.terraces > 1 { 1.0 } else { field_hi.max(1.0).powf(p.power) * (1.0 + 1e-5) };
                for &v in map.samples() {
                    prop_assert!(v.is_finite() && (0.0..=hi).contains(&v), "{} outside [0, {}] for {:?}", v, hi, p);
                }
            }
            Err(e) => prop_assert!(w == 0 || h == 0 || w as u64 * h as u64 > noise_terrain_core::limits::MAX_SAMPLES, "{e}"),
        }
    }
}
