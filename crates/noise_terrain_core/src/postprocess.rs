//! Post-processing of a whole [`Heightmap`] (seed 002): stretch, redistribution, island mask,
//! terraces. Applied in that order.

use crate::field::clamp_or;
use crate::heightmap::Heightmap;

/// Shape of the island falloff.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum IslandShape {
    /// Distance from the centre: a round island, corners fully sunk.
    #[default]
    Radial,
    /// Largest axis distance: a square island that keeps more land.
    Square,
}

impl IslandShape {
    /// Both shapes.
    pub const ALL: [IslandShape; 2] = [IslandShape::Radial, IslandShape::Square];

    /// Name as the export tool spells it.
    pub fn name(self) -> &'static str {
        match self {
            IslandShape::Radial => "radial",
            IslandShape::Square => "square",
        }
    }
}

crate::basis::parse_by_name!(IslandShape);

/// Whole-map post-processing. The default changes nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct PostProcess {
    /// Map the map's actual min and max to 0 and 1 (seed 000: "stretch the range before
    /// colouring").
    pub stretch: bool,
    /// Redistribution `h^power`, `[0.1, 10]`: above 1 flattens lowlands and sharpens peaks.
    pub power: f32,
    /// Island falloff shape.
    pub island_shape: IslandShape,
    /// How far the border is pulled to 0, `[0, 1]`; 0 turns the mask off.
    pub island_strength: f32,
    /// Width of the falloff band, as a share of the half-width, `[0.01, 1]`.
    pub island_width: f32,
    /// Number of terrace levels, `0..=64`; 0 or 1 turns terraces off.
    pub terraces: u32,
    /// 0: terraces are invisible; 1: flat steps. `[0, 1]`.
    pub terrace_sharpness: f32,
}

impl Default for PostProcess {
    fn default() -> Self {
        Self {
            stretch: false,
            power: 1.0,
            island_shape: IslandShape::Radial,
            island_strength: 0.0,
            island_width: 0.5,
            terraces: 0,
            terrace_sharpness: 0.7,
        }
    }
}

/// The part of a map that counts as "the map" (the rest is a border, e.g. for normals): the
/// island mask is laid over it and stretch reads its min and max.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// First column of the frame.
    pub x: u32,
    /// First row of the frame.
    pub y: u32,
    /// Columns in the frame.
    pub width: u32,
    /// Rows in the frame.
    pub height: u32,
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

impl PostProcess {
    /// The settings with every value in range (NaN becomes the default).
    pub fn clamped(&self) -> Self {
        let d = Self::default();
        Self {
            power: clamp_or(self.power, (0.1, 10.0), d.power),
            island_strength: clamp_or(self.island_strength, (0.0, 1.0), 0.0),
            island_width: clamp_or(self.island_width, (0.01, 1.0), d.island_width),
            terraces: self.terraces.min(64),
            terrace_sharpness: clamp_or(self.terrace_sharpness, (0.0, 1.0), d.terrace_sharpness),
            ..*self
        }
    }

    /// Whether any step changes heights.
    pub fn is_active(&self) -> bool {
        let s = self.clamped();
        s.stretch || s.power != 1.0 || s.island_strength > 0.0 || s.terraces > 1
    }

    /// Applies every step to the whole map.
    pub fn apply(&self, map: &mut Heightmap) {
        let frame = Frame { x: 0, y: 0, width: map.width(), height: map.height() };
        self.apply_in_frame(map, frame);
    }

    /// Applies every step to the whole map, with the frame defining the island's extent and the
    /// stretch range; samples outside the frame continue the same functions.
    pub fn apply_in_frame(&self, map: &mut Heightmap, frame: Frame) {
        let s = self.clamped();
        if !s.is_active() {
            return;
        }
        let (lo, hi) = if s.stretch { frame_range(map, frame) } else { (0.0, 1.0) };
        let inv = if hi > lo { 1.0 / (hi - lo) } else { 0.0 };
        let span = |n: u32| (n.max(2) - 1) as f32;
        let width = map.width();
        for (index, h) in map.samples_mut().iter_mut().enumerate() {
            let (i, j) = (index as u32 % width, index as u32 / width);
            let mut v = *h;
            if s.stretch {
                v = (v - lo) * inv;
            }
            if s.power != 1.0 {
                v = v.max(0.0).powf(s.power);
            }
            if s.island_strength > 0.0 {
                let u = (i as f32 - frame.x as f32) / span(frame.width) - 0.5;
                let w = (j as f32 - frame.y as f32) / span(frame.height) - 0.5;
                let d = match s.island_shape {
                    IslandShape::Radial => u.hypot(w) * 2.0,
                    IslandShape::Square => u.abs().max(w.abs()) * 2.0,
                };
                let mask = 1.0 - smoothstep(1.0 - s.island_width, 1.0, d);
                v *= 1.0 - s.island_strength * (1.0 - mask);
            }
            if s.terraces > 1 {
                v = terrace(v, s.terraces, s.terrace_sharpness);
            }
            *h = v;
        }
    }
}

/// Min and max of the samples inside the frame.
fn frame_range(map: &Heightmap, frame: Frame) -> (f32, f32) {
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for j in frame.y..frame.y + frame.height {
        for i in frame.x..frame.x + frame.width {
            if let Some(h) = map.get(i, j) {
                lo = lo.min(h);
                hi = hi.max(h);
            }
        }
    }
    (lo, hi)
}

/// `levels` steps over `[0, 1]`: a flat part for the first `sharpness` of each step, then a ramp
/// to the next level. Heights are clamped to `[0, 1]` first.
fn terrace(h: f32, levels: u32, sharpness: f32) -> f32 {
    let n = levels as f32;
    let x = h.clamp(0.0, 1.0) * n;
    let k = x.floor().min(n - 1.0);
    let t = x - k;
    let ramp = if sharpness >= 1.0 { 0.0 } else { ((t - sharpness) / (1.0 - sharpness)).clamp(0.0, 1.0) };
    (k + ramp) / n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::NoiseSettings;

    fn noise_map(n: u32) -> Heightmap {
        Heightmap::generate(&NoiseSettings::default(), n, n).unwrap()
    }

    #[test]
    fn stretch_gives_exactly_zero_and_one() {
        let mut map = noise_map(64);
        PostProcess { stretch: true, ..Default::default() }.apply(&mut map);
        let s = map.stats();
        assert_eq!((s.min, s.max), (0.0, 1.0));
    }

    #[test]
    fn island_is_zero_at_the_border_and_keeps_the_centre() {
        let mut map = Heightmap::from_fn(65, 65, |_, _| 0.8).unwrap();
        let island = PostProcess { island_strength: 1.0, island_width: 0.4, ..Default::default() };
        island.apply(&mut map);
        for k in 0..65 {
            for (x, y) in [(k, 0), (k, 64), (0, k), (64, k)] {
                assert_eq!(map.get(x, y), Some(0.0), "border at {x},{y}");
            }
        }
        assert_eq!(map.get(32, 32), Some(0.8));
        let mut square = Heightmap::from_fn(65, 65, |_, _| 0.8).unwrap();
        PostProcess { island_shape: IslandShape::Square, ..island }.apply(&mut square);
        assert_eq!((square.get(0, 32), square.get(32, 32)), (Some(0.0), Some(0.8)));
        let before = noise_map(32);
        let mut untouched = before.clone();
        PostProcess { island_strength: 0.0, ..island }.apply(&mut untouched);
        assert_eq!(untouched, before);
    }

    #[test]
    fn terraces_make_the_asked_number_of_levels() {
        for levels in [2, 5, 9] {
            let mut map = noise_map(128);
            PostProcess { stretch: true, terraces: levels, terrace_sharpness: 1.0, ..Default::default() }
                .apply(&mut map);
            let mut distinct: Vec<u32> = map.samples().iter().map(|h| h.to_bits()).collect();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), levels as usize);
        }
        assert_eq!(terrace(0.37, 4, 0.0), 0.37);
        assert!((terrace(0.999, 4, 0.5) - 0.998).abs() < 1e-3, "continuous into the top");
    }

    #[test]
    fn power_redistributes() {
        let mut map = Heightmap::from_samples(3, 1, vec![0.25, 0.5, 1.0]).unwrap();
        PostProcess { power: 2.0, ..Default::default() }.apply(&mut map);
        assert_eq!(map.samples(), &[0.0625, 0.25, 1.0]);
    }

    #[test]
    fn the_default_changes_nothing() {
        let before = noise_map(16);
        let mut after = before.clone();
        PostProcess::default().apply(&mut after);
        assert_eq!(before, after);
    }
}
