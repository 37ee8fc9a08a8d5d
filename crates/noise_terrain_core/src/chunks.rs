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
    }
}
