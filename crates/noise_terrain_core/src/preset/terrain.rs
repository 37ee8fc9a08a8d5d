//! [`TerrainPreset`]: the settings of a terrain that the plugin (its `TerrainParams` resource
//! and `TerrainSettings` component hold one), its inspector and the `noise-terrain` tool share,
//! with their defaults and ranges written once.

use crate::clamp::clamp_or;
use crate::field::fractal::MAX_OCTAVES;
use crate::rivers::{EndlessRivers, RiverWorld};
use crate::scatter::layer::clamped_layers;
use crate::world::layout::TerrainLayout;
use crate::{Clamped, ColorRamp, ColorRules, Erosion, NoiseSettings, PostProcess, ScatterLayer};

/// Vertices per side of a patch: at least 2; at most 2048 (2048² vertices is about 170 MB of
/// vertex data, texture and heights).
pub const RESOLUTION_RANGE: (u32, u32) = (2, 2048);
/// Side length of a patch in world units.
pub const WORLD_SIZE_RANGE: (f32, f32) = (0.01, 1e6);
/// World height of a noise height of 1.
pub const HEIGHT_SCALE_RANGE: (f32, f32) = (0.0, 1e5);
/// Noise height of the shoreline.
pub const WATER_LEVEL_RANGE: (f32, f32) = (0.0, 1.0);

/// A terrain's settings: the field, what is done with its map, which pieces it is made of, and
/// how it is shown. What a preset file holds (the tool builds one map whatever the `layout`); a
/// field a file leaves out takes its default here.
///
/// ```
/// use noise_terrain_core::TerrainPreset;
///
/// let preset = TerrainPreset { water_level: 0.3, height_scale: 80.0, ..Default::default() };
/// let (valid, clamped) = TerrainPreset { water_level: 7.0, ..preset.clone() }.validated();
/// assert_eq!((valid.water_level, clamped.len()), (1.0, 1));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serialize", serde(default))]
pub struct TerrainPreset {
    /// The noise field.
    pub noise: NoiseSettings,
    /// Whole-map post-processing.
    pub post: PostProcess,
    /// Stream power, droplet and thermal erosion after post-processing (off by default);
    /// droplets and scree for a map 512 cells across ([`Erosion::for_map`] scales them), stream
    /// power in world units. The patch only: erosion needs the whole map, so the endless
    /// layout ignores it.
    pub erosion: Erosion,
    /// Which pieces of terrain exist: one patch (the default) or endless chunks.
    pub layout: TerrainLayout,
    /// Vertices per side of a patch (and texels of its texture), [`RESOLUTION_RANGE`].
    pub resolution: u32,
    /// Side length of a patch in world units, [`WORLD_SIZE_RANGE`].
    pub world_size: f32,
    /// World height of a noise height of 1, [`HEIGHT_SCALE_RANGE`].
    pub height_scale: f32,
    /// Noise height of the shoreline, [`WATER_LEVEL_RANGE`]: the ramp's water colours sit below.
    pub water_level: f32,
    /// Colours from deep water to snow.
    pub ramp: ColorRamp,
    /// Layers painted over the ramp by height, slope and the erosion filter's cut.
    pub colors: ColorRules,
    /// Paint heights above 1 orange (only reachable with normalisation off).
    pub show_overflow: bool,
    /// Things placed on the ground (none by default), at most
    /// [`MAX_SCATTER_LAYERS`](crate::limits::MAX_SCATTER_LAYERS).
    pub scatter: Vec<ScatterLayer>,
    /// Show a sea surface at the water level (off by default).
    pub sea: bool,
    /// Show the rivers of stream power as water over their channels (off by default; the
    /// texture paints them either way).
    pub river_water: bool,
    /// Rivers and lakes of the endless layout (off by default; the patch ignores them).
    pub endless_rivers: EndlessRivers,
}

impl Default for TerrainPreset {
    fn default() -> Self {
        Self {
            noise: NoiseSettings { octaves: 6, frequency: 3.0, ..NoiseSettings::default() },
            post: PostProcess::default(),
            erosion: Erosion::default(),
            layout: TerrainLayout::Patch,
            resolution: 256,
            world_size: 100.0,
            height_scale: 24.0,
            water_level: 0.42,
            ramp: ColorRamp::terrain(),
            colors: ColorRules::landscape(),
            show_overflow: true,
            scatter: Vec::new(),
            sea: false,
            river_water: false,
            endless_rivers: EndlessRivers::default(),
        }
    }
}

impl TerrainPreset {
    /// An endless world of mountains cut by water: gradient fBm of 7 octaves carved by the
    /// erosion filter's branching gullies, one map unit 2 km wide and 420 units high, the sea at
    /// 0.24, rivers and lakes in the valleys, trees and rocks on the land
    /// ([`ScatterLayer::landscape`]). The `endless` example's world.
    ///
    /// ```
    /// use noise_terrain_core::TerrainPreset;
    ///
    /// let world = TerrainPreset::river_mountains();
    /// assert!(world.has_endless_rivers() && !world.scatter.is_empty());
    /// // Dry, bare and without the sea: the same ground without rivers.
    /// let bare = TerrainPreset { scatter: Vec::new(), sea: false, ..TerrainPreset::river_mountains() };
    /// assert_eq!(bare.noise, world.noise);
    /// ```
    pub fn river_mountains() -> TerrainPreset {
        use crate::{ErosionFilter, Fractal};
        TerrainPreset {
            layout: TerrainLayout::ENDLESS,
            noise: NoiseSettings {
                fractal: Fractal::Fbm,
                octaves: 7,
                frequency: 3.0,
                persistence: 0.5,
                seed: 11,
                erosion_filter: ErosionFilter { enabled: true, scale: 8.0, octaves: 4, ..Default::default() },
                ..Default::default()
            },
            post: PostProcess { power: 1.5, ..Default::default() },
            world_size: 2000.0,
            height_scale: 420.0,
            water_level: 0.24,
            scatter: ScatterLayer::landscape(),
            sea: true,
            endless_rivers: EndlessRivers { enabled: true, ..Default::default() },
            ..Default::default()
        }
    }

    /// The settings with every value in its range (NaN takes the default), and what changed.
    pub fn validated(&self) -> (TerrainPreset, Vec<Clamped>) {
        let mut changes = self.noise.validate();
        let used = self.clamped();
        let mut note = |field, given: String, now: String| {
            if given != now {
                changes.push(Clamped { field, given, used: now });
            }
        };
        note("post", format!("{:?}", self.post), format!("{:?}", used.post));
        note("erosion", format!("{:?}", self.erosion), format!("{:?}", used.erosion));
        note("colors", format!("{:?}", self.colors), format!("{:?}", used.colors));
        note("ramp", format!("{:?}", self.ramp), format!("{:?}", used.ramp));
        note("scatter", format!("{:?}", self.scatter), format!("{:?}", used.scatter));
        note("resolution", self.resolution.to_string(), used.resolution.to_string());
        note("world_size", self.world_size.to_string(), used.world_size.to_string());
        note("height_scale", self.height_scale.to_string(), used.height_scale.to_string());
        note("water_level", self.water_level.to_string(), used.water_level.to_string());
        note("layout", format!("{:?}", self.layout), format!("{:?}", used.layout));
        let rivers = (format!("{:?}", self.endless_rivers), format!("{:?}", used.endless_rivers));
        note("endless_rivers", rivers.0, rivers.1);
        (used, changes)
    }

    /// The settings with every value in its range (NaN takes the default): what
    /// [`validated`](Self::validated) uses, without telling what changed (no text is made, so
    /// it is cheap enough for every build).
    pub fn clamped(&self) -> TerrainPreset {
        let default = Self::default();
        TerrainPreset {
            noise: self.noise.clamped(),
            post: self.post.clamped(),
            erosion: self.erosion.clamped(),
            layout: self.layout.clamped(),
            colors: self.colors.clamped(),
            ramp: self.ramp.clamped(),
            resolution: self.resolution.clamp(RESOLUTION_RANGE.0, RESOLUTION_RANGE.1),
            world_size: clamp_or(self.world_size, WORLD_SIZE_RANGE, default.world_size),
            height_scale: clamp_or(self.height_scale, HEIGHT_SCALE_RANGE, default.height_scale),
            water_level: clamp_or(self.water_level, WATER_LEVEL_RANGE, default.water_level),
            scatter: clamped_layers(&self.scatter),
            endless_rivers: self.endless_rivers.clamped(),
            ..self.clone()
        }
    }

    /// What the endless layout's rivers are a function of ([`RiverNetwork::new`](crate::RiverNetwork::new) takes it): a
    /// network made from it carves the chunks of these settings.
    pub fn river_world(&self) -> RiverWorld {
        let p = self.clamped();
        RiverWorld {
            noise: p.noise,
            post: p.post,
            sea_level: p.water_level,
            world_size: p.world_size,
            height_scale: p.height_scale,
            rivers: p.endless_rivers,
        }
    }

    /// Whether chunks of these settings are carved by rivers: the endless layout with its
    /// rivers on.
    pub fn has_endless_rivers(&self) -> bool {
        self.endless_rivers.enabled && matches!(self.layout, TerrainLayout::Endless { .. })
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
    /// [`MAX_OCTAVES`]).
    pub fn octaves_the_mesh_resolves(&self) -> u32 {
        let limit = self.vertices_per_unit() / 2.0;
        let n = &self.noise;
        (0..MAX_OCTAVES).take_while(|&i| n.octave_frequency(i) <= limit).count().max(1) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_in_range_and_validation_is_a_fixed_point() {
        let (used, changes) = TerrainPreset::default().validated();
        assert!(changes.is_empty(), "{changes:?}");
        assert_eq!(used, TerrainPreset::default());
        let bad = TerrainPreset {
            resolution: 0,
            world_size: f32::NAN,
            height_scale: -1.0,
            water_level: 7.0,
            ..TerrainPreset::default()
        };
        let (used, changes) = bad.validated();
        let fields: Vec<_> = changes.iter().map(|c| c.field).collect();
        assert_eq!(fields, ["resolution", "world_size", "height_scale", "water_level"]);
        assert_eq!(
            (used.resolution, used.world_size, used.height_scale, used.water_level),
            (2, 100.0, 0.0, 1.0)
        );
        assert_eq!(bad.clamped(), used, "clamped is validated without the notes");
        assert!(used.validated().1.is_empty(), "clamped settings stay as they are");
    }

    proptest::proptest! {
        /// Whatever the fields hold (NaN, infinities, zero, huge), validation gives settings
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
            let given = TerrainPreset { resolution, world_size, height_scale, water_level, layout, ..TerrainPreset::default() };
            let (used, _) = given.validated();
            proptest::prop_assert_eq!(&given.clamped(), &used, "clamped is validated without the notes");
            let (again, changes) = used.validated();
            proptest::prop_assert_eq!(&again, &used);
            proptest::prop_assert!(changes.is_empty(), "{:?}", changes);
            let density = used.vertices_per_unit();
            proptest::prop_assert!(density.is_finite() && density > 0.0, "{}", density);
            proptest::prop_assert!((1..=MAX_OCTAVES).contains(&used.octaves_the_mesh_resolves()));
        }
    }

    #[test]
    fn the_mesh_resolves_octaves_up_to_half_its_vertex_density() {
        // Frequency 3, lacunarity 2: octaves at 3, 6, 12, 24, 48, 96, ...
        let patch = |resolution| TerrainPreset { resolution, ..TerrainPreset::default() };
        assert_eq!(patch(256).vertices_per_unit(), 256.0);
        assert_eq!(patch(256).octaves_the_mesh_resolves(), 6, "96 <= 128 < 192");
        assert_eq!(patch(2).octaves_the_mesh_resolves(), 1, "always at least the first");
        // Endless: 64 vertex spacings per 64-unit chunk, 100 units per map unit: 100 per unit.
        let endless = TerrainPreset { layout: TerrainLayout::ENDLESS, ..TerrainPreset::default() };
        assert_eq!(endless.vertices_per_unit(), 100.0);
        assert_eq!(endless.octaves_the_mesh_resolves(), 5, "48 <= 50 < 96");
    }

    #[test]
    fn bad_layout_values_are_clamped_and_named() {
        use crate::world::layout::CHUNK_SIZE_RANGE;
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
            let (used, changes) = TerrainPreset { layout: bad, ..TerrainPreset::default() }.validated();
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
        let (_, changes) =
            TerrainPreset { layout: TerrainLayout::ENDLESS, ..TerrainPreset::default() }.validated();
        assert!(changes.is_empty(), "{changes:?}");
    }

    #[test]
    fn out_of_range_values_are_clamped_and_named() {
        let mut p = TerrainPreset::default();
        p.noise.octaves = 1000;
        p.noise.frequency = f32::NAN;
        p.resolution = 0;
        p.height_scale = f32::INFINITY;
        let (used, changes) = p.validated();
        assert_eq!(used.noise.octaves, MAX_OCTAVES);
        assert_eq!(used.noise.frequency, NoiseSettings::default().frequency);
        assert_eq!(used.resolution, RESOLUTION_RANGE.0);
        assert_eq!(used.height_scale, HEIGHT_SCALE_RANGE.1);
        let fields: Vec<_> = changes.iter().map(|c| c.field).collect();
        assert_eq!(fields, ["octaves", "frequency", "resolution", "height_scale"]);
    }
}
