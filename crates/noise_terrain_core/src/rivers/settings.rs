//! [`EndlessRivers`]: the settings of the endless world's rivers and lakes.

use crate::clamp::clamp_or;
use crate::map::erosion::RiverSettings;

/// Where the rivers' start area may lie, world units².
pub const ENDLESS_RIVER_AREA_RANGE: (f32, f32) = (1.0, 1e12);
/// Where the rivers' width factor may lie (width = factor × √area).
pub const ENDLESS_RIVER_WIDTH_RANGE: (f32, f32) = (0.0, 1.0);
/// Where a channel's depth may lie, world units.
pub const CHANNEL_DEPTH_RANGE: (f32, f32) = (0.0, 1e4);
/// Where a valley's width beyond the banks may lie, world units.
pub const VALLEY_WIDTH_RANGE: (f32, f32) = (0.0, 1e5);

/// Rivers and lakes of the endless layout: where drainage area passes `min_area` a river
/// starts; it runs downhill to the sea, a lake or the edge of the solved area, widening with
/// the area it drains, in a channel `channel_depth` deep whose valley blends into the ground over
/// `valley_width`. Off by default; the patch ignores it (its rivers come from stream power).
///
/// ```
/// use noise_terrain_core::EndlessRivers;
///
/// let wild = EndlessRivers { min_area: -3.0, channel_depth: f32::NAN, ..EndlessRivers::default() };
/// let kept = wild.clamped();
/// assert_eq!(kept.min_area, 1.0);
/// assert_eq!(kept.channel_depth, EndlessRivers::default().channel_depth);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct EndlessRivers {
    /// Whether the endless layout has rivers and lakes.
    pub enabled: bool,
    /// Drainage area where a river starts, world units², [`ENDLESS_RIVER_AREA_RANGE`].
    pub min_area: f32,
    /// Width = `width` × √(drainage area) world units, [`ENDLESS_RIVER_WIDTH_RANGE`].
    pub width: f32,
    /// Depth of a river's channel below its water, world units, [`CHANNEL_DEPTH_RANGE`].
    pub channel_depth: f32,
    /// How far beyond its banks a river's valley blends into the ground, world units,
    /// [`VALLEY_WIDTH_RANGE`].
    pub valley_width: f32,
    /// Whether lakes (basins filled to their spill level) are kept as water; without them a
    /// river still crosses a basin at its spill level.
    pub lakes: bool,
}

impl Default for EndlessRivers {
    fn default() -> Self {
        Self {
            enabled: false,
            min_area: 3e4,
            width: 0.02,
            channel_depth: 2.5,
            valley_width: 30.0,
            lakes: true,
        }
    }
}

impl EndlessRivers {
    /// The settings with every value in range (NaN becomes the default).
    pub fn clamped(&self) -> Self {
        let d = Self::default();
        Self {
            enabled: self.enabled,
            min_area: clamp_or(self.min_area, ENDLESS_RIVER_AREA_RANGE, d.min_area),
            width: clamp_or(self.width, ENDLESS_RIVER_WIDTH_RANGE, d.width),
            channel_depth: clamp_or(self.channel_depth, CHANNEL_DEPTH_RANGE, d.channel_depth),
            valley_width: clamp_or(self.valley_width, VALLEY_WIDTH_RANGE, d.valley_width),
            lakes: self.lakes,
        }
    }

    /// Which cells of a region's drainage are rivers and how wide they are.
    pub(crate) fn river_settings(&self) -> RiverSettings {
        RiverSettings { min_area: self.min_area, width: self.width }
    }
}
