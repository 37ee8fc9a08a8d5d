//! [`ScatterQuery`]: the things of a layer in a rectangle, for game code (harvestable trees,
//! spawn points), whether or not their pieces are on screen.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use noise_terrain_core::{ScatterError, ScatterPoint};

use crate::pieces::{PieceHeights, PieceOf, Terrain, TerrainJobs, TerrainPiece};
use crate::scatter::place::{TerrainGround, layer_points};

/// Why a [`ScatterQuery`] has no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScatterQueryError {
    /// The entity is no [`Terrain`], or it has no settings yet (its first frame).
    #[error("{0} is not a terrain with settings")]
    NoTerrain(Entity),
    /// The terrain has no layer of that index.
    #[error("the terrain has no scatter layer {0}")]
    NoLayer(usize),
    /// A patch terrain whose patch is not built yet (its ground is the patch's heights).
    #[error("the patch is not built yet")]
    NotBuilt,
    /// The rectangle was refused.
    #[error(transparent)]
    Scatter(#[from] ScatterError),
}

/// The points a terrain's scatter layer places, in world space: every point of the layer's rule
/// (not thinned with distance, and whether or not the pieces there exist), the same points the
/// pieces show. Exact for a terrain entity that is translated or uniformly scaled, not rotated.
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy_noise_terrain::{DefaultTerrain, scatter::ScatterQuery};
/// fn trees_near_the_player(trees: ScatterQuery, terrain: Single<Entity, With<DefaultTerrain>>) {
///     if let Ok(points) = trees.points(*terrain, 0, [-20.0, -20.0, 20.0, 20.0]) {
///         info!("{} trees within reach", points.len());
///     }
/// }
/// ```
#[derive(SystemParam)]
pub struct ScatterQuery<'w, 's> {
    terrains: Query<'w, 's, (&'static TerrainJobs, &'static GlobalTransform), With<Terrain>>,
    pieces: Query<'w, 's, (&'static PieceHeights, &'static PieceOf), With<TerrainPiece>>,
}

impl ScatterQuery<'_, '_> {
    /// The points of `terrain`'s layer `layer` (its index in
    /// [`TerrainPreset::scatter`](crate::TerrainPreset::scatter)) whose world `(x, z)` lie in
    /// `rect` (`[min x, min z, max x, max z]`, half-open), with world positions and normals.
    /// With endless rivers, none in a river or on a lake, as on the pieces; the drainage regions
    /// the rectangle needs are routed first where no chunk has needed them yet (tens of
    /// milliseconds each, on the calling thread).
    pub fn points(
        &self,
        terrain: Entity,
        layer: usize,
        rect: [f32; 4],
    ) -> Result<Vec<ScatterPoint>, ScatterQueryError> {
        let (jobs, root) = self.terrains.get(terrain).map_err(|_| ScatterQueryError::NoTerrain(terrain))?;
        let params = jobs.params().ok_or(ScatterQueryError::NoTerrain(terrain))?;
        let layer = params.scatter.get(layer).ok_or(ScatterQueryError::NoLayer(layer))?;
        let patch = self.pieces.iter().find(|(_, of)| of.0 == terrain).map(|(h, _)| (&*h.map, h.geometry));
        let to_local = root.affine().inverse();
        let a = to_local.transform_point3(Vec3::new(rect[0], 0.0, rect[1]));
        let b = to_local.transform_point3(Vec3::new(rect[2], 0.0, rect[3]));
        let local = [a.x.min(b.x), a.z.min(b.z), a.x.max(b.x), a.z.max(b.z)].map(f64::from);
        let ground = TerrainGround::new(params, patch).ok_or(ScatterQueryError::NotBuilt)?;
        let ground = ground.with_rivers(jobs.rivers(), local);
        let mut points = Vec::new();
        layer_points(layer, params, &ground, local, [0.0, 1.0], &mut points)?;
        if root.affine() == bevy::math::Affine3A::IDENTITY {
            return Ok(points);
        }
        let rotation = root.rotation();
        for p in &mut points {
            let world = root.transform_point(Vec3::new(
                p.position[0] as f32,
                p.position[1] as f32,
                p.position[2] as f32,
            ));
            p.position = world.as_dvec3().to_array();
            p.normal = (rotation * Vec3::from_array(p.normal)).to_array();
        }
        Ok(points)
    }
}
