//! [`TerrainParams`]: the resource that describes the terrain, and its validation.

use bevy::prelude::*;
use bevy::reflect::reflect_remote;
use noise_terrain_core::limits::{MAX_LOD_LEVELS, MAX_OCTAVES, RESOLUTION_RANGE, clamp_or};
use noise_terrain_core::{
    Clamped, ColorRamp, ColorRules, Erosion, LodSettings, NoiseSettings, PostProcess, ScatterLayer,
    TerrainPreset,
};

pub use noise_terrain_core::limits::{HEIGHT_SCALE_RANGE, WATER_LEVEL_RANGE, WORLD_SIZE_RANGE};

/// Fewest vertices per side of the terrain grid (the core's [`RESOLUTION_RANGE`]).
pub const MIN_RESOLUTION: u32 = RESOLUTION_RANGE.0;
/// Most vertices per side: 2048² vertices is about 170 MB of vertex data, texture and heights.
pub const MAX_RESOLUTION: u32 = RESOLUTION_RANGE.1;
/// Allowed side of a level-0 chunk of the endless layout, in world units.
pub const CHUNK_SIZE_RANGE: (f32, f32) = (1.0, 1e5);
/// Allowed vertices per chunk side (odd, so that every other vertex of a fine edge meets a vertex
/// of a coarser neighbour).
pub const CHUNK_VERTICES_RANGE: (u32, u32) = (3, 257);

/// Which pieces of terrain exist: one patch, or chunks streamed around the foci.
#[derive(Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub enum TerrainLayout {
    /// One square of [`TerrainParams::resolution`] vertices per side, [`TerrainParams::world_size`]
    /// wide, centred on the [`Terrain`](crate::Terrain) entity. Post-processing sees the patch
    /// as the whole map (stretch by its min and max, the island over its square).
    #[default]
    Patch,
    /// Chunks around every [`TerrainFocus`](crate::TerrainFocus), to the horizon. A chunk at
    /// level of detail `L` is `chunk_size · 2^L` wide with `chunk_vertices` per side, so the
    /// resolution halves with each level (a quadtree: see [`noise_terrain_core::select_chunks`]); edges
    /// that meet a coarser neighbour are stitched to it. [`TerrainParams::world_size`] is the
    /// world size of one map unit (the patch's width), `resolution` is not used, and
    /// post-processing works in world space: stretch maps the field's computed bounds (not a
    /// chunk's min and max) to `[0, 1]`, so it only changes fields that can leave `[0, 1]`
    /// (normalisation off); power and terraces are per height as in the patch; the island is
    /// centred on the terrain entity's origin, `world_size` across, the patch's island.
    Endless {
        /// Side of a level-0 (finest) chunk in world units, `1..=1e5`.
        chunk_size: f32,
        /// Vertices per chunk side, odd, `3..=257`.
        chunk_vertices: u32,
        /// Chunks closer than this to a focus exist, world units; at most 32 coarsest chunks.
        view_distance: f32,
        /// Levels of detail, `1..=16`.
        lod_levels: u32,
    },
}

impl TerrainLayout {
    /// The endless layout with the defaults: 64-unit chunks of 65 × 65 vertices, 1000 units of
    /// view, 4 levels of detail.
    pub const ENDLESS: TerrainLayout =
        TerrainLayout::Endless { chunk_size: 64.0, chunk_vertices: 65, view_distance: 1000.0, lod_levels: 4 };

    /// The layout with every value in range (see the fields' documented ranges).
    pub fn clamped(&self) -> TerrainLayout {
        match *self {
            TerrainLayout::Patch => TerrainLayout::Patch,
            TerrainLayout::Endless { chunk_size, chunk_vertices, view_distance, lod_levels } => {
                let chunk_size = clamp_or(chunk_size, CHUNK_SIZE_RANGE, 64.0);
                let (lo, hi) = CHUNK_VERTICES_RANGE;
                // An even count gets one more vertex.
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

/// Everything the terrain is made from. Change it (from game code or the inspector) and the plugin
/// regenerates the mesh and texture in the background.
///
/// Out-of-range values are clamped (with a warning in the log) before generation; the resource
/// itself keeps what was written, so a slider can be dragged back.
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(Resource, Default, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct TerrainParams {
    /// The noise field: basis, fade, fractal, octaves, frequency, seed, offset, period.
    #[reflect(remote = NoiseSettingsReflect)]
    pub noise: NoiseSettings,
    /// Whole-map post-processing: stretch, redistribution, island, terraces.
    #[reflect(remote = PostProcessReflect)]
    pub post: PostProcess,
    /// Stream power (rivers), hydraulic and thermal erosion after post-processing (off by
    /// default). Droplets and scree are described for a map 512 cells across and scaled to the
    /// patch's resolution ([`Erosion::for_map`]), so a patch looks alike at any resolution;
    /// stream power's rates are in world units. The patch only: erosion needs the whole map,
    /// so the endless layout ignores it.
    #[reflect(remote = ErosionReflect)]
    pub erosion: Erosion,
    /// Which pieces of terrain exist: one patch (the default) or endless chunks.
    pub layout: TerrainLayout,
    /// Vertices per side of the patch (and texels per side of its texture), `2..=2048`. Not used
    /// by the endless layout, whose chunks have their own vertex count.
    pub resolution: u32,
    /// Side length of the patch in world units, centred on its entity's origin; in the endless
    /// layout, the world size of one map unit (so both layouts show features of one size).
    pub world_size: f32,
    /// World height of a noise height of 1.
    pub height_scale: f32,
    /// Noise height of the shoreline, `[0, 1]`: the ramp's water colours sit below it.
    pub water_level: f32,
    /// Colours from deep water to snow.
    #[reflect(remote = ColorRampReflect)]
    pub ramp: ColorRamp,
    /// Layers painted over the ramp by height and slope (sand, grass, rock, snow by default);
    /// [`ColorRules::plain`] keeps the plain ramp.
    #[reflect(remote = ColorRulesReflect)]
    pub colors: ColorRules,
    /// Paint heights above 1 orange (only reachable with normalisation off).
    pub show_overflow: bool,
    /// Things on the ground: trees, rocks, reeds (none by default; [`ScatterLayer::landscape`]
    /// has all three). Placed on every piece within each layer's view distance, the same points
    /// whatever the pieces (see [`scatter`](crate::scatter)).
    #[reflect(remote = ScatterLayersReflect)]
    pub scatter: Vec<ScatterLayer>,
    /// Show a sea surface at the water level (see [`sea`](crate::sea)).
    pub sea: bool,
    /// Show the patch's rivers (stream power) as water ribbons over their channels (see
    /// [`rivers`](crate::rivers)); the texture paints them either way.
    pub river_water: bool,
}

impl Default for TerrainParams {
    /// The core's [`TerrainPreset`] defaults, as one patch.
    fn default() -> Self {
        Self::from_preset(TerrainPreset::default(), TerrainLayout::Patch)
    }
}

impl TerrainParams {
    /// The parameters of `preset` laid out as `layout`.
    pub fn from_preset(preset: TerrainPreset, layout: TerrainLayout) -> Self {
        let TerrainPreset {
            noise,
            post,
            erosion,
            resolution,
            world_size,
            height_scale,
            water_level,
            ramp,
            colors,
            show_overflow,
            scatter,
            sea,
            river_water,
        } = preset;
        Self {
            noise,
            post,
            erosion,
            layout,
            resolution,
            world_size,
            height_scale,
            water_level,
            ramp,
            colors,
            show_overflow,
            scatter,
            sea,
            river_water,
        }
    }

    /// Everything but the layout, as the core's preset (what the tool reads from a preset file).
    pub fn preset(&self) -> TerrainPreset {
        TerrainPreset {
            noise: self.noise,
            post: self.post,
            erosion: self.erosion,
            resolution: self.resolution,
            world_size: self.world_size,
            height_scale: self.height_scale,
            water_level: self.water_level,
            ramp: self.ramp.clone(),
            colors: self.colors.clone(),
            show_overflow: self.show_overflow,
            scatter: self.scatter.clone(),
            sea: self.sea,
            river_water: self.river_water,
        }
    }

    /// The parameters with every value in its documented range, and what had to change: the
    /// core's [`TerrainPreset::validated`], and the layout.
    pub fn validated(&self) -> (TerrainParams, Vec<Clamped>) {
        let (preset, mut changes) = self.preset().validated();
        let layout = self.layout.clamped();
        if layout != self.layout {
            changes.push(Clamped {
                field: "layout",
                given: format!("{:?}", self.layout),
                used: format!("{layout:?}"),
            });
        }
        (Self::from_preset(preset, layout), changes)
    }

    /// The parameters with every value in its documented range: what
    /// [`validated`](Self::validated) gives, without telling what changed (no text is made, so
    /// it is cheap enough for every build).
    pub fn clamped(&self) -> TerrainParams {
        Self::from_preset(self.preset().clamped(), self.layout.clamped())
    }

    /// Mesh vertices per map unit of the finest piece: the patch's resolution, or the finest
    /// chunks' vertex spacing in the endless layout. An octave whose lattice cells are narrower
    /// than two vertices (a frequency above half of this) adds only flicker to the mesh.
    pub fn vertices_per_unit(&self) -> f64 {
        let p = self.clamped();
        match p.layout {
            TerrainLayout::Patch => f64::from(p.resolution),
            TerrainLayout::Endless { chunk_size, chunk_vertices, .. } => {
                f64::from(chunk_vertices - 1) * f64::from(p.world_size) / f64::from(chunk_size)
            }
        }
    }

    /// How many octaves, from the first, the mesh can show, whatever the octave count: those
    /// whose frequency is at most half of [`vertices_per_unit`](Self::vertices_per_unit) (1 to
    /// 12).
    pub fn octaves_the_mesh_resolves(&self) -> u32 {
        let limit = self.vertices_per_unit() / 2.0;
        let n = &self.noise;
        (0..MAX_OCTAVES).take_while(|&i| n.octave_frequency(i) <= limit).count().max(1) as u32
    }
}

/// Reflection of the core's [`NoiseSettings`] as one opaque value: the core has no Bevy
/// dependency, so its types cannot derive `Reflect`, and an opaque value needs no field-by-field
/// mirror that would have to follow every new parameter.
#[reflect_remote(NoiseSettings)]
#[derive(Clone)]
#[reflect(opaque, Clone)]
#[allow(missing_docs)]
pub struct NoiseSettingsReflect;

/// Reflection of the core's [`ColorRules`] as one opaque value.
#[reflect_remote(ColorRules)]
#[derive(Clone)]
#[reflect(opaque, Clone)]
#[allow(missing_docs)]
pub struct ColorRulesReflect;

/// Reflection of the core's [`PostProcess`] as one opaque value.
#[reflect_remote(PostProcess)]
#[derive(Clone)]
#[reflect(opaque, Clone)]
#[allow(missing_docs)]
pub struct PostProcessReflect;

/// Reflection of the core's [`Erosion`] as one opaque value.
#[reflect_remote(Erosion)]
#[derive(Clone)]
#[reflect(opaque, Clone)]
#[allow(missing_docs)]
pub struct ErosionReflect;

/// Reflection of the scatter layers as one opaque value.
#[reflect_remote(Vec<ScatterLayer>)]
#[derive(Clone)]
#[reflect(opaque, Clone)]
#[allow(missing_docs)]
pub struct ScatterLayersReflect;

/// Reflection of the core's [`ColorRamp`] as one opaque value.
#[reflect_remote(ColorRamp)]
#[derive(Clone)]
#[reflect(opaque, Clone)]
#[allow(missing_docs)]
pub struct ColorRampReflect;

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::reflect::structs::Struct;

    proptest::proptest! {
        /// Whatever the fields hold (NaN, infinities, zero, huge), validation gives parameters
        /// that validate to themselves with nothing to report, and a finite vertex density.
        #[test]
        fn validation_is_a_fixed_point(
            resolution in proptest::num::u32::ANY,
            world_size in proptest::num::f32::ANY,
            height_scale in proptest::num::f32::ANY,
            water_level in proptest::num::f32::ANY,
            chunk_size in proptest::num::f32::ANY,
            chunk_vertices in proptest::num::u32::ANY,
            view_distance in proptest::num::f32::ANY,
            lod_levels in proptest::num::u32::ANY,
            endless in proptest::bool::ANY,
        ) {
            let layout = match endless {
                true => TerrainLayout::Endless { chunk_size, chunk_vertices, view_distance, lod_levels },
                false => TerrainLayout::Patch,
            };
            let given = TerrainParams { resolution, world_size, height_scale, water_level, layout, ..default() };
            let (used, _) = given.validated();
            proptest::prop_assert_eq!(&given.clamped(), &used, "clamped is validated without the notes");
            let (again, changes) = used.validated();
            proptest::prop_assert_eq!(&again, &used);
            proptest::prop_assert!(changes.is_empty(), "{:?}", changes);
            let density = used.vertices_per_unit();
            proptest::prop_assert!(density.is_finite() && density > 0.0, "{}", density);
            proptest::prop_assert!((1..=12).contains(&used.octaves_the_mesh_resolves()));
        }
    }

    #[test]
    fn the_mesh_resolves_octaves_up_to_half_its_vertex_density() {
        // Frequency 3, lacunarity 2: octaves at 3, 6, 12, 24, 48, 96, ...
        let patch = |resolution| TerrainParams { resolution, ..default() };
        assert_eq!(patch(256).vertices_per_unit(), 256.0);
        assert_eq!(patch(256).octaves_the_mesh_resolves(), 6, "96 <= 128 < 192");
        assert_eq!(patch(2).octaves_the_mesh_resolves(), 1, "always at least the first");
        // Endless: 64 vertex spacings per 64-unit chunk, 100 units per map unit: 100 per unit.
        let endless = TerrainParams { layout: TerrainLayout::ENDLESS, ..default() };
        assert_eq!(endless.vertices_per_unit(), 100.0);
        assert_eq!(endless.octaves_the_mesh_resolves(), 5, "48 <= 50 < 96");
    }

    #[test]
    fn params_reflect_field_by_field_and_clone_through_reflection() {
        let mut p = TerrainParams::default();
        p.noise.seed = 99;
        p.post.terraces = 3;
        let names: Vec<_> = (0..p.field_len()).map(|i| p.name_at(i).unwrap()).collect();
        assert!(
            names.contains(&"noise") && names.contains(&"ramp") && names.contains(&"resolution"),
            "{names:?}"
        );
        let cloned = p.reflect_clone().unwrap().take::<TerrainParams>().unwrap();
        assert_eq!(cloned, p);
    }

    #[test]
    fn defaults_are_valid() {
        let (used, changes) = TerrainParams::default().validated();
        assert!(changes.is_empty(), "{changes:?}");
        assert_eq!(used, TerrainParams::default());
    }

    #[test]
    fn bad_layout_values_are_clamped_and_named() {
        for (bad, check) in [
            (
                TerrainLayout::Endless {
                    chunk_size: 0.0,
                    chunk_vertices: 1,
                    view_distance: 1e9,
                    lod_levels: 100,
                },
                (CHUNK_SIZE_RANGE.0, 3, 16),
            ),
            (
                TerrainLayout::Endless {
                    chunk_size: f32::NAN,
                    chunk_vertices: 64,
                    view_distance: f32::NAN,
                    lod_levels: 0,
                },
                (64.0, 65, 1),
            ),
        ] {
            let (used, changes) = TerrainParams { layout: bad, ..default() }.validated();
            assert!(changes.iter().any(|c| c.field == "layout"), "{changes:?}");
            let TerrainLayout::Endless { chunk_size, chunk_vertices, view_distance, lod_levels } =
                used.layout
            else {
                panic!("the layout stays endless")
            };
            assert_eq!((chunk_size, chunk_vertices, lod_levels), check);
            assert!(view_distance.is_finite() && view_distance >= chunk_size);
            assert_eq!(used.layout.clamped(), used.layout, "clamping is idempotent");
        }
        let (_, changes) = TerrainParams { layout: TerrainLayout::ENDLESS, ..default() }.validated();
        assert!(changes.is_empty(), "{changes:?}");
    }

    #[test]
    fn out_of_range_values_are_clamped_and_named() {
        let mut p = TerrainParams::default();
        p.noise.octaves = 1000;
        p.noise.frequency = f32::NAN;
        p.resolution = 0;
        p.height_scale = f32::INFINITY;
        let (used, changes) = p.validated();
        assert_eq!(used.noise.octaves, 12);
        assert_eq!(used.noise.frequency, NoiseSettings::default().frequency);
        assert_eq!(used.resolution, MIN_RESOLUTION);
        assert_eq!(used.height_scale, HEIGHT_SCALE_RANGE.1);
        let fields: Vec<_> = changes.iter().map(|c| c.field).collect();
        assert_eq!(fields, ["octaves", "frequency", "resolution", "height_scale"]);
    }
}
