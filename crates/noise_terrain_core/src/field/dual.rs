//! Values that carry their gradient: forward-mode differentiation in two variables, for the
//! fractal sums, the unit mapping, the warp and post-processing, which combine octaves with
//! products, absolute values, clamps and curves. [`Octave`] lets one piece of code serve both
//! plain heights (`f32`, the same operations as before, bit for bit) and heights with gradients
//! ([`Dual`]).

use std::ops::{Add, Mul, Sub};

/// A height and its partial derivatives in x and y (`N = 2`, the default), or a value of a
/// volume and its partial derivatives in x, y and z (`N = 3`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dual<const N: usize = 2> {
    /// The value.
    pub value: f32,
    /// `[∂/∂x, ∂/∂y]` (and `∂/∂z`).
    pub gradient: [f32; N],
}

impl<const N: usize> Default for Dual<N> {
    fn default() -> Self {
        Self { value: 0.0, gradient: [0.0; N] }
    }
}

impl<const N: usize> Dual<N> {
    /// A value with the given gradient.
    #[inline(always)]
    pub fn new(value: f32, gradient: [f32; N]) -> Self {
        Self { value, gradient }
    }

    /// The same value with a gradient that an `f32` holds: components beyond `±f32::MAX` clamped
    /// to it, and NaN (an overflow with no sign left, `∞ - ∞` or `∞ · 0`) made 0. Only extreme
    /// settings overflow (a million cells per unit, lacunarity 8, twelve octaves, multifractal
    /// products); fields give this, so normals and slopes never see a non-finite number.
    #[inline(always)]
    pub fn with_finite_gradient(self) -> Self {
        let finite = |v: f32| if v.is_nan() { 0.0 } else { v.clamp(-f32::MAX, f32::MAX) };
        Self::new(self.value, self.gradient.map(finite))
    }

    /// Every partial derivative times `k` (a change of variables by a factor `k`).
    #[inline(always)]
    pub fn scale_gradient(self, k: f32) -> Self {
        Self::new(self.value, self.gradient.map(|g| g * k))
    }
}

impl<const N: usize> Add for Dual<N> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self::new(self.value + o.value, std::array::from_fn(|k| self.gradient[k] + o.gradient[k]))
    }
}

impl<const N: usize> Sub for Dual<N> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self::new(self.value - o.value, std::array::from_fn(|k| self.gradient[k] - o.gradient[k]))
    }
}

impl<const N: usize> Mul for Dual<N> {
    type Output = Self;
    /// The product rule.
    #[inline(always)]
    #[allow(clippy::suspicious_arithmetic_impl)] // d(ab) = a'b + ab' is a sum
    fn mul(self, o: Self) -> Self {
        let (a, b) = (self, o);
        Self::new(
            a.value * b.value,
            std::array::from_fn(|k| a.gradient[k] * b.value + a.value * b.gradient[k]),
        )
    }
}

/// What the fractal loops need of a number: arithmetic, constants, the absolute value and clamps.
/// For `f32` every method is the plain operation; for [`Dual`] it carries the gradient along
/// (one-sided at creases: `abs` at 0 and a clamp at its bounds take the side the value is on).
pub trait Octave: Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> {
    /// A constant (zero gradient).
    fn constant(v: f32) -> Self;
    /// The value.
    fn value(self) -> f32;
    /// `self · k`.
    fn times(self, k: f32) -> Self;
    /// `self + k` (the gradient unchanged).
    fn plus(self, k: f32) -> Self;
    /// `|self|`.
    fn abs(self) -> Self;
    /// `self` clamped to `[lo, hi]`.
    fn clamp(self, lo: f32, hi: f32) -> Self;
    /// `min(self, k)`.
    fn min_constant(self, k: f32) -> Self;
    /// `self / k`.
    fn divided_by(self, k: f32) -> Self;
    /// The same quantity sampled at `k` times the coordinates: its gradient times `k` (the chain
    /// rule; nothing for `f32`).
    fn at_scale(self, k: f32) -> Self;
    /// `f(self)`, where `slope` is `f`'s derivative (the chain rule).
    fn map(self, f: impl Fn(f32) -> f32, slope: impl Fn(f32) -> f32) -> Self;
    /// `1 / self`.
    fn recip(self) -> Self;
}

impl Octave for f32 {
    #[inline(always)]
    fn constant(v: f32) -> Self {
        v
    }
    #[inline(always)]
    fn value(self) -> f32 {
        self
    }
    #[inline(always)]
    fn times(self, k: f32) -> Self {
        self * k
    }
    #[inline(always)]
    fn plus(self, k: f32) -> Self {
        self + k
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline(always)]
    fn clamp(self, lo: f32, hi: f32) -> Self {
        f32::clamp(self, lo, hi)
    }
    #[inline(always)]
    fn min_constant(self, k: f32) -> Self {
        self.min(k)
    }
    #[inline(always)]
    fn divided_by(self, k: f32) -> Self {
        self / k
    }
    #[inline(always)]
    fn at_scale(self, _: f32) -> Self {
        self
    }
    #[inline(always)]
    fn map(self, f: impl Fn(f32) -> f32, _: impl Fn(f32) -> f32) -> Self {
        f(self)
    }
    #[inline(always)]
    fn recip(self) -> Self {
        1.0 / self
    }
}

impl<const N: usize> Octave for Dual<N> {
    #[inline(always)]
    fn constant(v: f32) -> Self {
        Self::new(v, [0.0; N])
    }
    #[inline(always)]
    fn value(self) -> f32 {
        self.value
    }
    #[inline(always)]
    fn times(self, k: f32) -> Self {
        Self::new(self.value * k, self.gradient.map(|g| g * k))
    }
    #[inline(always)]
    fn plus(self, k: f32) -> Self {
        Self::new(self.value + k, self.gradient)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        if self.value < 0.0 { Self::constant(0.0) - self } else { self }
    }
    #[inline(always)]
    fn clamp(self, lo: f32, hi: f32) -> Self {
        if self.value < lo {
            Self::constant(lo)
        } else if self.value > hi {
            Self::constant(hi)
        } else {
            self
        }
    }
    #[inline(always)]
    fn min_constant(self, k: f32) -> Self {
        if self.value > k { Self::constant(k) } else { self }
    }
    #[inline(always)]
    fn divided_by(self, k: f32) -> Self {
        Self::new(self.value / k, self.gradient.map(|g| g / k))
    }
    #[inline(always)]
    fn at_scale(self, k: f32) -> Self {
        self.scale_gradient(k)
    }
    #[inline(always)]
    fn map(self, f: impl Fn(f32) -> f32, slope: impl Fn(f32) -> f32) -> Self {
        let s = slope(self.value);
        Self::new(f(self.value), self.gradient.map(|g| g * s))
    }
    #[inline(always)]
    fn recip(self) -> Self {
        let r = 1.0 / self.value;
        // d(1/x) = -dx / x².
        Self::new(r, self.gradient.map(|g| -g * r * r))
    }
}

/// A quantity of a map position (post-processing's island mask): a height for `f32`, a height
/// and its 2-D gradient for [`Dual`].
pub(crate) trait Varying: Octave {
    /// The quantity with this value and gradient (the gradient is dropped for `f32`).
    fn varying(value: f32, gradient: [f32; 2]) -> Self;
}

impl Varying for f32 {
    #[inline(always)]
    fn varying(value: f32, _: [f32; 2]) -> Self {
        value
    }
}

impl Varying for Dual {
    #[inline(always)]
    fn varying(value: f32, gradient: [f32; 2]) -> Self {
        Dual::new(value, gradient)
    }
}

/// A value with its gradient and its Hessian (second derivatives), per lattice unit: what the
/// damped fractal needs of a basis to differentiate its octaves' slopes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Jet {
    /// The value and its gradient.
    pub(crate) first: Dual,
    /// `[[∂²/∂x², ∂²/∂x∂y], [∂²/∂y∂x, ∂²/∂y²]]`.
    pub(crate) hessian: [[f32; 2]; 2],
}

impl Jet {
    /// A value and gradient with the given Hessian.
    #[inline(always)]
    pub(crate) fn new(first: Dual, hessian: [[f32; 2]; 2]) -> Self {
        Self { first, hessian }
    }

    /// Value, gradient and Hessian times `k` and the value shifted by `shift` (an affine map of
    /// the value).
    #[inline(always)]
    pub(crate) fn affine(self, k: f32, shift: f32) -> Self {
        let h = self.hessian;
        Self::new(
            Dual::new(self.first.value * k + shift, [self.first.gradient[0] * k, self.first.gradient[1] * k]),
            [[h[0][0] * k, h[0][1] * k], [h[1][0] * k, h[1][1] * k]],
        )
    }

    /// The same value, gradient and Hessian where `flat` is false; a constant (zero derivatives)
    /// where it is true, as at a clamp.
    #[inline(always)]
    pub(crate) fn flat_if(self, flat: bool) -> Self {
        if flat { Self::new(Dual::new(self.first.value, [0.0; 2]), [[0.0; 2]; 2]) } else { self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_abs_and_clamps_carry_the_gradient() {
        let (x, y) = (Dual::new(3.0, [1.0, 0.0]), Dual::new(-2.0, [0.0, 1.0]));
        // d(xy) = (y, x).
        assert_eq!(x * y, Dual::new(-6.0, [-2.0, 3.0]));
        assert_eq!(y.abs(), Dual::new(2.0, [0.0, -1.0]));
        assert_eq!((x - y).times(0.5), Dual::new(2.5, [0.5, -0.5]));
        // Clamped: flat; inside: unchanged.
        assert_eq!(x.clamp(0.0, 1.0), Dual::constant(1.0));
        assert_eq!(x.clamp(0.0, 5.0), x);
        assert_eq!(x.min_constant(1.0).gradient, [0.0, 0.0]);
        assert_eq!(y.min_constant(1.0), y);
        // d(1/y) = -dy / y².
        assert_eq!(y.recip(), Dual::new(-0.5, [0.0, -0.25]));
    }
}
