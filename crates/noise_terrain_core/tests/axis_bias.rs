//! Axis bias of single-octave 2-D gradient noise: how much more of its power lies along the
//! lattice axes than along the diagonals.
//!
//! The measure: the 2-D power spectrum of `n × n` samples, 16 samples per lattice
//! cell, with a Hann window (so that the map's edges add no cross of their own); the mean power
//! within ±10° of the axes divided by the mean power within ±10° of the diagonals, over the band
//! from 0.5x to 2x the lattice frequency, averaged over 4 seeds. Isotropic noise gives 1.
//!
//! Perlin's kernel measures about 1.2 whatever the gradient set (see `GradientKernel`); the
//! rounded kernel, the default, brings it to 1.07.
//!
//! The figure at the size (2048², 128 cells across), ours beside `noise` and
//! `fastnoise-lite`: `cargo test --release -p noise_terrain_core --test axis_bias -- --ignored --nocapture`.

use noise_terrain_core::{Fractal, GradientKernel, NoiseSettings};

/// Samples per lattice cell.
const SAMPLES_PER_CELL: usize = 16;

/// An in-place radix-2 FFT of `re`/`im` (length a power of two).
fn fft(re: &mut [f64], im: &mut [f64]) {
    let n = re.len();
    let bits = n.trailing_zeros();
    for i in 0..n {
        let j = i.reverse_bits() >> (usize::BITS - bits);
        if j > i {
            re.swap(i, j);
            im.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let angle = -2.0 * std::f64::consts::PI / len as f64;
        for start in (0..n).step_by(len) {
            for k in 0..len / 2 {
                let (s, c) = (angle * k as f64).sin_cos();
                let (a, b) = (start + k, start + k + len / 2);
                let (tr, ti) = (re[b] * c - im[b] * s, re[b] * s + im[b] * c);
                (re[b], im[b]) = (re[a] - tr, im[a] - ti);
                (re[a], im[a]) = (re[a] + tr, im[a] + ti);
            }
        }
        len *= 2;
    }
}

/// Mean power within ±10° of the axes over mean power within ±10° of the diagonals, in the band
/// 0.5x..2x the lattice frequency, of `n × n` samples of `field(i, j)` (pixel coordinates).
fn axis_to_diagonal_power(n: usize, field: impl Fn(usize, usize) -> f64) -> f64 {
    let hann: Vec<f64> =
        (0..n).map(|i| 0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / n as f64).cos()).collect();
    let mut re: Vec<f64> = (0..n * n).map(|k| field(k % n, k / n) * hann[k % n] * hann[k / n]).collect();
    let mean = re.iter().sum::<f64>() / re.len() as f64;
    re.iter_mut().for_each(|v| *v -= mean);
    let mut im = vec![0.0; n * n];
    // Rows, then columns (through a transpose).
    for (r, i) in re.chunks_mut(n).zip(im.chunks_mut(n)) {
        fft(r, i);
    }
    let transpose = |v: &[f64]| (0..n * n).map(|k| v[(k % n) * n + k / n]).collect::<Vec<_>>();
    let (mut re, mut im) = (transpose(&re), transpose(&im));
    for (r, i) in re.chunks_mut(n).zip(im.chunks_mut(n)) {
        fft(r, i);
    }
    let lattice = (n / SAMPLES_PER_CELL) as f64;
    let signed = |k: usize| if k < n / 2 { k as f64 } else { k as f64 - n as f64 };
    let (mut axis, mut axis_count, mut diagonal, mut diagonal_count) = (0.0, 0usize, 0.0, 0usize);
    for v in 0..n {
        for u in 0..n {
            let (ku, kv) = (signed(u), signed(v));
            let radius = ku.hypot(kv);
            if radius < 0.5 * lattice || radius > 2.0 * lattice {
                continue;
            }
            let power = re[v * n + u].powi(2) + im[v * n + u].powi(2);
            let angle = kv.abs().atan2(ku.abs()).to_degrees();
            if angle <= 10.0 || angle >= 80.0 {
                (axis, axis_count) = (axis + power, axis_count + 1);
            } else if (angle - 45.0).abs() <= 10.0 {
                (diagonal, diagonal_count) = (diagonal + power, diagonal_count + 1);
            }
        }
    }
    (axis / axis_count as f64) / (diagonal / diagonal_count as f64)
}

/// Single-octave 2-D gradient noise of `settings`' kind at 16 samples per lattice cell.
fn ours(settings: NoiseSettings) -> impl Fn(usize, usize) -> f64 {
    let sampler = NoiseSettings { frequency: 1.0, ..settings }.sampler();
    let cell = SAMPLES_PER_CELL as f64;
    move |i, j| sampler.sample(i as f64 / cell, j as f64 / cell) as f64
}

/// The bias of a field family over 4 seeds.
fn averaged(n: usize, field: impl Fn(u32) -> Box<dyn Fn(usize, usize) -> f64>) -> f64 {
    (0..4).map(|seed| axis_to_diagonal_power(n, field(seed))).sum::<f64>() / 4.0
}

/// Single-octave gradient noise with the default (rounded) kernel.
fn single_octave(seed: u32) -> NoiseSettings {
    NoiseSettings { fractal: Fractal::None, seed: 1 + 7 * seed, ..Default::default() }
}

/// The same with Perlin's kernel.
fn perlin(seed: u32) -> NoiseSettings {
    NoiseSettings { gradient_kernel: GradientKernel::Perlin, ..single_octave(seed) }
}

#[test]
fn the_spectrum_of_an_axis_aligned_pattern_is_on_the_axes() {
    // Stripes along x: all power on the u axis; a diagonal pattern: on the diagonal.
    let n = 128;
    let stripes =
        axis_to_diagonal_power(n, |i, _| (i as f64 * 2.0 * std::f64::consts::PI * 10.0 / n as f64).sin());
    let diagonal = axis_to_diagonal_power(n, |i, j| {
        ((i + j) as f64 * 2.0 * std::f64::consts::PI * 6.0 / n as f64).sin()
    });
    assert!(stripes > 100.0, "{stripes}");
    assert!(diagonal < 0.01, "{diagonal}");
}

fn fbm(seed: u32, rotate_octaves: bool) -> NoiseSettings {
    NoiseSettings { fractal: Fractal::Fbm, octaves: 4, rotate_octaves, ..perlin(seed) }
}

#[test]
fn the_default_rounded_kernel_has_little_axis_bias() {
    // The measure at its size: smaller maps read higher (at 512², 1.13 against 1.26).
    let n = 2048;
    let perlin = averaged(n, |seed| Box::new(ours(perlin(seed))));
    let round = averaged(n, |seed| Box::new(ours(single_octave(seed))));
    println!("axis bias at {n}²: Perlin's kernel {perlin:.3}, rounded (the default) {round:.3}");
    assert!(round <= 1.08 && round < perlin - 0.1, "rounded {round}, Perlin's {perlin}");
}

#[test]
fn turning_the_octaves_lowers_the_axis_bias_of_fbm() {
    let n = 512;
    let single = averaged(n, |seed| Box::new(ours(perlin(seed))));
    let straight = averaged(n, |seed| Box::new(ours(fbm(seed, false))));
    let turned = averaged(n, |seed| Box::new(ours(fbm(seed, true))));
    println!("axis bias at {n}²: one octave {single:.3}, fBm {straight:.3}, fBm turned {turned:.3}");
    assert!(turned < straight - 0.02, "turned {turned} vs {straight}");
}

#[test]
#[ignore = "the figure at 2048², with the peers: seconds in release"]
fn axis_bias_figure() {
    use fastnoise_lite::{FastNoiseLite, NoiseType};
    use noise::{NoiseFn, Perlin};
    let n = 2048;
    let cell = SAMPLES_PER_CELL as f64;
    let ours_bias = averaged(n, |seed| Box::new(ours(single_octave(seed))));
    let perlin_bias = averaged(n, |seed| Box::new(ours(perlin(seed))));
    let noise_bias = averaged(n, |seed| {
        let perlin = Perlin::new(seed);
        Box::new(move |i, j| perlin.get([i as f64 / cell + 0.5 / cell, j as f64 / cell + 0.5 / cell]))
    });
    let fnl_bias = averaged(n, |seed| {
        let mut fnl = FastNoiseLite::with_seed(seed as i32);
        fnl.set_noise_type(Some(NoiseType::Perlin));
        fnl.set_frequency(Some(1.0 / cell as f32));
        Box::new(move |i, j| fnl.get_noise_2d(i as f32, j as f32) as f64)
    });
    let straight = averaged(n, |seed| Box::new(ours(fbm(seed, false))));
    let turned = averaged(n, |seed| Box::new(ours(fbm(seed, true))));
    println!(
        "axis bias, {n}² with 128 cells across, 4 seeds: ours {ours_bias:.3} (Perlin's kernel {perlin_bias:.3}), noise {noise_bias:.3}, fastnoise-lite {fnl_bias:.3}"
    );
    let rounded_fbm = averaged(n, |seed| {
        Box::new(ours(NoiseSettings { fractal: Fractal::Fbm, octaves: 4, ..single_octave(seed) }))
    });
    println!(
        "4-octave fBm: {rounded_fbm:.3}; with Perlin's kernel {straight:.3}, octaves turned {turned:.3}"
    );
    assert!(turned < straight);
}
