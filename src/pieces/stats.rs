//! Each terrain's figures: its pieces on screen summed up into its [`TerrainStats`], and
//! [`TerrainGenerated`] when the whole terrain reaches a newer generation.

use bevy::prelude::*;
use noise_terrain_core::HeightStats;

use crate::pieces::components::{
    DefaultTerrain, PieceHeights, PieceOf, TerrainGenerated, TerrainPiece, TerrainStats, TerrainStatus,
    TerrainValidation,
};
use crate::pieces::jobs::TerrainJobs;

/// What [`update_stats`] reads and changes on each terrain.
type TerrainParts = (Entity, &'static mut TerrainJobs, &'static mut TerrainStatus, Has<DefaultTerrain>);

/// Sums up each terrain's pieces into its [`TerrainStatus`]; shows the status of the default
/// terrain with the lowest entity in the [`TerrainStats`] and [`TerrainValidation`] resources.
pub(crate) fn update_stats(
    mut terrains: Query<TerrainParts>,
    pieces: Query<(&TerrainPiece, &Visibility, Option<&PieceHeights>, &PieceOf)>,
    mut generated: MessageWriter<TerrainGenerated>,
    (mut shown_stats, mut shown_validation): (ResMut<TerrainStats>, ResMut<TerrainValidation>),
) {
    // The terrains whose figures changed, summed in one pass over every piece in memory order
    // (faster than fetching each terrain's pieces one by one).
    let due: Vec<(Entity, u64)> = terrains
        .iter()
        .filter(|(_, jobs, ..)| jobs.stats_due)
        .filter_map(|(terrain, jobs, ..)| Some((terrain, jobs.current.as_ref()?.generation)))
        .collect();
    let mut sums: Vec<PieceSum> = due.iter().map(|_| PieceSum::default()).collect();
    if !due.is_empty() {
        for (piece, visibility, heights, of) in &pieces {
            if let Some(i) = due.iter().position(|&(terrain, _)| terrain == of.0) {
                sums[i].add(piece, *visibility, heights, due[i].1);
            }
        }
    }
    let shown_terrain = terrains.iter().filter(|t| t.3).map(|t| t.0).min();
    for (terrain, mut jobs, mut status, default) in &mut terrains {
        let shown = default && Some(terrain) == shown_terrain;
        if shown && *shown_validation != status.validation {
            *shown_validation = status.validation.clone();
        }
        let Some(i) = due.iter().position(|&(t, _)| t == terrain) else {
            // Nothing but the running erosion moved on: only its progress is read again.
            let progress = jobs
                .building
                .iter()
                .filter_map(|&e| pieces.get(e).ok()?.0.erosion_progress())
                .reduce(f32::min);
            if status.stats.erosion_progress != progress {
                status.stats.erosion_progress = progress;
            }
            if shown && *shown_stats != status.stats {
                *shown_stats = status.stats.clone();
            }
            continue;
        };
        let sum = std::mem::take(&mut sums[i]);
        let old = &status.stats;
        let new = TerrainStats {
            heights: sum.heights.total().unwrap_or(old.heights),
            raw_heights: sum.raw.total().unwrap_or(old.raw_heights),
            overflow_fraction: if sum.heights.samples > 0 {
                (sum.overflow / sum.heights.samples as f64) as f32
            } else {
                0.0
            },
            generation_time: jobs.last_build_time,
            vertex_count: sum.heights.samples,
            triangle_count: sum.triangles,
            pieces_shown: sum.shown,
            pieces_queued: sum.queued,
            pieces_building: jobs.building.len(),
            erosion_progress: sum.erosion_progress,
            generation: sum.complete_generation().max(old.generation),
        };
        if new.generation > old.generation {
            generated.write(TerrainGenerated { terrain, generation: new.generation });
        }
        if shown && *shown_stats != new {
            *shown_stats = new.clone();
        }
        if status.stats != new {
            status.stats = new;
        }
        jobs.stats_due = false;
    }
}

/// The figures of a terrain's pieces, added up.
#[derive(Default)]
struct PieceSum {
    heights: StatsSum,
    raw: StatsSum,
    overflow: f64,
    triangles: usize,
    shown: usize,
    queued: usize,
    /// The oldest generation a wanted piece shows (`None`: no wanted piece yet).
    oldest_wanted: Option<u64>,
    erosion_progress: Option<f32>,
}

impl PieceSum {
    fn add(
        &mut self,
        piece: &TerrainPiece,
        visibility: Visibility,
        heights: Option<&PieceHeights>,
        generation: u64,
    ) {
        if let Some(p) = piece.erosion_progress() {
            self.erosion_progress = Some(self.erosion_progress.map_or(p, |q| q.min(p)));
        }
        if !piece.retiring {
            let shows = piece.shown.as_ref().map_or(0, |s| s.generation);
            self.oldest_wanted = Some(self.oldest_wanted.map_or(shows, |o| o.min(shows)));
            let up_to_date =
                piece.shown.as_ref().is_some_and(|s| s.surface_is(generation, piece.spec.stitch));
            if !piece.is_building() && !piece.is_waiting() && !up_to_date {
                self.queued += 1;
            }
        }
        let Some(h) = heights.filter(|_| visibility != Visibility::Hidden) else { return };
        let n = h.map.samples().len();
        self.heights.add(h.stats, n);
        self.raw.add(h.raw_stats, n);
        self.overflow += f64::from(h.overflow_fraction) * n as f64;
        self.triangles += 2 * (h.map.width().max(1) as usize - 1) * (h.map.height().max(1) as usize - 1);
        self.shown += 1;
    }

    /// The generation every wanted piece shows (0 while one shows none).
    fn complete_generation(&self) -> u64 {
        self.oldest_wanted.unwrap_or(0)
    }
}

/// Height figures of several pieces combined, weighted by their samples.
struct StatsSum {
    min: f32,
    max: f32,
    sum: f64,
    samples: usize,
}

impl Default for StatsSum {
    fn default() -> Self {
        Self { min: f32::INFINITY, max: f32::NEG_INFINITY, sum: 0.0, samples: 0 }
    }
}

impl StatsSum {
    fn add(&mut self, stats: HeightStats, samples: usize) {
        (self.min, self.max) = (self.min.min(stats.min), self.max.max(stats.max));
        self.sum += f64::from(stats.mean) * samples as f64;
        self.samples += samples;
    }

    /// The combined figures; `None` without samples.
    fn total(&self) -> Option<HeightStats> {
        (self.samples > 0).then(|| HeightStats {
            min: self.min,
            max: self.max,
            mean: (self.sum / self.samples as f64) as f32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combined_figures_weigh_each_piece_by_its_samples() {
        let mut sum = StatsSum::default();
        assert_eq!(sum.total(), None);
        sum.add(HeightStats { min: 0.2, max: 0.5, mean: 0.3 }, 100);
        sum.add(HeightStats { min: 0.1, max: 0.9, mean: 0.6 }, 300);
        let total = sum.total().unwrap();
        assert_eq!((total.min, total.max), (0.1, 0.9));
        assert!((total.mean - 0.525).abs() < 1e-6, "{}", total.mean);
    }
}
