//! [`WorldGround`]: the ground of an endless terrain at any world point, without a grid.

use crate::field::FieldSampler;
use crate::scatter::rule::Ground;
use crate::{NoiseSettings, PostProcess, RiverWater, RiversNear};

/// The ground of an endless terrain at world points: the field at `world / world_per_unit` map
/// units, post-processed in world space as the chunks are, with its exact normal. A pure
/// function of the point, so it does not depend on which chunk, at which level of detail, asks.
/// With the endless rivers ([`with_rivers`](Self::with_rivers)) the ground is carved by their
/// valleys as the chunks are, and nothing is placed in a river or on a lake.
///
/// ```
/// use noise_terrain_core::{NoiseSettings, PostProcess, WorldGround};
///
/// // An endless terrain's ground: 1000 world units a map unit, heights ×150.
/// let ground = WorldGround::new(&NoiseSettings::default(), &PostProcess::default(), 1000.0, 150.0);
/// let here = ground.at(12_345.0, -6_789.0);
/// assert!((0.0..=1.0).contains(&here.height) && here.normal[1] > 0.0);
/// ```
#[derive(Clone, Debug)]
pub struct WorldGround {
    sampler: FieldSampler,
    post: PostProcess,
    bounds: (f32, f32),
    world_per_unit: f64,
    height_scale: f32,
    rivers: Option<RiversNear>,
}

impl WorldGround {
    /// The ground of `noise` post-processed by `post`, `world_per_unit` world units to a map
    /// unit (the plugin's `world_size`), `height_scale` world units to a noise height of 1 (it
    /// sets the slopes).
    pub fn new(noise: &NoiseSettings, post: &PostProcess, world_per_unit: f32, height_scale: f32) -> Self {
        let noise = noise.clamped();
        Self {
            sampler: noise.sampler(),
            post: post.clamped(),
            bounds: noise.value_bounds(),
            world_per_unit: f64::from(world_per_unit.max(1e-6)),
            height_scale,
            rivers: None,
        }
    }

    /// The ground carved by the rivers and lakes `near` a rectangle of the map (see
    /// [`RiverNetwork::near`](crate::RiverNetwork::near), the network of the same field and
    /// post-processing): asked at points of that rectangle, the ground is the carved chunks'
    /// (its cut the deeper of the filter's and the rivers'), and [`within`](Self::within) places
    /// nothing in a river's channel or on a lake.
    pub fn with_rivers(self, near: RiversNear) -> Self {
        Self { rivers: Some(near), ..self }
    }

    /// The river or lake at world `(x, z)` (`None` on dry ground and without rivers).
    pub fn water_at(&self, x: f64, z: f64) -> Option<RiverWater> {
        self.rivers.as_ref()?.water_at(self.map_point(x, z))
    }

    /// World `(x, z)` in map units.
    fn map_point(&self, x: f64, z: f64) -> [f64; 2] {
        [x / self.world_per_unit, z / self.world_per_unit]
    }

    /// The ground at world `(x, z)`.
    pub fn at(&self, x: f64, z: f64) -> Ground {
        let at = self.map_point(x, z);
        let (raw, cut) = self.sampler.sample_with_gradient_and_cut(at[0], at[1]);
        let d = self.post.apply_at_world_point(raw, at, self.bounds);
        let ((height, gradient), cut) = match &self.rivers {
            Some(rivers) => {
                let carved = rivers.carve_point(at, d.value, d.gradient);
                (carved, cut.max(d.value - carved.0))
            }
            None => ((d.value, d.gradient), cut),
        };
        // World rise per world unit: noise per map unit, times the height scale, over the map unit.
        let k = self.height_scale / self.world_per_unit as f32;
        let n = glam::Vec3::new(-gradient[0] * k, 1.0, -gradient[1] * k).normalize_or(glam::Vec3::Y);
        Ground { height, normal: n.to_array(), cut }
    }

    /// The ground at world `(x, z)` if its height may lie in `heights` (`[low, high]`, noise
    /// units, as [`ScatterRule::height_window`](crate::ScatterRule::height_window) gives them);
    /// `None` where it surely does not, found from bounds of the height that cost a fraction of
    /// the ground ([`FieldSampler::sample_bounds`]). A point it gives is [`at`](Self::at)'s.
    pub fn at_within(&self, x: f64, z: f64, [low, high]: [f32; 2]) -> Option<Ground> {
        let at = self.map_point(x, z);
        // The bounds are the uncarved field's: a valley may take the ground below them.
        if self.rivers.as_ref().is_some_and(|r| r.reaches(at)) {
            return Some(self.at(x, z));
        }
        let [below, above] = self.sampler.sample_bounds(at[0], at[1]);
        let lowest = self.post.value_at_world_point(below, at, self.bounds);
        let highest = self.post.value_at_world_point(above, at, self.bounds);
        // A margin for the rounding of the post-processing's steps.
        let margin = 1e-5 * (1.0 + lowest.abs().max(highest.abs()));
        (highest + margin >= low && lowest - margin <= high).then(|| self.at(x, z))
    }

    /// The ground for a rule whose heights lie in `heights` (see [`at_within`](Self::at_within)),
    /// as a function for [`scatter_points`](crate::scatter_points): it asks `at_within` while
    /// that pays, and [`at`](Self::at) once more than one in three of the first 16 points or
    /// later pass (the bounds cost a third of the ground with the erosion filter, two thirds
    /// without). It places the same points either way; only the time differs. With rivers, no
    /// point in a river or on a lake ([`water_at`](Self::water_at)).
    pub fn within(&self, heights: [f32; 2]) -> impl FnMut(f64, f64) -> Option<Ground> + '_ {
        let (mut asked, mut passed) = (0u32, 0u32);
        move |x, z| {
            if self.water_at(x, z).is_some() {
                return None;
            }
            if asked >= 16 && passed * 3 > asked {
                return Some(self.at(x, z));
            }
            asked += 1;
            let ground = self.at_within(x, z, heights);
            passed += u32::from(ground.is_some());
            ground
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Basis, ChunkKey, Fractal, chunk_window, fill_grid_with_gradients};

    /// The ground's heights are the chunks' heights at their vertices (to rounding), and its
    /// normal leans the way the heights fall.
    #[test]
    fn the_ground_is_the_chunks_surface() {
        let plain = NoiseSettings {
            basis: Basis::Gradient,
            fractal: Fractal::Fbm,
            octaves: 5,
            seed: 9,
            ..Default::default()
        };
        let filter = crate::ErosionFilter { enabled: true, ..Default::default() };
        ground_matches_chunk(plain);
        ground_matches_chunk(NoiseSettings { erosion_filter: filter, ..plain });
    }

    fn ground_matches_chunk(noise: NoiseSettings) {
        let post = PostProcess { power: 1.4, ..Default::default() };
        let (world, chunk) = (500.0f32, 64.0);
        let ground = WorldGround::new(&noise, &post, world, 80.0);
        let key = ChunkKey { level: 1, x: -3, z: 2 };
        let n = 17;
        let window = chunk_window(key, chunk, n, f64::from(world), 0);
        let mut heights = vec![0.0; (n * n) as usize];
        let mut gradients = vec![[0.0; 2]; (n * n) as usize];
        fill_grid_with_gradients(&noise.sampler(), window, &mut heights, &mut gradients);
        let mut map = crate::Heightmap::from_samples(n, n, heights).unwrap();
        post.apply_in_world_with_gradients(&mut map, &mut gradients, window, noise.value_bounds());
        let [cx, cz] = key.min_corner(chunk);
        let step = key.size(chunk) / f64::from(n - 1);
        for j in 0..n {
            for i in 0..n {
                let g = ground.at(cx + f64::from(i) * step, cz + f64::from(j) * step);
                let h = map.get(i, j).unwrap();
                assert!((g.height - h).abs() < 1e-4, "{} vs {h}", g.height);
                let (mx, mz) = ((cx + f64::from(i) * step) / 500.0, (cz + f64::from(j) * step) / 500.0);
                assert!((g.cut - noise.sampler().sample_cut_depth(mx, mz)).abs() < 1e-5);
            }
        }
        let (x, z) = (cx + 10.0, cz + 20.0);
        let g = ground.at(x, z);
        let dx = (ground.at(x + 0.01, z).height - ground.at(x - 0.01, z).height) * 80.0 / 0.02;
        assert!((-g.normal[0] / g.normal[1] - dx).abs() < 0.02 * (1.0 + dx.abs()), "{g:?} {dx}");
    }

    /// A point `at_within` gives is `at`'s, and one it leaves out has its height outside the
    /// window, with every post-processing step (each moves bounds of a height to bounds).
    #[test]
    fn at_within_leaves_out_only_heights_outside_the_window() {
        let noise = NoiseSettings {
            octaves: 6,
            seed: 4,
            erosion_filter: crate::ErosionFilter { enabled: true, strength: 1.0, ..Default::default() },
            ..Default::default()
        };
        let posts = [
            PostProcess::default(),
            PostProcess { power: 1.7, ..Default::default() },
            PostProcess { stretch: true, terraces: 5, terrace_sharpness: 0.4, ..Default::default() },
            PostProcess { island_strength: 0.8, island_width: 0.5, power: 0.7, ..Default::default() },
        ];
        for post in posts {
            let ground = WorldGround::new(&noise, &post, 300.0, 100.0);
            let (mut left_out, mut kept) = (0, 0);
            for (k, [x, z, _]) in crate::test_support::random_points(3000, 8, 400.0).into_iter().enumerate() {
                let low = (k % 20) as f32 * 0.05;
                let window = [low, low + 0.03];
                let full = ground.at(x, z);
                match ground.at_within(x, z, window) {
                    Some(g) => {
                        assert_eq!(g, full);
                        kept += 1;
                    }
                    None => {
                        assert!(!(window[0]..=window[1]).contains(&full.height), "{full:?} {window:?}");
                        left_out += 1;
                    }
                }
            }
            assert!(left_out > kept, "{post:?}: {left_out} left out, {kept} kept");
        }
    }

    /// Placing with the screened ground gives the same points, bit for bit, as with the full
    /// ground, for each of the example's layers.
    #[test]
    fn screened_ground_places_the_same_points() {
        let noise = NoiseSettings {
            octaves: 7,
            frequency: 3.0,
            seed: 11,
            erosion_filter: crate::ErosionFilter {
                enabled: true,
                scale: 8.0,
                octaves: 4,
                ..Default::default()
            },
            ..Default::default()
        };
        let post = PostProcess { power: 1.5, ..Default::default() };
        let ground = WorldGround::new(&noise, &post, 2000.0, 420.0);
        let levels = crate::ScatterLevels { water_level: 0.24, height_scale: 420.0 };
        let rect = [-700.0, 300.0, -400.0, 600.0];
        for layer in crate::ScatterLayer::landscape() {
            let rule = crate::ScatterRule { density: layer.rule.density * 4.0, spacing: 0.5, ..layer.rule };
            let (mut full, mut screened) = (Vec::new(), Vec::new());
            crate::scatter_points(&rule, levels, rect, 1.0, |x, z| Some(ground.at(x, z)), &mut full).unwrap();
            let heights = rule.clamped().height_window(levels.water_level);
            crate::scatter_points(&rule, levels, rect, 1.0, ground.within(heights), &mut screened).unwrap();
            assert!(!full.is_empty(), "{}", layer.name);
            assert_eq!(full, screened, "{}", layer.name);
        }
    }

    /// With the rivers, the ground is the carved field (the network's carve of the dry ground,
    /// its cut at least the rivers'), and nothing is placed in a river or on a lake, where the
    /// dry ground places things.
    #[test]
    fn with_rivers_the_ground_is_carved_and_nothing_stands_in_water() {
        let world = crate::rivers::tests::world();
        let network = crate::RiverNetwork::new(world.clone());
        let at = crate::rivers::tests::largest_river_of_region_1_1(&network);
        let ws = f64::from(world.world_size);
        // 300 world units around the river's largest segment of the region.
        let rect = [at[0] * ws - 150.0, at[1] * ws - 150.0, at[0] * ws + 150.0, at[1] * ws + 150.0];
        let dry = WorldGround::new(&world.noise, &world.post, world.world_size, world.height_scale);
        let near = network.near(rect.map(|v| v / ws));
        let wet = WorldGround::new(&world.noise, &world.post, world.world_size, world.height_scale)
            .with_rivers(near.clone());
        let mut lowered = 0;
        for [x, z, _] in crate::test_support::random_points(4000, 3, 1.0) {
            let (x, z) = (rect[0] + (x + 1.0) * 150.0, rect[1] + (z + 1.0) * 150.0);
            let (d, w) = (dry.at(x, z), wet.at(x, z));
            let p = [x / ws, z / ws];
            // The dry ground's gradient from its normal (the carve's input).
            let k = world.height_scale / world.world_size;
            let g = [-d.normal[0] / d.normal[1] / k, -d.normal[2] / d.normal[1] / k];
            let (h, _) = near.carve_point(p, d.height, g);
            assert_eq!(w.height.to_bits(), h.to_bits(), "at {p:?}");
            assert!(w.height <= d.height && w.cut >= d.cut && w.cut >= d.height - w.height - 1e-6);
            if !near.reaches(p) {
                assert_eq!(w, d, "beyond every valley the ground is the field's");
            }
            lowered += usize::from(w.height < d.height);
            assert_eq!(wet.water_at(x, z), near.water_at(p));
        }
        assert!(lowered > 100, "the valleys lower the ground ({lowered} of 4000 points)");
        // A dense rule on the shores: the dry ground puts things in the water, the wet one none.
        let levels = crate::ScatterLevels { water_level: world.sea_level, height_scale: world.height_scale };
        let rule = crate::ScatterRule {
            density: 0.5,
            spacing: 0.5,
            heights: [0.0, 1.0],
            slopes: [0.0, 90.0],
            ..Default::default()
        };
        let heights = rule.clamped().height_window(levels.water_level);
        let (mut on_dry, mut on_wet) = (Vec::new(), Vec::new());
        crate::scatter_points(&rule, levels, rect, 1.0, dry.within(heights), &mut on_dry).unwrap();
        crate::scatter_points(&rule, levels, rect, 1.0, wet.within(heights), &mut on_wet).unwrap();
        let in_water = |p: &crate::ScatterPoint| wet.water_at(p.position[0], p.position[2]).is_some();
        assert!(
            on_dry.iter().filter(|p| in_water(p)).count() > 20,
            "the dry ground places things in the water"
        );
        assert!(!on_wet.is_empty() && !on_wet.iter().any(in_water), "nothing stands in a river or on a lake");
    }
}
