//! The AVX-512 intrinsics `avx512.rs` uses, as portable Rust on arrays of 16 lanes, with the
//! instructions' semantics lane for lane: the same IEEE `f32` operations (no fused multiply-add),
//! wrapping integer products, logical shifts, `max`/`min` returning their second operand where
//! either is NaN or both are zeros, masked loads that read only the lanes of their mask. Names and
//! signatures are `std::arch`'s, so the kernels' source compiles against them unchanged.
//!
//! Every function also counts itself in [`OPERATIONS`], by the kind of execution unit it needs on
//! an Intel core with 512-bit vectors (see [`Unit`]), so that a test can say how many vector
//! operations a kernel spends per block of sixteen pixels.

#![allow(non_camel_case_types, clippy::too_many_arguments)]

use std::cell::Cell;

pub(crate) use std::arch::x86_64::{__m128i, _CMP_GT_OQ, _CMP_LT_OQ, _mm_loadl_epi64, _mm_storeu_si128};

/// Sixteen `f32` lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct __m512(pub [f32; 16]);

/// Sixteen `i32` lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct __m512i(pub [i32; 16]);

/// One bit per lane, lane 0 the lowest.
pub(crate) type __mmask16 = u16;

/// The kinds of operation, by the ports that run them on an Intel core with 512-bit vectors in
/// use (Ice Lake to Emerald Rapids, where port 1's vector unit joins port 0's): a model for
/// counting, not a measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// Floating-point and integer arithmetic, logic, blends, conversions: port 0 or 5.
    Arithmetic,
    /// Shifts by an immediate: port 0.
    Shift,
    /// `vpmulld`: two operations on port 0.
    Product,
    /// Compares and tests into a mask register: port 5.
    Compare,
    /// Lane permutes and conversions between widths: port 5.
    Permute,
    /// Vector loads (masked or not): the load ports.
    Load,
    /// Vector stores (masked or not): the store ports.
    Store,
}

impl Unit {
    /// Every kind, in [`OPERATIONS`]' order.
    pub(crate) const ALL: [Unit; 7] =
        [Unit::Arithmetic, Unit::Shift, Unit::Product, Unit::Compare, Unit::Permute, Unit::Load, Unit::Store];
}

thread_local! {
    /// The vector operations this thread ran, by [`Unit`] (in [`Unit::ALL`]'s order). Constants
    /// (`set1`, `setzero`, `setr`) and bit casts are free, as the compiler hoists or folds them.
    pub(crate) static OPERATIONS: [Cell<u64>; 7] = const { [const { Cell::new(0) }; 7] };
}

/// Counts one operation on `unit`.
fn count(unit: Unit) {
    OPERATIONS.with(|counts| counts[unit as usize].set(counts[unit as usize].get() + 1));
}

fn ps(f: impl Fn(usize) -> f32) -> __m512 {
    __m512(std::array::from_fn(f))
}

fn epi32(f: impl Fn(usize) -> i32) -> __m512i {
    __m512i(std::array::from_fn(f))
}

fn mask(f: impl Fn(usize) -> bool) -> __mmask16 {
    (0..16).filter(|&k| f(k)).fold(0, |m, k| m | 1 << k)
}

fn lane_on(k: __mmask16, lane: usize) -> bool {
    k >> lane & 1 == 1
}

pub(crate) fn _mm512_set1_ps(a: f32) -> __m512 {
    __m512([a; 16])
}

pub(crate) fn _mm512_set1_epi32(a: i32) -> __m512i {
    __m512i([a; 16])
}

pub(crate) fn _mm512_setzero_ps() -> __m512 {
    __m512([0.0; 16])
}

pub(crate) fn _mm512_setzero_si512() -> __m512i {
    __m512i([0; 16])
}

pub(crate) fn _mm512_setr_epi32(
    e0: i32,
    e1: i32,
    e2: i32,
    e3: i32,
    e4: i32,
    e5: i32,
    e6: i32,
    e7: i32,
    e8: i32,
    e9: i32,
    e10: i32,
    e11: i32,
    e12: i32,
    e13: i32,
    e14: i32,
    e15: i32,
) -> __m512i {
    __m512i([e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15])
}

pub(crate) fn _mm512_add_ps(a: __m512, b: __m512) -> __m512 {
    count(Unit::Arithmetic);
    ps(|k| a.0[k] + b.0[k])
}

pub(crate) fn _mm512_sub_ps(a: __m512, b: __m512) -> __m512 {
    count(Unit::Arithmetic);
    ps(|k| a.0[k] - b.0[k])
}

pub(crate) fn _mm512_mul_ps(a: __m512, b: __m512) -> __m512 {
    count(Unit::Arithmetic);
    ps(|k| a.0[k] * b.0[k])
}

/// `a > b ? a : b`: the second operand where either is NaN or both are zeros.
pub(crate) fn _mm512_max_ps(a: __m512, b: __m512) -> __m512 {
    count(Unit::Arithmetic);
    ps(|k| if a.0[k] > b.0[k] { a.0[k] } else { b.0[k] })
}

/// `a < b ? a : b`: the second operand where either is NaN or both are zeros.
pub(crate) fn _mm512_min_ps(a: __m512, b: __m512) -> __m512 {
    count(Unit::Arithmetic);
    ps(|k| if a.0[k] < b.0[k] { a.0[k] } else { b.0[k] })
}

pub(crate) fn _mm512_abs_ps(a: __m512) -> __m512 {
    count(Unit::Arithmetic);
    ps(|k| a.0[k].abs())
}

pub(crate) fn _mm512_add_epi32(a: __m512i, b: __m512i) -> __m512i {
    count(Unit::Arithmetic);
    epi32(|k| a.0[k].wrapping_add(b.0[k]))
}

pub(crate) fn _mm512_sub_epi32(a: __m512i, b: __m512i) -> __m512i {
    count(Unit::Arithmetic);
    epi32(|k| a.0[k].wrapping_sub(b.0[k]))
}

/// The low 32 bits of each product.
pub(crate) fn _mm512_mullo_epi32(a: __m512i, b: __m512i) -> __m512i {
    count(Unit::Product);
    epi32(|k| a.0[k].wrapping_mul(b.0[k]))
}

pub(crate) fn _mm512_xor_si512(a: __m512i, b: __m512i) -> __m512i {
    count(Unit::Arithmetic);
    epi32(|k| a.0[k] ^ b.0[k])
}

/// Logical shift right; 32 and more give zero.
pub(crate) fn _mm512_srli_epi32<const IMM8: u32>(a: __m512i) -> __m512i {
    count(Unit::Shift);
    epi32(|k| (a.0[k] as u32).checked_shr(IMM8).unwrap_or(0) as i32)
}

/// Shift left; 32 and more give zero.
pub(crate) fn _mm512_slli_epi32<const IMM8: u32>(a: __m512i) -> __m512i {
    count(Unit::Shift);
    epi32(|k| (a.0[k] as u32).checked_shl(IMM8).unwrap_or(0) as i32)
}

/// Rounded to nearest, ties to even (the default rounding mode).
pub(crate) fn _mm512_cvtepi32_ps(a: __m512i) -> __m512 {
    count(Unit::Arithmetic);
    ps(|k| a.0[k] as f32)
}

pub(crate) fn _mm512_castps_si512(a: __m512) -> __m512i {
    epi32(|k| a.0[k].to_bits() as i32)
}

pub(crate) fn _mm512_castsi512_ps(a: __m512i) -> __m512 {
    ps(|k| f32::from_bits(a.0[k] as u32))
}

/// Lanes whose `a` and `b` share a set bit.
pub(crate) fn _mm512_test_epi32_mask(a: __m512i, b: __m512i) -> __mmask16 {
    count(Unit::Compare);
    mask(|k| a.0[k] & b.0[k] != 0)
}

/// The ordered, quiet predicates the kernels use: false where either lane is NaN.
pub(crate) fn _mm512_cmp_ps_mask<const IMM8: i32>(a: __m512, b: __m512) -> __mmask16 {
    count(Unit::Compare);
    match IMM8 {
        _CMP_GT_OQ => mask(|k| a.0[k] > b.0[k]),
        _CMP_LT_OQ => mask(|k| a.0[k] < b.0[k]),
        _ => unimplemented!("predicate {IMM8} is not emulated"),
    }
}

/// `b` where the mask's lane is set, else `a`.
pub(crate) fn _mm512_mask_blend_ps(k: __mmask16, a: __m512, b: __m512) -> __m512 {
    count(Unit::Arithmetic);
    ps(|l| if lane_on(k, l) { b.0[l] } else { a.0[l] })
}

/// `b` where the mask's lane is set, else `a`.
pub(crate) fn _mm512_mask_blend_epi32(k: __mmask16, a: __m512i, b: __m512i) -> __m512i {
    count(Unit::Arithmetic);
    epi32(|l| if lane_on(k, l) { b.0[l] } else { a.0[l] })
}

/// `a[idx & 15]`.
pub(crate) fn _mm512_permutexvar_ps(idx: __m512i, a: __m512) -> __m512 {
    count(Unit::Permute);
    ps(|k| a.0[(idx.0[k] & 15) as usize])
}

/// `a[idx & 15]` where bit 4 of `idx` is clear, `b[idx & 15]` where it is set.
pub(crate) fn _mm512_permutex2var_ps(a: __m512, idx: __m512i, b: __m512) -> __m512 {
    count(Unit::Permute);
    ps(|k| if idx.0[k] & 16 == 0 { a.0[(idx.0[k] & 15) as usize] } else { b.0[(idx.0[k] & 15) as usize] })
}

/// `a[idx & 15]` where bit 4 of `idx` is clear, `b[idx & 15]` where it is set.
pub(crate) fn _mm512_permutex2var_epi32(a: __m512i, idx: __m512i, b: __m512i) -> __m512i {
    count(Unit::Permute);
    epi32(|k| if idx.0[k] & 16 == 0 { a.0[(idx.0[k] & 15) as usize] } else { b.0[(idx.0[k] & 15) as usize] })
}

/// The sixteen bytes of `a`, zero-extended.
pub(crate) fn _mm512_cvtepu8_epi32(a: __m128i) -> __m512i {
    count(Unit::Permute);
    // SAFETY: `__m128i` is 16 plain bytes.
    let bytes: [u8; 16] = unsafe { std::mem::transmute(a) };
    epi32(|k| i32::from(bytes[k]))
}

/// The low byte of each lane.
pub(crate) fn _mm512_cvtepi32_epi8(a: __m512i) -> __m128i {
    count(Unit::Permute);
    let bytes: [u8; 16] = std::array::from_fn(|k| a.0[k] as u8);
    // SAFETY: `__m128i` is 16 plain bytes.
    unsafe { std::mem::transmute(bytes) }
}

/// The low halves of `a` and `b`: SSE2, which every x86-64 CPU has, but `std::arch` asks for an
/// `unsafe` block outside a function that enables it.
pub(crate) fn _mm_unpacklo_epi64(a: __m128i, b: __m128i) -> __m128i {
    count(Unit::Permute);
    // SAFETY: SSE2 is part of the x86-64 baseline.
    unsafe { std::arch::x86_64::_mm_unpacklo_epi64(a, b) }
}

/// # Safety
/// `mem_addr` must be valid for reading 16 `f32`.
pub(crate) unsafe fn _mm512_loadu_ps(mem_addr: *const f32) -> __m512 {
    count(Unit::Load);
    // SAFETY: the caller's contract.
    ps(|k| unsafe { mem_addr.add(k).read_unaligned() })
}

/// # Safety
/// `mem_addr` must be valid for reading the lanes of `k`; no other lane is read.
pub(crate) unsafe fn _mm512_maskz_loadu_ps(k: __mmask16, mem_addr: *const f32) -> __m512 {
    count(Unit::Load);
    // SAFETY: the caller's contract: only the mask's lanes are read.
    ps(|l| if lane_on(k, l) { unsafe { mem_addr.add(l).read_unaligned() } } else { 0.0 })
}

/// # Safety
/// `mem_addr` must be valid for reading the lanes of `k`; no other lane is read.
pub(crate) unsafe fn _mm512_maskz_loadu_epi32(k: __mmask16, mem_addr: *const i32) -> __m512i {
    count(Unit::Load);
    // SAFETY: the caller's contract: only the mask's lanes are read.
    epi32(|l| if lane_on(k, l) { unsafe { mem_addr.add(l).read_unaligned() } } else { 0 })
}

/// # Safety
/// `mem_addr` must be valid for writing 16 `f32`.
pub(crate) unsafe fn _mm512_storeu_ps(mem_addr: *mut f32, a: __m512) {
    count(Unit::Store);
    for (k, &lane) in a.0.iter().enumerate() {
        // SAFETY: the caller's contract.
        unsafe { mem_addr.add(k).write_unaligned(lane) };
    }
}

/// # Safety
/// `mem_addr` must be valid for writing the lanes of `mask`; no other lane is written.
pub(crate) unsafe fn _mm512_mask_storeu_ps(mem_addr: *mut f32, mask: __mmask16, a: __m512) {
    count(Unit::Store);
    for (k, &lane) in a.0.iter().enumerate().filter(|&(k, _)| lane_on(mask, k)) {
        // SAFETY: the caller's contract: only the mask's lanes are written.
        unsafe { mem_addr.add(k).write_unaligned(lane) };
    }
}

/// # Safety
/// `mem_addr` must be valid for writing the lanes of `mask`; no other lane is written.
pub(crate) unsafe fn _mm512_mask_storeu_epi32(mem_addr: *mut i32, mask: __mmask16, a: __m512i) {
    count(Unit::Store);
    for (k, &lane) in a.0.iter().enumerate().filter(|&(k, _)| lane_on(mask, k)) {
        // SAFETY: the caller's contract: only the mask's lanes are written.
        unsafe { mem_addr.add(k).write_unaligned(lane) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The semantics a kernel's bits depend on, beyond plain lane-wise arithmetic.
    #[test]
    fn edge_cases_follow_the_instructions() {
        let (nan, a) = (f32::NAN, _mm512_set1_ps(1.0));
        let with_nan = __m512([nan; 16]);
        assert!(_mm512_max_ps(a, with_nan).0[0].is_nan(), "max returns its second operand on NaN");
        assert_eq!(_mm512_max_ps(with_nan, a).0[0], 1.0);
        assert_eq!(_mm512_min_ps(_mm512_set1_ps(-0.0), _mm512_set1_ps(0.0)).0[0].to_bits(), 0.0f32.to_bits());
        assert_eq!(_mm512_cmp_ps_mask::<_CMP_LT_OQ>(with_nan, a), 0, "ordered: NaN compares false");
        let idx = epi32(|k| 31 - k as i32);
        let (low, high) = (epi32(|k| k as i32), epi32(|k| 100 + k as i32));
        assert_eq!(_mm512_permutex2var_epi32(low, idx, high).0[0], 115, "bit 4 picks the second table");
        assert_eq!(_mm512_permutex2var_epi32(low, idx, high).0[15], 100);
        assert_eq!(_mm512_permutexvar_ps(idx, ps(|k| k as f32)).0[0], 15.0, "only the low four bits");
        assert_eq!(_mm512_srli_epi32::<28>(_mm512_set1_epi32(-1)).0[0], 15, "a logical shift");
        assert_eq!(_mm512_mullo_epi32(_mm512_set1_epi32(i32::MAX), _mm512_set1_epi32(3)).0[0], i32::MAX - 2);
        assert_eq!(_mm512_cvtepu8_epi32(_mm512_cvtepi32_epi8(_mm512_set1_epi32(0x1FF))).0[3], 0xFF);
        assert_eq!(_mm512_mask_blend_ps(0b10, _mm512_setzero_ps(), a).0[..3], [0.0, 1.0, 0.0]);
        let src = [7.0f32; 3];
        // SAFETY: the mask's lanes 0 to 2 lie within `src`.
        let loaded = unsafe { _mm512_maskz_loadu_ps(0b111, src.as_ptr()) };
        assert_eq!(loaded.0[2..4], [7.0, 0.0], "lanes off the mask are zero and unread");
    }
}
