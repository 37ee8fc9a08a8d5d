//! Which instruction set the grid's row path runs with, picked at run time.
//!
//! The row path is one plain Rust function compiled several times, once per level below, and the
//! best level the CPU has is picked when a grid is filled, so users need no `target-cpu` flag.
//! The copies give the same bits: Rust never fuses a multiply and an add on its own, so every
//! level performs the same IEEE operations, only more lanes at a time.

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
            Isa::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => {
                Isa::Avx2.is_supported()
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512bw")
            }
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
