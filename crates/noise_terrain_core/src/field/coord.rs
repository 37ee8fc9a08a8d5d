//! Turning a floating-point coordinate into a lattice cell and a position inside it.

/// Coordinates are clamped to `±LIMIT` before the split: far enough for any map, small enough that
/// the cell index fits an `i32` and the fraction keeps 1e-7 precision in `f64`.
pub const COORDINATE_LIMIT: f64 = 1e9;

/// A coordinate the split can take: NaN becomes 0, everything else is clamped to `±COORDINATE_LIMIT`
/// (so the infinities become the limits).
#[inline(always)]
pub(crate) fn sanitize(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.clamp(-COORDINATE_LIMIT, COORDINATE_LIMIT) }
}

/// One axis of a lattice cell: the two corner indices (already wrapped when the noise is periodic)
/// and the fractional position `f` in `[0, 1)` from the lower corner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AxisCell {
    /// Index of the lower corner.
    pub i0: i32,
    /// Index of the upper corner (`i0 + 1`, or 0 where a period wraps).
    pub i1: i32,
    /// Position inside the cell, `[0, 1)`.
    pub f: f32,
}

impl AxisCell {
    /// Splits `x` into cell and fraction. The split happens in `f64` and uses `floor`, so negative
    /// coordinates land in the cell to their left and the fraction stays precise far from 0; only
    /// the fraction is converted to `f32`. With `period = Some(p)` the indices wrap modulo `p`;
    /// a period of 0 or above `i32::MAX` (more cells than a coordinate can reach) is no period.
    #[inline(always)]
    pub(crate) fn new(x: f64, period: Option<u32>) -> Self {
        let (i, f) = split(x);
        match usable_period(period) {
            Some(p) => {
                let i0 = i.rem_euclid(p);
                let i1 = if i0 + 1 == p { 0 } else { i0 + 1 };
                Self { i0, i1, f }
            }
            _ => Self { i0: i, i1: i + 1, f },
        }
    }
}

/// A lattice period as an `i32`, or `None` for no period: 0, and periods above `i32::MAX`, which
/// no cell index reaches (coordinates are clamped to ±1e9), tile nothing.
#[inline(always)]
pub(crate) fn usable_period(period: Option<u32>) -> Option<i32> {
    period.and_then(|p| i32::try_from(p).ok()).filter(|&p| p > 0)
}

/// The unwrapped cell index and fraction of `x` (sanitised). After the clamp to
/// `±COORDINATE_LIMIT` the floor fits an `i32`, and so does the next index.
#[inline(always)]
pub(crate) fn split(x: f64) -> (i32, f32) {
    // SAFETY: `sanitize` returns a number within ±COORDINATE_LIMIT, never NaN.
    unsafe { split_in_range(sanitize(x)) }
}

/// [`split`] without sanitising, for a row whose ends are in range: it skips the clamp for every
/// point (a per-point check stops the row loop from vectorising).
///
/// # Safety
/// `x` must be within `±COORDINATE_LIMIT` and not NaN: the floor is converted without a check,
/// which is undefined behaviour for values that do not fit an `i32`.
#[inline(always)]
pub(crate) unsafe fn split_in_range(x: f64) -> (i32, f32) {
    let floor = x.floor();
    // `x - floor` can round up to exactly 1.0 in f32 for x just below an integer.
    let f = ((x - floor) as f32).min(1.0 - f32::EPSILON / 2.0);
    // SAFETY: by the caller's contract |x| <= 1e9, so the floor is an integer that fits an i32.
    // The unchecked conversion vectorises (a saturating `as` does not).
    (unsafe { floor.to_int_unchecked::<i32>() }, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_coordinates_use_floor() {
        let c = AxisCell::new(-0.5, None);
        assert_eq!((c.i0, c.i1, c.f), (-1, 0, 0.5));
        let c = AxisCell::new(-3.0, None);
        assert_eq!((c.i0, c.i1, c.f), (-3, -2, 0.0));
    }

    #[test]
    fn fraction_stays_precise_far_from_origin() {
        let c = AxisCell::new(1e7 + 0.25, None);
        assert_eq!((c.i0, c.f), (10_000_000, 0.25));
    }

    #[test]
    fn bad_numbers_are_sanitised() {
        assert_eq!(AxisCell::new(f64::NAN, None).i0, 0);
        assert_eq!(AxisCell::new(f64::INFINITY, None).i0, 1_000_000_000);
        assert_eq!(AxisCell::new(f64::NEG_INFINITY, None).i0, -1_000_000_000);
        assert_eq!(AxisCell::new(1e12, None).i0, 1_000_000_000);
        assert!(AxisCell::new(1e12, None).f.is_finite());
    }

    #[test]
    fn period_wraps_both_corners() {
        let c = AxisCell::new(3.5, Some(4));
        assert_eq!((c.i0, c.i1), (3, 0));
        let c = AxisCell::new(-0.5, Some(4));
        assert_eq!((c.i0, c.i1), (3, 0));
        assert_eq!(AxisCell::new(9.25, Some(4)), AxisCell::new(1.25, Some(4)));
    }

    #[test]
    fn periods_beyond_i32_are_no_period() {
        for p in [1u32 << 31, u32::MAX, 0] {
            for x in [-0.5, 7.25, -1e9, 1e9] {
                assert_eq!(AxisCell::new(x, Some(p)), AxisCell::new(x, None), "period {p}, x {x}");
            }
        }
        assert_eq!(AxisCell::new(-0.5, Some(i32::MAX as u32)).i0, i32::MAX - 1);
    }

    #[test]
    fn fraction_is_below_one() {
        let c = AxisCell::new(0.999_999_999_9, None);
        assert!(c.f < 1.0);
    }
}
