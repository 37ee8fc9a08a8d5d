//! A terrain camera: left-drag pans so the ground point under the cursor (on the terrain surface,
//! found by a [`TerrainQuery`] ray cast) stays under it, right-drag orbits, the wheel zooms
//! toward the cursor. Add [`TerrainCamera`] to any `Camera3d`; it carries a [`TerrainFocus`] at
//! the point it orbits, so an endless terrain is detailed where the camera looks.
//!
//! The pointer is ignored while it is over an egui panel, but a drag that started on the terrain
//! keeps going when the pointer crosses the panel.

use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use crate::layout::TerrainFocus;
use crate::pointer::PointerBlockers;
use crate::query::TerrainQuery;

/// Where the camera looks from: a focus point and spherical coordinates around it.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
pub struct Orbit {
    /// The point the camera looks at.
    pub focus: Vec3,
    /// Angle around the vertical axis, radians (0 looks along -Z).
    pub yaw: f32,
    /// Angle above the horizon, radians.
    pub pitch: f32,
    /// Distance from the focus.
    pub distance: f32,
}

impl Orbit {
    /// The camera position.
    pub fn position(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.focus + self.distance * Vec3::new(cp * sy, sp, cp * cy)
    }

    /// The camera transform: at [`position`](Self::position), looking at the focus.
    pub fn transform(&self) -> Transform {
        Transform::from_translation(self.position()).looking_at(self.focus, Vec3::Y)
    }

    /// Moves toward `target` by the share `t` in `[0, 1]`.
    pub fn lerp(&self, target: &Orbit, t: f32) -> Orbit {
        Orbit {
            focus: self.focus.lerp(target.focus, t),
            yaw: self.yaw + (target.yaw - self.yaw) * t,
            pitch: self.pitch + (target.pitch - self.pitch) * t,
            distance: self.distance + (target.distance - self.distance) * t,
        }
    }
}

/// What a drag in progress does.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
pub enum Drag {
    /// Keeps `grab` (on the horizontal plane at its height) under the cursor.
    Pan {
        /// The ground point grabbed when the drag started.
        grab: Vec3,
    },
    /// Turns the camera around the focus.
    Orbit,
}

/// Makes a `Camera3d` a terrain camera. Its transform is written from [`Orbit`] every frame, and
/// its [`TerrainFocus`] is the point it orbits.
#[derive(Component, Clone, Debug, Reflect)]
#[reflect(Component)]
#[require(TerrainFocus)]
pub struct TerrainCamera {
    /// Where the camera is heading; input changes this.
    pub target: Orbit,
    /// Where the camera is now (equals `target` without smoothing).
    pub current: Orbit,
    /// Lowest and highest pitch, radians.
    pub pitch_limits: (f32, f32),
    /// Nearest and farthest distance from the focus.
    pub distance_limits: (f32, f32),
    /// Time constant of the smoothing, seconds; 0 turns smoothing off.
    pub smoothing: f32,
    /// Orbit speed, radians per pixel of drag.
    pub orbit_speed: f32,
    /// Zoom per wheel line: the distance is multiplied by `1 - zoom_speed` per line in.
    pub zoom_speed: f32,
    /// The drag in progress, if any.
    pub drag: Option<Drag>,
}

impl TerrainCamera {
    /// A camera at `orbit`, with default limits and smoothing.
    pub fn new(orbit: Orbit) -> Self {
        Self {
            target: orbit,
            current: orbit,
            pitch_limits: (0.05, 1.5),
            distance_limits: (2.0, 2000.0),
            smoothing: 0.08,
            orbit_speed: 0.005,
            zoom_speed: 0.12,
            drag: None,
        }
    }

    /// Rotates the target by pixel deltas, within the pitch limits.
    pub fn orbit_by(&mut self, delta: Vec2) {
        self.target.yaw -= delta.x * self.orbit_speed;
        self.target.pitch =
            (self.target.pitch + delta.y * self.orbit_speed).clamp(self.pitch_limits.0, self.pitch_limits.1);
    }

    /// Moves the focus (target and current alike, so the grabbed point does not slide) so that
    /// the ground point now under the cursor, `under_cursor`, moves to `grab`.
    pub fn pan_to(&mut self, grab: Vec3, under_cursor: Vec3) {
        let delta = Vec3::new(grab.x - under_cursor.x, 0.0, grab.z - under_cursor.z);
        self.target.focus += delta;
        self.current.focus += delta;
    }

    /// Zooms by `lines` wheel lines (positive: in) toward `anchor`: the camera moves along the
    /// line through `anchor`, which therefore stays under the cursor. The distance stays within
    /// its limits.
    pub fn zoom_toward(&mut self, anchor: Vec3, lines: f32) {
        let wanted = self.target.distance * (1.0 - self.zoom_speed).powf(lines);
        let distance = wanted.clamp(self.distance_limits.0, self.distance_limits.1);
        let k = distance / self.target.distance;
        self.target.focus = anchor + (self.target.focus - anchor) * k;
        self.target.distance = distance;
    }

    /// Moves `current` toward `target` for a frame of `dt` seconds.
    pub fn advance(&mut self, dt: f32) {
        let t = if self.smoothing <= 0.0 { 1.0 } else { 1.0 - (-dt / self.smoothing).exp() };
        self.current = self.current.lerp(&self.target, t);
    }
}

/// Where a ray meets the horizontal plane `y = height`, if it does (in front of its origin).
pub fn ray_hits_height(ray: Ray3d, height: f32) -> Option<Vec3> {
    let t = ray.intersect_plane(Vec3::new(0.0, height, 0.0), InfinitePlane3d::new(Vec3::Y))?;
    Some(ray.get_point(t))
}

/// Adds the input and transform systems of [`TerrainCamera`].
pub struct TerrainCameraPlugin;

impl Plugin for TerrainCameraPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<TerrainCamera>()
            .init_resource::<PointerBlockers>()
            .add_systems(Update, (camera_input, apply_camera).chain().in_set(TerrainCameraSystems));
    }
}

/// The camera's systems, in `Update`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TerrainCameraSystems;

/// Whether the pointer is over an egui panel (never without the inspector feature).
#[cfg(feature = "inspector")]
type PointerOverUi<'w> = Option<Res<'w, bevy_egui::input::EguiWantsInput>>;
#[cfg(not(feature = "inspector"))]
type PointerOverUi<'w> = Option<Res<'w, NoUi>>;

/// Stand-in for egui's input state when the inspector is compiled out (private: no public item
/// depends on a feature being off, so features stay additive).
#[cfg(not(feature = "inspector"))]
#[derive(Resource)]
struct NoUi;
#[cfg(not(feature = "inspector"))]
impl NoUi {
    fn wants_pointer_input(&self) -> bool {
        false
    }
}

#[allow(clippy::too_many_arguments)]
fn camera_input(
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    window: Option<Single<&Window, With<PrimaryWindow>>>,
    ui: PointerOverUi,
    blockers: Res<PointerBlockers>,
    terrain: TerrainQuery,
    mut cameras: Query<(&mut TerrainCamera, &Camera, &GlobalTransform)>,
) {
    let cursor = window.and_then(|w| w.cursor_position());
    let over_ui = ui.is_some_and(|ui| ui.wants_pointer_input()) || cursor.is_some_and(|c| blockers.blocks(c));
    for (mut cam, camera, transform) in &mut cameras {
        let ray = cursor.and_then(|c| camera.viewport_to_world(transform, c).ok());
        // The terrain surface under the cursor, if any.
        let surface = ray.and_then(|r| terrain.raycast(r));
        // The ground to grab: the surface, else the plane through the focus. While panning, the
        // plane through the grabbed point, so that it stays under the cursor.
        let ground = ray.and_then(|r| match cam.drag {
            Some(Drag::Pan { grab }) => ray_hits_height(r, grab.y),
            None | Some(Drag::Orbit) => surface.or_else(|| ray_hits_height(r, cam.target.focus.y)),
        });
        if !over_ui {
            if buttons.just_pressed(MouseButton::Left)
                && let Some(grab) = ground
            {
                cam.drag = Some(Drag::Pan { grab });
            } else if buttons.just_pressed(MouseButton::Right) {
                cam.drag = Some(Drag::Orbit);
            }
            let lines = match scroll.unit {
                MouseScrollUnit::Line => scroll.delta.y,
                MouseScrollUnit::Pixel => scroll.delta.y / 40.0,
            };
            if lines != 0.0 {
                // Toward the terrain under the cursor; over the sky, toward the focus (a far-away
                // plane point would fling the camera sideways).
                let anchor = surface.unwrap_or(cam.target.focus);
                cam.zoom_toward(anchor, lines);
            }
        }
        match cam.drag {
            Some(Drag::Pan { grab }) if buttons.pressed(MouseButton::Left) => {
                if let Some(now) = ground {
                    cam.pan_to(grab, now);
                }
            }
            Some(Drag::Orbit) if buttons.pressed(MouseButton::Right) => cam.orbit_by(motion.delta),
            Some(_) => cam.drag = None,
            None => {}
        }
    }
}

fn apply_camera(
    time: Res<Time>,
    mut cameras: Query<(&mut TerrainCamera, &mut Transform, &mut TerrainFocus)>,
) {
    for (mut cam, mut transform, mut focus) in &mut cameras {
        cam.advance(time.delta_secs());
        *transform = cam.current.transform();
        focus.set_if_neq(TerrainFocus { point: Some(cam.current.focus) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn camera() -> TerrainCamera {
        TerrainCamera::new(Orbit { focus: Vec3::new(3.0, 2.0, -1.0), yaw: 0.4, pitch: 0.7, distance: 50.0 })
    }

    /// A ray from the camera in a direction fixed relative to the camera (a fixed pixel).
    fn pixel_ray(orbit: &Orbit, local: Vec3) -> Ray3d {
        let t = orbit.transform();
        Ray3d::new(t.translation, Dir3::new(t.rotation * local).unwrap())
    }

    #[test]
    fn panning_keeps_the_grabbed_point_under_the_cursor() {
        let mut cam = camera();
        cam.smoothing = 0.0;
        let pixel = Vec3::new(0.2, -0.3, -1.0);
        let grab = ray_hits_height(pixel_ray(&cam.current, pixel), 2.0).unwrap();
        // The cursor moves to another pixel; pan so that the grabbed point is under it again.
        let moved = Vec3::new(-0.1, -0.1, -1.0);
        let now = ray_hits_height(pixel_ray(&cam.current, moved), 2.0).unwrap();
        cam.pan_to(grab, now);
        let after = ray_hits_height(pixel_ray(&cam.current, moved), 2.0).unwrap();
        assert!(after.distance(grab) < 1e-3, "{after} vs {grab}");
    }

    #[test]
    fn zooming_keeps_the_anchor_under_the_cursor_and_respects_limits() {
        let mut cam = camera();
        cam.smoothing = 0.0;
        let pixel = Vec3::new(0.3, -0.2, -1.0);
        let anchor = ray_hits_height(pixel_ray(&cam.target, pixel), 2.0).unwrap();
        cam.zoom_toward(anchor, 3.0);
        cam.advance(0.016);
        assert!(cam.current.distance < 50.0);
        let after = ray_hits_height(pixel_ray(&cam.current, pixel), 2.0).unwrap();
        assert!(after.distance(anchor) < 1e-3, "{after} vs {anchor}");
        cam.zoom_toward(anchor, 1000.0);
        assert_eq!(cam.target.distance, cam.distance_limits.0);
        cam.zoom_toward(anchor, -1000.0);
        assert_eq!(cam.target.distance, cam.distance_limits.1);
    }

    #[test]
    fn orbit_respects_pitch_limits() {
        let mut cam = camera();
        cam.orbit_by(Vec2::new(100.0, 10_000.0));
        assert_eq!(cam.target.pitch, cam.pitch_limits.1);
        cam.orbit_by(Vec2::new(0.0, -100_000.0));
        assert_eq!(cam.target.pitch, cam.pitch_limits.0);
        assert!((cam.target.yaw - (0.4 - 0.5)).abs() < 1e-6);
    }

    #[test]
    fn smoothing_approaches_the_target_and_can_be_turned_off() {
        let mut cam = camera();
        cam.target.distance = 100.0;
        cam.advance(0.016);
        assert!(cam.current.distance > 50.0 && cam.current.distance < 100.0);
        for _ in 0..200 {
            cam.advance(0.016);
        }
        assert!((cam.current.distance - 100.0).abs() < 1e-3);
        cam.smoothing = 0.0;
        cam.target.distance = 10.0;
        cam.advance(0.016);
        assert_eq!(cam.current.distance, 10.0);
    }

    #[test]
    fn the_transform_looks_at_the_focus() {
        let orbit = camera().current;
        let t = orbit.transform();
        assert!((t.forward().as_vec3() - (orbit.focus - orbit.position()).normalize()).length() < 1e-5);
        assert!((orbit.position().distance(orbit.focus) - 50.0).abs() < 1e-4);
    }
}
