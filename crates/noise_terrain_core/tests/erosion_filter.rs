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
//! `cargo test --release -p noise_terrain_core --test erosion_filter -- --nocapture` prints them.

use noise_terrain_core::advanced::fill_cut_depths;
use noise_terrain_core::{ErosionFilter, GridWindow, NoiseSettings, fill_grid};

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
