//! Work over the chunks of a buffer: on all cores with the `parallel` feature (rayon, the same
//! choice as the grid), one after another without it.

/// Calls `f(index, chunk)` for every `size`-long chunk of `data` (the last may be shorter).
pub(crate) fn for_each_chunk<T: Send>(data: &mut [T], size: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    let size = size.max(1);
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        data.par_chunks_mut(size).enumerate().for_each(|(i, chunk)| f(i, chunk));
    }
    #[cfg(not(feature = "parallel"))]
    data.chunks_mut(size).enumerate().for_each(|(i, chunk)| f(i, chunk));
}

/// `f` of every `size`-long chunk of `data` (the last may be shorter), in order. The chunks do
/// not depend on the number of threads, so neither does anything combined from the results in
/// order.
pub(crate) fn map_chunks<T: Sync, R: Send>(data: &[T], size: usize, f: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    let size = size.max(1);
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        data.par_chunks(size).map(&f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    data.chunks(size).map(f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_element_is_visited_once_with_its_chunk_index() {
        let mut data = vec![0usize; 103];
        for_each_chunk(&mut data, 10, |i, chunk| {
            for (k, d) in chunk.iter_mut().enumerate() {
                *d += i * 10 + k + 1;
            }
        });
        assert_eq!(data, (1..=103).collect::<Vec<_>>());
        let sums = map_chunks(&data, 10, |chunk| chunk.iter().sum::<usize>());
        assert_eq!(sums.len(), 11);
        assert_eq!(sums[0], 55);
        assert_eq!(sums[10], 101 + 102 + 103);
    }
}
