//! [`TerrainHeightmap`]: the heights of the terrain on screen, with ground-height queries and ray
//! casts in the terrain's own space (the mesh as the plugin builds it: centred on the origin).

use std::sync::Arc;

use bevy::prelude::*;
use noise_terrain_core::Heightmap;

use crate::params::TerrainParams;

/// The heights of the terrain currently shown (without the normal border), for game code that
/// needs the ground height, for the camera, and for export.
#[derive(Resource, Debug, Clone)]
pub struct TerrainHeightmap {
    /// The heights, one per vertex, in noise units (multiply by `height_scale` for world units).
    pub map: Arc<Heightmap>,
    /// The parameters (validated) it was made from.
    pub params: TerrainParams,
}

impl TerrainHeightmap {
    /// Distance between neighbouring vertices.
    fn step(&self) -> f32 {
        self.params.world_size / (self.map.width().max(2) - 1) as f32
    }

    fn vertex_height(&self, i: u32, j: u32) -> f32 {
        self.map.get(i, j).unwrap_or(0.0) * self.params.height_scale
    }

    /// The surface height at `(x, z)` in the terrain's space, exactly on the mesh's triangles, or
    /// `None` outside the terrain.
    pub fn height_at(&self, x: f32, z: f32) -> Option<f32> {
        let half = self.params.world_size / 2.0;
        let (u, v) = ((x + half) / self.step(), (z + half) / self.step());
        let last = (self.map.width() - 1) as f32;
        if !(0.0..=last).contains(&u) || !(0.0..=last).contains(&v) {
            return None;
        }
        let (i, j) =
            ((u.floor() as u32).min(self.map.width() - 2), (v.floor() as u32).min(self.map.height() - 2));
        let (fu, fv) = (u - i as f32, v - j as f32);
        let a = self.vertex_height(i, j);
        let b = self.vertex_height(i + 1, j);
        let c = self.vertex_height(i, j + 1);
        let d = self.vertex_height(i + 1, j + 1);
        // The mesh splits each quad along the b-c diagonal.
        Some(if fu + fv <= 1.0 {
            a + fu * (b - a) + fv * (c - a)
        } else {
            d + (1.0 - fu) * (c - d) + (1.0 - fv) * (b - d)
        })
    }

    /// Where `ray` (in the terrain's space) first meets the surface, if it does.
    pub fn raycast(&self, ray: Ray3d) -> Option<Vec3> {
        let half = self.params.world_size / 2.0;
        let top = self.map.stats().max.max(0.0) * self.params.height_scale + 1e-3;
        let bottom = self.map.stats().min.min(0.0) * self.params.height_scale - 1e-3;
        // The part of the ray inside the terrain's bounding box (slab test).
        let (lo, hi) = (Vec3::new(-half, bottom, -half), Vec3::new(half, top, half));
        let inv = ray.direction.as_vec3().recip();
        let (t1, t2) = ((lo - ray.origin) * inv, (hi - ray.origin) * inv);
        let enter = t1.min(t2).max_element().max(0.0);
        let exit = t1.max(t2).min_element();
        // NaN (a ray parallel to a slab outside it) also means a miss.
        if enter.is_nan() || exit.is_nan() || enter > exit {
            return None;
        }
        let above = |t: f32| {
            let p = ray.get_point(t);
            self.height_at(p.x, p.z).map(|h| p.y - h)
        };
        let step = self.step() * 0.5;
        let mut t = enter;
        let mut before = above(t)?;
        while t < exit {
            let next = (t + step).min(exit);
            let Some(now) = above(next) else { break };
            if before >= 0.0 && now <= 0.0 {
                // Bisect between the last point above and the first below.
                let (mut a, mut b) = (t, next);
                for _ in 0..24 {
                    let mid = 0.5 * (a + b);
                    if above(mid).unwrap_or(0.0) > 0.0 { a = mid } else { b = mid }
                }
                return Some(ray.get_point(b));
            }
            (t, before) = (next, now);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heightfield(f: impl Fn(u32, u32) -> f32) -> TerrainHeightmap {
        let params = TerrainParams { resolution: 11, world_size: 10.0, height_scale: 2.0, ..default() };
        TerrainHeightmap { map: Arc::new(Heightmap::from_fn(11, 11, f).unwrap()), params }
    }

    #[test]
    fn height_at_lies_on_the_mesh() {
        let field = heightfield(|i, j| (i * 3 + j * 7 % 5) as f32 / 40.0);
        // On vertices it is the vertex height; vertex (i, j) is at (i - 5, j - 5).
        for (i, j) in [(0, 0), (3, 4), (10, 10), (7, 2)] {
            let expected = field.map.get(i, j).unwrap() * 2.0;
            assert!((field.height_at(i as f32 - 5.0, j as f32 - 5.0).unwrap() - expected).abs() < 1e-5);
        }
        // Halfway along the b-c diagonal both triangles agree.
        let mid = field.height_at(-4.5, -4.5).unwrap();
        let (b, c) = (field.map.get(1, 0).unwrap() * 2.0, field.map.get(0, 1).unwrap() * 2.0);
        assert!((mid - (b + c) / 2.0).abs() < 1e-5);
        assert_eq!(field.height_at(5.1, 0.0), None);
    }

    #[test]
    fn a_ray_from_above_hits_the_surface_below_it() {
        let field = heightfield(|i, _| i as f32 / 10.0);
        let ray = Ray3d::new(Vec3::new(1.3, 50.0, -2.2), Dir3::NEG_Y);
        let hit = field.raycast(ray).unwrap();
        assert!((hit - Vec3::new(1.3, field.height_at(1.3, -2.2).unwrap(), -2.2)).length() < 1e-3, "{hit}");
        // A slanted ray hits where its height equals the ground's.
        let ray = Ray3d::new(Vec3::new(-20.0, 10.0, 0.5), Dir3::new(Vec3::new(1.0, -0.4, 0.1)).unwrap());
        let hit = field.raycast(ray).unwrap();
        assert!((hit.y - field.height_at(hit.x, hit.z).unwrap()).abs() < 1e-3);
        // Rays that pass by or point away miss.
        assert_eq!(field.raycast(Ray3d::new(Vec3::new(0.0, 50.0, 0.0), Dir3::Y)), None);
        assert_eq!(field.raycast(Ray3d::new(Vec3::new(30.0, 1.0, 0.0), Dir3::Z)), None);
    }
}
