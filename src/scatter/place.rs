//! The scatter hook: each piece's instances are placed in its background build and spawned on
//! it in the frame its mesh lands; they follow their terrain entity's transform and visibility.

use std::collections::VecDeque;

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use noise_terrain_core::advanced::scatter_points_ranked;
use noise_terrain_core::{
    ChunkKey, Ground, Heightmap, ScatterLayer, ScatterLevels, ScatterPoint, ScatterShape, WorldGround,
};

use crate::build::{PieceBuild, PieceGeometry, PieceKey};
use crate::params::{TerrainLayout, TerrainPreset};
use crate::pieces::{PieceOf, Terrain, TerrainJobs, TerrainPiece, TerrainPieces};
use crate::scatter::batches::{BatchesOnPiece, ScatterBatch};
use crate::scatter::cache::{Kept, PointCache};
use crate::scatter::looks::ScatterLooks;

/// Marks one placed thing. Its entity stands on a piece ([`ScatterOf`]) and is despawned with
/// it (or passes to the piece that replaces it and places it again), but is not its child: its [`Transform`] is in world space (its terrain's transform times
/// [`in_terrain`](Self::in_terrain)), kept so when the terrain entity moves, and it is hidden
/// when the terrain entity's own [`Visibility`] is `Hidden`. Out of the transform hierarchy,
/// thousands of things cost the transform propagation nothing while nothing about them changes.
#[derive(Component, Debug, Clone, Copy, PartialEq, Reflect)]
#[reflect(Component)]
pub struct ScatterInstance {
    /// Its layer's index in [`TerrainPreset::scatter`].
    pub layer: u8,
    /// Its layer's shape.
    #[reflect(ignore)]
    pub shape: ScatterShape,
    /// Whether its layer is [`solid`](ScatterLayer::solid).
    pub solid: bool,
    /// Where it stands in its terrain entity's space.
    pub in_terrain: Transform,
}

/// The piece a [`ScatterInstance`] stands on. A plain component, not a relationship: when the
/// piece goes, its things go with it or pass to the piece that replaces it at another level of
/// detail (the same point placed again), and this changes (an insert: observers of `Insert`
/// hear of it).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScatterOf(pub Entity);

/// The [`ScatterInstance`]s standing on a piece, as its last swap left them. When the piece
/// is despawned, its things are despawned in the same frame, except those a piece replacing it
/// places again, which pass to that piece.
#[derive(Component, Debug, Default)]
#[component(on_remove = loosen_things)]
pub struct ScatterOnPiece {
    things: Vec<PlacedThing>,
    /// New things not spawned yet: streaming spreads spawns over frames.
    waiting: Vec<WaitingLayer>,
    /// The parameter generation the things were placed for.
    generation: u64,
}

impl ScatterOnPiece {
    /// The instances on the piece.
    pub fn iter(&self) -> impl Iterator<Item = Entity> + '_ {
        self.things.iter().map(|t| t.entity)
    }

    /// How many instances stand on the piece.
    pub fn len(&self) -> usize {
        self.things.len()
    }

    /// Whether nothing stands on the piece.
    pub fn is_empty(&self) -> bool {
        self.things.is_empty()
    }

    /// How many of the piece's new things wait to be spawned.
    pub fn waiting(&self) -> usize {
        self.waiting.iter().map(|w| w.transforms.len()).sum()
    }
}

/// What one piece's build placed: per layer, its look and the instances' transforms in the
/// terrain entity's space.
#[derive(Debug, Default)]
pub(crate) struct PieceScatter {
    layers: Vec<PlacedLayer>,
}

/// One layer's things on a piece.
#[derive(Debug)]
pub(super) struct PlacedLayer {
    /// The layer's shape.
    pub(super) shape: ScatterShape,
    /// The layer's name.
    pub(super) name: String,
    /// Whether the layer is solid.
    pub(super) solid: bool,
    /// Where each thing stands, in the terrain entity's space.
    pub(super) transforms: Vec<Transform>,
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
    pub(crate) fn new(params: &TerrainPreset, patch: Option<(&'a Heightmap, PieceGeometry)>) -> Option<Self> {
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

/// The points of `layer` (clamped) in `rect` of the terrain's space whose rank lies in `ranks`
/// (`[lowest, share)`).
pub(crate) fn layer_points(
    layer: &ScatterLayer,
    params: &TerrainPreset,
    ground: &TerrainGround,
    rect: [f64; 4],
    ranks: [f32; 2],
    out: &mut Vec<ScatterPoint>,
) -> Result<(), noise_terrain_core::ScatterError> {
    let levels = ScatterLevels { water_level: params.water_level, height_scale: params.height_scale };
    match ground {
        // A candidate whose height is sure to be out of the rule's range costs a third to two
        // thirds of one asked for its whole ground.
        TerrainGround::World(world) => {
            let heights = layer.rule.clamped().height_window(levels.water_level);
            scatter_points_ranked(&layer.rule, levels, rect, ranks, world.within(heights), out)
        }
        TerrainGround::Patch { .. } => {
            scatter_points_ranked(&layer.rule, levels, rect, ranks, |x, z| ground.at(x, z), out)
        }
    }
}

/// The hook's build: every layer's instances on the piece, standing on its mesh.
pub(crate) fn place_on_piece(
    cache: PointCache,
) -> impl Fn(&PieceBuild, &TerrainPreset) -> PieceScatter + Send + Sync + 'static {
    move |build, params| PieceScatter { layers: placed_layers(build, params, &cache) }
}

/// Every layer's things on the piece (none for a layer the piece does not carry), standing on
/// its mesh: where the piece's instances or its batches stand. A chunk's points come from
/// `cache` when it was built before with the same parameters.
pub(super) fn placed_layers(
    build: &PieceBuild,
    params: &TerrainPreset,
    cache: &PointCache,
) -> Vec<PlacedLayer> {
    if params.scatter.is_empty() {
        return Vec::new();
    }
    let params = params.clamped();
    let g = build.geometry;
    // The patch's ground is its own heights (after erosion): made anew with each build.
    let points = match build.spec.key {
        PieceKey::Patch => piece_points(build, &params, Kept::Nothing).into(),
        PieceKey::Chunk(_) => {
            cache.points(build.spec.key, &params, |kept| piece_points(build, &params, kept))
        }
    };
    // The mesh's own surface: instances stand on the triangles drawn, whatever the level.
    let mesh = g.placement(params.height_scale, [build.stats.min, build.stats.max]);
    params
        .scatter
        .iter()
        .zip(points.iter())
        .map(|(layer, points)| {
            let transforms = points
                .iter()
                .filter_map(|p| {
                    let y = mesh.height_at(&build.heights, p.position[0], p.position[2])?;
                    Some(instance_transform(layer, p, [p.position[0], y, p.position[2]]))
                })
                .collect();
            PlacedLayer { shape: layer.shape, name: layer.name.clone(), solid: layer.solid, transforms }
        })
        .collect()
}

/// Each layer's points on the piece (validated `params`), thinned for its level of detail;
/// those that `kept` (its children's or parent's points) holds are taken from there, so the
/// ground is asked only for the others.
fn piece_points(build: &PieceBuild, params: &TerrainPreset, kept: Kept) -> Vec<Vec<ScatterPoint>> {
    let g = build.geometry;
    let Some(ground) = TerrainGround::new(params, Some((&build.heights, g))) else {
        return vec![Vec::new(); params.scatter.len()];
    };
    let bounds = g.bounds();
    let share_at = |layer: &ScatterLayer, key: PieceKey| match (key, params.layout.lod_settings()) {
        (PieceKey::Chunk(key), Some(lod)) => layer.share_at_level(key.level, lod.chunk_size),
        _ => f32::from(layer.rule.enabled),
    };
    // Only where the pieces' rectangles tile exactly: a candidate then lies in the same piece
    // as it does when placed anew.
    let kept = match kept {
        Kept::Children(chunk, _) if !tiled_by_children(chunk, params, bounds) => Kept::Nothing,
        Kept::Parent(parent, _) if !contains(PieceKey::Chunk(parent).geometry(params).bounds(), bounds) => {
            Kept::Nothing
        }
        kept @ (Kept::Children(..) | Kept::Parent(..) | Kept::Nothing) => kept,
    };
    params
        .scatter
        .iter()
        .enumerate()
        .map(|(index, layer)| {
            let share = share_at(layer, build.spec.key);
            let mut points = Vec::new();
            if share <= 0.0 {
                return points;
            }
            let lowest = match &kept {
                // The children hold every point of the piece (a finer level keeps more).
                Kept::Children(chunk, children)
                    if chunk.children().all(|child| share_at(layer, PieceKey::Chunk(child)) >= share) =>
                {
                    points.extend(children.iter().flat_map(|c| &c[index]).filter(|p| p.rank < share));
                    return points;
                }
                // The parent holds those of rank under its share.
                Kept::Parent(parent, of_parent) => {
                    let inside = |p: &&ScatterPoint| in_rect(bounds, p.position[0], p.position[2]);
                    points.extend(of_parent[index].iter().filter(inside).filter(|p| p.rank < share));
                    share_at(layer, PieceKey::Chunk(*parent)).min(share)
                }
                Kept::Children(..) | Kept::Nothing => 0.0,
            };
            if let Err(e) = layer_points(layer, params, &ground, bounds, [lowest, share], &mut points) {
                warn!("scatter layer {:?}: {e}", layer.name);
            }
            points
        })
        .collect()
}

/// Whether the rectangles of `chunk`'s children tile `bounds` (the chunk's) exactly, edge on
/// edge in `f64`.
fn tiled_by_children(chunk: ChunkKey, params: &TerrainPreset, bounds: [f64; 4]) -> bool {
    let children: Vec<[f64; 4]> =
        chunk.children().map(|child| PieceKey::Chunk(child).geometry(params).bounds()).collect();
    let [x0, z0, x1, z1] = bounds;
    let Some(&[_, _, mid_x, mid_z]) = children.first() else { return false };
    let xs = [x0, mid_x, x1];
    let zs = [z0, mid_z, z1];
    // In `ChunkKey::children`' order: (0, 0), (1, 0), (0, 1), (1, 1).
    children.len() == 4
        && children
            .iter()
            .zip([(0, 0), (1, 0), (0, 1), (1, 1)])
            .all(|(rect, (i, j))| *rect == [xs[i], zs[j], xs[i + 1], zs[j + 1]])
}

/// Whether `outer` contains `inner` (both `[min x, min z, max x, max z]`).
fn contains(outer: [f64; 4], inner: [f64; 4]) -> bool {
    outer[0] <= inner[0] && outer[1] <= inner[1] && inner[2] <= outer[2] && inner[3] <= outer[3]
}

/// Whether `(x, z)` lies in `rect`, half-open as the scatter rectangles are.
fn in_rect(rect: [f64; 4], x: f64, z: f64) -> bool {
    (rect[0]..rect[2]).contains(&x) && (rect[1]..rect[3]).contains(&z)
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

/// The hook's apply: queues the swap of the piece's instances for the new build's (or their
/// removal); [`swap_things`] makes it once the frame's pieces have landed and gone.
pub(crate) fn apply_to_piece(commands: &mut Commands, piece: Entity, placed: Option<PieceScatter>) {
    let placed = placed.unwrap_or_default();
    commands.queue(move |world: &mut World| world.resource_mut::<ThingSwaps>().queued.push((piece, placed)));
}

/// How many scatter instances a frame of streaming spawns and despawns at most. New things
/// beyond `spawns` wait for the next frames, oldest first, and the terrain counts as busy
/// ([`TerrainJobs::is_busy`]) until none wait; things no piece places any more beyond
/// `despawns` stay where they stood for the next frames, oldest first (their [`ScatterOf`]
/// names the piece that went; a piece that places one again takes it back). A parameter change
/// lands whole: it spawns all of its things at once, and things of older parameters are
/// despawned at once. Things a piece takes over from the piece it replaces are neither.
///
/// Why: flying at 200 units/s with 29,000 things in view, a frame where four finer chunks land
/// spawned up to 13,000 things (about 0.85 µs each on the machine measured), and a frame where
/// chunks left the view despawned thousands (about 2 µs each).
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Reflect)]
#[reflect(Resource)]
pub struct ScatterBudget {
    /// New instances per frame, at most (at least 1 is spawned: 0 counts as 1).
    pub spawns: usize,
    /// Instances despawned per frame, at most (at least 1: 0 counts as 1).
    pub despawns: usize,
}

impl Default for ScatterBudget {
    fn default() -> Self {
        Self { spawns: 400, despawns: 300 }
    }
}

/// The frame's thing swaps and what they share.
#[derive(Resource)]
pub(crate) struct ThingSwaps {
    /// The pieces whose builds landed this frame, with what they placed.
    queued: Vec<(Entity, PieceScatter)>,
    /// Things of pieces that went (or that their piece no longer places), by terrain and key,
    /// with the parameter generation they were placed for: a piece that places one of them
    /// again takes it; the rest are despawned within the budget.
    loose: HashMap<(Entity, ThingKey), (PlacedThing, u64)>,
    /// The keys of `loose` in the order they came loose (some taken since).
    leaving: VecDeque<(Entity, ThingKey)>,
    /// At most the oldest parameter generation among `loose` (`u64::MAX` when none is loose).
    oldest: u64,
    /// Pieces with things waiting to be spawned, oldest first.
    waiting: VecDeque<Entity>,
}

impl ThingSwaps {
    /// Whether anything is queued, waiting to be spawned or loose.
    pub(crate) fn is_pending(&self) -> bool {
        !self.queued.is_empty() || !self.waiting.is_empty() || !self.loose.is_empty()
    }
}

impl Default for ThingSwaps {
    fn default() -> Self {
        Self {
            queued: Vec::new(),
            loose: HashMap::default(),
            leaving: VecDeque::new(),
            oldest: u64::MAX,
            waiting: VecDeque::new(),
        }
    }
}

/// What stands on a piece: each instance's point key, entity and transform in the terrain's
/// space. A swap compares new points with this plain record instead of reading each instance
/// back from the world (a thing found unchanged costs a hash lookup).
#[derive(Debug, Clone, Copy)]
struct PlacedThing {
    key: ThingKey,
    entity: Entity,
    in_terrain: Transform,
}

/// What makes an old instance the same thing as a new one: its layer, look and point (the
/// point's bits: the same point is placed by the same arithmetic, whatever the piece).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct ThingKey {
    layer: u8,
    shape: ScatterShape,
    solid: bool,
    look: Option<(AssetId<Mesh>, AssetId<StandardMaterial>)>,
    x: u32,
    z: u32,
}

/// One layer's things as a swap spawns them: what every instance of it carries.
#[derive(Debug, Clone)]
struct LayerLook {
    layer: u8,
    shape: ScatterShape,
    solid: bool,
    look: Option<(Handle<Mesh>, Handle<StandardMaterial>)>,
}

impl LayerLook {
    fn key(&self, in_terrain: &Transform) -> ThingKey {
        ThingKey {
            layer: self.layer,
            shape: self.shape,
            solid: self.solid,
            look: self.look.as_ref().map(|(mesh, material)| (mesh.id(), material.id())),
            x: in_terrain.translation.x.to_bits(),
            z: in_terrain.translation.z.to_bits(),
        }
    }

    /// Spawns the things at `transforms` on `piece` (in one batch), where its terrain's
    /// transform `frame` and `visibility` put them, and returns their record.
    fn spawn(
        &self,
        world: &mut World,
        piece: Entity,
        (frame, visibility): (GlobalTransform, Visibility),
        transforms: &[Transform],
    ) -> Vec<PlacedThing> {
        let instance = |in_terrain: Transform| {
            let thing =
                ScatterInstance { layer: self.layer, shape: self.shape, solid: self.solid, in_terrain };
            (thing, in_world(frame, in_terrain), visibility, ScatterOf(piece))
        };
        let spawned: Vec<Entity> = match &self.look {
            Some((mesh, material)) => world
                .spawn_batch(
                    transforms
                        .iter()
                        .map(|&t| (instance(t), Mesh3d(mesh.clone()), MeshMaterial3d(material.clone()))),
                )
                .collect(),
            None => world.spawn_batch(transforms.iter().map(|&t| instance(t))).collect(),
        };
        let placed = spawned.into_iter().zip(transforms);
        placed
            .map(|(entity, &in_terrain)| PlacedThing { key: self.key(&in_terrain), entity, in_terrain })
            .collect()
    }
}

/// New things of one layer that wait to be spawned on a piece.
#[derive(Debug)]
struct WaitingLayer {
    look: LayerLook,
    transforms: Vec<Transform>,
}

/// A piece's things are loose when it goes: [`swap_things`] hands each to a piece that places
/// it again, or despawns it.
fn loosen_things(mut world: DeferredWorld, context: HookContext) {
    let terrain = world.get::<PieceOf>(context.entity).map_or(Entity::PLACEHOLDER, |of| of.0);
    let Some(mut on) = world.get_mut::<ScatterOnPiece>(context.entity) else { return };
    let (things, generation) = (std::mem::take(&mut on.things), on.generation);
    if let Some(mut swaps) = world.get_resource_mut::<ThingSwaps>() {
        swaps.loosen(terrain, things, generation);
    }
}

impl ThingSwaps {
    /// Makes `things` of `terrain`, placed for `generation`, loose.
    fn loosen(&mut self, terrain: Entity, things: impl IntoIterator<Item = PlacedThing>, generation: u64) {
        for thing in things {
            self.loose.insert((terrain, thing.key), (thing, generation));
            self.leaving.push_back((terrain, thing.key));
            self.oldest = self.oldest.min(generation);
        }
    }

    /// Despawns the loose thing at `key`, if it is still loose; whether it was.
    fn despawn(&mut self, world: &mut World, key: (Entity, ThingKey)) -> bool {
        let Some((thing, _)) = self.loose.remove(&key) else { return false };
        // Quietly: game code may have despawned it already.
        let _ = world.try_despawn(thing.entity);
        true
    }
}

/// Makes the frame's thing swaps (after the pieces landed and went), spawns waiting things and
/// despawns the things no piece places any more within the [`ScatterBudget`], swaps the far
/// pieces' batches, and tells each terrain's [`TerrainJobs`] how many things wait (it is busy
/// until none do).
pub(crate) fn swap_things(world: &mut World) {
    // Out of the world meanwhile: no piece goes while it runs, so none of its things loosen.
    world.resource_scope(|world, mut swaps: Mut<ThingSwaps>| {
        let limits = world.get_resource::<ScatterBudget>().copied().unwrap_or_default();
        let mut budget = limits.spawns.max(1);
        let was_pending = !swaps.waiting.is_empty() || !swaps.loose.is_empty();
        for (piece, placed) in std::mem::take(&mut swaps.queued) {
            swap_instances(world, piece, placed, &mut swaps, &mut budget);
        }
        spawn_waiting(world, &mut swaps, &mut budget);
        despawn_loose(world, &mut swaps, limits.despawns.max(1));
        crate::scatter::batches::swap_batches(world, swaps.waiting.iter().copied());
        if was_pending || !swaps.waiting.is_empty() || !swaps.loose.is_empty() {
            count_waiting(world, &swaps);
        }
    });
}

/// Replaces the piece's instances with `placed`, where its terrain's transform and visibility
/// put them. A thing already on the piece, or loose from a piece that went, with the same layer
/// and look at the same point is kept: left alone when nothing about it changed, moved when its
/// height did (the mesh under it changed). Only the new points are spawned (within `budget`
/// unless the parameters changed); the things the piece no longer places are loosened.
///
/// Why: a piece rebuilt only for its stitching (a neighbour changed level) places the same
/// things again, and the four chunks that replace one at a finer level place all of its things
/// again. Flying at 200 units/s with 29,000 things in view, respawning them all moved a median
/// 2,600 instances in each frame that landed pieces (up to 14,000). The comparison is with the
/// piece's plain record: reading each thing back from the world cost about 1 µs a thing (cache
/// misses), as much as respawning it.
fn swap_instances(
    world: &mut World,
    piece: Entity,
    placed: PieceScatter,
    swaps: &mut ThingSwaps,
    budget: &mut usize,
) {
    let Ok(mut entity) = world.get_entity_mut(piece) else { return };
    let generation = entity.get::<TerrainPiece>().and_then(|p| p.shown.as_ref()).map_or(0, |s| s.generation);
    // `queued`: the piece is in the waiting queue already (it stays there, maybe with nothing
    // left to wait for).
    let (old, old_generation, queued) = match entity.get_mut::<ScatterOnPiece>() {
        Some(mut on) => {
            let queued = !on.waiting.is_empty();
            on.waiting.clear();
            (std::mem::take(&mut on.things), Some(on.generation), queued)
        }
        None => (Vec::new(), None, false),
    };
    let whole = old_generation.is_some_and(|g| g != generation);
    let (terrain, frame, visibility) = piece_frame(world, piece);
    let mut old: HashMap<ThingKey, PlacedThing> = old.into_iter().map(|t| (t.key, t)).collect();
    let mut now = Vec::with_capacity(placed.layers.iter().map(|l| l.transforms.len()).sum());
    let mut waiting = Vec::new();
    for (index, layer) in placed.layers.into_iter().enumerate() {
        let look = world.resource_mut::<ScatterLooks>().look_for(layer.shape, &layer.name);
        let look = LayerLook { layer: index as u8, shape: layer.shape, solid: layer.solid, look };
        let mut new = Vec::new();
        for in_terrain in layer.transforms {
            let key = look.key(&in_terrain);
            let (thing, passed) = match old.remove(&key) {
                Some(thing) => (Some(thing), false),
                None => (swaps.loose.remove(&(terrain, key)).map(|(thing, _)| thing), true),
            };
            match thing {
                // Game code may have despawned it: then it is placed anew.
                Some(thing) if world.entities().contains(thing.entity) => {
                    if thing.in_terrain != in_terrain {
                        move_instance(world, thing.entity, in_terrain, in_world(frame, in_terrain));
                    }
                    if passed {
                        world.entity_mut(thing.entity).insert(ScatterOf(piece));
                    }
                    now.push(PlacedThing { in_terrain, ..thing });
                }
                _ => new.push(in_terrain),
            }
        }
        let spawn_now = if whole { new.len() } else { new.len().min(*budget) };
        *budget = budget.saturating_sub(spawn_now);
        now.extend(look.spawn(world, piece, (frame, visibility), &new[..spawn_now]));
        if spawn_now < new.len() {
            waiting.push(WaitingLayer { look, transforms: new.split_off(spawn_now) });
        }
    }
    swaps.loosen(terrain, old.into_values(), old_generation.unwrap_or(generation));
    if !waiting.is_empty() && !queued {
        swaps.waiting.push_back(piece);
    }
    let Ok(mut entity) = world.get_entity_mut(piece) else { return };
    let on = ScatterOnPiece { things: now, waiting, generation };
    match entity.get_mut::<ScatterOnPiece>() {
        // In place: inserting over it would loosen its things (its remove hook) and move nothing.
        Some(mut old) => *old = on,
        None => {
            entity.insert(on);
        }
    }
}

/// Spawns waiting things, oldest pieces first, while `budget` lasts.
fn spawn_waiting(world: &mut World, swaps: &mut ThingSwaps, budget: &mut usize) {
    while *budget > 0
        && let Some(piece) = swaps.waiting.pop_front()
    {
        let Some(mut on) = world.get_mut::<ScatterOnPiece>(piece) else { continue };
        let mut layers = std::mem::take(&mut on.waiting);
        let (_, frame, visibility) = piece_frame(world, piece);
        let mut spawned = Vec::new();
        for layer in &mut layers {
            let n = layer.transforms.len().min(*budget);
            *budget -= n;
            let rest = layer.transforms.split_off(n);
            spawned.extend(layer.look.spawn(world, piece, (frame, visibility), &layer.transforms));
            layer.transforms = rest;
        }
        layers.retain(|l| !l.transforms.is_empty());
        let Some(mut on) = world.get_mut::<ScatterOnPiece>(piece) else { continue };
        on.things.extend(spawned);
        if !layers.is_empty() {
            on.waiting = layers;
            swaps.waiting.push_front(piece);
        }
    }
}

/// Despawns loose things no piece took: those of an older parameter generation than their
/// terrain's all at once (the new terrain lands whole), the others oldest first, at most
/// `budget` of them.
fn despawn_loose(world: &mut World, swaps: &mut ThingSwaps, budget: usize) {
    let mut despawned = 0;
    while despawned < budget
        && let Some(key) = swaps.leaving.pop_front()
    {
        despawned += usize::from(swaps.despawn(world, key));
    }
    // Scanned only when some terrain has parameters newer than the oldest loose thing's.
    let mut terrains = world.query::<&TerrainJobs>();
    if terrains.iter(world).any(|jobs| jobs.generation() > swaps.oldest) {
        let old: Vec<_> = swaps
            .loose
            .iter()
            .filter(|((terrain, _), (_, g))| outdated(world, *terrain, *g))
            .map(|(k, _)| *k)
            .collect();
        for key in old {
            swaps.despawn(world, key);
        }
    }
    if swaps.loose.is_empty() {
        swaps.leaving.clear();
        swaps.oldest = u64::MAX;
    }
}

/// Whether things (or batches) placed for `generation` are of older parameters than their
/// terrain's current ones: those go at once, the new terrain lands whole.
pub(super) fn outdated(world: &World, terrain: Entity, generation: u64) -> bool {
    world.get::<TerrainJobs>(terrain).is_some_and(|jobs| jobs.generation() > generation)
}

/// Tells each terrain's jobs how many of its things wait to be spawned or despawned.
fn count_waiting(world: &mut World, swaps: &ThingSwaps) {
    let mut per_terrain: EntityHashMap<usize> = EntityHashMap::default();
    for (terrain, _) in swaps.loose.keys() {
        *per_terrain.entry(*terrain).or_default() += 1;
    }
    let pieces = &swaps.waiting;
    // A piece can be in the queue twice (emptied by a swap, filled again by the next).
    let mut counted = EntityHashSet::default();
    for &piece in pieces.iter().filter(|&&piece| counted.insert(piece)) {
        let (Some(of), Some(on)) = (world.get::<PieceOf>(piece), world.get::<ScatterOnPiece>(piece)) else {
            continue;
        };
        *per_terrain.entry(of.0).or_default() += on.waiting();
    }
    let mut terrains = world.query::<(Entity, &mut TerrainJobs)>();
    for (terrain, mut jobs) in terrains.iter_mut(world) {
        let waiting = per_terrain.get(&terrain).copied().unwrap_or(0);
        if jobs.hook_work_waiting != waiting {
            jobs.hook_work_waiting = waiting;
        }
    }
}

/// Moves a kept instance to where the new build stands it (its visibility and the terrain's
/// transform are [`follow_terrains`]' to keep; the transform propagation, later in the frame,
/// writes its `GlobalTransform`).
fn move_instance(world: &mut World, entity: Entity, in_terrain: Transform, at: Transform) {
    let Ok(mut e) = world.get_entity_mut(entity) else { return };
    if let Some(mut thing) = e.get_mut::<ScatterInstance>() {
        thing.in_terrain = in_terrain;
    }
    if let Some(mut transform) = e.get_mut::<Transform>() {
        *transform = at;
    }
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

/// A piece's terrain (a placeholder for a piece without one), its world transform and the
/// visibility things take from it.
pub(super) fn piece_frame(world: &World, piece: Entity) -> (Entity, GlobalTransform, Visibility) {
    let terrain = world.get::<PieceOf>(piece).map_or(Entity::PLACEHOLDER, |of| of.0);
    let (frame, visibility) = terrain_frame(world, terrain);
    (terrain, frame, visibility)
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildControl, PieceSpec, build_piece};
    use crate::scatter::cache::PiecePoints;
    use noise_terrain_core::advanced::Stitch;

    /// The endless example's world and layers, five times as dense, on chunks of `chunk_size`.
    fn world(chunk_size: f32) -> TerrainPreset {
        let mut scatter = ScatterLayer::landscape();
        for layer in &mut scatter {
            layer.rule.density *= 5.0;
            layer.rule.spacing = layer.rule.spacing.min(layer.rule.density.recip().sqrt());
        }
        let layout =
            TerrainLayout::Endless { chunk_size, chunk_vertices: 9, view_distance: 2000.0, lod_levels: 4 };
        let mut noise =
            noise_terrain_core::NoiseSettings { octaves: 5, frequency: 3.0, seed: 11, ..default() };
        noise.erosion_filter.enabled = true;
        TerrainPreset {
            layout,
            noise,
            world_size: 2000.0,
            height_scale: 420.0,
            water_level: 0.24,
            scatter,
            ..default()
        }
        .clamped()
    }

    fn build(params: &TerrainPreset, key: ChunkKey) -> PieceBuild {
        let spec = PieceSpec { key: PieceKey::Chunk(key), stitch: Stitch::NONE };
        build_piece(params, spec, default(), &BuildControl::new()).unwrap()
    }

    /// Each layer's points, sorted (kept points come in another order than cell order).
    fn points(params: &TerrainPreset, key: ChunkKey, kept: Kept) -> Vec<Vec<[u64; 3]>> {
        let layers = piece_points(&build(params, key), params, kept);
        let bits = |p: &ScatterPoint| p.position.map(f64::to_bits);
        layers
            .iter()
            .map(|l| l.iter().map(bits).collect::<Vec<_>>())
            .map(|mut l| {
                l.sort_unstable();
                l
            })
            .collect()
    }

    /// A chunk's points taken from its children's, or from its parent's and the rest placed,
    /// are the ones it places from nothing, bit for bit, at every level and on chunks whose
    /// sides are not powers of two.
    #[test]
    fn points_from_children_or_parent_are_the_points_placed_anew() {
        for chunk_size in [64.0, 37.3] {
            let params = world(chunk_size);
            for key in [ChunkKey { level: 1, x: 3, z: -2 }, ChunkKey { level: 2, x: -1, z: 0 }] {
                let bounds = PieceKey::Chunk(key).geometry(&params).bounds();
                let parent_bounds = PieceKey::Chunk(key.parent()).geometry(&params).bounds();
                // The kept points are used, not set aside for placing anew.
                assert!(tiled_by_children(key, &params, bounds), "{chunk_size} {key:?}");
                assert!(contains(parent_bounds, bounds), "{chunk_size} {key:?}");
                let anew = points(&params, key, Kept::Nothing);
                assert!(
                    !anew[0].is_empty() && !anew[1].is_empty(),
                    "{chunk_size} {key:?}: no trees or rocks"
                );
                let made = |key| -> PiecePoints {
                    piece_points(&build(&params, key), &params, Kept::Nothing).into()
                };
                let children: Vec<PiecePoints> = key.children().map(made).collect();
                let children = Kept::Children(key, children.try_into().unwrap());
                assert_eq!(points(&params, key, children), anew, "{chunk_size} {key:?} from its children");
                let parent = Kept::Parent(key.parent(), made(key.parent()));
                assert_eq!(points(&params, key, parent), anew, "{chunk_size} {key:?} from its parent");
            }
        }
    }

    /// The cache hands a chunk its children's points when it keeps all four, else its parent's,
    /// and nothing for another parameter set; a kept chunk is not made again.
    #[test]
    fn the_cache_hands_over_children_or_parent() {
        let params = world(64.0);
        let cache = PointCache::default();
        let made = std::cell::RefCell::new(Vec::new());
        let get = |key: ChunkKey, params: &TerrainPreset| {
            cache.points(PieceKey::Chunk(key), params, |kept| {
                made.borrow_mut().push((key, kept));
                Vec::new()
            });
        };
        let (a, b) = (ChunkKey { level: 1, x: 0, z: 0 }, ChunkKey { level: 1, x: 1, z: 0 });
        assert_eq!(a.parent(), b.parent());
        get(a.parent(), &params);
        // Three of `a`'s children, all four of `b`'s.
        a.children().take(3).chain(b.children()).for_each(|child| get(child, &params));
        get(a, &params);
        get(b, &params);
        get(a, &params);
        get(a, &TerrainPreset { height_scale: 400.0, ..params.clone() });
        let made = made.into_inner();
        assert_eq!(made.len(), 1 + 7 + 3, "each chunk made once per parameter set");
        assert!(made[..8].iter().all(|(_, kept)| matches!(kept, Kept::Nothing)), "neither kept yet");
        assert!(matches!(&made[8], (key, Kept::Parent(parent, _)) if *key == a && *parent == a.parent()));
        assert!(matches!(&made[9], (key, Kept::Children(chunk, _)) if *key == b && *chunk == b));
        assert!(matches!(&made[10], (key, Kept::Nothing) if *key == a), "another parameter set");
    }
}
