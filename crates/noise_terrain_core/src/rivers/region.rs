//! One region of the endless world's drainage: a square of the drainage grid, fixed by world
//! position, whose rivers are found on a window around it and kept where they start inside it.

use crate::grid::GridWindow;
use crate::map::erosion::{Border, MapWorld, drainage_of};
use crate::map::heightmap::Heightmap;
use crate::rivers::RiverWorld;

/// Drainage cells per map unit: the grid the endless rivers are routed on, the same for every
/// chunk size and level of detail.
pub const DRAINAGE_CELLS_PER_UNIT: f64 = 256.0;
/// Cells per side of a region: the square whose river segments one solve keeps.
pub const REGION_CELLS: i64 = 128;
/// Cells of routed ground around a region on every side: rivers whose catchment reaches farther
/// out are routed as if their water came in at the window's edge.
pub const REGION_MARGIN: i64 = 64;

/// A region of the drainage grid: cells `x · REGION_CELLS ..` by `y · REGION_CELLS ..`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegionKey {
    /// Column of regions.
    pub x: i64,
    /// Row of regions.
    pub y: i64,
}

impl RegionKey {
    /// The region holding drainage cell `cell`.
    pub fn of_cell(cell: [i64; 2]) -> RegionKey {
        RegionKey { x: cell[0].div_euclid(REGION_CELLS), y: cell[1].div_euclid(REGION_CELLS) }
    }

    /// Its first (lowest) cell.
    pub fn first_cell(self) -> [i64; 2] {
        [self.x.saturating_mul(REGION_CELLS), self.y.saturating_mul(REGION_CELLS)]
    }

    /// Whether drainage cell `cell` lies in it.
    pub fn contains(self, cell: [i64; 2]) -> bool {
        RegionKey::of_cell(cell) == self
    }
}

/// A river's stretch from one drainage cell to the next one down, owned by the region its upper
/// cell lies in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RiverSegment {
    /// Drainage cells of its upper and lower end (cell `[i, j]` lies at map position
    /// `[i, j] / DRAINAGE_CELLS_PER_UNIT`).
    pub cells: [[i64; 2]; 2],
    /// The water surface at each end, noise heights (post-processed, as the chunks' heights):
    /// never higher at the lower end.
    pub water: [f32; 2],
    /// Area draining through each end, world units².
    pub area: [f32; 2],
    /// The river's width at each end, world units.
    pub width: [f32; 2],
}

impl RiverSegment {
    /// Its ends' map positions.
    pub fn positions(&self) -> [[f64; 2]; 2] {
        self.cells.map(|c| c.map(|v| v as f64 / DRAINAGE_CELLS_PER_UNIT))
    }

    /// Whether its upper end lies in the map rectangle `[x_min, y_min, x_max, y_max)` (the far
    /// edges excluded: rectangles that tile the map hold every segment once).
    pub fn starts_in(&self, rect: [f64; 4]) -> bool {
        let [[x, y], _] = self.positions();
        x >= rect[0] && x < rect[2] && y >= rect[1] && y < rect[3]
    }
}

/// The first and last drainage cell (by column and by row) whose centres (cell `c` at map
/// position `c / DRAINAGE_CELLS_PER_UNIT`) lie in the map rectangle `[x_min, y_min, x_max,
/// y_max)`; `None` where none does.
pub(crate) fn cells_centred_in(rect: [f64; 4]) -> Option<[[i64; 2]; 2]> {
    let cell = |v: f64| (v * DRAINAGE_CELLS_PER_UNIT).ceil().clamp(-9e15, 9e15) as i64;
    let (lo, hi) = ([cell(rect[0]), cell(rect[1])], [cell(rect[2]) - 1, cell(rect[3]) - 1]);
    (hi[0] >= lo[0] && hi[1] >= lo[1]).then_some([lo, hi])
}

/// Whether `cell` lies in the block of cells from `lo` to `hi` (both included).
pub(crate) fn cell_within(cell: [i64; 2], [lo, hi]: [[i64; 2]; 2]) -> bool {
    (lo[0]..=hi[0]).contains(&cell[0]) && (lo[1]..=hi[1]).contains(&cell[1])
}

/// `segments` in a network's order (as [`RiverNetwork::segments_near`](crate::RiverNetwork::segments_near)
/// gives them, or any part of that order) cut into runs of consecutive segments that meet: each
/// run one river's stretch, downstream.
pub fn river_runs(segments: &[RiverSegment]) -> impl Iterator<Item = &[RiverSegment]> {
    segments.chunk_by(|a, b| a.cells[1] == b.cells[0])
}

/// What one region's solve keeps: the river segments that start in it and its lakes.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionRivers {
    /// The region.
    pub key: RegionKey,
    /// River segments whose upper cell lies in the region, rivers from their sources down, each
    /// river's segments in order.
    pub segments: Vec<RiverSegment>,
    /// The region's cells under a lake (none with lakes off), row by row, each with the lake's
    /// surface in noise heights.
    pub lakes: Vec<([i64; 2], f32)>,
}

impl RegionRivers {
    /// Routes the water of `world` over region `key`'s window and keeps what lies in the region.
    pub fn solve(world: &RiverWorld, key: RegionKey) -> RegionRivers {
        let first = key.first_cell();
        let origin = [first[0].saturating_sub(REGION_MARGIN), first[1].saturating_sub(REGION_MARGIN)];
        let side = (REGION_CELLS + 2 * REGION_MARGIN) as u32;
        let window =
            GridWindow { origin, width: side, height: side, pixels_per_unit: DRAINAGE_CELLS_PER_UNIT };
        let mut ground =
            Heightmap::generate_region(&world.noise, origin, side, side, DRAINAGE_CELLS_PER_UNIT)
                .expect("a region's window is within the size limits");
        world.post.apply_in_world(&mut ground, window, world.noise.value_bounds());
        let map_world = MapWorld {
            cell_size: (f64::from(world.world_size) / DRAINAGE_CELLS_PER_UNIT) as f32,
            height_scale: world.height_scale,
            sea_level: world.sea_level,
        };
        let drainage = drainage_of(&ground, &map_world, Border::Open, None, &world.rivers.river_settings());
        let cell = |x: u32, y: u32| [origin[0] + i64::from(x), origin[1] + i64::from(y)];
        let mut segments = Vec::new();
        for river in &drainage.rivers {
            for pair in river.points.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                let upper = cell(a.x, a.y);
                if key.contains(upper) {
                    segments.push(RiverSegment {
                        cells: [upper, cell(b.x, b.y)],
                        // The spill level falls along every path; `min` keeps it so through rounding.
                        water: [a.height, b.height.min(a.height)],
                        area: [a.area, b.area],
                        width: [a.width, b.width],
                    });
                }
            }
        }
        let mut lakes = Vec::new();
        if world.rivers.lakes {
            let (n, m) = (REGION_CELLS as usize, REGION_MARGIN as usize);
            for j in m..m + n {
                for i in m..m + n {
                    let at = j * side as usize + i;
                    let (depth, floor) = (drainage.lakes.samples()[at], ground.samples()[at]);
                    if depth > 0.0 && floor >= world.sea_level {
                        lakes.push((cell(i as u32, j as u32), floor + depth));
                    }
                }
            }
        }
        RegionRivers { key, segments, lakes }
    }
}
