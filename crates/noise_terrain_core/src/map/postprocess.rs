//! Post-processing of a whole [`Heightmap`]: stretch, redistribution, island mask,
//! terraces. Applied in that order.

use crate::clamp::{UNIT_RANGE, clamp_or};
use crate::field::dual::{Dual, Varying};
use crate::grid::GridWindow;
use crate::map::frame::Frame;
use crate::map::heightmap::Heightmap;

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

crate::field::names::parse_by_name!(IslandShape);

/// Whole-map post-processing. The default changes nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct PostProcess {
    /// Map the map's actual min and max to 0 and 1: gradient fBm rarely comes near either end,
    /// and a colour ramp then shows little water or snow.
    pub stretch: bool,
    /// Redistribution `h^power`, [`POWER_RANGE`](Self::POWER_RANGE): above 1 flattens lowlands
    /// and sharpens peaks.
    pub power: f32,
    /// Island falloff shape.
    pub island_shape: IslandShape,
    /// How far the border is pulled to 0, `[0, 1]`; 0 turns the mask off.
    pub island_strength: f32,
    /// Width of the falloff band, as a share of the half-width,
    /// [`ISLAND_WIDTH_RANGE`](Self::ISLAND_WIDTH_RANGE).
    pub island_width: f32,
    /// Number of terrace levels, `0..=`[`MAX_TERRACES`](Self::MAX_TERRACES); 0 or 1 turns
    /// terraces off.
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

pub(crate) fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

impl PostProcess {
    /// The range of [`power`](Self::power).
    pub const POWER_RANGE: (f32, f32) = (0.1, 10.0);
    /// The range of [`island_width`](Self::island_width).
    pub const ISLAND_WIDTH_RANGE: (f32, f32) = (0.01, 1.0);
    /// The most [`terraces`](Self::terraces).
    pub const MAX_TERRACES: u32 = 64;

    /// The settings with every value in range (NaN becomes the default).
    pub fn clamped(&self) -> Self {
        let d = Self::default();
        Self {
            power: clamp_or(self.power, Self::POWER_RANGE, d.power),
            island_strength: clamp_or(self.island_strength, UNIT_RANGE, 0.0),
            island_width: clamp_or(self.island_width, Self::ISLAND_WIDTH_RANGE, d.island_width),
            terraces: self.terraces.min(Self::MAX_TERRACES),
            terrace_sharpness: clamp_or(self.terrace_sharpness, UNIT_RANGE, d.terrace_sharpness),
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
        let span = |n: u32| (n.max(2) - 1) as f32;
        let width = map.width();
        for (index, h) in map.samples_mut().iter_mut().enumerate() {
            let (i, j) = (index as u32 % width, index as u32 / width);
            let u = (i as f32 - frame.x as f32) / span(frame.width) - 0.5;
            let w = (j as f32 - frame.y as f32) / span(frame.height) - 0.5;
            *h = s.shape(*h, (lo, hi), [u, w], [0.0; 2]);
        }
    }

    /// [`apply_in_frame`](Self::apply_in_frame) to heights with their gradients per map unit
    /// (one per sample, on a lattice of `pixels_per_unit`), carried through every step by the
    /// chain rule; the heights are bit for bit what `apply_in_frame` gives. Without one gradient
    /// per sample (an empty array, say) only the heights are processed.
    pub fn apply_in_frame_with_gradients(
        &self,
        map: &mut Heightmap,
        gradients: &mut [[f32; 2]],
        frame: Frame,
        pixels_per_unit: f64,
    ) {
        if gradients.len() != map.samples().len() {
            return self.apply_in_frame(map, frame);
        }
        let s = self.clamped();
        if !s.is_active() {
            return;
        }
        let (lo, hi) = if s.stretch { frame_range(map, frame) } else { (0.0, 1.0) };
        let span = |n: u32| (n.max(2) - 1) as f32;
        // The island's position moves by one frame per frame width: pixels per unit over the span.
        let per_unit =
            [pixels_per_unit as f32 / span(frame.width), pixels_per_unit as f32 / span(frame.height)];
        let width = map.width();
        for (index, (h, g)) in map.samples_mut().iter_mut().zip(gradients.iter_mut()).enumerate() {
            let (i, j) = (index as u32 % width, index as u32 / width);
            let u = (i as f32 - frame.x as f32) / span(frame.width) - 0.5;
            let w = (j as f32 - frame.y as f32) / span(frame.height) - 0.5;
            let d = s.shape(Dual::new(*h, *g), (lo, hi), [u, w], per_unit);
            (*h, *g) = (d.value, d.gradient);
        }
    }

    /// Applies every step to `map`, the part at pixel `at` of a `whole[0] × whole[1]` map: the
    /// island is laid over the whole map and stretch maps `range` (the whole map's min and max,
    /// when stretching) to `[0, 1]`. Bit for bit what [`apply`](Self::apply) gives the whole map
    /// at the same pixels, so a map made part by part (tiles) equals the map made at once.
    pub fn apply_in_part(&self, map: &mut Heightmap, at: [u32; 2], whole: [u32; 2], range: (f32, f32)) {
        let s = self.clamped();
        if !s.is_active() {
            return;
        }
        let span = |n: u32| (n.max(2) - 1) as f32;
        let width = map.width();
        for (index, h) in map.samples_mut().iter_mut().enumerate() {
            let (i, j) = (at[0] + index as u32 % width, at[1] + index as u32 / width);
            // The same operations as `apply_in_frame` with the whole map as its frame.
            let u = (i as f32 - 0.0) / span(whole[0]) - 0.5;
            let w = (j as f32 - 0.0) / span(whole[1]) - 0.5;
            *h = s.shape(*h, range, [u, w], [0.0; 2]);
        }
    }

    /// Applies every step in world space, so that any window of the same pixel lattice (any
    /// chunk of an endless terrain) gets the same values at the same points:
    /// - stretch maps `bounds` (the field's computed value bounds, see
    ///   [`NoiseSettings::value_bounds`](crate::NoiseSettings::value_bounds)) to `[0, 1]`
    ///   instead of a map's own min and max, which differ from chunk to chunk;
    /// - the island is centred on map coordinate `(0, 0)` and reaches its border at half a map
    ///   unit: the island a one-unit map would show, centred on the origin.
    ///
    /// Pixel `(i, j)` of `map` is at the map coordinates `window` gives it (see
    /// [`GridWindow`]; its size is not used).
    pub fn apply_in_world(&self, map: &mut Heightmap, window: GridWindow, bounds: (f32, f32)) {
        let s = self.clamped();
        if !s.is_active() {
            return;
        }
        let width = map.width();
        let at = |origin: i64, k: u32| ((origin as f64 + k as f64) / window.pixels_per_unit) as f32;
        for (index, h) in map.samples_mut().iter_mut().enumerate() {
            let (i, j) = (index as u32 % width, index as u32 / width);
            *h = s.shape(*h, bounds, [at(window.origin[0], i), at(window.origin[1], j)], [0.0; 2]);
        }
    }

    /// [`apply_in_world`](Self::apply_in_world) to heights with their gradients per map unit
    /// (`gradients`, one per sample, as [`fill_grid_with_gradients`](crate::fill_grid_with_gradients)
    /// gives them), carried through every step by the chain rule: the heights are bit for bit
    /// what `apply_in_world` gives. Flat where a step flattens (clamps, a terrace's level part).
    /// Without one gradient per sample (an empty array, say) only the heights are processed.
    pub fn apply_in_world_with_gradients(
        &self,
        map: &mut Heightmap,
        gradients: &mut [[f32; 2]],
        window: GridWindow,
        bounds: (f32, f32),
    ) {
        if gradients.len() != map.samples().len() {
            return self.apply_in_world(map, window, bounds);
        }
        let s = self.clamped();
        if !s.is_active() {
            return;
        }
        let width = map.width();
        let at = |origin: i64, k: u32| ((origin as f64 + k as f64) / window.pixels_per_unit) as f32;
        for (index, (h, g)) in map.samples_mut().iter_mut().zip(gradients.iter_mut()).enumerate() {
            let (i, j) = (index as u32 % width, index as u32 / width);
            // The island's position is the map coordinate itself: one per map unit.
            let d = s.shape(
                Dual::new(*h, *g),
                bounds,
                [at(window.origin[0], i), at(window.origin[1], j)],
                [1.0, 1.0],
            );
            (*h, *g) = (d.value, d.gradient);
        }
    }

    /// One height with its gradient per map unit, at map point `at`, through the steps of
    /// [`apply_in_world_with_gradients`](Self::apply_in_world_with_gradients): what a grid sample
    /// at that point gets. `bounds` are the field's computed bounds.
    pub fn apply_at_world_point(&self, height: Dual, at: [f64; 2], bounds: (f32, f32)) -> Dual {
        self.at_world_point(height, at, bounds)
    }

    /// [`apply_at_world_point`](Self::apply_at_world_point) for a height alone. Every step is
    /// non-decreasing in the height at a given point (stretch, power, the island's factor in
    /// `[0, 1]`, terraces), so bounds of a height go to bounds of the result.
    pub(crate) fn value_at_world_point(&self, height: f32, at: [f64; 2], bounds: (f32, f32)) -> f32 {
        self.at_world_point(height, at, bounds)
    }

    fn at_world_point<T: Varying>(&self, height: T, at: [f64; 2], bounds: (f32, f32)) -> T {
        let s = self.clamped();
        if !s.is_active() {
            return height;
        }
        s.shape(height, bounds, [at[0] as f32, at[1] as f32], [1.0, 1.0])
    }

    /// One height through every step of these (clamped) settings: `(lo, hi)` is stretched to
    /// `[0, 1]`; `[u, w]` is the position relative to the island's centre, in units of the
    /// island's diameter, which moves by `per_unit` per map unit along x and y. A plain height
    /// (`f32`) or one with its gradient ([`Dual`]).
    fn shape<T: Varying>(&self, mut v: T, (lo, hi): (f32, f32), [u, w]: [f32; 2], per_unit: [f32; 2]) -> T {
        if self.stretch {
            // A division, not a multiplication by the inverse: the highest height maps to
            // exactly 1.
            v = if hi > lo { (v - T::constant(lo)).divided_by(hi - lo) } else { T::constant(0.0) };
        }
        if self.power != 1.0 {
            let p = self.power;
            // The slope `p·vᵖ⁻¹` as `p·vᵖ / v`: the same power as the value's, computed once.
            let power = |v: f32| v.max(0.0).powf(p);
            v = v.map(power, |v| if v > 0.0 { p * power(v) / v } else { 0.0 });
        }
        if self.island_strength > 0.0 {
            // The distance from the centre and its gradient along the map's axes.
            let (d, dd) = match self.island_shape {
                IslandShape::Radial => {
                    let r = u.hypot(w);
                    let g = if r > 0.0 { [2.0 * u / r, 2.0 * w / r] } else { [0.0; 2] };
                    (r * 2.0, g)
                }
                IslandShape::Square if u.abs() >= w.abs() => {
                    (u.abs().max(w.abs()) * 2.0, [2.0 * u.signum(), 0.0])
                }
                IslandShape::Square => (u.abs().max(w.abs()) * 2.0, [0.0, 2.0 * w.signum()]),
            };
            let edge = 1.0 - self.island_width;
            let mask = 1.0 - smoothstep(edge, 1.0, d);
            let factor = 1.0 - self.island_strength * (1.0 - mask);
            // d factor / d d = -strength · smoothstep' (the mask falls as the distance grows).
            let slope = -self.island_strength * smoothstep_slope(edge, 1.0, d);
            let gradient = [slope * dd[0] * per_unit[0], slope * dd[1] * per_unit[1]];
            v = v * T::varying(factor, gradient);
        }
        if self.terraces > 1 {
            let (levels, sharpness) = (self.terraces, self.terrace_sharpness);
            v = v.map(|v| terrace(v, levels, sharpness), |v| terrace_slope(v, levels, sharpness));
        }
        v
    }
}

/// The slope of [`smoothstep`] at `x`.
fn smoothstep_slope(e0: f32, e1: f32, x: f32) -> f32 {
    let t = (x - e0) / (e1 - e0);
    if (0.0..=1.0).contains(&t) { 6.0 * t * (1.0 - t) / (e1 - e0) } else { 0.0 }
}

/// The slope of [`terrace`] at `h`: 0 on the level parts (and outside `[0, 1]`), the ramp's
/// slope between them.
fn terrace_slope(h: f32, levels: u32, sharpness: f32) -> f32 {
    if !(0.0..=1.0).contains(&h) || sharpness >= 1.0 {
        return 0.0;
    }
    let n = levels as f32;
    let x = h * n;
    let t = x - x.floor().min(n - 1.0);
    let on_ramp = t > sharpness && (t - sharpness) / (1.0 - sharpness) < 1.0;
    if on_ramp { 1.0 / (1.0 - sharpness) } else { 0.0 }
}

/// Min and max of the samples inside the frame (clipped to the map); `(0, 1)`, which stretches
/// nothing, when no sample is inside.
fn frame_range(map: &Heightmap, frame: Frame) -> (f32, f32) {
    let frame = frame.clipped_to(map.width(), map.height());
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for j in frame.y..frame.y + frame.height {
        for &h in &map.row(j)[frame.x as usize..(frame.x + frame.width) as usize] {
            lo = lo.min(h);
            hi = hi.max(h);
        }
    }
    if lo > hi { (0.0, 1.0) } else { (lo, hi) }
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
    fn gradients_follow_every_step_by_the_chain_rule() {
        let noise = NoiseSettings { octaves: 4, frequency: 2.0, ..Default::default() };
        let sampler = noise.sampler();
        let bounds = noise.value_bounds();
        let cases = [
            PostProcess { stretch: true, ..Default::default() },
            PostProcess { power: 1.7, ..Default::default() },
            PostProcess { power: 0.6, ..Default::default() },
            PostProcess { island_strength: 0.8, island_width: 0.5, ..Default::default() },
            PostProcess { island_strength: 1.0, island_shape: IslandShape::Square, ..Default::default() },
            PostProcess { stretch: true, terraces: 6, terrace_sharpness: 0.4, ..Default::default() },
            PostProcess {
                stretch: true,
                power: 1.3,
                island_strength: 0.7,
                terraces: 4,
                ..Default::default()
            },
        ];
        // A 3 × 3 window around each point, a ten-thousandth of a map unit apart.
        let ppu = 1e4;
        let (mut checked, mut creases) = (0, 0);
        for post in cases {
            for k in 0..400 {
                let (x, y) = ((k % 20) as f64 * 0.049 - 0.49, (k / 20) as f64 * 0.047 - 0.47);
                let origin = [(x * ppu) as i64 - 1, (y * ppu) as i64 - 1];
                let window = GridWindow { origin, width: 3, height: 3, pixels_per_unit: ppu };
                let mut map = Heightmap::from_samples(3, 3, vec![0.0; 9]).unwrap();
                let mut gradients = vec![[0.0f32; 2]; 9];
                crate::fill_grid_with_gradients(&sampler, window, map.samples_mut(), &mut gradients);
                let mut plain = map.clone();
                post.apply_in_world(&mut plain, window, bounds);
                post.apply_in_world_with_gradients(&mut map, &mut gradients, window, bounds);
                assert_eq!(map, plain, "{post:?}: the heights differ");
                let h = |i: u32, j: u32| f64::from(map.get(i, j).unwrap());
                let step = 2.0 / ppu;
                for (axis, (ahead, behind)) in
                    [(h(2, 1), h(0, 1)), (h(1, 2), h(1, 0))].into_iter().enumerate()
                {
                    let numeric = (ahead - behind) / step;
                    let analytic = f64::from(gradients[4][axis]);
                    let scale = numeric.abs().max(analytic.abs()).max(0.5);
                    checked += 1;
                    if (analytic - numeric).abs() > 2e-2 * scale {
                        // A crease within the step (a terrace's corner, the island's edge): one
                        // side's slope.
                        let one_sided = [(ahead - h(1, 1)) / (step / 2.0), (h(1, 1) - behind) / (step / 2.0)];
                        assert!(
                            one_sided.iter().any(|n| (analytic - n).abs() <= 5e-2 * n.abs().max(0.5)),
                            "{post:?} at ({x}, {y}), axis {axis}: analytic {analytic}, numeric {numeric}, sides {one_sided:?}"
                        );
                        creases += 1;
                    }
                }
            }
        }
        assert!(creases * 20 < checked, "{creases} of {checked} at creases");
    }

    #[test]
    fn gradients_follow_the_steps_over_a_frame_too() {
        let noise = NoiseSettings { octaves: 3, frequency: 2.0, ..Default::default() };
        let n = 258u32;
        let window = GridWindow { origin: [-1, -1], width: n, height: n, pixels_per_unit: f64::from(n - 2) };
        let mut gradients = Vec::new();
        let mut map = Heightmap::generate_region_with_gradients(&noise, window, &mut gradients).unwrap();
        let frame = Frame { x: 1, y: 1, width: n - 2, height: n - 2 };
        let post = PostProcess { stretch: true, power: 1.4, island_strength: 0.9, ..Default::default() };
        let mut plain = map.clone();
        post.apply_in_frame(&mut plain, frame);
        post.apply_in_frame_with_gradients(&mut map, &mut gradients, frame, f64::from(n - 2));
        assert_eq!(map, plain);
        let step = 2.0 / f64::from(n - 2);
        let mut worst = 0.0f64;
        for j in (2..n - 2).step_by(7) {
            for i in (2..n - 2).step_by(7) {
                let h = |i: u32, j: u32| f64::from(map.get(i, j).unwrap());
                let numeric = [(h(i + 1, j) - h(i - 1, j)) / step, (h(i, j + 1) - h(i, j - 1)) / step];
                let g = gradients[(j * n + i) as usize];
                for (a, b) in g.iter().zip(numeric) {
                    worst = worst.max((f64::from(*a) - b).abs() / b.abs().max(1.0));
                }
            }
        }
        // A pixel apart (1/256 of the map): central differences are good to a few percent.
        assert!(worst < 0.05, "worst relative difference {worst}");
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

    #[test]
    fn world_space_post_processing_agrees_on_every_window_and_level() {
        let settings = NoiseSettings { octaves: 5, seed: 3, ..Default::default() };
        let post = PostProcess {
            stretch: true,
            power: 1.3,
            island_strength: 1.0,
            island_width: 0.6,
            terraces: 5,
            ..Default::default()
        };
        let bounds = settings.value_bounds();
        let processed = |origin: [i64; 2], size: u32, ppu: f64| {
            let window = GridWindow { origin, width: size, height: size, pixels_per_unit: ppu };
            let mut map = Heightmap::generate_region(&settings, origin, size, size, ppu).unwrap();
            post.apply_in_world(&mut map, window, bounds);
            map
        };
        // Two overlapping windows at one level, and a coarser one (every other pixel).
        let a = processed([-40, -40], 64, 64.0);
        let b = processed([0, -8], 64, 64.0);
        let coarse = processed([-20, -20], 40, 32.0);
        for (i, j) in [(40u32, 40u32), (63, 45), (50, 33)] {
            let here = a.get(i, j).unwrap();
            assert_eq!(here.to_bits(), b.get(i - 40, j - 32).unwrap().to_bits());
            if i % 2 == 0 && j % 2 == 0 {
                assert_eq!(here.to_bits(), coarse.get(i / 2, j / 2).unwrap().to_bits());
            }
        }
        // The island is centred on map coordinate 0 and sinks everything half a unit away.
        let far = processed([40, 0], 8, 64.0);
        assert!(far.samples().iter().all(|&h| h == 0.0), "{:?}", far.samples());
        assert!(a.get(40, 40).unwrap() > 0.0);
    }

    #[test]
    fn frames_of_any_size_and_position_are_clipped_to_the_map() {
        let before = noise_map(16);
        let stretch = PostProcess { stretch: true, island_strength: 1.0, ..Default::default() };
        for frame in [
            Frame { x: 2, y: u32::MAX - 1, width: 5, height: 10 },
            Frame { x: 0, y: 0, width: u32::MAX, height: u32::MAX },
            Frame { x: u32::MAX, y: u32::MAX, width: u32::MAX, height: u32::MAX },
            Frame { x: 3, y: 3, width: 0, height: 0 },
        ] {
            let mut map = before.clone();
            stretch.apply_in_frame(&mut map, frame);
            assert!(map.samples().iter().all(|h| h.is_finite()), "{frame:?}");
            let clipped = frame.clipped_to(16, 16);
            assert!(clipped.x + clipped.width <= 16 && clipped.y + clipped.height <= 16);
        }
        assert_eq!(
            Frame { x: 10, y: 4, width: 100, height: 3 }.clipped_to(16, 16),
            Frame { x: 10, y: 4, width: 6, height: 3 }
        );
        let mut whole = before.clone();
        let only_stretch = PostProcess { stretch: true, ..Default::default() };
        only_stretch.apply_in_frame(&mut whole, Frame { x: 0, y: 0, width: u32::MAX, height: u32::MAX });
        let s = whole.stats();
        assert_eq!((s.min, s.max), (0.0, 1.0), "a frame over the whole map stretches the whole map");
    }

    #[test]
    fn a_map_post_processed_in_parts_equals_the_whole() {
        let post = PostProcess {
            stretch: true,
            power: 1.3,
            island_strength: 0.8,
            terraces: 5,
            ..Default::default()
        };
        let mut whole = noise_map(40);
        let untouched = whole.clone();
        post.apply(&mut whole);
        let s = untouched.stats();
        for (x, y, w, h) in [(0, 0, 16, 16), (16, 8, 24, 32), (39, 39, 1, 1)] {
            let mut part = untouched.crop(Frame { x, y, width: w, height: h }).unwrap();
            post.apply_in_part(&mut part, [x, y], [40, 40], (s.min, s.max));
            for j in 0..h {
                for i in 0..w {
                    assert_eq!(part.get(i, j).unwrap().to_bits(), whole.get(x + i, y + j).unwrap().to_bits());
                }
            }
        }
    }
}
