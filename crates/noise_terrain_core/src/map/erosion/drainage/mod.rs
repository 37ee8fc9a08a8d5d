//! Where water goes on a height grid: every cell's receiver (its steepest way down), an order
//! from the outlets up, and the area that drains through each cell.
//!
//! Each cell drains to its steepest lower neighbour (D8), kept as one byte: the direction. The
//! cells whose way down ends at an outlet (the open border, the sea) are ordered outlets first by
//! walking up to the neighbours that drain into each cell, in O(n). The rest drain into
//! depressions; those are filled by a priority flood seeded with
//! the drained cells around them: cells are visited lowest first, and a cell lower than the one
//! that reached it is raised to just above it (the next `f32`), so the water surface falls
//! strictly along every path and lakes drain across their flat top. Those cells take the steepest
//! way down that surface and follow in the order the flood visits them, which is sorted by the
//! surface: in the whole order every cell comes after its receiver, so areas are summed backwards
//! along it and incision runs forwards. Only the cells of depressions pass through the flood, and
//! of those only the ones with a lower neighbour not yet reached wait in its heap (slopes rising
//! from the flood are spread from at once). Memory: 14 bytes a cell
//! (direction, flags, order, area, spill level), the flood's heap and queues besides.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::isa::Isa;
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
/// The direction back: `NEIGHBOURS[OPPOSITE[k]]` is minus `NEIGHBOURS[k]`.
const OPPOSITE: [u8; 8] = [1, 0, 3, 2, 7, 6, 5, 4];
/// The direction of a cell that drains to itself (an outlet, or a pit before the flood).
const NOWHERE: u8 = 8;

/// Per-cell flags.
const OUTLET: u8 = 1;
const SEA: u8 = 2;
/// Ordered, or queued by the flood.
const SEEN: u8 = 4;
/// Its way down the ground ends at an outlet.
const DRAINED: u8 = 8;
/// Under a lake: its spill level above its ground.
const LAKE: u8 = 16;
/// A seed of the flood already queued.
const QUEUED: u8 = 32;
/// On the map's edge (some neighbours missing).
const EDGE: u8 = 64;

/// The water's routes over one state of the ground, with the memory reused from one time step
/// to the next.
#[derive(Default)]
pub(super) struct Routing {
    /// The direction each cell drains to (`NEIGHBOURS`' index), or `NOWHERE` for outlets.
    direction: Vec<u8>,
    flags: Vec<u8>,
    /// Every cell once, each after its receiver.
    pub(super) order: Vec<u32>,
    /// Area draining through each cell, world units², rain included (during the flood, the
    /// raised water surface).
    pub(super) area: Vec<f32>,
    /// The level water stands at over each cell: the ground, or the spill level of the lake
    /// over it (the water surface without the flood's steps, so flats are not lakes).
    pub(super) spill: Vec<f32>,
    /// The border the map was routed with.
    pub(super) border: Border,
    /// Flat-array offsets of the neighbours on the last grid.
    offsets: [isize; 8],
    heap: BinaryHeap<Reverse<u64>>,
    /// The flood's queue of cells under a lake's surface.
    pit: VecDeque<u32>,
    /// Cells waiting to be ordered, or (during the flood) cells it reached above its surface, to
    /// spread from at once or to put in the heap: one buffer, as the two never overlap.
    stack: Vec<u32>,
}

/// The cells whose flags have `bit`.
#[derive(Clone, Copy)]
pub(super) struct CellMask<'a> {
    /// One byte of flags per cell.
    pub(super) flags: &'a [u8],
    /// The flag that picks a cell.
    pub(super) bit: u8,
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

/// Runs `body` with `j` bound to every cell next to `c` (inside the map): by `offsets` inside it,
/// with bounds tests only on its `edge`. A macro, so that the body is inlined into both loops
/// (the flood's closure, called per neighbour, was not).
macro_rules! for_each_neighbour {
    ($c:expr, $edge:expr, $offsets:expr, $grid:expr, |$j:ident| $body:block) => {{
        let c: usize = $c;
        if $edge {
            for ($j, _) in $grid.neighbours(c) $body
        } else {
            for &offset in $offsets.iter() {
                let $j = (c as isize + offset) as usize;
                $body
            }
        }
    }};
}

impl Routing {
    /// Routes water over `ground` (finite heights): outlets are the cells below `sea` and, with
    /// an open `border`, the edge. `rain` (one weight per cell, or empty for 1 everywhere) scales
    /// each cell's own area.
    pub(super) fn route(&mut self, ground: &[f32], grid: Grid, border: Border, sea: f32, rain: &[f32]) {
        let (w, h) = (grid.width, grid.height);
        let n = w * h;
        self.border = border;
        self.offsets = NEIGHBOURS.map(|(dx, dy)| dy * w as isize + dx);
        self.flags.clear();
        self.flags.resize(n, 0);
        // Row by row, into a slice: no division per cell, and the loop vectorises.
        for (y, (flags, row)) in self.flags.chunks_mut(w).zip(ground.chunks(w)).enumerate() {
            let edge_row = y == 0 || y == h - 1;
            for (x, (f, &g)) in flags.iter_mut().zip(row).enumerate() {
                let edge = edge_row || x == 0 || x == w - 1;
                let under_sea = g < sea;
                let outlet = under_sea || (edge && border == Border::Open);
                *f = (u8::from(under_sea) * SEA) | (u8::from(outlet) * OUTLET) | (u8::from(edge) * EDGE);
            }
        }
        if n > 0 && !self.flags.iter().any(|&f| f & OUTLET != 0) {
            // A closed map without sea drains to its lowest cell (the first of equals).
            let lowest = (0..n).min_by(|&a, &b| ground[a].total_cmp(&ground[b])).unwrap_or(0);
            self.flags[lowest] |= OUTLET;
        }
        self.direction.clear();
        self.direction.resize(n, NOWHERE);
        steepest_directions(&mut self.direction, ground, &self.flags, grid, None);
        self.spill.clear();
        self.spill.extend_from_slice(ground);
        self.order_drained(grid);
        if self.order.len() < n {
            self.fill_depressions(ground, grid);
        }
        self.sum_areas(grid, rain);
    }

    /// The cell that `c` drains to (itself for an outlet).
    pub(super) fn receiver(&self, c: usize) -> usize {
        match self.direction[c] {
            NOWHERE => c,
            k => (c as isize + self.offsets[k as usize]) as usize,
        }
    }

    /// Whether cell `c` is base level (the sea, an open edge, a closed map's sink).
    pub(super) fn is_outlet(&self, c: usize) -> bool {
        self.flags[c] & OUTLET != 0
    }

    /// The base-level cells ([`is_outlet`](Self::is_outlet)).
    pub(super) fn outlets(&self) -> CellMask<'_> {
        CellMask { flags: &self.flags, bit: OUTLET }
    }

    /// Whether cell `c` is under the sea.
    pub(super) fn is_sea(&self, c: usize) -> bool {
        self.flags[c] & SEA != 0
    }

    /// Whether cell `c` lies under a lake (its spill level above its ground).
    pub(super) fn is_lake(&self, c: usize) -> bool {
        self.flags[c] & LAKE != 0
    }

    /// Orders the cells whose way down ends at an outlet, from each outlet depth first up the
    /// donors (the neighbours that drain into a cell): consecutive cells of the order are mostly
    /// neighbours, which keeps the incision's and the areas' reads in cache. Marks them seen
    /// and drained.
    fn order_drained(&mut self, grid: Grid) {
        let n = self.direction.len();
        self.order.clear();
        // Exactly: growing by doubling would keep up to twice the map's cells.
        self.order.reserve_exact(n);
        // One outlet at a time: the stack holds only the donors waiting on one tree.
        for outlet in 0..n {
            if self.flags[outlet] & OUTLET != 0 {
                self.stack.clear();
                self.stack.push(outlet as u32);
                self.walk_up_donors(grid);
            }
        }
        for &c in &self.order {
            self.flags[c as usize] |= SEEN | DRAINED;
        }
    }

    /// Appends the cells on `stack` and everything that drains into them to the order, depth
    /// first, each after its receiver.
    fn walk_up_donors(&mut self, grid: Grid) {
        while let Some(c) = self.stack.pop() {
            let c = c as usize;
            self.order.push(c as u32);
            if self.flags[c] & EDGE == 0 {
                for (k, offset) in self.offsets.iter().enumerate() {
                    let j = (c as isize + offset) as usize;
                    if self.direction[j] == OPPOSITE[k] {
                        self.stack.push(j as u32);
                    }
                }
            } else {
                for (j, k) in grid.neighbours(c) {
                    if self.direction[j] == OPPOSITE[k] {
                        self.stack.push(j as u32);
                    }
                }
            }
        }
    }

    /// Fills the depressions that the cells not yet ordered drain into, from the drained cells
    /// around them, gives those cells their directions on the filled surface and orders them
    /// after their receivers. The raised surface is kept in `area` until the areas are summed.
    ///
    /// Two shortcuts keep most cells out of the heap, with the same surface as the plain flood:
    /// cells that the flood reaches below the surface it comes from (a lake's floor) are taken
    /// at once by a queue, and a cell reached above it
    /// whose unreached neighbours are all higher (a slope rising from the flood) is spread from
    /// at once, because those neighbours keep their ground whenever they are reached. Only cells with a
    /// lower unreached neighbour wait in the heap for their turn.
    fn fill_depressions(&mut self, ground: &[f32], grid: Grid) {
        let n = ground.len();
        let Routing { flags, area, spill, offsets, heap, pit, stack, .. } = self;
        area.clear();
        area.extend_from_slice(ground);
        heap.clear();
        pit.clear();
        stack.clear();
        for c in 0..n {
            if flags[c] & DRAINED == 0 {
                for_each_neighbour!(c, flags[c] & EDGE != 0, offsets, grid, |j| {
                    if flags[j] & (DRAINED | QUEUED) == DRAINED {
                        flags[j] |= QUEUED;
                        stack.push(j as u32);
                    }
                });
            }
        }
        loop {
            let c = if let Some(c) = pit.pop_front() {
                c as usize
            } else if let Some(c) = stack.pop() {
                let c = c as usize;
                let surface = area[c];
                let lower_unreached = any_neighbour(c, flags[c] & EDGE != 0, offsets, grid, |j| {
                    flags[j] & SEEN == 0 && ground[j] <= surface
                });
                if lower_unreached {
                    heap.push(Reverse(flood_key(surface, c)));
                    continue;
                }
                c
            } else if let Some(Reverse(key)) = heap.pop() {
                (key & 0xffff_ffff) as usize
            } else {
                break;
            };
            let surface = area[c];
            let above = surface.next_up();
            let from_spill = spill[c];
            for_each_neighbour!(c, flags[c] & EDGE != 0, offsets, grid, |j| {
                if flags[j] & SEEN != 0 {
                    continue;
                }
                flags[j] |= SEEN;
                let level = ground[j].max(from_spill);
                spill[j] = level;
                if level > ground[j] {
                    flags[j] |= LAKE;
                }
                if ground[j] <= surface {
                    area[j] = above;
                    pit.push_back(j as u32);
                } else {
                    area[j] = ground[j];
                    stack.push(j as u32);
                }
            });
        }
        // Directions down the filled surface: each undrained cell is above the cell the flood
        // reached it from, so each has one, and following them ends at a drained cell.
        let first_undrained = self.order.len();
        self.order.extend((0..n as u32).filter(|&c| self.flags[c as usize] & DRAINED == 0));
        let undrained = &self.order[first_undrained..];
        for &c in undrained {
            self.direction[c as usize] = NOWHERE;
        }
        steepest_directions(&mut self.direction, &self.area, &self.flags, grid, Some(undrained));
        // Ordered after their receivers: from those draining into drained cells up the donors.
        self.order.truncate(first_undrained);
        for c in 0..n {
            if self.flags[c] & DRAINED == 0 && self.flags[self.receiver(c)] & DRAINED != 0 {
                self.stack.clear();
                self.stack.push(c as u32);
                self.walk_up_donors(grid);
            }
        }
    }

    /// Drainage areas, summed from the top of every path down to its outlet.
    fn sum_areas(&mut self, grid: Grid, rain: &[f32]) {
        let cell = grid.cell_size * grid.cell_size;
        self.area.clear();
        if rain.is_empty() {
            self.area.resize(self.direction.len(), cell);
        } else {
            self.area.extend(rain.iter().map(|&r| cell * r));
        }
        for &c in self.order.iter().rev() {
            let c = c as usize;
            let r = self.receiver(c);
            if r != c {
                self.area[r] += self.area[c];
            }
        }
    }

    /// Frees the flood's heap and queues and the ordering stack (kept between time steps), for
    /// the outputs built from the routing.
    pub(super) fn release_scratch(&mut self) {
        self.heap = BinaryHeap::new();
        self.pit = VecDeque::new();
        self.stack = Vec::new();
    }

    /// Gives up the area and spill buffers (for outputs that keep them).
    pub(super) fn into_buffers(self) -> (Vec<f32>, Vec<f32>) {
        (self.area, self.spill)
    }
}

/// Whether `f` holds for any cell next to `c` (inside the map): by `offsets` inside it, with
/// bounds tests only on its `edge`.
#[inline(always)]
fn any_neighbour(
    c: usize,
    edge: bool,
    offsets: &[isize; 8],
    grid: Grid,
    mut f: impl FnMut(usize) -> bool,
) -> bool {
    if edge {
        grid.neighbours(c).any(|(j, _)| f(j))
    } else {
        offsets.iter().any(|&offset| f((c as isize + offset) as usize))
    }
}

/// Every cell's steepest way down `surface` (or only `cells`' when given), left `NOWHERE` where
/// a cell has no lower neighbour; outlets keep `NOWHERE`. The whole map goes a band of rows per
/// task, the rows inside the edge through a branch-free row kernel compiled per instruction-set
/// level (the same choices as the plain loop: the first of equal slopes).
fn steepest_directions(
    direction: &mut [u8],
    surface: &[f32],
    flags: &[u8],
    grid: Grid,
    cells: Option<&[u32]>,
) {
    let (w, h) = (grid.width, grid.height);
    let inverse = [1.0 / grid.distance(0), 1.0 / grid.distance(4)];
    let offsets = NEIGHBOURS.map(|(dx, dy)| dy * w as isize + dx);
    let steepest = |i: usize| -> u8 {
        let mut best = 0.0f32;
        let mut to = NOWHERE;
        let here = surface[i];
        let mut consider = |j: usize, k: usize| {
            let slope = (here - surface[j]) * inverse[k / 4];
            if slope > best {
                best = slope;
                to = k as u8;
            }
        };
        if flags[i] & EDGE == 0 {
            // Inside the map: no bounds to test.
            for (k, offset) in offsets.iter().enumerate() {
                consider((i as isize + offset) as usize, k);
            }
        } else {
            grid.neighbours(i).for_each(|(j, k)| consider(j, k));
        }
        to
    };
    let Some(cells) = cells else {
        let isa = Isa::best();
        for_each_chunk(direction, BAND_ROWS * w, |band, rows| {
            for (r, out) in rows.chunks_mut(w).enumerate() {
                let y = band * BAND_ROWS + r;
                let row = y * w..(y + 1) * w;
                if y == 0 || y + 1 == h || w < 3 {
                    for (x, d) in out.iter_mut().enumerate() {
                        if flags[row.start + x] & OUTLET == 0 {
                            *d = steepest(row.start + x);
                        }
                    }
                    continue;
                }
                let around = [
                    &surface[row.start - w..row.end - w],
                    &surface[row.clone()],
                    &surface[row.start + w..row.end + w],
                ];
                steepest_row_at(isa, around, &flags[row.clone()], inverse, out);
                for x in [0, w - 1] {
                    if flags[row.start + x] & OUTLET == 0 {
                        out[x] = steepest(row.start + x);
                    }
                }
            }
        });
        return;
    };
    for &c in cells {
        direction[c as usize] = steepest(c as usize);
    }
}

crate::isa::dispatch! {
    /// [`steepest_row`] compiled for a level (the same choices at every level).
    fn steepest_row_at(around: [&[f32]; 3], flags: &[u8], inverse: [f32; 2], out: &mut [u8]) => steepest_row
}

/// The steepest way down of a row's cells inside the map's edge (all but the first and the
/// last), from the rows `around` it (above, itself, below); outlets keep their direction.
#[inline(always)]
fn steepest_row(around: [&[f32]; 3], flags: &[u8], inverse: [f32; 2], out: &mut [u8]) {
    let w = out.len();
    let n = w - 2;
    let [above, here, below] = around;
    // In the order of `NEIGHBOURS`: east, west, south, north, then the diagonals.
    let neighbours: [&[f32]; 8] = [
        &here[2..],
        &here[..n],
        &below[1..],
        &above[1..],
        &below[2..],
        &below[..n],
        &above[2..],
        &above[..n],
    ]
    .map(|row| &row[..n]);
    let centre = &here[1..n + 1];
    let flags = &flags[1..n + 1];
    let out = &mut out[1..n + 1];
    for x in 0..n {
        let h = centre[x];
        let mut best = 0.0f32;
        let mut to = u32::from(NOWHERE);
        for (k, row) in neighbours.iter().enumerate() {
            let slope = (h - row[x]) * inverse[k / 4];
            // Selects, not branches: the loop vectorises.
            to = if slope > best { k as u32 } else { to };
            best = if slope > best { slope } else { best };
        }
        out[x] = if flags[x] & OUTLET == 0 { to as u8 } else { out[x] };
    }
}

#[cfg(test)]
mod tests;
