//! Balls and boxes on the terrain (cargo feature `avian`): they roll downhill and come to rest
//! in hollows. A click (without dragging) drops one where the cursor points on the terrain;
//! Space drops a handful at random. The inspector still edits the terrain live, and the bodies
//! follow the new ground.
//!
//! ```text
//! cargo run --example physics --features avian
//! ```

#[path = "support/mod.rs"]
mod support;

use avian3d::prelude::*;
use bevy::light::CascadeShadowConfigBuilder;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_noise_terrain::camera::Orbit;
use bevy_noise_terrain::core::{NoiseSettings, PostProcess};
use bevy_noise_terrain::pointer::PointerBlockers;
use bevy_noise_terrain::prelude::*;

fn main() -> AppExit {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_noise_terrain: physics".into(),
                resolution: (1280, 800).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins(PhysicsPlugins::default())
        .insert_resource(ClearColor(Color::srgb(0.58, 0.74, 0.92)))
        .insert_resource(GlobalAmbientLight {
            color: Color::srgb(0.75, 0.82, 1.0),
            brightness: 600.0,
            ..default()
        })
        .insert_resource(TerrainParams(TerrainPreset {
            noise: NoiseSettings { octaves: 5, frequency: 2.5, seed: 21, ..default() },
            post: PostProcess { stretch: true, power: 1.3, ..default() },
            resolution: 257,
            height_scale: 18.0,
            water_level: 0.2,
            ..default()
        }))
        .add_plugins(TerrainPlugins)
        .add_plugins(support::ScreenshotPlugin {
            ready: |world| {
                world.resource::<TerrainStats>().generation > 0
                    && world.resource::<Time>().elapsed_secs() > 6.0
            },
        })
        .init_resource::<Shapes>()
        .add_systems(Startup, setup)
        .add_systems(Update, (drop_on_click, drop_on_space, drop_first_bodies).after(TerrainSystems::Apply))
        .run()
}

/// Meshes and materials shared by every dropped body.
#[derive(Resource)]
struct Shapes {
    ball: Handle<Mesh>,
    cube: Handle<Mesh>,
    colours: Vec<Handle<StandardMaterial>>,
    dropped: u32,
    press: Option<Vec2>,
}

impl FromWorld for Shapes {
    fn from_world(world: &mut World) -> Self {
        let mut meshes = world.resource_mut::<Assets<Mesh>>();
        let (ball, cube) = (meshes.add(Sphere::new(0.8)), meshes.add(Cuboid::from_length(1.4)));
        let mut materials = world.resource_mut::<Assets<StandardMaterial>>();
        let colours = [(0.9, 0.3, 0.2), (0.95, 0.8, 0.2), (0.25, 0.5, 0.95), (0.9, 0.9, 0.9)]
            .map(|(r, g, b)| {
                materials.add(StandardMaterial { base_color: Color::srgb(r, g, b), ..default() })
            })
            .to_vec();
        Self { ball, cube, colours, dropped: 0, press: None }
    }
}

fn setup(mut commands: Commands) {
    commands.spawn((
        Camera3d::default(),
        TerrainCamera::new(Orbit { focus: Vec3::new(0.0, 6.0, 0.0), yaw: 0.6, pitch: 0.6, distance: 120.0 }),
    ));
    commands.spawn((
        DirectionalLight { illuminance: 9_000.0, shadow_maps_enabled: true, ..default() },
        Transform::from_xyz(60.0, 80.0, 30.0).looking_at(Vec3::ZERO, Vec3::Y),
        CascadeShadowConfigBuilder { maximum_distance: 300.0, first_cascade_far_bound: 60.0, ..default() }
            .build(),
    ));
}

/// Drops a ball or a box (in turn) from `height` above the ground at `(x, z)`.
fn drop_body(
    commands: &mut Commands,
    shapes: &mut Shapes,
    terrain: &TerrainQuery,
    x: f32,
    z: f32,
    height: f32,
) {
    let Some(ground) = terrain.height_at(x, z) else { return };
    let k = shapes.dropped as usize;
    shapes.dropped += 1;
    let colour = shapes.colours[k % shapes.colours.len()].clone();
    let at = Transform::from_xyz(x, ground + height, z);
    // Damping stands in for rolling resistance: bodies settle in hollows.
    let common = (RigidBody::Dynamic, LinearDamping(0.3), AngularDamping(0.6), MeshMaterial3d(colour), at);
    if k.is_multiple_of(2) {
        commands.spawn((
            common,
            Collider::sphere(0.8),
            Mesh3d(shapes.ball.clone()),
            KeepAboveTerrain { depth: 0.8 },
        ));
    } else {
        commands.spawn((
            common,
            Collider::cuboid(1.4, 1.4, 1.4),
            Mesh3d(shapes.cube.clone()),
            KeepAboveTerrain { depth: 1.2 },
        ));
    }
}

/// A click that is not a drag drops a body where the cursor points on the terrain.
fn drop_on_click(
    mut commands: Commands,
    mut shapes: ResMut<Shapes>,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    blockers: Res<PointerBlockers>,
    terrain: TerrainQuery,
) {
    let Some(cursor) = window.cursor_position() else { return };
    if buttons.just_pressed(MouseButton::Left) && !blockers.blocks(cursor) {
        shapes.press = Some(cursor);
    }
    if buttons.just_released(MouseButton::Left)
        && let Some(pressed) = shapes.press.take()
        && pressed.distance(cursor) < 4.0
        && let Ok(ray) = camera.0.viewport_to_world(camera.1, cursor)
        && let Some(hit) = terrain.raycast(ray)
    {
        drop_body(&mut commands, &mut shapes, &terrain, hit.x, hit.z, 10.0);
    }
}

/// Space drops eight bodies at random over the middle of the terrain.
fn drop_on_space(
    mut commands: Commands,
    mut shapes: ResMut<Shapes>,
    keys: Res<ButtonInput<KeyCode>>,
    terrain: TerrainQuery,
    time: Res<Time>,
) {
    if keys.just_pressed(KeyCode::Space) {
        scatter(&mut commands, &mut shapes, &terrain, 8, time.elapsed_secs().to_bits());
    }
}

/// Once the first terrain is there, a first rain of bodies.
fn drop_first_bodies(
    mut commands: Commands,
    mut shapes: ResMut<Shapes>,
    stats: Res<TerrainStats>,
    terrain: TerrainQuery,
    mut done: Local<bool>,
) {
    if !*done && stats.generation > 0 {
        *done = true;
        scatter(&mut commands, &mut shapes, &terrain, 40, 7);
    }
}

fn scatter(commands: &mut Commands, shapes: &mut Shapes, terrain: &TerrainQuery, count: u32, seed: u32) {
    let mut state = seed | 1;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        (state >> 8) as f32 / (1u32 << 24) as f32 * 70.0 - 35.0
    };
    for k in 0..count {
        let (x, z) = (next(), next());
        drop_body(commands, shapes, terrain, x, z, 6.0 + k as f32 * 0.5);
    }
}
