//! Far pieces' things as one mesh per layer: pieces nearer than [`ScatterEntities::distance`]
//! to a focus carry each thing as its own entity ([`ScatterInstance`](crate::ScatterInstance)),
//! farther ones one [`ScatterBatch`] entity per layer, whose mesh holds all of the layer's things
//! on the piece (merged in the piece's background build from a shape with fewer facets).
//!
//! Why: tens of thousands of things in view were as many entities, and streaming spawned and
//! despawned thousands of them in a frame when far chunks changed level (about 2 µs a despawn);
//! a far chunk's things now come and go as a few entities and a mesh asset.

use bevy::asset::RenderAssetUsages;
use bevy::camera::primitives::{Aabb, MeshAabb};
use bevy::camera::visibility::NoAutoAabb;
use bevy::ecs::entity::EntityHashSet;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;
use noise_terrain_core::ScatterShape;

use crate::build::PieceBuild;
use crate::params::TerrainPreset;
use crate::pieces::workers::drop_on_workers;
use crate::pieces::{BuildPriority, PieceHooks, PieceOf, TerrainPiece};
use crate::scatter::cache::PointCache;
use crate::scatter::frames::{in_world, outdated, piece_frame};
use crate::scatter::looks::{BatchShapes, ScatterLooks};
use crate::scatter::place::placed_layers;

/// Which pieces carry their scatter things as entities: those nearer than `distance` to a focus
/// (the patch always). Farther pieces draw each layer's things as one mesh ([`ScatterBatch`]):
/// no entity per thing, so no game component, collider or [`Transform`] of its own. With the
/// physics plugin (feature `avian`), pieces within its collider distance carry entities too, so
/// solid things have colliders wherever the ground has one. A chunk that comes nearer is rebuilt
/// with entities (its batches stay until they have all been spawned).
#[derive(Resource, Debug, Clone, Copy, PartialEq, Reflect)]
#[reflect(Resource)]
pub struct ScatterEntities {
    /// World units from the nearest focus.
    pub distance: f32,
}

/// The least distance within which pieces carry their things as entities, whatever
/// [`ScatterEntities`] says: plugins whose work needs the entities raise it (the physics plugin,
/// feature `avian`, to its collider distance, so that solid things have colliders wherever the
/// ground has one). 0 by default.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Reflect)]
#[reflect(Resource)]
pub struct ScatterEntitiesAtLeast {
    /// World units from the nearest focus.
    pub distance: f32,
}

impl Default for ScatterEntities {
    /// Within 160 units: the finest chunks of the default endless layout.
    fn default() -> Self {
        Self { distance: 160.0 }
    }
}

/// One layer's things on a far piece, drawn as one mesh placed where the piece is. Like the
/// instances, it is not in the transform hierarchy: its [`Transform`] is in world space (its
/// terrain's transform times the piece's place in the terrain), kept so when the terrain entity
/// moves, and it is hidden when the terrain entity's own [`Visibility`] is `Hidden`. It comes
/// and goes with its piece, like the piece's instances would.
///
/// Why: as children of the terrain entity, hundreds of batches were walked by the transform
/// propagation in every frame that changed anything under the terrain (nearly every frame of a
/// flight).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Reflect)]
#[reflect(Component)]
pub struct ScatterBatch {
    /// The layer's index in [`TerrainPreset::scatter`].
    pub layer: u8,
    /// The piece it stands on.
    pub piece: Entity,
    /// How many things its mesh holds.
    pub instances: u32,
}

/// The [`ScatterBatch`]es on a piece. When the piece goes they stay until their terrain has no
/// thing waiting to be spawned (the pieces replacing it may be spawning theirs), so that no
/// frame shows the ground bare.
#[derive(Component, Debug, Default)]
#[component(on_remove = loosen_batches)]
pub(crate) struct BatchesOnPiece {
    batches: Vec<Entity>,
    generation: u64,
    /// The piece's place in its terrain's space, where its batches stand.
    at: Vec3,
}

impl BatchesOnPiece {
    /// The piece's place in its terrain's space and its batches.
    pub(super) fn place(&self) -> (Transform, &[Entity]) {
        (Transform::from_translation(self.at), &self.batches)
    }
}

/// What a far piece's build made: per layer, the mesh of its things. `near`: the piece carries
/// entities instead (its old batches go once those have been spawned).
#[derive(Debug)]
pub(crate) struct PieceBatches {
    near: bool,
    layers: Vec<LayerBatch>,
}

#[derive(Debug)]
struct LayerBatch {
    layer: u8,
    shape: ScatterShape,
    name: String,
    mesh: Mesh,
    aabb: Aabb,
    instances: u32,
}

/// Where the entity hook (the scatter hook that spawns instances) sits in [`PieceHooks`].
#[derive(Resource, Debug, Clone, Copy)]
pub(crate) struct EntityHook(pub(crate) usize);

/// The frame's batch swaps and the batches of pieces that went.
#[derive(Resource, Default)]
pub(crate) struct BatchSwaps {
    queued: Vec<(Entity, PieceBatches)>,
    loose: Vec<LooseBatch>,
}

impl BatchSwaps {
    /// Whether any piece's batches are queued or any batch is loose.
    pub(crate) fn is_pending(&self) -> bool {
        !self.queued.is_empty() || !self.loose.is_empty()
    }
}

/// A batch whose piece went or carries entities now.
#[derive(Debug, Clone, Copy)]
struct LooseBatch {
    terrain: Entity,
    entity: Entity,
    generation: u64,
    frames: u32,
}

/// Frames a loose batch waits at most for its terrain's waiting things.
const LOOSE_FRAMES: u32 = 60;

/// The batch hook's build: nothing for a piece that runs the entity hook (`entity_hook`), else
/// one mesh per layer with things on the piece, from `shapes` (the points from `cache`, shared
/// with the entity hook).
pub(crate) fn batch_build(
    entity_hook: usize,
    shapes: BatchShapes,
    cache: PointCache,
) -> impl Fn(&PieceBuild, &TerrainPreset) -> PieceBatches + Send + Sync + 'static {
    move |build, params| {
        if build.hooks.contains(entity_hook) {
            return PieceBatches { near: true, layers: Vec::new() };
        }
        let g = build.geometry;
        let origin = Vec3::new(g.translation[0] as f32, 0.0, g.translation[1] as f32);
        let layers = placed_layers(build, params, &cache)
            .into_iter()
            .enumerate()
            .filter_map(|(index, layer)| {
                let shape = shapes.get(layer.shape, &layer.name)?;
                let mesh = merged_things(&shape, &layer.transforms, origin)?;
                let aabb = mesh.compute_aabb()?;
                let instances = layer.transforms.len() as u32;
                Some(LayerBatch {
                    layer: index as u8,
                    shape: layer.shape,
                    name: layer.name,
                    mesh,
                    aabb,
                    instances,
                })
            })
            .collect();
        PieceBatches { near: false, layers }
    }
}

/// `shape` copied to every transform (in the terrain's space, made relative to `origin`), as one
/// mesh for the render world only; `None` without transforms.
fn merged_things(shape: &Mesh, transforms: &[Transform], origin: Vec3) -> Option<Mesh> {
    let things = transforms.iter().map(|t| Transform { translation: t.translation - origin, ..*t });
    let mut mesh = match copied_by_hand(shape, things.clone(), transforms.len()) {
        Some(mesh) => mesh,
        None => copied_by_bevy(shape, things)?,
    };
    mesh.asset_usage = RenderAssetUsages::RENDER_WORLD;
    Some(mesh)
}

/// The copies written straight into one set of buffers, for a triangle list (with or without
/// indices) whose attributes are positions, normals and any others of 2 to 4 floats (copied as
/// they are): the built-in shapes. (Cloning, transforming and merging a mesh per thing was a
/// fifth of a far chunk's scatter work.) `None` for other meshes, or without transforms.
fn copied_by_hand(shape: &Mesh, things: impl Iterator<Item = Transform>, count: usize) -> Option<Mesh> {
    use bevy::mesh::{Indices, PrimitiveTopology, VertexAttributeValues as Values};
    let as_vec3 = |id| match shape.try_attribute(id) {
        Ok(Values::Float32x3(v)) => Some(v),
        _ => None,
    };
    let (positions, normals) = (as_vec3(Mesh::ATTRIBUTE_POSITION)?, as_vec3(Mesh::ATTRIBUTE_NORMAL)?);
    if count == 0 || shape.primitive_topology() != PrimitiveTopology::TriangleList {
        return None;
    }
    let mut others = Vec::new();
    for (attribute, values) in shape.try_attributes().ok()? {
        let copied = match values {
            _ if attribute.id == Mesh::ATTRIBUTE_POSITION.id || attribute.id == Mesh::ATTRIBUTE_NORMAL.id => {
                continue;
            }
            Values::Float32x2(v) => Values::Float32x2(v.repeat(count)),
            Values::Float32x3(v) => Values::Float32x3(v.repeat(count)),
            Values::Float32x4(v) => Values::Float32x4(v.repeat(count)),
            _ => return None,
        };
        others.push((*attribute, copied));
    }
    let indices: Option<Vec<u32>> =
        shape.try_indices_option().ok()?.map(|indices| indices.iter().map(|i| i as u32).collect());
    let vertices = positions.len() as u32;
    let mut out_positions = Vec::with_capacity(positions.len() * count);
    let mut out_normals = Vec::with_capacity(normals.len() * count);
    let mut out_indices = Vec::with_capacity(indices.as_ref().map_or(0, |i| i.len() * count));
    for (copy, thing) in things.enumerate() {
        let affine = thing.compute_affine();
        let scale_recip = thing.scale.recip();
        out_positions.extend(positions.iter().map(|&p| affine.transform_point3(Vec3::from(p)).to_array()));
        out_normals.extend(
            normals
                .iter()
                .map(|&n| (thing.rotation * (Vec3::from(n) * scale_recip)).normalize_or_zero().to_array()),
        );
        let base = copy as u32 * vertices;
        out_indices.extend(indices.iter().flatten().map(|&i| base + i));
    }
    let mut mesh = Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::RENDER_WORLD)
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, out_positions)
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, out_normals);
    if indices.is_some() {
        mesh.insert_indices(Indices::U32(out_indices));
    }
    for (attribute, values) in others {
        mesh.insert_attribute(attribute, values);
    }
    Some(mesh)
}

/// The copies made by Bevy: the shape cloned, transformed and merged once per thing (any
/// mesh Bevy can merge); `None` without transforms or where Bevy cannot.
fn copied_by_bevy(shape: &Mesh, mut things: impl Iterator<Item = Transform>) -> Option<Mesh> {
    let mut mesh = shape.clone().try_transformed_by(things.next()?).ok()?;
    for thing in things {
        mesh.merge(&shape.clone().try_transformed_by(thing).ok()?).ok()?;
    }
    Some(mesh)
}

/// The batch hook's apply: queues the swap of the piece's batches; [`swap_batches`] makes it.
pub(crate) fn apply_batches(commands: &mut Commands, piece: Entity, batches: Option<PieceBatches>) {
    let batches = batches.unwrap_or(PieceBatches { near: false, layers: Vec::new() });
    commands.queue(move |world: &mut World| world.resource_mut::<BatchSwaps>().queued.push((piece, batches)));
}

/// A piece's batches are loose when it goes.
fn loosen_batches(mut world: DeferredWorld, context: HookContext) {
    let terrain = world.get::<PieceOf>(context.entity).map_or(Entity::PLACEHOLDER, |of| of.0);
    let Some(mut on) = world.get_mut::<BatchesOnPiece>(context.entity) else { return };
    let (batches, generation) = (std::mem::take(&mut on.batches), on.generation);
    if let Some(mut swaps) = world.get_resource_mut::<BatchSwaps>() {
        swaps.loose.extend(batches.into_iter().map(|entity| LooseBatch {
            terrain,
            entity,
            generation,
            frames: 0,
        }));
    }
}

/// Makes the frame's batch swaps: a far piece's new batches replace its old ones at once; a
/// piece that carries entities now loosens its old ones. Then despawns the loose batches whose
/// terrain has no thing waiting among `waiting` (pieces), that are of an older parameter
/// generation than their terrain's current one, or that waited [`LOOSE_FRAMES`].
pub(crate) fn swap_batches(world: &mut World, waiting: impl Iterator<Item = Entity>) {
    let mut garbage = Vec::new();
    world.resource_scope(|world, mut swaps: Mut<BatchSwaps>| {
        for (piece, batches) in std::mem::take(&mut swaps.queued) {
            swap_piece_batches(world, piece, batches, &mut swaps, &mut garbage);
        }
        if swaps.loose.is_empty() {
            return;
        }
        let busy: EntityHashSet =
            waiting.filter_map(|piece| world.get::<PieceOf>(piece).map(|of| of.0)).collect();
        swaps.loose.retain_mut(|b| {
            b.frames += 1;
            let keep = !outdated(world, b.terrain, b.generation)
                && busy.contains(&b.terrain)
                && b.frames < LOOSE_FRAMES;
            if !keep {
                despawn_batch(world, b.entity, &mut garbage);
            }
            keep
        });
    });
    if !garbage.is_empty() {
        let priority = world.get_resource::<BuildPriority>().copied().unwrap_or_default();
        drop_on_workers(priority, garbage);
    }
}

/// Despawns a batch and takes its mesh (its own: no other entity holds the handle) out of the
/// assets into `garbage`: freeing a merged mesh of thousands of things took the frame's systems
/// about 40 µs a frame when Bevy dropped the asset (flying with 50,000 things on two cores).
fn despawn_batch(world: &mut World, batch: Entity, garbage: &mut Vec<Mesh>) {
    let mesh = world.get::<Mesh3d>(batch).map(|m| m.0.id());
    // Quietly: a despawned terrain took its batches with it.
    let _ = world.try_despawn(batch);
    if let (Some(mesh), Some(mut meshes)) = (mesh, world.get_resource_mut::<Assets<Mesh>>()) {
        garbage.extend(meshes.remove(mesh));
    }
}

/// Replaces `piece`'s batches with `batches`.
fn swap_piece_batches(
    world: &mut World,
    piece: Entity,
    batches: PieceBatches,
    swaps: &mut BatchSwaps,
    garbage: &mut Vec<Mesh>,
) {
    let Ok(entity) = world.get_entity(piece) else { return };
    let generation = entity.get::<TerrainPiece>().and_then(|p| p.shown.as_ref()).map_or(0, |s| s.generation);
    let at = entity.get::<Transform>().map_or(Vec3::ZERO, |t| t.translation);
    let (terrain, frame, visibility) = piece_frame(world, piece);
    let placed = in_world(frame, Transform::from_translation(at));
    let old =
        world.get_mut::<BatchesOnPiece>(piece).map(|mut on| (std::mem::take(&mut on.batches), on.generation));
    let (old, old_generation) = old.unwrap_or_default();
    for entity in old {
        if batches.near {
            swaps.loose.push(LooseBatch { terrain, entity, generation: old_generation, frames: 0 });
        } else {
            despawn_batch(world, entity, garbage);
        }
    }
    let mut spawned = Vec::with_capacity(batches.layers.len());
    for layer in batches.layers {
        let look = world.resource_mut::<ScatterLooks>().look_for(layer.shape, &layer.name);
        let (Some((_, material)), Some(mut meshes)) = (look, world.get_resource_mut::<Assets<Mesh>>()) else {
            continue;
        };
        let mesh = meshes.add(layer.mesh);
        let batch = ScatterBatch { layer: layer.layer, piece, instances: layer.instances };
        let parts = (batch, Mesh3d(mesh), MeshMaterial3d(material), placed, visibility);
        spawned.push(world.spawn((parts, layer.aabb, NoAutoAabb)).id());
    }
    let Ok(mut entity) = world.get_entity_mut(piece) else { return };
    match entity.get_mut::<BatchesOnPiece>() {
        // In place: inserting over it would loosen its batches.
        Some(mut on) => *on = BatchesOnPiece { batches: spawned, generation, at },
        None if !spawned.is_empty() => {
            entity.insert(BatchesOnPiece { batches: spawned, generation, at });
        }
        None => {}
    }
}

/// Gives the entity hook the distance `within`: [`ScatterEntities`]'s (with the physics plugin,
/// at least its collider distance).
pub(crate) fn follow_entity_distance(within: f32, hook: Option<&EntityHook>, mut hooks: ResMut<PieceHooks>) {
    let Some(hook) = hook else { return };
    if hooks.get(hook.0).is_some_and(|h| h.within != within)
        && let Some(h) = hooks.get_mut(hook.0)
    {
        h.within = within;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scatter::looks::built_in_meshes;
    use bevy::mesh::VertexAttributeValues;

    fn floats(values: &VertexAttributeValues) -> Vec<f32> {
        match values {
            VertexAttributeValues::Float32x2(v) => v.iter().flatten().copied().collect(),
            VertexAttributeValues::Float32x3(v) => v.iter().flatten().copied().collect(),
            VertexAttributeValues::Float32x4(v) => v.iter().flatten().copied().collect(),
            other => panic!("unexpected attribute format {other:?}"),
        }
    }

    /// The copies written by hand are Bevy's (transform and merge per thing): every attribute,
    /// position and normal to rounding, and the same triangles, for each built-in shape.
    #[test]
    fn merged_by_hand_as_by_bevy() {
        let things: Vec<Transform> = (0..5)
            .map(|i| Transform {
                translation: Vec3::new(10.0 * i as f32, 3.0 - i as f32, -4.0 * i as f32),
                rotation: Quat::from_rotation_arc(Vec3::Y, Vec3::new(0.3 * i as f32, 1.0, -0.2).normalize())
                    * Quat::from_rotation_y(1.1 * i as f32 + 0.4),
                scale: Vec3::splat(0.6 + 0.3 * i as f32),
            })
            .collect();
        let origin = Vec3::new(2.0, 0.5, -1.0);
        for shape in [ScatterShape::Tree, ScatterShape::Rock, ScatterShape::Reed] {
            let (_, far) = built_in_meshes(shape).unwrap();
            let relative = things.iter().map(|t| Transform { translation: t.translation - origin, ..*t });
            let by_bevy = copied_by_bevy(&far, relative.clone()).unwrap();
            let by_hand =
                copied_by_hand(&far, relative, things.len()).expect("a built-in shape is copied by hand");
            let ids: Vec<_> = by_bevy.attributes().map(|(a, _)| a.id).collect();
            assert_eq!(ids, by_hand.attributes().map(|(a, _)| a.id).collect::<Vec<_>>(), "{shape:?}");
            for (attribute, values) in by_bevy.attributes() {
                let (want, got) = (floats(values), floats(by_hand.attribute(attribute.id).unwrap()));
                assert_eq!(want.len(), got.len(), "{shape:?} {}", attribute.name);
                for (w, g) in want.iter().zip(&got) {
                    assert!(
                        (w - g).abs() < 1e-4 * (1.0 + w.abs()),
                        "{shape:?} {}: {w} vs {g}",
                        attribute.name
                    );
                }
            }
            let indices = |m: &Mesh| m.indices().map(|i| i.iter().collect::<Vec<_>>());
            assert_eq!(indices(&by_bevy), indices(&by_hand), "{shape:?}");
            assert!(merged_things(&far, &[], origin).is_none());
        }
    }
}
