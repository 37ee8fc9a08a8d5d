//! [`ScatterLooks`]: the mesh and material of each layer's things, shared by all of its
//! instances (so Bevy draws them in batches): the plugin's own shapes, and the game's; and the
//! meshes far pieces merge their things from ([`BatchShapes`]).

use std::sync::{Arc, PoisonError, RwLock};

use bevy::mesh::VertexAttributeValues;
use bevy::platform::collections::{HashMap, HashSet};
use bevy::prelude::*;
use noise_terrain_core::ScatterShape;

/// The meshes and materials instances are drawn with. The plugin fills in its shapes (tree,
/// rock, reed) at startup where mesh and material assets exist; a game registers its own for
/// [`ScatterShape::Custom`] layers by name with [`ScatterLooks::set_custom`]. A custom layer
/// without a registered look gets instances with their transform only, for the game to dress
/// (an observer on `Add, ScatterInstance`, say, can give each one a scene).
///
/// Far pieces draw a layer's things as one merged mesh ([`ScatterBatch`](crate::ScatterBatch)):
/// the built-in shapes with fewer facets, a custom layer with its own mesh, once that mesh's data
/// is in `Assets<Mesh>` (register custom looks before the terrain builds, for example at
/// startup with a mesh made in code or loaded first: far pieces built before then draw that
/// layer from their next build on).
#[derive(Resource, Debug, Default)]
pub struct ScatterLooks {
    shapes: HashMap<ScatterShape, (Handle<Mesh>, Handle<StandardMaterial>)>,
    custom: HashMap<String, (Handle<Mesh>, Handle<StandardMaterial>)>,
    missing: HashSet<String>,
    batch_shapes: BatchShapes,
}

/// The meshes far pieces merge each layer's things from, by shape (and name for custom
/// layers), shared with the background builds.
#[derive(Clone, Debug, Default)]
pub(crate) struct BatchShapes(Arc<RwLock<HashMap<ShapeKey, Arc<Mesh>>>>);

/// A layer's shape, with its name for custom layers.
type ShapeKey = (ScatterShape, String);

impl BatchShapes {
    /// The key of a layer's shape: built-in shapes ignore the name.
    fn key(shape: ScatterShape, name: &str) -> ShapeKey {
        match shape {
            ScatterShape::Tree | ScatterShape::Rock | ScatterShape::Reed => (shape, String::new()),
            ScatterShape::Custom => (shape, name.to_owned()),
        }
    }

    /// The mesh a layer's things are merged from, if the app has its data.
    pub(crate) fn get(&self, shape: ScatterShape, name: &str) -> Option<Arc<Mesh>> {
        let shapes = self.0.read().unwrap_or_else(PoisonError::into_inner);
        shapes.get(&Self::key(shape, name)).cloned()
    }

    fn contains(&self, shape: ScatterShape, name: &str) -> bool {
        self.0.read().unwrap_or_else(PoisonError::into_inner).contains_key(&Self::key(shape, name))
    }

    fn insert(&self, shape: ScatterShape, name: &str, mesh: Mesh) {
        let mut shapes = self.0.write().unwrap_or_else(PoisonError::into_inner);
        shapes.insert(Self::key(shape, name), Arc::new(mesh));
    }
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

    /// The mesh a far piece merges a layer's things from (`None` before startup, without mesh
    /// assets, or for a custom layer whose mesh's data is not in the app yet).
    pub fn batch_shape(&self, shape: ScatterShape, name: &str) -> Option<Arc<Mesh>> {
        self.batch_shapes.get(shape, name)
    }

    /// The store of far pieces' shapes, for the background builds.
    pub(crate) fn batch_shapes(&self) -> BatchShapes {
        self.batch_shapes.clone()
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
        let Some((mesh, far)) = built_in_meshes(shape) else { continue };
        looks.batch_shapes.insert(shape, "", far);
        looks.shapes.insert(shape, (meshes.add(mesh), material.clone()));
    }
}

/// A built-in shape's mesh for instances and its mesh with fewer facets for far pieces'
/// batches (`None` for custom shapes).
pub(super) fn built_in_meshes(shape: ScatterShape) -> Option<(Mesh, Mesh)> {
    match shape {
        ScatterShape::Tree => Some((tree(FACETS), tree(FAR_FACETS))),
        ScatterShape::Rock => Some((rock(1), rock(0))),
        ScatterShape::Reed => Some((reed(FACETS), reed(FAR_FACETS / 2))),
        ScatterShape::Custom => None,
    }
}

/// Shares the meshes of custom looks with far pieces' builds once their data is in the app.
pub(crate) fn share_custom_shapes(looks: &ScatterLooks, meshes: Option<&Assets<Mesh>>) {
    for (name, mesh) in unshared_custom_shapes(looks, meshes) {
        looks.batch_shapes.insert(ScatterShape::Custom, name, mesh.clone());
    }
}

/// The custom looks' meshes that are in the app but not yet shared with far pieces' builds.
pub(crate) fn unshared_custom_shapes<'a>(
    looks: &'a ScatterLooks,
    meshes: Option<&'a Assets<Mesh>>,
) -> impl Iterator<Item = (&'a String, &'a Mesh)> {
    let loaded =
        move |(name, (mesh, _)): (&'a String, &'a (Handle<Mesh>, _))| Some((name, meshes?.get(mesh)?));
    looks
        .custom
        .iter()
        .filter(|(name, _)| !looks.batch_shapes.contains(ScatterShape::Custom, name))
        .filter_map(loaded)
}

/// Facets around a built-in shape's cones near the focus, and far (merged into one mesh per
/// piece, where every vertex is copied per thing).
const FACETS: u32 = 32;
const FAR_FACETS: u32 = 6;

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

/// A cone of `facets` sides.
fn cone(radius: f32, height: f32, facets: u32) -> Mesh {
    Cone { radius, height }.mesh().resolution(facets).build()
}

/// A conifer about 10 units tall: a trunk and two cones of foliage with `facets` sides, its
/// base at the origin.
fn tree(facets: u32) -> Mesh {
    let trunk = Cylinder::new(0.35, 3.0).mesh().resolution(facets.min(12)).build();
    let trunk = coloured(trunk.translated_by(Vec3::Y * 1.2), [0.36, 0.25, 0.16]);
    let lower = coloured(cone(2.4, 6.0, facets).translated_by(Vec3::Y * 5.0), [0.16, 0.3, 0.14]);
    let upper = coloured(cone(1.7, 4.6, facets).translated_by(Vec3::Y * 7.7), [0.2, 0.36, 0.16]);
    merged(trunk, [lower, upper])
}

/// A faceted boulder about 2.5 units across, a third of it sunk below its origin; `detail`: the
/// icosphere's subdivisions.
fn rock(detail: u32) -> Mesh {
    let mut mesh = Sphere::new(1.0).mesh().ico(detail).unwrap_or_else(|_| Mesh::from(Sphere::new(1.0)));
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

/// A tuft of five reeds about 1.5 units tall, each a cone of `facets` sides.
fn reed(facets: u32) -> Mesh {
    let stalk = |i: u32| {
        let a = i as f32 * 1.3;
        let h = 1.2 + 0.15 * i as f32;
        let stalk = cone(0.06, h, facets);
        coloured(stalk.translated_by(Vec3::new(0.25 * a.cos(), h / 2.0, 0.25 * a.sin())), [0.45, 0.55, 0.25])
    };
    merged(stalk(0), (1..5).map(stalk))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shapes_stand_on_their_origin_and_have_colours() {
        let shapes = [(tree(FACETS), 9.0), (rock(1), 0.3), (reed(FACETS), 1.5)];
        let far = [(tree(FAR_FACETS), 9.0), (rock(0), 0.3), (reed(FAR_FACETS / 2), 1.5)];
        for ((mesh, _), (far, _)) in shapes.iter().zip(&far) {
            // The far shapes are the same things with fewer vertices.
            assert!(far.count_vertices() * 3 < mesh.count_vertices(), "{}", far.count_vertices());
        }
        for (mesh, top) in shapes.into_iter().chain(far) {
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
