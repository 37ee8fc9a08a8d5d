//! Which instruction-set level a grid's rows run at: the fastest one on this CPU, measured once
//! per basis.
//!
//! The best level a CPU supports is not always its fastest: Zen 4 runs 512-bit instructions as
//! two 256-bit halves, and some Intel parts lower their clock under 512-bit load, so what pays
//! on one CPU may not on another. The first grid of each basis therefore times a small grid
//! (256 × 4 pixels of 5-octave fBm, 10 to 80 µs a level) at every level the CPU supports, seven rounds
//! alternating, and keeps the level with the best round. A narrower level replaces a wider one
//! only when it is at least 10% faster, so that noise on a busy machine does not flip the choice
//! between levels that are close. [`ISA_VARIABLE`](crate::ISA_VARIABLE) overrides the
//! measurement. Every level gives the same bits, so the choice changes only the speed.

use std::mem::MaybeUninit;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::{GridWindow, fill_uninit_with};
use crate::field::NoiseSettings;
use crate::field::basis::Basis;
use crate::isa::Isa;

/// How much faster a narrower level must be to be chosen over a wider one.
const NARROWER_MUST_WIN_BY: f64 = 1.10;

/// Timed rounds per level.
const ROUNDS: usize = 7;

/// The level grids of `basis` are filled with (see the module's docs).
pub(crate) fn level_for(basis: Basis) -> Isa {
    static CHOSEN: [OnceLock<Isa>; Basis::ALL.len()] = [const { OnceLock::new() }; Basis::ALL.len()];
    let index = Basis::ALL.iter().position(|&b| b == basis).expect("every basis is in Basis::ALL");
    *CHOSEN[index].get_or_init(|| Isa::named_in_environment().unwrap_or_else(|| fastest(basis)))
}

/// The name of the instruction-set level grids of `basis` are filled with on this machine
/// (`"avx512"`, `"avx2"` or `"baseline"`): the fastest one measured, or the one the environment
/// variable [`ISA_VARIABLE`](crate::ISA_VARIABLE) names. Measures on the first call for a basis
/// if no grid of it was filled yet: under a millisecond (0.6 to 0.8 ms on a Zen 4 EPYC with three
/// levels), once per basis and process.
pub fn grid_level(basis: Basis) -> &'static str {
    level_for(basis).name()
}

/// The supported level that fills a small grid of `basis` fastest.
fn fastest(basis: Basis) -> Isa {
    let levels: Vec<Isa> = Isa::ALL.iter().copied().filter(|isa| isa.is_supported()).collect();
    if levels.len() < 2 {
        return levels.first().copied().unwrap_or(Isa::Baseline);
    }
    let settings = NoiseSettings { basis, octaves: 5, frequency: 8.0, ..Default::default() };
    let sampler = settings.sampler();
    let window = GridWindow { origin: [0, 0], width: 256, height: 4, pixels_per_unit: 256.0 };
    let mut out = vec![MaybeUninit::new(0.0f32); 256 * 4];
    let mut best = vec![Duration::MAX; levels.len()];
    // One round untimed, so that no level pays for first touches of memory.
    for round in 0..=ROUNDS {
        for (level, best) in levels.iter().zip(&mut best) {
            let start = Instant::now();
            fill_uninit_with(*level, &sampler, window, &mut out);
            if round > 0 {
                *best = (*best).min(start.elapsed());
            }
        }
    }
    levels[choose(&best)]
}

/// Which level to use from each level's best time (widest first): the widest, unless a narrower
/// one beats the one chosen so far by [`NARROWER_MUST_WIN_BY`].
fn choose(best: &[Duration]) -> usize {
    let mut chosen = 0;
    for k in 1..best.len() {
        if best[k].as_secs_f64() * NARROWER_MUST_WIN_BY <= best[chosen].as_secs_f64() {
            chosen = k;
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narrower_level_must_win_by_a_tenth() {
        // Best times of the widest, the middle and the narrowest level, in milliseconds.
        let choose_ms = |times: [f64; 3]| choose(&times.map(|ms| Duration::from_secs_f64(ms / 1e3)));
        // The widest stays when the others are close or slower.
        assert_eq!(choose_ms([10.0, 9.5, 12.0]), 0);
        assert_eq!(choose_ms([10.0, 11.0, 9.2]), 0);
        // A clearly faster narrower level is chosen, and the narrowest must beat that one too.
        assert_eq!(choose_ms([10.0, 8.0, 7.5]), 1);
        assert_eq!(choose_ms([10.0, 8.0, 7.0]), 2);
        assert_eq!(choose_ms([10.0, 12.0, 8.5]), 2);
    }

    #[test]
    fn every_basis_gets_a_supported_level_and_keeps_it() {
        for basis in Basis::ALL {
            let level = level_for(basis);
            assert!(level.is_supported(), "{basis:?}: {level:?}");
            assert_eq!(level_for(basis), level);
            assert_eq!(grid_level(basis), level.name());
        }
    }
}
