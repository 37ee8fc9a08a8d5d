//! Writes the copy of the AVX-512 kernels that the tests run on every x86-64 CPU
//! (`src/grid/avx512_emulated/mod.rs` says why and how); no other build step.

use std::path::Path;

/// The kernels' source.
const KERNELS: &str = "src/grid/avx512.rs";

fn main() {
    println!("cargo::rerun-if-changed={KERNELS}");
    let source = std::fs::read_to_string(KERNELS).expect("the AVX-512 kernels' source");
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("avx512_emulated.rs");
    std::fs::write(out, emulated(&source)).expect("OUT_DIR is writable");
}

/// `source` with every line that must change for the portable lanes changed; panics where one
/// the copy depends on is missing, so that a change to the kernels' source cannot leave the copy
/// silently running something else.
fn emulated(source: &str) -> String {
    let mut changed = [0usize; 4];
    let lines = source.lines().filter_map(|line| {
        let trimmed = line.trim();
        if trimmed.starts_with("//!") {
            // Inner docs cannot stand inside `include!`.
            return None;
        }
        if trimmed == "#[target_feature(enable = \"avx512f\")]" {
            changed[0] += 1;
            return None;
        }
        if trimmed == "use std::arch::x86_64::*;" {
            changed[1] += 1;
            return Some("use super::lanes::*;".to_string());
        }
        if trimmed.starts_with("#[ignore = \"needs AVX-512F") {
            // The copy's tests run on every CPU.
            changed[3] += 1;
            return None;
        }
        if line.contains("std::arch::is_x86_feature_detected!(\"avx512f\")") {
            changed[2] += 1;
            return Some(line.replace("std::arch::is_x86_feature_detected!(\"avx512f\")", "true"));
        }
        Some(line.to_string())
    });
    let copy: Vec<String> = lines.collect();
    assert!(
        changed.iter().all(|&n| n > 0),
        "{KERNELS} no longer has the lines the emulated copy rewrites: {changed:?}"
    );
    copy.join("\n") + "\n"
}
