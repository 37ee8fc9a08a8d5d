//! [`Lanes`] for AVX-512 (F, VL, DQ, BW): 16 lanes, 32 registers, masks in mask registers,
//! tables picked by one- and two-register permutes.

use std::arch::x86_64::*;

use super::{Lanes, array, map};
use crate::field::basis::gradient_table::GRADIENTS_2D_BY_COMPONENT;
use crate::field::basis::simplex;

x86_level! {
    /// The AVX-512 level's token.
    Avx512 of Avx512 with avx512_features;
    F32x16(__m512) + _mm512_add_ps - _mm512_sub_ps * _mm512_mul_ps;
    I32x16(__m512i) + _mm512_add_epi32 - _mm512_sub_epi32 * _mm512_mullo_epi32 ^ _mm512_xor_si512 & _mm512_and_si512;
}

/// The mask of the first `lanes` lanes.
#[inline(always)]
fn first(lanes: usize) -> __mmask16 {
    if lanes >= 16 { !0 } else { (1u16 << lanes) - 1 }
}

impl Lanes for Avx512 {
    const LANES: usize = 16;
    type F = F32x16;
    type I = I32x16;
    type M = __mmask16;

    #[inline(always)]
    fn vectorize<R>(self, f: impl FnOnce() -> R) -> R {
        // SAFETY: the token exists only where the CPU has the level's features.
        unsafe { run(f) }
    }

    one_intrinsic! {
        splat(value: f32) -> F32x16 = F32x16(_mm512_set1_ps(value));
        splat_i(value: i32) -> I32x16 = I32x16(_mm512_set1_epi32(value));
        iota() -> I32x16 = I32x16(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
        max(a: F32x16, b: F32x16) -> F32x16 = F32x16(_mm512_max_ps(a.0, b.0));
        min(a: F32x16, b: F32x16) -> F32x16 = F32x16(_mm512_min_ps(a.0, b.0));
        abs(a: F32x16) -> F32x16 = F32x16(_mm512_abs_ps(a.0));
        to_f32(a: I32x16) -> F32x16 = F32x16(_mm512_cvtepi32_ps(a.0));
        as_ints(a: F32x16) -> I32x16 = I32x16(_mm512_castps_si512(a.0));
        as_floats(a: I32x16) -> F32x16 = F32x16(_mm512_castsi512_ps(a.0));
        lt(a: F32x16, b: F32x16) -> __mmask16 = (_mm512_cmp_ps_mask::<_CMP_LT_OQ>(a.0, b.0));
        gt(a: F32x16, b: F32x16) -> __mmask16 = (_mm512_cmp_ps_mask::<_CMP_GT_OQ>(a.0, b.0));
        beyond_unit(a: F32x16) -> __mmask16 = (_mm512_cmp_ps_mask::<_CMP_GE_OQ>(_mm512_abs_ps(a.0), _mm512_set1_ps(1.0)));
        select(mask: __mmask16, yes: F32x16, no: F32x16) -> F32x16 = F32x16(_mm512_mask_blend_ps(mask, no.0, yes.0));
        select_i(mask: __mmask16, yes: I32x16, no: I32x16) -> I32x16 = I32x16(_mm512_mask_blend_epi32(mask, no.0, yes.0));
        zero_where(mask: __mmask16, a: F32x16) -> F32x16 = F32x16(_mm512_maskz_mov_ps(!mask, a.0));
    }

    #[inline(always)]
    fn first_lanes(self, lanes: usize) -> __mmask16 {
        first(lanes)
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
    unsafe fn load(self, from: *const f32) -> F32x16 {
        // The caller's contract: `from` valid for 16 `f32`.
        F32x16(level!(_mm512_loadu_ps(from)))
    }

    #[inline(always)]
    unsafe fn store(self, to: *mut f32, value: F32x16) {
        // The caller's contract: `to` valid for 16 `f32`.
        level!(_mm512_storeu_ps(to, value.0))
    }

    #[inline(always)]
    unsafe fn load_first(self, values: &[f32], at: usize, lanes: usize) -> F32x16 {
        // The caller's contract, `at + lanes <= values.len()`; the masked load reads only the
        // first `lanes` lanes.
        F32x16(level!(_mm512_maskz_loadu_ps(first(lanes), values.as_ptr().add(at))))
    }

    #[inline(always)]
    unsafe fn load_first_i(self, values: &[i32], at: usize, lanes: usize) -> I32x16 {
        // As in `load_first`.
        I32x16(level!(_mm512_maskz_loadu_epi32(first(lanes), values.as_ptr().add(at))))
    }

    #[inline(always)]
    unsafe fn store_first(self, out: &mut [f32], at: usize, lanes: usize, value: F32x16) {
        // The caller's contract, `at + lanes <= out.len()`; the masked store writes only the
        // first `lanes` lanes.
        level!(_mm512_mask_storeu_ps(out.as_mut_ptr().add(at), first(lanes), value.0))
    }

    #[inline(always)]
    unsafe fn store_first_u32(self, out: &mut [u32], at: usize, lanes: usize, value: I32x16) {
        // As in `store_first`.
        level!(_mm512_mask_storeu_epi32(out.as_mut_ptr().add(at).cast(), first(lanes), value.0))
    }

    #[inline(always)]
    unsafe fn store_bytes(self, to: *mut u8, value: I32x16) {
        // The caller's contract: `to` valid for 16 bytes.
        level!(_mm_storeu_si128(to.cast(), _mm512_cvtepi32_epi8(value.0)))
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
        let pick =
            inlined!(|c: &[f32; 16]| level!(_mm512_permutexvar_ps(index.0, _mm512_loadu_ps(c.as_ptr()))));
        map([x, y], inlined!(|component| F32x16(pick(component))))
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
