//! What the `noise_maps` demo shows, checked against its own settings and functions
//! (`examples/noise_maps/demo.rs`): value noise ranges wider than gradient noise, sums of
//! octaves overflow without normalising, and periodic 1-D profiles repeat.

#[path = "../examples/noise_maps/demo.rs"]
mod demo;

use bevy_noise_terrain::core::{Basis, Fade, NoiseSettings};
use demo::{PROFILE_CELLS, PROFILE_SAMPLES_PER_CELL, SNOW_LINE, WATER_LEVEL};

#[test]
fn value_noise_ranges_wider_and_reaches_snow_where_gradient_noise_hardly_does() {
    let s = demo::start_settings();
    let (value, gradient) = (demo::map(&s, Basis::Value), demo::map(&s, Basis::Gradient));
    let (v, g) = (value.stats(), gradient.stats());
    // Value noise's corners reach the extremes; gradient noise is 0 at every corner.
    assert!(v.max - v.min > g.max - g.min, "value {v:?}, gradient {g:?}");
    let (value_snow, gradient_snow) = (demo::snow_share(&value), demo::snow_share(&gradient));
    assert!(value_snow > 0.002, "value noise has snow: {value_snow}");
    assert!(gradient_snow < 0.1 * value_snow, "gradient noise hardly any: {gradient_snow} vs {value_snow}");
    // And the ramp paints that share white-ish: the snow line is where the ramp turns to snow.
    let ramp = demo::ramp();
    let [r, g_, b] = ramp.color_for_height(SNOW_LINE + 0.01, WATER_LEVEL, true);
    assert!(r > 230 && g_ > 230 && b > 230, "{r} {g_} {b}");
    let [r, ..] = ramp.color_for_height(SNOW_LINE - 0.1, WATER_LEVEL, true);
    assert!(r < 200, "below the snow line is rock");
}

#[test]
fn without_normalising_four_octaves_at_frequency_11_leave_one_value_noise_highest() {
    // Unnormalised, the sum of four octaves passes 1 for both bases: the overflow colour shows.
    let s = NoiseSettings { octaves: 4, frequency: 11.0, normalize: false, ..demo::start_settings() };
    let (value, gradient) = (demo::map(&s, Basis::Value).stats(), demo::map(&s, Basis::Gradient).stats());
    assert!(value.max > 1.3 && gradient.max > 1.3, "both well above 1: {value:?} {gradient:?}");
    assert!(value.max > gradient.max, "{} vs {}", value.max, gradient.max);
}

#[test]
fn the_1d_profiles_repeat_every_period_and_the_two_fades_differ() {
    let per_cell = PROFILE_SAMPLES_PER_CELL as usize;
    for octaves in [1, 3] {
        for n in [1, 3, 4] {
            let p = demo::profile(7, Fade::Cosine, octaves, Some(n));
            let shift = n as usize * per_cell;
            for k in 0..p.len() - shift {
                assert_eq!(p[k].to_bits(), p[k + shift].to_bits(), "octaves {octaves}, n {n}, sample {k}");
            }
        }
    }
    let (linear, cosine) = (demo::profile(7, Fade::Linear, 1, None), demo::profile(7, Fade::Cosine, 1, None));
    assert_eq!(linear.len(), (PROFILE_CELLS * PROFILE_SAMPLES_PER_CELL) as usize);
    // Both pass through the same lattice values; in between, the cosine curve bends.
    for cell in 0..PROFILE_CELLS as usize {
        assert_eq!(linear[cell * per_cell], cosine[cell * per_cell], "lattice point {cell}");
    }
    assert!(linear.iter().zip(&cosine).any(|(a, b)| (a - b).abs() > 0.01));
    // Linear interpolation has kinks at the lattice points; the cosine curve is flat there.
    let slope_change = |p: &[f32], k: usize| ((p[k + 1] - p[k]) - (p[k] - p[k - 1])).abs();
    let kinks = |p: &[f32]| (1..PROFILE_CELLS as usize).map(|c| slope_change(p, c * per_cell)).sum::<f32>();
    assert!(kinks(&cosine) < 0.2 * kinks(&linear), "{} vs {}", kinks(&cosine), kinks(&linear));
}
