//! Rivers as data for game code ([`TerrainRivers`] on a piece entity) and as water: on the
//! patch, the stream-power network, with water ribbons over the channels painted into the
//! texture when [`TerrainPreset::river_water`] is on; on the endless layout's chunks, the
//! endless rivers (see [`EndlessRivers`](noise_terrain_core::EndlessRivers)) that start on each
//! chunk, always with their water, set in the channels carved for them.
//!
//! Both come from a build hook: the polylines are placed and the ribbon mesh is built in the
//! piece's background job, and they land in the frame its mesh does.

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use noise_terrain_core::advanced::DRAINAGE_CELLS_PER_UNIT;
use noise_terrain_core::{Drainage, RiverEnd, RiverSegment, river_runs};

use crate::build::{PieceBuild, PieceGeometry};
use crate::params::TerrainPreset;
use crate::pieces::{PieceHook, PieceHooks};
use crate::sea::SeaLook;

/// One vertex of a river, in the terrain entity's space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RiverVertex {
    /// The water surface at the vertex (x, height, z).
    pub position: Vec3,
    /// Area draining through it, world units².
    pub area: f32,
    /// Estimated width, world units.
    pub width: f32,
}

/// One river, downstream.
#[derive(Clone, Debug, PartialEq)]
pub struct RiverLine {
    /// Its vertices, one per map cell, from the source (or where it enters the patch) down.
    pub vertices: Vec<RiverVertex>,
    /// Whether it ends in the sea, at the edge, in a sink or on a larger river (whose line has
    /// the same last vertex).
    pub end: RiverEnd,
}

/// One drainage cell of a lake: a square of still water.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LakeCell {
    /// Its centre on the water surface (x, height, z), in the terrain entity's space.
    pub centre: Vec3,
    /// Its side, world units.
    pub size: f32,
}

/// The river network of a piece, on its entity while the shown build has one: the patch's with
/// stream power on, an endless chunk's (the rivers that start on it, and its lakes) with endless
/// rivers on. Positions are in the terrain entity's space: world space for a terrain at the
/// origin; use the terrain's `GlobalTransform` otherwise.
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Default)]
pub struct TerrainRivers {
    /// The rivers; a line's last vertex lies on the line it joins (not reflected: the core's
    /// types carry no reflection).
    #[reflect(ignore)]
    pub lines: Vec<RiverLine>,
    /// The lakes of an endless chunk, cell by cell (the patch's lakes are painted into its
    /// texture; not reflected).
    #[reflect(ignore)]
    pub lakes: Vec<LakeCell>,
}

impl TerrainRivers {
    /// The rivers of `drainage` (the patch's map, one cell per vertex) placed on the piece.
    pub fn from_drainage(drainage: &Drainage, geometry: &PieceGeometry, height_scale: f32) -> TerrainRivers {
        let step = geometry.step();
        let at = |x: u32, y: u32, height: f32| {
            let tx = geometry.translation[0] as f32 + geometry.origin[0];
            let tz = geometry.translation[1] as f32 + geometry.origin[1];
            Vec3::new(tx + x as f32 * step, height * height_scale, tz + y as f32 * step)
        };
        let lines = drainage
            .rivers
            .iter()
            .map(|river| RiverLine {
                vertices: river
                    .points
                    .iter()
                    .map(|p| RiverVertex { position: at(p.x, p.y, p.height), area: p.area, width: p.width })
                    .collect(),
                end: river.end,
            })
            .collect();
        TerrainRivers { lines, lakes: Vec::new() }
    }

    /// The rivers of a chunk's `segments` (the endless network's, in its order: consecutive ones
    /// that meet are one line) and its `lakes` (cells and surfaces), placed in the terrain's
    /// space with `params`. A river's water stands a quarter of its channel's depth below its
    /// banks (see [`EndlessRivers::channel_depth`](noise_terrain_core::EndlessRivers)), a
    /// lake's at its spill level. A line ends in the sea where its water reaches the sea level,
    /// else at the chunk's border (the rest of it is on the next chunk).
    pub fn from_segments(
        segments: &[RiverSegment],
        lakes: &[([i64; 2], f32)],
        params: &TerrainPreset,
    ) -> TerrainRivers {
        let (world_size, height_scale) = (f64::from(params.world_size), params.height_scale);
        let sunk = 0.25 * params.endless_rivers.channel_depth;
        let at = |p: [f64; 2], water: f32, area: f32, width: f32| RiverVertex {
            position: Vec3::new(
                (p[0] * world_size) as f32,
                water * height_scale - sunk,
                (p[1] * world_size) as f32,
            ),
            area,
            width,
        };
        let lines = river_runs(segments)
            .map(|run| {
                let first = run[0];
                let mut vertices =
                    vec![at(first.positions()[0], first.water[0], first.area[0], first.width[0])];
                vertices.extend(run.iter().map(|s| at(s.positions()[1], s.water[1], s.area[1], s.width[1])));
                let last = run[run.len() - 1];
                let end = if last.water[1] <= params.water_level { RiverEnd::Sea } else { RiverEnd::Border };
                RiverLine { vertices, end }
            })
            .collect();
        let size = (world_size / DRAINAGE_CELLS_PER_UNIT) as f32;
        let lakes = lakes
            .iter()
            .map(|&(c, level)| {
                let [x, z] = c.map(|v| (v as f64 / DRAINAGE_CELLS_PER_UNIT * world_size) as f32);
                LakeCell { centre: Vec3::new(x, level * height_scale, z), size }
            })
            .collect();
        TerrainRivers { lines, lakes }
    }

    /// The nearest river vertex to `point` (x and z, terrain space), with the distance, for
    /// gameplay such as fishing spots or "is the player at a river".
    pub fn nearest(&self, point: Vec2) -> Option<(&RiverVertex, f32)> {
        self.lines
            .iter()
            .flat_map(|l| &l.vertices)
            .map(|v| (v, v.position.xz().distance(point)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// Marks a patch's river-water entity (a child of the piece).
#[derive(Component, Debug, Default, Clone, Copy, Reflect)]
#[reflect(Component, Default)]
pub struct RiverWater;

/// The piece's river-water child, on the piece.
#[derive(Component, Debug, Clone, Copy)]
struct PieceRiverWater(Entity);

/// What the hook makes in the background for a piece.
struct RiverOutput {
    rivers: TerrainRivers,
    ribbons: Option<Mesh>,
    /// The ribbons are a function of the rivers alone (a chunk's: its translation never
    /// changes), so a piece that has these rivers has this water already (a chunk stitched
    /// anew keeps both: no entity, mesh or upload is made again).
    water_follows_rivers: bool,
}

/// The patch's rivers as data and water (part of [`TerrainPlugins`](crate::TerrainPlugins)):
/// without it stream power still carves the patch, and the texture paints the rivers.
#[derive(Debug, Default, Clone, Copy)]
pub struct TerrainRiversPlugin;

impl Plugin for TerrainRiversPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<PieceHooks>().register_type::<TerrainRivers>().register_type::<RiverWater>();
        // Every piece: the patch for stream power's rivers, every chunk for the endless ones.
        let hook = PieceHook::new(f32::INFINITY, build_rivers, apply_rivers);
        app.world_mut().resource_mut::<PieceHooks>().add(hook);
    }
}

/// The hook's `build`: the patch's rivers, and their ribbons when asked for; a chunk's endless
/// rivers and their ribbons.
fn build_rivers(build: &PieceBuild, params: &TerrainPreset) -> Option<RiverOutput> {
    let [x, z] = build.geometry.translation.map(|t| t as f32);
    let origin = Vec3::new(x, 0.0, z);
    if let Some(drainage) = build.drainage.as_ref() {
        let rivers = TerrainRivers::from_drainage(drainage, &build.geometry, params.height_scale);
        let ribbons = params
            .river_water
            .then(|| ribbon_mesh(&rivers, origin, build.geometry.step(), params.height_scale));
        return Some(RiverOutput { rivers, ribbons, water_follows_rivers: false });
    }
    if build.river_segments.is_empty() && build.lake_cells.is_empty() {
        return None;
    }
    let rivers = TerrainRivers::from_segments(&build.river_segments, &build.lake_cells, params);
    // On the water: its surface lies below the banks, so the ribbon's edges (as wide as the
    // river) tuck under them.
    let ribbons = Some(ribbons(&rivers, origin, 0.0, 0.0));
    Some(RiverOutput { rivers, ribbons, water_follows_rivers: true })
}

/// The hook's `apply`: gives the piece its rivers and ribbons, or takes old ones away.
fn apply_rivers(commands: &mut Commands, piece: Entity, output: Option<Option<RiverOutput>>) {
    let output = output.flatten();
    commands.entity(piece).queue(move |mut piece: EntityWorldMut| {
        let unchanged = output.as_ref().is_some_and(|o| {
            o.water_follows_rivers
                && piece.get::<TerrainRivers>() == Some(&o.rivers)
                && piece.contains::<PieceRiverWater>() == o.ribbons.is_some()
        });
        if unchanged {
            return;
        }
        let (rivers, ribbons) = match output {
            Some(RiverOutput { rivers, ribbons, .. }) => (Some(rivers), ribbons),
            None => (None, None),
        };
        match rivers {
            Some(rivers) => piece.insert(rivers),
            None => piece.remove::<TerrainRivers>(),
        };
        let old = piece.get::<PieceRiverWater>().map(|w| w.0);
        let id = piece.id();
        piece.world_scope(|world| {
            if let Some(old) = old {
                world.despawn(old);
            }
        });
        piece.remove::<PieceRiverWater>();
        let Some(mesh) = ribbons else { return };
        let child = piece.world_scope(|world| {
            let mesh = world.get_resource_mut::<Assets<Mesh>>().map(|mut m| m.add(mesh));
            let material = world.get_resource::<SeaLook>().and_then(|l| l.material.clone());
            let mut child = world.spawn((RiverWater, Transform::default(), ChildOf(id)));
            if let Some(mesh) = mesh {
                child.insert(Mesh3d(mesh));
            }
            if let Some(material) = material {
                child.insert(MeshMaterial3d(material));
            }
            child.id()
        });
        piece.insert(PieceRiverWater(child));
    });
}

/// A flat ribbon along every river, as wide as its width estimate (at least `cell` world
/// units), lifted a little over the water surface so that it shows above the painted channel.
/// Positions are relative to `origin` (the piece entity's translation).
pub fn ribbon_mesh(rivers: &TerrainRivers, origin: Vec3, cell: f32, height_scale: f32) -> Mesh {
    ribbons(rivers, origin, cell, 0.002 * height_scale + 0.05 * cell)
}

/// A flat ribbon along every river, at least `least_width` wide, `lift` above the water
/// surface, and a square over every lake cell at its surface, relative to `origin`.
fn ribbons(rivers: &TerrainRivers, origin: Vec3, least_width: f32, lift: f32) -> Mesh {
    let (mut positions, mut indices) = (Vec::<[f32; 3]>::new(), Vec::<u32>::new());
    for line in &rivers.lines {
        let v = &line.vertices;
        if v.len() < 2 {
            continue;
        }
        let first = positions.len() as u32;
        for i in 0..v.len() {
            let (a, b) = (v[i.saturating_sub(1)].position, v[(i + 1).min(v.len() - 1)].position);
            let along = (b - a).xz().normalize_or(Vec2::X);
            let side = Vec3::new(-along.y, 0.0, along.x) * (0.5 * v[i].width.max(least_width));
            let centre = v[i].position - origin + Vec3::Y * lift;
            positions.push((centre - side).to_array());
            positions.push((centre + side).to_array());
        }
        for k in 0..v.len() as u32 - 1 {
            let (l0, r0, l1, r1) = (first + 2 * k, first + 2 * k + 1, first + 2 * k + 2, first + 2 * k + 3);
            indices.extend([l0, r0, l1, r0, r1, l1]);
        }
    }
    for lake in &rivers.lakes {
        let first = positions.len() as u32;
        let c = lake.centre - origin;
        let h = 0.5 * lake.size;
        for [dx, dz] in [[-h, -h], [-h, h], [h, -h], [h, h]] {
            positions.push([c.x + dx, c.y, c.z + dz]);
        }
        // Both triangles face up (+y).
        indices.extend([first, first + 1, first + 2, first + 2, first + 1, first + 3]);
    }
    let normals = vec![[0.0, 1.0, 0.0]; positions.len()];
    Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::default())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
        .with_inserted_indices(Indices::U32(indices))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ribbon_has_two_vertices_per_river_vertex_and_faces_up() {
        let vertex = |x: f32, z: f32| RiverVertex { position: Vec3::new(x, 1.0, z), area: 10.0, width: 0.4 };
        let rivers = TerrainRivers {
            lines: vec![RiverLine {
                vertices: vec![vertex(0.0, 0.0), vertex(1.0, 0.0), vertex(2.0, 1.0)],
                end: RiverEnd::Sea,
            }],
            lakes: Vec::new(),
        };
        let mesh = ribbon_mesh(&rivers, Vec3::ZERO, 0.5, 10.0);
        let positions = mesh.attribute(Mesh::ATTRIBUTE_POSITION).unwrap().as_float3().unwrap();
        assert_eq!(positions.len(), 6);
        // The first pair straddles the first vertex across the flow, as far apart as the larger
        // of its width and a cell (0.5).
        let (l, r) = (Vec3::from(positions[0]), Vec3::from(positions[1]));
        assert!((l.distance(r) - 0.5).abs() < 1e-5 && (l.x - r.x).abs() < 1e-6);
        assert!(l.y > 1.0, "lifted over the water surface");
        let Some(Indices::U32(indices)) = mesh.indices() else { panic!("u32 indices") };
        assert_eq!(indices.len(), 12);
        // Every triangle's winding faces up (+y), as its normals say.
        for t in indices.chunks(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from(positions[i as usize]));
            assert!((b - a).cross(c - a).y > 0.0, "triangle {t:?} faces down");
        }
    }
}
