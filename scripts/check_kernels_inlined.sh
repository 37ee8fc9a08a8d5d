#!/usr/bin/env bash
# The SIMD kernels (crates/noise_terrain_core/src/grid/kernels/) are generic over lanes whose
# operations inline only into a function compiled with the level's target features: a closure
# or helper that is not `#[inline(always)]` compiles apart, without them, and calls each
# intrinsic as a function (correct bits, several times slower). This fails if the release
# library calls any `core::arch` intrinsic instead of inlining it.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/bevy_noise_terrain/target}"
if ! command -v objdump >/dev/null; then
  echo "skipped: no objdump (binutils) to read the library with"
  exit 0
fi
cargo build --locked --release -p noise_terrain_core --message-format=json-render-diagnostics \
  > "$CARGO_TARGET_DIR/kernels-inlined.json"
rlib=$(grep -o '"filenames":\["[^"]*libnoise_terrain_core[^"]*\.rlib"' "$CARGO_TARGET_DIR/kernels-inlined.json" |
  head -1 | sed 's/.*\["//; s/"$//')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && ar x "$rlib")
calls=$(objdump -dr --no-show-raw-insn -C "$work"/*.o | grep -c 'R_X86_64_\(PLT32\|PC32\|GOTPCREL\).*core_arch' || true)
if [ "$calls" != 0 ]; then
  echo "the release library calls $calls intrinsics instead of inlining them:"
  objdump -dr --no-show-raw-insn -C "$work"/*.o |
    awk '/^[0-9a-f]+ <.*>:$/ {fn=$0} /R_X86_64_(PLT32|PC32|GOTPCREL).*core_arch/ {print fn " -> " $NF}' | sort | uniq -c | head -20
  exit 1
fi
echo "every intrinsic of the release library is inlined"
