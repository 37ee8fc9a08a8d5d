//! Where water goes on a height grid: every cell's receiver (its steepest way down), an order
//! from the outlets up, and the area that drains through each cell.
//!
//! Each cell drains to its steepest lower neighbour (D8). The cells whose way down ends at an
//! outlet (the open border, the sea) are ordered outlets first by walking up the donors, in
//! O(n). The rest drain into depressions; those are filled by priority-flood (Barnes, Lehman and
//! Mulla 2014, "Priority-flood: an optimal depression-filling and watershed-labeling algorithm")
//! seeded with the drained cells around them: cells are visited lowest first, and a cell lower
//! than the one that reached it is raised to just above it (the next `f32`), so the water surface
//! falls strictly along every path and lakes drain across their flat top. Those cells take the
//! steepest way down that surface and follow in the order the flood visits them, which is sorted
//! by the surface: in the whole order every cell comes after its receiver, so areas are summed
//! backwards along it and incision runs forwards. Only the cells of depressions pass through the
//! flood's heap, which is where the time would go.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::world::chunks::for_each_chunk;

/// What happens at the map's edge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum Border {
    /// Water leaves the map at its edge, and the edge stays at its height (base level).
    #[default]
    Open,
    /// No water crosses the edge: everything drains to the sea; without any sea, to the map's
    /// lowest cell.
    Closed,
}

/// Rows per task where rows are worked on in parallel (one row is too little work for a task).
pub(super) const BAND_ROWS: usize = 32;

/// The neighbours of a cell: offsets in x and y, edges first, then diagonals.
const NEIGHBOURS: [(isize, isize); 8] =
    [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)];

/// The water's routes over one state of the ground, with the scratch memory reused from one
/// time step to the next.
#[derive(Default)]
pub(super) struct Routing {
    /// The water surface: the ground, or the level of the lake over it raised by the flood's
    /// steps.
    pub(super) filled: Vec<f32>,
    /// The level water stands at over each cell: the ground, or the spill level of the lake
    /// over it (the water surface without the flood's steps, so flats are not lakes).
    pub(super) spill: Vec<f32>,
    /// Every cell once, each after its receiver.
    pub(super) order: Vec<u32>,
    /// The neighbour each cell drains to; an outlet drains to itself.
    pub(super) receiver: Vec<u32>,
    /// Area draining through each cell, world units², rain included.
    pub(super) area: Vec<f32>,
    /// Whether a cell is an outlet (base level: the open border, the sea).
    pub(super) outlet: Vec<bool>,
    /// Whether a cell is under the sea.
    pub(super) sea: Vec<bool>,
    /// The border the map was routed with.
    pub(super) border: Border,
    heap: BinaryHeap<Reverse<u64>>,
    /// Cells already ordered (drained) or queued by the flood.
    seen: Vec<bool>,
    /// Cells whose way down the ground ends at an outlet.
    drained: Vec<bool>,
    /// Donors of every cell, as ranges of `donors` (compressed rows).
    donor_start: Vec<u32>,
    donors: Vec<u32>,
}

/// A map's geometry as the router sees it.
#[derive(Clone, Copy)]
pub(super) struct Grid {
    pub(super) width: usize,
    pub(super) height: usize,
    /// World units between neighbouring cells.
    pub(super) cell_size: f32,
}

impl Grid {
    /// Distance from a cell to the neighbour `k` of [`NEIGHBOURS`].
    fn distance(&self, k: usize) -> f32 {
        if k < 4 { self.cell_size } else { self.cell_size * std::f32::consts::SQRT_2 }
    }

    /// Distance from cell `i` to its neighbour `j`.
    #[cfg(test)]
    pub(super) fn distance_between(&self, i: u32, j: u32) -> f32 {
        let (i, j) = (i as usize, j as usize);
        if i % self.width == j % self.width || i / self.width == j / self.width {
            self.cell_size
        } else {
            self.cell_size * std::f32::consts::SQRT_2
        }
    }

    /// The cells next to `c` (inside the map) with the index `k` of their offset in
    /// [`NEIGHBOURS`].
    fn neighbours(&self, c: usize) -> impl Iterator<Item = (usize, usize)> {
        let (w, h) = (self.width as isize, self.height as isize);
        let (x, y) = ((c % self.width) as isize, (c / self.width) as isize);
        NEIGHBOURS.iter().enumerate().filter_map(move |(k, (dx, dy))| {
            let (nx, ny) = (x + dx, y + dy);
            (nx >= 0 && ny >= 0 && nx < w && ny < h).then_some(((ny * w + nx) as usize, k))
        })
    }
}

/// A key that orders `f32` heights (finite ones) as integers, with the cell's index to break ties:
/// the flood's order is then the same on every run.
fn flood_key(height: f32, cell: usize) -> u64 {
    let bits = height.to_bits();
    let ordered = if bits >> 31 == 1 { !bits } else { bits | 0x8000_0000 };
    (u64::from(ordered) << 32) | cell as u64
}

impl Routing {
    /// Routes water over `ground` (world heights, finite): outlets are the cells below
    /// `sea` and, with an open `border`, the edge. `rain` (one weight per cell, or empty for 1
    /// everywhere) scales each cell's own area.
    pub(super) fn route(&mut self, ground: &[f32], grid: Grid, border: Border, sea: f32, rain: &[f32]) {
        let (w, h) = (grid.width, grid.height);
        let n = w * h;
        self.filled.clear();
        self.filled.extend_from_slice(ground);
        self.spill.clear();
        self.spill.extend_from_slice(ground);
        self.border = border;
        self.sea.clear();
        self.sea.extend(ground.iter().map(|&g| g < sea));
        self.outlet.clear();
        self.outlet.extend(self.sea.iter().enumerate().map(|(i, &under_sea)| {
            let edge = i % w == 0 || i % w == w - 1 || i / w == 0 || i / w == h - 1;
            under_sea || (edge && border == Border::Open)
        }));
        if n > 0 && !self.outlet.iter().any(|&o| o) {
            // A closed map without sea drains to its lowest cell (the first of equals).
            let lowest = (0..n).min_by(|&a, &b| ground[a].total_cmp(&ground[b])).unwrap_or(0);
            self.outlet[lowest] = true;
        }
        self.receiver.clear();
        self.receiver.extend(0..n as u32);
        steepest_receivers(&mut self.receiver, &self.filled, &self.outlet, grid, None);
        self.order_drained();
        if self.order.len() < n {
            self.fill_depressions(ground, grid);
        }
        self.sum_areas(grid, rain);
    }

    /// Orders the cells whose way down ends at an outlet, outlets first, by walking up from
    /// each cell to its donors; marks them seen.
    fn order_drained(&mut self) {
        let n = self.receiver.len();
        self.donor_start.clear();
        self.donor_start.resize(n + 1, 0);
        for (c, &r) in self.receiver.iter().enumerate() {
            if r as usize != c {
                self.donor_start[r as usize + 1] += 1;
            }
        }
        for i in 0..n {
            self.donor_start[i + 1] += self.donor_start[i];
        }
        self.donors.clear();
        self.donors.resize(self.donor_start[n] as usize, 0);
        // Filled from each range's end down to its start: each donor moves `donor_start[r + 1]`
        // one back, so that at the end it holds the start of `r`'s range.
        for (c, &r) in self.receiver.iter().enumerate().rev() {
            if r as usize != c {
                let r = r as usize;
                self.donor_start[r + 1] -= 1;
                self.donors[self.donor_start[r + 1] as usize] = c as u32;
            }
        }
        // Shift back to `donor_start[r]..donor_start[r + 1]`.
        self.donor_start.remove(0);
        self.donor_start.push(self.donors.len() as u32);
        self.order.clear();
        self.order.extend((0..n as u32).filter(|&c| self.outlet[c as usize]));
        let mut head = 0;
        while head < self.order.len() {
            let c = self.order[head] as usize;
            let (a, b) = (self.donor_start[c] as usize, self.donor_start[c + 1] as usize);
            self.order.extend_from_slice(&self.donors[a..b]);
            head += 1;
        }
        self.seen.clear();
        self.seen.resize(n, false);
        for &c in &self.order {
            self.seen[c as usize] = true;
        }
    }

    /// Fills the depressions that the cells not yet ordered drain into, from the drained cells
    /// around them, and gives those cells their receivers on the filled surface and their place
    /// in the order.
    fn fill_depressions(&mut self, ground: &[f32], grid: Grid) {
        self.heap.clear();
        let n = ground.len();
        let first_undrained = self.order.len();
        // Seeds: the drained cells next to undrained ones. A seed next to several is queued once
        // for each; popped again, it finds them all seen.
        self.drained.clear();
        self.drained.extend_from_slice(&self.seen);
        for c in (0..n).filter(|&c| !self.drained[c]) {
            for (j, _) in grid.neighbours(c) {
                if self.drained[j] {
                    self.heap.push(Reverse(flood_key(self.filled[j], j)));
                }
            }
        }
        while let Some(Reverse(key)) = self.heap.pop() {
            let c = (key & 0xffff_ffff) as usize;
            if !self.drained[c] {
                // In the order when it leaves the heap: the heap gives the cells sorted by surface.
                self.order.push(c as u32);
            }
            let above = self.filled[c].next_up();
            for (j, _) in grid.neighbours(c) {
                if self.seen[j] {
                    continue;
                }
                self.seen[j] = true;
                self.spill[j] = ground[j].max(self.spill[c]);
                let level = self.filled[j].max(above);
                self.filled[j] = level;
                self.heap.push(Reverse(flood_key(level, j)));
            }
        }
        let undrained = &self.order[first_undrained..];
        for &c in undrained {
            self.receiver[c as usize] = c;
        }
        steepest_receivers(&mut self.receiver, &self.filled, &self.outlet, grid, Some(undrained));
    }

    /// Drainage areas, summed from the top of every path down to its outlet.
    fn sum_areas(&mut self, grid: Grid, rain: &[f32]) {
        let cell = grid.cell_size * grid.cell_size;
        self.area.clear();
        if rain.is_empty() {
            self.area.resize(self.filled.len(), cell);
        } else {
            self.area.extend(rain.iter().map(|&r| cell * r));
        }
        for &c in self.order.iter().rev() {
            let r = self.receiver[c as usize];
            if r != c {
                self.area[r as usize] += self.area[c as usize];
            }
        }
    }

    /// Whether cell `i` lies under a lake (its water surface above its ground).
    pub(super) fn is_lake(&self, ground: &[f32], i: usize) -> bool {
        self.spill[i] > ground[i]
    }
}

/// Every cell's steepest way down `surface` (or only `cells`' when given), kept where a cell has
/// no lower neighbour; outlets keep theirs.
fn steepest_receivers(
    receiver: &mut [u32],
    surface: &[f32],
    outlet: &[bool],
    grid: Grid,
    cells: Option<&[u32]>,
) {
    let w = grid.width;
    let inverse = [1.0 / grid.distance(0), 1.0 / grid.distance(4)];
    // Offsets of the neighbours in the flat array, in the order of `NEIGHBOURS`.
    let offsets = NEIGHBOURS.map(|(dx, dy)| dy * w as isize + dx);
    let steepest = |i: usize| -> Option<u32> {
        let (x, y) = (i % w, i / w);
        let mut best = 0.0f32;
        let mut to = None;
        let here = surface[i];
        if x > 0 && y > 0 && x + 1 < w && y + 1 < grid.height {
            // Inside the map: no bounds to test.
            for (k, offset) in offsets.iter().enumerate() {
                let j = (i as isize + offset) as usize;
                let slope = (here - surface[j]) * inverse[k / 4];
                if slope > best {
                    best = slope;
                    to = Some(j as u32);
                }
            }
        } else {
            for (j, k) in grid.neighbours(i) {
                let slope = (here - surface[j]) * inverse[k / 4];
                if slope > best {
                    best = slope;
                    to = Some(j as u32);
                }
            }
        }
        to
    };
    match cells {
        Some(cells) => {
            for &c in cells {
                if let Some(r) = steepest(c as usize) {
                    receiver[c as usize] = r;
                }
            }
        }
        None => for_each_chunk(receiver, BAND_ROWS * w, |band, rows| {
            for (k, r) in rows.iter_mut().enumerate() {
                let i = band * BAND_ROWS * w + k;
                if !outlet[i]
                    && let Some(to) = steepest(i)
                {
                    *r = to;
                }
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(ground: &[f32], width: usize, border: Border, sea: f32) -> Routing {
        let mut routing = Routing::default();
        let grid = Grid { width, height: ground.len() / width, cell_size: 1.0 };
        routing.route(ground, grid, border, sea, &[]);
        routing
    }

    /// Follows receivers from `cell` to its outlet.
    fn outlet_of(r: &Routing, mut cell: u32) -> u32 {
        for _ in 0..r.receiver.len() {
            let next = r.receiver[cell as usize];
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
                let rc = r.receiver[c as usize];
                assert!(r.outlet[outlet_of(&r, c) as usize]);
                if rc != c {
                    assert!(position[rc as usize] < position[c as usize]);
                    assert!(r.filled[rc as usize] < r.filled[c as usize]);
                }
                assert!(r.filled[c as usize] >= ground[c as usize]);
            }
            if border == Border::Closed {
                assert_eq!(r.outlet.iter().filter(|&&o| o).count(), 1, "one sink");
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
        assert_eq!(r.outlet.iter().filter(|&&o| o).count(), 1);
        assert!(r.outlet[width + 1] && (0..49).all(|i| !r.is_lake(&ground, i)));
        // Now with the open border: the floor fills to just above the notch.
        let r = route(&ground, width, Border::Open, -10.0);
        for y in 1..6 {
            for x in 1..6 {
                let level = r.filled[y * width + x];
                assert!(r.is_lake(&ground, y * width + x));
                assert!((3.0..3.001).contains(&level), "{level}");
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
        let out: f32 = (0..400).filter(|&i| r.outlet[i]).map(|i| r.area[i]).sum();
        let fallen: f32 = rain.iter().map(|&x| 4.0 * x).sum();
        assert!((out - fallen).abs() < 1e-3 * fallen, "{out} vs {fallen}");
        for (i, &g) in ground.iter().enumerate() {
            let edge = i % 20 == 0 || i % 20 == 19 || !(20..380).contains(&i);
            assert_eq!(r.outlet[i], g < 0.5 || edge);
        }
    }
}
