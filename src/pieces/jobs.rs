//! Background builds: a terrain's bookkeeping ([`TerrainJobs`]), starting jobs for the nearest
//! out-of-date pieces, and taking in finished ones (they wait on their piece until
//! [`swap`](super::swap) shows them).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::ecs::entity::EntityHashSet;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use noise_terrain_core::RiverNetwork;
use noise_terrain_core::advanced::{ChunkSelector, Stitch};

use crate::build::{
    BuildControl, BuildError, PieceBuild, PieceKey, TerrainBuffers, build_piece, chunk_samples_rect,
};
use crate::layout::DesiredPiece;
use crate::params::TerrainPreset;
use crate::pieces::components::{Shown, TerrainPiece};
use crate::pieces::hooks::PieceHooks;
use crate::pieces::pool::PiecePool;
use crate::pieces::workers::{BuildOrder, BuildPriority, PendingBuild, rescue_starved_builds, spawn_build};

/// Most piece jobs of one terrain running at once.
pub const MAX_JOBS_IN_FLIGHT: usize = 16;

/// How long a chunk keeps the samples of its latest build for its next one (see
/// [`ChunkSamples`](crate::build::ChunkSamples)): a flight stitches chunks anew within seconds
/// of their build as the levels around them change; at rest the memory goes.
pub const CHUNK_SAMPLES_KEPT_FOR: Duration = Duration::from_secs(5);

/// A terrain's validated parameters and their generation (one per effective change).
#[derive(Clone, Debug)]
pub(crate) struct CurrentParams {
    pub params: Arc<TerrainPreset>,
    pub generation: u64,
    /// The endless rivers of these parameters, shared by their chunks' builds (kept across
    /// changes that leave the rivers' inputs alone); `None` where there are none.
    pub rivers: Option<Arc<RiverNetwork>>,
}

/// The foci and parameter generation the layout was last selected for.
#[derive(Clone, Debug)]
pub(crate) struct Selection {
    pub generation: u64,
    pub foci: Vec<[f64; 2]>,
}

/// A wanted piece in a terrain's index: its entity, and what the systems last asked of it (so
/// that a frame touches only the pieces that change: reading every piece's components each
/// frame cost more than the work itself).
#[derive(Clone, Debug)]
pub(crate) struct IndexedPiece {
    pub entity: Entity,
    /// The stitching last written to its [`TerrainPiece::spec`].
    pub stitch: Stitch,
    /// What its last job was started for (`None`: no job yet, or it was cancelled). While this
    /// is what the piece should show, it is being built, waits, or shows it.
    pub requested: Option<Shown>,
    /// Its job is running.
    pub building: bool,
    /// The selection that last wanted it (see [`TerrainJobs::selections`]).
    pub selected: u64,
}

/// A terrain's bookkeeping: its current parameters, the pieces by key, the wanted pieces and its
/// jobs. A component on every [`Terrain`](crate::Terrain).
#[derive(Component, Debug, Default)]
pub struct TerrainJobs {
    pub(crate) current: Option<CurrentParams>,
    pub(crate) selected_for: Option<Selection>,
    pub(crate) desired: Vec<DesiredPiece>,
    pub(crate) index: HashMap<PieceKey, IndexedPiece>,
    /// How many selections were made; a piece not stamped with the latest is no longer wanted.
    pub(crate) selections: u64,
    /// The selection's working memory, kept from frame to frame.
    pub(crate) selector: ChunkSelector,
    /// Pieces taken out of the index by a layout change, to be marked retiring.
    pub(crate) retire: Vec<Entity>,
    /// The pieces whose job is running (wanted or retiring).
    pub(crate) building: Vec<Entity>,
    /// Something the swap depends on changed since it last looked (a build finished, pieces
    /// came, went or were stitched anew, a new generation): only then can a group land.
    pub(crate) swap_due: bool,
    /// Pieces that may change (new, stitched anew, retiring, with a finished build): the swap
    /// looks only at these.
    pub(crate) attention: EntityHashSet,
    /// Every piece may change (a new generation): the swap looks at all of them once.
    pub(crate) attention_all: bool,
    /// Something the stats sum up changed since they were last summed.
    pub(crate) stats_due: bool,
    pub(crate) started: u64,
    /// Wanted pieces that are out of date and wait for a free job slot.
    pub(crate) queued: usize,
    /// Pieces whose finished build waits for the pieces its edges depend on.
    pub(crate) waiting: usize,
    /// Work a build hook spreads over frames that waits (scatter's things to spawn or despawn).
    pub(crate) hook_work_waiting: usize,
    /// How long the latest build shown took, from parameters to mesh and image.
    pub(crate) last_build_time: Duration,
    /// The pieces that kept the samples of a build, and when, oldest first (see
    /// [`CHUNK_SAMPLES_KEPT_FOR`]).
    pub(crate) kept_samples: VecDeque<(Instant, Entity)>,
}

impl TerrainJobs {
    /// Whether a piece is being built, waits for a job or for its neighbours' builds, a shown
    /// piece's scatter instances wait to be spawned or despawned, or the first parameters are not taken in
    /// yet.
    pub fn is_busy(&self) -> bool {
        !self.building.is_empty()
            || self.queued > 0
            || self.waiting > 0
            || self.hook_work_waiting > 0
            || self.current.is_none()
    }

    /// How many piece jobs this terrain has started.
    pub fn jobs_started(&self) -> u64 {
        self.started
    }

    /// The validated parameters being shown or built.
    pub fn params(&self) -> Option<&TerrainPreset> {
        self.current.as_ref().map(|c| &*c.params)
    }

    /// The current parameter generation (0 before the first).
    pub fn generation(&self) -> u64 {
        self.current.as_ref().map_or(0, |c| c.generation)
    }

    /// The endless rivers of the current parameters (the network the chunks are carved with,
    /// with its kept regions), or `None` where there are none.
    pub fn rivers(&self) -> Option<&RiverNetwork> {
        self.current.as_ref().and_then(|c| c.rivers.as_deref())
    }

    /// The pieces the layout wants now, nearest first.
    pub fn desired(&self) -> &[DesiredPiece] {
        &self.desired
    }

    /// The foci `(x, z)`, in the terrain entity's space, that the pieces were last chosen
    /// around (empty before the first selection).
    pub fn foci(&self) -> &[[f64; 2]] {
        self.selected_for.as_ref().map_or(&[], |s| &s.foci)
    }
}

/// A piece's running build, with the parameters and the generation it was started with (a
/// stale build is shown with its own parameters until the next one lands).
#[derive(Debug)]
pub(crate) struct PieceJob {
    pending: PendingBuild,
    params: Arc<TerrainPreset>,
    generation: u64,
    pub control: Arc<BuildControl>,
}

/// A finished build with what it was built from.
#[derive(Debug)]
pub(crate) struct FinishedBuild {
    pub build: PieceBuild,
    pub params: Arc<TerrainPreset>,
    pub generation: u64,
}

impl FinishedBuild {
    /// What the piece shows once this build lands.
    pub fn shown(&self) -> Shown {
        Shown { generation: self.generation, stitch: self.build.spec.stitch, hooks: self.build.hooks.clone() }
    }
}

/// Runs starved background builds again at normal priority, takes in finished jobs and starts
/// new ones (see [`collect_finished`] and [`start_jobs`]); lets kept memory go after a second
/// without use, by the app's real-time clock (`Time<Real>`, so an app stepped by hand can
/// step it too; the system clock where the app has no time).
pub(crate) fn drive_jobs(
    mut terrains: Query<&mut TerrainJobs>,
    mut pieces: Query<&mut TerrainPiece>,
    mut pool: ResMut<PiecePool>,
    (hooks, priority, time): (Res<PieceHooks>, Res<BuildPriority>, Option<Res<Time<Real>>>),
) {
    let now = time.and_then(|t| t.last_update()).unwrap_or_else(Instant::now);
    pool.set_clock(now);
    rescue_starved_builds();
    for mut jobs in &mut terrains {
        collect_finished(&mut jobs, &mut pieces, &mut pool, now);
        forget_old_samples(&mut jobs, &mut pieces, now);
        start_jobs(&mut jobs, &mut pieces, &mut pool, &hooks, *priority);
    }
    pool.expire_buffers(now);
}

/// Takes in a terrain's finished jobs: each waits on its piece (replacing an older waiting
/// build, whose memory goes to the pool) and keeps its samples for the piece's next build (from
/// `now`). Cancels the erosion of builds that newer parameters wait behind. Forgets jobs whose
/// piece was despawned (by someone else).
fn collect_finished(
    jobs: &mut TerrainJobs,
    pieces: &mut Query<&mut TerrainPiece>,
    pool: &mut PiecePool,
    now: Instant,
) {
    let current = jobs.generation();
    let mut building = std::mem::take(&mut jobs.building);
    building.retain(|&entity| {
        let Ok(mut piece) = pieces.get_mut(entity) else { return false };
        let Some(job) = piece.job.as_mut() else { return false };
        // Newer parameters wait behind this build: stop its erosion (the rest finishes fast).
        if current > job.generation {
            job.control.cancel();
        }
        let Some(result) = job.pending.take_finished() else { return true };
        let Some(job) = piece.job.take() else { return false };
        let entry = jobs.index.get_mut(&piece.spec.key).filter(|e| e.entity == entity);
        match result {
            Ok(mut build) => {
                piece.samples = build.samples.take().map(|samples| (now, samples));
                if piece.samples.is_some() {
                    jobs.kept_samples.push_back((now, entity));
                }
                let finished = FinishedBuild { build, params: job.params, generation: job.generation };
                if let Some(mut older) = piece.ready.replace(Box::new(finished)) {
                    pool.keep_buffers(TerrainBuffers::from_unshown(&mut older.build));
                }
                if let Some(entry) = entry {
                    entry.building = false;
                }
                jobs.attention.insert(entity);
            }
            // Newer parameters are queued: nothing to show, the next job starts later.
            Err(BuildError::Cancelled) => {
                if let Some(entry) = entry {
                    entry.building = false;
                    entry.requested = None;
                }
            }
            // Validation keeps sizes in range, so this is a bug; keep the last good piece (and
            // do not start the same build again).
            Err(e) => {
                if let Some(entry) = entry {
                    entry.building = false;
                }
                error!("terrain piece failed to build, keeping the last one: {e}");
            }
        }
        jobs.swap_due = true;
        jobs.stats_due = true;
        false
    });
    jobs.building = building;
}

/// Lets go of the samples pieces kept longer than [`CHUNK_SAMPLES_KEPT_FOR`] before `now`.
fn forget_old_samples(jobs: &mut TerrainJobs, pieces: &mut Query<&mut TerrainPiece>, now: Instant) {
    while let Some(&(kept, entity)) = jobs.kept_samples.front() {
        if now.saturating_duration_since(kept) <= CHUNK_SAMPLES_KEPT_FOR {
            break;
        }
        jobs.kept_samples.pop_front();
        // Unless the piece went, or kept newer samples since.
        if let Ok(mut piece) = pieces.get_mut(entity)
            && piece.samples.as_ref().is_some_and(|(at, _)| *at == kept)
        {
            piece.samples = None;
        }
    }
}

/// Starts jobs for a terrain's nearest wanted pieces that are out of date (neither shown nor
/// waiting with the current generation, stitching and hooks), at most [`MAX_JOBS_IN_FLIGHT`]
/// at a time, on the build workers of `priority`. Touches only the pieces whose wanted build
/// differs from their last job's.
fn start_jobs(
    jobs: &mut TerrainJobs,
    pieces: &mut Query<&mut TerrainPiece>,
    pool: &mut PiecePool,
    hooks: &PieceHooks,
    priority: BuildPriority,
) {
    let Some(current) = jobs.current.clone() else { return };
    let queued_before = jobs.queued;
    jobs.queued = 0;
    for desired in &jobs.desired {
        let Some(entry) = jobs.index.get_mut(&desired.spec.key) else { continue };
        let wanted =
            Shown { generation: current.generation, stitch: entry.stitch, hooks: hooks.wanted_by(desired) };
        // A piece has at most one job; a newer one waits for it.
        if entry.requested.as_ref() == Some(&wanted) || entry.building {
            continue;
        }
        let Ok(mut piece) = pieces.get_mut(entry.entity) else { continue };
        if piece.next_shown().as_ref() == Some(&wanted) {
            entry.requested = Some(wanted);
            continue;
        }
        if jobs.building.len() >= MAX_JOBS_IN_FLIGHT {
            jobs.queued += 1;
            continue;
        }
        let (params, spec) = (current.params.clone(), piece.spec);
        // Taken by the first run (a starved build may be run a second time, see `workers`).
        let reuse = std::sync::Mutex::new(Some(pool.take_buffers()));
        let control = Arc::new(
            BuildControl::new()
                .with_rivers(current.rivers.clone())
                .with_samples(piece.samples.as_ref().map(|(_, samples)| samples.clone())),
        );
        let hooks = hooks.clone();
        let (params_for_job, control_for_job) = (params.clone(), control.clone());
        let wanted_hooks = wanted.hooks.clone();
        // A chunk whose rivers need regions not routed yet routes them on a thread of its own.
        let routes_rivers = match (spec.key, &current.rivers) {
            (PieceKey::Chunk(key), Some(rivers)) => !rivers.regions_ready(chunk_samples_rect(&params, key)),
            _ => false,
        };
        let order = BuildOrder { key: spec.key, routes_rivers, distance: desired.distance };
        let pending = spawn_build(priority, order, move || {
            let reuse = reuse.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
            let mut build = build_piece(&params_for_job, spec, reuse.unwrap_or_default(), &control_for_job)?;
            hooks.run(&mut build, &params_for_job, wanted_hooks.clone());
            Ok(build)
        });
        piece.job = Some(PieceJob { pending, params, generation: current.generation, control });
        entry.requested = Some(wanted);
        entry.building = true;
        jobs.building.push(entry.entity);
        jobs.started += 1;
        jobs.stats_due = true;
    }
    if jobs.queued != queued_before {
        jobs.stats_due = true;
    }
}
