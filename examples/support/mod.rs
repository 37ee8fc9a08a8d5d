//! Shared by the examples: take a screenshot and exit when `NOISE_TERRAIN_SCREENSHOT` is set.
//!
//! `NOISE_TERRAIN_SCREENSHOT=shot.png cargo run --example terrain_3d` renders until the terrain
//! has been generated and a few frames have settled, saves the window with Bevy's screenshot API
//! and exits. `scripts/screenshot.sh` runs this under Xvfb with software Vulkan.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};

/// Frames to render after the app is ready, so that egui and shadows have settled.
const SETTLE_FRAMES: u32 = 20;

/// Takes one screenshot once `ready` says so, then exits.
pub struct ScreenshotPlugin {
    /// Whether the scene is ready (e.g. the terrain has been generated).
    pub ready: fn(&World) -> bool,
}

#[derive(Resource)]
struct ScreenshotPlan {
    path: PathBuf,
    ready: fn(&World) -> bool,
    frames_left: u32,
    taken: bool,
}

impl Plugin for ScreenshotPlugin {
    fn build(&self, app: &mut App) {
        let Some(path) = std::env::var_os("NOISE_TERRAIN_SCREENSHOT") else { return };
        app.insert_resource(ScreenshotPlan {
            path: path.into(),
            ready: self.ready,
            frames_left: SETTLE_FRAMES,
            taken: false,
        })
        .add_systems(Last, take_screenshot_when_ready);
    }
}

fn take_screenshot_when_ready(world: &mut World) {
    let plan = world.resource::<ScreenshotPlan>();
    if plan.taken || !(plan.ready)(world) {
        return;
    }
    let mut plan = world.resource_mut::<ScreenshotPlan>();
    if plan.frames_left > 0 {
        plan.frames_left -= 1;
        return;
    }
    plan.taken = true;
    let path = plan.path.clone();
    world.spawn(Screenshot::primary_window()).observe(save_to_disk(path)).observe(
        |_: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
            exit.write(AppExit::Success);
        },
    );
}
