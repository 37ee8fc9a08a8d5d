//! The egui side panel that edits every [`TerrainParams`] field live (cargo feature `inspector`).
//!
//! Edits go to a copy that is written back with `set_if_neq`, so the resource is only marked
//! changed (and the terrain only regenerated) when a value really changed.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};
use noise_terrain_core::{
    Basis, DistanceMetric, Fade, Fractal, Heightmap, IslandShape, NoiseSettings, WorleyReturn,
};

use crate::build::PieceKey;
use crate::files::{export_heightmap, list_presets, load_preset, save_preset};
use crate::jobs::{PieceHeights, TerrainJobs, TerrainPiece, TerrainStats, TerrainValidation};
use crate::params::{MAX_RESOLUTION, MIN_RESOLUTION, TerrainLayout, TerrainParams};
use crate::pointer::PointerBlockers;

/// Side length in pixels of the grey octave tiles.
pub const TILE_SIZE: u32 = 44;

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
            app.add_plugins(EguiPlugin::default());
        }
        app.init_resource::<PointerBlockers>()
            .insert_resource(InspectorState {
                visible: true,
                toggle_key: self.toggle_key,
                preset_folder: self.preset_folder.clone(),
                export_folder: self.export_folder.clone(),
                presets: list_presets(&self.preset_folder),
                preset_name: "my_terrain".into(),
                export_name: "terrain_heightmap".into(),
                message: None,
                tiles: None,
            })
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
    toggle_key: KeyCode,
    preset_folder: PathBuf,
    export_folder: PathBuf,
    presets: Vec<PathBuf>,
    preset_name: String,
    export_name: String,
    /// The result of the last load, save or export.
    pub message: Option<StatusLine>,
    tiles: Option<OctaveTiles>,
}

/// Grey octave tiles and the settings they show.
struct OctaveTiles {
    noise: NoiseSettings,
    textures: Vec<egui::TextureHandle>,
}

/// The grey image of octave `i`'s raw layer over the map (a tile under the panel).
pub fn octave_tile(settings: &NoiseSettings, i: u32, size: u32) -> egui::ColorImage {
    let grey: Vec<u8> = Heightmap::generate_octave(settings, i, size, size)
        .map(|m| m.samples().iter().map(|h| (h.clamp(0.0, 1.0) * 255.0).round() as u8).collect())
        .unwrap_or_default();
    egui::ColorImage::from_gray([size as usize, size as usize], &grey)
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

/// A row of chips, one per option, that selects `value`.
fn chips<T: Copy + PartialEq>(
    ui: &mut egui::Ui,
    label: &str,
    value: &mut T,
    options: &[T],
    name: fn(T) -> &'static str,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label(label);
        for &option in options {
            ui.selectable_value(value, option, name(option));
        }
    });
}

fn slider<'a>(value: &'a mut f32, range: std::ops::RangeInclusive<f32>, text: &str) -> egui::Slider<'a> {
    egui::Slider::new(value, range).text(text).clamping(egui::SliderClamping::Never)
}

#[allow(clippy::too_many_arguments)]
fn inspector_panel(
    mut contexts: EguiContexts,
    mut params: ResMut<TerrainParams>,
    mut state: ResMut<InspectorState>,
    stats: Res<TerrainStats>,
    jobs: Res<TerrainJobs>,
    validation: Res<TerrainValidation>,
    pieces: Query<(&TerrainPiece, &PieceHeights)>,
    mut blockers: ResMut<PointerBlockers>,
) -> Result {
    blockers.rects.clear();
    if !state.visible {
        return Ok(());
    }
    let ctx = contexts.ctx_mut()?.clone();
    let state = &mut *state;
    if state.tiles.as_ref().is_none_or(|t| t.noise != params.noise) {
        let textures = (0..params.noise.octave_count())
            .map(|i| {
                let image = octave_tile(&params.noise, i, TILE_SIZE);
                ctx.load_texture(format!("octave_{i}"), image, egui::TextureOptions::NEAREST)
            })
            .collect();
        state.tiles = Some(OctaveTiles { noise: params.noise, textures });
    }

    let mut edited = params.clone();
    let mut root = egui::Ui::new(
        ctx.clone(),
        "terrain_inspector_root".into(),
        egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(ctx.viewport_rect()),
    );
    let panel = egui::Panel::left("terrain_inspector")
        .resizable(true)
        .default_size(330.0)
        .size_range(240.0..=520.0)
        .show(&mut root, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                readouts(ui, &stats, &jobs, &validation);
                noise_section(ui, &mut edited);
                terrain_section(ui, &mut edited);
                octave_tiles(ui, &edited.noise, state.tiles.as_ref());
                let patch = pieces.iter().find(|(p, _)| p.spec.key == PieceKey::Patch).map(|(_, h)| h);
                files_section(ui, state, &mut edited, patch);
                ui.label(format!("{:?} hides this panel.", state.toggle_key));
            });
        });
    // egui points are logical pixels, as the camera's cursor position is.
    let r = panel.response.rect;
    blockers.rects.push(Rect::new(r.min.x, r.min.y, r.max.x, r.max.y));
    params.set_if_neq(edited);
    Ok(())
}

fn readouts(ui: &mut egui::Ui, stats: &TerrainStats, jobs: &TerrainJobs, validation: &TerrainValidation) {
    ui.heading("Terrain");
    let h = stats.heights;
    ui.label(format!("value range {:.2} to {:.2} (mean {:.2})", h.min, h.max, h.mean));
    ui.label(format!(
        "overflow {:.1}%   {} vertices   {:.1} ms",
        stats.overflow_fraction * 100.0,
        stats.vertex_count,
        stats.generation_time.as_secs_f64() * 1000.0
    ));
    ui.label(format!(
        "{} pieces shown, {} queued, {} building   {} triangles",
        stats.pieces_shown, stats.pieces_queued, stats.pieces_building, stats.triangle_count
    ));
    if let Some(done) = stats.erosion_progress {
        ui.add(egui::ProgressBar::new(done).text(format!("eroding {:.0}%", done * 100.0)));
    } else if jobs.is_busy() {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("generating...");
        });
    }
    for clamped in &validation.0 {
        ui.colored_label(egui::Color32::from_rgb(255, 170, 60), clamped.to_string());
    }
    ui.separator();
}

fn noise_section(ui: &mut egui::Ui, p: &mut TerrainParams) {
    let n = &mut p.noise;
    egui::CollapsingHeader::new("Noise").default_open(true).show(ui, |ui| {
        chips(ui, "basis", &mut n.basis, &Basis::ALL, Basis::name);
        if matches!(n.basis, Basis::Value | Basis::Gradient) {
            chips(ui, "fade", &mut n.fade, &Fade::ALL, Fade::name);
        }
        if n.basis == Basis::Worley {
            chips(ui, "return", &mut n.worley.return_type, &WorleyReturn::ALL, WorleyReturn::name);
            chips(ui, "metric", &mut n.worley.metric, &DistanceMetric::ALL, DistanceMetric::name);
            ui.add(egui::Slider::new(&mut n.worley.jitter, 0.0..=1.0).text("jitter"));
        }
        chips(ui, "fractal", &mut n.fractal, &Fractal::ALL, Fractal::name);
        ui.add(egui::Slider::new(&mut n.octaves, 1..=12).text("octaves"));
        ui.add(slider(&mut n.lacunarity, 1.0..=4.0, "lacunarity"));
        ui.add(slider(&mut n.persistence, 0.0..=1.0, "persistence"));
        ui.add(slider(&mut n.frequency, 0.25..=32.0, "base frequency").logarithmic(true));
        if n.fractal.uses_offset() {
            ui.add(slider(&mut n.fractal_offset, 0.0..=2.0, "offset"));
        }
        if n.fractal == Fractal::Ridged {
            ui.add(slider(&mut n.gain, 0.0..=8.0, "gain"));
        }
        ui.horizontal(|ui| {
            ui.label("seed");
            ui.add(egui::DragValue::new(&mut n.seed));
            if ui.button("new seed").clicked() {
                n.seed = n.seed.wrapping_mul(747_796_405).wrapping_add(2_891_336_453) >> 1;
            }
        });
        ui.horizontal(|ui| {
            ui.label("offset");
            ui.add(egui::DragValue::new(&mut n.offset.x).speed(0.01));
            ui.add(egui::DragValue::new(&mut n.offset.y).speed(0.01));
        });
        ui.horizontal(|ui| {
            ui.toggle_value(&mut n.normalize, "N").on_hover_text("normalise by the amplitude sum");
            let mut periodic = n.period.is_some();
            ui.checkbox(&mut periodic, "tile every");
            let mut period = n.period.unwrap_or(4);
            ui.add_enabled(periodic, egui::DragValue::new(&mut period).range(1..=1024));
            ui.label("cells");
            n.period = periodic.then_some(period);
        });
    });
    egui::CollapsingHeader::new("Warp").show(ui, |ui| {
        ui.add(slider(&mut n.warp.amplitude, 0.0..=4.0, "amount (cells)"));
        ui.add(slider(&mut n.warp.frequency, 0.1..=8.0, "frequency").logarithmic(true));
        ui.add(egui::Slider::new(&mut n.warp.octaves, 1..=8).text("octaves"));
    });
    let post = &mut p.post;
    egui::CollapsingHeader::new("Post-processing").show(ui, |ui| {
        ui.checkbox(&mut post.stretch, "stretch to the full range");
        ui.add(slider(&mut post.power, 0.2..=5.0, "redistribution power").logarithmic(true));
        ui.add(slider(&mut post.island_strength, 0.0..=1.0, "island"));
        ui.add(slider(&mut post.island_width, 0.01..=1.0, "island falloff"));
        chips(ui, "island", &mut post.island_shape, &IslandShape::ALL, IslandShape::name);
        ui.add(egui::Slider::new(&mut post.terraces, 0..=24).text("terraces"));
        ui.add(slider(&mut post.terrace_sharpness, 0.0..=1.0, "terrace sharpness"));
    });
}

fn layout_section(ui: &mut egui::Ui, p: &mut TerrainParams) {
    egui::CollapsingHeader::new("Layout").default_open(true).show(ui, |ui| {
        ui.horizontal(|ui| {
            let endless = matches!(p.layout, TerrainLayout::Endless { .. });
            if ui.selectable_label(!endless, "patch").clicked() && endless {
                p.layout = TerrainLayout::Patch;
            }
            if ui.selectable_label(endless, "endless").clicked() && !endless {
                p.layout = TerrainLayout::ENDLESS;
            }
        });
        match &mut p.layout {
            TerrainLayout::Patch => {
                ui.add(
                    egui::Slider::new(&mut p.resolution, MIN_RESOLUTION..=MAX_RESOLUTION)
                        .text("resolution")
                        .logarithmic(true),
                );
                ui.add(slider(&mut p.world_size, 10.0..=1000.0, "world size").logarithmic(true));
            }
            TerrainLayout::Endless { chunk_size, chunk_vertices, view_distance, lod_levels } => {
                ui.add(slider(chunk_size, 8.0..=512.0, "chunk size").logarithmic(true));
                ui.add(egui::Slider::new(chunk_vertices, 3..=257).text("vertices per chunk side"));
                ui.add(slider(view_distance, 100.0..=8000.0, "view distance").logarithmic(true));
                ui.add(egui::Slider::new(lod_levels, 1..=8).text("levels of detail"));
                ui.add(
                    slider(&mut p.world_size, 10.0..=4000.0, "world size of a map unit").logarithmic(true),
                );
            }
        }
    });
}

fn erosion_section(ui: &mut egui::Ui, p: &mut TerrainParams) {
    egui::CollapsingHeader::new("Erosion").show(ui, |ui| {
        if matches!(p.layout, TerrainLayout::Endless { .. }) {
            ui.label("Erosion needs the whole map: the patch layout only.");
        }
        ui.label("Lengths and counts for a 512-wide map; other resolutions are scaled to match.");
        let e = &mut p.erosion;
        let h = &mut e.hydraulic;
        ui.add(egui::Slider::new(&mut h.droplets, 0..=2_000_000).text("droplets").logarithmic(true));
        ui.add(slider(&mut h.radius, 1.0..=8.0, "brush radius"));
        ui.add(slider(&mut h.inertia, 0.0..=0.99, "inertia"));
        ui.add(slider(&mut h.capacity, 0.0..=16.0, "capacity"));
        ui.add(slider(&mut h.min_slope, 0.0..=0.1, "min slope"));
        ui.add(slider(&mut h.deposit, 0.0..=1.0, "deposit"));
        ui.add(slider(&mut h.erode, 0.0..=1.0, "erode"));
        ui.add(slider(&mut h.evaporation, 0.0..=0.2, "evaporation"));
        ui.add(slider(&mut h.gravity, 0.0..=16.0, "gravity"));
        ui.add(egui::Slider::new(&mut h.lifetime, 1..=128).text("lifetime"));
        ui.horizontal(|ui| {
            ui.label("droplet seed");
            ui.add(egui::DragValue::new(&mut h.seed));
        });
        let t = &mut e.thermal;
        ui.add(egui::Slider::new(&mut t.iterations, 0..=500).text("thermal iterations"));
        ui.add(slider(&mut t.talus_angle, 1.0..=89.0, "talus angle"));
        ui.add(slider(&mut t.amount, 0.0..=1.0, "thermal amount"));
        ui.add(slider(&mut e.scale, 0.1..=20.0, "relief (cells per unit height)").logarithmic(true));
    });
}

fn terrain_section(ui: &mut egui::Ui, p: &mut TerrainParams) {
    layout_section(ui, p);
    erosion_section(ui, p);
    egui::CollapsingHeader::new("Mesh and colours").default_open(true).show(ui, |ui| {
        ui.add(slider(&mut p.height_scale, 0.0..=100.0, "height scale"));
        ui.add(slider(&mut p.water_level, 0.0..=1.0, "water level"));
        ui.checkbox(&mut p.show_overflow, "paint heights above 1 orange");
    });
}

fn octave_tiles(ui: &mut egui::Ui, noise: &NoiseSettings, tiles: Option<&OctaveTiles>) {
    let Some(tiles) = tiles else { return };
    egui::CollapsingHeader::new("Octaves").default_open(true).show(ui, |ui| {
        ui.horizontal_wrapped(|ui| {
            for (i, texture) in tiles.textures.iter().enumerate() {
                ui.vertical(|ui| {
                    ui.image((texture.id(), egui::vec2(TILE_SIZE as f32, TILE_SIZE as f32)));
                    let i = i as u32;
                    ui.small(format!("f {:.1}", noise.octave_frequency(i)));
                    ui.small(format!("a {:.3}", noise.octave_amplitude(i)));
                });
            }
        });
    });
}

fn files_section(
    ui: &mut egui::Ui,
    state: &mut InspectorState,
    p: &mut TerrainParams,
    map: Option<&PieceHeights>,
) {
    egui::CollapsingHeader::new("Presets and export").default_open(true).show(ui, |ui| {
        let mut load = None;
        ui.horizontal_wrapped(|ui| {
            for path in &state.presets {
                let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                if ui.button(name).clicked() {
                    load = Some(path.clone());
                }
            }
        });
        if let Some(path) = load {
            state.message = Some(match load_preset(&path) {
                Ok(loaded) => {
                    *p = loaded;
                    StatusLine { error: false, text: format!("loaded {}", path.display()) }
                }
                Err(e) => StatusLine { error: true, text: e.to_string() },
            });
        }
        ui.horizontal(|ui| {
            ui.text_edit_singleline(&mut state.preset_name);
            if ui.button("save preset").clicked() {
                let path = state.preset_folder.join(format!("{}.ron", state.preset_name.trim()));
                state.message = Some(match save_preset(&path, p) {
                    Ok(()) => {
                        state.presets = list_presets(&state.preset_folder);
                        StatusLine { error: false, text: format!("saved {}", path.display()) }
                    }
                    Err(e) => StatusLine { error: true, text: e.to_string() },
                });
            }
        });
        ui.horizontal(|ui| {
            ui.text_edit_singleline(&mut state.export_name);
            let export = ui
                .add_enabled(map.is_some(), egui::Button::new("export .png + .r32"))
                .on_disabled_hover_text("exports the patch layout's heightmap");
            if export.clicked()
                && let Some(map) = map
            {
                let base = state.export_folder.join(state.export_name.trim());
                state.message = Some(match export_heightmap(&map.map, &base) {
                    Ok([png, r32]) => StatusLine {
                        error: false,
                        text: format!("wrote {} and {}", png.display(), r32.display()),
                    },
                    Err(e) => StatusLine { error: true, text: e.to_string() },
                });
            }
        });
        if let Some(line) = &state.message {
            let color =
                if line.error { egui::Color32::from_rgb(255, 110, 90) } else { egui::Color32::LIGHT_GREEN };
            ui.colored_label(color, &line.text);
        }
    });
}
