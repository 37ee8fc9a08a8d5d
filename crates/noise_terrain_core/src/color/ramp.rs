//! Colour ramps that turn heights into map colours: water through meadow to snow.

use crate::Heightmap;
use crate::world::chunks::for_each_chunk;

/// Colour for heights above 1 (reachable when normalisation is off): orange.
pub const OVERFLOW_COLOR: [u8; 3] = [255, 140, 0];

/// One colour at one position of a ramp.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct RampStop {
    /// Position on the ramp, `[0, 1]`. With [`ColorRamp::color_for_height`], 0.5 is the water
    /// level: stops below it colour water, stops above it land.
    pub position: f32,
    /// sRGB colour.
    pub color: [u8; 3],
}

/// A piecewise-linear colour ramp: stops sorted by position, blended in sRGB between them.
///
/// ```
/// use noise_terrain_core::ColorRamp;
///
/// let ramp = ColorRamp::terrain();
/// let water_level = 0.4;
/// let [r, g, b] = ramp.color_for_height(0.1, water_level, false); // deep water: blue
/// assert!(b > r && b > g);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct ColorRamp {
    /// The stops, in increasing position. An empty ramp is black.
    pub stops: Vec<RampStop>,
}

impl Default for ColorRamp {
    fn default() -> Self {
        Self::terrain()
    }
}

const fn stop(position: f32, color: [u8; 3]) -> RampStop {
    RampStop { position, color }
}

/// Most stops a ramp keeps (validation drops the rest).
pub const MAX_RAMP_STOPS: usize = 32;

impl ColorRamp {
    /// The ramp with every stop's position in `[0, 1]` (NaN becomes 0.5), in increasing
    /// position (stops at one position keep their order), at most [`MAX_RAMP_STOPS`].
    pub fn clamped(&self) -> Self {
        let mut stops: Vec<RampStop> = self
            .stops
            .iter()
            .take(MAX_RAMP_STOPS)
            .map(|s| RampStop {
                position: crate::clamp::clamp_or(s.position, crate::clamp::UNIT_RANGE, 0.5),
                ..*s
            })
            .collect();
        stops.sort_by(|a, b| a.position.total_cmp(&b.position));
        Self { stops }
    }

    /// Deep water, shallow water, sand, meadow, forest, rock and snow; the shore sits at 0.5.
    pub fn terrain() -> Self {
        Self {
            stops: vec![
                stop(0.0, [16, 42, 96]),
                stop(0.42, [38, 96, 164]),
                stop(0.5, [84, 150, 196]),
                stop(0.5, [214, 200, 148]),
                stop(0.54, [128, 176, 84]),
                stop(0.68, [64, 124, 52]),
                stop(0.8, [118, 104, 90]),
                stop(0.9, [160, 152, 146]),
                stop(0.94, [242, 244, 248]),
                stop(1.0, [255, 255, 255]),
            ],
        }
    }

    /// Black to white.
    pub fn grey() -> Self {
        Self { stops: vec![stop(0.0, [0, 0, 0]), stop(1.0, [255, 255, 255])] }
    }

    /// The colour at ramp position `t` (clamped to the first and last stop; NaN counts as 0).
    pub fn color_at(&self, t: f32) -> [u8; 3] {
        let t = if t.is_nan() { 0.0 } else { t };
        let Some(first) = self.stops.first() else { return [0, 0, 0] };
        if t <= first.position {
            return first.color;
        }
        for pair in self.stops.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            if t < b.position {
                let w = (t - a.position) / (b.position - a.position);
                // Rounds half up: the blend is never negative, and `+ 0.5` then truncation is
                // inlined where `f32::round` is a libm call on the x86-64 baseline.
                return std::array::from_fn(|c| {
                    (a.color[c] as f32 + (b.color[c] as f32 - a.color[c] as f32) * w + 0.5) as u8
                });
            }
        }
        self.stops[self.stops.len() - 1].color
    }

    /// The colour of a height: heights `[0, water_level]` map to ramp positions `[0, 0.5]` and
    /// `[water_level, 1]` to `[0.5, 1]`, so the shore follows the water level. Heights above 1
    /// get [`OVERFLOW_COLOR`] when `show_overflow` is set.
    pub fn color_for_height(&self, height: f32, water_level: f32, show_overflow: bool) -> [u8; 3] {
        if show_overflow && height > 1.0 {
            return OVERFLOW_COLOR;
        }
        let water = if water_level.is_nan() { 0.5 } else { water_level.clamp(1e-3, 1.0 - 1e-3) };
        let t =
            if height < water { 0.5 * height / water } else { 0.5 + 0.5 * (height - water) / (1.0 - water) };
        self.color_at(t)
    }

    /// RGBA8 texels (alpha 255) of [`color_for_height`](Self::color_for_height) for every sample
    /// of `map`, row-major, on all cores with the `parallel` feature.
    pub fn paint_heights(&self, map: &Heightmap, water_level: f32, show_overflow: bool) -> Vec<u8> {
        let mut texels = Vec::new();
        self.paint_heights_into(map, water_level, show_overflow, &mut texels);
        texels
    }

    /// [`paint_heights`](Self::paint_heights) into `texels`, reusing its memory (the texels of
    /// the previous texture, say): what it held is replaced.
    pub fn paint_heights_into(
        &self,
        map: &Heightmap,
        water_level: f32,
        show_overflow: bool,
        texels: &mut Vec<u8>,
    ) {
        paint(map, texels, |h| self.color_for_height(h, water_level, show_overflow));
    }

    /// RGBA8 texels (alpha 255) of [`color_at`](Self::color_at) for every sample of `map`.
    pub fn paint(&self, map: &Heightmap) -> Vec<u8> {
        let mut texels = Vec::new();
        paint(map, &mut texels, |h| self.color_at(h));
        texels
    }
}

/// Texels per parallel chunk: large enough to hide the scheduling, small enough to share out.
const TEXELS_PER_CHUNK: usize = 4096;

fn paint(map: &Heightmap, texels: &mut Vec<u8>, color: impl Fn(f32) -> [u8; 3] + Sync) {
    // Every texel is overwritten below: resizing only sets the length.
    texels.resize(map.samples().len() * 4, 0);
    for_each_chunk(texels, TEXELS_PER_CHUNK * 4, |i, chunk| {
        let heights = &map.samples()[i * TEXELS_PER_CHUNK..];
        for (texel, &h) in chunk.chunks_exact_mut(4).zip(heights) {
            let [r, g, b] = color(h);
            texel.copy_from_slice(&[r, g, b, 255]);
        }
    });
}

#[cfg(test)]
mod tests {

    #[test]
    fn clamping_sorts_the_stops_into_the_unit_range_and_keeps_a_valid_ramp_as_it_is() {
        assert_eq!(ColorRamp::terrain().clamped(), ColorRamp::terrain());
        let ramp =
            ColorRamp { stops: vec![stop(0.9, [1, 1, 1]), stop(f32::NAN, [2, 2, 2]), stop(-3.0, [3, 3, 3])] };
        let positions: Vec<f32> = ramp.clamped().stops.iter().map(|s| s.position).collect();
        assert_eq!(positions, [0.0, 0.5, 0.9]);
        let long = ColorRamp { stops: vec![stop(0.5, [0, 0, 0]); 100] };
        assert_eq!(long.clamped().stops.len(), MAX_RAMP_STOPS);
    }
    use super::*;

    #[test]
    fn ends_and_midpoints() {
        let grey = ColorRamp::grey();
        assert_eq!(grey.color_at(0.0), [0, 0, 0]);
        assert_eq!(grey.color_at(1.0), [255, 255, 255]);
        assert_eq!(grey.color_at(0.5), [128, 128, 128]);
        assert_eq!(grey.color_at(-3.0), [0, 0, 0]);
        assert_eq!(grey.color_at(f32::NAN), [0, 0, 0]);
        assert_eq!(ColorRamp { stops: vec![] }.color_at(0.3), [0, 0, 0]);
    }

    #[test]
    fn the_shore_follows_the_water_level() {
        let ramp = ColorRamp::terrain();
        let sand = [214, 200, 148];
        assert_eq!(ramp.color_for_height(0.3, 0.3, false), sand);
        assert_eq!(ramp.color_for_height(0.6, 0.6, false), sand);
        assert_ne!(ramp.color_for_height(0.29, 0.3, false), sand);
    }

    #[test]
    fn painting_a_map_gives_each_sample_its_colour_and_opaque_alpha() {
        let ramp = ColorRamp::terrain();
        // More than one parallel chunk, and a last chunk that is not full.
        let map = Heightmap::from_fn(101, 97, |x, y| (x * 97 + y) as f32 / 9797.0 * 1.2).unwrap();
        let texels = ramp.paint_heights(&map, 0.4, true);
        let grey = ColorRamp::grey().paint(&map);
        assert_eq!(texels.len(), map.samples().len() * 4);
        let mut reused = vec![7; 5];
        ramp.paint_heights_into(&map, 0.4, true, &mut reused);
        assert_eq!(reused, texels);
        for (k, &h) in map.samples().iter().enumerate() {
            assert_eq!(texels[4 * k..4 * k + 3], ramp.color_for_height(h, 0.4, true), "texel {k}");
            assert_eq!(grey[4 * k..4 * k + 3], ColorRamp::grey().color_at(h), "texel {k}");
            assert_eq!((texels[4 * k + 3], grey[4 * k + 3]), (255, 255));
        }
    }

    #[test]
    fn blends_round_to_the_nearest_level() {
        let grey = ColorRamp::grey();
        assert_eq!(grey.color_at(0.2 / 255.0), [0, 0, 0]);
        assert_eq!(grey.color_at(0.8 / 255.0), [1, 1, 1]);
        assert_eq!(grey.color_at(254.6 / 255.0), [255, 255, 255]);
    }

    #[test]
    fn overflow_is_orange_only_when_asked() {
        let ramp = ColorRamp::terrain();
        assert_eq!(ramp.color_for_height(1.2, 0.4, true), OVERFLOW_COLOR);
        assert_eq!(ramp.color_for_height(1.2, 0.4, false), [255, 255, 255]);
        assert_ne!(ramp.color_for_height(0.99, 0.4, true), OVERFLOW_COLOR);
    }
}
