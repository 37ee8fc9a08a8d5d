//! The points each piece's layers place, kept between its builds: a chunk is built again and
//! again with the same points (stitched anew when a neighbour changes level, given or relieved of
//! entities as the focus comes and goes), and finding them costs a field sample with gradients
//! per candidate, far more than standing them on the new mesh. A chunk new to the cache starts
//! from what its kept children or parent placed ([`Kept`]): a chunk's points are a subset of its
//! children's, and its parent's are a subset of its own.

use std::sync::{Arc, Mutex, PoisonError};

use bevy::platform::collections::HashMap;
use noise_terrain_core::{ChunkKey, ScatterPoint};

use crate::build::PieceKey;
use crate::params::TerrainPreset;

/// Each layer's points on one piece.
pub(crate) type PiecePoints = Arc<[Vec<ScatterPoint>]>;

/// Parameter sets kept at once (terrains of other parameters, and the one before a change).
const PARAMETER_SETS: usize = 4;

/// Pieces kept per parameter set; the set is emptied when it is full.
const PIECES: usize = 4096;

/// The points of pieces built with one parameter set, by piece.
type ParameterSet = (TerrainPreset, HashMap<PieceKey, PiecePoints>);

/// The points of recently built chunks, by their (validated) parameters and key; shared by the
/// scatter hooks' builds.
#[derive(Clone, Default)]
pub(crate) struct PointCache(Arc<Mutex<Vec<ParameterSet>>>);

impl PointCache {
    /// The points of piece `key` with `params`: kept ones, or `make`'s, given what is kept of
    /// the chunk's children or parent (made without the lock held, then kept).
    pub(crate) fn points(
        &self,
        key: PieceKey,
        params: &TerrainPreset,
        make: impl FnOnce(Kept) -> Vec<Vec<ScatterPoint>>,
    ) -> PiecePoints {
        let kept =
            match self.0.lock().unwrap_or_else(PoisonError::into_inner).iter().find(|(p, _)| p == params) {
                Some((_, pieces)) => match pieces.get(&key) {
                    Some(points) => return points.clone(),
                    None => Kept::of(key, pieces),
                },
                None => Kept::Nothing,
            };
        self.keep(key, params, make(kept))
    }

    /// Keeps `points` as piece `key`'s with `params`.
    fn keep(&self, key: PieceKey, params: &TerrainPreset, points: Vec<Vec<ScatterPoint>>) -> PiecePoints {
        let points: PiecePoints = points.into();
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

/// What the cache keeps of a chunk's neighbours in level of detail, for a chunk it does not keep.
#[derive(Debug)]
pub(crate) enum Kept {
    /// The points of its four children, in [`ChunkKey::children`]' order.
    Children(ChunkKey, [PiecePoints; 4]),
    /// The points of its parent.
    Parent(ChunkKey, PiecePoints),
    /// Neither (or not a chunk).
    Nothing,
}

impl Kept {
    /// Children first (they hold every point the chunk places), else the parent.
    fn of(key: PieceKey, pieces: &HashMap<PieceKey, PiecePoints>) -> Self {
        let PieceKey::Chunk(chunk) = key else { return Self::Nothing };
        let children: Vec<PiecePoints> =
            chunk.children().map_while(|child| pieces.get(&PieceKey::Chunk(child)).cloned()).collect();
        if let Ok(children) = <[PiecePoints; 4]>::try_from(children) {
            return Self::Children(chunk, children);
        }
        let parent = chunk.parent();
        pieces
            .get(&PieceKey::Chunk(parent))
            .map_or(Self::Nothing, |points| Self::Parent(parent, points.clone()))
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
        let (a, b) = (TerrainPreset::default(), TerrainPreset { height_scale: 7.0, ..Default::default() });
        let made = std::cell::Cell::new(0);
        let get = |key, params: &TerrainPreset| {
            cache.points(key, params, |_| {
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
            get(PieceKey::Patch, &TerrainPreset { height_scale: 10.0 + scale as f32, ..Default::default() });
        }
        get(PieceKey::Patch, &a);
        assert_eq!(made.get(), 2 + PARAMETER_SETS + 1);
    }
}
