//! Change detection -> background job -> results written into the existing assets.
//!
//! At most one job runs at a time, and at most one set of parameters waits behind it: the latest.
//! A slider drag therefore shows intermediate terrains as fast as they can be built, never
//! queues stale work, and results are applied in the order they were asked for. (Dropping a
//! running job, as `DESIGN.md` first sketched, does not stop a CPU-bound task mid-way; it would
//! only discard finished work and show nothing until the drag ends.)
//!
//! Each job builds into the memory of the terrain it replaces, when that was replaced less than
//! [`SPARE_BUFFERS_KEPT_FOR`] ago (see [`TerrainBuffers`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use noise_terrain_core::postprocess::Frame;
use noise_terrain_core::surface::Surface;
use noise_terrain_core::{Clamped, HeightStats, Heightmap, HeightmapError};

use crate::heightfield::TerrainHeightmap;
use crate::mesh::{take_surface, terrain_mesh_reusing};
use crate::params::TerrainParams;
use crate::texture::terrain_image_reusing;

/// Marks the entity that shows the terrain (mesh, material, transform).
#[derive(Component, Debug, Default, Clone, Copy, Reflect)]
#[reflect(Component, Default)]
pub struct Terrain;

/// The assets the plugin writes into. The mesh handle never changes; the image handle changes
/// only when the resolution does (Bevy does not pick up a resized image under the same handle).
#[derive(Resource, Debug, Clone)]
pub struct TerrainAssets {
    /// The terrain mesh.
    pub mesh: Handle<Mesh>,
    /// The terrain texture (ramp colours).
    pub image: Handle<Image>,
    /// The material showing the texture; `None` without a renderer (headless apps).
    pub material: Option<Handle<StandardMaterial>>,
}

/// Figures of the terrain currently shown.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct TerrainStats {
    /// Lowest, highest and mean noise height.
    pub heights: HeightStats,
    /// Share of samples above 1 (only with normalisation off).
    pub overflow_fraction: f32,
    /// Time the background job took, from parameters to mesh and image.
    pub generation_time: Duration,
    /// Vertices in the mesh.
    pub vertex_count: usize,
    /// Which regeneration this is: 1 for the first terrain, counting up.
    pub generation: u64,
}

/// Sent when a new terrain has been written into the assets.
#[derive(Message, Debug, Clone)]
pub struct TerrainGenerated {
    /// The same number as [`TerrainStats::generation`].
    pub generation: u64,
}

/// What validation changed in the latest parameters (empty when they were all in range): the
/// same lines the log shows, for the inspector and for game code.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct TerrainValidation(pub Vec<Clamped>);

/// The job queue: one running job and the latest parameters waiting behind it.
#[derive(Resource, Default)]
pub struct TerrainJobs {
    running: Option<Task<Result<TerrainBuild, HeightmapError>>>,
    pending: Option<TerrainParams>,
    /// The validated parameters of the last queued job, to skip changes that change nothing.
    last_queued: Option<TerrainParams>,
    started: u64,
    /// The replaced terrain's memory and when it was replaced, for the next job.
    spare: Option<(TerrainBuffers, Instant)>,
}

/// How long the replaced terrain's memory is kept for a next job (see [`TerrainBuffers`]).
pub const SPARE_BUFFERS_KEPT_FOR: Duration = Duration::from_secs(1);

impl TerrainJobs {
    /// Whether a terrain is being generated or waiting to be.
    pub fn is_busy(&self) -> bool {
        self.running.is_some() || self.pending.is_some()
    }

    /// How many generation jobs have been started since the app began.
    pub fn jobs_started(&self) -> u64 {
        self.started
    }

    /// Bytes of an earlier terrain's memory held for the next job (0 when none is held).
    pub fn spare_bytes(&self) -> usize {
        self.spare.as_ref().map_or(0, |(buffers, _)| buffers.capacity_bytes())
    }
}

/// A terrain built from parameters: what a background job produces.
#[derive(Debug)]
pub struct TerrainBuild {
    /// The parameters it was built from.
    pub params: TerrainParams,
    /// The heights, one per vertex.
    pub heightmap: Heightmap,
    /// Their lowest, highest and mean value.
    pub heights: HeightStats,
    /// Their share above 1.
    pub overflow_fraction: f32,
    /// The mesh (see [`terrain_mesh`](crate::mesh::terrain_mesh)).
    pub mesh: Mesh,
    /// The ramp texture (see [`terrain_image`](crate::texture::terrain_image)).
    pub image: Image,
    /// How long building took.
    pub elapsed: Duration,
}

/// Memory of an earlier terrain for a build to reuse: the mesh arrays and the texels.
///
/// Fresh memory is expensive: the kernel faults in and clears every page, which at 1024 × 1024
/// took most of a rebuild. So the plugin builds each terrain into the arrays of the one it
/// replaced, if that was less than [`SPARE_BUFFERS_KEPT_FOR`] ago: a slider drag or a few clicks
/// in a row reuse memory, and an idle terrain frees the old arrays and holds one copy.
#[derive(Debug, Default)]
pub struct TerrainBuffers {
    /// The mesh arrays (see [`take_surface`]).
    pub surface: Surface,
    /// The RGBA8 texels of the texture (taken only when the new texture has the old one's size:
    /// a resized texture gets a new handle, and the old image keeps its texels).
    pub texels: Vec<u8>,
}

impl TerrainBuffers {
    /// Bytes of memory the arrays hold.
    pub fn capacity_bytes(&self) -> usize {
        self.surface.capacity_bytes() + self.texels.capacity()
    }
}

/// Heights (with a one-sample border for the normals), mesh and texture for parameters that went
/// through [`TerrainParams::validated`]: what the plugin runs in the background, usable without
/// an app (tools, servers, tests).
pub fn build_terrain(params: TerrainParams) -> Result<TerrainBuild, HeightmapError> {
    build_terrain_reusing(params, TerrainBuffers::default())
}

/// [`build_terrain`] into the memory of an earlier terrain.
pub fn build_terrain_reusing(
    params: TerrainParams,
    reuse: TerrainBuffers,
) -> Result<TerrainBuild, HeightmapError> {
    let start = Instant::now();
    let n = params.resolution;
    let mut padded = Heightmap::generate_region(&params.noise, [-1, -1], n + 2, n + 2, n as f64)?;
    let frame = Frame { x: 1, y: 1, width: n, height: n };
    params.post.apply_in_frame(&mut padded, frame);
    let heightmap = padded.crop(frame)?;
    let mesh = terrain_mesh_reusing(&padded, params.world_size, params.height_scale, reuse.surface);
    let image = terrain_image_reusing(
        &heightmap,
        &params.ramp,
        params.water_level,
        params.show_overflow,
        reuse.texels,
    );
    let (heights, overflow_fraction) = (heightmap.stats(), heightmap.overflow_fraction());
    Ok(TerrainBuild { params, heightmap, heights, overflow_fraction, mesh, image, elapsed: start.elapsed() })
}

/// Creates the mesh, image and (with a renderer) material the terrain is written into.
pub(crate) fn create_assets(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut images: ResMut<Assets<Image>>,
    materials: Option<ResMut<Assets<StandardMaterial>>>,
) {
    let mesh = meshes.add(Mesh::from(Plane3d::default()));
    let image = images.add(Image::default());
    let material = materials.map(|mut materials| {
        materials.add(StandardMaterial {
            base_color_texture: Some(image.clone()),
            perceptual_roughness: 0.92,
            reflectance: 0.2,
            ..default()
        })
    });
    commands.insert_resource(TerrainAssets { mesh, image, material });
}

/// Spawns the [`Terrain`] entity showing the plugin's assets.
pub(crate) fn spawn_terrain(mut commands: Commands, assets: Res<TerrainAssets>) {
    let mut entity =
        commands.spawn((Terrain, Name::new("Terrain"), Mesh3d(assets.mesh.clone()), Transform::default()));
    if let Some(material) = &assets.material {
        entity.insert(MeshMaterial3d(material.clone()));
    }
}

/// Validates changed parameters (logging what was clamped) and queues them.
pub(crate) fn queue_generation(
    params: Res<TerrainParams>,
    mut jobs: ResMut<TerrainJobs>,
    mut validation: ResMut<TerrainValidation>,
) {
    let (used, clamped) = params.validated();
    for c in &clamped {
        warn!("terrain: {c}");
    }
    validation.set_if_neq(TerrainValidation(clamped));
    if jobs.last_queued.as_ref() == Some(&used) {
        return;
    }
    jobs.last_queued = Some(used.clone());
    jobs.pending = Some(used);
}

/// Applies a finished job, then starts the pending one if no job runs.
#[allow(clippy::too_many_arguments)]
pub(crate) fn drive_jobs(
    mut commands: Commands,
    mut jobs: ResMut<TerrainJobs>,
    mut assets: ResMut<TerrainAssets>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut images: ResMut<Assets<Image>>,
    materials: Option<ResMut<Assets<StandardMaterial>>>,
    mut stats: ResMut<TerrainStats>,
    mut generated: MessageWriter<TerrainGenerated>,
) {
    if let Some(task) = jobs.running.as_mut()
        && let Some(result) = check_ready(task)
    {
        jobs.running = None;
        match result {
            Ok(build) => {
                let generation = stats.generation + 1;
                let recycled = apply(
                    build,
                    generation,
                    &mut commands,
                    &mut assets,
                    &mut meshes,
                    &mut images,
                    materials,
                    &mut stats,
                );
                jobs.spare = Some((recycled, Instant::now()));
                generated.write(TerrainGenerated { generation });
            }
            // Validation keeps sizes in range, so this is a bug; keep the last good terrain.
            Err(e) => error!("terrain generation failed, keeping the last terrain: {e}"),
        }
    }
    if jobs.spare.as_ref().is_some_and(|(_, since)| since.elapsed() > SPARE_BUFFERS_KEPT_FOR) {
        jobs.spare = None;
    }
    if jobs.running.is_none()
        && let Some(params) = jobs.pending.take()
    {
        jobs.started += 1;
        let reuse = jobs.spare.take().map(|(buffers, _)| buffers).unwrap_or_default();
        jobs.running =
            Some(AsyncComputeTaskPool::get().spawn(async move { build_terrain_reusing(params, reuse) }));
    }
}

/// Writes a finished build into the existing assets and resources; returns the replaced
/// terrain's memory.
#[allow(clippy::too_many_arguments)]
fn apply(
    build: TerrainBuild,
    generation: u64,
    commands: &mut Commands,
    assets: &mut TerrainAssets,
    meshes: &mut Assets<Mesh>,
    images: &mut Assets<Image>,
    materials: Option<ResMut<Assets<StandardMaterial>>>,
    stats: &mut TerrainStats,
) -> TerrainBuffers {
    // The old arrays are taken only from assets replaced right after under the same handle, so
    // nobody sees them emptied, and taking them is no change anyone needs to hear of.
    let mut recycled = TerrainBuffers {
        surface: meshes.get_mut_untracked(&assets.mesh).map(take_surface).unwrap_or_default(),
        texels: Vec::new(),
    };
    let vertex_count = build.mesh.count_vertices();
    if let Err(e) = meshes.insert(&assets.mesh, build.mesh) {
        error!("terrain mesh could not be replaced: {e}");
    }
    let same_size = images.get(&assets.image).is_some_and(|old| old.size() == build.image.size());
    if same_size {
        recycled.texels =
            images.get_mut_untracked(&assets.image).and_then(|old| old.data.take()).unwrap_or_default();
        let _ = images.insert(&assets.image, build.image);
    } else {
        // A resized image under the old handle is not picked up by the renderer: make a new
        // one; the old one is freed when its last handle goes.
        assets.image = images.add(build.image);
    }
    if let (Some(mut materials), Some(material)) = (materials, &assets.material) {
        // Touching the material makes it see the new image (bevy #15595, #17220).
        if let Some(mut material) = materials.get_mut(material) {
            material.base_color_texture = Some(assets.image.clone());
        }
    }
    *stats = TerrainStats {
        heights: build.heights,
        overflow_fraction: build.overflow_fraction,
        generation_time: build.elapsed,
        vertex_count,
        generation,
    };
    commands.insert_resource(TerrainHeightmap { map: Arc::new(build.heightmap), params: build.params });
    recycled
}
