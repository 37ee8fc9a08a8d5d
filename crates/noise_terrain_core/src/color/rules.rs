//! Terrain colours by rules: layers painted over the colour ramp where the height, the slope and
//! the erosion filter's cut say, with soft edges, so that a cliff at meadow height is rock, snow
//! lies only where the slope lets it and gullies show where water ran. A rule set without layers
//! is the plain ramp.

use crate::clamp::{SLOPE_DEGREES_RANGE, UNIT_RANGE, clamp_or};
use crate::map::postprocess::smoothstep;
use crate::world::chunks::for_each_chunk;
use crate::{ColorRamp, Heightmap};

/// One layer: its colour and where it lies.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct ColorLayer {
    /// Whether it is painted.
    pub enabled: bool,
    /// sRGB colour.
    pub color: [u8; 3],
    /// Land heights it covers, `[low, high]`, as a share of the way from the water line (0) to a
    /// height of 1 (1): the ramp's land scale, so layers follow the water level.
    pub heights: [f32; 2],
    /// Slopes it covers, degrees from level, `[low, high]` in `[0, 90]`.
    pub slopes: [f32; 2],
    /// Width of the soft edges of the height range (same units).
    pub height_blend: f32,
    /// Width of the soft edges of the slope range, degrees.
    pub slope_blend: f32,
    /// Depths of the erosion filter's cut it covers, `[low, high]`, as a share of the field's
    /// height range (0 where nothing is cut; see
    /// [`FieldSampler::sample_cut_depth`](crate::FieldSampler::sample_cut_depth)); the default
    /// covers every depth.
    pub cuts: [f32; 2],
    /// Width of the soft edges of the cut range (same units).
    pub cut_blend: f32,
}

impl Default for ColorLayer {
    fn default() -> Self {
        Self {
            enabled: true,
            color: [128, 128, 128],
            heights: [0.0, 1.0],
            slopes: [0.0, 90.0],
            height_blend: 0.05,
            slope_blend: 6.0,
            cuts: [-1.0, 10.0],
            cut_blend: 0.01,
        }
    }
}

/// Layers painted in order over the ramp's colour, on land (water keeps the ramp's colours).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct ColorRules {
    /// The layers, bottom first.
    pub layers: Vec<ColorLayer>,
}

impl Default for ColorRules {
    fn default() -> Self {
        Self::landscape()
    }
}

/// The slope in degrees of ground whose unit normal has `up` as its vertical part: `acos(up)`,
/// by Abramowitz and Stegun's 4.4.45 (within 0.004°, a fifth of the libm call's time).
pub fn slope_degrees(up: f32) -> f32 {
    let x = up.abs().min(1.0);
    let acos = (1.0 - x).sqrt() * (1.570_728_8 + x * (-0.212_114_4 + x * (0.074_261_0 - 0.018_729_3 * x)));
    let radians = if up < 0.0 { std::f32::consts::PI - acos } else { acos };
    radians.to_degrees()
}

impl ColorLayer {
    /// How much of the layer lies at `land` (the land scale) on a `slope` (degrees) where the
    /// erosion filter cut `cut` deep, `[0, 1]`.
    #[inline(always)]
    fn cover(&self, land: f32, slope: f32, cut: f32) -> f32 {
        cover(land, self.heights, self.height_blend)
            * cover(slope, self.slopes, self.slope_blend)
            * cover(cut, self.cuts, self.cut_blend)
    }
}

/// Channel `c` moved toward `target` by the weight `w`.
#[inline(always)]
fn blend(c: f32, target: u8, w: f32) -> f32 {
    c + (f32::from(target) - c) * w
}

/// A channel value rounded to a byte: non-negative after the clamp, so adding a half and
/// truncating rounds, without a libm call.
#[inline(always)]
fn to_channel(c: f32) -> u8 {
    (c.clamp(0.0, 255.0) + 0.5) as u8
}

/// Where a value lies in a range with soft edges `blend` wide: 1 inside, 0 outside, smooth
/// between.
fn cover(x: f32, [low, high]: [f32; 2], blend: f32) -> f32 {
    let half = blend.max(1e-6) * 0.5;
    let rise = smoothstep(low - half, low + half, x);
    let fall = 1.0 - smoothstep(high - half, high + half, x);
    rise * fall
}

/// Most layers the rules keep (validation drops the rest).
pub const MAX_COLOR_LAYERS: usize = 16;

/// A colour layer's heights (noise units, 0 at the water line) are clamped to this range.
pub const COLOR_HEIGHT_RANGE: (f32, f32) = (-10.0, 10.0);

/// A colour layer's or a scatter rule's erosion-filter cut depths (noise units) are clamped to
/// this range.
pub const CUT_DEPTH_RANGE: (f32, f32) = (-10.0, 10.0);

impl ColorRules {
    /// The rules with at most [`MAX_COLOR_LAYERS`] layers and every number in range: heights finite within `±10`, slopes in `[0, 90]`,
    /// blends in `[0, 1]` and `[0, 90]` (NaN becomes the default layer's value).
    pub fn clamped(&self) -> Self {
        let d = ColorLayer::default();
        let pair = |[a, b]: [f32; 2], range: (f32, f32), default: [f32; 2]| {
            [clamp_or(a, range, default[0]), clamp_or(b, range, default[1])]
        };
        let layers = self
            .layers
            .iter()
            .take(MAX_COLOR_LAYERS)
            .map(|l| ColorLayer {
                heights: pair(l.heights, COLOR_HEIGHT_RANGE, d.heights),
                slopes: pair(l.slopes, SLOPE_DEGREES_RANGE, d.slopes),
                height_blend: clamp_or(l.height_blend, UNIT_RANGE, d.height_blend),
                slope_blend: clamp_or(l.slope_blend, SLOPE_DEGREES_RANGE, d.slope_blend),
                cuts: pair(l.cuts, CUT_DEPTH_RANGE, d.cuts),
                cut_blend: clamp_or(l.cut_blend, UNIT_RANGE, d.cut_blend),
                ..*l
            })
            .collect();
        Self { layers }
    }

    /// No layers: the plain ramp.
    pub fn plain() -> Self {
        Self { layers: Vec::new() }
    }

    /// Sand along the water line, grass on gentle slopes up to the snow (over the ramp's bare
    /// rock band), rock on steep slopes at any height, snow high up where the slope lets it lie,
    /// and dark wet scree in the erosion filter's gullies, snow or not (nothing without the
    /// filter).
    pub fn landscape() -> Self {
        let layer = |color, heights, slopes, height_blend, slope_blend| ColorLayer {
            enabled: true,
            color,
            heights,
            slopes,
            height_blend,
            slope_blend,
            ..ColorLayer::default()
        };
        let gullies = ColorLayer {
            cuts: [0.03, 10.0],
            cut_blend: 0.04,
            ..layer([70, 64, 56], [-1.0, 10.0], [0.0, 90.0], 0.05, 6.0)
        };
        Self {
            layers: vec![
                layer([210, 196, 146], [-1.0, 0.035], [0.0, 30.0], 0.03, 10.0),
                layer([104, 132, 70], [0.55, 0.8], [0.0, 38.0], 0.08, 12.0),
                layer([116, 106, 96], [-1.0, 10.0], [48.0, 90.0], 0.05, 16.0),
                layer([238, 240, 245], [0.78, 10.0], [0.0, 44.0], 0.06, 10.0),
                gullies,
            ],
        }
    }

    /// The colour of land at `height` (noise units) on a slope of `slope` degrees where the
    /// erosion filter cut `cut` deep (0 without it), or the ramp's water below `water_level`;
    /// heights above 1 in [`OVERFLOW_COLOR`](crate::advanced::OVERFLOW_COLOR) when `show_overflow` is set.
    pub fn color_for(
        &self,
        ramp: &ColorRamp,
        (height, slope, cut): (f32, f32, f32),
        water_level: f32,
        show_overflow: bool,
    ) -> [u8; 3] {
        let base = ramp.color_for_height(height, water_level, show_overflow);
        let water = if water_level.is_nan() { 0.5 } else { water_level.clamp(1e-3, 1.0 - 1e-3) };
        if height < water || (show_overflow && height > 1.0) {
            return base;
        }
        let land = (height - water) / (1.0 - water);
        let mut color = base.map(f32::from);
        for layer in self.layers.iter().filter(|l| l.enabled) {
            let w = layer.cover(land, slope, cut);
            for (c, target) in color.iter_mut().zip(layer.color) {
                *c = blend(*c, target, w);
            }
        }
        color.map(to_channel)
    }

    /// RGBA8 texels (alpha 255) for every sample of `map`, the slope of each from `normals` (one
    /// per sample, unit vectors with y up: the mesh's) and the erosion filter's cut from `cuts`
    /// (one per sample; see [`fill_cut_depths`](crate::advanced::fill_cut_depths)), into `texels`
    /// (replacing what it held), on all cores with the `parallel` feature. Missing normals count
    /// as level ground, missing cuts as no cut.
    pub fn paint_into(
        &self,
        ramp: &ColorRamp,
        map: &Heightmap,
        (normals, cuts): (&[[f32; 3]], &[f32]),
        (water_level, show_overflow): (f32, bool),
        texels: &mut Vec<u8>,
    ) {
        const TEXELS_PER_CHUNK: usize = 1024;
        texels.resize(map.samples().len() * 4, 0);
        let water = if water_level.is_nan() { 0.5 } else { water_level.clamp(1e-3, 1.0 - 1e-3) };
        let layers: Vec<ColorLayer> = self.layers.iter().copied().filter(|l| l.enabled).collect();
        for_each_chunk(texels, TEXELS_PER_CHUNK * 4, |i, chunk| {
            let first = i * TEXELS_PER_CHUNK;
            let n = chunk.len() / 4;
            let heights = &map.samples()[first..first + n];
            // Per texel: the ramp's colour, where it lies on the land scale and its slope, then
            // each layer over all of them (loops that vectorise), with `color_for`'s operations.
            let mut rgb = [[0.0f32; TEXELS_PER_CHUNK]; 3];
            let (mut land, mut slope, mut on_land) =
                ([0.0f32; TEXELS_PER_CHUNK], [0.0f32; TEXELS_PER_CHUNK], [0.0f32; TEXELS_PER_CHUNK]);
            let mut cut = [0.0f32; TEXELS_PER_CHUNK];
            for (k, &h) in heights.iter().enumerate() {
                let base = ramp.color_for_height(h, water_level, show_overflow);
                for (channel, c) in rgb.iter_mut().zip(base) {
                    channel[k] = f32::from(c);
                }
                land[k] = (h - water) / (1.0 - water);
                on_land[k] = if h < water || (show_overflow && h > 1.0) { 0.0 } else { 1.0 };
                slope[k] = slope_degrees(normals.get(first + k).map_or(1.0, |n| n[1].clamp(-1.0, 1.0)));
                cut[k] = cuts.get(first + k).copied().unwrap_or(0.0);
            }
            for layer in &layers {
                for k in 0..n {
                    let w = layer.cover(land[k], slope[k], cut[k]);
                    // Water and overflow keep the ramp's colour: nothing is blended in.
                    let w = if on_land[k] > 0.0 { w } else { 0.0 };
                    for (channel, target) in rgb.iter_mut().zip(layer.color) {
                        channel[k] = blend(channel[k], target, w);
                    }
                }
            }
            for (k, texel) in chunk.chunks_exact_mut(4).enumerate() {
                let [r, g, b] = [rgb[0][k], rgb[1][k], rgb[2][k]].map(to_channel);
                texel.copy_from_slice(&[r, g, b, 255]);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::advanced::OVERFLOW_COLOR;

    fn distance(a: [u8; 3], b: [u8; 3]) -> i32 {
        a.iter().zip(b).map(|(&x, y)| (i32::from(x) - i32::from(y)).abs()).max().unwrap()
    }

    #[test]
    fn a_sixty_degree_slope_is_rock_at_any_land_height() {
        let (rules, ramp) = (ColorRules::landscape(), ColorRamp::terrain());
        let rock = rules.layers[2].color;
        for k in 0..=50 {
            let height = 0.45 + 0.55 * k as f32 / 50.0;
            let c = rules.color_for(&ramp, (height, 60.0, 0.0), 0.45, false);
            assert!(distance(c, rock) <= 1, "height {height}: {c:?}");
        }
    }

    #[test]
    fn snow_lies_only_on_slopes_below_its_limit() {
        let (rules, ramp) = (ColorRules::landscape(), ColorRamp::terrain());
        let snow = rules.layers[3].color;
        let high = 0.97;
        assert!(distance(rules.color_for(&ramp, (high, 10.0, 0.0), 0.45, false), snow) <= 1);
        // Past the snow layer's limit and its soft edge, steep ground is rock even where the
        // ramp alone would paint snow.
        let snow_layer = rules.layers[3];
        let limit = snow_layer.slopes[1] + snow_layer.slope_blend / 2.0;
        for slope in [limit + 1.0, 60.0, 80.0] {
            let c = rules.color_for(&ramp, (high, slope, 0.0), 0.45, false);
            assert!(distance(c, snow) > 60, "snow on a {slope}° slope: {c:?}");
        }
        // Below the snow line, gentle slopes have no snow either.
        assert!(distance(rules.color_for(&ramp, (0.6, 5.0, 0.0), 0.45, false), snow) > 60);
    }

    #[test]
    fn without_layers_the_rules_are_the_plain_ramp_and_water_stays_water() {
        let ramp = ColorRamp::terrain();
        let map = Heightmap::from_fn(64, 64, |x, y| (x as f32 + y as f32) / 100.0).unwrap();
        let normals: Vec<[f32; 3]> =
            (0..64 * 64).map(|i| [0.0, if i % 3 == 0 { 0.3 } else { 1.0 }, 0.0]).collect();
        let mut texels = Vec::new();
        ColorRules::plain().paint_into(&ramp, &map, (&normals, &[]), (0.4, true), &mut texels);
        assert_eq!(texels, ramp.paint_heights(&map, 0.4, true));
        // Landscape rules leave the water alone and change the steep land.
        let mut landscape = Vec::new();
        ColorRules::landscape().paint_into(&ramp, &map, (&normals, &[]), (0.4, true), &mut landscape);
        for (i, (&h, (a, b))) in
            map.samples().iter().zip(texels.chunks(4).zip(landscape.chunks(4))).enumerate()
        {
            if h < 0.4 {
                assert_eq!(a, b, "water texel {i}");
            }
        }
        assert_ne!(texels, landscape);
        assert_eq!(ColorRules::landscape().color_for(&ramp, (1.5, 60.0, 0.0), 0.4, true), OVERFLOW_COLOR);
    }

    #[test]
    fn painting_a_map_gives_each_texel_its_colour_for() {
        let (rules, ramp) = (ColorRules::landscape(), ColorRamp::terrain());
        let map = Heightmap::from_fn(70, 50, |x, y| ((x * 7 + y * 13) % 97) as f32 / 80.0).unwrap();
        let normals: Vec<[f32; 3]> = (0..70 * 50)
            .map(|i| {
                let a = (i % 90) as f32 / 90.0 * std::f32::consts::FRAC_PI_2;
                [a.sin(), a.cos(), 0.0]
            })
            .collect();
        // Cut depths through the gully layer's edge and past it (the last rows have none).
        let cuts: Vec<f32> = (0..70 * 40).map(|i| (i % 23) as f32 / 200.0).collect();
        let mut texels = Vec::new();
        rules.paint_into(&ramp, &map, (&normals, &cuts), (0.35, true), &mut texels);
        let cuts: Vec<f32> = (0..70 * 50).map(|i| cuts.get(i).copied().unwrap_or(0.0)).collect();
        for (k, (&h, n)) in map.samples().iter().zip(&normals).enumerate() {
            let expected = rules.color_for(&ramp, (h, slope_degrees(n[1]), cuts[k]), 0.35, true);
            assert_eq!(texels[k * 4..k * 4 + 3], expected, "texel {k}");
        }
    }

    #[test]
    fn the_slope_is_the_angle_of_the_normal_within_a_hundredth_of_a_degree() {
        for k in 0..=2000 {
            let up = k as f32 / 1000.0 - 1.0;
            let exact = up.acos().to_degrees();
            assert!((slope_degrees(up) - exact).abs() < 0.01, "{up}: {} vs {exact}", slope_degrees(up));
        }
    }

    #[test]
    fn gullies_are_darker_only_where_the_filter_cut() {
        let (rules, ramp) = (ColorRules::landscape(), ColorRamp::terrain());
        // Meadow height on a gentle slope: grass without a cut, darker in a deep gully.
        let uncut = rules.color_for(&ramp, (0.6, 15.0, 0.0), 0.42, false);
        let gully = rules.color_for(&ramp, (0.6, 15.0, 0.1), 0.42, false);
        let brightness = |c: [u8; 3]| c.iter().map(|&v| u32::from(v)).sum::<u32>();
        assert!(brightness(gully) + 60 < brightness(uncut), "{gully:?} vs {uncut:?}");
        // Without the gully layer the same cut changes nothing.
        let mut without = rules.clone();
        without.layers.retain(|l| l.cuts[0] <= 0.0);
        assert_eq!(without.color_for(&ramp, (0.6, 15.0, 0.1), 0.42, false), uncut);
        // Water keeps its colour whatever the cut.
        assert_eq!(
            rules.color_for(&ramp, (0.2, 15.0, 0.1), 0.42, false),
            rules.color_for(&ramp, (0.2, 15.0, 0.0), 0.42, false)
        );
    }

    #[test]
    fn bad_numbers_are_clamped() {
        let wild = ColorLayer {
            heights: [f32::NAN, 1e9],
            slopes: [-5.0, 400.0],
            height_blend: f32::INFINITY,
            cuts: [f32::NEG_INFINITY, f32::NAN],
            cut_blend: -1.0,
            ..Default::default()
        };
        let rules = ColorRules { layers: vec![wild] }.clamped();
        let l = rules.layers[0];
        assert_eq!((l.heights, l.slopes, l.height_blend), ([0.0, 10.0], [0.0, 90.0], 1.0));
        assert_eq!((l.cuts, l.cut_blend), ([-10.0, 10.0], 0.0));
        assert_eq!(ColorRules::landscape().clamped(), ColorRules::landscape());
    }
}
