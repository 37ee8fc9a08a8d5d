//! Whether the background chunk threads get a core. They run below every normal thread, so
//! while other programs (or the game's own threads) keep every core busy they wait for one
//! indefinitely; the [`workers`](super::workers) then run their builds on the normal threads.
//!
//! Starved means: at the end of a measuring window through which background jobs were queued or
//! running, a background thread is runnable (it has work) but ran for less than half of the
//! window (the kernel's per-thread state and run time, `/proc/self/task/<tid>/stat` and
//! `schedstat`). A thread that merely has no work sleeps, and a build that is slow only because
//! it is large runs all the time, so neither reads as starved. (The kernel's run-queue wait
//! would be the direct figure, but it is only added up when the thread gets to run, so a thread
//! that never runs shows none.) Where this cannot be read (other systems, or a kernel without
//! scheduler statistics), nothing is ever starved, as before.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a window lasts before it is judged.
const WINDOW: Duration = Duration::from_millis(10);

/// How long the threads count as starved after a window judged so, while jobs are outstanding.
const STAYS_STARVED: Duration = Duration::from_millis(250);

/// The share of a window a runnable background thread must run not to count as starved.
const FED_RUN_SHARE: f64 = 0.5;

/// The background threads and the window being measured.
struct Watch {
    /// The background threads' kernel files, opened once: a frame reads each with one system
    /// call (opening, sizing and closing them each frame cost the main thread five more per file).
    threads: Vec<ThreadFiles>,
    /// When the window began, and each thread's total run time then (nanoseconds).
    window: Option<(Instant, Vec<u64>)>,
    /// The end of the last window judged starved.
    last_starved: Option<Instant>,
}

static WATCH: Mutex<Watch> = Mutex::new(Watch { threads: Vec::new(), window: None, last_starved: None });

/// Background jobs queued or running.
static OUTSTANDING: AtomicUsize = AtomicUsize::new(0);

/// The last judgement (read by every build that starts).
static STARVED: AtomicBool = AtomicBool::new(false);

/// Adds the calling thread, a background build thread, to the watch.
#[cfg(target_os = "linux")]
pub(crate) fn watch_this_thread() {
    // SAFETY: `gettid` only returns the calling thread's id.
    let tid = unsafe { libc::gettid() };
    // A thread whose files cannot be opened is not watched (and is never starved).
    if let Some(files) = ThreadFiles::open(tid) {
        WATCH.lock().unwrap_or_else(PoisonError::into_inner).threads.push(files);
    }
}

/// A job was queued on the background threads.
pub(crate) fn submitted() {
    OUTSTANDING.fetch_add(1, Ordering::AcqRel);
}

/// A background job returned (built, found done by another run, or skipped).
pub(crate) fn returned() {
    OUTSTANDING.fetch_sub(1, Ordering::AcqRel);
}

/// Whether the background threads were starved when last [`check`]ed.
pub(crate) fn starved() -> bool {
    STARVED.load(Ordering::Acquire)
}

/// Measures and judges: a window of at least [`WINDOW`] with background jobs outstanding at
/// whose end a background thread is runnable but ran for less than [`FED_RUN_SHARE`] of it
/// makes them starved; no job outstanding makes them not starved (they caught up). Returns the
/// judgement.
pub(crate) fn check() -> bool {
    let mut watch = WATCH.lock().unwrap_or_else(PoisonError::into_inner);
    if OUTSTANDING.load(Ordering::Acquire) == 0 {
        watch.window = None;
        watch.last_starved = None;
        STARVED.store(false, Ordering::Release);
        return false;
    }
    let Some(threads) = watch.threads.iter().map(ThreadFiles::state).collect::<Option<Vec<_>>>() else {
        return starved();
    };
    let now = Instant::now();
    let run: Vec<u64> = threads.iter().map(|t| t.run_ns).collect();
    match &watch.window {
        Some((start, before)) if now.duration_since(*start) >= WINDOW && before.len() == run.len() => {
            let window = now.duration_since(*start).as_nanos() as f64;
            let starved = threads.iter().zip(before).any(|(thread, then)| {
                thread.runnable && (thread.run_ns.saturating_sub(*then) as f64) < FED_RUN_SHARE * window
            });
            if starved {
                watch.last_starved = Some(now);
            }
            // A window fed now and then under a lasting load is a time slice, not the end of it.
            let lately = watch.last_starved.is_some_and(|t| now.duration_since(t) < STAYS_STARVED);
            STARVED.store(starved || lately, Ordering::Release);
            watch.window = Some((now, run));
        }
        Some((_, before)) if before.len() == run.len() => {}
        // The first look, or a thread came since the window began.
        _ => watch.window = Some((now, run)),
    }
    starved()
}

/// What the kernel tells of a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ThreadState {
    /// Running or waiting for a core (not asleep).
    runnable: bool,
    /// Its total time on a core, nanoseconds.
    run_ns: u64,
}

/// A thread's run time and state files (`/proc/self/task/<tid>/schedstat` and `stat`), kept
/// open and read from their start each time (the kernel writes them anew on every read).
struct ThreadFiles {
    #[cfg(target_os = "linux")]
    schedstat: std::fs::File,
    #[cfg(target_os = "linux")]
    stat: std::fs::File,
}

impl ThreadFiles {
    /// The files of thread `tid` of this process; `None` where they cannot be opened.
    #[cfg(target_os = "linux")]
    fn open(tid: i32) -> Option<ThreadFiles> {
        let open = |name: &str| std::fs::File::open(format!("/proc/self/task/{tid}/{name}")).ok();
        Some(ThreadFiles { schedstat: open("schedstat")?, stat: open("stat")? })
    }

    /// The thread's state now; `None` where it cannot be read (the thread ended).
    #[cfg(target_os = "linux")]
    fn state(&self) -> Option<ThreadState> {
        use std::os::unix::fs::FileExt;
        // A line of `stat` is about 300 bytes: the name is at most 64, the 50 numbers after it
        // at most 20 digits each.
        let mut buffer = [0u8; 1536];
        let read = |file: &std::fs::File, buffer: &mut [u8]| -> Option<usize> {
            let n = file.read_at(buffer, 0).ok()?;
            (n > 0 && n < buffer.len()).then_some(n)
        };
        let n = read(&self.schedstat, &mut buffer)?;
        let run_ns = std::str::from_utf8(&buffer[..n]).ok()?.split_whitespace().next()?.parse().ok()?;
        let n = read(&self.stat, &mut buffer)?;
        // The name, in parentheses, may hold spaces and parentheses itself: the state follows
        // the last `)`.
        let close = buffer[..n].iter().rposition(|&b| b == b')')?;
        let state = buffer[close + 1..n].iter().find(|b| !b.is_ascii_whitespace())?;
        Some(ThreadState { runnable: *state == b'R', run_ns })
    }

    /// Other systems tell nothing: nothing is starved.
    #[cfg(not(target_os = "linux"))]
    fn state(&self) -> Option<ThreadState> {
        None
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_calling_threads_state_is_read() {
        // SAFETY: as in `watch_this_thread`.
        let tid = unsafe { libc::gettid() };
        let files = ThreadFiles::open(tid).expect("stat and schedstat readable");
        let first = files.state().expect("stat and schedstat readable");
        assert!(first.runnable, "the thread reading is running");
        let busy = (0..50_000_000u64).fold(0u64, |a, i| std::hint::black_box(a ^ i));
        assert!(files.state().unwrap().run_ns > first.run_ns, "{busy}: the run time grows");
        assert!(ThreadFiles::open(i32::MAX).is_none(), "no such thread");
        // A thread that went: its files read as nothing.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            // SAFETY: as above.
            tx.send(ThreadFiles::open(unsafe { libc::gettid() })).unwrap();
        })
        .join()
        .unwrap();
        let gone = rx.recv().unwrap().expect("its files opened while it ran");
        // `join` returns when the thread has let go of its stack; the kernel releases its task a
        // moment later, and until then the files still read (as runnable). The state is read
        // until it goes (a wait for an event, bounded by a hang guard).
        let start = std::time::Instant::now();
        while gone.state().is_some() {
            assert!(start.elapsed() < Duration::from_secs(60), "an ended thread kept its state");
            std::thread::yield_now();
        }
        // One that sleeps is not runnable.
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (told, opened) = std::sync::mpsc::channel();
        let sleeper = std::thread::spawn(move || {
            // SAFETY: as above.
            told.send(ThreadFiles::open(unsafe { libc::gettid() })).unwrap();
            let _ = rx.recv();
        });
        let sleeping = opened.recv().unwrap().expect("its files");
        // It blocks on the channel at once; the state is read until it shows (a wait for an
        // event, bounded by a hang guard).
        let start = std::time::Instant::now();
        while sleeping.state().expect("it runs").runnable {
            assert!(start.elapsed() < Duration::from_secs(60), "the thread never slept");
            std::thread::yield_now();
        }
        drop(tx);
        sleeper.join().unwrap();
    }
}
