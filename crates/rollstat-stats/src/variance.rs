//! Within/between variance decomposition and per-problem sampling variances.

use serde::Serialize;

use crate::error::{Result, StatsError};

/// Unbiased estimate of the sampling variance of the per-problem pass@1
/// estimate `c/n` from `n` rollouts with `c` correct: `c(n−c)/(n²(n−1))`.
/// `None` when `n < 2` or `c > n`.
///
/// ```
/// let v = rollstat_stats::pass1_sampling_variance(10, 3).unwrap();
/// assert!((v - 0.0233333333333).abs() < 1e-12);
/// ```
pub fn pass1_sampling_variance(n: u64, c: u64) -> Option<f64> {
    if n < 2 || c > n {
        return None;
    }
    let (n, c) = (n as f64, c as f64);
    Some(c * (n - c) / (n * n * (n - 1.0)))
}

/// A positive f64 with a separate binary exponent, for products of many
/// ratios that would leave the f64 range on the way.
#[derive(Clone, Copy, Debug)]
struct Wide {
    m: f64,
    exp: i64,
}

impl Wide {
    const ONE: Wide = Wide { m: 1.0, exp: 0 };

    fn mul(self, f: f64) -> Wide {
        let mut w = Wide {
            m: self.m * f,
            exp: self.exp,
        };
        if w.m != 0.0 && w.m.abs() < 2f64.powi(-256) {
            w.m *= 2f64.powi(256);
            w.exp -= 256;
        } else if w.m.abs() > 2f64.powi(256) {
            w.m *= 2f64.powi(-256);
            w.exp += 256;
        }
        w
    }

    /// The product of two (mantissas within 2^±256, so no overflow).
    fn times(self, o: Wide) -> Wide {
        Wide {
            m: self.m,
            exp: self.exp + o.exp,
        }
        .mul(o.m)
    }

    /// The value, 0 below the f64 range.
    fn to_f64(self) -> f64 {
        if self.exp < -2200 {
            return 0.0;
        }
        let mut v = self.m;
        let mut e = self.exp;
        while e != 0 {
            let step = e.clamp(-256, 256);
            v *= 2f64.powi(step as i32);
            e -= step;
        }
        v
    }

    /// Below 2⁻¹¹⁰⁰: nothing it bounds can show in an f64.
    fn negligible(self) -> bool {
        self.m == 0.0 || self.exp < -1400
    }
}

/// Most multiplications one [`pass_at_k_sampling_variance`] value may take;
/// past it the value is not computed (`None`). Reached only when both `c`
/// and `k` exceed millions and `n` is larger still (n ≳ 10¹¹): no
/// evaluation has such rows, and a crafted one must not stall a report.
const MAX_TERMS: u64 = 1 << 24;

/// `Π_{i<terms} (a−i)/(b−i)`; with `stop`, for factors ≤ 1 (`a ≤ b`),
/// ending as soon as the product is negligible. `None` past [`MAX_TERMS`].
fn product(a: u64, b: u64, terms: u64, stop: bool, spent: &mut u64) -> Option<Wide> {
    let mut p = Wide::ONE;
    for i in 0..terms {
        *spent += 1;
        if *spent > MAX_TERMS {
            return None;
        }
        p = p.mul((a - i) as f64 / (b - i) as f64);
        if stop && p.negligible() {
            return Some(Wide { m: 0.0, exp: 0 });
        }
    }
    Some(p)
}

/// `C(a, t) / C(b, t)` for `t ≤ a ≤ b`, by the shorter of its two products
/// (`t` factors, or `b − a`: C(a,t)/C(b,t) = C(b−t, b−a)/C(b, b−a)).
fn choose_ratio(a: u64, b: u64, t: u64, stop: bool, spent: &mut u64) -> Option<Wide> {
    if t <= b - a {
        product(a, b, t, stop, spent)
    } else {
        product(b - t, b, b - a, stop, spent)
    }
}

/// Unbiased estimate V̂ of the sampling variance of the per-problem unbiased
/// pass@k estimator `1 − C(n−c,k)/C(n,k)` (docs/statistics.md §6.2):
/// `V̂ = Σ_{j=0}^{k} h(j)·C(n−c,2k−j)/C(n,2k−j) − C(n−c,2k)/C(n,2k)` with
/// `h(j) = C(k,j)·C(n−k,k−j)/C(n,k)`. Valid only for `n ≥ 2k`; returns `None`
/// otherwise (or when `k = 0` or `c > n`). For `k = 1` it equals
/// [`pass1_sampling_variance`].
///
/// Computed as the equal sum of positive terms (no cancellation)
/// `V̂ = Σ_{i=1}^{min(c,k)} C(n−2k, c−i)·C(k,i)² / (C(n,i)·C(n,c))`
/// (Vandermonde on `C(n−2k+j, c)`, the `i = 0` term cancelling the
/// subtracted one), from its first nonzero term upwards: the terms rise to
/// one mode and fall, and the sum stops once the rest cannot show. `V̂ ≤
/// C(n−c,k)/C(n,k)`, so when that is below the f64 range V̂ is 0 at once.
/// The cost is at most O(min(c, k)) multiplications, and `None` past
/// 2²⁴ of them (only for `c` and `k` in the millions and `n` ≳ 10¹¹).
///
/// ```
/// let v = rollstat_stats::pass_at_k_sampling_variance(10, 3, 3).unwrap();
/// assert!((v - 0.0517361111).abs() < 1e-9);
/// assert!(rollstat_stats::pass_at_k_sampling_variance(5, 3, 3).is_none());
/// // One correct rollout: V̂ = k²/n², at once for any n.
/// let n = 1u64 << 40;
/// assert_eq!(rollstat_stats::pass_at_k_sampling_variance(n, 1, n / 4), Some(1.0 / 16.0));
/// ```
pub fn pass_at_k_sampling_variance(n: u64, c: u64, k: u64) -> Option<f64> {
    if k == 0 || c > n || n / 2 < k {
        return None;
    }
    if c == 0 || n - c < k {
        // The estimate is the constant 0 (resp. 1).
        return Some(0.0);
    }
    let mut spent = 0u64;
    // V̂ ≤ P(k draws hold no correct one).
    if choose_ratio(n - c, n, k, true, &mut spent)?.negligible() {
        return Some(0.0);
    }
    let free = n - 2 * k;
    let first = c.saturating_sub(free).max(1);
    let last = c.min(k);
    let mut term = if first == 1 {
        // T₁ = (k²·c/n²)·C(n−2k, c−1)/C(n−1, c−1).
        choose_ratio(free, n - 1, c - 1, false, &mut spent)?
            .mul(k as f64 / n as f64)
            .mul(k as f64)
            .mul(c as f64 / n as f64)
    } else {
        // c − first = n − 2k: T = C(k, first)²/(C(n, first)·C(n, c)), as
        // C(k,first)/C(n,first) · C(k,k−first)/C(n,k−first) · C(n,n−c−k)/C(n,n−c).
        let m = n - c;
        let a = product(k, n, first, false, &mut spent)?;
        let b = product(k, n, k - first, false, &mut spent)?;
        a.times(b)
            .times(product(m, n - m + k, k, false, &mut spent)?)
    };
    let mut sum = Wide { m: 0.0, exp: 0 };
    for i in first..=last {
        sum = add(sum, term);
        if i == last {
            break;
        }
        spent += 1;
        if spent > MAX_TERMS {
            return None;
        }
        // T_{i+1}/T_i = (c−i)(k−i)² / ((n−2k−c+i+1)(i+1)(n−i)).
        let ratio = ((c - i) as f64 / (n - i) as f64)
            * ((k - i) as f64 / (i + 1) as f64)
            * ((k - i) as f64 / (free + i + 1 - c) as f64);
        term = term.mul(ratio);
        // Past the mode the terms fall at least geometrically.
        if ratio < 0.5 && below(term, sum, 2f64.powi(-60)) {
            break;
        }
    }
    Some(sum.to_f64())
}

/// `a + b` for non-negative values.
fn add(a: Wide, b: Wide) -> Wide {
    if a.m == 0.0 {
        return b;
    }
    if b.m == 0.0 {
        return a;
    }
    let (big, small) = if a.exp >= b.exp { (a, b) } else { (b, a) };
    let shift = small.exp - big.exp;
    let scaled = Wide {
        m: small.m,
        exp: shift,
    }
    .to_f64();
    Wide {
        m: big.m + scaled,
        exp: big.exp,
    }
    .mul(1.0)
}

/// Whether `term < sum · rel`.
fn below(term: Wide, sum: Wide, rel: f64) -> bool {
    let ratio = Wide {
        m: term.m / sum.m,
        exp: term.exp - sum.exp,
    };
    sum.m != 0.0 && ratio.to_f64() < rel
}

/// Which variance component dominates.
///
/// ```
/// assert_eq!(rollstat_stats::VarianceSource::Within.advice(), "more rollouts per problem");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VarianceSource {
    /// Within-problem (sampling) variance: more rollouts per problem help most.
    Within,
    /// Between-problem variance: only more problems narrow the interval.
    Between,
}

impl VarianceSource {
    /// Short advice on what narrows the interval.
    ///
    /// ```
    /// assert_eq!(rollstat_stats::VarianceSource::Between.advice(), "more problems");
    /// ```
    pub fn advice(self) -> &'static str {
        match self {
            VarianceSource::Within => "more rollouts per problem",
            VarianceSource::Between => "more problems",
        }
    }
}

/// Law-of-total-variance split of `Var(y)` (Miller 2024 §3.1).
///
/// ```
/// let y = [0.75, 0.0, 0.5, 1.0, 0.25];
/// let v: Vec<f64> = [3, 0, 2, 4, 1].iter()
///     .map(|&c| rollstat_stats::pass1_sampling_variance(4, c).unwrap()).collect();
/// let d = rollstat_stats::variance_decomposition(&y, &v).unwrap();
/// assert!((d.between - 0.1145833333).abs() < 1e-9);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct VarianceDecomposition {
    /// Number of problems used (both y and v defined).
    pub n: usize,
    /// Mean of y.
    pub mean: f64,
    /// Var(y), ddof = 1.
    pub total: f64,
    /// Within-problem part: mean of the per-problem sampling variances v_i.
    pub within: f64,
    /// Between-problem part: max(total − within, 0).
    pub between: f64,
    /// The larger component.
    pub dominant: VarianceSource,
}

impl VarianceDecomposition {
    /// Current SE of the mean, `sqrt(total / n)`.
    ///
    /// ```
    /// # let y = [0.75, 0.0, 0.5, 1.0, 0.25];
    /// # let v = [0.0625, 0.0, 1.0 / 12.0, 0.0, 0.0625];
    /// let d = rollstat_stats::variance_decomposition(&y, &v).unwrap();
    /// assert!((d.se() - 0.1767766953).abs() < 1e-9);
    /// ```
    pub fn se(&self) -> f64 {
        (self.total / self.n as f64).sqrt()
    }

    /// Projected SE with `n_problems` problems and `rollout_multiplier` times as
    /// many rollouts per problem: `sqrt((between + within / multiplier) / n)`
    /// (within-problem variance shrinks as 1/K, between stays). Use
    /// `f64::INFINITY` for infinitely many rollouts.
    ///
    /// ```
    /// # let y = [0.75, 0.0, 0.5, 1.0, 0.25];
    /// # let v = [0.0625, 0.0, 1.0 / 12.0, 0.0, 0.0625];
    /// let d = rollstat_stats::variance_decomposition(&y, &v).unwrap();
    /// // K = 4 → 16 rollouts (docs/statistics.md §1.8)
    /// assert!((d.projected_se(5.0, 4.0) - 0.1581138830).abs() < 1e-9);
    /// ```
    pub fn projected_se(&self, n_problems: f64, rollout_multiplier: f64) -> f64 {
        ((self.between + self.within / rollout_multiplier) / n_problems).sqrt()
    }
}

/// Splits `Var(y)` into within (mean of `v`) and between (`Var(y) − mean v`,
/// floored at 0) and names the dominant part. `y[i]` is the per-problem score,
/// `v[i]` an (unbiased) estimate of its sampling variance given the problem,
/// e.g. from [`pass1_sampling_variance`] or [`pass_at_k_sampling_variance`].
/// Problems where either is NaN are skipped. Needs at least 2 problems.
///
/// ```
/// let d = rollstat_stats::variance_decomposition(&[0.0, 1.0, 0.5], &[0.0, 0.0, 0.2]).unwrap();
/// assert_eq!(d.dominant, rollstat_stats::VarianceSource::Between);
/// ```
pub fn variance_decomposition(y: &[f64], v: &[f64]) -> Result<VarianceDecomposition> {
    if y.len() != v.len() {
        return Err(StatsError::LengthMismatch {
            what: "y vs v",
            left: y.len(),
            right: v.len(),
        });
    }
    variance_decomposition_of(y.iter().copied().zip(v.iter().copied()))
}

/// [`variance_decomposition`] over (estimate, sampling variance) pairs as
/// an iterator, read twice and never stored (at 10⁷ problems the pairs
/// would take 160 MB); pairs with a `NaN` are left out. The numbers are
/// those of [`variance_decomposition`] on the same pairs, bit for bit.
///
/// ```
/// let pairs = [(0.0, 0.0), (1.0, 0.0), (0.5, 0.2)];
/// let d = rollstat_stats::variance_decomposition_of(pairs.into_iter()).unwrap();
/// assert_eq!(d, rollstat_stats::variance_decomposition(&[0.0, 1.0, 0.5], &[0.0, 0.0, 0.2]).unwrap());
/// ```
pub fn variance_decomposition_of(
    pairs: impl Iterator<Item = (f64, f64)> + Clone,
) -> Result<VarianceDecomposition> {
    let pairs = pairs.filter(|(a, b)| !a.is_nan() && !b.is_nan());
    let n = pairs.clone().count();
    if n < 2 {
        return Err(StatsError::Empty("need at least 2 problems"));
    }
    let nf = n as f64;
    let mean = pairs.clone().map(|p| p.0).sum::<f64>() / nf;
    let total = pairs.clone().map(|p| (p.0 - mean).powi(2)).sum::<f64>() / (nf - 1.0);
    let within = pairs.map(|p| p.1).sum::<f64>() / nf;
    let between = (total - within).max(0.0);
    let dominant = if within > between {
        VarianceSource::Within
    } else {
        VarianceSource::Between
    };
    Ok(VarianceDecomposition {
        n,
        mean,
        total,
        within,
        between,
        dominant,
    })
}
