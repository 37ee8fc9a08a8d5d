//! The AVX-512 kernels (`avx512.rs`) compiled against portable lanes ([`lanes`]), so that their
//! tests run, and give their bits, on every x86-64 CPU, with or without AVX-512.
//!
//! The build script writes `avx512.rs` without its `target_feature` attributes (which would let
//! the compiler use AVX-512 instructions in the copy), with [`lanes`] in place of `std::arch`,
//! and with its tests' check for the CPU answered yes and their `ignore` attributes dropped; the
//! copy is included below. Its tests are `avx512.rs`'s own, run on every CPU: the same assertions
//! run on the real kernels where the CPU has AVX-512 (ignored by default there, as a CPU without
//! it cannot run them: `scripts/test_kernels_on_this_cpu.sh` runs them where it can). The
//! grids' tests also run an emulated AVX-512 level (`Level::Avx512Emulated`: the row path at the
//! baseline, calling these kernels, 16 pixels at a time where the AVX-512 level takes 16).

pub(crate) mod lanes;

/// `avx512.rs`, rewritten by the build script (see the module's docs).
#[allow(dead_code, unused_unsafe, clippy::missing_safety_doc)]
pub(crate) mod kernels {
    include!(concat!(env!("OUT_DIR"), "/avx512_emulated.rs"));
}

#[cfg(test)]
mod tests {
    use super::kernels::{SimplexTable, gradient_row, simplex_row, value_row, worley_near_cells};
    use super::lanes::{OPERATIONS, Unit};
    use crate::field::basis::{DistanceMetric, GradientKernel};
    use crate::field::coord::AxisCell;
    use crate::field::fade::Fade;
    use crate::grid::column_table::{ColumnTable, Row};
    use crate::grid::test_rows::{skewed_row, split_cells};

    /// The kernels counted.
    #[derive(Clone, Copy, Debug)]
    enum Kernel {
        Value,
        Gradient,
        Simplex,
        Worley,
    }

    /// Pixels per row, and rows, of the grid each count runs over.
    const WIDTH: usize = 1024;
    const ROWS: usize = 48;

    /// The vector operations per block of 16 pixels, by [`Unit`], that `row(r, out)` spends on
    /// rows `0..ROWS` of `WIDTH` pixels (one octave of a grid, its tables kept from row to row).
    fn per_block(mut row: impl FnMut(usize, &mut [f32])) -> [f64; 7] {
        let mut out = vec![0.0; WIDTH];
        OPERATIONS.with(|counts| counts.iter().for_each(|c| c.set(0)));
        for r in 0..ROWS {
            row(r, &mut out);
        }
        let blocks = (ROWS * WIDTH.div_ceil(16)) as f64;
        OPERATIONS.with(|counts| counts.each_ref().map(|c| c.get() as f64 / blocks))
    }

    /// The fewest cycles a block can take on the port model of [`Unit`]: port 0 and port 5 each
    /// run one operation a cycle, two loads and one store a cycle.
    fn floor(ops: &[f64; 7]) -> f64 {
        let [arithmetic, shift, product, compare, permute, load, store] = *ops;
        let (port0, port5) = (shift + 2.0 * product, compare + permute);
        [port0, port5, (port0 + port5 + arithmetic) / 2.0, load / 2.0, store].into_iter().fold(0.0, f64::max)
    }

    /// Per kernel, at the cell widths of a 1024² and a 65² grid's octaves (128 pixels to half a
    /// pixel), the operations per block of 16 pixels and the floor they set on the model of
    /// [`Unit`]; printed for `docs/performance.md` (`cargo test --release -p noise_terrain_core --lib
    /// operations_per_block -- --nocapture`). Where a row reads its kept tables, a block takes
    /// fewer operations than where blocks hash their own corners (the tables' reason to exist).
    #[test]
    fn operations_per_block() {
        let widths = [128.0, 32.0, 8.0, 2.0, 1.0, 0.5];
        let y = |r: usize, pixels_per_cell: f64| 0.61 + r as f64 / pixels_per_cell;
        let mut report = Vec::new();
        let mut note = |kernel: Kernel, pixels_per_cell: f64, ops: [f64; 7]| {
            let kernel = format!("{kernel:?}");
            report.push(format!(
                "{kernel:9} {pixels_per_cell:>5} px: {ops:5.1?} floor {:5.1} cycles",
                floor(&ops)
            ));
            ops.iter().sum::<f64>()
        };
        for kernel in [Kernel::Value, Kernel::Gradient, Kernel::Simplex, Kernel::Worley] {
            let mut totals = Vec::new();
            for pixels_per_cell in widths {
                let (x, step) = (0.37, 1.0 / pixels_per_cell);
                let (x0, fx, u) = split_cells(x, step, WIDTH, Fade::Quintic);
                let mut columns = ColumnTable::default();
                let mut simplex = SimplexTable::default();
                let mut points = Vec::new();
                let ops = per_block(|r, out| {
                    let cy = AxisCell::new(y(r, pixels_per_cell), None);
                    let row = Row { x0: &x0, fx: &fx, u: &u, cy, v: Fade::Quintic.apply(cy.f) };
                    match kernel {
                        Kernel::Value => value_row(3, row, &mut columns, out),
                        Kernel::Gradient => gradient_row(3, GradientKernel::Rounded, row, &mut columns, out),
                        Kernel::Simplex => {
                            let ([i, j], [x0, y0]) = skewed_row(x, y(r, pixels_per_cell), step, WIDTH);
                            simplex_row(3, (&i, &j), (&x0, &y0), Some(&mut simplex), out)
                        }
                        Kernel::Worley => {
                            let (mut f2, mut nearest) = (vec![0.0; WIDTH], vec![0; WIDTH]);
                            let worley = (3, 1.0, DistanceMetric::Euclidean);
                            let out = (out, &mut f2[..], &mut nearest[..]);
                            worley_near_cells(worley, (cy.i0, cy.f), (&x0, &fx), &mut points, out)
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
}
