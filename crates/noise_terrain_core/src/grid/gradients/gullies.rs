//! The erosion filter's gully octaves over rows of heights (with gradients or without): the
//! filter's states of a row, octave by octave, chunk by chunk of lanes.

use super::*;
use crate::field::erosion_filter::{DUAL_PARTS, GullyNumber, GullyParts, PARTS, pivot_offset};
use crate::limits::MAX_FILTER_OCTAVES;

/// Row `j` of heights and gradients: [`lattice_row`], then the erosion filter when there is one
/// (following the slope of the coarse octaves along the row, from [`coarse_slope_row`], whose
/// layers the fractal takes instead of making them again where it can). Each stage is compiled
/// for the level on its own: with every stage inlined into one function the filtered row ran 1.4x
/// to 1.6x slower (1024², 129² and 65² grids, Zen 4).
pub(super) fn filtered_row(isa: Isa, sampler: &FieldSampler, window: GridWindow, j: usize, row: RowOut<'_>) {
    let RowOut { heights, gradients, xs, scratch } = row;
    // Rows come in batches only without a filter (`rows_at_once`), to `lattice_row`.
    let Some(plan) = &sampler.filter else {
        lattice_row_at(isa, sampler, (window, j, 0), isa, RowOut { heights, gradients, xs, scratch });
        return;
    };
    let py = row_y(sampler, window, j);
    let reuse = reuses_coarse_layers(sampler);
    coarse_slope_with_hessian_at(isa, sampler, (xs, py, reuse), scratch);
    let reused = if reuse { sampler.filter_octaves as usize } else { 0 };
    lattice_row_at(isa, sampler, (window, j, reused), isa, RowOut { heights, gradients, xs, scratch });
    for k in 0..plan.octaves() {
        // The width of the octave's chunks follows the level's registers (see `Isa::wide`).
        if isa.wide() {
            dual_gully_octave_wide_at(isa, plan, k, (xs, py), (heights, gradients), scratch);
        } else {
            dual_gully_octave_narrow_at(isa, plan, k, (xs, py), (heights, gradients), scratch);
        }
    }
    dual_gully_finish_at(isa, plan, heights, gradients, &scratch.dual_states);
}

/// Whether the fractal of a filtered row takes its coarse octaves' layers from
/// [`coarse_slope_row`]: for value and gradient noise, whose jets' values and gradients are the
/// same bits as their layers' (simplex noise's jet flattens where the layer does not).
pub(super) fn reuses_coarse_layers(sampler: &FieldSampler) -> bool {
    matches!(sampler.settings.basis, Basis::Value | Basis::Gradient)
}

/// The filter's starting states of `L` pixels from `start` of a row of heights with gradients
/// (the field's `heights` and `gradients`, the coarse slope's rows `coarse`, padded to whole
/// chunks), as [`GullyParts::parts_of`]' numbers; zeros past the row's end.
#[inline(always)]
pub(super) fn start_lanes<const L: usize>(
    plan: &GullyPlan,
    start: usize,
    (heights, gradients): (&[f32], &[[f32; 2]]),
    coarse: &[Vec<f32>; 5],
) -> [[f32; L]; DUAL_PARTS] {
    let lanes = start..start + L;
    let (mut h, mut g) = ([0.0f32; L], [[0.0f32; 2]; L]);
    if lanes.end <= heights.len() {
        h = heights[lanes.clone()].try_into().expect("L long");
        g = gradients[lanes.clone()].try_into().expect("L long");
    } else {
        let end = heights.len();
        h[..end - start].copy_from_slice(&heights[start..end]);
        g[..end - start].copy_from_slice(&gradients[start..end]);
    }
    // The gradients' two components apart, so that the loop below runs on plain rows.
    let (hx, hy) = (g.map(|g| g[0]), g.map(|g| g[1]));
    let take = |v: &[f32]| -> [f32; L] { v[lanes.clone()].try_into().expect("L long") };
    let [gx, gy, xx, xy, yy] = coarse;
    let (gx, gy, xx, xy, yy) = (take(gx), take(gy), take(xx), take(xy), take(yy));
    let mut p = [[0.0f32; L]; DUAL_PARTS];
    for l in 0..L {
        let slope = [Dual::new(gx[l], [xx[l], xy[l]]), Dual::new(gy[l], [xy[l], yy[l]])];
        let v = Dual::parts_of(plan.start(Dual::new(h[l], [hx[l], hy[l]]), slope));
        for c in 0..DUAL_PARTS {
            p[c][l] = v[c];
        }
    }
    p
}

/// The filter's states of [`LANES`] pixels with gradients: [`GullyParts::parts_of`]'
/// numbers, each for every lane. A row's states are a run of these: one array per chunk, where
/// twelve rows of numbers took a bounds check and a reload of each row's address per chunk (as
/// fast on Zen 4, and simpler).
pub(super) type StateChunk = [[f32; LANES]; DUAL_PARTS];

/// The filtered heights and gradients of a row from the states after the last octave.
#[inline(always)]
pub(super) fn dual_gully_finish(
    plan: &GullyPlan,
    heights: &mut [f32],
    gradients: &mut [[f32; 2]],
    states: &[StateChunk],
) {
    // The finish reads the height above the bound alone ([`GullyParts::parts_of`]' last three
    // numbers): taken apart from the rest, so that LLVM vectorises the lanes (with whole states it
    // vectorised across chunks, with gathers).
    let finish = |above: &[[f32; LANES]], l: usize, h: f32, g: [f32; 2]| {
        let mut parts = [0.0f32; DUAL_PARTS];
        parts[9..].copy_from_slice(&[above[0][l], above[1][l], above[2][l]]);
        let d = plan.finish(Dual::new(h, g), Dual::state_from(parts)).0.with_finite_gradient();
        (d.value, d.gradient)
    };
    let (mut heights, mut gradients) = (heights.chunks_exact_mut(LANES), gradients.chunks_exact_mut(LANES));
    let mut states = states.iter();
    for ((h, g), p) in heights.by_ref().zip(gradients.by_ref()).zip(states.by_ref()) {
        let above = [p[9], p[10], p[11]];
        for (l, (h, g)) in h.iter_mut().zip(g).enumerate() {
            (*h, *g) = finish(&above, l, *h, *g);
        }
    }
    // The row's last pixels.
    let (h, g) = (heights.into_remainder(), gradients.into_remainder());
    if let Some(p) = states.next() {
        for (l, (h, g)) in h.iter_mut().zip(g).enumerate() {
            (*h, *g) = finish(&p[9..], l, *h, *g);
        }
    }
}

/// The slope that the erosion filter's gullies follow along a row segment of heights (x positions
/// `xs` of row `j`), into `scratch`, before the row's field is made: returns how many of the
/// field's first octaves it kept the values of (see [`Scratch::coarse_values`]), which the field
/// takes rather than makes again (value and gradient noise: see [`coarse_slope_from_layers`]).
pub(crate) fn heights_coarse_slope(
    isa: Isa,
    sampler: &FieldSampler,
    (window, j, xs): (GridWindow, usize, &[f64]),
    scratch: &mut Scratch,
) -> usize {
    let py = row_y(sampler, window, j);
    if reuses_coarse_layers(sampler) {
        coarse_slope_from_layers_at(isa, sampler, (xs, py), isa, scratch);
        sampler.filter_octaves as usize
    } else {
        coarse_slope_at(isa, sampler, (xs, py, false), scratch);
        0
    }
}

/// The erosion filter over a row segment of heights `row` (the field's, already written) at the x
/// positions `xs` of row `j`, after [`heights_coarse_slope`] of the same row: bit for bit
/// [`FieldSampler::sample`] (value, gradient and simplex noise). Rewrites every element of `row`.
/// With `shared` (the grid's rows are one segment each, so that every row has these `xs`) each
/// octave's gully cells along x are found by the first row and kept for the others.
pub(crate) fn filter_heights_row(
    isa: Isa,
    sampler: &FieldSampler,
    (window, j, xs, shared): (GridWindow, usize, &[f64], bool),
    scratch: &mut Scratch,
    row: &mut [f32],
) {
    let plan = sampler.filter.as_ref().expect("a field with the erosion filter");
    let py = row_y(sampler, window, j);
    if !shared {
        scratch.gully_columns.clear();
    }
    // The width of the chunks follows the level's registers (see `Isa::wide`).
    if isa.wide() {
        gully_heights_wide_at(isa, plan, (xs, py), scratch, row);
    } else {
        gully_heights_narrow_at(isa, plan, (xs, py), scratch, row);
    }
}

/// One octave's gully cells along the rows of a grid, which share their x positions: each
/// pixel's cell index and fraction in x (see [`GullyPlan::cell_of`]) and the blend weights there
/// (see [`GullyPlan::weights`]: weight, slope, curvature), and the pixels' offsets from the pivots
/// of one row of cells (see [`PivotRow`]), in chunks of [`LANES`] pixels (aligned, so that a
/// chunk or half of one is one load), the row padded past its end to whole chunks and one more.
#[derive(Default)]
pub(super) struct GullyColumns {
    chunks: Vec<ColumnChunk>,
    pivots: PivotRow,
}

/// [`LANES`] pixels of [`GullyColumns`].
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct ColumnChunk {
    ix: [i32; LANES],
    fx: [f32; LANES],
    weights: [[f32; LANES]; 3],
}

/// The pixels' offsets in x from the pivots of the four cells around them in one row of cells
/// `iy` (see [`pivot_offset`]), and those pivots' jitters in y, which each pixel row in that row
/// of cells takes its offsets in y from: the pivots' hashes made once per row of cells rather
/// than once per pixel row (an octave's cells are several pixels tall on a grid; where they are
/// not, a row's pivots cost about what hashing them in the octave did).
#[derive(Default)]
struct PivotRow {
    iy: Option<i32>,
    chunks: Vec<PivotChunk>,
}

/// [`LANES`] pixels of [`PivotRow`]: per cell, the offsets in x and the jitters in y.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct PivotChunk {
    rx: [[f32; LANES]; 4],
    jy: [[f32; LANES]; 4],
}

/// `L` pixels of an octave's cells (see [`GullyColumns::lanes`]): the three blend weights in x,
/// the offsets in x from the four pivots and their jitters in y.
type OctaveLanes<const L: usize> = ([[f32; L]; 3], [[f32; L]; 4], [[f32; L]; 4]);

impl GullyColumns {
    /// Makes the pivots of octave `k`'s row of cells at `py` (base lattice units) unless they
    /// are there.
    #[inline(always)]
    fn pivots_for(&mut self, plan: &GullyPlan, k: usize, py: f64) {
        let iy = plan.cell_of(k, py).0;
        if self.pivots.iy == Some(iy) {
            return;
        }
        self.pivots.chunks.resize(self.chunks.len(), PivotChunk::default());
        for (to, from) in self.pivots.chunks.iter_mut().zip(&self.chunks) {
            let (mut rx, mut jy) = ([[0.0; LANES]; 4], [[0.0; LANES]; 4]);
            for l in 0..LANES {
                let jitters = plan.pivot_jitters(k, [from.ix[l], iy]);
                // The four cells written out (a loop over them kept the lanes from vectorising).
                macro_rules! cell {
                    ($c:literal) => {
                        let [x, y] = jitters[$c];
                        (rx[$c][l], jy[$c][l]) = (pivot_offset(from.fx[l], $c & 1, x), y);
                    };
                }
                cell!(0);
                cell!(1);
                cell!(2);
                cell!(3);
            }
            *to = PivotChunk { rx, jy };
        }
        self.pivots.iy = Some(iy);
    }

    /// The `L` pixels from `start` (`L` a divisor of [`LANES`], `start` a multiple of `L`: the
    /// pixels of one chunk), with the pivots of the row of cells
    /// [`pivots_for`](Self::pivots_for) made last.
    #[inline(always)]
    fn lanes<const L: usize>(&self, start: usize) -> OctaveLanes<L> {
        const { assert!(LANES.is_multiple_of(L), "within one chunk") };
        debug_assert!(start.is_multiple_of(L));
        let (chunk, pivots) = (&self.chunks[start / LANES], &self.pivots.chunks[start / LANES]);
        let lanes = start % LANES..start % LANES + L;
        let take = |row: &[f32; LANES]| -> [f32; L] { row[lanes.clone()].try_into().expect("L long") };
        let ([w, dw, ddw], [r0, r1, r2, r3], [j0, j1, j2, j3]) = (&chunk.weights, &pivots.rx, &pivots.jy);
        (
            [take(w), take(dw), take(ddw)],
            [take(r0), take(r1), take(r2), take(r3)],
            [take(j0), take(j1), take(j2), take(j3)],
        )
    }
}

/// Makes the gully columns of every octave of `plan` along the row `xs` that `columns` lacks (a
/// grid's first row makes them all; the others find them there).
#[inline(always)]
pub(super) fn make_gully_columns(plan: &GullyPlan, xs: &[f64], columns: &mut Vec<GullyColumns>) {
    let chunks = xs.len().div_ceil(LANES) + 1;
    while columns.len() < plan.octaves() {
        let k = columns.len();
        let mut c = vec![ColumnChunk::default(); chunks];
        for (l, &x) in xs.iter().enumerate() {
            let chunk = &mut c[l / LANES];
            let at = l % LANES;
            let (i, f) = plan.cell_of(k, x);
            (chunk.ix[at], chunk.fx[at]) = (i, f);
        }
        // The weights of every lane, those past the row's end too (of fraction 0).
        for chunk in &mut c {
            for at in 0..LANES {
                let [w, dw, ddw] = plan.weights(k, chunk.fx[at]);
                [chunk.weights[0][at], chunk.weights[1][at], chunk.weights[2][at]] = [w, dw, ddw];
            }
        }
        columns.push(GullyColumns { chunks: c, pivots: PivotRow::default() });
    }
}

/// An octave's cells for the pixels of a row: the grid's columns with the pivots of the row's
/// row of cells (see [`GullyColumns`]) and the row's fraction and blend weights in y.
#[derive(Clone, Copy)]
pub(super) struct OctaveCells<'a> {
    columns: &'a GullyColumns,
    fy: f32,
    y: [f32; 3],
}

impl<'a> OctaveCells<'a> {
    /// Octave `k`'s cells for the row at `py` (base lattice units), whose pivots
    /// [`GullyColumns::pivots_for`] made in `columns`.
    #[inline(always)]
    fn new(plan: &GullyPlan, k: usize, columns: &'a GullyColumns, py: f64) -> Self {
        let (iy, fy) = plan.cell_of(k, py);
        debug_assert_eq!(columns.pivots.iy, Some(iy), "the row's pivots");
        Self { columns, fy, y: plan.weights(k, fy) }
    }

    /// Octave `k` of gullies over `G` groups of `L` pixels, from each of `starts`, with the given
    /// states (`L` lanes of [`GullyState`]'s parts, with or without gradients, per group), in
    /// place. The groups are independent and run interleaved in one loop: an octave is a long
    /// chain of dependent operations (a square root and three divisions among them), which one
    /// group alone leaves the core waiting on.
    #[inline(always)]
    fn octave<
        const L: usize,
        const G: usize,
        const BENDS: bool,
        const PARTS: usize,
        T: GullyNumber + GullyParts<PARTS>,
    >(
        self,
        plan: &GullyPlan,
        k: usize,
        starts: [usize; G],
        p: &mut [[[f32; L]; PARTS]; G],
    ) {
        const { assert!(G >= 1 && G <= 5, "one to five groups") };
        // (Not `starts.map(...)`: its closure is a call, compiled apart from the level.)
        let group = |g: usize| g.min(G - 1);
        let columns = [
            self.columns.lanes::<L>(starts[0]),
            self.columns.lanes::<L>(starts[group(1)]),
            self.columns.lanes::<L>(starts[group(2)]),
            self.columns.lanes::<L>(starts[group(3)]),
            self.columns.lanes::<L>(starts[group(4)]),
        ];
        // Each lane's octave in its three stages (see `GullyPlan::octave_in`), each stage for every
        // group before the next, written out (not a loop over the groups, so that the pixel
        // loop stays innermost and vectorises with the groups in its body): the compiler then
        // lays the groups' chains of dependent operations closer together (the rows' last
        // octave, two groups of 8: about 94 cycles by llvm-mca on Zen 3, against 123 with each
        // group's octave whole).
        for l in 0..L {
            let state: [GullyState<Dual>; G] =
                std::array::from_fn(|g| T::state_from(std::array::from_fn(|c| p[g][c][l])).to_dual());
            // `$e` for each of five groups, those past the `G`th the last again (the same
            // computation, which the compiler makes once).
            macro_rules! each {
                ($g:ident => $e:expr) => {{
                    let a = {
                        let $g = 0;
                        $e
                    };
                    let b = {
                        let $g = group(1);
                        $e
                    };
                    let c = {
                        let $g = group(2);
                        $e
                    };
                    let d = {
                        let $g = group(3);
                        $e
                    };
                    let e = {
                        let $g = group(4);
                        $e
                    };
                    [a, b, c, d, e]
                }};
            }
            let direction = each!(g => plan.direction(k, state[g]));
            let profile = each!(g => {
                let ([w, dw, ddw], rx, jy) = &columns[g];
                let offset = |c: usize| [rx[c][l], pivot_offset(self.fy, c >> 1, jy[c][l])];
                let offsets = [offset(0), offset(1), offset(2), offset(3)];
                plan.profile(k, BENDS, [[w[l], dw[l], ddw[l]], self.y], &offsets, state[g], direction[g])
            });
            let carved = each!(g => plan.carve(BENDS, state[g], direction[g], profile[g]));
            for g in 0..G {
                let v = T::parts_of(GullyState::from_dual(carved[g]));
                for c in 0..PARTS {
                    p[g][c][l] = v[c];
                }
            }
        }
    }
}

/// Octave `k` of the erosion filter with gradients over a row whose states are kept as chunks of
/// structures of arrays (`scratch.dual_states`, see [`StateChunk`]): unit-stride loads and
/// stores, so that the pixel loop vectorises (as an array of states it did not). The first
/// octave starts the states from the `field`'s heights and gradients and the coarse slope in the
/// same loop (a loop of its own stored and loaded the numbers once more). `WIDE`: sixteen
/// pixels at a time (AVX-512), else eight (see [`Isa::wide`]).
#[inline(always)]
pub(super) fn dual_gully_octave<const WIDE: bool>(
    plan: &GullyPlan,
    k: usize,
    (xs, py): (&[f64], f64),
    field: (&[f32], &[[f32; 2]]),
    scratch: &mut Scratch,
) {
    let Scratch { gully_columns, dual_states, coarse, .. } = scratch;
    // The first row finds the grid's columns of cells; the other rows reuse them.
    make_gully_columns(plan, xs, gully_columns);
    gully_columns[k].pivots_for(plan, k, py);
    let at = OctaveCells::new(plan, k, &gully_columns[k], py);
    if k == 0 {
        dual_states.resize(xs.len().div_ceil(LANES), [[0.0; LANES]; DUAL_PARTS]);
    }
    let first = (field, &*coarse);
    // The branches taken out of the pixel loops.
    match (k == 0, plan.bends_after(k)) {
        (true, true) => dual_gully_octave_row::<WIDE, true, true>(plan, k, at, first, dual_states),
        (true, false) => dual_gully_octave_row::<WIDE, true, false>(plan, k, at, first, dual_states),
        (false, true) => dual_gully_octave_row::<WIDE, false, true>(plan, k, at, first, dual_states),
        (false, false) => dual_gully_octave_row::<WIDE, false, false>(plan, k, at, first, dual_states),
    }
}

/// What the first octave starts its states from: the field's heights and gradients and the
/// coarse slope (see [`start_lanes`]).
pub(super) type FirstOctave<'a> = ((&'a [f32], &'a [[f32; 2]]), &'a [Vec<f32>; 5]);

/// [`dual_gully_octave`] with the bend fixed, [`LANES`] pixels at a time with `WIDE`, else each
/// chunk in two halves (see [`dual_gully_octave_chunk`]). A row that ends in a few pixels (chunks are 65 or 129 wide)
/// takes them in a chunk of half the lanes: on AVX-512 at half the cost of a whole one, most of
/// whose lanes would be padding.
#[inline(always)]
pub(super) fn dual_gully_octave_row<const WIDE: bool, const FIRST: bool, const BENDS: bool>(
    plan: &GullyPlan,
    k: usize,
    at: OctaveCells<'_>,
    first: FirstOctave<'_>,
    states: &mut [StateChunk],
) {
    const HALF: usize = LANES / 2;
    let width = first.0.0.len();
    let tail = width % LANES;
    let (whole, half) = if tail == 0 || tail > HALF { (states.len(), false) } else { (width / LANES, true) };
    for (c, chunk) in states[..whole].iter_mut().enumerate() {
        if WIDE {
            dual_gully_octave_chunk::<FIRST, BENDS, LANES, 0>(plan, (k, c * LANES), at, first, chunk);
        } else {
            // Two halves: sixteen lanes of the octave's numbers need more than AVX2's sixteen
            // registers (the filter ran 1.15x slower, spilling); AVX-512 has thirty-two.
            dual_gully_octave_chunk::<FIRST, BENDS, HALF, 0>(plan, (k, c * LANES), at, first, chunk);
            dual_gully_octave_chunk::<FIRST, BENDS, HALF, HALF>(plan, (k, c * LANES), at, first, chunk);
        }
    }
    if half {
        let at_tail = (k, whole * LANES);
        dual_gully_octave_chunk::<FIRST, BENDS, HALF, 0>(plan, at_tail, at, first, &mut states[whole]);
    }
}

/// [`dual_gully_octave_row`]'s `L` pixels from `start + OFFSET` (their states the `L` lanes of
/// `chunk` from `OFFSET`, the chunk of the pixels from `start`), in local arrays. With `FIRST`, the states are started from `first` rather than
/// loaded.
#[inline(always)]
pub(super) fn dual_gully_octave_chunk<
    const FIRST: bool,
    const BENDS: bool,
    const L: usize,
    const OFFSET: usize,
>(
    plan: &GullyPlan,
    (k, start): (usize, usize),
    at: OctaveCells<'_>,
    first: FirstOctave<'_>,
    chunk: &mut StateChunk,
) {
    let from = start + OFFSET;
    let mut p = if FIRST {
        start_lanes::<L>(plan, from, first.0, first.1)
    } else {
        chunk.map(|lanes| std::array::from_fn(|l| lanes[OFFSET + l]))
    };
    at.octave::<L, 1, BENDS, DUAL_PARTS, Dual>(plan, k, [from], std::array::from_mut(&mut p));
    // Stored where they changed: the mask ([`GullyParts::parts_of`]' first three numbers) only
    // when started, the slope (the next six) only when started or bent.
    for (c, (to, from)) in chunk.iter_mut().zip(&p).enumerate() {
        if FIRST || c >= 9 || (BENDS && c >= 3) {
            to[OFFSET..OFFSET + L].copy_from_slice(from);
        }
    }
}

/// The erosion filter over a row of heights `row` (x positions `xs`, y `py` in base lattice
/// units; the coarse slope in `scratch.coarse`): in groups of chunks side by side (see
/// [`gully_heights_groups`]) of [`LANES`] pixels with `WIDE` (AVX-512), else of half as many
/// (AVX2), each chunk started, taken through every octave and finished with its states in
/// registers.
#[inline(always)]
pub(super) fn gully_heights<const WIDE: bool>(
    plan: &GullyPlan,
    (xs, py): (&[f64], f64),
    scratch: &mut Scratch,
    row: &mut [f32],
) {
    let Scratch { gully_columns, coarse, .. } = scratch;
    make_gully_columns(plan, xs, gully_columns);
    // Each octave's cells for this row, made once for all the row's chunks.
    for (k, columns) in gully_columns.iter_mut().enumerate() {
        columns.pivots_for(plan, k, py);
    }
    let octaves = plan.octaves();
    // (Not `std::array::from_fn`: its closure is a call, compiled apart from the level.)
    let mut at = [OctaveCells::new(plan, 0, &gully_columns[0], py); MAX_FILTER_OCTAVES as usize];
    for (k, columns) in gully_columns.iter().enumerate().take(octaves) {
        at[k] = OctaveCells::new(plan, k, columns, py);
    }
    let at = &at[..octaves];
    if WIDE {
        gully_heights_groups::<LANES>(plan, at, coarse, row);
    } else {
        gully_heights_groups::<{ LANES / 2 }>(plan, at, coarse, row);
    }
}

/// [`gully_heights`] in chunks of `L` pixels, in groups of four, and five rather than four and
/// one (a 65- or 129-pixel row's last pixel alone in a chunk costs a chunk's whole chain of
/// dependent operations, in a group its share of the work alone); then what is left in one
/// group, a last chunk of a few pixels in half the lanes where `L` is [`LANES`] (see
/// [`OctaveCells::octave`] for why groups). Against pairs of chunks with AVX-512, 2% to 7% faster
/// at 1024², 129² and 65²; with AVX2 pinned, about as fast (Intel Xeon, 2026-12-08).
#[inline(always)]
fn gully_heights_groups<const L: usize>(
    plan: &GullyPlan,
    at: &[OctaveCells<'_>],
    coarse: &[Vec<f32>; 5],
    row: &mut [f32],
) {
    const HALF: usize = LANES / 2;
    let width = row.len();
    let chunks = width.div_ceil(L);
    let mut first = 0;
    while first < chunks {
        let start = first * L;
        let left = chunks - first;
        match left {
            5 => gully_heights_chunks::<L, 5>(plan, at, coarse, row, start),
            4.. => gully_heights_chunks::<L, 4>(plan, at, coarse, row, start),
            3 => gully_heights_chunks::<L, 3>(plan, at, coarse, row, start),
            2 => gully_heights_chunks::<L, 2>(plan, at, coarse, row, start),
            _ if L == LANES && width - start <= HALF => {
                gully_heights_chunks::<HALF, 1>(plan, at, coarse, row, start)
            }
            _ => gully_heights_chunks::<L, 1>(plan, at, coarse, row, start),
        }
        first += left.min(4 + usize::from(left == 5));
    }
}

/// [`gully_heights`] over `G` chunks of `L` pixels from `first` (see [`OctaveCells::octave`]; the
/// row's last pixels in a chunk padded with zeros, whose results are dropped). Each chunk is
/// started, taken through every octave and finished with its states in registers (octave by
/// octave over the row, storing the states, measured as fast).
#[inline(always)]
fn gully_heights_chunks<const L: usize, const G: usize>(
    plan: &GullyPlan,
    at: &[OctaveCells<'_>],
    [gx, gy, ..]: &[Vec<f32>; 5],
    row: &mut [f32],
    first: usize,
) {
    // The bend's branch taken out of the pixel loops: every octave but the last bends, or none.
    let bends = plan.bends_after(0);
    let (last, before) = at.split_last().expect("at least one octave");
    let width = row.len();
    let starts: [usize; G] = std::array::from_fn(|g| first + g * L);
    // The pixels of each chunk in the row (every chunk starts in it, see `gully_heights`).
    let n = starts.map(|start| L.min(width - start));
    // Whole chunks as one load and one store (a copy of `n` numbers is a call).
    let h = std::array::from_fn::<_, G, _>(|g| {
        let mut h = [0.0f32; L];
        if n[g] == L {
            h = row[starts[g]..starts[g] + L].try_into().expect("L long");
        } else {
            h[..n[g]].copy_from_slice(&row[starts[g]..starts[g] + n[g]]);
        }
        h
    });
    let mut p = [[[0.0f32; L]; PARTS]; G];
    for (g, p) in p.iter_mut().enumerate() {
        let lanes = starts[g]..starts[g] + L;
        let take = |v: &[f32]| -> [f32; L] { v[lanes.clone()].try_into().expect("L long") };
        let (sx, sy) = (take(gx), take(gy));
        for l in 0..L {
            let v = f32::parts_of(plan.start(h[g][l], [sx[l], sy[l]]));
            for c in 0..PARTS {
                p[c][l] = v[c];
            }
        }
    }
    for (k, at) in before.iter().enumerate() {
        if bends {
            at.octave::<L, G, true, PARTS, f32>(plan, k, starts, &mut p);
        } else {
            at.octave::<L, G, false, PARTS, f32>(plan, k, starts, &mut p);
        }
    }
    last.octave::<L, G, false, PARTS, f32>(plan, before.len(), starts, &mut p);
    for (g, p) in p.iter().enumerate() {
        // Finished over every lane (vectorised), then the row's pixels among them kept.
        let mut filtered = [0.0f32; L];
        for l in 0..L {
            let state = f32::state_from(std::array::from_fn(|c| p[c][l]));
            filtered[l] = plan.finish(h[g][l], state).0;
        }
        if n[g] == L {
            row[starts[g]..starts[g] + L].copy_from_slice(&filtered);
        } else {
            row[starts[g]..starts[g] + n[g]].copy_from_slice(&filtered[..n[g]]);
        }
    }
}
