//! The ECS side: every terrain is an entity ([`Terrain`]) with its settings, status and job
//! bookkeeping as components, and its pieces belong to it ([`PieceOf`]). Each frame, for every
//! terrain:
//! 1. [`settings`]: default terrains follow the [`TerrainParams`](crate::TerrainParams)
//!    resource; changed settings are validated and become the current parameters.
//! 2. [`selection`]: the layout says which pieces should exist (nearest first); missing ones are
//!    spawned hidden, unwanted ones are marked retiring (they stay on screen).
//! 3. [`jobs`]: finished builds are taken in (they wait on their piece), then jobs start for the
//!    nearest pieces that are out of date, at most [`MAX_JOBS_IN_FLIGHT`] at a time, on the
//!    build threads ([`workers`], which take the nearest waiting build first, at the
//!    [`BuildPriority`] of the moment; background builds
//!    that starve for a core are run again at normal priority, see `starvation`). A piece has
//!    at most one job: a parameter change during a job waits for it. (Dropping a running job
//!    does not stop a CPU-bound task mid-way; its erosion is cancelled.)
//! 4. [`swap`]: pieces whose edges depend on each other land together, with the retiring ones
//!    they replace going in the same frame: no crack, hole or overlap shows.
//! 5. [`stats`]: each terrain's [`TerrainStats`] and [`TerrainGenerated`]; the default
//!    terrain's are mirrored into the resources.
//!
//! A frame touches only the pieces that change: the index keeps each wanted piece's stitching
//! and what its last job was for, finished builds are looked for among the running jobs, the
//! swap looks at pieces that may change (new, stitched anew, retiring, with a finished build;
//! all of them after a new generation) and runs only when one of those changed, and the stats
//! are summed again only then. Reading every piece's components each frame cost more than the
//! work itself (memory the chunk builds keep pushing out of the caches).
//!
//! Memory and assets of replaced pieces are reused ([`pool`]); plugins add work to the builds
//! with [`hooks`] (colliders).

pub mod components;
pub mod hooks;
pub mod jobs;
pub mod pool;
pub mod selection;
pub mod settings;
mod starvation;
pub mod stats;
pub mod swap;
pub mod workers;

use bevy::prelude::*;

pub use crate::build::HookSet;
pub use components::{
    DefaultTerrain, PieceHeights, PieceOf, Shown, Terrain, TerrainGenerated, TerrainPiece, TerrainPieces,
    TerrainSettings, TerrainStats, TerrainStatus, TerrainValidation,
};
pub use hooks::{HookOutput, PieceHook, PieceHooks};
pub use jobs::{CHUNK_SAMPLES_KEPT_FOR, MAX_JOBS_IN_FLIGHT, TerrainJobs};
pub use pool::{ASSET_POOL_SIZE, PiecePool, SPARE_BUFFERS_KEPT_FOR};
pub use swap::APPLY_BUDGET;
pub use workers::{BuildPriority, builds_finished, wait_for_builds_after};

use crate::TerrainSystems;

/// The steps of [`TerrainSystems::Apply`], in this order: finished builds are taken in and
/// landed, then the stats are summed (the scatter's things are swapped in between).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ApplySteps {
    /// [`jobs::drive_jobs`] then [`swap::swap_pieces`].
    Land,
    /// [`stats::update_stats`].
    Stats,
}

/// Adds the piece systems to `Update`, in the plugin's sets.
pub(crate) fn add_systems(app: &mut App) {
    // Steps that always run one after the other are piped into one system: under Bevy's
    // multi-threaded executor each system costs a task and a wake-up between threads every
    // frame, work or not (about 15 µs each on a 2-core machine).
    app.add_observer(settings::adopt_default_terrain)
        .add_observer(selection::forget_removed_piece)
        .configure_sets(Update, (ApplySteps::Land, ApplySteps::Stats).chain().in_set(TerrainSystems::Apply))
        .add_systems(
            Update,
            (
                settings::take_in_settings.pipe(selection::select_pieces).in_set(TerrainSystems::Queue),
                jobs::drive_jobs.pipe(swap::swap_pieces).in_set(ApplySteps::Land),
                stats::update_stats.in_set(ApplySteps::Stats),
            ),
        );
}

/// Spawns the default [`Terrain`] the pieces hang from.
pub(crate) fn spawn_terrain(mut commands: Commands) {
    commands.spawn((Terrain, Name::new("Terrain")));
}
