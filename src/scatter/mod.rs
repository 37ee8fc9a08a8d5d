//! Things on the ground: each [`ScatterLayer`](noise_terrain_core::ScatterLayer) of
//! [`TerrainPreset::scatter`](crate::TerrainPreset::scatter) places trees, rocks or reeds on
//! every piece within its view distance.
//!
//! Where things stand comes from the core's [`scatter_points`](noise_terrain_core::scatter_points):
//! cells hashed in world space and filtered by the ground's height, slope and erosion cut, so the
//! points of a region are the same whatever chunks, at whatever level of detail, cover it, on
//! every run. In the endless layout the ground a rule sees is the field itself
//! ([`WorldGround`](noise_terrain_core::WorldGround)); on the patch, the patch's heights (after
//! erosion). Each instance stands on the triangles of its piece's mesh.
//!
//! The points are placed in the piece's background build (a [`PieceHook`]) and
//! spawned standing on the piece ([`ScatterInstance`], [`ScatterOf`], listed in its
//! [`ScatterOnPiece`]) once its mesh lands: they come and go with their pieces, and a parameter
//! change swaps them with the new terrain, never a frame without them. A piece shown anew
//! (stitched to a neighbour's new level, say) keeps the instances it places again, and a piece
//! that replaces others at another level of detail takes over their things at the points it
//! places too: only new points are spawned, only points no longer placed despawned. Streaming
//! spawns at most [`ScatterBudget`] new things a frame (the rest wait a few frames); a
//! parameter change spawns all of its own at once. Far chunks carry fewer: a chunk at level of
//! detail `L` keeps `far_share^L` of its layer's points, a subset of what its finer children
//! carry. All instances of a layer share one mesh and material ([`ScatterLooks`]), so Bevy
//! batches them. Pieces farther than [`ScatterEntities::distance`] from a focus draw each layer's
//! things as one merged mesh instead ([`ScatterBatch`]): entities only where game code and
//! colliders need them.
//!
//! [`ScatterQuery`] gives game code the points of a layer in a rectangle.
//!
//! Here: the placement in a piece's build (`place.rs`, with the points handed over between
//! levels in `cache.rs`), the frame's swaps of things within the budget (`swaps.rs`), far
//! pieces' merged batches (`batches.rs`), things and batches following their terrain
//! (`follow.rs`, over `frames.rs`), the layers' meshes and materials (`looks.rs`), and the query
//! (`query.rs`).

mod batches;
mod cache;
mod follow;
mod frames;
mod looks;
mod place;
mod query;
mod swaps;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

pub use batches::{ScatterBatch, ScatterEntities, ScatterEntitiesAtLeast};
pub use looks::ScatterLooks;
pub use place::{ScatterInstance, ScatterOf};
pub use query::{ScatterQuery, ScatterQueryError};
pub use swaps::{ScatterBudget, ScatterOnPiece};

use crate::pieces::{PieceHook, PieceHooks, Terrain};

/// Things on the terrain's pieces by the rules of [`TerrainPreset::scatter`](crate::TerrainPreset::scatter)
/// (part of [`TerrainPlugins`](crate::TerrainPlugins)).
#[derive(Debug, Default, Clone, Copy)]
pub struct TerrainScatterPlugin;

impl Plugin for TerrainScatterPlugin {
    fn build(&self, app: &mut App) {
        add_scatter(app);
    }
}

/// Adds scatter to the terrain pieces.
fn add_scatter(app: &mut App) {
    app.init_resource::<ScatterLooks>()
        .init_resource::<swaps::ThingSwaps>()
        .init_resource::<batches::BatchSwaps>()
        .init_resource::<ScatterBudget>()
        .init_resource::<ScatterEntities>()
        .init_resource::<ScatterEntitiesAtLeast>()
        .register_type::<ScatterInstance>()
        .register_type::<ScatterBatch>()
        .register_type::<ScatterBudget>()
        .register_type::<ScatterEntities>()
        .register_type::<ScatterEntitiesAtLeast>()
        .add_systems(Startup, looks::make_shapes)
        // Each system runs only in frames with something to do (its run condition): a system
        // that runs costs the executor a task and a wake-up between threads, work or not.
        .add_systems(
            Update,
            follow_settings.run_if(outside_settings_moved).before(crate::TerrainSystems::Queue),
        )
        .add_systems(
            Update,
            swaps::swap_things
                .run_if(swaps_pending)
                .in_set(crate::TerrainSystems::Apply)
                .after(crate::pieces::ApplySteps::Land)
                .before(crate::pieces::ApplySteps::Stats),
        )
        .add_systems(
            PostUpdate,
            follow::follow_terrains
                .run_if(terrains_moved_or_shown)
                .after(bevy::transform::TransformSystems::Propagate)
                .before(bevy::camera::visibility::VisibilitySystems::VisibilityPropagate),
        );
    // Near pieces' things as entities; every piece runs the batch hook, which makes meshes for
    // those that do not run the entity hook. Each layer's view distance is applied per level of
    // detail in the builds.
    let cache = cache::PointCache::default();
    let within = app.world().resource::<ScatterEntities>().distance;
    let entities = PieceHook::new(within, place::place_on_piece(cache.clone()), swaps::apply_to_piece);
    let shapes = app.world().resource::<ScatterLooks>().batch_shapes();
    let mut hooks = app.world_mut().resource_mut::<PieceHooks>();
    let index = hooks.add(entities);
    hooks.add(PieceHook::new(
        f32::INFINITY,
        batches::batch_build(index, shapes, cache),
        batches::apply_batches,
    ));
    app.insert_resource(batches::EntityHook(index));
}

/// The scatter settings that live outside the terrains' parameters: custom looks' meshes (shared
/// with far pieces' builds once loaded) and the distance within which pieces carry things as
/// entities.
#[derive(SystemParam)]
struct OutsideSettings<'w> {
    looks: Res<'w, ScatterLooks>,
    meshes: Option<Res<'w, Assets<Mesh>>>,
    entities: Res<'w, ScatterEntities>,
    at_least: Res<'w, ScatterEntitiesAtLeast>,
    hook: Option<Res<'w, batches::EntityHook>>,
}

impl OutsideSettings<'_> {
    /// The entity hook's distance: the scatter's, or what other plugins need when farther.
    fn entity_distance(&self) -> f32 {
        self.entities.distance.max(self.at_least.distance)
    }
}

/// Whether [`follow_settings`] has anything to do: a custom look's mesh loaded and not yet
/// shared, or the entity hook's distance out of date (checked here, so that the system costs
/// the executor no task in the frames it would do nothing).
fn outside_settings_moved(settings: OutsideSettings, hooks: Res<PieceHooks>) -> bool {
    looks::unshared_custom_shapes(&settings.looks, settings.meshes.as_deref()).next().is_some()
        || settings
            .hook
            .as_ref()
            .is_some_and(|hook| hooks.get(hook.0).is_some_and(|h| h.within != settings.entity_distance()))
}

/// Follows the [`OutsideSettings`].
fn follow_settings(settings: OutsideSettings, hooks: ResMut<PieceHooks>) {
    looks::share_custom_shapes(&settings.looks, settings.meshes.as_deref());
    batches::follow_entity_distance(settings.entity_distance(), settings.hook.as_deref(), hooks);
}

/// A terrain entity whose world transform or visibility changed, or a new one.
type MovedOrShownTerrain = (With<Terrain>, Or<(Changed<GlobalTransform>, Changed<Visibility>)>);

/// Whether a terrain entity's world transform or visibility changed, or it is new: its things
/// and batches follow it (`follow::follow_terrains`, which costs the executor no task in the
/// other frames). A terrain whose `Visibility` was removed is followed at its next change.
fn terrains_moved_or_shown(terrains: Query<(), MovedOrShownTerrain>) -> bool {
    !terrains.is_empty()
}

/// Whether things or batches wait to be spawned, moved or despawned (`swaps::swap_things` has
/// nothing to do otherwise).
fn swaps_pending(things: Res<swaps::ThingSwaps>, batches: Res<batches::BatchSwaps>) -> bool {
    things.is_pending() || batches.is_pending()
}
