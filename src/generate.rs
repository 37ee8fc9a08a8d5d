//! Change detection -> background job -> results written into the existing assets.
//!
//! At most one job runs at a time, and at most one set of parameters waits behind it: the latest.
//! A slider drag therefore shows intermediate terrains as fast as they can be built, never
//! queues stale work, and results are applied in the order they were asked for. (Dropping a
//! running job, as `DESIGN.md` first sketched, does not stop a CPU-bound task mid-way; it would
//! only discard finished work and show nothing until the drag ends.)

use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use noise_terrain_core::postprocess::Frame;
use noise_terrain_core::{Clamped, HeightStats, Heightmap, HeightmapError};

use crate::heightfield::TerrainHeightmap;
use crate::mesh::terrain_mesh;
use crate::params::TerrainParams;
use crate::texture::terrain_image;

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
}

impl TerrainJobs {
    /// Whether a terrain is being generated or waiting to be.
    pub fn is_busy(&self) -> bool {
        self.running.is_some() || self.pending.is_some()
    }

    /// How many generation jobs have been started since the app began.
    pub fn jobs_started(&self) -> u64 {
        self.started
    }
}

/// A terrain built from parameters: what a background job produces.
#[derive(Debug)]
pub struct TerrainBuild {
    /// The parameters it was built from.
    pub params: TerrainParams,
    /// The heights, one per vertex.
    pub heightmap: Heightmap,
    /// The mesh (see [`terrain_mesh`]).
    pub mesh: Mesh,
    /// The ramp texture (see [`terrain_image`]).
    pub image: Image,
    /// How long building took.
    pub elapsed: Duration,
}

/// Heights (with a one-sample border for the normals), mesh and texture for parameters that went
/// through [`TerrainParams::validated`]: what the plugin runs in the background, usable without
/// an app (tools, servers, tests).
pub fn build_terrain(params: TerrainParams) -> Result<TerrainBuild, HeightmapError> {
    let start = Instant::now();
    let n = params.resolution;
    let mut padded = Heightmap::generate_region(&params.noise, [-1, -1], n + 2, n + 2, n as f64)?;
    params.post.apply_in_frame(&mut padded, Frame { x: 1, y: 1, width: n, height: n });
    let heightmap = Heightmap::from_fn(n, n, |x, y| padded.get(x + 1, y + 1).unwrap_or(0.0))?;
    let mesh = terrain_mesh(&padded, params.world_size, params.height_scale);
    let image = terrain_image(&heightmap, &params.ramp, params.water_level, params.show_overflow);
    Ok(TerrainBuild { params, heightmap, mesh, image, elapsed: start.elapsed() })
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
                apply(
                    build,
                    generation,
                    &mut commands,
                    &mut assets,
                    &mut meshes,
                    &mut images,
                    materials,
                    &mut stats,
                );
                generated.write(TerrainGenerated { generation });
            }
            // Validation keeps sizes in range, so this is a bug; keep the last good terrain.
            Err(e) => error!("terrain generation failed, keeping the last terrain: {e}"),
        }
    }
    if jobs.running.is_none()
        && let Some(params) = jobs.pending.take()
    {
        jobs.started += 1;
        jobs.running = Some(AsyncComputeTaskPool::get().spawn(async move { build_terrain(params) }));
    }
}

/// Writes a finished build into the existing assets and resources.
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
) {
    let vertex_count = build.mesh.count_vertices();
    if let Err(e) = meshes.insert(&assets.mesh, build.mesh) {
        error!("terrain mesh could not be replaced: {e}");
    }
    let same_size = images.get(&assets.image).is_some_and(|old| old.size() == build.image.size());
    if same_size {
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
        heights: build.heightmap.stats(),
        overflow_fraction: build.heightmap.overflow_fraction(),
        generation_time: build.elapsed,
        vertex_count,
        generation,
    };
    commands.insert_resource(TerrainHeightmap { map: Arc::new(build.heightmap), params: build.params });
}
