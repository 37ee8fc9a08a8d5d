//! One octave of 2-D noise over a row, for every basis, written once over [`Lanes`] and
//! instantiated per instruction-set level (8 lanes with AVX2, 16 with AVX-512, any number with
//! portable lanes): the grid's SIMD rows.
//!
//! - [`lattice`]: value and gradient noise, heights alone and with gradients. The corners of the
//!   row's lattice columns are hashed once, `LANES` columns at a time, into a table kept from row
//!   to row ([`ColumnTable`](super::column_table::ColumnTable)), and each block of `LANES` pixels
//!   picks its corners from the table's registers at its first cell (up to 32 entries: cells
//!   down to about a quarter of a pixel with 8 lanes, half a pixel with 16); a block spanning
//!   more hashes its own.
//! - [`simplex`]: the three corners of each pixel's triangle, their gradients picked from a
//!   register of sixteen, the corners' indices read from a table of the lattice points the
//!   octave's rows share ([`SimplexTable`]) where the caller keeps one.
//! - [`worley`]: the 3×3 search around each pixel, from a table of the feature points of the
//!   row's three rows of cells.
//!
//! The operations are the point path's functions' (`corner_gradient_2d`, `blend_gradients_2d`,
//! `blend_rounded_2d`, `corner_value_2d`, `blend_values_2d`, `corners_2d`, `column_point`,
//! `offer`) in the same order, with no fused multiply-add, so the bits are the point path's (the
//! grid's property tests compare every level with it, and the kernels' own tests every lane type).
//!
//! Every closure a kernel calls per block is `#[inline(always)]`: a closure is compiled apart
//! from the level's target features unless it is inlined into the kernel, and the lanes'
//! operations inline only there.

pub(crate) mod lattice;
pub(crate) mod simplex;
#[cfg(test)]
mod tests;
pub(crate) mod worley;

pub(crate) use simplex::SimplexTable;

use super::column_table::ColumnTable;
use super::lanes::Lanes;

/// `a + t (b - a)` in lanes, as [`lerp`](crate::field::basis::lattice::lerp).
#[inline(always)]
fn lerp<S: Lanes>(a: S::F, b: S::F, t: S::F) -> S::F {
    a + t * (b - a)
}

/// [`unit_value`](crate::field::hash::unit_value) in lanes: the upper 24 bits over 2^24 (exact).
#[inline(always)]
fn unit_value<S: Lanes>(s: S, h: S::I) -> S::F {
    s.to_f32(s.shr::<8>(h)) * s.splat(1.0 / 16_777_216.0)
}

/// [`mix`](crate::field::hash::mix) in lanes: the hash of each lane's input.
#[inline(always)]
fn mix<S: Lanes>(s: S, h: S::I) -> S::I {
    let h = mix_to_last_step(s, h);
    h ^ s.shr::<16>(h)
}

/// [`mix`] without its last step, `h ^= h >> 16`, which leaves the top sixteen bits alone.
#[inline(always)]
fn mix_to_last_step<S: Lanes>(s: S, h: S::I) -> S::I {
    let h = (h ^ s.shr::<16>(h)) * s.splat_i(0x7FEB_352D);
    (h ^ s.shr::<15>(h)) * s.splat_i(0x846C_A68Bu32 as i32)
}

/// The registers of `LANES` table entries a block reads to reach `columns` columns from its
/// first: 1 to `ColumnTable::READ / LANES`, or 0 where that is not enough (the block hashes its
/// own). Written as comparisons with the level's constants, so that the levels' branches fold.
#[inline(always)]
fn registers_spanning<S: Lanes>(columns: i64) -> usize {
    let most = ColumnTable::READ / S::LANES;
    let fits = |r: usize| r <= most && columns <= (r * S::LANES) as i64;
    if fits(1) {
        1
    } else if fits(2) {
        2
    } else if fits(3) {
        3
    } else if fits(4) {
        4
    } else {
        0
    }
}

/// `clamp(-1, 1)` in lanes; NaN passes through as `clamp` lets it (max and min return their
/// second operand when one is NaN).
#[inline(always)]
fn clamp_unit<S: Lanes>(s: S, value: S::F) -> S::F {
    s.min(s.splat(1.0), s.max(s.splat(-1.0), value))
}
