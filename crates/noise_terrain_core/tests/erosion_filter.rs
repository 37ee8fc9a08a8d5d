//! The erosion filter's gullies run downhill, and the valleys keep their drainage: measured on a
//! 512² map of the same field with the filter and without it.
//!
//! - D8 flow accumulation (each cell passes what it receives, plus its own unit of rain, to its
//!   steepest lower neighbour): the share of all flow carried by the busiest 5% of cells. On this
//!   map those are the big valleys' floors, which the filter keeps (it fades out on floors); its
//!   many small gullies split the slopes' water between them, so the share does not rise.
//! - The angle between a gully's direction (along the gully: perpendicular to the slope of the
//!   cut depth, on gully walls) and the downhill direction of the field before the filter: small
//!   where gullies run downhill, 45° on average for directions that ignore the slope. Against
//!   the whole field, and against its coarse octaves alone (the three at most half as fine as the
//!   first gully octave: the slope the filter follows, without the bumps finer than a gully).
//!
//!
//! And the filter's shape holds everywhere: no needles (its gradient stays within the field's
//! steepest slope plus the gullies' designed steepness, on grids far denser than any mesh, at
//! every bend and sharpness), and the ground keeps its mean height.
//!
//! `cargo test --release -p noise_terrain_core --test erosion_filter -- --nocapture` prints them.

use noise_terrain_core::advanced::fill_cut_depths;
use noise_terrain_core::{
    ErosionFilter, Fractal, GridWindow, NoiseSettings, fill_grid, fill_grid_with_gradients,
};
use proptest::prelude::*;

const SIZE: usize = 512;

fn field(filter: bool) -> NoiseSettings {
    NoiseSettings {
        octaves: 5,
        frequency: 3.0,
        seed: 23,
        erosion_filter: ErosionFilter { enabled: filter, scale: 8.0, ..ErosionFilter::default() },
        ..NoiseSettings::default()
    }
}

fn window() -> GridWindow {
    GridWindow { origin: [0, 0], width: SIZE as u32, height: SIZE as u32, pixels_per_unit: SIZE as f64 }
}

fn heights(settings: &NoiseSettings) -> Vec<f32> {
    let mut out = vec![0.0; SIZE * SIZE];
    fill_grid(&settings.sampler(), window(), &mut out);
    out
}

/// D8 flow accumulation: cells from the highest down, each passing its flow to its steepest
/// lower neighbour (diagonal drops divided by √2); cells with no lower neighbour keep theirs.
fn flow_accumulation(h: &[f32]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..h.len()).collect();
    order.sort_by(|&a, &b| h[b].total_cmp(&h[a]));
    let mut flow = vec![1.0f64; h.len()];
    for &i in &order {
        let (x, y) = ((i % SIZE) as i64, (i / SIZE) as i64);
        let mut best: Option<(f32, usize)> = None;
        for (dx, dy) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
            let (nx, ny) = (x + dx, y + dy);
            if nx < 0 || ny < 0 || nx >= SIZE as i64 || ny >= SIZE as i64 {
                continue;
            }
            let j = ny as usize * SIZE + nx as usize;
            let distance = if dx != 0 && dy != 0 { std::f32::consts::SQRT_2 } else { 1.0 };
            let slope = (h[i] - h[j]) / distance;
            if slope > 0.0 && best.is_none_or(|(s, _)| slope > s) {
                best = Some((slope, j));
            }
        }
        if let Some((_, j)) = best {
            flow[j] += flow[i];
        }
    }
    flow
}

/// The share of all flow that the busiest 5% of cells carry.
fn busiest_share(flow: &[f64]) -> f64 {
    let mut sorted = flow.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let top: f64 = sorted[..flow.len() / 20].iter().sum();
    top / sorted.iter().sum::<f64>()
}

/// Central differences of a grid at an inner cell.
fn slope_at(grid: &[f32], i: usize) -> [f64; 2] {
    [(grid[i + 1] as f64 - grid[i - 1] as f64) * 0.5, (grid[i + SIZE] as f64 - grid[i - SIZE] as f64) * 0.5]
}

/// Mean angle in degrees, over gully walls (where the cut depth changes fastest: its steepest
/// tenth), between the gully's direction and the unfiltered field's downhill direction, and how
/// many cells it was taken over.
fn gully_angle(plain: &[f32], cuts: &[f32]) -> (f64, usize) {
    let inner: Vec<usize> =
        (SIZE + 1..SIZE * (SIZE - 1) - 1).filter(|i| i % SIZE != 0 && i % SIZE != SIZE - 1).collect();
    let steepness = |i: usize| {
        let [x, y] = slope_at(cuts, i);
        x.hypot(y)
    };
    let mut walls: Vec<f64> = inner.iter().map(|&i| steepness(i)).collect();
    walls.sort_by(|a, b| b.total_cmp(a));
    let threshold = walls[walls.len() / 10];
    let (mut sum, mut count) = (0.0, 0);
    for &i in &inner {
        let [cx, cy] = slope_at(cuts, i);
        let [hx, hy] = slope_at(plain, i);
        if cx.hypot(cy) < threshold || hx.hypot(hy) < 1e-6 {
            continue;
        }
        // Along the gully: perpendicular to the cut's slope; an undirected line, so the angle to
        // the downhill direction is within [0°, 90°].
        let along = [-cy, cx];
        let cos = (along[0] * hx + along[1] * hy).abs() / (along[0].hypot(along[1]) * hx.hypot(hy));
        sum += cos.clamp(0.0, 1.0).acos().to_degrees();
        count += 1;
    }
    (sum / count as f64, count)
}

#[test]
fn gullies_run_downhill_and_the_valleys_keep_their_drainage() {
    let (plain, filtered) = (heights(&field(false)), heights(&field(true)));
    let (share_plain, share_filtered) =
        (busiest_share(&flow_accumulation(&plain)), busiest_share(&flow_accumulation(&filtered)));
    let mut cuts = vec![0.0; SIZE * SIZE];
    fill_cut_depths(&field(true).sampler(), window(), &filtered, &mut cuts);
    let (angle, cells) = gully_angle(&plain, &cuts);
    let coarse = heights(&NoiseSettings { octaves: 3, ..field(false) });
    let (coarse_angle, _) = gully_angle(&coarse, &cuts);
    println!(
        "busiest 5% of cells carry {:.1}% of the flow unfiltered, {:.1}% filtered; gullies {angle:.1}° from the field's downhill \
         ({coarse_angle:.1}° from its coarse octaves') on average over {cells} wall cells",
        share_plain * 100.0,
        share_filtered * 100.0
    );
    // The filter keeps the valleys' drainage (the busiest cells are the big valleys' floors) ...
    assert!((share_filtered - share_plain).abs() < 0.05, "{share_plain} vs {share_filtered}");
    // ... and its gullies run downhill: far from the 45° of directions that ignore the slope.
    assert!(cells > 5000, "{cells}");
    assert!(coarse_angle < 25.0 && angle < 35.0, "gullies {angle}° and {coarse_angle}° from downhill");
    // Sanity of the measure: the same walls against a field of another seed are at random angles.
    let other = heights(&NoiseSettings { seed: 99, octaves: 3, ..field(false) });
    let (unrelated, _) = gully_angle(&other, &cuts);
    assert!(unrelated > 40.0, "{unrelated}° against an unrelated field");
}

/// Heights and gradient lengths (per map unit) of `settings` over a `side`² grid at `origin`,
/// 2000 pixels per map unit: the endless example's map unit is 2000 world units, so a pixel is
/// a world unit, and the finest gullies' cells are a few pixels wide.
fn dense(settings: &NoiseSettings, origin: [i64; 2], side: u32) -> (Vec<f32>, Vec<f32>) {
    let window = GridWindow { origin, width: side, height: side, pixels_per_unit: 2000.0 };
    let n = (side * side) as usize;
    let (mut heights, mut gradients) = (vec![0.0; n], vec![[0.0; 2]; n]);
    fill_grid_with_gradients(&settings.sampler(), window, &mut heights, &mut gradients);
    (heights, gradients.iter().map(|[x, y]| (x * x + y * y).sqrt()).collect())
}

/// The steepest the gullies are designed to be, as a multiple of the steepest slope they cut
/// into: each octave's wall rises by at most half its depth times the profile's steepest slope
/// across a cell (`2τ(a - 2bτ²)`, `a = 16 - 8σ`, `b = 32(1 - σ)` for the sharpness `σ`), and its
/// depth is `strength · gainᵏ` times the drop across its cell.
fn designed_steepness(f: &ErosionFilter) -> f32 {
    let (a, b) = (16.0 - 8.0 * f.sharpness, 32.0 * (1.0 - f.sharpness));
    let profile =
        (0..=500).map(|i| i as f32 / 1000.0).map(|t| 2.0 * t * (a - 2.0 * b * t * t)).fold(0.0, f32::max);
    let octaves: f32 = (0..f.octaves).map(|k| f.gain.powi(k as i32)).sum();
    0.5 * f.strength * profile * octaves
}

/// The endless example's field (7-octave fBm at frequency 3) with the filter's settings `filter`.
fn landscape(seed: u32, filter: ErosionFilter) -> NoiseSettings {
    NoiseSettings {
        fractal: Fractal::Fbm,
        octaves: 7,
        frequency: 3.0,
        seed,
        erosion_filter: filter,
        ..NoiseSettings::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Where the gullies of one octave cancel the slope the next follows, its direction turns
    /// through a half circle within a fraction of a cell; gullies that followed it at full depth
    /// stood as needles a tenth of a world unit wide, up to 55 times steeper than the field. Now
    /// the gradient stays within 1.5 times the field's steepest slope plus the gullies' designed
    /// steepness, at any bend and sharpness, near the origin and far from it.
    #[test]
    fn the_filter_makes_no_needles(
        seed in 0u32..1000,
        gully_seed in 0u32..1000,
        bend in 0.0f32..=1.0,
        sharpness in 0.0f32..=1.0,
        strength in 0.1f32..=0.6,
        scale in prop::sample::select(vec![4.0f32, 8.0]),
        far in prop::bool::ANY,
        at in (-1000i64..1000, -1000i64..1000),
    ) {
        let filter = ErosionFilter { enabled: true, strength, scale, octaves: 4, bend, sharpness, seed: gully_seed, ..ErosionFilter::default() };
        let origin = if far { [200_000 + at.0 * 100, -140_000 + at.1 * 100] } else { [at.0, at.1] };
        let (_, plain) = dense(&landscape(seed, ErosionFilter::default()), origin, 400);
        let (_, filtered) = dense(&landscape(seed, filter), origin, 400);
        let field = plain.iter().copied().fold(0.0, f32::max);
        let steepest = filtered.iter().copied().fold(0.0, f32::max);
        let bound = 1.5 * field * (1.0 + designed_steepness(&filter));
        prop_assert!(steepest <= bound, "steepest {steepest} against the field's {field}: over {bound}");
    }
}

/// Gullies go down and the ridges between them up so that the ground keeps its mean height:
/// the shore stays where it was. Over a 1000² grid, at the default sharpness and the sharpest
/// and roundest profiles, the mean change is within 5% of the change's RMS.
#[test]
fn the_filter_keeps_the_mean_height() {
    for sharpness in [0.0, 0.6, 1.0] {
        let filter = ErosionFilter { enabled: true, scale: 8.0, sharpness, ..ErosionFilter::default() };
        let origin = [100_000, -72_000];
        let (plain, _) = dense(&landscape(11, ErosionFilter::default()), origin, 1000);
        let (filtered, _) = dense(&landscape(11, filter), origin, 1000);
        let n = plain.len() as f64;
        let changes = filtered.iter().zip(&plain).map(|(f, p)| f64::from(f - p));
        let (sum, squares) = changes.fold((0.0, 0.0), |(s, q), c| (s + c, q + c * c));
        let (mean, rms) = (sum / n, (squares / n).sqrt());
        println!("sharpness {sharpness}: mean change {mean:.6}, RMS {rms:.6}, {:.1}%", 100.0 * mean / rms);
        assert!(rms > 1e-3, "the filter changes the ground");
        assert!(
            mean.abs() <= 0.05 * rms,
            "sharpness {sharpness}: mean change {mean} against an RMS of {rms}"
        );
    }
}
