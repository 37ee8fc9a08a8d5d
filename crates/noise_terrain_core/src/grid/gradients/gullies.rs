//! The erosion filter's gully octaves over rows of heights (with gradients or without): the
//! filter's states of a row, octave by octave, chunk by chunk of lanes.

use super::*;

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
    coarse_slope_at(isa, sampler, (xs, py, reuse), scratch);
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
/// chunks), as [`GullyState::to_parts`]' twelve numbers; zeros past the row's end.
#[inline(always)]
pub(super) fn start_lanes<const L: usize>(
    plan: &GullyPlan,
    start: usize,
    (heights, gradients): (&[f32], &[[f32; 2]]),
    coarse: &[Vec<f32>; 5],
) -> [[f32; L]; 12] {
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
    let mut p = [[0.0f32; L]; 12];
    for l in 0..L {
        let slope = [Dual::new(gx[l], [xx[l], xy[l]]), Dual::new(gy[l], [xy[l], yy[l]])];
        let v = plan.start(Dual::new(h[l], [hx[l], hy[l]]), slope).to_parts();
        for c in 0..12 {
            p[c][l] = v[c];
        }
    }
    p
}

/// The filter's states of [`LANES`] pixels with gradients: [`GullyState::to_parts`]' twelve
/// numbers, each for every lane. A row's states are a run of these: one array per chunk, where
/// twelve rows of numbers took a bounds check and a reload of each row's address per chunk (as
/// fast on Zen 4, and simpler).
pub(super) type StateChunk = [[f32; LANES]; 12];

/// The filtered heights and gradients of a row from the states after the last octave.
#[inline(always)]
pub(super) fn dual_gully_finish(
    plan: &GullyPlan,
    heights: &mut [f32],
    gradients: &mut [[f32; 2]],
    states: &[StateChunk],
) {
    // The finish reads the height above the bound alone ([`GullyState::to_parts`]' last three
    // numbers): taken apart from the rest, so that LLVM vectorises the lanes (with whole states it
    // vectorised across chunks, with gathers).
    let finish = |above: &[[f32; LANES]], l: usize, h: f32, g: [f32; 2]| {
        let mut parts = [0.0f32; 12];
        parts[9..].copy_from_slice(&[above[0][l], above[1][l], above[2][l]]);
        let d = plan.finish(Dual::new(h, g), GullyState::from_parts(parts)).0.with_finite_gradient();
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

/// The erosion filter over a row segment of heights `row` (the field's, already written) at the x
/// positions `xs` of row `j`: bit for bit [`FieldSampler::sample`] (value, gradient and simplex
/// noise). Rewrites every element of `row`.
pub(crate) fn filter_heights_row(
    isa: Isa,
    sampler: &FieldSampler,
    (window, j, xs): (GridWindow, usize, &[f64]),
    scratch: &mut Scratch,
    row: &mut [f32],
) {
    let plan = sampler.filter.as_ref().expect("a field with the erosion filter");
    let py = row_y(sampler, window, j);
    coarse_slope_at(isa, sampler, (xs, py, false), scratch);
    let [gx, gy, ..] = &scratch.coarse;
    let states = &mut scratch.states;
    states.clear();
    states.extend(row.iter().zip(gx.iter().zip(gy)).map(|(&h, (&gx, &gy))| plan.start(h, [gx, gy])));
    gully_octaves_at(isa, plan, xs, py, scratch);
    for (h, &state) in row.iter_mut().zip(&scratch.states) {
        *h = plan.finish(*h, state).0;
    }
}

/// Octave `k`'s gully cells along a row (x positions `xs` in base lattice units): each pixel's
/// cell index and fraction (see [`GullyPlan::cell_of`]), [`LANES`] longer than the row.
#[inline(always)]
pub(super) fn gully_cells(plan: &GullyPlan, k: usize, xs: &[f64], ix: &mut Vec<i32>, fx: &mut Vec<f32>) {
    let width = xs.len();
    ix.resize(width + LANES, 0);
    fx.resize(width + LANES, 0.0);
    for ((&x, i), f) in xs.iter().zip(&mut ix[..width]).zip(&mut fx[..width]) {
        (*i, *f) = plan.cell_of(k, x);
    }
}

/// One octave's gully cells along the rows of a grid, which share their x positions: each
/// pixel's cell index and fraction in x (see [`gully_cells`]).
#[derive(Default)]
pub(super) struct GullyColumns {
    ix: Vec<i32>,
    fx: Vec<f32>,
}

/// Octave `k` of the erosion filter with gradients over a row whose states are kept as chunks of
/// structures of arrays (`scratch.dual_states`, see [`StateChunk`]): unit-stride loads and
/// stores, so that the pixel loop vectorises (as an array of states it did not). The first
/// octave starts the states from the `field`'s heights and gradients and the coarse slope in the
/// same loop (a loop of its own stored and loaded the twelve numbers once more). `WIDE`: sixteen
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
    // The first row's octaves find the grid's columns of cells; the other rows reuse them.
    while gully_columns.len() <= k {
        let mut columns = GullyColumns::default();
        gully_cells(plan, gully_columns.len(), xs, &mut columns.ix, &mut columns.fx);
        gully_columns.push(columns);
    }
    let at = ((&gully_columns[k].ix[..], &gully_columns[k].fx[..]), plan.cell_of(k, py));
    if k == 0 {
        dual_states.resize(xs.len().div_ceil(LANES), [[0.0; LANES]; 12]);
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

/// An octave's cells along a row: each pixel's cell and fraction in x, the row's in y (see
/// [`gully_cells`]).
pub(super) type OctaveCells<'a> = ((&'a [i32], &'a [f32]), (i32, f32));

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
    ((ix, fx), (iy, fy)): OctaveCells<'_>,
    first: FirstOctave<'_>,
    chunk: &mut StateChunk,
) {
    let lanes = start + OFFSET..start + OFFSET + L;
    let x: [f32; L] = fx[lanes.clone()].try_into().expect("L long");
    let cell: [i32; L] = ix[lanes.clone()].try_into().expect("L long");
    let mut p = if FIRST {
        start_lanes::<L>(plan, lanes.start, first.0, first.1)
    } else {
        chunk.map(|lanes| std::array::from_fn(|l| lanes[OFFSET + l]))
    };
    for l in 0..L {
        let state = GullyState::from_parts([
            p[0][l], p[1][l], p[2][l], p[3][l], p[4][l], p[5][l], p[6][l], p[7][l], p[8][l], p[9][l],
            p[10][l], p[11][l],
        ]);
        let from = plan.offsets_from_pivots(k, [cell[l], iy], [x[l], fy]);
        let v = plan.octave_in(k, BENDS, [x[l], fy], &from, state).to_parts();
        for c in 0..12 {
            p[c][l] = v[c];
        }
    }
    // Stored where they changed: the mask ([`GullyState::to_parts`]' first three numbers) only
    // when started, the slope (the next six) only when started or bent.
    for (c, (to, from)) in chunk.iter_mut().zip(&p).enumerate() {
        if FIRST || c >= 9 || (BENDS && c >= 3) {
            to[OFFSET..OFFSET + L].copy_from_slice(from);
        }
    }
}

/// Every octave of the erosion filter over a row of heights (x positions `xs`, y `py` in base
/// lattice units; the states in `scratch.states`), octave by octave so that each pixel loop is
/// straight-line code that vectorises (an array of four-number states does; the gradients'
/// twelve take [`dual_gully_octave`]).
#[inline(always)]
pub(super) fn gully_octaves(plan: &GullyPlan, xs: &[f64], py: f64, scratch: &mut Scratch) {
    let Scratch { cells, states, .. } = scratch;
    for k in 0..plan.octaves() {
        gully_cells(plan, k, xs, &mut cells.i0, &mut cells.fx);
        let y = plan.cell_of(k, py);
        // The branch taken out of the pixel loops.
        if plan.bends_after(k) {
            gully_octave_row::<true>(plan, k, (&cells.i0, &cells.fx), y, states);
        } else {
            gully_octave_row::<false>(plan, k, (&cells.i0, &cells.fx), y, states);
        }
    }
}

/// Octave `k` of the erosion filter over a row of heights' states, the bend fixed.
#[inline(always)]
pub(super) fn gully_octave_row<const BENDS: bool>(
    plan: &GullyPlan,
    k: usize,
    (ix, fx): (&[i32], &[f32]),
    (iy, fy): (i32, f32),
    states: &mut [GullyState<f32>],
) {
    let width = states.len();
    cut_to!(width; ix, fx);
    for (i, state) in states.iter_mut().enumerate() {
        let from = plan.offsets_from_pivots(k, [ix[i], iy], [fx[i], fy]);
        let octave = plan.octave_in(k, BENDS, [fx[i], fy], &from, state.to_dual());
        *state = GullyState::from_dual(octave);
    }
}
