//! [`TerrainParams`]: the resource that holds the default terrain's [`TerrainPreset`], and the
//! reflection of the core's settings types.

use bevy::prelude::*;
use bevy::reflect::reflect_remote;
pub use noise_terrain_core::TerrainPreset;
use noise_terrain_core::limits::RESOLUTION_RANGE;

pub use noise_terrain_core::TerrainLayout;
pub use noise_terrain_core::limits::{
    CHUNK_SIZE_RANGE, CHUNK_VERTICES_RANGE, HEIGHT_SCALE_RANGE, WATER_LEVEL_RANGE, WORLD_SIZE_RANGE,
};

/// Fewest vertices per side of the terrain grid (the core's [`RESOLUTION_RANGE`]).
pub const MIN_RESOLUTION: u32 = RESOLUTION_RANGE.0;
/// Most vertices per side: 2048² vertices is about 170 MB of vertex data, texture and heights.
pub const MAX_RESOLUTION: u32 = RESOLUTION_RANGE.1;

/// The default terrain's settings, a [`TerrainPreset`]: change it (from game code or the
/// inspector) and the plugin regenerates the mesh and texture in the background. It dereferences
/// to the preset, so `params.noise.octaves = 5` edits it in place; a terrain of its own holds
/// its preset in a [`TerrainSettings`](crate::TerrainSettings) component instead.
///
/// Out-of-range values are clamped (with a warning in the log, and in the terrain's
/// [`TerrainStatus`](crate::TerrainStatus)) before generation; the resource itself keeps what
/// was written, so a slider can be dragged back. Saved as the preset alone
/// ([`files`](crate::files)), so the tool and the plugin read the same files.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_noise_terrain::prelude::*;
///
/// let mut params = TerrainParams(TerrainPreset { layout: TerrainLayout::ENDLESS, height_scale: 80.0, ..default() });
/// params.noise.octaves = 5;
/// assert_eq!(params.0.noise.octaves, 5);
/// ```
#[derive(Resource, Clone, Debug, Default, PartialEq, Deref, DerefMut, Reflect)]
#[reflect(Resource, Default, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(transparent))]
pub struct TerrainParams(#[reflect(remote = TerrainPresetReflect)] pub TerrainPreset);

impl From<TerrainPreset> for TerrainParams {
    fn from(preset: TerrainPreset) -> Self {
        TerrainParams(preset)
    }
}

/// Reflection of the core's [`TerrainPreset`] as one opaque value: the core has no Bevy
/// dependency, so its types cannot derive `Reflect`, and an opaque value needs no
/// field-by-field mirror that would have to follow every new parameter.
#[reflect_remote(TerrainPreset)]
#[derive(Clone)]
#[reflect(opaque, Clone)]
#[allow(missing_docs)]
pub struct TerrainPresetReflect;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_reflect_as_one_value_and_clone_through_reflection() {
        let mut p = TerrainParams::default();
        p.noise.seed = 99;
        p.post.terraces = 3;
        let cloned = p.reflect_clone().unwrap().take::<TerrainParams>().unwrap();
        assert_eq!(cloned, p);
        let settings = crate::TerrainSettings(p.0.clone());
        let cloned = settings.reflect_clone().unwrap().take::<crate::TerrainSettings>().unwrap();
        assert_eq!(cloned.0, p.0);
    }
}
