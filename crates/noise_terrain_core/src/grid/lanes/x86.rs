//! What the x86 levels' lanes (`avx2.rs`, `avx512.rs`) share: the unsafe block around an
//! intrinsic, a level's token and vector types, and the methods that are one intrinsic each.

/// `unsafe { $e }` for a level's intrinsics.
macro_rules! level {
    ($e:expr) => {
        // SAFETY: used only in the methods of a level's token and vectors (`x86_level!`), which
        // exist only where the CPU has the level's features.
        unsafe { $e }
    };
}

/// `fn run(f) -> f()`, compiled with the target features of a level's list (`isa.rs`).
macro_rules! runner {
    ([$($feature:tt),+]) => {
        $(#[target_feature(enable = $feature)])+
        fn run<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
    };
}

/// A level's token `$token`, made only from an [`Isa`](crate::isa::Isa) of `Level::$level` (so
/// it exists only where the CPU has the level's features), its registers `$f` of `f32` lanes and
/// `$i` of `i32` lanes (made only by the token's methods and by operations on others) with their
/// operators, and `run`, which calls a closure compiled with the features `isa::$features` lists.
macro_rules! x86_level {
    (
        $(#[$doc:meta])*
        $token:ident of $level:ident with $features:ident;
        $f:ident($fv:ty) + $fadd:ident - $fsub:ident * $fmul:ident;
        $i:ident($iv:ty) + $iadd:ident - $isub:ident * $imul:ident ^ $ixor:ident & $iand:ident;
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $token(());

        impl $token {
            /// The token, where `isa` is its level.
            pub(crate) fn of(isa: crate::isa::Isa) -> Option<$token> {
                (isa.level() == crate::isa::Level::$level).then_some($token(()))
            }
        }

        /// A register of `f32` lanes.
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $f($fv);

        /// A register of `i32` lanes.
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $i($iv);

        operator!(Add add for $f by $fadd);
        operator!(Sub sub for $f by $fsub);
        operator!(Mul mul for $f by $fmul);
        operator!(Add add for $i by $iadd);
        operator!(Sub sub for $i by $isub);
        operator!(Mul mul for $i by $imul);
        operator!(BitXor bitxor for $i by $ixor);
        operator!(BitAnd bitand for $i by $iand);

        crate::isa::$features!(runner!());
    };
}

/// Implements a binary operator of a level's vectors with an intrinsic.
macro_rules! operator {
    ($trait:ident $method:ident for $ty:ident by $intrinsic:ident) => {
        impl std::ops::$trait for $ty {
            type Output = $ty;
            #[inline(always)]
            fn $method(self, other: $ty) -> $ty {
                $ty(level!($intrinsic(self.0, other.0)))
            }
        }
    };
}

/// Methods of a level's token that are one intrinsic each: `name(args) -> Out = expression`,
/// the expression wrapped in the output's vector type where one is named (`= F32x8(...)`).
macro_rules! one_intrinsic {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $out:ty = $($wrap:ident)?($e:expr);)+) => {
        $(
            #[inline(always)]
            fn $name(self, $($arg: $ty),*) -> $out {
                $($wrap)?(level!($e))
            }
        )+
    };
}
