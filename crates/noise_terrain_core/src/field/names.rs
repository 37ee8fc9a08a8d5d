//! Parsing our enums from the names their `name()` gives: a leaf module, so that every module
//! with such an enum can use it.

/// Implements `FromStr` by matching `name()` against every item of `ALL`.
macro_rules! parse_by_name {
    ($($t:ty),*) => {$(
        impl std::str::FromStr for $t {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                <$t>::ALL.into_iter().find(|v| v.name() == s).ok_or_else(|| {
                    let names: Vec<_> = <$t>::ALL.iter().map(|v| v.name()).collect();
                    format!("unknown {} `{s}` (expected one of: {})", stringify!($t), names.join(", "))
                })
            }
        }
    )*};
}
pub(crate) use parse_by_name;
