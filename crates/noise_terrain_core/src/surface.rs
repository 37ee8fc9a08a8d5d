//! A heightmap as a triangle surface: vertex positions, smooth normals, texture coordinates and
//! triangle indices, the arrays a renderer wants (the Bevy plugin wraps them in a mesh).
//!
//! Built from a map with a one-sample border on every side (see
//! [`Heightmap::generate_region`]): the interior samples become vertices and the border only
//! feeds the normals, so edge normals are as right as interior ones and match a neighbouring
//! tile's. Rows are built on all cores with the `parallel` feature.

use glam::Vec3;

use crate::Heightmap;
use crate::chunks::for_each_chunk;

/// Vertex and index arrays of a terrain surface (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Surface {
    /// `x` and `z` on a regular grid `world_size` wide centred on the origin; `y = h · height_scale`.
    /// Row-major: vertex `(x, z)` is at `z · columns + x`.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals from central differences of the heights.
    pub normals: Vec<[f32; 3]>,
    /// Texture coordinates of the texel centres of a `columns × rows` texture.
    pub uvs: Vec<[f32; 2]>,
    /// Two counter-clockwise (seen from above, so facing up) triangles per grid cell.
    pub indices: Vec<u32>,
}

impl Surface {
    /// The surface of `padded`'s interior (`width - 2` by `height - 2` vertices). A map narrower
    /// than 3 samples in either direction has no interior: the surface is empty.
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
        if padded.width() < 3 || padded.height() < 3 {
            *self = Self::default();
            return;
        }
        let Self { positions, normals, uvs, indices } = self;
        // Every element is overwritten below: resizing only sets the lengths.
        let (columns, rows) = (padded.width() - 2, padded.height() - 2);
        let step_x = world_size / (columns - 1).max(1) as f32;
        let step_z = world_size / (rows - 1).max(1) as f32;
        let count = columns as usize * rows as usize;
        let row_len = columns as usize;
        // The padded rows above, through and below vertex row `z`, lined up with its vertices.
        let rows_around = |z: usize| {
            let z = z as u32;
            (&padded.row(z)[1..], padded.row(z + 1), &padded.row(z + 2)[1..])
        };

        positions.resize(count, [0.0; 3]);
        for_each_chunk(positions, row_len, |z, row| {
            let (_, here, _) = rows_around(z);
            let pz = z as f32 * step_z - world_size / 2.0;
            for (x, (position, &h)) in row.iter_mut().zip(&here[1..]).enumerate() {
                *position = [x as f32 * step_x - world_size / 2.0, h * height_scale, pz];
            }
        });

        normals.resize(count, [0.0; 3]);
        for_each_chunk(normals, row_len, |z, row| {
            let (above, here, below) = rows_around(z);
            let neighbours = here.windows(3).zip(above).zip(below);
            for (normal, ((across, &up), &down)) in row.iter_mut().zip(neighbours) {
                // Central differences: the surface y = f(x, z) has normal (-df/dx, 1, -df/dz).
                let dx = (across[2] * height_scale - across[0] * height_scale) / (2.0 * step_x);
                let dz = (down * height_scale - up * height_scale) / (2.0 * step_z);
                *normal = Vec3::new(-dx, 1.0, -dz).normalize().to_array();
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
