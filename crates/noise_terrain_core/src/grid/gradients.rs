//! Filling a grid with heights and their exact gradients at once.
//!
//! Rows run in parallel (with the `parallel` feature, for grids of 32 Ki samples or more). Value,
//! gradient and simplex noise without warp or turned octaves (and any fractal but the damped
//! one) take a row path: per octave, for value and gradient noise the row's y cell and fade once,
//! the corners once per run of pixels in one lattice cell, then the blend and its derivatives per
//! pixel; for simplex noise the skew of every point, then its corners with their gradients (the
//! very functions the point path uses); then the fractal over the octaves with [`Dual`] numbers.
//! Every other field (Worley's) is sampled point by point with
//! [`FieldSampler::sample_with_gradient`]. Either way the heights are
//! bit for bit [`fill_grid`](crate::fill_grid)'s and the gradients
//! [`FieldSampler::sample_with_gradient`]'s. With the erosion filter a row then takes the coarse
//! octaves' slope with its second derivatives, the filter's start, its octaves and its finish,
//! each stage compiled for the instruction-set level on its own (see `filtered_row`).

use crate::field::FieldSampler;
use crate::field::basis::gradient::{corner_gradient_2d, gradient_jet_from_fades};
use crate::field::basis::gradient_kernel::PerlinRowBlend;
use crate::field::basis::gradient_kernel::{GradientKernel, RoundedRowBlend};
use crate::field::basis::simplex::{corners_2d_with_gradient, simplex_2d_with_hessian};
use crate::field::basis::value::{blend_values_2d_with_gradient, corner_value_2d, value_jet_from_fades};
use crate::field::basis::{Basis, Lattice};
use crate::field::coord::AxisCell;
use crate::field::dual::Dual;
use crate::field::dual::Jet;
use crate::field::erosion_filter::{GullyPlan, GullyState};
use crate::field::fractal::{Fractal, OctaveJet, Sloped, damped_step};
use crate::grid::rows::{GridWindow, SkewXs, XCells, run_end, split_row};
use crate::isa::{Isa, Level};

/// Rebinds each named slice (or vector) to its first `width` elements, one by one: cut through
/// `array::map`, which LLVM left out of line, the lengths were lost and every access kept a
/// bounds check, which stopped the pixel loops from vectorising.
macro_rules! cut_to {
    ($width:expr; mut $($v:ident),+) => { $(let $v = &mut $v[..$width];)+ };
    ($width:expr; $($v:ident),+) => { $(let $v = &$v[..$width];)+ };
}

/// Fills `heights` and `gradients` (`width × height`, row-major) with the sampler's heights over
/// `window` and their gradients per map unit, `[∂h/∂x, ∂h/∂y]`. The rows run at the
/// instruction-set level measured fastest for the basis (with or without the erosion filter) on
/// the first call: [`gradients_grid_level`](crate::advanced::gradients_grid_level).
///
/// ```
/// use noise_terrain_core::{GridWindow, NoiseSettings, fill_grid_with_gradients};
///
/// let settings = NoiseSettings::default();
/// let window = GridWindow { origin: [0, 0], width: 16, height: 16, pixels_per_unit: 16.0 };
/// let (mut heights, mut gradients) = (vec![0.0; 256], vec![[0.0; 2]; 256]);
/// fill_grid_with_gradients(&settings.sampler(), window, &mut heights, &mut gradients);
/// assert_eq!(gradients[17], settings.sample_with_gradient(1.0 / 16.0, 1.0 / 16.0).gradient);
/// ```
pub fn fill_grid_with_gradients(
    sampler: &FieldSampler,
    window: GridWindow,
    heights: &mut [f32],
    gradients: &mut [[f32; 2]],
) {
    let level = super::level::gradients_level_for(sampler.settings.basis, sampler.filter.is_some());
    fill_with_gradients_at(level, sampler, window, heights, gradients);
}

/// [`fill_grid_with_gradients`] at instruction-set level `isa` (one the CPU has; the tests run
/// every level).
pub(super) fn fill_with_gradients_at(
    isa: Isa,
    sampler: &FieldSampler,
    window: GridWindow,
    heights: &mut [f32],
    gradients: &mut [[f32; 2]],
) {
    // The simplex rows call the level's kernels on this alone (see `octave_layer`).
    let width = window.width as usize;
    let len = width as u64 * u64::from(window.height);
    assert!(heights.len() as u64 == len && gradients.len() as u64 == len, "outputs do not match the window");
    if width == 0 {
        return;
    }
    let row_path = sampler.settings.gradients_on_the_row_path();
    let per_unit = window.pixels_per_unit;
    let x_of = |i: usize| (window.origin[0] as f64 + i as f64) / per_unit;
    let y_of = |j: usize| (window.origin[1] as f64 + j as f64) / per_unit;
    // The x positions every row shares, with `FieldSampler::sample`'s operations (a division
    // each: computed per row they cost a tenth of the fill).
    let s = &sampler.settings;
    let f = s.frequency as f64;
    let xs: Vec<f64> =
        if row_path { (0..width).map(|i| (x_of(i) + s.offset.x) * f).collect() } else { Vec::new() };
    // Narrow simplex grids' rows come several at a time, as for the heights' grid (each chunk of
    // `heights` below holds `rows` whole rows, fewer at the grid's end).
    let rows = if row_path { super::rows_at_once(sampler, width, window.height as usize) } else { 1 };
    let fill_row = |j: usize, (heights, gradients): (&mut [f32], &mut [[f32; 2]]), layers: &mut Scratch| {
        if row_path {
            let row = RowOut { heights, gradients, xs: &xs, scratch: layers };
            filtered_row(isa, sampler, window, j, row);
        } else {
            for (i, (h, g)) in heights.iter_mut().zip(gradients.iter_mut()).enumerate() {
                let d = sampler.sample_with_gradient(x_of(i), y_of(j));
                (*h, *g) = (d.value, d.gradient);
            }
        }
    };
    #[cfg(feature = "parallel")]
    if crate::grid::rows::worth_parallel(heights.len()) {
        use rayon::prelude::*;
        heights
            .par_chunks_mut(width * rows)
            .zip(gradients.par_chunks_mut(width * rows))
            .enumerate()
            .for_each_init(Scratch::default, |layers, (k, batch)| fill_row(k * rows, batch, layers));
        return;
    }
    let mut layers = Scratch::default();
    for (k, batch) in heights.chunks_mut(width * rows).zip(gradients.chunks_mut(width * rows)).enumerate() {
        fill_row(k * rows, batch, &mut layers);
    }
}

/// Per-thread buffers for one row, structure of arrays so that the loops vectorise.
#[derive(Default)]
pub(crate) struct Scratch {
    cells: Cells,
    /// Octave layers, a row each: value, ∂/∂x and ∂/∂y (fBm and billow use the first row only).
    layers: [Vec<f32>; 3],
    /// The fractal's running sums: value, ∂/∂x and ∂/∂y.
    sums: [Vec<f32>; 3],
    /// The y of each row of a batch (see [`lattice_row`]), in base lattice units.
    ys: Vec<f64>,
    /// The slope the erosion filter follows and its derivatives: `[∂/∂x, ∂/∂y, xx, xy, yy]`.
    coarse: [Vec<f32>; 5],
    /// The coarse octaves' layers for the fractal (value, ∂/∂x and ∂/∂y per map unit, as
    /// [`octave_layer`] writes them), one row per coarse octave, kept by [`coarse_slope_row`] when
    /// the filter runs over heights with gradients (see [`reuses_coarse_layers`]).
    coarse_layers: [Vec<f32>; 3],
    /// One coarse octave's value, gradient and Hessian per cell, a row each:
    /// `[value, ∂/∂x, ∂/∂y, xx, xy, yy]`, [`LANES`] longer than the row.
    jets: [Vec<f32>; 6],
    /// The erosion filter's state per pixel: for heights, and for heights with gradients.
    states: Vec<GullyState<f32>>,
    /// For heights with gradients as a structure of arrays (see [`dual_gully_octave`]).
    dual_states: Vec<StateChunk>,
    /// Each octave's gully cells along the rows, found by the first row (with gradients: a
    /// `Scratch` serves one grid, whose rows share their x positions).
    gully_columns: Vec<GullyColumns>,
    /// The coarse octaves' cells along the rows, found by the first row (see
    /// [`coarse_slope_row`]).
    coarse_columns: Vec<Cells>,
}

/// One octave's split of the row into cells: cell indices, fractions, faded weights and slopes.
#[derive(Default)]
struct Cells {
    i0: Vec<i32>,
    i1: Vec<i32>,
    fx: Vec<f32>,
    u: Vec<f32>,
    du: Vec<f32>,
    /// The fade's curvature (for the coarse octaves' second derivatives).
    ddu: Vec<f32>,
    /// Per octave, simplex noise's cells along x with their shares of the skew.
    skews: Vec<SkewXs>,
    /// Per octave, the AVX2 rows' table of the corners of the row's lattice columns.
    #[cfg(target_arch = "x86_64")]
    columns: Vec<super::column_table::ColumnTable>,
    /// Per octave, value and gradient noise's cells along x, which the grid's rows share (a
    /// `Scratch` serves one grid).
    octaves: Vec<XCells>,
}

impl Cells {
    /// Room for a row of `width` pixels and [`LANES`] more (see [`fill_run`]).
    fn resize(&mut self, width: usize) {
        for v in [&mut self.fx, &mut self.u, &mut self.du, &mut self.ddu] {
            v.resize(width + LANES, 0.0);
        }
        for v in [&mut self.i0, &mut self.i1] {
            v.resize(width + LANES, 0);
        }
    }
}

/// Where one row's results go, and its scratch.
struct RowOut<'a> {
    heights: &'a mut [f32],
    gradients: &'a mut [[f32; 2]],
    /// The x positions of the row's pixels in base lattice units.
    xs: &'a [f64],
    scratch: &'a mut Scratch,
}

crate::isa::dispatch! {
    /// [`lattice_row`] compiled for a level (the same bits at every level, as for the heights'
    /// grid).
    fn lattice_row_at(sampler: &FieldSampler, at: (GridWindow, usize, usize), level: Isa, row: RowOut<'_>) => lattice_row
}

crate::isa::dispatch! {
    /// [`coarse_slope_row`] compiled for a level.
    fn coarse_slope_at(sampler: &FieldSampler, along: (&[f64], f64, bool), scratch: &mut Scratch) => coarse_slope_row
}

crate::isa::dispatch! {
    /// [`dual_gully_octave`] compiled for a level, sixteen pixels at a time (AVX-512).
    fn dual_gully_octave_wide_at(plan: &GullyPlan, k: usize, along: (&[f64], f64), field: (&[f32], &[[f32; 2]]), scratch: &mut Scratch) => dual_gully_octave::<true>
}

crate::isa::dispatch! {
    /// [`dual_gully_octave`] compiled for a level, eight pixels at a time (the other levels).
    fn dual_gully_octave_narrow_at(plan: &GullyPlan, k: usize, along: (&[f64], f64), field: (&[f32], &[[f32; 2]]), scratch: &mut Scratch) => dual_gully_octave::<false>
}

crate::isa::dispatch! {
    /// [`dual_gully_finish`] compiled for a level.
    fn dual_gully_finish_at(plan: &GullyPlan, heights: &mut [f32], gradients: &mut [[f32; 2]], states: &[StateChunk]) => dual_gully_finish
}

crate::isa::dispatch! {
    /// [`gully_octaves`] compiled for a level.
    fn gully_octaves_at(plan: &GullyPlan, xs: &[f64], py: f64, scratch: &mut Scratch) => gully_octaves
}

/// Row `j` of heights and gradients: [`lattice_row`], then the erosion filter when there is one
/// (following the slope of the coarse octaves along the row, from [`coarse_slope_row`], whose
/// layers the fractal takes instead of making them again where it can). Each stage is compiled
/// for the level on its own: with every stage inlined into one function the filtered row ran 1.4x
/// to 1.6x slower (1024², 129² and 65² grids, Zen 4).
fn filtered_row(isa: Isa, sampler: &FieldSampler, window: GridWindow, j: usize, row: RowOut<'_>) {
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
fn reuses_coarse_layers(sampler: &FieldSampler) -> bool {
    matches!(sampler.settings.basis, Basis::Value | Basis::Gradient)
}

/// The filter's starting states of `L` pixels from `start` of a row of heights with gradients
/// (the field's `heights` and `gradients`, the coarse slope's rows `coarse`, padded to whole
/// chunks), as [`GullyState::to_parts`]' twelve numbers; zeros past the row's end.
#[inline(always)]
fn start_lanes<const L: usize>(
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
type StateChunk = [[f32; LANES]; 12];

/// The filtered heights and gradients of a row from the states after the last octave.
#[inline(always)]
fn dual_gully_finish(
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

/// The slope per map unit of the field's first `filter_octaves` octaves (fBm, billow or a single
/// layer of value, gradient or simplex noise) along a row (x positions `xs`, y `py` in base
/// lattice units) and its derivatives per map unit², into `scratch.coarse`: per octave the
/// corners once per run of pixels in a lattice cell, then per pixel the cell's derivatives by the
/// point path's own functions, added up as the point path adds them (bit for bit
/// `FieldSampler`'s). With `grid_rows` (value and gradient noise over a grid with gradients, whose
/// `Scratch` serves the grid's rows alone: see [`reuses_coarse_layers`]), each octave's layer too,
/// into `scratch.coarse_layers`, and its cells along x found once, by the first row.
#[inline(always)]
fn coarse_slope_row(sampler: &FieldSampler, (xs, py, grid_rows): (&[f64], f64, bool), scratch: &mut Scratch) {
    let Scratch { cells, coarse, jets, coarse_layers, coarse_columns, .. } = scratch;
    let s = &sampler.settings;
    let width = xs.len();
    cells.resize(width);
    // Padded to whole chunks of `LANES` (see `start_lanes`).
    for v in coarse.iter_mut() {
        v.clear();
        v.resize(width.next_multiple_of(LANES), 0.0);
    }
    for v in jets.iter_mut() {
        v.resize(width + LANES, 0.0);
    }
    let (mut scale, mut amplitude) = (1.0f64, 1.0f32);
    for k in 0..sampler.filter_octaves as usize {
        let lattice = &sampler.lattices[k];
        let y = py * scale;
        if s.basis == Basis::Simplex {
            for (i, &x) in xs.iter().enumerate() {
                let jet = jet_parts(simplex_2d_with_hessian(x * scale, y, lattice.seed));
                for (row, v) in jets.iter_mut().zip(jet) {
                    row[i] = v;
                }
            }
        } else {
            // A grid's rows share their cells along x: found by the first row.
            let cells: &Cells = if grid_rows {
                if coarse_columns.len() == k {
                    let mut columns = Cells::default();
                    columns.resize(width);
                    column_cells(xs, scale, lattice, &mut columns);
                    coarse_columns.push(columns);
                }
                &coarse_columns[k]
            } else {
                column_cells(xs, scale, lattice, cells);
                cells
            };
            let fade = lattice.fade;
            let cy = AxisCell::new(y, lattice.period);
            let y_fades = [fade.apply(cy.f), fade.derivative(cy.f), fade.second_derivative(cy.f)];
            let short =
                lattice.period.is_none() && super::runs_shorter_than(&cells.i0[..width], SHORT_JET_RUNS);
            let mut start = 0;
            while start < width {
                let cell = cells.i0[start];
                let end = run_end(&cells.i0[..width], start, lattice.period.is_none());
                let x1 = if lattice.period.is_some() { cells.i1[start] } else { cell + 1 };
                let run = start..end;
                // The kernel matched outside the pixel loops, so that each vectorises.
                match (s.basis, lattice.kernel) {
                    (Basis::Gradient, kernel) => {
                        let g = lattice.corners([cell, x1], [cy.i0, cy.i1], corner_gradient_2d);
                        match kernel {
                            GradientKernel::Perlin => fill_jets(
                                cells,
                                (run, short),
                                jets,
                                GradientCell::<false> { g, fy: cy.f, y_fades },
                            ),
                            GradientKernel::Rounded => fill_jets(
                                cells,
                                (run, short),
                                jets,
                                GradientCell::<true> { g, fy: cy.f, y_fades },
                            ),
                        }
                    }
                    // Simplex took the branch above; Worley has no erosion filter.
                    (Basis::Value | Basis::Simplex | Basis::Worley, _) => {
                        let c = lattice.corners([cell, x1], [cy.i0, cy.i1], corner_value_2d);
                        fill_jets(cells, (run, short), jets, ValueCell { c, y_fades });
                    }
                }
                start = end;
            }
        }
        // The octave added to the sums over the whole row, in a loop that vectorises.
        let per = scale as f32 * s.frequency;
        if grid_rows {
            keep_layer(&jets[..3], per, (k, width), coarse_layers);
        }
        let [gx, gy, xx, xy, yy] = &mut *coarse;
        cut_to!(width; mut gx, gy, xx, xy, yy);
        let [value, dx, dy, hxx, hxy, hyy] = &*jets;
        cut_to!(width; value, dx, dy, hxx, hxy, hyy);
        for i in 0..width {
            let octave =
                OctaveJet { value: value[i], gradient: [dx[i], dy[i]], hessian: [hxx[i], hxy[i], hyy[i]] };
            let sums = ([gx[i], gy[i]], [xx[i], xy[i], yy[i]]);
            let ([a, b], [c, d, e]) = octave.add_to(sampler.fractal.kind, amplitude, per, sums);
            (gx[i], gy[i], xx[i], xy[i], yy[i]) = (a, b, c, d, e);
        }
        amplitude *= sampler.fractal.persistence;
        scale *= s.lacunarity as f64;
    }
    let k = sampler.to_unit.slope_scale();
    for v in coarse.iter_mut() {
        v.iter_mut().for_each(|v| *v *= k);
    }
}

/// Octave `lattice`'s cells along a row (x positions `xs` times `scale`) with the fade's value,
/// slope and curvature at each pixel.
#[inline(always)]
fn column_cells(xs: &[f64], scale: f64, lattice: &Lattice, cells: &mut Cells) {
    let width = xs.len();
    split_row(xs, scale, lattice.period, [&mut cells.i0, &mut cells.i1], &mut cells.fx);
    let curves = [&mut cells.u[..width], &mut cells.du[..width], &mut cells.ddu[..width]];
    lattice.fade.curves_slice(&cells.fx[..width], curves);
}

/// Row `k` of `layers` (each row `width` long): the jets' values, and their gradients per map unit
/// (`per` map units per lattice cell), as [`octave_layer`] writes a layer.
#[inline(always)]
fn keep_layer(jets: &[Vec<f32>], per: f32, (k, width): (usize, usize), layers: &mut [Vec<f32>; 3]) {
    let row = k * width..(k + 1) * width;
    for (c, (layer, jet)) in layers.iter_mut().zip(jets).enumerate() {
        layer.resize(layer.len().max(row.end), 0.0);
        let (to, from) = (&mut layer[row.clone()], &jet[..width]);
        if c == 0 {
            to.copy_from_slice(from);
        } else {
            to.iter_mut().zip(from).for_each(|(to, &from)| *to = from * per);
        }
    }
}

/// A jet as the six rows of `Scratch::jets`: `[value, ∂/∂x, ∂/∂y, xx, xy, yy]`.
#[inline(always)]
fn jet_parts(n: Jet) -> [f32; 6] {
    let h = n.hessian;
    [n.first.value, n.first.gradient[0], n.first.gradient[1], h[0][0], h[0][1], h[1][1]]
}

/// A lattice cell's noise with its gradient and Hessian at a pixel of a run, from the pixel's
/// `fx` and the fade's value, slope and curvature there (the row's `y` fixed in the cell).
trait CellJet {
    /// The jet per cell at `fx` with `x_fades = [u, du, ddu]`.
    fn at(&self, fx: f32, x_fades: [f32; 3]) -> Jet;
}

/// Gradient noise's cell: Perlin's kernel (`ROUNDED` false) or the rounded one.
struct GradientCell<const ROUNDED: bool> {
    g: [[f32; 2]; 4],
    fy: f32,
    y_fades: [f32; 3],
}

impl<const ROUNDED: bool> CellJet for GradientCell<ROUNDED> {
    #[inline(always)]
    fn at(&self, fx: f32, [u, du, ddu]: [f32; 3]) -> Jet {
        let kernel = if ROUNDED { GradientKernel::Rounded } else { GradientKernel::Perlin };
        let [v, dv, ddv] = self.y_fades;
        gradient_jet_from_fades(kernel, &self.g, [fx, self.fy], [[u, v], [du, dv], [ddu, ddv]])
    }
}

/// Value noise's cell, in `[-1, 1]` as `Basis::signed_2d_with_hessian` gives it.
struct ValueCell {
    c: [f32; 4],
    y_fades: [f32; 3],
}

impl CellJet for ValueCell {
    #[inline(always)]
    fn at(&self, _: f32, [u, du, ddu]: [f32; 3]) -> Jet {
        let [v, dv, ddv] = self.y_fades;
        value_jet_from_fades(&self.c, [[u, v], [du, dv], [ddu, ddv]]).affine(2.0, -1.0)
    }
}

/// The coarse octaves' runs of cells narrower than this many pixels on average are filled
/// [`LANES`]` / 2` pixels at a time (see [`fill_jets`]): a run of 5 pixels then computes 8, not
/// 16. Measured on a Zen 3 EPYC (AVX2), the endless example's filtered gradient fBm in 69² and
/// 129² chunks (coarse cells of 22, 11 and 5 pixels): 7% faster whole, 24 and 48 alike, 16 a
/// little less; value noise unchanged.
const SHORT_JET_RUNS: usize = 24;

/// Writes `cell`'s value, gradient and Hessian for the pixels `run` of the row into `jets`,
/// [`LANES`] pixels at a time, or half as many where the octave's runs are `short` (as
/// [`fill_run`], whose spare pixels land where the next run or the padding will be). A trait
/// rather than a closure: LLVM left the closure out of line, per pixel.
#[inline(always)]
fn fill_jets(
    cells: &Cells,
    (run, short): (std::ops::Range<usize>, bool),
    jets: &mut [Vec<f32>; 6],
    cell: impl CellJet,
) {
    #[inline(always)]
    fn chunks<const L: usize>(
        cells: &Cells,
        run: std::ops::Range<usize>,
        jets: &mut [Vec<f32>; 6],
        cell: impl CellJet,
    ) {
        for i in run.step_by(L) {
            let lanes = i..i + L;
            let take = |v: &[f32]| -> [f32; L] { v[lanes.clone()].try_into().expect("L long") };
            let (fx, u, du, ddu) = (take(&cells.fx), take(&cells.u), take(&cells.du), take(&cells.ddu));
            let mut out = [[0.0f32; L]; 6];
            for l in 0..L {
                let jet = jet_parts(cell.at(fx[l], [u[l], du[l], ddu[l]]));
                for (o, v) in out.iter_mut().zip(jet) {
                    o[l] = v;
                }
            }
            for (to, from) in jets.iter_mut().zip(&out) {
                to[lanes.clone()].copy_from_slice(from);
            }
        }
    }
    if short {
        chunks::<{ LANES / 2 }>(cells, run, jets, cell)
    } else {
        chunks::<LANES>(cells, run, jets, cell)
    }
}

/// Octave `k`'s gully cells along a row (x positions `xs` in base lattice units): each pixel's
/// cell index and fraction (see [`GullyPlan::cell_of`]), [`LANES`] longer than the row.
#[inline(always)]
fn gully_cells(plan: &GullyPlan, k: usize, xs: &[f64], ix: &mut Vec<i32>, fx: &mut Vec<f32>) {
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
struct GullyColumns {
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
fn dual_gully_octave<const WIDE: bool>(
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
type OctaveCells<'a> = ((&'a [i32], &'a [f32]), (i32, f32));

/// What the first octave starts its states from: the field's heights and gradients and the
/// coarse slope (see [`start_lanes`]).
type FirstOctave<'a> = ((&'a [f32], &'a [[f32; 2]]), &'a [Vec<f32>; 5]);

/// [`dual_gully_octave`] with the bend fixed, [`LANES`] pixels at a time with `WIDE`, else each
/// chunk in two halves (see [`dual_gully_octave_chunk`]). A row that ends in a few pixels (chunks are 65 or 129 wide)
/// takes them in a chunk of half the lanes: on AVX-512 at half the cost of a whole one, most of
/// whose lanes would be padding.
#[inline(always)]
fn dual_gully_octave_row<const WIDE: bool, const FIRST: bool, const BENDS: bool>(
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
fn dual_gully_octave_chunk<const FIRST: bool, const BENDS: bool, const L: usize, const OFFSET: usize>(
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
fn gully_octaves(plan: &GullyPlan, xs: &[f64], py: f64, scratch: &mut Scratch) {
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
fn gully_octave_row<const BENDS: bool>(
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

/// Row `j`'s y position in base lattice units, with `FieldSampler::sample`'s operations.
#[inline(always)]
pub(super) fn row_y(sampler: &FieldSampler, window: GridWindow, j: usize) -> f64 {
    let s = &sampler.settings;
    ((window.origin[1] as f64 + j as f64) / window.pixels_per_unit + s.offset.y) * s.frequency as f64
}

/// Row `j` of value, gradient or simplex noise (of simplex noise, rows `j` on: as many as `heights`
/// holds rows of `xs`' length): every octave's layer with its gradient, then the
/// fractal (never the damped one: `gradients_on_the_row_path` sends it point by point). fBm and
/// billow add each octave to the sums as it is made; the multifractals keep every layer and
/// combine them per pixel. The first `reused` octaves' layers are taken from
/// `scratch.coarse_layers` (see [`coarse_slope_row`]) rather than made.
#[inline(always)]
fn lattice_row(
    sampler: &FieldSampler,
    (window, j, reused): (GridWindow, usize, usize),
    level: Isa,
    row: RowOut<'_>,
) {
    let RowOut { heights, gradients, xs, scratch } = row;
    let Scratch { cells, layers, sums, coarse_layers, ys, .. } = scratch;
    let s = &sampler.settings;
    let width = heights.len();
    let rows = width / xs.len();
    assert!(rows * xs.len() == width && (rows == 1 || s.basis == Basis::Simplex), "whole simplex rows only");
    let octaves = sampler.fractal.octave_count() as usize;
    let summed = matches!(sampler.fractal.kind, Fractal::Fbm | Fractal::Billow);
    cells.resize(width);
    for v in layers.iter_mut() {
        v.resize(width * if summed { 1 } else { octaves } + LANES, 0.0);
    }
    for v in sums.iter_mut() {
        v.clear();
        v.resize(width, 0.0);
    }
    // The same positions as `FieldSampler::sample`.
    let f = s.frequency as f64;
    ys.clear();
    ys.extend((j..j + rows).map(|j| row_y(sampler, window, j)));
    let (mut scale, mut amplitude) = (1.0f64, 1.0f32);
    for k in 0..octaves {
        // fBm and billow reuse the first row and add it to the sums; the multifractals keep
        // octave k in row k.
        // Each row with room for `fill_run`'s last chunk (octave k's spills into octave k + 1's
        // row, which is made after it).
        let row = if summed { 0..width + LANES } else { k * width..(k + 1) * width + LANES };
        if k < reused {
            let kept = k * width..(k + 1) * width;
            let [values, dx, dy] = &*coarse_layers;
            let layer = [&values[kept.clone()], &dx[kept.clone()], &dy[kept]];
            if summed {
                add_octave(sampler.fractal.kind, amplitude, layer, sums);
            } else {
                for (to, from) in layers.iter_mut().zip(layer) {
                    to[row.start..row.start + width].copy_from_slice(from);
                }
            }
        } else {
            let [values, dx, dy] = &mut *layers;
            let out = [&mut values[row.clone()], &mut dx[row.clone()], &mut dy[row]];
            let per = (scale as f32, f as f32);
            octave_layer((s.basis, k, level), &sampler.lattices[k], (xs, scale), ys, per, cells, out);
            if summed {
                let layer = [&layers[0][..width], &layers[1][..width], &layers[2][..width]];
                add_octave(sampler.fractal.kind, amplitude, layer, sums);
            }
        }
        amplitude *= sampler.fractal.persistence;
        scale *= s.lacunarity as f64;
    }
    if !summed {
        let [values, dx, dy] = &*layers;
        let [sv, sx, sy] = sums;
        for i in 0..width {
            let layer = |k: usize| Dual::new(values[k * width + i], [dx[k * width + i], dy[k * width + i]]);
            let d = sampler.fractal.raw(|k, _| layer(k as usize));
            (sv[i], sx[i], sy[i]) = (d.value, d.gradient[0], d.gradient[1]);
        }
    }
    // `RawToUnit::apply` on the sums, as on a `Dual`.
    let [sv, sx, sy] = &*sums;
    let to_unit = &sampler.to_unit;
    for (((h, g), &v), (&x, &y)) in
        heights.iter_mut().zip(gradients.iter_mut()).zip(sv).zip(sx.iter().zip(sy))
    {
        let d = to_unit.apply(Dual::new(v, [x, y]));
        (*h, *g) = (d.value, d.gradient);
    }
    // The point path's finite gradient: the identity on finite numbers, so a row is only
    // rewritten when it holds others (extreme settings); checking costs less than clamping.
    let finite = gradients.iter().fold(true, |all, g| all & g[0].is_finite() & g[1].is_finite());
    if !finite {
        for g in gradients.iter_mut() {
            *g = Dual::new(0.0, *g).with_finite_gradient().gradient;
        }
    }
}

/// Heights of the damped fractal (value, gradient or simplex noise, no warp) over one row segment
/// at the x positions `xs` and base-lattice y `py`: every octave's layer with its slope per
/// lattice unit of its own (the row path's very numbers, unscaled), each damped into the row's
/// sums as it is made. Bit for bit [`FieldSampler::sample`]. Writes every element of `row`.
#[inline(always)]
pub(crate) fn damped_heights_row(
    sampler: &FieldSampler,
    (xs, py): (&[f64], f64),
    level: Isa,
    scratch: &mut Scratch,
    row: &mut [std::mem::MaybeUninit<f32>],
) {
    let Scratch { cells, layers, sums, .. } = scratch;
    let (s, fractal) = (&sampler.settings, &sampler.fractal);
    let width = row.len();
    cells.resize(width);
    for v in layers.iter_mut() {
        v.resize(width + LANES, 0.0);
    }
    for v in sums.iter_mut() {
        v.clear();
        v.resize(width, 0.0);
    }
    let (mut scale, mut amplitude) = (1.0f64, 1.0f32);
    for k in 0..fractal.octave_count() as usize {
        let [values, dx, dy] = &mut *layers;
        let out = [&mut values[..], &mut dx[..], &mut dy[..]];
        octave_layer((s.basis, k, level), &sampler.lattices[k], (xs, scale), &[py], (1.0, 1.0), cells, out);
        // `FractalParams::raw_with_slopes`' step, octave by octave over the row (it vectorises).
        let [sum, sx, sy] = &mut *sums;
        let octave = values.iter().zip(&*dx).zip(&*dy);
        for (((sum, sx), sy), ((&n, &nx), &ny)) in
            sum.iter_mut().zip(sx.iter_mut()).zip(sy.iter_mut()).zip(octave)
        {
            let n = Sloped { value: n, slope: [nx, ny] };
            (*sum, [*sx, *sy]) = damped_step(*sum, [*sx, *sy], n, fractal.damping, amplitude);
        }
        amplitude *= fractal.persistence;
        scale *= s.lacunarity as f64;
    }
    sampler.to_unit.apply_to_row(&sums[0], row);
}

/// Adds one octave to fBm's or billow's sums, with the very operations of `FractalParams::raw`
/// on [`Dual`] numbers, in a loop that vectorises (one per kind: with the kind tested inside,
/// the compiler kept the test in the loop and computed both kinds' layers).
#[inline(always)]
fn add_octave(kind: Fractal, amplitude: f32, layer: [&[f32]; 3], sums: &mut [Vec<f32>; 3]) {
    use crate::field::dual::Octave;
    #[inline(always)]
    fn add(
        amplitude: f32,
        [n, nx, ny]: [&[f32]; 3],
        [sv, sx, sy]: &mut [Vec<f32>; 3],
        layer: impl Fn(Dual) -> Dual,
    ) {
        let sums = sv.iter_mut().zip(sx.iter_mut()).zip(sy.iter_mut());
        for (((v, x), y), ((&n, &nx), &ny)) in sums.zip(n.iter().zip(nx).zip(ny)) {
            let term = Octave::times(layer(Dual::new(n, [nx, ny])), amplitude);
            (*v, *x, *y) = (*v + term.value, *x + term.gradient[0], *y + term.gradient[1]);
        }
    }
    match kind {
        Fractal::Fbm => {
            add(amplitude, layer, sums, |d| Dual::new(d.value * 0.5 + 0.5, d.gradient.map(|g| g * 0.5)))
        }
        Fractal::Billow => add(amplitude, layer, sums, Octave::abs),
        Fractal::None | Fractal::Ridged | Fractal::Hybrid | Fractal::Hetero | Fractal::Damped => {
            unreachable!("fBm and billow only: {kind:?}")
        }
    }
}

/// Value and gradient noise's octaves whose cells are on average narrower than this many pixels
/// take the AVX2 rows' kernels at the AVX2 level; wider ones the runs (whose per-cell constants
/// are then worth making once per run). Measured on a Zen 3 EPYC, one octave over 129² grids with
/// gradients: the kernels take about 4.7 ns a pixel (gradient noise) or 3.3 ns (value) whatever
/// the cells, the runs 23, 11, 7.3, 4.7, 4.1 and 3.8 ns (gradient noise at cells of 2, 4, 8, 16,
/// 32 and 64 pixels) and 10.6, 4.5, 3.4, 3.3, 3.1 and 2.9 ns (value noise at 4, 8, 16, 24, 32
/// and 64).
const AVX2_ROWS_BELOW: usize = 20;

/// One octave of value, gradient or simplex noise over the row (over the rows at base-lattice ys
/// `ys`, several only for simplex noise; `ys[r] · scale` the octave's y), in `[-1, 1]`, with its
/// gradient per map unit (`per = (lacunarityⁱ, frequency)`, applied with
/// `sample_with_gradient`'s operations), into `out`: values, ∂/∂x and ∂/∂y, each [`LANES`]
/// longer than the rows. At `level` AVX2 (a level the CPU has) simplex noise takes the AVX2 rows'
/// kernel, and so do value and gradient noise on an unbounded lattice where its cells are
/// narrower than [`AVX2_ROWS_BELOW`] pixels; the portable loops compiled for the level otherwise.
#[inline(always)]
fn octave_layer(
    (basis, octave, level): (Basis, usize, Isa),
    lattice: &Lattice,
    (xs, scale): (&[f64], f64),
    ys: &[f64],
    (per_cell, per_unit): (f32, f32),
    cells: &mut Cells,
    [values, dx, dy]: [&mut [f32]; 3],
) {
    if basis == Basis::Simplex {
        // The skew of every point in one loop (from the octave's x cells, which the grid's rows
        // share), then its corners with their gradients in another.
        let Cells { i0: i, i1: j, fx: x0, u: y0, skews, .. } = cells;
        if skews.len() <= octave {
            skews.resize_with(octave + 1, SkewXs::default);
        }
        skews[octave].split(xs, scale);
        skews[octave].skew_rows(ys.iter().map(|&y| y * scale), [&mut *i, &mut *j], [&mut *x0, &mut *y0]);
        let n = xs.len();
        let per = per_cell * per_unit;
        let width = n * ys.len();
        #[cfg(target_arch = "x86_64")]
        if level.level() == Level::Avx2 {
            let (points, offsets) = ((&i[..width], &j[..width]), (&x0[..width], &y0[..width]));
            // SAFETY: the CPU has the level's features: `level` is the proof (`crate::isa::Isa`).
            return unsafe {
                super::avx2::simplex_row_with_gradient(lattice.seed, points, offsets, per, [values, dx, dy])
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = level;
        let points = i[..width].iter().zip(&j[..width]).zip(x0[..width].iter().zip(&y0[..width]));
        let outputs = values.iter_mut().zip(dx.iter_mut()).zip(dy.iter_mut());
        for (((o, ox), oy), ((&i, &j), (&x0, &y0))) in outputs.zip(points) {
            let d = corners_2d_with_gradient(lattice.seed, i, j, x0, y0);
            (*o, *ox, *oy) = (d.value, d.gradient[0] * per, d.gradient[1] * per);
        }
        return;
    }
    let width = xs.len();
    let py = ys[0] * scale;
    let fade = lattice.fade;
    let Cells { octaves, columns, .. } = cells;
    if octaves.len() <= octave {
        octaves.resize_with(octave + 1, XCells::default);
    }
    let cells = &mut octaves[octave];
    cells.split(xs, scale, lattice, LANES);
    let cy = AxisCell::new(py, lattice.period);
    let (v, dv) = (fade.apply(cy.f), fade.derivative(cy.f));
    // Per lattice unit of the octave to per map unit, as `sample_with_gradient` does unwarped.
    let per = per_cell * per_unit;
    #[cfg(target_arch = "x86_64")]
    if level.level() == Level::Avx2
        && lattice.period.is_none()
        && super::runs_shorter_than(&cells.i0[..width], AVX2_ROWS_BELOW)
    {
        let XCells { i0, fx, u, du, .. } = cells;
        if columns.len() <= octave {
            columns.resize_with(octave + 1, Default::default);
        }
        let row = super::column_table::Row { x0: &i0[..width], fx: &fx[..width], u: &u[..width], cy, v };
        let (at, columns) = ((row, &du[..width], dv), &mut columns[octave]);
        let out = [&mut values[..width], &mut dx[..width], &mut dy[..width]];
        // SAFETY: the CPU has the level's features: `level` is the proof (`crate::isa::Isa`).
        unsafe {
            match basis {
                Basis::Gradient => super::avx2::gradient_row_with_gradient(
                    (lattice.seed, lattice.kernel),
                    at,
                    per,
                    columns,
                    out,
                ),
                Basis::Value => super::avx2::value_row_with_gradient(lattice.seed, at, per, columns, out),
                Basis::Simplex | Basis::Worley => {
                    unreachable!("simplex returned above; Worley has no row path here")
                }
            }
        }
        return;
    }
    let mut start = 0;
    while start < width {
        let cell = cells.i0[start];
        let end = run_end(&cells.i0[..width], start, lattice.period.is_none());
        let x1 = if lattice.period.is_some() { cells.i1[start] } else { cell + 1 };
        let out = [&mut *values, &mut *dx, &mut *dy];
        match basis {
            Basis::Gradient => {
                let g = lattice.corners([cell, x1], [cy.i0, cy.i1], corner_gradient_2d);
                // The kernel is matched outside the pixel loop, so that each loop vectorises.
                match lattice.kernel {
                    GradientKernel::Perlin => {
                        let blend = PerlinRowBlend::new(&g, cy.f, v, dv, std::f32::consts::SQRT_2);
                        fill_run(cells, start..end, per, out, |fx, u, du| blend.at(fx, u, du));
                    }
                    GradientKernel::Rounded => {
                        let blend = RoundedRowBlend::new(&g, cy.f, v, dv);
                        fill_run(cells, start..end, per, out, |fx, u, du| blend.at(fx, u, du));
                    }
                }
            }
            // Simplex returned above; Worley has no gradients' row path (see
            // `gradients_on_the_row_path`).
            Basis::Value | Basis::Simplex | Basis::Worley => {
                let c = lattice.corners([cell, x1], [cy.i0, cy.i1], corner_value_2d);
                // Value noise in `[0, 1]` to `[-1, 1]`, as `Basis::signed_2d_with_gradient` does.
                fill_run(cells, start..end, per, out, |_, u, du| {
                    let d = blend_values_2d_with_gradient(&c, [u, v], [du, dv]);
                    Dual::new(d.value * 2.0 - 1.0, [d.gradient[0] * 2.0, d.gradient[1] * 2.0])
                });
            }
        }
        start = end;
    }
}

/// The pixels a run's loop takes at a time: one AVX-512 vector, two AVX2 ones. For gradient noise
/// at a 1024² grid and in 129² chunks, 16 is 7% to 13% faster than 8 and 8% to 25% faster than
/// 32, though a 1024² grid's fifth octave has runs of 8 pixels, half of whose chunk is spare work.
const LANES: usize = 16;

/// Writes `pixel(fx, u, du)` (a value and its gradient per cell, the gradient then times `per`)
/// for the pixels `run` of the row into `[values, dx, dy]`, [`LANES`] pixels at a time: the run
/// is rounded up to whole chunks, so that every run is one loop of full vectors, without the
/// compiler's narrower loops for the remainder. The extra pixels' results land where the next
/// run (which overwrites them) or the scratch's padding will be.
#[inline(always)]
fn fill_run(
    cells: &XCells,
    run: std::ops::Range<usize>,
    per: f32,
    [values, dx, dy]: [&mut [f32]; 3],
    pixel: impl Fn(f32, f32, f32) -> Dual,
) {
    for i in run.step_by(LANES) {
        let lanes = i..i + LANES;
        let take = |v: &[f32]| -> [f32; LANES] { v[lanes.clone()].try_into().expect("LANES long") };
        let (fx, u, du) = (take(&cells.fx), take(&cells.u), take(&cells.du));
        let mut out = [[0.0f32; LANES]; 3];
        for l in 0..LANES {
            let d = pixel(fx[l], u[l], du[l]);
            (out[0][l], out[1][l], out[2][l]) = (d.value, d.gradient[0] * per, d.gradient[1] * per);
        }
        for (to, from) in [&mut *values, &mut *dx, &mut *dy].into_iter().zip(&out) {
            to[lanes.clone()].copy_from_slice(from);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Fade, Fractal, NoiseSettings, Warp, fill_grid};

    #[test]
    fn gradients_that_overflow_are_made_finite_as_the_point_path_makes_them() {
        // Heterogeneous terrain at the largest frequency, lacunarity, persistence and octaves:
        // its products overflow `f32` in the gradient.
        let s = NoiseSettings {
            basis: Basis::Value,
            fade: Fade::Linear,
            fractal: Fractal::Hetero,
            octaves: 12,
            lacunarity: 8.0,
            persistence: 2.0,
            frequency: 1e6,
            fractal_offset: 2.0,
            ..Default::default()
        };
        assert!(s.gradients_on_the_row_path());
        let sampler = s.sampler();
        let window = GridWindow { origin: [3, -2], width: 64, height: 4, pixels_per_unit: 7.0 };
        let (mut heights, mut gradients) = (vec![0.0; 256], vec![[0.0; 2]; 256]);
        fill_grid_with_gradients(&sampler, window, &mut heights, &mut gradients);
        let mut clamped = 0;
        for (k, g) in gradients.iter().enumerate() {
            let (i, j) = ((k % 64) as f64, (k / 64) as f64);
            let d = sampler.sample_with_gradient((i + 3.0) / 7.0, (j - 2.0) / 7.0);
            assert_eq!(g.map(f32::to_bits), d.gradient.map(f32::to_bits), "pixel {k}");
            assert!(g.iter().all(|v| v.is_finite()), "pixel {k}: {g:?}");
            clamped += g.iter().filter(|v| v.abs() == f32::MAX || **v == 0.0).count();
        }
        assert!(clamped > 0, "the settings overflow somewhere");
    }

    /// Simplex grids whose rows are filled several at a time (`rows_at_once`), the last batch
    /// full or short, with octaves from cells 12 pixels wide (AVX-512 takes those row by row,
    /// with its table) to a third of a pixel (batched): every height, and every gradient of the
    /// heights-with-gradients grid, is the point path's, on every level this CPU has, for each
    /// kind of fractal that takes the batches.
    #[test]
    fn simplex_rows_in_batches_give_the_point_path_bits() {
        use crate::grid::{fill_uninit_with, rows_at_once};
        use std::mem::MaybeUninit;
        for (width, height, batch, last) in
            [(69, 69, 14, 13), (129, 129, 7, 3), (33, 64, 22, 20), (300, 5, 3, 2)]
        {
            for fractal in [Fractal::Fbm, Fractal::Billow, Fractal::Ridged, Fractal::None] {
                let s = NoiseSettings {
                    basis: Basis::Simplex,
                    fractal,
                    octaves: 6,
                    seed: 3,
                    ..Default::default()
                };
                let sampler = s.sampler();
                assert_eq!(rows_at_once(&sampler, width, height), batch, "{width}×{height}");
                assert_eq!((height - 1) % batch + 1, last, "{width}×{height}: the last batch");
                let (w, h) = (width as u32, height as u32);
                let window = GridWindow { origin: [-40, 7], width: w, height: h, pixels_per_unit: 12.0 };
                let n = width * height;
                for isa in crate::isa::levels_under_test() {
                    let mut plain = vec![MaybeUninit::new(f32::NAN); n];
                    fill_uninit_with(isa, &sampler, window, &mut plain);
                    let (mut heights, mut gradients) = (vec![f32::NAN; n], vec![[f32::NAN; 2]; n]);
                    fill_with_gradients_at(isa, &sampler, window, &mut heights, &mut gradients);
                    for k in 0..n {
                        let (i, j) = ((k % width) as f64 - 40.0, (k / width) as f64 + 7.0);
                        let d = sampler.sample_with_gradient(i / 12.0, j / 12.0);
                        let case = format!("{fractal:?}, {width}×{height}, {isa:?}, pixel {k}");
                        // SAFETY: initialised above (and overwritten by the fill).
                        let plain = unsafe { plain[k].assume_init() };
                        assert_eq!(plain.to_bits(), sampler.sample(i / 12.0, j / 12.0).to_bits(), "{case}");
                        assert_eq!(heights[k].to_bits(), plain.to_bits(), "{case}");
                        assert_eq!(gradients[k].map(f32::to_bits), d.gradient.map(f32::to_bits), "{case}");
                    }
                }
            }
        }
    }

    /// The damped fractal's heights over a row wider than a segment: its two segments, of one
    /// length, share a thread's scratch and its octaves' kept cells (`XCells`), which must
    /// be each segment's own (the key tells them apart by their ends), on every level.
    #[test]
    fn rows_of_equal_segments_each_get_their_own_cells() {
        use crate::grid::{MAX_SEGMENT, fill_uninit_with};
        use std::mem::MaybeUninit;
        for basis in [Basis::Value, Basis::Gradient] {
            let s =
                NoiseSettings { basis, fractal: Fractal::Damped, octaves: 3, seed: 11, ..Default::default() };
            let sampler = s.sampler();
            let width = 2 * MAX_SEGMENT;
            let window =
                GridWindow { origin: [-100, 3], width: width as u32, height: 2, pixels_per_unit: 50.0 };
            for isa in crate::isa::levels_under_test() {
                let mut heights = vec![MaybeUninit::new(f32::NAN); 2 * width];
                fill_uninit_with(isa, &sampler, window, &mut heights);
                for (k, h) in heights.iter().enumerate().step_by(7) {
                    let (i, j) = ((k % width) as f64 - 100.0, (k / width) as f64 + 3.0);
                    // SAFETY: initialised above (and overwritten by the fill).
                    let h = unsafe { h.assume_init() };
                    let expected = sampler.sample(i / 50.0, j / 50.0);
                    assert_eq!(h.to_bits(), expected.to_bits(), "{basis:?} {isa:?} pixel {k}");
                }
            }
        }
    }

    #[test]
    fn heights_are_the_grid_and_gradients_the_point_path_bit_for_bit() {
        for basis in [Basis::Value, Basis::Gradient, Basis::Simplex, Basis::Worley] {
            for fractal in [Fractal::Fbm, Fractal::Billow, Fractal::Ridged, Fractal::Hetero, Fractal::None] {
                // The filter's scale 2 follows the first octave's slope; 8, the first three.
                for (period, warp, filter, scale) in [
                    (None, 0.0, false, 2.0),
                    (Some(3), 0.0, false, 2.0),
                    (None, 0.5, false, 2.0),
                    (None, 0.0, true, 2.0),
                    (Some(3), 0.0, true, 2.0),
                    (None, 0.0, true, 8.0),
                ] {
                    let s = NoiseSettings {
                        basis,
                        fractal,
                        fade: Fade::Quintic,
                        period,
                        warp: Warp { amplitude: warp, ..Default::default() },
                        erosion_filter: crate::ErosionFilter { enabled: filter, scale, ..Default::default() },
                        ..Default::default()
                    };
                    assert_eq!(s.sampler().filter.is_some(), filter && s.supports_erosion_filter());
                    let coarse = if scale == 8.0 && fractal != Fractal::None { 3 } else { 1 };
                    assert_eq!(s.sampler().filter_octaves, coarse);
                    let sampler = s.sampler();
                    // 23 pixels per unit: every octave's runs are a few pixels long; 400: the
                    // first octave's run spans the row (100 pixels per cell), the last ones are
                    // short. Rows of 37 end in 5 pixels (a half chunk with the filter), of 45 in 13
                    // (a whole one).
                    for (ppu, width) in [(23.0, 37), (400.0, 37), (23.0, 45)] {
                        let window = GridWindow { origin: [-7, 5], width, height: 9, pixels_per_unit: ppu };
                        let n = width as usize * 9;
                        // Every level this CPU has, not only the one the fill picks.
                        for isa in crate::isa::levels_under_test() {
                            let (mut heights, mut gradients, mut plain) =
                                (vec![0.0; n], vec![[0.0; 2]; n], vec![0.0; n]);
                            fill_with_gradients_at(isa, &sampler, window, &mut heights, &mut gradients);
                            fill_grid(&sampler, window, &mut plain);
                            for (k, ((h, g), p)) in heights.iter().zip(&gradients).zip(&plain).enumerate() {
                                assert_eq!(h.to_bits(), p.to_bits(), "{basis:?} {fractal:?} pixel {k}");
                                let (i, j) = ((k % width as usize) as f64, (k / width as usize) as f64);
                                let d = sampler.sample_with_gradient((i - 7.0) / ppu, (j + 5.0) / ppu);
                                assert_eq!(
                                    g.map(f32::to_bits),
                                    d.gradient.map(f32::to_bits),
                                    "{basis:?} {fractal:?} {ppu} {k} filter {filter} {isa:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
