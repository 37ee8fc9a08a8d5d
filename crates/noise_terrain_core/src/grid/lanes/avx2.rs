//! [`Lanes`] for AVX2 (and FMA, unused): 8 lanes, 16 registers, masks as lanes of all ones,
//! tables picked by `vpermps` from each register and blended by the index's high bits.

use std::arch::x86_64::*;

use super::{Lanes, map};
use crate::field::basis::gradient_table::GRADIENTS_2D_BY_COMPONENT;
use crate::field::basis::simplex;

x86_level! {
    /// The AVX2 level's token.
    Avx2 of Avx2 with avx2_features;
    F32x8(__m256) + _mm256_add_ps - _mm256_sub_ps * _mm256_mul_ps;
    I32x8(__m256i) + _mm256_add_epi32 - _mm256_sub_epi32 * _mm256_mullo_epi32 ^ _mm256_xor_si256 & _mm256_and_si256;
}

/// A flag per lane: all ones or all zeros, made as [`F32x8`] is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct M32x8(__m256);

impl Avx2 {
    /// The mask of the first `lanes` lanes, for masked loads and stores.
    #[inline(always)]
    fn first(self, lanes: usize) -> __m256i {
        level!(_mm256_cmpgt_epi32(_mm256_set1_epi32(lanes as i32), self.iota().0))
    }
}

impl Lanes for Avx2 {
    const LANES: usize = 8;
    type F = F32x8;
    type I = I32x8;
    type M = M32x8;

    #[inline(always)]
    fn vectorize<R>(self, f: impl FnOnce() -> R) -> R {
        // SAFETY: the token exists only where the CPU has the level's features.
        unsafe { run(f) }
    }

    one_intrinsic! {
        splat(value: f32) -> F32x8 = F32x8(_mm256_set1_ps(value));
        splat_i(value: i32) -> I32x8 = I32x8(_mm256_set1_epi32(value));
        iota() -> I32x8 = I32x8(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        max(a: F32x8, b: F32x8) -> F32x8 = F32x8(_mm256_max_ps(a.0, b.0));
        min(a: F32x8, b: F32x8) -> F32x8 = F32x8(_mm256_min_ps(a.0, b.0));
        abs(a: F32x8) -> F32x8 = F32x8(_mm256_andnot_ps(_mm256_set1_ps(-0.0), a.0));
        to_f32(a: I32x8) -> F32x8 = F32x8(_mm256_cvtepi32_ps(a.0));
        as_ints(a: F32x8) -> I32x8 = I32x8(_mm256_castps_si256(a.0));
        as_floats(a: I32x8) -> F32x8 = F32x8(_mm256_castsi256_ps(a.0));
        lt(a: F32x8, b: F32x8) -> M32x8 = M32x8(_mm256_cmp_ps::<_CMP_LT_OQ>(a.0, b.0));
        gt(a: F32x8, b: F32x8) -> M32x8 = M32x8(_mm256_cmp_ps::<_CMP_GT_OQ>(a.0, b.0));
        beyond_unit(a: F32x8) -> M32x8 = M32x8(_mm256_cmp_ps::<_CMP_GE_OQ>(_mm256_andnot_ps(_mm256_set1_ps(-0.0), a.0), _mm256_set1_ps(1.0)));
        select(mask: M32x8, yes: F32x8, no: F32x8) -> F32x8 = F32x8(_mm256_blendv_ps(no.0, yes.0, mask.0));
        zero_where(mask: M32x8, a: F32x8) -> F32x8 = F32x8(_mm256_andnot_ps(mask.0, a.0));
    }

    #[inline(always)]
    fn first_lanes(self, lanes: usize) -> M32x8 {
        // Lanes below `lanes` (at most 8: the compare is signed).
        let lanes = self.splat_i(lanes.min(8) as i32);
        M32x8(level!(_mm256_castsi256_ps(_mm256_cmpgt_epi32(lanes.0, self.iota().0))))
    }

    #[inline(always)]
    fn select_i(self, mask: M32x8, yes: I32x8, no: I32x8) -> I32x8 {
        self.as_ints(self.select(mask, self.as_floats(yes), self.as_floats(no)))
    }

    #[inline(always)]
    fn shr<const N: u32>(self, a: I32x8) -> I32x8 {
        // A constant count: the compiler emits the immediate form.
        I32x8(level!(_mm256_srl_epi32(a.0, _mm_cvtsi32_si128(N as i32))))
    }

    #[inline(always)]
    fn shl<const N: u32>(self, a: I32x8) -> I32x8 {
        I32x8(level!(_mm256_sll_epi32(a.0, _mm_cvtsi32_si128(N as i32))))
    }

    #[inline(always)]
    unsafe fn load(self, from: *const f32) -> F32x8 {
        // The caller's contract: `from` valid for 8 `f32`.
        F32x8(level!(_mm256_loadu_ps(from)))
    }

    #[inline(always)]
    unsafe fn store(self, to: *mut f32, value: F32x8) {
        // The caller's contract: `to` valid for 8 `f32`.
        level!(_mm256_storeu_ps(to, value.0))
    }

    #[inline(always)]
    unsafe fn load_first(self, values: &[f32], at: usize, lanes: usize) -> F32x8 {
        // The caller's contract, `at + lanes <= values.len()`; the masked load reads only the
        // first `lanes` lanes.
        let from = values.as_ptr().wrapping_add(at);
        F32x8(if lanes >= 8 {
            level!(_mm256_loadu_ps(from))
        } else {
            level!(_mm256_maskload_ps(from, self.first(lanes)))
        })
    }

    #[inline(always)]
    unsafe fn load_first_i(self, values: &[i32], at: usize, lanes: usize) -> I32x8 {
        // As in `load_first`.
        let from = values.as_ptr().wrapping_add(at);
        I32x8(if lanes >= 8 {
            level!(_mm256_loadu_si256(from.cast()))
        } else {
            level!(_mm256_maskload_epi32(from, self.first(lanes)))
        })
    }

    #[inline(always)]
    unsafe fn store_first(self, out: &mut [f32], at: usize, lanes: usize, value: F32x8) {
        // The caller's contract, `at + lanes <= out.len()`; the masked store writes only the
        // first `lanes` lanes.
        let to = out.as_mut_ptr().wrapping_add(at);
        if lanes >= 8 {
            level!(_mm256_storeu_ps(to, value.0))
        } else {
            level!(_mm256_maskstore_ps(to, self.first(lanes), value.0))
        }
    }

    #[inline(always)]
    unsafe fn store_first_u32(self, out: &mut [u32], at: usize, lanes: usize, value: I32x8) {
        // As in `store_first`.
        let to = out.as_mut_ptr().wrapping_add(at).cast::<i32>();
        if lanes >= 8 {
            level!(_mm256_storeu_si256(to.cast(), value.0))
        } else {
            level!(_mm256_maskstore_epi32(to, self.first(lanes), value.0))
        }
    }

    #[inline(always)]
    unsafe fn store_bytes(self, to: *mut u8, value: I32x8) {
        let mut lanes = [0i32; 8];
        // An unaligned store of 8 `i32` to an array of 8.
        level!(_mm256_storeu_si256(lanes.as_mut_ptr().cast(), value.0));
        for (k, lane) in lanes.into_iter().enumerate() {
            // SAFETY: the caller's contract (`to` valid for 8 bytes, `k < 8`).
            unsafe { to.add(k).write(lane as u8) };
        }
    }

    #[inline(always)]
    fn pick<const R: usize>(self, table: &[F32x8; R], index: I32x8) -> F32x8 {
        // `vpermps` from every register (the index's low three bits), blended by which register
        // the index falls in.
        let mut picked = level!(_mm256_permutevar8x32_ps(table[0].0, index.0));
        for (r, register) in table.iter().enumerate().skip(1) {
            let beyond =
                level!(_mm256_castsi256_ps(_mm256_cmpgt_epi32(index.0, _mm256_set1_epi32(8 * r as i32 - 1))));
            picked = level!(_mm256_blendv_ps(picked, _mm256_permutevar8x32_ps(register.0, index.0), beyond));
        }
        F32x8(picked)
    }

    /// The table is four quarter turns of its first sixteen entries (entry `16q + m` is entry
    /// `m` turned `q` quarters), so the entry is picked from those sixteen in two registers per
    /// component and turned: cheaper than two gathers. Negation is `0 - v`, which keeps the
    /// table's `+0.0` where a turned component is zero; the one `-0.0` (entry 48's x) is set apart.
    #[inline(always)]
    fn gradient_2d(self, index: I32x8) -> [F32x8; 2] {
        // SAFETY: the token exists only where the CPU has the level's features; unaligned loads
        // of 8 `f32` from arrays of 64.
        unsafe {
            let [x, y] = map(
                [&GRADIENTS_2D_BY_COMPONENT[0], &GRADIENTS_2D_BY_COMPONENT[1]],
                inlined!(|c: &[f32; 64]| [_mm256_loadu_ps(c.as_ptr()), _mm256_loadu_ps(c.as_ptr().add(8))]),
            );
            // Bit `b` of the index moved to each lane's sign, for `vblendvps`.
            let bit =
                inlined!(|b: i32| _mm256_castsi256_ps(_mm256_sllv_epi32(index.0, _mm256_set1_epi32(31 - b))));
            let pick = inlined!(|g: [__m256; 2]| {
                let (low, high) =
                    (_mm256_permutevar8x32_ps(g[0], index.0), _mm256_permutevar8x32_ps(g[1], index.0));
                _mm256_blendv_ps(low, high, bit(3))
            });
            let (x, y) = (pick(x), pick(y));
            // An odd quarter turn swaps the components; turns of one and two negate the first,
            // turns of two and three the second: `(x, y)`, `(-y, x)`, `(-x, -y)`, `(y, -x)`.
            let (odd, half) = (bit(4), bit(5));
            let (first, second) = (_mm256_blendv_ps(x, y, odd), _mm256_blendv_ps(y, x, odd));
            let zero = _mm256_setzero_ps();
            let negate_if =
                inlined!(|v: __m256, mask: __m256| _mm256_blendv_ps(v, _mm256_sub_ps(zero, v), mask));
            let first = negate_if(first, _mm256_xor_ps(odd, half));
            let second = negate_if(second, half);
            let entry_48 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(index.0, _mm256_set1_epi32(48)));
            let first = _mm256_or_ps(first, _mm256_and_ps(entry_48, _mm256_set1_ps(-0.0)));
            [F32x8(first), F32x8(second)]
        }
    }

    /// From the first eight entries in one register, turned half way by the hash's bit 31 (the
    /// index's bit 3: the last eight entries negate the first eight, sign bits and all).
    #[inline(always)]
    fn simplex_gradient_of_hash(self, hash: I32x8) -> [F32x8; 2] {
        // SAFETY: the token exists only where the CPU has the level's features; unaligned loads
        // of 8 `f32` from arrays of 16.
        unsafe {
            // `vpermps` reads the index's low three bits (the hash's bits 28 to 30).
            let index = _mm256_srli_epi32::<28>(hash.0);
            let half = _mm256_castsi256_ps(_mm256_and_si256(hash.0, _mm256_set1_epi32(i32::MIN)));
            let [x, y] = &simplex::GRADIENTS_BY_COMPONENT;
            map(
                [x, y],
                inlined!(|component: &[f32; 16]| {
                    let first = _mm256_loadu_ps(component.as_ptr());
                    F32x8(_mm256_xor_ps(_mm256_permutevar8x32_ps(first, index), half))
                }),
            )
        }
    }

    #[inline(always)]
    fn pick_bytes(self, rows: [&[u8; 8]; 3], indices: [I32x8; 3]) -> [I32x8; 3] {
        // A row to a register: 24 entries (loads of 8 bytes from arrays of 8).
        let widen = inlined!(|row: &[u8; 8]| {
            self.as_floats(I32x8(level!(_mm256_cvtepu8_epi32(_mm_loadl_epi64(row.as_ptr().cast())))))
        });
        let table = map(rows, widen);
        map(indices, inlined!(|index| self.as_ints(self.pick(&table, index))))
    }
}
