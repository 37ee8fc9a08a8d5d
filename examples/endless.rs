//! Endless terrain: chunks streamed around the camera to the horizon, finer near the point the
//! camera looks at, with distance fog that ends where the chunks do, and the inspector.
//!
//! ```text
//! cargo run --example endless
//! ```
//!
//! Rivers run from the hills to the sea in valleys carved for them, lakes fill basins, trees,
//! rocks and reeds stand where their rules allow ([`ScatterLayer::landscape`]) and the sea
//! fills the valleys. `-- --plain` starts without the erosion filter's gullies (smooth noise
//! hills, to compare), `-- --dry` without rivers, `-- --bare` without trees, rocks and sea,
//! `-- --low` with the camera low over a valley.
//!
//! Drag with the left button to pan over new ground (the ground under the cursor follows it),
//! with the right button to orbit, scroll to zoom. The inspector's Layout section sets the chunk
//! size, vertices per chunk, view distance and levels of detail; its readout shows how many
//! chunks are shown, queued and building.

#[path = "support/mod.rs"]
mod support;

use bevy::light::CascadeShadowConfigBuilder;
use bevy::pbr::{DistanceFog, FogFalloff};
use bevy::prelude::*;
use bevy_noise_terrain::DefaultTerrain;
use bevy_noise_terrain::camera::Orbit;
use bevy_noise_terrain::core::{EndlessRivers, ErosionFilter, NoiseSettings};
use bevy_noise_terrain::prelude::*;

const SKY: Color = Color::srgb(0.62, 0.76, 0.92);

/// Mountains cut by water, valleys with rivers and lakes: gradient fBm with the erosion filter's
/// branching gullies (the inspector's Erosion filter section turns them off), one map unit is
/// 2 km.
fn world(gullies: bool, rivers: bool, things: bool) -> TerrainPreset {
    let world = TerrainPreset::river_mountains();
    let erosion_filter = ErosionFilter { enabled: gullies, ..world.noise.erosion_filter };
    TerrainPreset {
        noise: NoiseSettings { erosion_filter, ..world.noise },
        scatter: if things { world.scatter.clone() } else { Vec::new() },
        sea: things,
        endless_rivers: EndlessRivers { enabled: rivers, ..world.endless_rivers },
        ..world
    }
}

/// Where the camera starts: high over the hills, or low over a valley (`--low`).
#[derive(Resource, Clone, Copy)]
struct StartView(Orbit);

fn main() -> AppExit {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let view = if flag("--low") {
        Orbit { focus: Vec3::new(120.0, 170.0, -60.0), yaw: 2.2, pitch: 0.2, distance: 380.0 }
    } else {
        Orbit { focus: Vec3::new(0.0, 60.0, 0.0), yaw: 0.6, pitch: 0.38, distance: 650.0 }
    };
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_noise_terrain: endless".into(),
                resolution: (1280, 800).into(),
                ..default()
            }),
            ..default()
        }))
        .insert_resource(ClearColor(SKY))
        .insert_resource(GlobalAmbientLight {
            color: Color::srgb(0.75, 0.82, 1.0),
            brightness: 500.0,
            ..default()
        })
        .insert_resource(TerrainParams(world(!flag("--plain"), !flag("--dry"), !flag("--bare"))))
        .insert_resource(StartView(view))
        .add_plugins(TerrainPlugins)
        .add_plugins(support::ScreenshotPlugin {
            ready: |world| world.resource::<TerrainStats>().generation > 0,
        })
        .add_systems(Startup, setup)
        .add_systems(Update, follow_view_distance.after(TerrainSystems::Apply))
        .run()
}

fn setup(mut commands: Commands, view: Res<StartView>) {
    let mut camera = TerrainCamera::new(view.0);
    camera.distance_limits = (5.0, 3000.0);
    commands.spawn((
        Camera3d::default(),
        camera,
        DistanceFog { color: SKY, falloff: FogFalloff::Linear { start: 500.0, end: 1000.0 }, ..default() },
    ));
    commands.spawn((
        DirectionalLight { illuminance: 9_000.0, shadow_maps_enabled: true, ..default() },
        // A low sun from the side: slopes read as light and shade.
        Transform::from_xyz(-80.0, 40.0, 30.0).looking_at(Vec3::ZERO, Vec3::Y),
        CascadeShadowConfigBuilder { maximum_distance: 1200.0, first_cascade_far_bound: 150.0, ..default() }
            .build(),
    ));
}

/// The fog thickens over the second half of the view distance and is opaque where the chunks
/// end, so the terrain fades into the sky instead of stopping at an edge.
fn follow_view_distance(
    status: Single<&TerrainStatus, With<DefaultTerrain>>,
    mut fog: Single<&mut DistanceFog>,
) {
    let Some(TerrainLayout::Endless { view_distance, .. }) = status.params.as_ref().map(|p| p.layout) else {
        return;
    };
    let falloff = FogFalloff::Linear { start: view_distance * 0.45, end: view_distance * 0.95 };
    if !matches!(fog.falloff, FogFalloff::Linear { end, .. } if end == view_distance * 0.95) {
        fog.falloff = falloff;
    }
}
