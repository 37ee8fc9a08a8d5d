//! The frame's thing swaps: a piece's new instances replace its old ones once its mesh lands,
//! keeping the things it places again, spawning and despawning the rest within a budget per
//! frame ([`ScatterBudget`]).

use std::collections::VecDeque;

use bevy::ecs::entity::{EntityHashMap, EntityHashSet};
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use noise_terrain_core::ScatterShape;

use crate::pieces::{PieceOf, TerrainJobs, TerrainPiece};
use crate::scatter::frames::{in_world, outdated, piece_frame};
use crate::scatter::looks::ScatterLooks;
use crate::scatter::place::{PieceScatter, ScatterInstance, ScatterOf};

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
/// transform are [`follow_terrains`](super::follow::follow_terrains)' to keep; the transform propagation, later in the frame,
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
