//! Coherent noise for terrain, without Bevy.
//!
//! The public API is what the crate root exports (the modules are private):
//! - [`NoiseSettings`]: plain data describing a field; [`NoiseSettings::sample`] gives its height
//!   at a point, [`FieldSampler`] samples many points. Its parts: [`Basis`] (value, gradient,
//!   simplex, [`Worley`]), [`Fade`], [`Fractal`] (fBm, billow, Musgrave's multifractals, derivative-damped fBm), [`Warp`]
//!   (domain warp). The single-layer functions ([`value_2d`], [`gradient_2d_noise`],
//!   [`simplex_2d`], [`worley_2d`], ...) take a [`Lattice`]. Randomness comes only from hashing a
//!   seed with lattice coordinates.
//! - [`Heightmap`]: a grid of heights with statistics and encodings; [`fill_grid`] fills any
//!   [`GridWindow`] of a field's pixel lattice on all cores, bit for bit what point sampling gives.
//! - [`erode`]: droplet and thermal erosion, and [`evolve_landscape`]: rivers carved by the
//!   stream-power law, with the [`Drainage`] they leave (areas, lakes, [`River`] polylines).
//! - [`PostProcess`]: stretch, redistribution, island mask, terraces, over a [`Frame`] or in world
//!   space.
//! - [`ColorRamp`]: heights to colours, water through meadow to snow.
//! - [`Surface`]: a heightmap as vertex and index arrays for a renderer, with edges stitched to
//!   coarser neighbours ([`SurfaceLayout`], [`Stitch`]).
//! - [`select_chunks`]: which chunks ([`ChunkKey`]) of an endless terrain exist around a focus,
//!   at which level of detail; [`chunk_window`] says where a chunk samples the field.
//! - [`ScatterRule`] and [`scatter_points`]: things placed on the ground by height, slope and
//!   erosion cut, the same points however the world is cut into pieces; [`WorldGround`] is an
//!   endless terrain's ground at any point.
//! - [`GridPlacement`] and [`raycast_grid`]: height queries and ray casts against a height grid's
//!   triangles.
//!
//! The source is grouped by concept, each folder a private module whose public items the root
//! re-exports:
//! - `field/`: one noise field and its parts: the bases (`field/basis/`), fade curves, fractal
//!   sums, domain warp, the erosion filter, and the exact derivatives they carry (`dual.rs`),
//!   hashing and coordinates.
//! - `grid/`: filling a whole grid of a field at once, the heights' and the gradients' row paths
//!   (`rows.rs` holds what both share; `avx512.rs` the AVX-512 rows of every basis); `isa.rs`
//!   compiles them per instruction-set level and `grid/level.rs` picks the fastest one.
//! - `map/`: what is done with a whole map: [`Heightmap`], [`Frame`], post-processing, droplet
//!   and thermal erosion and stream-power rivers (`map/erosion/`), the [`Surface`] arrays, ray
//!   casts.
//! - `world/`: the endless world's chunks and levels of detail.
//! - `color/`: the height ramp and the colour rules.
//! - `scatter/`: rules that place things on the ground, and the ground they see.
//! - `preset/`: the settings every front end shares ([`TerrainPreset`]), reading a preset file
//!   with a bound, writing files atomically.
//! - [`advanced`]: what games do not need (the derivative types, filling uninitialised memory,
//!   the instruction-set level grids run at).
//!
//! Every parameter has a documented range; out-of-range values are clamped by one rule
//! ([`clamp_or`]: NaN takes the default) and [`NoiseSettings::validate`] names each change.
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
#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(unreachable_pub)]

mod clamp;
mod color;
mod field;
mod grid;
mod isa;
pub use isa::ISA_VARIABLE;
mod map;
mod preset;
mod scatter;
#[cfg(test)]
mod test_support;
mod world;

pub use clamp::clamp_or;
pub use color::ramp::{ColorRamp, MAX_RAMP_STOPS, OVERFLOW_COLOR, RampStop};
pub use color::rules::{ColorLayer, ColorRules, MAX_COLOR_LAYERS, slope_degrees};
pub use field::basis::{
    Basis, DistanceMetric, GradientKernel, Lattice, Worley, WorleyReturn, gradient_1d, gradient_2d_noise,
    gradient_3d_noise, simplex_2d, simplex_3d, value_1d, value_2d, value_3d, worley_2d, worley_3d,
};
pub use field::coord::COORDINATE_LIMIT;
pub use field::erosion_filter::{
    ErosionFilter, FILTER_GAIN_RANGE, FILTER_SCALE_RANGE, FILTER_STRENGTH_RANGE, MAX_FILTER_OCTAVES,
    fill_cut_depths,
};
pub use field::fade::Fade;
pub use field::fractal::{Fractal, MAX_OCTAVES, MIN_OCTAVES, amplitude_sum};
pub use field::warp::{MAX_WARP_AMPLITUDE, MAX_WARP_OCTAVES, WARP_FREQUENCY_RANGE, Warp};
pub use field::{
    Clamped, DAMPING_RANGE, FRACTAL_OFFSET_RANGE, FREQUENCY_RANGE, FieldSampler, GAIN_RANGE,
    LACUNARITY_RANGE, MAX_PERIOD, NoiseSettings, OCTAVE_ROTATION, PERSISTENCE_RANGE,
};
pub use grid::gradients::fill_grid_with_gradients;
pub use grid::{GridWindow, fill_grid};
pub use map::erosion::{
    AREA_EXPONENT_RANGE, Border, CAPACITY_RANGE, DIFFUSION_RANGE, Drainage, ERODIBILITY_RANGE,
    EROSION_RADIUS_RANGE, EROSION_REFERENCE_CELLS, EROSION_SCALE_RANGE, Erosion, ErosionError, ErosionMaps,
    ErosionTotals, GRAVITY_RANGE, Hydraulic, INERTIA_RANGE, LIFETIME_RANGE, LandscapeBudget,
    MAX_DIFFUSION_SUBSTEPS, MAX_DROPLETS, MAX_STREAM_POWER_STEPS, MAX_THERMAL_ITERATIONS, MapWorld,
    RIVER_AREA_RANGE, RIVER_WATER, RIVER_WIDTH_RANGE, River, RiverEnd, RiverPoint, RiverSettings,
    SLOPE_EXPONENT_RANGE, StreamPower, StreamPowerMaps, TALUS_ANGLE_RANGE, TIME_STEP_RANGE, Thermal,
    UPLIFT_RANGE, drainage_of, erode, evolve_landscape,
};
pub use map::frame::Frame;
pub use map::heightmap::{HeightStats, Heightmap, HeightmapError, MAX_SAMPLES};
pub use map::postprocess::{IslandShape, PostProcess};
pub use map::raycast::{GridPlacement, raycast_grid};
pub use map::surface::{Surface, SurfaceLayout, fold_stitched_edges};
pub use preset::file::{
    MAX_PRESET_BYTES, PresetReadError, PresetSize, WriteError, read_preset_bytes, write_atomically,
};
pub use preset::terrain::{
    HEIGHT_SCALE_RANGE, RESOLUTION_RANGE, TerrainPreset, WATER_LEVEL_RANGE, WORLD_SIZE_RANGE,
};
pub use scatter::ground::WorldGround;
pub use scatter::layer::{MAX_SCATTER_LAYERS, SCATTER_VIEW_DISTANCE_RANGE, ScatterLayer, ScatterShape};
pub use scatter::points::{
    MAX_SCATTER_CELLS, ScatterError, ScatterLevels, ScatterPoint, scatter_points, scatter_points_ranked,
};
pub use scatter::rule::{
    Ground, SCATTER_DENSITY_RANGE, SCATTER_SCALE_RANGE, SCATTER_SPACING_RANGE, ScatterRule,
};
pub use world::lod::{
    ChunkKey, ChunkSelector, Corner, LodSettings, MAX_LOD_LEVELS, MAX_ROOTS_ACROSS, SPLIT_DISTANCE,
    SelectedChunk, Side, Stitch, chunk_window, select_chunks,
};

/// What games do not need: the types behind the fields' exact gradients and fractal sums, and
/// filling grids into memory a tool manages itself.
pub mod advanced {
    pub use crate::field::dual::{Dual, Octave};
    pub use crate::field::fractal::{FractalParams, RawToUnit, Sloped};
    pub use crate::grid::fill_grid_uninit;
    pub use crate::grid::level::{gradients_grid_level, grid_level};
}
