//! The scatter hook: each piece's instances are placed in its background build and spawned on
//! it in the frame its mesh lands; they follow their terrain entity's transform and visibility.

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use noise_terrain_core::{
    Ground, Heightmap, ScatterLayer, ScatterLevels, ScatterPoint, ScatterShape, WorldGround, scatter_points,
};

use crate::build::{PieceBuild, PieceGeometry, PieceKey};
use crate::params::{TerrainLayout, TerrainParams};
use crate::pieces::{HookOutput, PieceOf, Terrain, TerrainPieces};
use crate::scatter::looks::ScatterLooks;

/// Marks one placed thing. Its entity stands on a piece ([`ScatterOf`]) and is despawned with
/// it, but is not its child: its [`Transform`] is in world space (its terrain's transform times
/// [`in_terrain`](Self::in_terrain)), kept so when the terrain entity moves, and it is hidden
/// when the terrain entity's own [`Visibility`] is `Hidden`. Out of the transform hierarchy,
/// thousands of things cost the transform propagation nothing while nothing about them changes.
#[derive(Component, Debug, Clone, Copy, PartialEq, Reflect)]
#[reflect(Component)]
pub struct ScatterInstance {
    /// Its layer's index in [`TerrainParams::scatter`].
    pub layer: u8,
    /// Its layer's shape.
    #[reflect(ignore)]
    pub shape: ScatterShape,
    /// Whether its layer is [`solid`](ScatterLayer::solid).
    pub solid: bool,
    /// Where it stands in its terrain entity's space.
    pub in_terrain: Transform,
}

/// The piece a [`ScatterInstance`] stands on; it is despawned with the piece.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
#[relationship(relationship_target = ScatterOnPiece)]
pub struct ScatterOf(pub Entity);

/// The [`ScatterInstance`]s standing on a piece (see [`ScatterOf`]).
#[derive(Component, Debug, Default)]
#[relationship_target(relationship = ScatterOf, linked_spawn)]
pub struct ScatterOnPiece(EntityHashSet);

/// What one piece's build placed: per layer, its look and the instances' transforms in the
/// terrain entity's space.
#[derive(Debug, Default)]
pub(crate) struct PieceScatter {
    layers: Vec<PlacedLayer>,
}

#[derive(Debug)]
struct PlacedLayer {
    shape: ScatterShape,
    name: String,
    solid: bool,
    transforms: Vec<Transform>,
}

/// The ground of a piece's terrain at any point, as the layers see it: the field itself in the
/// endless layout (so a point's ground does not depend on the chunk or its level), the patch's
/// own heights (after post-processing and erosion, which need the whole map) on the patch.
pub(crate) enum TerrainGround<'a> {
    /// The endless layout's field (boxed: it holds every octave's lattice).
    World(Box<WorldGround>),
    /// The patch's heights.
    Patch { heights: &'a Heightmap, geometry: PieceGeometry, height_scale: f32 },
}

impl<'a> TerrainGround<'a> {
    /// The ground of `params` (validated); `patch`: the patch's heights and where they lie.
    pub(crate) fn new(params: &TerrainParams, patch: Option<(&'a Heightmap, PieceGeometry)>) -> Option<Self> {
        match (params.layout, patch) {
            (TerrainLayout::Endless { .. }, _) => Some(Self::World(Box::new(WorldGround::new(
                &params.noise,
                &params.post,
                params.world_size,
                params.height_scale,
            )))),
            (TerrainLayout::Patch, Some((heights, geometry))) => {
                Some(Self::Patch { heights, geometry, height_scale: params.height_scale })
            }
            (TerrainLayout::Patch, None) => None,
        }
    }

    /// The ground at `(x, z)` in the terrain entity's space (`None` off the patch).
    pub(crate) fn at(&self, x: f64, z: f64) -> Option<Ground> {
        match self {
            Self::World(ground) => Some(ground.at(x, z)),
            Self::Patch { heights, geometry, height_scale } => {
                let placement = geometry.placement(*height_scale, [f32::MIN, f32::MAX]);
                let y = placement.height_at(heights, x, z)?;
                let normal = placement.normal_at(heights, x, z)?.as_vec3();
                let height = if *height_scale > 0.0 { (y / f64::from(*height_scale)) as f32 } else { 0.0 };
                Some(Ground { height, normal: normal.to_array(), cut: 0.0 })
            }
        }
    }
}

/// The points of `layer` (clamped) in `rect` of the terrain's space whose rank is under `share`.
pub(crate) fn layer_points(
    layer: &ScatterLayer,
    params: &TerrainParams,
    ground: &TerrainGround,
    rect: [f64; 4],
    share: f32,
    out: &mut Vec<ScatterPoint>,
) -> Result<(), noise_terrain_core::ScatterError> {
    let levels = ScatterLevels { water_level: params.water_level, height_scale: params.height_scale };
    scatter_points(&layer.rule, levels, rect, share, |x, z| ground.at(x, z), out)
}

/// The hook's build: every layer's instances on the piece, standing on its mesh.
pub(crate) fn place_on_piece(build: &PieceBuild, params: &TerrainParams) -> HookOutput {
    let mut placed = PieceScatter::default();
    if params.scatter.is_empty() {
        return Box::new(placed);
    }
    let (params, _) = params.validated();
    let g = build.geometry;
    let Some(ground) = TerrainGround::new(&params, Some((&build.heights, g))) else {
        return Box::new(placed);
    };
    // The mesh's own surface: instances stand on the triangles drawn, whatever the level.
    let mesh = g.placement(params.height_scale, [build.stats.min, build.stats.max]);
    let mut points = Vec::new();
    for layer in &params.scatter {
        let share = match (build.spec.key, params.layout.lod_settings()) {
            (PieceKey::Chunk(key), Some(lod)) => layer.share_at_level(key.level, lod.chunk_size),
            _ => f32::from(layer.rule.enabled),
        };
        points.clear();
        if share > 0.0
            && let Err(e) = layer_points(layer, &params, &ground, g.bounds(), share, &mut points)
        {
            warn!("scatter layer {:?}: {e}", layer.name);
        }
        let transforms = points
            .iter()
            .filter_map(|p| {
                let y = mesh.height_at(&build.heights, p.position[0], p.position[2])?;
                Some(instance_transform(layer, p, [p.position[0], y, p.position[2]]))
            })
            .collect();
        placed.layers.push(PlacedLayer {
            shape: layer.shape,
            name: layer.name.clone(),
            solid: layer.solid,
            transforms,
        });
    }
    Box::new(placed)
}

/// Where one instance stands in its terrain's space: turned about the vertical, tilted to the
/// ground when the layer says so, scaled.
fn instance_transform(layer: &ScatterLayer, p: &ScatterPoint, local: [f64; 3]) -> Transform {
    let turn = Quat::from_rotation_y(p.rotation);
    let rotation = if layer.align_to_ground {
        Quat::from_rotation_arc(Vec3::Y, Vec3::from_array(p.normal)) * turn
    } else {
        turn
    };
    Transform {
        translation: Vec3::new(local[0] as f32, local[1] as f32, local[2] as f32),
        rotation,
        scale: Vec3::splat(p.scale),
    }
}

/// The hook's apply: replaces the piece's instances with the new build's (or removes them).
pub(crate) fn apply_to_piece(commands: &mut Commands, piece: Entity, output: Option<HookOutput>) {
    let placed = output.and_then(|o| o.downcast::<PieceScatter>().ok()).map(|p| *p).unwrap_or_default();
    commands.queue(move |world: &mut World| swap_instances(world, piece, placed));
}

/// What stands on a piece, as its last swap left it: each instance's point key, entity and
/// transform in the terrain's space. The next swap compares with this plain record instead of
/// reading each instance back from the world (a thing found unchanged costs a hash lookup).
#[derive(Component, Debug, Default)]
pub(crate) struct ThingsOnPiece(Vec<PlacedThing>);

#[derive(Debug, Clone, Copy)]
struct PlacedThing {
    key: ThingKey,
    entity: Entity,
    in_terrain: Transform,
}

/// What makes an old instance the same thing as a new one: its layer, look and point (the
/// point's bits: the same point is placed by the same arithmetic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct ThingKey {
    layer: u8,
    shape: ScatterShape,
    solid: bool,
    look: Option<(AssetId<Mesh>, AssetId<StandardMaterial>)>,
    x: u32,
    z: u32,
}

/// Replaces the piece's instances with `placed`, where its terrain's transform and visibility
/// put them. A thing already on the piece with the same layer and look at the same point is
/// kept: left alone when nothing about it changed, moved when its height did (the mesh under it
/// changed). Only the new points are spawned, in one batch per layer, and only the things no
/// longer placed are despawned.
///
/// Why: a piece rebuilt only for its stitching (a neighbour changed level) places the same
/// things again. Flying at 200 units/s with 29,000 things in view, respawning them all moved a
/// median 2,600 instances in each frame that landed pieces (up to 14,000); keeping them, 1,100.
/// The comparison is with the piece's plain record ([`ThingsOnPiece`]): reading each thing
/// back from the world cost about 1 µs a thing (cache misses), as much as respawning it.
fn swap_instances(world: &mut World, piece: Entity, placed: PieceScatter) {
    let Ok(mut entity) = world.get_entity_mut(piece) else { return };
    let old = entity.get_mut::<ThingsOnPiece>().map(|mut t| std::mem::take(&mut t.0)).unwrap_or_default();
    let terrain = entity.get::<PieceOf>().map(|of| of.0);
    let (frame, visibility) =
        terrain.map_or((GlobalTransform::IDENTITY, Visibility::Inherited), |t| terrain_frame(world, t));
    let mut old: HashMap<ThingKey, PlacedThing> = old.into_iter().map(|t| (t.key, t)).collect();
    let mut now = Vec::with_capacity(placed.layers.iter().map(|l| l.transforms.len()).sum());
    for (index, layer) in placed.layers.into_iter().enumerate() {
        let look = world.resource_mut::<ScatterLooks>().look_for(layer.shape, &layer.name);
        let look_ids = look.as_ref().map(|(mesh, material)| (mesh.id(), material.id()));
        let key_at = |t: &Transform| ThingKey {
            layer: index as u8,
            shape: layer.shape,
            solid: layer.solid,
            look: look_ids,
            x: t.translation.x.to_bits(),
            z: t.translation.z.to_bits(),
        };
        let mut new = Vec::new();
        for in_terrain in layer.transforms {
            match old.remove(&key_at(&in_terrain)) {
                // Game code may have despawned it: then it is placed anew.
                Some(thing) if world.entities().contains(thing.entity) => {
                    if thing.in_terrain != in_terrain {
                        move_instance(world, thing.entity, in_terrain, in_world(frame, in_terrain));
                    }
                    now.push(PlacedThing { in_terrain, ..thing });
                }
                _ => new.push(in_terrain),
            }
        }
        if new.is_empty() {
            continue;
        }
        let instance = |in_terrain: Transform| {
            let thing =
                ScatterInstance { layer: index as u8, shape: layer.shape, solid: layer.solid, in_terrain };
            (thing, in_world(frame, in_terrain), visibility, ScatterOf(piece))
        };
        let spawned: Vec<Entity> = match &look {
            Some((mesh, material)) => world
                .spawn_batch(
                    new.iter()
                        .map(|&t| (instance(t), Mesh3d(mesh.clone()), MeshMaterial3d(material.clone()))),
                )
                .collect(),
            None => world.spawn_batch(new.iter().map(|&t| instance(t))).collect(),
        };
        let placed = spawned.into_iter().zip(new);
        now.extend(placed.map(|(entity, in_terrain)| PlacedThing {
            key: key_at(&in_terrain),
            entity,
            in_terrain,
        }));
    }
    for thing in old.into_values() {
        // Quietly: game code may have despawned it already.
        let _ = world.try_despawn(thing.entity);
    }
    if let Ok(mut entity) = world.get_entity_mut(piece) {
        entity.insert(ThingsOnPiece(now));
    }
}

/// Moves a kept instance to where the new build stands it (its visibility and the terrain's
/// transform are [`follow_terrains`]' to keep).
fn move_instance(world: &mut World, entity: Entity, in_terrain: Transform, at: Transform) {
    let Ok(mut e) = world.get_entity_mut(entity) else { return };
    if let Some(mut thing) = e.get_mut::<ScatterInstance>() {
        thing.in_terrain = in_terrain;
    }
    if let Some(mut transform) = e.get_mut::<Transform>() {
        *transform = at;
    }
    if let Some(mut global) = e.get_mut::<GlobalTransform>() {
        *global = GlobalTransform::from(at);
    }
}

/// A transform in a terrain's space placed in the world by the terrain's transform `frame`
/// (exactly itself for a terrain at the origin).
fn in_world(frame: GlobalTransform, in_terrain: Transform) -> Transform {
    if frame == GlobalTransform::IDENTITY {
        in_terrain
    } else {
        frame.mul_transform(in_terrain).compute_transform()
    }
}

/// The visibility things take from their terrain entity's own [`Visibility`] (not from its
/// ancestors': hide the terrain itself to hide its things).
fn things_visibility(terrain: Option<&Visibility>) -> Visibility {
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

/// What [`follow_terrains`] reads of a terrain.
type TerrainFrameParts =
    (Entity, &'static GlobalTransform, Option<&'static Visibility>, &'static TerrainPieces);

/// Things follow their terrain entity: when it moves, or is hidden or shown, so are they (after
/// the transform propagation, so in the same frame). `last` is where each terrain's things
/// stand now: a root's `GlobalTransform` is written, so flagged as changed, whenever anything
/// under it changes.
pub(crate) fn follow_terrains(
    terrains: Query<TerrainFrameParts, (With<Terrain>, Without<ScatterInstance>)>,
    pieces: Query<&ScatterOnPiece>,
    mut instances: Query<(&ScatterInstance, &mut Transform, &mut GlobalTransform, &mut Visibility)>,
    mut last: Local<EntityHashMap<(GlobalTransform, Visibility)>>,
) {
    last.retain(|&terrain, _| terrains.contains(terrain));
    for (terrain, &frame, visibility, terrain_pieces) in &terrains {
        let now = (frame, things_visibility(visibility));
        if last.insert(terrain, now) == Some(now) {
            continue;
        }
        for on in pieces.iter_many(terrain_pieces.iter()) {
            let mut things = instances.iter_many_mut(on.iter());
            while let Some((thing, mut transform, mut global, mut visibility)) = things.fetch_next() {
                let at = in_world(frame, thing.in_terrain);
                global.set_if_neq(GlobalTransform::from(at));
                transform.set_if_neq(at);
                visibility.set_if_neq(now.1);
            }
        }
    }
}
