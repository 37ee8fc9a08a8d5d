//! Build hooks: extra work a plugin adds to the pieces' background builds (the physics plugin
//! makes colliders with one), applied on the main thread in the frame the piece's mesh lands.

use std::sync::Arc;

use bevy::prelude::*;

use crate::build::{PieceBuild, PieceKey};
use crate::layout::DesiredPiece;
use crate::params::TerrainParams;

pub use crate::build::HookOutput;

/// Runs in a piece's background job, after its heights, mesh and texture are built.
pub type HookBuild = dyn Fn(&PieceBuild, &TerrainParams) -> HookOutput + Send + Sync;

/// Runs on the main thread when the piece's new build is shown: `Some` with the output of the
/// build, or `None` when the new build has none (the piece moved out of the hook's distance) and
/// the old one had.
pub type HookApply = dyn Fn(&mut Commands, Entity, Option<HookOutput>) + Send + Sync;

/// One build hook.
#[derive(Clone)]
pub struct PieceHook {
    /// Pieces nearer than this to a focus get the hook's output (world units); the patch always
    /// does. A chunk that comes nearer is rebuilt with it, nearest first, like any out-of-date
    /// piece.
    pub within: f32,
    /// Makes the output (in the background).
    pub build: Arc<HookBuild>,
    /// Gives the piece its output, or takes the old one away.
    pub apply: Arc<HookApply>,
}

impl std::fmt::Debug for PieceHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PieceHook").field("within", &self.within).finish_non_exhaustive()
    }
}

/// The build hooks, at most 32 ([`PieceHooks::add`] returns each one's index). A plugin adds its
/// own in `build`.
#[derive(Resource, Clone, Debug, Default)]
pub struct PieceHooks(Arc<Vec<PieceHook>>);

impl PieceHooks {
    /// Most hooks.
    pub const MAX: usize = 32;

    /// Adds a hook; returns its index, `None` when there are already [`PieceHooks::MAX`].
    pub fn add(&mut self, hook: PieceHook) -> Option<usize> {
        let hooks = Arc::make_mut(&mut self.0);
        (hooks.len() < Self::MAX).then(|| {
            hooks.push(hook);
            hooks.len() - 1
        })
    }

    /// The hook at `index`.
    pub fn get(&self, index: usize) -> Option<&PieceHook> {
        self.0.get(index)
    }

    /// The hook at `index`, to change its distance.
    pub fn get_mut(&mut self, index: usize) -> Option<&mut PieceHook> {
        Arc::make_mut(&mut self.0).get_mut(index)
    }

    /// One bit per hook that `piece` wants.
    pub(crate) fn wanted_by(&self, piece: &DesiredPiece) -> u32 {
        let near =
            |hook: &PieceHook| piece.spec.key == PieceKey::Patch || piece.distance < f64::from(hook.within);
        self.0.iter().enumerate().filter(|(_, hook)| near(hook)).fold(0, |mask, (i, _)| mask | 1 << i)
    }

    /// Runs the hooks of `mask` on a finished build (in its job).
    pub(crate) fn run(&self, build: &mut PieceBuild, params: &TerrainParams, mask: u32) {
        build.hooks = mask;
        build.hook_outputs = self
            .0
            .iter()
            .enumerate()
            .map(|(i, hook)| (mask >> i & 1 == 1).then(|| (hook.build)(build, params)))
            .collect();
    }

    /// Hands a shown build's outputs to their hooks: each hook whose output is new, or whose old
    /// output goes (`had`: the mask of the build shown before).
    pub(crate) fn apply(
        &self,
        commands: &mut Commands,
        piece: Entity,
        outputs: Vec<Option<HookOutput>>,
        had: u32,
    ) {
        let mut outputs = outputs.into_iter();
        for (i, hook) in self.0.iter().enumerate() {
            let output = outputs.next().flatten();
            if output.is_some() || had >> i & 1 == 1 {
                (hook.apply)(commands, piece, output);
            }
        }
    }
}
