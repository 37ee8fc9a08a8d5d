//! A Bevy plugin that turns coherent noise into terrain.
//!
//! Add [`TerrainPlugin`]; a terrain appears and follows the [`TerrainParams`] resource whenever
//! anything changes it. Generation runs on Bevy's `AsyncComputeTaskPool`; the finished mesh and
//! texture are written into the same assets each time.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_noise_terrain::prelude::*;
//!
//! fn main() {
//!     App::new()
//!         .add_plugins((DefaultPlugins, TerrainPlugin::default()))
//!         .insert_resource(TerrainParams { resolution: 512, ..default() })
//!         .run();
//! }
//! ```
//!
//! The noise itself lives in the Bevy-free [`noise_terrain_core`] crate, re-exported as [`core`].
#![warn(missing_docs)]

#[cfg(feature = "camera")]
pub mod camera;
#[cfg(feature = "serialize")]
pub mod files;
pub mod generate;
pub mod heightfield;
#[cfg(feature = "inspector")]
pub mod inspector;
pub mod mesh;
pub mod params;
pub mod pointer;
pub mod texture;

pub use noise_terrain_core as core;

use bevy::prelude::*;

pub use generate::{Terrain, TerrainAssets, TerrainGenerated, TerrainJobs, TerrainStats, TerrainValidation};
pub use heightfield::TerrainHeightmap;
pub use params::TerrainParams;

/// The common imports for games.
pub mod prelude {
    pub use crate::core::{Basis, ColorRamp, Fade, Fractal, NoiseSettings};
    pub use crate::{
        Terrain, TerrainAssets, TerrainGenerated, TerrainHeightmap, TerrainParams, TerrainPlugin,
        TerrainStats, TerrainSystems,
    };
}

/// The plugin's system sets, in `Update`, in this order; order your systems against them.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TerrainSystems {
    /// Validates changed [`TerrainParams`] and queues a job.
    Queue,
    /// Applies finished jobs to the assets and starts the next one.
    Apply,
}

/// Adds terrain generation. Insert [`TerrainParams`] before or after adding it (the default
/// parameters are used otherwise).
#[derive(Debug, Clone)]
pub struct TerrainPlugin {
    /// Spawn a [`Terrain`] entity at startup showing the plugin's mesh and material. Turn off to
    /// spawn your own from [`TerrainAssets`].
    pub spawn_terrain: bool,
}

impl Default for TerrainPlugin {
    fn default() -> Self {
        Self { spawn_terrain: true }
    }
}

impl Plugin for TerrainPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TerrainParams>()
            .init_resource::<TerrainStats>()
            .init_resource::<TerrainJobs>()
            .init_resource::<TerrainValidation>()
            .register_type::<TerrainParams>()
            .register_type::<Terrain>()
            .add_message::<TerrainGenerated>()
            .configure_sets(Update, (TerrainSystems::Queue, TerrainSystems::Apply).chain())
            .add_systems(PreStartup, generate::create_assets)
            .add_systems(
                Update,
                (
                    generate::queue_generation
                        .run_if(resource_changed::<TerrainParams>)
                        .in_set(TerrainSystems::Queue),
                    generate::drive_jobs.in_set(TerrainSystems::Apply),
                ),
            );
        if self.spawn_terrain {
            app.add_systems(Startup, generate::spawn_terrain);
        }
    }
}
