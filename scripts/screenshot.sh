#!/usr/bin/env bash
# Runs an example under Xvfb with Mesa's software Vulkan (lavapipe), lets it settle, saves a
# screenshot with Bevy's screenshot API and exits. No GPU or display needed.
#
#   scripts/screenshot.sh terrain_3d docs/terrain_3d.png [example args...]
#   FEATURES=avian scripts/screenshot.sh physics docs/physics.png
#
# Needs: apt-get install -y --no-install-recommends xvfb xauth mesa-vulkan-drivers libvulkan1 \
#        libxkbcommon-x11-0 libx11-6 libxcursor1 libxrandr2 libxi6
set -euo pipefail
example=$1
out=$(realpath -m "$2")
shift 2
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/bevy_noise_terrain/target}"
mkdir -p "$(dirname "$out")"
cargo build --example "$example" ${FEATURES:+--features "$FEATURES"}

display=":$((90 + RANDOM % 9))"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true' EXIT
sleep 1
runtime=$(mktemp -d)
chmod 700 "$runtime"
rm -f "$out"
DISPLAY=$display XDG_RUNTIME_DIR=$runtime WGPU_BACKEND=vulkan \
  VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json \
  NOISE_TERRAIN_SCREENSHOT="$out" \
  timeout 300 "$CARGO_TARGET_DIR/debug/examples/$example" "$@"
test -s "$out" && echo "wrote $out"
