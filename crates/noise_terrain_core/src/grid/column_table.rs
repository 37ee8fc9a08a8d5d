//! What the SIMD rows of value and gradient noise share whatever their width
//! (`kernels/lattice.rs`): a row's cells and weights ([`Row`]) and the table of the corners of its lattice
//! columns, kept from row to row ([`ColumnTable`]).

use std::ops::Range;

use crate::field::coord::AxisCell;

/// One or more rows' cells and weights: pixel `k` of a row in cell `x0[k]` at fraction `fx[k]`
/// with faded weight `u[k]` (the same for every row), row `r` in cell `ys[r].cy` with faded
/// weight `ys[r].v`. The cells are an unbounded lattice's and monotone along the row (a row's
/// cells never both rise and fall). Several rows run as one stream of blocks, a block spanning
/// the end of a row and the start of the next: then the cells are [`STREAM_PADDING`] longer than
/// a row, their first ones again.
#[derive(Clone, Copy)]
pub(crate) struct Row<'a> {
    pub x0: &'a [i32],
    pub fx: &'a [f32],
    pub u: &'a [f32],
    pub ys: &'a [RowY],
}

/// A row's cell along y and its faded weight there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowY {
    pub cy: AxisCell,
    pub v: f32,
}

/// How many cells past a row a stream of rows may read (see [`Row`]): a block of the widest
/// lanes (two registers of sixteen), less one.
pub(crate) const STREAM_PADDING: usize = 31;

/// A row's table of the corners of its lattice columns, kept for the next row of the same octave:
/// the pixel rows in one row of cells share it whole, and the next row of cells shares half of it
/// (its upper corners are this one's lower ones). It holds two rows of corners, each as `Q`
/// planes (values per column: one for value noise, a gradient's x and y for gradient noise) of
/// [`ColumnTable::stride`] entries.
#[derive(Default)]
pub(crate) struct ColumnTable {
    /// The row of cells (its upper corners' index), the first column and the number of columns
    /// the table holds.
    key: Option<(i32, i32, usize)>,
    /// Which half of `planes` holds the upper row of corners (0 or 1): moving down a row of cells
    /// swaps the halves' roles instead of copying one over the other.
    upper: usize,
    /// Two halves of `Q` planes of `stride` values, one row of corners each.
    pub(crate) planes: Vec<f32>,
}

impl ColumnTable {
    /// Forgets what the corners were for (kept buffers, to be made again): for a scratch kept from one
    /// grid to the next.
    pub(crate) fn forget(&mut self) {
        self.key = None;
    }

    /// Entries a block may read past any column of the row: two registers of 16 lanes, or four
    /// of 8.
    pub(crate) const READ: usize = 32;

    /// Entries per plane for a row of `count` columns: room for [`Self::READ`] entries past any
    /// column, and every sixteenth column a plane start (the table is written 16 columns at a
    /// time, or 8).
    pub(crate) fn stride(count: usize) -> usize {
        count.next_multiple_of(16) + Self::READ
    }

    /// Makes the table ready for the row of cells whose upper corners are lattice row `y` (an
    /// unbounded lattice: the lower ones are `y + 1`) over columns `first..first + count`, with
    /// `q` planes per row of corners, and returns which rows of corners the caller must compute
    /// (0 the upper, 1 the lower): none where the table is this row of cells' already, the lower
    /// one where it is the row of cells above's (whose lower corners are this one's upper ones),
    /// else both.
    pub(crate) fn prepare(&mut self, y: i32, (first, count): (i32, usize), q: usize) -> Range<usize> {
        // Grown, never shrunk: a shorter table would be zeroed again on the next longer one.
        let len = 2 * q * Self::stride(count);
        self.planes.resize(self.planes.len().max(len), 0.0);
        let fresh = match self.key {
            Some((held, f, c)) if (f, c) == (first, count) && held == y => 2..2,
            Some((held, f, c)) if (f, c) == (first, count) && held.wrapping_add(1) == y => {
                self.upper ^= 1;
                1..2
            }
            _ => 0..2,
        };
        self.key = Some((y, first, count));
        fresh
    }

    /// Where plane `plane` (of `q`) of the row of corners `r` (0 the upper, 1 the lower) starts
    /// in [`Self::planes`], for a row of `count` columns.
    pub(crate) fn start(&self, r: usize, (plane, q): (usize, usize), count: usize) -> usize {
        ((r ^ self.upper) * q + plane) * Self::stride(count)
    }
}

/// Where a block whose first column is `column` reads a plane of a table that starts at column
/// `first`: `column - first`, at most `last` (the furthest offset whose reads stay in the plane)
/// whatever the inputs. A block's columns lie within its row's, so the bound changes nothing where
/// the rows are monotone (the argument is in `rows.rs`; a debug assertion checks it), and the
/// kernels' reads stay in the table even if that argument broke: the difference is taken modulo
/// 2³² (a column left of `first` becomes a large offset), then bounded by `last`, one unsigned
/// minimum per block (a clamp of the signed difference to both ends cost AVX2's value rows 7% to
/// 10% on a Zen 3, where a block is eight pixels of a few operations each).
#[inline(always)]
pub(crate) fn plane_offset(column: i32, first: i32, last: usize) -> usize {
    debug_assert!(
        (0..=last as i64).contains(&(i64::from(column) - i64::from(first))),
        "column {column} outside the table from {first}"
    );
    (column.wrapping_sub(first) as u32 as usize).min(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moving_down_a_row_of_cells_computes_only_its_lower_corners_and_swaps_the_halves() {
        let mut table = ColumnTable::default();
        assert_eq!(table.prepare(4, (10, 20), 2), 0..2, "a new table computes both rows");
        let upper_plane = table.start(0, (1, 2), 20);
        assert_eq!(table.prepare(4, (10, 20), 2), 2..2, "the same row of cells computes none");
        assert_eq!(table.prepare(5, (10, 20), 2), 1..2, "the next row of cells: its lower corners");
        // The old lower row is the new upper row: the halves swapped.
        assert_eq!(table.start(0, (1, 2), 20), upper_plane + 2 * ColumnTable::stride(20));
        assert_eq!(table.prepare(3, (10, 20), 2), 0..2, "a row of cells above: both");
        assert_eq!(table.prepare(3, (11, 20), 2), 0..2, "other columns: both");
        assert!(table.planes.len() >= 4 * ColumnTable::stride(20));
    }

    #[test]
    fn plane_offsets_stay_in_the_plane() {
        assert_eq!(plane_offset(7, 3, 10), 4);
        assert_eq!(plane_offset(3, 3, 10), 0);
        assert_eq!(plane_offset(13, 3, 10), 10);
        if !cfg!(debug_assertions) {
            // Only where the debug assertion is off: past either end, within the plane.
            assert_eq!(plane_offset(2, 3, 10), 10);
            assert_eq!(plane_offset(i32::MAX, i32::MIN, 10), 10);
            assert!(plane_offset(i32::MIN, i32::MAX, 10) <= 10);
        }
    }
}
