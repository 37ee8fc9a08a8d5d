//! Settings in: terrains spawned without settings become default terrains, which follow the
//! [`TerrainParams`] resource; each terrain's changed [`TerrainSettings`] are validated and
//! become its current parameters.

use std::sync::Arc;

use bevy::prelude::*;

use crate::params::TerrainParams;
use crate::pieces::components::{DefaultTerrain, Terrain, TerrainSettings, TerrainStatus, TerrainValidation};
use crate::pieces::jobs::{CurrentParams, TerrainJobs};

/// Makes every [`Terrain`] spawned without [`TerrainSettings`] a [`DefaultTerrain`] with the
/// resource's parameters (an observer: the terrain has them before any system sees it).
pub(crate) fn adopt_default_terrain(
    added: On<Add, Terrain>,
    has_settings: Query<Has<TerrainSettings>>,
    params: Res<TerrainParams>,
    mut commands: Commands,
) {
    if !has_settings.get(added.entity).unwrap_or(true) {
        commands.entity(added.entity).insert((DefaultTerrain, TerrainSettings(params.clone())));
    }
}

/// What [`take_in_settings`] reads and changes on each terrain.
type SettingsParts =
    (&'static mut TerrainSettings, Has<DefaultTerrain>, &'static mut TerrainJobs, &'static mut TerrainStatus);

/// Takes in settings. Default terrains are kept equal to the resource first: a change of the
/// resource reaches them, and a change of one of their settings (by game code) reaches the
/// resource, and through it the others (the resource wins when both changed). Then each
/// terrain's changed settings are validated (what was clamped is logged) and become current: a
/// new parameter generation when they differ from the current ones. A new layout retires every
/// piece.
pub(crate) fn take_in_settings(mut params: ResMut<TerrainParams>, mut terrains: Query<SettingsParts>) {
    if !params.is_changed()
        && let Some((changed, ..)) =
            terrains.iter_mut().find(|(s, default, ..)| *default && s.is_changed() && s.0 != *params)
    {
        *params = changed.0.clone();
    }
    for (mut settings, default, mut jobs, mut status) in &mut terrains {
        if default && settings.0 != *params {
            settings.0 = params.clone();
        }
        if !settings.is_changed() {
            continue;
        }
        let (used, clamped) = settings.validated();
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
        jobs.current = Some(CurrentParams { params: Arc::new(used), generation });
        jobs.swap_due = true;
        jobs.stats_due = true;
        jobs.attention_all = true;
    }
}
