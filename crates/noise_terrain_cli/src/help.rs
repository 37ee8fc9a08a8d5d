//! Help texts whose ranges and defaults are the core's own: each flag's text is written here
//! from the constant the core clamps to and the `Default` it starts from, so `--help` cannot
//! drift from what the tool does (`tests::help_ranges_and_defaults_agree_with_the_core` checks
//! every flag against the parsed settings).

/// A share or weight: the whole closed unit interval, by definition rather than by choice.
pub(crate) const SHARE: (f32, f32) = (0.0, 1.0);

/// `text, [lo, hi] [default: d]`.
pub(crate) fn real(text: &str, (lo, hi): (f32, f32), default: f32) -> String {
    format!("{text}, [{}, {}] [default: {}]", number(lo), number(hi), number(default))
}

/// `text, lo..=hi [default: d]`.
pub(crate) fn count(text: &str, (lo, hi): (u32, u32), default: u32) -> String {
    format!("{text}, {lo}..={hi} [default: {default}]")
}

/// `text, [lo, hi] [default: the preset's, else d]`: a value a `--preset` brings.
pub(crate) fn real_or_preset(text: &str, (lo, hi): (f32, f32), default: f32) -> String {
    format!("{text}, [{}, {}] [default: the preset's, else {}]", number(lo), number(hi), number(default))
}

/// `text, lo..=hi [default: the preset's, else d]`.
pub(crate) fn count_or_preset(text: &str, (lo, hi): (u32, u32), default: u32) -> String {
    format!("{text}, {lo}..={hi} [default: the preset's, else {default}]")
}

/// `text [default: d]`, for a name or a number without a range.
pub(crate) fn named(text: &str, default: impl std::fmt::Display) -> String {
    format!("{text} [default: {default}]")
}

/// A number as a person writes it, and as the flag parses it back: `1e-6` and `1e6` for the
/// very small and very large, the shortest exact decimal otherwise.
pub(crate) fn number(v: f32) -> String {
    if v != 0.0 && (v.abs() >= 1e5 || v.abs() < 1e-3) { format!("{v:e}") } else { format!("{v}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_back_exactly() {
        for v in [0.0f32, 1e-6, 0.001, 0.004, 0.02, 0.3, 1.0, 7.5, 64.0, 10_000.0, 1e5, 1e6, 1e12] {
            assert_eq!(number(v).parse::<f32>().unwrap(), v, "{}", number(v));
        }
        assert_eq!(number(1e-6), "1e-6");
        assert_eq!(number(0.08), "0.08");
        assert_eq!(real("Depth", (0.0, 4.0), 0.3), "Depth, [0, 4] [default: 0.3]");
        assert_eq!(count("Octaves", (1, 12), 5), "Octaves, 1..=12 [default: 5]");
    }
}
