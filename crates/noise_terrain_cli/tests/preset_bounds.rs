//! `--preset` from inputs that never end or report no size: a device, a FIFO written endlessly, an
//! empty FIFO closed at once, a file that grows while it is read. Each is refused promptly with
//! exit code 2 and a message that names the file and the limit, and the tool's peak memory stays
//! small (the children's peak resident set, from `getrusage`; this file holds one test so that no
//! other child counts).

#![cfg(unix)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a run may take before it counts as a hang (a refusal takes milliseconds; the bound
/// only keeps a tool that reads without end from hanging the test).
const HANG: Duration = Duration::from_secs(120);

/// The tool with `--preset path`, run to its end: its output and how long it took. A run that
/// does not end within [`HANG`] is killed and fails the test.
fn heightmap_from(preset: &Path, out: &Path) -> (Output, Duration) {
    let start = Instant::now();
    let child = Command::new(assert_cmd::cargo::cargo_bin("noise-terrain"))
        .args(["heightmap", "--size", "64", "--preset"])
        .arg(preset)
        .arg("--out")
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let (ended, output) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || ended.send(child.wait_with_output()).unwrap());
    let Ok(output) = output.recv_timeout(HANG) else {
        // SAFETY: `kill` only sends a signal, and touches no memory of ours. The child had not
        // been reaped when the wait ran out, so `pid` is still its own (unless it ended in the
        // instant since, when the test fails all the same).
        unsafe { libc::kill(pid, libc::SIGKILL) };
        panic!("the tool did not end within {HANG:?} on {}", preset.display());
    };
    waiter.join().unwrap();
    (output.unwrap(), start.elapsed())
}

/// The largest resident set of any child waited for so far, in bytes.
fn children_peak_bytes() -> u64 {
    // SAFETY: `getrusage` only writes the `rusage` it is given, which is zeroed plain data.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage), 0);
        usage
    };
    // Linux reports kilobytes.
    usage.ru_maxrss as u64 * 1024
}

fn fifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
}

fn refused(what: &str, preset: &Path, out: &Path, expected: &str) {
    let (output, took) = heightmap_from(preset, out);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{what}: {stderr}");
    assert!(stderr.contains(&preset.display().to_string()) && stderr.contains(expected), "{what}: {stderr}");
    assert!(!out.exists(), "{what}: an output was written");
    println!("{what}: refused in {took:?}");
}

#[test]
fn endless_and_sizeless_presets_are_refused_promptly_in_little_memory() {
    let dir = std::env::temp_dir().join(format!("noise_terrain_cli_bounds_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("map.png");
    let limit = "more than 1048576 bytes is too large for a preset (at most 1048576 bytes)";

    // A normal run first: the peak that a map of this size takes anyway.
    let small = dir.join("small.ron");
    std::fs::write(&small, "(water_level: 0.3)").unwrap();
    let (ok, _) = heightmap_from(&small, &out);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    std::fs::remove_file(&out).unwrap();
    let baseline = children_peak_bytes();

    refused("/dev/zero", Path::new("/dev/zero"), &out, limit);

    // A FIFO that a thread writes into without end (until the reader goes away).
    let endless = dir.join("endless.ron");
    fifo(&endless);
    let writer = {
        let endless = endless.clone();
        std::thread::spawn(move || {
            let mut pipe = std::fs::OpenOptions::new().write(true).open(endless).unwrap();
            let block = vec![b' '; 64 * 1024];
            while pipe.write_all(&block).is_ok() {}
        })
    };
    refused("an endless FIFO", &endless, &out, limit);
    writer.join().unwrap();

    // An empty FIFO, closed as soon as it is opened.
    let empty = dir.join("empty.ron");
    fifo(&empty);
    let closer = {
        let empty = empty.clone();
        std::thread::spawn(move || drop(std::fs::OpenOptions::new().write(true).open(empty).unwrap()))
    };
    refused("an empty FIFO", &empty, &out, "the file is empty");
    closer.join().unwrap();

    // A regular file that grows while it is read: 64 KiB at a time up to 4 MiB, the tool started
    // once a quarter of a megabyte is there. Whether the tool's read catches up with the end (a
    // cut-off preset that does not parse) or runs past the limit, it is refused.
    let growing = dir.join("growing.ron");
    std::fs::write(&growing, "(").unwrap();
    let grower = {
        let growing = growing.clone();
        std::thread::spawn(move || {
            let mut file = std::fs::OpenOptions::new().append(true).open(growing).unwrap();
            let block = vec![b' '; 64 * 1024];
            for _ in 0..64 {
                file.write_all(&block).unwrap();
                std::thread::sleep(Duration::from_micros(200));
            }
        })
    };
    while std::fs::metadata(&growing).unwrap().len() < 256 * 1024 {
        std::thread::yield_now();
    }
    let (output, took) = heightmap_from(&growing, &out);
    grower.join().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "growing: {stderr}");
    let too_large = stderr.contains("is too large for a preset (at most 1048576 bytes)");
    assert!(
        stderr.contains("growing.ron") && (too_large || stderr.contains("not a terrain preset")),
        "{stderr}"
    );
    println!(
        "a growing file: refused in {took:?} ({})",
        if too_large { "past the limit" } else { "cut off" }
    );

    // Every refusal held at most the limit, a read buffer and the map's own needs.
    let peak = children_peak_bytes();
    println!("peak resident set of the tool: {} KiB (a 64² map: {} KiB)", peak >> 10, baseline >> 10);
    assert!(peak <= baseline + (4 << 20), "peak {peak} bytes against {baseline} for a normal run");
    std::fs::remove_dir_all(dir).unwrap();
}
