#!/usr/bin/env bash
# The SIMD kernels' own tests (crates/noise_terrain_core/src/grid/kernels/tests.rs) on the real
# instructions, for each level this CPU has. They are ignored in a plain `cargo test` (a CPU
# without the level cannot run them, and a test that returned early would read "ok"); the
# portable lanes run the same kernels on every CPU. Says which levels it skipped and why.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/bevy_noise_terrain/target}"
for level in avx2 avx512; do
  feature=$([ "$level" = avx512 ] && echo avx512f || echo avx2)
  if grep -q -w "$feature" /proc/cpuinfo 2>/dev/null; then
    cargo test --locked -p noise_terrain_core --lib -- --ignored "::at_${level}"
  else
    echo "skipped: the kernels' tests with ${level} lanes (this CPU lacks ${feature})"
  fi
done
