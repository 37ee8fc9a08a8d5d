//! Screen areas that belong to a UI: world interaction (the terrain camera) ignores the pointer
//! there.

use bevy::prelude::*;

/// Screen rectangles (logical pixels, origin top-left) where presses and the wheel belong to a UI,
/// not to the world (the terrain camera ignores them there). UI code refreshes it every frame; the inspector puts its panel here.
///
/// egui's own `wants_pointer_input` is checked as well, but it does not see side panels drawn on
/// the background layer.
#[derive(Resource, Debug, Clone, Default)]
pub struct PointerBlockers {
    /// The rectangles.
    pub rects: Vec<Rect>,
}

impl PointerBlockers {
    /// Whether `cursor` is inside one of the rectangles.
    pub fn blocks(&self, cursor: Vec2) -> bool {
        self.rects.iter().any(|r| r.contains(cursor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blockers_cover_their_rectangles_only() {
        let blockers = PointerBlockers { rects: vec![Rect::new(0.0, 0.0, 300.0, 800.0)] };
        assert!(blockers.blocks(Vec2::new(200.0, 760.0)));
        assert!(!blockers.blocks(Vec2::new(900.0, 450.0)));
        assert!(!PointerBlockers::default().blocks(Vec2::ZERO));
    }
}
