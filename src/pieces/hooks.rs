//! Build hooks: extra work a plugin adds to the pieces' background builds (the physics plugin
//! makes colliders with one, scatter places things with two), applied on the main thread in the
//! frame the piece's mesh lands. Each hook keeps its output's type from its build to its apply;
//! any number of hooks may be added.

use std::sync::Arc;

use bevy::prelude::*;

use crate::build::{HookSet, PieceBuild, PieceKey};
use crate::layout::DesiredPiece;
use crate::params::TerrainPreset;

pub use crate::build::HookOutput;

/// A hook's build, its output bound to its apply.
type HookBuild = dyn Fn(&PieceBuild, &TerrainPreset) -> HookOutput + Send + Sync;

/// A hook's apply without an output: takes the old one away.
type HookClear = dyn Fn(&mut Commands, Entity) + Send + Sync;

/// One build hook: what it makes for a piece in the piece's job, and how the piece gets it.
#[derive(Clone)]
pub struct PieceHook {
    /// Pieces nearer than this to a focus get the hook's output (world units); the patch always
    /// does. A chunk that comes nearer is rebuilt with it, nearest first, like any out-of-date
    /// piece.
    pub within: f32,
    build: Arc<HookBuild>,
    clear: Arc<HookClear>,
}

impl PieceHook {
    /// A hook whose `build` runs in a piece's background job, after its heights, mesh and texture
    /// are built, and whose `apply` runs on the main thread when that build is shown: with
    /// `Some` output, or with `None` when the new build has none (the piece moved out of the
    /// hook's distance) and the one shown before had.
    pub fn new<T: Send + Sync + 'static>(
        within: f32,
        build: impl Fn(&PieceBuild, &TerrainPreset) -> T + Send + Sync + 'static,
        apply: impl Fn(&mut Commands, Entity, Option<T>) + Send + Sync + 'static,
    ) -> Self {
        let apply = Arc::new(apply);
        let landing = apply.clone();
        Self {
            within,
            build: Arc::new(move |piece, params| {
                let (output, apply) = (build(piece, params), landing.clone());
                HookOutput::new(move |commands, entity| apply(commands, entity, Some(output)))
            }),
            clear: Arc::new(move |commands, entity| apply(commands, entity, None)),
        }
    }
}

impl std::fmt::Debug for PieceHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PieceHook").field("within", &self.within).finish_non_exhaustive()
    }
}

/// The build hooks ([`PieceHooks::add`] returns each one's index). A plugin adds its own in
/// `build`.
#[derive(Resource, Clone, Debug, Default)]
pub struct PieceHooks(Arc<Vec<PieceHook>>);

impl PieceHooks {
    /// Adds a hook; returns its index.
    pub fn add(&mut self, hook: PieceHook) -> usize {
        let hooks = Arc::make_mut(&mut self.0);
        hooks.push(hook);
        hooks.len() - 1
    }

    /// The hook at `index`.
    pub fn get(&self, index: usize) -> Option<&PieceHook> {
        self.0.get(index)
    }

    /// The hook at `index`, to change its distance.
    pub fn get_mut(&mut self, index: usize) -> Option<&mut PieceHook> {
        Arc::make_mut(&mut self.0).get_mut(index)
    }

    /// The hooks that `piece` wants.
    pub(crate) fn wanted_by(&self, piece: &DesiredPiece) -> HookSet {
        let near =
            |hook: &PieceHook| piece.spec.key == PieceKey::Patch || piece.distance < f64::from(hook.within);
        let mut set = HookSet::default();
        for (i, _) in self.0.iter().enumerate().filter(|(_, hook)| near(hook)) {
            set.insert(i);
        }
        set
    }

    /// Runs the hooks of `set` on a finished build (in its job).
    pub(crate) fn run(&self, build: &mut PieceBuild, params: &TerrainPreset, set: HookSet) {
        build.hooks = set;
        build.hook_outputs = self
            .0
            .iter()
            .enumerate()
            .map(|(i, hook)| build.hooks.contains(i).then(|| (hook.build)(build, params)))
            .collect();
    }

    /// Hands a shown build's outputs to their pieces: each hook whose output is new, or whose old
    /// output goes (`had`: the hooks of the build shown before).
    pub(crate) fn apply(
        &self,
        commands: &mut Commands,
        piece: Entity,
        outputs: Vec<Option<HookOutput>>,
        had: &HookSet,
    ) {
        let mut outputs = outputs.into_iter();
        for (i, hook) in self.0.iter().enumerate() {
            match outputs.next().flatten() {
                Some(output) => output.land(commands, piece),
                None if had.contains(i) => (hook.clear)(commands, piece),
                None => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_holds_any_number_of_hooks() {
        let mut set = HookSet::default();
        for i in [0, 5, 63, 64, 200] {
            set.insert(i);
        }
        assert!([0, 5, 63, 64, 200].iter().all(|&i| set.contains(i)));
        assert!(![1, 62, 65, 199, 201, 10_000].iter().any(|&i| set.contains(i)));
        let mut hooks = PieceHooks::default();
        let indices: Vec<usize> =
            (0..100).map(|_| hooks.add(PieceHook::new(1.0, |_, _| 1u8, |_, _, _: Option<u8>| {}))).collect();
        assert_eq!(indices, (0..100).collect::<Vec<_>>(), "no limit, no panic");
    }
}
