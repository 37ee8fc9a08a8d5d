//! The sea: a surface at the water level of every terrain whose
//! [`TerrainPreset::sea`](crate::TerrainPreset::sea) is on.
//!
//! A child entity of the terrain ([`SeaSurface`]): over the patch it covers the patch's square;
//! in the endless layout it follows the foci the chunks were chosen around, reaching the view
//! distance past each of them, so it ends where the terrain does. Its material is translucent
//! water ([`SeaLook`], replaceable); the colour rules already mark the shore on the ground.

use bevy::prelude::*;

use crate::TerrainSystems;
use crate::params::{TerrainLayout, TerrainPreset};
use crate::pieces::{Terrain, TerrainJobs};

/// Marks a terrain's sea entity.
#[derive(Component, Debug, Default, Clone, Copy, Reflect)]
#[reflect(Component, Default)]
pub struct SeaSurface;

/// The mesh (a unit square, scaled to the sea's size) and material of every sea. Made at
/// startup where mesh and material assets exist; change the material's asset to restyle it.
#[derive(Resource, Debug, Default, Clone)]
pub struct SeaLook {
    /// The unit square, facing up.
    pub mesh: Option<Handle<Mesh>>,
    /// Translucent water.
    pub material: Option<Handle<StandardMaterial>>,
}

/// A terrain's sea entity, on the terrain.
#[derive(Component, Debug, Clone, Copy)]
struct TerrainSea(Entity);

/// The sea of every terrain whose [`TerrainPreset::sea`](crate::TerrainPreset::sea) is on (part
/// of [`TerrainPlugins`](crate::TerrainPlugins)).
#[derive(Debug, Default, Clone, Copy)]
pub struct TerrainSeaPlugin;

impl Plugin for TerrainSeaPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<SeaLook>()
            .register_type::<SeaSurface>()
            .add_systems(Startup, make_look)
            .add_systems(Update, follow_sea.after(TerrainSystems::Apply));
    }
}

fn make_look(
    mut look: ResMut<SeaLook>,
    meshes: Option<ResMut<Assets<Mesh>>>,
    materials: Option<ResMut<Assets<StandardMaterial>>>,
) {
    if let Some(mut meshes) = meshes {
        look.mesh = Some(meshes.add(Plane3d::default().mesh().size(1.0, 1.0)));
    }
    if let Some(mut materials) = materials {
        look.material = Some(materials.add(StandardMaterial {
            base_color: Color::srgba(0.12, 0.32, 0.55, 0.75),
            alpha_mode: AlphaMode::Blend,
            perceptual_roughness: 0.08,
            reflectance: 0.6,
            ..default()
        }));
    }
}

/// Where a terrain's sea lies in its space: centre and side of the square.
pub fn sea_square(params: &TerrainPreset, foci: &[[f64; 2]]) -> (Vec3, f32) {
    let y = params.water_level * params.height_scale;
    match params.layout {
        TerrainLayout::Patch => (Vec3::new(0.0, y, 0.0), params.world_size),
        TerrainLayout::Endless { view_distance, .. } => {
            let origin = [[0.0; 2]];
            let foci = if foci.is_empty() { &origin[..] } else { foci };
            let (lo, hi) = foci.iter().fold(([f64::MAX; 2], [f64::MIN; 2]), |(lo, hi), f| {
                ([lo[0].min(f[0]), lo[1].min(f[1])], [hi[0].max(f[0]), hi[1].max(f[1])])
            });
            let centre = Vec3::new(((lo[0] + hi[0]) / 2.0) as f32, y, ((lo[1] + hi[1]) / 2.0) as f32);
            let side = (hi[0] - lo[0]).max(hi[1] - lo[1]) as f32 + 2.0 * view_distance;
            (centre, side)
        }
    }
}

/// Spawns, moves and despawns each terrain's sea as its settings and foci say.
fn follow_sea(
    mut commands: Commands,
    look: Res<SeaLook>,
    terrains: Query<(Entity, &TerrainJobs, Option<&TerrainSea>), With<Terrain>>,
    mut seas: Query<&mut Transform, With<SeaSurface>>,
) {
    for (terrain, jobs, sea) in &terrains {
        let Some(params) = jobs.params() else { continue };
        let sea = sea.map(|s| s.0).filter(|&s| seas.contains(s));
        if !params.sea {
            if let Some(sea) = sea {
                commands.entity(sea).despawn();
                commands.entity(terrain).remove::<TerrainSea>();
            }
            continue;
        }
        let (centre, side) = sea_square(params, jobs.foci());
        let at = Transform::from_translation(centre).with_scale(Vec3::new(side, 1.0, side));
        match sea.and_then(|s| seas.get_mut(s).ok()) {
            Some(mut transform) => {
                transform.set_if_neq(at);
            }
            None => {
                let mut entity = commands.spawn((SeaSurface, at, Name::new("Sea"), ChildOf(terrain)));
                if let (Some(mesh), Some(material)) = (&look.mesh, &look.material) {
                    entity.insert((Mesh3d(mesh.clone()), MeshMaterial3d(material.clone())));
                }
                let id = entity.id();
                commands.entity(terrain).insert(TerrainSea(id));
            }
        }
    }
}
