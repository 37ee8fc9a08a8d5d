//! [`TerrainLayout`]: which pieces a terrain is made of, one patch or chunks streamed to the
//! horizon, with the ranges of its values.

use crate::clamp::clamp_or;
use crate::world::lod::{LodSettings, MAX_LOD_LEVELS};

/// Allowed side of a level-0 chunk of the endless layout, in world units.
pub const CHUNK_SIZE_RANGE: (f32, f32) = (1.0, 1e5);
/// Allowed vertices per chunk side (odd, so that every other vertex of a fine edge meets a vertex
/// of a coarser neighbour).
pub const CHUNK_VERTICES_RANGE: (u32, u32) = (3, 257);

/// Which pieces of terrain exist: one patch, or chunks streamed around the places a front end
/// keeps in view (the plugin's foci).
///
/// ```
/// use noise_terrain_core::TerrainLayout;
///
/// let wild = TerrainLayout::Endless { chunk_size: 0.0, chunk_vertices: 64, view_distance: f32::NAN, lod_levels: 0 };
/// let TerrainLayout::Endless { chunk_size, chunk_vertices, lod_levels, .. } = wild.clamped() else { unreachable!() };
/// assert_eq!((chunk_size, chunk_vertices, lod_levels), (1.0, 65, 1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum TerrainLayout {
    /// One square of [`TerrainPreset::resolution`](crate::TerrainPreset::resolution) vertices
    /// per side, [`TerrainPreset::world_size`](crate::TerrainPreset::world_size) wide, centred
    /// on the terrain's origin. Post-processing sees the patch as the whole map (stretch by its
    /// min and max, the island over its square).
    #[default]
    Patch,
    /// Chunks around every focus, to the horizon. A chunk at level of detail `L` is
    /// `chunk_size · 2^L` wide with `chunk_vertices` per side, so the resolution halves with
    /// each level (a quadtree: see [`select_chunks`](crate::select_chunks)); edges that meet a
    /// coarser neighbour are stitched to it.
    /// [`world_size`](crate::TerrainPreset::world_size) is the world size of one map unit (the
    /// patch's width), `resolution` is not used, and post-processing works in world space:
    /// stretch maps the field's computed bounds (not a chunk's min and max) to `[0, 1]`, so it
    /// only changes fields that can leave `[0, 1]` (normalisation off); power and terraces are
    /// per height as in the patch; the island is centred on the terrain's origin, `world_size`
    /// across, the patch's island.
    Endless {
        /// Side of a level-0 (finest) chunk in world units, [`CHUNK_SIZE_RANGE`].
        chunk_size: f32,
        /// Vertices per chunk side, odd, [`CHUNK_VERTICES_RANGE`].
        chunk_vertices: u32,
        /// Chunks closer than this to a focus exist, world units; at most
        /// [`MAX_ROOTS_ACROSS`](crate::limits::MAX_ROOTS_ACROSS) / 2 coarsest chunks.
        view_distance: f32,
        /// Levels of detail, `1..=`[`MAX_LOD_LEVELS`].
        lod_levels: u32,
    },
}

impl TerrainLayout {
    /// The endless layout with the defaults: 64-unit chunks of 65 × 65 vertices, 1000 units of
    /// view, 4 levels of detail.
    pub const ENDLESS: TerrainLayout =
        TerrainLayout::Endless { chunk_size: 64.0, chunk_vertices: 65, view_distance: 1000.0, lod_levels: 4 };

    /// The layout with every value in range (see the fields' documented ranges; an even vertex
    /// count gets one more vertex, NaN takes the default).
    pub fn clamped(&self) -> TerrainLayout {
        match *self {
            TerrainLayout::Patch => TerrainLayout::Patch,
            TerrainLayout::Endless { chunk_size, chunk_vertices, view_distance, lod_levels } => {
                let chunk_size = clamp_or(chunk_size, CHUNK_SIZE_RANGE, 64.0);
                let (lo, hi) = CHUNK_VERTICES_RANGE;
                let chunk_vertices = (chunk_vertices.clamp(lo, hi) | 1).min(hi);
                let lod_levels = lod_levels.clamp(1, u32::from(MAX_LOD_LEVELS));
                let lod = LodSettings {
                    chunk_size: f64::from(chunk_size),
                    view_distance: f64::from(view_distance),
                    levels: lod_levels as u8,
                }
                .clamped();
                TerrainLayout::Endless {
                    chunk_size,
                    chunk_vertices,
                    view_distance: lod.view_distance as f32,
                    lod_levels,
                }
            }
        }
    }

    /// The chunk selection settings of the endless layout (`None` for the patch).
    pub fn lod_settings(&self) -> Option<LodSettings> {
        match self.clamped() {
            TerrainLayout::Patch => None,
            TerrainLayout::Endless { chunk_size, view_distance, lod_levels, .. } => Some(LodSettings {
                chunk_size: f64::from(chunk_size),
                view_distance: f64::from(view_distance),
                levels: lod_levels as u8,
            }),
        }
    }
}
