//! Coherent noise for terrain, without Bevy.
//!
//! - [`hash`]: seeded integer hashing, the only source of randomness.
//! - [`Fade`]: interpolation curves (step, linear, cubic, quintic, cosine).
//! - [`basis`]: value, gradient (Perlin), simplex and Worley noise.
//! - [`fractal`]: fBm, billow, ridged and hybrid multifractals, heterogeneous terrain.
//! - [`Warp`]: domain warp (offset turbulence).
//! - [`PostProcess`]: stretch, redistribution, island mask, terraces.
//! - [`NoiseSettings`]: plain data describing a field; `sample(x, y)` gives its height.
//! - [`Heightmap`]: a grid of heights with statistics.
//! - [`ColorRamp`]: heights to colours, water through meadow to snow.
//! - [`surface::Surface`]: a heightmap as vertex and index arrays for a renderer, with edges
//!   stitched to coarser neighbours.
//! - [`lod`]: which chunks of an endless terrain exist around a focus, at which level of detail.
//! - [`raycast`]: ray casts against a height grid's triangles.
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

pub mod basis;
mod chunks;
pub mod coord;
pub mod fade;
pub mod field;
pub mod fractal;
pub mod grid;
pub mod hash;
pub mod heightmap;
mod isa;
pub mod lod;
pub mod postprocess;
pub mod ramp;
pub mod raycast;
pub mod surface;
#[cfg(test)]
mod test_support;
pub mod warp;

pub use basis::{Basis, DistanceMetric, Lattice, Worley, WorleyReturn};
pub use fade::Fade;
pub use field::{Clamped, FieldSampler, NoiseSettings};
pub use fractal::{Fractal, FractalParams, MAX_OCTAVES, MIN_OCTAVES, amplitude_sum};
pub use heightmap::{HeightStats, Heightmap, HeightmapError};
pub use postprocess::{IslandShape, PostProcess};
pub use ramp::{ColorRamp, OVERFLOW_COLOR, RampStop};
pub use warp::Warp;
