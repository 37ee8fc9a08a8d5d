//! Coherent noise for terrain, without Bevy.
//!
//! - [`hash`]: seeded integer hashing, the only source of randomness.
//! - [`Fade`]: interpolation curves (step, linear, cubic, quintic, cosine).
//! - [`basis`]: value and gradient (Perlin) noise in 1-D, 2-D and 3-D.
//! - [`fractal`]: octave sums (fBm), octave seeds and periods.
//! - [`NoiseSettings`]: plain data describing a field; `sample(x, y)` gives its height.
//! - [`Heightmap`]: a grid of heights with statistics.
//! - [`ColorRamp`]: heights to colours, water through meadow to snow.
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

pub mod basis;
pub mod coord;
pub mod fade;
pub mod field;
pub mod fractal;
pub mod hash;
pub mod heightmap;
pub mod ramp;
#[cfg(test)]
mod test_support;

pub use basis::{Basis, Lattice};
pub use fade::Fade;
pub use field::{Clamped, NoiseSettings};
pub use fractal::{Fractal, MAX_OCTAVES, MIN_OCTAVES, amplitude_sum};
pub use heightmap::{HeightStats, Heightmap, HeightmapError};
pub use ramp::{ColorRamp, OVERFLOW_COLOR, RampStop};
