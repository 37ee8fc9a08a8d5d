//! [`Lanes`] for AVX2 (and FMA, unused): 8 lanes, 16 registers, masks as lanes of all ones,
//! tables picked by `vpermps` from each register and blended by the index's high bits.

use std::arch::x86_64::*;
use std::ops::{Add, BitAnd, BitXor, Mul, Sub};

use super::{Lanes, map};
use crate::field::basis::gradient_table::GRADIENTS_2D_BY_COMPONENT;
use crate::field::basis::simplex;
use crate::isa::{Isa, Level};

/// The AVX2 level's token: made only from an [`Isa`] of a level with AVX2, so it exists only
/// where the CPU has every feature of the level.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

impl Avx2 {
    /// The token, where `isa` is the AVX2 level.
    pub(crate) fn of(isa: Isa) -> Option<Avx2> {
        (isa.level() == Level::Avx2).then_some(Avx2(()))
    }
}

/// Eight `f32` lanes. Made only by [`Avx2`]'s methods and by operations on others, so one
/// exists only where the CPU has AVX2: the safe operations below rely on it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct F32x8(__m256);

/// Eight `i32` lanes, made as [`F32x8`] is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct I32x8(__m256i);

/// A flag per lane: all ones or all zeros, made as [`F32x8`] is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct M32x8(__m256);

/// `unsafe { $e }` for the level's intrinsics, in the methods of the level's token and vectors.
macro_rules! level {
    ($e:expr) => {
        // SAFETY: used only in methods of the token and of the level's vectors, which exist only
        // where the CPU has the level's features (see `Avx2`).
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

operator!(Add add for F32x8 by _mm256_add_ps);
operator!(Sub sub for F32x8 by _mm256_sub_ps);
operator!(Mul mul for F32x8 by _mm256_mul_ps);
operator!(Add add for I32x8 by _mm256_add_epi32);
operator!(Sub sub for I32x8 by _mm256_sub_epi32);
operator!(Mul mul for I32x8 by _mm256_mullo_epi32);
operator!(BitXor bitxor for I32x8 by _mm256_xor_si256);
operator!(BitAnd bitand for I32x8 by _mm256_and_si256);

/// `f()` compiled with the level's features (`isa::avx2_features`).
macro_rules! runner {
    ([$($feature:tt),+]) => {
        $(#[target_feature(enable = $feature)])+
        fn run<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
    };
}
crate::isa::avx2_features!(runner!());

impl Avx2 {
    /// The mask of the first `lanes` lanes, for masked loads and stores.
    #[inline(always)]
    fn first(self, lanes: usize) -> __m256i {
        // SAFETY: the token's argument (see `Avx2`).
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
        // SAFETY: the token's argument.
        unsafe { run(f) }
    }

    #[inline(always)]
    fn splat(self, value: f32) -> F32x8 {
        F32x8(level!(_mm256_set1_ps(value)))
    }

    #[inline(always)]
    fn splat_i(self, value: i32) -> I32x8 {
        I32x8(level!(_mm256_set1_epi32(value)))
    }

    #[inline(always)]
    fn iota(self) -> I32x8 {
        I32x8(level!(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)))
    }

    #[inline(always)]
    unsafe fn load(self, from: *const f32) -> F32x8 {
        // SAFETY: the caller's contract and the token's.
        F32x8(level!(_mm256_loadu_ps(from)))
    }

    #[inline(always)]
    unsafe fn store(self, to: *mut f32, value: F32x8) {
        // SAFETY: the caller's contract and the token's.
        level!(_mm256_storeu_ps(to, value.0))
    }

    #[inline(always)]
    unsafe fn load_first(self, values: &[f32], at: usize, lanes: usize) -> F32x8 {
        let from = values.as_ptr().wrapping_add(at);
        // SAFETY: the caller's contract and the token's; the masked load reads only the first
        // `lanes` lanes.
        F32x8(unsafe {
            if lanes >= 8 { _mm256_loadu_ps(from) } else { _mm256_maskload_ps(from, self.first(lanes)) }
        })
    }

    #[inline(always)]
    unsafe fn load_first_i(self, values: &[i32], at: usize, lanes: usize) -> I32x8 {
        let from = values.as_ptr().wrapping_add(at);
        // SAFETY: as in `load_first`.
        I32x8(unsafe {
            if lanes >= 8 {
                _mm256_loadu_si256(from.cast())
            } else {
                _mm256_maskload_epi32(from, self.first(lanes))
            }
        })
    }

    #[inline(always)]
    unsafe fn store_first(self, out: &mut [f32], at: usize, lanes: usize, value: F32x8) {
        // SAFETY: the caller's contract and the token's; the masked store writes only the first
        // `lanes` lanes.
        unsafe {
            let to = out.as_mut_ptr().add(at);
            if lanes >= 8 {
                _mm256_storeu_ps(to, value.0)
            } else {
                _mm256_maskstore_ps(to, self.first(lanes), value.0)
            }
        }
    }

    #[inline(always)]
    unsafe fn store_first_u32(self, out: &mut [u32], at: usize, lanes: usize, value: I32x8) {
        // SAFETY: as in `store_first`.
        unsafe {
            let to = out.as_mut_ptr().add(at).cast::<i32>();
            if lanes >= 8 {
                _mm256_storeu_si256(to.cast(), value.0)
            } else {
                _mm256_maskstore_epi32(to, self.first(lanes), value.0)
            }
        }
    }

    #[inline(always)]
    unsafe fn store_bytes(self, to: *mut u8, value: I32x8) {
        let mut lanes = [0i32; 8];
        // SAFETY: an unaligned store of 8 `i32` to an array of 8, and the token's argument.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), value.0) };
        for (k, lane) in lanes.into_iter().enumerate() {
            // SAFETY: the caller's contract (`k < 8`).
            unsafe { to.add(k).write(lane as u8) };
        }
    }

    #[inline(always)]
    fn max(self, a: F32x8, b: F32x8) -> F32x8 {
        F32x8(level!(_mm256_max_ps(a.0, b.0)))
    }

    #[inline(always)]
    fn min(self, a: F32x8, b: F32x8) -> F32x8 {
        F32x8(level!(_mm256_min_ps(a.0, b.0)))
    }

    #[inline(always)]
    fn abs(self, a: F32x8) -> F32x8 {
        F32x8(level!(_mm256_andnot_ps(_mm256_set1_ps(-0.0), a.0)))
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
    fn to_f32(self, a: I32x8) -> F32x8 {
        F32x8(level!(_mm256_cvtepi32_ps(a.0)))
    }

    #[inline(always)]
    fn as_ints(self, a: F32x8) -> I32x8 {
        I32x8(level!(_mm256_castps_si256(a.0)))
    }

    #[inline(always)]
    fn as_floats(self, a: I32x8) -> F32x8 {
        F32x8(level!(_mm256_castsi256_ps(a.0)))
    }

    #[inline(always)]
    fn lt(self, a: F32x8, b: F32x8) -> M32x8 {
        M32x8(level!(_mm256_cmp_ps::<_CMP_LT_OQ>(a.0, b.0)))
    }

    #[inline(always)]
    fn gt(self, a: F32x8, b: F32x8) -> M32x8 {
        M32x8(level!(_mm256_cmp_ps::<_CMP_GT_OQ>(a.0, b.0)))
    }

    #[inline(always)]
    fn beyond_unit(self, a: F32x8) -> M32x8 {
        M32x8(level!(_mm256_cmp_ps::<_CMP_GE_OQ>(self.abs(a).0, _mm256_set1_ps(1.0))))
    }

    #[inline(always)]
    fn select(self, mask: M32x8, yes: F32x8, no: F32x8) -> F32x8 {
        F32x8(level!(_mm256_blendv_ps(no.0, yes.0, mask.0)))
    }

    #[inline(always)]
    fn select_i(self, mask: M32x8, yes: I32x8, no: I32x8) -> I32x8 {
        self.as_ints(self.select(mask, self.as_floats(yes), self.as_floats(no)))
    }

    #[inline(always)]
    fn zero_where(self, mask: M32x8, a: F32x8) -> F32x8 {
        F32x8(level!(_mm256_andnot_ps(mask.0, a.0)))
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
        // SAFETY: the token's argument (see `Avx2`), and unaligned loads of 8 `f32` from arrays
        // of 64.
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
        // SAFETY: the token's argument (see `Avx2`), and unaligned loads of 8 `f32` from arrays
        // of 16.
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
