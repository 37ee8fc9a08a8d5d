//! [`FieldSampler`]: a field's settings made ready to sample (lattices, fractal constants,
//! turns, the erosion filter's plan), and sampling it at a point, with or without its gradient.

use super::*;

/// How many of the first octaves of `settings` (clamped) give the slope that the erosion filter's
/// gullies follow: those whose lattice is at most half as fine as the filter's first octave (at
/// least one). Finer octaves would turn the gullies at every bump of their own size.
fn coarse_octaves(settings: &NoiseSettings) -> u32 {
    let finest = settings.erosion_filter.scale as f64 / 2.0;
    let lacunarity = settings.lacunarity as f64;
    let coarse = (1..settings.octave_count()).take_while(|&i| lacunarity.powi(i as i32) <= finest).count();
    1 + coarse as u32
}

/// [`NoiseSettings`] prepared for sampling many points: clamped once, with the octave lattices and
/// the fractal's bounds computed once.
///
/// ```
/// use noise_terrain_core::{FieldSampler, NoiseSettings};
///
/// let sampler = FieldSampler::new(&NoiseSettings { octaves: 6, ..Default::default() });
/// let heights: Vec<f32> = (0..100).map(|i| sampler.sample(i as f64 * 0.01, 0.5)).collect();
/// assert!(heights.iter().all(|h| (0.0..=1.0).contains(h)));
/// ```
#[derive(Clone, Debug)]
pub struct FieldSampler {
    pub(crate) settings: NoiseSettings,
    pub(crate) fractal: FractalParams,
    pub(crate) to_unit: RawToUnit,
    pub(crate) lattices: [Lattice; MAX_OCTAVES as usize],
    turns: [OctaveTurn; MAX_OCTAVES as usize],
    pub(crate) worley_search: WorleySearch,
    /// The erosion filter, prepared; `None` when it is off.
    pub(crate) filter: Option<GullyPlan>,
    /// How many of the first octaves give the slope the filter's gullies follow: those at most
    /// half as fine as its first octave.
    pub(crate) filter_octaves: u32,
}

impl FieldSampler {
    /// Prepares `settings` (clamped) for sampling.
    pub fn new(settings: &NoiseSettings) -> Self {
        let settings = settings.clamped();
        let fractal = settings.fractal_params();
        Self {
            settings,
            fractal,
            to_unit: fractal.raw_to_unit(),
            lattices: std::array::from_fn(|i| settings.lattice(i as u32)),
            turns: std::array::from_fn(|i| settings.octave_turn(i as u32)),
            worley_search: WorleySearch::new(&settings.worley),
            filter: settings.erosion_filter.plan(settings.value_bounds(), settings.frequency),
            filter_octaves: coarse_octaves(&settings),
        }
    }

    /// Map point `(x, y)` in lattice units of the base frequency, `(x + offset) · frequency`,
    /// with the grids' operations (the erosion filter's cells are laid out there).
    #[inline(always)]
    pub(crate) fn base_position(&self, x: f64, y: f64) -> [f64; 2] {
        let s = &self.settings;
        [(x + s.offset.x) * s.frequency as f64, (y + s.offset.y) * s.frequency as f64]
    }

    /// Octave `i`'s position: `[x, y]` (the base lattice position times the octave's scale),
    /// turned when the settings turn octaves. Octave 0 is never turned: not even multiplied by
    /// the identity, which would make an infinite coordinate NaN (`∞ · 0`) where the grid's rows
    /// keep it infinite.
    #[inline(always)]
    fn octave_position(&self, i: u32, x: f64, y: f64) -> [f64; 2] {
        if self.settings.rotate_octaves && i > 0 { self.turns[i as usize].apply([x, y]) } else { [x, y] }
    }

    /// Whether the erosion filter applies (it is on and the field supports it).
    pub fn has_erosion_filter(&self) -> bool {
        self.filter.is_some()
    }

    /// The clamped settings.
    pub fn settings(&self) -> &NoiseSettings {
        &self.settings
    }

    /// See [`NoiseSettings::sample`].
    #[inline]
    pub fn sample(&self, x: f64, y: f64) -> f32 {
        match &self.filter {
            Some(plan) => self.filtered(plan, x, y).0,
            None => self.unfiltered(x, y),
        }
    }

    /// How deep the erosion filter cuts at `(x, y)`, as a share of the field's height range, in
    /// `[0, 1]` (0 everywhere with the filter off): what colour rules paint gullies by.
    pub fn sample_cut_depth(&self, x: f64, y: f64) -> f32 {
        self.filter.as_ref().map_or(0.0, |plan| self.filtered(plan, x, y).1)
    }

    /// Bounds `[low, high]` of the height [`sample`](Self::sample) gives at `(x, y)`, for a
    /// fraction of its cost: the height itself without the erosion filter; with it, the field's
    /// height before the filter, widened by the most the filter's gullies can move it there (from
    /// the coarse slope alone). For skipping points whose height is sure to be out of a range.
    pub fn sample_bounds(&self, x: f64, y: f64) -> [f32; 2] {
        let h = self.unfiltered(x, y);
        match &self.filter {
            Some(plan) => {
                let most = plan.most_change(h, self.coarse_slope_length(x, y));
                [h - most, h + most]
            }
            None => [h, h],
        }
    }

    /// The height with the erosion filter and the depth of its cut.
    fn filtered(&self, plan: &GullyPlan, x: f64, y: f64) -> (f32, f32) {
        let (slope, _) = self.coarse_slope(x, y);
        plan.apply(self.base_position(x, y), self.unfiltered(x, y), slope)
    }

    /// The fractal's height before the erosion filter.
    #[inline]
    fn unfiltered(&self, x: f64, y: f64) -> f32 {
        let s = &self.settings;
        let f = s.frequency as f64;
        let (px, py) = s.warp.displace(s.seed, s.period, (x + s.offset.x) * f, (y + s.offset.y) * f);
        let raw = if self.fractal.kind.needs_slopes() {
            self.fractal.raw_with_slopes(|i, scale| {
                let [x, y] = self.octave_position(i, px * scale, py * scale);
                let n = s.basis.signed_2d_with_gradient(&self.lattices[i as usize], &s.worley, x, y);
                Sloped { value: n.value, slope: self.turns[i as usize].gradient_back(n.gradient) }
            })
        } else {
            self.fractal.raw(|i, scale| {
                let [x, y] = self.octave_position(i, px * scale, py * scale);
                s.basis.signed_2d(&self.lattices[i as usize], &s.worley, x, y)
            })
        };
        self.to_unit.apply(raw)
    }

    /// See [`NoiseSettings::sample_with_gradient`].
    pub fn sample_with_gradient(&self, x: f64, y: f64) -> Dual {
        self.sample_with_gradient_and_cut(x, y).0
    }

    /// [`sample_with_gradient`](Self::sample_with_gradient) and
    /// [`sample_cut_depth`](Self::sample_cut_depth) from one evaluation of the erosion filter (half
    /// the time of asking for both).
    pub fn sample_with_gradient_and_cut(&self, x: f64, y: f64) -> (Dual, f32) {
        let Some(plan) = &self.filter else { return (self.unfiltered_with_gradient(x, y), 0.0) };
        let ([gx, gy], [xx, xy, yy]) = self.coarse_slope(x, y);
        let slope = [Dual::new(gx, [xx, xy]), Dual::new(gy, [xy, yy])];
        let (height, cut) = plan.apply(self.base_position(x, y), self.unfiltered_with_gradient(x, y), slope);
        (height.with_finite_gradient(), cut)
    }

    /// The slope per map unit of the field's first [`filter_octaves`](Self::filter_octaves)
    /// octaves (fBm, billow or a single layer, without warp: the fields the erosion filter applies
    /// to) and its derivatives `[∂²/∂x², ∂²/∂x∂y, ∂²/∂y²]` per map unit²: the slope the filter's
    /// gullies follow.
    fn coarse_slope(&self, x: f64, y: f64) -> ([f32; 2], [f32; 3]) {
        let s = &self.settings;
        let [px, py] = self.base_position(x, y);
        let (mut scale, mut amplitude) = (1.0f64, 1.0f32);
        let mut sums = ([0.0f32; 2], [0.0f32; 3]);
        for i in 0..self.filter_octaves {
            let [x, y] = self.octave_position(i, px * scale, py * scale);
            let n = s.basis.signed_2d_with_hessian(&self.lattices[i as usize], &s.worley, x, y);
            let (mut g, mut h) = (n.first.gradient, n.hessian);
            if s.rotate_octaves && i > 0 {
                // Turned back to the field's axes: the gradient by Rᵀ, the Hessian by Rᵀ H R.
                let turn = self.turns[i as usize];
                g = turn.gradient_back(g);
                let columns = h.map(|column| turn.gradient_back(column));
                h = [0, 1].map(|a| turn.gradient_back([columns[0][a], columns[1][a]]));
            }
            let octave =
                OctaveJet { value: n.first.value, gradient: g, hessian: [h[0][0], h[0][1], h[1][1]] };
            sums = octave.add_to(self.fractal.kind, amplitude, scale as f32 * s.frequency, sums);
            amplitude *= self.fractal.persistence;
            scale *= s.lacunarity as f64;
        }
        let k = self.to_unit.slope_scale();
        (sums.0.map(|g| g * k), sums.1.map(|h| h * k))
    }

    /// At least the length of [`coarse_slope`](Self::coarse_slope)'s slope, from the octaves'
    /// gradients alone (no second derivatives): their sum's length, with a relative margin for
    /// the other path's rounding; for billow the sum of their lengths, as an octave whose value
    /// is within rounding of 0 could take either sign there.
    fn coarse_slope_length(&self, x: f64, y: f64) -> f32 {
        let s = &self.settings;
        let [px, py] = self.base_position(x, y);
        let (mut scale, mut amplitude) = (1.0f64, 1.0f32);
        let (mut sum, mut lengths) = ([0.0f32; 2], 0.0f32);
        for i in 0..self.filter_octaves {
            let [x, y] = self.octave_position(i, px * scale, py * scale);
            let n = s.basis.signed_2d_with_gradient(&self.lattices[i as usize], &s.worley, x, y);
            let octave = OctaveJet { value: n.value, gradient: n.gradient, hessian: [0.0; 3] };
            // Turning a gradient keeps its length, and lengths are all billow needs.
            let (g, _) =
                octave.add_to(self.fractal.kind, amplitude, scale as f32 * s.frequency, ([0.0; 2], [0.0; 3]));
            let g = if s.rotate_octaves && i > 0 { self.turns[i as usize].gradient_back(g) } else { g };
            sum = [sum[0] + g[0], sum[1] + g[1]];
            lengths += g[0].hypot(g[1]);
            amplitude *= self.fractal.persistence;
            scale *= s.lacunarity as f64;
        }
        let length = match self.fractal.kind {
            Fractal::Billow => lengths,
            _ => sum[0].hypot(sum[1]),
        };
        length * self.to_unit.slope_scale() * 1.001
    }

    /// The fractal's height before the erosion filter and its gradient per map unit.
    fn unfiltered_with_gradient(&self, x: f64, y: f64) -> Dual {
        let s = &self.settings;
        let f = s.frequency as f64;
        let ((px, py), j) =
            s.warp.displace_with_jacobian(s.seed, s.period, (x + s.offset.x) * f, (y + s.offset.y) * f);
        let j = s.warp.is_active().then_some(j);
        // A gradient per lattice unit of octave `i` (at `scale`), to per base lattice unit,
        // through the warp (when there is one), to per map unit.
        let to_map = |[gx, gy]: [f32; 2], scale: f64| {
            let (k, f) = (scale as f32, f as f32);
            match j {
                Some(j) => {
                    let (gx, gy) = (gx * k, gy * k);
                    [(gx * j[0][0] + gy * j[1][0]) * f, (gx * j[0][1] + gy * j[1][1]) * f]
                }
                // One factor per octave, as the grid's rows apply it.
                None => [gx * (k * f), gy * (k * f)],
            }
        };
        let lattice = |i: u32| &self.lattices[i as usize];
        let raw = if self.fractal.kind.needs_slopes() {
            // Each octave's slope (per lattice unit of its own) changes with the position by a
            // row of the octave's Hessian.
            self.fractal.raw_with_slopes(|i, scale| {
                let [x, y] = self.octave_position(i, px * scale, py * scale);
                let n = s.basis.signed_2d_with_hessian(lattice(i), &s.worley, x, y);
                // Turned back to the field's axes: the gradient by Rᵀ, the Hessian by Rᵀ H R.
                let turn = self.turns[i as usize];
                let columns = n.hessian.map(|column| turn.gradient_back(column));
                let h = [0, 1].map(|a| turn.gradient_back([columns[0][a], columns[1][a]]));
                let g = turn.gradient_back(n.first.gradient);
                let slope = |a: usize| Dual::new(g[a], to_map(h[a], scale));
                Sloped { value: Dual::new(n.first.value, to_map(g, scale)), slope: [slope(0), slope(1)] }
            })
        } else {
            self.fractal.raw(|i, scale| {
                let [x, y] = self.octave_position(i, px * scale, py * scale);
                let n = s.basis.signed_2d_with_gradient(lattice(i), &s.worley, x, y);
                // Unturned octaves skip the identity turn, which would make a -0 slope +0 where
                // the grid's rows keep it (a single layer has no sum to do the same).
                let g = if s.rotate_octaves && i > 0 {
                    self.turns[i as usize].gradient_back(n.gradient)
                } else {
                    n.gradient
                };
                Dual::new(n.value, to_map(g, scale))
            })
        };
        self.to_unit.apply(raw).with_finite_gradient()
    }

    /// See [`NoiseSettings::sample_1d`].
    pub fn sample_1d(&self, x: f64) -> f32 {
        let s = &self.settings;
        let px = (x + s.offset.x) * s.frequency as f64;
        let raw = self
            .fractal
            .raw(|i, scale| s.basis.unit_1d(&self.lattices[i as usize], &s.worley, px * scale) * 2.0 - 1.0);
        self.to_unit.apply(raw)
    }

    /// See [`NoiseSettings::sample_3d`].
    pub fn sample_3d(&self, x: f64, y: f64, z: f64) -> f32 {
        let s = &self.settings;
        let f = s.frequency as f64;
        let (px, py, pz) = ((x + s.offset.x) * f, (y + s.offset.y) * f, z * f);
        let raw = self.fractal.raw(|i, scale| {
            let [x, y] = self.octave_position(i, px * scale, py * scale);
            s.basis.unit_3d(&self.lattices[i as usize], &s.worley, x, y, pz * scale) * 2.0 - 1.0
        });
        self.to_unit.apply(raw)
    }

    /// See [`NoiseSettings::sample_3d_with_gradient`].
    pub fn sample_3d_with_gradient(&self, x: f64, y: f64, z: f64) -> Dual<3> {
        let s = &self.settings;
        let f = s.frequency as f64;
        let (px, py, pz) = ((x + s.offset.x) * f, (y + s.offset.y) * f, z * f);
        let raw = self.fractal.raw(|i, scale| {
            let [x, y] = self.octave_position(i, px * scale, py * scale);
            let n = s.basis.unit_3d_with_gradient(&self.lattices[i as usize], &s.worley, x, y, pz * scale);
            // To `[-1, 1]` as `sample_3d` does; the gradient turned back about z, then per
            // lattice unit of the octave to per map unit.
            let [gx, gy] = self.turns[i as usize].gradient_back([n.gradient[0], n.gradient[1]]);
            let (k, f) = (scale as f32, f as f32);
            Dual::new(n.value * 2.0 - 1.0, [gx, gy, n.gradient[2]].map(|g| g * 2.0 * k * f))
        });
        self.to_unit.apply(raw).with_finite_gradient()
    }
}
