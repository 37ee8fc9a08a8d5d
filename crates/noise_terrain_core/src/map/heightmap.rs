//! [`Heightmap`]: a grid of heights generated from [`NoiseSettings`], with its statistics.

use crate::field::NoiseSettings;
use crate::grid::{self, GridWindow};
use crate::map::frame::Frame;
use crate::world::chunks::map_chunks;

/// Samples per chunk of [`Heightmap::stats`] and [`Heightmap::overflow_fraction`].
const STATS_CHUNK: usize = 1 << 16;

/// The most samples one heightmap may hold: 8192 × 8192 (256 MiB of `f32`). Larger requests get
/// [`HeightmapError::TooLarge`] instead of an allocation the machine may not have.
pub const MAX_SAMPLES: u64 = 8192 * 8192;

/// Why a heightmap could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HeightmapError {
    /// Width or height is zero.
    #[error("a heightmap needs at least 1x1 samples, got {width}x{height}")]
    Empty {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// More than [`MAX_SAMPLES`] samples.
    #[error("{width}x{height} is too large: at most {MAX_SAMPLES} samples (8192x8192)")]
    TooLarge {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// The sample vector does not match width × height.
    #[error("{len} samples do not fill {width}x{height}")]
    WrongLength {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
        /// Number of samples given.
        len: usize,
    },
}

/// Lowest, highest and mean height of a map.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HeightStats {
    /// Lowest sample.
    pub min: f32,
    /// Highest sample.
    pub max: f32,
    /// Mean of all samples.
    pub mean: f32,
}

/// A `width × height` grid of heights, row-major (`samples[y * width + x]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Heightmap {
    width: u32,
    height: u32,
    samples: Vec<f32>,
}

/// Checks a requested size against the limits.
pub(crate) fn check_size(width: u32, height: u32) -> Result<(), HeightmapError> {
    if width == 0 || height == 0 {
        Err(HeightmapError::Empty { width, height })
    } else if width as u64 * height as u64 > MAX_SAMPLES {
        Err(HeightmapError::TooLarge { width, height })
    } else {
        Ok(())
    }
}

impl Heightmap {
    /// Wraps existing samples; their count must be `width × height`.
    pub fn from_samples(width: u32, height: u32, samples: Vec<f32>) -> Result<Self, HeightmapError> {
        check_size(width, height)?;
        if samples.len() as u64 != width as u64 * height as u64 {
            return Err(HeightmapError::WrongLength { width, height, len: samples.len() });
        }
        Ok(Self { width, height, samples })
    }

    /// Fills the grid with `f(x, y)` for every pixel.
    pub fn from_fn(
        width: u32,
        height: u32,
        mut f: impl FnMut(u32, u32) -> f32,
    ) -> Result<Self, HeightmapError> {
        check_size(width, height)?;
        let mut samples = Vec::with_capacity(width as usize * height as usize);
        for y in 0..height {
            for x in 0..width {
                samples.push(f(x, y));
            }
        }
        Ok(Self { width, height, samples })
    }

    /// A copy of the part of the map inside `frame`, clipped to the map; an empty result is
    /// [`HeightmapError::Empty`]. With the frame of a map generated with a border (see
    /// [`generate_region`](Self::generate_region)) this is the map without its border.
    pub fn crop(&self, frame: Frame) -> Result<Self, HeightmapError> {
        let Frame { x: x0, y: y0, width, height } = frame.clipped_to(self.width, self.height);
        check_size(width, height)?;
        let mut samples = Vec::with_capacity(width as usize * height as usize);
        for y in y0..y0 + height {
            samples.extend_from_slice(&self.row(y)[x0 as usize..(x0 + width) as usize]);
        }
        Ok(Self { width, height, samples })
    }

    /// The samples of row `y` (`width` of them).
    ///
    /// # Panics
    /// If `y >= height`.
    #[inline]
    pub fn row(&self, y: u32) -> &[f32] {
        let w = self.width as usize;
        &self.samples[y as usize * w..(y as usize + 1) * w]
    }

    /// The field of `settings` over a `width × height` map. Pixel `(i, j)` samples the field at
    /// `(i / width, j / width)` map units (plus the settings' offset), so the map is one unit wide
    /// and `frequency = width` puts a lattice point on every pixel.
    pub fn generate(settings: &NoiseSettings, width: u32, height: u32) -> Result<Self, HeightmapError> {
        Self::generate_region(settings, [0, 0], width, height, width as f64)
    }

    /// [`generate_region`](Self::generate_region) of `window`, and the exact gradient per map
    /// unit of every sample into `gradients` (replacing what it held, reusing its memory; see
    /// [`fill_grid_with_gradients`](crate::fill_grid_with_gradients)). The heights are bit for bit
    /// `generate_region`'s.
    pub fn generate_region_with_gradients(
        settings: &NoiseSettings,
        window: GridWindow,
        gradients: &mut Vec<[f32; 2]>,
    ) -> Result<Self, HeightmapError> {
        let GridWindow { width, height, .. } = window;
        check_size(width, height)?;
        let len = width as usize * height as usize;
        let mut samples = vec![0.0; len];
        gradients.clear();
        gradients.resize(len, [0.0; 2]);
        crate::fill_grid_with_gradients(&settings.sampler(), window, &mut samples, gradients);
        Ok(Self { width, height, samples })
    }

    /// A window of the same pixel lattice that [`generate`](Self::generate) uses: pixel `(i, j)`
    /// samples `((origin.x + i) / pixels_per_unit, (origin.y + j) / pixels_per_unit)`. With
    /// `origin = [-1, -1]` and two extra pixels per side this is the map with a one-pixel border,
    /// whose interior is bit for bit the map itself.
    pub fn generate_region(
        settings: &NoiseSettings,
        origin: [i64; 2],
        width: u32,
        height: u32,
        pixels_per_unit: f64,
    ) -> Result<Self, HeightmapError> {
        check_size(width, height)?;
        let len = width as usize * height as usize;
        let mut samples = Vec::with_capacity(len);
        let window = GridWindow { origin, width, height, pixels_per_unit };
        grid::fill_grid_uninit(&settings.sampler(), window, &mut samples.spare_capacity_mut()[..len]);
        // SAFETY: `fill_grid_uninit` wrote all `len` samples.
        unsafe { samples.set_len(len) };
        Ok(Self { width, height, samples })
    }

    /// Octave `octave`'s raw layer (in `[0, 1]`) over the same map as [`generate`](Self::generate).
    pub fn generate_octave(
        settings: &NoiseSettings,
        octave: u32,
        width: u32,
        height: u32,
    ) -> Result<Self, HeightmapError> {
        let w = width as f64;
        Self::from_fn(width, height, |i, j| settings.octave(octave, i as f64 / w, j as f64 / w))
    }

    /// Width in samples.
    #[inline]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in samples.
    #[inline]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// All samples, row-major.
    #[inline]
    pub fn samples(&self) -> &[f32] {
        &self.samples
    }

    /// The samples, row-major, as the vector that holds them: no copy, for a caller that keeps
    /// the heights in its own structure.
    pub fn into_samples(self) -> Vec<f32> {
        self.samples
    }

    /// All samples, row-major, for in-place processing.
    pub fn samples_mut(&mut self) -> &mut [f32] {
        &mut self.samples
    }

    /// The sample at `(x, y)`, or `None` outside the map.
    #[inline]
    pub fn get(&self, x: u32, y: u32) -> Option<f32> {
        (x < self.width && y < self.height).then(|| self.samples[(y * self.width + x) as usize])
    }

    /// Lowest, highest and mean sample (mean summed in `f64`).
    pub fn stats(&self) -> HeightStats {
        // Per chunk, on all cores; eight running sums per chunk keep the adds independent. The
        // chunks and lanes are fixed, so the mean is the same for any number of threads.
        let partial = map_chunks(&self.samples, STATS_CHUNK, |chunk| {
            let (mut min, mut max, mut sums) = (f32::INFINITY, f32::NEG_INFINITY, [0.0f64; 8]);
            for lanes in chunk.chunks(8) {
                for (sum, &h) in sums.iter_mut().zip(lanes) {
                    (min, max) = (min.min(h), max.max(h));
                    *sum += h as f64;
                }
            }
            (min, max, sums.iter().sum::<f64>())
        });
        let (min, max, sum) = partial
            .into_iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY, 0.0), |a, b| (a.0.min(b.0), a.1.max(b.1), a.2 + b.2));
        HeightStats { min, max, mean: (sum / self.samples.len() as f64) as f32 }
    }

    /// The share of samples above 1 (reachable when normalisation is off).
    pub fn overflow_fraction(&self) -> f32 {
        let above =
            map_chunks(&self.samples, STATS_CHUNK, |chunk| chunk.iter().filter(|&&h| h > 1.0).count());
        above.into_iter().sum::<usize>() as f32 / self.samples.len() as f32
    }

    /// Heights mapped from `[0, 1]` to `0..=65535` (clamped), for 16-bit greyscale images.
    pub fn to_u16(&self) -> Vec<u16> {
        self.samples.iter().map(|&h| (h.clamp(0.0, 1.0) * 65535.0).round() as u16).collect()
    }
}

/// Encodings of a heightmap as file contents (the crate writes no files itself).
impl Heightmap {
    /// Raw little-endian `f32`, row-major, no header (`.r32`).
    pub fn encode_r32(&self) -> Vec<u8> {
        self.samples.iter().flat_map(|h| h.to_le_bytes()).collect()
    }

    /// A 16-bit greyscale PNG of [`to_u16`](Self::to_u16).
    #[cfg(feature = "png")]
    pub fn encode_png16(&self) -> Result<Vec<u8>, png::EncodingError> {
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, self.width, self.height);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::Sixteen);
        let pixels: Vec<u8> = self.to_u16().iter().flat_map(|v| v.to_be_bytes()).collect();
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&pixels)?;
        writer.finish()?;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn into_samples_hands_over_the_samples_without_a_copy() {
        let map = Heightmap::generate(&NoiseSettings::default(), 33, 17).unwrap();
        let (copy, at) = (map.samples().to_vec(), map.samples().as_ptr());
        let samples = map.into_samples();
        assert_eq!(samples, copy);
        assert_eq!(samples.as_ptr(), at);
    }

    #[test]
    fn generate_follows_the_pixel_mapping() {
        let s = NoiseSettings::default();
        let map = Heightmap::generate(&s, 64, 32).unwrap();
        assert_eq!((map.width(), map.height(), map.samples().len()), (64, 32, 2048));
        assert_eq!(map.get(10, 20), Some(s.sample(10.0 / 64.0, 20.0 / 64.0)));
        assert_eq!(map.get(64, 0), None);
    }

    #[test]
    fn frequency_equal_to_width_puts_a_lattice_point_on_every_pixel() {
        let s = NoiseSettings { frequency: 64.0, fractal: crate::Fractal::None, ..Default::default() };
        let map = Heightmap::generate(&s, 64, 64).unwrap();
        // Gradient noise is 0 (0.5 mapped) on lattice points.
        assert!(map.samples().iter().all(|&h| h == 0.5));
    }

    #[test]
    fn a_region_with_a_border_holds_the_map_bit_for_bit() {
        let s = NoiseSettings::default();
        let map = Heightmap::generate(&s, 40, 30).unwrap();
        let padded = Heightmap::generate_region(&s, [-1, -1], 42, 32, 40.0).unwrap();
        for y in 0..30 {
            for x in 0..40 {
                assert_eq!(map.get(x, y).unwrap().to_bits(), padded.get(x + 1, y + 1).unwrap().to_bits());
            }
        }
    }

    #[test]
    fn crop_copies_the_frame_and_clips_it_to_the_map() {
        let map = Heightmap::from_fn(5, 4, |x, y| (10 * y + x) as f32).unwrap();
        let inner = map.crop(Frame { x: 1, y: 1, width: 3, height: 2 }).unwrap();
        assert_eq!((inner.width(), inner.height()), (3, 2));
        assert_eq!(inner.samples(), &[11.0, 12.0, 13.0, 21.0, 22.0, 23.0]);
        assert_eq!(map.row(2), &[20.0, 21.0, 22.0, 23.0, 24.0]);
        let clipped = map.crop(Frame { x: 3, y: 2, width: 10, height: 10 }).unwrap();
        assert_eq!(clipped.samples(), &[23.0, 24.0, 33.0, 34.0]);
        let outside = map.crop(Frame { x: 9, y: 0, width: 2, height: 2 });
        assert!(matches!(outside, Err(HeightmapError::Empty { .. })));
    }

    #[test]
    fn chunked_stats_match_a_plain_loop_for_any_thread_count() {
        // Several chunks and a short last one.
        let map = Heightmap::from_fn(700, 301, |x, y| ((x * 31 + y * 17) % 997) as f32 / 800.0).unwrap();
        let samples = map.samples();
        let min = samples.iter().copied().fold(f32::INFINITY, f32::min);
        let max = samples.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mean = samples.iter().map(|&h| h as f64).sum::<f64>() / samples.len() as f64;
        let above = samples.iter().filter(|&&h| h > 1.0).count() as f32 / samples.len() as f32;
        let stats = map.stats();
        assert_eq!((stats.min, stats.max), (min, max));
        assert!((stats.mean as f64 - mean).abs() < 1e-6, "{} vs {mean}", stats.mean);
        assert_eq!(map.overflow_fraction(), above);
        assert!(above > 0.0);
        #[cfg(feature = "parallel")]
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            assert_eq!(pool.install(|| map.stats()), stats);
        }
    }

    #[test]
    fn stats_are_min_max_and_mean() {
        let map = Heightmap::from_samples(2, 2, vec![0.0, 0.5, 1.5, 1.0]).unwrap();
        assert_eq!(map.stats(), HeightStats { min: 0.0, max: 1.5, mean: 0.75 });
        assert_eq!(map.overflow_fraction(), 0.25);
        assert_eq!(map.to_u16(), vec![0, 32768, 65535, 65535]);
    }

    #[test]
    fn raw_encoding_round_trips() {
        let map = Heightmap::from_samples(3, 2, vec![0.0, 0.25, 0.5, 0.75, 1.0, 2.0]).unwrap();
        let r32 = map.encode_r32();
        let back: Vec<f32> = r32.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(back, map.samples());
    }

    #[cfg(feature = "png")]
    #[test]
    fn png_encoding_round_trips() {
        let map = Heightmap::from_samples(3, 2, vec![0.0, 0.25, 0.5, 0.75, 1.0, 2.0]).unwrap();
        let png = map.encode_png16().unwrap();
        let mut reader = png::Decoder::new(std::io::Cursor::new(png)).read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut pixels).unwrap();
        assert_eq!((info.width, info.height, info.bit_depth), (3, 2, png::BitDepth::Sixteen));
        let values: Vec<u16> = pixels.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
        assert_eq!(values, map.to_u16());
    }

    #[test]
    fn sizes_outside_the_limits_are_errors() {
        let s = NoiseSettings::default();
        assert!(matches!(Heightmap::generate(&s, 0, 10), Err(HeightmapError::Empty { .. })));
        assert!(matches!(Heightmap::generate(&s, 100_000, 100_000), Err(HeightmapError::TooLarge { .. })));
        assert!(matches!(Heightmap::from_samples(2, 2, vec![0.0]), Err(HeightmapError::WrongLength { .. })));
    }
}
