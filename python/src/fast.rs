//! pass@k and pass^k for large n in plain f64, with a proven error bound.
//!
//! The engine computes every value in double-double arithmetic (exact to an
//! ulp or two, about a microsecond each). A million problems with distinct
//! large n cannot share table entries, so here each value is first computed
//! as a product of k ratios of exact integers and its relative error is
//! bounded from the computed value itself (Higham's γ_m = m·u/(1 − m·u),
//! u = 2⁻⁵³, for m roundings of exact operands):
//!
//! - `R = C(n−c, k)/C(n, k) = Π_{j<k} (n−c−j)/(n−j)`: k divisions and k−1
//!   products, so |R̂ − R| ≤ γ_{2k−1}·R. pass^k (`C(c, k)/C(n, k)`) is such a
//!   product too.
//! - pass@k = 1 − R loses relative accuracy when R is near 1 (few correct of
//!   many): the bound `γ·R / (1 − R)` is checked, and when it fails the
//!   telescoping sum `1 − R = Σ_{j<k} c/(n−j) · Π_{i<j} (n−c−i)/(n−i)` is
//!   used instead: positive terms only, relative error ≤ γ_{3k+1}.
//!
//! Every value returned is within [`TOL`] (5·10⁻¹⁴) relative of the exact
//! fraction; `None` (k > [`MAX_K`], n ≥ 2⁵³, an underflowing pass^k) sends
//! the problem to the engine's function.

/// Unit roundoff of f64.
const U: f64 = f64::EPSILON / 2.0;

/// Largest relative error accepted (the package promises 10⁻¹²).
pub const TOL: f64 = 5e-14;

/// Largest k computed here: γ_{3k+1} ≤ [`TOL`] for the telescoping sum.
pub const MAX_K: u64 = 64;

/// Integers below 2⁵³ are exact in f64, and so are their differences.
const EXACT_MAX: u64 = 1 << 53;

/// Smallest pass^k returned: above it every partial product is normal, so
/// the relative bound holds (subnormals lose relative precision).
const MIN_NORMAL_PRODUCT: f64 = 1e-290;

fn gamma(m: u64) -> f64 {
    let mu = m as f64 * U;
    mu / (1.0 - mu)
}

/// Whether n and k are in the range this module handles.
fn in_range(n: u64, k: u64) -> bool {
    n < EXACT_MAX && (2..=MAX_K).contains(&k)
}

/// `Π_{j<k} (a−j)/(n−j)` for a ≤ n (all operands exact integers).
#[inline]
fn ratio_product(a: f64, n: f64, k: u64) -> f64 {
    let mut r = 1.0;
    for j in 0..k {
        let j = j as f64;
        r *= (a - j) / (n - j);
    }
    r
}

/// pass@k = 1 − C(n−c, k)/C(n, k), or `None` when the engine must
/// compute it. Defined cases only (k ≤ n, c ≤ n, k ≥ 1).
///
/// Edge cases are the engine's exactly: 0 when c = 0, 1 when n − c < k,
/// c/n (correctly rounded) when k = 1.
pub fn pass_at_k(n: u64, c: u64, k: u64) -> Option<f64> {
    if k > n || c > n || k == 0 {
        return None;
    }
    if c == 0 {
        return Some(0.0);
    }
    if n - c < k {
        return Some(1.0);
    }
    if k == 1 {
        return Some(c as f64 / n as f64);
    }
    if !in_range(n, k) {
        return None;
    }
    let (nf, cf) = (n as f64, c as f64);
    let r = ratio_product(nf - cf, nf, k);
    // |r − R| ≤ g·R with R ≤ r/(1 − g); 1 − R ≥ (1 − r) − g·R.
    let g = gamma(2 * k - 1);
    let err = g * r / (1.0 - g);
    let margin = (1.0 - r) - err;
    if margin > 0.0 && err / margin + U * (1.0 + err / margin) <= TOL {
        return Some(1.0 - r);
    }
    // Telescoping sum: no cancellation.
    let (mut p, mut s) = (1.0, 0.0);
    for j in 0..k {
        let d = nf - j as f64;
        s += p * (cf / d);
        p *= (nf - cf - j as f64) / d;
    }
    Some(s)
}

/// pass^k = C(c, k)/C(n, k), or `None` when the engine must compute it.
/// Defined cases only; 0 when c < k and c/n when k = 1, as the engine.
pub fn pass_pow_k(n: u64, c: u64, k: u64) -> Option<f64> {
    if k > n || c > n || k == 0 {
        return None;
    }
    if k > c {
        return Some(0.0);
    }
    if k == 1 {
        return Some(c as f64 / n as f64);
    }
    if !in_range(n, k) {
        return None;
    }
    let r = ratio_product(c as f64, n as f64, k);
    (r >= MIN_NORMAL_PRODUCT).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_fit_the_tolerance() {
        // The telescoping sum's bound at the largest k, and the product's.
        assert!(gamma(3 * MAX_K + 1) <= TOL);
        assert!(gamma(2 * MAX_K - 1) <= TOL);
    }
}
