//! A terrain [`Surface`] as a Bevy [`Mesh`]: positions, smooth normals, UVs and `u32` indices.

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology, VertexAttributeValues};
use bevy::prelude::*;
use noise_terrain_core::Surface;

/// Wraps a [`Surface`]'s arrays (positions, normals, UVs, `u32` indices) in a Bevy mesh,
/// without copying them. The mesh keeps its data in the main world too, so that the plugin can
/// take the arrays back for the next build (see [`take_surface`]).
pub fn terrain_mesh_from(surface: Surface) -> Mesh {
    let Surface { positions, normals, uvs, indices } = surface;
    Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
        .with_inserted_attribute(Mesh::ATTRIBUTE_UV_0, uvs)
        .with_inserted_indices(Indices::U32(indices))
}

/// Takes the arrays out of a mesh made by [`terrain_mesh_from`], for the next build. What
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
    use noise_terrain_core::Heightmap;

    #[test]
    fn the_mesh_carries_the_surface_arrays_and_gives_them_back() {
        let padded = Heightmap::from_fn(9, 7, |x, z| (x * z) as f32 * 0.02).unwrap();
        let surface = Surface::from_padded(&padded, 8.0, 5.0);
        let mut mesh = terrain_mesh_from(surface.clone());
        let float3 = |mesh: &Mesh, id| match mesh.attribute(id) {
            Some(VertexAttributeValues::Float32x3(v)) => v.clone(),
            other => panic!("unexpected {other:?}"),
        };
        assert_eq!(float3(&mesh, Mesh::ATTRIBUTE_POSITION), surface.positions);
        assert_eq!(float3(&mesh, Mesh::ATTRIBUTE_NORMAL), surface.normals);
        match mesh.attribute(Mesh::ATTRIBUTE_UV_0) {
            Some(VertexAttributeValues::Float32x2(uvs)) => assert_eq!(uvs, &surface.uvs),
            other => panic!("unexpected {other:?}"),
        }
        let Some(Indices::U32(indices)) = mesh.indices() else { panic!("u32 indices") };
        assert_eq!(indices, &surface.indices);
        assert_eq!(mesh.primitive_topology(), PrimitiveTopology::TriangleList);
        assert_eq!(take_surface(&mut mesh), surface);
        assert_eq!(take_surface(&mut mesh), Surface::default(), "the arrays were taken");
        // Neither wrapping nor taking copies the arrays.
        let original = Surface::from_padded(&padded, 8.0, 5.0);
        let memory = original.positions.as_ptr();
        let mut wrapped = terrain_mesh_from(original);
        assert_eq!(take_surface(&mut wrapped).positions.as_ptr(), memory);
    }
}
