//! The ECS side: which piece entities exist, their background jobs, applying finished builds
//! into reused assets, and swapping old pieces for new ones without holes.
//!
//! Every piece is a child entity of the [`Terrain`] entity with a [`TerrainPiece`] (what it is,
//! what it shows, its job) and, once built, a [`PieceHeights`]. Each frame:
//! 1. `select_pieces`: the layout says which pieces should exist (nearest first); missing
//!    ones are spawned hidden, unwanted ones are marked retiring (they stay on screen).
//! 2. `drive_jobs`: finished jobs are applied, at most [`APPLY_BUDGET`] a frame so that no
//!    frame waits; then jobs start for the nearest pieces that are out of date, at most
//!    [`MAX_JOBS_IN_FLIGHT`] at a time. A piece has at most one job: a parameter change during
//!    a job waits for it, so intermediate terrains appear during a slider drag and results are
//!    applied in order. (Dropping a running job does not stop a CPU-bound task mid-way.)
//! 3. `swap_pieces`: a retiring piece goes once every wanted piece over its square has been
//!    built, and those appear in the same frame; its assets go to a small pool for new pieces.
//! 4. `update_stats`: [`TerrainStats`] and [`TerrainGenerated`].

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use noise_terrain_core::Stitch;
use noise_terrain_core::{Clamped, HeightStats, Heightmap};

use crate::build::{
    BuildControl, BuildError, PieceBuild, PieceGeometry, PieceKey, PieceSpec, TerrainBuffers, build_piece,
};
use crate::layout::{DesiredPiece, TerrainFocus, desired_pieces, overlaps};
use crate::mesh::take_surface;
use crate::params::TerrainParams;

/// Most piece jobs running at once.
pub const MAX_JOBS_IN_FLIGHT: usize = 16;
/// Most finished jobs applied in one frame (each is a mesh and an image handed to the assets).
pub const APPLY_BUDGET: usize = 24;
/// Most unused piece assets (mesh, image, material) kept for new pieces.
pub const ASSET_POOL_SIZE: usize = 16;
/// How long the replaced pieces' memory is kept for next jobs.
pub const SPARE_BUFFERS_KEPT_FOR: Duration = Duration::from_secs(1);

/// The entity the terrain pieces are children of: move it to move the terrain. The plugin
/// spawns one (see [`TerrainPlugin::spawn_terrain`](crate::TerrainPlugin)); a game may spawn its
/// own instead.
#[derive(Component, Debug, Default, Clone, Copy, Reflect)]
#[reflect(Component, Default)]
#[require(Transform, Visibility)]
pub struct Terrain;

/// One piece of terrain (the patch, or a chunk): a child of the [`Terrain`] entity with a
/// `Mesh3d`, a material (with a renderer) and a `Transform` at its corner.
#[derive(Component, Debug)]
#[require(Transform, Visibility = Visibility::Hidden)]
pub struct TerrainPiece {
    /// What the piece should show: which piece, stitched how.
    pub spec: PieceSpec,
    /// The parameter generation and stitching of the build on screen (`None`: none yet).
    pub shown: Option<(u64, Stitch)>,
    /// No longer wanted: it goes as soon as its replacement shows.
    pub retiring: bool,
    /// The square it covers, `[min x, min z, max x, max z]` in the terrain entity's space.
    pub bounds: [f64; 4],
    /// Its texture (one texel per vertex).
    pub image: Handle<Image>,
    /// Its material, `None` without a renderer.
    pub material: Option<Handle<StandardMaterial>>,
    /// Whether the build on screen has a collider (feature `avian`).
    pub has_collider: bool,
    /// The child entity holding its collider.
    #[cfg(feature = "avian")]
    collider: Option<Entity>,
    job: Option<PieceJob>,
}

/// A piece's running build, with the parameters and the generation it was started with (a
/// stale build is shown with its own parameters until the next one lands).
type PieceJob = (Task<Result<PieceBuild, BuildError>>, Arc<TerrainParams>, u64, Arc<BuildControl>);

impl TerrainPiece {
    /// Whether a build is running for the piece.
    pub fn is_building(&self) -> bool {
        self.job.is_some()
    }

    /// How far the running build's erosion is, `None` while none runs.
    pub fn erosion_progress(&self) -> Option<f32> {
        self.job.as_ref().and_then(|(_, _, _, control)| control.erosion_progress())
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
    pub params: Arc<TerrainParams>,
}

/// Figures of the terrain on screen.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct TerrainStats {
    /// Lowest, highest and mean noise height over the pieces shown.
    pub heights: HeightStats,
    /// The same of the raw noise, before post-processing and erosion.
    pub raw_heights: HeightStats,
    /// Share of samples above 1 (only with normalisation off).
    pub overflow_fraction: f32,
    /// Time the latest finished job took, from parameters to mesh and image.
    pub generation_time: Duration,
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

/// Sent when every wanted piece shows a newer parameter generation than before.
#[derive(Message, Debug, Clone)]
pub struct TerrainGenerated {
    /// The same number as [`TerrainStats::generation`].
    pub generation: u64,
}

/// What validation changed in the latest parameters (empty when they were all in range): the
/// same lines the log shows, for the inspector and for game code.
#[derive(Resource, Debug, Clone, Default, PartialEq)]
pub struct TerrainValidation(pub Vec<Clamped>);

/// The plugin's bookkeeping: current parameters and their generation, the pieces by key, the
/// wanted pieces, the memory and assets kept for reuse.
#[derive(Resource, Default)]
pub struct TerrainJobs {
    /// The validated parameters, and their generation (one per effective change).
    params: Option<(Arc<TerrainParams>, u64)>,
    /// The terrain entity, parameter generation and foci the layout was last selected for.
    selected_for: Option<(Entity, u64, Vec<[f64; 2]>)>,
    desired: Vec<DesiredPiece>,
    index: HashMap<PieceKey, Entity>,
    /// Pieces taken out of the index by a layout change, to be marked retiring.
    retire: Vec<Entity>,
    started: u64,
    in_flight: usize,
    /// Wanted pieces that are out of date and wait for a free job slot.
    queued: usize,
    spare: Vec<TerrainBuffers>,
    spare_used: Option<Instant>,
    pool: Vec<PieceAssets>,
}

/// A piece's assets, kept in the pool between pieces.
#[derive(Debug)]
struct PieceAssets {
    mesh: Handle<Mesh>,
    image: Handle<Image>,
    material: Option<Handle<StandardMaterial>>,
}

impl TerrainJobs {
    /// Whether a piece is being built or waits for a job.
    pub fn is_busy(&self) -> bool {
        self.in_flight > 0 || self.queued > 0 || self.params.is_none()
    }

    /// How many piece jobs have been started since the app began.
    pub fn jobs_started(&self) -> u64 {
        self.started
    }

    /// Bytes of earlier pieces' memory held for next jobs (0 when none is held).
    pub fn spare_bytes(&self) -> usize {
        self.spare.iter().map(TerrainBuffers::capacity_bytes).sum()
    }

    /// The validated parameters being shown or built.
    pub fn params(&self) -> Option<&TerrainParams> {
        self.params.as_ref().map(|(p, _)| &**p)
    }

    /// The pieces the layout wants now, nearest first.
    pub fn desired(&self) -> &[DesiredPiece] {
        &self.desired
    }
}

/// Validates changed parameters (logging what was clamped) and makes them current.
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
    let jobs = &mut *jobs;
    let generation = match &jobs.params {
        Some((current, _)) if **current == used => return,
        Some((current, generation)) => {
            if current.layout != used.layout {
                // Other chunk sizes or another layout: every piece is replaced by new ones.
                jobs.retire.extend(std::mem::take(&mut jobs.index).into_values());
            }
            generation + 1
        }
        None => 1,
    };
    jobs.params = Some((Arc::new(used), generation));
}

/// Spawns the [`Terrain`] entity the pieces hang from.
pub(crate) fn spawn_terrain(mut commands: Commands) {
    commands.spawn((Terrain, Name::new("Terrain")));
}

/// The foci in the terrain entity's space, `(x, z)`.
fn foci_in(root: &GlobalTransform, foci: &Query<(&TerrainFocus, &GlobalTransform)>) -> Vec<[f64; 2]> {
    let to_local = root.affine().inverse();
    foci.iter()
        .map(|(focus, at)| {
            let p = to_local.transform_point3(focus.point.unwrap_or(at.translation()));
            [f64::from(p.x), f64::from(p.z)]
        })
        .collect()
}

/// Whether the foci moved far enough (a hundredth of the finest piece) to select again.
fn foci_moved(before: &[[f64; 2]], now: &[[f64; 2]], finest: f64) -> bool {
    before.len() != now.len()
        || before.iter().zip(now).any(|(a, b)| (a[0] - b[0]).hypot(a[1] - b[1]) > finest * 0.01)
}

/// Decides which pieces should exist; spawns the missing ones (hidden, with pooled assets) and
/// marks the unwanted ones retiring.
#[allow(clippy::too_many_arguments)]
pub(crate) fn select_pieces(
    mut commands: Commands,
    mut jobs: ResMut<TerrainJobs>,
    root: Query<(Entity, &GlobalTransform), With<Terrain>>,
    foci: Query<(&TerrainFocus, &GlobalTransform)>,
    mut pieces: Query<&mut TerrainPiece>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut images: ResMut<Assets<Image>>,
    mut materials: Option<ResMut<Assets<StandardMaterial>>>,
) {
    let Some((root, root_at)) = root.iter().next() else { return };
    let Some((params, generation)) = jobs.params.clone() else { return };
    let jobs = &mut *jobs;
    for entity in std::mem::take(&mut jobs.retire) {
        if let Ok(mut piece) = pieces.get_mut(entity) {
            piece.retiring = true;
        }
    }
    let now = foci_in(root_at, &foci);
    let finest = params.layout.lod_settings().map_or(f64::INFINITY, |lod| lod.chunk_size);
    let (same_root, unchanged) = match &jobs.selected_for {
        Some((r, g, before)) => (
            *r == root,
            *r == root
                && *g == generation
                && (params.layout.lod_settings().is_none() || !foci_moved(before, &now, finest)),
        ),
        None => (true, false),
    };
    if unchanged {
        return;
    }
    if !same_root {
        // A new terrain entity: the old one's pieces went with it.
        jobs.index.clear();
    }
    jobs.desired = desired_pieces(&params, &now);
    jobs.selected_for = Some((root, generation, now));
    let mut wanted = HashSet::with_capacity(jobs.desired.len());
    for desired in &jobs.desired {
        wanted.insert(desired.spec.key);
        match jobs.index.get(&desired.spec.key).and_then(|&e| pieces.get_mut(e).ok()) {
            Some(mut piece) => {
                piece.retiring = false;
                piece.spec.stitch = desired.spec.stitch;
            }
            None => {
                let assets = jobs.pool.pop().unwrap_or_else(|| PieceAssets {
                    mesh: meshes.add(Mesh::from(Plane3d::default())),
                    image: images.add(Image::default()),
                    material: materials.as_mut().map(|m| m.add(piece_material(None))),
                });
                let geometry = desired.spec.key.geometry(&params);
                let translation =
                    Vec3::new(geometry.translation[0] as f32, 0.0, geometry.translation[1] as f32);
                let piece = TerrainPiece {
                    spec: desired.spec,
                    shown: None,
                    retiring: false,
                    bounds: desired.bounds,
                    image: assets.image,
                    material: assets.material.clone(),
                    has_collider: false,
                    #[cfg(feature = "avian")]
                    collider: None,
                    job: None,
                };
                let mut entity = commands.spawn((
                    piece,
                    Name::new(format!("Terrain piece {:?}", desired.spec.key)),
                    Mesh3d(assets.mesh),
                    Transform::from_translation(translation),
                    ChildOf(root),
                ));
                if let Some(material) = assets.material {
                    entity.insert(MeshMaterial3d(material));
                }
                jobs.index.insert(desired.spec.key, entity.id());
            }
        }
    }
    // Pieces no longer wanted stay on screen until their replacements show.
    for (key, &entity) in &jobs.index {
        if !wanted.contains(key)
            && let Ok(mut piece) = pieces.get_mut(entity)
        {
            piece.retiring = true;
        }
    }
    jobs.index.retain(|key, _| wanted.contains(key));
}

/// The material of a piece showing `image`.
fn piece_material(image: Option<Handle<Image>>) -> StandardMaterial {
    StandardMaterial { base_color_texture: image, perceptual_roughness: 0.92, reflectance: 0.2, ..default() }
}

/// Applies finished jobs (within the budget), then starts jobs for the nearest out-of-date
/// pieces.
#[allow(clippy::too_many_arguments)]
pub(crate) fn drive_jobs(
    mut commands: Commands,
    mut jobs: ResMut<TerrainJobs>,
    mut pieces: Query<(Entity, &mut TerrainPiece, &Mesh3d, &mut Transform)>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut images: ResMut<Assets<Image>>,
    mut materials: Option<ResMut<Assets<StandardMaterial>>>,
    mut stats: ResMut<TerrainStats>,
    #[cfg(feature = "avian")] colliders: Option<Res<crate::physics::TerrainColliders>>,
) {
    let jobs = &mut *jobs;
    let mut applied = 0;
    for (entity, mut piece, mesh, mut transform) in &mut pieces {
        if applied >= APPLY_BUDGET {
            break;
        }
        let Some((task, _, started_for, control)) = piece.job.as_mut() else { continue };
        // Newer parameters wait behind this build: stop its erosion (the rest finishes fast).
        if jobs.params.as_ref().is_some_and(|(_, current)| current > started_for) {
            control.cancel();
        }
        let Some(result) = check_ready(task) else { continue };
        let Some((_, params, generation, _)) = piece.job.take() else { continue };
        match result {
            Ok(build) => {
                applied += 1;
                stats.generation_time = build.elapsed;
                let recycled = apply(
                    build,
                    generation,
                    &params,
                    entity,
                    &mut piece,
                    mesh,
                    &mut transform,
                    &mut commands,
                    &mut meshes,
                    &mut images,
                    materials.as_deref_mut(),
                );
                if jobs.spare.len() < MAX_JOBS_IN_FLIGHT {
                    jobs.spare.push(recycled);
                    jobs.spare_used = Some(Instant::now());
                }
            }
            // Newer parameters are queued: nothing to show, the next job starts below.
            Err(BuildError::Cancelled) => {}
            // Validation keeps sizes in range, so this is a bug; keep the last good piece.
            Err(e) => error!("terrain piece failed to build, keeping the last one: {e}"),
        }
    }
    if jobs.spare_used.is_some_and(|t| t.elapsed() > SPARE_BUFFERS_KEPT_FOR) {
        jobs.spare.clear();
        jobs.spare_used = None;
    }

    let Some((params, generation)) = jobs.params.clone() else { return };
    // Counted, not tracked: a piece despawned by someone else takes its job with it.
    jobs.in_flight = pieces.iter().filter(|(_, piece, _, _)| piece.job.is_some()).count();
    jobs.queued = 0;
    for desired in &jobs.desired {
        let Some(&entity) = jobs.index.get(&desired.spec.key) else { continue };
        let Ok((_, mut piece, _, _)) = pieces.get_mut(entity) else { continue };
        #[cfg(feature = "avian")]
        let wants_collider = colliders.as_ref().is_some_and(|c| {
            desired.spec.key == crate::build::PieceKey::Patch || desired.distance < f64::from(c.distance)
        });
        #[cfg(not(feature = "avian"))]
        let wants_collider = false;
        let up_to_date =
            piece.shown == Some((generation, piece.spec.stitch)) && piece.has_collider == wants_collider;
        if piece.job.is_some() || up_to_date {
            continue;
        }
        if jobs.in_flight >= MAX_JOBS_IN_FLIGHT {
            jobs.queued += 1;
            continue;
        }
        let (job_params, spec) = (params.clone(), piece.spec);
        let reuse = match jobs.spare.pop() {
            Some(buffers) => {
                jobs.spare_used = Some(Instant::now());
                buffers
            }
            None => TerrainBuffers::default(),
        };
        let params_for_job = job_params.clone();
        let control = Arc::new(BuildControl::new());
        let control_for_job = control.clone();
        let task = AsyncComputeTaskPool::get().spawn(async move {
            let params = params_for_job;
            #[allow(unused_mut)]
            let mut build = build_piece(&params, spec, reuse, &control_for_job)?;
            #[cfg(feature = "avian")]
            if wants_collider {
                build.collider = Some(crate::physics::heightfield_collider(
                    &build.heights,
                    &build.geometry,
                    params.height_scale,
                ));
            }
            #[cfg(not(feature = "avian"))]
            let _ = wants_collider;
            Ok(build)
        });
        piece.job = Some((task, job_params, generation, control));
        jobs.in_flight += 1;
        jobs.started += 1;
    }
}

/// Writes a finished build into the piece's assets and components; returns the replaced
/// build's memory.
#[allow(clippy::too_many_arguments)]
fn apply(
    mut build: PieceBuild,
    generation: u64,
    params: &Arc<TerrainParams>,
    entity: Entity,
    piece: &mut TerrainPiece,
    mesh: &Mesh3d,
    transform: &mut Transform,
    commands: &mut Commands,
    meshes: &mut Assets<Mesh>,
    images: &mut Assets<Image>,
    materials: Option<&mut Assets<StandardMaterial>>,
) -> TerrainBuffers {
    // The old arrays are taken only from assets replaced right after under the same handle, so
    // nobody sees them emptied, and taking them is no change anyone needs to hear of.
    let mut recycled = TerrainBuffers {
        surface: meshes.get_mut_untracked(&mesh.0).map(take_surface).unwrap_or_default(),
        texels: Vec::new(),
        gradients: std::mem::take(&mut build.gradients),
    };
    if let Err(e) = meshes.insert(&mesh.0, build.mesh) {
        error!("terrain mesh could not be replaced: {e}");
    }
    let same_size = images.get(&piece.image).is_some_and(|old| old.size() == build.image.size());
    if same_size {
        recycled.texels =
            images.get_mut_untracked(&piece.image).and_then(|old| old.data.take()).unwrap_or_default();
        let _ = images.insert(&piece.image, build.image);
    } else {
        // A resized image under the old handle is not picked up by the renderer: make a new
        // one; the old one is freed when its last handle goes.
        piece.image = images.add(build.image);
    }
    if let (Some(materials), Some(material)) = (materials, &piece.material) {
        // Touching the material makes it see the new image (bevy #15595, #17220).
        if let Some(mut material) = materials.get_mut(material) {
            material.base_color_texture = Some(piece.image.clone());
        }
    }
    let g = build.geometry;
    transform.translation =
        Vec3::new(g.translation[0] as f32, transform.translation.y, g.translation[1] as f32);
    piece.bounds = g.bounds();
    piece.shown = Some((generation, build.spec.stitch));
    #[cfg(feature = "avian")]
    {
        piece.has_collider = build.collider.is_some();
        crate::physics::swap_collider(commands, entity, &mut piece.collider, build.collider);
    }
    commands.entity(entity).insert(PieceHeights {
        map: Arc::new(build.heights),
        geometry: g,
        height_scale: params.height_scale,
        stats: build.stats,
        raw_stats: build.raw_stats,
        overflow_fraction: build.overflow_fraction,
        params: params.clone(),
    });
    recycled
}

/// Shows built pieces and removes retiring ones once every wanted piece over their square is
/// built, in the same frame, so that neither a hole nor an overlap shows.
pub(crate) fn swap_pieces(
    mut commands: Commands,
    mut jobs: ResMut<TerrainJobs>,
    mut pieces: Query<(Entity, &TerrainPiece, &Mesh3d, &mut Visibility)>,
) {
    let jobs = &mut *jobs;
    let built = |entity: Option<&Entity>,
                 pieces: &Query<(Entity, &TerrainPiece, &Mesh3d, &mut Visibility)>| {
        entity.and_then(|&e| pieces.get(e).ok()).is_some_and(|(_, p, _, _)| p.shown.is_some())
    };
    let retiring: Vec<(Entity, [f64; 4])> =
        pieces.iter().filter(|(_, p, _, _)| p.retiring).map(|(e, p, _, _)| (e, p.bounds)).collect();
    let mut blocked: Vec<[f64; 4]> = Vec::new();
    for (entity, bounds) in retiring {
        let covering = jobs.desired.iter().filter(|d| overlaps(d.bounds, bounds));
        let mut ready = true;
        for desired in covering {
            ready &= built(jobs.index.get(&desired.spec.key), &pieces);
        }
        if ready {
            let (_, piece, mesh, _) = pieces.get(entity).expect("listed above");
            if jobs.pool.len() < ASSET_POOL_SIZE {
                jobs.pool.push(PieceAssets {
                    mesh: mesh.0.clone(),
                    image: piece.image.clone(),
                    material: piece.material.clone(),
                });
            }
            commands.entity(entity).despawn();
        } else {
            blocked.push(bounds);
        }
    }
    for (_, piece, _, mut visibility) in &mut pieces {
        let show =
            !piece.retiring && piece.shown.is_some() && !blocked.iter().any(|&b| overlaps(b, piece.bounds));
        if show && *visibility != Visibility::Inherited {
            *visibility = Visibility::Inherited;
        }
    }
}

/// Sums up the pieces on screen into [`TerrainStats`]; sends [`TerrainGenerated`] when the
/// whole terrain reaches a newer generation.
pub(crate) fn update_stats(
    jobs: Res<TerrainJobs>,
    pieces: Query<(&TerrainPiece, &Visibility, Option<&PieceHeights>)>,
    mut stats: ResMut<TerrainStats>,
    mut generated: MessageWriter<TerrainGenerated>,
) {
    let Some((_, generation)) = jobs.params else { return };
    let (mut shown_heights, mut raw) = (StatsSum::default(), StatsSum::default());
    let (mut overflow, mut samples) = (0.0f64, 0usize);
    let (mut vertices, mut triangles, mut shown, mut queued) = (0, 0, 0, 0);
    let mut complete = u64::MAX;
    let mut erosion_progress: Option<f32> = None;
    for (piece, visibility, heights) in &pieces {
        if let Some(p) = piece.erosion_progress() {
            erosion_progress = Some(erosion_progress.map_or(p, |q| q.min(p)));
        }
        if !piece.retiring {
            complete = complete.min(piece.shown.map_or(0, |(g, _)| g));
            if piece.job.is_none() && piece.shown != Some((generation, piece.spec.stitch)) {
                queued += 1;
            }
        }
        if *visibility == Visibility::Hidden {
            continue;
        }
        let Some(h) = heights else { continue };
        let n = h.map.samples().len();
        shown_heights.add(h.stats, n);
        raw.add(h.raw_stats, n);
        overflow += f64::from(h.overflow_fraction) * n as f64;
        samples += n;
        vertices += n;
        triangles += 2 * (h.map.width().max(1) as usize - 1) * (h.map.height().max(1) as usize - 1);
        shown += 1;
    }
    let complete = if complete == u64::MAX { 0 } else { complete };
    let new = TerrainStats {
        heights: shown_heights.total().unwrap_or(stats.heights),
        raw_heights: raw.total().unwrap_or(stats.raw_heights),
        overflow_fraction: if samples > 0 { (overflow / samples as f64) as f32 } else { 0.0 },
        generation_time: stats.generation_time,
        vertex_count: vertices,
        triangle_count: triangles,
        pieces_shown: shown,
        pieces_queued: queued,
        pieces_building: jobs.in_flight,
        erosion_progress,
        generation: complete.max(stats.generation),
    };
    if new.generation > stats.generation {
        generated.write(TerrainGenerated { generation: new.generation });
    }
    stats.set_if_neq(new);
}

/// Height figures of several pieces combined, weighted by their samples.
struct StatsSum {
    min: f32,
    max: f32,
    sum: f64,
    samples: usize,
}

impl Default for StatsSum {
    fn default() -> Self {
        Self { min: f32::INFINITY, max: f32::NEG_INFINITY, sum: 0.0, samples: 0 }
    }
}

impl StatsSum {
    fn add(&mut self, stats: HeightStats, samples: usize) {
        (self.min, self.max) = (self.min.min(stats.min), self.max.max(stats.max));
        self.sum += f64::from(stats.mean) * samples as f64;
        self.samples += samples;
    }

    /// The combined figures; `None` without samples.
    fn total(&self) -> Option<HeightStats> {
        (self.samples > 0).then(|| HeightStats {
            min: self.min,
            max: self.max,
            mean: (self.sum / self.samples as f64) as f32,
        })
    }
}
