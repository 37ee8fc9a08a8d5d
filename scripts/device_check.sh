#!/usr/bin/env bash
# The checks that need a CPU with AVX-512, in one short call on such a machine: the core's tests, which run the AVX-512
# kernels themselves there (elsewhere only the same kernels on portable 16-wide lanes, whose bits
# every machine checks; only the hardware can time them); the plugin's chunk path (64 chunks of 129²,
# heights with gradients, criterion's `gradients` bench) at the level measured at start-up and at
# each level pinned, to check the choice; and our grids against FastNoise2 per basis and
# grid size on one core, both libraries alternating within one process (so that both see the same
# moments of a machine whose speed moves), the median of 21 fills at 1024² (the first few fills of
# a process wait on fresh pages while the allocator settles: with 7, the median could be one of
# them; see `docs/performance.md`, "Levels for heights with gradients, and a fairer timer").
#
#   scripts/device_check.sh prepare      # here: release test binaries and the peers program
#                                        # into .device/ (git-ignored; about 40 MB)
#   device run: command "scripts/device_check.sh run", carry [".device"], timeout_s 420
#   scripts/device_check.sh run          # also runs here, on whatever CPU this is
#
# `run` prints the CPU, the tests' results, then one table: FastNoise2's time over ours per basis
# and size (the median of each run's REPS fills; ROUNDS runs per case, default 5, in rounds that
# go through every case, so that all cases see the same moments of a machine whose speed moves),
# and the same ratio of each library's fastest fill (a shared host can run in slower spells of
# tens of milliseconds, which slow our value and gradient rows more than FastNoise2's: see
# docs/performance.md), with the level our grids ran at; then a process's first grid against its
# later ones per basis (`first_grid`: with nothing done first, and with the fresh pages, the level
# and the pool done first). Its log and the raw lines land in $OUT when that is set.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
prepare)
  export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/bevy_noise_terrain/target}
  rm -rf .device
  mkdir -p .device/tests
  # Every test executable of the core, release-built (the same code the grids run).
  cargo test --release -p noise_terrain_core --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, shutil, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["profile"]["test"] and m.get("executable"):
        shutil.copy(m["executable"], ".device/tests/")
        print("test binary:", m["executable"].rsplit("/", 1)[-1])
'
  # The heights-with-gradients bench (criterion), for the chunk path at each level.
  mkdir -p .device/benches
  cargo bench -p noise_terrain_core --bench gradients --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, shutil, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "gradients":
        shutil.copy(m["executable"], ".device/benches/gradients")
'
  cp "$(scripts/peers.sh | tail -1)" .device/peer-export
  # A process's first grid against its later ones (one process per case).
  cargo build -q --release -p noise_terrain_core --example first_grid
  cp "$CARGO_TARGET_DIR/release/examples/first_grid" .device/first_grid
  du -sh .device
  ;;
run)
  out=${OUT:-$(mktemp -d)}
  rounds=${ROUNDS:-5}
  [ -x .device/peer-export ] || { echo "no .device/: run 'scripts/device_check.sh prepare' first" >&2; exit 1; }
  exec > >(tee "$out/device_check.log") 2>&1
  lscpu | grep -E "^(Model name|CPU family|Model|CPU\(s\)):" || true
  { grep -o -w 'avx512[a-z_0-9]*' /proc/cpuinfo || echo "no-avx512"; } | sort -u | tr '\n' ' '
  echo
  # The tests (from the crate's folder, as cargo runs them).
  failed=0
  for t in .device/tests/*; do
    (cd crates/noise_terrain_core && "../../$t" -q 2>&1 | grep -E "^test result|FAILED|panicked") || failed=1
  done
  # The kernels' own tests (ignored by default: they need the level's instructions).
  for t in .device/tests/noise_terrain_core-*; do
    for level in avx2 avx512; do
      feature=$([ "$level" = avx512 ] && echo avx512f || echo avx2)
      grep -q -w "$feature" /proc/cpuinfo || { echo "skipped: the $level kernels' tests (no $feature)"; continue; }
      (cd crates/noise_terrain_core && "../../$t" -q --ignored "::at_${level}" 2>&1 |
        grep -E "^test result|FAILED|panicked") || failed=1
    done
  done
  [ "$failed" = 0 ] && echo "tests: every binary passed" || echo "tests: SOME FAILED"
  cpu=$(($(nproc) > 3 ? 3 : 0))
  # The chunk path at the level measured at start-up ("measured") and at each level pinned.
  for isa in measured $(grep -q avx512f /proc/cpuinfo && echo avx512) avx2 baseline; do
    echo "== heights with gradients, 64 chunks of 129², level $isa"
    (cd crates/noise_terrain_core &&
      if [ "$isa" = measured ]; then unset NOISE_TERRAIN_ISA; else export NOISE_TERRAIN_ISA=$isa; fi &&
      export CRITERION_HOME="$out/criterion" &&
      taskset -c "$cpu" ../../.device/benches/gradients --bench 'chunks_heights_and_gradients/.*_heights_and_gradients' \
        --warm-up-time 0.5 --measurement-time 2 --noplot 2>&1 |
      grep -E "^(Gradient|Value|Simplex): |^gradient_fbm|time:" | grep -v -E "change|p = ") || true
  done
  # The comparison: one core, each case's libraries alternating within each process.
  for r in $(seq "$rounds"); do
    for size in 1024 129 65; do
      reps=$([ "$size" = 1024 ] && echo 21 || { [ "$size" = 129 ] && echo 1000 || echo 3000; })
      for kind in gradient value simplex worley; do
        taskset -c "$cpu" .device/peer-export ours,fn2 "$kind" "$size" 5 /tmp/grid.r32 "$reps" |
          sed "s/^{/{\"size\":$size,\"round\":$r,/"
      done
    done
  done >"$out/peers.jsonl"
  python3 - "$out/peers.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cases = {}
for r in rows:
    cases.setdefault((r["kind"], r["size"], r["round"]), {})[r["lib"]] = r
print("| basis | size | ours ms | FastNoise2 ms | FastNoise2 / ours, each round | median | fastest fills | level |")
print("|---|---|---|---|---|---|---|---|")
for kind in ["gradient", "value", "simplex", "worley"]:
    for size in [1024, 129, 65]:
        runs = [v for (k, s, _), v in sorted(cases.items()) if (k, s) == (kind, size)]
        if not runs:
            continue
        ratios = [r["fn2"]["ms"] / r["ours"]["ms"] for r in runs]
        ours = statistics.median(r["ours"]["ms"] for r in runs)
        fn2 = statistics.median(r["fn2"]["ms"] for r in runs)
        levels = sorted({r["ours"].get("level", "?") for r in runs})
        each = ", ".join(f"{x:.2f}" for x in ratios)
        # Each library's fastest fill (one of a host's quiet spells), the median over rounds.
        fast = statistics.median(r["fn2"].get("fast", r["fn2"]["ms"]) / r["ours"].get("fast", r["ours"]["ms"]) for r in runs)
        print(f"| {kind} | {size}² | {ours:.4g} | {fn2:.4g} | {each} | **{statistics.median(ratios):.2f}x** | {fast:.2f}x | {'/'.join(levels)} |")
PY
  # A process's first grid: with nothing done first, and with the pages, the level and the pool
  # done first (see the example's header and docs/performance.md).
  if [ -x .device/first_grid ]; then
    for kind in gradient value simplex worley; do
      for case in cold all; do taskset -c "$cpu" .device/first_grid "$kind" "$case"; done
    done
  fi
  ;;
*)
  echo "usage: scripts/device_check.sh prepare|run" >&2
  exit 2
  ;;
esac
