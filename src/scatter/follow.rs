//! Things and far pieces' batches follow their terrain entity's transform and visibility.

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;

use crate::pieces::{Terrain, TerrainPieces};
use crate::scatter::batches::{BatchesOnPiece, ScatterBatch};
use crate::scatter::frames::{in_world, things_visibility};
use crate::scatter::place::ScatterInstance;
use crate::scatter::swaps::ScatterOnPiece;

/// What [`follow_terrains`] reads of a terrain.
type TerrainFrameParts =
    (Entity, &'static GlobalTransform, Option<&'static Visibility>, &'static TerrainPieces);

/// Which entities [`follow_terrains`] reads as terrains (never a thing or a batch, which it
/// writes).
type TerrainFilter = (With<Terrain>, Without<ScatterInstance>, Without<ScatterBatch>);

/// What [`follow_terrains`] writes of a thing or a batch.
type FollowerParts = (&'static mut Transform, &'static mut GlobalTransform, &'static mut Visibility);

/// Stands a thing or batch at `in_terrain` where the terrain's transform `frame` puts it, with
/// the visibility `seen`.
fn follow(
    (mut transform, mut global, mut visibility): (Mut<Transform>, Mut<GlobalTransform>, Mut<Visibility>),
    in_terrain: Transform,
    (frame, seen): (GlobalTransform, Visibility),
) {
    let at = in_world(frame, in_terrain);
    global.set_if_neq(GlobalTransform::from(at));
    transform.set_if_neq(at);
    visibility.set_if_neq(seen);
}

/// Things and far pieces' batches follow their terrain entity: when it moves, or is hidden or
/// shown, so are they (after the transform propagation, so in the same frame). `last` is where
/// each terrain's things stand now: a root's `GlobalTransform` is written, so flagged as
/// changed, whenever anything under it changes.
pub(crate) fn follow_terrains(
    terrains: Query<TerrainFrameParts, TerrainFilter>,
    pieces: Query<(Option<&ScatterOnPiece>, Option<&BatchesOnPiece>)>,
    mut instances: Query<(&ScatterInstance, FollowerParts)>,
    mut batches: Query<FollowerParts, (With<ScatterBatch>, Without<ScatterInstance>)>,
    mut last: Local<EntityHashMap<(GlobalTransform, Visibility)>>,
) {
    last.retain(|&terrain, _| terrains.contains(terrain));
    for (terrain, &frame, visibility, terrain_pieces) in &terrains {
        let now = (frame, things_visibility(visibility));
        if last.insert(terrain, now) == Some(now) {
            continue;
        }
        for (things_on, batches_on) in pieces.iter_many(terrain_pieces.iter()) {
            if let Some(on) = things_on {
                let mut things = instances.iter_many_mut(on.iter());
                while let Some((thing, parts)) = things.fetch_next() {
                    follow(parts, thing.in_terrain, now);
                }
            }
            if let Some((at, on)) = batches_on.map(BatchesOnPiece::place) {
                let mut batches = batches.iter_many_mut(on);
                while let Some(parts) = batches.fetch_next() {
                    follow(parts, at, now);
                }
            }
        }
    }
}
