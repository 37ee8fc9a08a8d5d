//! The scatter hook's placement: each piece's instances are placed in its background build
//! (the points of its layers on its ground, handed over from the pieces it replaces where it
//! can), and stand on the piece as [`ScatterInstance`]s once its mesh lands (`swaps.rs`).

use bevy::prelude::*;
use noise_terrain_core::advanced::scatter_points_ranked;
use noise_terrain_core::{
    ChunkKey, Ground, Heightmap, RiverNetwork, ScatterLayer, ScatterLevels, ScatterPoint, ScatterShape,
    WorldGround,
};

use crate::build::{PieceBuild, PieceGeometry, PieceKey};
use crate::params::{TerrainLayout, TerrainPreset};
use crate::scatter::cache::{Kept, PointCache};

/// Marks one placed thing. Its entity stands on a piece ([`ScatterOf`]) and is despawned with
/// it (or passes to the piece that replaces it and places it again), but is not its child: its [`Transform`] is in world space (its terrain's transform times
/// [`in_terrain`](Self::in_terrain)), kept so when the terrain entity moves, and it is hidden
/// when the terrain entity's own [`Visibility`] is `Hidden`. Out of the transform hierarchy,
/// thousands of things cost the transform propagation nothing while nothing about them changes.
#[derive(Component, Debug, Clone, Copy, PartialEq, Reflect)]
#[reflect(Component)]
pub struct ScatterInstance {
    /// Its layer's index in [`TerrainPreset::scatter`].
    pub layer: u8,
    /// Its layer's shape.
    #[reflect(ignore)]
    pub shape: ScatterShape,
    /// Whether its layer is [`solid`](ScatterLayer::solid).
    pub solid: bool,
    /// Where it stands in its terrain entity's space.
    pub in_terrain: Transform,
}

/// The piece a [`ScatterInstance`] stands on. A plain component, not a relationship: when the
/// piece goes, its things go with it or pass to the piece that replaces it at another level of
/// detail (the same point placed again), and this changes (an insert: observers of `Insert`
/// hear of it).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScatterOf(pub Entity);

/// What one piece's build placed: per layer, its look and the instances' transforms in the
/// terrain entity's space.
#[derive(Debug, Default)]
pub(crate) struct PieceScatter {
    pub(super) layers: Vec<PlacedLayer>,
}

/// One layer's things on a piece.
#[derive(Debug)]
pub(super) struct PlacedLayer {
    /// The layer's shape.
    pub(super) shape: ScatterShape,
    /// The layer's name.
    pub(super) name: String,
    /// Whether the layer is solid.
    pub(super) solid: bool,
    /// Where each thing stands, in the terrain entity's space.
    pub(super) transforms: Vec<Transform>,
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
    pub(crate) fn new(params: &TerrainPreset, patch: Option<(&'a Heightmap, PieceGeometry)>) -> Option<Self> {
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

    /// The endless ground carved by `network`'s rivers (the terrain's own, when it has endless
    /// rivers), asked at points of `rect` (the terrain entity's space): nothing is then placed
    /// in a river or on a lake. The patch's ground, and the ground without a network, as it is.
    pub(crate) fn with_rivers(self, network: Option<&RiverNetwork>, rect: [f64; 4]) -> Self {
        match (self, network) {
            (Self::World(ground), Some(network)) => {
                let map = rect.map(|v| v / f64::from(network.world().world_size));
                Self::World(Box::new(ground.with_rivers(network.near(map))))
            }
            (ground, _) => ground,
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

/// The points of `layer` (clamped) in `rect` of the terrain's space whose rank lies in `ranks`
/// (`[lowest, share)`).
pub(crate) fn layer_points(
    layer: &ScatterLayer,
    params: &TerrainPreset,
    ground: &TerrainGround,
    rect: [f64; 4],
    ranks: [f32; 2],
    out: &mut Vec<ScatterPoint>,
) -> Result<(), noise_terrain_core::ScatterError> {
    let levels = ScatterLevels { water_level: params.water_level, height_scale: params.height_scale };
    match ground {
        // A candidate whose height is sure to be out of the rule's range costs a third to two
        // thirds of one asked for its whole ground.
        TerrainGround::World(world) => {
            let heights = layer.rule.clamped().height_window(levels.water_level);
            scatter_points_ranked(&layer.rule, levels, rect, ranks, world.within(heights), out)
        }
        TerrainGround::Patch { .. } => {
            scatter_points_ranked(&layer.rule, levels, rect, ranks, |x, z| ground.at(x, z), out)
        }
    }
}

/// The hook's build: every layer's instances on the piece, standing on its mesh.
pub(crate) fn place_on_piece(
    cache: PointCache,
) -> impl Fn(&PieceBuild, &TerrainPreset) -> PieceScatter + Send + Sync + 'static {
    move |build, params| PieceScatter { layers: placed_layers(build, params, &cache) }
}

/// Every layer's things on the piece (none for a layer the piece does not carry), standing on
/// its mesh: where the piece's instances or its batches stand. A chunk's points come from
/// `cache` when it was built before with the same parameters.
pub(super) fn placed_layers(
    build: &PieceBuild,
    params: &TerrainPreset,
    cache: &PointCache,
) -> Vec<PlacedLayer> {
    if params.scatter.is_empty() {
        return Vec::new();
    }
    let params = params.clamped();
    let g = build.geometry;
    // The patch's ground is its own heights (after erosion): made anew with each build.
    let points = match build.spec.key {
        PieceKey::Patch => piece_points(build, &params, Kept::Nothing).into(),
        PieceKey::Chunk(_) => {
            cache.points(build.spec.key, &params, |kept| piece_points(build, &params, kept))
        }
    };
    // The mesh's own surface: instances stand on the triangles drawn, whatever the level.
    let mesh = g.placement(params.height_scale, [build.stats.min, build.stats.max]);
    params
        .scatter
        .iter()
        .zip(points.iter())
        .map(|(layer, points)| {
            let transforms = points
                .iter()
                .filter_map(|p| {
                    let y = mesh.height_at(&build.heights, p.position[0], p.position[2])?;
                    Some(instance_transform(layer, p, [p.position[0], y, p.position[2]]))
                })
                .collect();
            PlacedLayer { shape: layer.shape, name: layer.name.clone(), solid: layer.solid, transforms }
        })
        .collect()
}

/// Each layer's points on the piece (validated `params`), thinned for its level of detail;
/// those that `kept` (its children's or parent's points) holds are taken from there, so the
/// ground is asked only for the others.
fn piece_points(build: &PieceBuild, params: &TerrainPreset, kept: Kept) -> Vec<Vec<ScatterPoint>> {
    let g = build.geometry;
    let bounds = g.bounds();
    let Some(ground) = TerrainGround::new(params, Some((&build.heights, g))) else {
        return vec![Vec::new(); params.scatter.len()];
    };
    let ground = ground.with_rivers(build.rivers.as_deref(), bounds);
    let share_at = |layer: &ScatterLayer, key: PieceKey| match (key, params.layout.lod_settings()) {
        (PieceKey::Chunk(key), Some(lod)) => layer.share_at_level(key.level, lod.chunk_size),
        _ => f32::from(layer.rule.enabled),
    };
    // Only where the pieces' rectangles tile exactly: a candidate then lies in the same piece
    // as it does when placed anew.
    let kept = match kept {
        Kept::Children(chunk, _) if !tiled_by_children(chunk, params, bounds) => Kept::Nothing,
        Kept::Parent(parent, _) if !contains(PieceKey::Chunk(parent).geometry(params).bounds(), bounds) => {
            Kept::Nothing
        }
        kept @ (Kept::Children(..) | Kept::Parent(..) | Kept::Nothing) => kept,
    };
    params
        .scatter
        .iter()
        .enumerate()
        .map(|(index, layer)| {
            let share = share_at(layer, build.spec.key);
            let mut points = Vec::new();
            if share <= 0.0 {
                return points;
            }
            let lowest = match &kept {
                // The children hold every point of the piece (a finer level keeps more).
                Kept::Children(chunk, children)
                    if chunk.children().all(|child| share_at(layer, PieceKey::Chunk(child)) >= share) =>
                {
                    points.extend(children.iter().flat_map(|c| &c[index]).filter(|p| p.rank < share));
                    return points;
                }
                // The parent holds those of rank under its share.
                Kept::Parent(parent, of_parent) => {
                    let inside = |p: &&ScatterPoint| in_rect(bounds, p.position[0], p.position[2]);
                    points.extend(of_parent[index].iter().filter(inside).filter(|p| p.rank < share));
                    share_at(layer, PieceKey::Chunk(*parent)).min(share)
                }
                Kept::Children(..) | Kept::Nothing => 0.0,
            };
            if let Err(e) = layer_points(layer, params, &ground, bounds, [lowest, share], &mut points) {
                warn!("scatter layer {:?}: {e}", layer.name);
            }
            points
        })
        .collect()
}

/// Whether the rectangles of `chunk`'s children tile `bounds` (the chunk's) exactly, edge on
/// edge in `f64`.
fn tiled_by_children(chunk: ChunkKey, params: &TerrainPreset, bounds: [f64; 4]) -> bool {
    let children: Vec<[f64; 4]> =
        chunk.children().map(|child| PieceKey::Chunk(child).geometry(params).bounds()).collect();
    let [x0, z0, x1, z1] = bounds;
    let Some(&[_, _, mid_x, mid_z]) = children.first() else { return false };
    let xs = [x0, mid_x, x1];
    let zs = [z0, mid_z, z1];
    // In `ChunkKey::children`' order: (0, 0), (1, 0), (0, 1), (1, 1).
    children.len() == 4
        && children
            .iter()
            .zip([(0, 0), (1, 0), (0, 1), (1, 1)])
            .all(|(rect, (i, j))| *rect == [xs[i], zs[j], xs[i + 1], zs[j + 1]])
}

/// Whether `outer` contains `inner` (both `[min x, min z, max x, max z]`).
fn contains(outer: [f64; 4], inner: [f64; 4]) -> bool {
    outer[0] <= inner[0] && outer[1] <= inner[1] && inner[2] <= outer[2] && inner[3] <= outer[3]
}

/// Whether `(x, z)` lies in `rect`, half-open as the scatter rectangles are.
fn in_rect(rect: [f64; 4], x: f64, z: f64) -> bool {
    (rect[0]..rect[2]).contains(&x) && (rect[1]..rect[3]).contains(&z)
}

/// Where one instance stands in its terrain's space: turned about the vertical, tilted to the
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildControl, PieceSpec, build_piece};
    use crate::scatter::cache::PiecePoints;
    use noise_terrain_core::RiverNetwork;
    use noise_terrain_core::advanced::Stitch;

    /// The endless example's world and layers, five times as dense, on chunks of `chunk_size`.
    fn world(chunk_size: f32) -> TerrainPreset {
        let mut scatter = ScatterLayer::landscape();
        for layer in &mut scatter {
            layer.rule.density *= 5.0;
            layer.rule.spacing = layer.rule.spacing.min(layer.rule.density.recip().sqrt());
        }
        let layout =
            TerrainLayout::Endless { chunk_size, chunk_vertices: 9, view_distance: 2000.0, lod_levels: 4 };
        let mut noise =
            noise_terrain_core::NoiseSettings { octaves: 5, frequency: 3.0, seed: 11, ..default() };
        noise.erosion_filter.enabled = true;
        TerrainPreset {
            layout,
            noise,
            world_size: 2000.0,
            height_scale: 420.0,
            water_level: 0.24,
            scatter,
            ..default()
        }
        .clamped()
    }

    fn build(params: &TerrainPreset, key: ChunkKey) -> PieceBuild {
        let spec = PieceSpec { key: PieceKey::Chunk(key), stitch: Stitch::NONE };
        build_piece(params, spec, default(), &BuildControl::new()).unwrap()
    }

    /// Each layer's points, sorted (kept points come in another order than cell order).
    fn points(params: &TerrainPreset, key: ChunkKey, kept: Kept) -> Vec<Vec<[u64; 3]>> {
        let layers = piece_points(&build(params, key), params, kept);
        let bits = |p: &ScatterPoint| p.position.map(f64::to_bits);
        layers
            .iter()
            .map(|l| l.iter().map(bits).collect::<Vec<_>>())
            .map(|mut l| {
                l.sort_unstable();
                l
            })
            .collect()
    }

    /// Asserts that `key`'s points taken from its children's, and from its parent's with the rest
    /// placed, are `anew` (its points placed from nothing, as [`points`] gives them).
    fn assert_kept_points_are_placed_anew(
        params: &TerrainPreset,
        key: ChunkKey,
        anew: &[Vec<[u64; 3]>],
        what: &str,
    ) {
        let made = |key| -> PiecePoints { piece_points(&build(params, key), params, Kept::Nothing).into() };
        let children: Vec<PiecePoints> = key.children().map(made).collect();
        let children = Kept::Children(key, children.try_into().unwrap());
        assert_eq!(points(params, key, children), anew, "{what}: from its children");
        let parent = Kept::Parent(key.parent(), made(key.parent()));
        assert_eq!(points(params, key, parent), anew, "{what}: from its parent");
    }

    /// A chunk's points taken from its children's, or from its parent's and the rest placed,
    /// are the ones it places from nothing, bit for bit, at every level and on chunks whose
    /// sides are not powers of two.
    #[test]
    fn points_from_children_or_parent_are_the_points_placed_anew() {
        for chunk_size in [64.0, 37.3] {
            let params = world(chunk_size);
            for key in [ChunkKey { level: 1, x: 3, z: -2 }, ChunkKey { level: 2, x: -1, z: 0 }] {
                let bounds = PieceKey::Chunk(key).geometry(&params).bounds();
                let parent_bounds = PieceKey::Chunk(key.parent()).geometry(&params).bounds();
                // The kept points are used, not set aside for placing anew.
                assert!(tiled_by_children(key, &params, bounds), "{chunk_size} {key:?}");
                assert!(contains(parent_bounds, bounds), "{chunk_size} {key:?}");
                let anew = points(&params, key, Kept::Nothing);
                assert!(
                    !anew[0].is_empty() && !anew[1].is_empty(),
                    "{chunk_size} {key:?}: no trees or rocks"
                );
                assert_kept_points_are_placed_anew(&params, key, &anew, &format!("{chunk_size} {key:?}"));
            }
        }
    }

    /// The cache hands a chunk its children's points when it keeps all four, else its parent's,
    /// and nothing for another parameter set; a kept chunk is not made again.
    #[test]
    fn the_cache_hands_over_children_or_parent() {
        let params = world(64.0);
        let cache = PointCache::default();
        let made = std::cell::RefCell::new(Vec::new());
        let get = |key: ChunkKey, params: &TerrainPreset| {
            cache.points(PieceKey::Chunk(key), params, |kept| {
                made.borrow_mut().push((key, kept));
                Vec::new()
            });
        };
        let (a, b) = (ChunkKey { level: 1, x: 0, z: 0 }, ChunkKey { level: 1, x: 1, z: 0 });
        assert_eq!(a.parent(), b.parent());
        get(a.parent(), &params);
        // Three of `a`'s children, all four of `b`'s.
        a.children().take(3).chain(b.children()).for_each(|child| get(child, &params));
        get(a, &params);
        get(b, &params);
        get(a, &params);
        get(a, &TerrainPreset { height_scale: 400.0, ..params.clone() });
        let made = made.into_inner();
        assert_eq!(made.len(), 1 + 7 + 3, "each chunk made once per parameter set");
        assert!(made[..8].iter().all(|(_, kept)| matches!(kept, Kept::Nothing)), "neither kept yet");
        assert!(matches!(&made[8], (key, Kept::Parent(parent, _)) if *key == a && *parent == a.parent()));
        assert!(matches!(&made[9], (key, Kept::Children(chunk, _)) if *key == b && *chunk == b));
        assert!(matches!(&made[10], (key, Kept::Nothing) if *key == a), "another parameter set");
    }

    /// With endless rivers no thing stands in a river or on a lake (the dry ground of the same
    /// chunk puts some there), and a chunk's points from its children or its parent are still
    /// the ones it places anew.
    #[test]
    fn with_endless_rivers_nothing_stands_in_the_water() {
        let mut scatter = ScatterLayer::landscape();
        for layer in &mut scatter {
            // Every height and slope, densely: whatever is dry ground gets things.
            layer.rule.heights = [0.0, 1.0];
            layer.rule.slopes = [0.0, 90.0];
            layer.rule.density = 0.2;
            layer.rule.spacing = 1.0;
        }
        let layout = TerrainLayout::Endless {
            chunk_size: 64.0,
            chunk_vertices: 17,
            view_distance: 2000.0,
            lod_levels: 4,
        };
        let params = TerrainPreset { layout, scatter, ..TerrainPreset::river_mountains() }.clamped();
        let dry = TerrainPreset { endless_rivers: default(), ..params.clone() };
        // The level-1 chunk at the largest river of drainage region (1, 1).
        let network = RiverNetwork::new(params.river_world());
        let region = network.region(noise_terrain_core::RegionKey { x: 1, y: 1 });
        let river = region.segments.iter().max_by(|a, b| a.area[1].total_cmp(&b.area[1])).unwrap();
        let [at, _] = river.positions();
        let key = ChunkKey {
            level: 1,
            x: (at[0] * 2000.0 / 128.0).floor() as i64,
            z: (at[1] * 2000.0 / 128.0).floor() as i64,
        };
        let wet =
            |p: &ScatterPoint| network.water_at([p.position[0] / 2000.0, p.position[2] / 2000.0]).is_some();
        let built = build(&params, key);
        assert!(!built.river_segments.is_empty() && built.rivers.is_some(), "the chunk has a river");
        let placed = piece_points(&built, &params, Kept::Nothing);
        let on_dry = piece_points(&build(&dry, key), &dry, Kept::Nothing);
        for (layer, (placed, on_dry)) in params.scatter.iter().zip(placed.iter().zip(&on_dry)) {
            assert!(!placed.is_empty(), "{}: things on the chunk", layer.name);
            assert!(!placed.iter().any(wet), "{}: a thing in the water", layer.name);
            assert!(on_dry.iter().any(wet), "{}: the dry ground has things where the water is", layer.name);
        }
        assert_kept_points_are_placed_anew(&params, key, &points(&params, key, Kept::Nothing), "rivers");
    }
}
