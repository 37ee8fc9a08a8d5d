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
//! rows of its own (`kernels/`): value and gradient noise skip runs altogether, each
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
//! Here: the entry points, the per-thread scratch, a row's octaves and their sum. By basis:
//! `simplex_rows.rs`; `lattice_rows.rs` (value and gradient noise, and the runs of equal cells
//! Worley noise shares with them); `worley_rows.rs`. Heights with gradients: `gradients.rs`.
//! Shared by the paths: a row's cells and shares of the skew (`rows.rs`), the table of a row's
//! lattice columns (`column_table.rs`), the SIMD kernels written once over lanes (`kernels/`) and
//! the lanes of each level they are instantiated with (`lanes/`: AVX2, AVX-512, and portable
//! lanes for the tests' emulated AVX-512 level), the measured choice of level (`level.rs`), and
//! the erosion filter's cut depths (`cut_depths.rs`).
//!
//! [`Heightmap::generate`]: crate::Heightmap::generate

#[cfg(target_arch = "x86_64")]
mod column_table;
pub(crate) mod cut_depths;
pub(crate) mod gradients;
#[cfg(target_arch = "x86_64")]
mod kernels;
#[cfg(target_arch = "x86_64")]
mod lanes;
mod lattice_rows;
pub(crate) mod level;
pub(crate) mod rows;
mod simplex_rows;
#[cfg(all(test, target_arch = "x86_64"))]
mod test_rows;
#[cfg(test)]
mod tests;
mod worley_rows;

use lattice_rows::{Octave, lattice_layer};
pub use rows::GridWindow;
#[cfg(feature = "parallel")]
use rows::worth_parallel;
use rows::{SkewXs, XCells, batch_of, run_end};
use simplex_rows::{rows_at_once, simplex_layer};
use worley_rows::WorleyBand;

use std::cell::Cell;
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
use crate::isa::Isa;

/// Per-thread buffers for one row segment, or a batch of whole rows, of up to `width` pixels.
/// Kept from one grid to the next on a thread (see [`RowScratch::kept`]): a field that holds
/// something of one grid (cells, tables, feature points) is forgotten in
/// [`renew`](RowScratch::renew).
#[derive(Default)]
struct RowScratch {
    width: usize,
    xs: Vec<f64>,
    /// The y positions of a batch's rows, in base lattice units.
    ys: Vec<f64>,
    /// A batch's rows' cells along y and faded weights, for value and gradient noise's SIMD rows.
    row_ys: Vec<column_table::RowY>,
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
    simplex_tables: Vec<kernels::SimplexTable>,
    /// Per octave, the SIMD Worley search's feature points of the row's lattice columns
    /// (`kernels/worley.rs`).
    #[cfg(target_arch = "x86_64")]
    worley_columns: Vec<kernels::worley::WorleyColumns>,
    i1: Vec<i32>,
    fx: Vec<f32>,
    u: Vec<f32>,
    layers: Vec<f32>,
    /// Per octave, Worley's feature points of the last row of cells (rows of pixels in the same
    /// row of cells share them).
    bands: [WorleyBand; MAX_OCTAVES as usize],
    /// The damped fractal's octave layers with their slopes (sized on first use).
    slopes: crate::grid::gradients::Scratch,
    /// A batch of filtered rows' coarse slopes (see [`filtered_rows`]; sized on first use).
    slopes_of_rows: [Vec<f32>; 2],
}

impl RowScratch {
    /// Buffers for `rows` rows of a segment at a time (see [`rows_at_once`]: several only for
    /// simplex noise, whose rows need no Worley buffers).
    fn new(segment: usize, rows: usize, octaves: usize) -> Self {
        let mut scratch = Self::default();
        scratch.renew(segment, rows, octaves);
        scratch
    }

    /// [`new`](Self::new), from the buffers the thread's last grid [`keep`](Self::keep)s where
    /// there are some: a 65² grid allocated and zeroed a dozen buffers, 5% to 7% of its time.
    fn kept(segment: usize, rows: usize, octaves: usize) -> Self {
        match KEPT_SCRATCH.try_with(Cell::take).ok().flatten() {
            Some(mut scratch) => {
                scratch.renew(segment, rows, octaves);
                scratch
            }
            None => Self::new(segment, rows, octaves),
        }
    }

    /// Keeps the buffers for the thread's next grid (see [`kept`](Self::kept)).
    fn keep(self) {
        // A thread whose locals are gone drops them.
        let _ = KEPT_SCRATCH.try_with(|kept| kept.set(Some(self)));
    }

    /// Sizes the buffers for `rows` rows of a segment at a time (see [`new`](Self::new)) and
    /// forgets what the kept cells, tables and feature points were for.
    fn renew(&mut self, segment: usize, rows: usize, octaves: usize) {
        let width = segment * rows;
        let worley = if rows == 1 { segment } else { 0 };
        self.width = width;
        self.i0.resize(width, 0);
        self.i1.resize(width, 0);
        self.fx.resize(width, 0.0);
        self.u.resize(width, 0.0);
        self.sums.resize(width + SUMS_SLACK, 0.0);
        self.layers.resize(width * octaves, 0.0);
        self.f1.resize(worley, 0.0);
        self.f2.resize(worley, 0.0);
        self.nearest.resize(worley, 0);
        self.x_cells.resize_with(octaves, XCells::default);
        self.x_cells.iter_mut().for_each(XCells::forget);
        self.skews.resize_with(octaves, SkewXs::default);
        self.skews.iter_mut().for_each(SkewXs::forget);
        #[cfg(target_arch = "x86_64")]
        {
            self.column_tables.resize_with(octaves, Default::default);
            self.column_tables.iter_mut().for_each(column_table::ColumnTable::forget);
            self.simplex_tables.resize_with(octaves, Default::default);
            self.simplex_tables.iter_mut().for_each(kernels::SimplexTable::forget);
            self.worley_columns.resize_with(octaves, Default::default);
            self.worley_columns.iter_mut().for_each(kernels::worley::WorleyColumns::forget);
        }
        self.bands.iter_mut().for_each(WorleyBand::forget);
        self.slopes.forget();
    }
}

thread_local! {
    /// The buffers of the thread's last grid (see [`RowScratch::kept`]).
    static KEPT_SCRATCH: Cell<Option<RowScratch>> = const { Cell::new(None) };
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
    let height = window.height as usize;
    let rows = if lattice_rows::streams_rows(sampler, isa, width) {
        batch_of(width, height)
    } else {
        rows_at_once(sampler, width, height)
    };
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
            fill_row(
                RowJob { sampler, window, xs: &shared, first: 0, j, rows, isa, reused: 0 },
                out,
                scratch,
            );
            return;
        }
        let mut xs = std::mem::take(&mut scratch.xs);
        for (k, out) in out.chunks_mut(segment).enumerate() {
            let first = k * segment;
            x_positions(first, out.len(), &mut xs);
            fill_row(RowJob { sampler, window, xs: &xs, first, j, rows: 1, isa, reused: 0 }, out, scratch);
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
    let mut scratch = RowScratch::kept(segment, rows, octaves);
    for (k, out) in out.chunks_mut(width * rows).enumerate() {
        write_rows(&mut scratch, k * rows, out);
    }
    scratch.keep();
}

/// One row (or one segment of a row) to fill, or several whole rows ([`rows_at_once`]): the
/// field, the window, the x positions of the segment's pixels, its first pixel, the (first) row
/// index, the number of rows, the instruction set to fill them with and how many of the first
/// octaves' layers the erosion filter's slope made (see [`gradients::heights_coarse_slope`]).
#[derive(Clone, Copy)]
struct RowJob<'a> {
    sampler: &'a FieldSampler,
    window: GridWindow,
    xs: &'a [f64],
    first: usize,
    j: usize,
    rows: usize,
    isa: Isa,
    reused: usize,
}

/// Writes every element of `row` (`job.rows` rows of `job.xs.len()` pixels).
fn fill_row(job: RowJob, row: &mut [MaybeUninit<f32>], scratch: &mut RowScratch) {
    let RowJob { sampler, window, first, j, .. } = job;
    if job.rows > 1 {
        // Batches are only made for simplex rows without a filter (`rows_at_once`) and for value
        // and gradient rows (`lattice_rows::streams_rows`), filtered or not.
        if sampler.filter.is_some() {
            return filtered_rows(job, row, scratch);
        }
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
    if sampler.filter.is_none() {
        return lattice_row_at(job.isa, job, row, scratch);
    }
    // The filter's slope first: the field takes the coarse octaves' values from it. The rows share
    // their x positions where a row is one segment.
    let along = (window, j, job.xs);
    let reused = crate::grid::gradients::heights_coarse_slope(job.isa, sampler, along, &mut scratch.slopes);
    keep_coarse_layers(job, reused, 0, scratch);
    let at = (window, j, job.xs, job.xs.len() == window.width as usize);
    lattice_row_at(job.isa, RowJob { reused, ..job }, row, scratch);
    // SAFETY: the row path writes every element of `row`, so all of it is initialised, and
    // `MaybeUninit<f32>` has the layout of `f32`.
    let heights = unsafe { &mut *(row as *mut [MaybeUninit<f32>] as *mut [f32]) };
    crate::grid::gradients::filter_heights_row(job.isa, sampler, at, &mut scratch.slopes, heights);
}

/// A batch of whole filtered rows (value and gradient noise, see `lattice_rows::streams_rows`):
/// each row's coarse slope, whose coarse octaves' layers go into the batch's layers and whose
/// slope is kept for the filter, then the other octaves over the whole batch (streamed through
/// the kernel's blocks, as without a filter), then the filter row by row. Writes every element
/// of `row`.
fn filtered_rows(job: RowJob, row: &mut [MaybeUninit<f32>], scratch: &mut RowScratch) {
    let RowJob { sampler, window, xs, j, rows, isa, .. } = job;
    let width = xs.len();
    assert!(width == window.width as usize && row.len() == rows * width, "a batch of whole rows");
    let mut slopes = std::mem::take(&mut scratch.slopes_of_rows);
    let mut reused = 0;
    for r in 0..rows {
        reused = crate::grid::gradients::heights_coarse_slope(
            isa,
            sampler,
            (window, j + r, xs),
            &mut scratch.slopes,
        );
        keep_coarse_layers(job, reused, r, scratch);
        scratch.slopes.keep_slope((r, width), &mut slopes);
    }
    lattice_row_at(isa, RowJob { reused, ..job }, row, scratch);
    // SAFETY: the row path writes every element of `row`, so all of it is initialised, and
    // `MaybeUninit<f32>` has the layout of `f32`.
    let heights = unsafe { &mut *(row as *mut [MaybeUninit<f32>] as *mut [f32]) };
    for (r, heights) in heights.chunks_exact_mut(width).enumerate() {
        scratch.slopes.take_slope((r, width), &slopes);
        let at = (window, j + r, xs, true);
        crate::grid::gradients::filter_heights_row(isa, sampler, at, &mut scratch.slopes, heights);
    }
    scratch.slopes_of_rows = slopes;
}

/// Copies the first `reused` octaves' layers of row `r` of the job's rows, which the filter's
/// coarse slope just made (see [`gradients::heights_coarse_slope`]), into the row's layers
/// (`scratch.layers`, an octave's rows after one another), where [`lattice_row`] leaves them.
fn keep_coarse_layers(job: RowJob, reused: usize, r: usize, scratch: &mut RowScratch) {
    let (width, batch) = (job.xs.len(), job.rows * job.xs.len());
    for k in 0..reused {
        let at = k * batch + r * width;
        scratch.layers[at..at + width].copy_from_slice(scratch.slopes.coarse_values(k, width));
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
    assert!(rows == 1 || s.basis != Basis::Worley, "Worley rows never come in batches");
    // The same operations as `FieldSampler::sample`, so the same positions.
    let y = |j: usize| gradients::row_y(sampler, window, j);
    let py = y(j);
    if sampler.fractal.kind.needs_slopes() {
        crate::grid::gradients::damped_heights_row(sampler, (xs, py), job.isa, &mut scratch.slopes, row);
        return;
    }

    let octaves = sampler.fractal.octave_count() as usize;
    // The batch's rows' positions, once (a division each) rather than once per octave.
    let mut ys = std::mem::take(&mut scratch.ys);
    ys.clear();
    ys.extend((j..j + rows).map(y));
    let fbm_in_the_kernel = sampler.fractal.kind == Fractal::Fbm
        && job.reused == 0
        && lattice_rows::every_octave_takes_simd_rows(sampler, job.isa);
    if fbm_in_the_kernel {
        // Each octave added to the sums as the kernel makes it (see `Octave::Fbm`): the same
        // operations in the same order as `combine_octaves`, without storing the layers.
        let mut sums = std::mem::take(&mut scratch.sums);
        let row_sums = &mut sums[..width];
        row_sums.fill(0.0);
        let (mut scale, mut amplitude) = (1.0f64, 1.0f32);
        for k in 0..octaves {
            let out = (&mut *row_sums, Octave::Fbm(amplitude));
            lattice_layer(sampler, (k, job.isa), (xs, scale), &ys, scratch, out);
            scale *= s.lacunarity as f64;
            amplitude *= sampler.fractal.persistence;
        }
        sampler.to_unit.apply_to_row(row_sums, row);
        scratch.sums = sums;
        scratch.ys = ys;
        return;
    }
    let mut layers = std::mem::take(&mut scratch.layers);
    let mut scale = 1.0f64;
    for (k, layer) in layers.chunks_exact_mut(width).take(octaves).enumerate() {
        let lattice = &sampler.lattices[k];
        // The filter's coarse slope made these (see `keep_coarse_layers`).
        if k < job.reused {
            scale *= s.lacunarity as f64;
            continue;
        }
        match s.basis {
            Basis::Simplex => {
                let pys = ys.iter().map(|&y| y * scale);
                simplex_layer((lattice, k, job.isa), xs, scale, pys, scratch, layer)
            }
            Basis::Value | Basis::Gradient | Basis::Worley => {
                lattice_layer(sampler, (k, job.isa), (xs, scale), &ys, scratch, (layer, Octave::Layer))
            }
        }
        scale *= s.lacunarity as f64;
    }
    let sums = apart_from(&mut scratch.sums, &layers, width);
    combine_octaves(sampler, &layers[..octaves * width], sums, row);
    scratch.layers = layers;
    scratch.ys = ys;
}

/// Room in the row's sums for [`apart_from`] to place them.
const SUMS_SLACK: usize = 1024;

/// `width` of `sums` (`SUMS_SLACK` longer), placed half a page away from `layers` in the
/// addresses' low twelve bits. The octaves' sum loads a layer's numbers and stores the sums at
/// the same index; where the two addresses agree in their low twelve bits a core may take the
/// load for one that depends on the store in flight ("4K aliasing") and wait, and where the
/// allocator put the buffers decided that: 1024² value and gradient grids 2% to 3% faster with
/// the sums placed so (Intel Xeon, 2026-12-07), after unrelated changes to the scratch's other
/// buffers had slowed them by as much.
fn apart_from<'a>(sums: &'a mut [f32], layers: &[f32], width: usize) -> &'a mut [f32] {
    const PAGE: usize = 4096;
    let gap = (layers.as_ptr() as usize).wrapping_sub(sums.as_ptr() as usize) % PAGE;
    // Moving `sums` on by `k` floats makes the gap `gap - 4k` (mod a page): aim for half a page.
    let shift = (gap + PAGE + PAGE / 2) % PAGE / 4;
    let start = shift.min(SUMS_SLACK);
    &mut sums[start..start + width]
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
