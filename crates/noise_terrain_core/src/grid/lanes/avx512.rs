//! [`Lanes`] for AVX-512 (F, VL, DQ, BW): 16 lanes, 32 registers, masks in mask registers,
//! tables picked by one- and two-register permutes.

use std::arch::x86_64::*;
use std::ops::{Add, BitAnd, BitXor, Mul, Sub};

use super::{Lanes, array, map};
use crate::field::basis::gradient_table::GRADIENTS_2D_BY_COMPONENT;
use crate::field::basis::simplex;
use crate::isa::{Isa, Level};

/// The AVX-512 level's token: made only from an [`Isa`] of that level, so it exists only where
/// the CPU has every feature of the level.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(());

impl Avx512 {
    /// The token, where `isa` is the AVX-512 level.
    pub(crate) fn of(isa: Isa) -> Option<Avx512> {
        (isa.level() == Level::Avx512).then_some(Avx512(()))
    }
}

/// Sixteen `f32` lanes. Made only by [`Avx512`]'s methods and by operations on others, so one
/// exists only where the CPU has AVX-512: the safe operations below rely on it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct F32x16(__m512);

/// Sixteen `i32` lanes, made as [`F32x16`] is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct I32x16(__m512i);

/// `unsafe { $e }` for the level's intrinsics, in the methods of the level's token and vectors.
macro_rules! level {
    ($e:expr) => {
        // SAFETY: used only in methods of the token and of the level's vectors, which exist only
        // where the CPU has the level's features (see `Avx512`).
        unsafe { $e }
    };
}

/// Implements a binary operator with an intrinsic.
macro_rules! operator {
    ($trait:ident $method:ident for $ty:ident by $intrinsic:ident) => {
        impl $trait for $ty {
            type Output = $ty;
            #[inline(always)]
            fn $method(self, other: $ty) -> $ty {
                $ty(level!($intrinsic(self.0, other.0)))
            }
        }
    };
}

operator!(Add add for F32x16 by _mm512_add_ps);
operator!(Sub sub for F32x16 by _mm512_sub_ps);
operator!(Mul mul for F32x16 by _mm512_mul_ps);
operator!(Add add for I32x16 by _mm512_add_epi32);
operator!(Sub sub for I32x16 by _mm512_sub_epi32);
operator!(Mul mul for I32x16 by _mm512_mullo_epi32);
operator!(BitXor bitxor for I32x16 by _mm512_xor_si512);
operator!(BitAnd bitand for I32x16 by _mm512_and_si512);

/// The mask of the first `lanes` lanes.
#[inline(always)]
fn first(lanes: usize) -> __mmask16 {
    if lanes >= 16 { !0 } else { (1u16 << lanes) - 1 }
}

/// `f()` compiled with the level's features (`isa::avx512_features`).
macro_rules! runner {
    ([$($feature:tt),+]) => {
        $(#[target_feature(enable = $feature)])+
        fn run<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
    };
}
crate::isa::avx512_features!(runner!());

impl Lanes for Avx512 {
    const LANES: usize = 16;
    type F = F32x16;
    type I = I32x16;
    type M = __mmask16;

    #[inline(always)]
    fn vectorize<R>(self, f: impl FnOnce() -> R) -> R {
        // SAFETY: the token's argument.
        unsafe { run(f) }
    }

    #[inline(always)]
    fn splat(self, value: f32) -> F32x16 {
        F32x16(level!(_mm512_set1_ps(value)))
    }

    #[inline(always)]
    fn splat_i(self, value: i32) -> I32x16 {
        I32x16(level!(_mm512_set1_epi32(value)))
    }

    #[inline(always)]
    fn iota(self) -> I32x16 {
        I32x16(level!(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)))
    }

    #[inline(always)]
    unsafe fn load(self, from: *const f32) -> F32x16 {
        // SAFETY: the caller's contract and the token's.
        F32x16(level!(_mm512_loadu_ps(from)))
    }

    #[inline(always)]
    unsafe fn store(self, to: *mut f32, value: F32x16) {
        // SAFETY: the caller's contract and the token's.
        level!(_mm512_storeu_ps(to, value.0))
    }

    #[inline(always)]
    unsafe fn load_first(self, values: &[f32], at: usize, lanes: usize) -> F32x16 {
        // SAFETY: the caller's contract and the token's; the masked load reads only the first
        // `lanes` lanes.
        F32x16(level!(_mm512_maskz_loadu_ps(first(lanes), values.as_ptr().add(at))))
    }

    #[inline(always)]
    unsafe fn load_first_i(self, values: &[i32], at: usize, lanes: usize) -> I32x16 {
        // SAFETY: as in `load_first`.
        I32x16(level!(_mm512_maskz_loadu_epi32(first(lanes), values.as_ptr().add(at))))
    }

    #[inline(always)]
    unsafe fn store_first(self, out: &mut [f32], at: usize, lanes: usize, value: F32x16) {
        // SAFETY: the caller's contract and the token's; the masked store writes only the first
        // `lanes` lanes.
        level!(_mm512_mask_storeu_ps(out.as_mut_ptr().add(at), first(lanes), value.0))
    }

    #[inline(always)]
    unsafe fn store_first_u32(self, out: &mut [u32], at: usize, lanes: usize, value: I32x16) {
        // SAFETY: as in `store_first`.
        level!(_mm512_mask_storeu_epi32(out.as_mut_ptr().add(at).cast(), first(lanes), value.0))
    }

    #[inline(always)]
    unsafe fn store_bytes(self, to: *mut u8, value: I32x16) {
        // SAFETY: the caller's contract and the token's.
        level!(_mm_storeu_si128(to.cast(), _mm512_cvtepi32_epi8(value.0)))
    }

    #[inline(always)]
    fn max(self, a: F32x16, b: F32x16) -> F32x16 {
        F32x16(level!(_mm512_max_ps(a.0, b.0)))
    }

    #[inline(always)]
    fn min(self, a: F32x16, b: F32x16) -> F32x16 {
        F32x16(level!(_mm512_min_ps(a.0, b.0)))
    }

    #[inline(always)]
    fn abs(self, a: F32x16) -> F32x16 {
        F32x16(level!(_mm512_abs_ps(a.0)))
    }

    #[inline(always)]
    fn shr<const N: u32>(self, a: I32x16) -> I32x16 {
        I32x16(level!(_mm512_srli_epi32::<N>(a.0)))
    }

    #[inline(always)]
    fn shl<const N: u32>(self, a: I32x16) -> I32x16 {
        I32x16(level!(_mm512_slli_epi32::<N>(a.0)))
    }

    #[inline(always)]
    fn to_f32(self, a: I32x16) -> F32x16 {
        F32x16(level!(_mm512_cvtepi32_ps(a.0)))
    }

    #[inline(always)]
    fn as_ints(self, a: F32x16) -> I32x16 {
        I32x16(level!(_mm512_castps_si512(a.0)))
    }

    #[inline(always)]
    fn as_floats(self, a: I32x16) -> F32x16 {
        F32x16(level!(_mm512_castsi512_ps(a.0)))
    }

    #[inline(always)]
    fn lt(self, a: F32x16, b: F32x16) -> __mmask16 {
        level!(_mm512_cmp_ps_mask::<_CMP_LT_OQ>(a.0, b.0))
    }

    #[inline(always)]
    fn gt(self, a: F32x16, b: F32x16) -> __mmask16 {
        level!(_mm512_cmp_ps_mask::<_CMP_GT_OQ>(a.0, b.0))
    }

    #[inline(always)]
    fn beyond_unit(self, a: F32x16) -> __mmask16 {
        level!(_mm512_cmp_ps_mask::<_CMP_GE_OQ>(_mm512_abs_ps(a.0), _mm512_set1_ps(1.0)))
    }

    #[inline(always)]
    fn select(self, mask: __mmask16, yes: F32x16, no: F32x16) -> F32x16 {
        F32x16(level!(_mm512_mask_blend_ps(mask, no.0, yes.0)))
    }

    #[inline(always)]
    fn select_i(self, mask: __mmask16, yes: I32x16, no: I32x16) -> I32x16 {
        I32x16(level!(_mm512_mask_blend_epi32(mask, no.0, yes.0)))
    }

    #[inline(always)]
    fn zero_where(self, mask: __mmask16, a: F32x16) -> F32x16 {
        F32x16(level!(_mm512_maskz_mov_ps(!mask, a.0)))
    }

    #[inline(always)]
    fn pick<const R: usize>(self, table: &[F32x16; R], index: I32x16) -> F32x16 {
        // Pairs of registers by two-register permutes (the index's low five bits), then the pair
        // by the bits above.
        let pair = inlined!(|p: usize| match table.get(2 * p + 1) {
            Some(high) => level!(_mm512_permutex2var_ps(table[2 * p].0, index.0, high.0)),
            None => level!(_mm512_permutexvar_ps(index.0, table[2 * p].0)),
        });
        let mut picked = pair(0);
        for p in 1..R.div_ceil(2) {
            let beyond = level!(_mm512_cmpgt_epi32_mask(index.0, _mm512_set1_epi32(32 * p as i32 - 1)));
            picked = level!(_mm512_mask_blend_ps(beyond, picked, pair(p)));
        }
        F32x16(picked)
    }

    #[inline(always)]
    fn gradient_2d(self, index: I32x16) -> [F32x16; 2] {
        // The 64 entries in four registers per component: a two-register permute picks within
        // each half by the index's low five bits, bit 5 the half.
        let upper = level!(_mm512_test_epi32_mask(index.0, _mm512_set1_epi32(32)));
        let [x, y] = &GRADIENTS_2D_BY_COMPONENT;
        map(
            [x, y],
            inlined!(|component: &[f32; 64]| {
                // Unaligned loads of 16 `f32` from rows of 64.
                let table: [__m512; 4] =
                    array(inlined!(|q| level!(_mm512_loadu_ps(component[16 * q..].as_ptr()))));
                let low = level!(_mm512_permutex2var_ps(table[0], index.0, table[1]));
                let high = level!(_mm512_permutex2var_ps(table[2], index.0, table[3]));
                F32x16(level!(_mm512_mask_blend_ps(upper, low, high)))
            }),
        )
    }

    #[inline(always)]
    fn simplex_gradient_of_hash(self, hash: I32x16) -> [F32x16; 2] {
        self.simplex_gradient(self.shr::<28>(hash))
    }

    #[inline(always)]
    fn simplex_gradient(self, index: I32x16) -> [F32x16; 2] {
        // Unaligned loads of 16 `f32` from arrays of 16.
        let [x, y] = &simplex::GRADIENTS_BY_COMPONENT;
        map(
            [x, y],
            inlined!(|component: &[f32; 16]| {
                F32x16(level!(_mm512_permutexvar_ps(index.0, _mm512_loadu_ps(component.as_ptr()))))
            }),
        )
    }

    #[inline(always)]
    fn pick_bytes(self, rows: [&[u8; 8]; 3], indices: [I32x16; 3]) -> [I32x16; 3] {
        // The first two rows in one register, the third in another: 32 entries (loads of 8
        // bytes from arrays of 8).
        let [a, b, c] = map(rows, inlined!(|row: &[u8; 8]| level!(_mm_loadl_epi64(row.as_ptr().cast()))));
        let near = level!(_mm512_cvtepu8_epi32(_mm_unpacklo_epi64(a, b)));
        let far = level!(_mm512_cvtepu8_epi32(c));
        map(indices, inlined!(|index: I32x16| I32x16(level!(_mm512_permutex2var_epi32(near, index.0, far)))))
    }
}
