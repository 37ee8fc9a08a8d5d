//! Seeded integer hashing of lattice coordinates: the only source of randomness in the crate.
//!
//! No permutation tables and no global state: a lattice point's random bits are a pure function of
//! its integer coordinates and the seed, so any point can be evaluated anywhere, in any order, on any
//! thread, and gives the same bits.

/// Odd multipliers that spread each axis over all 32 bits before the mix (large primes).
pub(crate) const PRIME_X: u32 = 0x9E37_79B1;
const PRIME_Y: u32 = 0x85EB_CA77;
const PRIME_Z: u32 = 0xC2B2_AE3D;
const PRIME_SEED: u32 = 0x27D4_EB2F;

/// Final avalanche (Chris Wellons' `lowbias32`): every input bit flips each output bit with
/// probability close to 1/2, so neighbouring lattice points get unrelated values.
#[inline(always)]
pub(crate) const fn mix(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x7FEB_352D);
    h ^= h >> 15;
    h = h.wrapping_mul(0x846C_A68B);
    h ^= h >> 16;
    h
}

/// Hash of a 1-D lattice coordinate and a seed.
#[inline(always)]
pub(crate) const fn hash1(x: i32, seed: u32) -> u32 {
    mix(seed.wrapping_mul(PRIME_SEED) ^ (x as u32).wrapping_mul(PRIME_X))
}

/// Hash of a 2-D lattice coordinate and a seed.
#[inline(always)]
pub(crate) const fn hash2(x: i32, y: i32, seed: u32) -> u32 {
    hash2_spread(spread_x(x), spread_y(y), seed)
}

/// The x coordinate's share of [`hash2`]. `spread_x(x + 1) == spread_x(x) + spread_x(1)`
/// (wrapping), so neighbouring lattice points need an addition, not a multiplication.
#[inline(always)]
pub(crate) const fn spread_x(x: i32) -> u32 {
    (x as u32).wrapping_mul(PRIME_X)
}

/// The y coordinate's share of [`hash2`]; see [`spread_x`].
#[inline(always)]
pub(crate) const fn spread_y(y: i32) -> u32 {
    (y as u32).wrapping_mul(PRIME_Y)
}

/// The seed's share of [`hash2`], spread over all 32 bits as [`spread_x`] spreads a coordinate.
#[inline(always)]
pub(crate) const fn spread_seed(seed: u32) -> u32 {
    seed.wrapping_mul(PRIME_SEED)
}

/// [`hash2`] from the spread coordinates.
#[inline(always)]
pub(crate) const fn hash2_spread(x: u32, y: u32, seed: u32) -> u32 {
    mix(spread_seed(seed) ^ x ^ y)
}

/// Hash of a 3-D lattice coordinate and a seed.
#[inline(always)]
pub(crate) const fn hash3(x: i32, y: i32, z: i32, seed: u32) -> u32 {
    mix(seed.wrapping_mul(PRIME_SEED)
        ^ (x as u32).wrapping_mul(PRIME_X)
        ^ (y as u32).wrapping_mul(PRIME_Y)
        ^ (z as u32).wrapping_mul(PRIME_Z))
}

/// Maps a hash to a lattice value in `[0, 1)`: the upper 24 bits divided by 2^24, which an `f32`
/// holds exactly.
#[inline(always)]
pub(crate) fn unit_value(hash: u32) -> f32 {
    (hash >> 8) as f32 * (1.0 / 16_777_216.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::correlation;

    #[test]
    fn unit_value_covers_zero_to_one_exclusive() {
        assert_eq!(unit_value(0), 0.0);
        assert!(unit_value(u32::MAX) < 1.0);
        assert!(unit_value(u32::MAX) > 0.999_999);
    }

    #[test]
    fn lattice_values_are_uniform_by_chi_square() {
        const BINS: usize = 256;
        let mut counts = [0u32; BINS];
        let mut n = 0;
        for y in -500..500 {
            for x in -500..500 {
                counts[(unit_value(hash2(x, y, 7)) * BINS as f32) as usize] += 1;
                n += 1;
            }
        }
        let expected = n as f64 / BINS as f64;
        let chi2: f64 = counts.iter().map(|&c| (c as f64 - expected).powi(2) / expected).sum();
        // 255 degrees of freedom: the 99.9th percentile of chi-square is about 330.
        assert!(chi2 < 330.0, "chi-square {chi2} over {BINS} bins");
    }

    #[test]
    fn neighbouring_lattice_values_are_uncorrelated() {
        let mut here = Vec::new();
        let (mut right, mut below, mut diagonal) = (Vec::new(), Vec::new(), Vec::new());
        for y in -300..300 {
            for x in -300..300 {
                here.push(unit_value(hash2(x, y, 3)) as f64);
                right.push(unit_value(hash2(x + 1, y, 3)) as f64);
                below.push(unit_value(hash2(x, y + 1, 3)) as f64);
                diagonal.push(unit_value(hash2(x + 1, y + 1, 3)) as f64);
            }
        }
        for other in [&right, &below, &diagonal] {
            let r = correlation(&here, other);
            assert!(r.abs() < 0.01, "neighbour correlation {r}");
        }
        let next_seed: Vec<f64> =
            (-300..300).flat_map(|y| (-300..300).map(move |x| unit_value(hash2(x, y, 4)) as f64)).collect();
        assert!(correlation(&here, &next_seed).abs() < 0.01);
    }

    #[test]
    fn spread_coordinates_add_up() {
        for (x, y) in [(0, 0), (-5, 7), (i32::MAX, -1), (123_456, -987_654)] {
            let next = spread_x(x).wrapping_add(spread_x(1));
            assert_eq!(hash2_spread(next, spread_y(y), 9), hash2(x.wrapping_add(1), y, 9));
            assert_eq!(hash2_spread(spread_x(x), spread_y(y), 9), hash2(x, y, 9));
        }
    }

    #[test]
    fn every_dimension_and_seed_changes_the_hash() {
        assert_ne!(hash1(5, 1), hash1(5, 2));
        assert_ne!(hash1(5, 1), hash1(6, 1));
        assert_ne!(hash2(5, 9, 1), hash2(9, 5, 1), "axes must not be symmetric");
        assert_ne!(hash3(1, 2, 3, 0), hash3(3, 2, 1, 0));
        assert_ne!(hash3(1, 2, 3, 0), hash3(1, 2, 4, 0));
    }
}
