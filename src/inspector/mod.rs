//! The egui side panel that edits every [`TerrainPreset`](crate::TerrainPreset) field live (cargo feature `inspector`).
//!
//! It edits the default terrain (through the [`TerrainParams`] resource) or, chosen at its top
//! when there are several terrains or set in [`InspectorState::target`], any other terrain's
//! [`TerrainSettings`]. Edits go to a copy that is written back only when it differs, so the
//! settings are only marked changed (and the terrain only regenerated) when a value really
//! changed. When the plugin adds
//! `EguiPlugin` itself, the panel gets a camera of its own and the 3-D cameras draw beside the
//! panel instead of under it (see [`viewport`]).

mod panel;
mod scatter_section;
mod sliders;
mod tiles;
pub mod viewport;

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_egui::{EguiContexts, EguiGlobalSettings, EguiPlugin, EguiPrimaryContextPass, egui};
use noise_terrain_core::NoiseSettings;

pub use panel::{PanelInputs, WORLEY_OCTAVES_FEWER, panel_contents, terrain_chooser};
pub use tiles::{TILE_SIZE, octave_tile, samples_per_axis};

use crate::build::PieceKey;
use crate::files::list_presets;
use crate::params::TerrainParams;
use crate::pieces::{
    DefaultTerrain, PieceHeights, TerrainJobs, TerrainPiece, TerrainPieces, TerrainSettings, TerrainStatus,
};
use crate::pointer::PointerBlockers;

/// Adds the inspector panel (and `EguiPlugin` if the app has none).
#[derive(Debug, Clone)]
pub struct TerrainInspectorPlugin {
    /// Key that hides and shows the panel.
    pub toggle_key: KeyCode,
    /// Folder of `.ron` presets to list, load and save.
    pub preset_folder: PathBuf,
    /// Folder that exports are written to.
    pub export_folder: PathBuf,
}

impl Default for TerrainInspectorPlugin {
    fn default() -> Self {
        Self {
            toggle_key: KeyCode::Tab,
            preset_folder: PathBuf::from("assets/presets"),
            export_folder: PathBuf::from("."),
        }
    }
}

impl Plugin for TerrainInspectorPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<EguiPlugin>() {
            // Ours to set up: the panel on a camera of its own, the 3-D view beside it.
            app.add_plugins(EguiPlugin::default());
            app.world_mut().resource_mut::<EguiGlobalSettings>().auto_create_primary_context = false;
            app.add_systems(Startup, viewport::spawn_ui_camera);
        }
        let mut state = InspectorState::new(self.preset_folder.clone(), self.export_folder.clone());
        state.toggle_key = self.toggle_key;
        app.init_resource::<PointerBlockers>()
            .insert_resource(state)
            .add_systems(Update, toggle_panel)
            .add_systems(EguiPrimaryContextPass, inspector_panel);
    }
}

/// A line for the person at the panel: what happened, or what went wrong.
#[derive(Debug, Clone)]
pub struct StatusLine {
    /// Whether it reports an error.
    pub error: bool,
    /// The text.
    pub text: String,
}

/// The panel's own state.
#[derive(Resource)]
pub struct InspectorState {
    /// Whether the panel is shown.
    pub visible: bool,
    /// The terrain it edits: `None` for the default terrain (the one [`TerrainParams`] drives).
    pub target: Option<Entity>,
    toggle_key: KeyCode,
    preset_folder: PathBuf,
    export_folder: PathBuf,
    presets: Vec<PathBuf>,
    preset_name: String,
    export_name: String,
    /// The result of the last load, save or export.
    pub message: Option<StatusLine>,
    tiles: Option<OctaveTiles>,
    /// The octave count before the basis became Worley, restored when it changes back.
    octaves_before_worley: Option<u32>,
}

impl InspectorState {
    /// A shown panel that lists, loads and saves presets in `preset_folder` and exports to
    /// `export_folder`, toggled with Tab.
    pub fn new(preset_folder: PathBuf, export_folder: PathBuf) -> Self {
        Self {
            visible: true,
            target: None,
            toggle_key: KeyCode::Tab,
            presets: list_presets(&preset_folder),
            preset_folder,
            export_folder,
            preset_name: "my_terrain".into(),
            export_name: "terrain_heightmap".into(),
            message: None,
            tiles: None,
            octaves_before_worley: None,
        }
    }
}

/// Grey octave tiles and the settings they show.
struct OctaveTiles {
    noise: NoiseSettings,
    textures: Vec<egui::TextureHandle>,
}

fn toggle_panel(
    keys: Res<ButtonInput<KeyCode>>,
    mut state: ResMut<InspectorState>,
    egui_input: Option<Res<bevy_egui::input::EguiWantsInput>>,
) {
    let typing = egui_input.is_some_and(|input| input.wants_keyboard_input());
    if keys.just_pressed(state.toggle_key) && !typing {
        state.visible = !state.visible;
    }
}

/// The terrains the panel can edit.
type Terrains = (
    Entity,
    Option<&'static mut TerrainSettings>,
    &'static TerrainStatus,
    &'static TerrainJobs,
    Option<&'static Name>,
    Has<DefaultTerrain>,
    Option<&'static TerrainPieces>,
);

#[allow(clippy::too_many_arguments)]
fn inspector_panel(
    mut commands: Commands,
    mut contexts: EguiContexts,
    mut params: ResMut<TerrainParams>,
    mut state: ResMut<InspectorState>,
    mut terrains: Query<Terrains>,
    pieces: Query<(&TerrainPiece, &PieceHeights)>,
    mut blockers: ResMut<PointerBlockers>,
    window: Query<&Window, With<PrimaryWindow>>,
    mut cameras: viewport::SceneCameras,
) -> Result {
    blockers.rects.clear();
    let state = &mut *state;
    if !state.visible {
        viewport::fit_cameras_beside_panel(&mut commands, 0.0, window.single().ok(), &mut cameras);
        return Ok(());
    }
    let choices: Vec<(Entity, String)> = terrains
        .iter()
        .map(|(e, _, _, _, name, default, _)| {
            let name = name.map_or_else(|| format!("{e}"), |n| n.to_string());
            (e, if default { format!("{name} (default)") } else { name })
        })
        .collect();
    // The chosen terrain, else the first default one.
    let target =
        state.target.filter(|&e| terrains.contains(e)).or_else(|| terrains.iter().find(|t| t.5).map(|t| t.0));
    let Some(target) = target else { return Ok(()) };
    let (_, mut settings, status, jobs, _, _, of_terrain) = terrains.get_mut(target)?;
    // A terrain with settings of its own is edited through them, any other through the resource.
    let mut edited = settings.as_ref().map_or_else(|| params.0.clone(), |s| s.0.clone());
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = egui::Ui::new(
        ctx.clone(),
        "terrain_inspector_root".into(),
        egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(ctx.viewport_rect()),
    );
    let patch = of_terrain
        .into_iter()
        .flat_map(|p| pieces.iter_many(p.iter()))
        .find(|(p, _)| p.spec.key == PieceKey::Patch)
        .map(|(_, h)| h);
    let inputs =
        PanelInputs { stats: &status.stats, busy: jobs.is_busy(), validation: &status.validation, patch };
    let panel = egui::Panel::left("terrain_inspector")
        .resizable(true)
        .default_size(330.0)
        .size_range(240.0..=520.0)
        .show(&mut root, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                terrain_chooser(ui, state, target, &choices);
                panel_contents(ui, &mut edited, state, inputs)
            });
        });
    // egui points are logical pixels, as the camera's cursor position is.
    let r = panel.response.rect;
    blockers.rects.push(Rect::new(r.min.x, r.min.y, r.max.x, r.max.y));
    viewport::fit_cameras_beside_panel(&mut commands, r.max.x, window.single().ok(), &mut cameras);
    match settings.as_mut() {
        Some(settings) if settings.0 != edited => settings.0 = edited,
        Some(_) => {}
        None => {
            params.set_if_neq(TerrainParams(edited));
        }
    }
    Ok(())
}
