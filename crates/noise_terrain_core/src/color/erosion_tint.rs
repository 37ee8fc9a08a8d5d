//! The colours erosion leaves on a texture: wet channels, silt fans, and the water of rivers and
//! lakes ([`ErosionMaps::tint`]).

use crate::map::erosion::ErosionMaps;
use crate::map::heightmap::Heightmap;

/// The colour [`ErosionMaps::tint`] paints rivers and lakes in.
pub const RIVER_WATER: [u8; 3] = [46, 92, 142];

impl ErosionMaps {
    /// Tints RGBA8 `texels` of the eroded `heights` (one texel per cell): land where much water
    /// ran is darker (wet channels, by the logarithm of the flow against the map's largest), and
    /// land where sediment settled turns toward the colour of silt (fans); lakes and rivers of
    /// stream power are painted in [`RIVER_WATER`] (see [`Drainage::paint`](crate::Drainage::paint)).
    /// Water (below `water_level`) is left alone.
    pub fn tint(&self, texels: &mut [u8], heights: &Heightmap, water_level: f32) {
        const SILT: [f32; 3] = [176.0, 160.0, 120.0];
        let most = self.flow.samples().iter().copied().fold(0.0f32, f32::max);
        let log_most = (1.0 + most).ln().max(1e-6);
        let cells = heights.samples().iter().zip(self.flow.samples()).zip(self.deposition.samples());
        for (texel, ((&h, &flow), &deposit)) in texels.chunks_exact_mut(4).zip(cells) {
            if h < water_level {
                continue;
            }
            let wet = (1.0 + flow).ln() / log_most;
            let darken = 1.0 - 0.45 * wet * wet;
            // A hundredth of the height range of sediment is a full fan.
            let silt = (deposit * 100.0).clamp(0.0, 0.7);
            for (c, target) in texel[..3].iter_mut().zip(SILT) {
                let mixed = *c as f32 * (1.0 - silt) + target * silt;
                *c = (mixed * darken).round().clamp(0.0, 255.0) as u8;
            }
        }
        // Water over the tinted ground: lakes and rivers show whole, over silt too.
        if let Some(drainage) = &self.drainage {
            drainage.paint(texels, heights, water_level, RIVER_WATER);
        }
    }
}
