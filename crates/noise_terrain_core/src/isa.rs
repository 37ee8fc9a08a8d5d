//! Which instruction set the grid's row path runs with, picked at run time.
//!
//! The row path is one plain Rust function compiled several times, once per level below, and the
//! best level the CPU has is picked when a grid is filled, so users need no `target-cpu` flag.
//! The copies give the same bits: Rust never fuses a multiply and an add on its own, so every
//! level performs the same IEEE operations, only more lanes at a time.

/// The target features of the AVX2 level, written once: `avx2_features!(m!(args))` expands to
/// `m!(args ["avx2", "fma"])`, for the run-time check here and the compiled kernel in `grid.rs`.
macro_rules! avx2_features {
    ($callback:ident!($($args:tt)*)) => { $callback! { $($args)* ["avx2", "fma"] } };
}

/// The target features of the AVX-512 level, written once (see [`avx2_features`]).
macro_rules! avx512_features {
    ($callback:ident!($($args:tt)*)) => {
        $callback! { $($args)* ["avx512f", "avx512vl", "avx512dq", "avx512bw", "avx2", "fma"] }
    };
}

/// Whether this CPU has every feature of a list.
#[cfg(target_arch = "x86_64")]
macro_rules! all_detected {
    // `tt`, not `literal`: the standard macro matches the feature names token by token.
    ([$($feature:tt),+]) => { true $(&& std::arch::is_x86_feature_detected!($feature))+ };
}

pub(crate) use {avx2_features, avx512_features};

/// An instruction-set level the row path is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    /// The target's baseline (SSE2 on x86-64).
    Baseline,
    /// AVX2 and FMA: 8 `f32` lanes.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 (F, VL, DQ, BW) and FMA: 16 `f32` lanes, mask registers, 8-lane `f64` conversions.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Isa {
    /// Every level compiled into this build, best first.
    pub(crate) const ALL: &[Isa] = &[
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512,
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2,
        Isa::Baseline,
    ];

    /// Whether this CPU can run the level.
    pub(crate) fn is_supported(self) -> bool {
        match self {
            Isa::Baseline => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => avx2_features!(all_detected!()),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => avx512_features!(all_detected!()),
        }
    }

    /// The best level this CPU supports.
    pub(crate) fn best() -> Isa {
        Isa::ALL.iter().copied().find(|isa| isa.is_supported()).unwrap_or(Isa::Baseline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_level_is_supported_and_baseline_always_is() {
        assert!(Isa::best().is_supported());
        assert!(Isa::Baseline.is_supported());
        assert_eq!(Isa::ALL.last(), Some(&Isa::Baseline));
    }
}
