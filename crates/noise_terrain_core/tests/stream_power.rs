//! What stream power does to where water runs on a cone: the share of the drainage area that
//! the busiest 5% of cells carry, and, measured the way droplet erosion was, the share of the
//! steps of droplets that only follow the ground (they neither erode nor deposit). 5% would be
//! perfectly even.

use std::sync::atomic::AtomicBool;

use noise_terrain_core::advanced::drainage_of;
use noise_terrain_core::{
    Border, Drainage, Erosion, Heightmap, Hydraulic, MapWorld, NoiseSettings, RiverEnd, RiverSettings,
    StreamPower, StreamPowerMaps, erode, evolve_landscape,
};

/// The share of all droplet steps on land that the busiest 5% of land cells carry.
fn busiest_share(map: &Heightmap, world: &MapWorld) -> f32 {
    let water = Erosion {
        hydraulic: Hydraulic {
            droplets: 60_000,
            erode: 0.0,
            deposit: 0.0,
            lifetime: 120,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut ground = map.clone();
    let maps = erode(&mut ground, &water, world, &|_| {}, &AtomicBool::new(false)).unwrap();
    let mut flow: Vec<f32> = (0..map.samples().len())
        .filter(|&i| map.samples()[i] >= world.sea_level)
        .map(|i| maps.flow.samples()[i])
        .collect();
    flow.sort_by(|a, b| b.total_cmp(a));
    let total: f32 = flow.iter().sum();
    flow[..flow.len() / 20].iter().sum::<f32>() / total
}

#[test]
fn rivers_gather_the_water_that_runs_straight_down_a_cone() {
    // The cone of the droplet erosion's test, 128 cells across, with a faint noise for the
    // rivers to start from; the sea around it, a sixth of its height.
    let n = 128;
    let bumps = NoiseSettings { octaves: 4, frequency: 8.0, seed: 3, ..Default::default() };
    let bumps = Heightmap::generate(&bumps, n, n).unwrap();
    let cone = Heightmap::from_fn(n, n, |x, y| {
        let (dx, dy) = (x as f32 - 64.0, y as f32 - 64.0);
        (1.0 - (dx * dx + dy * dy).sqrt() / 64.0).max(0.0) + 0.02 * bumps.get(x, y).unwrap()
    })
    .unwrap();
    let world = MapWorld::patch(100.0, n, 24.0, 0.15);
    let mut evolved = cone.clone();
    let settings = StreamPower { steps: 40, ..Default::default() };
    evolve_landscape(
        &mut evolved,
        &settings,
        &world,
        StreamPowerMaps::default(),
        &|_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    let (before, after) = (busiest_share(&cone, &world), busiest_share(&evolved, &world));
    println!(
        "busiest 5% of land cells: {:.1}% of the droplet steps on the cone, {:.1}% after stream power",
        100.0 * before,
        100.0 * after
    );
    // Measured: 9.6% on the cone, 33.0% after (droplet erosion on the same cone: 12.9%).
    assert!(after > 1.5 * before, "{after} after, {before} before");
}

/// The share of the total drainage area that the busiest 5% of land cells carry.
fn busiest_area_share(drainage: &Drainage, map: &Heightmap, sea: f32) -> f64 {
    let mut areas: Vec<f64> = (0..map.samples().len())
        .filter(|&i| map.samples()[i] >= sea)
        .map(|i| f64::from(drainage.area.samples()[i]))
        .collect();
    areas.sort_by(|a, b| b.total_cmp(a));
    areas[..areas.len() / 20].iter().sum::<f64>() / areas.iter().sum::<f64>()
}

#[test]
fn a_cone_under_even_uplift_becomes_a_drainage_tree() {
    let n = 128;
    let cone = Heightmap::from_fn(n, n, |x, y| {
        // Sloping out to the corners too: flats would route water by the flood's tie-breaking.
        let (dx, dy) = (x as f32 - 63.5, y as f32 - 63.5);
        1.0 - (dx * dx + dy * dy).sqrt() / 64.0
    })
    .unwrap();
    let world = MapWorld::patch(100.0, n, 24.0, f32::NEG_INFINITY);
    let even = Heightmap::from_fn(n, n, |_, _| 1.0).unwrap();
    let settings = StreamPower { steps: 54, ..Default::default() };
    let mut evolved = cone.clone();
    let maps = StreamPowerMaps { uplift: Some(&even), rain: None };
    let drainage =
        evolve_landscape(&mut evolved, &settings, &world, maps, &|_| {}, &AtomicBool::new(false)).unwrap();
    let plain = drainage_of(&cone, &world, Border::Open, None, &RiverSettings::default());
    let (before, after) =
        (busiest_area_share(&plain, &cone, f32::MIN), busiest_area_share(&drainage, &evolved, f32::MIN));
    println!(
        "busiest 5% of cells: {:.1}% of the drainage area on the cone, {:.1}% after stream power",
        100.0 * before,
        100.0 * after
    );
    // Measured: 12.6% on the cone, 56.7% after.
    assert!(after >= 2.0 * before, "{after} after, {before} before");
    // The rivers form a tree: each ends at the edge (no sea here) or on another river's vertex.
    assert!(drainage.rivers.len() > 10);
    for river in &drainage.rivers {
        let last = river.points.last().unwrap();
        match river.end {
            RiverEnd::Border => assert!(last.x == 0 || last.y == 0 || last.x == n - 1 || last.y == n - 1),
            RiverEnd::Confluence => assert!(drainage.rivers.iter().any(|other| {
                !std::ptr::eq(other, river)
                    && other.points[..other.points.len() - 1].iter().any(|p| (p.x, p.y) == (last.x, last.y))
            })),
            RiverEnd::Sea | RiverEnd::Sink => panic!("{:?} on an open map without sea", river.end),
        }
    }
    // Every river cell is on exactly one line besides the lines that end on it.
    let mut on_line = vec![0u32; (n * n) as usize];
    for river in &drainage.rivers {
        for p in &river.points[..river.points.len() - 1] {
            on_line[(p.y * n + p.x) as usize] += 1;
        }
    }
    assert!(on_line.iter().all(|&k| k <= 1), "a cell on two lines");
}
