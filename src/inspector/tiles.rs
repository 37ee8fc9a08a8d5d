//! The grey octave tiles: each octave's raw layer over the map, averaged per pixel.

use bevy_egui::egui;
use noise_terrain_core::{Heightmap, NoiseSettings};

/// Side length in pixels of the grey octave tiles.
pub const TILE_SIZE: u32 = 44;

/// The most samples per pixel along each axis (64 per pixel in all).
const MAX_SAMPLES_PER_AXIS: u32 = 8;

/// Samples per pixel along each axis for octave `i` on a tile `size` pixels wide: two per
/// lattice cell, so an octave finer than the tile's pixels averages toward its mean (plain grey)
/// instead of aliasing into speckle.
pub fn samples_per_axis(settings: &NoiseSettings, i: u32, size: u32) -> u32 {
    let per_pixel = 2.0 * settings.octave_frequency(i) / f64::from(size.max(1));
    (per_pixel.ceil() as u32).clamp(1, MAX_SAMPLES_PER_AXIS)
}

/// The grey image of octave `i`'s raw layer over the map, each pixel the mean of
/// [`samples_per_axis`]² samples spread over its square.
pub fn octave_tile(settings: &NoiseSettings, i: u32, size: u32) -> egui::ColorImage {
    let s = samples_per_axis(settings, i, size);
    let fine = size * s;
    let grey: Vec<u8> = Heightmap::generate_octave(settings, i, fine, fine)
        .map(|m| box_average(m.samples(), size as usize, s as usize))
        .map(|means| means.iter().map(|h| (h.clamp(0.0, 1.0) * 255.0).round() as u8).collect())
        .unwrap_or_default();
    egui::ColorImage::from_gray([size as usize, size as usize], &grey)
}

/// The means of the `s × s` blocks of `samples` (`size · s` square).
fn box_average(samples: &[f32], size: usize, s: usize) -> Vec<f32> {
    let fine = size * s;
    let mut sums = vec![0.0f32; size * size];
    for (y, row) in samples.chunks_exact(fine).enumerate() {
        let out = &mut sums[(y / s) * size..(y / s + 1) * size];
        for (sum, block) in out.iter_mut().zip(row.chunks_exact(s)) {
            *sum += block.iter().sum::<f32>();
        }
    }
    let inverse = 1.0 / (s * s) as f32;
    sums.iter_mut().for_each(|v| *v *= inverse);
    sums
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spread(image: &egui::ColorImage) -> f32 {
        let values: Vec<f32> = image.pixels.iter().map(|p| p.r() as f32).collect();
        let mean = values.iter().sum::<f32>() / values.len() as f32;
        (values.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / values.len() as f32).sqrt()
    }

    #[test]
    fn coarse_octaves_take_one_sample_and_fine_ones_fade_to_grey() {
        // Frequency 11, 8 octaves, tiles a little under 100 pixels: the first octave needs one
        // sample, the last octave as many as a tile allows.
        let s = NoiseSettings { frequency: 11.0, octaves: 8, ..Default::default() };
        assert_eq!(samples_per_axis(&s, 0, 84), 1);
        assert_eq!(samples_per_axis(&s, 7, 84), MAX_SAMPLES_PER_AXIS);
        let (first, last) = (octave_tile(&s, 0, 84), octave_tile(&s, 7, 84));
        // The first tile shows its shapes; the last is almost plain grey.
        assert!(spread(&first) > 30.0, "{}", spread(&first));
        assert!(spread(&last) < 0.25 * spread(&first), "{} vs {}", spread(&last), spread(&first));
        // One sample per pixel, as before the averaging, keeps the speckle.
        let speckle = Heightmap::generate_octave(&s, 7, 84, 84).unwrap();
        let grey = egui::ColorImage::from_gray(
            [84, 84],
            &speckle.samples().iter().map(|h| (h.clamp(0.0, 1.0) * 255.0) as u8).collect::<Vec<_>>(),
        );
        assert!(spread(&grey) > 2.0 * spread(&last));
    }

    #[test]
    fn a_block_mean_is_the_mean_of_its_samples() {
        let samples: Vec<f32> = (0..36).map(|i| i as f32).collect();
        let means = box_average(&samples, 2, 3);
        // Block (0, 0): rows 0..3, columns 0..3 of a 6-wide square.
        let expected = [0.0, 1.0, 2.0, 6.0, 7.0, 8.0, 12.0, 13.0, 14.0].iter().sum::<f32>() / 9.0;
        assert_eq!(means[0], expected);
        assert_eq!(means.len(), 4);
    }
}
