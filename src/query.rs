//! [`TerrainQuery`]: ground heights, normals and ray casts in world space over every piece of
//! terrain on screen.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use noise_terrain_core::{GridPlacement, raycast_grid};

use crate::jobs::{PieceHeights, Terrain, TerrainPiece};

/// Queries over the terrain on screen, in world space: the surface is exactly the meshes'
/// triangles. Use it as a system parameter:
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_noise_terrain::TerrainQuery;
/// fn keep_on_the_ground(terrain: TerrainQuery, mut players: Query<&mut Transform, With<Name>>) {
///     for mut at in &mut players {
///         if let Some(ground) = terrain.height_at(at.translation.x, at.translation.z) {
///             at.translation.y = ground;
///         }
///     }
/// }
/// ```
#[derive(SystemParam)]
pub struct TerrainQuery<'w, 's> {
    roots: Query<'w, 's, &'static GlobalTransform, With<Terrain>>,
    pieces: Query<'w, 's, (&'static TerrainPiece, &'static PieceHeights, &'static Visibility)>,
}

/// A piece's heights placed in the terrain entity's space.
fn placement(h: &PieceHeights) -> GridPlacement {
    let g = &h.geometry;
    let step = f64::from(g.step());
    GridPlacement {
        origin: [g.translation[0] + f64::from(g.origin[0]), g.translation[1] + f64::from(g.origin[1])],
        step: [step, step],
        height_scale: f64::from(h.height_scale),
        height_range: [h.stats.min, h.stats.max],
    }
}

impl TerrainQuery<'_, '_> {
    /// The terrain entity's transform (identity when there is none).
    fn root(&self) -> GlobalTransform {
        self.roots.iter().next().copied().unwrap_or_default()
    }

    /// The pieces on screen (a piece waiting for its first build, or hidden while its
    /// neighbours finish, is not).
    fn shown(&self) -> impl Iterator<Item = &PieceHeights> {
        self.pieces.iter().filter(|(_, _, v)| **v != Visibility::Hidden).map(|(_, h, _)| h)
    }

    /// The piece over `(x, z)` in the terrain entity's space and the surface height there.
    fn local_height(&self, x: f64, z: f64) -> Option<(&PieceHeights, f64)> {
        self.shown().find_map(|h| placement(h).height_at(&h.map, x, z).map(|y| (h, y)))
    }

    /// The ground height (world `y`) at world `(x, z)`, or `None` where no piece is shown.
    /// Exact for a terrain entity that is not rotated (a translated or uniformly scaled one is
    /// fine).
    pub fn height_at(&self, x: f32, z: f32) -> Option<f32> {
        let root = self.root();
        let local = root.affine().inverse().transform_point3(Vec3::new(x, 0.0, z));
        let (_, y) = self.local_height(f64::from(local.x), f64::from(local.z))?;
        Some(root.transform_point(Vec3::new(local.x, y as f32, local.z)).y)
    }

    /// The unit normal of the ground (the mesh triangle's) at world `(x, z)`, or `None` where no
    /// piece is shown.
    pub fn normal_at(&self, x: f32, z: f32) -> Option<Vec3> {
        let root = self.root();
        let local = root.affine().inverse().transform_point3(Vec3::new(x, 0.0, z));
        let (lx, lz) = (f64::from(local.x), f64::from(local.z));
        let (h, _) = self.local_height(lx, lz)?;
        let n = placement(h).normal_at(&h.map, lx, lz)?.as_vec3();
        // Normals transform by the inverse transpose.
        let world = root.affine().matrix3.inverse().transpose() * n;
        Some(world.normalize_or(Vec3::Y))
    }

    /// Where a world-space ray first meets the terrain on screen. Every ray ends: each piece is
    /// walked cell by cell, and only pieces whose box the ray enters are walked, nearest first.
    pub fn raycast(&self, ray: Ray3d) -> Option<Vec3> {
        let root = self.root();
        let to_local = root.affine().inverse();
        let origin = to_local.transform_point3(ray.origin).as_dvec3();
        let direction = to_local.transform_vector3(*ray.direction).as_dvec3();
        let mut candidates: Vec<(f64, &PieceHeights)> = self
            .shown()
            .filter_map(|h| placement(h).box_entry(&h.map, origin, direction).map(|t| (t, h)))
            .collect();
        candidates.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut best: Option<f64> = None;
        for (enter, h) in candidates {
            if best.is_some_and(|t| t < enter) {
                break;
            }
            if let Some(t) = raycast_grid(&h.map, &placement(h), origin, direction) {
                best = Some(best.map_or(t, |b| b.min(t)));
            }
        }
        let hit = origin + direction * best?;
        Some(root.transform_point(hit.as_vec3()))
    }
}
