//! The damped fractal over a row: each octave's heights and slopes, the sums damped by the
//! slopes so far.

use super::*;

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
pub(super) fn add_octave(kind: Fractal, amplitude: f32, layer: [&[f32]; 3], sums: &mut [Vec<f32>; 3]) {
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
