//! The erosion filter's tests: settings, exact derivatives, bounds.

use super::gullies::{blend_cells, quintic_jet};
use super::*;

fn plan() -> GullyPlan {
    ErosionFilter { enabled: true, ..ErosionFilter::default() }.plan((0.0, 1.0), 4.0).unwrap()
}

#[test]
fn off_or_without_depth_there_is_no_plan() {
    assert!(ErosionFilter::default().plan((0.0, 1.0), 4.0).is_none());
    let flat = ErosionFilter { enabled: true, strength: 0.0, ..ErosionFilter::default() };
    assert!(flat.plan((0.0, 1.0), 4.0).is_none());
    let on = ErosionFilter { enabled: true, ..ErosionFilter::default() };
    assert!(on.plan((0.5, 0.5), 4.0).is_none(), "no range to cut into");
}

#[test]
fn clamps_every_parameter_and_nan_takes_the_default() {
    let wild = ErosionFilter {
        enabled: true,
        strength: f32::NAN,
        scale: 1e9,
        octaves: 99,
        gain: -3.0,
        bend: f32::INFINITY,
        sharpness: -1.0,
        keep_peaks: 2.0,
        keep_floors: f32::NAN,
        seed: 5,
    }
    .clamped();
    let d = ErosionFilter::default();
    assert_eq!(wild.strength, d.strength);
    assert_eq!(wild.scale, FILTER_SCALE_RANGE.1);
    assert_eq!(wild.octaves, MAX_FILTER_OCTAVES);
    assert_eq!((wild.gain, wild.bend, wild.sharpness, wild.keep_peaks), (0.0, 1.0, 0.0, 1.0));
    assert_eq!(wild.keep_floors, d.keep_floors);
}

#[test]
fn heights_stay_in_the_bounds_and_flat_ground_is_kept() {
    let p = plan();
    let mut state = 1u64;
    let (mut cut, mut raised) = (0, 0);
    for _ in 0..20_000 {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let r = |k: u32| ((state >> k) & 0xFFFF) as f64 / 65535.0;
        let q = [r(0) * 200.0 - 100.0, r(16) * 200.0 - 100.0];
        let h = r(32) as f32;
        // Slopes up to 40 height ranges per map unit: 10 per base lattice cell.
        let s = [(r(48) as f32 - 0.5) * 80.0, (r(8) as f32 - 0.5) * 80.0];
        let (out, depth) = p.apply(q, h, s);
        assert!((0.0..=1.0).contains(&out), "{out} from {h}");
        assert!((0.0..=1.0).contains(&depth) && (depth - (h - out).max(0.0)).abs() < 1e-6);
        cut += (depth > 0.01) as u32;
        raised += (out > h + 0.01) as u32;
    }
    assert!(cut > 5_000 && raised > 2_000, "{cut} {raised}");
    // No slope: no gullies, the same height.
    assert_eq!(p.apply([3.3, 4.4], 0.5f32, [0.0, 0.0]), (0.5, 0.0));
}

#[test]
fn the_quintic_weights_slope_and_curvature_are_its_derivatives_per_map_unit() {
    let w = |t: f64| t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
    let h = 1e-4;
    for k in 1..20 {
        let (t, d) = (k as f64 / 20.0, 0.5 + k as f64 * 0.4);
        let [value, slope, curvature] = quintic_jet(t as f32, d as f32).map(f64::from);
        let (first, second) =
            ((w(t + h) - w(t - h)) / (2.0 * h), (w(t + h) - 2.0 * w(t) + w(t - h)) / (h * h));
        assert!((value - w(t)).abs() < 1e-6, "{t}");
        assert!((slope - first * d).abs() < 1e-5 * d, "{t} {d}: {slope} against {}", first * d);
        assert!(
            (curvature - second * d * d).abs() < 1e-3 * d * d,
            "{t} {d}: {curvature} against {}",
            second * d * d
        );
    }
}

#[test]
fn the_cells_blend_is_the_weighted_sum_of_the_four_with_its_derivatives() {
    // Against the four products `w = wx·wy` written out, with the product rule.
    let mut state = 5u64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 40) as f32) / (1u64 << 24) as f32
    };
    for _ in 0..2000 {
        let (fx, fy, d) = (next(), next(), 0.5 + 8.0 * next());
        let v: [Dual; 4] = std::array::from_fn(|_| {
            Dual::new(4.0 * next() - 2.0, [40.0 * next() - 20.0, 40.0 * next() - 20.0])
        });
        let (x, y) = (quintic_jet(fx, d), quintic_jet(fy, d));
        let (blend, [toward_x, toward_y]) = blend_cells(v, x, y);
        let side =
            |[w, dw, ddw]: [f32; 3], upper: bool| if upper { [w, dw, ddw] } else { [1.0 - w, -dw, -ddw] };
        let (mut sum, mut sum_x, mut sum_y) = ([0.0f64; 3], [0.0f64; 3], [0.0f64; 3]);
        for (c, v) in v.iter().enumerate() {
            let ([wx, dwx, ddwx], [wy, dwy, ddwy]) = (side(x, c & 1 == 1), side(y, c >> 1 == 1));
            let [p, px, py] = [v.value, v.gradient[0], v.gradient[1]].map(f64::from);
            let [wx, dwx, ddwx, wy, dwy, ddwy] = [wx, dwx, ddwx, wy, dwy, ddwy].map(f64::from);
            let (w, w_x, w_y) = (wx * wy, dwx * wy, wx * dwy);
            for (s, add) in [
                (&mut sum, [w * p, w_x * p + w * px, w_y * p + w * py]),
                (&mut sum_x, [w_x * p, ddwx * wy * p + w_x * px, dwx * dwy * p + w_x * py]),
                (&mut sum_y, [w_y * p, dwx * dwy * p + w_y * px, wx * ddwy * p + w_y * py]),
            ] {
                for k in 0..3 {
                    s[k] += add[k];
                }
            }
        }
        for (got, want) in [(blend, sum), (toward_x, sum_x), (toward_y, sum_y)] {
            let got = [got.value, got.gradient[0], got.gradient[1]].map(f64::from);
            for k in 0..3 {
                let tolerance = 1e-4 * (1.0 + want[k].abs()) * (1.0 + d as f64 * d as f64);
                assert!(
                    (got[k] - want[k]).abs() < tolerance,
                    "{k}: {got:?} against {want:?} at {fx} {fy} {d}"
                );
            }
        }
    }
}

#[test]
fn the_gradient_matches_central_differences_of_the_heights() {
    // Sharp crests are creases, where the gradient is one side's: fewer points qualify.
    check_gradient(plan(), 200);
    let rounded = ErosionFilter { enabled: true, sharpness: 0.0, ..ErosionFilter::default() };
    check_gradient(rounded.plan((0.0, 1.0), 4.0).unwrap(), 200);
    let parallel = ErosionFilter { enabled: true, bend: 0.0, octaves: 6, ..ErosionFilter::default() };
    check_gradient(parallel.plan((0.0, 1.0), 4.0).unwrap(), 100);
}

/// Checks the filter's gradient against central differences of its heights on 400 points of
/// a smooth test field, at least `min_checked` of them away from creases.
fn check_gradient(p: GullyPlan, min_checked: usize) {
    // A smooth test field h = sin(x)·cos(0.7y)/2 + 0.5 with its exact Hessian, filtered.
    let field = |x: f64, y: f64| {
        let (sx, cx) = x.sin_cos();
        let (sy, cy) = (0.7 * y).sin_cos();
        let h = Dual::new((sx * cy * 0.5 + 0.5) as f32, [(cx * cy * 0.5) as f32, (-sx * sy * 0.35) as f32]);
        let hxx = -sx * cy * 0.5;
        let hxy = -cx * sy * 0.35;
        let hyy = -sx * cy * 0.245;
        let s = [
            Dual::new(h.gradient[0], [hxx as f32, hxy as f32]),
            Dual::new(h.gradient[1], [hxy as f32, hyy as f32]),
        ];
        (h, s)
    };
    // The map unit is the field's unit: frequency 4 makes q = 4 (x, y).
    let at = |x: f64, y: f64| {
        let (h, s) = field(x, y);
        p.apply::<Dual>([x * 4.0, y * 4.0], h, s).0
    };
    let height = |x: f64, y: f64| {
        let (h, s) = field(x, y);
        p.apply::<f32>([x * 4.0, y * 4.0], h.value, [s[0].value, s[1].value]).0 as f64
    };
    let (mut checked, step) = (0, 5e-5);
    for k in 0..400 {
        let (x, y) = (0.31 + k as f64 * 0.0173, 1.7 - k as f64 * 0.0091);
        let d = at(x, y);
        assert_eq!(d.value.to_bits(), (height(x, y) as f32).to_bits(), "the same value either way");
        // Central differences at two steps, to tell a crease between the samples (the
        // steps disagree) from a wrong gradient (both disagree with it).
        let difference = |step: f64| {
            [
                (height(x + step, y) - height(x - step, y)) / (2.0 * step),
                (height(x, y + step) - height(x, y - step)) / (2.0 * step),
            ]
        };
        let (coarse, fine) = (difference(step), difference(step / 4.0));
        let tolerance = 4e-3 * (1.0 + coarse[0].hypot(coarse[1]));
        // A crease near the point (the ridge crests of sharp gullies, where the gradient is
        // one side's) shows as differences that change with the step, or as a gradient that
        // jumps within the step: skip those points.
        let jumps = [(step, 0.0), (0.0, step)].iter().any(|&(dx, dy)| {
            let (a, b) = (at(x - dx, y - dy).gradient, at(x + dx, y + dy).gradient);
            let bend = [0, 1].map(|c| (a[c] + b[c] - 2.0 * d.gradient[c]) as f64);
            bend[0].hypot(bend[1]) > tolerance
        });
        if jumps || (0..2).any(|a| (coarse[a] - fine[a]).abs() > tolerance / 2.0) {
            continue;
        }
        checked += 1;
        for a in 0..2 {
            let error = (d.gradient[a] as f64 - fine[a]).abs();
            assert!(error < tolerance, "{x} {y} axis {a}: {d:?} vs {coarse:?} and {fine:?}");
        }
    }
    assert!(checked >= min_checked, "{checked}");
}
