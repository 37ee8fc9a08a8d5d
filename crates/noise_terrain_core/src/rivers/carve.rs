//! Valleys cut along the rivers: each segment's channel and valley as a cut below the ground,
//! with its exact gradient, the deepest cut winning where several reach.

use crate::rivers::region::{DRAINAGE_CELLS_PER_UNIT, RiverSegment};

/// How the channels are shaped, in the units the heights are in: noise heights and map units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ChannelShape {
    /// Depth of a channel below its water, noise heights.
    pub depth: f32,
    /// How far beyond the banks a valley blends into the ground, map units.
    pub valley: f32,
    /// World units per map unit (widths are in world units).
    pub world_size: f32,
}

/// A segment ready to carve: its upper end, its direction, its water and its reach.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlacedSegment {
    /// The upper end, map units.
    a: [f64; 2],
    /// From the upper to the lower end, map units.
    e: [f32; 2],
    /// `1 / |e|²`.
    inv_len2: f32,
    water: [f32; 2],
    /// Half the mean width of its ends, map units (the channel's half-width).
    half_width: f32,
    /// The box within which it cuts: `[x_min, y_min, x_max, y_max]`, map units.
    pub(crate) reach: [f64; 4],
}

impl PlacedSegment {
    /// `segment` placed for a channel of `shape`.
    pub(crate) fn new(segment: &RiverSegment, shape: &ChannelShape) -> PlacedSegment {
        let [a, b] = segment.positions();
        let cells = [segment.cells[1][0] - segment.cells[0][0], segment.cells[1][1] - segment.cells[0][1]];
        let e = cells.map(|c| (c as f64 / DRAINAGE_CELLS_PER_UNIT) as f32);
        let len2 = e[0] * e[0] + e[1] * e[1];
        let half_width = (0.25 * (segment.width[0] + segment.width[1]) / shape.world_size).max(1e-9);
        let r = f64::from(half_width + shape.valley);
        let reach = [a[0].min(b[0]) - r, a[1].min(b[1]) - r, a[0].max(b[0]) + r, a[1].max(b[1]) + r];
        PlacedSegment {
            a,
            e,
            inv_len2: if len2 > 0.0 { 1.0 / len2 } else { 0.0 },
            water: segment.water,
            half_width,
            reach,
        }
    }

    /// Whether `p` lies within its reach in y (the rows that can see it).
    #[inline]
    pub(crate) fn reaches_row(&self, y: f64) -> bool {
        y >= self.reach[1] && y <= self.reach[3]
    }

    /// Whether `p` lies within its reach in x.
    #[inline]
    pub(crate) fn reaches_column(&self, x: f64) -> bool {
        x >= self.reach[0] && x <= self.reach[2]
    }

    /// Where its line passes closest to `p`.
    #[inline]
    fn closest(&self, p: [f64; 2]) -> Closest {
        let v = [(p[0] - self.a[0]) as f32, (p[1] - self.a[1]) as f32];
        let e = self.e;
        let along = (v[0] * e[0] + v[1] * e[1]) * self.inv_len2;
        let t = along.clamp(0.0, 1.0);
        let q = [v[0] - t * e[0], v[1] - t * e[1]];
        Closest { along, t, q, d: (q[0] * q[0] + q[1] * q[1]).sqrt() }
    }

    /// Whether `p` lies in its channel (nearer its line than the half-width): the distance, map
    /// units, and how far along it the nearest point lies (`[0, 1]` from the upper end).
    pub(crate) fn in_channel(&self, p: [f64; 2]) -> Option<(f32, f32)> {
        let Closest { t, d, .. } = self.closest(p);
        (d < self.half_width).then_some((d, t))
    }

    /// How far below the ground `h` (gradient `g`, per map unit) its valley cuts at `p`, and the
    /// cut's gradient: within the banks the channel `water - depth·(1 - u²)²` (`u` the distance
    /// over the half-width), met with the ground by a smooth minimum (over `depth`), the whole
    /// cut faded out by a smoothstep from the banks to `valley` beyond them. Never negative.
    #[inline]
    pub(crate) fn cut(&self, shape: &ChannelShape, p: [f64; 2], h: f32, g: [f32; 2]) -> (f32, [f32; 2]) {
        let Closest { along, t, q, d } = self.closest(p);
        let e = self.e;
        let (w, valley) = (self.half_width, shape.valley);
        if d >= w + valley {
            return (0.0, [0.0; 2]);
        }
        let rise = self.water[1] - self.water[0];
        let water = self.water[0] + t * rise;
        let depth = shape.depth;
        let u = d / w;
        // The channel below the water and its slope by the distance.
        let (target, target_by_d) = if u < 1.0 {
            let s = 1.0 - u * u;
            (water - depth * s * s, 4.0 * depth * u * s / w)
        } else {
            (water, 0.0)
        };
        // Smooth minimum of the ground and the channel: `target + (h - target)·k - depth·k(1 - k)`,
        // whose slopes by `h` and by `target` are `k` and `1 - k`.
        let (low, by_ground) = if depth > 0.0 {
            let k = (0.5 + 0.5 * (target - h) / depth).clamp(0.0, 1.0);
            (target + (h - target) * k - depth * k * (1.0 - k), k)
        } else if h < target {
            (h, 1.0)
        } else {
            (target, 0.0)
        };
        // Full inside the banks, a smoothstep down to nothing across the valley.
        let (fade, fade_by_d) = if d <= w {
            (1.0, 0.0)
        } else {
            let s = (d - w) / valley;
            (1.0 - s * s * (3.0 - 2.0 * s), -6.0 * s * (1.0 - s) / valley)
        };
        let below = h - low;
        let cut = fade * below;
        let d_grad = if d > 0.0 { [q[0] / d, q[1] / d] } else { [0.0; 2] };
        let t_grad =
            if along > 0.0 && along < 1.0 { [e[0] * self.inv_len2, e[1] * self.inv_len2] } else { [0.0; 2] };
        let gradient = [0, 1].map(|k| {
            let target = rise * t_grad[k] + target_by_d * d_grad[k];
            let low = by_ground * g[k] + (1.0 - by_ground) * target;
            fade * (g[k] - low) + below * fade_by_d * d_grad[k]
        });
        (cut, gradient)
    }
}

/// Where a segment's line passes closest to a point.
struct Closest {
    /// Along the segment from its upper end, in its lengths (unclamped).
    along: f32,
    /// `along` clamped to the segment.
    t: f32,
    /// From the closest point to the point, map units.
    q: [f32; 2],
    /// Its length.
    d: f32,
}

/// The ground `h` (gradient `g`) at `p` carved by the deepest cut of `segments` (in a fixed
/// order, so that ties pick the same one everywhere), and its gradient.
#[inline]
pub(crate) fn carve_point<'a>(
    shape: &ChannelShape,
    segments: impl IntoIterator<Item = &'a PlacedSegment>,
    p: [f64; 2],
    h: f32,
    g: [f32; 2],
) -> (f32, [f32; 2]) {
    let mut deepest = (0.0f32, [0.0f32; 2]);
    for s in segments {
        let cut = s.cut(shape, p, h, g);
        if cut.0 > deepest.0 {
            deepest = cut;
        }
    }
    (h - deepest.0, [g[0] - deepest.1[0], g[1] - deepest.1[1]])
}
