//! The panel's contents: readouts, every parameter, octave tiles, presets and export. Drawn into
//! any `egui::Ui`, so the UI tests drive the same code the plugin shows.

use bevy_egui::egui;
use noise_terrain_core::basis::{DistanceMetric, WorleyReturn};
use noise_terrain_core::limits::{
    AREA_EXPONENT_RANGE, CAPACITY_RANGE, CHANNEL_DEPTH_RANGE, COLOR_HEIGHT_RANGE, CUT_DEPTH_RANGE,
    DAMPING_RANGE, DIFFUSION_RANGE, ENDLESS_RIVER_AREA_RANGE, ENDLESS_RIVER_WIDTH_RANGE, ERODIBILITY_RANGE,
    EROSION_RADIUS_RANGE, EROSION_SCALE_RANGE, FILTER_GAIN_RANGE, FILTER_SCALE_RANGE, FILTER_STRENGTH_RANGE,
    FRACTAL_OFFSET_RANGE, FREQUENCY_RANGE, GAIN_RANGE, GRAVITY_RANGE, INERTIA_RANGE, LACUNARITY_RANGE,
    LIFETIME_RANGE, MAX_COLOR_LAYERS, MAX_DROPLETS, MAX_FILTER_OCTAVES, MAX_LOD_LEVELS, MAX_OCTAVES,
    MAX_PERIOD, MAX_RAMP_STOPS, MAX_STREAM_POWER_STEPS, MAX_THERMAL_ITERATIONS, MAX_WARP_AMPLITUDE,
    MAX_WARP_OCTAVES, MIN_OCTAVES, PERSISTENCE_RANGE, RESOLUTION_RANGE, RIVER_AREA_RANGE, RIVER_WIDTH_RANGE,
    SLOPE_DEGREES_RANGE, SLOPE_EXPONENT_RANGE, TALUS_ANGLE_RANGE, TIME_STEP_RANGE, UNIT_RANGE, UPLIFT_RANGE,
    VALLEY_WIDTH_RANGE, WARP_FREQUENCY_RANGE,
};
use noise_terrain_core::{
    Basis, Border, ColorLayer, ColorRamp, ColorRules, Fade, Fractal, GradientKernel, IslandShape,
    LodSettings, NoiseSettings, PostProcess, RampStop,
};

use super::scatter_section::scatter_section;
use super::sliders::{offered, slider};
use super::tiles::{TILE_SIZE, octave_tile};
use super::{InspectorState, OctaveTiles, StatusLine};
use crate::files::{export_heightmap, list_presets, load_preset, save_preset};
use crate::params::{
    CHUNK_SIZE_RANGE, CHUNK_VERTICES_RANGE, HEIGHT_SCALE_RANGE, TerrainLayout, TerrainPreset,
    WATER_LEVEL_RANGE, WORLD_SIZE_RANGE,
};
use crate::pieces::{PieceHeights, TerrainStats, TerrainValidation};

/// Octaves fewer for Worley noise than for the lattice bases: its cells already carry fine
/// detail, and its octaves cost more.
pub const WORLEY_OCTAVES_FEWER: u32 = 2;

/// The colour that marks octaves finer than the mesh.
const FINER_THAN_MESH: egui::Color32 = egui::Color32::from_rgb(255, 140, 40);

/// What the panel shows besides the parameters.
#[derive(Clone, Copy)]
pub struct PanelInputs<'a> {
    /// Figures of the terrain on screen.
    pub stats: &'a TerrainStats,
    /// Whether a job is running.
    pub busy: bool,
    /// What validation clamped.
    pub validation: &'a TerrainValidation,
    /// The patch's heights, for export (`None` in the endless layout or before the first build).
    pub patch: Option<&'a PieceHeights>,
}

/// Draws the panel's contents into `ui`, editing `params` and `state`. The plugin calls it on a
/// copy of [`TerrainPreset`] and writes the copy back only when it differs, so an interaction
/// that changes nothing starts no regeneration.
pub fn panel_contents(
    ui: &mut egui::Ui,
    params: &mut TerrainPreset,
    state: &mut InspectorState,
    inputs: PanelInputs<'_>,
) {
    readouts(ui, params, inputs);
    noise_section(ui, params, state);
    terrain_section(ui, params);
    refresh_tiles(ui.ctx(), state, &params.noise);
    octave_tiles(ui, params, state.tiles.as_ref());
    files_section(ui, state, params, inputs.patch);
    ui.label(format!("{:?} hides this panel.", state.toggle_key));
}

/// A choice of the terrain to edit, shown when there is more than one (`choices`: each
/// terrain and its name); sets [`InspectorState::target`].
pub fn terrain_chooser(
    ui: &mut egui::Ui,
    state: &mut InspectorState,
    current: bevy::prelude::Entity,
    choices: &[(bevy::prelude::Entity, String)],
) {
    if choices.len() < 2 {
        return;
    }
    let name = |e| choices.iter().find(|(c, _)| *c == e).map_or("?", |(_, n)| n.as_str());
    egui::ComboBox::from_label("terrain").selected_text(name(current)).show_ui(ui, |ui| {
        for (entity, label) in choices {
            if ui.selectable_label(*entity == current, label).clicked() {
                state.target = Some(*entity);
            }
        }
    });
    ui.separator();
}

/// Makes the octave tiles again when the noise changed.
fn refresh_tiles(ctx: &egui::Context, state: &mut InspectorState, noise: &NoiseSettings) {
    if state.tiles.as_ref().is_some_and(|t| t.noise == *noise) {
        return;
    }
    let textures = (0..noise.octave_count())
        .map(|i| {
            ctx.load_texture(
                format!("octave_{i}"),
                octave_tile(noise, i, TILE_SIZE),
                egui::TextureOptions::NEAREST,
            )
        })
        .collect();
    state.tiles = Some(OctaveTiles { noise: *noise, textures });
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

fn readouts(ui: &mut egui::Ui, p: &TerrainPreset, inputs: PanelInputs<'_>) {
    let PanelInputs { stats, busy, validation, .. } = inputs;
    ui.heading("Terrain");
    // The raw noise's range shows what normalising (chip N) does; post-processing and erosion
    // change it, so their range is shown beside it.
    let (raw, h) = (stats.raw_heights, stats.heights);
    ui.label(format!("noise range {:.2} to {:.2} (mean {:.2})", raw.min, raw.max, raw.mean));
    if p.post.is_active() || p.erosion.is_active() {
        ui.label(format!("after post-processing {:.2} to {:.2} (mean {:.2})", h.min, h.max, h.mean));
    }
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
    } else if busy {
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

fn noise_section(ui: &mut egui::Ui, p: &mut TerrainPreset, state: &mut InspectorState) {
    let resolved = p.octaves_the_mesh_resolves();
    let n = &mut p.noise;
    egui::CollapsingHeader::new("Noise").default_open(true).show(ui, |ui| {
        let basis = n.basis;
        chips(ui, "basis", &mut n.basis, &Basis::ALL, Basis::name);
        switch_worley_octaves(basis, n, state);
        if matches!(n.basis, Basis::Value | Basis::Gradient) {
            chips(ui, "fade", &mut n.fade, &Fade::ALL, Fade::name);
        }
        if n.basis == Basis::Gradient {
            chips(ui, "kernel", &mut n.gradient_kernel, &GradientKernel::ALL, GradientKernel::name);
        }
        if n.basis == Basis::Worley {
            chips(ui, "return", &mut n.worley.return_type, &WorleyReturn::ALL, WorleyReturn::name);
            chips(ui, "metric", &mut n.worley.metric, &DistanceMetric::ALL, DistanceMetric::name);
            ui.add(slider(&mut n.worley.jitter, offered(UNIT_RANGE, 0.0..=1.0), "jitter"));
        }
        chips(ui, "fractal", &mut n.fractal, &Fractal::ALL, Fractal::name);
        // The slider reaches as far as the mesh can show (or the current count, if more).
        let ceiling = resolved.max(n.octaves).clamp(MIN_OCTAVES, MAX_OCTAVES);
        let finer = n.octave_count().saturating_sub(resolved);
        let text = match finer {
            0 => "octaves".to_string(),
            k => format!("octaves ({k} finer than the mesh)"),
        };
        ui.add(slider(&mut n.octaves, offered((MIN_OCTAVES, MAX_OCTAVES), 1..=ceiling), &text))
            .on_hover_text(format!("the mesh shows {resolved} octaves; finer ones add only flicker"));
        if state.octaves_before_worley.is_some() {
            ui.small(format!("Worley: {WORLEY_OCTAVES_FEWER} octaves fewer; switching back restores them"));
        }
        ui.add(slider(&mut n.lacunarity, offered(LACUNARITY_RANGE, 1.0..=4.0), "lacunarity"));
        ui.add(slider(&mut n.persistence, offered(PERSISTENCE_RANGE, 0.0..=1.0), "persistence"));
        ui.add(
            slider(&mut n.frequency, offered(FREQUENCY_RANGE, 0.25..=32.0), "base frequency")
                .logarithmic(true),
        );
        ui.checkbox(&mut n.rotate_octaves, "turn octaves")
            .on_hover_text("turn each octave by the golden angle: no grid-aligned ridges (not with tiling)");
        if n.fractal.uses_offset() {
            ui.add(slider(&mut n.fractal_offset, offered(FRACTAL_OFFSET_RANGE, 0.0..=2.0), "offset"));
        }
        if n.fractal == Fractal::Ridged {
            ui.add(slider(&mut n.gain, offered(GAIN_RANGE, 0.0..=8.0), "gain"));
        }
        if n.fractal == Fractal::Damped {
            ui.add(slider(&mut n.damping, offered(DAMPING_RANGE, 0.0..=8.0), "damping k"))
                .on_hover_text("each octave divided by 1 + k·|slopes so far|²: smooth flanks, rough flats");
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
            ui.add_enabled(periodic, egui::DragValue::new(&mut period).range(1..=MAX_PERIOD));
            ui.label("cells");
            n.period = periodic.then_some(period);
        });
    });
    egui::CollapsingHeader::new("Warp").show(ui, |ui| {
        ui.add(slider(
            &mut n.warp.amplitude,
            offered((0.0, MAX_WARP_AMPLITUDE), 0.0..=4.0),
            "amount (cells)",
        ));
        ui.add(
            slider(&mut n.warp.frequency, offered(WARP_FREQUENCY_RANGE, 0.1..=8.0), "frequency")
                .logarithmic(true),
        );
        ui.add(slider(&mut n.warp.octaves, offered((1, MAX_WARP_OCTAVES), 1..=8), "octaves"));
    });
    let post = &mut p.post;
    egui::CollapsingHeader::new("Post-processing").show(ui, |ui| {
        ui.checkbox(&mut post.stretch, "stretch to the full range");
        ui.add(
            slider(&mut post.power, offered(PostProcess::POWER_RANGE, 0.2..=5.0), "redistribution power")
                .logarithmic(true),
        );
        ui.add(slider(&mut post.island_strength, offered(UNIT_RANGE, 0.0..=1.0), "island"));
        ui.add(slider(
            &mut post.island_width,
            offered(PostProcess::ISLAND_WIDTH_RANGE, 0.01..=1.0),
            "island falloff",
        ));
        chips(ui, "island", &mut post.island_shape, &IslandShape::ALL, IslandShape::name);
        ui.add(slider(&mut post.terraces, offered((0, PostProcess::MAX_TERRACES), 0..=24), "terraces"));
        ui.add(slider(&mut post.terrace_sharpness, offered(UNIT_RANGE, 0.0..=1.0), "terrace sharpness"));
    });
}

fn layout_section(ui: &mut egui::Ui, p: &mut TerrainPreset) {
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
                    slider(&mut p.resolution, offered(RESOLUTION_RANGE, 2..=2048), "resolution")
                        .logarithmic(true),
                );
                ui.add(
                    slider(&mut p.world_size, offered(WORLD_SIZE_RANGE, 10.0..=1000.0), "world size")
                        .logarithmic(true),
                );
            }
            TerrainLayout::Endless { chunk_size, chunk_vertices, view_distance, lod_levels } => {
                let lod = LodSettings {
                    chunk_size: f64::from(*chunk_size),
                    view_distance: 0.0,
                    levels: (*lod_levels).min(u32::from(MAX_LOD_LEVELS)) as u8,
                };
                let (near, far) = lod.clamped().view_distance_range();
                let views = (near as f32, far as f32);
                ui.add(
                    slider(chunk_size, offered(CHUNK_SIZE_RANGE, 8.0..=512.0), "chunk size")
                        .logarithmic(true),
                );
                ui.add(slider(
                    chunk_vertices,
                    offered(CHUNK_VERTICES_RANGE, 3..=257),
                    "vertices per chunk side",
                ));
                ui.add(
                    slider(view_distance, offered(views, 100.0..=8000.0), "view distance").logarithmic(true),
                );
                ui.add(slider(
                    lod_levels,
                    offered((1, u32::from(MAX_LOD_LEVELS)), 1..=8),
                    "levels of detail",
                ));
                ui.add(
                    slider(
                        &mut p.world_size,
                        offered(WORLD_SIZE_RANGE, 10.0..=4000.0),
                        "world size of a map unit",
                    )
                    .logarithmic(true),
                );
            }
        }
    });
}

/// Stream power: every parameter, in world units.
fn rivers_section(ui: &mut egui::Ui, p: &mut TerrainPreset) {
    egui::CollapsingHeader::new("Rivers (stream power)").show(ui, |ui| {
        if matches!(p.layout, TerrainLayout::Endless { .. }) {
            ui.label("Stream power needs the whole map: the patch layout only.");
        }
        ui.label("Rivers cut into rising ground (dh/dt = U - K A^m S^n + D lap h), in world units.");
        let s = &mut p.erosion.stream_power;
        ui.add(slider(&mut s.steps, offered((0, MAX_STREAM_POWER_STEPS), 0..=1000), "time steps (0: off)"));
        ui.add(slider(&mut s.time_step, offered(TIME_STEP_RANGE, 0.1..=20.0), "time step").logarithmic(true));
        ui.add(
            slider(&mut s.erodibility, offered(ERODIBILITY_RANGE, 0.001..=0.5), "erodibility K")
                .logarithmic(true),
        );
        ui.add(slider(&mut s.area_exponent, offered(AREA_EXPONENT_RANGE, 0.0..=1.5), "area exponent m"));
        ui.add(slider(&mut s.slope_exponent, offered(SLOPE_EXPONENT_RANGE, 0.5..=4.0), "slope exponent n"));
        ui.add(slider(&mut s.diffusion, offered(DIFFUSION_RANGE, 0.0..=0.1), "hillslope diffusion D"));
        ui.add(slider(&mut s.uplift, offered(UPLIFT_RANGE, 0.0..=0.5), "uplift U"));
        let mut closed = s.border == Border::Closed;
        if ui.checkbox(&mut closed, "closed border (drain to the sea only)").changed() {
            s.border = if closed { Border::Closed } else { Border::Open };
        }
        ui.add(
            slider(&mut s.rivers.min_area, offered(RIVER_AREA_RANGE, 1.0..=1000.0), "river start area")
                .logarithmic(true),
        );
        ui.add(slider(&mut s.rivers.width, offered(RIVER_WIDTH_RANGE, 0.0..=0.1), "river width factor"));
        ui.checkbox(&mut p.river_water, "rivers as water");
    });
}

fn endless_rivers_section(ui: &mut egui::Ui, p: &mut TerrainPreset) {
    egui::CollapsingHeader::new("Rivers and lakes (endless)").show(ui, |ui| {
        if !matches!(p.layout, TerrainLayout::Endless { .. }) {
            ui.label("Routed region by region over the endless world: the endless layout only.");
        }
        let r = &mut p.endless_rivers;
        ui.checkbox(&mut r.enabled, "rivers and lakes");
        ui.add(
            slider(
                &mut r.min_area,
                offered(ENDLESS_RIVER_AREA_RANGE, 1e3..=1e6),
                "river start area (units²)",
            )
            .logarithmic(true),
        );
        ui.add(slider(
            &mut r.width,
            offered(ENDLESS_RIVER_WIDTH_RANGE, 0.0..=0.1),
            "width factor (x sqrt area)",
        ));
        ui.add(slider(
            &mut r.channel_depth,
            offered(CHANNEL_DEPTH_RANGE, 0.0..=20.0),
            "channel depth (units)",
        ));
        ui.add(slider(&mut r.valley_width, offered(VALLEY_WIDTH_RANGE, 0.0..=200.0), "valley width (units)"));
        ui.checkbox(&mut r.lakes, "lakes");
    });
}

fn erosion_section(ui: &mut egui::Ui, p: &mut TerrainPreset) {
    egui::CollapsingHeader::new("Erosion").show(ui, |ui| {
        if matches!(p.layout, TerrainLayout::Endless { .. }) {
            ui.label("Erosion needs the whole map: the patch layout only.");
        }
        ui.label("Lengths and counts for a 512-wide map; other resolutions are scaled to match.");
        let e = &mut p.erosion;
        let h = &mut e.hydraulic;
        ui.add(
            slider(&mut h.droplets, offered((0, MAX_DROPLETS), 0..=2_000_000), "droplets").logarithmic(true),
        );
        ui.add(slider(&mut h.radius, offered(EROSION_RADIUS_RANGE, 1.0..=8.0), "brush radius"));
        ui.add(slider(&mut h.inertia, offered(INERTIA_RANGE, 0.0..=0.99), "inertia"));
        ui.add(slider(&mut h.capacity, offered(CAPACITY_RANGE, 0.0..=16.0), "capacity"));
        ui.add(slider(&mut h.min_slope, offered(UNIT_RANGE, 0.0..=0.1), "min slope"));
        ui.add(slider(&mut h.deposit, offered(UNIT_RANGE, 0.0..=1.0), "deposit"));
        ui.add(slider(&mut h.erode, offered(UNIT_RANGE, 0.0..=1.0), "erode"));
        ui.add(slider(&mut h.evaporation, offered(UNIT_RANGE, 0.0..=0.2), "evaporation"));
        ui.add(slider(&mut h.gravity, offered(GRAVITY_RANGE, 0.0..=16.0), "gravity"));
        ui.add(slider(&mut h.lifetime, offered(LIFETIME_RANGE, 1..=128), "lifetime"));
        ui.horizontal(|ui| {
            ui.label("droplet seed");
            ui.add(egui::DragValue::new(&mut h.seed));
        });
        let t = &mut e.thermal;
        ui.add(slider(
            &mut t.iterations,
            offered((0, MAX_THERMAL_ITERATIONS), 0..=500),
            "thermal iterations",
        ));
        ui.add(slider(&mut t.talus_angle, offered(TALUS_ANGLE_RANGE, 1.0..=89.0), "talus angle"));
        ui.add(slider(&mut t.amount, offered(UNIT_RANGE, 0.0..=1.0), "thermal amount"));
        ui.add(
            slider(&mut e.scale, offered(EROSION_SCALE_RANGE, 0.1..=20.0), "relief (cells per unit height)")
                .logarithmic(true),
        );
    });
}

fn erosion_filter_section(ui: &mut egui::Ui, n: &mut NoiseSettings) {
    egui::CollapsingHeader::new("Erosion filter").show(ui, |ui| {
        ui.label("Gullies that run downhill, point by point: both layouts.");
        ui.checkbox(&mut n.erosion_filter.enabled, "cut gullies");
        if n.erosion_filter.enabled && !n.supports_erosion_filter() {
            ui.label("Needs fBm, billow or no fractal, and no warp: off for this field.");
        }
        let f = &mut n.erosion_filter;
        ui.add(slider(&mut f.strength, offered(FILTER_STRENGTH_RANGE, 0.0..=4.0), "gully depth"));
        ui.add(
            slider(&mut f.scale, offered(FILTER_SCALE_RANGE, 0.25..=64.0), "gully scale (per lattice cell)")
                .logarithmic(true),
        );
        ui.add(slider(&mut f.octaves, offered((1, MAX_FILTER_OCTAVES), 1..=8), "gully octaves"));
        ui.add(slider(&mut f.gain, offered(FILTER_GAIN_RANGE, 0.0..=1.0), "depth per octave"));
        ui.add(slider(&mut f.bend, offered(UNIT_RANGE, 0.0..=1.0), "branching (bend)"));
        ui.add(slider(&mut f.sharpness, offered(UNIT_RANGE, 0.0..=1.0), "ridge sharpness"));
        ui.add(slider(&mut f.keep_peaks, offered(UNIT_RANGE, 0.0..=1.0), "keep peaks"));
        ui.add(slider(&mut f.keep_floors, offered(UNIT_RANGE, 0.0..=1.0), "keep valley floors"));
        ui.horizontal(|ui| {
            ui.label("gully seed");
            ui.add(egui::DragValue::new(&mut f.seed));
        });
    });
}

fn terrain_section(ui: &mut egui::Ui, p: &mut TerrainPreset) {
    layout_section(ui, p);
    erosion_filter_section(ui, &mut p.noise);
    rivers_section(ui, p);
    endless_rivers_section(ui, p);
    erosion_section(ui, p);
    egui::CollapsingHeader::new("Mesh and colours").default_open(true).show(ui, |ui| {
        ui.add(slider(&mut p.height_scale, offered(HEIGHT_SCALE_RANGE, 0.0..=100.0), "height scale"));
        ui.add(slider(&mut p.water_level, offered(WATER_LEVEL_RANGE, 0.0..=1.0), "water level"));
        ui.checkbox(&mut p.show_overflow, "paint heights above 1 orange");
    });
    ramp_section(ui, &mut p.ramp);
    colour_rules_section(ui, p);
    scatter_section(ui, p);
}

/// The ramp's stops: position and colour of each, and stops added or removed. Stops may be
/// dragged past each other; validation sorts them for the build.
fn ramp_section(ui: &mut egui::Ui, ramp: &mut ColorRamp) {
    egui::CollapsingHeader::new("Colour ramp").show(ui, |ui| {
        ui.label("Stops from deep water (0) through the shore (0.5) to a height of 1 (1).");
        ui.horizontal(|ui| {
            if ui.button("terrain ramp").clicked() {
                *ramp = ColorRamp::terrain();
            }
            if ui.button("grey ramp").clicked() {
                *ramp = ColorRamp::grey();
            }
        });
        let mut remove = None;
        let count = ramp.stops.len();
        for (i, stop) in ramp.stops.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                ui.color_edit_button_srgb(&mut stop.color);
                ui.add(slider(
                    &mut stop.position,
                    offered(UNIT_RANGE, 0.0..=1.0),
                    &format!("stop {}", i + 1),
                ));
                if count > 1 && ui.button("remove stop").clicked() {
                    remove = Some(i);
                }
            });
        }
        if let Some(i) = remove {
            ramp.stops.remove(i);
        }
        if ramp.stops.len() < MAX_RAMP_STOPS && ui.button("add stop").clicked() {
            let at = widest_gap(&ramp.clamped());
            ramp.stops.push(RampStop { position: at, color: ramp.clamped().color_at(at) });
        }
    });
}

/// The middle of the widest gap between a sorted ramp's stops (or its ends), where a new stop
/// changes the least: it takes the colour the ramp already has there.
fn widest_gap(ramp: &ColorRamp) -> f32 {
    let mut edges = vec![0.0];
    edges.extend(ramp.stops.iter().map(|s| s.position));
    edges.push(1.0);
    edges
        .windows(2)
        .max_by(|a, b| (a[1] - a[0]).total_cmp(&(b[1] - b[0])))
        .map_or(0.5, |w| (w[0] + w[1]) / 2.0)
}

/// Names of the landscape rules' layers, found by their colour (other layers are numbered).
const LAYER_NAMES: [&str; 5] = ["sand", "grass", "rock", "snow", "gullies"];

/// The name of a layer: the landscape layer of its colour, else its number.
fn layer_name(layer: &ColorLayer, i: usize) -> String {
    let landscape = ColorRules::landscape();
    let named = landscape.layers.iter().zip(LAYER_NAMES).find(|(l, _)| l.color == layer.color);
    named.map_or_else(|| format!("layer {}", i + 1), |(_, name)| name.to_string())
}

fn colour_rules_section(ui: &mut egui::Ui, p: &mut TerrainPreset) {
    egui::CollapsingHeader::new("Colour rules").show(ui, |ui| {
        ui.label(
            "Layers over the ramp by height (0 shore, 1 top), slope (degrees) and the erosion filter's cut.",
        );
        ui.horizontal(|ui| {
            if ui.button("landscape").clicked() {
                p.colors = ColorRules::landscape();
            }
            if ui.button("plain ramp").clicked() {
                p.colors = ColorRules::plain();
            }
            if p.colors.layers.len() < MAX_COLOR_LAYERS && ui.button("add layer").clicked() {
                p.colors.layers.push(ColorLayer::default());
            }
        });
        let mut remove = None;
        for (i, layer) in p.colors.layers.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                let name = layer_name(layer, i);
                ui.checkbox(&mut layer.enabled, name);
                ui.color_edit_button_srgb(&mut layer.color);
                if ui.button("remove layer").clicked() {
                    remove = Some(i);
                }
            });
            ui.add(slider(&mut layer.heights[0], offered(COLOR_HEIGHT_RANGE, -0.2..=1.2), "from height"));
            ui.add(slider(&mut layer.heights[1], offered(COLOR_HEIGHT_RANGE, -0.2..=1.2), "to height"));
            ui.add(slider(&mut layer.slopes[0], offered(SLOPE_DEGREES_RANGE, 0.0..=90.0), "from slope"));
            ui.add(slider(&mut layer.slopes[1], offered(SLOPE_DEGREES_RANGE, 0.0..=90.0), "to slope"));
            ui.add(slider(&mut layer.height_blend, offered(UNIT_RANGE, 0.0..=0.5), "height blend"));
            ui.add(slider(&mut layer.slope_blend, offered(SLOPE_DEGREES_RANGE, 0.0..=30.0), "slope blend"));
            ui.add(slider(&mut layer.cuts[0], offered(CUT_DEPTH_RANGE, -0.1..=0.5), "from cut depth"));
            ui.add(
                slider(&mut layer.cuts[1], offered(CUT_DEPTH_RANGE, -0.1..=10.0), "to cut depth")
                    .logarithmic(true),
            );
            ui.add(slider(&mut layer.cut_blend, offered(UNIT_RANGE, 0.0..=0.2), "cut blend"));
            ui.separator();
        }
        if let Some(i) = remove {
            p.colors.layers.remove(i);
        }
    });
}

/// Lowers the octave count by [`WORLEY_OCTAVES_FEWER`] when the basis becomes Worley, and
/// restores it (with any change made meanwhile) when it changes back.
fn switch_worley_octaves(before: Basis, n: &mut NoiseSettings, state: &mut InspectorState) {
    let worley = |b: Basis| b == Basis::Worley;
    if !worley(before) && worley(n.basis) {
        state.octaves_before_worley = Some(n.octaves);
        n.octaves = n.octaves.saturating_sub(WORLEY_OCTAVES_FEWER).max(1);
    } else if worley(before) && !worley(n.basis) {
        if let Some(octaves) = state.octaves_before_worley.take() {
            let lowered = octaves.saturating_sub(WORLEY_OCTAVES_FEWER).max(1);
            // A change made while on Worley carries over.
            n.octaves = (i64::from(octaves) + i64::from(n.octaves) - i64::from(lowered))
                .clamp(1, i64::from(noise_terrain_core::limits::MAX_OCTAVES)) as u32;
        }
    } else if !worley(n.basis) {
        // A preset or code switched the basis: nothing to restore.
        state.octaves_before_worley = None;
    }
}

fn octave_tiles(ui: &mut egui::Ui, p: &TerrainPreset, tiles: Option<&OctaveTiles>) {
    let Some(tiles) = tiles else { return };
    let (noise, resolved) = (&p.noise, p.octaves_the_mesh_resolves());
    egui::CollapsingHeader::new("Octaves").default_open(true).show(ui, |ui| {
        ui.horizontal_wrapped(|ui| {
            for (i, texture) in tiles.textures.iter().enumerate() {
                let i = i as u32;
                let finer = i >= resolved;
                ui.vertical(|ui| {
                    let image =
                        egui::Image::new((texture.id(), egui::vec2(TILE_SIZE as f32, TILE_SIZE as f32)));
                    let response = ui.add(image);
                    if finer {
                        // Finer than the mesh: framed in the overflow orange, and said so.
                        ui.painter().rect_stroke(
                            response.rect,
                            0.0,
                            (2.0, FINER_THAN_MESH),
                            egui::StrokeKind::Inside,
                        );
                        response.on_hover_text("finer than the mesh's vertex spacing: adds only flicker");
                    }
                    ui.small(format!("f {:.1}", noise.octave_frequency(i)));
                    ui.small(format!("a {:.3}", noise.octave_amplitude(i)));
                    if finer {
                        ui.small(egui::RichText::new("finer than mesh").color(FINER_THAN_MESH));
                    }
                });
            }
        });
    });
}
fn files_section(
    ui: &mut egui::Ui,
    state: &mut InspectorState,
    p: &mut TerrainPreset,
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
