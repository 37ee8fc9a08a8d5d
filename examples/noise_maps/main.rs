//! Value against gradient noise in 2-D: value noise on the left, gradient noise on the right, driven by the
//! same sliders and the same colour ramp from water through meadow to snow, with each map's value
//! range (and snow cover) above it and the grey octave tiles of the gradient noise below; under
//! them, 1-D value noise with linear and cosine interpolation side by side.
//!
//! ```text
//! cargo run --example noise_maps
//! ```
//!
//! It starts with the linear fade on purpose, so the lattice shows; the quintic chip makes it
//! vanish. Drag a map to pan through the infinite field. Turn the N chip off to see heights above
//! 1 painted orange (try 4 octaves at frequency 11). The 1-D panel has its own octaves and period
//! (`noise(t) = f(t mod n)`: the profile repeats every n cells).

#[path = "../support/mod.rs"]
mod support;

mod demo;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};
use bevy_noise_terrain::core::{Basis, Fade, NoiseSettings};
use bevy_noise_terrain::inspector::octave_tile;
use demo::{MAP_SIZE, PROFILE_CELLS, PROFILE_SAMPLES_PER_CELL, WATER_LEVEL};

/// Pixels per side of each octave tile.
const TILE: u32 = 84;

/// The 1-D panel's own controls.
#[derive(Clone, Copy, PartialEq)]
struct Profile {
    octaves: u32,
    period: Option<u32>,
}

/// A coloured map's texture, its value range and its snow cover.
struct MapView {
    texture: egui::TextureHandle,
    min: f32,
    max: f32,
    snow: f32,
}

/// The demo's settings and the textures made from them.
#[derive(Resource)]
struct Demo {
    settings: NoiseSettings,
    shown: Option<NoiseSettings>,
    maps: Vec<MapView>,
    tiles: Vec<egui::TextureHandle>,
    profile: Profile,
}

fn main() -> AppExit {
    let settings = demo::start_settings();
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "noise maps: value vs gradient".into(),
                resolution: (1280, 800).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins(EguiPlugin::default())
        .add_plugins(support::ScreenshotPlugin { ready: |world| !world.resource::<Demo>().maps.is_empty() })
        .insert_resource(Demo {
            settings,
            shown: None,
            maps: Vec::new(),
            tiles: Vec::new(),
            profile: Profile { octaves: 1, period: None },
        })
        .add_systems(Startup, |mut commands: Commands| {
            commands.spawn(Camera2d);
        })
        .add_systems(EguiPrimaryContextPass, demo_ui)
        .run()
}

/// The coloured map of one basis, its value range and its snow cover.
fn colored_map(ctx: &egui::Context, settings: &NoiseSettings, basis: Basis) -> MapView {
    let map = demo::map(settings, basis);
    let rgba = demo::ramp().paint_heights(&map, WATER_LEVEL, true);
    let image = egui::ColorImage::from_rgba_unmultiplied([MAP_SIZE as usize; 2], &rgba);
    let stats = map.stats();
    MapView {
        texture: ctx.load_texture(basis.name(), image, egui::TextureOptions::NEAREST),
        min: stats.min,
        max: stats.max,
        snow: demo::snow_share(&map),
    }
}

fn regenerate(ctx: &egui::Context, demo: &mut Demo) {
    let s = demo.settings;
    demo.maps =
        [Basis::Value, Basis::Gradient].into_iter().map(|basis| colored_map(ctx, &s, basis)).collect();
    let gradient = NoiseSettings { basis: Basis::Gradient, ..s };
    demo.tiles = (0..gradient.octave_count())
        .map(|i| {
            ctx.load_texture(
                format!("tile{i}"),
                octave_tile(&gradient, i, TILE),
                egui::TextureOptions::NEAREST,
            )
        })
        .collect();
    demo.shown = Some(s);
}

fn demo_ui(mut contexts: EguiContexts, mut demo: ResMut<Demo>) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let demo = &mut *demo;
    if demo.shown != Some(demo.settings) {
        regenerate(&ctx, demo);
    }
    let mut root = egui::Ui::new(
        ctx.clone(),
        "noise_maps_root".into(),
        egui::UiBuilder::new().layer_id(egui::LayerId::background()).max_rect(ctx.viewport_rect()),
    );
    let s = &mut demo.settings;
    egui::Panel::left("sliders").default_size(280.0).show(&mut root, |ui| {
        ui.heading("Noise maps");
        ui.add(egui::Slider::new(&mut s.octaves, 1..=8).text("octaves"));
        ui.add(egui::Slider::new(&mut s.lacunarity, 1.0..=4.0).text("lacunarity"));
        ui.add(egui::Slider::new(&mut s.persistence, 0.0..=1.0).text("persistence"));
        ui.add(egui::Slider::new(&mut s.frequency, 1.0..=32.0).text("base frequency").logarithmic(true));
        ui.add(egui::Slider::new(&mut s.seed, 0..=1000).text("seed"));
        ui.horizontal(|ui| {
            for (chip, fade) in Fade::ALL.into_iter().enumerate() {
                ui.selectable_value(&mut s.fade, fade, format!("{} {}", chip, fade.name()));
            }
        });
        ui.toggle_value(&mut s.normalize, "N  normalise").on_hover_text("off: heights above 1 turn orange");
        ui.label("Drag a map to pan.");
    });
    let mut pan = egui::Vec2::ZERO;
    egui::CentralPanel::default().show(&mut root, |ui| {
        ui.horizontal(|ui| {
            for (map, name) in demo.maps.iter().zip(["value noise", "gradient noise"]) {
                ui.vertical(|ui| {
                    let snow = map.snow * 100.0;
                    ui.label(format!("{name}: {:.2} to {:.2}, snow {snow:.1}%", map.min, map.max));
                    let image =
                        egui::Image::new((map.texture.id(), egui::vec2(MAP_SIZE as f32, MAP_SIZE as f32)))
                            .sense(egui::Sense::drag());
                    pan += ui.add(image).drag_delta();
                });
            }
        });
        ui.label("octaves of the gradient noise");
        ui.horizontal_wrapped(|ui| {
            for (i, texture) in demo.tiles.iter().enumerate() {
                ui.vertical(|ui| {
                    ui.image((texture.id(), egui::vec2(TILE as f32, TILE as f32)));
                    let i = i as u32;
                    ui.small(format!("f {:.1}  a {:.3}", s.octave_frequency(i), s.octave_amplitude(i)));
                });
            }
        });
        profile_panel(ui, &mut demo.profile, s.seed);
    });
    // The map is one unit wide: a drag of one map width moves the view by one unit.
    s.offset -= bevy::math::DVec2::new(pan.x as f64, pan.y as f64) / MAP_SIZE as f64;
    Ok(())
}

/// 1-D value noise with linear and with cosine interpolation, side by side.
fn profile_panel(ui: &mut egui::Ui, profile: &mut Profile, seed: u32) {
    ui.separator();
    ui.horizontal(|ui| {
        ui.label("1-D value noise");
        ui.add(egui::Slider::new(&mut profile.octaves, 1..=8).text("octaves"));
        let mut periodic = profile.period.is_some();
        ui.checkbox(&mut periodic, "f(t mod n), n =");
        let mut n = profile.period.unwrap_or(4);
        ui.add_enabled(periodic, egui::DragValue::new(&mut n).range(1..=PROFILE_CELLS));
        profile.period = periodic.then_some(n);
    });
    ui.horizontal(|ui| {
        for (fade, name) in [(Fade::Linear, "linear"), (Fade::Cosine, "cosine")] {
            ui.vertical(|ui| {
                ui.small(name);
                plot(ui, &demo::profile(seed, fade, profile.octaves, profile.period), profile.period);
            });
        }
    });
}

/// Draws a profile of values in `[0, 1]` with the lattice points marked, and the period's
/// boundaries when it repeats.
fn plot(ui: &mut egui::Ui, values: &[f32], period: Option<u32>) {
    let (response, painter) = ui.allocate_painter(egui::vec2(MAP_SIZE as f32, 110.0), egui::Sense::hover());
    let r = response.rect;
    painter.rect_filled(r, 2.0, egui::Color32::from_gray(24));
    let x_of = |k: f32| r.left() + k / values.len() as f32 * r.width();
    let y_of = |v: f32| r.bottom() - v.clamp(0.0, 1.0) * r.height();
    for cell in 0..=PROFILE_CELLS {
        let x = x_of((cell * PROFILE_SAMPLES_PER_CELL) as f32);
        let boundary = period.is_some_and(|n| cell % n == 0);
        let colour =
            if boundary { egui::Color32::from_rgb(200, 120, 40) } else { egui::Color32::from_gray(50) };
        painter.line_segment([egui::pos2(x, r.top()), egui::pos2(x, r.bottom())], (1.0, colour));
    }
    let points: Vec<egui::Pos2> =
        values.iter().enumerate().map(|(k, &v)| egui::pos2(x_of(k as f32), y_of(v))).collect();
    painter.add(egui::Shape::line(points, (1.5, egui::Color32::from_rgb(120, 200, 120))));
}
