//! Which pieces of terrain should exist: the patch, or the chunks around the foci.

use bevy::prelude::*;
use noise_terrain_core::advanced::{ChunkSelector, Stitch};

use crate::build::{PieceKey, PieceSpec};
use crate::params::TerrainPreset;

/// Marks an entity around which the endless layout streams chunks: the finest chunks are
/// nearest to it. The [`TerrainCamera`](crate::camera::TerrainCamera) has one; put one on a
/// game's player. With several foci every one gets detail around it; with none, the terrain
/// entity's origin is the focus. The patch layout ignores foci.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Component, Default)]
#[require(Transform)]
pub struct TerrainFocus {
    /// A world point to use instead of the entity's position (the terrain camera puts the point
    /// it orbits here, not the camera high above it).
    pub point: Option<Vec3>,
}

/// A piece the layout wants, with its distance to the nearest focus and the square it covers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DesiredPiece {
    /// The piece and its stitching.
    pub spec: PieceSpec,
    /// Distance from the nearest focus to the piece's square, world units.
    pub distance: f64,
    /// `[min x, min z, max x, max z]` in the terrain entity's space.
    pub bounds: [f64; 4],
}

/// The pieces `params` (validated) wants around `foci` (`(x, z)` in the terrain entity's
/// space), nearest first.
pub fn desired_pieces(params: &TerrainPreset, foci: &[[f64; 2]]) -> Vec<DesiredPiece> {
    let mut pieces = Vec::new();
    fill_desired_pieces(params, foci, &mut ChunkSelector::default(), &mut pieces);
    pieces
}

/// [`desired_pieces`] into `pieces` (replacing what it held), with a kept `selector`: the memory
/// of both is reused from frame to frame.
pub fn fill_desired_pieces(
    params: &TerrainPreset,
    foci: &[[f64; 2]],
    selector: &mut ChunkSelector,
    pieces: &mut Vec<DesiredPiece>,
) {
    pieces.clear();
    let Some(lod) = params.layout.lod_settings() else {
        let spec = PieceSpec { key: PieceKey::Patch, stitch: Stitch::NONE };
        pieces.push(DesiredPiece { spec, distance: 0.0, bounds: spec.key.geometry(params).bounds() });
        return;
    };
    pieces.extend(selector.select(foci, &lod).iter().map(|chunk| {
        let spec = PieceSpec { key: PieceKey::Chunk(chunk.key), stitch: chunk.stitch };
        DesiredPiece { spec, distance: chunk.distance, bounds: spec.key.geometry(params).bounds() }
    }));
}

/// Whether two squares `[min x, min z, max x, max z]` share more than an edge.
pub fn overlaps(a: [f64; 4], b: [f64; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::TerrainLayout;

    #[test]
    fn the_patch_layout_wants_one_centred_patch() {
        let params = TerrainPreset::default();
        let pieces = desired_pieces(&params, &[[1e6, 1e6]]);
        assert_eq!(pieces.len(), 1);
        assert_eq!(pieces[0].spec.key, PieceKey::Patch);
        assert_eq!(pieces[0].bounds, [-50.0, -50.0, 50.0, 50.0]);
    }

    #[test]
    fn the_endless_layout_wants_chunks_around_the_focus_that_do_not_overlap() {
        let params = TerrainPreset { layout: TerrainLayout::ENDLESS, ..default() };
        let pieces = desired_pieces(&params, &[[5000.0, -300.0]]);
        assert!(pieces.len() > 20);
        assert!(pieces[0].bounds[0] <= 5000.0 && 5000.0 <= pieces[0].bounds[2]);
        for (i, a) in pieces.iter().enumerate() {
            for b in &pieces[i + 1..] {
                assert!(!overlaps(a.bounds, b.bounds), "{a:?} and {b:?}");
            }
        }
        assert!(overlaps([0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0]));
        assert!(!overlaps([0.0, 0.0, 2.0, 2.0], [2.0, 0.0, 3.0, 2.0]), "an edge is no overlap");
    }
}
