//! avian3d colliders for every piece of terrain (cargo feature `avian`).
//!
//! Each piece within [`TerrainColliders::distance`] of a focus (the patch always) gets a static
//! heightfield collider made from the very heights of its mesh. The plugin adds a
//! [`PieceHook`]: the collider is built in the piece's background job, beside the mesh, and
//! swapped in the frame the mesh lands: a mesh and its collider never disagree for a frame. Pieces farther away have no
//! collider (bodies far from every focus have no ground; put a [`TerrainFocus`] on what must
//! stand); a chunk that comes within the distance is rebuilt with one, nearest first, like any
//! out-of-date piece.
//!
//! Solid scatter layers ([`ScatterLayer::solid`](noise_terrain_core::ScatterLayer::solid)): the
//! things on a piece with a collider get static colliders of their own (a tree's trunk, a
//! rock's ball, a custom mesh's box, reeds none), given and taken with the piece's collider.
//!
//! The collider lives on a child entity of the piece ([`TerrainCollider`]), centred on the
//! piece, because avian's heightfield is centred on its entity while a chunk's entity sits at
//! its corner. Its orientation and scale are pinned by tests: the outer `Vec` of heights runs
//! along `x`, the inner along `z`, and the scale is `(side, height_scale, side)` with the
//! heights in noise units.
//!
//! [`TerrainFocus`]: crate::TerrainFocus

use avian3d::prelude::*;
use bevy::prelude::*;
use noise_terrain_core::Heightmap;

use crate::TerrainSystems;
use crate::build::PieceGeometry;
use crate::pieces::{PieceHeights, PieceHook, PieceHooks, PieceOf, Terrain, TerrainPiece};
use crate::query::TerrainQuery;
use crate::scatter::{ScatterEntitiesAtLeast, ScatterInstance, ScatterOf, ScatterOnPiece};
use bevy::camera::primitives::MeshAabb;
use noise_terrain_core::ScatterShape;

/// Adds colliders to the terrain pieces. Add avian's `PhysicsPlugins` yourself.
#[derive(Debug, Clone)]
pub struct TerrainPhysicsPlugin {
    /// Chunks closer than this to a focus get colliders (world units); the patch always does.
    pub collider_distance: f32,
}

impl Default for TerrainPhysicsPlugin {
    fn default() -> Self {
        Self { collider_distance: 300.0 }
    }
}

/// Which pieces get colliders: those within `distance` of a focus (the patch always).
#[derive(Resource, Debug, Clone, Copy, PartialEq, Reflect)]
#[reflect(Resource)]
pub struct TerrainColliders {
    /// World units from the nearest focus.
    pub distance: f32,
}

/// Marks the child entity that holds a piece's collider.
#[derive(Component, Debug, Default, Clone, Copy, Reflect)]
#[reflect(Component, Default)]
pub struct TerrainCollider;

/// Marks a body that is lifted onto the ground when the terrain under it changes (a new seed can
/// put the ground above a body that rested on the old one; a lower ground needs nothing: the
/// plugin wakes sleeping bodies over changed pieces, and they fall). Its lowest point is put on the
/// surface: give the distance from its origin down to its lowest point.
#[derive(Component, Debug, Clone, Copy, PartialEq, Reflect)]
#[reflect(Component)]
pub struct KeepAboveTerrain {
    /// From the body's origin down to its lowest point (a sphere's radius).
    pub depth: f32,
}

/// Where the collider hook sits in [`PieceHooks`].
#[derive(Resource, Debug, Clone, Copy)]
struct ColliderHook(usize);

/// The child entity holding a piece's collider, on the piece.
#[derive(Component, Debug, Clone, Copy)]
struct PieceCollider(Entity);

impl Plugin for TerrainPhysicsPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(TerrainColliders { distance: self.collider_distance })
            .insert_resource(ScatterEntitiesAtLeast { distance: self.collider_distance })
            .init_resource::<PieceHooks>()
            .register_type::<TerrainColliders>()
            .register_type::<TerrainCollider>()
            .register_type::<KeepAboveTerrain>()
            .add_observer(match_instance_collider_to_piece)
            .add_systems(Update, follow_terrain_changes.after(TerrainSystems::Apply))
            .add_systems(
                Update,
                follow_collider_distance
                    .run_if(resource_changed::<TerrainColliders>)
                    .before(TerrainSystems::Queue),
            );
        let hook = PieceHook::new(
            self.collider_distance,
            |build, params| heightfield_collider(&build.heights, &build.geometry, params.height_scale),
            apply_collider,
        );
        let index = app.world_mut().resource_mut::<PieceHooks>().add(hook);
        app.insert_resource(ColliderHook(index));
    }
}

/// Gives the collider hook the distance of [`TerrainColliders`].
fn follow_collider_distance(
    colliders: Res<TerrainColliders>,
    hook: Res<ColliderHook>,
    mut hooks: ResMut<PieceHooks>,
    mut scatter: ResMut<ScatterEntitiesAtLeast>,
) {
    if let Some(h) = hooks.get_mut(hook.0) {
        h.within = colliders.distance;
    }
    scatter.distance = colliders.distance;
}

/// The heightfield collider of a piece, and where its centre lies relative to the piece's entity.
pub fn heightfield_collider(
    heights: &Heightmap,
    geometry: &PieceGeometry,
    height_scale: f32,
) -> (Collider, Vec3) {
    let (columns, rows) = (heights.width().max(2), heights.height().max(2));
    // avian's heightfield: the outer `Vec` runs along x, the inner along z (pinned by a test).
    let along_x: Vec<Vec<f32>> =
        (0..columns).map(|x| (0..rows).map(|z| heights.get(x, z).unwrap_or(0.0)).collect()).collect();
    let collider = Collider::heightfield(along_x, Vec3::new(geometry.size, height_scale, geometry.size));
    let half = geometry.size / 2.0;
    (collider, Vec3::new(geometry.origin[0] + half, 0.0, geometry.origin[1] + half))
}

/// The hook's `apply`: gives a piece its built collider, or takes the old one away.
fn apply_collider(commands: &mut Commands, piece: Entity, collider: Option<(Collider, Vec3)>) {
    commands.entity(piece).queue(move |mut piece: EntityWorldMut| swap_collider(&mut piece, collider));
}

/// Puts `collider` on the piece's collider child (spawned when there is none), or despawns the
/// child when `None`; its solid scatter instances get their colliders or lose them with it.
fn swap_collider(piece: &mut EntityWorldMut, collider: Option<(Collider, Vec3)>) {
    let solid = collider.is_some();
    set_instance_colliders(piece, solid);
    let id = piece.id();
    match (collider, piece.get::<PieceCollider>().map(|c| c.0)) {
        (Some((collider, centre)), Some(child)) => piece.world_scope(|world| {
            if let Ok(mut child) = world.get_entity_mut(child) {
                child.insert((collider, Transform::from_translation(centre)));
            }
        }),
        (Some((collider, centre)), None) => {
            let child = piece.world_scope(|world| {
                world
                    .spawn((TerrainCollider, collider, Transform::from_translation(centre), ChildOf(id)))
                    .id()
            });
            piece.insert((RigidBody::Static, PieceCollider(child)));
        }
        (None, Some(child)) => {
            piece.world_scope(|world| {
                world.despawn(child);
            });
            piece.remove::<PieceCollider>();
        }
        (None, None) => {}
    }
}

/// Gives the piece's solid scatter instances their colliders (`solid`), or takes them away.
fn set_instance_colliders(piece: &mut EntityWorldMut, solid: bool) {
    let things: Vec<Entity> = piece.get::<ScatterOnPiece>().map(|on| on.iter().collect()).unwrap_or_default();
    piece.world_scope(|world| {
        for child in things {
            let Some(&instance) = world.get::<ScatterInstance>(child) else { continue };
            let collider = if solid { instance_collider(world, child, instance) } else { None };
            let Ok(mut entity) = world.get_entity_mut(child) else { continue };
            match collider {
                Some(collider) => {
                    entity.insert((RigidBody::Static, collider));
                }
                None => {
                    entity.remove::<(RigidBody, Collider)>();
                }
            }
        }
    });
}

/// The collider of a solid scatter instance, in its own (unscaled) space: avian scales it by
/// the instance's transform. `None` for reeds and layers that are not solid.
fn instance_collider(world: &World, entity: Entity, instance: ScatterInstance) -> Option<Collider> {
    if !instance.solid {
        return None;
    }
    let (centre, collider) = match instance.shape {
        // The plugin's tree: a trunk 10 units tall; its rock: a ball about 2.2 across.
        ScatterShape::Tree => (Vec3::Y * 5.0, Collider::cylinder(0.45, 10.0)),
        ScatterShape::Rock => (Vec3::ZERO, Collider::sphere(1.1)),
        ScatterShape::Reed => return None,
        ScatterShape::Custom => {
            let mesh = world.get::<Mesh3d>(entity)?;
            let aabb = world.get_resource::<Assets<Mesh>>()?.get(&mesh.0)?.compute_aabb()?;
            let size = Vec3::from(aabb.half_extents) * 2.0;
            (Vec3::from(aabb.center), Collider::cuboid(size.x, size.y, size.z))
        }
    };
    Some(Collider::compound(vec![(centre, Quat::IDENTITY, collider)]))
}

/// A solid instance spawned on a piece, or passed to one, has its own collider exactly when the
/// piece has one.
fn match_instance_collider_to_piece(
    insert: On<Insert, ScatterOf>,
    instances: Query<(&ScatterInstance, &ScatterOf, Has<Collider>)>,
    pieces: Query<(), With<PieceCollider>>,
    mut commands: Commands,
) {
    let Ok((&instance, of, has)) = instances.get(insert.entity) else { return };
    let wants = instance.solid && pieces.contains(of.0);
    let entity = insert.entity;
    if wants && !has {
        commands.queue(move |world: &mut World| {
            if let Some(collider) = instance_collider(world, entity, instance)
                && let Ok(mut e) = world.get_entity_mut(entity)
            {
                e.insert((RigidBody::Static, collider));
            }
        });
    } else if has && !wants {
        commands.entity(entity).try_remove::<(RigidBody, Collider)>();
    }
}

/// Wakes the sleeping bodies over pieces whose ground changed this frame (a body asleep on the
/// old ground would hang in the air), and lifts [`KeepAboveTerrain`] bodies that ended up below
/// the new ground.
#[allow(clippy::type_complexity)]
fn follow_terrain_changes(
    mut commands: Commands,
    changed: Query<(&TerrainPiece, &PieceOf), Changed<PieceHeights>>,
    roots: Query<&GlobalTransform, With<Terrain>>,
    terrain: TerrainQuery,
    mut bodies: Query<
        (Entity, &mut Transform, Option<&KeepAboveTerrain>, Has<Sleeping>, Option<&mut LinearVelocity>),
        (With<RigidBody>, Without<TerrainPiece>),
    >,
) {
    if changed.is_empty() {
        return;
    }
    let over_change = |p: Vec3| {
        changed.iter().any(|(piece, of)| {
            let to_local = roots.get(of.0).copied().unwrap_or_default().affine().inverse();
            let local = to_local.transform_point3(p);
            let (x, z) = (f64::from(local.x), f64::from(local.z));
            let b = piece.bounds;
            (b[0]..=b[2]).contains(&x) && (b[1]..=b[3]).contains(&z)
        })
    };
    for (body, mut at, keep, sleeping, velocity) in &mut bodies {
        let p = at.translation;
        if !over_change(p) {
            continue;
        }
        if sleeping {
            commands.queue(WakeBody(body));
        }
        if let Some(keep) = keep
            && let Some(ground) = terrain.height_at(p.x, p.z)
            && p.y - keep.depth < ground
        {
            at.translation.y = ground + keep.depth;
            if let Some(mut v) = velocity {
                v.0.y = v.0.y.max(0.0);
            }
        }
    }
}
