//! [`TerrainQuery`]: ground heights, normals and ray casts in world space over every piece of
//! terrain on screen, of every terrain or of one ([`TerrainQuery::of`]).

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use noise_terrain_core::{GridPlacement, raycast_grid};

use crate::pieces::{PieceHeights, PieceOf, Terrain, TerrainPiece};
use crate::rivers::TerrainRivers;

/// Queries over the terrain on screen, in world space: the surface is exactly the meshes'
/// triangles. Over every terrain (where several overlap, the highest ground and the nearest
/// hit), or over one with [`TerrainQuery::of`]. Use it as a system parameter:
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
    roots: Query<'w, 's, (Entity, &'static GlobalTransform), With<Terrain>>,
    pieces: Query<'w, 's, (&'static PieceHeights, &'static Visibility, &'static PieceOf), With<TerrainPiece>>,
    rivers:
        Query<'w, 's, (&'static TerrainRivers, &'static Visibility, &'static PieceOf), With<TerrainPiece>>,
}

/// The water at a point of the terrain: in a river or on a lake (see [`TerrainQuery::water_at`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Water {
    /// In a river's bed.
    River {
        /// The water surface, world `y`.
        height: f32,
        /// The river's width there, world units.
        width: f32,
        /// The way it flows, a unit vector in world `x` and `z`.
        flow: Vec2,
    },
    /// On a lake.
    Lake {
        /// The water surface, world `y`.
        height: f32,
    },
}

impl Water {
    /// The water surface, world `y`.
    pub fn height(&self) -> f32 {
        match *self {
            Water::River { height, .. } | Water::Lake { height } => height,
        }
    }
}

/// The same queries over one terrain (see [`TerrainQuery::of`]).
pub struct OneTerrainQuery<'a, 'w, 's> {
    query: &'a TerrainQuery<'w, 's>,
    terrain: Entity,
}

/// A piece's heights placed in the terrain entity's space.
fn placement(h: &PieceHeights) -> GridPlacement {
    h.geometry.placement(h.height_scale, [h.stats.min, h.stats.max])
}

impl<'w, 's> TerrainQuery<'w, 's> {
    /// The queries over `terrain` only (a [`Terrain`] entity; one that is none has no ground).
    pub fn of(&self, terrain: Entity) -> OneTerrainQuery<'_, 'w, 's> {
        OneTerrainQuery { query: self, terrain }
    }

    /// The ground height (world `y`) at world `(x, z)`, the highest where terrains overlap, or
    /// `None` where no piece is shown. Exact for a terrain entity that is not rotated (a
    /// translated or uniformly scaled one is fine).
    pub fn height_at(&self, x: f32, z: f32) -> Option<f32> {
        self.ground(None, x, z).map(|(y, _)| y)
    }

    /// The unit normal of the ground (the mesh triangle's) at world `(x, z)`, of the highest
    /// terrain there, or `None` where no piece is shown.
    pub fn normal_at(&self, x: f32, z: f32) -> Option<Vec3> {
        self.ground(None, x, z).and_then(|(_, n)| n)
    }

    /// The river or lake at world `(x, z)` on the terrain on screen (the patch's stream-power
    /// rivers and the endless layout's rivers and lakes, as [`TerrainRivers`] holds them): a
    /// point is in a river within half its width of the river's line, on a lake within one of
    /// its cells; `None` elsewhere (the sea is the ground below the water level). Where a river
    /// and a lake both reach, the river.
    pub fn water_at(&self, x: f32, z: f32) -> Option<Water> {
        self.roots(None).find_map(|(terrain, root)| self.water_of(terrain, root, x, z))
    }

    /// The water of `terrain` at world `(x, z)`.
    fn water_of(&self, terrain: Entity, root: &GlobalTransform, x: f32, z: f32) -> Option<Water> {
        let local = root.affine().inverse().transform_point3(Vec3::new(x, 0.0, z));
        let p = local.xz();
        let shown = self.rivers.iter().filter(|(_, v, of)| of.0 == terrain && **v != Visibility::Hidden);
        let mut river: Option<(f32, Vec3, f32, Vec2)> = None;
        let mut lake = None;
        for (rivers, ..) in shown {
            for line in &rivers.lines {
                for pair in line.vertices.windows(2) {
                    let (a, b) = (pair[0], pair[1]);
                    let along = b.position.xz() - a.position.xz();
                    let t = ((p - a.position.xz()).dot(along) / along.length_squared().max(1e-12))
                        .clamp(0.0, 1.0);
                    let distance = p.distance(a.position.xz() + along * t);
                    let width = a.width + (b.width - a.width) * t;
                    if distance <= 0.5 * width && river.is_none_or(|r| distance < r.0) {
                        river = Some((
                            distance,
                            a.position.lerp(b.position, t),
                            width,
                            along.normalize_or_zero(),
                        ));
                    }
                }
            }
            for cell in &rivers.lakes {
                let d = (p - cell.centre.xz()).abs();
                if d.x <= 0.5 * cell.size && d.y <= 0.5 * cell.size {
                    lake = Some(cell.centre);
                }
            }
        }
        if let Some((_, surface, width, flow)) = river {
            let height = root.transform_point(surface).y;
            let flow =
                root.affine().transform_vector3(Vec3::new(flow.x, 0.0, flow.y)).xz().normalize_or_zero();
            return Some(Water::River { height, width, flow });
        }
        lake.map(|centre| Water::Lake { height: root.transform_point(centre).y })
    }

    /// Where a world-space ray first meets the terrain on screen (any terrain). Every ray ends:
    /// each piece is walked cell by cell, and only pieces whose box the ray enters are walked,
    /// nearest first.
    pub fn raycast(&self, ray: Ray3d) -> Option<Vec3> {
        self.roots
            .iter()
            .filter_map(|(terrain, root)| self.raycast_one(terrain, root, ray))
            .min_by(|a, b| a.distance_squared(ray.origin).total_cmp(&b.distance_squared(ray.origin)))
    }

    /// The terrains to look at: all, or `only`.
    fn roots(&self, only: Option<Entity>) -> impl Iterator<Item = (Entity, &GlobalTransform)> {
        self.roots.iter().filter(move |(e, _)| only.is_none_or(|o| o == *e))
    }

    /// The pieces of `terrain` on screen (a piece waiting for its first build is not).
    fn shown(&self, terrain: Entity) -> impl Iterator<Item = &PieceHeights> {
        self.pieces
            .iter()
            .filter(move |(_, v, of)| of.0 == terrain && **v != Visibility::Hidden)
            .map(|(h, ..)| h)
    }

    /// The highest ground of the terrains at world `(x, z)`: height and normal.
    fn ground(&self, only: Option<Entity>, x: f32, z: f32) -> Option<(f32, Option<Vec3>)> {
        self.roots(only)
            .filter_map(|(terrain, root)| {
                let local = root.affine().inverse().transform_point3(Vec3::new(x, 0.0, z));
                let (lx, lz) = (f64::from(local.x), f64::from(local.z));
                let (h, y) = self
                    .shown(terrain)
                    .find_map(|h| placement(h).height_at(&h.map, lx, lz).map(|y| (h, y)))?;
                let height = root.transform_point(Vec3::new(local.x, y as f32, local.z)).y;
                // Normals transform by the inverse transpose.
                let inverse_transpose = root.affine().matrix3.inverse().transpose();
                let normal = placement(h)
                    .normal_at(&h.map, lx, lz)
                    .map(|n| (inverse_transpose * n.as_vec3()).normalize_or(Vec3::Y));
                Some((height, normal))
            })
            .max_by(|a, b| a.0.total_cmp(&b.0))
    }

    /// Where `ray` first meets `terrain`.
    fn raycast_one(&self, terrain: Entity, root: &GlobalTransform, ray: Ray3d) -> Option<Vec3> {
        let to_local = root.affine().inverse();
        let origin = to_local.transform_point3(ray.origin).as_dvec3();
        let direction = to_local.transform_vector3(*ray.direction).as_dvec3();
        let mut candidates: Vec<(f64, &PieceHeights)> = self
            .shown(terrain)
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

impl OneTerrainQuery<'_, '_, '_> {
    /// The terrain's ground height (world `y`) at world `(x, z)`, `None` where it shows no piece.
    pub fn height_at(&self, x: f32, z: f32) -> Option<f32> {
        self.query.ground(Some(self.terrain), x, z).map(|(y, _)| y)
    }

    /// The unit normal of the terrain's ground at world `(x, z)`.
    pub fn normal_at(&self, x: f32, z: f32) -> Option<Vec3> {
        self.query.ground(Some(self.terrain), x, z).and_then(|(_, n)| n)
    }

    /// Where a world-space ray first meets the terrain.
    pub fn raycast(&self, ray: Ray3d) -> Option<Vec3> {
        let (terrain, root) = self.query.roots(Some(self.terrain)).next()?;
        self.query.raycast_one(terrain, root, ray)
    }
}
