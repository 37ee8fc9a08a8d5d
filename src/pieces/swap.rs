//! Showing finished builds without a crack, a hole or an overlap for a single frame.
//!
//! A piece's stitching depends on its neighbours' levels, so a change of the layout (a chunk
//! splits into four, four merge into one) changes several pieces that must show together: the
//! new pieces, the neighbours stitched anew, and the retiring pieces they replace. Each frame,
//! the pieces that are changing (retiring, or not showing the current generation with their
//! wanted stitching) are joined into groups of pieces that touch (an edge, a corner) or overlap
//! (`swap_groups`). A group lands in one frame once every wanted piece in it has a finished
//! build with its wanted stitching, all of one generation: their meshes are replaced and shown,
//! and the retiring pieces go, in the same frame. Until then everything in the group shows
//! what it showed. A parameter change makes every piece change, so the whole terrain lands at
//! once (on a newer generation if the builds of one in between are complete).
//!
//! Builds that change only a piece's hook outputs (a collider nearer a focus) land at once.

use std::sync::Arc;

use bevy::ecs::query::QueryItem;
use bevy::prelude::*;
use noise_terrain_core::advanced::Stitch;

use crate::build::TerrainBuffers;
use crate::mesh::take_surface;
use crate::pieces::components::{PieceHeights, Shown, TerrainPiece, TerrainPieces};
use crate::pieces::hooks::PieceHooks;
use crate::pieces::jobs::{FinishedBuild, TerrainJobs};
use crate::pieces::pool::{PieceAssetStores, PieceAssets, PiecePool};

/// Most finished builds landed in one frame (each is a mesh and an image handed to the assets);
/// a group larger than this lands whole, alone in its frame.
pub const APPLY_BUDGET: usize = 24;

/// What the swap needs to know of a piece.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SwapView {
    /// `[min x, min z, max x, max z]`.
    pub bounds: [f64; 4],
    /// No longer wanted.
    pub retiring: bool,
    /// The stitching it should show.
    pub stitch: Stitch,
    /// What it shows.
    pub shown: Option<Shown>,
    /// What it shows once its waiting build lands (its shown build when none waits).
    pub next: Option<Shown>,
}

impl SwapView {
    /// Whether it must change to show `generation`.
    fn changing(&self, generation: u64) -> bool {
        self.retiring || !self.shown.as_ref().is_some_and(|s| s.surface_is(generation, self.stitch))
    }
}

/// Whether two squares touch: overlap, share an edge, or only a corner (a corner's normals
/// come from a coarser piece that touches it diagonally, see [`Stitch`]).
fn touch(a: [f64; 4], b: [f64; 4]) -> bool {
    // Shared edges computed along different paths may differ in the last bits.
    let eps = 1e-6 * (a[2] - a[0]).min(b[2] - b[0]).abs().max(1e-9);
    a[0] <= b[2] + eps && b[0] <= a[2] + eps && a[1] <= b[3] + eps && b[1] <= a[3] + eps
}

/// The groups of changing pieces (indices into `pieces`: all of one terrain's changing pieces,
/// and any others) that can land now at the terrain's current `generation`: every wanted piece
/// in the group has a next build with its wanted stitching, all of one generation, which is
/// `generation` unless the group holds every piece of the terrain (it has `all` pieces).
pub(crate) fn swap_groups(pieces: &[SwapView], generation: u64, all: usize) -> Vec<Vec<usize>> {
    let changing: Vec<usize> = (0..pieces.len()).filter(|&i| pieces[i].changing(generation)).collect();
    // Union-find over the changing pieces that touch.
    let mut parent: Vec<usize> = (0..changing.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    // Sweep along x: each piece meets only those that start before it ends (a flight keeps
    // hundreds of pieces changing; every pair cost most of the swap).
    let mut by_x: Vec<usize> = (0..changing.len()).collect();
    by_x.sort_unstable_by(|&a, &b| pieces[changing[a]].bounds[0].total_cmp(&pieces[changing[b]].bounds[0]));
    for (k, &a) in by_x.iter().enumerate() {
        let ba = pieces[changing[a]].bounds;
        // At least `touch`'s tolerance.
        let end = ba[2] + 1e-6 * (ba[2] - ba[0]).abs().max(1e-9);
        for &b in &by_x[k + 1..] {
            let bb = pieces[changing[b]].bounds;
            if bb[0] > end {
                break;
            }
            if touch(ba, bb) {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of_root = vec![usize::MAX; changing.len()];
    for (k, &i) in changing.iter().enumerate() {
        let r = root(&mut parent, k);
        if group_of_root[r] == usize::MAX {
            group_of_root[r] = groups.len();
            groups.push(Vec::new());
        }
        groups[group_of_root[r]].push(i);
    }
    let whole_terrain = |group: &[usize]| group.len() == all;
    groups.retain(|group| {
        let mut generations = group
            .iter()
            .map(|&i| &pieces[i])
            .filter(|p| !p.retiring)
            .map(|p| p.next.as_ref().filter(|n| n.stitch == p.stitch).map(|n| n.generation));
        let Some(first) = generations.next() else { return true };
        let Some(g) = first else { return false };
        generations.all(|other| other == Some(g)) && (g == generation || whole_terrain(group))
    });
    groups
}

/// A piece's components the swap changes.
type PieceParts =
    (&'static mut TerrainPiece, &'static Mesh3d, &'static mut Transform, &'static mut Visibility);

/// Lands ready groups of every terrain (within [`APPLY_BUDGET`]), lands hook-only changes, and
/// lets go of waiting builds that nothing will show.
pub(crate) fn swap_pieces(
    mut commands: Commands,
    mut terrains: Query<(&mut TerrainJobs, Ref<TerrainPieces>)>,
    mut pieces: Query<PieceParts>,
    mut stores: PieceAssetStores,
    mut pool: ResMut<PiecePool>,
    hooks: Res<PieceHooks>,
) {
    let mut landed = 0;
    for (mut jobs, of_terrain) in &mut terrains {
        // Nothing that decides what can land changed: nothing can.
        if !jobs.swap_due {
            continue;
        }
        jobs.swap_due = false;
        jobs.stats_due = true;
        let generation = jobs.generation();
        // Only pieces that may change are looked at (all of them after a new generation).
        let mut entities: Vec<Entity> = if std::mem::take(&mut jobs.attention_all) {
            jobs.attention.clear();
            of_terrain.iter().filter(|&e| pieces.contains(e)).collect()
        } else {
            jobs.attention.drain().filter(|&e| pieces.contains(e)).collect()
        };
        // A retiring piece that never showed covers nothing: it goes at once. Kept, it tied the
        // pieces around it into one group that waited for every new piece of a flight (and its
        // build took a job slot): pieces piled up to three times the view's.
        entities.retain(|&entity| {
            let Ok((mut piece, mesh, ..)) = pieces.get_mut(entity) else { return false };
            if !piece.retiring || piece.shown.is_some() {
                return true;
            }
            if let Some(mut unshown) = piece.ready.take() {
                pool.keep_buffers(TerrainBuffers::from_unshown(&mut unshown.build));
            }
            let_go(entity, &piece, mesh, &mut commands, &mut pool);
            false
        });
        let mut views = Vec::with_capacity(entities.len());
        for &entity in &entities {
            let (mut piece, ..) = pieces.get_mut(entity).expect("listed above");
            // A waiting build for a stitching the piece no longer wants, or for what it shows
            // already, will never be shown.
            let obsolete = piece.ready.as_ref().is_some_and(|r| {
                let next = r.shown();
                next.stitch != piece.spec.stitch
                    || piece
                        .shown
                        .as_ref()
                        .is_some_and(|s| s.surface_is(next.generation, next.stitch) && s.hooks == next.hooks)
            });
            if obsolete && let Some(mut stale) = piece.ready.take() {
                pool.keep_buffers(TerrainBuffers::from_unshown(&mut stale.build));
            }
            let view = SwapView {
                bounds: piece.bounds,
                retiring: piece.retiring,
                stitch: piece.spec.stitch,
                shown: piece.shown.clone(),
                next: piece.next_shown(),
            };
            // Only the hooks change: nothing else depends on it.
            let hooks_only = !view.changing(generation)
                && view.next.as_ref().is_some_and(|n| n.surface_is(generation, view.stitch))
                && piece.ready.is_some();
            if hooks_only {
                let parts = pieces.get_mut(entity).expect("listed above");
                jobs.last_build_time = land(entity, parts, &mut commands, &mut stores, &mut pool, &hooks);
                landed += 1;
            }
            views.push(view);
        }
        let mut gone = vec![false; entities.len()];
        for group in swap_groups(&views, generation, of_terrain.len()) {
            if landed >= APPLY_BUDGET {
                // The rest land in the next frames.
                jobs.swap_due = true;
                break;
            }
            for i in group {
                let entity = entities[i];
                let parts = pieces.get_mut(entity).expect("listed above");
                if views[i].retiring {
                    let (piece, mesh, ..) = parts;
                    let_go(entity, &piece, mesh, &mut commands, &mut pool);
                    gone[i] = true;
                } else if parts.0.ready.is_some() {
                    jobs.last_build_time = land(entity, parts, &mut commands, &mut stores, &mut pool, &hooks);
                    landed += 1;
                }
            }
        }
        // What still changes or waits is looked at again.
        jobs.waiting = 0;
        for (i, &entity) in entities.iter().enumerate() {
            let Ok((piece, ..)) = pieces.get(entity) else { continue };
            // A retiring piece that went this frame (its despawn is deferred) waits for nothing,
            // even with a build it never showed.
            let waiting = !gone[i] && piece.ready.is_some();
            jobs.waiting += usize::from(waiting);
            let view = SwapView { shown: piece.shown.clone(), ..views[i].clone() };
            if !gone[i] && (waiting || view.changing(generation)) {
                jobs.attention.insert(entity);
            }
        }
    }
}

/// Despawns a retiring piece; its assets go to the pool.
fn let_go(
    entity: Entity,
    piece: &TerrainPiece,
    mesh: &Mesh3d,
    commands: &mut Commands,
    pool: &mut PiecePool,
) {
    pool.keep_assets(PieceAssets {
        mesh: mesh.0.clone(),
        image: piece.image.clone(),
        material: piece.material.clone(),
    });
    commands.entity(entity).despawn();
}

/// Writes a piece's waiting build into its assets and components and shows it; the replaced
/// build's memory goes to the pool. Returns how long the build took.
fn land(
    entity: Entity,
    (mut piece, mesh, mut transform, mut visibility): QueryItem<'_, '_, PieceParts>,
    commands: &mut Commands,
    stores: &mut PieceAssetStores,
    pool: &mut PiecePool,
    hooks: &PieceHooks,
) -> std::time::Duration {
    let Some(FinishedBuild { mut build, params, generation }) = piece.ready.take().map(|b| *b) else {
        return std::time::Duration::ZERO;
    };
    let next = Shown { generation, stitch: build.spec.stitch, hooks: build.hooks };
    // The old arrays are taken only from assets replaced right after under the same handle, so
    // nobody sees them emptied, and taking them is no change anyone needs to hear of.
    let mut recycled = TerrainBuffers {
        surface: stores.meshes.get_mut_untracked(&mesh.0).map(take_surface).unwrap_or_default(),
        texels: Vec::new(),
        gradients: std::mem::take(&mut build.gradients),
    };
    if let Err(e) = stores.meshes.insert(&mesh.0, build.mesh) {
        error!("terrain mesh could not be replaced: {e}");
    }
    let same_size = stores.images.get(&piece.image).is_some_and(|old| old.size() == build.image.size());
    if same_size {
        recycled.texels =
            stores.images.get_mut_untracked(&piece.image).and_then(|old| old.data.take()).unwrap_or_default();
        let _ = stores.images.insert(&piece.image, build.image);
    } else {
        // A resized image under the old handle is not picked up by the renderer: make a new
        // one; the old one is freed when its last handle goes.
        piece.image = stores.images.add(build.image);
    }
    if let (Some(materials), Some(material)) = (stores.materials.as_mut(), &piece.material) {
        // Touching the material makes it see the new image (bevy #15595, #17220).
        if let Some(mut material) = materials.get_mut(material) {
            material.base_color_texture = Some(piece.image.clone());
        }
    }
    pool.keep_buffers(recycled);
    let g = build.geometry;
    transform.translation =
        Vec3::new(g.translation[0] as f32, transform.translation.y, g.translation[1] as f32);
    piece.bounds = g.bounds();
    let had = piece.shown.as_ref().map(|s| s.hooks.clone()).unwrap_or_default();
    piece.shown = Some(next);
    hooks.apply(commands, entity, std::mem::take(&mut build.hook_outputs), &had);
    commands.entity(entity).insert(PieceHeights {
        map: Arc::new(build.heights),
        geometry: g,
        height_scale: params.height_scale,
        stats: build.stats,
        raw_stats: build.raw_stats,
        overflow_fraction: build.overflow_fraction,
        params,
    });
    if *visibility != Visibility::Inherited {
        *visibility = Visibility::Inherited;
    }
    build.elapsed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::HookSet;
    use noise_terrain_core::advanced::Side;

    /// The groups, with every piece of the terrain among `pieces`.
    fn groups(pieces: &[SwapView], generation: u64) -> Vec<Vec<usize>> {
        swap_groups(pieces, generation, pieces.len())
    }

    fn shown(generation: u64, stitch: Stitch) -> Option<Shown> {
        Some(Shown { generation, stitch, hooks: HookSet::default() })
    }

    /// A settled piece at generation 1.
    fn settled(bounds: [f64; 4], stitch: Stitch) -> SwapView {
        SwapView { bounds, retiring: false, stitch, shown: shown(1, stitch), next: shown(1, stitch) }
    }

    /// A new piece, with a finished build or none.
    fn new(bounds: [f64; 4], built: bool) -> SwapView {
        let next = if built { shown(1, Stitch::NONE) } else { None };
        SwapView { bounds, retiring: false, stitch: Stitch::NONE, shown: None, next }
    }

    fn west() -> Stitch {
        Stitch::NONE.with(Side::West, true)
    }

    /// A coarse square `[2, 0, 4, 2]` splits into four; its west neighbour `[1, 0, 2, 1]` (fine,
    /// stitched to it) needs no stitching any more; a far piece is settled.
    fn split(built: [bool; 4], neighbour_rebuilt: bool) -> Vec<SwapView> {
        let mut neighbour = settled([1.0, 0.0, 2.0, 1.0], Stitch::NONE);
        neighbour.shown = shown(1, Stitch::NONE.with(Side::East, true));
        neighbour.next = if neighbour_rebuilt { shown(1, Stitch::NONE) } else { neighbour.shown.clone() };
        let mut coarse = settled([2.0, 0.0, 4.0, 2.0], Stitch::NONE);
        coarse.retiring = true;
        vec![
            neighbour,
            coarse,
            new([2.0, 0.0, 3.0, 1.0], built[0]),
            new([3.0, 0.0, 4.0, 1.0], built[1]),
            new([2.0, 1.0, 3.0, 2.0], built[2]),
            new([3.0, 1.0, 4.0, 2.0], built[3]),
            settled([10.0, 10.0, 12.0, 12.0], west()),
        ]
    }

    /// The sweep finds the groups every pair of pieces gives: squares of three sizes on a grid,
    /// half of them new without a build (their groups stay), the rest new with one.
    #[test]
    fn the_sweep_joins_what_every_pair_joins() {
        let mut state = 7u32;
        let mut next = |n: u32| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) % n
        };
        let pieces: Vec<SwapView> = (0..300)
            .map(|_| {
                let side = f64::from(1 << next(3));
                let (x, z) = (f64::from(next(40)) * side, f64::from(next(40)) * side);
                new([x, z, x + side, z + side], next(2) == 0)
            })
            .collect();
        // Every pair, by hand: a union-find over all touching pairs.
        let mut parent: Vec<usize> = (0..pieces.len()).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                i = parent[i];
            }
            i
        }
        for a in 0..pieces.len() {
            for b in a + 1..pieces.len() {
                if touch(pieces[a].bounds, pieces[b].bounds) {
                    let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                    parent[ra.max(rb)] = ra.min(rb);
                }
            }
        }
        let mut expected: Vec<Vec<usize>> = Vec::new();
        for i in 0..pieces.len() {
            let r = root(&mut parent, i);
            match expected.iter_mut().find(|g| root(&mut parent, g[0]) == r) {
                Some(g) => g.push(i),
                None => expected.push(vec![i]),
            }
        }
        expected.retain(|g| g.iter().all(|&i| pieces[i].next.is_some()));
        let mut found = swap_groups(&pieces, 1, usize::MAX);
        found.sort();
        expected.sort();
        assert!(!expected.is_empty() && expected.len() < pieces.len() / 2);
        assert_eq!(found, expected);
    }

    #[test]
    fn a_restitched_neighbour_waits_for_the_pieces_it_meets() {
        assert!(groups(&split([false; 4], true), 1).is_empty(), "the neighbour alone would crack");
        assert!(groups(&split([true, true, true, false], true), 1).is_empty(), "one is missing");
        assert!(groups(&split([true; 4], false), 1).is_empty(), "the neighbour is not rebuilt");
        let found = groups(&split([true; 4], true), 1);
        assert_eq!(found, vec![vec![0, 1, 2, 3, 4, 5]], "all of them at once, the far piece untouched");
    }

    #[test]
    fn changes_that_do_not_touch_land_apart() {
        let mut pieces = split([true; 4], true);
        // A second change far away, not rebuilt yet: the first lands alone.
        let mut far = settled([20.0, 20.0, 22.0, 22.0], Stitch::NONE);
        far.stitch = west();
        pieces.push(far);
        assert_eq!(groups(&pieces, 1), vec![vec![0, 1, 2, 3, 4, 5]]);
        // Once rebuilt, it lands too, apart.
        pieces[7].next = shown(1, west());
        assert_eq!(groups(&pieces, 1), vec![vec![0, 1, 2, 3, 4, 5], vec![7]]);
        // A retiring piece with nothing to wait for goes at once.
        let mut lone = settled([40.0, 40.0, 41.0, 41.0], Stitch::NONE);
        lone.retiring = true;
        pieces.push(lone);
        assert_eq!(groups(&pieces, 1).len(), 3);
    }

    #[test]
    fn the_changing_pieces_alone_give_the_same_groups() {
        let pieces = split([true; 4], true);
        // The far settled piece is left out: the same group, of the same pieces.
        let changing = &pieces[..6];
        assert_eq!(swap_groups(changing, 1, pieces.len()), vec![vec![0, 1, 2, 3, 4, 5]]);
        // At generation 2 their builds (of 1) land only as the whole terrain: not when a piece
        // was left out.
        assert!(swap_groups(changing, 2, pieces.len()).is_empty(), "older builds beside unseen pieces");
        assert_eq!(swap_groups(changing, 2, changing.len()).len(), 1, "older builds of the whole terrain");
    }

    #[test]
    fn squares_touch_along_an_edge_or_at_a_corner() {
        assert!(touch([0.0, 0.0, 1.0, 1.0], [1.0, 0.5, 2.0, 1.5]));
        assert!(touch([0.0, 0.0, 2.0, 2.0], [0.5, 0.5, 1.0, 1.0]), "overlap");
        assert!(touch([0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 2.0, 2.0]), "corner");
        assert!(!touch([0.0, 0.0, 1.0, 1.0], [1.5, 0.0, 2.0, 1.0]), "apart");
        // Shared edges computed along different paths still touch.
        assert!(touch([0.0, 0.0, 0.1 + 0.2, 1.0], [0.3, 0.0, 1.0, 1.0]));
    }

    #[test]
    fn a_parameter_change_lands_the_whole_terrain_at_once() {
        let a = settled([0.0, 0.0, 1.0, 1.0], Stitch::NONE);
        let b = settled([1.0, 0.0, 2.0, 1.0], Stitch::NONE);
        let rebuilt = |p: &SwapView, generation| SwapView { next: shown(generation, p.stitch), ..p.clone() };
        let (a, b) = (&a, &b);
        assert!(groups(&[rebuilt(a, 2), b.clone()], 2).is_empty(), "half the terrain");
        assert_eq!(groups(&[rebuilt(a, 2), rebuilt(b, 2)], 2), vec![vec![0, 1]]);
        assert!(groups(&[rebuilt(a, 2), rebuilt(b, 3)], 3).is_empty(), "two generations");
        // Complete builds of a generation in between land when the group is the whole terrain...
        assert_eq!(groups(&[rebuilt(a, 2), rebuilt(b, 2)], 3), vec![vec![0, 1]]);
        // ...but not beside a piece that shows the current one already.
        let c = SwapView {
            shown: shown(3, Stitch::NONE),
            next: shown(3, Stitch::NONE),
            ..settled([2.0, 0.0, 3.0, 1.0], Stitch::NONE)
        };
        assert!(groups(&[rebuilt(a, 2), rebuilt(b, 2), c], 3).is_empty());
    }
}
