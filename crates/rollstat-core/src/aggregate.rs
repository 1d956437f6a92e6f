//! From per-problem summaries to report metrics.
//!
//! A metric is a mean over problems of a per-problem value. For each
//! [`Metric`] this module builds a [`MetricColumn`]: one value per problem,
//! `NaN` where the metric is undefined for that problem (k > n, no
//! per-rollout detail, no answers), with the reason counted. The column is
//! what the point estimate, the standard error and any resampling all read,
//! so they can never disagree about which problems a number is over.

use crate::estimators::{g_pass_at_k, mg_pass_at_k, pass_at_k, pass_pow_k};
use crate::summary::ProblemSummary;
use crate::vote::{self_consistency, TiePolicy};
use std::fmt;

/// One report metric.
#[derive(Clone, Debug, PartialEq)]
pub enum Metric {
    PassAtK(u64),
    PassPowK(u64),
    /// G-Pass@k_τ; the τ text is kept as the user wrote it for the key.
    GPassAtK {
        k: u64,
        tau: f64,
        tau_text: String,
    },
    MgPassAtK(u64),
    PrefixAtK(u64),
    /// maj@n over all rollouts of a problem; `n` is the requested n.
    MajAtN(u64),
    SelfConsistency,
    /// Mean number of distinct answer clusters per problem (a count).
    DistinctAnswers,
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Metric::PassAtK(k) => write!(f, "pass@{k}"),
            Metric::PassPowK(k) => write!(f, "pass^{k}"),
            Metric::GPassAtK { k, tau_text, .. } => write!(f, "g-pass@{k}_{tau_text}"),
            Metric::MgPassAtK(k) => write!(f, "mg-pass@{k}"),
            Metric::PrefixAtK(k) => write!(f, "prefix@{k}"),
            Metric::MajAtN(n) => write!(f, "maj@{n}"),
            Metric::SelfConsistency => f.write_str("self_consistency"),
            Metric::DistinctAnswers => f.write_str("distinct_answers"),
        }
    }
}

impl Metric {
    /// The k (draw size) this metric is about, where it has one.
    pub fn k(&self) -> Option<u64> {
        match *self {
            Metric::PassAtK(k)
            | Metric::PassPowK(k)
            | Metric::GPassAtK { k, .. }
            | Metric::MgPassAtK(k)
            | Metric::PrefixAtK(k)
            | Metric::MajAtN(k) => Some(k),
            Metric::SelfConsistency | Metric::DistinctAnswers => None,
        }
    }

    /// Whether values are fractions in [0, 1] (printed as %) or counts.
    pub fn is_fraction(&self) -> bool {
        !matches!(self, Metric::DistinctAnswers)
    }

    /// The per-problem value, or why the problem is excluded.
    pub fn value(&self, p: &ProblemSummary, tie: TiePolicy) -> Result<f64, Exclusion> {
        let vote = || match (&p.vote, p.first_correct_rank) {
            (Some(v), _) => Ok(v),
            (None, None) => Err(Exclusion::NoRolloutDetail),
            (None, Some(_)) => Err(Exclusion::NoAnswers),
        };
        let too_few = |k: u64| {
            if p.n < k {
                Err(Exclusion::TooFewRollouts)
            } else {
                Ok(())
            }
        };
        match self {
            Metric::PassAtK(k) => too_few(*k).map(|_| pass_at_k(p.n, p.c, *k).expect("k ≤ n")),
            Metric::PassPowK(k) => too_few(*k).map(|_| pass_pow_k(p.n, p.c, *k).expect("k ≤ n")),
            Metric::GPassAtK { k, tau, .. } => {
                too_few(*k).map(|_| g_pass_at_k(p.n, p.c, *k, *tau).expect("k ≤ n, τ checked"))
            }
            Metric::MgPassAtK(k) => too_few(*k).map(|_| mg_pass_at_k(p.n, p.c, *k).expect("k ≤ n")),
            Metric::PrefixAtK(k) => {
                let rank = p.first_correct_rank.ok_or(Exclusion::NoRolloutDetail)?;
                too_few(*k)?;
                Ok(matches!(rank, Some(r) if r < *k) as u8 as f64)
            }
            Metric::MajAtN(n) => {
                let vote = vote()?;
                too_few(*n)?;
                Ok(vote.credit(tie))
            }
            Metric::SelfConsistency => {
                let vote = vote()?;
                self_consistency(vote.largest, p.n as usize).ok_or(Exclusion::TooFewRollouts)
            }
            Metric::DistinctAnswers => {
                let vote = vote()?;
                Ok(vote.n_clusters as f64)
            }
        }
    }
}

/// Why a problem has no value for a metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Exclusion {
    /// Fewer rollouts than the metric's k.
    TooFewRollouts,
    /// Only counts (n, c) are known; the metric needs rollout order.
    NoRolloutDetail,
    /// Not every rollout carries answer information.
    NoAnswers,
}

impl fmt::Display for Exclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Exclusion::TooFewRollouts => "fewer rollouts than k",
            Exclusion::NoRolloutDetail => "only n and c are known (count rows), no rollout order",
            Exclusion::NoAnswers => {
                "no extracted answers (add an `answer` field or `answers` array)"
            }
        })
    }
}

/// The metrics a report computes: pass@k, pass^k (k ≥ 2), g-pass@k_τ and
/// mg-pass@k (k ≥ 2), prefix@k for every k, then maj@n, self-consistency and
/// distinct answers.
///
/// ```
/// use rollstat_core::aggregate::{metric_set, default_ks};
/// let names: Vec<String> = metric_set(&default_ks(8), &[(0.5, "0.5".into())], 8)
///     .iter().map(|m| m.to_string()).collect();
/// assert_eq!(&names[..4], ["pass@1", "pass@2", "pass@4", "pass@8"]);
/// assert!(names.contains(&"g-pass@4_0.5".to_string()));
/// assert!(names.contains(&"maj@8".to_string()));
/// ```
pub fn metric_set(ks: &[u64], taus: &[(f64, String)], n_requested: u64) -> Vec<Metric> {
    let mut out: Vec<Metric> = ks.iter().map(|&k| Metric::PassAtK(k)).collect();
    let multi: Vec<u64> = ks.iter().copied().filter(|&k| k >= 2).collect();
    out.extend(multi.iter().map(|&k| Metric::PassPowK(k)));
    for &k in &multi {
        for (tau, text) in taus {
            out.push(Metric::GPassAtK {
                k,
                tau: *tau,
                tau_text: text.clone(),
            });
        }
    }
    out.extend(multi.iter().map(|&k| Metric::MgPassAtK(k)));
    out.extend(ks.iter().map(|&k| Metric::PrefixAtK(k)));
    out.push(Metric::MajAtN(n_requested));
    out.push(Metric::SelfConsistency);
    out.push(Metric::DistinctAnswers);
    out
}

/// The default k list: 1, 2, 4, … up to `n`, and `n` itself.
///
/// ```
/// use rollstat_core::aggregate::default_ks;
/// assert_eq!(default_ks(8), vec![1, 2, 4, 8]);
/// assert_eq!(default_ks(10), vec![1, 2, 4, 8, 10]);
/// assert_eq!(default_ks(1), vec![1]);
/// ```
pub fn default_ks(n: u64) -> Vec<u64> {
    let mut ks = Vec::new();
    let mut k = 1;
    while k <= n {
        ks.push(k);
        k *= 2;
    }
    if n >= 1 && ks.last() != Some(&n) {
        ks.push(n);
    }
    ks
}

/// Memo of a per-(n, c) value: a dense table for n below 4096 (the usual
/// case — one lookup by index, no hashing), a hash map above.
#[derive(Default)]
struct CountsMemo {
    dense: Vec<Vec<Option<Result<f64, Exclusion>>>>,
    sparse: std::collections::HashMap<(u64, u64), Result<f64, Exclusion>>,
}

impl CountsMemo {
    const DENSE_N: u64 = 4096;

    fn get(
        &mut self,
        n: u64,
        c: u64,
        f: impl FnOnce() -> Result<f64, Exclusion>,
    ) -> Result<f64, Exclusion> {
        if n >= Self::DENSE_N || c > n {
            return *self.sparse.entry((n, c)).or_insert_with(f);
        }
        let (n, c) = (n as usize, c as usize);
        if self.dense.len() <= n {
            self.dense.resize_with(n + 1, Vec::new);
        }
        let row = &mut self.dense[n];
        if row.is_empty() {
            row.resize(n + 1, None);
        }
        *row[c].get_or_insert_with(f)
    }
}

/// One metric's per-problem values (`NaN` = excluded) and exclusion counts.
#[derive(Clone, Debug)]
pub struct MetricColumn {
    pub metric: Metric,
    pub values: Vec<f64>,
    /// Exclusions by reason, in a stable order.
    pub excluded: Vec<(Exclusion, u64)>,
}

impl MetricColumn {
    /// Evaluates `metric` on every problem.
    pub fn build(metric: Metric, problems: &[ProblemSummary], tie: TiePolicy) -> MetricColumn {
        let mut excluded = std::collections::BTreeMap::new();
        // Estimators of (n, c) repeat across problems (n = 16 has 17 values
        // of c): compute each once.
        let by_counts = matches!(
            metric,
            Metric::PassAtK(_)
                | Metric::PassPowK(_)
                | Metric::GPassAtK { .. }
                | Metric::MgPassAtK(_)
        );
        let mut memo = CountsMemo::default();
        let values = problems
            .iter()
            .map(|p| {
                let v = if by_counts {
                    memo.get(p.n, p.c, || metric.value(p, tie))
                } else {
                    metric.value(p, tie)
                };
                match v {
                    Ok(v) => v,
                    Err(e) => {
                        *excluded.entry(e).or_insert(0u64) += 1;
                        f64::NAN
                    }
                }
            })
            .collect();
        MetricColumn {
            metric,
            values,
            excluded: excluded.into_iter().collect(),
        }
    }

    pub fn n_excluded(&self) -> u64 {
        self.excluded.iter().map(|(_, c)| c).sum()
    }

    /// Mean, standard error and problem count over the defined values.
    pub fn summary(&self) -> Option<PointSummary> {
        PointSummary::of(self.values.iter().copied().filter(|v| !v.is_nan()))
    }
}

/// The point estimate of a mean over problems with its standard error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointSummary {
    pub mean: f64,
    /// sd(y)/√N with the N−1 (sample) standard deviation; `None` for N < 2.
    pub stderr: Option<f64>,
    pub n_problems: u64,
}

impl PointSummary {
    /// Mean and standard error of `values` (two-pass, for accuracy).
    ///
    /// ```
    /// use rollstat_core::aggregate::PointSummary;
    /// let s = PointSummary::of((0..10).map(f64::from)).unwrap();
    /// assert_eq!(s.mean, 4.5);
    /// assert!((s.stderr.unwrap() - 0.9574271077563381).abs() < 1e-15); // inspect's vector
    /// ```
    pub fn of(values: impl Iterator<Item = f64> + Clone) -> Option<PointSummary> {
        let (mut n, mut sum) = (0u64, crate::numeric::CompensatedSum::default());
        for v in values.clone() {
            n += 1;
            sum.add(v);
        }
        if n == 0 {
            return None;
        }
        let mean = sum.value() / n as f64;
        let stderr = (n >= 2).then(|| {
            let mut ss = crate::numeric::CompensatedSum::default();
            for v in values {
                ss.add((v - mean) * (v - mean));
            }
            (ss.value() / (n - 1) as f64).sqrt() / (n as f64).sqrt()
        });
        Some(PointSummary {
            mean,
            stderr,
            n_problems: n,
        })
    }
}
