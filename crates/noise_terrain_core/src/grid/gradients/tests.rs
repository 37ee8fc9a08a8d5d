//! Heights with gradients' tests: every level and path against the point path's values and
//! exact gradients.

use super::*;
use crate::{Fade, Fractal, NoiseSettings, Warp, fill_grid};

#[test]
fn gradients_that_overflow_are_made_finite_as_the_point_path_makes_them() {
    // Heterogeneous terrain at the largest frequency, lacunarity, persistence and octaves:
    // its products overflow `f32` in the gradient.
    let s = NoiseSettings {
        basis: Basis::Value,
        fade: Fade::Linear,
        fractal: Fractal::Hetero,
        octaves: 12,
        lacunarity: 8.0,
        persistence: 2.0,
        frequency: 1e6,
        fractal_offset: 2.0,
        ..Default::default()
    };
    assert!(s.gradients_on_the_row_path());
    let sampler = s.sampler();
    let window = GridWindow { origin: [3, -2], width: 64, height: 4, pixels_per_unit: 7.0 };
    let (mut heights, mut gradients) = (vec![0.0; 256], vec![[0.0; 2]; 256]);
    fill_grid_with_gradients(&sampler, window, &mut heights, &mut gradients);
    let mut clamped = 0;
    for (k, g) in gradients.iter().enumerate() {
        let (i, j) = ((k % 64) as f64, (k / 64) as f64);
        let d = sampler.sample_with_gradient((i + 3.0) / 7.0, (j - 2.0) / 7.0);
        assert_eq!(g.map(f32::to_bits), d.gradient.map(f32::to_bits), "pixel {k}");
        assert!(g.iter().all(|v| v.is_finite()), "pixel {k}: {g:?}");
        clamped += g.iter().filter(|v| v.abs() == f32::MAX || **v == 0.0).count();
    }
    assert!(clamped > 0, "the settings overflow somewhere");
}

/// Simplex grids whose rows are filled several at a time (`rows_at_once`), the last batch
/// full or short, with octaves from cells 12 pixels wide (AVX-512 takes those row by row,
/// with its table) to a third of a pixel (batched): every height, and every gradient of the
/// heights-with-gradients grid, is the point path's, on every level this CPU has, for each
/// kind of fractal that takes the batches.
#[test]
fn simplex_rows_in_batches_give_the_point_path_bits() {
    use crate::grid::{fill_uninit_with, rows_at_once};
    use std::mem::MaybeUninit;
    for (width, height, batch, last) in [(69, 69, 14, 13), (129, 129, 7, 3), (33, 64, 22, 20), (300, 5, 3, 2)]
    {
        for fractal in [Fractal::Fbm, Fractal::Billow, Fractal::Ridged, Fractal::None] {
            let s =
                NoiseSettings { basis: Basis::Simplex, fractal, octaves: 6, seed: 3, ..Default::default() };
            let sampler = s.sampler();
            assert_eq!(rows_at_once(&sampler, width, height), batch, "{width}×{height}");
            assert_eq!((height - 1) % batch + 1, last, "{width}×{height}: the last batch");
            let (w, h) = (width as u32, height as u32);
            let window = GridWindow { origin: [-40, 7], width: w, height: h, pixels_per_unit: 12.0 };
            let n = width * height;
            for isa in crate::isa::levels_under_test() {
                let mut plain = vec![MaybeUninit::new(f32::NAN); n];
                fill_uninit_with(isa, &sampler, window, &mut plain);
                let (mut heights, mut gradients) = (vec![f32::NAN; n], vec![[f32::NAN; 2]; n]);
                fill_with_gradients_at(isa, &sampler, window, &mut heights, &mut gradients);
                for k in 0..n {
                    let (i, j) = ((k % width) as f64 - 40.0, (k / width) as f64 + 7.0);
                    let d = sampler.sample_with_gradient(i / 12.0, j / 12.0);
                    let case = format!("{fractal:?}, {width}×{height}, {isa:?}, pixel {k}");
                    // SAFETY: initialised above (and overwritten by the fill).
                    let plain = unsafe { plain[k].assume_init() };
                    assert_eq!(plain.to_bits(), sampler.sample(i / 12.0, j / 12.0).to_bits(), "{case}");
                    assert_eq!(heights[k].to_bits(), plain.to_bits(), "{case}");
                    assert_eq!(gradients[k].map(f32::to_bits), d.gradient.map(f32::to_bits), "{case}");
                }
            }
        }
    }
}

/// The damped fractal's heights over a row wider than a segment: its two segments, of one
/// length, share a thread's scratch and its octaves' kept cells (`XCells`), which must
/// be each segment's own (the key tells them apart by their ends), on every level.
#[test]
fn rows_of_equal_segments_each_get_their_own_cells() {
    use crate::grid::{MAX_SEGMENT, fill_uninit_with};
    use std::mem::MaybeUninit;
    for basis in [Basis::Value, Basis::Gradient] {
        let s = NoiseSettings { basis, fractal: Fractal::Damped, octaves: 3, seed: 11, ..Default::default() };
        let sampler = s.sampler();
        let width = 2 * MAX_SEGMENT;
        let window = GridWindow { origin: [-100, 3], width: width as u32, height: 2, pixels_per_unit: 50.0 };
        for isa in crate::isa::levels_under_test() {
            let mut heights = vec![MaybeUninit::new(f32::NAN); 2 * width];
            fill_uninit_with(isa, &sampler, window, &mut heights);
            for (k, h) in heights.iter().enumerate().step_by(7) {
                let (i, j) = ((k % width) as f64 - 100.0, (k / width) as f64 + 3.0);
                // SAFETY: initialised above (and overwritten by the fill).
                let h = unsafe { h.assume_init() };
                let expected = sampler.sample(i / 50.0, j / 50.0);
                assert_eq!(h.to_bits(), expected.to_bits(), "{basis:?} {isa:?} pixel {k}");
            }
        }
    }
}

#[test]
fn heights_are_the_grid_and_gradients_the_point_path_bit_for_bit() {
    for basis in [Basis::Value, Basis::Gradient, Basis::Simplex, Basis::Worley] {
        for fractal in [Fractal::Fbm, Fractal::Billow, Fractal::Ridged, Fractal::Hetero, Fractal::None] {
            // The filter's scale 2 follows the first octave's slope; 8, the first three.
            for (period, warp, filter, scale) in [
                (None, 0.0, false, 2.0),
                (Some(3), 0.0, false, 2.0),
                (None, 0.5, false, 2.0),
                (None, 0.0, true, 2.0),
                (Some(3), 0.0, true, 2.0),
                (None, 0.0, true, 8.0),
            ] {
                let s = NoiseSettings {
                    basis,
                    fractal,
                    fade: Fade::Quintic,
                    period,
                    warp: Warp { amplitude: warp, ..Default::default() },
                    erosion_filter: crate::ErosionFilter { enabled: filter, scale, ..Default::default() },
                    ..Default::default()
                };
                assert_eq!(s.sampler().filter.is_some(), filter && s.supports_erosion_filter());
                let coarse = if scale == 8.0 && fractal != Fractal::None { 3 } else { 1 };
                assert_eq!(s.sampler().filter_octaves, coarse);
                let sampler = s.sampler();
                // 23 pixels per unit: every octave's runs are a few pixels long; 400: the
                // first octave's run spans the row (100 pixels per cell), the last ones are
                // short. Rows of 37 end in 5 pixels (a half chunk with the filter), of 45 in 13
                // (a whole one).
                for (ppu, width) in [(23.0, 37), (400.0, 37), (23.0, 45)] {
                    let window = GridWindow { origin: [-7, 5], width, height: 9, pixels_per_unit: ppu };
                    let n = width as usize * 9;
                    // Every level this CPU has, not only the one the fill picks.
                    for isa in crate::isa::levels_under_test() {
                        let (mut heights, mut gradients, mut plain) =
                            (vec![0.0; n], vec![[0.0; 2]; n], vec![0.0; n]);
                        fill_with_gradients_at(isa, &sampler, window, &mut heights, &mut gradients);
                        fill_grid(&sampler, window, &mut plain);
                        for (k, ((h, g), p)) in heights.iter().zip(&gradients).zip(&plain).enumerate() {
                            assert_eq!(h.to_bits(), p.to_bits(), "{basis:?} {fractal:?} pixel {k}");
                            let (i, j) = ((k % width as usize) as f64, (k / width as usize) as f64);
                            let d = sampler.sample_with_gradient((i - 7.0) / ppu, (j + 5.0) / ppu);
                            assert_eq!(
                                g.map(f32::to_bits),
                                d.gradient.map(f32::to_bits),
                                "{basis:?} {fractal:?} {ppu} {k} filter {filter} {isa:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}
