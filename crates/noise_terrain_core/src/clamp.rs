//! The one clamping rule of the crate: a leaf module, so that every module can use it.

/// Clamps a parameter into `(lo, hi)`, with NaN becoming `fallback`: the one rule every
/// parameter clamp of the crate (and of the plugin) follows.
pub fn clamp_or(value: f32, (lo, hi): (f32, f32), fallback: f32) -> f32 {
    if value.is_nan() { fallback } else { value.clamp(lo, hi) }
}

/// Shares, weights, mixes and blends: the range of every parameter documented as 0 to 1.
pub const UNIT_RANGE: (f32, f32) = (0.0, 1.0);

/// Slopes in degrees, from level ground to a vertical wall.
pub const SLOPE_DEGREES_RANGE: (f32, f32) = (0.0, 90.0);
