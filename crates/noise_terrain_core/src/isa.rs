//! Which instruction set the grid's row path runs with, picked at run time.
//!
//! The row path is one plain Rust function compiled several times, once per level below, and the
//! best level the CPU has is picked when a grid is filled, so users need no `target-cpu` flag.
//! The copies give the same bits: Rust never fuses a multiply and an add on its own, so every
//! level performs the same IEEE operations, only more lanes at a time.

/// The target features of the AVX2 level, written once: `avx2_features!(m!(args))` expands to
/// `m!(args ["avx2", "fma"])`, for the run-time check here and the compiled kernels ([`dispatch`]).
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

/// Defines `fn $name(isa: Isa, args) -> out` that runs `$kernel(args)` compiled with the target
/// features of `isa` (the kernel is `#[inline(always)]`, so each level gets its own copy of its
/// loops): the one place where a level's features are enabled. An [`Isa`] exists only for a
/// level this CPU has, so the copy it picks can run.
macro_rules! dispatch {
    ($(#[$attr:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $out:ty)? => $kernel:path) => {
        $(#[$attr])*
        $vis fn $name(isa: $crate::isa::Isa, $($arg: $ty),*) $(-> $out)? {
            use $crate::isa::compiled_for;
            $crate::isa::avx2_features!(compiled_for!(avx2 ($($arg: $ty),*) $(-> $out)? => $kernel));
            $crate::isa::avx512_features!(compiled_for!(avx512 ($($arg: $ty),*) $(-> $out)? => $kernel));
            match isa.level() {
                $crate::isa::Level::Baseline => $kernel($($arg),*),
                // SAFETY: the CPU has every feature of the level: an `Isa` is its proof.
                #[cfg(target_arch = "x86_64")]
                $crate::isa::Level::Avx2 => unsafe { avx2($($arg),*) },
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                $crate::isa::Level::Avx512 => unsafe { avx512($($arg),*) },
                // The baseline copy: only the kernels it calls are the AVX-512 level's.
                #[cfg(all(test, target_arch = "x86_64"))]
                $crate::isa::Level::Avx512Emulated => $kernel($($arg),*),
            }
        }
    };
}

/// One level's copy of a kernel, for [`dispatch`]: `$level` calls `$kernel` with the features
/// the level's list (the trailing `[...]`) enables.
macro_rules! compiled_for {
    ($level:ident ($($arg:ident: $ty:ty),*) $(-> $out:ty)? => $kernel:path [$($feature:tt),+]) => {
        #[cfg(target_arch = "x86_64")]
        $(#[target_feature(enable = $feature)])+
        fn $level($($arg: $ty),*) $(-> $out)? {
            $kernel($($arg),*)
        }
    };
}

pub(crate) use {avx2_features, avx512_features, compiled_for, dispatch};

/// The environment variable that picks the instruction-set level by name (`baseline`, `avx2`,
/// `avx512`) instead of the one measured fastest for grids
/// ([`grid_level`](crate::advanced::grid_level),
/// [`gradients_grid_level`](crate::advanced::gradients_grid_level)) and the best one supported for the other
/// kernels: to compare the levels on one machine, or to pin one. A level the CPU lacks and an
/// unknown name are ignored. The bits are the same at every level.
pub const ISA_VARIABLE: &str = "NOISE_TERRAIN_ISA";

/// An instruction-set level the row path is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    /// The target's baseline (SSE2 on x86-64).
    Baseline,
    /// AVX2 and FMA: 8 `f32` lanes.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 (F, VL, DQ, BW) and FMA: 16 `f32` lanes, mask registers, 8-lane `f64` conversions.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// Tests only: the AVX-512 level's rows on any CPU, its kernels instantiated with portable
    /// 16-wide lanes (`grid/lanes/portable.rs`) and the code around them at the baseline. Not in
    /// [`Level::ALL`]: nothing picks it; the tests run every level of [`levels_under_test`].
    #[cfg(all(test, target_arch = "x86_64"))]
    Avx512Emulated,
}

impl Level {
    /// Every level compiled into this build, best first.
    pub(crate) const ALL: &[Level] = &[
        #[cfg(target_arch = "x86_64")]
        Level::Avx512,
        #[cfg(target_arch = "x86_64")]
        Level::Avx2,
        Level::Baseline,
    ];

    /// Whether this CPU can run the level.
    pub(crate) fn is_supported(self) -> bool {
        match self {
            Level::Baseline => true,
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => avx2_features!(all_detected!()),
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => avx512_features!(all_detected!()),
            #[cfg(all(test, target_arch = "x86_64"))]
            Level::Avx512Emulated => true,
        }
    }

    /// Whether the level has 32 vector registers of 16 `f32` lanes (AVX-512): a kernel with a wide
    /// working set takes 16 pixels at a time there and 8 elsewhere (AVX2 has 16 registers of 8
    /// lanes, where 16 pixels at a time spill).
    pub(crate) fn wide(self) -> bool {
        match self {
            Level::Baseline => false,
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => false,
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => true,
            #[cfg(all(test, target_arch = "x86_64"))]
            Level::Avx512Emulated => true,
        }
    }

    /// The level called `name` (`baseline`, `avx2`, `avx512`), if this build has it.
    fn named(name: &str) -> Option<Level> {
        Level::ALL.iter().copied().find(|isa| isa.name() == name.trim().to_ascii_lowercase())
    }

    /// The level's name, as [`ISA_VARIABLE`] spells it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Level::Baseline => "baseline",
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => "avx512",
            #[cfg(all(test, target_arch = "x86_64"))]
            Level::Avx512Emulated => "avx512 (emulated)",
        }
    }
}

/// A level this CPU runs: the proof a kernel compiled with the level's target features asks for
/// before it is called. Made only here, from a [`Level`] the CPU was checked for (the baseline
/// needs no check), so code that holds one never runs instructions the CPU lacks, whatever it
/// does with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Isa(Level);

impl Isa {
    /// The target's baseline, which every CPU of the target runs.
    pub(crate) const BASELINE: Isa = Isa(Level::Baseline);

    /// `level`, if this CPU runs it.
    pub(crate) fn checked(level: Level) -> Option<Isa> {
        level.is_supported().then_some(Isa(level))
    }

    /// Every level this CPU runs, widest first.
    pub(crate) fn supported() -> impl Iterator<Item = Isa> {
        Level::ALL.iter().copied().filter_map(Isa::checked)
    }

    /// The level kernels run with: the best this CPU supports, unless the environment variable
    /// [`ISA_VARIABLE`] names another supported level. (Grids pick theirs by measurement:
    /// `grid/level.rs`.)
    pub(crate) fn best() -> Isa {
        static BEST: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| {
            Isa::named_in_environment().unwrap_or_else(|| Isa::supported().next().unwrap_or(Isa::BASELINE))
        })
    }

    /// The supported level [`ISA_VARIABLE`] names, if it is set to one.
    pub(crate) fn named_in_environment() -> Option<Isa> {
        let named = std::env::var(ISA_VARIABLE).ok().and_then(|name| Level::named(&name));
        named.and_then(Isa::checked)
    }

    /// The level, to pick a kernel by.
    pub(crate) fn level(self) -> Level {
        self.0
    }

    /// See [`Level::wide`].
    pub(crate) fn wide(self) -> bool {
        self.0.wide()
    }

    /// See [`Level::name`].
    pub(crate) fn name(self) -> &'static str {
        self.0.name()
    }

    /// Tests only: the emulated AVX-512 level, which runs on every x86-64 CPU.
    #[cfg(all(test, target_arch = "x86_64"))]
    pub(crate) fn emulated() -> Isa {
        Isa(Level::Avx512Emulated)
    }
}

/// The levels the tests run grids at: every level this CPU supports, and the AVX-512 level's rows
/// emulated where it has no AVX-512 (so that they are checked on every x86-64 CPU).
#[cfg(test)]
pub(crate) fn levels_under_test() -> Vec<Isa> {
    #[cfg(target_arch = "x86_64")]
    let emulated = (!Level::Avx512.is_supported()).then(Isa::emulated);
    #[cfg(not(target_arch = "x86_64"))]
    let emulated = None;
    Isa::supported().chain(emulated).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_is_found_by_its_name_and_nothing_else_is() {
        for &level in Level::ALL {
            assert_eq!(Level::named(level.name()), Some(level));
            assert_eq!(Level::named(&format!(" {} ", level.name().to_uppercase())), Some(level));
        }
        assert_eq!(Level::named("sse9"), None);
        assert_eq!(Level::named(""), None);
    }

    #[test]
    fn only_levels_this_cpu_runs_are_made_and_the_baseline_always_is() {
        assert!(Isa::best().level().is_supported());
        assert_eq!(Isa::checked(Level::Baseline), Some(Isa::BASELINE));
        assert_eq!(Level::ALL.last(), Some(&Level::Baseline));
        for &level in Level::ALL {
            assert_eq!(Isa::checked(level).is_some(), level.is_supported(), "{level:?}");
        }
        assert!(Isa::supported().all(|isa| isa.level().is_supported()));
    }
}
