//! Heightmap to [`Mesh`]: positions, smooth normals, UVs and `u32` indices.

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use noise_terrain_core::Heightmap;

/// Builds the terrain mesh from a heightmap with a one-sample border on every side (see
/// [`Heightmap::generate_region`]): the interior `n × n` samples become vertices, the border only
/// feeds the normals, so edge normals are as right as interior ones and match a neighbouring tile.
///
/// The grid is `world_size` wide, centred on the origin in x and z; a height `h` becomes
/// `y = h · height_scale`. UVs point at texel centres of an `n × n` texture.
pub fn terrain_mesh(padded: &Heightmap, world_size: f32, height_scale: f32) -> Mesh {
    let n = padded.width() - 2;
    let rows = padded.height() - 2;
    let step_x = world_size / (n - 1).max(1) as f32;
    let step_z = world_size / (rows - 1).max(1) as f32;
    let h = |x: u32, z: u32| padded.get(x, z).unwrap_or(0.0) * height_scale;

    let count = (n * rows) as usize;
    let mut positions = Vec::with_capacity(count);
    let mut normals = Vec::with_capacity(count);
    let mut uvs = Vec::with_capacity(count);
    for z in 0..rows {
        for x in 0..n {
            let (px, pz) = (x + 1, z + 1);
            positions.push([
                x as f32 * step_x - world_size / 2.0,
                h(px, pz),
                z as f32 * step_z - world_size / 2.0,
            ]);
            // Central differences: the surface y = f(x, z) has normal (-df/dx, 1, -df/dz).
            let dx = (h(px + 1, pz) - h(px - 1, pz)) / (2.0 * step_x);
            let dz = (h(px, pz + 1) - h(px, pz - 1)) / (2.0 * step_z);
            normals.push(Vec3::new(-dx, 1.0, -dz).normalize().to_array());
            uvs.push([(x as f32 + 0.5) / n as f32, (z as f32 + 0.5) / rows as f32]);
        }
    }

    let mut indices = Vec::with_capacity(((n - 1) * (rows - 1) * 6) as usize);
    for z in 0..rows - 1 {
        for x in 0..n - 1 {
            let a = z * n + x;
            let (b, c, d) = (a + 1, a + n, a + n + 1);
            // Counter-clockwise seen from above, so the faces point up.
            indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }

    Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
        .with_inserted_attribute(Mesh::ATTRIBUTE_UV_0, uvs)
        .with_inserted_indices(Indices::U32(indices))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::mesh::VertexAttributeValues;

    fn attribute(mesh: &Mesh, id: bevy::mesh::MeshVertexAttribute) -> Vec<[f32; 3]> {
        match mesh.attribute(id) {
            Some(VertexAttributeValues::Float32x3(v)) => v.clone(),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn a_plane_has_straight_up_normals_everywhere() {
        let padded = Heightmap::from_fn(10, 10, |_, _| 0.3).unwrap();
        let mesh = terrain_mesh(&padded, 8.0, 5.0);
        let normals = attribute(&mesh, Mesh::ATTRIBUTE_NORMAL);
        assert_eq!(normals.len(), 64);
        assert!(normals.iter().all(|n| *n == [0.0, 1.0, 0.0]));
        assert!(attribute(&mesh, Mesh::ATTRIBUTE_POSITION).iter().all(|p| p[1] == 1.5));
    }

    #[test]
    fn a_slope_has_the_analytic_normal_also_at_the_edges() {
        // Height rises 0.1 per sample in x and falls 0.05 per sample in z.
        let padded = Heightmap::from_fn(12, 12, |x, z| 0.1 * x as f32 - 0.05 * z as f32).unwrap();
        let (world, scale) = (9.0, 2.0);
        let mesh = terrain_mesh(&padded, world, scale);
        let step = world / 9.0;
        let expected = Vec3::new(-0.1 * scale / step, 1.0, 0.05 * scale / step).normalize();
        for n in attribute(&mesh, Mesh::ATTRIBUTE_NORMAL) {
            assert!(Vec3::from_array(n).distance(expected) < 1e-5, "{n:?} vs {expected}");
        }
    }

    #[test]
    fn triangles_face_up_and_cover_the_grid() {
        let padded = Heightmap::from_fn(6, 6, |_, _| 0.0).unwrap();
        let mesh = terrain_mesh(&padded, 4.0, 1.0);
        let positions = attribute(&mesh, Mesh::ATTRIBUTE_POSITION);
        assert_eq!(positions[0], [-2.0, 0.0, -2.0]);
        assert_eq!(positions[15], [2.0, 0.0, 2.0]);
        let Some(Indices::U32(indices)) = mesh.indices() else { panic!("u32 indices") };
        assert_eq!(indices.len(), 3 * 3 * 6);
        for t in indices.chunks(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from_array(positions[i as usize]));
            assert!((b - a).cross(c - a).y > 0.0, "triangle {t:?} faces down");
        }
    }
}
