#!/usr/bin/env bash
# Runs every shell command of the docs (the ```sh blocks of README.md, the crates' READMEs and
# docs/), so that what they tell a person to type works. A command is left out, with the reason
# printed, when it or the comment line above it says "(opens a window)" or "(takes minutes)", or
# when it is the README's test command (CI's own step runs it). `cargo ...` and `scripts/...`
# commands run in the repository; the others (the `noise-terrain` tool) in a scratch folder with
# the repository's `assets/`, so the files they write do not land in the checkout. The tool is
# installed into a scratch root by the docs' own `cargo install` line.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
ln -s "$repo/assets" "$scratch/assets"
export CARGO_INSTALL_ROOT="$scratch/install"
export PATH="$CARGO_INSTALL_ROOT/bin:$PATH"

docs=(README.md crates/*/README.md $(find docs -name '*.md' | sort))
python3 - "${docs[@]}" > "$scratch/commands" <<'PY'
import sys
for path in sys.argv[1:]:
    block, above = False, ""
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if line.startswith("```"):
            block = line == "```sh" and not block
            above = ""
            continue
        if not block or not line.strip():
            continue
        if line.lstrip().startswith("#"):
            above = line
            continue
        print(f"{path}:{n}\x1f{above}\x1f{line}")
        above = ""
PY

ran=0
skipped=0
# Each command once, `cargo install` first, so that the tool is there for the lines that use it.
awk -F'\x1f' '!seen[$3]++' "$scratch/commands" > "$scratch/unique"
awk -F'\x1f' '$3 ~ /^cargo install/' "$scratch/unique" > "$scratch/ordered"
awk -F'\x1f' '$3 !~ /^cargo install/' "$scratch/unique" >> "$scratch/ordered"
while IFS=$'\x1f' read -r where above cmd; do
  if [[ "$cmd $above" == *"(opens a window)"* || "$cmd $above" == *"(takes minutes)"* ]]; then
    echo "-- left out ($where): $cmd"
    skipped=$((skipped + 1))
    continue
  fi
  if [[ "$cmd" == "cargo test --workspace" ]]; then
    echo "-- left out ($where): the README's test command, CI's own step"
    skipped=$((skipped + 1))
    continue
  fi
  echo "== $where: $cmd"
  case "$cmd" in
    cargo*|scripts/*) (cd "$repo" && bash -euo pipefail -c "$cmd") ;;
    *) (cd "$scratch" && bash -euo pipefail -c "$cmd") ;;
  esac
  ran=$((ran + 1))
done < "$scratch/ordered"
echo "doc commands: $ran ran, $skipped left out"
