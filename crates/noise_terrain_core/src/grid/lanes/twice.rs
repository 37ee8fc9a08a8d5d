//! [`Lanes`] of two registers of a level side by side: each operation is the level's operation on
//! both halves, one after the other. A kernel run on `Twice<S>` works on two blocks at once, their
//! instructions interleaved, so that a kernel bound by the latency of its chain of operations
//! (each block waits on its own products and permutes) keeps the level's ports busy with the other
//! block's operations meanwhile. The same bits lane for lane as `S`.

use std::ops::{Add, BitAnd, BitXor, Mul, Sub};

use super::{Lanes, array, map};

/// Two registers of the level `S`, lanes `0..S::LANES` in the first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Twice<S>(pub(crate) S);

/// A pair of registers (or masks), the first holding the lower lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pair<T>(T, T);

/// Implements a binary operator on both halves.
macro_rules! pair_operator {
    ($($trait:ident $method:ident),+) => {$(
        impl<T: $trait<Output = T>> $trait for Pair<T> {
            type Output = Pair<T>;
            #[inline(always)]
            fn $method(self, other: Pair<T>) -> Pair<T> {
                Pair($trait::$method(self.0, other.0), $trait::$method(self.1, other.1))
            }
        }
    )+};
}

pair_operator!(Add add, Sub sub, Mul mul, BitXor bitxor, BitAnd bitand);

/// Methods of `Twice` that are the level's method on each half: `name(args) -> Out;`, each
/// argument a [`Pair`].
macro_rules! on_halves {
    ($($name:ident($($arg:ident: $ty:ty),+) -> $out:ty;)+) => {$(
        #[inline(always)]
        fn $name(self, $($arg: $ty),+) -> $out {
            Pair(self.0.$name($($arg.0),+), self.0.$name($($arg.1),+))
        }
    )+};
}

impl<S: Lanes> Lanes for Twice<S> {
    const LANES: usize = 2 * S::LANES;
    type F = Pair<S::F>;
    type I = Pair<S::I>;
    type M = Pair<S::M>;

    #[inline(always)]
    fn vectorize<R>(self, f: impl FnOnce() -> R) -> R {
        self.0.vectorize(f)
    }

    #[inline(always)]
    fn splat(self, value: f32) -> Self::F {
        let half = self.0.splat(value);
        Pair(half, half)
    }

    #[inline(always)]
    fn splat_i(self, value: i32) -> Self::I {
        let half = self.0.splat_i(value);
        Pair(half, half)
    }

    #[inline(always)]
    fn iota(self) -> Self::I {
        let low = self.0.iota();
        Pair(low, low + self.0.splat_i(S::LANES as i32))
    }

    #[inline(always)]
    unsafe fn load(self, from: *const f32) -> Self::F {
        // SAFETY: the caller's contract covers `2 · S::LANES` values from `from`.
        unsafe { Pair(self.0.load(from), self.0.load(from.add(S::LANES))) }
    }

    #[inline(always)]
    unsafe fn store(self, to: *mut f32, value: Self::F) {
        // SAFETY: as in `load`.
        unsafe {
            self.0.store(to, value.0);
            self.0.store(to.add(S::LANES), value.1);
        }
    }

    #[inline(always)]
    unsafe fn load_first(self, values: &[f32], at: usize, lanes: usize) -> Self::F {
        let (low, high) = split::<S>(lanes);
        // SAFETY: `at + lanes <= values.len()` (the caller's contract) bounds both halves.
        unsafe {
            Pair(
                self.0.load_first(values, at, low),
                self.0.load_first(values, at + S::LANES.min(lanes), high),
            )
        }
    }

    #[inline(always)]
    unsafe fn load_first_i(self, values: &[i32], at: usize, lanes: usize) -> Self::I {
        let (low, high) = split::<S>(lanes);
        // SAFETY: as in `load_first`.
        unsafe {
            Pair(
                self.0.load_first_i(values, at, low),
                self.0.load_first_i(values, at + S::LANES.min(lanes), high),
            )
        }
    }

    #[inline(always)]
    unsafe fn store_first(self, out: &mut [f32], at: usize, lanes: usize, value: Self::F) {
        let (low, high) = split::<S>(lanes);
        // SAFETY: as in `load_first`.
        unsafe {
            self.0.store_first(out, at, low, value.0);
            self.0.store_first(out, at + S::LANES.min(lanes), high, value.1);
        }
    }

    #[inline(always)]
    unsafe fn store_first_u32(self, out: &mut [u32], at: usize, lanes: usize, value: Self::I) {
        let (low, high) = split::<S>(lanes);
        // SAFETY: as in `load_first`.
        unsafe {
            self.0.store_first_u32(out, at, low, value.0);
            self.0.store_first_u32(out, at + S::LANES.min(lanes), high, value.1);
        }
    }

    #[inline(always)]
    unsafe fn store_bytes(self, to: *mut u8, value: Self::I) {
        // SAFETY: the caller's contract covers `2 · S::LANES` bytes from `to`.
        unsafe {
            self.0.store_bytes(to, value.0);
            self.0.store_bytes(to.add(S::LANES), value.1);
        }
    }

    on_halves! {
        max(a: Self::F, b: Self::F) -> Self::F;
        min(a: Self::F, b: Self::F) -> Self::F;
        abs(a: Self::F) -> Self::F;
        to_f32(a: Self::I) -> Self::F;
        as_ints(a: Self::F) -> Self::I;
        as_floats(a: Self::I) -> Self::F;
        lt(a: Self::F, b: Self::F) -> Self::M;
        gt(a: Self::F, b: Self::F) -> Self::M;
        beyond_unit(a: Self::F) -> Self::M;
        select(mask: Self::M, yes: Self::F, no: Self::F) -> Self::F;
        select_i(mask: Self::M, yes: Self::I, no: Self::I) -> Self::I;
        zero_where(mask: Self::M, a: Self::F) -> Self::F;
    }

    #[inline(always)]
    fn shr<const N: u32>(self, a: Self::I) -> Self::I {
        Pair(self.0.shr::<N>(a.0), self.0.shr::<N>(a.1))
    }

    #[inline(always)]
    fn shl<const N: u32>(self, a: Self::I) -> Self::I {
        Pair(self.0.shl::<N>(a.0), self.0.shl::<N>(a.1))
    }

    #[inline(always)]
    fn first_lanes(self, lanes: usize) -> Self::M {
        let (low, high) = split::<S>(lanes);
        Pair(self.0.first_lanes(low), self.0.first_lanes(high))
    }

    #[inline(always)]
    fn pick<const R: usize>(self, table: &[Self::F; R], index: Self::I) -> Self::F {
        // Entry `r · 2L + h · L + k` (half `h` of register `r`) is entry `(2r + h) · L + k` of the
        // halves in order: the level's pick from twice as many registers.
        macro_rules! from_halves {
            ($($r:literal => $halves:literal),+) => {
                match R {
                    $($r => {
                        let halves: [S::F; $halves] =
                            array(inlined!(|k| if k % 2 == 0 { table[k / 2].0 } else { table[k / 2].1 }));
                        Pair(self.0.pick(&halves, index.0), self.0.pick(&halves, index.1))
                    })+
                    _ => unreachable!("tables of at most four registers (asserted)"),
                }
            };
        }
        const { assert!(R >= 1 && R <= 4, "tables of one to four registers") };
        from_halves!(1 => 2, 2 => 4, 3 => 6, 4 => 8)
    }

    #[inline(always)]
    fn gradient_2d(self, index: Self::I) -> [Self::F; 2] {
        zip_halves(self.0.gradient_2d(index.0), self.0.gradient_2d(index.1))
    }

    #[inline(always)]
    fn simplex_gradient_of_hash(self, hash: Self::I) -> [Self::F; 2] {
        zip_halves(self.0.simplex_gradient_of_hash(hash.0), self.0.simplex_gradient_of_hash(hash.1))
    }

    #[inline(always)]
    fn simplex_gradient(self, index: Self::I) -> [Self::F; 2] {
        zip_halves(self.0.simplex_gradient(index.0), self.0.simplex_gradient(index.1))
    }

    #[inline(always)]
    fn pick_bytes(self, rows: [&[u8; 8]; 3], indices: [Self::I; 3]) -> [Self::I; 3] {
        let low = self.0.pick_bytes(rows, map(indices, inlined!(|i: Self::I| i.0)));
        let high = self.0.pick_bytes(rows, map(indices, inlined!(|i: Self::I| i.1)));
        zip_halves(low, high)
    }
}

/// How many of the first `lanes` lanes fall in each half.
#[inline(always)]
fn split<S: Lanes>(lanes: usize) -> (usize, usize) {
    (lanes.min(S::LANES), lanes.saturating_sub(S::LANES))
}

/// `[Pair(low[k], high[k]), …]`.
#[inline(always)]
fn zip_halves<T: Copy, const N: usize>(low: [T; N], high: [T; N]) -> [Pair<T>; N] {
    array(inlined!(|k| Pair(low[k], high[k])))
}
