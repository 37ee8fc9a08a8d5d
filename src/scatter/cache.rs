//! The points each piece's layers place, kept between its builds: a chunk is built again and
//! again with the same points (stitched anew when a neighbour changes level, given or relieved of
//! entities as the focus comes and goes), and finding them costs a field sample with gradients
//! per candidate, far more than standing them on the new mesh.

use std::sync::{Arc, Mutex, PoisonError};

use bevy::platform::collections::HashMap;
use noise_terrain_core::ScatterPoint;

use crate::build::PieceKey;
use crate::params::TerrainParams;

/// Each layer's points on one piece.
pub(crate) type PiecePoints = Arc<[Vec<ScatterPoint>]>;

/// Parameter sets kept at once (terrains of other parameters, and the one before a change).
const PARAMETER_SETS: usize = 4;

/// Pieces kept per parameter set; the set is emptied when it is full.
const PIECES: usize = 4096;

/// The points of pieces built with one parameter set, by piece.
type ParameterSet = (TerrainParams, HashMap<PieceKey, PiecePoints>);

/// The points of recently built chunks, by their (validated) parameters and key; shared by the
/// scatter hooks' builds.
#[derive(Clone, Default)]
pub(crate) struct PointCache(Arc<Mutex<Vec<ParameterSet>>>);

impl PointCache {
    /// The points of piece `key` with `params`: kept ones, or `make`'s (made without the lock
    /// held, then kept).
    pub(crate) fn points(
        &self,
        key: PieceKey,
        params: &TerrainParams,
        make: impl FnOnce() -> Vec<Vec<ScatterPoint>>,
    ) -> PiecePoints {
        {
            let sets = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(points) =
                sets.iter().find(|(p, _)| p == params).and_then(|(_, pieces)| pieces.get(&key))
            {
                return points.clone();
            }
        }
        let points: PiecePoints = make().into();
        let mut sets = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let index = match sets.iter().position(|(p, _)| p == params) {
            Some(index) => index,
            None => {
                if sets.len() == PARAMETER_SETS {
                    sets.remove(0);
                }
                sets.push((params.clone(), HashMap::default()));
                sets.len() - 1
            }
        };
        let pieces = &mut sets[index].1;
        if pieces.len() >= PIECES {
            pieces.clear();
        }
        pieces.insert(key, points.clone());
        points
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_made_once_per_piece_and_parameters() {
        let cache = PointCache::default();
        let point = ScatterPoint {
            position: [1.0, 2.0, 3.0],
            normal: [0.0, 1.0, 0.0],
            scale: 1.0,
            rotation: 0.0,
            rank: 0.5,
        };
        let (a, b) = (TerrainParams::default(), TerrainParams { height_scale: 7.0, ..Default::default() });
        let made = std::cell::Cell::new(0);
        let get = |key, params: &TerrainParams| {
            cache.points(key, params, || {
                made.set(made.get() + 1);
                vec![vec![point]]
            })
        };
        get(PieceKey::Patch, &a);
        get(PieceKey::Patch, &a);
        get(PieceKey::Patch, &b);
        let again = get(PieceKey::Patch, &a);
        assert_eq!(made.get(), 2);
        assert_eq!(again[0], vec![point]);
        // Older parameter sets give way to newer ones.
        for scale in 0..PARAMETER_SETS {
            get(PieceKey::Patch, &TerrainParams { height_scale: 10.0 + scale as f32, ..Default::default() });
        }
        get(PieceKey::Patch, &a);
        assert_eq!(made.get(), 2 + PARAMETER_SETS + 1);
    }
}
