//! [`ScatterLayer`]: one kind of thing on a terrain: its rule, its look, how far it is shown.

use crate::clamp::{UNIT_RANGE, clamp_or};
use crate::scatter::rule::ScatterRule;
use crate::world::lod::SPLIT_DISTANCE;

/// Most scatter layers a terrain keeps (validation drops the rest).
pub const MAX_SCATTER_LAYERS: usize = 8;
/// Allowed view distance of a layer, world units.
pub const SCATTER_VIEW_DISTANCE_RANGE: (f32, f32) = (0.0, 1e6);

/// What a layer's things look like: a shape the plugin builds, or the game's own mesh and
/// material (registered under the layer's name).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum ScatterShape {
    /// A conifer: a trunk and a cone of foliage, about 10 units tall at scale 1.
    #[default]
    Tree,
    /// A grey boulder, about 2.5 units across at scale 1.
    Rock,
    /// A tuft of reeds, about 1.5 units tall at scale 1.
    Reed,
    /// The game's mesh and material, looked up by the layer's name.
    Custom,
}

impl ScatterShape {
    /// Every shape, in order.
    pub const ALL: [ScatterShape; 4] = [Self::Tree, Self::Rock, Self::Reed, Self::Custom];

    /// Its name, for menus.
    pub fn name(self) -> &'static str {
        match self {
            Self::Tree => "tree",
            Self::Rock => "rock",
            Self::Reed => "reed",
            Self::Custom => "custom",
        }
    }
}

/// One layer of things on a terrain.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct ScatterLayer {
    /// Its name (a custom shape's key).
    pub name: String,
    /// Where and how densely its things stand.
    pub rule: ScatterRule,
    /// What they look like.
    pub shape: ScatterShape,
    /// Tilt each thing to the ground's normal (rocks), or keep it upright (trees).
    pub align_to_ground: bool,
    /// Pieces of terrain nearer than this to a focus carry the layer, world units,
    /// [`SCATTER_VIEW_DISTANCE_RANGE`] (the patch always does).
    pub view_distance: f32,
    /// Bodies cannot pass its things: with the plugin's physics (feature `avian`), those near a
    /// focus get static colliders (a tree's trunk, a rock's ball, a custom mesh's box; reeds
    /// never).
    pub solid: bool,
    /// The share of its things each level of detail keeps of the finer level's, `[0, 1]`: far
    /// chunks carry fewer (a chunk at level `L` keeps `far_share^L`, always a subset of what a
    /// finer chunk keeps, so nothing jumps when chunks split or merge).
    pub far_share: f32,
}

impl Default for ScatterLayer {
    fn default() -> Self {
        Self {
            name: "trees".into(),
            rule: ScatterRule::default(),
            shape: ScatterShape::Tree,
            align_to_ground: false,
            view_distance: 800.0,
            solid: false,
            far_share: 0.5,
        }
    }
}

impl ScatterLayer {
    /// The layer with every value in range (NaN takes the default's value).
    pub fn clamped(&self) -> Self {
        let d = Self::default();
        Self {
            rule: self.rule.clamped(),
            view_distance: clamp_or(self.view_distance, SCATTER_VIEW_DISTANCE_RANGE, d.view_distance),
            far_share: clamp_or(self.far_share, UNIT_RANGE, d.far_share),
            ..self.clone()
        }
    }

    /// The share of the layer's points a chunk at `level` carries (0 when chunks of that level
    /// are never nearer than the view distance: a chunk of level `L > 0` exists only where every
    /// focus is at least [`SPLIT_DISTANCE`] times its side away). `chunk_size` is a level-0
    /// chunk's side. For a clamped layer.
    pub fn share_at_level(&self, level: u8, chunk_size: f64) -> f32 {
        let side = chunk_size * f64::from(1u32 << level.min(31));
        let nearest = if level == 0 { 0.0 } else { SPLIT_DISTANCE * side };
        if !self.rule.enabled || nearest >= f64::from(self.view_distance) {
            return 0.0;
        }
        self.far_share.powi(i32::from(level))
    }

    /// Trees on gentle ground from the shore to the tree line, rocks on steep flanks, reeds
    /// along the water: the endless example's layers, sized for hills a few hundred units high.
    pub fn landscape() -> Vec<ScatterLayer> {
        let trees = ScatterLayer {
            name: "trees".into(),
            rule: ScatterRule {
                seed: 1,
                density: 0.006,
                spacing: 6.0,
                heights: [0.01, 0.5],
                slopes: [0.0, 30.0],
                height_blend: 0.08,
                slope_blend: 8.0,
                scale: [0.7, 1.5],
                ..ScatterRule::default()
            },
            shape: ScatterShape::Tree,
            align_to_ground: false,
            solid: true,
            view_distance: 900.0,
            far_share: 0.5,
        };
        let rocks = ScatterLayer {
            name: "rocks".into(),
            rule: ScatterRule {
                seed: 2,
                density: 0.002,
                spacing: 5.0,
                heights: [0.02, 10.0],
                slopes: [26.0, 65.0],
                slope_blend: 6.0,
                scale: [1.0, 3.0],
                ..ScatterRule::default()
            },
            shape: ScatterShape::Rock,
            align_to_ground: true,
            solid: true,
            view_distance: 600.0,
            far_share: 0.5,
        };
        let reeds = ScatterLayer {
            name: "reeds".into(),
            rule: ScatterRule {
                seed: 3,
                density: 0.05,
                spacing: 1.5,
                heights: [0.0, 0.012],
                slopes: [0.0, 14.0],
                height_blend: 0.004,
                scale: [0.7, 1.3],
                ..ScatterRule::default()
            },
            shape: ScatterShape::Reed,
            align_to_ground: false,
            solid: false,
            view_distance: 350.0,
            far_share: 0.35,
        };
        vec![trees, rocks, reeds]
    }
}

/// The layers with at most [`MAX_SCATTER_LAYERS`], each clamped.
pub(crate) fn clamped_layers(layers: &[ScatterLayer]) -> Vec<ScatterLayer> {
    layers.iter().take(MAX_SCATTER_LAYERS).map(ScatterLayer::clamped).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_chunks_carry_a_falling_share_and_none_beyond_the_view() {
        let layer =
            ScatterLayer { view_distance: 500.0, far_share: 0.5, ..ScatterLayer::default() }.clamped();
        assert_eq!(layer.share_at_level(0, 64.0), 1.0);
        assert_eq!(layer.share_at_level(1, 64.0), 0.5);
        assert_eq!(layer.share_at_level(2, 64.0), 0.25); // nearest 384 < 500
        assert_eq!(layer.share_at_level(3, 64.0), 0.0); // nearest 768
        let off = ScatterLayer { rule: ScatterRule { enabled: false, ..ScatterRule::default() }, ..layer };
        assert_eq!(off.share_at_level(0, 64.0), 0.0);
    }

    #[test]
    fn layers_are_clamped_and_capped() {
        let bad = ScatterLayer { view_distance: f32::NAN, far_share: 3.0, ..ScatterLayer::default() };
        let c = bad.clamped();
        assert_eq!((c.view_distance, c.far_share), (800.0, 1.0));
        assert_eq!(clamped_layers(&vec![bad; 20]).len(), MAX_SCATTER_LAYERS);
        for layer in ScatterLayer::landscape() {
            assert_eq!(layer.clamped(), layer, "{}", layer.name);
        }
    }
}
