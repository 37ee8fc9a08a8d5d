#!/usr/bin/env bash
# Runs a command (by default the README's test command) while a busy loop is pinned to every
# core, as on a developer's machine with a compile or a browser running beside the tests: the
# tests must pass there as they do on an idle machine.
#
#   scripts/test_under_load.sh                                   # cargo test --workspace
#   scripts/test_under_load.sh cargo test --test endless         # any other command
#   RUNS=3 scripts/test_under_load.sh                            # three times in a row
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/bevy_noise_terrain/target}"
if [ "$#" -eq 0 ]; then
  set -- cargo test --workspace --locked
fi

hogs=()
stop_hogs() {
  if [ "${#hogs[@]}" -gt 0 ]; then
    kill "${hogs[@]}" 2>/dev/null || true
    wait "${hogs[@]}" 2>/dev/null || true
  fi
}
trap stop_hogs EXIT
for ((core = 0; core < $(nproc); core++)); do
  taskset -c "$core" sh -c 'while :; do :; done' &
  hogs+=("$!")
done
echo "== ${#hogs[@]} busy loops, one per core; running: $*"

for ((run = 1; run <= ${RUNS:-1}; run++)); do
  echo "== run $run of ${RUNS:-1}"
  "$@"
done
