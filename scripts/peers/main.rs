//! peer-export LIB KIND SIZE OCTAVES OUT [REPS]: fills a SIZE² fBm field (lacunarity 2, gain 0.5,
//! base frequency 8 over the map, seed 7) with one library, prints the milliseconds to allocate
//! and fill it, and writes it as raw f32. LIB `ours` is the project's core; the rest are its peers.
//! LIB may name several libraries separated by commas (`ours,fn2`): each rep then fills with each
//! of them in turn, so that all of them see the same moments of a machine whose speed moves, and
//! one line is printed per library (the first one's grid is written).
//!
//! The project's version of `../shared/peers/src/main.rs` (built by `scripts/peers.sh`): `ours`
//! takes the grid our core allocated and filled over (`Heightmap::into_samples`), `ours-copy`
//! copies it into a second vector as the shared program's `ours` does, and REPS times
//! chunk-sized grids (the median of REPS fills, and the fastest as `fast`: on a host whose speed
//! moves in spells, a fill of its quiet moments).
use fastnoise_lite::{FastNoiseLite, FractalType, NoiseType};
use noise::{Fbm, MultiFractal, NoiseFn, Perlin, Value, Worley};
use std::io::Write;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (libs, kind, n, oct, out) = (&a[1], &a[2], a[3].parse::<usize>().unwrap(), a[4].parse::<usize>().unwrap(), &a[5]);
    // REPS (optional, default 1): fill the grid that many times, each from a fresh allocation,
    // and print the median time of one fill (chunk-sized grids take microseconds).
    let reps = a.get(6).map_or(1, |r| r.parse::<usize>().unwrap());
    let libs: Vec<&str> = libs.split(',').collect();
    let mut times = vec![Vec::with_capacity(reps); libs.len()];
    let mut first = Vec::new();
    // The instruction-set level our grids ran at (measured at the first grid, or pinned by
    // NOISE_TERRAIN_ISA).
    let mut level = None;
    for _ in 0..reps {
        for (k, lib) in libs.iter().enumerate() {
            let t = std::time::Instant::now();
            let v = fill(lib, kind, n, oct, &mut level);
            times[k].push(t.elapsed().as_secs_f64() * 1e3);
            if k == 0 {
                first = v;
            }
        }
    }
    let bytes: Vec<u8> = first.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::File::create(out).unwrap().write_all(&bytes).unwrap();
    for (lib, mut times) in libs.iter().zip(times) {
        times.sort_by(f64::total_cmp);
        let (ms, fast) = (times[reps / 2], times[0]);
        let level = match (*lib, level) {
            ("ours" | "ours-copy", Some(level)) => format!(",\"level\":\"{level}\""),
            _ => String::new(),
        };
        if reps == 1 {
            println!("{{\"lib\":\"{lib}\",\"kind\":\"{kind}\",\"ms\":{ms:.1}{level}}}");
        } else {
            println!("{{\"lib\":\"{lib}\",\"kind\":\"{kind}\",\"ms\":{ms:.5},\"fast\":{fast:.5},\"reps\":{reps}{level}}}");
        }
    }
}

/// One allocation and fill of the grid by `lib` (the time `main` measures).
fn fill(lib: &str, kind: &str, n: usize, oct: usize, level: &mut Option<&'static str>) -> Vec<f32> {
    // `ours` takes over the grid our core allocated (uninitialised) and filled: no buffer of its
    // own, whose zeroing (calloc's memset, once the allocator reuses freed memory) would be
    // counted in our time and is no part of our fill.
    let mut v = if lib == "ours" { Vec::new() } else { vec![0f32; n * n] };
    let inv = 1.0 / n as f64;
    match lib {
        "noise" => {
            macro_rules! fill { ($src:ty) => {{
                let f = Fbm::<$src>::new(7).set_octaves(oct).set_frequency(8.0).set_lacunarity(2.0).set_persistence(0.5);
                for j in 0..n { for i in 0..n { v[j * n + i] = f.get([i as f64 * inv, j as f64 * inv]) as f32; } }
            }}}
            match kind { "gradient" => fill!(Perlin), "value" => fill!(Value), "worley" => fill!(Worley), k => panic!("{k}") }
        }
        "fnl" => {
            let mut f = FastNoiseLite::with_seed(7);
            f.set_noise_type(Some(match kind { "gradient" => NoiseType::Perlin, "value" => NoiseType::Value, "simplex" => NoiseType::OpenSimplex2, "worley" => NoiseType::Cellular, k => panic!("{k}") }));
            f.set_fractal_type(Some(FractalType::FBm));
            f.set_fractal_octaves(Some(oct as i32)); f.set_fractal_gain(Some(0.5)); f.set_fractal_lacunarity(Some(2.0)); f.set_frequency(Some(8.0));
            for j in 0..n { for i in 0..n { v[j * n + i] = f.get_noise_2d((i as f64 * inv) as f32, (j as f64 * inv) as f32); } }
        }
        "simdnoise" => {
            assert_eq!(kind, "simplex");
            let (r, _, _) = simdnoise::NoiseBuilder::fbm_2d(n, n).with_freq(8.0 / n as f32).with_octaves(oct as u8).with_gain(0.5).with_lacunarity(2.0).with_seed(7).generate();
            v.copy_from_slice(&r);
        }
        "fn2" => {
            // FastNoise2 (C++ SIMD, built from source), one thread, same grid: x = i/n, frequency 8.
            use fastnoise2::generator::{prelude::*, cellular::*, DistanceFunction};
            let s = 1.0 / 8.0;
            let node = match kind {
                "gradient" => perlin().with_feature_scale(s).fbm(0.5, 0.0, oct as i32, 2.0).build(),
                "value" => value().with_feature_scale(s).fbm(0.5, 0.0, oct as i32, 2.0).build(),
                "simplex" => simplex().with_feature_scale(s).fbm(0.5, 0.0, oct as i32, 2.0).build(),
                "worley" => cellular_distance(1.0, DistanceFunction::Euclidean, 0, 1, CellularDistanceReturnType::Index0)
                    .domain_scale(800.0).fbm(0.5, 0.0, oct as i32, 2.0).build(),
                k => panic!("{k}"),
            };
            node.gen_uniform_grid_2d(&mut v, 0.0, 0.0, n as i32, n as i32, inv as f32, inv as f32, 7);
        }
        "noiz" => {
            use bevy_math::Vec2;
            use noiz::{prelude::*, Noise, SampleableFor, ScalableNoise};
            use noiz::curves::Smoothstep;

            macro_rules! fill { ($b:ty) => {{
                let mut f = Noise::<LayeredNoise<Normed<f32>, Persistence, FractalLayers<Octave<$b>>>>::from(LayeredNoise::new(
                    Normed::default(), Persistence(0.5), FractalLayers { layer: Default::default(), lacunarity: 2.0, amount: oct as u32 }));
                f.set_frequency(8.0);
                for j in 0..n { for i in 0..n { v[j * n + i] = SampleableFor::<Vec2, f32>::sample(&f, Vec2::new((i as f64 * inv) as f32, (j as f64 * inv) as f32)); } }
            }}}
            match kind {
                "gradient" => fill!(MixCellGradients<OrthoGrid, Smoothstep, QuickGradients>),
                "value" => fill!(MixCellValues<OrthoGrid, Smoothstep, Random<UNorm, f32>>),
                "simplex" => fill!(BlendCellGradients<SimplexGrid, SimplecticBlend, QuickGradients>),
                k => panic!("{k}"),
            }
        }
        "ours" | "ours-copy" => {
            // The project's core: a whole grid through `Heightmap::generate` (rows at SIMD speed), the
            // default kernel for gradient noise, `gradient-perlin` for Perlin's kernel, Worley at jitter 1.
            use noise_terrain_core::{Basis, GradientKernel, Heightmap, NoiseSettings};
            let mut s = NoiseSettings { octaves: oct as u32, frequency: 8.0, lacunarity: 2.0, persistence: 0.5, seed: 7, ..NoiseSettings::default() };
            match kind {
                "gradient" => s.basis = Basis::Gradient,
                "gradient-perlin" => { s.basis = Basis::Gradient; s.gradient_kernel = GradientKernel::Perlin; }
                "value" => s.basis = Basis::Value,
                "simplex" => s.basis = Basis::Simplex,
                "worley" => { s.basis = Basis::Worley; s.worley.jitter = 1.0; }
                k => panic!("{k}"),
            }
            // The grid `generate` allocated and filled is the result: taken over, not copied into
            // `v` (a copy and a second allocation cost ours a quarter of the time the peers, which
            // fill `v` itself, do not pay).
            let map = Heightmap::generate(&s, n as u32, n as u32).unwrap();
            *level = Some(noise_terrain_core::advanced::grid_level(s.basis));
            if lib == "ours-copy" {
                // The grid copied into `v`: the cost of a copy, for comparison.
                v.copy_from_slice(map.samples());
            } else {
                v = map.into_samples();
            }
        }
        l => panic!("unknown lib {l}"),
    }
    v
}
