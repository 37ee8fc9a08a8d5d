//! The lanes the grid's SIMD kernels (`grid/kernels/`) are written over: one [`Lanes`] trait, a
//! token per instruction-set level that implements it, and a portable implementation.
//!
//! A kernel is one generic function `fn kernel<S: Lanes>(s: S, ...)`, instantiated per level:
//! [`Avx2`] (8 lanes), [`Avx512`] (16 lanes) and [`Portable`] (any width: the tests' emulated
//! AVX-512 level is `Portable<16>`, which also counts the operations a kernel spends); [`Twice`]
//! runs two registers of any of them side by side, for kernels bound by their chains of
//! dependent operations. A NEON level would be one more implementation. A token of a level exists only where the CPU runs the
//! level: it is made from an [`Isa`](crate::isa::Isa), the proof of that, and its vectors only by
//! the token's methods, so the safe operations of a vector type are sound wherever one exists.
//! [`Lanes::vectorize`] runs a kernel compiled with the level's target features, so that the
//! operations (all `#[inline(always)]`) inline into one loop of the level's instructions.
//!
//! Every operation is the IEEE one lane for lane (no fused multiply-add), so every level gives
//! the point path's bits.

/// The closure `$closure`, marked `#[inline(always)]`: a closure is compiled apart from the
/// level's target features unless it is inlined into a function that has them, and the lanes'
/// operations inline only there. Every closure that runs lane operations is written with it.
macro_rules! inlined {
    ($($closure:tt)+) => {{
        #[inline(always)]
        $($closure)+
    }};
}
pub(crate) use inlined;

/// `[f(0), f(1), …]`: `std::array::from_fn`, which runs `f` through layers that are not
/// `#[inline(always)]` (and so may be compiled apart from a level's target features, see
/// [`inlined`]). `f` must be [`inlined`] too.
#[inline(always)]
pub(crate) fn array<T: Copy, const N: usize>(mut f: impl FnMut(usize) -> T) -> [T; N] {
    const { assert!(N > 0, "not empty") };
    // Constant indices for the first four (every array of lanes a kernel makes), so that the
    // compiler keeps them in registers instead of memory indexed by a loop.
    let mut out = [f(0); N];
    if N > 1 {
        out[1] = f(1);
    }
    if N > 2 {
        out[2] = f(2);
    }
    if N > 3 {
        out[3] = f(3);
    }
    for (k, slot) in out.iter_mut().enumerate().skip(4) {
        *slot = f(k);
    }
    out
}

/// `a.map(f)` as [`array`] makes arrays.
#[inline(always)]
pub(crate) fn map<T: Copy, U: Copy, const N: usize>(a: [T; N], mut f: impl FnMut(T) -> U) -> [U; N] {
    array(inlined!(|k| f(a[k])))
}

#[macro_use]
mod x86;
mod avx2;
mod avx512;
#[cfg(test)]
mod portable;
mod twice;

use std::ops::{Add, BitAnd, BitXor, Mul, Sub};

pub(crate) use avx2::Avx2;
pub(crate) use avx512::Avx512;
#[cfg(test)]
pub(crate) use portable::{OPERATIONS, Portable, Unit};
pub(crate) use twice::Twice;

/// One instruction-set level's registers of `f32` and `i32` lanes, and the operations the
/// kernels use on them. `Mul` of [`Lanes::I`] is the wrapping product of each lane; `max` and
/// `min` return their second operand where either is NaN or both are zeros (as `maxps` does);
/// comparisons are ordered and quiet (false where either is NaN).
pub(crate) trait Lanes: Copy {
    /// Lanes per register.
    const LANES: usize;

    /// A register of `f32` lanes.
    type F: Copy + Add<Output = Self::F> + Sub<Output = Self::F> + Mul<Output = Self::F>;

    /// A register of `i32` lanes.
    type I: Copy
        + Add<Output = Self::I>
        + Sub<Output = Self::I>
        + Mul<Output = Self::I>
        + BitXor<Output = Self::I>
        + BitAnd<Output = Self::I>;

    /// One flag per lane.
    type M: Copy;

    /// `f()`, compiled with the level's target features (`f` is the kernel, inlined into it).
    fn vectorize<R>(self, f: impl FnOnce() -> R) -> R;

    /// Every lane `value`.
    fn splat(self, value: f32) -> Self::F;

    /// Every lane `value`.
    fn splat_i(self, value: i32) -> Self::I;

    /// The lanes `0, 1, 2, …`.
    fn iota(self) -> Self::I;

    /// `LANES` values from `from`.
    ///
    /// # Safety
    /// `from` must be valid for reading `LANES` `f32`.
    unsafe fn load(self, from: *const f32) -> Self::F;

    /// Writes `value`'s `LANES` lanes to `to`.
    ///
    /// # Safety
    /// `to` must be valid for writing `LANES` `f32`.
    unsafe fn store(self, to: *mut f32, value: Self::F);

    /// `values[at..at + lanes]` (`lanes` at most `LANES`), the other lanes zero.
    ///
    /// # Safety
    /// `at + lanes <= values.len()`.
    unsafe fn load_first(self, values: &[f32], at: usize, lanes: usize) -> Self::F;

    /// [`Lanes::load_first`] of `i32` lanes.
    ///
    /// # Safety
    /// `at + lanes <= values.len()`.
    unsafe fn load_first_i(self, values: &[i32], at: usize, lanes: usize) -> Self::I;

    /// Writes `value`'s first `lanes` lanes to `out[at..at + lanes]`, and nothing else.
    ///
    /// # Safety
    /// `at + lanes <= out.len()`.
    unsafe fn store_first(self, out: &mut [f32], at: usize, lanes: usize, value: Self::F);

    /// [`Lanes::store_first`] of `i32` lanes as `u32`.
    ///
    /// # Safety
    /// `at + lanes <= out.len()`.
    unsafe fn store_first_u32(self, out: &mut [u32], at: usize, lanes: usize, value: Self::I);

    /// Writes the low byte of each lane of `value` to `to..to + LANES`.
    ///
    /// # Safety
    /// `to` must be valid for writing `LANES` bytes.
    unsafe fn store_bytes(self, to: *mut u8, value: Self::I);

    /// `a > b ? a : b` per lane (see the trait's docs for NaN and zeros).
    fn max(self, a: Self::F, b: Self::F) -> Self::F;

    /// `a < b ? a : b` per lane.
    fn min(self, a: Self::F, b: Self::F) -> Self::F;

    /// `|a|`: the sign bit cleared.
    fn abs(self, a: Self::F) -> Self::F;

    /// Each lane shifted right by `N` bits, zeros in.
    fn shr<const N: u32>(self, a: Self::I) -> Self::I;

    /// Each lane shifted left by `N` bits, zeros in.
    fn shl<const N: u32>(self, a: Self::I) -> Self::I;

    /// Each lane's `i32` as the nearest `f32`.
    fn to_f32(self, a: Self::I) -> Self::F;

    /// The bits of each lane.
    fn as_ints(self, a: Self::F) -> Self::I;

    /// Each lane from its bits.
    fn as_floats(self, a: Self::I) -> Self::F;

    /// The first `lanes` lanes set (all of them from `LANES` on).
    fn first_lanes(self, lanes: usize) -> Self::M;

    /// `a < b` per lane.
    fn lt(self, a: Self::F, b: Self::F) -> Self::M;

    /// `a > b` per lane.
    fn gt(self, a: Self::F, b: Self::F) -> Self::M;

    /// `|a| >= 1` per lane: where a value in `[-1, 1]` was clamped (not where it is NaN).
    fn beyond_unit(self, a: Self::F) -> Self::M;

    /// `yes` where `mask` is set, else `no`.
    fn select(self, mask: Self::M, yes: Self::F, no: Self::F) -> Self::F;

    /// [`Lanes::select`] of `i32` lanes.
    fn select_i(self, mask: Self::M, yes: Self::I, no: Self::I) -> Self::I;

    /// Zero where `mask` is set, else `a`.
    fn zero_where(self, mask: Self::M, a: Self::F) -> Self::F;

    /// Each lane's entry `index` (in `0..R · LANES`) of the `R` registers `table`, entry
    /// `r · LANES + k` being lane `k` of register `r`. Lanes whose index is outside get any entry.
    fn pick<const R: usize>(self, table: &[Self::F; R], index: Self::I) -> Self::F;

    /// The gradient of the 64-entry table
    /// ([`GRADIENTS_2D`](crate::field::basis::gradient_table::GRADIENTS_2D)) at each lane's
    /// `index` (in `0..64`), x and y, with the table's bits.
    fn gradient_2d(self, index: Self::I) -> [Self::F; 2];

    /// The simplex gradient ([`GRADIENTS_BY_COMPONENT`](crate::field::basis::simplex::GRADIENTS_BY_COMPONENT))
    /// at the index in each lane's top four bits, x and y.
    fn simplex_gradient_of_hash(self, hash: Self::I) -> [Self::F; 2];

    /// The simplex gradient at each lane's `index` (in `0..16`), x and y.
    #[inline(always)]
    fn simplex_gradient(self, index: Self::I) -> [Self::F; 2] {
        self.simplex_gradient_of_hash(self.shl::<28>(index))
    }

    /// Each lane's byte `index` (in `0..24`) of three rows of eight bytes, zero-extended, for each
    /// of three registers of indices.
    fn pick_bytes(self, rows: [&[u8; 8]; 3], indices: [Self::I; 3]) -> [Self::I; 3];
}

/// `$body` with `$s` the lanes of `$isa`'s level, a SIMD level (the baseline has no lanes: it
/// runs the portable row path). The tests' emulated AVX-512 level runs `Portable<16>`. With
/// `wide as $wide`, the AVX-512 levels' lanes are `$wide(lanes)` (`Twice`: see [`Twice`] for the
/// kernels it speeds up; AVX2's sixteen registers do not hold two blocks of most kernels).
macro_rules! with_lanes {
    ($isa:expr, |$s:ident| $body:expr) => {
        $crate::grid::lanes::with_lanes!($isa, wide as std::convert::identity, |$s| $body)
    };
    ($isa:expr, wide as $wide:path, |$s:ident| $body:expr) => {{
        let isa: $crate::isa::Isa = $isa;
        match isa.level() {
            $crate::isa::Level::Avx512 => {
                let $s = $wide($crate::grid::lanes::Avx512::of(isa).expect("the AVX-512 level"));
                $body
            }
            $crate::isa::Level::Avx2 => {
                let $s = $crate::grid::lanes::Avx2::of(isa).expect("the AVX2 level");
                $body
            }
            #[cfg(test)]
            $crate::isa::Level::Avx512Emulated => {
                let $s = $wide($crate::grid::lanes::Portable::<16>);
                $body
            }
            $crate::isa::Level::Baseline => unreachable!("a SIMD level"),
        }
    }};
}
pub(crate) use with_lanes;
