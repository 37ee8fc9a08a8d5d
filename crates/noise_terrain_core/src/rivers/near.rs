//! [`RiversNear`]: the rivers and lakes that reach a rectangle of the map, placed once for
//! carving and asking for water at many points of it.

use crate::grid::GridWindow;
use crate::rivers::carve::{ChannelShape, PlacedSegment, carve_point};
use crate::rivers::region::{DRAINAGE_CELLS_PER_UNIT, RiverSegment, cell_within, cells_centred_in};

/// The water at a point of the map (see [`RiversNear::water_at`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RiverWater {
    /// In a river's channel: within half its width of its line.
    River {
        /// The water's surface there, a noise height (as the chunks' heights).
        surface: f32,
        /// The river's width, world units.
        width: f32,
        /// Which way it flows: a unit direction in map `[x, y]` (world `[x, z]`).
        flow: [f32; 2],
    },
    /// On a lake: within the lake's drainage cell around the point.
    Lake {
        /// The lake's surface, a noise height.
        surface: f32,
    },
}

/// The river segments and lake cells that reach a map rectangle (see
/// [`RiverNetwork::near`](crate::RiverNetwork::near)): carving a point of the rectangle or asking
/// for its water looks only at these, with the same bits as the network's own
/// [`carve`](crate::RiverNetwork::carve).
#[derive(Clone, Debug)]
pub struct RiversNear {
    pub(crate) shape: ChannelShape,
    /// The segments whose channel or valley reaches the rectangle, in the network's order (ties
    /// between equally deep cuts go to the first, as everywhere).
    pub(crate) placed: Vec<(RiverSegment, PlacedSegment)>,
    /// The lake cells within half a cell of the rectangle, sorted by row and then column.
    pub(crate) lakes: Vec<([i64; 2], f32)>,
}

impl RiversNear {
    /// The segments that reach the rectangle, in the network's order.
    pub fn segments(&self) -> impl Iterator<Item = &RiverSegment> {
        self.placed.iter().map(|(s, _)| s)
    }

    /// The segments whose upper end lies in the map rectangle `[x_min, y_min, x_max, y_max)`, a
    /// part of the rectangle these are near: the network's
    /// [`segments_starting_in`](crate::RiverNetwork::segments_starting_in), in its order.
    pub fn segments_starting_in(&self, rect: [f64; 4]) -> Vec<RiverSegment> {
        self.segments().filter(|s| s.starts_in(rect)).copied().collect()
    }

    /// The lake cells whose centres lie in the map rectangle `[x_min, y_min, x_max, y_max)`, a
    /// part of the rectangle these are near, row by row, each with its lake's surface:
    /// [`RiverNetwork::lakes_in`](crate::RiverNetwork::lakes_in)'s cells.
    pub fn lakes_in(&self, rect: [f64; 4]) -> Vec<([i64; 2], f32)> {
        let Some(block) = cells_centred_in(rect) else { return Vec::new() };
        self.lakes.iter().filter(|(c, _)| cell_within(*c, block)).copied().collect()
    }

    /// Whether any river's channel or valley can reach map point `p`: where none does, carving
    /// leaves the ground as it is.
    pub fn reaches(&self, p: [f64; 2]) -> bool {
        self.placed.iter().any(|(_, s)| s.reaches_row(p[1]) && s.reaches_column(p[0]))
    }

    /// The ground `h` with gradient `g` (per map unit) at map point `p` of the rectangle carved by
    /// the rivers' valleys, and its gradient: the bits of the network's
    /// [`carve_point`](crate::RiverNetwork::carve_point).
    pub fn carve_point(&self, p: [f64; 2], h: f32, g: [f32; 2]) -> (f32, [f32; 2]) {
        let near =
            self.placed.iter().map(|(_, s)| s).filter(|s| s.reaches_row(p[1]) && s.reaches_column(p[0]));
        carve_point(&self.shape, near, p, h, g)
    }

    /// Carves the valleys into `heights` (and `gradients`, per map unit, unless empty) of the
    /// samples of `window`, which must lie in the rectangle (see
    /// [`RiverNetwork::carve`](crate::RiverNetwork::carve)).
    pub fn carve(&self, window: GridWindow, heights: &mut [f32], gradients: &mut [[f32; 2]]) {
        if self.placed.is_empty() {
            return;
        }
        let GridWindow { origin, width, height, pixels_per_unit } = window;
        let at = |o: i64, k: u32| (o as f64 + f64::from(k)) / pixels_per_unit;
        let width = width as usize;
        let with_gradients = gradients.len() == heights.len();
        let mut row_segments: Vec<&PlacedSegment> = Vec::new();
        for (j, row) in heights.chunks_exact_mut(width).enumerate().take(height as usize) {
            let y = at(origin[1], j as u32);
            row_segments.clear();
            row_segments.extend(self.placed.iter().map(|(_, s)| s).filter(|s| s.reaches_row(y)));
            if row_segments.is_empty() {
                continue;
            }
            for (i, h) in row.iter_mut().enumerate() {
                let x = at(origin[0], i as u32);
                let near = row_segments.iter().copied().filter(|s| s.reaches_column(x));
                let k = j * width + i;
                let g = if with_gradients { gradients[k] } else { [0.0; 2] };
                let (carved, carved_gradient) = carve_point(&self.shape, near, [x, y], *h, g);
                *h = carved;
                if with_gradients {
                    gradients[k] = carved_gradient;
                }
            }
        }
    }

    /// The river or lake at map point `p` of the rectangle: in a river within half its width of
    /// its line (the nearest river where channels meet), on a lake within its drainage cell
    /// (centred on the cell's point); a river where both are. `None` on dry ground (and on the
    /// sea, which is the ground below the sea level).
    pub fn water_at(&self, p: [f64; 2]) -> Option<RiverWater> {
        let mut river: Option<(f32, RiverWater)> = None;
        for (segment, placed) in &self.placed {
            if !(placed.reaches_row(p[1]) && placed.reaches_column(p[0])) {
                continue;
            }
            let Some((distance, t)) = placed.in_channel(p) else { continue };
            if river.is_some_and(|(nearest, _)| nearest <= distance) {
                continue;
            }
            let water = segment.water[0] + t * (segment.water[1] - segment.water[0]);
            let width = segment.width[0] + t * (segment.width[1] - segment.width[0]);
            let [a, b] = segment.cells;
            let (dx, dy) = ((b[0] - a[0]) as f32, (b[1] - a[1]) as f32);
            let length = (dx * dx + dy * dy).sqrt().max(f32::MIN_POSITIVE);
            river = Some((
                distance,
                RiverWater::River { surface: water, width, flow: [dx / length, dy / length] },
            ));
        }
        if let Some((_, water)) = river {
            return Some(water);
        }
        let cell = p.map(|v| (v * DRAINAGE_CELLS_PER_UNIT + 0.5).floor().clamp(-9e15, 9e15) as i64);
        let found = self.lakes.binary_search_by(|(c, _)| (c[1], c[0]).cmp(&(cell[1], cell[0])));
        found.ok().map(|k| RiverWater::Lake { surface: self.lakes[k].1 })
    }
}
