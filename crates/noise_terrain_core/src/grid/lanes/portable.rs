//! [`Lanes`] in portable Rust on arrays of `N` lanes, with the x86 instructions' semantics lane
//! for lane: the same IEEE `f32` operations (no fused multiply-add), wrapping integer products,
//! logical shifts, `max`/`min` returning their second operand where either is NaN or both are
//! zeros, masked loads that read only the lanes of their mask. `Portable<16>` is the tests'
//! emulated AVX-512 level: the 16-lane kernels' bits on every CPU.
//!
//! Every operation also counts itself in [`OPERATIONS`], by the kind of execution unit its
//! AVX-512 instruction needs on an Intel core with 512-bit vectors (see [`Unit`]), so that a test
//! can say how many vector operations a kernel spends per block of sixteen pixels. Constants
//! (`splat`, `iota`, the gradient tables' registers) and bit casts are free, as the compiler
//! hoists or folds them.

use std::cell::Cell;
use std::ops::{Add, BitAnd, BitXor, Mul, Sub};

use super::Lanes;
use crate::field::basis::gradient_table::GRADIENTS_2D_BY_COMPONENT;
use crate::field::basis::simplex;

/// The portable level's token, `N` lanes (at most 32).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Portable<const N: usize>;

/// `N` `f32` lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Floats<const N: usize>([f32; N]);

/// `N` `i32` lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ints<const N: usize>([i32; N]);

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
    #[cfg(test)]
    pub(crate) const ALL: [Unit; 7] =
        [Unit::Arithmetic, Unit::Shift, Unit::Product, Unit::Compare, Unit::Permute, Unit::Load, Unit::Store];
}

thread_local! {
    /// The vector operations this thread ran, by [`Unit`] (in [`Unit::ALL`]'s order).
    pub(crate) static OPERATIONS: [Cell<u64>; 7] = const { [const { Cell::new(0) }; 7] };
}

/// Counts `times` operations on `unit`.
fn count(unit: Unit, times: usize) {
    OPERATIONS.with(|counts| counts[unit as usize].set(counts[unit as usize].get() + times as u64));
}

/// Implements a binary operator lane by lane, counted on `unit`.
macro_rules! operator {
    ($trait:ident $method:ident for $ty:ident on $unit:ident by $op:expr) => {
        impl<const N: usize> $trait for $ty<N> {
            type Output = $ty<N>;
            fn $method(self, other: $ty<N>) -> $ty<N> {
                count(Unit::$unit, 1);
                $ty(std::array::from_fn(|k| $op(self.0[k], other.0[k])))
            }
        }
    };
}

operator!(Add add for Floats on Arithmetic by |a: f32, b: f32| a + b);
operator!(Sub sub for Floats on Arithmetic by |a: f32, b: f32| a - b);
operator!(Mul mul for Floats on Arithmetic by |a: f32, b: f32| a * b);
operator!(Add add for Ints on Arithmetic by i32::wrapping_add);
operator!(Sub sub for Ints on Arithmetic by i32::wrapping_sub);
operator!(Mul mul for Ints on Product by i32::wrapping_mul);
operator!(BitXor bitxor for Ints on Arithmetic by |a: i32, b: i32| a ^ b);
operator!(BitAnd bitand for Ints on Arithmetic by |a: i32, b: i32| a & b);

/// The mask of `flag(k)` for every lane `k`, counted as one compare.
fn mask<const N: usize>(flag: impl Fn(usize) -> bool) -> u32 {
    count(Unit::Compare, 1);
    (0..N).filter(|&k| flag(k)).fold(0, |m, k| m | 1 << k)
}

/// Whether lane `k` of `mask` is set.
fn set(mask: u32, k: usize) -> bool {
    mask >> k & 1 == 1
}

impl<const N: usize> Lanes for Portable<N> {
    const LANES: usize = N;
    type F = Floats<N>;
    type I = Ints<N>;
    type M = u32;

    fn vectorize<R>(self, f: impl FnOnce() -> R) -> R {
        const { assert!(N > 0 && N <= 32, "1 to 32 lanes") };
        f()
    }

    fn splat(self, value: f32) -> Floats<N> {
        Floats([value; N])
    }

    fn splat_i(self, value: i32) -> Ints<N> {
        Ints([value; N])
    }

    fn iota(self) -> Ints<N> {
        Ints(std::array::from_fn(|k| k as i32))
    }

    unsafe fn load(self, from: *const f32) -> Floats<N> {
        count(Unit::Load, 1);
        // SAFETY: the caller's contract (`k < N`).
        Floats(std::array::from_fn(|k| unsafe { from.add(k).read_unaligned() }))
    }

    unsafe fn store(self, to: *mut f32, value: Floats<N>) {
        count(Unit::Store, 1);
        for (k, lane) in value.0.into_iter().enumerate() {
            // SAFETY: the caller's contract (`k < N`).
            unsafe { to.add(k).write_unaligned(lane) };
        }
    }

    unsafe fn load_first(self, values: &[f32], at: usize, lanes: usize) -> Floats<N> {
        count(Unit::Load, 1);
        Floats(std::array::from_fn(|k| if k < lanes { values[at + k] } else { 0.0 }))
    }

    unsafe fn load_first_i(self, values: &[i32], at: usize, lanes: usize) -> Ints<N> {
        count(Unit::Load, 1);
        Ints(std::array::from_fn(|k| if k < lanes { values[at + k] } else { 0 }))
    }

    unsafe fn store_first(self, out: &mut [f32], at: usize, lanes: usize, value: Floats<N>) {
        count(Unit::Store, 1);
        out[at..at + lanes.min(N)].copy_from_slice(&value.0[..lanes.min(N)]);
    }

    unsafe fn store_first_u32(self, out: &mut [u32], at: usize, lanes: usize, value: Ints<N>) {
        count(Unit::Store, 1);
        for (o, &lane) in out[at..at + lanes.min(N)].iter_mut().zip(&value.0) {
            *o = lane as u32;
        }
    }

    unsafe fn store_bytes(self, to: *mut u8, value: Ints<N>) {
        count(Unit::Permute, 1);
        count(Unit::Store, 1);
        for (k, lane) in value.0.into_iter().enumerate() {
            // SAFETY: the caller's contract (`k < N`).
            unsafe { to.add(k).write(lane as u8) };
        }
    }

    fn max(self, a: Floats<N>, b: Floats<N>) -> Floats<N> {
        count(Unit::Arithmetic, 1);
        Floats(std::array::from_fn(|k| if a.0[k] > b.0[k] { a.0[k] } else { b.0[k] }))
    }

    fn min(self, a: Floats<N>, b: Floats<N>) -> Floats<N> {
        count(Unit::Arithmetic, 1);
        Floats(std::array::from_fn(|k| if a.0[k] < b.0[k] { a.0[k] } else { b.0[k] }))
    }

    fn abs(self, a: Floats<N>) -> Floats<N> {
        count(Unit::Arithmetic, 1);
        Floats(a.0.map(f32::abs))
    }

    fn shr<const S: u32>(self, a: Ints<N>) -> Ints<N> {
        count(Unit::Shift, 1);
        Ints(a.0.map(|v| (v as u32 >> S) as i32))
    }

    fn shl<const S: u32>(self, a: Ints<N>) -> Ints<N> {
        count(Unit::Shift, 1);
        Ints(a.0.map(|v| v << S))
    }

    fn to_f32(self, a: Ints<N>) -> Floats<N> {
        count(Unit::Arithmetic, 1);
        Floats(a.0.map(|v| v as f32))
    }

    fn as_ints(self, a: Floats<N>) -> Ints<N> {
        Ints(a.0.map(|v| v.to_bits() as i32))
    }

    fn as_floats(self, a: Ints<N>) -> Floats<N> {
        Floats(a.0.map(|v| f32::from_bits(v as u32)))
    }

    fn first_lanes(self, lanes: usize) -> u32 {
        mask::<N>(|k| k < lanes)
    }

    fn lt(self, a: Floats<N>, b: Floats<N>) -> u32 {
        mask::<N>(|k| a.0[k] < b.0[k])
    }

    fn gt(self, a: Floats<N>, b: Floats<N>) -> u32 {
        mask::<N>(|k| a.0[k] > b.0[k])
    }

    fn beyond_unit(self, a: Floats<N>) -> u32 {
        count(Unit::Arithmetic, 1);
        mask::<N>(|k| a.0[k].abs() >= 1.0)
    }

    fn select(self, mask: u32, yes: Floats<N>, no: Floats<N>) -> Floats<N> {
        count(Unit::Arithmetic, 1);
        Floats(std::array::from_fn(|k| if set(mask, k) { yes.0[k] } else { no.0[k] }))
    }

    fn select_i(self, mask: u32, yes: Ints<N>, no: Ints<N>) -> Ints<N> {
        count(Unit::Arithmetic, 1);
        Ints(std::array::from_fn(|k| if set(mask, k) { yes.0[k] } else { no.0[k] }))
    }

    fn zero_where(self, mask: u32, a: Floats<N>) -> Floats<N> {
        count(Unit::Arithmetic, 1);
        Floats(std::array::from_fn(|k| if set(mask, k) { 0.0 } else { a.0[k] }))
    }

    /// Counted as AVX-512 runs it: a permute per pair of registers, and a compare and a blend
    /// per pair after the first.
    fn pick<const R: usize>(self, table: &[Floats<N>; R], index: Ints<N>) -> Floats<N> {
        let pairs = R.div_ceil(2);
        count(Unit::Permute, pairs);
        count(Unit::Compare, pairs - 1);
        count(Unit::Arithmetic, pairs - 1);
        Floats(std::array::from_fn(|k| {
            let entry = index.0[k] as u32 as usize % (R * N);
            table[entry / N].0[entry % N]
        }))
    }

    /// Counted as AVX-512 runs it: a test, and two permutes and a blend per component.
    fn gradient_2d(self, index: Ints<N>) -> [Floats<N>; 2] {
        count(Unit::Compare, 1);
        count(Unit::Permute, 4);
        count(Unit::Arithmetic, 2);
        GRADIENTS_2D_BY_COMPONENT
            .each_ref()
            .map(|component| Floats(std::array::from_fn(|k| component[index.0[k] as usize & 63])))
    }

    fn simplex_gradient_of_hash(self, hash: Ints<N>) -> [Floats<N>; 2] {
        self.simplex_gradient(self.shr::<28>(hash))
    }

    /// Counted as AVX-512 runs it: a permute per component.
    fn simplex_gradient(self, index: Ints<N>) -> [Floats<N>; 2] {
        count(Unit::Permute, 2);
        simplex::GRADIENTS_BY_COMPONENT
            .each_ref()
            .map(|component| Floats(std::array::from_fn(|k| component[index.0[k] as usize & 15])))
    }

    /// Counted as AVX-512 runs it: three 8-byte loads, an unpack and two widenings, and a
    /// permute per register of indices.
    fn pick_bytes(self, rows: [&[u8; 8]; 3], indices: [Ints<N>; 3]) -> [Ints<N>; 3] {
        count(Unit::Load, 3);
        count(Unit::Permute, 3 + 3);
        indices.map(|index| {
            Ints(std::array::from_fn(|k| {
                let entry = index.0[k] as u32 as usize % 32;
                rows.get(entry / 8).map_or(0, |row| i32::from(row[entry % 8]))
            }))
        })
    }
}
