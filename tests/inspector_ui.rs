//! UI tests of the inspector panel with `egui_kittest`: the real panel contents, driven by
//! clicks and drags on widgets found by their labels, as a person would.

#![cfg(feature = "inspector")]

use std::path::PathBuf;
use std::sync::Arc;

use bevy::prelude::default;
use bevy_egui::egui;
use bevy_noise_terrain::core::{Basis, Fade, Fractal, GradientKernel};
use bevy_noise_terrain::inspector::{InspectorState, PanelInputs, WORLEY_OCTAVES_FEWER, panel_contents};
use bevy_noise_terrain::pieces::{PieceHeights, TerrainStats, TerrainValidation};
use bevy_noise_terrain::{TerrainPreset, build_terrain};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, Queryable};

/// The octave slider's rail.
fn octave_slider(h: &Harness<'static, Panel>) -> egui::Rect {
    h.get(By::new().role(egui::accesskit::Role::Slider).label_contains("octaves")).rect()
}

/// Everything the panel reads and edits.
struct Panel {
    params: TerrainPreset,
    state: InspectorState,
    stats: TerrainStats,
    validation: TerrainValidation,
    patch: Option<PieceHeights>,
}

/// A folder of its own under the target's temporary directory.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("noise_terrain_ui_{name}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn panel(params: TerrainPreset, folder: PathBuf) -> Panel {
    Panel {
        params,
        state: InspectorState::new(folder.clone(), folder),
        stats: TerrainStats::default(),
        validation: TerrainValidation::default(),
        patch: None,
    }
}

/// The panel in a window tall enough to show every section without scrolling.
fn harness(panel: Panel) -> Harness<'static, Panel> {
    let mut harness = Harness::builder().with_size(egui::vec2(420.0, 2600.0)).build_ui_state(
        |ui, p: &mut Panel| {
            let inputs = PanelInputs {
                stats: &p.stats,
                busy: false,
                validation: &p.validation,
                patch: p.patch.as_ref(),
            };
            panel_contents(ui, &mut p.params, &mut p.state, inputs);
        },
        panel,
    );
    harness.run();
    harness
}

/// Presses the pointer at `at`, moves it there and lets go (a drag onto one point of a slider).
fn drag_to(h: &mut Harness<'_, Panel>, at: egui::Pos2) {
    h.drag_at(at);
    h.run();
    h.drop_at(at);
    h.run();
}

#[test]
fn dragging_the_octave_slider_changes_the_octaves() {
    let params = TerrainPreset { resolution: 1024, ..default() };
    let mut h = harness(panel(params, folder("octaves")));
    assert_eq!(h.state().params.noise.octaves, 6);
    let rail = octave_slider(&h);
    drag_to(&mut h, rail.left_center() + egui::vec2(2.0, 0.0));
    assert_eq!(h.state().params.noise.octaves, 1, "dragged to the left end");
}

#[test]
fn the_octave_slider_ends_where_the_mesh_stops_showing_detail() {
    // 64 vertices across: octaves of frequency 3, 6, 12, 24 fit (at most 32); 48 does not.
    let params = TerrainPreset { resolution: 64, ..default() };
    assert_eq!(params.octaves_the_mesh_resolves(), 4);
    let mut h = harness(panel(params, folder("ceiling")));
    // The slider's right end is the mesh's limit... unless the count is already above it, as
    // here (6): then two octaves are flagged as finer than the mesh.
    h.get(By::new().role(egui::accesskit::Role::Slider).label_contains("2 finer than the mesh"));
    assert_eq!(h.get_all_by_label("finer than mesh").count(), 2, "the last two tiles are flagged");
    h.state_mut().params.noise.octaves = 3;
    h.run();
    let rail = octave_slider(&h);
    drag_to(&mut h, rail.right_center() - egui::vec2(2.0, 0.0));
    assert_eq!(h.state().params.noise.octaves, 4, "the right end is the mesh's limit");
    assert!(h.query_by_label("finer than mesh").is_none());
}

#[test]
fn a_fade_chip_and_chip_n_change_the_noise() {
    let mut h = harness(panel(TerrainPreset::default(), folder("chips")));
    h.get_by_label("linear").click();
    h.run();
    assert_eq!(h.state().params.noise.fade, Fade::Linear);
    let normalized = h.state().params.noise.normalize;
    h.get_by_label("N").click();
    h.run();
    assert_eq!(h.state().params.noise.normalize, !normalized);
}

#[test]
fn the_damped_fractal_chip_shows_its_damping_slider() {
    let mut h = harness(panel(TerrainPreset::default(), folder("damped")));
    assert!(h.query_by_label_contains("damping k").is_none(), "fBm has no damping");
    h.get_by_label("damped").click();
    h.run();
    assert_eq!(h.state().params.noise.fractal, Fractal::Damped);
    let rail = h.get(By::new().role(egui::accesskit::Role::Slider).label_contains("damping k")).rect();
    drag_to(&mut h, rail.left_center() + egui::vec2(2.0, 0.0));
    assert_eq!(h.state().params.noise.damping, 0.0, "dragged to the left end: no damping");
}

#[test]
fn the_kernel_chips_are_offered_for_gradient_noise_only() {
    let mut h = harness(panel(TerrainPreset::default(), folder("kernel")));
    assert_eq!(h.state().params.noise.gradient_kernel, GradientKernel::Rounded, "the default");
    h.get_by_label("perlin").click();
    h.run();
    assert_eq!(h.state().params.noise.gradient_kernel, GradientKernel::Perlin);
    h.get_by_label("rounded").click();
    h.run();
    assert_eq!(h.state().params.noise.gradient_kernel, GradientKernel::Rounded);
    h.get_by_label("value").click();
    h.run();
    assert!(h.query_by_label("rounded").is_none(), "value noise has no kernel choice");
    assert!(h.query_by_label("perlin").is_none(), "value noise has no kernel choice");
}

#[test]
fn an_interaction_that_changes_nothing_leaves_the_parameters_equal() {
    // The plugin writes the edited copy back with `set_if_neq`: equal means no regeneration.
    let before = TerrainPreset::default();
    let mut h = harness(panel(before.clone(), folder("nothing")));
    assert_eq!(before.noise.fade, Fade::Quintic);
    h.get_by_label("quintic").click();
    h.run();
    h.get_by_label("gradient").click();
    h.run();
    assert_eq!(h.state().params, before, "clicking the chips already selected changed the parameters");
}

#[test]
fn worley_takes_two_octaves_fewer_and_switching_back_restores_them() {
    let mut h = harness(panel(TerrainPreset::default(), folder("worley")));
    h.get_by_label("worley").click();
    h.run();
    let p = &h.state().params.noise;
    assert_eq!((p.basis, p.octaves), (Basis::Worley, 6 - WORLEY_OCTAVES_FEWER));
    h.get_by_label_contains("octaves fewer");
    h.get_by_label("gradient").click();
    h.run();
    let p = &h.state().params.noise;
    assert_eq!((p.basis, p.octaves), (Basis::Gradient, 6));
}

#[test]
fn loading_a_preset_replaces_the_parameters() {
    let dir = folder("presets");
    let saved = TerrainPreset { resolution: 77, water_level: 0.31, ..default() };
    bevy_noise_terrain::files::save_preset(&dir.join("lowlands.ron"), &saved).unwrap();
    let mut h = harness(panel(TerrainPreset::default(), dir));
    h.get_by_label("lowlands").click();
    h.run();
    assert_eq!(h.state().params.resolution, 77);
    assert_eq!(h.state().params.water_level, 0.31);
    assert!(h.state().state.message.as_ref().is_some_and(|m| !m.error));
}

#[test]
fn pressing_export_writes_the_heightmap_files() {
    let dir = folder("export");
    let params = TerrainPreset { resolution: 33, ..default() };
    let build = build_terrain(params.clone()).unwrap();
    let mut p = panel(params.clone(), dir.clone());
    p.patch = Some(PieceHeights {
        map: Arc::new(build.heights),
        geometry: build.geometry,
        height_scale: params.height_scale,
        stats: build.stats,
        raw_stats: build.raw_stats,
        overflow_fraction: build.overflow_fraction,
        params: Arc::new(params),
    });
    let mut h = harness(p);
    h.get_by_label("export .png + .r32").click();
    h.run();
    let r32 = std::fs::read(dir.join("terrain_heightmap.r32")).unwrap();
    assert_eq!(r32.len(), 33 * 33 * 4);
    assert!(dir.join("terrain_heightmap.png").exists());
    assert!(h.state().state.message.as_ref().is_some_and(|m| !m.error));
}

#[test]
fn the_readout_shows_the_raw_range_and_the_processed_one_beside_it() {
    let mut p = panel(TerrainPreset::default(), folder("readout"));
    p.stats.raw_heights.max = 1.37;
    let mut h = harness(p);
    h.get_by_label_contains("noise range 0.00 to 1.37");
    assert!(h.query_by_label_contains("after post-processing").is_none(), "nothing post-processes");
    h.state_mut().params.post.stretch = true;
    h.run();
    h.get_by_label_contains("after post-processing");
}

#[test]
fn the_erosion_filter_section_turns_gullies_on_and_sets_their_depth_and_branching() {
    let mut h = harness(panel(TerrainPreset::default(), folder("filter")));
    assert!(!h.state().params.noise.erosion_filter.enabled, "off by default");
    h.get_by_label("Erosion filter").click();
    h.run();
    h.get_by_label("cut gullies").click();
    h.run();
    assert!(h.state().params.noise.erosion_filter.enabled);
    let slider = |h: &Harness<'static, Panel>, label: &str| {
        h.get(By::new().role(egui::accesskit::Role::Slider).label_contains(label)).rect()
    };
    let rail = slider(&h, "gully depth");
    drag_to(&mut h, rail.right_center() - egui::vec2(2.0, 0.0));
    assert_eq!(h.state().params.noise.erosion_filter.strength, 4.0, "dragged to the right end");
    let rail = slider(&h, "branching");
    drag_to(&mut h, rail.left_center() + egui::vec2(2.0, 0.0));
    assert_eq!(h.state().params.noise.erosion_filter.bend, 0.0, "dragged to the left end");
    let rail = slider(&h, "gully octaves");
    drag_to(&mut h, rail.left_center() + egui::vec2(2.0, 0.0));
    assert_eq!(h.state().params.noise.erosion_filter.octaves, 1);
    // A field the filter cannot take says so.
    assert!(h.query_by_label_contains("off for this field").is_none());
    h.get_by_label("ridged").click();
    h.run();
    assert!(h.query_by_label_contains("off for this field").is_some());
}

#[test]
fn the_rivers_section_turns_stream_power_on_and_sets_its_rates_border_and_water() {
    let mut h = harness(panel(TerrainPreset::default(), folder("rivers")));
    assert_eq!(h.state().params.erosion.stream_power.steps, 0, "off by default");
    h.get_by_label("Rivers (stream power)").click();
    h.run();
    let slider = |h: &Harness<'static, Panel>, label: &str| {
        h.get(By::new().role(egui::accesskit::Role::Slider).label_contains(label)).rect()
    };
    let rail = slider(&h, "time steps");
    drag_to(&mut h, rail.right_center() - egui::vec2(2.0, 0.0));
    assert_eq!(h.state().params.erosion.stream_power.steps, 1000, "dragged to the right end");
    let rail = slider(&h, "erodibility");
    drag_to(&mut h, rail.left_center() + egui::vec2(2.0, 0.0));
    assert_eq!(h.state().params.erosion.stream_power.erodibility, 0.001, "dragged to the left end");
    let rail = slider(&h, "slope exponent");
    drag_to(&mut h, rail.right_center() - egui::vec2(2.0, 0.0));
    assert_eq!(h.state().params.erosion.stream_power.slope_exponent, 4.0);
    h.get_by_label("closed border (drain to the sea only)").click();
    h.run();
    assert_eq!(h.state().params.erosion.stream_power.border, bevy_noise_terrain::core::Border::Closed);
    h.get_by_label("rivers as water").click();
    h.run();
    assert!(h.state().params.river_water);
    // The endless layout says it runs no stream power.
    assert!(h.query_by_label_contains("Stream power needs the whole map").is_none());
    h.get_by_label("endless").click();
    h.run();
    assert!(h.query_by_label_contains("Stream power needs the whole map").is_some());
}

#[test]
fn ramp_stops_and_colour_layers_are_added_moved_and_removed() {
    let mut h = harness(panel(TerrainPreset::default(), folder("ramp")));
    h.get_by_label("Colour ramp").click();
    h.run();
    let stops = h.state().params.ramp.stops.len();
    h.get_by_label("add stop").click();
    h.run();
    let ramp = &h.state().params.ramp;
    assert_eq!(ramp.stops.len(), stops + 1);
    // The new stop takes the colour the ramp had there: the terrain looks the same.
    let added = *ramp.stops.last().unwrap();
    assert_eq!(added.color, TerrainPreset::default().ramp.color_at(added.position));
    // Dragging a stop's slider to the left end moves it to 0.
    let rail = h.get(By::new().role(egui::accesskit::Role::Slider).label_contains("stop 3")).rect();
    drag_to(&mut h, rail.left_center() + egui::vec2(1.0, 0.0));
    assert_eq!(h.state().params.ramp.stops[2].position, 0.0);
    h.get_all_by_label("remove stop").next().unwrap().click();
    h.run();
    assert_eq!(h.state().params.ramp.stops.len(), stops);
    // The rules below the ramp's section: closed again to make room.
    h.get_by_label("Colour ramp").click();
    h.run();
    h.get_by_label("Colour rules").click();
    h.run();
    let layers = h.state().params.colors.layers.len();
    h.get_by_label("add layer").click();
    h.run();
    assert_eq!(h.state().params.colors.layers.len(), layers + 1);
    assert!(h.query_by_label(&format!("layer {}", layers + 1)).is_some(), "a new layer is numbered");
    h.get_all_by_label("remove layer").next().unwrap().click();
    h.run();
    let left = &h.state().params.colors.layers;
    assert_eq!(left.len(), layers);
    assert_ne!(
        left[0].color,
        bevy_noise_terrain::core::ColorRules::landscape().layers[0].color,
        "the first went"
    );
}

#[test]
fn the_terrain_chooser_shows_with_two_terrains_and_points_the_panel_at_the_one_picked() {
    use bevy::prelude::Entity;
    use bevy_noise_terrain::inspector::terrain_chooser;
    let (world, island) = (Entity::from_raw_u32(1).unwrap(), Entity::from_raw_u32(2).unwrap());
    let choices = vec![(world, "Terrain (default)".to_string()), (island, "island".to_string())];
    let state = InspectorState::new(folder("chooser_a"), folder("chooser_b"));
    let mut h = Harness::builder().with_size(egui::vec2(420.0, 400.0)).build_ui_state(
        move |ui, s: &mut InspectorState| {
            let current = s.target.unwrap_or(world);
            terrain_chooser(ui, s, current, &choices);
        },
        state,
    );
    h.run();
    h.get_by_label_contains("terrain").click();
    h.run();
    h.get_by_label("island").click();
    h.run();
    assert_eq!(h.state().target, Some(island));
    // With one terrain there is nothing to choose.
    let lone = vec![(world, "Terrain (default)".to_string())];
    let mut one = Harness::builder().build_ui_state(
        move |ui, s: &mut InspectorState| terrain_chooser(ui, s, world, &lone),
        InspectorState::new(folder("chooser_c"), folder("chooser_d")),
    );
    one.run();
    assert!(one.query_by_label_contains("terrain").is_none());
}

#[test]
fn the_scatter_section_switches_the_sea_adds_layers_and_sets_their_limits() {
    let mut h = harness(panel(TerrainPreset::default(), folder("scatter")));
    h.get_by_label("Scatter and sea").click();
    h.run();
    assert!(!h.state().params.sea && h.state().params.scatter.is_empty(), "off by default");
    h.get_by_label("sea at the water level").click();
    h.run();
    assert!(h.state().params.sea);
    h.get_by_label("trees, rocks, reeds").click();
    h.run();
    assert_eq!(h.state().params.scatter, bevy_noise_terrain::core::ScatterLayer::landscape());
    h.get_by_label("no scatter").click();
    h.run();
    h.get_by_label("add scatter layer").click();
    h.run();
    assert_eq!(h.state().params.scatter.len(), 1);
    h.get_by_label("rock").click();
    h.run();
    assert_eq!(h.state().params.scatter[0].shape, bevy_noise_terrain::core::ScatterShape::Rock);
    let slider = |h: &Harness<'static, Panel>, label: &str| {
        h.get(By::new().role(egui::accesskit::Role::Slider).label_contains(label)).rect()
    };
    let rail = slider(&h, "to slope");
    drag_to(&mut h, rail.left_center() + egui::vec2(1.0, 0.0));
    assert_eq!(h.state().params.scatter[0].rule.slopes[1], 0.0, "dragged to the left end");
    let rail = slider(&h, "spacing");
    drag_to(&mut h, rail.right_center() - egui::vec2(1.0, 0.0));
    assert_eq!(h.state().params.scatter[0].rule.spacing, 50.0, "dragged to the right end");
    h.get_by_label("layer 1").click();
    h.run();
    assert!(!h.state().params.scatter[0].rule.enabled, "its switch");
    h.get_by_label("remove scatter layer").click();
    h.run();
    assert!(h.state().params.scatter.is_empty());
}

#[test]
fn values_past_what_the_sliders_offer_are_shown_and_kept() {
    // Every value here is within the core's range but past the end of its slider (which offers
    // where a person tunes it): a preset or game code may set them, and showing the panel must
    // not clamp them.
    let mut p = TerrainPreset {
        layout: bevy_noise_terrain::TerrainLayout::Endless {
            chunk_size: 1000.0,
            chunk_vertices: 65,
            view_distance: 20_000.0,
            lod_levels: 12,
        },
        height_scale: 500.0,
        scatter: bevy_noise_terrain::core::ScatterLayer::landscape(),
        ..default()
    };
    p.noise.lacunarity = 6.0;
    p.noise.frequency = 100.0;
    p.noise.warp.amplitude = 10.0;
    p.post.terraces = 40;
    p.post.power = 8.0;
    let e = &mut p.erosion;
    (e.hydraulic.droplets, e.hydraulic.lifetime, e.hydraulic.radius) = (5_000_000, 500, 20.0);
    (e.thermal.iterations, e.stream_power.steps) = (2000, 3000);
    p.colors.layers[0].heights[1] = 3.0;
    p.scatter[0].view_distance = 6000.0;
    let before = p.clone();
    assert_eq!(before.clamped(), before, "every value is within the core's ranges");
    let mut h = harness(panel(p, folder("past_sliders")));
    for section in [
        "Warp",
        "Post-processing",
        "Erosion filter",
        "Rivers (stream power)",
        "Erosion",
        "Colour ramp",
        "Colour rules",
        "Scatter and sea",
    ] {
        h.get_by_label(section).click();
        h.run();
    }
    for slider in ["terraces", "droplets", "lifetime", "thermal iterations", "time steps", "levels of detail"]
    {
        assert!(
            h.query(By::new().role(egui::accesskit::Role::Slider).label_contains(slider)).is_some(),
            "{slider} shown"
        );
    }
    assert_eq!(h.state().params, before, "showing the panel changed parameters past its sliders' ends");
}
