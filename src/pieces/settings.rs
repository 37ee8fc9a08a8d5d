//! Settings in: terrains spawned without settings become default terrains, which follow the
//! [`TerrainParams`] resource; a terrain with [`TerrainSettings`] follows its own component. Each
//! terrain's parameters live in one place: the resource for default terrains, the component for
//! the others; nothing is copied between them.

use std::sync::Arc;

use bevy::prelude::*;
use noise_terrain_core::RiverNetwork;

use crate::params::{TerrainLayout, TerrainParams};
use crate::pieces::components::{DefaultTerrain, Terrain, TerrainSettings, TerrainStatus, TerrainValidation};
use crate::pieces::jobs::{CurrentParams, TerrainJobs};

/// Makes every [`Terrain`] spawned without [`TerrainSettings`] a [`DefaultTerrain`] (an
/// observer: the terrain is one before any system sees it).
pub(crate) fn adopt_default_terrain(
    added: On<Add, Terrain>,
    has_settings: Query<Has<TerrainSettings>>,
    mut commands: Commands,
) {
    if !has_settings.get(added.entity).unwrap_or(true) {
        commands.entity(added.entity).insert(DefaultTerrain);
    }
}

/// What [`take_in_settings`] reads and changes on each terrain.
type SettingsParts = (
    Option<Ref<'static, TerrainSettings>>,
    Has<DefaultTerrain>,
    &'static mut TerrainJobs,
    &'static mut TerrainStatus,
);

/// Takes in settings: a default terrain's from the resource when the resource changed (or the
/// terrain is new), any other terrain's from its [`TerrainSettings`] when they changed (a terrain
/// with settings follows them even if it is also marked default). Changed settings are validated
/// (what was clamped is logged and kept in the terrain's [`TerrainStatus`]) and become current: a
/// new parameter generation when they differ from the current ones. A new layout retires every
/// piece. Writing the resource every frame costs a validation and a comparison a frame and
/// changes nothing while the parameters stay equal.
pub(crate) fn take_in_settings(params: Res<TerrainParams>, mut terrains: Query<SettingsParts>) {
    for (settings, default, mut jobs, mut status) in &mut terrains {
        let new = jobs.current.is_none();
        let taken = match &settings {
            Some(settings) => (settings.is_changed() || new).then_some(&settings.0),
            None if default => (params.is_changed() || new).then_some(&params.0),
            None => None,
        };
        let Some(taken) = taken else { continue };
        let (used, clamped) = taken.validated();
        for c in &clamped {
            warn!("terrain: {c}");
        }
        if status.validation.0 != clamped {
            status.validation = TerrainValidation(clamped);
        }
        let jobs = &mut *jobs;
        let generation = match &jobs.current {
            Some(current) if *current.params == used => continue,
            Some(current) => {
                if current.params.layout != used.layout {
                    // Other chunk sizes or another layout: every piece is replaced by new ones.
                    jobs.retire
                        .extend(std::mem::take(&mut jobs.index).into_values().map(|entry| entry.entity));
                }
                current.generation + 1
            }
            None => 1,
        };
        let rivers = used.has_endless_rivers().then(|| {
            let network = RiverNetwork::new(used.river_world());
            let view = match used.layout {
                TerrainLayout::Endless { view_distance, .. } => view_distance,
                TerrainLayout::Patch => 0.0,
            };
            // What one focus sees, twice: room for a second focus, or for the regions behind a
            // moving one.
            let capacity = 2 * network.regions_in_view(view);
            let network = network.with_capacity(capacity);
            // The kept regions stay good while the rivers' inputs do (a colour changed, say).
            match jobs.current.as_ref().and_then(|c| c.rivers.clone()) {
                Some(kept) if kept.world() == network.world() && kept.capacity() == network.capacity() => {
                    kept
                }
                _ => Arc::new(network),
            }
        });
        let used = Arc::new(used);
        status.params = Some(used.clone());
        jobs.current = Some(CurrentParams { params: used, generation, rivers });
        jobs.swap_due = true;
        jobs.stats_due = true;
        jobs.attention_all = true;
    }
}
