//! pass@k and pass^k for large n in plain f64, with a proven error bound.
//!
//! The engine computes every value in double-double arithmetic (exact to an
//! ulp or two, about a microsecond each). A million problems with distinct
//! large n cannot share table entries, so here each value is first computed
//! as a product of k ratios of exact integers and its relative error is
//! bounded from the computed value itself (Higham's γ_m = m·u/(1 − m·u),
//! u = 2⁻⁵³, for m roundings of exact operands):
//!
//! - `R = C(n−c, k)/C(n, k) = Π_{j<k} (n−c−j) / Π_{j<k} (n−j)`: k − 1
//!   roundings in each product and one in the division, so
//!   |R̂ − R| ≤ γ_{2k−1}·R. pass^k (`C(c, k)/C(n, k)`) is such a ratio too.
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

/// Most bits of `n^k` for which the products of k factors ≤ n stay finite
/// (f64 overflows past 2¹⁰²⁴).
const MAX_PRODUCT_BITS: u32 = 1000;

/// Smallest pass^k returned: above it every partial product is normal, so
/// the relative bound holds (subnormals lose relative precision).
const MIN_NORMAL_PRODUCT: f64 = 1e-290;

/// γ_m = m·u/(1 − m·u), bounded above without a division: m·u < 10⁻¹³ for
/// the m used here, so 1/(1 − m·u) < 1.0001.
#[inline]
fn gamma(m: u64) -> f64 {
    m as f64 * U * 1.0001
}

/// Whether n and k are in the range this module handles.
#[inline]
fn in_range(n: u64, k: u64) -> bool {
    n < EXACT_MAX && (2..=MAX_K).contains(&k)
}

/// `Π_{j<k} (a−j)` for `a ≥ k − 1` integer (every factor exact): k − 1
/// roundings in any order, so two interleaved partial products (half the
/// latency of one chain).
#[inline]
fn falling(a: f64, k: u64) -> f64 {
    let (mut even, mut odd) = (1.0, 1.0);
    let mut j = 0;
    while j + 1 < k {
        even *= a - j as f64;
        odd *= a - (j + 1) as f64;
        j += 2;
    }
    if j < k {
        even *= a - j as f64;
    }
    even * odd
}

/// `Π_{j<k} (a−j)/(n−j)` for k − 1 ≤ a ≤ n: relative error ≤ γ_{2k−1}
/// (k − 1 roundings in each product and one in the division, or k
/// divisions and k − 1 products when `n^k` would overflow).
#[inline]
fn ratio_product(a: f64, n: u64, k: u64) -> f64 {
    let nf = n as f64;
    if (64 - n.leading_zeros()) * k as u32 <= MAX_PRODUCT_BITS {
        return falling(a, k) / falling(nf, k);
    }
    let mut r = 1.0;
    for j in 0..k {
        let j = j as f64;
        r *= (a - j) / (nf - j);
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
    let r = ratio_product((n - c) as f64, n, k);
    // |r − R| ≤ γ·R with R ≤ r·1.0001, so 1 − R ≥ (1 − r) − err; the
    // relative error of fl(1 − r) is then ≤ e + u(1 + e), e = err/margin:
    // accept when that is ≤ TOL (multiplied out, no division).
    let err = gamma(2 * k - 1) * r * 1.0001;
    let margin = (1.0 - r) - err;
    if margin > 0.0 && err * (1.0 + U) <= margin * (TOL - U) {
        return Some(1.0 - r);
    }
    Some(telescoping(n as f64, c as f64, k))
}

/// `1 − Π_{j<k} (1 − c/(n−j)) = Σ_{j<k} c/(n−j) · Π_{i<j} (n−c−i)/(n−i)`:
/// positive terms only, relative error ≤ γ_{3k+1} ≤ [`TOL`] (k ≤ [`MAX_K`]).
fn telescoping(nf: f64, cf: f64, k: u64) -> f64 {
    let (mut p, mut s) = (1.0, 0.0);
    for j in 0..k {
        let d = nf - j as f64;
        s += p * (cf / d);
        p *= (nf - cf - j as f64) / d;
    }
    s
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
    let r = ratio_product(c as f64, n, k);
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
        // gamma's division-free form is an upper bound of m·u/(1 − m·u).
        let m = 3 * MAX_K + 1;
        assert!(gamma(m) >= m as f64 * U / (1.0 - m as f64 * U));
    }
}
