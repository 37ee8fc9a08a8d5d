//! The one clamping rule of the crate: a leaf module, so that every module can use it.

/// Clamps a parameter into `(lo, hi)`, with NaN becoming `fallback`: the one rule every
/// parameter clamp of the crate (and of the plugin) follows.
pub fn clamp_or(value: f32, (lo, hi): (f32, f32), fallback: f32) -> f32 {
    if value.is_nan() { fallback } else { value.clamp(lo, hi) }
}
