//! Filling a whole grid at once: the fast path behind [`Heightmap::generate`].
//!
//! Rows are independent, so with the `parallel` feature (default) they are spread over all
//! cores with rayon; the bytes are the same for any number of threads.
//!
//! Within a row, every basis (without warp) takes a row path. Simplex evaluates the row's points in
//! one branch-free loop that vectorises, the rows of a narrow grid several at a time (a chunk's
//! 65-pixel rows would end in a block of one pixel each). Value, gradient and Worley noise go
//! further: the row's cells and fractions along x are split once per thread and octave (every row
//! of a grid has the same x positions), its y cell and fade once per octave, the corner hashes once
//! per lattice cell, and the per-pixel blend runs over contiguous slices that the compiler
//! vectorises. Where an octave's cells are only a few pixels wide (a chunk's finest octaves), that
//! set-up per cell costs more than it saves, and every pixel hashes its own corners in one loop
//! instead (`VALUE_PER_PIXEL_BELOW` and its siblings). With AVX2 and with AVX-512 every basis has
//! rows of its own (`avx2.rs`, `avx512.rs`): value and gradient noise skip runs altogether, each
//! block of 8 or 16 pixels picking its corners with register permutes from a table of the row's
//! lattice columns kept from row to row (`column_table.rs`); Worley's 3×3 search reads a table of
//! the row's feature points; simplex picks its gradients from registers. The row path is compiled
//! for the baseline (SSE2), AVX2 + FMA and AVX-512, and the level a grid runs at is the fastest one
//! measured on the CPU at hand (`level.rs`). The blend is the very function the point path uses,
//! Rust never fuses multiply-adds on its own (nor do the AVX2 and AVX-512 rows, which repeat the
//! point path's operations in its order), and positions are computed with the same `f64`
//! operations, so the grid is bit for bit what [`FieldSampler::sample`] gives at every level (a
//! property test holds it for each level the CPU running the tests has). Warped fields are sampled
//! point by point, still in parallel rows.
//!
//! [`Heightmap::generate`]: crate::Heightmap::generate

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(all(test, target_arch = "x86_64"))]
mod avx512_emulated;
#[cfg(target_arch = "x86_64")]
mod column_table;
pub(crate) mod cut_depths;
pub(crate) mod gradients;
pub(crate) mod level;
pub(crate) mod rows;
#[cfg(all(test, target_arch = "x86_64"))]
mod test_rows;

pub use rows::GridWindow;
#[cfg(feature = "parallel")]
use rows::worth_parallel;
use rows::{SkewXs, XCells, run_end};

use std::mem::MaybeUninit;

use crate::field::FieldSampler;
use crate::field::basis::Basis;
use crate::field::basis::Lattice;
use crate::field::basis::gradient::corner_gradient_2d;
use crate::field::basis::gradient_kernel::blend_gradients_2d;
use crate::field::basis::gradient_kernel::{GradientKernel, blend_rounded_2d};
use crate::field::basis::simplex::corners_2d;
use crate::field::basis::value::{blend_values_2d, corner_value_2d};
use crate::field::basis::worley::{
    FARTHER_CELLS_AT_LEAST, WorleySearch, column_point, column_point_in_row, deciding, feature, offer,
    search_order_2d,
};
use crate::field::basis::{DistanceMetric, WorleyReturn};
use crate::field::coord::{AxisCell, split};
use crate::field::fractal::{Fractal, MAX_OCTAVES};
use crate::field::hash::{hash2_spread, spread_x, spread_y};
use crate::isa::{Isa, Level};

/// Per-thread buffers for one row segment, or a batch of whole rows, of up to `width` pixels.
struct RowScratch {
    width: usize,
    xs: Vec<f64>,
    /// The y positions of a batch's rows, in base lattice units.
    ys: Vec<f64>,
    i0: Vec<i32>,
    sums: Vec<f32>,
    f1: Vec<f32>,
    f2: Vec<f32>,
    nearest: Vec<u32>,
    candidates: Vec<(f32, f32, u32)>,
    columns: Vec<(f32, f32, u32)>,
    /// Per octave, the row's cells along x, which rows of the same x positions share.
    x_cells: Vec<XCells>,
    /// Per octave, the AVX2 and AVX-512 paths' table of the corners of the row's lattice columns.
    #[cfg(target_arch = "x86_64")]
    column_tables: Vec<column_table::ColumnTable>,
    /// Per octave, simplex noise's x cells with their shares of the skew, which rows of the same
    /// x positions share.
    skews: Vec<SkewXs>,
    /// Per octave, the AVX-512 path's table of the simplex lattice points of the last rows.
    #[cfg(target_arch = "x86_64")]
    simplex_tables: Vec<avx512::SimplexTable>,
    /// The same for the emulated AVX-512 level (tests only).
    #[cfg(all(test, target_arch = "x86_64"))]
    emulated_simplex_tables: Vec<avx512_emulated::kernels::SimplexTable>,
    /// The AVX-512 Worley search's feature points of the row's lattice columns (`avx512.rs`).
    lattice_columns: Vec<f32>,
    i1: Vec<i32>,
    fx: Vec<f32>,
    u: Vec<f32>,
    layers: Vec<f32>,
    /// Per octave, Worley's feature points of the last row of cells (rows of pixels in the same
    /// row of cells share them).
    bands: [WorleyBand; MAX_OCTAVES as usize],
    /// The damped fractal's octave layers with their slopes (sized on first use).
    slopes: crate::grid::gradients::Scratch,
}

impl RowScratch {
    /// Buffers for `rows` rows of a segment at a time (see [`rows_at_once`]: several only for
    /// simplex noise, whose rows need no Worley buffers).
    fn new(segment: usize, rows: usize, octaves: usize) -> Self {
        let width = segment * rows;
        let worley = if rows == 1 { segment } else { 0 };
        Self {
            width,
            xs: Vec::with_capacity(segment),
            ys: Vec::with_capacity(rows),
            i0: vec![0; width],
            sums: vec![0.0; width],
            f1: vec![0.0; worley],
            f2: vec![0.0; worley],
            nearest: vec![0; worley],
            candidates: Vec::new(),
            columns: Vec::new(),
            #[cfg(target_arch = "x86_64")]
            column_tables: (0..octaves).map(|_| Default::default()).collect(),
            skews: (0..octaves).map(|_| Default::default()).collect(),
            #[cfg(target_arch = "x86_64")]
            simplex_tables: (0..octaves).map(|_| Default::default()).collect(),
            #[cfg(all(test, target_arch = "x86_64"))]
            emulated_simplex_tables: (0..octaves).map(|_| Default::default()).collect(),
            lattice_columns: Vec::new(),
            // Sized on first use: simplex noise needs none.
            x_cells: (0..octaves).map(|_| XCells::default()).collect(),
            i1: vec![0; width],
            fx: vec![0.0; width],
            u: vec![0.0; width],
            layers: vec![0.0; width * octaves],
            bands: Default::default(),
            slopes: Default::default(),
        }
    }
}

/// Fills `out` (`width × height`, row-major) with the sampler's heights over `window`.
pub fn fill_grid(sampler: &FieldSampler, window: GridWindow, out: &mut [f32]) {
    // SAFETY: `MaybeUninit<f32>` has the layout of `f32`, and `fill_grid_uninit` only writes
    // initialised values, so `out` stays initialised.
    let out = unsafe { &mut *(out as *mut [f32] as *mut [MaybeUninit<f32>]) };
    fill_grid_uninit(sampler, window, out);
}

/// [`fill_grid`] into memory that need not be initialised: every element is written. A fresh buffer
/// then needs no zeroing first, which would be serial work in front of the parallel rows.
pub fn fill_grid_uninit(sampler: &FieldSampler, window: GridWindow, out: &mut [MaybeUninit<f32>]) {
    fill_uninit_with(level::level_for(sampler.settings.basis), sampler, window, out);
}

/// Rows wider than this are filled in segments of this many pixels, so that the per-thread
/// scratch (a dozen buffers a row wide) stays small whatever the width.
const MAX_SEGMENT: usize = 4096;

/// Narrow simplex grids are filled this many pixels at a time (whole rows, at least one):
/// see [`rows_at_once`].
const SIMPLEX_BATCH_PIXELS: usize = 1024;

/// How many whole rows of a grid `width` pixels wide one call fills: several for simplex noise
/// on the row path (without slopes), whose corners take any points in any order, so that a
/// chunk-sized grid's rows (65 pixels: eight blocks of eight and one of a single pixel) run
/// through the corners in full blocks and pay each octave's set-up once per batch instead of once
/// per row; one otherwise. The bits are the same either way.
fn rows_at_once(sampler: &FieldSampler, width: usize, height: usize) -> usize {
    let s = &sampler.settings;
    let simplex_rows = s.basis == Basis::Simplex
        && sampler.filter.is_none()
        && s.row_path()
        && !sampler.fractal.kind.needs_slopes();
    if !simplex_rows || height == 0 {
        return 1;
    }
    // As many rows as fit, spread evenly over the batches (65 rows: five batches of 13).
    let most = (SIMPLEX_BATCH_PIXELS / width.max(1)).clamp(1, height);
    height.div_ceil(height.div_ceil(most))
}

/// [`fill_grid_uninit`] with the row path compiled for `isa`, which the CPU must support.
fn fill_uninit_with(isa: Isa, sampler: &FieldSampler, window: GridWindow, out: &mut [MaybeUninit<f32>]) {
    let width = window.width as usize;
    assert_eq!(out.len() as u64, width as u64 * u64::from(window.height), "output does not match the window");
    if out.is_empty() {
        return;
    }
    let octaves = sampler.fractal.octave_count() as usize;
    let segment = width.min(MAX_SEGMENT);
    // Rows of several segments never come in batches (`rows_at_once` is 1 over 512 pixels).
    let rows = rows_at_once(sampler, width, window.height as usize);
    // The x positions of a segment: the same operations as `FieldSampler::sample`.
    let s = &sampler.settings;
    let x_positions = |first: usize, len: usize, xs: &mut Vec<f64>| {
        xs.clear();
        xs.extend((first..first + len).map(|i| {
            ((window.origin[0] as f64 + i as f64) / window.pixels_per_unit + s.offset.x) * s.frequency as f64
        }));
    };
    // Every row shares them when a row is one segment.
    let mut shared = Vec::new();
    if width == segment {
        x_positions(0, width, &mut shared);
    }
    // `out` holds `rows` whole rows from row `j` on (fewer at the grid's end).
    let write_rows = |scratch: &mut RowScratch, j: usize, out: &mut [MaybeUninit<f32>]| {
        if width == segment {
            let rows = out.len() / width;
            fill_row(RowJob { sampler, window, xs: &shared, first: 0, j, rows, isa }, out, scratch);
            return;
        }
        let mut xs = std::mem::take(&mut scratch.xs);
        for (k, out) in out.chunks_mut(segment).enumerate() {
            let first = k * segment;
            x_positions(first, out.len(), &mut xs);
            fill_row(RowJob { sampler, window, xs: &xs, first, j, rows: 1, isa }, out, scratch);
        }
        scratch.xs = xs;
    };
    #[cfg(feature = "parallel")]
    if worth_parallel(out.len()) {
        use rayon::prelude::*;
        out.par_chunks_mut(width * rows).enumerate().for_each_init(
            || RowScratch::new(segment, rows, octaves),
            |scratch, (k, out)| write_rows(scratch, k * rows, out),
        );
        return;
    }
    let mut scratch = RowScratch::new(segment, rows, octaves);
    for (k, out) in out.chunks_mut(width * rows).enumerate() {
        write_rows(&mut scratch, k * rows, out);
    }
}

/// One row (or one segment of a row) to fill, or several whole rows ([`rows_at_once`]): the
/// field, the window, the x positions of the segment's pixels, its first pixel, the (first) row
/// index, the number of rows and the instruction set to fill them with.
#[derive(Clone, Copy)]
struct RowJob<'a> {
    sampler: &'a FieldSampler,
    window: GridWindow,
    xs: &'a [f64],
    first: usize,
    j: usize,
    rows: usize,
    isa: Isa,
}

/// Writes every element of `row` (`job.rows` rows of `job.xs.len()` pixels).
fn fill_row(job: RowJob, row: &mut [MaybeUninit<f32>], scratch: &mut RowScratch) {
    let RowJob { sampler, window, first, j, .. } = job;
    if job.rows > 1 {
        // Batches are only made for the simplex row path without a filter (`rows_at_once`).
        return lattice_row_at(job.isa, job, row, scratch);
    }
    let s = &sampler.settings;
    // The damped fractal's slopes have a row path for value, gradient and simplex noise.
    let row_path = match sampler.filter {
        // The filter takes the gradients' row path (value, gradient and simplex noise).
        Some(_) => s.gradients_on_the_row_path(),
        None => s.row_path() && (!sampler.fractal.kind.needs_slopes() || s.basis != Basis::Worley),
    };
    if !row_path {
        let y = (window.origin[1] as f64 + j as f64) / window.pixels_per_unit;
        for (i, h) in (first..).zip(row.iter_mut()) {
            h.write(sampler.sample((window.origin[0] as f64 + i as f64) / window.pixels_per_unit, y));
        }
        return;
    }
    lattice_row_at(job.isa, job, row, scratch);
    if sampler.filter.is_some() {
        // SAFETY: the row path writes every element of `row`, so all of it is initialised, and
        // `MaybeUninit<f32>` has the layout of `f32`.
        let heights = unsafe { &mut *(row as *mut [MaybeUninit<f32>] as *mut [f32]) };
        let at = (window, j, job.xs);
        crate::grid::gradients::filter_heights_row(job.isa, sampler, at, &mut scratch.slopes, heights);
    }
}

crate::isa::dispatch! {
    /// [`lattice_row`] compiled for a level (the same bits at every level).
    fn lattice_row_at(job: RowJob, row: &mut [MaybeUninit<f32>], scratch: &mut RowScratch) => lattice_row
}

/// The row path: every octave's layer of the row (of the rows, for a batch of simplex rows), then
/// the fractal over them.
#[inline(always)]
fn lattice_row(job: RowJob, row: &mut [MaybeUninit<f32>], scratch: &mut RowScratch) {
    let RowJob { sampler, window, xs, j, rows, .. } = job;
    let s = &sampler.settings;
    let width = row.len();
    // Every loop below zips the row with scratch buffers: as long as they are at least as long,
    // every element of the row is written.
    assert!(width <= scratch.width && xs.len() * rows == width, "a row segment longer than its scratch");
    assert!(rows == 1 || s.basis == Basis::Simplex, "only simplex rows come in batches");
    // The same operations as `FieldSampler::sample`, so the same positions.
    let y = |j: usize| gradients::row_y(sampler, window, j);
    let py = y(j);
    if sampler.fractal.kind.needs_slopes() {
        crate::grid::gradients::damped_heights_row(sampler, (xs, py), job.isa, &mut scratch.slopes, row);
        return;
    }

    let octaves = sampler.fractal.octave_count() as usize;
    let mut layers = std::mem::take(&mut scratch.layers);
    // The batch's rows' positions, once (a division each) rather than once per octave.
    let mut ys = std::mem::take(&mut scratch.ys);
    ys.clear();
    ys.extend((j..j + rows).map(y));
    let mut scale = 1.0f64;
    for (k, layer) in layers.chunks_exact_mut(width).take(octaves).enumerate() {
        let lattice = &sampler.lattices[k];
        match s.basis {
            Basis::Simplex => {
                let pys = ys.iter().map(|&y| y * scale);
                simplex_layer((lattice, k, job.isa), xs, scale, pys, scratch, layer)
            }
            Basis::Value | Basis::Gradient | Basis::Worley => {
                lattice_layer(sampler, (k, job.isa), (xs, scale), py * scale, scratch, layer)
            }
        }
        scale *= s.lacunarity as f64;
    }
    combine_octaves(sampler, &layers[..octaves * width], &mut scratch.sums, row);
    scratch.layers = layers;
    scratch.ys = ys;
}

/// One octave of simplex noise over the rows at `pys` (one or a batch): the skew in one loop per
/// row (from the octave's x cells and their shares of the skew, which the rows of the grid share)
/// and the corners in another over all the rows at once; with AVX-512 the corners' gradients come
/// from the octave's table of lattice points, which the next rows share, where its cells are wide
/// enough for the table (row by row then: the table follows the rows in order).
#[inline(always)]
fn simplex_layer(
    (lattice, octave, isa): (&Lattice, usize, Isa),
    xs: &[f64],
    scale: f64,
    pys: impl Iterator<Item = f64>,
    scratch: &mut RowScratch,
    layer: &mut [f32],
) {
    let RowScratch { skews, i0, i1, fx, u, .. } = scratch;
    skews[octave].split(xs, scale);
    skews[octave].skew_rows(pys, [i0, i1], [fx, u]);
    let n = xs.len();
    #[cfg(target_arch = "x86_64")]
    if isa != Isa::BASELINE {
        let width = layer.len();
        let (i, j) = (&scratch.i0[..width], &scratch.i1[..width]);
        let offsets = (&scratch.fx[..width], &scratch.u[..width]);
        // The AVX-512 rows (`$kernels`: the real ones, or the tests' emulated ones), with the
        // octave's table row by row where it serves the octave's cells: it follows rows in order
        // (a batch's blocks may straddle two rows, not monotone across the seam).
        macro_rules! avx512_rows {
            ($kernels:path, $tables:ident) => {{
                use $kernels as kernels;
                if kernels::SimplexTable::serves((i[0].min(i[n - 1]), i[0].max(i[n - 1])), n) {
                    let table = &mut scratch.$tables[octave];
                    for (r, layer) in layer.chunks_mut(n).enumerate() {
                        let row = r * n..(r + 1) * n;
                        let (i, j) = (&i[row.clone()], &j[row.clone()]);
                        let offsets = (&offsets.0[row.clone()], &offsets.1[row]);
                        kernels::simplex_row(lattice.seed, (i, j), offsets, Some(table), layer)
                    }
                } else {
                    kernels::simplex_row(lattice.seed, (i, j), offsets, None, layer)
                }
            }};
        }
        // SAFETY: the CPU has the level's features: `isa` is the proof (`crate::isa::Isa`).
        return unsafe {
            match isa.level() {
                Level::Avx512 => avx512_rows!(avx512, simplex_tables),
                Level::Avx2 => avx2::simplex_row(lattice.seed, (i, j), offsets, layer),
                #[cfg(test)]
                Level::Avx512Emulated => avx512_rows!(avx512_emulated::kernels, emulated_simplex_tables),
                Level::Baseline => unreachable!("a SIMD level"),
            }
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (isa, octave);
    let corners = scratch.i0.iter().zip(&scratch.i1).zip(scratch.fx.iter().zip(&scratch.u));
    for (o, ((&i, &j), (&x0, &y0))) in layer.iter_mut().zip(corners) {
        *o = corners_2d(lattice.seed, i, j, x0, y0);
    }
}

/// Swaps the row's working buffers (`i0`, `i1`, `fx`, `u`) with the cells kept for `octave`.
#[inline(always)]
fn swap_cells(scratch: &mut RowScratch, octave: usize) {
    let RowScratch { i0, i1, fx, u, x_cells, .. } = scratch;
    let kept = &mut x_cells[octave];
    std::mem::swap(i0, &mut kept.i0);
    std::mem::swap(i1, &mut kept.i1);
    std::mem::swap(fx, &mut kept.fx);
    std::mem::swap(u, &mut kept.u);
}

/// One octave of value, gradient or Worley noise over the row (the octave's y `py`): the
/// octave's cells along x split for the row segment `xs` unless kept already, then
/// the level's own rows ([`simd_lattice_layer`]) or Worley's per-pixel search, which read the
/// kept cells where they are, or the runs ([`cell_layer`]), which read them from the row's
/// working buffers (swapped in and back).
#[inline(always)]
fn lattice_layer(
    sampler: &FieldSampler,
    (octave, isa): (usize, Isa),
    (xs, scale): (&[f64], f64),
    py: f64,
    scratch: &mut RowScratch,
    layer: &mut [f32],
) {
    let (s, width, lattice) = (&sampler.settings, layer.len(), &sampler.lattices[octave]);
    scratch.x_cells[octave].split(xs, scale, lattice, 0);
    #[cfg(target_arch = "x86_64")]
    if takes_simd_rows(s.basis, lattice, isa) {
        let RowScratch { x_cells, column_tables, .. } = scratch;
        return simd_lattice_layer(
            (s.basis, lattice, isa),
            (&x_cells[octave], py),
            &mut column_tables[octave],
            layer,
        );
    }
    // Cells a few pixels wide: every pixel searches on its own. With AVX2 and AVX-512 the
    // per-pixel search reads a table of the row's feature points, and pays at wider cells.
    let worley_below = if isa == Isa::BASELINE { WORLEY_PER_PIXEL_BELOW } else { WORLEY_TABLE_BELOW };
    let short =
        lattice.period.is_none() && runs_shorter_than(&scratch.x_cells[octave].i0[..width], worley_below);
    if s.basis == Basis::Worley && short {
        let search = &sampler.worley_search;
        let RowScratch { x_cells, f1, f2, nearest, lattice_columns, .. } = scratch;
        let cells = (&x_cells[octave].i0[..width], &x_cells[octave].fx[..width]);
        let (f1, f2, nearest) = (&mut f1[..width], &mut f2[..width], &mut nearest[..width]);
        worley_per_pixel(
            (search, isa),
            lattice,
            split(py),
            cells,
            (&mut *f1, &mut *f2, &mut *nearest),
            lattice_columns,
        );
        return finish_worley(search, f1, f2, nearest, layer);
    }
    swap_cells(scratch, octave);
    cell_layer(sampler, octave, xs, scale, py, scratch, layer);
    swap_cells(scratch, octave);
}

/// Whether value or gradient noise's octave on `lattice` takes the level's own rows
/// ([`simd_lattice_layer`]): at the AVX2 and AVX-512 levels, on an unbounded lattice.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn takes_simd_rows(basis: Basis, lattice: &Lattice, isa: Isa) -> bool {
    isa != Isa::BASELINE && lattice.period.is_none() && matches!(basis, Basis::Value | Basis::Gradient)
}

/// One octave of value or gradient noise over the row (the octave's y `py`) with the level's
/// own rows (`avx2.rs`, `avx512.rs`), from the octave's cells kept in `cells`, read where they
/// are, and its table of corners `columns` (not swapped into the row's working buffers: that
/// copy for every row and octave costs 65² grids 7% to 15%).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn simd_lattice_layer(
    (basis, lattice, isa): (Basis, &Lattice, Isa),
    (cells, py): (&XCells, f64),
    columns: &mut column_table::ColumnTable,
    layer: &mut [f32],
) {
    let width = layer.len();
    let cy = AxisCell::new(py, lattice.period);
    let v = lattice.fade.apply(cy.f);
    let (x0, fx, u) = (&cells.i0[..width], &cells.fx[..width], &cells.u[..width]);
    let row = column_table::Row { x0, fx, u, cy, v };
    let (seed, kernel) = (lattice.seed, lattice.kernel);
    // SAFETY: the CPU has the level's features (`isa` is the proof: `crate::isa::Isa`): AVX2 at
    // the AVX2 level, AVX-512F at the AVX-512 level.
    unsafe {
        match (basis, isa.level()) {
            (Basis::Gradient, Level::Avx512) => avx512::gradient_row(seed, kernel, row, columns, layer),
            (Basis::Value, Level::Avx512) => avx512::value_row(seed, row, columns, layer),
            (Basis::Gradient, Level::Avx2) => avx2::gradient_row(seed, kernel, row, columns, layer),
            (Basis::Value, Level::Avx2) => avx2::value_row(seed, row, columns, layer),
            #[cfg(test)]
            (Basis::Gradient, Level::Avx512Emulated) => {
                avx512_emulated::kernels::gradient_row(seed, kernel, row, columns, layer)
            }
            #[cfg(test)]
            (Basis::Value, Level::Avx512Emulated) => {
                avx512_emulated::kernels::value_row(seed, row, columns, layer)
            }
            (Basis::Simplex | Basis::Worley, _) | (_, Level::Baseline) => {
                unreachable!("value and gradient noise at a SIMD level only")
            }
        }
    }
}

/// One octave of value, gradient or Worley noise over the row, once `scratch` holds the row's
/// cells along x (`i0`, `i1`, `fx`, `u`; [`XCells::split`], swapped in): the pixels are split
/// into runs that share a lattice cell, whose corners (or feature points) are looked up once, or
/// where cells are a few pixels wide every pixel looks up its own. (Value and gradient noise at
/// the SIMD levels take [`simd_lattice_layer`] instead, and Worley noise in narrow cells its
/// per-pixel search: see [`lattice_layer`].)
#[inline(always)]
fn cell_layer(
    sampler: &FieldSampler,
    octave: usize,
    xs: &[f64],
    scale: f64,
    py: f64,
    scratch: &mut RowScratch,
    layer: &mut [f32],
) {
    let (s, width, lattice) = (&sampler.settings, layer.len(), &sampler.lattices[octave]);
    let fade = lattice.fade;
    let cy = AxisCell::new(py, lattice.period);
    let v = fade.apply(cy.f);
    // Cells a few pixels wide: every pixel on its own (see the thresholds).
    let short = |pixels| lattice.period.is_none() && runs_shorter_than(&scratch.i0[..width], pixels);
    if s.basis == Basis::Value && short(VALUE_PER_PIXEL_BELOW) {
        let cells = (&scratch.i0[..width], &scratch.u[..width]);
        return value_per_pixel(lattice, [cy.i0, cy.i1], v, cells, layer);
    }
    if s.basis == Basis::Gradient && short(GRADIENT_PER_PIXEL_BELOW) {
        let cells = (&scratch.i0[..width], &scratch.fx[..width], &scratch.u[..width]);
        return gradient_per_pixel(lattice, cy, v, cells, layer);
    }
    // Worley's search radius, jitter and bounds come from the sampler, computed once: at fine
    // octaves a run is a few pixels and computing them per run cost a quarter of the time.
    let search = &sampler.worley_search;
    let mut columns = WorleyColumns { first: i64::MIN };
    let mut band = std::mem::take(&mut scratch.bands[octave]);
    let band_ready = s.basis == Basis::Worley && {
        // The row's cells, unwrapped, from its two ends (a row's positions are monotone).
        let (a, b) = (split(xs[0] * scale).0, split(xs[width - 1] * scale).0);
        band.prepare(search, lattice, split(py).0, (i64::from(a.min(b)), i64::from(a.max(b))), width)
    };
    let mut start = 0;
    while start < width {
        let end = run_end(&scratch.i0[..width], start, lattice.period.is_none());
        let x0 = scratch.i0[start];
        let x1 = if lattice.period.is_some() { scratch.i1[start] } else { x0 + 1 };
        let (fx, u) = (&scratch.fx[start..end], &scratch.u[start..end]);
        let out = &mut layer[start..end];
        match s.basis {
            Basis::Gradient => {
                let g = lattice.corners([x0, x1], [cy.i0, cy.i1], corner_gradient_2d);
                // The kernel is matched outside the pixel loop, so that each loop vectorises.
                let pixels = out.iter_mut().zip(fx).zip(u);
                match lattice.kernel {
                    GradientKernel::Perlin => {
                        pixels.for_each(|((o, &fx), &u)| *o = blend_gradients_2d(&g, fx, cy.f, u, v))
                    }
                    GradientKernel::Rounded => {
                        pixels.for_each(|((o, &fx), &u)| *o = blend_rounded_2d(&g, fx, cy.f, u, v))
                    }
                }
            }
            Basis::Value => {
                let c = lattice.corners([x0, x1], [cy.i0, cy.i1], corner_value_2d);
                for (o, &u) in out.iter_mut().zip(u) {
                    *o = blend_values_2d(&c, u, v) * 2.0 - 1.0;
                }
            }
            Basis::Simplex => unreachable!("simplex noise has its own row path"),
            Basis::Worley => {
                // Worley's neighbourhood needs the unwrapped cell (a periodic lattice wraps `i0`).
                let cell = (split(xs[start] * scale).0, split(py));
                columns.update(search, lattice, cell, band_ready.then_some(&band), scratch);
                nearest_points(search, scratch, start..end);
                let (f1, f2, nearest) =
                    (&scratch.f1[start..end], &scratch.f2[start..end], &scratch.nearest[start..end]);
                finish_worley(search, f1, f2, nearest, out);
            }
        }
        start = end;
    }
    scratch.bands[octave] = band;
}

/// At the baseline level (AVX2 and AVX-512 have rows of their own), value noise in cells
/// narrower than this many pixels (on average along the row) takes the per-pixel path
/// ([`value_per_pixel`]). Measured on a Zen 4 EPYC (AVX-512), fBm of 5 octaves:
/// 16 and 40 beat the run path at 1024² and in 129² chunks by 1.13x to 1.20x (40 a little
/// ahead at 1024², where it also takes the 32-pixel octave), every octave per pixel loses (0.83x
/// to 0.89x).
const VALUE_PER_PIXEL_BELOW: usize = 40;

/// At the baseline level (AVX2 and AVX-512 have rows of their own), gradient noise in cells
/// narrower than this many pixels takes the per-pixel path
/// ([`gradient_per_pixel`]): its corner gradients come from a table, which the pixel loop reads
/// one lane at a time, so it pays only where runs are a few pixels (a 65² grid's finest octaves:
/// 2x there; 2 and 8 measured slower, per pixel everywhere 2x slower at 1024²).
const GRADIENT_PER_PIXEL_BELOW: usize = 4;

/// At the baseline level, Worley noise in cells narrower than this many pixels takes the
/// per-pixel path
/// ([`worley_per_pixel`]): the run path's cache of feature points pays for itself only over long
/// runs, and where cells are narrower than pixels it was rebuilt for every pixel (a 65² grid of
/// 5-octave fBm took 1.8 ms, 0.15 ms now). 16 measured best on a Zen 4 EPYC at 65², 129² and
/// 1024² (1.2x to 1.4x over 32 at 1024²; 4 and 8 slower).
const WORLEY_PER_PIXEL_BELOW: usize = 16;

/// [`WORLEY_PER_PIXEL_BELOW`] with AVX2 or AVX-512, whose per-pixel search reads the row's
/// feature points from a table instead of hashing them per pixel. Measured on a Zen 4 EPYC at 1024²:
/// fBm of 5 octaves 1.2x to 1.5x faster than with the portable threshold; at 128-pixel cells the
/// run path is still a little ahead.
const WORLEY_TABLE_BELOW: usize = 64;

/// Whether the runs of equal cells in a row (`cells`, never decreasing or never increasing: an
/// unbounded lattice) are on average shorter than `pixels`.
#[inline(always)]
fn runs_shorter_than(cells: &[i32], pixels: usize) -> bool {
    let runs = (i64::from(cells[cells.len() - 1]) - i64::from(cells[0])).unsigned_abs() + 1;
    (cells.len() as u64) < runs.saturating_mul(pixels as u64)
}

/// One octave of value noise over a row of short runs (an unbounded lattice): every pixel
/// hashes its own four corners (`cells`: each pixel's cell and faded x weight; `[y0, y1]` and
/// `v` the row's), in one loop that vectorises. Where a cell spans a few pixels this costs less
/// than finding each run's end and looking its corners up once; the corners are
/// [`corner_value_2d`]'s bits.
#[inline(always)]
fn value_per_pixel(
    lattice: &Lattice,
    [y0, y1]: [i32; 2],
    v: f32,
    (x0, u): (&[i32], &[f32]),
    layer: &mut [f32],
) {
    for ((o, &x0), &u) in layer.iter_mut().zip(x0).zip(u) {
        let c = lattice.corners([x0, x0 + 1], [y0, y1], corner_value_2d);
        *o = blend_values_2d(&c, u, v) * 2.0 - 1.0;
    }
}

/// One octave of gradient noise over a row of short runs (an unbounded lattice), as
/// [`value_per_pixel`]: each pixel (`cells`: its cell, fraction and faded weight) looks up its own
/// four corner gradients, [`corner_gradient_2d`]'s bits, and blends them with the kernel.
#[inline(always)]
fn gradient_per_pixel(
    lattice: &Lattice,
    cy: AxisCell,
    v: f32,
    (x0, fx, u): (&[i32], &[f32], &[f32]),
    layer: &mut [f32],
) {
    let corners = |x0: i32| lattice.corners([x0, x0 + 1], [cy.i0, cy.i1], corner_gradient_2d);
    let cells = x0.iter().zip(fx).zip(u);
    // The kernel is matched outside the pixel loop, as on the run path.
    match lattice.kernel {
        GradientKernel::Perlin => {
            for (o, ((&x0, &fx), &u)) in layer.iter_mut().zip(cells) {
                *o = blend_gradients_2d(&corners(x0), fx, cy.f, u, v);
            }
        }
        GradientKernel::Rounded => {
            for (o, ((&x0, &fx), &u)) in layer.iter_mut().zip(cells) {
                *o = blend_rounded_2d(&corners(x0), fx, cy.f, u, v);
            }
        }
    }
}

/// One octave of Worley noise over a row of short runs (an unbounded lattice, cells `scratch.i0`
/// and fractions `scratch.fx` of the first `width` pixels, the row's cell and fraction `(iy, fy)`):
/// F1, F2 (orderings) and the nearest point's hash into `scratch.f1`, `f2` and `nearest`. Every
/// pixel searches its own 3×3 block in one loop that vectorises, then the farther cells if it
/// still needs them: the point path's cells in its order, so its bits.
#[inline(always)]
fn worley_per_pixel(
    (search, isa): (&WorleySearch, Isa),
    lattice: &Lattice,
    (iy, fy): (i32, f32),
    cells: (&[i32], &[f32]),
    out: (&mut [f32], &mut [f32], &mut [u32]),
    lattice_columns: &mut Vec<f32>,
) {
    // With AVX2 and AVX-512 the 3×3 blocks are searched from a table of the row's feature points.
    #[cfg(target_arch = "x86_64")]
    let near_done = isa != Isa::BASELINE && {
        let worley = (lattice.seed, search.jitter, search.worley.metric);
        let out = (&mut *out.0, &mut *out.1, &mut *out.2);
        // SAFETY: the CPU has the level's features: `isa` is the proof (`crate::isa::Isa`).
        unsafe {
            match isa.level() {
                Level::Avx512 => avx512::worley_near_cells(worley, (iy, fy), cells, lattice_columns, out),
                Level::Avx2 => avx2::worley_near_cells(worley, (iy, fy), cells, lattice_columns, out),
                #[cfg(test)]
                Level::Avx512Emulated => {
                    avx512_emulated::kernels::worley_near_cells(worley, (iy, fy), cells, lattice_columns, out)
                }
                Level::Baseline => unreachable!("a SIMD level"),
            }
        };
        true
    };
    #[cfg(not(target_arch = "x86_64"))]
    let near_done = {
        let _ = (isa, lattice_columns);
        false
    };
    #[inline(always)]
    fn with(
        search: &WorleySearch,
        lattice: &Lattice,
        (iy, fy): (i32, f32),
        measure: impl Fn(f32, f32) -> f32,
        ((i0, fx), near_done): ((&[i32], &[f32]), bool),
        (f1, f2, nearest): (&mut [f32], &mut [f32], &mut [u32]),
    ) {
        let (seed, jitter) = (lattice.seed, search.jitter);
        // The distance from a pixel (cell `ix`, fraction `fx`) to the feature point of the cell
        // `(dx, dy)` away, with `column_point`'s operations, and that cell's hash. `lattice.wrap`
        // of an unbounded lattice truncates the sum to `i32`, and the spread is a product modulo
        // 2³², so `spread_x(ix + dx)` is `spread_x(ix) + spread_x(dx)`: one product per pixel.
        let rows: [u32; 3] = std::array::from_fn(|k| spread_y(iy.wrapping_add(k as i32 - 1)));
        let point = |sx: u32, fx: f32, (dx, dy): (i32, i32), row: u32| {
            let h = hash2_spread(sx.wrapping_add(spread_x(dx)), row, seed);
            let y = dy as f32 + feature(h, 1, jitter) - fy;
            (measure(dx as f32 + feature(h, 0, jitter) - fx, y), h)
        };
        // The 3×3 block in the pixel loop, unless the AVX-512 search did it.
        if !near_done {
            for (((&ix, &fx), (f1, f2)), n) in
                i0.iter().zip(fx).zip(f1.iter_mut().zip(f2.iter_mut())).zip(nearest.iter_mut())
            {
                let sx = spread_x(ix);
                let (mut a, mut b, mut h) = (f32::INFINITY, f32::INFINITY, 0);
                // The 3×3 block in `search_order_2d`'s order, written out so that the pixel loop
                // around it vectorises.
                macro_rules! cells {
                    ($(($dx:literal, $dy:literal)),*) => {$(
                        let (d, hash) = point(sx, fx, ($dx, $dy), rows[($dy + 1) as usize]);
                        offer(&mut a, &mut b, &mut h, d, hash);
                    )*};
                }
                cells!((-1, -1), (0, -1), (1, -1), (-1, 0), (0, 0), (1, 0), (-1, 1), (0, 1), (1, 1));
                (*f1, *f2, *n) = (a, b, h);
            }
        }
        // The pixels that still need the farther cells (few: a feature point within one cell
        // of the pixel is likely) take them one by one, as the point path does.
        // A copy of the settings, which the outputs written below cannot alias: the return type
        // `deciding` reads is then loaded once, not per pixel. Most rows have no pixel that needs
        // the farther cells, which a count that vectorises finds.
        let (r, worley) = (search.radius, search.worley);
        let far = |f1: f32, f2: f32| deciding(&worley, f1, f2) > FARTHER_CELLS_AT_LEAST;
        if r == 1 || f1.iter().zip(&*f2).filter(|&(&a, &b)| far(a, b)).count() == 0 {
            return;
        }
        for (((&ix, &fx), (f1, f2)), n) in
            i0.iter().zip(fx).zip(f1.iter_mut().zip(f2.iter_mut())).zip(nearest.iter_mut())
        {
            if far(*f1, *f2) {
                let sx = spread_x(ix);
                for (dx, dy) in search_order_2d(r).skip(9) {
                    let row = spread_y(iy.wrapping_add(dy as i32));
                    let (d, hash) = point(sx, fx, (dx as i32, dy as i32), row);
                    offer(f1, f2, n, d, hash);
                }
            }
        }
    }
    // The metric is matched outside the loops so that each one vectorises.
    use DistanceMetric::*;
    match search.worley.metric {
        Euclidean => {
            with(search, lattice, (iy, fy), |x, y| Euclidean.ordering(&[x, y]), (cells, near_done), out)
        }
        EuclideanSquared => {
            with(search, lattice, (iy, fy), |x, y| EuclideanSquared.measure(&[x, y]), (cells, near_done), out)
        }
        Manhattan => {
            with(search, lattice, (iy, fy), |x, y| Manhattan.measure(&[x, y]), (cells, near_done), out)
        }
        Chebyshev => {
            with(search, lattice, (iy, fy), |x, y| Chebyshev.measure(&[x, y]), (cells, near_done), out)
        }
    }
}

/// Worley's feature points of every column a row of pixels searches at one octave, computed for
/// the first pixel row in a row of cells and kept for the next ones in it (at the first octaves a
/// row of cells spans dozens of pixel rows); each point's y before the query's fraction is
/// subtracted.
#[derive(Default)]
struct WorleyBand {
    /// Seed, period, jitter (bits), row of cells, first and last column searched.
    key: Option<(u32, Option<u32>, u32, i32, i64, i64)>,
    /// Column-major from the first column, `2r + 1` points per column (rows `-r..=r`).
    points: Vec<(f32, f32, u32)>,
}

impl WorleyBand {
    /// Makes the band hold the columns around cells `first..=last` of row `iy`, unless it does
    /// already; false (and nothing computed) when the row crosses more cells than it has pixels
    /// (a grid coarser than the lattice), where a band would cost more than it saves.
    #[inline(always)]
    fn prepare(
        &mut self,
        search: &WorleySearch,
        lattice: &Lattice,
        iy: i32,
        (first, last): (i64, i64),
        pixels: usize,
    ) -> bool {
        let r = search.radius;
        if last - first > pixels as i64 + 2 {
            return false;
        }
        let key = (lattice.seed, lattice.period, search.jitter.to_bits(), iy, first - r, last + r);
        if self.key != Some(key) {
            self.points.clear();
            for x in first - r..=last + r {
                self.points
                    .extend((-r..=r).map(|dy| column_point_in_row(lattice, x, (iy, dy), search.jitter)));
            }
            self.key = Some(key);
        }
        true
    }

    /// The points of column `x`, if it is in the prepared range.
    #[inline(always)]
    fn column(&self, x: i64, r: i64) -> Option<&[(f32, f32, u32)]> {
        let n = (2 * r + 1) as usize;
        let at = usize::try_from(x - self.key?.4).ok()? * n;
        self.points.get(at..at + n)
    }
}

/// The Worley feature points of the columns around the current cell, kept in
/// `RowScratch::columns` (column-major): moving one cell right drops one column and adds one.
struct WorleyColumns {
    /// Absolute x of the first cached column.
    first: i64,
}

impl WorleyColumns {
    /// Brings the cache to the neighbourhood of cell `(x, (y, fy))` and writes the candidate
    /// points of its 3×3 block to `RowScratch::candidates` ([`search_order_2d`]'s first nine).
    #[inline(always)]
    fn update(
        &mut self,
        search: &WorleySearch,
        lattice: &Lattice,
        (x, (y, fy)): (i32, (i32, f32)),
        band: Option<&WorleyBand>,
        scratch: &mut RowScratch,
    ) {
        let (r, jitter) = (search.radius, search.jitter);
        let n = (2 * r + 1) as usize;
        let wanted = x as i64 - r;
        // From the band (the row's points, `column_point`'s bits: the same y minus `fy`), or hashed.
        let column = |x: i64, out: &mut Vec<(f32, f32, u32)>| match band.and_then(|b| b.column(x, r)) {
            Some(points) => out.extend(points.iter().map(|&(inside, y, h)| (inside, y - fy, h))),
            None => out.extend((-r..=r).map(|dy| column_point(lattice, x, (y, dy), jitter, fy))),
        };
        if wanted == self.first.wrapping_add(1) && scratch.columns.len() == n * n {
            scratch.columns.drain(..n);
            column(wanted + n as i64 - 1, &mut scratch.columns);
        } else if wanted != self.first || scratch.columns.len() != n * n {
            scratch.columns.clear();
            for c in 0..n as i64 {
                column(wanted + c, &mut scratch.columns);
            }
        }
        self.first = wanted;
        scratch.candidates.clear();
        push_candidates(&scratch.columns, r, search_order_2d(r).take(9), &mut scratch.candidates);
    }
}

/// Appends the cached points of `cells` (offsets from the current cell, for search radius `r`) to
/// `candidates`, as offsets along x from the current cell's left edge.
#[inline(always)]
fn push_candidates(
    columns: &[(f32, f32, u32)],
    r: i64,
    cells: impl Iterator<Item = (i64, i64)>,
    candidates: &mut Vec<(f32, f32, u32)>,
) {
    let n = (2 * r + 1) as usize;
    for (dx, dy) in cells {
        let (inside, cy, h) = columns[(dx + r) as usize * n + (dy + r) as usize];
        candidates.push((dx as f32 + inside, cy, h));
    }
}

/// The fractal over the row's octave layers (`layers`, one row each), mapped to heights; writes
/// every element of `row`.
#[inline(always)]
fn combine_octaves(sampler: &FieldSampler, layers: &[f32], sums: &mut [f32], row: &mut [MaybeUninit<f32>]) {
    let width = row.len();
    let fractal = &sampler.fractal;
    match fractal.kind {
        // Octave by octave over the row, in the same order of operations as `FractalParams::raw`.
        Fractal::Fbm | Fractal::Billow => {
            let sums = &mut sums[..width];
            sums.fill(0.0);
            let mut amplitude = 1.0f32;
            for layer in layers.chunks_exact(width) {
                if fractal.kind == Fractal::Fbm {
                    for (sum, &n) in sums.iter_mut().zip(layer) {
                        *sum += amplitude * (n * 0.5 + 0.5);
                    }
                } else {
                    for (sum, &n) in sums.iter_mut().zip(layer) {
                        *sum += amplitude * n.abs();
                    }
                }
                amplitude *= fractal.persistence;
            }
            sampler.to_unit.apply_to_row(sums, row);
        }
        Fractal::Damped => unreachable!("the damped fractal's rows take `damped_heights_row`"),
        Fractal::None | Fractal::Ridged | Fractal::Hybrid | Fractal::Hetero => {
            for (i, h) in row.iter_mut().enumerate() {
                h.write(sampler.to_unit.apply(fractal.raw(|k, _| layers[k as usize * width + i])));
            }
        }
    }
}

/// F1, F2 (as orderings) and the nearest point's hash for the pixels `run` of the row, in
/// [`search_order_2d`]'s order: the 3×3 block for every pixel, then the farther cells for the
/// whole run if any pixel still needs them (their points are fetched only then; offering them
/// to a pixel that does not need them changes nothing it uses, so the result is the point path's).
#[inline(always)]
fn nearest_points(search: &WorleySearch, scratch: &mut RowScratch, run: std::ops::Range<usize>) {
    #[inline(always)]
    fn with(
        search: &WorleySearch,
        measure: impl Fn(f32, f32) -> f32,
        scratch: &mut RowScratch,
        run: std::ops::Range<usize>,
    ) {
        let RowScratch { candidates, columns, fx, f1, f2, nearest, .. } = scratch;
        let (fx, f1, f2, nearest) =
            (&fx[run.clone()], &mut f1[run.clone()], &mut f2[run.clone()], &mut nearest[run]);
        let block: &[(f32, f32, u32); 9] = candidates[..].try_into().expect("the 3×3 block");
        // The candidate loop unrolls and the pixel loop keeps F1, F2 in registers.
        for (((&fx, f1), f2), n) in fx.iter().zip(f1.iter_mut()).zip(f2.iter_mut()).zip(nearest.iter_mut()) {
            let (mut a, mut b, mut h) = (f32::INFINITY, f32::INFINITY, 0);
            for &(cx, cy, ch) in block {
                offer(&mut a, &mut b, &mut h, measure(cx - fx, cy), ch);
            }
            (*f1, *f2, *n) = (a, b, h);
        }
        let (r, worley) = (search.radius, &search.worley);
        if r == 1 || f1.iter().zip(&*f2).all(|(&a, &b)| deciding(worley, a, b) <= FARTHER_CELLS_AT_LEAST) {
            return;
        }
        push_candidates(columns, r, search_order_2d(r).skip(9), candidates);
        for &(cx, cy, h) in &candidates[9..] {
            for (((&fx, f1), f2), n) in
                fx.iter().zip(f1.iter_mut()).zip(f2.iter_mut()).zip(nearest.iter_mut())
            {
                offer(f1, f2, n, measure(cx - fx, cy), h);
            }
        }
    }
    // The metric is matched outside the loops so that each one vectorises.
    use DistanceMetric::*;
    match search.worley.metric {
        Euclidean => with(search, |x, y| Euclidean.ordering(&[x, y]), scratch, run),
        EuclideanSquared => with(search, |x, y| EuclideanSquared.measure(&[x, y]), scratch, run),
        Manhattan => with(search, |x, y| Manhattan.measure(&[x, y]), scratch, run),
        Chebyshev => with(search, |x, y| Chebyshev.measure(&[x, y]), scratch, run),
    }
}

/// Worley's layer values in `[-1, 1]` from F1, F2 (orderings) and the nearest hashes, the return
/// type matched outside the loop so that each loop vectorises.
#[inline(always)]
fn finish_worley(search: &WorleySearch, f1: &[f32], f2: &[f32], nearest: &[u32], out: &mut [f32]) {
    #[inline(always)]
    fn run(
        rt: WorleyReturn,
        metric: DistanceMetric,
        bounds: (f32, f32),
        f1: &[f32],
        f2: &[f32],
        nearest: &[u32],
        out: &mut [f32],
    ) {
        for (((o, &f1), &f2), &h) in out.iter_mut().zip(f1).zip(f2).zip(nearest) {
            *o = rt.finish(bounds, metric.from_ordering(f1), metric.from_ordering(f2), h) * 2.0 - 1.0;
        }
    }
    let (bounds, metric) = (search.bounds, search.worley.metric);
    match search.worley.return_type {
        WorleyReturn::F1 => run(WorleyReturn::F1, metric, bounds, f1, f2, nearest, out),
        WorleyReturn::F2 => run(WorleyReturn::F2, metric, bounds, f1, f2, nearest, out),
        WorleyReturn::F2MinusF1 => run(WorleyReturn::F2MinusF1, metric, bounds, f1, f2, nearest, out),
        WorleyReturn::Cell => run(WorleyReturn::Cell, metric, bounds, f1, f2, nearest, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::basis::{DistanceMetric, Worley, WorleyReturn};
    use crate::field::fade::Fade;
    use crate::field::fractal::Fractal;
    use crate::field::warp::Warp;
    use crate::{Heightmap, NoiseSettings};
    use proptest::prelude::*;

    fn settings_strategy() -> impl Strategy<Value = NoiseSettings> {
        (
            (
                0..Basis::ALL.len(),
                (0..Fade::ALL.len(), 0..GradientKernel::ALL.len()),
                0..Fractal::ALL.len(),
                1u32..=12,
                1.0f32..4.0,
                0.0f32..1.5,
                0.1f32..64.0,
                any::<u32>(),
            ),
            (
                -1e3f64..1e3,
                -1e3f64..1e3,
                any::<bool>(),
                prop::option::of(1u32..16),
                0.0f32..2.0,
                0.0f32..8.0,
                any::<bool>(),
            ),
            (
                0.0f32..1.0,
                0..WorleyReturn::ALL.len(),
                0..DistanceMetric::ALL.len(),
                prop::option::of(0.0f32..3.0),
            ),
        )
            .prop_map(
                |(
                    (b, (fade, kernel), fr, octaves, lac, pers, freq, seed),
                    (ox, oy, normalize, period, off, gain, rotate_octaves),
                    (j, r, m, warp),
                )| {
                    NoiseSettings {
                        basis: Basis::ALL[b],
                        fade: Fade::ALL[fade],
                        gradient_kernel: GradientKernel::ALL[kernel],
                        fractal: Fractal::ALL[fr],
                        octaves,
                        lacunarity: lac,
                        persistence: pers,
                        frequency: freq,
                        seed,
                        offset: glam::DVec2::new(ox, oy),
                        normalize,
                        period,
                        fractal_offset: off,
                        gain,
                        // The ridged gain's range suits the damping too.
                        damping: gain,
                        worley: Worley {
                            jitter: j,
                            return_type: WorleyReturn::ALL[r],
                            metric: DistanceMetric::ALL[m],
                        },
                        warp: Warp { amplitude: warp.unwrap_or(0.0), frequency: 1.3, octaves: 2 },
                        rotate_octaves,
                        // On for a third of the cases (where the field supports it).
                        erosion_filter: crate::ErosionFilter {
                            enabled: seed % 3 == 0,
                            strength: gain / 8.0,
                            scale: 1.0 + lac,
                            octaves: 1 + seed % 5,
                            seed: seed / 3,
                            ..Default::default()
                        },
                    }
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn grid_equals_point_sampling_bit_for_bit(s in settings_strategy(), w in 1u32..70, h in 1u32..6, ox in -50i64..50) {
            let sampler = s.sampler();
            let window = GridWindow { origin: [ox, -3], width: w, height: h, pixels_per_unit: 37.0 };
            // Every instruction set this CPU has, not only the one `fill` picks.
            for isa in crate::isa::levels_under_test() {
                let mut out = vec![MaybeUninit::new(f32::NAN); (w * h) as usize];
                fill_uninit_with(isa, &sampler, window, &mut out);
                for j in 0..h {
                    for i in 0..w {
                        let expected = sampler.sample((ox + i as i64) as f64 / 37.0, (j as i64 - 3) as f64 / 37.0);
                        // SAFETY: initialised above (and overwritten by the fill).
                        let got = unsafe { out[(j * w + i) as usize].assume_init() };
                        prop_assert_eq!(got.to_bits(), expected.to_bits(), "{:?} pixel {},{}", isa, i, j);
                    }
                }
            }
        }
    }

    /// Pixel spacings and origins no sane caller uses: negative, zero, NaN or infinite pixels per
    /// unit, origins near and past the ±1e9 coordinate limit.
    fn strange_window() -> impl Strategy<Value = GridWindow> {
        let ppu = prop_oneof![
            Just(0.0),
            Just(-0.0),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(f64::MIN_POSITIVE),
            -1e3f64..-1e-3,
            1e-12f64..1e-6,
            1e6f64..1e12,
        ];
        let origin =
            prop_oneof![-2_000_000_000i64..2_000_000_000, Just(i64::MIN / 2), Just(i64::MAX / 2), -10i64..10];
        (origin.clone(), origin, 1u32..40, 1u32..4, ppu).prop_map(|(x, y, width, height, ppu)| GridWindow {
            origin: [x, y],
            width,
            height,
            pixels_per_unit: ppu,
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Strange windows neither panic nor leave the documented range, and the grid stays what
        /// point sampling gives at the same (sanitised) coordinates.
        #[test]
        fn strange_windows_stay_in_range_and_equal_point_sampling(s in settings_strategy(), window in strange_window()) {
            let sampler = s.sampler();
            let (lo, hi) = s.value_bounds();
            let mut out = vec![f32::NAN; (window.width * window.height) as usize];
            fill_grid(&sampler, window, &mut out);
            let map = Heightmap::generate_region(&s, window.origin, window.width, window.height, window.pixels_per_unit).unwrap();
            prop_assert_eq!(map.samples().iter().map(|h| h.to_bits()).collect::<Vec<_>>(), out.iter().map(|h| h.to_bits()).collect::<Vec<_>>());
            for (k, &h) in out.iter().enumerate() {
                prop_assert!(h.is_finite() && (lo..=hi).contains(&h), "pixel {}: {} outside [{}, {}]", k, h, lo, hi);
                let (i, j) = ((k as u32 % window.width) as f64, (k as u32 / window.width) as f64);
                let at = |origin: i64, i: f64| (origin as f64 + i) / window.pixels_per_unit;
                let expected = sampler.sample(at(window.origin[0], i), at(window.origin[1], j));
                prop_assert_eq!(h.to_bits(), expected.to_bits(), "pixel {}", k);
            }
        }
    }

    #[test]
    fn worley_farther_cells_give_the_point_path_bits() {
        // Jitter 1 searches 5×5 cells (or more); with F2 many pixels need the farther ones.
        let mut needed = 0;
        for metric in DistanceMetric::ALL {
            for return_type in WorleyReturn::ALL {
                let worley = Worley { jitter: 1.0, return_type, metric };
                let s = NoiseSettings { basis: Basis::Worley, worley, octaves: 3, ..Default::default() };
                let sampler = s.sampler();
                let window = GridWindow { origin: [-7, 3], width: 300, height: 12, pixels_per_unit: 23.0 };
                let mut out = vec![0.0; 300 * 12];
                fill_grid(&sampler, window, &mut out);
                for (k, h) in out.iter().enumerate() {
                    let (i, j) = ((k % 300) as f64 - 7.0, (k / 300) as f64 + 3.0);
                    assert_eq!(
                        h.to_bits(),
                        sampler.sample(i / 23.0, j / 23.0).to_bits(),
                        "{worley:?} pixel {k}"
                    );
                }
                needed += (worley.search_radius(2) > 1) as usize;
            }
        }
        assert!(needed >= 8, "too few settings search beyond 3×3: {needed}");
    }

    #[test]
    fn every_basis_gives_the_point_path_bits_at_cells_about_a_pixel_wide() {
        // Heights, and heights with gradients where they have a row path. Where 16 pixels span
        // 13 to 16 cells (and Worley's 29 to 32) the AVX-512 rows switch between one- and
        // two-register tables of lattice columns and hashing per pixel, and where 8 pixels span
        // 6, 14, 22 or 30 cells (Worley's 5, 13, 21 or 29) the AVX2 rows between one to four
        // registers and hashing: one octave at cell widths around there (and
        // a few wider), in rising and falling rows, on every level this CPU has.
        let worley = Worley { jitter: 1.0, return_type: WorleyReturn::F2, metric: DistanceMetric::Euclidean };
        let eight_pixels_span =
            [4.5, 5.0, 5.5, 6.0, 6.5, 12.5, 13.5, 14.5, 20.5, 21.5, 22.5, 28.5, 29.5, 30.5, 31.5];
        let widths = eight_pixels_span.map(|cells| 8.0 / cells);
        let widths = widths.iter().chain(&[
            0.2,
            0.5,
            16.0 / 29.5,
            16.0 / 29.0,
            16.0 / 28.5,
            0.6,
            0.75,
            0.9,
            1.0,
            16.0 / 15.5,
            16.0 / 15.0,
            16.0 / 14.5,
            16.0 / 14.0,
            16.0 / 13.5,
            16.0 / 13.0,
            1.3,
            2.0,
            3.5,
        ]);
        for basis in Basis::ALL {
            for (kernel, &pixels_per_cell) in
                GradientKernel::ALL.into_iter().flat_map(|k| widths.clone().map(move |w| (k, w)))
            {
                let s = NoiseSettings {
                    basis,
                    gradient_kernel: kernel,
                    worley,
                    octaves: 1,
                    seed: 11,
                    ..Default::default()
                };
                let s = NoiseSettings { frequency: (64.0 / pixels_per_cell) as f32, ..s };
                let sampler = s.sampler();
                for ppu in [64.0, -64.0] {
                    let window = GridWindow { origin: [-37, 5], width: 300, height: 2, pixels_per_unit: ppu };
                    for isa in crate::isa::levels_under_test() {
                        let mut out = vec![MaybeUninit::new(f32::NAN); 600];
                        fill_uninit_with(isa, &sampler, window, &mut out);
                        // And heights with gradients, where they have a row path.
                        let with_gradients = s.gradients_on_the_row_path().then(|| {
                            let (mut heights, mut gradients) =
                                (vec![f32::NAN; 600], vec![[f32::NAN; 2]; 600]);
                            gradients::fill_with_gradients_at(
                                isa,
                                &sampler,
                                window,
                                &mut heights,
                                &mut gradients,
                            );
                            (heights, gradients)
                        });
                        for (k, h) in out.iter().enumerate() {
                            let (i, j) = ((k % 300) as f64 - 37.0, (k / 300) as f64 + 5.0);
                            // SAFETY: initialised above (and overwritten by the fill).
                            let h = unsafe { h.assume_init() };
                            let expected = sampler.sample(i / ppu, j / ppu);
                            let case = format!(
                                "{basis:?} {kernel:?} {pixels_per_cell} px per cell, {ppu} ppu, {isa:?}"
                            );
                            assert_eq!(h.to_bits(), expected.to_bits(), "{case}: pixel {k}");
                            if let Some((heights, gradients)) = &with_gradients {
                                let d = sampler.sample_with_gradient(i / ppu, j / ppu);
                                assert_eq!(heights[k].to_bits(), expected.to_bits(), "{case}: pixel {k}");
                                let (got, want) =
                                    (gradients[k].map(f32::to_bits), d.gradient.map(f32::to_bits));
                                assert_eq!(got, want, "{case}: gradient at pixel {k}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn value_gradient_and_worley_rows_take_both_paths_with_the_point_path_bits() {
        // Cells of 128 pixels down to half a pixel: the first octaves take runs, the last ones go
        // per pixel.
        let cases = [
            (Basis::Value, GradientKernel::Rounded, VALUE_PER_PIXEL_BELOW),
            (Basis::Gradient, GradientKernel::Rounded, GRADIENT_PER_PIXEL_BELOW),
            (Basis::Gradient, GradientKernel::Perlin, GRADIENT_PER_PIXEL_BELOW),
        ];
        // Worley's F2 at jitter 1 searches the farther cells for some pixels.
        let worley = Worley { jitter: 1.0, return_type: WorleyReturn::F2, metric: DistanceMetric::Euclidean };
        let worley_case = (Basis::Worley, GradientKernel::Rounded, WORLEY_PER_PIXEL_BELOW);
        for (basis, gradient_kernel, threshold) in cases.into_iter().chain([worley_case]) {
            let s = NoiseSettings {
                basis,
                gradient_kernel,
                worley,
                octaves: 9,
                frequency: 8.0,
                seed: 3,
                ..Default::default()
            };
            let sampler = s.sampler();
            let window = GridWindow { origin: [-300, 7], width: 1024, height: 3, pixels_per_unit: 1024.0 };
            let cells = |scale: f64| -> Vec<i32> {
                (0..1024).map(|i| split((-300.0 + i as f64) / 1024.0 * 8.0 * scale).0).collect()
            };
            assert!(!runs_shorter_than(&cells(1.0), threshold), "{basis:?}: the first octave takes runs");
            assert!(runs_shorter_than(&cells(256.0), threshold), "{basis:?}: the last octave goes per pixel");
            for isa in crate::isa::levels_under_test() {
                let mut out = vec![MaybeUninit::new(f32::NAN); 1024 * 3];
                fill_uninit_with(isa, &sampler, window, &mut out);
                for (k, h) in out.iter().enumerate() {
                    let (i, j) = ((k % 1024) as f64 - 300.0, (k / 1024) as f64 + 7.0);
                    // SAFETY: initialised above (and overwritten by the fill).
                    let h = unsafe { h.assume_init() };
                    let expected = sampler.sample(i / 1024.0, j / 1024.0);
                    assert_eq!(
                        h.to_bits(),
                        expected.to_bits(),
                        "{basis:?} {gradient_kernel:?} {isa:?} pixel {k}"
                    );
                }
            }
        }
    }

    #[test]
    fn run_end_finds_the_end_of_each_run() {
        let cells = [3, 3, 3, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 9];
        for start in 0..cells.len() {
            let expected = start + cells[start..].iter().take_while(|&&c| c == cells[start]).count();
            assert_eq!(run_end(&cells, start, true), expected, "start {start}");
            assert_eq!(run_end(&cells, start, false), expected, "start {start}");
        }
        // A wrapped (periodic) row is not sorted: the linear scan handles it.
        assert_eq!(run_end(&[2, 2, 0, 0, 2], 0, false), 2);
    }

    /// FNV-1a over the bits of the samples.
    fn fingerprint(map: &Heightmap) -> u64 {
        map.samples()
            .iter()
            .flat_map(|h| h.to_bits().to_le_bytes())
            .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
    }

    #[test]
    fn the_same_bytes_across_runs_and_machines() {
        // Recorded once (Perlin's kernel on x86-64 with AVX2, the rounded default on AVX-512);
        // every level gives the same bits. A change here means a seed no longer gives the terrain it gave before: saved
        // presets would change their look.
        let settings = NoiseSettings::default();
        assert_eq!(fingerprint(&Heightmap::generate(&settings, 64, 48).unwrap()), GOLDEN_GRADIENT);
        // Perlin's kernel, the default before the rounded one (recorded then).
        let perlin = NoiseSettings { gradient_kernel: GradientKernel::Perlin, ..settings };
        assert_eq!(fingerprint(&Heightmap::generate(&perlin, 64, 48).unwrap()), GOLDEN_GRADIENT_PERLIN);
        let worley = NoiseSettings { basis: Basis::Worley, fractal: Fractal::Ridged, ..settings };
        assert_eq!(fingerprint(&Heightmap::generate(&worley, 64, 48).unwrap()), GOLDEN_WORLEY_RIDGED);
        // Simplex noise near the origin and far from it (recorded 2026-12-06, AVX-512).
        let simplex = NoiseSettings { basis: Basis::Simplex, ..settings };
        assert_eq!(fingerprint(&Heightmap::generate(&simplex, 64, 48).unwrap()), GOLDEN_SIMPLEX);
        let far = NoiseSettings { offset: glam::DVec2::new(3.0e5, -7.1e5), ..simplex };
        assert_eq!(fingerprint(&Heightmap::generate(&far, 64, 48).unwrap()), GOLDEN_SIMPLEX_FAR);
    }

    const GOLDEN_GRADIENT: u64 = 5888358437510064740;
    const GOLDEN_GRADIENT_PERLIN: u64 = 7009021852908192516;
    const GOLDEN_WORLEY_RIDGED: u64 = 13874278698051893065;
    const GOLDEN_SIMPLEX: u64 = 13598674462197826468;
    const GOLDEN_SIMPLEX_FAR: u64 = 16206669995065140865;

    #[cfg(feature = "parallel")]
    #[test]
    fn the_same_bytes_for_one_two_and_many_threads() {
        let settings = NoiseSettings { octaves: 8, ..Default::default() };
        let worley = NoiseSettings { basis: Basis::Worley, ..settings };
        for s in [settings, worley] {
            let maps: Vec<Heightmap> = [1, 2, 7]
                .into_iter()
                .map(|threads| {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                    pool.install(|| Heightmap::generate(&s, 256, 160).unwrap())
                })
                .collect();
            const { assert!(256 * 160 >= rows::PARALLEL_MIN_SAMPLES, "large enough to be filled on the pool") };
            assert_eq!(maps[0], maps[1]);
            assert_eq!(maps[0], maps[2]);
        }
    }
}
