//! The grids' tests: every level against the point path, fingerprints, threads.

use super::lattice_rows::{GRADIENT_PER_PIXEL_BELOW, VALUE_PER_PIXEL_BELOW, runs_shorter_than};
use super::worley_rows::WORLEY_PER_PIXEL_BELOW;
use super::*;
use crate::field::basis::{DistanceMetric, Worley, WorleyReturn};
use crate::field::fade::Fade;
use crate::field::fractal::Fractal;
use crate::field::warp::Warp;
use crate::{Heightmap, NoiseSettings};
use proptest::prelude::*;

fn settings_strategy() -> impl Strategy<Value = NoiseSettings> {
    (
        (
            0..Basis::ALL.len(),
            (0..Fade::ALL.len(), 0..GradientKernel::ALL.len()),
            0..Fractal::ALL.len(),
            1u32..=12,
            1.0f32..4.0,
            0.0f32..1.5,
            0.1f32..64.0,
            any::<u32>(),
        ),
        (
            -1e3f64..1e3,
            -1e3f64..1e3,
            any::<bool>(),
            prop::option::of(1u32..16),
            0.0f32..2.0,
            0.0f32..8.0,
            any::<bool>(),
        ),
        (
            0.0f32..1.0,
            0..WorleyReturn::ALL.len(),
            0..DistanceMetric::ALL.len(),
            prop::option::of(0.0f32..3.0),
        ),
    )
        .prop_map(
            |(
                (b, (fade, kernel), fr, octaves, lac, pers, freq, seed),
                (ox, oy, normalize, period, off, gain, rotate_octaves),
                (j, r, m, warp),
            )| {
                NoiseSettings {
                    basis: Basis::ALL[b],
                    fade: Fade::ALL[fade],
                    gradient_kernel: GradientKernel::ALL[kernel],
                    fractal: Fractal::ALL[fr],
                    octaves,
                    lacunarity: lac,
                    persistence: pers,
                    frequency: freq,
                    seed,
                    offset: glam::DVec2::new(ox, oy),
                    normalize,
                    period,
                    fractal_offset: off,
                    gain,
                    // The ridged gain's range suits the damping too.
                    damping: gain,
                    worley: Worley {
                        jitter: j,
                        return_type: WorleyReturn::ALL[r],
                        metric: DistanceMetric::ALL[m],
                    },
                    warp: Warp { amplitude: warp.unwrap_or(0.0), frequency: 1.3, octaves: 2 },
                    rotate_octaves,
                    // On for a third of the cases (where the field supports it).
                    erosion_filter: crate::ErosionFilter {
                        enabled: seed % 3 == 0,
                        strength: gain / 8.0,
                        scale: 1.0 + lac,
                        octaves: 1 + seed % 5,
                        seed: seed / 3,
                        // No bend (every octave straight down the field's slope) in a quarter.
                        bend: (seed / 5 % 4) as f32 / 3.0,
                        ..Default::default()
                    },
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn grid_equals_point_sampling_bit_for_bit(s in settings_strategy(), w in 1u32..70, h in 1u32..6, ox in -50i64..50) {
        let sampler = s.sampler();
        let window = GridWindow { origin: [ox, -3], width: w, height: h, pixels_per_unit: 37.0 };
        // Every instruction set this CPU has, not only the one `fill` picks.
        for isa in crate::isa::levels_under_test() {
            let mut out = vec![MaybeUninit::new(f32::NAN); (w * h) as usize];
            fill_uninit_with(isa, &sampler, window, &mut out);
            for j in 0..h {
                for i in 0..w {
                    let expected = sampler.sample((ox + i as i64) as f64 / 37.0, (j as i64 - 3) as f64 / 37.0);
                    // SAFETY: initialised above (and overwritten by the fill).
                    let got = unsafe { out[(j * w + i) as usize].assume_init() };
                    prop_assert_eq!(got.to_bits(), expected.to_bits(), "{:?} pixel {},{}", isa, i, j);
                }
            }
        }
    }
}

/// Pixel spacings and origins no sane caller uses: negative, zero, NaN or infinite pixels per
/// unit, origins near and past the ±1e9 coordinate limit.
fn strange_window() -> impl Strategy<Value = GridWindow> {
    let ppu = prop_oneof![
        Just(0.0),
        Just(-0.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::MIN_POSITIVE),
        -1e3f64..-1e-3,
        1e-12f64..1e-6,
        1e6f64..1e12,
    ];
    let origin =
        prop_oneof![-2_000_000_000i64..2_000_000_000, Just(i64::MIN / 2), Just(i64::MAX / 2), -10i64..10];
    (origin.clone(), origin, 1u32..40, 1u32..4, ppu).prop_map(|(x, y, width, height, ppu)| GridWindow {
        origin: [x, y],
        width,
        height,
        pixels_per_unit: ppu,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Strange windows neither panic nor leave the documented range, and the grid stays what
    /// point sampling gives at the same (sanitised) coordinates.
    #[test]
    fn strange_windows_stay_in_range_and_equal_point_sampling(s in settings_strategy(), window in strange_window()) {
        let sampler = s.sampler();
        let (lo, hi) = s.value_bounds();
        let mut out = vec![f32::NAN; (window.width * window.height) as usize];
        fill_grid(&sampler, window, &mut out);
        let map = Heightmap::generate_region(&s, window.origin, window.width, window.height, window.pixels_per_unit).unwrap();
        prop_assert_eq!(map.samples().iter().map(|h| h.to_bits()).collect::<Vec<_>>(), out.iter().map(|h| h.to_bits()).collect::<Vec<_>>());
        for (k, &h) in out.iter().enumerate() {
            prop_assert!(h.is_finite() && (lo..=hi).contains(&h), "pixel {}: {} outside [{}, {}]", k, h, lo, hi);
            let (i, j) = ((k as u32 % window.width) as f64, (k as u32 / window.width) as f64);
            let at = |origin: i64, i: f64| (origin as f64 + i) / window.pixels_per_unit;
            let expected = sampler.sample(at(window.origin[0], i), at(window.origin[1], j));
            prop_assert_eq!(h.to_bits(), expected.to_bits(), "pixel {}", k);
        }
    }
}

#[test]
fn worley_farther_cells_give_the_point_path_bits() {
    // Jitter 1 searches 5×5 cells (or more); with F2 many pixels need the farther ones.
    let mut needed = 0;
    for metric in DistanceMetric::ALL {
        for return_type in WorleyReturn::ALL {
            let worley = Worley { jitter: 1.0, return_type, metric };
            let s = NoiseSettings { basis: Basis::Worley, worley, octaves: 3, ..Default::default() };
            let sampler = s.sampler();
            let window = GridWindow { origin: [-7, 3], width: 300, height: 12, pixels_per_unit: 23.0 };
            let mut out = vec![0.0; 300 * 12];
            fill_grid(&sampler, window, &mut out);
            for (k, h) in out.iter().enumerate() {
                let (i, j) = ((k % 300) as f64 - 7.0, (k / 300) as f64 + 3.0);
                assert_eq!(h.to_bits(), sampler.sample(i / 23.0, j / 23.0).to_bits(), "{worley:?} pixel {k}");
            }
            needed += (worley.search_radius(2) > 1) as usize;
        }
    }
    assert!(needed >= 8, "too few settings search beyond 3×3: {needed}");
}

#[test]
fn every_basis_gives_the_point_path_bits_at_cells_about_a_pixel_wide() {
    // Heights, and heights with gradients where they have a row path. Where 16 pixels span
    // 13 to 16 cells (and Worley's 29 to 32) the AVX-512 rows switch between one- and
    // two-register tables of lattice columns and hashing per pixel, and where 8 pixels span
    // 6, 14, 22 or 30 cells (Worley's 5, 13, 21 or 29) the AVX2 rows between one to four
    // registers and hashing: one octave at cell widths around there (and
    // a few wider), in rising and falling rows, on every level this CPU has.
    let worley = Worley { jitter: 1.0, return_type: WorleyReturn::F2, metric: DistanceMetric::Euclidean };
    let eight_pixels_span =
        [4.5, 5.0, 5.5, 6.0, 6.5, 12.5, 13.5, 14.5, 20.5, 21.5, 22.5, 28.5, 29.5, 30.5, 31.5];
    let widths = eight_pixels_span.map(|cells| 8.0 / cells);
    let widths = widths.iter().chain(&[
        0.2,
        0.5,
        16.0 / 29.5,
        16.0 / 29.0,
        16.0 / 28.5,
        0.6,
        0.75,
        0.9,
        1.0,
        16.0 / 15.5,
        16.0 / 15.0,
        16.0 / 14.5,
        16.0 / 14.0,
        16.0 / 13.5,
        16.0 / 13.0,
        1.3,
        2.0,
        3.5,
    ]);
    for basis in Basis::ALL {
        for (kernel, &pixels_per_cell) in
            GradientKernel::ALL.into_iter().flat_map(|k| widths.clone().map(move |w| (k, w)))
        {
            let s = NoiseSettings {
                basis,
                gradient_kernel: kernel,
                worley,
                octaves: 1,
                seed: 11,
                ..Default::default()
            };
            let s = NoiseSettings { frequency: (64.0 / pixels_per_cell) as f32, ..s };
            let sampler = s.sampler();
            for ppu in [64.0, -64.0] {
                let window = GridWindow { origin: [-37, 5], width: 300, height: 2, pixels_per_unit: ppu };
                for isa in crate::isa::levels_under_test() {
                    let mut out = vec![MaybeUninit::new(f32::NAN); 600];
                    fill_uninit_with(isa, &sampler, window, &mut out);
                    // And heights with gradients, where they have a row path.
                    let with_gradients = s.gradients_on_the_row_path().then(|| {
                        let (mut heights, mut gradients) = (vec![f32::NAN; 600], vec![[f32::NAN; 2]; 600]);
                        gradients::fill_with_gradients_at(
                            isa,
                            &sampler,
                            window,
                            &mut heights,
                            &mut gradients,
                        );
                        (heights, gradients)
                    });
                    for (k, h) in out.iter().enumerate() {
                        let (i, j) = ((k % 300) as f64 - 37.0, (k / 300) as f64 + 5.0);
                        // SAFETY: initialised above (and overwritten by the fill).
                        let h = unsafe { h.assume_init() };
                        let expected = sampler.sample(i / ppu, j / ppu);
                        let case =
                            format!("{basis:?} {kernel:?} {pixels_per_cell} px per cell, {ppu} ppu, {isa:?}");
                        assert_eq!(h.to_bits(), expected.to_bits(), "{case}: pixel {k}");
                        if let Some((heights, gradients)) = &with_gradients {
                            let d = sampler.sample_with_gradient(i / ppu, j / ppu);
                            assert_eq!(heights[k].to_bits(), expected.to_bits(), "{case}: pixel {k}");
                            let (got, want) = (gradients[k].map(f32::to_bits), d.gradient.map(f32::to_bits));
                            assert_eq!(got, want, "{case}: gradient at pixel {k}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn filtered_rows_wider_than_a_segment_give_the_point_path_bits() {
    // Rows of more than `MAX_SEGMENT` pixels are filled segment by segment, each with x positions
    // of its own: the erosion filter's kept columns (gully cells, coarse layers) must be those of
    // the segment at hand, not the first's. Two coarse octaves (`scale` 4), a persistence whose
    // amplitudes are not powers of two, every basis with the filter's row path, every level.
    let width = MAX_SEGMENT as u32 + 300;
    for basis in [Basis::Value, Basis::Gradient, Basis::Simplex] {
        let sampler = filtered_with_two_coarse_octaves(basis, 4);
        let window = GridWindow { origin: [-1000, 7], width, height: 2, pixels_per_unit: 600.0 };
        for isa in crate::isa::levels_under_test() {
            assert_fill_is_the_point_path(isa, &sampler, window, &format!("{basis:?}"));
        }
    }
}

/// A field of `basis` and `octaves` with the erosion filter on whose slope takes the first two
/// octaves (`scale` 4), its amplitudes not powers of two (persistence 0.45).
fn filtered_with_two_coarse_octaves(basis: Basis, octaves: u32) -> FieldSampler {
    let s = NoiseSettings {
        basis,
        octaves,
        persistence: 0.45,
        frequency: 3.0,
        erosion_filter: crate::ErosionFilter { enabled: true, scale: 4.0, octaves: 3, ..Default::default() },
        ..Default::default()
    };
    let sampler = s.sampler();
    assert!(sampler.filter.is_some() && sampler.filter_octaves == 2, "{basis:?}: two coarse octaves");
    sampler
}

/// Fills `window` at `isa` and asserts every pixel the point path's bits (`case` names it).
fn assert_fill_is_the_point_path(isa: Isa, sampler: &FieldSampler, window: GridWindow, case: &str) {
    let width = window.width as usize;
    let mut out = vec![MaybeUninit::new(f32::NAN); width * window.height as usize];
    fill_uninit_with(isa, sampler, window, &mut out);
    for (k, got) in out.iter().enumerate() {
        let (i, j) = ((k % width) as i64 + window.origin[0], (k / width) as i64 + window.origin[1]);
        // SAFETY: initialised above (and overwritten by the fill).
        let got = unsafe { got.assume_init() };
        let expected = sampler.sample(i as f64 / window.pixels_per_unit, j as f64 / window.pixels_per_unit);
        assert_eq!(got.to_bits(), expected.to_bits(), "{case} {isa:?} at {:?}: pixel {k}", window.origin);
    }
}

#[test]
fn grids_one_after_another_on_a_thread_give_the_point_path_bits() {
    // A thread keeps its row buffers from one grid to the next (`RowScratch::kept`): what they
    // held for one grid (cells along x, tables of corners and lattice points, feature points,
    // gully columns) must not serve the next, whose field or window differs. Grids of the same
    // shape, whose kept buffers fit each other, one after another: every basis, other seeds,
    // frequencies, fades and periods, the filter on and off, and the same field over a window
    // moved by a whole row of cells and by a pixel.
    let base = NoiseSettings { octaves: 4, frequency: 5.0, ..Default::default() };
    let filter = crate::ErosionFilter { enabled: true, scale: 4.0, octaves: 2, ..Default::default() };
    let fields = [
        base,
        NoiseSettings { seed: 9, ..base },
        NoiseSettings { basis: Basis::Value, ..base },
        NoiseSettings { basis: Basis::Value, fade: Fade::Cubic, ..base },
        NoiseSettings { basis: Basis::Simplex, ..base },
        NoiseSettings { basis: Basis::Simplex, seed: 9, ..base },
        NoiseSettings { basis: Basis::Worley, ..base },
        NoiseSettings { basis: Basis::Worley, seed: 9, frequency: 7.0, ..base },
        NoiseSettings { frequency: 4.0, ..base },
        NoiseSettings { period: Some(3), ..base },
        NoiseSettings { erosion_filter: filter, ..base },
        NoiseSettings { erosion_filter: filter, seed: 9, ..base },
        NoiseSettings { basis: Basis::Value, erosion_filter: filter, ..base },
        NoiseSettings { basis: Basis::Simplex, erosion_filter: filter, ..base },
    ];
    // Grids 24 rows tall, and 3 (in one row of cells at every octave: a table or band kept for
    // the last row of one grid is the first row's of the next).
    let mut grids = Vec::new();
    for height in [24, 3] {
        let window = |origin| GridWindow { origin, width: 40, height, pixels_per_unit: 50.0 };
        for s in &fields {
            grids.push((s, window([-30, 8])));
        }
        for s in fields.iter().rev() {
            grids.push((s, window([-30, 8])));
            grids.push((s, window([-30 + 10, 8])));
            grids.push((s, window([-29, 8])));
        }
    }
    for isa in crate::isa::levels_under_test() {
        for (s, window) in &grids {
            assert_fill_is_the_point_path(
                isa,
                &s.sampler(),
                *window,
                &format!("{:?} seed {}", s.basis, s.seed),
            );
        }
    }
}

#[test]
fn filtered_rows_in_batches_give_the_point_path_bits() {
    // Value and gradient rows come in batches with the filter too (each row's coarse slope kept
    // for the filter while the batch's other octaves stream): grids of several batches, the last
    // one shorter, at widths whose filter chunks fall in groups of two to five and a last chunk
    // of a few pixels (33, 65, 129, 200), every level.
    for basis in [Basis::Value, Basis::Gradient] {
        let sampler = filtered_with_two_coarse_octaves(basis, 5);
        for (width, height) in [(33u32, 70u32), (65, 40), (129, 20), (200, 12)] {
            let (w, h) = (width as usize, height as usize);
            let batch = batch_of(w, h);
            assert!(batch > 1 && h.div_ceil(batch) > 1, "{width}×{height}: several batches of rows");
            let window = GridWindow { origin: [-300, 11], width, height, pixels_per_unit: 90.0 };
            for isa in crate::isa::levels_under_test() {
                assert_fill_is_the_point_path(isa, &sampler, window, &format!("{basis:?} {width}×{height}"));
            }
        }
    }
}

#[test]
fn value_gradient_and_worley_rows_take_both_paths_with_the_point_path_bits() {
    // Cells of 128 pixels down to half a pixel: the first octaves take runs, the last ones go
    // per pixel.
    let cases = [
        (Basis::Value, GradientKernel::Rounded, VALUE_PER_PIXEL_BELOW),
        (Basis::Gradient, GradientKernel::Rounded, GRADIENT_PER_PIXEL_BELOW),
        (Basis::Gradient, GradientKernel::Perlin, GRADIENT_PER_PIXEL_BELOW),
    ];
    // Worley's F2 at jitter 1 searches the farther cells for some pixels.
    let worley = Worley { jitter: 1.0, return_type: WorleyReturn::F2, metric: DistanceMetric::Euclidean };
    let worley_case = (Basis::Worley, GradientKernel::Rounded, WORLEY_PER_PIXEL_BELOW);
    for (basis, gradient_kernel, threshold) in cases.into_iter().chain([worley_case]) {
        let s = NoiseSettings {
            basis,
            gradient_kernel,
            worley,
            octaves: 9,
            frequency: 8.0,
            seed: 3,
            ..Default::default()
        };
        let sampler = s.sampler();
        let window = GridWindow { origin: [-300, 7], width: 1024, height: 3, pixels_per_unit: 1024.0 };
        let cells = |scale: f64| -> Vec<i32> {
            (0..1024).map(|i| split((-300.0 + i as f64) / 1024.0 * 8.0 * scale).0).collect()
        };
        assert!(!runs_shorter_than(&cells(1.0), threshold), "{basis:?}: the first octave takes runs");
        assert!(runs_shorter_than(&cells(256.0), threshold), "{basis:?}: the last octave goes per pixel");
        for isa in crate::isa::levels_under_test() {
            let mut out = vec![MaybeUninit::new(f32::NAN); 1024 * 3];
            fill_uninit_with(isa, &sampler, window, &mut out);
            for (k, h) in out.iter().enumerate() {
                let (i, j) = ((k % 1024) as f64 - 300.0, (k / 1024) as f64 + 7.0);
                // SAFETY: initialised above (and overwritten by the fill).
                let h = unsafe { h.assume_init() };
                let expected = sampler.sample(i / 1024.0, j / 1024.0);
                assert_eq!(
                    h.to_bits(),
                    expected.to_bits(),
                    "{basis:?} {gradient_kernel:?} {isa:?} pixel {k}"
                );
            }
        }
    }
}

#[test]
fn run_end_finds_the_end_of_each_run() {
    let cells = [3, 3, 3, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 9];
    for start in 0..cells.len() {
        let expected = start + cells[start..].iter().take_while(|&&c| c == cells[start]).count();
        assert_eq!(run_end(&cells, start, true), expected, "start {start}");
        assert_eq!(run_end(&cells, start, false), expected, "start {start}");
    }
    // A wrapped (periodic) row is not sorted: the linear scan handles it.
    assert_eq!(run_end(&[2, 2, 0, 0, 2], 0, false), 2);
}

/// FNV-1a over the bits of the samples.
fn fingerprint(map: &Heightmap) -> u64 {
    map.samples()
        .iter()
        .flat_map(|h| h.to_bits().to_le_bytes())
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

#[test]
fn the_same_bytes_across_runs_and_machines() {
    // Recorded once (Perlin's kernel on x86-64 with AVX2, the rounded default on AVX-512);
    // every level gives the same bits. A change here means a seed no longer gives the terrain it gave before: saved
    // presets would change their look.
    let settings = NoiseSettings::default();
    assert_eq!(fingerprint(&Heightmap::generate(&settings, 64, 48).unwrap()), GOLDEN_GRADIENT);
    // Perlin's kernel, the default before the rounded one (recorded then).
    let perlin = NoiseSettings { gradient_kernel: GradientKernel::Perlin, ..settings };
    assert_eq!(fingerprint(&Heightmap::generate(&perlin, 64, 48).unwrap()), GOLDEN_GRADIENT_PERLIN);
    let worley = NoiseSettings { basis: Basis::Worley, fractal: Fractal::Ridged, ..settings };
    assert_eq!(fingerprint(&Heightmap::generate(&worley, 64, 48).unwrap()), GOLDEN_WORLEY_RIDGED);
    // Simplex noise near the origin and far from it (recorded 2026-12-06, AVX-512).
    let simplex = NoiseSettings { basis: Basis::Simplex, ..settings };
    assert_eq!(fingerprint(&Heightmap::generate(&simplex, 64, 48).unwrap()), GOLDEN_SIMPLEX);
    let far = NoiseSettings { offset: glam::DVec2::new(3.0e5, -7.1e5), ..simplex };
    assert_eq!(fingerprint(&Heightmap::generate(&far, 64, 48).unwrap()), GOLDEN_SIMPLEX_FAR);
}

const GOLDEN_GRADIENT: u64 = 5888358437510064740;
const GOLDEN_GRADIENT_PERLIN: u64 = 7009021852908192516;
const GOLDEN_WORLEY_RIDGED: u64 = 13874278698051893065;
const GOLDEN_SIMPLEX: u64 = 13598674462197826468;
const GOLDEN_SIMPLEX_FAR: u64 = 16206669995065140865;

#[cfg(feature = "parallel")]
#[test]
fn the_same_bytes_for_one_two_and_many_threads() {
    let settings = NoiseSettings { octaves: 8, ..Default::default() };
    let worley = NoiseSettings { basis: Basis::Worley, ..settings };
    for s in [settings, worley] {
        let maps: Vec<Heightmap> = [1, 2, 7]
            .into_iter()
            .map(|threads| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                pool.install(|| Heightmap::generate(&s, 256, 160).unwrap())
            })
            .collect();
        const { assert!(256 * 160 >= rows::PARALLEL_MIN_SAMPLES, "large enough to be filled on the pool") };
        assert_eq!(maps[0], maps[1]);
        assert_eq!(maps[0], maps[2]);
    }
}
