//! Heightmap to [`Mesh`]: positions, smooth normals, UVs and `u32` indices.

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology, VertexAttributeValues};
use bevy::prelude::*;
use noise_terrain_core::Heightmap;
use noise_terrain_core::surface::Surface;

/// Builds the terrain mesh from a heightmap with a one-sample border on every side (see
/// [`Heightmap::generate_region`]): the interior `n × n` samples become vertices, the border only
/// feeds the normals, so edge normals are as right as interior ones and match a neighbouring tile.
///
/// The grid is `world_size` wide, centred on the origin in x and z; a height `h` becomes
/// `y = h · height_scale`. UVs point at texel centres of an `n × n` texture. The arrays are
/// [`Surface`]'s (built on all cores); this wraps them in a Bevy mesh.
pub fn terrain_mesh(padded: &Heightmap, world_size: f32, height_scale: f32) -> Mesh {
    terrain_mesh_reusing(padded, world_size, height_scale, Surface::default())
}

/// [`terrain_mesh`] built into the arrays of `reuse` (see [`take_surface`]), which saves the cost
/// of fresh memory when the size stays the same.
pub fn terrain_mesh_reusing(
    padded: &Heightmap,
    world_size: f32,
    height_scale: f32,
    mut reuse: Surface,
) -> Mesh {
    reuse.rebuild(padded, world_size, height_scale);
    let Surface { positions, normals, uvs, indices } = reuse;
    Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
        .with_inserted_attribute(Mesh::ATTRIBUTE_UV_0, uvs)
        .with_inserted_indices(Indices::U32(indices))
}

/// Takes the arrays out of a mesh made by [`terrain_mesh`], for [`terrain_mesh_reusing`]. What
/// the mesh lacks (or holds in another format, or has handed to the render world) comes back
/// empty.
pub fn take_surface(mesh: &mut Mesh) -> Surface {
    let mut float3 = |id| match mesh.try_remove_attribute(id) {
        Ok(VertexAttributeValues::Float32x3(values)) => values,
        _ => Vec::new(),
    };
    let (positions, normals) = (float3(Mesh::ATTRIBUTE_POSITION), float3(Mesh::ATTRIBUTE_NORMAL));
    let uvs = match mesh.try_remove_attribute(Mesh::ATTRIBUTE_UV_0) {
        Ok(VertexAttributeValues::Float32x2(values)) => values,
        _ => Vec::new(),
    };
    let indices = match mesh.try_remove_indices() {
        Ok(Some(Indices::U32(values))) => values,
        _ => Vec::new(),
    };
    Surface { positions, normals, uvs, indices }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mesh_carries_the_surface_arrays() {
        let padded = Heightmap::from_fn(9, 7, |x, z| (x * z) as f32 * 0.02).unwrap();
        let surface = Surface::from_padded(&padded, 8.0, 5.0);
        let mesh = terrain_mesh(&padded, 8.0, 5.0);
        let float3 = |id| match mesh.attribute(id) {
            Some(VertexAttributeValues::Float32x3(v)) => v.clone(),
            other => panic!("unexpected {other:?}"),
        };
        assert_eq!(float3(Mesh::ATTRIBUTE_POSITION), surface.positions);
        assert_eq!(float3(Mesh::ATTRIBUTE_NORMAL), surface.normals);
        match mesh.attribute(Mesh::ATTRIBUTE_UV_0) {
            Some(VertexAttributeValues::Float32x2(uvs)) => assert_eq!(uvs, &surface.uvs),
            other => panic!("unexpected {other:?}"),
        }
        let Some(Indices::U32(indices)) = mesh.indices() else { panic!("u32 indices") };
        assert_eq!(indices, &surface.indices);
        assert_eq!(mesh.primitive_topology(), PrimitiveTopology::TriangleList);
    }

    #[test]
    fn a_mesh_gives_its_arrays_back_for_the_next_one() {
        let padded = Heightmap::from_fn(9, 7, |x, z| (x * z) as f32 * 0.02).unwrap();
        let mut mesh = terrain_mesh(&padded, 8.0, 5.0);
        let surface = take_surface(&mut mesh);
        assert_eq!(surface, Surface::from_padded(&padded, 8.0, 5.0));
        assert_eq!(take_surface(&mut mesh), Surface::default(), "the arrays were taken");
        let memory = surface.positions.as_ptr();
        let other = Heightmap::from_fn(9, 7, |x, _| x as f32 * 0.1).unwrap();
        let mut reused = terrain_mesh_reusing(&other, 8.0, 5.0, surface);
        let again = take_surface(&mut reused);
        assert_eq!(again.positions.as_ptr(), memory);
        assert_eq!(again, Surface::from_padded(&other, 8.0, 5.0));
    }
}
