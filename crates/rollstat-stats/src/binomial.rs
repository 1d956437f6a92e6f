//! Intervals for a binomial proportion (x successes out of n 0/1 values).

use serde::{Deserialize, Serialize};

use crate::bootstrap::Interval;
use crate::dist::{beta_quantile, normal_quantile};
use crate::error::{check_level, Result, StatsError};

/// Binomial-interval method.
///
/// ```
/// assert_eq!(rollstat_stats::BinomialMethod::Wilson.name(), "wilson");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BinomialMethod {
    /// Wilson score interval, clipped to [0, 1].
    Wilson,
    /// Equal-tailed Jeffreys interval: Beta(x+½, n−x+½) quantiles, **without**
    /// the Brown–Cai–DasGupta boundary modification (as statsmodels).
    Jeffreys,
    /// Clopper–Pearson exact interval (0 lower bound at x = 0, 1 upper at x = n).
    ClopperPearson,
    /// Equal-tailed credible interval of the Beta(x+1, n−x+1) posterior
    /// (uniform prior; the `bayes_evals` default recommended by Bowyer et al.).
    BayesUniform,
}

impl BinomialMethod {
    /// Kebab-case name (`"wilson"`, `"jeffreys"`, `"clopper-pearson"`, `"bayes-uniform"`).
    ///
    /// ```
    /// assert_eq!(rollstat_stats::BinomialMethod::ClopperPearson.name(), "clopper-pearson");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            BinomialMethod::Wilson => "wilson",
            BinomialMethod::Jeffreys => "jeffreys",
            BinomialMethod::ClopperPearson => "clopper-pearson",
            BinomialMethod::BayesUniform => "bayes-uniform",
        }
    }
}

/// Two-sided interval at `level` for the success probability given `x`
/// successes in `n` trials.
///
/// ```
/// use rollstat_stats::{binomial_interval, BinomialMethod};
/// // docs/statistics.md §5.2, 18/20 Wilson
/// let ci = binomial_interval(18, 20, 0.95, BinomialMethod::Wilson).unwrap();
/// assert!((ci.lower - 0.6989663548).abs() < 1e-9 && (ci.upper - 0.9721335188).abs() < 1e-9);
/// ```
pub fn binomial_interval(x: u64, n: u64, level: f64, method: BinomialMethod) -> Result<Interval> {
    check_level(level)?;
    if n == 0 {
        return Err(StatsError::Empty("n = 0 trials"));
    }
    if x > n {
        return Err(StatsError::InvalidArgument(format!(
            "successes {x} exceed trials {n}"
        )));
    }
    let alpha = 1.0 - level;
    let (xf, nf) = (x as f64, n as f64);
    Ok(match method {
        BinomialMethod::Wilson => {
            let z = normal_quantile(1.0 - alpha / 2.0);
            let p = xf / nf;
            let z2 = z * z;
            let denom = 1.0 + z2 / nf;
            let centre = (p + z2 / (2.0 * nf)) / denom;
            let half = z * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt() / denom;
            Interval {
                lower: (centre - half).clamp(0.0, 1.0),
                upper: (centre + half).clamp(0.0, 1.0),
            }
        }
        BinomialMethod::Jeffreys => Interval {
            lower: beta_quantile(alpha / 2.0, xf + 0.5, nf - xf + 0.5),
            upper: beta_quantile(1.0 - alpha / 2.0, xf + 0.5, nf - xf + 0.5),
        },
        BinomialMethod::ClopperPearson => Interval {
            lower: if x == 0 {
                0.0
            } else {
                beta_quantile(alpha / 2.0, xf, nf - xf + 1.0)
            },
            upper: if x == n {
                1.0
            } else {
                beta_quantile(1.0 - alpha / 2.0, xf + 1.0, nf - xf)
            },
        },
        BinomialMethod::BayesUniform => Interval {
            lower: beta_quantile(alpha / 2.0, xf + 1.0, nf - xf + 1.0),
            upper: beta_quantile(1.0 - alpha / 2.0, xf + 1.0, nf - xf + 1.0),
        },
    })
}
