//! The threads that build terrain pieces, and how they share the CPU with the game
//! ([`BuildPriority`]).
//!
//! Builds run on the plugin's own threads, not on Bevy's task pools: a build's parallel loops
//! (grid rows, normals, erosion) stay on the same threads, chunks leave one core to the main
//! thread, and chunks' threads can be put below the game's in the operating system's
//! scheduler. On a machine with few cores, builds on Bevy's async pool fanned out to
//! every core through the core crate's parallel loops, and a frame's systems waited for a core
//! whenever they woke up.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use bevy::prelude::*;

use crate::build::{BuildError, PieceBuild, PieceKey};

/// How the threads that build chunks (the endless layout's pieces) share the CPU with the
/// game's threads. A resource: jobs started after a change run at the new priority. (The
/// patch is one piece a slider drag waits for: it is built on every core at normal priority.)
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default)]
pub enum BuildPriority {
    /// Below every thread of normal priority: chunks are built in the time the game leaves
    /// idle, and a game thread that wakes up takes the core at once. On Linux the threads run
    /// under `SCHED_IDLE`; on other systems this is [`Normal`](Self::Normal). While every core
    /// is busy with the game's own threads (a frame loop without vsync on a two-core machine,
    /// say), chunks wait for them: choose `Normal` there, or while a loading screen shows.
    #[default]
    Background,
    /// The same priority as the game's threads: chunks are built sooner while the cores are
    /// busy, and frames may wait for a build's time slice.
    Normal,
}

/// A build running on the workers; its result once it is done. Dropped before the build
/// starts, the build does not run.
#[derive(Debug)]
pub(crate) struct PendingBuild(Arc<Mutex<Option<Result<PieceBuild, BuildError>>>>);

impl PendingBuild {
    /// The result, once (`None` while it runs, and after it was taken).
    pub fn take_finished(&mut self) -> Option<Result<PieceBuild, BuildError>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// Runs the build of `key`: a chunk's on the workers of `priority`, the patch's on its own. A
/// panic in it becomes [`BuildError::Panicked`] (the piece keeps what it shows).
pub(crate) fn spawn_build(
    priority: BuildPriority,
    key: PieceKey,
    build: impl FnOnce() -> Result<PieceBuild, BuildError> + Send + 'static,
) -> PendingBuild {
    let (pending, job) = pending_job(build);
    match pool(Workers::for_piece(priority, key)) {
        Some(pool) => pool.spawn(job),
        // No thread could be started: build on the caller's thread (slow, but right).
        None => job(),
    }
    pending
}

/// Drops `garbage` on the chunk workers of `priority` instead of the calling thread: freeing
/// large meshes is work a frame need not wait for (where no worker could start, it is dropped
/// here).
pub(crate) fn drop_on_workers(priority: BuildPriority, garbage: impl Send + 'static) {
    match pool(Workers::chunks(priority)) {
        Some(pool) => pool.spawn(move || drop(garbage)),
        None => drop(garbage),
    }
}

/// `build` as a job for a worker, and its [`PendingBuild`]. The job does nothing once the
/// `PendingBuild` is dropped (its piece despawned before a worker took the job up).
fn pending_job(
    build: impl FnOnce() -> Result<PieceBuild, BuildError> + Send + 'static,
) -> (PendingBuild, impl FnOnce() + Send + 'static) {
    let slot = Arc::new(Mutex::new(None));
    let done = slot.clone();
    let job = move || {
        if Arc::strong_count(&done) == 1 {
            return;
        }
        let result = catch_unwind(AssertUnwindSafe(build)).unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(BuildError::Panicked(message))
        });
        *done.lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
    };
    (PendingBuild(slot), job)
}

/// The pools pieces are built on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Workers {
    /// Chunks at [`BuildPriority::Background`].
    BackgroundChunks,
    /// Chunks at [`BuildPriority::Normal`].
    Chunks,
    /// The patch: one piece, whose build a slider drag waits for, on every core at normal
    /// priority whatever the [`BuildPriority`] (below the game's threads, on two cores, its
    /// 1024² build took 54 ms instead of 43).
    Patch,
}

impl Workers {
    fn for_piece(priority: BuildPriority, key: PieceKey) -> Self {
        match key {
            PieceKey::Patch => Self::Patch,
            PieceKey::Chunk(_) => Self::chunks(priority),
        }
    }

    /// The workers of chunks at `priority`.
    fn chunks(priority: BuildPriority) -> Self {
        match priority {
            BuildPriority::Background => Self::BackgroundChunks,
            BuildPriority::Normal => Self::Chunks,
        }
    }

    /// Chunks get one thread fewer than the cores, at least one: the core left over is the
    /// main thread's. With chunk builds on every core a frame's systems wait for a core
    /// whenever they wake up, even below a background priority (measured on two cores: README,
    /// "Trees, rocks, reeds and the sea").
    fn threads(self) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        match self {
            Self::BackgroundChunks | Self::Chunks => cores.saturating_sub(1).max(1),
            Self::Patch => cores,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::BackgroundChunks => "terrain chunks (background)",
            Self::Chunks => "terrain chunks",
            Self::Patch => "terrain patch",
        }
    }
}

/// The process's pool of `workers`, made on first use (every app in the process shares it);
/// `None` if its threads could not be started.
fn pool(workers: Workers) -> Option<&'static rayon::ThreadPool> {
    static POOLS: [OnceLock<Option<rayon::ThreadPool>>; 3] = [const { OnceLock::new() }; 3];
    POOLS[workers as usize]
        .get_or_init(|| {
            let name = workers.name();
            let builder = rayon::ThreadPoolBuilder::new()
                .num_threads(workers.threads())
                .thread_name(move |i| format!("{name} {i}"));
            let builder = match workers {
                Workers::BackgroundChunks => builder.start_handler(|_| lower_this_thread()),
                Workers::Chunks | Workers::Patch => builder,
            };
            builder
                .build()
                .inspect_err(|e| {
                    warn!("terrain build threads could not start ({e}); building on the main thread")
                })
                .ok()
        })
        .as_ref()
}

/// Puts the calling thread below every thread of normal priority.
#[cfg(target_os = "linux")]
fn lower_this_thread() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `sched_setscheduler` with pid 0 changes only the calling thread's policy, and
    // reads `param`, a valid `sched_param` that lives for the call. Lowering a thread's own
    // policy needs no privilege.
    let result = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
    if result != 0 {
        warn!("terrain build thread could not lower its priority: {}", std::io::Error::last_os_error());
    }
}

/// Other systems keep the normal priority (see [`BuildPriority::Background`]).
#[cfg(not(target_os = "linux"))]
fn lower_this_thread() {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads the calling thread's scheduling policy.
    #[cfg(target_os = "linux")]
    fn policy() -> i32 {
        // SAFETY: pid 0 asks about the calling thread; no memory is passed.
        unsafe { libc::sched_getscheduler(0) }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn background_threads_run_below_normal_ones() {
        let background = pool(Workers::BackgroundChunks).unwrap().install(policy);
        let normal = pool(Workers::Chunks).unwrap().install(policy);
        assert_eq!(background, libc::SCHED_IDLE);
        assert_eq!(normal, libc::SCHED_OTHER);
        assert_eq!(policy(), libc::SCHED_OTHER, "the caller's thread is not touched");
    }

    /// Garbage handed to the workers is dropped on one of them, not on the caller's thread.
    #[test]
    fn garbage_is_dropped_on_a_worker() {
        struct Tells(std::sync::mpsc::Sender<Option<String>>);
        impl Drop for Tells {
            fn drop(&mut self) {
                let _ = self.0.send(std::thread::current().name().map(str::to_string));
            }
        }
        for priority in [BuildPriority::Background, BuildPriority::Normal] {
            let (tx, rx) = std::sync::mpsc::channel();
            drop_on_workers(priority, vec![Tells(tx)]);
            let thread = rx.recv_timeout(std::time::Duration::from_secs(10)).expect("dropped");
            let expected = match priority {
                BuildPriority::Background => Workers::BackgroundChunks.name(),
                BuildPriority::Normal => Workers::Chunks.name(),
            };
            assert!(thread.as_deref().is_some_and(|t| t.starts_with(expected)), "{thread:?}");
        }
    }

    /// A build whose job is dropped before a worker takes it up does not run; one that is kept
    /// runs once.
    #[test]
    fn a_dropped_job_is_not_built() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let built = Arc::new(AtomicUsize::new(0));
        let counted = |built: &Arc<AtomicUsize>| {
            let built = built.clone();
            move || {
                built.fetch_add(1, Ordering::SeqCst);
                Err(BuildError::Cancelled)
            }
        };
        let (dropped, job) = pending_job(counted(&built));
        drop(dropped);
        job();
        assert_eq!(built.load(Ordering::SeqCst), 0);
        let (mut kept, job) = pending_job(counted(&built));
        job();
        assert_eq!(built.load(Ordering::SeqCst), 1);
        assert!(matches!(kept.take_finished(), Some(Err(BuildError::Cancelled))));
    }

    #[test]
    fn a_panicking_build_is_an_error_not_a_lost_job() {
        let mut pending = spawn_build(BuildPriority::Background, PieceKey::Patch, || panic!("broken build"));
        let result = loop {
            if let Some(result) = pending.take_finished() {
                break result;
            }
            std::thread::yield_now();
        };
        assert_eq!(result.unwrap_err(), BuildError::Panicked("broken build".into()));
        assert!(pending.take_finished().is_none(), "taken once");
    }
}
