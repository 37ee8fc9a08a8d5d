//! A heightmap as a triangle surface: vertex positions, smooth normals, texture coordinates and
//! triangle indices, the arrays a renderer wants (the Bevy plugin wraps them in a mesh).
//!
//! Built from a map with a one-sample border on every side (see
//! [`Heightmap::generate_region`]): the interior samples become vertices and the border only
//! feeds the normals, so edge normals are as right as interior ones and match a neighbouring
//! tile's. Rows are built on all cores with the `parallel` feature.

use glam::Vec3;

use crate::Heightmap;
use crate::world::chunks::for_each_chunk;
use crate::world::lod::{Corner, Side, Stitch};

/// Vertex and index arrays of a terrain surface (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Surface {
    /// `x` and `z` on a regular grid (see [`SurfaceLayout`]); `y = h · height_scale`.
    /// Row-major: vertex `(x, z)` is at `z · columns + x`.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals: from central differences of the heights ([`rebuild_with`](Self::rebuild_with)),
    /// or exact ones from the field's gradient ([`set_normals_from_gradients`](Self::set_normals_from_gradients)).
    pub normals: Vec<[f32; 3]>,
    /// Texture coordinates of the texel centres of a `columns × rows` texture.
    pub uvs: Vec<[f32; 2]>,
    /// Two counter-clockwise (seen from above, so facing up) triangles per grid cell.
    pub indices: Vec<u32>,
}

/// Where a surface's vertices lie, and which of its edges are folded onto a coarser neighbour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceLayout {
    /// Samples of the map on every side of the vertex grid: at least 1 (for the normals), 2 for
    /// stitching (the coarser neighbour's normals reach two samples out).
    pub border: u32,
    /// Position `(x, z)` of the first vertex.
    pub origin: [f32; 2],
    /// Distance `(x, z)` from the first vertex to the last one.
    pub size: [f32; 2],
    /// World height of a map height of 1.
    pub height_scale: f32,
    /// Edges that meet a neighbour twice as coarse. On such an edge the odd vertices lie on the
    /// line between their even neighbours (which the coarse neighbour also has: the heights are
    /// folded by [`fold_stitched_edges`] first), and the even ones get the normal the coarse
    /// neighbour computes, so that neither a crack nor a lighting seam shows. Needs an odd
    /// vertex count along the edge and a border of 2; otherwise the flag is ignored.
    pub stitch: Stitch,
}

impl SurfaceLayout {
    /// A square `world_size` wide, centred on the origin, from a map with a one-sample border:
    /// the single-patch terrain.
    pub fn centred(world_size: f32, height_scale: f32) -> Self {
        let half = world_size / 2.0;
        Self { border: 1, origin: [-half, -half], size: [world_size; 2], height_scale, stitch: Stitch::NONE }
    }
}

impl Surface {
    /// The surface of `padded`'s interior (`width - 2` by `height - 2` vertices), centred on the
    /// origin (see [`SurfaceLayout::centred`]). A map narrower than 3 samples in either direction
    /// has no interior: the surface is empty.
    pub fn from_padded(padded: &Heightmap, world_size: f32, height_scale: f32) -> Self {
        let mut surface = Self::default();
        surface.rebuild(padded, world_size, height_scale);
        surface
    }

    /// Bytes of memory the arrays hold (their capacity, not only their length).
    pub fn capacity_bytes(&self) -> usize {
        size_of::<[f32; 3]>() * (self.positions.capacity() + self.normals.capacity())
            + size_of::<[f32; 2]>() * self.uvs.capacity()
            + size_of::<u32>() * self.indices.capacity()
    }

    /// [`from_padded`](Self::from_padded) into this surface's arrays, reusing their memory: a
    /// terrain rebuilt at the same size allocates nothing. Fresh memory is expensive here, as
    /// the kernel faults in and clears every page (at 1024 × 1024 that took most of the time).
    pub fn rebuild(&mut self, padded: &Heightmap, world_size: f32, height_scale: f32) {
        self.rebuild_with(padded, &SurfaceLayout::centred(world_size, height_scale));
    }

    /// The surface of the vertices inside `layout.border` samples of border, into this
    /// surface's arrays. A map without at least one vertex inside its border gives an empty
    /// surface.
    pub fn rebuild_with(&mut self, padded: &Heightmap, layout: &SurfaceLayout) {
        let b = layout.border.max(1);
        if padded.width() < 2 * b + 1 || padded.height() < 2 * b + 1 {
            *self = Self::default();
            return;
        }
        let Self { positions, normals, uvs, indices } = self;
        // Every element is overwritten below: resizing only sets the lengths.
        let (columns, rows) = (padded.width() - 2 * b, padded.height() - 2 * b);
        let step_x = layout.size[0] / (columns - 1).max(1) as f32;
        let step_z = layout.size[1] / (rows - 1).max(1) as f32;
        let height_scale = layout.height_scale;
        let count = columns as usize * rows as usize;
        let row_len = columns as usize;
        // The padded rows above, through and below vertex row `z`, the first two lined up with
        // its vertices and the middle one starting one sample before its first vertex.
        let rows_around = |z: usize| {
            let (z, b) = (z as u32, b as usize);
            (
                &padded.row(z + b as u32 - 1)[b..],
                &padded.row(z + b as u32)[b - 1..],
                &padded.row(z + b as u32 + 1)[b..],
            )
        };
        // Exactly `origin` at the first vertex and `origin + size` at the last, whatever the
        // rounding of the step: neighbouring chunks share their edge positions bit for bit.
        let along =
            |origin: f32, size: f32, k: u32, last: u32| origin + size * (k as f32 / last.max(1) as f32);

        positions.resize(count, [0.0; 3]);
        for_each_chunk(positions, row_len, |z, row| {
            let (_, here, _) = rows_around(z);
            let pz = along(layout.origin[1], layout.size[1], z as u32, rows - 1);
            for (x, (position, &h)) in row.iter_mut().zip(&here[1..]).enumerate() {
                *position =
                    [along(layout.origin[0], layout.size[0], x as u32, columns - 1), h * height_scale, pz];
            }
        });

        normals.resize(count, [0.0; 3]);
        for_each_chunk(normals, row_len, |z, row| {
            let (above, here, below) = rows_around(z);
            let neighbours = here.windows(3).zip(above).zip(below);
            for (normal, ((across, &up), &down)) in row.iter_mut().zip(neighbours) {
                *normal =
                    normal_from_differences([across[0], across[2], up, down], height_scale, [step_x, step_z]);
            }
        });

        uvs.resize(count, [0.0; 2]);
        for_each_chunk(uvs, row_len, |z, row| {
            let v = (z as f32 + 0.5) / rows as f32;
            for (x, uv) in row.iter_mut().enumerate() {
                *uv = [(x as f32 + 0.5) / columns as f32, v];
            }
        });

        let quads_per_row = (columns - 1) as usize;
        indices.resize(quads_per_row * (rows - 1) as usize * 6, 0);
        for_each_chunk(indices, quads_per_row * 6, |z, row| {
            let first = z as u32 * columns;
            for (a, quad) in (first..).zip(row.chunks_exact_mut(6)) {
                let (b, c, d) = (a + 1, a + columns, a + columns + 1);
                // Counter-clockwise seen from above, so the faces point up.
                quad.copy_from_slice(&[a, c, b, b, c, d]);
            }
        });

        if b >= 2 {
            for corner in Corner::ALL {
                if layout.stitch.has_corner(corner) {
                    let (x, z) = match corner {
                        Corner::NorthWest => (0, 0),
                        Corner::NorthEast => (columns - 1, 0),
                        Corner::SouthWest => (0, rows - 1),
                        Corner::SouthEast => (columns - 1, rows - 1),
                    };
                    self.normals[(z * columns + x) as usize] =
                        coarse_normal(padded, b, (x, z), height_scale, [step_x, step_z]);
                }
            }
            for side in Side::ALL {
                if layout.stitch.has(side) {
                    self.stitch_edge(padded, b, side, height_scale, [step_x, step_z]);
                }
            }
        }
    }

    /// Replaces the normals of a surface built by [`rebuild_with`](Self::rebuild_with) with
    /// exact ones from the field's gradient at every vertex: `gradients` (per map unit) cover
    /// the same padded map, `padded_width` samples a row with `layout.border` around the
    /// vertices, as [`fill_grid_with_gradients`](crate::fill_grid_with_gradients) and
    /// [`PostProcess::apply_in_world_with_gradients`](crate::PostProcess::apply_in_world_with_gradients)
    /// give them; a map unit spans `world_per_unit` world units. Every piece then computes the
    /// same normal at the same point, whatever its level of detail; on a stitched edge the odd
    /// vertices take the normal the coarse neighbour's triangle interpolates there, as
    /// `rebuild_with` does. Rows on all cores with the `parallel` feature. Gradients that do
    /// not match the surface leave the normals as they are.
    pub fn set_normals_from_gradients(
        &mut self,
        gradients: &[[f32; 2]],
        padded_width: u32,
        layout: &SurfaceLayout,
        world_per_unit: f32,
    ) {
        let b = layout.border.max(1) as usize;
        let (width, count) = (padded_width as usize, self.normals.len());
        let columns = width.saturating_sub(2 * b);
        if columns == 0 || count % columns != 0 || gradients.len() != width * (count / columns + 2 * b) {
            return;
        }
        // The surface y = h · height_scale over x = u · world_per_unit: dy/dx = dh/du · k.
        let k = layout.height_scale / world_per_unit;
        for_each_chunk(&mut self.normals, columns, |z, row| {
            let padded = &gradients[(z + b) * width + b..][..columns];
            for (normal, g) in row.iter_mut().zip(padded) {
                *normal = Vec3::new(-g[0] * k, 1.0, -g[1] * k).normalize_or(Vec3::Y).to_array();
            }
        });
        let (columns, rows) = (columns as u32, (count / columns) as u32);
        for side in Side::ALL {
            if !layout.stitch.has(side) {
                continue;
            }
            let Some((count, vertex)) = edge_vertices(columns, rows, side) else { continue };
            self.interpolate_odd_normals(columns, count, vertex);
        }
    }

    /// Gives the odd vertices of a stitched edge the normal a coarser neighbour's triangle
    /// interpolates between their even neighbours.
    fn interpolate_odd_normals(&mut self, columns: u32, count: u32, vertex: impl Fn(u32) -> (u32, u32)) {
        let index = |(x, z): (u32, u32)| (z * columns + x) as usize;
        for k in (1..count).step_by(2) {
            let (before, here, after) = (index(vertex(k - 1)), index(vertex(k)), index(vertex(k + 1)));
            let sum = Vec3::from_array(self.normals[before]) + Vec3::from_array(self.normals[after]);
            self.normals[here] = sum.normalize_or(Vec3::Y).to_array();
        }
    }

    /// Folds the edge on `side` onto the edge of a neighbour twice as coarse (see
    /// [`SurfaceLayout::stitch`]).
    fn stitch_edge(&mut self, padded: &Heightmap, b: u32, side: Side, height_scale: f32, step: [f32; 2]) {
        let (columns, rows) = (padded.width() - 2 * b, padded.height() - 2 * b);
        // The edge's vertices as (column, row), from one end to the other.
        let Some((count, vertex)) = edge_vertices(columns, rows, side) else { return };
        let index = |(x, z): (u32, u32)| (z * columns + x) as usize;
        // Even vertices are the coarse neighbour's: its normal.
        for k in (0..count).step_by(2) {
            let vertex = vertex(k);
            self.normals[index(vertex)] = coarse_normal(padded, b, vertex, height_scale, step);
        }
        // Odd vertices lie on the coarse edge between their neighbours (their heights were
        // folded there), where the coarse triangle interpolates the two normals.
        self.interpolate_odd_normals(columns, count, vertex);
    }
}

/// The vertices `(column, row)` of the edge on `side` of a `columns × rows` grid, from one end
/// to the other, and their count; `None` where the edge cannot be stitched (an even count or
/// fewer than 3).
fn edge_vertices(columns: u32, rows: u32, side: Side) -> Option<(u32, impl Fn(u32) -> (u32, u32))> {
    let count = match side {
        Side::West | Side::East => rows,
        Side::North | Side::South => columns,
    };
    let vertex = move |k: u32| match side {
        Side::West => (0, k),
        Side::East => (columns - 1, k),
        Side::North => (k, 0),
        Side::South => (k, rows - 1),
    };
    (count >= 3 && count % 2 == 1).then_some((count, vertex))
}

/// Moves the odd vertices of every stitched edge of the vertex grid inside `border` samples of
/// `padded` onto the straight line between their even neighbours: the edge of the neighbour
/// twice as coarse (see [`SurfaceLayout::stitch`]). Call it before
/// [`Surface::rebuild_with`], on the same map.
pub fn fold_stitched_edges(padded: &mut Heightmap, border: u32, stitch: Stitch) {
    let b = border.max(1);
    if b < 2 || padded.width() < 2 * b + 1 || padded.height() < 2 * b + 1 {
        return;
    }
    let (width, columns, rows) = (padded.width(), padded.width() - 2 * b, padded.height() - 2 * b);
    let index = |(x, z): (u32, u32)| ((z + b) * width + x + b) as usize;
    for side in Side::ALL {
        if !stitch.has(side) {
            continue;
        }
        let Some((count, vertex)) = edge_vertices(columns, rows, side) else { continue };
        let heights = padded.samples_mut();
        for k in (1..count).step_by(2) {
            heights[index(vertex(k))] = 0.5 * (heights[index(vertex(k - 1))] + heights[index(vertex(k + 1))]);
        }
    }
}

/// The normal a neighbour twice as coarse computes at vertex `(x, z)`: central differences of
/// the samples two vertices away (a border of 2 holds them all), over twice the step.
fn coarse_normal(
    padded: &Heightmap,
    b: u32,
    (x, z): (u32, u32),
    height_scale: f32,
    step: [f32; 2],
) -> [f32; 3] {
    let sample = |dx: i64, dz: i64| {
        padded.get((x as i64 + b as i64 + dx) as u32, (z as i64 + b as i64 + dz) as u32).unwrap_or(0.0)
    };
    let far = [sample(-2, 0), sample(2, 0), sample(0, -2), sample(0, 2)];
    normal_from_differences(far, height_scale, [2.0 * step[0], 2.0 * step[1]])
}

/// The unit normal of the surface `y = f(x, z) · height_scale` from central differences: the
/// heights `[west, east, north, south]` of the samples `step` away on either side.
fn normal_from_differences(h: [f32; 4], height_scale: f32, step: [f32; 2]) -> [f32; 3] {
    // The surface y = f(x, z) has normal (-df/dx, 1, -df/dz).
    let dx = (h[1] * height_scale - h[0] * height_scale) / (2.0 * step[0]);
    let dz = (h[3] * height_scale - h[2] * height_scale) / (2.0 * step[1]);
    Vec3::new(-dx, 1.0, -dz).normalize().to_array()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normals_from_gradients_are_exact_on_flat_and_tilted_planes() {
        // h = 0.3 + 0.02 u - 0.05 v over 16 × 16 vertices, 2 world units per map unit.
        let (n, ppu) = (16u32, 8.0f32);
        let padded = Heightmap::from_fn(n + 2, n + 2, |i, j| {
            0.3 + 0.02 * (i as f32 - 1.0) / ppu - 0.05 * (j as f32 - 1.0) / ppu
        })
        .unwrap();
        let layout =
            SurfaceLayout { size: [2.0 * (n - 1) as f32 / ppu; 2], ..SurfaceLayout::centred(1.0, 10.0) };
        let mut surface = Surface::default();
        surface.rebuild_with(&padded, &layout);
        let differences = surface.normals.clone();
        let padded_count = ((n + 2) * (n + 2)) as usize;
        surface.set_normals_from_gradients(&vec![[0.02, -0.05]; padded_count], n + 2, &layout, 2.0);
        // dy/dx = 0.02 · 10 / 2 = 0.1, dy/dz = -0.25.
        let expected = Vec3::new(-0.1, 1.0, 0.25).normalize().to_array();
        for (normal, central) in surface.normals.iter().zip(&differences) {
            // The plane's normal, to an ulp or two.
            assert!(Vec3::from_array(*normal).distance(Vec3::from_array(expected)) < 1e-6, "{normal:?}");
            assert!(Vec3::from_array(*normal).distance(Vec3::from_array(*central)) < 1e-5);
        }
        surface.set_normals_from_gradients(&vec![[0.0, 0.0]; padded_count], n + 2, &layout, 2.0);
        assert!(surface.normals.iter().all(|normal| *normal == [0.0, 1.0, 0.0]));
    }

    #[test]
    fn normals_from_the_field_gradient_match_fine_central_differences() {
        let settings = crate::NoiseSettings { octaves: 3, ..Default::default() };
        let (n, ppu) = (65u32, 2048.0);
        // Vertices 1/2048 map units apart, at the map's corner.
        let window =
            crate::GridWindow { origin: [-1, -1], width: n + 2, height: n + 2, pixels_per_unit: ppu };
        let mut padded = Heightmap::from_fn(n + 2, n + 2, |_, _| 0.0).unwrap();
        let mut gradients = vec![[0.0f32; 2]; ((n + 2) * (n + 2)) as usize];
        crate::fill_grid_with_gradients(&settings.sampler(), window, padded.samples_mut(), &mut gradients);
        let world_per_unit = 300.0;
        let side = (n - 1) as f32 / ppu as f32 * world_per_unit;
        let layout = SurfaceLayout { size: [side; 2], ..SurfaceLayout::centred(1.0, 40.0) };
        let mut surface = Surface::default();
        surface.rebuild_with(&padded, &layout);
        let differences = surface.normals.clone();
        surface.set_normals_from_gradients(&gradients, n + 2, &layout, world_per_unit);
        let worst = surface
            .normals
            .iter()
            .zip(&differences)
            .map(|(a, b)| Vec3::from_array(*a).distance(Vec3::from_array(*b)))
            .fold(0.0f32, f32::max);
        assert!(worst < 2e-3, "the normals differ by up to {worst}");
    }

    #[test]
    fn a_plane_has_straight_up_normals_everywhere() {
        let padded = Heightmap::from_fn(10, 10, |_, _| 0.3).unwrap();
        let surface = Surface::from_padded(&padded, 8.0, 5.0);
        assert_eq!(surface.normals.len(), 64);
        assert!(surface.normals.iter().all(|n| *n == [0.0, 1.0, 0.0]));
        assert!(surface.positions.iter().all(|p| p[1] == 1.5));
    }

    #[test]
    fn a_slope_has_the_analytic_normal_also_at_the_edges() {
        // Height rises 0.1 per sample in x and falls 0.05 per sample in z.
        let padded = Heightmap::from_fn(12, 12, |x, z| 0.1 * x as f32 - 0.05 * z as f32).unwrap();
        let (world, scale) = (9.0, 2.0);
        let surface = Surface::from_padded(&padded, world, scale);
        let step = world / 9.0;
        let expected = Vec3::new(-0.1 * scale / step, 1.0, 0.05 * scale / step).normalize();
        for n in &surface.normals {
            assert!(Vec3::from_array(*n).distance(expected) < 1e-5, "{n:?} vs {expected}");
        }
    }

    #[test]
    fn vertices_sit_on_the_grid_with_the_interior_heights() {
        let padded = Heightmap::from_fn(7, 5, |x, z| (x + 10 * z) as f32).unwrap();
        let surface = Surface::from_padded(&padded, 4.0, 0.5);
        assert_eq!(surface.positions.len(), 5 * 3);
        for (k, (p, uv)) in surface.positions.iter().zip(&surface.uvs).enumerate() {
            let (x, z) = ((k % 5) as f32, (k / 5) as f32);
            assert_eq!(*p, [x - 2.0, padded.get(x as u32 + 1, z as u32 + 1).unwrap() * 0.5, 2.0 * z - 2.0]);
            assert_eq!(*uv, [(x + 0.5) / 5.0, (z + 0.5) / 3.0]);
        }
    }

    #[test]
    fn triangles_face_up_and_cover_the_grid_once() {
        let padded = Heightmap::from_fn(6, 6, |x, z| (x * z) as f32 * 0.01).unwrap();
        let surface = Surface::from_padded(&padded, 4.0, 1.0);
        assert_eq!(surface.positions[0], [-2.0, 0.01, -2.0]);
        assert_eq!(surface.positions[15][0], 2.0);
        assert_eq!(surface.indices.len(), 3 * 3 * 6);
        let mut area = 0.0;
        for t in surface.indices.chunks(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from_array(surface.positions[i as usize]));
            let up = (b - a).cross(c - a).y;
            assert!(up > 0.0, "triangle {t:?} faces down");
            area += up / 2.0;
        }
        // The triangles' footprints tile the 4 x 4 square exactly once.
        assert!((area - 16.0).abs() < 1e-4, "{area}");
    }

    #[test]
    fn rebuilding_reuses_the_arrays_and_equals_a_fresh_build() {
        let big = Heightmap::from_fn(40, 30, |x, z| ((x * 7 + z * 3) % 11) as f32 * 0.1).unwrap();
        let small = Heightmap::from_fn(12, 9, |x, z| (x + z) as f32 * 0.05).unwrap();
        let mut surface = Surface::from_padded(&big, 10.0, 2.0);
        let memory = surface.positions.as_ptr();
        surface.rebuild(&small, 3.0, 1.5);
        assert_eq!(surface, Surface::from_padded(&small, 3.0, 1.5));
        assert_eq!(surface.positions.as_ptr(), memory, "the positions were reallocated");
        assert!(surface.capacity_bytes() >= 38 * 28 * (12 + 12 + 8) + 37 * 27 * 6 * 4);
        surface.rebuild(&big, 10.0, 2.0);
        assert_eq!(surface, Surface::from_padded(&big, 10.0, 2.0));
        surface.rebuild(&Heightmap::from_fn(2, 2, |_, _| 0.0).unwrap(), 1.0, 1.0);
        assert_eq!(surface, Surface::default());
    }

    #[test]
    fn maps_without_an_interior_give_an_empty_surface() {
        for (w, h) in [(1, 1), (2, 9), (9, 2)] {
            let padded = Heightmap::from_fn(w, h, |_, _| 0.5).unwrap();
            assert_eq!(Surface::from_padded(&padded, 1.0, 1.0), Surface::default());
        }
        let single = Surface::from_padded(&Heightmap::from_fn(3, 3, |_, _| 0.5).unwrap(), 1.0, 1.0);
        assert_eq!((single.positions.len(), single.indices.len()), (1, 0));
        assert!(single.positions[0].iter().all(|c| c.is_finite()));
    }

    use crate::NoiseSettings;
    use crate::world::lod::{ChunkKey, chunk_window};
    use proptest::prelude::*;

    const CHUNK: f64 = 64.0;
    const WORLD_PER_UNIT: f64 = 300.0;

    /// A chunk as the endless terrain builds it: positions relative to its corner, which is
    /// returned with it.
    fn chunk(settings: &NoiseSettings, key: ChunkKey, n: u32, stitch: Stitch) -> (Surface, [f64; 2]) {
        let w = chunk_window(key, CHUNK, n, WORLD_PER_UNIT, 2);
        let mut padded =
            Heightmap::generate_region(settings, w.origin, w.width, w.height, w.pixels_per_unit).unwrap();
        fold_stitched_edges(&mut padded, 2, stitch);
        let size = key.size(CHUNK) as f32;
        let layout =
            SurfaceLayout { border: 2, origin: [0.0; 2], size: [size; 2], height_scale: 40.0, stitch };
        let mut surface = Surface::default();
        surface.rebuild_with(&padded, &layout);
        (surface, key.min_corner(CHUNK))
    }

    /// World positions (in `f64`, so that the comparisons see the mesh's own rounding only) and
    /// normals of the vertices on one edge, in order of `x` or `z`.
    fn edge(surface: &Surface, corner: [f64; 2], n: u32, side: Side) -> Vec<([f64; 3], [f32; 3])> {
        let n = n as usize;
        (0..n)
            .map(|k| match side {
                Side::West => k * n,
                Side::East => k * n + n - 1,
                Side::North => k,
                Side::South => (n - 1) * n + k,
            })
            .map(|i| {
                let p = surface.positions[i].map(f64::from);
                ([corner[0] + p[0], p[1], corner[1] + p[2]], surface.normals[i])
            })
            .collect()
    }

    #[test]
    fn neighbours_of_one_level_share_their_edge_bit_for_bit() {
        let settings = NoiseSettings { octaves: 6, seed: 5, ..Default::default() };
        let n = 17;
        for side in Side::ALL {
            let a = ChunkKey { level: 1, x: -3, z: 7 };
            let b = a.neighbour(side);
            let (sa, ca) = chunk(&settings, a, n, Stitch::NONE);
            let (sb, cb) = chunk(&settings, b, n, Stitch::NONE);
            let (ea, eb) = (edge(&sa, ca, n, side), edge(&sb, cb, n, side.opposite()));
            for ((pa, na), (pb, nb)) in ea.iter().zip(&eb) {
                assert_eq!(pa.map(f64::to_bits), pb.map(f64::to_bits), "{side:?}");
                assert_eq!(na.map(f32::to_bits), nb.map(f32::to_bits), "{side:?}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// At a join between levels, every vertex of the fine edge lies on the coarse edge, the
        /// shared vertices have the coarse chunk's normal bit for bit, and every triangle of the
        /// fine chunk still faces up with a non-zero area.
        #[test]
        fn stitched_edges_lie_on_the_coarse_edge(
            seed in any::<u32>(), level in 0u8..4, x in -50i64..50, z in -50i64..50, side_index in 0usize..4,
            half in 2u32..6,
        ) {
            let n = 2 * half + 1;
            let side = Side::ALL[side_index];
            let settings = NoiseSettings { octaves: 5, seed, ..Default::default() };
            let fine = ChunkKey { level, x, z };
            let coarse = fine.neighbour(side).parent();
            // Across an inner side of the fine chunk's parent lies a sibling, not a coarse chunk.
            prop_assume!(coarse != fine.parent());
            let (sf, cf) = chunk(&settings, fine, n, Stitch::NONE.with(side, true));
            let (sc, cc) = chunk(&settings, coarse, n, Stitch::NONE);
            let fine_edge = edge(&sf, cf, n, side);
            let coarse_edge = edge(&sc, cc, n, side.opposite());
            // Position along the edge: z for west and east edges, x for north and south.
            let along = |p: &[f64; 3]| if matches!(side, Side::West | Side::East) { p[2] } else { p[0] };
            for (k, (p, normal)) in fine_edge.iter().enumerate() {
                let t = along(p);
                let i = coarse_edge.iter().rposition(|(q, _)| along(q) <= t + 1e-3).unwrap();
                let (q0, n0) = coarse_edge[i];
                if (along(&q0) - t).abs() < 1e-3 {
                    prop_assert!((p[0] - q0[0]).abs() < 1e-4 && (p[2] - q0[2]).abs() < 1e-4);
                    prop_assert_eq!(p[1].to_bits(), q0[1].to_bits(), "vertex {} height", k);
                    prop_assert_eq!(normal.map(f32::to_bits), n0.map(f32::to_bits), "vertex {} normal", k);
                } else {
                    let (q1, _) = coarse_edge[i + 1];
                    let f = (t - along(&q0)) / (along(&q1) - along(&q0));
                    let on_line = q0[1] + f * (q1[1] - q0[1]);
                    prop_assert!((p[1] - on_line).abs() < 1e-4, "vertex {} is {} off the coarse edge", k, p[1] - on_line);
                }
            }
            for t in sf.indices.chunks(3) {
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from_array(sf.positions[i as usize]));
                prop_assert!((b - a).cross(c - a).y > 1e-6, "triangle {:?} is degenerate or faces down", t);
            }
        }
    }
}
