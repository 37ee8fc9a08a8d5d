//! The gullies the filter carves: the plan made once per field ([`GullyPlan`]), each
//! octave's cells and their pivots, the state a point carries through the octaves, and the
//! profile, with exact first and second derivatives.

use super::*;

/// An [`ErosionFilter`] prepared for one field: per-octave depths, cell sizes and seeds, and the
/// constants of the bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct GullyPlan {
    pub(super) octaves: usize,
    /// Depth of octave `k`'s gullies in height units per unit of steepness (the slope in height
    /// ranges per base lattice cell): `strength · gainᵏ · range / cells`.
    pub(super) depth: [f32; MAX_FILTER_OCTAVES as usize],
    /// Gully cells per base lattice cell of octave `k`.
    pub(super) cells: [f64; MAX_FILTER_OCTAVES as usize],
    /// Octave `k`'s gully cells per map unit: a cell coordinate's derivative by the position.
    pub(super) per_unit: [f32; MAX_FILTER_OCTAVES as usize],
    pub(super) seeds: [u32; MAX_FILTER_OCTAVES as usize],
    pub(super) bend: f32,
    /// The profile across a gully, `-1 + a·τ² - b·τ⁴` for `τ` in `[-½, ½]` cells from its bottom
    /// line: `[a, b]`, from the rounded `-1 + 16τ² - 32τ⁴` (smooth at the crest) to the sharp
    /// `-1 + 8τ²` (a crease at the crest) by the sharpness.
    pub(super) profile: [f32; 2],
    /// The profile's mean across a gully (`-1 + a/12 - b/80`, in `[-0.33, -0.07]`): taken off
    /// the profile, so that gullies take away as much ground as the ridges between them add.
    pub(super) profile_mean: f32,
    /// `[keep_floors, keep_peaks]`.
    pub(super) keep: [f32; 2],
    pub(super) lo: f32,
    pub(super) range: f32,
    pub(super) inv_range: f32,
    /// From a slope per map unit to one per base lattice cell of a unit height range.
    pub(super) slope_unit: f32,
    pub(super) frequency: f32,
}

/// The pivots' hash of a cell's spread coordinates and seed (`x ^ y ^ seed`, see
/// [`spread_x`] and [`spread_seed`]): one multiply and one shift, where the field's lattices take
/// [`hash2_spread`](crate::field::hash::hash2_spread)'s two of each. The jitter reads the top 16
/// bits, which the multiply mixes from every input bit below them, and the bottom 16, onto which
/// the shift brings them; a pivot's place needs no more (each pivot's hash cost the octave's
/// lanes about a tenth of their work).
#[inline(always)]
const fn light_hash(bits: u32) -> u32 {
    let h = bits.wrapping_mul(0x846C_A68B);
    h ^ (h >> 16)
}

/// A point's offset along one axis from the pivot of the lower (`upper` 0) or upper (1) of the two
/// cells around it, at `fraction` past the lower one's centre (see [`GullyPlan::cell_of`]), for
/// the pivot's `jitter` along that axis (see [`GullyPlan::pivot_jitters`]): in cells, the
/// jitter's mean taken off both.
#[inline(always)]
pub(crate) fn pivot_offset(fraction: f32, upper: usize, jitter: f32) -> f32 {
    let half = 0.5 * PIVOT_JITTER;
    let from_centre = if upper == 0 { fraction + half } else { fraction + (half - 1.0) };
    from_centre - jitter
}

/// The cubic smoothstep of `t` clamped to `[0, 1]`, and its slope `6t(1 - t)` (zero where
/// clamped, as it is at the ends).
#[inline(always)]
fn smoothstep_with_slope(t: f32) -> (f32, f32) {
    let t = t.clamp(0.0, 1.0);
    (t * t * (3.0 - 2.0 * t), 6.0 * t * (1.0 - t))
}

/// What the filter carries for one point from octave to octave.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct GullyState<T> {
    /// The field's steepness, faded on peaks and floors: each octave's depth per unit of it.
    mask: T,
    /// The slope so far, per map unit: the field's, bent by the gullies before.
    slope: [T; 2],
    /// The height above the field's lowest bound so far, in height units.
    above: T,
}

impl<T: GullyNumber> GullyState<T> {
    /// The state on [`Dual`] numbers (see [`GullyNumber`]).
    #[inline(always)]
    pub(crate) fn to_dual(self) -> GullyState<Dual> {
        GullyState {
            mask: self.mask.to_dual(),
            slope: [self.slope[0].to_dual(), self.slope[1].to_dual()],
            above: self.above.to_dual(),
        }
    }

    /// The state from one on [`Dual`] numbers.
    #[inline(always)]
    pub(crate) fn from_dual(d: GullyState<Dual>) -> Self {
        let slope = [T::from_dual(d.slope[0]), T::from_dual(d.slope[1])];
        GullyState { mask: T::from_dual(d.mask), slope, above: T::from_dual(d.above) }
    }
}

/// The first stage of an octave at a point (see [`GullyPlan::direction`]): the slope's
/// direction across the gullies, per unit of the slope (`c`), the direction itself and half the
/// gullies' depth, with their gradients.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GullyDirection {
    c: f32,
    across: [Dual; 2],
    half_depth: Dual,
}

/// The second stage of an octave at a point (see [`GullyPlan::profile`]): the blended profile
/// less its mean, its blend by the weights' slopes and the rounded profile's slope (zero when
/// the octave does not bend), with their gradients.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GullyProfile {
    profile: Dual,
    towards: [Dual; 2],
    rounded: Dual,
}

/// A filter state as `N` numbers, for rows kept as a structure of arrays: heights alone in four
/// (mask, the two slopes and the height above the bound), heights with gradients in twelve (each
/// of those a value and its gradient).
///
/// [`DUAL_PARTS`] for [`Dual`], [`PARTS`] for `f32`.
pub(crate) trait GullyParts<const N: usize>: Sized {
    /// The state's numbers.
    fn parts_of(state: GullyState<Self>) -> [f32; N];
    /// The state from [`parts_of`](Self::parts_of)' numbers.
    fn state_from(parts: [f32; N]) -> GullyState<Self>;
}

/// How many numbers hold a state of heights alone (see [`GullyParts`]).
pub(crate) const PARTS: usize = 4;
/// How many numbers hold a state with gradients (see [`GullyParts`]): the mask's three first, then
/// the slopes' six and the height's three.
pub(crate) const DUAL_PARTS: usize = 12;

impl GullyParts<PARTS> for f32 {
    #[inline(always)]
    fn parts_of(s: GullyState<f32>) -> [f32; PARTS] {
        [s.mask, s.slope[0], s.slope[1], s.above]
    }
    #[inline(always)]
    fn state_from([mask, s0, s1, above]: [f32; PARTS]) -> GullyState<f32> {
        GullyState { mask, slope: [s0, s1], above }
    }
}

impl GullyParts<DUAL_PARTS> for Dual {
    #[inline(always)]
    fn parts_of(s: GullyState<Dual>) -> [f32; DUAL_PARTS] {
        let d = |v: Dual| [v.value, v.gradient[0], v.gradient[1]];
        let ([a, b, c], [e, f, g], [h, i, j], [k, l, m]) =
            (d(s.mask), d(s.slope[0]), d(s.slope[1]), d(s.above));
        [a, b, c, e, f, g, h, i, j, k, l, m]
    }
    #[inline(always)]
    fn state_from(p: [f32; DUAL_PARTS]) -> GullyState<Dual> {
        let d = |k: usize| Dual::new(p[k], [p[k + 1], p[k + 2]]);
        GullyState { mask: d(0), slope: [d(3), d(6)], above: d(9) }
    }
}

impl GullyPlan {
    /// The filtered height at base-lattice position `q` (map position plus offset, times the base
    /// frequency) from the field's height `h` and the slope `s = [∂h/∂x, ∂h/∂y]` per map unit of
    /// its coarse octaves, and how far below `h` the filtered height is (a share of the height
    /// range, `[0, 1]`; 0 on raised ridges).
    ///
    /// With `T = f32` the height alone; with [`Dual`](crate::field::dual::Dual) the height and its exact
    /// gradient, for which `s` must carry its own gradient (rows of the coarse octaves' Hessian). The
    /// value is the same bits either way, and the same as the grid's rows give (they take the
    /// same three steps, octave by octave over a row).
    #[inline(always)]
    pub(crate) fn apply<T: GullyNumber>(&self, q: [f64; 2], h: T, s: [T; 2]) -> (T, f32) {
        let mut state = self.start(h, s);
        for k in 0..self.octaves {
            state = self.octave(k, self.bends_after(k), q, state);
        }
        self.finish(h, state)
    }

    /// One over the field's height range: a height change as a share of the range.
    pub(crate) fn inv_range(&self) -> f32 {
        self.inv_range
    }

    /// Octaves of gullies.
    #[inline(always)]
    pub(crate) fn octaves(&self) -> usize {
        self.octaves
    }

    /// Whether octave `k`'s gullies bend the slope that the next octave follows.
    #[inline(always)]
    pub(crate) fn bends_after(&self, k: usize) -> bool {
        k + 1 < self.octaves && self.bend > 0.0
    }

    /// The state before the first octave: the mask from the height, the slope itself.
    #[inline(always)]
    pub(crate) fn start<T: Varying>(&self, h: T, s: [T; 2]) -> GullyState<T> {
        // The height as a share of the range, for the peak and floor masks: one function of the
        // share and its slope (the chain rule once, not on each factor).
        let above = h.plus(-self.lo);
        let faded = above.times(self.inv_range).map(|v| self.fade(v).0, |v| self.fade(v).1);
        // Depths scale with the field's own steepness, `|s|² / √(|s|² + ε²)`: the slope's length
        // where the ground slopes, fading to zero on flats. (Not with the slope bent by the gullies
        // so far: the gullies' walls would deepen the next octave, and that the one after.) Its
        // slope by `|s|²` is `(|s|² + 2ε²) / (2 (|s|² + ε²)^{3/2})`.
        let ee = FLAT_SLOPE * FLAT_SLOPE;
        let inverse = |n: f32| 1.0 / (n + ee).sqrt();
        let steep = self.steepness(s).map(
            |n| n * inverse(n),
            |n| {
                let i = inverse(n);
                (n + 2.0 * ee) * (0.5 * i * i * i)
            },
        );
        GullyState { mask: faded * steep, slope: s, above }
    }

    /// How much of the gullies' depth the peak and floor masks keep at a height `share` of the
    /// range (`[0, 1]`), and its slope by the share.
    #[inline(always)]
    fn fade(&self, share: f32) -> (f32, f32) {
        let [keep_floors, keep_peaks] = self.keep;
        let (floors, floors_slope) = smoothstep_with_slope(2.0 * share);
        let (peaks, peaks_slope) = smoothstep_with_slope(2.0 - 2.0 * share);
        let (floors, peaks) = (1.0 + keep_floors * (floors - 1.0), 1.0 + keep_peaks * (peaks - 1.0));
        let slope = 2.0 * (keep_floors * floors_slope * peaks - keep_peaks * peaks_slope * floors);
        (floors * peaks, slope)
    }

    /// At least how far the filter can move the height `h` (the field's, unfiltered) at a point
    /// where the coarse slope is at most `slope` long (per map unit): each octave moves it by at
    /// most half its depth times the mask times the profile's reach (the profile lies within
    /// `1 - mean` of zero, see [`GullyPlan::profile_mean`]; the smooth minimum with the room
    /// only shrinks the change, and the clamp to the bounds only pulls toward them), plus how far
    /// `h` lies outside the bounds (the clamp may pull it in), with a margin for rounding.
    pub(crate) fn most_change(&self, h: f32, slope: f32) -> f32 {
        let share = (h - self.lo) * self.inv_range;
        // The start's steepness `n / √(n + ε²)` is at most `√n`, the slope's length in its units.
        let steep = slope * self.slope_unit;
        let depths: f32 = self.depth[..self.octaves].iter().sum();
        let outside = (self.lo - h).max(h - (self.lo + self.range)).max(0.0);
        let reach = 1.0 - self.profile_mean;
        (0.5 * reach * self.fade(share).0 * steep * depths) * 1.001 + outside + self.range * 1e-5
    }

    /// `|s|²` of a slope per map unit, with the slope per base lattice cell of a unit range.
    #[inline(always)]
    fn steepness<T: Varying>(&self, s: [T; 2]) -> T {
        let (x, y) = (s[0].times(self.slope_unit), s[1].times(self.slope_unit));
        x * x + y * y
    }

    /// Octave `k` of gullies at `q` added to the state; with `bends` (see
    /// [`bends_after`](Self::bends_after)) the slope bent for the next octave. The point path's
    /// form of [`octave_in`](Self::octave_in).
    #[inline(always)]
    pub(crate) fn octave<T: GullyNumber>(
        &self,
        k: usize,
        bends: bool,
        q: [f64; 2],
        state: GullyState<T>,
    ) -> GullyState<T> {
        let ((ix, fx), (iy, fy)) = (self.cell_of(k, q[0]), self.cell_of(k, q[1]));
        let jitters = self.pivot_jitters(k, [ix, iy]);
        let offsets = std::array::from_fn(|c| {
            let [jx, jy] = jitters[c];
            [pivot_offset(fx, c & 1, jx), pivot_offset(fy, c >> 1, jy)]
        });
        GullyState::from_dual(self.octave_in(
            k,
            bends,
            [self.weights(k, fx), self.weights(k, fy)],
            &offsets,
            state.to_dual(),
        ))
    }

    /// The blend weight of the upper of octave `k`'s two cells around a point at the fraction
    /// `f` past the lower one's centre (see [`cell_of`](Self::cell_of)), with its slope and
    /// curvature per map unit along that axis: what [`octave_in`](Self::octave_in) blends with.
    #[inline(always)]
    pub(crate) fn weights(&self, k: usize, f: f32) -> [f32; 3] {
        quintic_jet(f, self.per_unit[k])
    }

    /// Where a coordinate `q` (base lattice units) falls among octave `k`'s cells: the index of
    /// the lower of the two cells around it (their centres on whole cell coordinates) and the
    /// fraction past its centre.
    #[inline(always)]
    pub(crate) fn cell_of(&self, k: usize, q: f64) -> (i32, f32) {
        split(q * self.cells[k] - 0.5)
    }

    /// The jitters of octave `k`'s four pivots around a point in cell `(ix, iy)` (see
    /// [`cell_of`](Self::cell_of)), in the order `(0, 0)`, `(1, 0)`, `(0, 1)`, `(1, 1)`: along x
    /// and y, `PIVOT_JITTER` times the cell's hash's top and bottom 16 bits as a fraction of 2¹⁶
    /// (a pivot lies that far from its cell's centre less half the jitter's reach, see
    /// [`pivot_offset`]). Branch-free integer arithmetic, which vectorises; a grid's rows make
    /// them once per row of cells, not per pixel row.
    #[inline(always)]
    pub(crate) fn pivot_jitters(&self, k: usize, [ix, iy]: [i32; 2]) -> [[f32; 2]; 4] {
        let seed = self.seeds[k];
        // `spread_x(ix + 1) == spread_x(ix) + spread_x(1)`: the same bits as hashing `ix + 1`.
        let (x0, y0) = (spread_x(ix), spread_y(iy));
        let (x1, y1) = (x0.wrapping_add(spread_x(1)), y0.wrapping_add(spread_y(1)));
        let unit = PIVOT_JITTER / 65_536.0;
        // The top and the bottom half of the hash (no rotate: AVX2 has none).
        let jitter = |x: u32, y: u32| {
            let hash = light_hash(x ^ y ^ seed);
            [(hash >> 16) as f32 * unit, (hash & 0xFFFF) as f32 * unit]
        };
        [jitter(x0, y0), jitter(x1, y0), jitter(x0, y1), jitter(x1, y1)]
    }

    /// Octave `k` of gullies at a point whose cells' blend weights along x and y are `[x, y]`
    /// (see [`weights`](Self::weights)), at `offsets` from the four cells' pivots (see
    /// [`pivot_offset`]), added to the state, with the exact gradient; with `bends` the slope
    /// bent for the next octave: [`direction`](Self::direction), [`profile`](Self::profile) and
    /// [`carve`](Self::carve), which a grid runs for several groups of pixels stage by stage.
    ///
    /// Written out by hand rather than with [`Dual`] arithmetic throughout: the blend weights of
    /// one axis have no derivative along the other, and the bent slope's sums over the cells
    /// share factors, which halves the operations. Heights alone run the same code (their values
    /// are the same bits) and the compiler drops what only the gradient needs.
    #[inline(always)]
    pub(crate) fn octave_in(
        &self,
        k: usize,
        bends: bool,
        weights: [[f32; 3]; 2],
        offsets: &[[f32; 2]; 4],
        state: GullyState<Dual>,
    ) -> GullyState<Dual> {
        let direction = self.direction(k, state);
        let profile = self.profile(k, bends, weights, offsets, state, direction);
        self.carve(bends, state, direction, profile)
    }

    /// The first stage of octave `k` (see [`octave_in`](Self::octave_in)): the direction across
    /// the gullies and their depth, from the state's slope and mask.
    #[inline(always)]
    pub(crate) fn direction(&self, k: usize, state: GullyState<Dual>) -> GullyDirection {
        let GullyState { mask, slope, .. } = state;
        // Across the gullies: the slope so far turned a quarter and divided by its length, with
        // a floor on flats: `c = u / √(u²|s|² + ε²) = 1 / √(|s|² + (ε/u)²)` for `u` the slope
        // per base lattice cell of a unit range, whose gradient is `-c³ (s₀∇s₀ + s₁∇s₁)`.
        let [s0, s1] = slope;
        let u = self.slope_unit;
        let square = s0.value * s0.value + s1.value * s1.value;
        let c = 1.0 / (square + (FLAT_SLOPE / u) * (FLAT_SLOPE / u)).sqrt();
        let c3 = c * c * c;
        let slope_dot = [0, 1].map(|j| s0.value * s0.gradient[j] + s1.value * s1.gradient[j]);
        let w = slope_dot.map(|v| c3 * v);
        let across = [
            Dual::new(-(s1.value * c), [0, 1].map(|j| s1.value * w[j] - s1.gradient[j] * c)),
            Dual::new(s0.value * c, [0, 1].map(|j| s0.gradient[j] * c - s0.value * w[j])),
        ];
        // A gully's full depth: `strength` times the height the ground drops across one cell,
        // faded on peaks and floors, and where the slope it follows turns (see `TURNING_SLOPE`).
        // The profile takes a share of half of it.
        let half_depth = (mask * self.kept_where_turning(square, slope_dot, mask)).times(0.5 * self.depth[k]);
        GullyDirection { c, across, half_depth }
    }

    /// The second stage of octave `k` (see [`octave_in`](Self::octave_in)): the four cells'
    /// profiles blended at offsets `offsets` from their pivots, with blend weights `[x, y]`.
    #[inline(always)]
    pub(crate) fn profile(
        &self,
        k: usize,
        bends: bool,
        [x, y]: [[f32; 3]; 2],
        offsets: &[[f32; 2]; 4],
        state: GullyState<Dual>,
        direction: GullyDirection,
    ) -> GullyProfile {
        let [s0, s1] = state.slope;
        let GullyDirection { c, across, .. } = direction;
        let d = self.per_unit[k];
        // Across the gullies from a pivot at offsets `(rx, ry)`: `c (rx n₀ + ry n₁)` for
        // `n = (-s₁, s₀)`, with `c` last, so that all of it but one product is made while the
        // square root and the division of `c` run.
        let [n0, n1] = [-s1.value, s0.value];
        let [a, b] = self.profile;
        // `32 t - 128 t³` and its slope `32 - 384 t²`, times `d`.
        let [r1, r3, rt] = [32.0 * d, 128.0 * d, 384.0 * d];
        // One cell's gully profile `p` (less its mean, taken off the blend: the weights sum to
        // one and their slopes to zero) and the rounded profile's slope `r` across the gullies
        // (for the bend: the sharp one's jumps at the crests, and a jump in the direction would
        // tear the finer octaves there), each with its gradient. Written out for the four cells
        // (not a loop or a closure), so that the pixel loops around it stay innermost and
        // vectorise.
        macro_rules! cell {
            ($c:literal) => {{
                let [rx, ry] = offsets[$c];
                // Distance across the gullies, in cells, and its place in the nearest one.
                let t = c * (rx * n0 + ry * n1);
                let t = t - t.round_ties_even();
                let [t_x, t_y] = [0, 1]
                    .map(|j| d * across[j].value + rx * across[0].gradient[j] + ry * across[1].gradient[j]);
                // `p = a t² - b t⁴` and `p_t = 2t (a - 2b t²)`.
                let t2 = t * t;
                let m = b * t2;
                let rest = a - m;
                let p_t = (rest - m) * (t + t);
                let p = Dual::new(t2 * rest, [p_t * t_x, p_t * t_y]);
                // The rounded profile's slope times the cells per map unit (for the bend).
                let r_t = r1 - rt * t2;
                let r = Dual::new(t * (r1 - r3 * t2), [r_t * t_x, r_t * t_y]);
                (p, r)
            }};
        }
        let cells = [cell!(0), cell!(1), cell!(2), cell!(3)];
        let profiles = [cells[0].0, cells[1].0, cells[2].0, cells[3].0];
        // The profile blended, less its mean, and for the bend its blend by the weights' slopes.
        let (profile, towards) = blend_cells(profiles, x, y);
        let profile = profile.plus(-(1.0 + self.profile_mean));
        let rounded = if bends {
            blend_cells([cells[0].1, cells[1].1, cells[2].1, cells[3].1], x, y).0
        } else {
            Dual::new(0.0, [0.0; 2])
        };
        GullyProfile { profile, towards, rounded }
    }

    /// The last stage of an octave (see [`octave_in`](Self::octave_in)): the gullies' change
    /// added to the state, and with `bends` the slope bent.
    #[inline(always)]
    pub(crate) fn carve(
        &self,
        bends: bool,
        state: GullyState<Dual>,
        GullyDirection { across, half_depth, .. }: GullyDirection,
        GullyProfile { profile, towards, rounded }: GullyProfile,
    ) -> GullyState<Dual> {
        let GullyState { mask, slope, above } = state;
        // The profile (ridges up, gullies down, its mean across a gully taken off so that the
        // ground keeps its mean height) times half the depth; never past the field's bounds: a
        // smooth minimum of the change and the room left (`x·r / (x + r)`, which starts with
        // slope 1 either way).
        let change = half_depth * profile;
        // The room on the change's side: the height above the lower bound when it lowers, below
        // the upper one when it raises. `c r / (|c| + r)` with its gradient `(r / (|c| + r))² ∇c
        // + c |c| / (|c| + r)² ∇r`, where `∇r = ∓∇above` makes the last term `-(c / (|c| + r))²
        // ∇above` on either side: one division, no branch on the sign.
        let room = if change.value < 0.0 { above.value } else { self.range - above.value };
        let inverse = 1.0 / (change.value.abs() + room + f32::MIN_POSITIVE);
        let (room_share, change_share) = (room * inverse, change.value * inverse);
        let (rr, cc) = (room_share * room_share, change_share * change_share);
        let change = Dual::new(
            change.value * room_share,
            [0, 1].map(|j| rr * change.gradient[j] - cc * above.gradient[j]),
        );
        let slope = if bends {
            // The slope that bends the next octave, with the direction held: the weights' slopes
            // times the profile, plus the rounded profile's slope across the gullies.
            let bent = half_depth.times(self.bend);
            [
                slope[0] + bent * (towards[0] + rounded * across[0]),
                slope[1] + bent * (towards[1] + rounded * across[1]),
            ]
        } else {
            slope
        };
        // Rounding can leave the sum a hair outside the range (a clamp to constant bounds, which
        // keeps the pixel loops free of a check that the bounds are in order).
        GullyState { mask, slope, above: (above + change).clamp(0.0, self.range) }
    }

    /// The share of an octave's depth kept where the slope it follows is short against the
    /// field's steepness `mask` (see [`TURNING_SLOPE`]), with its gradient: `q³ / (1 + q³)` for
    /// `q = u² n / ((κ · mask)² + ε²)`, `n` the bent slope's square `square` (per map unit; `u²
    /// n` per base lattice cell of a unit range), whose gradient is `2 u² (s₀∇s₀ + s₁∇s₁)`
    /// (`slope_dot` the sum).
    #[inline(always)]
    fn kept_where_turning(&self, square: f32, slope_dot: [f32; 2], mask: Dual) -> Dual {
        let k2 = TURNING_SLOPE * TURNING_SLOPE;
        let inverse = 1.0 / (k2 * mask.value * mask.value + FLAT_SLOPE * FLAT_SLOPE);
        let to_n = self.slope_unit * self.slope_unit;
        let q = square * (to_n * inverse);
        let (to_n, to_reference) = (2.0 * to_n, 2.0 * k2 * mask.value);
        let q_gradient =
            [0, 1].map(|j| (to_n * slope_dot[j] - q * to_reference * mask.gradient[j]) * inverse);
        let (q2, q3) = (q * q, q * q * q);
        let over = 1.0 / (1.0 + q3);
        let slope = 3.0 * q2 * over * over;
        Dual::new(q3 * over, q_gradient.map(|g| slope * g))
    }

    /// The filtered height from the field's height `h` and the state after the last octave, and
    /// the depth of the cut (a share of the range, `[0, 1]`).
    #[inline(always)]
    pub(crate) fn finish<T: Varying>(&self, h: T, state: GullyState<T>) -> (T, f32) {
        let depth_share = ((h.value() - self.lo - state.above.value()) * self.inv_range).clamp(0.0, 1.0);
        (state.above.plus(self.lo), depth_share)
    }
}

/// `Σ w v` over the four cells around a point (`v` in the order `(0, 0)`, `(1, 0)`, `(0, 1)`,
/// `(1, 1)`), weighted by the quintic weights `x = [w, ∂w/∂x, ∂²w/∂x²]` of the upper cell in x
/// (the lower one's are `1 - w` and the negated slopes) and `y` likewise, and `[Σ ∂w/∂x · v,
/// Σ ∂w/∂y · v]`, each with its gradient: as a bilinear blend, `v₀ + wx (v₁ - v₀)` along each
/// row of cells and then along y, which takes a third of the operations of the four products.
#[inline(always)]
pub(super) fn blend_cells(
    v: [Dual; 4],
    [wx, dwx, ddwx]: [f32; 3],
    [wy, dwy, ddwy]: [f32; 3],
) -> (Dual, [Dual; 2]) {
    // Along x in each row of cells, then along y.
    let (step_bottom, step_top) = (v[1] - v[0], v[3] - v[2]);
    let (bottom, top) = (lerp_along(0, v[0], step_bottom, wx, dwx), lerp_along(0, v[2], step_top, wx, dwx));
    let rise = top - bottom;
    let blend = lerp_along(1, bottom, rise, wy, dwy);
    // Σ ∂w/∂y · v = ∂wy/∂y · (top - bottom).
    let toward_y =
        Dual::new(dwy * rise.value, [dwy * rise.gradient[0], ddwy * rise.value + dwy * rise.gradient[1]]);
    // Σ ∂w/∂x · v = ∂wx/∂x · (the rows' steps blended along y).
    let step = lerp_along(1, step_bottom, step_top - step_bottom, wy, dwy);
    let toward_x =
        Dual::new(dwx * step.value, [ddwx * step.value + dwx * step.gradient[0], dwx * step.gradient[1]]);
    (blend, [toward_x, toward_y])
}

/// `lo + w · step` with its gradient, for a weight `w` of the coordinate `axis` alone (its
/// slope `dw` along that axis, none along the other).
#[inline(always)]
fn lerp_along(axis: usize, lo: Dual, step: Dual, w: f32, dw: f32) -> Dual {
    let mut gradient = [lo.gradient[0] + w * step.gradient[0], lo.gradient[1] + w * step.gradient[1]];
    gradient[axis] += dw * step.value;
    Dual::new(lo.value + w * step.value, gradient)
}

/// The quintic fade `6t⁵ - 15t⁴ + 10t³` of a cell fraction `t`, with its slope `30t²(t - 1)²`
/// and curvature `60t(t - 1)(2t - 1)` per map unit (`d` cells per map unit).
#[inline(always)]
pub(super) fn quintic_jet(t: f32, d: f32) -> [f32; 3] {
    let w = t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
    let u = t * (t - 1.0);
    [w, u * u * (30.0 * d), u * (2.0 * t - 1.0) * (60.0 * d * d)]
}

/// Numbers the filter runs on: heights alone (`f32`) or heights with their gradients
/// ([`Dual`]). Octaves are computed on [`Dual`] numbers either way (for `f32` with no gradient,
/// which the compiler then leaves out), so heights are the same bits with or without gradients.
pub(crate) trait GullyNumber: Varying {
    /// As a [`Dual`] (with no gradient for `f32`).
    fn to_dual(self) -> Dual;
    /// From a [`Dual`] (its value alone for `f32`).
    fn from_dual(d: Dual) -> Self;
}

impl GullyNumber for f32 {
    #[inline(always)]
    fn to_dual(self) -> Dual {
        Dual::new(self, [0.0; 2])
    }
    #[inline(always)]
    fn from_dual(d: Dual) -> Self {
        d.value
    }
}

impl GullyNumber for Dual {
    #[inline(always)]
    fn to_dual(self) -> Dual {
        self
    }
    #[inline(always)]
    fn from_dual(d: Dual) -> Self {
        d
    }
}
