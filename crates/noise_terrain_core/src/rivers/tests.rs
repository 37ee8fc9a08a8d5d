use std::collections::HashMap;

use super::*;
use crate::FieldSampler;
use crate::grid::GridWindow;

/// The endless example's world (mountains cut by gullies, one map unit 2 km) with rivers on.
pub(crate) fn world() -> RiverWorld {
    crate::TerrainPreset::river_mountains().river_world()
}

/// The upper end (map units) of the segment of region (1, 1) that drains the most: a large river
/// with lakes beside it in [`world`].
pub(crate) fn largest_river_of_region_1_1(network: &RiverNetwork) -> [f64; 2] {
    let region = network.region(RegionKey { x: 1, y: 1 });
    let river = region.segments.iter().max_by(|a, b| a.area[1].total_cmp(&b.area[1])).unwrap();
    river.positions()[0]
}

/// The cells next to `c` (eight-connected).
fn neighbours(a: [i64; 2], b: [i64; 2]) -> bool {
    a != b && (a[0] - b[0]).abs() <= 1 && (a[1] - b[1]).abs() <= 1
}

#[test]
fn a_region_is_the_same_bits_whoever_solves_it_and_after_it_was_let_go() {
    let key = RegionKey { x: 3, y: -2 };
    let first = RiverNetwork::new(world());
    let solved = first.region(key);
    assert!(!solved.segments.is_empty(), "the region has rivers");
    // Another network, asked in another order from two threads.
    let second = RiverNetwork::new(world());
    let keys = [RegionKey { x: 4, y: -2 }, key, RegionKey { x: 3, y: -1 }];
    let others: Vec<_> = std::thread::scope(|s| {
        let second = &second;
        let handles: Vec<_> = keys.iter().map(|&k| s.spawn(move || second.region(k))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(*others[1], *solved);
    // Let go of it by asking for more regions than are kept, then ask again.
    for x in 0..DEFAULT_KEPT_REGIONS as i64 {
        first.region(RegionKey { x: 100 + x, y: 0 });
        if x % 16 == 0 {
            assert!(first.kept_regions() <= DEFAULT_KEPT_REGIONS);
        }
    }
    assert_eq!(first.kept_regions(), DEFAULT_KEPT_REGIONS);
    let solves = first.solves();
    assert_eq!(*first.region(key), *solved);
    assert_eq!(first.solves(), solves + 1, "the region was let go and solved again");
}

#[test]
fn rivers_run_downhill_cell_by_cell_and_go_on_across_region_borders() {
    let network = RiverNetwork::new(world());
    let mut starts: HashMap<[i64; 2], RiverSegment> = HashMap::new();
    let mut segments = Vec::new();
    for x in 0..6 {
        for y in 0..6 {
            let region = network.region(RegionKey { x, y });
            for s in &region.segments {
                assert!(region.key.contains(s.cells[0]), "a region keeps the segments that start in it");
                assert!(neighbours(s.cells[0], s.cells[1]), "{s:?} joins neighbouring cells");
                assert!(s.water[1] <= s.water[0], "{s:?} runs downhill");
                assert!(s.area[1] >= s.area[0] && s.width[1] >= s.width[0], "{s:?} widens downstream");
                assert!(s.area[0] >= world().rivers.min_area);
                starts.insert(s.cells[0], *s);
                segments.push(*s);
            }
        }
    }
    // Inside the solved regions every river goes on from where a segment ends, or ends in the
    // sea or a lake; across a border too, where the neighbour's window routes it alike.
    let inner = |c: [i64; 2]| (0..6 * REGION_CELLS).contains(&c[0]) && (0..6 * REGION_CELLS).contains(&c[1]);
    let sea = world().sea_level;
    let (mut crossing, mut going_on, mut ended) = (0, 0, 0);
    let mut ratios = Vec::new();
    for s in segments.iter().filter(|s| inner(s.cells[1])) {
        let next = starts.get(&s.cells[1]);
        let crosses = RegionKey::of_cell(s.cells[0]) != RegionKey::of_cell(s.cells[1]);
        crossing += usize::from(crosses);
        match next {
            Some(n) => {
                going_on += usize::from(crosses);
                assert!(n.water[0] <= s.water[0] + 1e-6, "{s:?} then {n:?}");
                if crosses {
                    // Each region's window sees the area at the crossing cell: the same where the
                    // catchment lies within both windows.
                    let ratio = f64::from(n.area[0].min(s.area[1]) / n.area[0].max(s.area[1]));
                    ratios.push(ratio);
                }
            }
            None if s.water[1] <= sea => {}
            None => ended += usize::from(crosses) + usize::from(!crosses) * 1000,
        }
    }
    assert!(ended < 1000, "a river ended inside its own region above the sea");
    assert!(crossing > 0, "rivers cross region borders here");
    assert!(going_on * 10 >= crossing * 9, "{going_on} of {crossing} border crossings go on");
    ratios.sort_by(f64::total_cmp);
    let same = ratios.iter().filter(|&&r| r == 1.0).count();
    println!(
        "{going_on} of {crossing} border crossings go on; the two regions' areas agree at {same}, the smallest ratio {:.3}, the median {:.3}",
        ratios[0],
        ratios[ratios.len() / 2]
    );
    assert!(same * 10 >= ratios.len() * 9, "{same} of {} crossings see the same area", ratios.len());
}

#[test]
fn carving_a_window_is_the_point_carve_and_windows_agree_where_they_overlap() {
    let network = RiverNetwork::new(world());
    let sampler = world().noise.sampler();
    // Find a river and look at it through two windows of other pixel sizes.
    let river = network.region(RegionKey { x: 1, y: 1 }).segments[20];
    let [at, _] = river.positions();
    let carve_window = |origin: [i64; 2], size: u32, ppu: f64| {
        let window = GridWindow { origin, width: size, height: size, pixels_per_unit: ppu };
        let n = (size * size) as usize;
        let (mut h, mut g) = (vec![0.0; n], vec![[0.0; 2]; n]);
        crate::fill_grid_with_gradients(&sampler, window, &mut h, &mut g);
        let raw = h.clone();
        network.carve(window, &mut h, &mut g);
        (window, raw, h, g)
    };
    let ppu = 1000.0;
    let o = [(at[0] * ppu) as i64 - 20, (at[1] * ppu) as i64 - 20];
    let (window, raw, heights, gradients) = carve_window(o, 41, ppu);
    let carved = heights.iter().zip(&raw).filter(|(h, r)| h < r).count();
    assert!(carved > 40, "the river cuts the window ({carved} samples)");
    for (k, (&h, &r)) in heights.iter().zip(&raw).enumerate() {
        assert!(h <= r, "carving only lowers");
        let (i, j) = (k as i64 % 41, k as i64 / 41);
        let p = [(window.origin[0] + i) as f64 / ppu, (window.origin[1] + j) as f64 / ppu];
        let mut g = [0.0; 2];
        let mut hh = 0.0;
        crate::fill_grid_with_gradients(
            &sampler,
            GridWindow {
                origin: [window.origin[0] + i, window.origin[1] + j],
                width: 1,
                height: 1,
                pixels_per_unit: ppu,
            },
            std::slice::from_mut(&mut hh),
            std::slice::from_mut(&mut g),
        );
        let point = network.carve_point(p, hh, g);
        assert_eq!(point.0.to_bits(), h.to_bits(), "at {p:?}");
        assert_eq!(point.1.map(f32::to_bits), gradients[k].map(f32::to_bits));
    }
    // Half the pixel size: every other sample is a sample of the first window.
    let (fine, _, fine_heights, _) = carve_window([o[0] * 2 + 10, o[1] * 2 + 6], 61, 2.0 * ppu);
    let mut shared = 0;
    for (k, &h) in fine_heights.iter().enumerate() {
        let (i, j) = (fine.origin[0] + k as i64 % 61, fine.origin[1] + k as i64 / 61);
        if i % 2 == 0 && j % 2 == 0 {
            let (ci, cj) = (i / 2 - o[0], j / 2 - o[1]);
            if (0..41).contains(&ci) && (0..41).contains(&cj) {
                assert_eq!(h.to_bits(), heights[(cj * 41 + ci) as usize].to_bits());
                shared += 1;
            }
        }
    }
    assert!(shared > 200);
}

#[test]
fn the_carved_gradient_is_the_slope_of_the_carved_heights() {
    let network = RiverNetwork::new(world());
    let shape = network.shape_for_tests();
    let segments: Vec<RiverSegment> = [RegionKey { x: 1, y: 1 }, RegionKey { x: 0, y: 0 }]
        .iter()
        .flat_map(|&k| network.region(k).segments.clone())
        .collect();
    // A tilted plane for ground, so that only the carving bends it.
    let plane = |p: [f64; 2]| (0.6 + 0.05 * p[0] - 0.03 * p[1]) as f32;
    let ground = |p: [f64; 2]| (plane(p), [0.05f32, -0.03]);
    let carved = |p: [f64; 2]| {
        let (h, g) = ground(p);
        network.carve_point(p, h, g)
    };
    let mut checked = 0;
    for (n, s) in segments.iter().enumerate().step_by(2) {
        let [a, b] = s.positions();
        for (k, offset) in [[0.3, 0.2], [-0.7, 1.1], [2.0, -1.4], [0.1, 3.5]].iter().enumerate() {
            let p = [
                0.5 * (a[0] + b[0]) + offset[0] * s.width[0] as f64 / 2000.0,
                0.5 * (a[1] + b[1]) + offset[1] * s.width[0] as f64 / 2000.0 + (n + k) as f64 * 1e-7,
            ];
            let (_, g) = carved(p);
            // Where the two deepest cuts are nearly as deep, the crease where they meet is near.
            let (h, hg) = ground(p);
            let mut cuts: Vec<f32> = network
                .segments_near([p[0], p[1], p[0], p[1]])
                .iter()
                .map(|s| carve::PlacedSegment::new(s, &shape).cut(&shape, p, h, hg).0)
                .collect();
            cuts.sort_by(|a, b| b.total_cmp(a));
            if cuts.len() > 1 && cuts[0] - cuts[1] < 1e-4 {
                continue;
            }
            // Central differences at two steps: where they disagree a crease (where two cuts
            // meet) lies within the steps, and the point is skipped.
            let slope = |axis: usize| {
                let central = |step: f64| {
                    let (mut lo, mut hi) = (p, p);
                    lo[axis] -= step;
                    hi[axis] += step;
                    (carved(hi).0 - carved(lo).0) as f64 / (2.0 * step)
                };
                let (wide, narrow) = (central(2e-5), central(1e-5));
                ((wide - narrow).abs() < 0.01 * (1.0 + wide.abs())).then_some(narrow)
            };
            if let (Some(x), Some(y)) = (slope(0), slope(1)) {
                let tolerance = 0.02 * (1.0 + x.abs().max(y.abs()));
                assert!((x - g[0] as f64).abs() < tolerance, "x at {p:?}: {x} against {}", g[0]);
                assert!((y - g[1] as f64).abs() < tolerance, "y at {p:?}: {y} against {}", g[1]);
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "{checked} points checked");
}

#[test]
fn with_rivers_off_nothing_is_solved_or_carved() {
    let network = RiverNetwork::new(RiverWorld { rivers: EndlessRivers::default(), ..world() });
    let mut h = vec![0.5; 16];
    let mut g = vec![[0.1, 0.2]; 16];
    network.carve(GridWindow { origin: [0, 0], width: 4, height: 4, pixels_per_unit: 100.0 }, &mut h, &mut g);
    assert_eq!((h, g), (vec![0.5; 16], vec![[0.1, 0.2]; 16]));
    assert_eq!(network.solves(), 0);
    let _: FieldSampler = world().noise.sampler();
}

/// Hack's law over the network of a block of regions: the main stream's length upstream of each
/// cell draining at least `from_area` (the longest way up the segments to the divide: the network
/// must count every cell a river, its `min_area` one cell's) against the area draining through
/// it, `L ∝ A^h`; real basins give `h` between 0.5 and 0.65. The exponent of a least-squares fit
/// of `ln L` on `ln A` over the cells of the block's inner regions (their upper reaches lie in
/// the block), and how many cells it fitted.
pub(crate) fn hack_exponent(network: &RiverNetwork, regions: i64, from_area: f32) -> (f64, usize) {
    let mut donors: HashMap<[i64; 2], Vec<RiverSegment>> = HashMap::new();
    let mut area: HashMap<[i64; 2], f32> = HashMap::new();
    for x in 0..regions {
        for y in 0..regions {
            for s in &network.region(RegionKey { x, y }).segments {
                donors.entry(s.cells[1]).or_default().push(*s);
                area.insert(s.cells[0], s.area[0]);
            }
        }
    }
    fn length(
        cell: [i64; 2],
        donors: &HashMap<[i64; 2], Vec<RiverSegment>>,
        memo: &mut HashMap<[i64; 2], f64>,
    ) -> f64 {
        if let Some(&l) = memo.get(&cell) {
            return l;
        }
        let mut longest = 0.0f64;
        for d in donors.get(&cell).map(Vec::as_slice).unwrap_or(&[]) {
            let step = ((d.cells[1][0] - d.cells[0][0]) as f64).hypot((d.cells[1][1] - d.cells[0][1]) as f64);
            longest = longest.max(length(d.cells[0], donors, memo) + step);
        }
        memo.insert(cell, longest);
        longest
    }
    let mut memo = HashMap::new();
    let inner = |c: [i64; 2]| {
        let k = RegionKey::of_cell(c);
        k.x > 0 && k.y > 0 && k.x < regions - 1 && k.y < regions - 1
    };
    let cell = f64::from(network.world().world_size) / DRAINAGE_CELLS_PER_UNIT;
    let points: Vec<(f64, f64)> = area
        .iter()
        .filter(|(c, a)| inner(**c) && **a >= from_area)
        .filter_map(|(&c, &a)| {
            let l = length(c, &donors, &mut memo) * cell;
            (l > 0.0).then(|| (f64::from(a).ln(), l.ln()))
        })
        .collect();
    // Binned: the mean `ln L` of each tenth of a decade of area (with at least ten cells), so that
    // the many small cells do not outweigh the few large ones.
    let mut bins: HashMap<i64, (f64, f64, usize)> = HashMap::new();
    for &(a, l) in &points {
        let bin = bins.entry((a / std::f64::consts::LN_10 * 10.0).floor() as i64).or_default();
        *bin = (bin.0 + a, bin.1 + l, bin.2 + 1);
    }
    let means: Vec<(f64, f64)> =
        bins.values().filter(|b| b.2 >= 10).map(|&(a, l, n)| (a / n as f64, l / n as f64)).collect();
    let n = means.len() as f64;
    let (mx, my) = (means.iter().map(|p| p.0).sum::<f64>() / n, means.iter().map(|p| p.1).sum::<f64>() / n);
    let sxy: f64 = means.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = means.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    (sxy / sxx, points.len())
}

#[test]
fn the_network_follows_hacks_law() {
    // Every cell a river, so that lengths reach the divides.
    let every_cell = EndlessRivers { min_area: 1.0, ..world().rivers };
    let network = RiverNetwork::new(RiverWorld { rivers: every_cell, ..world() });
    // Over the whole network from five cells of area up, and over the rivers alone (from where
    // they start).
    let (whole, cells) = hack_exponent(&network, 5, 5.0 * 2000.0 * 2000.0 / 65_536.0);
    let (rivers, river_cells) = hack_exponent(&network, 5, world().rivers.min_area);
    println!("Hack's exponent {whole:.3} over {cells} cells, {rivers:.3} over {river_cells} river cells");
    assert!(cells > 10_000 && river_cells > 1000, "{cells} cells, {river_cells} river cells");
    assert!((0.5..=0.65).contains(&whole), "Hack's exponent {whole} over the network");
    assert!((0.4..=0.65).contains(&rivers), "Hack's exponent {rivers} over the rivers");
}

#[test]
fn lakes_lie_over_their_ground_and_rectangles_split_them_once() {
    let network = RiverNetwork::new(world());
    let whole = network.lakes_in([0.0, 0.0, 1.0, 1.0]);
    assert!(!whole.is_empty(), "the square has lakes");
    let w = world();
    for &(c, level) in whole.iter().step_by(17) {
        assert!(level > w.sea_level);
        let window = GridWindow { origin: c, width: 1, height: 1, pixels_per_unit: DRAINAGE_CELLS_PER_UNIT };
        let mut ground =
            crate::Heightmap::generate_region(&w.noise, c, 1, 1, DRAINAGE_CELLS_PER_UNIT).unwrap();
        w.post.apply_in_world(&mut ground, window, w.noise.value_bounds());
        assert!(level > ground.samples()[0], "a lake at {c:?} stands over its ground");
    }
    // Four quarters hold the same cells, each once.
    let mut quarters: Vec<_> = [[0.0, 0.0], [0.5, 0.0], [0.0, 0.5], [0.5, 0.5]]
        .iter()
        .flat_map(|o| network.lakes_in([o[0], o[1], o[0] + 0.5, o[1] + 0.5]))
        .collect();
    let mut sorted = whole.clone();
    quarters.sort_by_key(|l| l.0);
    sorted.sort_by_key(|l| l.0);
    assert_eq!(quarters, sorted);
}

#[test]
fn a_region_is_the_same_bits_on_one_thread_and_on_three() {
    let key = RegionKey { x: -2, y: 5 };
    let solve = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| RegionRivers::solve(&world().clamped(), key))
    };
    let (one, three) = (solve(1), solve(3));
    assert!(!one.segments.is_empty());
    assert_eq!(one, three);
}

/// The waters a brute-force search over `segments` and `lakes` finds at `p`: in the channel of
/// the nearest segment within its half-width (the mean of its ends' halves; every segment as
/// near as the nearest to rounding, where channels meet at a cell), else on the lake cell around
/// `p`, else none.
fn waters_by_search(
    world: &RiverWorld,
    segments: &[RiverSegment],
    lakes: &[([i64; 2], f32)],
    p: [f64; 2],
) -> Vec<Option<RiverWater>> {
    let mut rivers: Vec<(f64, RiverWater)> = Vec::new();
    for s in segments {
        let [a, b] = s.positions();
        let e = [b[0] - a[0], b[1] - a[1]];
        let t = (((p[0] - a[0]) * e[0] + (p[1] - a[1]) * e[1]) / (e[0] * e[0] + e[1] * e[1])).clamp(0.0, 1.0);
        let d = (p[0] - a[0] - t * e[0]).hypot(p[1] - a[1] - t * e[1]);
        let half = 0.25 * f64::from(s.width[0] + s.width[1]) / f64::from(world.world_size);
        if d < half {
            let t = t as f32;
            let length = e[0].hypot(e[1]);
            let water = RiverWater::River {
                surface: s.water[0] + t * (s.water[1] - s.water[0]),
                width: s.width[0] + t * (s.width[1] - s.width[0]),
                flow: [(e[0] / length) as f32, (e[1] / length) as f32],
            };
            rivers.push((d, water));
        }
    }
    if let Some(nearest) = rivers.iter().map(|r| r.0).min_by(f64::total_cmp) {
        return rivers.into_iter().filter(|r| r.0 <= nearest + 1e-7).map(|r| Some(r.1)).collect();
    }
    let cell = p.map(|v| (v * DRAINAGE_CELLS_PER_UNIT).round() as i64);
    vec![lakes.iter().find(|(c, _)| *c == cell).map(|&(_, surface)| RiverWater::Lake { surface })]
}

/// Whether two waters are the same to rounding (a river's place along its segment is found in
/// `f32` by the network).
fn same_water(a: Option<RiverWater>, b: Option<RiverWater>) -> bool {
    match (a, b) {
        (
            Some(RiverWater::River { surface, width, flow }),
            Some(RiverWater::River { surface: s, width: w, flow: f }),
        ) => {
            (surface - s).abs() < 1e-5
                && (width - w).abs() < 1e-3 * w
                && (flow[0] - f[0]).abs() < 1e-5
                && (flow[1] - f[1]).abs() < 1e-5
        }
        (a, b) => a == b,
    }
}

#[test]
fn the_water_near_a_rectangle_is_what_a_search_of_every_river_and_lake_finds() {
    let network = RiverNetwork::new(world());
    // A rectangle around a large river of region (1, 1), with lakes beside it.
    let at = largest_river_of_region_1_1(&network);
    let rect = [at[0] - 0.08, at[1] - 0.08, at[0] + 0.08, at[1] + 0.08];
    let near = network.near(rect);
    // Every segment and lake cell of the regions around, to search.
    let all: Vec<RiverSegment> =
        network.segments_near([rect[0] - 0.1, rect[1] - 0.1, rect[2] + 0.1, rect[3] + 0.1]);
    let lakes = network.lakes_in([rect[0] - 0.01, rect[1] - 0.01, rect[2] + 0.01, rect[3] + 0.01]);
    assert!(!lakes.is_empty(), "the rectangle has lakes");
    let (mut rivers, mut on_lakes, mut dry) = (0, 0, 0);
    let mut points: Vec<[f64; 2]> = crate::test_support::random_points(20_000, 5, 1.0)
        .into_iter()
        .map(|[x, y, _]| [rect[0] + (x + 1.0) * 0.08, rect[1] + (y + 1.0) * 0.08])
        .collect();
    // And the middle of every segment, and a point in every lake cell, of the rectangle.
    let inside = |p: &[f64; 2]| p[0] >= rect[0] && p[0] <= rect[2] && p[1] >= rect[1] && p[1] <= rect[3];
    points.extend(all.iter().map(|s| {
        let [a, b] = s.positions();
        [0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])]
    }));
    points.extend(lakes.iter().map(|(c, _)| c.map(|v| (v as f64 + 0.3) / DRAINAGE_CELLS_PER_UNIT)));
    points.retain(inside);
    for p in points {
        let found = near.water_at(p);
        let expected = waters_by_search(&world(), &all, &lakes, p);
        assert!(
            expected.iter().any(|&e| same_water(found, e)),
            "at {p:?} the rectangle's water is {found:?}, the search's {expected:?}"
        );
        match found {
            Some(RiverWater::River { .. }) => rivers += 1,
            Some(RiverWater::Lake { .. }) => on_lakes += 1,
            None => dry += 1,
        }
        assert_eq!(network.water_at(p), found, "the network's own answer at {p:?}");
        // The rectangle's carving is the network's, bit for bit.
        let (h, g) = (0.4 + (p[0] * 7.0).sin() as f32 * 0.1, [0.3, -0.2]);
        let (a, b) = (near.carve_point(p, h, g), network.carve_point(p, h, g));
        assert_eq!((a.0.to_bits(), a.1.map(f32::to_bits)), (b.0.to_bits(), b.1.map(f32::to_bits)));
    }
    assert!(rivers > 30 && on_lakes > 20 && dry > 1000, "{rivers} in rivers, {on_lakes} on lakes, {dry} dry");
    // What starts in a part of the rectangle: the network's, in its order.
    let part = [rect[0] + 0.01, rect[1] + 0.02, rect[2] - 0.03, rect[3] - 0.01];
    assert_eq!(near.segments_starting_in(part), network.segments_starting_in(part));
    let mut lakes_of_part = network.lakes_in(part);
    lakes_of_part.sort_by_key(|(c, _)| (c[1], c[0]));
    assert_eq!(near.lakes_in(part), lakes_of_part);
}
