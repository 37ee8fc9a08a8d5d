//! Settings in: default terrains follow the [`TerrainParams`] resource, and each terrain's
//! changed [`TerrainSettings`] are validated and become its current parameters. Status out: the
//! default terrain's figures and validation are mirrored into the resources.

use std::sync::Arc;

use bevy::prelude::*;

use crate::params::TerrainParams;
use crate::pieces::components::{
    DefaultTerrain, Terrain, TerrainSettings, TerrainStats, TerrainStatus, TerrainValidation,
};
use crate::pieces::jobs::{CurrentParams, TerrainJobs};

/// Makes every [`Terrain`] spawned without [`TerrainSettings`] a [`DefaultTerrain`] with the
/// resource's parameters.
pub(crate) fn adopt_default_terrains(
    mut commands: Commands,
    added: Query<Entity, (Added<Terrain>, Without<TerrainSettings>)>,
    params: Res<TerrainParams>,
) {
    for terrain in &added {
        commands.entity(terrain).insert((DefaultTerrain, TerrainSettings(params.clone())));
    }
}

/// Keeps the default terrains' settings equal to the resource: a change of the resource reaches
/// them, and a change of one of their settings (by game code) reaches the resource, and through
/// it the others. The resource wins when both changed.
pub(crate) fn sync_default_settings(
    mut params: ResMut<TerrainParams>,
    mut terrains: Query<&mut TerrainSettings, With<DefaultTerrain>>,
) {
    if !params.is_changed()
        && let Some(changed) = terrains.iter_mut().find(|s| s.is_changed() && s.0 != *params)
    {
        *params = changed.0.clone();
    }
    for mut settings in &mut terrains {
        if settings.0 != *params {
            settings.0 = params.clone();
        }
    }
}

/// Validates each terrain's changed settings (logging what was clamped) and makes them current:
/// a new parameter generation when they differ from the current ones. A new layout retires every
/// piece.
pub(crate) fn take_in_settings(
    mut terrains: Query<(&TerrainSettings, &mut TerrainJobs, &mut TerrainStatus), Changed<TerrainSettings>>,
) {
    for (settings, mut jobs, mut status) in &mut terrains {
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
                    jobs.retire.extend(std::mem::take(&mut jobs.index).into_values());
                }
                current.generation + 1
            }
            None => 1,
        };
        jobs.current = Some(CurrentParams { params: Arc::new(used), generation });
    }
}

/// Shows the first default terrain's status in the [`TerrainStats`] and [`TerrainValidation`]
/// resources.
pub(crate) fn mirror_default_status(
    terrains: Query<&TerrainStatus, (With<DefaultTerrain>, Changed<TerrainStatus>)>,
    mut stats: ResMut<TerrainStats>,
    mut validation: ResMut<TerrainValidation>,
) {
    if let Some(status) = terrains.iter().next() {
        stats.set_if_neq(status.stats.clone());
        validation.set_if_neq(status.validation.clone());
    }
}
