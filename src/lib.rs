//! A Bevy plugin that turns coherent noise into terrain.
//!
//! Add [`TerrainPlugin`]; a terrain appears and follows the [`TerrainParams`] resource whenever
//! anything changes it: one patch, or endless chunks with levels of detail streamed around every
//! [`TerrainFocus`] ([`TerrainLayout`]). Each piece of terrain is an entity ([`TerrainPiece`])
//! built in the background on the plugin's own threads ([`BuildPriority`]) into reused memory
//! and assets; [`TerrainQuery`] answers ground heights and ray casts over all of them. Trees, rocks and
//! reeds stand on the pieces by rules ([`scatter`]), a sea fills the water level ([`sea`]), and
//! the patch's rivers (stream power) are data for game code and water ([`rivers`]).
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_noise_terrain::prelude::*;
//!
//! fn main() {
//!     let world = TerrainPreset { layout: TerrainLayout::ENDLESS, world_size: 1500.0, height_scale: 120.0, ..default() };
//!     App::new().add_plugins((DefaultPlugins, TerrainPlugin::default())).insert_resource(TerrainParams(world))
//!         .add_systems(Startup, |mut commands: Commands| {
//!             commands.spawn((Camera3d::default(), TerrainFocus::default(), Transform::from_xyz(0.0, 200.0, 0.0)));
//!         })
//!         .add_systems(Update, fly).run();
//! }
//!
//! fn fly(ground: TerrainQuery, mut camera: Single<&mut Transform, With<Camera3d>>) {
//!     camera.translation.x += 2.0; // new chunks stream in ahead, old ones go behind
//!     if let Some(h) = ground.height_at(camera.translation.x, camera.translation.z) { camera.translation.y = h + 50.0; }
//! }
//! ```
//!
//! The noise itself lives in the Bevy-free [`noise_terrain_core`] crate, re-exported as [`core`].
#![warn(missing_docs)]

pub mod build;
#[cfg(feature = "camera")]
pub mod camera;
#[cfg(feature = "serialize")]
pub mod files;
#[cfg(feature = "inspector")]
pub mod inspector;
pub mod layout;
pub mod mesh;
pub mod params;
#[cfg(feature = "avian")]
pub mod physics;
pub mod pieces;
pub mod pointer;
pub mod query;
pub mod rivers;
pub mod scatter;
pub mod sea;
pub mod texture;

/// The README's and the guides' Rust examples, compiled and run as doc-tests (the shell commands
/// are run by `scripts/doc_commands.sh`).
#[cfg(all(doctest, feature = "inspector", feature = "camera", feature = "serialize"))]
mod doc_examples {
    #[doc = include_str!("../README.md")]
    struct Readme;
    #[doc = include_str!("../docs/guides/endless.md")]
    struct Endless;
    #[doc = include_str!("../docs/guides/erosion_filter.md")]
    struct ErosionFilter;
    #[doc = include_str!("../docs/guides/rivers.md")]
    struct Rivers;
    #[doc = include_str!("../docs/guides/erosion.md")]
    struct Erosion;
    #[doc = include_str!("../docs/guides/scatter_and_sea.md")]
    struct ScatterAndSea;
    #[doc = include_str!("../docs/guides/colours.md")]
    struct Colours;
    #[doc = include_str!("../docs/guides/inspector_and_camera.md")]
    struct InspectorAndCamera;
    #[doc = include_str!("../docs/guides/cli.md")]
    struct Cli;
    #[doc = include_str!("../docs/architecture.md")]
    struct Architecture;
    #[doc = include_str!("../docs/performance.md")]
    struct Performance;
    #[doc = include_str!("../docs/reliability.md")]
    struct Reliability;
    #[cfg(feature = "avian")]
    #[doc = include_str!("../docs/guides/physics.md")]
    struct Physics;
}

pub use noise_terrain_core as core;

use bevy::prelude::*;

pub use build::{PieceBuild, PieceKey, build_terrain};
pub use layout::TerrainFocus;
pub use params::{TerrainLayout, TerrainParams, TerrainPreset};
pub use pieces::{
    BuildPriority, DefaultTerrain, PieceHeights, PieceHook, PieceHooks, PieceOf, PiecePool, Terrain,
    TerrainGenerated, TerrainJobs, TerrainPiece, TerrainPieces, TerrainSettings, TerrainStats, TerrainStatus,
    TerrainValidation,
};
pub use query::{TerrainQuery, Water};
pub use rivers::{LakeCell, RiverLine, RiverVertex, RiverWater, TerrainRivers, TerrainRiversPlugin};
pub use scatter::{
    ScatterBatch, ScatterBudget, ScatterEntities, ScatterEntitiesAtLeast, ScatterInstance, ScatterLooks,
    ScatterOf, ScatterOnPiece, ScatterQuery, TerrainScatterPlugin,
};
pub use sea::{SeaSurface, TerrainSeaPlugin};

/// The common imports for games.
pub mod prelude {
    #[cfg(feature = "camera")]
    pub use crate::camera::{TerrainCamera, TerrainCameraPlugin};
    pub use crate::core::{
        Basis, ColorRamp, EndlessRivers, Fade, Fractal, NoiseSettings, ScatterLayer, ScatterRule,
        ScatterShape,
    };
    #[cfg(feature = "inspector")]
    pub use crate::inspector::{InspectorState, TerrainInspectorPlugin};
    #[cfg(feature = "avian")]
    pub use crate::physics::{KeepAboveTerrain, TerrainPhysicsPlugin};
    pub use crate::{
        DefaultTerrain, ScatterQuery, Terrain, TerrainFocus, TerrainGenerated, TerrainLayout, TerrainParams,
        TerrainPiece, TerrainPlugin, TerrainPlugins, TerrainPreset, TerrainQuery, TerrainRivers,
        TerrainRiversPlugin, TerrainScatterPlugin, TerrainSeaPlugin, TerrainSettings, TerrainStats,
        TerrainStatus, TerrainSystems, Water,
    };
}

/// The plugin's system sets, in `Update`, in this order; order your systems against them.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TerrainSystems {
    /// Takes in changed settings ([`TerrainParams`], [`TerrainSettings`]) and decides which
    /// pieces should exist.
    Queue,
    /// Takes in finished jobs, starts new ones, swaps old pieces for new ones, updates the stats.
    Apply,
}

/// Every part of the terrain, each a plugin a game can leave out or configure:
/// [`TerrainPlugin`] (the terrains, their pieces and their streaming), [`TerrainScatterPlugin`],
/// [`TerrainSeaPlugin`], [`TerrainRiversPlugin`], and with their features the physics plugin
/// (`avian`), the inspector (`inspector`) and the camera (`camera`).
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_noise_terrain::prelude::*;
///
/// App::new()
///     .add_plugins(DefaultPlugins)
///     .add_plugins(TerrainPlugins.build().disable::<TerrainInspectorPlugin>().set(TerrainPlugin { spawn_terrain: false }))
///     .run();
/// ```
pub struct TerrainPlugins;

impl PluginGroup for TerrainPlugins {
    fn build(self) -> bevy::app::PluginGroupBuilder {
        let group = bevy::app::PluginGroupBuilder::start::<Self>()
            .add(TerrainPlugin::default())
            .add(TerrainScatterPlugin)
            .add(TerrainSeaPlugin)
            .add(TerrainRiversPlugin);
        #[cfg(feature = "avian")]
        let group = group.add(physics::TerrainPhysicsPlugin::default());
        #[cfg(feature = "inspector")]
        let group = group.add(inspector::TerrainInspectorPlugin::default());
        #[cfg(feature = "camera")]
        let group = group.add(camera::TerrainCameraPlugin);
        group
    }
}

/// The terrains, their pieces and their streaming: a terrain of its own (without scatter, sea
/// or river water: [`TerrainPlugins`] has them all). Insert [`TerrainParams`] before or after
/// adding it (the default parameters are used otherwise).
#[derive(Debug, Clone)]
pub struct TerrainPlugin {
    /// Spawn the default [`Terrain`] entity (the one [`TerrainParams`] drives) at startup. Turn
    /// off to spawn your own (with a `Transform` of your choice): a `Terrain` spawned without
    /// [`TerrainSettings`] follows [`TerrainParams`], one spawned with them is a terrain of its own.
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
            .init_resource::<TerrainValidation>()
            .init_resource::<PiecePool>()
            .init_resource::<PieceHooks>()
            .init_resource::<BuildPriority>()
            .register_type::<BuildPriority>()
            .register_type::<TerrainParams>()
            .register_type::<Terrain>()
            .register_type::<DefaultTerrain>()
            .register_type::<TerrainSettings>()
            .register_type::<TerrainFocus>()
            .add_message::<TerrainGenerated>()
            .configure_sets(Update, (TerrainSystems::Queue, TerrainSystems::Apply).chain());
        pieces::add_systems(app);
        if self.spawn_terrain {
            app.add_systems(Startup, pieces::spawn_terrain);
        }
    }
}
