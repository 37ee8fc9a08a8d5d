//! Helpers shared by the unit tests: a tiny deterministic PRNG and statistics. A leaf: it uses
//! nothing of the crate, so that every module's tests may use it.

/// SplitMix64: deterministic random `u64`s for test inputs.
pub(crate) struct SplitMix(pub u64);

impl SplitMix {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    pub(crate) fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo)
    }
}

/// `n` points uniform in `[-extent, extent)³`.
pub(crate) fn random_points(n: usize, seed: u64, extent: f64) -> Vec<[f64; 3]> {
    let mut rng = SplitMix(seed);
    (0..n)
        .map(|_| [rng.range(-extent, extent), rng.range(-extent, extent), rng.range(-extent, extent)])
        .collect()
}

/// Pearson correlation of two equally long series.
pub(crate) fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}
