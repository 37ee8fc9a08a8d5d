//! [`RiverNetwork`]: the endless world's rivers, solved region by region when first asked for,
//! kept while in use, and carved into any window of the field.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use crate::grid::GridWindow;
use crate::rivers::RiverWorld;
use crate::rivers::carve::{ChannelShape, PlacedSegment};
use crate::rivers::near::{RiverWater, RiversNear};
use crate::rivers::region::{
    DRAINAGE_CELLS_PER_UNIT, REGION_CELLS, REGION_MARGIN, RegionKey, RegionRivers, RiverSegment, cell_within,
    cells_centred_in,
};

/// Regions a network keeps at once unless told otherwise ([`RiverNetwork::with_capacity`]);
/// past its capacity the least recently used region is let go (and solved again, to the same
/// bits, if it is needed again).
pub const DEFAULT_KEPT_REGIONS: usize = 64;

/// A region's solve, shared by every build that needs it: the first one solves it, the others
/// wait for that one.
type RegionCell = Arc<OnceLock<Arc<RegionRivers>>>;

/// The kept regions, by the time they were last asked for.
#[derive(Default)]
struct Kept {
    regions: HashMap<RegionKey, (RegionCell, u64)>,
    clock: u64,
    solves: u64,
}

/// The rivers and lakes of one [`RiverWorld`], a pure function of its settings and the world
/// position: every region is routed on the same window whoever asks first, so any window carved
/// with it gets the same bits at the same point. Shared between threads; regions are solved on
/// the threads that ask for them.
pub struct RiverNetwork {
    world: RiverWorld,
    shape: ChannelShape,
    capacity: usize,
    kept: Mutex<Kept>,
}

impl std::fmt::Debug for RiverNetwork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RiverNetwork").field("world", &self.world).finish_non_exhaustive()
    }
}

impl RiverNetwork {
    /// The network of `world` (its settings clamped), with no region solved yet.
    pub fn new(world: RiverWorld) -> RiverNetwork {
        let world = world.clamped();
        let shape = ChannelShape {
            depth: world.rivers.channel_depth / world.height_scale,
            valley: world.rivers.valley_width / world.world_size,
            world_size: world.world_size,
        };
        RiverNetwork { world, shape, capacity: DEFAULT_KEPT_REGIONS, kept: Mutex::new(Kept::default()) }
    }

    /// The network keeping up to `regions` regions (at least 4): enough for what every focus
    /// sees (see [`regions_in_view`](Self::regions_in_view)), or regions are solved again and
    /// again.
    pub fn with_capacity(self, regions: usize) -> RiverNetwork {
        RiverNetwork { capacity: regions.max(4), ..self }
    }

    /// How many regions can hold rivers that reach into a square `2 · view` world units across
    /// (the chunks around one focus): the regions it touches and the ring around them.
    pub fn regions_in_view(&self, view: f32) -> usize {
        let region = REGION_CELLS as f64 / DRAINAGE_CELLS_PER_UNIT * f64::from(self.world.world_size);
        let across = (2.0 * f64::from(view.max(0.0)) / region).ceil().min(1e4) as usize + 3;
        across * across
    }

    /// What it is the network of (clamped).
    pub fn world(&self) -> &RiverWorld {
        &self.world
    }

    /// Region `key`'s rivers and lakes: kept ones, or solved now (on this thread, or by another
    /// that is solving it already).
    pub fn region(&self, key: RegionKey) -> Arc<RegionRivers> {
        let cell = {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            kept.clock += 1;
            let now = kept.clock;
            let cell = match kept.regions.get_mut(&key) {
                Some((cell, used)) => {
                    *used = now;
                    cell.clone()
                }
                None => {
                    kept.solves += 1;
                    let cell = RegionCell::default();
                    kept.regions.insert(key, (cell.clone(), now));
                    cell
                }
            };
            if kept.regions.len() > self.capacity {
                let oldest = kept.regions.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| *k);
                if let Some(oldest) = oldest {
                    kept.regions.remove(&oldest);
                }
            }
            cell
        };
        cell.get_or_init(|| Arc::new(RegionRivers::solve(&self.world, key))).clone()
    }

    /// How many regions it keeps at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many regions are kept now.
    pub fn kept_regions(&self) -> usize {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).regions.len()
    }

    /// The memory the kept regions' rivers and lakes take, bytes (their arrays' capacities).
    pub fn kept_bytes(&self) -> usize {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let solved = kept.regions.values().filter_map(|(cell, _)| cell.get());
        solved
            .map(|r| {
                std::mem::size_of::<RegionRivers>()
                    + r.segments.capacity() * std::mem::size_of::<RiverSegment>()
                    + r.lakes.capacity() * std::mem::size_of::<([i64; 2], f32)>()
            })
            .sum()
    }

    /// How many region solves were started so far (a region let go and needed again counts
    /// again).
    pub fn solves(&self) -> u64 {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).solves
    }

    /// The widest a river can be, map units: its width factor times the square root of the
    /// largest area a region's window can drain.
    fn widest(&self) -> f64 {
        let side = (REGION_CELLS + 2 * REGION_MARGIN) as f64;
        let cell = f64::from(self.world.world_size) / DRAINAGE_CELLS_PER_UNIT;
        f64::from(self.world.rivers.width) * side * cell / f64::from(self.world.world_size)
    }

    /// The river segments that can reach into the map rectangle `[x_min, y_min, x_max, y_max]`
    /// (a segment's channel and valley), in a fixed order: by region, then as the region keeps
    /// them. Solves the regions it needs.
    pub fn segments_near(&self, rect: [f64; 4]) -> Vec<RiverSegment> {
        self.placed_near(rect).into_iter().map(|(s, _)| s).collect()
    }

    /// The river segments whose upper end lies in the map rectangle `[x_min, y_min, x_max,
    /// y_max)` (the far edges excluded, as for [`lakes_in`](Self::lakes_in)): rectangles that
    /// tile the map hold every segment once. In the order of
    /// [`segments_near`](Self::segments_near), so [`river_runs`](crate::river_runs) joins them.
    pub fn segments_starting_in(&self, rect: [f64; 4]) -> Vec<RiverSegment> {
        let mut segments = self.segments_near(rect);
        segments.retain(|s| s.starts_in(rect));
        segments
    }

    /// The first and last region (by column and row) whose rivers can reach into the map
    /// rectangle `rect`: a region's segments end at most one cell outside it, and cut at most
    /// half the widest river's width and the valley beyond their line.
    fn regions_near(&self, rect: [f64; 4]) -> (RegionKey, RegionKey) {
        let r = 0.5 * self.widest() + f64::from(self.shape.valley) + 1.0 / DRAINAGE_CELLS_PER_UNIT;
        let region_of = |x: f64, y: f64| {
            let cell = |v: f64| (v * DRAINAGE_CELLS_PER_UNIT).floor().clamp(-9e15, 9e15) as i64;
            RegionKey::of_cell([cell(x), cell(y)])
        };
        (region_of(rect[0] - r, rect[1] - r), region_of(rect[2] + r, rect[3] + r))
    }

    /// Whether every region that carving or listing the map rectangle `rect` needs is solved
    /// already (so that doing it solves none); true with rivers off.
    pub fn regions_ready(&self, rect: [f64; 4]) -> bool {
        if !self.world.rivers.enabled {
            return true;
        }
        let (lo, hi) = self.regions_near(rect);
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        (lo.x..=hi.x).all(|x| {
            (lo.y..=hi.y)
                .all(|y| kept.regions.get(&RegionKey { x, y }).is_some_and(|(c, _)| c.get().is_some()))
        })
    }

    /// [`segments_near`](Self::segments_near), each with its placement.
    fn placed_near(&self, rect: [f64; 4]) -> Vec<(RiverSegment, PlacedSegment)> {
        if !self.world.rivers.enabled {
            return Vec::new();
        }
        let (lo, hi) = self.regions_near(rect);
        let mut placed = Vec::new();
        for x in lo.x..=hi.x {
            for y in lo.y..=hi.y {
                let region = self.region(RegionKey { x, y });
                for s in &region.segments {
                    let p = PlacedSegment::new(s, &self.shape);
                    let [x0, y0, x1, y1] = p.reach;
                    if x1 >= rect[0] && x0 <= rect[2] && y1 >= rect[1] && y0 <= rect[3] {
                        placed.push((*s, p));
                    }
                }
            }
        }
        placed
    }

    /// The lake cells whose centres lie in the map rectangle `[x_min, y_min, x_max, y_max)` (the
    /// far edges excluded), each with its lake's surface (noise heights), by region and then row
    /// by row. Solves the regions it needs.
    pub fn lakes_in(&self, rect: [f64; 4]) -> Vec<([i64; 2], f32)> {
        if !self.world.rivers.enabled || !self.world.rivers.lakes {
            return Vec::new();
        }
        let Some([lo, hi]) = cells_centred_in(rect) else { return Vec::new() };
        let (first, last) = (RegionKey::of_cell(lo), RegionKey::of_cell(hi));
        let mut lakes = Vec::new();
        for x in first.x..=last.x {
            for y in first.y..=last.y {
                let region = self.region(RegionKey { x, y });
                lakes.extend(region.lakes.iter().filter(|(c, _)| cell_within(*c, [lo, hi])));
            }
        }
        lakes
    }

    /// The rivers and lakes that reach the map rectangle `[x_min, y_min, x_max, y_max]`, placed
    /// for carving and asking for water at its points ([`RiversNear`]). Solves the regions it
    /// needs.
    pub fn near(&self, rect: [f64; 4]) -> RiversNear {
        let half = 0.5 / DRAINAGE_CELLS_PER_UNIT;
        let mut lakes = self.lakes_in([rect[0] - half, rect[1] - half, rect[2] + half, rect[3] + half]);
        lakes.sort_unstable_by_key(|(c, _)| (c[1], c[0]));
        RiversNear { lakes, ..self.segments_reaching(rect) }
    }

    /// The segments that reach `rect`, placed, without its lakes: what carving needs.
    fn segments_reaching(&self, rect: [f64; 4]) -> RiversNear {
        RiversNear { shape: self.shape, placed: self.placed_near(rect), lakes: Vec::new() }
    }

    /// Carves the rivers' valleys into `heights` (and `gradients`, per map unit, unless empty)
    /// of the field's samples of `window` (post-processed noise heights): the same bits at the
    /// same map position whatever the window.
    pub fn carve(&self, window: GridWindow, heights: &mut [f32], gradients: &mut [[f32; 2]]) {
        let GridWindow { origin, width, height, pixels_per_unit } = window;
        let at = |o: i64, k: u32| (o as f64 + f64::from(k)) / pixels_per_unit;
        let rect = [at(origin[0], 0), at(origin[1], 0), at(origin[0], width), at(origin[1], height)];
        self.segments_reaching(rect).carve(window, heights, gradients);
    }

    /// The ground `h` with gradient `g` (per map unit) at map position `p` carved: the point
    /// form of [`carve`](Self::carve), the same bits.
    pub fn carve_point(&self, p: [f64; 2], h: f32, g: [f32; 2]) -> (f32, [f32; 2]) {
        self.segments_reaching([p[0], p[1], p[0], p[1]]).carve_point(p, h, g)
    }

    /// The river or lake at map position `p` (see [`RiversNear::water_at`]). Solves the regions
    /// it needs: for many points of one rectangle, [`near`](Self::near) it once.
    pub fn water_at(&self, p: [f64; 2]) -> Option<RiverWater> {
        self.near([p[0], p[1], p[0], p[1]]).water_at(p)
    }
}

#[cfg(test)]
impl RiverNetwork {
    /// The channels' shape in noise heights and map units.
    pub(crate) fn shape_for_tests(&self) -> ChannelShape {
        self.shape
    }
}
