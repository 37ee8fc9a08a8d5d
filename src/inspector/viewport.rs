//! The 3-D view beside the panel, not under it: terrain cameras draw into the window right of
//! the panel, so the terrain is centred in what the user sees. The camera's cursor rays
//! (`Camera::viewport_to_world`) take window positions and account for the viewport.

use bevy::camera::visibility::RenderLayers;
use bevy::camera::{CameraOutputMode, Viewport};
use bevy::prelude::*;
use bevy::render::render_resource::BlendState;
use bevy_egui::{EguiContext, PrimaryEguiContext};

/// Marks a camera whose viewport the inspector set (and may change again). A camera with a
/// viewport of its own and without this marker is left alone.
#[derive(Component, Debug, Default)]
pub struct PanelViewport;

/// The viewport right of a panel `panel_width` logical pixels wide in a window of
/// `window_size` physical pixels at `scale_factor`; `None` when the panel leaves no room (the
/// camera then draws over the whole window).
pub fn viewport_beside_panel(panel_width: f32, scale_factor: f32, window_size: UVec2) -> Option<Viewport> {
    let left = (panel_width.max(0.0) * scale_factor).round() as u32;
    (left < window_size.x && window_size.y > 0).then(|| Viewport {
        physical_position: UVec2::new(left, 0),
        physical_size: UVec2::new(window_size.x - left, window_size.y),
        ..default()
    })
}

/// A camera that draws only the egui panel, over the 3-D cameras: with the panel on a camera of
/// its own, the terrain cameras can draw beside it.
pub(super) fn spawn_ui_camera(mut commands: Commands) {
    commands.spawn((
        Name::new("Terrain inspector UI camera"),
        PrimaryEguiContext,
        Camera2d,
        RenderLayers::none(),
        Camera {
            order: 1_000,
            output_mode: CameraOutputMode::Write {
                blend_state: Some(BlendState::ALPHA_BLENDING),
                clear_color: ClearColorConfig::None,
            },
            clear_color: ClearColorConfig::Custom(Color::NONE),
            ..default()
        },
    ));
}

/// The 3-D cameras that do not draw the panel, and whether the inspector set their viewport.
pub(super) type SceneCameras<'w, 's> =
    Query<'w, 's, (Entity, &'static mut Camera, Has<PanelViewport>), (With<Camera3d>, Without<EguiContext>)>;

/// Sets the viewport of every 3-D camera that does not draw the panel itself to the window right
/// of the panel (`panel_width` logical pixels; 0 while hidden gives the whole window).
pub(super) fn fit_cameras_beside_panel(
    commands: &mut Commands,
    panel_width: f32,
    window: Option<&Window>,
    cameras: &mut SceneCameras,
) {
    let Some(window) = window else { return };
    let size = UVec2::new(window.physical_width(), window.physical_height());
    let viewport = match panel_width > 0.0 {
        true => viewport_beside_panel(panel_width, window.scale_factor(), size),
        false => None,
    };
    for (entity, mut camera, ours) in cameras {
        if camera.viewport.is_some() && !ours {
            continue;
        }
        if !ours {
            commands.entity(entity).insert(PanelViewport);
        }
        // Compared by value, so that an unchanged viewport does not mark the camera changed.
        let key = |v: &Option<Viewport>| v.as_ref().map(|v| (v.physical_position, v.physical_size));
        if key(&camera.viewport) != key(&viewport) {
            camera.viewport = viewport.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_viewport_starts_at_the_panel_edge_in_physical_pixels() {
        let v = viewport_beside_panel(330.0, 2.0, UVec2::new(2560, 1600)).unwrap();
        assert_eq!(v.physical_position, UVec2::new(660, 0));
        assert_eq!(v.physical_size, UVec2::new(1900, 1600));
        // A panel as wide as the window leaves no viewport; nor does an empty window.
        assert!(viewport_beside_panel(1280.0, 1.0, UVec2::new(1280, 800)).is_none());
        assert!(viewport_beside_panel(10.0, 1.0, UVec2::new(1280, 0)).is_none());
        // A hidden panel (width 0) gives the whole window.
        let whole = viewport_beside_panel(0.0, 1.5, UVec2::new(1280, 800)).unwrap();
        assert_eq!((whole.physical_position, whole.physical_size), (UVec2::ZERO, UVec2::new(1280, 800)));
    }

    #[test]
    fn a_cursor_over_the_centre_of_the_viewport_looks_straight_ahead() {
        // The camera's cursor rays go through `viewport_to_world`, which takes window positions.
        let mut camera =
            Camera { viewport: viewport_beside_panel(300.0, 1.0, UVec2::new(1300, 800)), ..default() };
        camera.computed.clip_from_view = Mat4::perspective_infinite_reverse_rh(1.0, 1000.0 / 800.0, 0.1);
        camera.computed.target_info =
            Some(bevy::camera::RenderTargetInfo { physical_size: UVec2::new(1300, 800), scale_factor: 1.0 });
        let ray = camera.viewport_to_world(&GlobalTransform::IDENTITY, Vec2::new(800.0, 400.0)).unwrap();
        assert!(ray.direction.dot(Vec3::NEG_Z) > 0.9999, "{:?}", ray.direction);
    }
}
