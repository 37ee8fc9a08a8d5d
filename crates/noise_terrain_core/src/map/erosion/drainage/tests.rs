//! Drainage's tests: receivers, flow order, drainage area, flats and pits, every level.

use super::*;

fn route(ground: &[f32], width: usize, border: Border, sea: f32) -> Routing {
    let mut routing = Routing::default();
    let grid = Grid { width, height: ground.len() / width, cell_size: 1.0 };
    routing.route(ground, grid, border, sea, &[]);
    routing
}

/// Follows receivers from `cell` to its outlet.
fn outlet_of(r: &Routing, mut cell: u32) -> u32 {
    for _ in 0..r.order.len() {
        let next = r.receiver(cell as usize) as u32;
        if next == cell {
            return cell;
        }
        cell = next;
    }
    panic!("a cycle through {cell}");
}

fn bumpy(width: usize, height: usize) -> Vec<f32> {
    (0..width * height)
        .map(|i| {
            let (x, y) = ((i % width) as f32, (i / width) as f32);
            (x * 0.7).sin() * (y * 0.45).cos() * 3.0 + 0.05 * x
        })
        .collect()
}

#[test]
fn every_cell_reaches_an_outlet_and_comes_after_its_receiver() {
    for border in [Border::Open, Border::Closed] {
        let ground = bumpy(37, 23);
        let r = route(&ground, 37, border, -10.0);
        let mut position = vec![usize::MAX; ground.len()];
        for (k, &c) in r.order.iter().enumerate() {
            assert_eq!(position[c as usize], usize::MAX, "{c} twice in the order");
            position[c as usize] = k;
        }
        assert!(position.iter().all(|&p| p != usize::MAX), "a cell missing from the order");
        for c in 0..ground.len() as u32 {
            let rc = r.receiver(c as usize) as u32;
            assert!(r.is_outlet(outlet_of(&r, c) as usize));
            if rc != c {
                assert!(position[rc as usize] < position[c as usize]);
                assert!(r.spill[rc as usize] <= r.spill[c as usize]);
            }
            assert!(r.spill[c as usize] >= ground[c as usize]);
        }
        if border == Border::Closed {
            assert_eq!((0..ground.len()).filter(|&i| r.is_outlet(i)).count(), 1, "one sink");
        }
    }
}

/// The level water stands at over every cell, by plain relaxation: the lowest, over all
/// paths to an outlet, of the highest ground on the path.
fn lowest_passes(ground: &[f32], grid: Grid, outlet: impl Fn(usize) -> bool) -> Vec<f32> {
    let mut level: Vec<f32> =
        (0..ground.len()).map(|i| if outlet(i) { ground[i] } else { f32::INFINITY }).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for c in 0..ground.len() {
            let lowest = grid.neighbours(c).map(|(j, _)| level[j]).fold(f32::INFINITY, f32::min);
            let new = ground[c].max(lowest);
            if new < level[c] {
                level[c] = new;
                changed = true;
            }
        }
    }
    level
}

#[test]
fn the_flood_raises_every_cell_to_its_lowest_pass_and_only_lakes_above_their_ground() {
    // Rough ground with many pits, and the same quantised into plateaus (ties everywhere).
    let hash = |i: usize| ((i as u32).wrapping_mul(2_654_435_761) >> 16) as f32 / 65_536.0;
    let rough: Vec<f32> = bumpy(41, 29).iter().enumerate().map(|(i, &g)| g + 2.0 * hash(i)).collect();
    let plateaus: Vec<f32> = rough.iter().map(|&g| (g * 2.0).round() * 0.5).collect();
    for ground in [rough, plateaus] {
        for border in [Border::Open, Border::Closed] {
            let r = route(&ground, 41, border, -1.0);
            let grid = Grid { width: 41, height: 29, cell_size: 1.0 };
            let expected = lowest_passes(&ground, grid, |i| r.is_outlet(i));
            assert!(r.order.len() == ground.len());
            for c in 0..ground.len() {
                assert_eq!(r.spill[c], expected[c], "cell {c} ({border:?})");
                assert_eq!(r.is_lake(c), expected[c] > ground[c], "cell {c} ({border:?})");
            }
            assert!((0..ground.len()).any(|c| r.is_lake(c)), "the test ground has lakes");
        }
    }
}

#[test]
fn the_row_kernel_picks_the_directions_of_the_plain_loop_at_every_level() {
    // Quantised heights: equal slopes everywhere, where the first must win.
    let hash = |i: usize| ((i as u32).wrapping_mul(2_654_435_761) >> 16) as f32 / 65_536.0;
    for (w, h) in [(35, 9), (3, 3), (64, 5)] {
        let surface: Vec<f32> = (0..w * h).map(|i| (hash(i) * 4.0).round()).collect();
        let grid = Grid { width: w, height: h, cell_size: 1.5 };
        let flags: Vec<u8> = (0..w * h)
            .map(|i| {
                let edge = i % w == 0 || i % w == w - 1 || i / w == 0 || i / w == h - 1;
                (u8::from(edge) * EDGE) | (u8::from(i % 11 == 0) * OUTLET)
            })
            .collect();
        let mut expected = vec![NOWHERE; w * h];
        let all: Vec<u32> = (0..(w * h) as u32).filter(|&c| flags[c as usize] & OUTLET == 0).collect();
        steepest_directions(&mut expected, &surface, &flags, grid, Some(&all));
        let mut got = vec![NOWHERE; w * h];
        steepest_directions(&mut got, &surface, &flags, grid, None);
        assert_eq!(got, expected, "{w}×{h}");
        let inverse = [1.0 / grid.distance(0), 1.0 / grid.distance(4)];
        for isa in crate::isa::levels_under_test() {
            for y in 1..h - 1 {
                let row = |y: usize| &surface[y * w..(y + 1) * w];
                let mut out = vec![NOWHERE; w];
                steepest_row_at(
                    isa,
                    [row(y - 1), row(y), row(y + 1)],
                    &flags[y * w..(y + 1) * w],
                    inverse,
                    &mut out,
                );
                assert_eq!(out[1..w - 1], expected[y * w + 1..(y + 1) * w - 1], "{w}×{h} row {y} {isa:?}");
            }
        }
    }
}

#[test]
fn a_pit_becomes_a_lake_at_its_spill_level_and_all_its_area_leaves_through_the_spill() {
    // A 7×7 bowl: rim at 5 with a notch at 3 on the east edge's middle, floor at 1.
    let width = 7;
    let mut ground = vec![5.0f32; 49];
    for y in 1..6 {
        for x in 1..6 {
            ground[y * width + x] = 1.0;
        }
    }
    ground[3 * width + 6] = 3.0;
    // Closed and without sea, the map drains to its lowest cell: a floor cell, no lake.
    let r = route(&ground, width, Border::Closed, -10.0);
    assert_eq!((0..49).filter(|&i| r.is_outlet(i)).count(), 1);
    assert!(r.is_outlet(width + 1) && (0..49).all(|i| !r.is_lake(i)));
    // Now with the open border: the floor is a lake up to the notch.
    let r = route(&ground, width, Border::Open, -10.0);
    for y in 1..6 {
        for x in 1..6 {
            assert!(r.is_lake(y * width + x));
            assert_eq!(r.spill[y * width + x], 3.0);
        }
    }
    // The 25 floor cells and the notch drain out through the notch.
    let notch = 3 * width + 6;
    assert_eq!(r.area[notch], 26.0);
}

#[test]
fn areas_add_up_rain_and_sea_cells_are_outlets() {
    let ground = bumpy(20, 20);
    let rain: Vec<f32> = (0..400).map(|i| (i % 3) as f32).collect();
    let mut r = Routing::default();
    let grid = Grid { width: 20, height: 20, cell_size: 2.0 };
    r.route(&ground, grid, Border::Open, 0.5, &rain);
    // What reaches the outlets is all the rain that fell.
    let out: f32 = (0..400).filter(|&i| r.is_outlet(i)).map(|i| r.area[i]).sum();
    let fallen: f32 = rain.iter().map(|&x| 4.0 * x).sum();
    assert!((out - fallen).abs() < 1e-3 * fallen, "{out} vs {fallen}");
    for (i, &g) in ground.iter().enumerate() {
        let edge = i % 20 == 0 || i % 20 == 19 || !(20..380).contains(&i);
        assert_eq!(r.is_outlet(i), g < 0.5 || edge);
        assert_eq!(r.is_sea(i), g < 0.5);
    }
}
