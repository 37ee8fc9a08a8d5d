//! The lattice jets of heights with gradients: each octave's value, gradient and Hessian per
//! pixel, from its cells along the row (what the erosion filter's coarse slopes and the damped
//! fractal's slopes are made of).

use super::*;

/// The slope per map unit of the field's first `filter_octaves` octaves (fBm, billow or a single
/// layer of value, gradient or simplex noise) along a row (x positions `xs`, y `py` in base
/// lattice units) and, with `HESSIAN` (for heights with gradients), its derivatives per map unit²,
/// into `scratch.coarse` (with no `HESSIAN` its first two rows alone, for simplex heights; value
/// and gradient heights take [`coarse_slope_from_layers`]): per octave the
/// corners once per run of pixels in a lattice cell, then per pixel the cell's derivatives by the
/// point path's own functions, added up as the point path adds them (bit for bit
/// `FieldSampler`'s). With `grid_rows` (value and gradient noise over a grid with gradients, whose
/// `Scratch` serves the grid's rows alone: see [`reuses_coarse_layers`]), each octave's layer too,
/// into `scratch.coarse_layers`, and its cells along x found once, by the first row.
#[inline(always)]
pub(super) fn coarse_slope_row<const HESSIAN: bool>(
    sampler: &FieldSampler,
    (xs, py, grid_rows): (&[f64], f64, bool),
    scratch: &mut Scratch,
) {
    let Scratch { cells, coarse, jets, coarse_layers, coarse_columns, .. } = scratch;
    let s = &sampler.settings;
    let width = xs.len();
    cells.resize(width);
    // The rows this call makes.
    let (sums, parts) = if HESSIAN { (5, 6) } else { (2, 3) };
    // Padded to whole chunks of `LANES` (see `start_lanes`).
    for v in coarse[..sums].iter_mut() {
        v.clear();
        v.resize(width.next_multiple_of(LANES), 0.0);
    }
    for v in jets[..parts].iter_mut() {
        v.resize(width + LANES, 0.0);
    }
    let (mut scale, mut amplitude) = (1.0f64, 1.0f32);
    for k in 0..sampler.filter_octaves as usize {
        let lattice = &sampler.lattices[k];
        let y = py * scale;
        if s.basis == Basis::Simplex {
            for (i, &x) in xs.iter().enumerate() {
                let jet = jet_parts(simplex_2d_with_hessian(x * scale, y, lattice.seed));
                for (row, v) in jets[..parts].iter_mut().zip(jet) {
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
            let short = lattice.period.is_none()
                && crate::grid::lattice_rows::runs_shorter_than(&cells.i0[..width], SHORT_JET_RUNS);
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
                            GradientKernel::Perlin => fill_jets::<HESSIAN>(
                                cells,
                                (run, short),
                                jets,
                                GradientCell::<false> { g, fy: cy.f, y_fades },
                            ),
                            GradientKernel::Rounded => fill_jets::<HESSIAN>(
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
                        fill_jets::<HESSIAN>(cells, (run, short), jets, ValueCell { c, y_fades });
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
        cut_to!(width; mut gx, gy);
        let [value, dx, dy, hxx, hxy, hyy] = &*jets;
        cut_to!(width; value, dx, dy);
        if HESSIAN {
            cut_to!(width; mut xx, xy, yy);
            cut_to!(width; hxx, hxy, hyy);
            for i in 0..width {
                let octave = OctaveJet {
                    value: value[i],
                    gradient: [dx[i], dy[i]],
                    hessian: [hxx[i], hxy[i], hyy[i]],
                };
                let sums = ([gx[i], gy[i]], [xx[i], xy[i], yy[i]]);
                let ([a, b], [c, d, e]) = octave.add_to(sampler.fractal.kind, amplitude, per, sums);
                (gx[i], gy[i], xx[i], xy[i], yy[i]) = (a, b, c, d, e);
            }
        } else {
            add_octave_slope(sampler.fractal.kind, (amplitude, per), [value, dx, dy], [gx, gy]);
        }
        amplitude *= sampler.fractal.persistence;
        scale *= s.lacunarity as f64;
    }
    let k = sampler.to_unit.slope_scale();
    for v in coarse[..sums].iter_mut() {
        v.iter_mut().for_each(|v| *v *= k);
    }
}

/// [`coarse_slope_row`]'s slope without second derivatives (its first two rows of
/// `scratch.coarse`, the same bits) for value and gradient noise, from each coarse octave's layer
/// as the rows of heights with gradients make it ([`octave_layer`], per lattice unit: the blends'
/// values and gradients are the jets', see [`reuses_coarse_layers`]), which cost less than the
/// jets where heights need no Hessian; and each octave's values into `scratch.coarse_layers` for
/// the field (see [`Scratch::coarse_values`]).
#[inline(always)]
pub(super) fn coarse_slope_from_layers(
    sampler: &FieldSampler,
    (xs, py): (&[f64], f64),
    level: Isa,
    scratch: &mut Scratch,
) {
    let Scratch { cells, coarse, layers, coarse_layers, .. } = scratch;
    let s = &sampler.settings;
    let width = xs.len();
    cells.resize(width);
    for v in coarse[..2].iter_mut() {
        v.clear();
        v.resize(width.next_multiple_of(LANES), 0.0);
    }
    for v in layers.iter_mut() {
        v.resize(v.len().max(width + LANES), 0.0);
    }
    let (mut scale, mut amplitude) = (1.0f64, 1.0f32);
    for k in 0..sampler.filter_octaves as usize {
        let [values, dx, dy] = &mut *layers;
        let out = [&mut values[..width + LANES], &mut dx[..width + LANES], &mut dy[..width + LANES]];
        octave_layer((s.basis, k, level), &sampler.lattices[k], (xs, scale), &[py], (1.0, 1.0), cells, out);
        let [values, dx, dy] = &*layers;
        cut_to!(width; values, dx, dy);
        let kept = &mut coarse_layers[0];
        kept.resize(kept.len().max((k + 1) * width), 0.0);
        kept[k * width..(k + 1) * width].copy_from_slice(values);
        let per = scale as f32 * s.frequency;
        let [gx, gy, ..] = &mut *coarse;
        cut_to!(width; mut gx, gy);
        add_octave_slope(sampler.fractal.kind, (amplitude, per), [values, dx, dy], [gx, gy]);
        amplitude *= sampler.fractal.persistence;
        scale *= s.lacunarity as f64;
    }
    let k = sampler.to_unit.slope_scale();
    for v in coarse[..2].iter_mut() {
        v.iter_mut().for_each(|v| *v *= k);
    }
}

/// One coarse octave (values, and gradients per lattice unit, a row each) added to the slope's
/// sums `[gx, gy]` as [`OctaveJet::add_to`] adds it without second derivatives (`per` map units
/// per lattice unit of the octave), in a loop that vectorises.
#[inline(always)]
fn add_octave_slope(
    kind: Fractal,
    (amplitude, per): (f32, f32),
    [values, dx, dy]: [&[f32]; 3],
    [gx, gy]: [&mut [f32]; 2],
) {
    let width = gx.len();
    cut_to!(width; values, dx, dy);
    cut_to!(width; mut gy);
    for i in 0..width {
        let octave = OctaveJet { value: values[i], gradient: [dx[i], dy[i]], hessian: [0.0; 3] };
        let ([a, b], _) = octave.add_to(kind, amplitude, per, ([gx[i], gy[i]], [0.0; 3]));
        (gx[i], gy[i]) = (a, b);
    }
}

/// Octave `lattice`'s cells along a row (x positions `xs` times `scale`) with the fade's value,
/// slope and curvature at each pixel.
#[inline(always)]
pub(super) fn column_cells(xs: &[f64], scale: f64, lattice: &Lattice, cells: &mut Cells) {
    let width = xs.len();
    split_row(xs, scale, lattice.period, [&mut cells.i0, &mut cells.i1], &mut cells.fx);
    let curves = [&mut cells.u[..width], &mut cells.du[..width], &mut cells.ddu[..width]];
    lattice.fade.curves_slice(&cells.fx[..width], curves);
}

/// Row `k` of `layers` (each row `width` long): the jets' values, and their gradients per map unit
/// (`per` map units per lattice cell), as [`octave_layer`] writes a layer.
#[inline(always)]
pub(super) fn keep_layer(
    jets: &[Vec<f32>],
    per: f32,
    (k, width): (usize, usize),
    layers: &mut [Vec<f32>; 3],
) {
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
pub(super) fn jet_parts(n: Jet) -> [f32; 6] {
    let h = n.hessian;
    [n.first.value, n.first.gradient[0], n.first.gradient[1], h[0][0], h[0][1], h[1][1]]
}

/// A lattice cell's noise with its gradient and Hessian at a pixel of a run, from the pixel's
/// `fx` and the fade's value, slope and curvature there (the row's `y` fixed in the cell).
pub(super) trait CellJet {
    /// The jet per cell at `fx` with `x_fades = [u, du, ddu]`.
    fn at(&self, fx: f32, x_fades: [f32; 3]) -> Jet;
}

/// Gradient noise's cell: Perlin's kernel (`ROUNDED` false) or the rounded one.
pub(super) struct GradientCell<const ROUNDED: bool> {
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
pub(super) struct ValueCell {
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
pub(super) const SHORT_JET_RUNS: usize = 24;

/// Writes `cell`'s value, gradient and, with `HESSIAN`, Hessian for the pixels `run` of the row into `jets`,
/// [`LANES`] pixels at a time, or half as many where the octave's runs are `short` (as
/// [`fill_run`], whose spare pixels land where the next run or the padding will be). A trait
/// rather than a closure: LLVM left the closure out of line, per pixel.
#[inline(always)]
pub(super) fn fill_jets<const HESSIAN: bool>(
    cells: &Cells,
    (run, short): (std::ops::Range<usize>, bool),
    jets: &mut [Vec<f32>; 6],
    cell: impl CellJet,
) {
    #[inline(always)]
    fn chunks<const L: usize, const HESSIAN: bool>(
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
            // Without `HESSIAN` the second derivatives are left out, and their arithmetic with them.
            for (to, from) in jets[..if HESSIAN { 6 } else { 3 }].iter_mut().zip(&out) {
                to[lanes.clone()].copy_from_slice(from);
            }
        }
    }
    if short {
        chunks::<{ LANES / 2 }, HESSIAN>(cells, run, jets, cell)
    } else {
        chunks::<LANES, HESSIAN>(cells, run, jets, cell)
    }
}
