//! The panel's sliders and the ranges they offer: each the part of the core's range
//! (`noise_terrain_core::limits`) where a person tunes the parameter, never past what the core
//! accepts. A value outside what a slider offers (from a preset or from game code) is shown and
//! kept, not clamped by the slider: validation clamps it by the core's one rule.

use std::ops::RangeInclusive;

use bevy_egui::egui;

/// The part of the core's range `core` that a slider offers: `comfortable` cut to `core`.
pub(super) fn offered<T: PartialOrd + Copy>(
    core: (T, T),
    comfortable: RangeInclusive<T>,
) -> RangeInclusive<T> {
    let (lo, hi) = comfortable.into_inner();
    let lo = if lo < core.0 || lo > core.1 { core.0 } else { lo };
    let hi = if hi > core.1 || hi < lo { core.1 } else { hi };
    lo..=hi
}

/// A slider over `range` (see [`offered`]) that never clamps the value it shows.
pub(super) fn slider<'a, T: egui::emath::Numeric>(
    value: &'a mut T,
    range: RangeInclusive<T>,
    text: &str,
) -> egui::Slider<'a> {
    egui::Slider::new(value, range).text(text).clamping(egui::SliderClamping::Never)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slider_offers_its_comfortable_range_cut_to_the_cores() {
        assert_eq!(offered((0.0, 1e6), 0.25..=32.0), 0.25..=32.0);
        assert_eq!(offered((1.0, 8.0), 0.0..=16.0), 1.0..=8.0);
        assert_eq!(offered((0, 64), 0..=24), 0..=24);
        assert_eq!(offered((0, 8), 1..=12), 1..=8);
        assert_eq!(offered((2.0, 3.0), 5.0..=9.0), 2.0..=3.0, "wholly outside: the core's range");
    }
}
