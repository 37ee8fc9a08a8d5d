//! One noise field: [`NoiseSettings`], plain data describing it (`settings.rs`), and
//! [`FieldSampler`], sampling it at a point (`sampler.rs`); the bases, fade curves, fractal sums,
//! domain warp, the erosion filter, exact derivatives, hashing and coordinates in their own files.

pub(crate) mod basis;
pub(crate) mod coord;
pub(crate) mod dual;
pub(crate) mod erosion_filter;
pub(crate) mod fade;
pub(crate) mod fractal;
pub(crate) mod hash;
pub(crate) mod names;
mod sampler;
mod settings;
#[cfg(test)]
mod tests;
pub(crate) mod warp;

use glam::DVec2;

use crate::clamp::clamp_or;
use crate::field::basis::worley::WorleySearch;
use crate::field::basis::{Basis, GradientKernel, Lattice, Worley};
use crate::field::coord::sanitize;
use crate::field::dual::Dual;
use crate::field::erosion_filter::{ErosionFilter, GullyPlan};
use crate::field::fade::Fade;
use crate::field::fractal::{Fractal, FractalParams, MAX_OCTAVES, MIN_OCTAVES, OctaveJet, RawToUnit, Sloped};
use crate::field::warp::Warp;

pub use sampler::FieldSampler;
pub(crate) use settings::OctaveTurn;
pub use settings::{
    Clamped, DAMPING_RANGE, FRACTAL_OFFSET_RANGE, FREQUENCY_RANGE, GAIN_RANGE, LACUNARITY_RANGE, MAX_PERIOD,
    NoiseSettings, OCTAVE_ROTATION, PERSISTENCE_RANGE,
};
