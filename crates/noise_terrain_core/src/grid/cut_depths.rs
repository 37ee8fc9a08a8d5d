//! The erosion filter's cut over a grid: how far below the unfiltered field each sample lies.

use crate::field::FieldSampler;
use crate::grid::{GridWindow, fill_grid};

/// The depth of the erosion filter's cut at every sample of `window` (a share of the field's height
/// range, `[0, 1]`; what colour rules paint gullies by, see
/// [`ColorLayer::cuts`](crate::ColorLayer::cuts)), from the field's `heights` there (as
/// [`fill_grid`] gives them), into `out`: the unfiltered field's heights less the filtered ones,
/// where they are lower. Zeros where the filter is off. Both slices are `window`'s size.
pub fn fill_cut_depths(sampler: &FieldSampler, window: GridWindow, heights: &[f32], out: &mut [f32]) {
    assert_eq!(heights.len(), out.len(), "the heights and the depths do not match");
    let Some(plan) = &sampler.filter else {
        out.fill(0.0);
        return;
    };
    let inv_range = plan.inv_range();
    let mut unfiltered = sampler.clone();
    unfiltered.filter = None;
    fill_grid(&unfiltered, window, out);
    for (depth, &h) in out.iter_mut().zip(heights) {
        *depth = ((*depth - h) * inv_range).clamp(0.0, 1.0);
    }
}
