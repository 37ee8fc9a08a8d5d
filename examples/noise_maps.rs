//! Seed 000's demo in 2-D: value noise on the left, gradient noise on the right, driven by the
//! same sliders and the same colour ramp from water through meadow to snow, with each map's value
//! range above it and the grey octave tiles of the gradient noise below.
//!
//! ```text
//! cargo run --example noise_maps
//! ```
//!
//! It starts with the linear fade on purpose, so the lattice shows; the quintic chip makes it
//! vanish. Drag a map to pan through the infinite field. Turn the N chip off to see heights above
//! 1 painted orange (try 4 octaves at frequency 11).

#[path = "support/mod.rs"]
mod support;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};
use bevy_noise_terrain::core::{Basis, ColorRamp, Fade, Heightmap, NoiseSettings};
use bevy_noise_terrain::inspector::octave_tile;

/// Pixels per side of each map.
const MAP_SIZE: u32 = 440;
/// Pixels per side of each octave tile.
const TILE: u32 = 84;
/// The ramp position of the shoreline.
const WATER_LEVEL: f32 = 0.45;

/// The demo's settings and the textures made from them.
#[derive(Resource)]
struct Demo {
    settings: NoiseSettings,
    shown: Option<NoiseSettings>,
    maps: Vec<(egui::TextureHandle, f32, f32)>,
    tiles: Vec<egui::TextureHandle>,
}

fn main() -> AppExit {
    let settings = NoiseSettings { fade: Fade::Linear, octaves: 5, frequency: 4.0, seed: 7, ..default() };
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
        .insert_resource(Demo { settings, shown: None, maps: Vec::new(), tiles: Vec::new() })
        .add_systems(Startup, |mut commands: Commands| {
            commands.spawn(Camera2d);
        })
        .add_systems(EguiPrimaryContextPass, demo_ui)
        .run()
}

/// The coloured map of one basis, and its value range.
fn colored_map(settings: &NoiseSettings, basis: Basis) -> (egui::ColorImage, f32, f32) {
    let settings = NoiseSettings { basis, ..*settings };
    let ramp = ColorRamp::terrain();
    let map = Heightmap::generate(&settings, MAP_SIZE, MAP_SIZE).expect("the map size is valid");
    let rgba: Vec<u8> = map
        .samples()
        .iter()
        .flat_map(|&h| ramp.color_for_height(h, WATER_LEVEL, true).into_iter().chain([255]))
        .collect();
    let stats = map.stats();
    (egui::ColorImage::from_rgba_unmultiplied([MAP_SIZE as usize; 2], &rgba), stats.min, stats.max)
}

fn regenerate(ctx: &egui::Context, demo: &mut Demo) {
    let s = demo.settings;
    demo.maps = [Basis::Value, Basis::Gradient]
        .into_iter()
        .map(|basis| {
            let (image, min, max) = colored_map(&s, basis);
            (ctx.load_texture(basis.name(), image, egui::TextureOptions::NEAREST), min, max)
        })
        .collect();
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
            for ((texture, min, max), name) in demo.maps.iter().zip(["value noise", "gradient noise"]) {
                ui.vertical(|ui| {
                    ui.label(format!("{name}: {min:.2} to {max:.2}"));
                    let image =
                        egui::Image::new((texture.id(), egui::vec2(MAP_SIZE as f32, MAP_SIZE as f32)))
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
    });
    // The map is one unit wide: a drag of one map width moves the view by one unit.
    s.offset -= bevy::math::DVec2::new(pan.x as f64, pan.y as f64) / MAP_SIZE as f64;
    Ok(())
}
