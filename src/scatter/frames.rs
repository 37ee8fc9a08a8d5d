//! Where a terrain's things stand in the world: its transform and the visibility they take
//! from it, and whether what was placed for a generation of its parameters is out of date.

use bevy::prelude::*;

use crate::pieces::{PieceOf, TerrainJobs};

/// Whether things (or batches) placed for `generation` are of older parameters than their
/// terrain's current ones: those go at once, the new terrain lands whole.
pub(super) fn outdated(world: &World, terrain: Entity, generation: u64) -> bool {
    world.get::<TerrainJobs>(terrain).is_some_and(|jobs| jobs.generation() > generation)
}

/// A transform in a terrain's space placed in the world by the terrain's transform `frame`
/// (exactly itself for a terrain at the origin).
pub(super) fn in_world(frame: GlobalTransform, in_terrain: Transform) -> Transform {
    if frame == GlobalTransform::IDENTITY {
        in_terrain
    } else {
        frame.mul_transform(in_terrain).compute_transform()
    }
}

/// The visibility things take from their terrain entity's own [`Visibility`] (not from its
/// ancestors': hide the terrain itself to hide its things).
pub(super) fn things_visibility(terrain: Option<&Visibility>) -> Visibility {
    match terrain {
        Some(Visibility::Hidden) => Visibility::Hidden,
        Some(Visibility::Inherited | Visibility::Visible) | None => Visibility::Inherited,
    }
}

/// The terrain entity's world transform and the visibility its things take from it.
fn terrain_frame(world: &World, terrain: Entity) -> (GlobalTransform, Visibility) {
    let frame = world.get::<GlobalTransform>(terrain).copied().unwrap_or_default();
    (frame, things_visibility(world.get::<Visibility>(terrain)))
}

/// A piece's terrain (a placeholder for a piece without one), its world transform and the
/// visibility things take from it.
pub(super) fn piece_frame(world: &World, piece: Entity) -> (Entity, GlobalTransform, Visibility) {
    let terrain = world.get::<PieceOf>(piece).map_or(Entity::PLACEHOLDER, |of| of.0);
    let (frame, visibility) = terrain_frame(world, terrain);
    (terrain, frame, visibility)
}
