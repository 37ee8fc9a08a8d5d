//! Which instruction-set level a grid's rows run at: the fastest one on this CPU, measured once
//! per basis (and, for heights with gradients, per basis with and without the erosion filter).
//!
//! The best level a CPU supports is not always its fastest: Zen 4 runs 512-bit instructions as
//! two 256-bit halves, some Intel parts lower their clock under 512-bit load, and a level's
//! kernels may suit one CPU's ports better than another's, so what pays on one CPU may not on
//! another. The first
//! grid of each kind therefore times a small grid (256 × 4 pixels of 5-octave fBm, 10 to 40 µs a
//! level for heights, about twice that with gradients) at every SIMD level the CPU supports
//! (the portable baseline only where it has none: it is never the fastest beside one), seven
//! rounds alternating, and keeps the level with the best round. A narrower level replaces a wider
//! one only when it is at least 10% faster, so that noise on a busy machine does not flip the
//! choice between levels that are close. [`ISA_VARIABLE`](crate::advanced::ISA_VARIABLE) overrides the
//! measurement. Every level gives the same bits, so the choice changes only the speed.

use std::mem::MaybeUninit;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::gradients::fill_with_gradients_at;
use super::{GridWindow, fill_uninit_with};
use crate::field::NoiseSettings;
use crate::field::basis::Basis;
use crate::field::erosion_filter::ErosionFilter;
use crate::isa::Isa;

/// How much faster a narrower level must be to be chosen over a wider one.
const NARROWER_MUST_WIN_BY: f64 = 1.10;

/// Timed rounds per level.
const ROUNDS: usize = 7;

/// The grid every level is timed on: 256 × 4 pixels, with [`probe_settings`]' 8 cells across it
/// at the first octave (32 pixels down to 2 at the fifth).
const PROBE: GridWindow = GridWindow { origin: [0, 0], width: 256, height: 4, pixels_per_unit: 256.0 };

/// The level grids of `basis` are filled with (see the module's docs).
pub(crate) fn level_for(basis: Basis) -> Isa {
    static CHOSEN: [OnceLock<Isa>; Basis::ALL.len()] = [const { OnceLock::new() }; Basis::ALL.len()];
    *CHOSEN[basis_index(basis)].get_or_init(|| {
        Isa::named_in_environment().unwrap_or_else(|| {
            let sampler = probe_settings(basis, false).sampler();
            let mut out = vec![MaybeUninit::new(0.0f32); PROBE.width as usize * PROBE.height as usize];
            fastest(|level| fill_uninit_with(level, &sampler, PROBE, &mut out))
        })
    })
}

/// The level heights with gradients of `basis` are filled with, `filtered` with the erosion
/// filter or without (see the module's docs). Fields whose gradients are sampled point by point
/// (Worley's) run no row at any level: they take the best level supported, unmeasured.
pub(crate) fn gradients_level_for(basis: Basis, filtered: bool) -> Isa {
    static CHOSEN: [[OnceLock<Isa>; 2]; Basis::ALL.len()] =
        [const { [const { OnceLock::new() }; 2] }; Basis::ALL.len()];
    *CHOSEN[basis_index(basis)][usize::from(filtered)].get_or_init(|| {
        Isa::named_in_environment().unwrap_or_else(|| {
            let settings = probe_settings(basis, filtered);
            if !settings.gradients_on_the_row_path() {
                return Isa::best();
            }
            let sampler = settings.sampler();
            let len = PROBE.width as usize * PROBE.height as usize;
            let (mut heights, mut gradients) = (vec![0.0f32; len], vec![[0.0f32; 2]; len]);
            fastest(|level| fill_with_gradients_at(level, &sampler, PROBE, &mut heights, &mut gradients))
        })
    })
}

/// The name of the instruction-set level grids of `basis` are filled with on this machine
/// (`"avx512"`, `"avx2"` or `"baseline"`): the fastest one measured, or the one the environment
/// variable [`ISA_VARIABLE`](crate::advanced::ISA_VARIABLE) names. Measures on the first call for a basis
/// if no grid of it was filled yet: under a millisecond (0.6 to 0.8 ms on a Zen 4 EPYC with three
/// levels), once per basis and process.
pub fn grid_level(basis: Basis) -> &'static str {
    level_for(basis).name()
}

/// The name of the instruction-set level [`fill_grid_with_gradients`](crate::fill_grid_with_gradients)
/// fills grids of `basis` with on this machine, with the erosion filter on or off (`filtered`),
/// as [`grid_level`] says it for heights alone: measured on the first call for the pair (about a
/// millisecond, more with the filter), or the level the environment variable names.
pub fn gradients_grid_level(basis: Basis, filtered: bool) -> &'static str {
    gradients_level_for(basis, filtered).name()
}

/// `basis`'s place in [`Basis::ALL`].
fn basis_index(basis: Basis) -> usize {
    Basis::ALL.iter().position(|&b| b == basis).expect("every basis is in Basis::ALL")
}

/// The field the levels are timed with: 5-octave fBm of `basis`, with the default erosion
/// filter where `filtered`.
fn probe_settings(basis: Basis, filtered: bool) -> NoiseSettings {
    let erosion_filter = ErosionFilter { enabled: filtered, ..Default::default() };
    NoiseSettings { basis, octaves: 5, frequency: 8.0, erosion_filter, ..Default::default() }
}

/// The levels [`fastest`] times: every SIMD level the CPU supports, or the baseline where it has
/// none. The baseline is never the fastest where a SIMD level runs (1.4 to 3.7 times AVX2's time
/// wherever it was measured), and timing it would be most of the probe's cost.
fn levels_to_time() -> Vec<Isa> {
    let simd: Vec<Isa> = Isa::supported().filter(|&isa| isa != Isa::BASELINE).collect();
    if simd.is_empty() { vec![Isa::BASELINE] } else { simd }
}

/// The level at which `fill` (the probe grid filled at a level) runs fastest, of
/// [`levels_to_time`].
fn fastest(mut fill: impl FnMut(Isa)) -> Isa {
    let levels = levels_to_time();
    if levels.len() < 2 {
        return levels.first().copied().unwrap_or(Isa::BASELINE);
    }
    let mut best = vec![Duration::MAX; levels.len()];
    // One round untimed, so that no level pays for first touches of memory.
    for round in 0..=ROUNDS {
        for (level, best) in levels.iter().zip(&mut best) {
            let start = Instant::now();
            fill(*level);
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
    fn the_baseline_is_timed_only_where_no_simd_level_runs() {
        let levels = levels_to_time();
        let simd = Isa::supported().any(|isa| isa != Isa::BASELINE);
        assert_eq!(levels.contains(&Isa::BASELINE), !simd, "{levels:?}");
        assert!(!levels.is_empty(), "{levels:?}");
        let mut timed = Vec::new();
        fastest(|level| timed.push(level));
        assert!(timed.iter().all(|level| levels.contains(level)), "{timed:?}");
    }

    #[test]
    fn the_level_whose_fill_is_fastest_is_chosen() {
        let levels = levels_to_time();
        if levels.len() < 2 {
            return assert_eq!(fastest(|_| ()), levels[0]);
        }
        // Fills that take a millisecond at every level but one, which takes none: that one wins,
        // the narrowest as well as the widest.
        let slow_but = |quick: Isa| {
            move |level: Isa| {
                if level != quick {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        };
        for quick in [levels[0], levels[levels.len() - 1]] {
            assert_eq!(fastest(slow_but(quick)), quick);
        }
    }

    #[test]
    fn every_basis_gets_a_supported_level_and_keeps_it() {
        for basis in Basis::ALL {
            let level = level_for(basis);
            assert!(level.level().is_supported(), "{basis:?}: {level:?}");
            assert_eq!(level_for(basis), level);
            assert_eq!(grid_level(basis), level.name());
            for filtered in [false, true] {
                let level = gradients_level_for(basis, filtered);
                assert!(
                    level.level().is_supported(),
                    "{basis:?} with gradients, filtered {filtered}: {level:?}"
                );
                assert_eq!(gradients_level_for(basis, filtered), level);
                assert_eq!(gradients_grid_level(basis, filtered), level.name());
            }
        }
    }
}
