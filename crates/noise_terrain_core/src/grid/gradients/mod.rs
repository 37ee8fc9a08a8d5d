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
//! each stage compiled for the instruction-set level on its own (see `filtered_row`). Heights
//! alone with the filter (the heights' grid) take their slope and gully octaves from here too:
//! the slope without second derivatives, then each chunk of lanes through every octave in
//! registers (see `filter_heights_row`).
//!
//! Here: the entry point, the scratch, the rows of value, gradient and simplex noise with their
//! gradients and the fractal over them. The octaves' jets along a row: `jets.rs`; the erosion
//! filter's gully octaves: `gullies.rs`; the damped fractal: `damped.rs`.

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
use crate::isa::Isa;

/// Rebinds each named slice (or vector) to its first `width` elements, one by one: cut through
/// `array::map`, which LLVM left out of line, the lengths were lost and every access kept a
/// bounds check, which stopped the pixel loops from vectorising.
macro_rules! cut_to {
    ($width:expr; mut $($v:ident),+) => { $(let $v = &mut $v[..$width];)+ };
    ($width:expr; $($v:ident),+) => { $(let $v = &$v[..$width];)+ };
}

mod damped;
mod gullies;
mod jets;
#[cfg(test)]
mod tests;

use damped::add_octave;
pub(crate) use damped::damped_heights_row;
use gullies::{GullyColumns, StateChunk, dual_gully_finish, dual_gully_octave, filtered_row, gully_heights};
pub(crate) use gullies::{filter_heights_row, heights_coarse_slope};
use jets::{coarse_slope_from_layers, coarse_slope_row};

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
    /// The erosion filter's states of a row of heights with gradients, as a structure of arrays
    /// (see [`dual_gully_octave`]).
    dual_states: Vec<StateChunk>,
    /// Each octave's gully cells along the rows, found by the first row (with gradients a
    /// `Scratch` serves one grid, whose rows share their x positions; heights say whether they
    /// do, see [`filter_heights_row`]).
    gully_columns: Vec<GullyColumns>,
    /// The coarse octaves' cells along the rows, found by the first row (see
    /// [`coarse_slope_row`]).
    coarse_columns: Vec<Cells>,
}

impl Scratch {
    /// Forgets what the kept cells, columns and tables were for (their buffers kept, to be made
    /// again): for a scratch kept from one grid to the next. A field added to the scratch that
    /// holds something of one grid is forgotten here too.
    pub(crate) fn forget(&mut self) {
        self.cells.forget();
        self.gully_columns.clear();
        self.coarse_columns.clear();
    }

    /// Octave `k`'s values along a row of `width` pixels, as [`heights_coarse_slope`] kept them.
    pub(crate) fn coarse_values(&self, k: usize, width: usize) -> &[f32] {
        &self.coarse_layers[0][k * width..(k + 1) * width]
    }

    /// Keeps the coarse slope of a row `width` long (the two components along x and y) as row
    /// `r` of `rows`, which it lengthens as needed.
    pub(crate) fn keep_slope(&self, (r, width): (usize, usize), rows: &mut [Vec<f32>; 2]) {
        for (to, from) in rows.iter_mut().zip(&self.coarse) {
            to.resize(to.len().max((r + 1) * width), 0.0);
            to[r * width..(r + 1) * width].copy_from_slice(&from[..width]);
        }
    }

    /// Takes back row `r` of `rows`, kept by [`keep_slope`](Self::keep_slope), as the coarse
    /// slope that the filter follows.
    pub(crate) fn take_slope(&mut self, (r, width): (usize, usize), rows: &[Vec<f32>; 2]) {
        for (to, from) in self.coarse.iter_mut().zip(rows) {
            to[..width].copy_from_slice(&from[r * width..(r + 1) * width]);
        }
    }
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
    /// Per octave, the SIMD rows' table of the corners of the row's lattice columns.
    #[cfg(target_arch = "x86_64")]
    columns: Vec<super::column_table::ColumnTable>,
    /// Per octave, value and gradient noise's cells along x, which the grid's rows share (a
    /// `Scratch` serves one grid).
    octaves: Vec<XCells>,
}

impl Cells {
    /// Forgets what the kept cells and tables were for (see [`Scratch::forget`]).
    fn forget(&mut self) {
        self.skews.iter_mut().for_each(SkewXs::forget);
        #[cfg(target_arch = "x86_64")]
        self.columns.iter_mut().for_each(super::column_table::ColumnTable::forget);
        self.octaves.iter_mut().for_each(XCells::forget);
    }

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
    /// [`coarse_slope_row`] with its second derivatives compiled for a level.
    fn coarse_slope_with_hessian_at(sampler: &FieldSampler, along: (&[f64], f64, bool), scratch: &mut Scratch) => coarse_slope_row::<true>
}

crate::isa::dispatch! {
    /// [`coarse_slope_row`] without its second derivatives compiled for a level.
    fn coarse_slope_at(sampler: &FieldSampler, along: (&[f64], f64, bool), scratch: &mut Scratch) => coarse_slope_row::<false>
}

crate::isa::dispatch! {
    /// [`coarse_slope_from_layers`] compiled for a level.
    fn coarse_slope_from_layers_at(sampler: &FieldSampler, along: (&[f64], f64), level: Isa, scratch: &mut Scratch) => coarse_slope_from_layers
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
    /// [`gully_heights`] compiled for a level, sixteen pixels at a time (AVX-512).
    fn gully_heights_wide_at(plan: &GullyPlan, along: (&[f64], f64), scratch: &mut Scratch, row: &mut [f32]) => gully_heights::<true>
}

crate::isa::dispatch! {
    /// [`gully_heights`] compiled for a level, eight pixels at a time (the other levels).
    fn gully_heights_narrow_at(plan: &GullyPlan, along: (&[f64], f64), scratch: &mut Scratch, row: &mut [f32]) => gully_heights::<false>
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

/// Value and gradient noise's octaves whose cells are on average narrower than this many pixels
/// take the SIMD kernels (`grid/kernels/lattice.rs`) at a SIMD level; wider ones the runs (whose
/// per-cell constants are then worth making once per run). Measured for AVX2 on a Zen 3 EPYC, one octave over 129² grids with
/// gradients: the kernels take about 4.7 ns a pixel (gradient noise) or 3.3 ns (value) whatever
/// the cells, the runs 23, 11, 7.3, 4.7, 4.1 and 3.8 ns (gradient noise at cells of 2, 4, 8, 16,
/// 32 and 64 pixels) and 10.6, 4.5, 3.4, 3.3, 3.1 and 2.9 ns (value noise at 4, 8, 16, 24, 32
/// and 64).
const KERNEL_ROWS_BELOW: usize = 20;

/// One octave of value, gradient or simplex noise over the row (over the rows at base-lattice ys
/// `ys`, several only for simplex noise; `ys[r] · scale` the octave's y), in `[-1, 1]`, with its
/// gradient per map unit (`per = (lacunarityⁱ, frequency)`, applied with
/// `sample_with_gradient`'s operations), into `out`: values, ∂/∂x and ∂/∂y, each [`LANES`]
/// longer than the rows. At a SIMD `level` (a level the CPU has) simplex noise takes the level's
/// kernel, and so do value and gradient noise on an unbounded lattice where its cells are
/// narrower than [`KERNEL_ROWS_BELOW`] pixels; the portable loops compiled for the level otherwise.
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
        if level != Isa::BASELINE {
            let (points, offsets) = ((&i[..width], &j[..width]), (&x0[..width], &y0[..width]));
            let out = [values, dx, dy];
            // Two blocks side by side with AVX-512 (see `simplex_layer`): 3% to 4% faster here.
            return super::lanes::with_lanes!(level, wide as super::lanes::Twice, |s| {
                super::kernels::simplex::simplex_row_with_gradient(s, lattice.seed, points, offsets, per, out)
            });
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
    if level != Isa::BASELINE
        && lattice.period.is_none()
        && super::lattice_rows::runs_shorter_than(&cells.i0[..width], KERNEL_ROWS_BELOW)
    {
        let XCells { i0, fx, u, du, .. } = cells;
        if columns.len() <= octave {
            columns.resize_with(octave + 1, Default::default);
        }
        let ys = [super::column_table::RowY { cy, v }];
        let row = super::column_table::Row { x0: &i0[..width], fx: &fx[..width], u: &u[..width], ys: &ys };
        let (at, columns) = ((row, &du[..width], dv), &mut columns[octave]);
        let out = [&mut values[..width], &mut dx[..width], &mut dy[..width]];
        super::lanes::with_lanes!(level, |s| match basis {
            Basis::Gradient => {
                super::kernels::lattice::gradient_row_with_gradient(
                    s,
                    (lattice.seed, lattice.kernel),
                    at,
                    per,
                    columns,
                    out,
                )
            }
            Basis::Value =>
                super::kernels::lattice::value_row_with_gradient(s, lattice.seed, at, per, columns, out),
            Basis::Simplex | Basis::Worley =>
                unreachable!("simplex returned above; Worley has no row path here"),
        });
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

/// Row `j`'s y position in base lattice units, with `FieldSampler::sample`'s operations.
#[inline(always)]
pub(super) fn row_y(sampler: &FieldSampler, window: GridWindow, j: usize) -> f64 {
    let s = &sampler.settings;
    ((window.origin[1] as f64 + j as f64) / window.pixels_per_unit + s.offset.y) * s.frequency as f64
}
