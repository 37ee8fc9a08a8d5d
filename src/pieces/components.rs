//! What a terrain and its pieces are made of: the components on the [`Terrain`] entity and on
//! each [`TerrainPiece`], and the figures and messages they report.

use std::sync::Arc;

use bevy::prelude::*;
use noise_terrain_core::advanced::Stitch;
use noise_terrain_core::{Clamped, HeightStats, Heightmap};

use crate::build::{ChunkSamples, HookSet, PieceGeometry, PieceSpec};
use crate::params::{TerrainPreset, TerrainPresetReflect};
use crate::pieces::jobs::{FinishedBuild, PieceJob, TerrainJobs};

/// A terrain: the entity its pieces hang from (move it to move the terrain). Spawn it with a
/// [`TerrainSettings`] for a terrain of its own; without one it is a [`DefaultTerrain`] and
/// follows the [`TerrainParams`](crate::TerrainParams) resource. The plugin spawns one default
/// terrain (see [`TerrainPlugin::spawn_terrain`](crate::TerrainPlugin)).
#[derive(Component, Debug, Default, Clone, Copy, Reflect)]
#[reflect(Component, Default)]
#[require(Transform, Visibility, TerrainStatus, TerrainJobs)]
pub struct Terrain;

/// Marks a terrain that follows the [`TerrainParams`](crate::TerrainParams) resource. Added by
/// the plugin to every [`Terrain`] spawned without [`TerrainSettings`]; the [`TerrainStats`] and
/// [`TerrainValidation`] resources show the status of the default terrain with the lowest entity
/// (all default terrains follow the same parameters).
#[derive(Component, Debug, Default, Clone, Copy, Reflect)]
#[reflect(Component, Default)]
pub struct DefaultTerrain;

/// The settings of a terrain of its own, a [`TerrainPreset`]: change them to regenerate that
/// terrain (and only it). A terrain without them is a [`DefaultTerrain`], which follows the
/// [`TerrainParams`](crate::TerrainParams) resource: each terrain's settings live in one place.
#[derive(Component, Debug, Default, Clone, PartialEq, Deref, DerefMut, Reflect)]
#[reflect(Component, Default)]
pub struct TerrainSettings(#[reflect(remote = TerrainPresetReflect)] pub TerrainPreset);

/// What a terrain shows, the parameters it is built from, and what validation changed in them.
#[derive(Component, Debug, Default, Clone, PartialEq)]
pub struct TerrainStatus {
    /// Figures of the pieces on screen.
    pub stats: TerrainStats,
    /// What validation clamped in the latest settings.
    pub validation: TerrainValidation,
    /// The latest parameters after validation (`None` before the terrain took any): what the
    /// terrain is being built from, with every value in range.
    pub params: Option<Arc<TerrainPreset>>,
}

/// Figures of a terrain on screen: a component part of [`TerrainStatus`], and a resource for the
/// [`DefaultTerrain`].
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct TerrainStats {
    /// Lowest, highest and mean noise height over the pieces shown.
    pub heights: HeightStats,
    /// The same of the raw noise, before post-processing and erosion.
    pub raw_heights: HeightStats,
    /// Share of samples above 1 (only with normalisation off).
    pub overflow_fraction: f32,
    /// Time the latest finished job took, from parameters to mesh and image.
    pub generation_time: std::time::Duration,
    /// Vertices in the pieces shown.
    pub vertex_count: usize,
    /// Triangles in the pieces shown.
    pub triangle_count: usize,
    /// Pieces on screen.
    pub pieces_shown: usize,
    /// Wanted pieces that are out of date and wait for a job.
    pub pieces_queued: usize,
    /// Jobs running.
    pub pieces_building: usize,
    /// How far a running erosion is, `[0, 1]` (`None` while none runs).
    pub erosion_progress: Option<f32>,
    /// The newest parameter generation every wanted piece shows: 1 for the first parameters,
    /// one more for each change (0 until the first terrain is complete).
    pub generation: u64,
}

/// What validation changed in the latest parameters (empty when they were all in range): the
/// same lines the log shows, for the inspector and for game code. A resource for the
/// [`DefaultTerrain`], part of every terrain's [`TerrainStatus`].
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct TerrainValidation(pub Vec<Clamped>);

/// Sent when every wanted piece of a terrain shows a newer parameter generation than before.
#[derive(Message, Debug, Clone)]
pub struct TerrainGenerated {
    /// The terrain.
    pub terrain: Entity,
    /// The same number as its [`TerrainStats::generation`].
    pub generation: u64,
}

/// The terrain a piece belongs to (a Bevy relationship; the terrain's [`TerrainPieces`] lists
/// them, and despawning the terrain despawns its pieces). Pieces are also its children, for
/// their transforms.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
#[relationship(relationship_target = TerrainPieces)]
pub struct PieceOf(pub Entity);

/// The pieces of a terrain (see [`PieceOf`]).
#[derive(Component, Debug, Default)]
#[relationship_target(relationship = PieceOf, linked_spawn)]
pub struct TerrainPieces(Vec<Entity>);

/// The parameter generation, stitching and hook outputs of a build: what a piece shows, or what
/// a finished build would show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// Parameter generation (see [`TerrainStats::generation`]).
    pub generation: u64,
    /// The edges stitched to coarser neighbours.
    pub stitch: Stitch,
    /// Which [`PieceHooks`](crate::PieceHooks) gave it an output.
    pub hooks: HookSet,
}

impl Shown {
    /// Whether the heights are those of `generation` with `stitch`, whatever the hooks.
    pub fn surface_is(&self, generation: u64, stitch: Stitch) -> bool {
        self.generation == generation && self.stitch == stitch
    }
}

/// One piece of terrain (the patch, or a chunk): a child of its [`Terrain`] with a `Mesh3d`, a
/// material (with a renderer) and a `Transform` at its corner.
#[derive(Component, Debug)]
#[require(Transform, Visibility = Visibility::Hidden)]
pub struct TerrainPiece {
    /// What the piece should show: which piece, stitched how.
    pub spec: PieceSpec,
    /// What its mesh shows (`None`: nothing yet; it is hidden until then).
    pub shown: Option<Shown>,
    /// No longer wanted: it goes as soon as the pieces that replace it show.
    pub retiring: bool,
    /// The square it covers, `[min x, min z, max x, max z]` in the terrain entity's space.
    pub bounds: [f64; 4],
    /// Its texture (one texel per vertex).
    pub image: Handle<Image>,
    /// Its material, `None` without a renderer.
    pub material: Option<Handle<StandardMaterial>>,
    pub(crate) job: Option<PieceJob>,
    /// A finished build that waits for the pieces its edges depend on (boxed: the component
    /// stays small to move).
    pub(crate) ready: Option<Box<FinishedBuild>>,
    /// The samples of the chunk's latest finished build, and when it was taken in: its next
    /// build with the same parameters (stitched anew as the levels around it change) starts
    /// from them, for [`CHUNK_SAMPLES_KEPT_FOR`](crate::pieces::CHUNK_SAMPLES_KEPT_FOR).
    pub(crate) samples: Option<(std::time::Instant, Arc<ChunkSamples>)>,
}

impl TerrainPiece {
    /// A piece that shows nothing yet.
    pub(crate) fn new(spec: PieceSpec, bounds: [f64; 4], image: Handle<Image>) -> Self {
        Self {
            spec,
            shown: None,
            retiring: false,
            bounds,
            image,
            material: None,
            job: None,
            ready: None,
            samples: None,
        }
    }

    /// The samples kept for the chunk's next build with the same parameters (see
    /// [`ChunkSamples`]; `None` for the patch, and once kept for
    /// [`CHUNK_SAMPLES_KEPT_FOR`](crate::pieces::CHUNK_SAMPLES_KEPT_FOR)).
    pub fn kept_samples(&self) -> Option<&Arc<ChunkSamples>> {
        self.samples.as_ref().map(|(_, samples)| samples)
    }

    /// Whether a build is running for the piece.
    pub fn is_building(&self) -> bool {
        self.job.is_some()
    }

    /// Whether a finished build waits to be shown together with its neighbours'.
    pub fn is_waiting(&self) -> bool {
        self.ready.is_some()
    }

    /// How far the running build's erosion is, `None` while none runs.
    pub fn erosion_progress(&self) -> Option<f32> {
        self.job.as_ref().and_then(|job| job.control.erosion_progress())
    }

    /// What the piece will show once its waiting build lands: the waiting build, else the
    /// shown one.
    pub(crate) fn next_shown(&self) -> Option<Shown> {
        self.ready.as_deref().map(FinishedBuild::shown).or_else(|| self.shown.clone())
    }
}

/// The heights of a built piece, for queries ([`TerrainQuery`](crate::TerrainQuery)) and export.
#[derive(Component, Debug, Clone)]
pub struct PieceHeights {
    /// Heights of its vertices in noise units (the mesh's: after post-processing and
    /// stitching).
    pub map: Arc<Heightmap>,
    /// Where the piece lies.
    pub geometry: PieceGeometry,
    /// World height of a noise height of 1.
    pub height_scale: f32,
    /// Lowest, highest and mean height.
    pub stats: HeightStats,
    /// The same of the raw noise, before post-processing and erosion.
    pub raw_stats: HeightStats,
    /// Share of heights above 1.
    pub overflow_fraction: f32,
    /// The parameters (validated) it was built from.
    pub params: Arc<TerrainPreset>,
}
