#!/usr/bin/env bash
# Builds the peers program of ../shared/peers/ (FastNoise2 from source, fastnoise-lite, noise,
# noiz, simdnoise and our core in one binary) with this project's version of its main.rs
# (scripts/peers/main.rs: `ours` takes our grid over instead of copying it, `ours-copy` copies it
# as the shared one does, an optional REPS argument times chunk-sized grids). Prints the binary's
# path last, as the shared build.sh does (its README says what it needs: cmake, a C++17 compiler,
# libclang).
#
#   P=$(scripts/peers.sh | tail -1)
#   taskset -c 0 $P ours gradient 1024 5 g.r32
#   taskset -c 0 $P fn2 gradient 65 5 g.r32 3000
set -euo pipefail
cd "$(dirname "$0")/.."
shared=$(realpath "${PEERS_DIR:-../shared/peers}")
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r "$shared"/. "$copy"/
chmod -R u+w "$copy"
cp scripts/peers/main.rs "$copy/src/main.rs"
bash "$copy/build.sh"
