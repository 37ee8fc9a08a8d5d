//! [`ScatterLooks`]: the mesh and material of each layer's things, shared by all of its
//! instances (so Bevy draws them in batches): the plugin's own shapes, and the game's.

use bevy::mesh::VertexAttributeValues;
use bevy::platform::collections::{HashMap, HashSet};
use bevy::prelude::*;
use noise_terrain_core::ScatterShape;

/// The meshes and materials instances are drawn with. The plugin fills in its shapes (tree,
/// rock, reed) at startup where mesh and material assets exist; a game registers its own for
/// [`ScatterShape::Custom`] layers by name with [`ScatterLooks::set_custom`]. A custom layer
/// without a registered look gets instances with their transform only, for the game to dress
/// (an observer on `Add, ScatterInstance`, say, can give each one a scene).
#[derive(Resource, Debug, Default)]
pub struct ScatterLooks {
    shapes: HashMap<ScatterShape, (Handle<Mesh>, Handle<StandardMaterial>)>,
    custom: HashMap<String, (Handle<Mesh>, Handle<StandardMaterial>)>,
    missing: HashSet<String>,
}

impl ScatterLooks {
    /// Draws the things of custom layers named `name` with `mesh` and `material` (pieces built
    /// from now on).
    pub fn set_custom(
        &mut self,
        name: impl Into<String>,
        mesh: Handle<Mesh>,
        material: Handle<StandardMaterial>,
    ) {
        let name = name.into();
        self.missing.remove(&name);
        self.custom.insert(name, (mesh, material));
    }

    /// The mesh and material of a built-in shape (`None` before startup or without assets).
    pub fn shape(&self, shape: ScatterShape) -> Option<(Handle<Mesh>, Handle<StandardMaterial>)> {
        self.shapes.get(&shape).cloned()
    }

    /// What a layer's instances are drawn with; a custom name without a look is warned of once.
    pub(crate) fn look_for(
        &mut self,
        shape: ScatterShape,
        name: &str,
    ) -> Option<(Handle<Mesh>, Handle<StandardMaterial>)> {
        match shape {
            ScatterShape::Tree | ScatterShape::Rock | ScatterShape::Reed => self.shape(shape),
            ScatterShape::Custom => {
                let look = self.custom.get(name).cloned();
                if look.is_none() && self.missing.insert(name.to_owned()) {
                    warn!("scatter layer {name:?} is custom and has no look: its instances have no mesh");
                }
                look
            }
        }
    }
}

/// Makes the built-in shapes' meshes and materials (where the app has those assets).
pub(crate) fn make_shapes(
    mut looks: ResMut<ScatterLooks>,
    meshes: Option<ResMut<Assets<Mesh>>>,
    materials: Option<ResMut<Assets<StandardMaterial>>>,
) {
    let (Some(mut meshes), Some(mut materials)) = (meshes, materials) else { return };
    // One material for all: the meshes carry their colours per vertex.
    let material =
        materials.add(StandardMaterial { perceptual_roughness: 0.9, reflectance: 0.1, ..default() });
    for shape in [ScatterShape::Tree, ScatterShape::Rock, ScatterShape::Reed] {
        let mesh = match shape {
            ScatterShape::Tree => tree(),
            ScatterShape::Rock => rock(),
            ScatterShape::Reed => reed(),
            ScatterShape::Custom => continue,
        };
        looks.shapes.insert(shape, (meshes.add(mesh), material.clone()));
    }
}

/// `mesh` with every vertex in one sRGB colour.
fn coloured(mesh: Mesh, srgb: [f32; 3]) -> Mesh {
    let colour = Color::srgb(srgb[0], srgb[1], srgb[2]).to_linear().to_f32_array();
    let n = mesh.count_vertices();
    mesh.with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, vec![colour; n])
}

/// Merges `first` and `rest` into one mesh (they share their attributes).
fn merged(first: Mesh, rest: impl IntoIterator<Item = Mesh>) -> Mesh {
    let mut mesh = first;
    for part in rest {
        if let Err(e) = mesh.merge(&part) {
            warn!("scatter shape: {e}");
        }
    }
    mesh
}

/// A conifer about 10 units tall: a trunk and two cones of foliage, its base at the origin.
fn tree() -> Mesh {
    let trunk =
        coloured(Mesh::from(Cylinder::new(0.35, 3.0)).translated_by(Vec3::Y * 1.2), [0.36, 0.25, 0.16]);
    let lower = coloured(
        Mesh::from(Cone { radius: 2.4, height: 6.0 }).translated_by(Vec3::Y * 5.0),
        [0.16, 0.3, 0.14],
    );
    let upper = coloured(
        Mesh::from(Cone { radius: 1.7, height: 4.6 }).translated_by(Vec3::Y * 7.7),
        [0.2, 0.36, 0.16],
    );
    merged(trunk, [lower, upper])
}

/// A faceted boulder about 2.5 units across, a third of it sunk below its origin.
fn rock() -> Mesh {
    let mut mesh = Sphere::new(1.0).mesh().ico(1).unwrap_or_else(|_| Mesh::from(Sphere::new(1.0)));
    if let Some(VertexAttributeValues::Float32x3(positions)) = mesh.attribute_mut(Mesh::ATTRIBUTE_POSITION) {
        for (i, p) in positions.iter_mut().enumerate() {
            // A fixed bumpiness per vertex (the same rock every run), flattened and sunk.
            let bump = 0.8 + 0.35 * ((i as f32 * 12.9898).sin() * 43_758.547).fract().abs();
            *p = [p[0] * bump * 1.3, p[1] * bump * 0.8 - 0.3, p[2] * bump];
        }
    }
    mesh.duplicate_vertices();
    mesh.compute_flat_normals();
    coloured(mesh, [0.47, 0.45, 0.42])
}

/// A tuft of five reeds about 1.5 units tall.
fn reed() -> Mesh {
    let stalk = |i: u32| {
        let a = i as f32 * 1.3;
        let h = 1.2 + 0.15 * i as f32;
        let stalk = Mesh::from(Cone { radius: 0.06, height: h });
        coloured(stalk.translated_by(Vec3::new(0.25 * a.cos(), h / 2.0, 0.25 * a.sin())), [0.45, 0.55, 0.25])
    };
    merged(stalk(0), (1..5).map(stalk))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shapes_stand_on_their_origin_and_have_colours() {
        for (mesh, top) in [(tree(), 9.0), (rock(), 0.3), (reed(), 1.5)] {
            let Some(VertexAttributeValues::Float32x3(p)) = mesh.attribute(Mesh::ATTRIBUTE_POSITION) else {
                panic!("positions")
            };
            let (lo, hi) = p.iter().fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(v[1]), hi.max(v[1])));
            assert!(lo <= 0.0 && lo > -1.5 && hi >= top, "{lo} {hi}");
            assert_eq!(mesh.attribute(Mesh::ATTRIBUTE_COLOR).map(|c| c.len()), Some(p.len()));
            assert!(mesh.attribute(Mesh::ATTRIBUTE_NORMAL).is_some());
        }
    }
}
