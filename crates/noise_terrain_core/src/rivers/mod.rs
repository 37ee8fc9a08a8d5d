//! Rivers and lakes of the endless world: a drainage network that is a pure function of the
//! settings and the world position.
//!
//! The water is routed on a grid of [`DRAINAGE_CELLS_PER_UNIT`] cells per map unit, cut into
//! square regions fixed by world position ([`RegionKey`]). Each region is routed on a window
//! [`REGION_MARGIN`] cells wider on every side (the field sampled and post-processed as the
//! chunks sample it, the water sent down its steepest way, depressions filled to their spill
//! level as lakes; see [`drainage_of`](crate::advanced::drainage_of)), and keeps the river
//! segments that start inside it ([`RegionRivers`]). A river whose water comes from beyond the
//! margin starts there as if at the window's edge: a river crossing from one region into the next
//! is routed by each on its own window, and where the two windows disagree (a catchment wider
//! than the margin) its width can step at the border. Whoever asks first, a region's solve is the
//! same: the network is the same bits for any chunk size, level of detail, order and thread
//! count, and a region let go is solved again to the same bits.
//!
//! [`RiverNetwork`] keeps the solved regions (the least recently used let go past its
//! capacity, [`DEFAULT_KEPT_REGIONS`] unless given) and carves each river's channel and valley into any window of the
//! field, with exact gradients.

pub(crate) mod carve;
mod near;
mod network;
mod region;
mod settings;
#[cfg(test)]
pub(crate) mod tests;

pub use near::{RiverWater, RiversNear};
pub use network::{DEFAULT_KEPT_REGIONS, RiverNetwork};
pub use region::{
    DRAINAGE_CELLS_PER_UNIT, REGION_CELLS, REGION_MARGIN, RegionKey, RegionRivers, RiverSegment, river_runs,
};
pub use settings::{
    CHANNEL_DEPTH_RANGE, ENDLESS_RIVER_AREA_RANGE, ENDLESS_RIVER_WIDTH_RANGE, EndlessRivers,
    VALLEY_WIDTH_RANGE,
};

use crate::clamp::clamp_or;
use crate::field::NoiseSettings;
use crate::map::postprocess::PostProcess;

/// What the endless rivers are a function of: the field, its post-processing in world space,
/// the sea, the world's scale and the river settings.
#[derive(Clone, Debug, PartialEq)]
pub struct RiverWorld {
    /// The noise field.
    pub noise: NoiseSettings,
    /// Post-processing, applied in world space as on the chunks.
    pub post: PostProcess,
    /// Noise height of the sea, where rivers end.
    pub sea_level: f32,
    /// World units per map unit.
    pub world_size: f32,
    /// World units of a noise height of 1.
    pub height_scale: f32,
    /// The rivers' own settings.
    pub rivers: EndlessRivers,
}

impl RiverWorld {
    /// The settings with every value in range.
    pub fn clamped(&self) -> RiverWorld {
        RiverWorld {
            noise: self.noise.clamped(),
            post: self.post.clamped(),
            sea_level: clamp_or(self.sea_level, (0.0, 1.0), 0.0),
            // A flat world is routed and carved as if it were a thousandth of a unit tall.
            world_size: clamp_or(self.world_size, (0.01, 1e6), 100.0),
            height_scale: clamp_or(self.height_scale, (1e-3, 1e6), 1.0),
            rivers: self.rivers.clamped(),
        }
    }
}
