//! Which pieces each terrain should have: the layout decides ([`fill_desired_pieces`]); missing
//! pieces are spawned hidden with pooled assets, unwanted ones are marked retiring (they stay on
//! screen until [`swap`](super::swap) replaces them).

use bevy::prelude::*;

use crate::layout::{TerrainFocus, fill_desired_pieces};
use crate::pieces::components::{PieceOf, Terrain, TerrainPiece};
use crate::pieces::jobs::{IndexedPiece, Selection, TerrainJobs};
use crate::pieces::pool::{PieceAssetStores, PiecePool};

/// The foci in a terrain entity's space, `(x, z)`.
fn foci_in(root: &GlobalTransform, foci: &Query<(&TerrainFocus, &GlobalTransform)>) -> Vec<[f64; 2]> {
    let to_local = root.affine().inverse();
    foci.iter()
        .map(|(focus, at)| {
            let p = to_local.transform_point3(focus.point.unwrap_or(at.translation()));
            [f64::from(p.x), f64::from(p.z)]
        })
        .collect()
}

/// Whether the foci moved far enough (a hundredth of the finest piece) to select again.
fn foci_moved(before: &[[f64; 2]], now: &[[f64; 2]], finest: f64) -> bool {
    before.len() != now.len()
        || before.iter().zip(now).any(|(a, b)| (a[0] - b[0]).hypot(a[1] - b[1]) > finest * 0.01)
}

/// Decides which pieces each terrain should have; spawns the missing ones (hidden, with pooled
/// assets) and marks the unwanted ones retiring.
pub(crate) fn select_pieces(
    mut commands: Commands,
    mut terrains: Query<(Entity, &GlobalTransform, &mut TerrainJobs), With<Terrain>>,
    foci: Query<(&TerrainFocus, &GlobalTransform)>,
    mut pieces: Query<&mut TerrainPiece>,
    mut pool: ResMut<PiecePool>,
    mut stores: PieceAssetStores,
) {
    for (root, root_at, mut jobs) in &mut terrains {
        let jobs = &mut *jobs;
        let Some(current) = jobs.current.clone() else { continue };
        for entity in std::mem::take(&mut jobs.retire) {
            if let Ok(mut piece) = pieces.get_mut(entity) {
                piece.retiring = true;
                jobs.attention.insert(entity);
                jobs.swap_due = true;
                jobs.stats_due = true;
            }
        }
        let params = &current.params;
        let now = foci_in(root_at, &foci);
        let lod = params.layout.lod_settings();
        let unchanged = jobs.selected_for.as_ref().is_some_and(|before| {
            before.generation == current.generation
                && lod.is_none_or(|lod| !foci_moved(&before.foci, &now, lod.chunk_size))
        });
        if unchanged {
            continue;
        }
        fill_desired_pieces(params, &now, &mut jobs.selector, &mut jobs.desired);
        jobs.selected_for = Some(Selection { generation: current.generation, foci: now });
        // Wanted pieces are stamped with this selection; those left without are unwanted. Only
        // pieces that change are touched (a piece despawned by someone else leaves the index
        // through `forget_removed_piece`).
        jobs.selections += 1;
        let stamp = jobs.selections;
        for desired in &jobs.desired {
            let key = desired.spec.key;
            if let Some(entry) = jobs.index.get_mut(&key) {
                entry.selected = stamp;
                if entry.stitch != desired.spec.stitch
                    && let Ok(mut piece) = pieces.get_mut(entry.entity)
                {
                    piece.spec.stitch = desired.spec.stitch;
                    entry.stitch = desired.spec.stitch;
                    jobs.swap_due = true;
                    jobs.attention.insert(entry.entity);
                }
                continue;
            }
            let assets = pool.take_assets().unwrap_or_else(|| stores.make());
            let geometry = key.geometry(params);
            let translation = Vec3::new(geometry.translation[0] as f32, 0.0, geometry.translation[1] as f32);
            let mut piece = TerrainPiece::new(desired.spec, desired.bounds, assets.image);
            piece.material = assets.material.clone();
            let mut entity = commands.spawn((
                piece,
                Name::new(format!("Terrain piece {key:?}")),
                Mesh3d(assets.mesh),
                Transform::from_translation(translation),
                ChildOf(root),
                PieceOf(root),
            ));
            if let Some(material) = assets.material {
                entity.insert(MeshMaterial3d(material));
            }
            let entry = IndexedPiece {
                entity: entity.id(),
                stitch: desired.spec.stitch,
                requested: None,
                building: false,
                selected: stamp,
            };
            jobs.attention.insert(entry.entity);
            jobs.index.insert(key, entry);
            jobs.swap_due = true;
        }
        // Pieces no longer wanted stay on screen until their replacements show.
        if jobs.index.len() > jobs.desired.len() {
            jobs.index.retain(|_, entry| {
                if entry.selected == stamp {
                    return true;
                }
                if let Ok(mut piece) = pieces.get_mut(entry.entity) {
                    piece.retiring = true;
                    jobs.attention.insert(entry.entity);
                    jobs.swap_due = true;
                }
                false
            });
        }
        jobs.stats_due |= jobs.swap_due;
    }
}

/// Takes a despawned piece out of its terrain's index (when it is still there: someone else
/// despawned it), so that the next selection spawns it anew.
pub(crate) fn forget_removed_piece(
    removed: On<Remove, TerrainPiece>,
    pieces: Query<(&TerrainPiece, &PieceOf)>,
    mut terrains: Query<&mut TerrainJobs>,
) {
    let Ok((piece, of)) = pieces.get(removed.entity) else { return };
    let Ok(mut jobs) = terrains.get_mut(of.0) else { return };
    if jobs.index.get(&piece.spec.key).is_some_and(|entry| entry.entity == removed.entity) {
        jobs.index.remove(&piece.spec.key);
        jobs.selected_for = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foci_move_when_one_goes_a_hundredth_of_the_finest_piece_or_their_number_changes() {
        let before = [[0.0, 0.0], [100.0, 5.0]];
        assert!(!foci_moved(&before, &[[0.3, 0.0], [100.0, 5.4]], 64.0), "under 0.64 units");
        assert!(foci_moved(&before, &[[0.0, 0.0], [100.0, 5.7]], 64.0));
        assert!(foci_moved(&before, &[[0.0, 0.0]], 64.0), "one focus fewer");
        assert!(!foci_moved(&[], &[], 64.0));
    }
}
