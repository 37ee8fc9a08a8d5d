//! The threads that build terrain pieces, and how they share the CPU with the game
//! ([`BuildPriority`]).
//!
//! Builds run on the plugin's own threads, not on Bevy's task pools: a build's parallel loops
//! (grid rows, normals, erosion) stay on the same threads, chunks leave one core to the main
//! thread, and chunks' threads can be put below the game's in the operating system's
//! scheduler. On a machine with few cores, builds on Bevy's async pool fanned out to
//! every core through the core crate's parallel loops, and a frame's systems waited for a core
//! whenever they woke up.
//!
//! Each pool takes its waiting builds nearest first, not in the order they were started: a
//! flight starts bursts of far pieces, and a near piece started a frame later should not wait
//! behind them.
//!
//! Background chunk threads run below every normal thread, so that a frame's threads take a
//! core from them at once; while other programs keep the cores busy, that would starve them
//! for good, so the `starvation` watch follows them, and a starved build is run
//! again on the normal threads (whichever run finishes first is kept).

use std::collections::BinaryHeap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError, Weak};
use std::time::{Duration, Instant};

use bevy::prelude::*;

use crate::build::{BuildError, PieceBuild, PieceKey};
use crate::pieces::starvation;

/// How the threads that build chunks (the endless layout's pieces) share the CPU with the
/// game's threads. A resource: jobs started after a change run at the new priority. (The
/// patch is one piece a slider drag waits for: it is built on every core at normal priority,
/// except [`InFrame`](Self::InFrame).)
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default)]
pub enum BuildPriority {
    /// Below every thread of normal priority: chunks are built in the time the game leaves
    /// idle, and a game thread that wakes up takes the core at once. Should other programs (or
    /// the game's own threads) keep every core busy, so that the chunk threads wait for a core
    /// most of the time, the waiting builds are run again at normal priority and new ones start
    /// there, until the background threads run again: the terrain keeps streaming on a busy
    /// machine. On Linux the threads run under `SCHED_IDLE`; on other systems this is
    /// [`Normal`](Self::Normal).
    #[default]
    Background,
    /// The same priority as the game's threads: chunks are built sooner while the cores are
    /// busy, and frames may wait for a build's time slice.
    Normal,
    /// No build threads: every piece whose build starts in a frame is built in that frame, on
    /// the thread that runs the plugin's systems (its parallel loops still use every core), and
    /// lands in the next frame. What a frame shows is then a function of the frames before it
    /// alone, the same on every machine however fast or busy: for tests, replays and tools
    /// that step an app by hand. Frames wait for every build (up to
    /// [`MAX_JOBS_IN_FLIGHT`](crate::pieces::MAX_JOBS_IN_FLIGHT) a terrain per frame), so a
    /// game that shows its frames should not use it.
    InFrame,
}

/// A build and what became of it, shared by the workers that may run it: the background
/// thread it was started on and, if that one starves, a normal one. The first run to finish
/// keeps its result.
struct BuildTask {
    build: Box<dyn Fn() -> Result<PieceBuild, BuildError> + Send + Sync>,
    /// The piece's distance from the nearest focus when it was started (the workers take the
    /// nearest waiting build first).
    distance: f64,
    result: Mutex<Option<Result<PieceBuild, BuildError>>>,
    /// A run has stored its result (later runs drop theirs).
    done: AtomicBool,
    /// A second run, on the normal workers, was started.
    rescued: AtomicBool,
}

impl BuildTask {
    /// A task for `build` of a piece `distance` from the focus, not yet run.
    fn new(
        distance: f64,
        build: impl Fn() -> Result<PieceBuild, BuildError> + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            build: Box::new(build),
            distance,
            result: Mutex::new(None),
            done: AtomicBool::new(false),
            rescued: AtomicBool::new(false),
        })
    }

    /// Runs the build unless it is done; the first result is kept. A panic in it becomes
    /// [`BuildError::Panicked`].
    fn run(&self) {
        if self.done.load(Ordering::Acquire) {
            return;
        }
        let result = catch_unwind(AssertUnwindSafe(|| (self.build)())).unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(BuildError::Panicked(message))
        });
        let mut slot = self.result.lock().unwrap_or_else(PoisonError::into_inner);
        if !self.done.swap(true, Ordering::AcqRel) {
            *slot = Some(result);
        }
    }
}

/// A build running on the workers; its result once it is done. Dropped before the build
/// starts, the build does not run.
pub(crate) struct PendingBuild(Arc<BuildTask>);

impl std::fmt::Debug for PendingBuild {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingBuild").field("done", &self.0.done.load(Ordering::Relaxed)).finish()
    }
}

impl PendingBuild {
    /// The result, once (`None` while it runs, and after it was taken).
    pub fn take_finished(&mut self) -> Option<Result<PieceBuild, BuildError>> {
        self.0.result.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// What [`spawn_build`] builds, and where it queues.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BuildOrder {
    /// The piece.
    pub key: PieceKey,
    /// A chunk that routes the endless rivers' regions it needs before it is built.
    pub routes_rivers: bool,
    /// Its distance from the nearest focus, world units: of the builds waiting for a worker,
    /// the nearest runs first (of equal ones, the first started).
    pub distance: f64,
}

#[cfg(test)]
impl BuildOrder {
    /// `key`'s build, routing nothing, at distance 0.
    pub fn of(key: PieceKey) -> Self {
        Self { key, routes_rivers: false, distance: 0.0 }
    }
}

/// Runs the build `order` names: a chunk's on the workers of `priority` (one that routes rivers'
/// regions on the thread for those, at that priority), the patch's on its own. The build may run
/// twice at once (a starved background run and its rescue), so it is `Fn`. A panic in it becomes
/// [`BuildError::Panicked`] (the piece keeps what it shows).
pub(crate) fn spawn_build(
    priority: BuildPriority,
    order: BuildOrder,
    build: impl Fn() -> Result<PieceBuild, BuildError> + Send + Sync + 'static,
) -> PendingBuild {
    let task = BuildTask::new(order.distance, build);
    let workers = Workers::for_piece(priority, order.key)
        .map(|w| if order.routes_rivers { w.routing_rivers() } else { w });
    match workers.and_then(|workers| pool(workers).map(|pool| (workers, pool))) {
        Some((workers, pool)) => {
            queue_on(pool, workers, &task);
            if workers.is_background() {
                starvation::submitted();
                if starvation::starved() {
                    // Run at once on the normal workers too: the background run still starts
                    // (and is skipped once the other finished), so that the watch sees when
                    // the background threads are fed again.
                    rescue(&task);
                } else {
                    let mut builds = BACKGROUND_BUILDS.lock().unwrap_or_else(PoisonError::into_inner);
                    builds.retain(|b| b.upgrade().is_some_and(|b| !b.done.load(Ordering::Acquire)));
                    builds.push(Arc::downgrade(&task));
                }
            }
        }
        // In the frame, or no thread could be started: build on the caller's thread.
        None => {
            task.run();
            FINISHED.tell();
        }
    }
    PendingBuild(task)
}

/// Runs `task` on the normal chunk workers as well, unless it is done or was rescued before.
fn rescue(task: &Arc<BuildTask>) {
    if task.done.load(Ordering::Acquire) || task.rescued.swap(true, Ordering::AcqRel) {
        return;
    }
    match pool(Workers::Chunks) {
        Some(pool) => queue_on(pool, Workers::Chunks, task),
        None => task.rescued.store(false, Ordering::Release),
    }
}

/// Queues `task` for the workers of `pool`, and hands them a job that runs the nearest waiting
/// build (one job per queued build, so every build is taken up).
fn queue_on(pool: &rayon::ThreadPool, workers: Workers, task: &Arc<BuildTask>) {
    QUEUES[workers as usize].push(task);
    pool.spawn(move || {
        if let Some(task) = QUEUES[workers as usize].take_nearest() {
            task.run();
        }
        if workers.is_background() {
            starvation::returned();
        }
        FINISHED.tell();
    });
}

/// A build waiting for a worker: a [`BuildQueue`]'s entry.
struct Waiting {
    distance: f64,
    /// When it was queued (of equal distances, the first queued runs first).
    order: u64,
    task: Weak<BuildTask>,
}

impl Waiting {
    /// Whether `self` runs before `other`.
    fn before(&self, other: &Self) -> std::cmp::Ordering {
        self.distance.total_cmp(&other.distance).then(self.order.cmp(&other.order))
    }
}

impl Ord for Waiting {
    /// The heap's greatest is the build that runs first.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.before(self)
    }
}

impl PartialOrd for Waiting {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Waiting {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Waiting {}

/// The builds waiting for one pool's workers, nearest first.
struct BuildQueue(Mutex<BinaryHeap<Waiting>>);

impl BuildQueue {
    const fn new() -> Self {
        Self(Mutex::new(BinaryHeap::new()))
    }

    fn push(&self, task: &Arc<BuildTask>) {
        static QUEUED: AtomicU64 = AtomicU64::new(0);
        let order = QUEUED.fetch_add(1, Ordering::Relaxed);
        let waiting = Waiting { distance: task.distance, order, task: Arc::downgrade(task) };
        self.0.lock().unwrap_or_else(PoisonError::into_inner).push(waiting);
    }

    /// The nearest waiting build that still needs a run: not dropped (its piece despawned
    /// before a worker took it up) and not finished by another run; `None` if none is left.
    fn take_nearest(&self) -> Option<Arc<BuildTask>> {
        let mut queue = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        std::iter::from_fn(|| queue.pop())
            .find_map(|waiting| waiting.task.upgrade().filter(|task| !task.done.load(Ordering::Acquire)))
    }
}

/// Each pool's waiting builds (indexed by [`Workers`]).
static QUEUES: [BuildQueue; 5] = [const { BuildQueue::new() }; 5];

/// The builds started on the background threads that may still need a rescue.
static BACKGROUND_BUILDS: Mutex<Vec<Weak<BuildTask>>> = Mutex::new(Vec::new());

/// Runs again on the normal chunk workers every background build that has not finished, if
/// the background threads are starved (see [`starvation`]); the plugin calls it once a frame.
pub(crate) fn rescue_starved_builds() {
    if !starvation::check() {
        return;
    }
    let builds = std::mem::take(&mut *BACKGROUND_BUILDS.lock().unwrap_or_else(PoisonError::into_inner));
    builds.iter().filter_map(Weak::upgrade).for_each(|task| rescue(&task));
}

/// Drops `garbage` on the chunk workers of `priority` instead of the calling thread: freeing
/// large meshes is work a frame need not wait for (in the frame, or where no worker could
/// start, it is dropped here).
pub(crate) fn drop_on_workers(priority: BuildPriority, garbage: impl Send + 'static) {
    match Workers::chunks(priority).map(Workers::unless_starved).and_then(pool) {
        Some(pool) => pool.spawn(move || drop(garbage)),
        None => drop(garbage),
    }
}

/// Counts the builds that finished in this process and wakes whoever waits for one.
struct FinishedBuilds {
    count: Mutex<u64>,
    changed: Condvar,
}

impl FinishedBuilds {
    fn tell(&self) {
        *self.count.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        self.changed.notify_all();
    }
}

static FINISHED: FinishedBuilds = FinishedBuilds { count: Mutex::new(0), changed: Condvar::new() };

/// How many piece builds have finished in this process so far (every app's, at every
/// priority), whatever became of them (one whose piece went before it started counts too). With [`wait_for_builds_after`], code that steps an app
/// by hand (a test, a tool, a server without frame pacing) waits for builds instead of
/// spinning frames or sleeping: read the count, run an update, and if a terrain still has
/// pieces building, wait until the count passes what was read.
pub fn builds_finished() -> u64 {
    *FINISHED.count.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Blocks until more than `seen` piece builds have finished in this process (see
/// [`builds_finished`]), and returns the new count; `None` if `limit` passed first.
pub fn wait_for_builds_after(seen: u64, limit: Duration) -> Option<u64> {
    let deadline = Instant::now() + limit;
    let mut count = FINISHED.count.lock().unwrap_or_else(PoisonError::into_inner);
    while *count <= seen {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        count = FINISHED.changed.wait_timeout(count, left).unwrap_or_else(PoisonError::into_inner).0;
    }
    Some(*count)
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
    /// Chunks at [`BuildPriority::Background`] that first route the endless rivers' regions
    /// they need: on a thread of their own, so that the chunks whose regions are routed (the
    /// nearest, as a rule: the far chunks at the view's edge routed them) do not wait behind a
    /// region's routing.
    BackgroundRivers,
    /// The same at [`BuildPriority::Normal`].
    Rivers,
}

impl Workers {
    /// The workers that build `key` at `priority` (`None`: in the frame).
    fn for_piece(priority: BuildPriority, key: PieceKey) -> Option<Self> {
        match (priority, key) {
            (BuildPriority::InFrame, _) => None,
            (BuildPriority::Background | BuildPriority::Normal, PieceKey::Patch) => Some(Self::Patch),
            (_, PieceKey::Chunk(_)) => Self::chunks(priority),
        }
    }

    /// These workers, or the normal ones in place of starved background ones (new work does
    /// not join the wait).
    fn unless_starved(self) -> Self {
        match self {
            Self::BackgroundChunks if starvation::starved() => Self::Chunks,
            Self::BackgroundRivers if starvation::starved() => Self::Rivers,
            Self::BackgroundChunks | Self::Chunks | Self::Patch | Self::BackgroundRivers | Self::Rivers => {
                self
            }
        }
    }

    /// The workers for a chunk that routes rivers' regions first, at this one's priority.
    fn routing_rivers(self) -> Self {
        match self {
            Self::BackgroundChunks | Self::BackgroundRivers => Self::BackgroundRivers,
            Self::Chunks | Self::Rivers => Self::Rivers,
            Self::Patch => Self::Patch,
        }
    }

    /// Whether these threads run below the normal ones (and the starvation watch follows
    /// their builds).
    fn is_background(self) -> bool {
        match self {
            Self::BackgroundChunks | Self::BackgroundRivers => true,
            Self::Chunks | Self::Patch | Self::Rivers => false,
        }
    }

    /// The workers of chunks at `priority` (`None`: in the frame).
    fn chunks(priority: BuildPriority) -> Option<Self> {
        match priority {
            BuildPriority::Background => Some(Self::BackgroundChunks),
            BuildPriority::Normal => Some(Self::Chunks),
            BuildPriority::InFrame => None,
        }
    }

    /// Chunks get one thread fewer than the cores, at least one: the core left over is the
    /// main thread's. With chunk builds on every core a frame's systems wait for a core
    /// whenever they wake up, even below a background priority (measured on two cores:
    /// `docs/performance.md`, "Scatter while streaming").
    fn threads(self) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        match self {
            Self::BackgroundChunks | Self::Chunks => cores.saturating_sub(1).max(1),
            Self::Patch => cores,
            Self::BackgroundRivers | Self::Rivers => 1,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::BackgroundChunks => "terrain chunks (background)",
            Self::Chunks => "terrain chunks",
            Self::Patch => "terrain patch",
            Self::BackgroundRivers => "terrain rivers (background)",
            Self::Rivers => "terrain rivers",
        }
    }
}

/// The process's pool of `workers`, made on first use (every app in the process shares it);
/// `None` if its threads could not be started.
fn pool(workers: Workers) -> Option<&'static rayon::ThreadPool> {
    static POOLS: [OnceLock<Option<rayon::ThreadPool>>; 5] = [const { OnceLock::new() }; 5];
    POOLS[workers as usize]
        .get_or_init(|| {
            let name = workers.name();
            let builder = rayon::ThreadPoolBuilder::new()
                .num_threads(workers.threads())
                .thread_name(move |i| format!("{name} {i}"));
            let builder = match workers {
                Workers::BackgroundChunks | Workers::BackgroundRivers => {
                    builder.start_handler(|_| lower_this_thread())
                }
                Workers::Chunks | Workers::Patch | Workers::Rivers => builder,
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

/// Puts the calling thread below every thread of normal priority (`SCHED_IDLE`), and has the
/// starvation watch follow it.
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
    starvation::watch_this_thread();
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

    /// With every core kept busy by threads of normal priority, a background build waits for a
    /// core all but for good: the watch sees it starve, and the build is run again on the
    /// normal threads. The background run cannot finish before that (it stays busy until a run
    /// on a normal thread has started), so the build finishing at all shows the rescue, whichever
    /// run the scheduler lets finish first on a machine that other programs keep busy too.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_starved_background_build_is_run_again_at_normal_priority() {
        let stop = Arc::new(AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let hogs: Vec<_> = (0..cores)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        let key = PieceKey::Chunk(noise_terrain_core::ChunkKey { level: 0, x: 7, z: 7 });
        let rescued = Arc::new(AtomicBool::new(false));
        let ran_on = Arc::new(Mutex::new(Vec::new()));
        let (rescued_by_build, ran_on_by_build) = (rescued.clone(), ran_on.clone());
        let mut pending = spawn_build(BuildPriority::Background, BuildOrder::of(key), move || {
            let thread = std::thread::current().name().unwrap_or_default().to_string();
            ran_on_by_build.lock().unwrap().push(thread.clone());
            if thread.starts_with(Workers::BackgroundChunks.name()) {
                // Runnable, so starved by the busy cores, until the build runs elsewhere.
                while !rescued_by_build.load(Ordering::Acquire) {
                    std::hint::spin_loop();
                }
            } else {
                rescued_by_build.store(true, Ordering::Release);
            }
            Err(BuildError::Panicked(thread))
        });
        let start = Instant::now();
        let result = loop {
            let seen = builds_finished();
            rescue_starved_builds();
            if let Some(result) = pending.take_finished() {
                break result;
            }
            // Only a build that is never run again would reach this.
            assert!(start.elapsed() < Duration::from_secs(120), "the starved build was not run again");
            // The watch judges over a window of time: look again after a while or a build.
            wait_for_builds_after(seen, Duration::from_millis(5));
        };
        stop.store(true, Ordering::Relaxed);
        hogs.into_iter().for_each(|hog| hog.join().unwrap());
        assert!(matches!(result, Err(BuildError::Panicked(_))), "{result:?}");
        let ran_on = ran_on.lock().unwrap().clone();
        let normal = |name: &String| {
            name.starts_with(Workers::Chunks.name()) && !name.starts_with(Workers::BackgroundChunks.name())
        };
        assert!(ran_on.iter().any(normal), "ran on {ran_on:?}");
        assert!(ran_on[0].starts_with(Workers::BackgroundChunks.name()), "first ran on {ran_on:?}");
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
        for priority in [BuildPriority::Background, BuildPriority::Normal, BuildPriority::InFrame] {
            let (tx, rx) = std::sync::mpsc::channel();
            drop_on_workers(priority, vec![Tells(tx)]);
            let thread = rx.recv().expect("dropped");
            let thread = thread.unwrap_or_default();
            match priority {
                // On the background threads, or on the normal ones while those starve (another
                // test may be starving them now).
                BuildPriority::Background => assert!(thread.starts_with(Workers::Chunks.name()), "{thread}"),
                BuildPriority::Normal => assert!(
                    thread.starts_with(Workers::Chunks.name())
                        && !thread.starts_with(Workers::BackgroundChunks.name()),
                    "{thread}"
                ),
                BuildPriority::InFrame => {
                    assert_eq!(Some(thread.as_str()), std::thread::current().name(), "dropped in place")
                }
            }
        }
    }

    /// In the frame, a build has run when `spawn_build` returns, on the calling thread.
    #[test]
    fn an_in_frame_build_is_done_on_return() {
        for key in [PieceKey::Patch, PieceKey::Chunk(noise_terrain_core::ChunkKey { level: 0, x: 1, z: 2 })] {
            let caller = std::thread::current().id();
            let mut pending = spawn_build(BuildPriority::InFrame, BuildOrder::of(key), move || {
                assert_eq!(std::thread::current().id(), caller);
                Err(BuildError::Cancelled)
            });
            assert!(matches!(pending.take_finished(), Some(Err(BuildError::Cancelled))), "{key:?}");
        }
    }

    /// A build whose piece went before a worker took it up does not run, one that another run
    /// finished is not run again, and of the rest the nearest runs first (of equal distances,
    /// the first queued).
    #[test]
    fn the_nearest_build_that_needs_a_run_is_taken_first() {
        let ran = Arc::new(Mutex::new(Vec::new()));
        let task = |distance: f64| {
            let ran = ran.clone();
            BuildTask::new(distance, move || {
                ran.lock().unwrap().push(distance);
                Err(BuildError::Cancelled)
            })
        };
        let queue = BuildQueue::new();
        let far = task(300.0);
        let near = task(10.0);
        let near_too = task(10.0);
        let dropped = task(1.0);
        let done = task(2.0);
        done.run();
        for t in [&far, &dropped, &near, &done, &near_too] {
            queue.push(t);
        }
        drop(dropped);
        let mut taken = Vec::new();
        while let Some(t) = queue.take_nearest() {
            t.run();
            taken.push(Arc::as_ptr(&t));
        }
        assert_eq!(taken, [Arc::as_ptr(&near), Arc::as_ptr(&near_too), Arc::as_ptr(&far)]);
        assert_eq!(*ran.lock().unwrap(), [2.0, 10.0, 10.0, 300.0], "each ran once");
        // A rescue queues a build again; once one run finished it, the other finds nothing.
        queue.push(&far);
        assert!(queue.take_nearest().is_none());
    }

    /// Of two runs at once, the first to finish is kept and the other's result dropped.
    #[test]
    fn the_first_of_two_runs_to_finish_is_kept() {
        let (entered, has_entered) = std::sync::mpsc::channel::<()>();
        let (release, released) = std::sync::mpsc::channel::<()>();
        let released = Mutex::new(released);
        let first = AtomicBool::new(true);
        let racing = BuildTask::new(0.0, move || {
            if first.swap(false, Ordering::SeqCst) {
                // The first run to start is held until the other has finished.
                entered.send(()).unwrap();
                released.lock().unwrap().recv().unwrap();
                Err(BuildError::Panicked("slow".into()))
            } else {
                Err(BuildError::Cancelled)
            }
        });
        let slow = racing.clone();
        let slow = std::thread::spawn(move || slow.run());
        has_entered.recv().unwrap();
        racing.run();
        release.send(()).unwrap();
        slow.join().unwrap();
        let mut pending = PendingBuild(racing);
        assert!(matches!(pending.take_finished(), Some(Err(BuildError::Cancelled))));
        assert!(pending.take_finished().is_none(), "the slow result was dropped");
    }

    /// A waiter wakes once a build finishes after the count it read (other tests' builds may
    /// wake it too: it looks again), and a wait for a count no build reaches ends at its limit.
    #[test]
    fn waiting_for_a_build_ends_when_one_finishes() {
        let (start, started) = std::sync::mpsc::channel::<()>();
        let started = Mutex::new(started);
        let mut pending = spawn_build(BuildPriority::Normal, BuildOrder::of(PieceKey::Patch), move || {
            started.lock().unwrap().recv().ok();
            Err(BuildError::Cancelled)
        });
        // Read before looking: a build that lands after the look moves the count past it.
        let mut seen = builds_finished();
        assert!(pending.take_finished().is_none(), "the build waits for its start");
        start.send(()).unwrap();
        let result = loop {
            if let Some(result) = pending.take_finished() {
                break result;
            }
            let count = wait_for_builds_after(seen, Duration::from_secs(600)).expect("a build finished");
            assert!(count > seen);
            seen = count;
        };
        assert!(matches!(result, Err(BuildError::Cancelled)));
        assert_eq!(wait_for_builds_after(u64::MAX, Duration::from_millis(1)), None);
    }

    #[test]
    fn a_panicking_build_is_an_error_not_a_lost_job() {
        let mut pending = spawn_build(BuildPriority::Background, BuildOrder::of(PieceKey::Patch), || {
            panic!("broken build")
        });
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
