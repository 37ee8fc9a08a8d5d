//! [`WorldGround`]: the ground of an endless terrain at any world point, without a grid.

use crate::field::FieldSampler;
use crate::scatter::rule::Ground;
use crate::{NoiseSettings, PostProcess};

/// The ground of an endless terrain at world points: the field at `world / world_per_unit` map
/// units, post-processed in world space as the chunks are, with its exact normal. A pure
/// function of the point, so it does not depend on which chunk, at which level of detail, asks.
#[derive(Clone, Debug)]
pub struct WorldGround {
    sampler: FieldSampler,
    post: PostProcess,
    bounds: (f32, f32),
    world_per_unit: f64,
    height_scale: f32,
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
        }
    }

    /// The ground at world `(x, z)`.
    pub fn at(&self, x: f64, z: f64) -> Ground {
        let at = [x / self.world_per_unit, z / self.world_per_unit];
        let (raw, cut) = self.sampler.sample_with_gradient_and_cut(at[0], at[1]);
        let d = self.post.apply_at_world_point(raw, at, self.bounds);
        // World rise per world unit: noise per map unit, times the height scale, over the map unit.
        let k = self.height_scale / self.world_per_unit as f32;
        let n = glam::Vec3::new(-d.gradient[0] * k, 1.0, -d.gradient[1] * k).normalize_or(glam::Vec3::Y);
        Ground { height: d.value, normal: n.to_array(), cut }
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
}
