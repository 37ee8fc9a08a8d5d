//! The panel's "Scatter and sea" section: the sea switch, and every scatter layer's switch,
//! look, density, spacing, height and slope limits and view distance; layers added and removed.

use bevy_egui::egui;
use noise_terrain_core::limits::{
    MAX_SCATTER_LAYERS, SCATTER_DENSITY_RANGE, SCATTER_HEIGHT_RANGE, SCATTER_SPACING_RANGE,
    SCATTER_VIEW_DISTANCE_RANGE, SLOPE_DEGREES_RANGE,
};
use noise_terrain_core::{ScatterLayer, ScatterShape};

use super::sliders::{offered, slider};
use crate::params::TerrainPreset;

/// Draws the section.
pub(super) fn scatter_section(ui: &mut egui::Ui, p: &mut TerrainPreset) {
    egui::CollapsingHeader::new("Scatter and sea").show(ui, |ui| {
        ui.checkbox(&mut p.sea, "sea at the water level");
        ui.label("Things on the ground by height (0 shore, 1 top) and slope (degrees).");
        ui.horizontal(|ui| {
            if ui.button("trees, rocks, reeds").clicked() {
                p.scatter = ScatterLayer::landscape();
            }
            if ui.button("no scatter").clicked() {
                p.scatter.clear();
            }
            if p.scatter.len() < MAX_SCATTER_LAYERS && ui.button("add scatter layer").clicked() {
                let seed = p.scatter.len() as u32 + 1;
                let mut layer = ScatterLayer { name: format!("layer {seed}"), ..ScatterLayer::default() };
                layer.rule.seed = seed;
                p.scatter.push(layer);
            }
        });
        let mut remove = None;
        for (i, layer) in p.scatter.iter_mut().enumerate() {
            ui.push_id(("scatter", i), |ui| {
                ui.horizontal(|ui| {
                    ui.checkbox(&mut layer.rule.enabled, layer.name.clone());
                    if ui.button("remove scatter layer").clicked() {
                        remove = Some(i);
                    }
                });
                ui.horizontal_wrapped(|ui| {
                    for shape in ScatterShape::ALL {
                        ui.selectable_value(&mut layer.shape, shape, shape.name());
                    }
                });
                let r = &mut layer.rule;
                let density = offered(SCATTER_DENSITY_RANGE, 1e-6..=1.0);
                ui.add(slider(&mut r.density, density, "density per unit²").logarithmic(true));
                ui.add(slider(&mut r.spacing, offered(SCATTER_SPACING_RANGE, 0.0..=50.0), "spacing"));
                ui.add(slider(&mut r.heights[0], offered(SCATTER_HEIGHT_RANGE, 0.0..=1.2), "from height"));
                ui.add(slider(&mut r.heights[1], offered(SCATTER_HEIGHT_RANGE, 0.0..=1.2), "to height"));
                ui.add(slider(&mut r.slopes[0], offered(SLOPE_DEGREES_RANGE, 0.0..=90.0), "from slope"));
                ui.add(slider(&mut r.slopes[1], offered(SLOPE_DEGREES_RANGE, 0.0..=90.0), "to slope"));
                ui.add(slider(
                    &mut layer.view_distance,
                    offered(SCATTER_VIEW_DISTANCE_RANGE, 0.0..=4000.0),
                    "view distance",
                ));
                ui.checkbox(&mut layer.align_to_ground, "tilt to the ground");
                ui.separator();
            });
        }
        if let Some(i) = remove {
            p.scatter.remove(i);
        }
    });
}
