#!/usr/bin/env bash
# The library forces no app choices: a game that depends on the plugin alone (no default
# features: a headless server using the terrain for collisions, a Wayland-only desktop) pulls no
# window system and no X11 crates, and the library builds with no default features, with each
# feature alone and with all of them (features are additive). (The inspector's egui integration
# brings winit with it, as bevy_egui does.)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/bevy_noise_terrain/target}"
found=$(cargo tree --locked -p bevy_noise_terrain --no-default-features -e normal,build --prefix none |
  grep -iE '^(winit|bevy_winit|x11|x11rb|x11-dl|wayland-client) ' | sort -u || true)
if [ -n "$found" ]; then
  echo "a headless dependent pulls window or X11 crates:" >&2
  echo "$found" >&2
  exit 1
fi
echo "no winit, no X11 in the plugin's own dependencies (no default features)"
cargo check --locked -p bevy_noise_terrain --lib --no-default-features
for feature in camera serialize inspector avian; do
  cargo check --locked -p bevy_noise_terrain --lib --no-default-features --features "$feature"
done
cargo check --locked -p bevy_noise_terrain --lib --all-features
