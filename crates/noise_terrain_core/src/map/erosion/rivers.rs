//! Where water goes, as data a game can use: the drainage-area map, the lakes, and the river
//! network as polylines from sources to the sea, the border or a confluence.
//!
//! A cell is part of a river when the area draining through it reaches
//! [`RiverSettings::min_area`]. A polyline starts at every river cell that no river flows into (a
//! source), follows the receivers down, and goes on through each confluence where it is the larger
//! branch (the one with more area; the lower cell index of equals); the smaller branch ends on the
//! confluence, whose cell is a vertex of both lines. Every river cell is on exactly one line
//! (besides being the last vertex of the branches that join there).

use super::drainage::{Border, Grid, Routing};
use crate::advanced::Frame;
use crate::clamp::clamp_or;
use crate::{Heightmap, HeightmapError};

/// Where the rivers' start area may lie, world units².
pub const RIVER_AREA_RANGE: (f32, f32) = (1e-6, 1e12);
/// The rivers' width factor: width = factor × √(area).
pub const RIVER_WIDTH_RANGE: (f32, f32) = (0.0, 10.0);

/// Which cells count as rivers and how wide they are.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct RiverSettings {
    /// Drainage area where a river starts, world units², [`RIVER_AREA_RANGE`].
    pub min_area: f32,
    /// Width = `width` × √(drainage area) world units, [`RIVER_WIDTH_RANGE`] (hydraulic
    /// geometry: a river's width grows with the square root of its discharge).
    pub width: f32,
}

impl Default for RiverSettings {
    fn default() -> Self {
        Self { min_area: 25.0, width: 0.02 }
    }
}

impl RiverSettings {
    /// The settings with every value in range (NaN becomes the default).
    pub fn clamped(&self) -> Self {
        let d = Self::default();
        RiverSettings {
            min_area: clamp_or(self.min_area, RIVER_AREA_RANGE, d.min_area),
            width: clamp_or(self.width, RIVER_WIDTH_RANGE, d.width),
        }
    }
}

/// One vertex of a river.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RiverPoint {
    /// Column of its cell in the map.
    pub x: u32,
    /// Row of its cell in the map.
    pub y: u32,
    /// The water surface, noise height: the ground, or a lake's level where it crosses one.
    pub height: f32,
    /// Area draining through it, world units².
    pub area: f32,
    /// Estimated width, world units.
    pub width: f32,
}

/// Where a river's last vertex is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RiverEnd {
    /// On a larger river: the last vertex is one of that river's.
    Confluence,
    /// In the sea.
    Sea,
    /// At the map's edge (an open border, or where a cropped map was cut).
    Border,
    /// In the one cell a closed map without sea drains to.
    Sink,
}

/// A river from its source (or from where a crop cut it) to its end, downstream.
#[derive(Clone, Debug, PartialEq)]
pub struct River {
    /// Vertices, one per cell, downstream.
    pub points: Vec<RiverPoint>,
    /// What the last vertex is.
    pub end: RiverEnd,
}

/// The volume budget of a landscape evolution, in noise heights summed over cells: the change of
/// the map's volume is `uplifted − eroded − left`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LandscapeBudget {
    /// Raised by uplift.
    pub uplifted: f64,
    /// Cut by rivers (it leaves with the water).
    pub eroded: f64,
    /// Moved by hillslope diffusion into base-level cells (the sea, an open edge), which keep
    /// their height: it leaves the map (negative where diffusion brought material in from them).
    pub left: f64,
}

/// Where water goes on a map: the outputs of
/// [`evolve_landscape`](crate::evolve_landscape) and of [`drainage_of`](crate::advanced::drainage_of).
#[derive(Clone, Debug, PartialEq)]
pub struct Drainage {
    /// Area draining through each cell, world units².
    pub area: Heightmap,
    /// Depth of the lake over each cell, noise heights (0 where none).
    pub lakes: Heightmap,
    /// The river network.
    pub rivers: Vec<River>,
    /// World units between cells (for widths in cells).
    pub cell_size: f32,
    /// The evolution's volume budget (zeros from [`drainage_of`](crate::advanced::drainage_of)).
    pub budget: LandscapeBudget,
}

impl Drainage {
    /// Reads drainage, lakes and rivers off a routing of `ground` (noise heights), keeping its
    /// area and spill buffers as the maps.
    pub(super) fn from_routing(
        mut routing: Routing,
        ground: &[f32],
        grid: Grid,
        settings: &RiverSettings,
    ) -> Drainage {
        let (w, h) = (grid.width as u32, grid.height as u32);
        routing.release_scratch();
        let rivers = trace_rivers(&routing, grid, &settings.clamped());
        let (area, mut lakes) = routing.into_buffers();
        lakes.iter_mut().zip(ground).for_each(|(l, g)| *l -= g);
        let map = |values: Vec<f32>| Heightmap::from_samples(w, h, values).expect("the map's size");
        Drainage {
            area: map(area),
            lakes: map(lakes),
            rivers,
            cell_size: grid.cell_size,
            budget: LandscapeBudget::default(),
        }
    }

    /// The part inside `frame` (see [`Heightmap::crop`]); rivers are cut where they leave it
    /// (the cut ends count as [`RiverEnd::Border`]) and their cells shifted to the frame.
    pub fn crop(&self, frame: Frame) -> Result<Drainage, HeightmapError> {
        let inside = |p: &RiverPoint| {
            p.x >= frame.x && p.y >= frame.y && p.x < frame.x + frame.width && p.y < frame.y + frame.height
        };
        let mut rivers = Vec::new();
        for river in &self.rivers {
            let mut run: Vec<RiverPoint> = Vec::new();
            let count = river.points.len();
            for (k, p) in river.points.iter().enumerate() {
                if inside(p) {
                    run.push(RiverPoint { x: p.x - frame.x, y: p.y - frame.y, ..*p });
                }
                let cut = !inside(p) || k + 1 == count;
                if cut && !run.is_empty() {
                    let whole_end = k + 1 == count && inside(p);
                    let end = if whole_end { river.end } else { RiverEnd::Border };
                    if run.len() >= 2 {
                        rivers.push(River { points: std::mem::take(&mut run), end });
                    }
                    run.clear();
                }
            }
        }
        Ok(Drainage {
            area: self.area.crop(frame)?,
            lakes: self.lakes.crop(frame)?,
            rivers,
            cell_size: self.cell_size,
            budget: self.budget,
        })
    }

    /// Paints lakes and rivers into RGBA8 `texels` (one per cell) in `water`'s colour: lakes
    /// everywhere they cover, darker where deeper; rivers as discs along their lines, as wide as
    /// their width estimate and at least one cell. The sea (cells below `sea_level`) is left
    /// alone.
    pub fn paint(&self, texels: &mut [u8], heights: &Heightmap, sea_level: f32, water: [u8; 3]) {
        let (w, h) = (self.area.width() as i64, self.area.height() as i64);
        if texels.len() < (w * h * 4) as usize {
            return;
        }
        let mut blend = |i: usize, share: f32, darker: f32| {
            let texel = &mut texels[i * 4..i * 4 + 3];
            for (c, target) in texel.iter_mut().zip(water) {
                let mixed = *c as f32 * (1.0 - share) + target as f32 * share * darker;
                *c = mixed.round().clamp(0.0, 255.0) as u8;
            }
        };
        for (i, &depth) in self.lakes.samples().iter().enumerate() {
            if depth > 0.0 && heights.samples()[i] >= sea_level {
                // A twentieth of the height range of water is a deep lake.
                blend(i, 0.85, 1.0 - (depth * 20.0).min(0.35));
            }
        }
        let mut painted = vec![false; (w * h) as usize];
        for river in &self.rivers {
            for pair in river.points.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                let radius = 0.5 * a.width.max(b.width) / self.cell_size.max(1e-6);
                let radius = radius.clamp(0.5, 64.0);
                // Discs every half cell along the segment.
                let (ax, ay, bx, by) = (a.x as f32, a.y as f32, b.x as f32, b.y as f32);
                let stamps = ((bx - ax).hypot(by - ay) * 2.0).ceil().max(1.0) as u32;
                for s in 0..=stamps {
                    let t = s as f32 / stamps as f32;
                    let (cx, cy) = (ax + (bx - ax) * t, ay + (by - ay) * t);
                    let r = radius.ceil() as i64;
                    for y in (cy.round() as i64 - r).max(0)..=(cy.round() as i64 + r).min(h - 1) {
                        for x in (cx.round() as i64 - r).max(0)..=(cx.round() as i64 + r).min(w - 1) {
                            let i = (y * w + x) as usize;
                            let near = (x as f32 - cx).hypot(y as f32 - cy) <= radius;
                            if near && !painted[i] && heights.samples()[i] >= sea_level {
                                painted[i] = true;
                                blend(i, 0.9, 1.0);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The river network of a routing (see the module's description).
fn trace_rivers(routing: &Routing, grid: Grid, settings: &RiverSettings) -> Vec<River> {
    let n = grid.width * grid.height;
    let is_river = |i: usize| routing.area[i] >= settings.min_area;
    // For each cell, its largest river donor (the main branch through it), if any.
    let mut main_donor = vec![u32::MAX; n];
    for c in (0..n).filter(|&c| is_river(c)) {
        let r = routing.receiver(c);
        if r == c {
            continue;
        }
        let best = main_donor[r];
        let larger = best == u32::MAX || {
            let (a, b) = (routing.area[c], routing.area[best as usize]);
            a > b || (a == b && (c as u32) < best)
        };
        if larger {
            main_donor[r] = c as u32;
        }
    }
    let point = |i: usize| {
        let area = routing.area[i];
        RiverPoint {
            x: (i % grid.width) as u32,
            y: (i / grid.width) as u32,
            height: routing.spill[i],
            area,
            width: settings.width * area.sqrt(),
        }
    };
    let mut rivers = Vec::new();
    for source in (0..n).filter(|&i| is_river(i) && main_donor[i] == u32::MAX && !routing.is_outlet(i)) {
        let mut points = vec![point(source)];
        let mut at = source;
        let end = loop {
            let r = routing.receiver(at);
            if r == at {
                break outlet_kind(routing, grid, at);
            }
            points.push(point(r));
            if routing.is_outlet(r) {
                break outlet_kind(routing, grid, r);
            }
            if main_donor[r] != at as u32 {
                break RiverEnd::Confluence;
            }
            at = r;
        };
        rivers.push(River { points, end });
    }
    rivers
}

/// What kind of outlet cell `i` is.
fn outlet_kind(routing: &Routing, grid: Grid, i: usize) -> RiverEnd {
    let (x, y) = (i % grid.width, i / grid.width);
    let edge = x == 0 || y == 0 || x + 1 == grid.width || y + 1 == grid.height;
    if routing.is_sea(i) {
        RiverEnd::Sea
    } else if edge && routing.border == Border::Open {
        RiverEnd::Border
    } else {
        RiverEnd::Sink
    }
}
