#!/usr/bin/env python3
"""Prints the performance table: our grids against peer crates, measured in the same run.

    cargo bench -p noise_terrain_core --bench fbm_2d --bench peers --bench surface --bench grid_sizes --bench gradients && scripts/bench_table.py

Reads criterion's estimates from $CARGO_TARGET_DIR/criterion (default: the project's cache dir).
"""
import json
import os
import platform
import datetime

target = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/bevy_noise_terrain/target"))
root = os.path.join(target, "criterion")
SAMPLES = 1024 * 1024


def mean_ms(group, name):
    """Median time of one benchmark in milliseconds (robust to the noise of a shared machine), or
    None if it was not run."""
    path = os.path.join(root, group, name, "new", "estimates.json")
    if not os.path.exists(path):
        return None
    return json.load(open(path))["median"]["point_estimate"] / 1e6


def msps(group, name):
    """Million samples per second of one 1024x1024 benchmark (from the median time), or None."""
    return msps_of(group, name, SAMPLES)


def msps_of(group, name, samples):
    """Million samples per second of one benchmark of `samples` samples, or None."""
    ms = mean_ms(group, name)
    return samples / ms / 1e3 if ms else None


rows = [
    # basis, group, peers, target ratio against the fastest peer, and the multiple of
    # fastnoise-lite that means 1.25x FastNoise2 (issue 18: FastNoise2 cannot be built here)
    ("gradient (Perlin)", "fbm_2d_gradient_1024", ["noise", "fastnoise-lite"], 8.0, "each peer", 8.7),
    ("value", "value_fbm_1024", ["noise", "fastnoise-lite"], 4.0, "fastest peer", 8.5),
    ("simplex", "simplex_fbm_1024", ["simdnoise", "fastnoise-lite"], 1.5, "simdnoise", 10.2),
    ("Worley F1", "worley_fbm_1024", ["noise", "fastnoise-lite"], 4.0, "fastest peer", None),
    ("Worley F1, jitter 1", "worley_jitter_1_fbm_1024", ["fastnoise-lite"], 4.0, "fastest peer", 8.1),
]
cpu = "unknown CPU"
try:
    cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
except (OSError, StopIteration):
    pass
print(f"fBm, 5 octaves, 1024x1024, one thread; {datetime.date.today()}, {cpu}, {os.cpu_count()} cores, {platform.system()}")
print()
print("| basis | ours (M/s) | peers (M/s) | ratio | target | vs fastnoise-lite (1.25x FastNoise2) |")
print("|---|---|---|---|---|---|")
for basis, group, peers, target_ratio, against, fnl_target in rows:
    ours = msps(group, "noise_terrain_core")
    found = {p: msps(group, p) for p in peers}
    found = {p: v for p, v in found.items() if v}
    if not ours or not found:
        print(f"| {basis} | not measured | | | | |")
        continue
    fnl = found.get("fastnoise-lite")
    if fnl and fnl_target:
        fnl_verdict = "met" if ours / fnl >= fnl_target else "NOT met"
        fnl_text = f"{ours / fnl:.1f}x, target {fnl_target}x: {fnl_verdict}"
    else:
        fnl_text = ""
    if against == "each peer":
        ratio = min(ours / v for v in found.values())
    elif against == "simdnoise":
        ratio = ours / found.get("simdnoise", float("nan"))
    else:
        ratio = ours / max(found.values())
    peer_text = ", ".join(f"{p} {v:.1f}" for p, v in found.items())
    verdict = "met" if ratio >= target_ratio else "NOT met"
    print(f"| {basis} | {ours:.1f} | {peer_text} | {ratio:.1f}x | {target_ratio}x {against}: {verdict} | {fnl_text} |")
two = msps("fbm_2d_gradient_1024", "noise_terrain_core_2_threads")
one = msps("fbm_2d_gradient_1024", "noise_terrain_core")
if one and two:
    verdict = "met" if two / one >= 1.8 else "NOT met"
    print(f"| gradient, 2 threads | {two:.1f} | | {two / one:.2f}x one thread | 1.8x: {verdict} | |")

sizes = [65, 129, 1024]
bases = ["value", "gradient", "simplex", "worley"]
found = {(b, n): msps_of(f"grid_sizes_{b}", str(n), n * n) for b in bases for n in sizes}
if any(found.values()):
    print()
    print("Chunk-sized grids (`--bench grid_sizes`: `Heightmap::generate_region`, sampler set-up included,")
    print("one thread; gradient noise with the default, rounded kernel; Worley with jitter 1), M samples/s:")
    print()
    print("| basis | " + " | ".join(f"{n}²" for n in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for b in bases:
        cells = [f"{found[(b, n)]:.1f}" if found[(b, n)] else "not measured" for n in sizes]
        print(f"| {b} | " + " | ".join(cells) + " |")

gradient_groups = [
    ("gradient_fbm_1024_heights_and_gradients", "one 1024² grid", SAMPLES),
    ("gradient_fbm_chunks_heights_and_gradients", "64 chunks of 129²", 64 * 129 * 129),
]
names = {"gradient": "gradient (rounded kernel)", "gradient_perlin": "gradient (Perlin's kernel)"}
rows, kernel_cost = [], []
for group, label, samples in gradient_groups:
    for b in ("gradient", "gradient_perlin", "value", "simplex"):
        h, g = mean_ms(group, f"{b}_heights"), mean_ms(group, f"{b}_heights_and_gradients")
        if h and g:
            rows.append(f"| {names.get(b, b)} | {label} | {h:.2f} ms | {g:.2f} ms | {g / h:.2f}x | {samples / g / 1e3:.1f} |")
    rounded, perlin = mean_ms(group, "gradient_heights"), mean_ms(group, "gradient_perlin_heights")
    if rounded and perlin:
        kernel_cost.append(f"{label}: {rounded / perlin:.3f}x")
if rows:
    print()
    print("Heights with their exact gradients (`--bench gradients`, fBm, 5 octaves, one thread):")
    print()
    print("| basis | grid | heights | heights + gradients | ratio | M samples/s with gradients |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    if kernel_cost:
        print()
        print("Heights with the rounded kernel over Perlin's: " + ", ".join(kernel_cost) + ".")

surface = [
    ("mesh arrays (`Surface`), fresh memory", "surface"),
    ("mesh arrays, rebuilt into the previous ones", "surface_rebuild"),
    ("ramp texture, into the previous texels", "paint"),
]
times = {(name, t): mean_ms("terrain_1024", f"{name}_{t}_threads") for _, name in surface for t in (1, 2)}
if any(times.values()):
    print()
    print("Besides the noise, per 1024x1024 terrain (`--bench surface`):")
    print()
    print("| step | one thread | two threads |")
    print("|---|---|---|")
    for label, name in surface:
        cells = [f"{times[(name, t)]:.1f} ms" if times[(name, t)] else "not measured" for t in (1, 2)]
        print(f"| {label} | {cells[0]} | {cells[1]} |")
