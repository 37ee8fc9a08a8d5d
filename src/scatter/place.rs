//! The scatter hook: each piece's instances are placed in its background build and spawned as
//! its children in the frame its mesh lands.

use bevy::prelude::*;
use noise_terrain_core::{
    Ground, Heightmap, ScatterLayer, ScatterLevels, ScatterPoint, ScatterShape, WorldGround, scatter_points,
};

use crate::build::{PieceBuild, PieceGeometry, PieceKey};
use crate::params::{TerrainLayout, TerrainParams};
use crate::pieces::HookOutput;
use crate::scatter::looks::ScatterLooks;

/// Marks one placed thing: a child entity of its piece, despawned with it.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Reflect)]
#[reflect(Component)]
pub struct ScatterInstance {
    /// Its layer's index in [`TerrainParams::scatter`].
    pub layer: u8,
    /// Its layer's shape.
    #[reflect(ignore)]
    pub shape: ScatterShape,
    /// Whether its layer is [`solid`](ScatterLayer::solid).
    pub solid: bool,
}

/// What one piece's build placed: per layer, its look and the instances' transforms relative to
/// the piece's entity.
#[derive(Debug, Default)]
pub(crate) struct PieceScatter {
    layers: Vec<PlacedLayer>,
}

#[derive(Debug)]
struct PlacedLayer {
    shape: ScatterShape,
    name: String,
    solid: bool,
    transforms: Vec<Transform>,
}

/// The ground of a piece's terrain at any point, as the layers see it: the field itself in the
/// endless layout (so a point's ground does not depend on the chunk or its level), the patch's
/// own heights (after post-processing and erosion, which need the whole map) on the patch.
pub(crate) enum TerrainGround<'a> {
    /// The endless layout's field (boxed: it holds every octave's lattice).
    World(Box<WorldGround>),
    /// The patch's heights.
    Patch { heights: &'a Heightmap, geometry: PieceGeometry, height_scale: f32 },
}

impl<'a> TerrainGround<'a> {
    /// The ground of `params` (validated); `patch`: the patch's heights and where they lie.
    pub(crate) fn new(params: &TerrainParams, patch: Option<(&'a Heightmap, PieceGeometry)>) -> Option<Self> {
        match (params.layout, patch) {
            (TerrainLayout::Endless { .. }, _) => Some(Self::World(Box::new(WorldGround::new(
                &params.noise,
                &params.post,
                params.world_size,
                params.height_scale,
            )))),
            (TerrainLayout::Patch, Some((heights, geometry))) => {
                Some(Self::Patch { heights, geometry, height_scale: params.height_scale })
            }
            (TerrainLayout::Patch, None) => None,
        }
    }

    /// The ground at `(x, z)` in the terrain entity's space (`None` off the patch).
    pub(crate) fn at(&self, x: f64, z: f64) -> Option<Ground> {
        match self {
            Self::World(ground) => Some(ground.at(x, z)),
            Self::Patch { heights, geometry, height_scale } => {
                let placement = geometry.placement(*height_scale, [f32::MIN, f32::MAX]);
                let y = placement.height_at(heights, x, z)?;
                let normal = placement.normal_at(heights, x, z)?.as_vec3();
                let height = if *height_scale > 0.0 { (y / f64::from(*height_scale)) as f32 } else { 0.0 };
                Some(Ground { height, normal: normal.to_array(), cut: 0.0 })
            }
        }
    }
}

/// The points of `layer` (clamped) in `rect` of the terrain's space whose rank is under `share`.
pub(crate) fn layer_points(
    layer: &ScatterLayer,
    params: &TerrainParams,
    ground: &TerrainGround,
    rect: [f64; 4],
    share: f32,
    out: &mut Vec<ScatterPoint>,
) -> Result<(), noise_terrain_core::ScatterError> {
    let levels = ScatterLevels { water_level: params.water_level, height_scale: params.height_scale };
    scatter_points(&layer.rule, levels, rect, share, |x, z| ground.at(x, z), out)
}

/// The hook's build: every layer's instances on the piece, standing on its mesh.
pub(crate) fn place_on_piece(build: &PieceBuild, params: &TerrainParams) -> HookOutput {
    let mut placed = PieceScatter::default();
    if params.scatter.is_empty() {
        return Box::new(placed);
    }
    let (params, _) = params.validated();
    let g = build.geometry;
    let Some(ground) = TerrainGround::new(&params, Some((&build.heights, g))) else {
        return Box::new(placed);
    };
    // The mesh's own surface: instances stand on the triangles drawn, whatever the level.
    let mesh = g.placement(params.height_scale, [build.stats.min, build.stats.max]);
    let mut points = Vec::new();
    for layer in &params.scatter {
        let share = match (build.spec.key, params.layout.lod_settings()) {
            (PieceKey::Chunk(key), Some(lod)) => layer.share_at_level(key.level, lod.chunk_size),
            _ => f32::from(layer.rule.enabled),
        };
        points.clear();
        if share > 0.0
            && let Err(e) = layer_points(layer, &params, &ground, g.bounds(), share, &mut points)
        {
            warn!("scatter layer {:?}: {e}", layer.name);
        }
        let transforms = points
            .iter()
            .filter_map(|p| {
                let y = mesh.height_at(&build.heights, p.position[0], p.position[2])?;
                Some(instance_transform(
                    layer,
                    p,
                    [p.position[0] - g.translation[0], y, p.position[2] - g.translation[1]],
                ))
            })
            .collect();
        placed.layers.push(PlacedLayer {
            shape: layer.shape,
            name: layer.name.clone(),
            solid: layer.solid,
            transforms,
        });
    }
    Box::new(placed)
}

/// Where one instance stands relative to its piece: turned about the vertical, tilted to the
/// ground when the layer says so, scaled.
fn instance_transform(layer: &ScatterLayer, p: &ScatterPoint, local: [f64; 3]) -> Transform {
    let turn = Quat::from_rotation_y(p.rotation);
    let rotation = if layer.align_to_ground {
        Quat::from_rotation_arc(Vec3::Y, Vec3::from_array(p.normal)) * turn
    } else {
        turn
    };
    Transform {
        translation: Vec3::new(local[0] as f32, local[1] as f32, local[2] as f32),
        rotation,
        scale: Vec3::splat(p.scale),
    }
}

/// The hook's apply: replaces the piece's instances with the new build's (or removes them).
pub(crate) fn apply_to_piece(commands: &mut Commands, piece: Entity, output: Option<HookOutput>) {
    let placed = output.and_then(|o| o.downcast::<PieceScatter>().ok()).map(|p| *p).unwrap_or_default();
    commands.queue(move |world: &mut World| swap_instances(world, piece, placed));
}

/// Despawns the piece's old instances and spawns the new ones, in one batch per layer.
fn swap_instances(world: &mut World, piece: Entity, placed: PieceScatter) {
    let Ok(entity) = world.get_entity(piece) else { return };
    let old: Vec<Entity> = entity
        .get::<Children>()
        .map(|children| children.iter().filter(|&c| world.get::<ScatterInstance>(c).is_some()).collect())
        .unwrap_or_default();
    for child in old {
        world.despawn(child);
    }
    for (index, layer) in placed.layers.into_iter().enumerate() {
        if layer.transforms.is_empty() {
            continue;
        }
        let look = world.resource_mut::<ScatterLooks>().look_for(layer.shape, &layer.name);
        let instance = ScatterInstance { layer: index as u8, shape: layer.shape, solid: layer.solid };
        match look {
            Some((mesh, material)) => {
                world.spawn_batch(layer.transforms.into_iter().map(move |t| {
                    (instance, t, Mesh3d(mesh.clone()), MeshMaterial3d(material.clone()), ChildOf(piece))
                }));
            }
            None => {
                world.spawn_batch(layer.transforms.into_iter().map(move |t| (instance, t, ChildOf(piece))));
            }
        }
    }
}
