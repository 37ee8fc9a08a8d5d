//! The kernels' tests, written once over [`Lanes`] and run with every lane type: the portable
//! ones (8 and 16 lanes) on every CPU, AVX2 and AVX-512 where the CPU has them (ignored in a plain
//! `cargo test`, with the reason, and failing if forced on a CPU without the level:
//! `scripts/test_kernels_on_this_cpu.sh` runs them at each level the CPU has).

use super::lattice::{gradient_row, value_row};
use super::simplex::{SimplexTable, simplex_row};
use super::worley::{WorleyColumns, worley_near_cells};
use crate::field::basis::gradient::corner_gradient_2d;
use crate::field::basis::gradient_kernel::{GradientKernel, blend_gradients_2d, blend_rounded_2d};
use crate::field::basis::gradient_table::GRADIENTS_2D;
use crate::field::basis::simplex::corners_2d;
use crate::field::basis::value::{blend_values_2d, corner_value_2d};
use crate::field::basis::worley::{column_point, offer, search_order_2d};
use crate::field::basis::{DistanceMetric, Lattice};
use crate::field::coord::AxisCell;
use crate::field::fade::Fade;
use crate::field::hash::{mix, spread_seed};
use crate::grid::column_table::{ColumnTable, Row, RowY, STREAM_PADDING};
use crate::grid::lanes::{Lanes, OPERATIONS, Portable, Unit};
use crate::grid::lattice_rows::Octave;
use crate::grid::test_rows::{skewed_row, split_cells};

/// `#[test]`s that run `$check` with the portable lanes, and with AVX2's and AVX-512's
/// (`at_avx2`, `at_avx512`: ignored unless asked for, as a CPU without the level cannot run them),
/// each alone and in pairs ([`Twice`](crate::grid::lanes::Twice)).
macro_rules! at_every_level {
    ($($check:ident),+ $(,)?) => {$(
        mod $check {
            #[test]
            fn portable() {
                super::$check(crate::grid::lanes::Portable::<16>);
                super::$check(crate::grid::lanes::Portable::<8>);
                super::$check(crate::grid::lanes::Twice(crate::grid::lanes::Portable::<8>));
            }

            #[cfg(target_arch = "x86_64")]
            #[test]
            #[ignore = "needs AVX2: run with --ignored on such a CPU (scripts/test_kernels_on_this_cpu.sh does); the portable lanes check the same kernels on every CPU"]
            fn at_avx2() {
                let isa = crate::isa::Isa::checked(crate::isa::Level::Avx2).expect("this CPU lacks AVX2: this test needs it");
                super::$check(crate::grid::lanes::Avx2::of(isa).expect("the AVX2 level"));
                super::$check(crate::grid::lanes::Twice(crate::grid::lanes::Avx2::of(isa).expect("the AVX2 level")));
            }

            #[cfg(target_arch = "x86_64")]
            #[test]
            #[ignore = "needs AVX-512F: run with --ignored on such a CPU (scripts/test_kernels_on_this_cpu.sh does); the portable lanes check the same kernels on every CPU"]
            fn at_avx512() {
                let isa = crate::isa::Isa::checked(crate::isa::Level::Avx512).expect("this CPU lacks AVX-512: this test needs it");
                super::$check(crate::grid::lanes::Avx512::of(isa).expect("the AVX-512 level"));
                super::$check(crate::grid::lanes::Twice(crate::grid::lanes::Avx512::of(isa).expect("the AVX-512 level")));
            }
        }
    )+};
}

at_every_level!(
    value_and_gradient_rows_give_the_point_path_bits,
    value_and_gradient_row_streams_give_the_single_rows_bits,
    worley_rows_give_the_point_path_bits,
    simplex_rows_reading_the_kept_table_give_the_point_path_bits,
    simplex_blocks_read_the_table_only_within_their_entries,
    every_gradient_of_the_table_comes_out_with_its_bits,
);

/// Cell widths in pixels that take each of a row's ways to its corners: blocks that hash their
/// own (cells under about a quarter or half a pixel), read several registers of the table, or one.
const PIXELS_PER_CELL: [f64; 8] = [0.2, 0.3, 0.6, 1.0, 1.7, 4.0, 13.0, 40.0];

/// Rows' starts and pixel steps in cells (before the cells' width): near the origin and a
/// million cells away, rising and falling.
const ROWS: [(f64, f64); 4] = [(-3.7, 1.0), (1.0e6 + 0.3, 1.0), (2.9, -1.0), (-2.0e6, -1.0)];

/// Every triple of one item from each slice.
fn every_triple<A: Copy, B: Copy, C: Copy>(a: &[A], b: &[B], c: &[C]) -> Vec<(A, B, C)> {
    a.iter().flat_map(|&a| b.iter().flat_map(move |&b| c.iter().map(move |&c| (a, b, c)))).collect()
}

/// Rows of value and gradient noise (both kernels) going down through rows of cells, with the
/// table of corners kept from row to row, at every width of cell in [`PIXELS_PER_CELL`] and every
/// row of [`ROWS`], 203 pixels long (a short last block): every pixel has the point path's bits,
/// and added to fBm sums ([`Octave::Fbm`]), the fractal's sum of those bits.
fn value_and_gradient_rows_give_the_point_path_bits<S: Lanes>(s: S) {
    let (n, seed) = (203, 11);
    let kernels = [None, Some(GradientKernel::Perlin), Some(GradientKernel::Rounded)];
    for (pixels_per_cell, (x, step), kernel) in every_triple(&PIXELS_PER_CELL, &ROWS, &kernels) {
        let lattice = Lattice { kernel: kernel.unwrap_or_default(), ..Lattice::new(seed, Fade::Quintic) };
        let (x0, fx, u) = split_cells(x, step / pixels_per_cell, n, lattice.fade);
        let (mut table, mut sums_table) = (ColumnTable::default(), ColumnTable::default());
        let amplitude = 0.37;
        for r in 0..24 {
            let cy = AxisCell::new(-1.3 + r as f64 * 0.35, None);
            let v = lattice.fade.apply(cy.f);
            let mut out = vec![f32::NAN; n];
            let before: Vec<f32> = (0..n).map(|k| k as f32 * 0.01 - 0.7).collect();
            let mut sums = before.clone();
            let ys = [RowY { cy, v }];
            let row = Row { x0: &x0, fx: &fx, u: &u, ys: &ys };
            match kernel {
                None => {
                    value_row(s, seed, row, &mut table, (&mut out, Octave::Layer));
                    value_row(s, seed, row, &mut sums_table, (&mut sums, Octave::Fbm(amplitude)));
                }
                Some(kernel) => {
                    gradient_row(s, (seed, kernel), row, &mut table, (&mut out, Octave::Layer));
                    gradient_row(
                        s,
                        (seed, kernel),
                        row,
                        &mut sums_table,
                        (&mut sums, Octave::Fbm(amplitude)),
                    );
                }
            }
            for k in 0..n {
                let ([x0, x1], y) = ([x0[k], x0[k] + 1], [cy.i0, cy.i1]);
                let expected = match kernel {
                    None => {
                        blend_values_2d(&lattice.corners([x0, x1], y, corner_value_2d), u[k], v) * 2.0 - 1.0
                    }
                    Some(kernel) => {
                        let g = lattice.corners([x0, x1], y, corner_gradient_2d);
                        match kernel {
                            GradientKernel::Perlin => blend_gradients_2d(&g, fx[k], cy.f, u[k], v),
                            GradientKernel::Rounded => blend_rounded_2d(&g, fx[k], cy.f, u[k], v),
                        }
                    }
                };
                let case = format!(
                    "{} lanes, {kernel:?}, {pixels_per_cell} px per cell, x {x}, step {step}, row {r}",
                    S::LANES
                );
                assert_eq!(out[k].to_bits(), expected.to_bits(), "{case}, pixel {k}");
                let summed = before[k] + amplitude * (expected * 0.5 + 0.5);
                assert_eq!(sums[k].to_bits(), summed.to_bits(), "{case}, pixel {k} added to a sum");
            }
        }
    }
}

/// Rows of value and gradient noise streamed as one run of blocks (a block spanning the end of a
/// row and the start of the next, in the same row of cells or the next), rows of 16 to 203
/// pixels, at every width of cell in [`PIXELS_PER_CELL`]: every pixel has the bits of the same
/// row run alone (which the test above holds to the point path), and nothing is written past
/// the last row.
fn value_and_gradient_row_streams_give_the_single_rows_bits<S: Lanes>(s: S) {
    let seed = 5;
    let kernels = [None, Some(GradientKernel::Perlin), Some(GradientKernel::Rounded)];
    for (pixels_per_cell, (x, step), kernel) in every_triple(&PIXELS_PER_CELL, &ROWS, &kernels) {
        let lattice = Lattice { kernel: kernel.unwrap_or_default(), ..Lattice::new(seed, Fade::Quintic) };
        for n in [16, 17, 65, 203] {
            if n < S::LANES {
                continue;
            }
            let (x0, fx, u) = split_cells(x, step / pixels_per_cell, n, lattice.fade);
            // The cells padded as `XCells::split` pads them: the row's first ones again.
            let padded = |v: &[f32]| -> Vec<f32> { (0..n + STREAM_PADDING).map(|k| v[k % n]).collect() };
            let x0_padded: Vec<i32> = (0..n + STREAM_PADDING).map(|k| x0[k % n]).collect();
            let (fx_padded, u_padded) = (padded(&fx), padded(&u));
            // Nine rows a third of a cell apart: some share a row of cells with the one before.
            let ys: Vec<RowY> = (0..9)
                .map(|r| {
                    let cy = AxisCell::new(-1.3 + r as f64 * 0.35, None);
                    RowY { cy, v: lattice.fade.apply(cy.f) }
                })
                .collect();
            let run = |row: Row, table: &mut ColumnTable, out: &mut [f32]| match kernel {
                None => value_row(s, seed, row, table, (out, Octave::Layer)),
                Some(kernel) => gradient_row(s, (seed, kernel), row, table, (out, Octave::Layer)),
            };
            let mut streamed = vec![f32::NAN; n * ys.len() + 1];
            let row = Row { x0: &x0_padded, fx: &fx_padded, u: &u_padded, ys: &ys };
            run(row, &mut ColumnTable::default(), &mut streamed[..n * ys.len()]);
            let mut table = ColumnTable::default();
            for (r, y) in ys.iter().enumerate() {
                let mut alone = vec![f32::NAN; n];
                run(Row { x0: &x0, fx: &fx, u: &u, ys: std::slice::from_ref(y) }, &mut table, &mut alone);
                let case = format!(
                    "{} lanes, {kernel:?}, {pixels_per_cell} px per cell, x {x}, {n} px, row {r}",
                    S::LANES
                );
                for k in 0..n {
                    assert_eq!(streamed[r * n + k].to_bits(), alone[k].to_bits(), "{case}, pixel {k}");
                }
            }
            assert!(streamed[n * ys.len()].is_nan(), "written past the last row");
        }
    }
}

/// Worley noise's search of the 3×3 cells around each pixel, every metric, jitter 1 and 0.6, at
/// every width of cell in [`PIXELS_PER_CELL`] and every row of [`ROWS`], two rows of pixels in
/// each row of cells (the second reading the table of feature points the first made): F1, F2 and
/// the nearest point's hash are the point path's, in its order of cells, bit for bit.
fn worley_rows_give_the_point_path_bits<S: Lanes>(s: S) {
    let (n, seed) = (203, 4);
    let lattice = Lattice::new(seed, Fade::Quintic);
    let metrics = [
        DistanceMetric::Euclidean,
        DistanceMetric::EuclideanSquared,
        DistanceMetric::Manhattan,
        DistanceMetric::Chebyshev,
    ];
    let mut columns = WorleyColumns::default();
    for (pixels_per_cell, (x, step), metric) in every_triple(&PIXELS_PER_CELL, &ROWS, &metrics) {
        let (x0, fx, _) = split_cells(x, step / pixels_per_cell, n, lattice.fade);
        // Two rows of pixels in each row of cells: the second reads the table the first made.
        for (jitter, y) in [(1.0, -0.4), (1.0, -0.15), (0.6, 7.25), (0.6, 7.9)] {
            let cy = AxisCell::new(y, None);
            let (mut f1, mut f2, mut nearest) = (vec![f32::NAN; n], vec![f32::NAN; n], vec![0; n]);
            let out = (&mut f1[..], &mut f2[..], &mut nearest[..]);
            worley_near_cells(s, (seed, jitter, metric), (cy.i0, cy.f), (&x0, &fx), &mut columns, out);
            for k in 0..n {
                let (mut a, mut b, mut h) = (f32::INFINITY, f32::INFINITY, 0);
                for (dx, dy) in search_order_2d(1) {
                    let (inside, y, hash) =
                        column_point(&lattice, i64::from(x0[k]) + dx, (cy.i0, dy), jitter, cy.f);
                    offer(&mut a, &mut b, &mut h, metric.ordering(&[dx as f32 + inside - fx[k], y]), hash);
                }
                let case = format!(
                    "{} lanes, {metric:?}, jitter {jitter}, {pixels_per_cell} px per cell, x {x}, step {step}",
                    S::LANES
                );
                assert_eq!(
                    [f1[k].to_bits(), f2[k].to_bits(), nearest[k]],
                    [a.to_bits(), b.to_bits(), h],
                    "{case}, pixel {k}"
                );
            }
        }
    }
}

/// Rows of one octave going down and then up again, at cells 3 to 40 pixels wide, near the
/// origin and a million lattice units away, rising and falling: the row with the kept table gives
/// `corners_2d`'s bits for every pixel, and at cells half a block wide or more (8 pixels for 16
/// lanes) nearly every block reads the table (so the table path is what was checked). The rows without a table give them too.
fn simplex_rows_reading_the_kept_table_give_the_point_path_bits<S: Lanes>(s: S) {
    let n = 203;
    for pixels_per_cell in [3.0, 4.5, 8.0, 13.0, 40.0] {
        for (x, step) in ROWS {
            let (step, mut table) = (step / pixels_per_cell, SimplexTable::default());
            let (mut blocks, mut read) = (0, 0);
            let rows = (0..150).chain((0..150).rev()).map(|r| x * 0.5 + r as f64 / pixels_per_cell);
            for (r, y) in rows.enumerate() {
                let ([i, j], [x0, y0]) = skewed_row(x, y, step, n);
                // A new seed for the rows back up: what the table holds is then not theirs.
                let seed = if r < 200 { 5 } else { 6 };
                let (mut out, mut untabled) = (vec![f32::NAN; n], vec![f32::NAN; n]);
                simplex_row(s, seed, (&i, &j), (&x0, &y0), Some(&mut table), &mut out);
                simplex_row(s, seed, (&i, &j), (&x0, &y0), None, &mut untabled);
                for k in 0..n {
                    let expected = corners_2d(seed, i[k], j[k], x0[k], y0[k]).to_bits();
                    let case = format!(
                        "{} lanes, {pixels_per_cell} px per cell, x {x}, step {step}, row {r}",
                        S::LANES
                    );
                    assert_eq!([out[k].to_bits(), untabled[k].to_bits()], [expected; 2], "{case}, pixel {k}");
                }
                for at in (0..n).step_by(S::LANES) {
                    let last = (at + S::LANES - 1).min(n - 1);
                    let block =
                        (i[at].min(i[last]), i[at].max(i[last]), j[at].min(j[last]), j[at].max(j[last]));
                    blocks += 1;
                    read += usize::from(table.read(block).is_some());
                }
            }
            // Cells half a block wide or more: at most three lattice columns and two rows a block.
            if pixels_per_cell >= S::LANES as f64 / 2.0 {
                assert!(read * 10 >= blocks * 9, "{pixels_per_cell} px per cell: {read} of {blocks} read");
            }
        }
    }
}

/// A block is read from the table where its right corners fall within the eight entries it reads
/// per lattice row and its corners within three rows, and not otherwise.
fn simplex_blocks_read_the_table_only_within_their_entries<S: Lanes>(s: S) {
    let mut table = SimplexTable::default();
    assert!(s.vectorize(|| table.prepare(s, spread_seed(1), (100, 140), (20, 30), 1000)));
    let read = |block| table.read(block).is_some();
    assert!(read((100, 106, 20, 21)) && read((134, 140, 30, 31)));
    assert!(!read((100, 107, 20, 21)), "a right corner eight columns on");
    assert!(!read((100, 106, 20, 22)), "a corner four rows down");
    assert!(!read((100, 106, 40, 41)), "rows the table does not hold");
}

/// Every one of the 64 entries of the gradient table, reached through hash inputs whose top six
/// bits after the mix are its index, comes out of a row of gradient noise's lanes with the
/// table's bits (signs of zero included): the lanes' own way to the table (a permute of four
/// registers, or of two turned a quarter at a time) is the table.
fn every_gradient_of_the_table_comes_out_with_its_bits<S: Lanes>(s: S) {
    let mut inputs = [None; 64];
    for h in 0u32.. {
        inputs[(mix(h) >> 26) as usize].get_or_insert(h);
        if inputs.iter().all(Option::is_some) {
            break;
        }
    }
    let inputs: Vec<i32> = inputs.iter().map(|h| h.expect("found above") as i32).collect();
    for at in (0..64).step_by(S::LANES) {
        let lanes = S::LANES.min(64 - at);
        let (mut x, mut y) = (vec![0.0f32; 64], vec![0.0f32; 64]);
        s.vectorize(|| {
            // SAFETY: lanes `at..at + lanes` are within `inputs`, `x` and `y`.
            unsafe {
                let [gx, gy] = super::lattice::gradient(s, s.load_first_i(&inputs, at, lanes));
                s.store_first(&mut x, at, lanes, gx);
                s.store_first(&mut y, at, lanes, gy);
            }
        });
        for k in at..at + lanes {
            let index = (mix(inputs[k] as u32) >> 26) as usize;
            assert_eq!(
                [x[k].to_bits(), y[k].to_bits()],
                GRADIENTS_2D[index].map(f32::to_bits),
                "entry {index}"
            );
        }
    }
}

/// The kernels counted by [`operations_per_block`].
#[derive(Clone, Copy, Debug)]
enum Kernel {
    Value,
    Gradient,
    Simplex,
    Worley,
}

/// Pixels per row, and rows, of the grid each count runs over.
const WIDTH: usize = 1024;
const HEIGHT: usize = 48;

/// The vector operations per block of 16 pixels, by [`Unit`], that `row(r, out)` spends on rows
/// `0..HEIGHT` of `WIDTH` pixels (one octave of a grid, its tables kept from row to row).
fn per_block(mut row: impl FnMut(usize, &mut [f32])) -> [f64; 7] {
    let mut out = vec![0.0; WIDTH];
    OPERATIONS.with(|counts| counts.iter().for_each(|c| c.set(0)));
    for r in 0..HEIGHT {
        row(r, &mut out);
    }
    let blocks = (HEIGHT * WIDTH.div_ceil(16)) as f64;
    OPERATIONS.with(|counts| counts.each_ref().map(|c| c.get() as f64 / blocks))
}

/// The fewest cycles a block can take on the port model of [`Unit`]: port 0 and port 5 each run
/// one operation a cycle, two loads and one store a cycle.
fn floor(ops: &[f64; 7]) -> f64 {
    let [arithmetic, shift, product, compare, permute, load, store] = *ops;
    let (port0, port5) = (shift + 2.0 * product, compare + permute);
    [port0, port5, (port0 + port5 + arithmetic) / 2.0, load / 2.0, store].into_iter().fold(0.0, f64::max)
}

/// Per kernel at 16 lanes, at the cell widths of a 1024² and a 65² grid's octaves (128 pixels to
/// half a pixel), the operations per block of 16 pixels and the floor they set on the model of
/// [`Unit`]; printed for `docs/performance.md` (`cargo test --release -p noise_terrain_core --lib
/// operations_per_block -- --nocapture`). Where a row reads its kept tables, a block takes fewer
/// operations than where blocks hash their own corners (the tables' reason to exist).
#[test]
fn operations_per_block() {
    let s = Portable::<16>;
    let widths = [128.0, 32.0, 8.0, 2.0, 1.0, 0.5];
    let y = |r: usize, pixels_per_cell: f64| 0.61 + r as f64 / pixels_per_cell;
    let mut report = Vec::new();
    let mut note = |kernel: Kernel, pixels_per_cell: f64, ops: [f64; 7]| {
        let kernel = format!("{kernel:?}");
        report
            .push(format!("{kernel:9} {pixels_per_cell:>5} px: {ops:5.1?} floor {:5.1} cycles", floor(&ops)));
        ops.iter().sum::<f64>()
    };
    for kernel in [Kernel::Value, Kernel::Gradient, Kernel::Simplex, Kernel::Worley] {
        let mut totals = Vec::new();
        for pixels_per_cell in widths {
            let (x, step) = (0.37, 1.0 / pixels_per_cell);
            let (x0, fx, u) = split_cells(x, step, WIDTH, Fade::Quintic);
            let mut columns = ColumnTable::default();
            let mut simplex = SimplexTable::default();
            let mut points = WorleyColumns::default();
            let ops = per_block(|r, out| {
                let cy = AxisCell::new(y(r, pixels_per_cell), None);
                let ys = [RowY { cy, v: Fade::Quintic.apply(cy.f) }];
                let row = Row { x0: &x0, fx: &fx, u: &u, ys: &ys };
                match kernel {
                    Kernel::Value => value_row(s, 3, row, &mut columns, (out, Octave::Layer)),
                    Kernel::Gradient => {
                        gradient_row(s, (3, GradientKernel::Rounded), row, &mut columns, (out, Octave::Layer))
                    }
                    Kernel::Simplex => {
                        let ([i, j], [x0, y0]) = skewed_row(x, y(r, pixels_per_cell), step, WIDTH);
                        simplex_row(s, 3, (&i, &j), (&x0, &y0), Some(&mut simplex), out)
                    }
                    Kernel::Worley => {
                        let (mut f2, mut nearest) = (vec![0.0; WIDTH], vec![0; WIDTH]);
                        let worley = (3, 1.0, DistanceMetric::Euclidean);
                        let out = (out, &mut f2[..], &mut nearest[..]);
                        worley_near_cells(s, worley, (cy.i0, cy.f), (&x0, &fx), &mut points, out)
                    }
                }
            });
            totals.push(note(kernel, pixels_per_cell, ops));
        }
        // The widest cells read the tables; half-pixel cells hash their own.
        assert!(totals[0] < totals[widths.len() - 1], "{kernel:?}: {totals:?}");
    }
    println!("operations per 16 pixels {:?}\n{}", Unit::ALL, report.join("\n"));
}
