//! Coherent noise for terrain, without Bevy: noise fields, heightmaps, erosion and rivers,
//! colours, endless-world chunks and scatter, for a game, a server or a tool.
//!
//! # Where to start
//!
//! A field is plain data, [`NoiseSettings`]: a [`Basis`] (value, gradient, simplex, Worley), a
//! [`Fade`] curve, a [`Fractal`] sum of octaves, an optional [`Warp`] and [`ErosionFilter`]. Ask
//! it for one height with [`NoiseSettings::sample`], for many points with [`FieldSampler`], or
//! for a whole [`Heightmap`] at once (on all cores, with SIMD, bit for bit what sampling gives):
//!
//! ```
//! use noise_terrain_core::{Heightmap, NoiseSettings};
//!
//! let settings = NoiseSettings { octaves: 6, seed: 42, ..Default::default() };
//! let height = settings.sample(0.25, 0.75); // one point, in [0, 1]
//! let map = Heightmap::generate(&settings, 256, 256).unwrap();
//! let stats = map.stats();
//! assert!(0.0 <= stats.min && stats.max <= 1.0 && (0.0..=1.0).contains(&height));
//! ```
//!
//! Then, by what you want to make:
//! - **Shape the map**: [`PostProcess`] (stretch, redistribution, [`IslandShape`] masks,
//!   terraces); [`erode`] with [`Erosion`] (droplets, thermal, stream power); rivers carved by
//!   [`evolve_landscape`] ([`StreamPower`]), which leaves a [`Drainage`] with [`River`]
//!   polylines.
//! - **Colour it**: [`ColorRamp`] (heights to colours) and [`ColorRules`] (layers by height, slope
//!   and the erosion filter's cut).
//! - **Render it**: [`Surface`] turns a heightmap into vertex and index arrays;
//!   [`GridPlacement`] and [`raycast_grid`] answer height queries and ray casts on its triangles.
//! - **An endless world**: [`select_chunks`] says which chunks ([`ChunkKey`]) exist around a
//!   focus and at which level of detail ([`LodSettings`]); [`chunk_window`] says where each
//!   samples the field, as a [`GridWindow`] for [`fill_grid`] or [`fill_grid_with_gradients`];
//!   a [`RiverNetwork`] (from [`TerrainPreset::river_world`], with [`EndlessRivers`] on) gives
//!   its rivers and lakes and carves their valleys into any window, the same bits whatever is
//!   built first.
//! - **Put things on the ground**: [`ScatterRule`] and [`scatter_points`] place points by height,
//!   slope and erosion cut, the same points however the world is cut; [`WorldGround`] is an
//!   endless terrain's ground at any point.
//! - **Share settings with the plugin and the tool**: [`TerrainPreset`], the preset files' schema.
//!
//! Three modules hold the rest:
//! - [`basis`]: single layers of each basis at a point, to build fields of your own.
//! - [`limits`]: every parameter's range and every size limit, and [`limits::clamp_or`], the
//!   rule that applies them. Out-of-range values are clamped (NaN takes the default), never a
//!   panic; [`NoiseSettings::validate`] names each change ([`Clamped`]).
//! - [`advanced`]: what the plugin and the command-line tool build on (exact-gradient types,
//!   edge stitching, the chunk selector kept between frames, bounded preset reading, atomic file
//!   writes, the instruction-set level grids run at).
//!
//! Randomness comes only from hashing a seed with lattice coordinates: the same settings give
//! the same bits on every machine, thread count and instruction-set level.
//!
//! # Cargo features
//! - `parallel` (default): grids, erosion and colours on all cores (rayon).
//! - `png` (default): [`Heightmap`] encodes 16-bit PNG files.
//! - `serialize`: serde for every settings type (the preset files).
//!
//! # The source
//! Each folder is a private module whose public items the root and the three modules above
//! re-export:
//! - `field/`: one noise field: its settings and their validation (`settings.rs`), sampling it
//!   (`sampler.rs`), the bases (`field/basis/`: value, gradient and its kernels, simplex, Worley,
//!   the lattice), fade curves, fractal sums, domain warp, the erosion filter, exact derivatives
//!   (`dual.rs`), hashing and coordinates.
//! - `grid/`: filling a whole grid at once: the heights' row paths (`mod.rs`, by basis in
//!   `simplex_rows.rs`, `lattice_rows.rs` for value and gradient noise, `worley_rows.rs`, and the
//!   cells they share in `rows.rs`), heights with gradients (`gradients/`: the rows, the octaves'
//!   jets, the erosion filter's gully octaves, the damped fractal), the SIMD rows
//!   (`kernels/`, written once over the lanes of `lanes/`: AVX2, AVX-512, and portable lanes on
//!   which every CPU checks the 16-lane kernels' bits), the lattice columns they share (`column_table.rs`), which level runs
//!   (`level.rs`, with `isa.rs` at the root compiling each path per level and making the proof of
//!   a level, `Isa`), and the erosion filter's cut depths over a grid (`cut_depths.rs`).
//! - `map/`: whole maps: [`Heightmap`], frames, post-processing, ray casts, [`Surface`], and
//!   `map/erosion/` (droplets, thermal, diffusion, stream power, drainage and rivers).
//! - `world/`: a terrain's layout, one patch or endless chunks ([`TerrainLayout`], `layout.rs`),
//!   the endless world's chunks and levels of detail (`lod.rs`), and work split over a buffer's
//!   chunks on all cores (`chunks.rs`).
//! - `rivers/`: the endless world's rivers and lakes: settings, regions of the drainage grid
//!   routed on their windows, the network that keeps them, what reaches a rectangle (its water
//!   at any point), and the valleys carved for them.
//! - `color/`: the height ramp, the colour rules, and the colours erosion leaves (`erosion_tint.rs`).
//! - `scatter/`: rules, layers, the points they place and the ground they see.
//! - `preset/`: [`TerrainPreset`], bounded preset reading and atomic writes.
#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(unreachable_pub)]

mod clamp;
mod color;
mod field;
mod grid;
mod isa;
mod map;
mod preset;
mod rivers;
mod scatter;
#[cfg(test)]
mod test_support;
/// The crate's README example, compiled and run as a doc-test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct Readme;
mod world;

pub use color::ramp::{ColorRamp, RampStop};
pub use color::rules::{ColorLayer, ColorRules};
pub use field::basis::{Basis, GradientKernel};
pub use field::erosion_filter::ErosionFilter;
pub use field::fade::Fade;
pub use field::fractal::Fractal;
pub use field::warp::Warp;
pub use field::{Clamped, FieldSampler, NoiseSettings};
pub use grid::gradients::fill_grid_with_gradients;
pub use grid::{GridWindow, fill_grid};
pub use map::erosion::{
    Border, Drainage, Erosion, ErosionError, ErosionMaps, Hydraulic, MapWorld, River, RiverEnd, RiverPoint,
    RiverSettings, StreamPower, StreamPowerMaps, Thermal, erode, evolve_landscape,
};
pub use map::heightmap::{HeightStats, Heightmap, HeightmapError};
pub use map::postprocess::{IslandShape, PostProcess};
pub use map::raycast::{GridPlacement, raycast_grid};
pub use map::surface::Surface;
pub use preset::terrain::TerrainPreset;
pub use rivers::{
    EndlessRivers, RegionKey, RegionRivers, RiverNetwork, RiverSegment, RiverWater, RiverWorld, RiversNear,
    river_runs,
};
pub use scatter::ground::WorldGround;
pub use scatter::layer::{ScatterLayer, ScatterShape};
pub use scatter::points::{ScatterError, ScatterLevels, ScatterPoint, scatter_points};
pub use scatter::rule::{Ground, ScatterRule};
pub use world::layout::TerrainLayout;
pub use world::lod::{ChunkKey, LodSettings, SelectedChunk, chunk_window, select_chunks};

/// Single layers of each basis, the building blocks of every field: one octave of value,
/// gradient, simplex or Worley noise at a point, in 1, 2 or 3 dimensions, on a [`Lattice`](basis::Lattice)
/// (seed, period, fade). [`NoiseSettings`] sums octaves of these; use them directly to build a
/// field of your own.
///
/// ```
/// use noise_terrain_core::Fade;
/// use noise_terrain_core::basis::{Lattice, gradient_2d_noise, value_2d};
///
/// let lattice = Lattice::new(7, Fade::Quintic);
/// let (v, g) = (value_2d(&lattice, 1.5, 2.25), gradient_2d_noise(&lattice, 1.5, 2.25));
/// assert!((0.0..=1.0).contains(&v) && (-1.0..=1.0).contains(&g));
/// ```
pub mod basis {
    pub use crate::field::basis::{
        DistanceMetric, Lattice, Worley, WorleyReturn, gradient_1d, gradient_2d_noise, gradient_3d_noise,
        simplex_2d, simplex_3d, value_1d, value_2d, value_3d, worley_2d, worley_3d,
    };
}

/// Every parameter's documented range and every size limit, and the one rule that applies
/// them ([`clamp_or`](limits::clamp_or): a value out of range takes the nearest end, NaN takes
/// the default). Front ends (the plugin's inspector, the command-line tool's help) read their
/// ranges from here, so they cannot drift from what the core does.
///
/// ```
/// use noise_terrain_core::NoiseSettings;
/// use noise_terrain_core::limits::{MAX_OCTAVES, clamp_or};
///
/// let wild = NoiseSettings { octaves: 99, ..Default::default() };
/// assert_eq!(wild.clamped().octaves, MAX_OCTAVES);
/// assert_eq!(clamp_or(f32::NAN, (0.0, 1.0), 0.5), 0.5);
/// ```
pub mod limits {
    pub use crate::clamp::{SLOPE_DEGREES_RANGE, UNIT_RANGE, clamp_or};
    pub use crate::color::ramp::MAX_RAMP_STOPS;
    pub use crate::color::rules::{COLOR_HEIGHT_RANGE, CUT_DEPTH_RANGE, MAX_COLOR_LAYERS};
    pub use crate::field::coord::COORDINATE_LIMIT;
    pub use crate::field::erosion_filter::{
        FILTER_GAIN_RANGE, FILTER_SCALE_RANGE, FILTER_STRENGTH_RANGE, MAX_FILTER_OCTAVES,
    };
    pub use crate::field::fractal::{MAX_OCTAVES, MIN_OCTAVES};
    pub use crate::field::warp::{MAX_WARP_AMPLITUDE, MAX_WARP_OCTAVES, WARP_FREQUENCY_RANGE};
    pub use crate::field::{
        DAMPING_RANGE, FRACTAL_OFFSET_RANGE, FREQUENCY_RANGE, GAIN_RANGE, LACUNARITY_RANGE, MAX_PERIOD,
        PERSISTENCE_RANGE,
    };
    pub use crate::map::erosion::{
        AREA_EXPONENT_RANGE, CAPACITY_RANGE, DIFFUSION_RANGE, ERODIBILITY_RANGE, EROSION_RADIUS_RANGE,
        EROSION_SCALE_RANGE, GRAVITY_RANGE, INERTIA_RANGE, LIFETIME_RANGE, MAX_DIFFUSION_SUBSTEPS,
        MAX_DROPLETS, MAX_STREAM_POWER_STEPS, MAX_THERMAL_ITERATIONS, RIVER_AREA_RANGE, RIVER_WIDTH_RANGE,
        SLOPE_EXPONENT_RANGE, TALUS_ANGLE_RANGE, TIME_STEP_RANGE, UPLIFT_RANGE,
    };
    pub use crate::map::heightmap::MAX_SAMPLES;
    pub use crate::preset::file::MAX_PRESET_BYTES;
    pub use crate::preset::terrain::{
        HEIGHT_SCALE_RANGE, RESOLUTION_RANGE, WATER_LEVEL_RANGE, WORLD_SIZE_RANGE,
    };
    pub use crate::rivers::{
        CHANNEL_DEPTH_RANGE, DEFAULT_KEPT_REGIONS, ENDLESS_RIVER_AREA_RANGE, ENDLESS_RIVER_WIDTH_RANGE,
        VALLEY_WIDTH_RANGE,
    };
    pub use crate::scatter::layer::{MAX_SCATTER_LAYERS, SCATTER_VIEW_DISTANCE_RANGE};
    pub use crate::scatter::points::MAX_SCATTER_CELLS;
    pub use crate::scatter::rule::{
        SCATTER_DENSITY_RANGE, SCATTER_HEIGHT_RANGE, SCATTER_SCALE_RANGE, SCATTER_SPACING_RANGE,
    };
    pub use crate::world::layout::{CHUNK_SIZE_RANGE, CHUNK_VERTICES_RANGE};
    pub use crate::world::lod::{MAX_LOD_LEVELS, MAX_ROOTS_ACROSS};
}

/// What the plugin and the command-line tool build on and a game rarely needs: the types behind
/// exact gradients and fractal sums, filling grids into memory a tool manages itself, the
/// instruction-set level grids run at, stitching a surface's edges to coarser neighbours, the
/// chunk selector a streaming front end keeps between frames, ranked scatter, reading preset
/// files with a bound and writing files atomically, the post-processing frame, and the numbers
/// these use.
pub mod advanced {
    pub use crate::color::erosion_tint::RIVER_WATER;
    pub use crate::color::ramp::OVERFLOW_COLOR;
    pub use crate::color::rules::slope_degrees;
    pub use crate::field::OCTAVE_ROTATION;
    pub use crate::field::dual::{Dual, Octave};
    pub use crate::field::fractal::{FractalParams, RawToUnit, Sloped, amplitude_sum};
    pub use crate::grid::cut_depths::fill_cut_depths;
    pub use crate::grid::fill_grid_uninit;
    pub use crate::grid::level::{gradients_grid_level, grid_level};
    pub use crate::isa::ISA_VARIABLE;
    pub use crate::map::erosion::{EROSION_REFERENCE_CELLS, ErosionTotals, LandscapeBudget, drainage_of};
    pub use crate::map::frame::Frame;
    pub use crate::map::surface::{SurfaceLayout, fold_stitched_edges};
    pub use crate::preset::file::{
        PresetReadError, PresetSize, WriteError, read_preset_bytes, write_atomically,
    };
    pub use crate::rivers::{DRAINAGE_CELLS_PER_UNIT, REGION_CELLS, REGION_MARGIN};
    pub use crate::scatter::points::scatter_points_ranked;
    pub use crate::world::lod::{ChunkSelector, Corner, SPLIT_DISTANCE, Side, Stitch};
}
