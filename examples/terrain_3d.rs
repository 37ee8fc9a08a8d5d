//! The main demo: a lit terrain with a water plane, sky and shadows, the inspector panel on the
//! left and the terrain camera.
//!
//! ```text
//! cargo run --example terrain_3d                                  # the default terrain
//! cargo run --example terrain_3d -- assets/presets/alpine_ridges.ron
//! ```
//!
//! Drag with the left button to pan (the ground under the cursor follows it), with the right
//! button to orbit, scroll to zoom toward the cursor. Every slider regenerates the terrain in the
//! background. Tab hides the panel.

#[path = "support/mod.rs"]
mod support;

use bevy::light::CascadeShadowConfigBuilder;
use bevy::prelude::*;
use bevy_noise_terrain::DefaultTerrain;
use bevy_noise_terrain::camera::Orbit;
use bevy_noise_terrain::core::{NoiseSettings, PostProcess};
use bevy_noise_terrain::files::load_preset;
use bevy_noise_terrain::prelude::*;

/// The terrain the demo opens with: gradient fBm without post-processing, so the range readout
/// shows the noise itself and chip N (normalise) off paints heights above 1 orange. Gradient fBm stays near the middle of `[0, 1]`: the height scale and the water
/// level suit that.
fn first_terrain() -> TerrainPreset {
    TerrainPreset {
        noise: NoiseSettings { octaves: 7, frequency: 2.5, persistence: 0.48, seed: 42, ..default() },
        post: PostProcess::default(),
        resolution: 320,
        height_scale: 60.0,
        water_level: 0.47,
        ..default()
    }
}

fn main() -> AppExit {
    let params = match std::env::args().nth(1) {
        Some(path) => load_preset(path.as_ref()).unwrap_or_else(|e| {
            eprintln!("{e}; starting with the default terrain");
            first_terrain()
        }),
        None => first_terrain(),
    };
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_noise_terrain".into(),
                resolution: (1280, 800).into(),
                ..default()
            }),
            ..default()
        }))
        .insert_resource(ClearColor(Color::srgb(0.58, 0.74, 0.92)))
        .insert_resource(GlobalAmbientLight {
            color: Color::srgb(0.75, 0.82, 1.0),
            brightness: 600.0,
            ..default()
        })
        .insert_resource(TerrainParams(params))
        .add_plugins(TerrainPlugins)
        .add_plugins(support::ScreenshotPlugin {
            ready: |world| world.resource::<TerrainStats>().generation > 0,
        })
        .add_systems(Startup, setup)
        .add_systems(Update, follow_water_level.after(TerrainSystems::Apply))
        .run()
}

/// The water plane: a translucent sheet at the water level.
#[derive(Component)]
struct Water;

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.spawn((
        Camera3d::default(),
        TerrainCamera::new(Orbit { focus: Vec3::new(0.0, 4.0, 0.0), yaw: 0.7, pitch: 0.62, distance: 150.0 }),
    ));
    commands.spawn((
        DirectionalLight { illuminance: 9_000.0, shadow_maps_enabled: true, ..default() },
        Transform::from_xyz(60.0, 80.0, 30.0).looking_at(Vec3::ZERO, Vec3::Y),
        CascadeShadowConfigBuilder { maximum_distance: 400.0, first_cascade_far_bound: 80.0, ..default() }
            .build(),
    ));
    commands.spawn((
        Water,
        Mesh3d(meshes.add(Plane3d::default().mesh().size(1.0, 1.0))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgba(0.12, 0.32, 0.55, 0.72),
            alpha_mode: AlphaMode::Blend,
            perceptual_roughness: 0.08,
            reflectance: 0.6,
            ..default()
        })),
        Transform::default(),
    ));
}

/// Keeps the water plane at the water level and as wide as the terrain.
fn follow_water_level(
    status: Single<&TerrainStatus, With<DefaultTerrain>>,
    mut water: Single<&mut Transform, With<Water>>,
) {
    let Some(p) = &status.params else { return };
    water.translation.y = p.water_level * p.height_scale;
    water.scale = Vec3::new(p.world_size, 1.0, p.world_size);
}
