//! Height queries and ray casts against a height grid's triangles: the surface
//! [`crate::map::surface::Surface`] builds (two triangles per cell, split along the diagonal from
//! `(x + 1, z)` to `(x, z + 1)`).
//!
//! The walk visits the cells the ray's shadow crosses, in order, one step per cell (a 2-D
//! digital differential analyser), so it costs no more than the cells crossed and ends for
//! every ray: there is no step size that could fall below a float's resolution.

use glam::DVec3;

use crate::Heightmap;

/// A height grid placed in space: the vertex `(i, j)` of `heights` is at
/// `(origin.x + i · step.x, heights(i, j) · height_scale, origin.z + j · step.z)`.
#[derive(Clone, Copy, Debug)]
pub struct GridPlacement {
    /// Position `(x, z)` of vertex `(0, 0)`.
    pub origin: [f64; 2],
    /// Distance between neighbouring vertices in `x` and `z`, both `> 0`.
    pub step: [f64; 2],
    /// World height of a height of 1.
    pub height_scale: f64,
    /// Lowest and highest height in the grid (before scaling), for the bounding box.
    pub height_range: [f32; 2],
}

impl GridPlacement {
    /// The grid cell holding `(x, z)` and the position inside it, or `None` outside the grid.
    fn cell_at(&self, heights: &Heightmap, x: f64, z: f64) -> Option<([u32; 2], [f64; 2])> {
        let (u, v) = ((x - self.origin[0]) / self.step[0], (z - self.origin[1]) / self.step[1]);
        let (last_u, last_v) = ((heights.width().max(2) - 1) as f64, (heights.height().max(2) - 1) as f64);
        if heights.width() < 2
            || heights.height() < 2
            || !(0.0..=last_u).contains(&u)
            || !(0.0..=last_v).contains(&v)
        {
            return None;
        }
        let (i, j) =
            ((u.floor() as u32).min(heights.width() - 2), (v.floor() as u32).min(heights.height() - 2));
        Some(([i, j], [u - i as f64, v - j as f64]))
    }

    /// The world heights of the corners `(i, j)`, `(i + 1, j)`, `(i, j + 1)`, `(i + 1, j + 1)`.
    fn corners(&self, heights: &Heightmap, [i, j]: [u32; 2]) -> [f64; 4] {
        let h = |i, j| heights.get(i, j).unwrap_or(0.0) as f64 * self.height_scale;
        [h(i, j), h(i + 1, j), h(i, j + 1), h(i + 1, j + 1)]
    }

    /// Where the ray `origin + t · direction` enters the grid's bounding box (`t`, 0 if it
    /// starts inside), if it does: for sorting grids by distance along a ray.
    pub fn box_entry(&self, heights: &Heightmap, origin: DVec3, direction: DVec3) -> Option<f64> {
        let (columns, rows) = (heights.width().max(2) - 1, heights.height().max(2) - 1);
        let (lo, hi) = self.scaled_range();
        let min = DVec3::new(self.origin[0], lo, self.origin[1]);
        let max =
            min + DVec3::new(self.step[0] * f64::from(columns), hi - lo, self.step[1] * f64::from(rows));
        clip_to_box(origin, direction, min, max).map(|(enter, _)| enter)
    }

    /// The lowest and highest world height, with a little slack.
    fn scaled_range(&self) -> (f64, f64) {
        let hs = self.height_scale;
        let (lo, hi) = (self.height_range[0] as f64 * hs, self.height_range[1] as f64 * hs);
        (lo.min(hi) - 1e-6, lo.max(hi) + 1e-6)
    }

    /// The surface height at `(x, z)`, exactly on the grid's triangles, or `None` outside it.
    pub fn height_at(&self, heights: &Heightmap, x: f64, z: f64) -> Option<f64> {
        let (cell, [u, v]) = self.cell_at(heights, x, z)?;
        let [a, b, c, d] = self.corners(heights, cell);
        Some(if u + v <= 1.0 {
            a + u * (b - a) + v * (c - a)
        } else {
            d + (1.0 - u) * (c - d) + (1.0 - v) * (b - d)
        })
    }

    /// The unit normal of the triangle under `(x, z)` (pointing up), or `None` outside the grid.
    pub fn normal_at(&self, heights: &Heightmap, x: f64, z: f64) -> Option<DVec3> {
        let (cell, [u, v]) = self.cell_at(heights, x, z)?;
        let [a, b, c, d] = self.corners(heights, cell);
        // Slopes of the triangle's plane per world unit.
        let (dx, dz) = if u + v <= 1.0 { (b - a, c - a) } else { (d - c, d - b) };
        Some(DVec3::new(-dx / self.step[0], 1.0, -dz / self.step[1]).normalize())
    }
}

/// Where a ray first meets the triangles of `heights` placed by `placement`: the ray parameter
/// `t` (the hit is `origin + t · direction`), or `None` if it misses, starts beyond the grid or
/// points away. `direction` need not be unit length; a zero or non-finite one misses.
///
/// ```
/// use glam::DVec3;
/// use noise_terrain_core::{GridPlacement, Heightmap, NoiseSettings, raycast_grid};
///
/// let heights = Heightmap::generate(&NoiseSettings::default(), 33, 33).unwrap();
/// let stats = heights.stats();
/// let placement = GridPlacement {
///     origin: [0.0, 0.0],
///     step: [1.0, 1.0],
///     height_scale: 10.0,
///     height_range: [stats.min, stats.max],
/// };
/// // Straight down from above the grid's middle: the hit is on the ground below.
/// let t = raycast_grid(&heights, &placement, DVec3::new(16.0, 50.0, 16.0), DVec3::NEG_Y).unwrap();
/// assert!(t > 0.0 && t <= 50.0);
/// ```
pub fn raycast_grid(
    heights: &Heightmap,
    placement: &GridPlacement,
    origin: DVec3,
    direction: DVec3,
) -> Option<f64> {
    let (columns, rows) = (heights.width(), heights.height());
    if columns < 2 || rows < 2 || !origin.is_finite() || !direction.is_finite() || direction == DVec3::ZERO {
        return None;
    }
    let [sx, sz] = placement.step;
    if !(sx > 0.0 && sz > 0.0) {
        return None;
    }
    // The ray in grid units: cells are 1 x 1, heights are world heights.
    let scale = DVec3::new(1.0 / sx, 1.0, 1.0 / sz);
    let o = (origin - DVec3::new(placement.origin[0], 0.0, placement.origin[1])) * scale;
    let d = direction * scale;
    let hs = placement.height_scale;
    let (lo, hi) = placement.scaled_range();
    let box_min = DVec3::new(0.0, lo, 0.0);
    let box_max = DVec3::new((columns - 1) as f64, hi, (rows - 1) as f64);
    let (enter, exit) = clip_to_box(o, d, box_min, box_max)?;

    // Walk the cells from the entry point.
    let start = o + d * enter;
    let last = [(columns - 2) as i64, (rows - 2) as i64];
    let mut cell = [(start.x.floor() as i64).clamp(0, last[0]), (start.z.floor() as i64).clamp(0, last[1])];
    let axis = |p: f64, d: f64, c: i64| -> (i64, f64, f64) {
        if d > 0.0 {
            (1, ((c + 1) as f64 - p) / d, 1.0 / d)
        } else if d < 0.0 {
            (-1, (c as f64 - p) / d, -1.0 / d)
        } else {
            (0, f64::INFINITY, f64::INFINITY)
        }
    };
    let (step_x, mut next_x, delta_x) = axis(start.x, d.x, cell[0]);
    let (step_z, mut next_z, delta_z) = axis(start.z, d.z, cell[1]);
    let vertex = |i: i64, j: i64| {
        let h = heights.get(i as u32, j as u32).unwrap_or(0.0) as f64 * hs;
        DVec3::new(i as f64, h, j as f64)
    };
    // At most one step per column and row crossed: the walk always ends.
    for _ in 0..(columns as u64 + rows as u64 + 2) {
        let [i, j] = cell;
        let (a, b, c, dd) = (vertex(i, j), vertex(i + 1, j), vertex(i, j + 1), vertex(i + 1, j + 1));
        let hit = [intersect_triangle(o, d, a, c, b), intersect_triangle(o, d, b, c, dd)]
            .into_iter()
            .flatten()
            .filter(|&t| t >= enter - 1e-9 && t <= exit + 1e-9)
            .min_by(f64::total_cmp);
        if hit.is_some() {
            return hit.map(|t| t.max(0.0));
        }
        // Into the next cell: across whichever cell wall the ray reaches first.
        let leave = next_x.min(next_z);
        if enter + leave > exit {
            return None;
        }
        if next_x <= next_z {
            cell[0] += step_x;
            next_x += delta_x;
        } else {
            cell[1] += step_z;
            next_z += delta_z;
        }
        if cell[0] < 0 || cell[0] > last[0] || cell[1] < 0 || cell[1] > last[1] {
            return None;
        }
    }
    None
}

/// The part `[enter, exit]` of the ray `o + t · d`, `t >= 0`, inside the box, if any.
fn clip_to_box(o: DVec3, d: DVec3, min: DVec3, max: DVec3) -> Option<(f64, f64)> {
    let (mut enter, mut exit) = (0.0f64, f64::INFINITY);
    for k in 0..3 {
        if d[k] == 0.0 {
            if o[k] < min[k] || o[k] > max[k] {
                return None;
            }
            continue;
        }
        let (a, b) = ((min[k] - o[k]) / d[k], (max[k] - o[k]) / d[k]);
        enter = enter.max(a.min(b));
        exit = exit.min(a.max(b));
    }
    (enter <= exit).then_some((enter, exit))
}

/// Möller and Trumbore's ray-triangle test: the ray parameter of the hit, if the ray meets the
/// triangle (its edges included, with a little slack so that no ray slips between two).
fn intersect_triangle(o: DVec3, d: DVec3, a: DVec3, b: DVec3, c: DVec3) -> Option<f64> {
    const SLACK: f64 = 1e-9;
    let (e1, e2) = (b - a, c - a);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-300 {
        return None;
    }
    let inv = 1.0 / det;
    let s = o - a;
    let u = s.dot(p) * inv;
    if !(-SLACK..=1.0 + SLACK).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = d.dot(q) * inv;
    if v < -SLACK || u + v > 1.0 + SLACK {
        return None;
    }
    let t = e2.dot(q) * inv;
    (t >= 0.0).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The height of the triangles at `(x, z)` in grid units (the mesh's b-c diagonal split).
    fn surface_height(map: &Heightmap, x: f64, z: f64, hs: f64) -> f64 {
        let (i, j) = ((x.floor() as u32).min(map.width() - 2), (z.floor() as u32).min(map.height() - 2));
        let (u, v) = (x - i as f64, z - j as f64);
        let h = |i, j| map.get(i, j).unwrap() as f64 * hs;
        let (a, b, c, d) = (h(i, j), h(i + 1, j), h(i, j + 1), h(i + 1, j + 1));
        if u + v <= 1.0 {
            a + u * (b - a) + v * (c - a)
        } else {
            d + (1.0 - u) * (c - d) + (1.0 - v) * (b - d)
        }
    }

    fn bumpy(n: u32) -> Heightmap {
        Heightmap::from_fn(n, n, |i, j| ((i * 7 + j * 13) % 11) as f32 / 10.0).unwrap()
    }

    fn placement(map: &Heightmap, step: f64) -> GridPlacement {
        let s = map.stats();
        GridPlacement {
            origin: [-3.0, 5.0],
            step: [step, step],
            height_scale: 4.0,
            height_range: [s.min, s.max],
        }
    }

    #[test]
    fn heights_and_normals_follow_the_triangles() {
        let map = bumpy(9);
        let p = placement(&map, 2.0);
        for (x, z) in [(-3.0, 5.0), (0.3, 7.9), (12.9, 20.2), (13.0, 21.0)] {
            let (gx, gz) = ((x + 3.0) / 2.0, (z - 5.0) / 2.0);
            let h = p.height_at(&map, x, z).unwrap();
            assert!((h - surface_height(&map, gx, gz, 4.0)).abs() < 1e-12, "({x}, {z})");
            // The normal is perpendicular to the triangle: a small step along it stays on it.
            let n = p.normal_at(&map, x, z).unwrap();
            let e = 1e-4;
            let dx = (p.height_at(&map, x + e, z).unwrap_or(h) - h) / e;
            assert!(n.y > 0.0 && (n.length() - 1.0).abs() < 1e-12);
            if (gx + e / 2.0).fract() > 1e-3 && gx < 7.9 && (gx.fract() + gz.fract() - 1.0).abs() > 1e-3 {
                assert!((-n.x / n.y - dx).abs() < 1e-6, "slope {dx} vs {}", -n.x / n.y);
            }
        }
        assert_eq!(p.height_at(&map, -3.1, 5.0), None);
        assert_eq!(p.normal_at(&map, 0.0, 21.5), None);
    }

    #[test]
    fn a_vertical_ray_hits_the_surface_below_it() {
        let map = bumpy(17);
        let p = placement(&map, 2.0);
        let t = raycast_grid(&map, &p, DVec3::new(4.1, 100.0, 12.7), DVec3::NEG_Y).unwrap();
        let expected = surface_height(&map, (4.1 + 3.0) / 2.0, (12.7 - 5.0) / 2.0, 4.0);
        assert!((100.0 - t - expected).abs() < 1e-9, "{} vs {expected}", 100.0 - t);
    }

    #[test]
    fn rays_that_pass_by_point_away_or_are_broken_miss() {
        let map = bumpy(9);
        let p = placement(&map, 1.0);
        for (o, d) in [
            (DVec3::new(0.0, 100.0, 8.0), DVec3::Y),
            (DVec3::new(-50.0, 1.0, 8.0), DVec3::NEG_X),
            (DVec3::new(-50.0, 100.0, 8.0), DVec3::X),
            (DVec3::new(0.0, 10.0, 8.0), DVec3::ZERO),
            (DVec3::new(f64::NAN, 10.0, 8.0), DVec3::NEG_Y),
            (DVec3::new(0.0, 10.0, 8.0), DVec3::new(f64::INFINITY, -1.0, 0.0)),
        ] {
            assert_eq!(raycast_grid(&map, &p, o, d), None, "{o} {d}");
        }
        let bad_step = GridPlacement { step: [0.0, 1.0], ..p };
        assert_eq!(raycast_grid(&map, &bad_step, DVec3::new(0.0, 10.0, 8.0), DVec3::NEG_Y), None);
    }

    #[test]
    fn a_ray_from_a_million_units_away_and_tiny_grids_terminate_and_hit() {
        let map = bumpy(2049);
        // A grid 0.1 units wide seen from 500 units away: the old fixed-step march stalled here.
        let tiny = GridPlacement { step: [0.1 / 2048.0; 2], ..placement(&map, 1.0) };
        let target = DVec3::new(-3.0 + 0.05, 0.0, 5.0 + 0.05);
        let origin = target + DVec3::new(300.0, 400.0, 0.0);
        let t = raycast_grid(&map, &tiny, origin, target - origin).expect("hit");
        assert!(t > 0.0 && t < 1.01);
        let p = placement(&map, 1.0);
        let far = DVec3::new(1e6, 2e5, 3e5);
        let aim = DVec3::new(1000.0, 0.0, 1000.0);
        let t = raycast_grid(&map, &p, far, (aim - far).normalize()).expect("hit");
        let hit = far + (aim - far).normalize() * t;
        let g = (hit - DVec3::new(-3.0, 0.0, 5.0)) / DVec3::new(1.0, 1.0, 1.0);
        assert!((hit.y - surface_height(&map, g.x, g.z, 4.0)).abs() < 1e-3, "{hit}");
    }

    proptest! {
        /// Any ray from above the terrain that hits lands on the surface, and the surface is above the ray everywhere
        /// before the hit (no earlier crossing was skipped).
        #[test]
        fn hits_lie_on_the_surface_and_are_the_first_crossing(
            ox in -40.0f64..40.0, oy in 4.5f64..30.0, oz in -40.0f64..40.0,
            dx in -1.0f64..1.0, dy in -1.0f64..0.2, dz in -1.0f64..1.0,
        ) {
            let map = bumpy(13);
            let p = GridPlacement { origin: [-6.0, -6.0], ..placement(&map, 1.0) };
            let (o, d) = (DVec3::new(ox, oy, oz), DVec3::new(dx, dy, dz));
            prop_assume!(d.length() > 1e-3);
            let inside = |q: DVec3| (-6.0..=6.0).contains(&q.x) && (-6.0..=6.0).contains(&q.z);
            let above = |q: DVec3| q.y - surface_height(&map, q.x + 6.0, q.z + 6.0, 4.0);
            // The first step from above the surface to below it inside the grid, sampling the
            // ray every 0.01 units up to `t_max` (a ray may also pass under the grid's side).
            let first_crossing = |t_max: f64| {
                let mut was_above = false;
                (0..).map(|k| k as f64 * 0.01).take_while(|&t| t <= t_max).find(|&t| {
                    let q = o + d * t;
                    let crossed = inside(q) && was_above && above(q) < -1e-6;
                    was_above = inside(q) && above(q) > 0.0;
                    crossed
                })
            };
            match raycast_grid(&map, &p, o, d) {
                Some(t) => {
                    let hit = o + d * t;
                    prop_assert!(inside(hit));
                    prop_assert!(above(hit).abs() < 1e-6, "{} off the surface", above(hit));
                    prop_assert_eq!(first_crossing(t - 1e-6), None, "crossed before the hit at {}", t);
                }
                None => prop_assert_eq!(first_crossing(100.0), None, "missed a crossing"),
            }
        }
    }
}
