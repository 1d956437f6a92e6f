//! Exact multinomial draws from one random stream, for resampling by type.
//!
//! A bootstrap resample of U problems only needs how many draws land on
//! each *type* of problem (problems whose per-metric values coincide). When
//! there are T ≪ U types, drawing those counts directly — one binomial per
//! type, conditioned on the draws left — costs O(T log U) instead of U
//! index draws. Binomials use inversion when the mean is small and
//! otherwise the order-statistic split at a ≈ n·p (the a-th smallest of n
//! uniforms is Beta(a, n−a+1); Knuth, TAOCP 2, §3.4.1), with
//! Marsaglia–Tsang gamma variates. All of it is exact in distribution up to floating point.

use crate::rng::Xoshiro256PlusPlus;

/// A uniform in (0, 1) (never 0, so logs are finite).
fn open01(r: &mut Xoshiro256PlusPlus) -> f64 {
    ((r.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
}

/// A standard normal (polar Box–Muller; the second value is discarded so
/// that every call consumes the stream the same way).
fn normal(r: &mut Xoshiro256PlusPlus) -> f64 {
    loop {
        let u = 2.0 * open01(r) - 1.0;
        let v = 2.0 * open01(r) - 1.0;
        let s = u * u + v * v;
        if s < 1.0 && s > 0.0 {
            return u * (-2.0 * s.ln() / s).sqrt();
        }
    }
}

/// Gamma(shape, 1) for shape ≥ 1 (Marsaglia & Tsang 2000).
fn gamma(r: &mut Xoshiro256PlusPlus, shape: f64) -> f64 {
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(r);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = open01(r);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// Binomial(n, p) by inversion: walk the pmf from 0 (expected n·p steps).
fn binomial_inversion(r: &mut Xoshiro256PlusPlus, n: u64, p: f64) -> u64 {
    let q = 1.0 - p;
    let ratio = p / q;
    let mut pmf = q.powf(n as f64);
    let mut u = open01(r);
    let mut x = 0u64;
    while u > pmf && x < n {
        u -= pmf;
        pmf *= ratio * (n - x) as f64 / (x + 1) as f64;
        x += 1;
        if pmf == 0.0 {
            break;
        }
    }
    x
}

/// Binomial(n, p), exact in distribution.
pub(crate) fn binomial(r: &mut Xoshiro256PlusPlus, n: u64, p: f64) -> u64 {
    if n == 0 || p <= 0.0 {
        return 0;
    }
    if p >= 1.0 {
        return n;
    }
    if p > 0.5 {
        return n - binomial(r, n, 1.0 - p);
    }
    if (n as f64) * p < 30.0 {
        return binomial_inversion(r, n, p);
    }
    // The a-th smallest of n uniforms, X ~ Beta(a, n − a + 1). Any a works;
    // a near n·p puts X near p, so both sub-problems are small or nearly
    // certain and the recursion ends after a level or two.
    let a = ((n as f64 * p) as u64 + 1).min(n);
    let b = n - a + 1;
    let ga = gamma(r, a as f64);
    let gb = gamma(r, b as f64);
    let x = ga / (ga + gb);
    if x >= p {
        // The a − 1 smaller uniforms are uniform on [0, X).
        binomial(r, a - 1, p / x)
    } else {
        // X and the a − 1 below it count; the n − a above are uniform on (X, 1].
        a + binomial(r, n - a, (p - x) / (1.0 - x))
    }
}

/// Counts of `total` draws over categories of the given sizes (each draw
/// picks one of `Σ sizes` items uniformly), written into `out`.
pub(crate) fn multinomial(r: &mut Xoshiro256PlusPlus, total: u64, sizes: &[u64], out: &mut [u32]) {
    let mut left_draws = total;
    let mut left_items: u64 = sizes.iter().sum();
    for (i, &s) in sizes.iter().enumerate() {
        if left_draws == 0 || left_items == 0 {
            out[i] = 0;
            continue;
        }
        let w = if s == left_items {
            left_draws
        } else {
            binomial(r, left_draws, s as f64 / left_items as f64)
        };
        out[i] = w as u32;
        left_draws -= w;
        left_items -= s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    /// Mean and variance of binomial draws match n·p and n·p·q across the
    /// inversion and the split regimes (4 standard errors).
    #[test]
    fn binomial_moments() {
        for &(n, p) in &[
            (10u64, 0.3),
            (200, 0.05),
            (1000, 0.5),
            (100_000, 0.37),
            (7, 0.9),
            (5_000_000, 0.001),
        ] {
            let draws = 20_000;
            let mut r = stream(42, n);
            let xs: Vec<f64> = (0..draws).map(|_| binomial(&mut r, n, p) as f64).collect();
            let mean = xs.iter().sum::<f64>() / draws as f64;
            let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (draws - 1) as f64;
            let (m, v) = (n as f64 * p, n as f64 * p * (1.0 - p));
            assert!(
                (mean - m).abs() < 4.0 * (v / draws as f64).sqrt(),
                "n={n} p={p}: mean {mean} vs {m}"
            );
            // Var of the sample variance ≈ 2v²/draws for near-normal counts.
            assert!(
                (var - v).abs() < 4.0 * v * (2.0 / draws as f64).sqrt() + 0.05,
                "n={n} p={p}: var {var} vs {v}"
            );
            assert!(xs.iter().all(|&x| x >= 0.0 && x <= n as f64));
        }
    }

    /// A tiny case against its exact distribution: Bin(4, 0.3) frequencies.
    #[test]
    fn binomial_small_distribution() {
        let exact = [0.2401, 0.4116, 0.2646, 0.0756, 0.0081];
        let draws = 200_000;
        let mut r = stream(7, 1);
        let mut freq = [0u32; 5];
        for _ in 0..draws {
            freq[binomial(&mut r, 4, 0.3) as usize] += 1;
        }
        for (f, e) in freq.iter().zip(exact) {
            let p = *f as f64 / draws as f64;
            assert!(
                (p - e).abs() < 4.0 * (e * (1.0 - e) / draws as f64).sqrt(),
                "{p} vs {e}"
            );
        }
    }

    #[test]
    fn multinomial_sums_and_means() {
        let sizes = [5u64, 1, 30_000, 0, 70_000, 3];
        let total: u64 = sizes.iter().sum();
        let mut out = [0u32; 6];
        let mut sums = [0f64; 6];
        let reps = 2_000;
        for b in 0..reps {
            let mut r = stream(9, b);
            multinomial(&mut r, total, &sizes, &mut out);
            assert_eq!(out.iter().map(|&x| x as u64).sum::<u64>(), total);
            assert_eq!(out[3], 0);
            for (s, &o) in sums.iter_mut().zip(&out) {
                *s += o as f64;
            }
        }
        for (s, &size) in sums.iter().zip(&sizes) {
            let mean = s / reps as f64;
            let p = size as f64 / total as f64;
            let sd = (total as f64 * p * (1.0 - p) / reps as f64).sqrt();
            assert!(
                (mean - size as f64).abs() <= 4.0 * sd + 1e-9,
                "{mean} vs {size}"
            );
        }
    }
}
