//! From per-problem summaries to report metrics.
//!
//! A metric is a mean over problems of a per-problem value. For each
//! [`Metric`] this module builds a [`MetricColumn`]: one value per problem,
//! `NaN` where the metric is undefined for that problem (k > n, no
//! per-rollout detail, no answers), with the reason counted. The column is
//! what the point estimate, the standard error and any resampling all read,
//! so they can never disagree about which problems a number is over.

use crate::batch::{CountsEstimator, EstimatorTable};
use crate::best::ScoreOrder;
use crate::estimators::{g_pass_at_k, mg_pass_at_k, pass_at_k, pass_pow_k};
use crate::select::{maj_at_ks, NotComputed};
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
    /// maj@k for k below the requested n: the exact mean vote credit over
    /// all k-subsets of a problem's rollouts ([`crate::select`]).
    MajAtK(u64),
    /// bon@k: best-of-k by the selector score ([`crate::best`]).
    BonAtK {
        k: u64,
        order: ScoreOrder,
    },
    /// wmaj@n: majority weighted by summed score; `n` is the requested n.
    WmajAtN(u64),
    /// The selection gap pass@k − `selector` (maj@k, maj@n or bon@k) per
    /// problem, so its mean and interval are paired.
    SelectionGap {
        k: u64,
        selector: Box<Metric>,
    },
    SelfConsistency,
    /// Mean number of distinct answer clusters per problem (a count).
    DistinctAnswers,
    /// budget@k: the expected budget of k draws, k × the problem's mean
    /// budget per rollout (defined for k ≤ n, like pass@k).
    BudgetAtK(u64),
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Metric::PassAtK(k) => write!(f, "pass@{k}"),
            Metric::PassPowK(k) => write!(f, "pass^{k}"),
            Metric::GPassAtK { k, tau_text, .. } => write!(f, "g-pass@{k}_{tau_text}"),
            Metric::MgPassAtK(k) => write!(f, "mg-pass@{k}"),
            Metric::PrefixAtK(k) => write!(f, "prefix@{k}"),
            Metric::MajAtN(n) | Metric::MajAtK(n) => write!(f, "maj@{n}"),
            Metric::BonAtK { k, .. } => write!(f, "bon@{k}"),
            Metric::WmajAtN(n) => write!(f, "wmaj@{n}"),
            Metric::SelectionGap { k, selector } => write!(f, "pass@{k}-{selector}"),
            Metric::SelfConsistency => f.write_str("self_consistency"),
            Metric::DistinctAnswers => f.write_str("distinct_answers"),
            Metric::BudgetAtK(k) => write!(f, "budget@{k}"),
        }
    }
}

impl Metric {
    /// Whether the metric reads the rollouts' answers: maj@k, maj@n,
    /// wmaj@n, `self_consistency`, `distinct_answers` and the gaps
    /// pass@k − maj@k.
    ///
    /// ```
    /// use rollstat_core::aggregate::Metric;
    /// assert!(Metric::MajAtK(2).needs_answers());
    /// assert!(!Metric::PassAtK(2).needs_answers());
    /// ```
    pub fn needs_answers(&self) -> bool {
        self.needs().answers
    }

    /// What a problem's rows must carry for this metric: its family's
    /// [`Needs`](crate::catalogue::Needs), and for a selection gap its
    /// selector's.
    ///
    /// ```
    /// use rollstat_core::aggregate::Metric;
    /// let gap: Metric = "pass@2-bon@2".parse().unwrap();
    /// assert!(gap.needs().scores && !gap.needs().answers);
    /// ```
    pub fn needs(&self) -> crate::catalogue::Needs {
        match self {
            Metric::SelectionGap { selector, .. } => selector.needs(),
            _ => self.spec().needs,
        }
    }

    /// The k (draw size) this metric is about, where it has one.
    pub fn k(&self) -> Option<u64> {
        match *self {
            Metric::PassAtK(k)
            | Metric::PassPowK(k)
            | Metric::GPassAtK { k, .. }
            | Metric::MgPassAtK(k)
            | Metric::PrefixAtK(k)
            | Metric::MajAtN(k)
            | Metric::MajAtK(k)
            | Metric::BonAtK { k, .. }
            | Metric::WmajAtN(k)
            | Metric::SelectionGap { k, .. }
            | Metric::BudgetAtK(k) => Some(k),
            Metric::SelfConsistency | Metric::DistinctAnswers => None,
        }
    }

    /// The estimator of (n, c) behind a count-based metric (pass@k, pass^k,
    /// g-pass, mg-pass); `None` for the others.
    ///
    /// ```
    /// use rollstat_core::aggregate::Metric;
    /// use rollstat_core::batch::CountsEstimator;
    /// assert_eq!(Metric::PassPowK(4).counts_estimator(), Some(CountsEstimator::PassPowK(4)));
    /// assert_eq!(Metric::PrefixAtK(4).counts_estimator(), None);
    /// ```
    pub fn counts_estimator(&self) -> Option<CountsEstimator> {
        Some(match *self {
            Metric::PassAtK(k) => CountsEstimator::PassAtK(k),
            Metric::PassPowK(k) => CountsEstimator::PassPowK(k),
            Metric::GPassAtK { k, tau, .. } => CountsEstimator::GPassAtK { k, tau },
            Metric::MgPassAtK(k) => CountsEstimator::MgPassAtK(k),
            _ => return None,
        })
    }

    /// The unit of the metric's values (its catalogue entry's).
    ///
    /// ```
    /// use rollstat_core::aggregate::Metric;
    /// use rollstat_core::catalogue::Unit;
    /// assert_eq!(Metric::DistinctAnswers.unit(), Unit::Count);
    /// assert_eq!(Metric::BudgetAtK(4).unit(), Unit::Budget);
    /// ```
    pub fn unit(&self) -> crate::catalogue::Unit {
        self.spec().unit
    }

    /// The per-problem value, or why the problem is excluded.
    pub fn value(&self, p: &ProblemSummary, tie: TiePolicy) -> Result<f64, Exclusion> {
        match self {
            Metric::PassAtK(_)
            | Metric::PassPowK(_)
            | Metric::GPassAtK { .. }
            | Metric::MgPassAtK(_) => self.counts_value(p),
            Metric::MajAtN(_)
            | Metric::MajAtK(_)
            | Metric::WmajAtN(_)
            | Metric::SelfConsistency
            | Metric::DistinctAnswers => self.vote_value(p, tie),
            Metric::PrefixAtK(k) => {
                let rank = p.first_correct_rank.ok_or(Exclusion::NoRolloutDetail)?;
                too_few(p, *k)?;
                Ok(matches!(rank, Some(r) if u64::from(r) < *k) as u8 as f64)
            }
            Metric::BonAtK { k, order } => {
                let scores = p.scores.as_ref().ok_or(match p.first_correct_rank {
                    None => Exclusion::NoRolloutDetail,
                    Some(_) => Exclusion::NoScores,
                })?;
                too_few(p, *k)?;
                Ok(scores.bon_at_k(*k, *order).expect("1 ≤ k ≤ n"))
            }
            Metric::SelectionGap { k, selector } => {
                let chosen = selector.value(p, tie)?;
                Ok(Metric::PassAtK(*k).value(p, tie)? - chosen)
            }
            Metric::BudgetAtK(k) => {
                let mean = p.budget.as_ref().and_then(|b| b.mean());
                let mean = mean.ok_or(match p.first_correct_rank {
                    None => Exclusion::NoRolloutDetail,
                    Some(_) => Exclusion::NoBudget,
                })?;
                too_few(p, *k)?;
                Ok(*k as f64 * mean)
            }
        }
    }

    /// The value of a count-based metric: a function of (n, c) alone.
    fn counts_value(&self, p: &ProblemSummary) -> Result<f64, Exclusion> {
        let (n, c) = (p.n, p.c);
        match self {
            Metric::PassAtK(k) => too_few(p, *k).map(|_| pass_at_k(n, c, *k).expect("k ≤ n")),
            Metric::PassPowK(k) => too_few(p, *k).map(|_| pass_pow_k(n, c, *k).expect("k ≤ n")),
            Metric::GPassAtK { k, tau, .. } => {
                too_few(p, *k).map(|_| g_pass_at_k(n, c, *k, *tau).expect("k ≤ n, τ checked"))
            }
            Metric::MgPassAtK(k) => too_few(p, *k).map(|_| mg_pass_at_k(n, c, *k).expect("k ≤ n")),
            _ => unreachable!("only count-based metrics"),
        }
    }

    /// The value of a metric read from the problem's answer vote.
    fn vote_value(&self, p: &ProblemSummary, tie: TiePolicy) -> Result<f64, Exclusion> {
        let vote = vote_of(p)?;
        match self {
            Metric::MajAtN(n) => too_few(p, *n).map(|_| vote.credit(tie)),
            Metric::MajAtK(k) => {
                too_few(p, *k)?;
                maj_curve(p, tie, *k).map(|curve| curve[*k as usize - 1])
            }
            Metric::WmajAtN(n) => {
                let credits = p.scores.as_ref().and_then(|s| s.weighted_vote());
                let credits = credits.ok_or(Exclusion::NoScores)?;
                too_few(p, *n)?;
                Ok(credits.credit(tie))
            }
            Metric::SelfConsistency => {
                self_consistency(vote.largest, p.n as usize).ok_or(Exclusion::TooFewRollouts)
            }
            Metric::DistinctAnswers => Ok(vote.n_clusters as f64),
            _ => unreachable!("only vote metrics"),
        }
    }
}

/// `TooFewRollouts` when the problem has fewer than `k` rollouts.
fn too_few(p: &ProblemSummary, k: u64) -> Result<(), Exclusion> {
    if p.n < k {
        Err(Exclusion::TooFewRollouts)
    } else {
        Ok(())
    }
}

/// A problem's vote, or why it has none.
fn vote_of(p: &ProblemSummary) -> Result<&crate::vote::VoteOutcome, Exclusion> {
    match (&p.vote, p.first_correct_rank) {
        (Some(v), _) => Ok(v),
        (None, None) => Err(Exclusion::NoRolloutDetail),
        (None, Some(_)) => Err(Exclusion::NoAnswers),
    }
}

/// maj@1, …, maj@k of one problem (k ≥ 1), or why there is none.
fn maj_curve(p: &ProblemSummary, tie: TiePolicy, k: u64) -> Result<Vec<f64>, Exclusion> {
    let profile = p.vote_profile.as_ref().ok_or(Exclusion::VoteTooLarge)?;
    maj_at_ks(profile, tie, k as usize).map_err(|e| match e {
        NotComputed::TooMuchWork => Exclusion::VoteTooLarge,
        NotComputed::NoOrder => Exclusion::NoRolloutDetail,
    })
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
    /// Not every rollout carries a selector score.
    NoScores,
    /// No rollout of the problem carries a budget.
    NoBudget,
    /// maj@k's exact program is not run: more than
    /// [`crate::select::VOTE_DP_MAX_N`]
    /// rollouts, or past its work limit.
    VoteTooLarge,
}

impl fmt::Display for Exclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Exclusion::TooFewRollouts => "fewer rollouts than k",
            Exclusion::NoRolloutDetail => "only n and c are known (count rows), no rollout order",
            Exclusion::NoAnswers => {
                "no extracted answers (add an `answer` field or `answers` array)"
            }
            Exclusion::NoScores => "no selector scores (add a `score` field or `scores` array)",
            Exclusion::NoBudget => "no rollout carries a budget value",
            Exclusion::VoteTooLarge => {
                "more than 1000 rollouts, or past the work limit of the exact maj@k program"
            }
        })
    }
}

/// The metrics a report computes: pass@k, pass^k (k ≥ 2), g-pass@k_τ and
/// mg-pass@k (k ≥ 2), prefix@k for every k, then maj@k for every k below
/// n, maj@n, self-consistency and distinct answers. [`selection_metrics`]
/// adds bon@k, wmaj@n and the selection gaps.
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
    out.extend(
        ks.iter()
            .filter(|&&k| k < n_requested)
            .map(|&k| Metric::MajAtK(k)),
    );
    out.push(Metric::MajAtN(n_requested));
    out.push(Metric::SelfConsistency);
    out.push(Metric::DistinctAnswers);
    out
}

/// The majority vote at k: maj@k below the requested n, maj@n at it.
fn maj_at(k: u64, n_requested: u64) -> Metric {
    if k == n_requested {
        Metric::MajAtN(k)
    } else {
        Metric::MajAtK(k)
    }
}

/// What a deployed selector gets beside the pass@k ceiling: bon@k for every
/// k and wmaj@n when the problems carry scores (`scores` is their order),
/// then the selection gaps pass@k − maj@k for every k ≤ n and (with scores)
/// pass@k − bon@k.
///
/// ```
/// use rollstat_core::aggregate::selection_metrics;
/// use rollstat_core::best::ScoreOrder;
/// let names: Vec<String> = selection_metrics(&[1, 4], 4, Some(ScoreOrder::Descending))
///     .iter().map(|m| m.to_string()).collect();
/// assert_eq!(names, ["bon@1", "bon@4", "wmaj@4", "pass@1-maj@1", "pass@4-maj@4",
///     "pass@1-bon@1", "pass@4-bon@4"]);
/// assert_eq!(selection_metrics(&[1, 8], 4, None).len(), 1); // k = 8 > n: no gap
/// ```
pub fn selection_metrics(ks: &[u64], n_requested: u64, scores: Option<ScoreOrder>) -> Vec<Metric> {
    let mut out = Vec::new();
    let bon = |k| scores.map(|order| Metric::BonAtK { k, order });
    out.extend(ks.iter().filter_map(|&k| bon(k)));
    if scores == Some(ScoreOrder::Descending) {
        out.push(Metric::WmajAtN(n_requested));
    }
    let within: Vec<u64> = ks.iter().copied().filter(|&k| k <= n_requested).collect();
    let gap = |k, selector| Metric::SelectionGap {
        k,
        selector: Box::new(selector),
    };
    out.extend(within.iter().map(|&k| gap(k, maj_at(k, n_requested))));
    out.extend(within.iter().filter_map(|&k| bon(k).map(|b| gap(k, b))));
    out
}

/// The default k list: 1, 2, 4, … up to `n`, and `n` itself.
///
/// ```
/// use rollstat_core::aggregate::default_ks;
/// assert_eq!(default_ks(8), vec![1, 2, 4, 8]);
/// assert_eq!(default_ks(10), vec![1, 2, 4, 8, 10]);
/// assert_eq!(default_ks(1), vec![1]);
/// // Doubling stops before it could overflow: 64 powers of two, then n.
/// assert_eq!(default_ks(u64::MAX).len(), 65);
/// ```
pub fn default_ks(n: u64) -> Vec<u64> {
    let mut ks = Vec::new();
    let mut k: u64 = 1;
    while k <= n {
        ks.push(k);
        match k.checked_mul(2) {
            Some(next) => k = next,
            None => break,
        }
    }
    if n >= 1 && ks.last() != Some(&n) {
        ks.push(n);
    }
    ks
}

/// One metric's per-problem values (`NaN` = excluded) and exclusion counts.
#[derive(Clone, Debug)]
pub struct MetricColumn {
    pub metric: Metric,
    pub values: ColumnValues,
    /// Exclusions by reason, in a stable order.
    pub excluded: Vec<(Exclusion, u64)>,
}

impl MetricColumn {
    /// Evaluates `metric` on every problem.
    ///
    /// The count-based metrics (pass@k, pass^k, g-pass, mg-pass) go through
    /// an [`EstimatorTable`]: each distinct (n, c) is computed once and
    /// looked up per problem (a million problems at n = 16 need 17
    /// evaluations). The values are bit-identical to [`Metric::value`], and a
    /// problem without a value goes through [`Metric::value`] for its reason,
    /// so exclusions are counted exactly as for the other metrics.
    ///
    /// For many metrics over the same problems, [`ColumnBuilder`] reads the
    /// problems' (n, c) once instead of once per metric.
    pub fn build(metric: Metric, problems: &[ProblemSummary], tie: TiePolicy) -> MetricColumn {
        MetricColumn::build_with(metric, problems, tie, problems, |p| (p.n, p.c))
    }

    /// [`build`](Self::build), reading the (n, c) of problem `i` from
    /// `counts[i]` (problems' summaries or their (n, c) pairs).
    fn build_with<T>(
        metric: Metric,
        problems: &[ProblemSummary],
        tie: TiePolicy,
        counts: &[T],
        counts_of: impl Fn(&T) -> (u64, u64),
    ) -> MetricColumn {
        let mut excluded = std::collections::BTreeMap::new();
        let mut exclude = |e| {
            *excluded.entry(e).or_insert(0u64) += 1;
            f64::NAN
        };
        let values = match metric.counts_estimator() {
            Some(est) => {
                let mut values = vec![0.0; problems.len()];
                let table = EstimatorTable::new(est);
                let undefined = table.fill_with(counts, counts_of, &mut values);
                if undefined.total() > 0 {
                    for (v, p) in values.iter_mut().zip(problems) {
                        if v.is_nan() {
                            *v = metric.value(p, tie).unwrap_or_else(&mut exclude);
                        }
                    }
                }
                values
            }
            None => problems
                .iter()
                .map(|p| metric.value(p, tie).unwrap_or_else(&mut exclude))
                .collect(),
        };
        MetricColumn {
            metric,
            values: ColumnValues::Dense(values),
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

/// A column's per-problem values: one `f64` a problem, or a code a
/// problem into a table of values. The codes are shared: a
/// [`ColumnBuilder`] numbers the problems' distinct (n, c) pairs once, and
/// every column that is a function of (n, c) — the count-based metrics,
/// and any column with one value for all problems of a pair (a metric
/// undefined for count rows) — is that code array and a table of a few
/// values. At 10⁷ problems a dense column takes 80 MB, a coded one
/// nothing beyond its table.
///
/// ```
/// use rollstat_core::aggregate::ColumnValues;
/// use std::sync::Arc;
/// let codes: Arc<[u32]> = vec![0, 1, 1].into();
/// let v = ColumnValues::Coded { codes, table: vec![0.5, 1.0] };
/// assert_eq!((v.len(), v[1]), (3, 1.0));
/// assert_eq!(v.iter().copied().collect::<Vec<_>>(), ColumnValues::Dense(vec![0.5, 1.0, 1.0]).to_vec());
/// ```
#[derive(Clone, Debug)]
pub enum ColumnValues {
    /// One value a problem.
    Dense(Vec<f64>),
    /// Problem `i`'s value is `table[codes[i]]`.
    Coded {
        /// One code a problem (shared between columns).
        codes: std::sync::Arc<[u32]>,
        /// The value of each code.
        table: Vec<f64>,
    },
}

impl ColumnValues {
    /// Number of problems.
    pub fn len(&self) -> usize {
        match self {
            ColumnValues::Dense(v) => v.len(),
            ColumnValues::Coded { codes, .. } => codes.len(),
        }
    }

    /// Whether there is no problem.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values in problem order.
    pub fn iter(&self) -> ValuesIter<'_> {
        ValuesIter {
            values: self,
            at: 0,
        }
    }

    /// The values as one vector.
    pub fn to_vec(&self) -> Vec<f64> {
        self.iter().copied().collect()
    }

    /// Coded over `codes` when every problem of a code has the same value
    /// (bit for bit), else dense.
    pub fn compact(
        values: Vec<f64>,
        codes: &std::sync::Arc<[u32]>,
        n_codes: usize,
    ) -> ColumnValues {
        let mut table: Vec<Option<u64>> = vec![None; n_codes];
        for (&c, v) in codes.iter().zip(&values) {
            match &mut table[c as usize] {
                Some(bits) if *bits != v.to_bits() => return ColumnValues::Dense(values),
                Some(_) => {}
                slot => *slot = Some(v.to_bits()),
            }
        }
        ColumnValues::Coded {
            codes: codes.clone(),
            table: table
                .into_iter()
                .map(|b| b.map_or(f64::NAN, f64::from_bits))
                .collect(),
        }
    }
}

impl std::ops::Index<usize> for ColumnValues {
    type Output = f64;
    #[inline]
    fn index(&self, i: usize) -> &f64 {
        match self {
            ColumnValues::Dense(v) => &v[i],
            ColumnValues::Coded { codes, table } => &table[codes[i] as usize],
        }
    }
}

/// The values of a [`ColumnValues`] in problem order.
#[derive(Clone)]
pub struct ValuesIter<'a> {
    values: &'a ColumnValues,
    at: usize,
}

impl<'a> Iterator for ValuesIter<'a> {
    type Item = &'a f64;
    #[inline]
    fn next(&mut self) -> Option<&'a f64> {
        (self.at < self.values.len()).then(|| {
            self.at += 1;
            &self.values[self.at - 1]
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.values.len() - self.at;
        (left, Some(left))
    }
    /// Without a test of the form per value (the sums over a column run
    /// through here).
    fn fold<B, F: FnMut(B, &'a f64) -> B>(self, init: B, mut f: F) -> B {
        match self.values {
            ColumnValues::Dense(v) => v[self.at..].iter().fold(init, f),
            ColumnValues::Coded { codes, table } => codes[self.at..]
                .iter()
                .fold(init, |acc, &c| f(acc, &table[c as usize])),
        }
    }
}

impl ExactSizeIterator for ValuesIter<'_> {}

impl<'a> IntoIterator for &'a ColumnValues {
    type Item = &'a f64;
    type IntoIter = ValuesIter<'a>;
    fn into_iter(self) -> ValuesIter<'a> {
        self.iter()
    }
}

/// Builds the columns of many metrics over the same problems: the same
/// columns as [`MetricColumn::build`], but the problems' (n, c) are copied
/// once into a compact array (16 bytes a problem) that every count-based
/// metric then reads, instead of each metric walking the full
/// [`ProblemSummary`] records again. `Sync`: share one builder between
/// threads building different metrics.
///
/// ```
/// use rollstat_core::aggregate::{ColumnBuilder, Metric, MetricColumn};
/// use rollstat_core::summary::{summarize, DenominatorPolicy, ProblemData};
/// use rollstat_core::vote::{ExactClusterer, TiePolicy};
/// let problems: Vec<_> = [(4, 1), (4, 3), (1, 1)]
///     .map(|(n, c)| summarize(ProblemData::Counts { n, c }, DenominatorPolicy::Requested, &ExactClusterer))
///     .to_vec();
/// let builder = ColumnBuilder::new(&problems, TiePolicy::First);
/// let col = builder.build(Metric::PassAtK(2));
/// assert_eq!((col.values[0], col.values[1]), (0.5, 1.0));
/// assert_eq!(col.n_excluded(), 1); // n = 1 < k
/// let direct = MetricColumn::build(Metric::PassAtK(2), &problems, TiePolicy::First);
/// assert_eq!(col.excluded, direct.excluded);
/// ```
pub struct ColumnBuilder<'a> {
    problems: &'a [ProblemSummary],
    tie: TiePolicy,
    /// Every problem's code of its (n, c) and the distinct pairs by first
    /// appearance, made on first use.
    codes: std::sync::OnceLock<PairCodes>,
    /// Largest k of the maj@k metrics announced by [`Self::with_metrics`].
    maj_k_max: u64,
    /// Every problem's maj@1, …, maj@`maj_k_max` from one program run.
    maj: std::sync::OnceLock<Vec<Result<Vec<f64>, Exclusion>>>,
}

impl<'a> ColumnBuilder<'a> {
    /// A builder over `problems`; nothing is read yet.
    pub fn new(problems: &'a [ProblemSummary], tie: TiePolicy) -> ColumnBuilder<'a> {
        ColumnBuilder {
            problems,
            tie,
            codes: std::sync::OnceLock::new(),
            maj_k_max: 0,
            maj: std::sync::OnceLock::new(),
        }
    }

    /// Announces the metrics to be built: every maj@k column (and selection
    /// gap on one) then reads one maj@1..K curve per problem, computed once,
    /// instead of running the program per k. The columns are the same.
    ///
    /// ```
    /// use rollstat_core::aggregate::{ColumnBuilder, Metric, MetricColumn};
    /// use rollstat_core::summary::{summarize, DenominatorPolicy, ProblemData, Rollout, Verdict, Answer};
    /// use rollstat_core::vote::{ExactClusterer, TiePolicy};
    /// let r = |i, a: &str| Rollout { index: i, verdict: if a == "A" { Verdict::Correct } else { Verdict::Wrong },
    ///     answer: Answer::Text(a.into()), truncated: false };
    /// let data = ProblemData::rollouts(["A", "A", "B", "B", "B", "C"].iter().enumerate().map(|(i, a)| r(i as u64, a)).collect());
    /// let problems = vec![summarize(data, DenominatorPolicy::Requested, &ExactClusterer)];
    /// let metrics = [Metric::MajAtK(2), Metric::MajAtK(4)];
    /// let builder = ColumnBuilder::new(&problems, TiePolicy::None).with_metrics(&metrics);
    /// assert!((builder.build(Metric::MajAtK(2)).values[0] - 1.0 / 15.0).abs() < 1e-15);
    /// ```
    pub fn with_metrics(mut self, metrics: &[Metric]) -> ColumnBuilder<'a> {
        self.maj_k_max = metrics.iter().filter_map(cached_maj_k).max().unwrap_or(0);
        self
    }

    /// Every problem's maj@1..K curve (K = `maj_k_max`), or why it has none.
    fn maj_curves(&self) -> &[Result<Vec<f64>, Exclusion>] {
        self.maj.get_or_init(|| {
            let k = self.maj_k_max;
            use rayon::prelude::*;
            let curve = |p: &ProblemSummary| maj_curve(p, self.tie, k.min(p.n));
            self.problems
                .par_iter()
                .with_min_len(256)
                .map(curve)
                .collect()
        })
    }

    /// maj@k's column from the curves: the exclusions of [`Metric::value`]
    /// first, then the curve's entry.
    fn maj_column(&self, metric: Metric) -> MetricColumn {
        let curves = self.maj_curves();
        let maj = |i: usize, p: &ProblemSummary, k: u64| -> Result<f64, Exclusion> {
            vote_of(p)?;
            if p.n < k {
                return Err(Exclusion::TooFewRollouts);
            }
            Ok(curves[i].as_ref().map_err(|e| *e)?[k as usize - 1])
        };
        let tie = self.tie;
        column_of(metric.clone(), self.problems, |i, p| match &metric {
            Metric::MajAtK(k) => maj(i, p, *k),
            Metric::SelectionGap { k, selector } => {
                let chosen = maj(i, p, selector.k().expect("maj@k"))?;
                Ok(Metric::PassAtK(*k).value(p, tie)? - chosen)
            }
            other => other.value(p, tie),
        })
    }

    /// The column of `metric`, equal to `MetricColumn::build(metric,
    /// problems, tie)` (values bit for bit, the same exclusions), coded
    /// over the problems' (n, c) pairs where its values are a function of
    /// them (see [`ColumnValues`]).
    pub fn build(&self, metric: Metric) -> MetricColumn {
        let (codes, pairs) = self.codes();
        let dense = match metric.counts_estimator() {
            Some(est) => match self.coded(&metric, est, codes, pairs) {
                Some(col) => return col,
                None => MetricColumn::build(metric, self.problems, self.tie),
            },
            None if cached_maj_k(&metric).is_some_and(|k| k <= self.maj_k_max) => {
                self.maj_column(metric)
            }
            None => MetricColumn::build(metric, self.problems, self.tie),
        };
        let ColumnValues::Dense(values) = dense.values else {
            return dense;
        };
        MetricColumn {
            values: ColumnValues::compact(values, codes, pairs.len()),
            ..dense
        }
    }

    /// Every problem's code of its (n, c), and the distinct pairs.
    fn codes(&self) -> (&std::sync::Arc<[u32]>, &[(u64, u64)]) {
        let (codes, pairs) = self.codes.get_or_init(|| {
            // Pairs with n up to 4096 are looked up in a dense row per n (a
            // hash per problem cost more than the rest of the column);
            // larger ones in a hash map.
            let mut rows: Vec<Vec<u32>> = Vec::new();
            let mut index: std::collections::HashMap<(u64, u64), u32> = Default::default();
            let mut pairs = Vec::new();
            let codes = self
                .problems
                .iter()
                .map(|p| {
                    let mut new_code = |pair| {
                        pairs.push(pair);
                        pairs.len() as u32 - 1
                    };
                    if p.n > 4096 || p.c > p.n {
                        return *index
                            .entry((p.n, p.c))
                            .or_insert_with(|| new_code((p.n, p.c)));
                    }
                    let (n, c) = (p.n as usize, p.c as usize);
                    if rows.len() <= n {
                        rows.resize(n + 1, Vec::new());
                    }
                    if rows[n].is_empty() {
                        rows[n] = vec![u32::MAX; n + 1];
                    }
                    if rows[n][c] == u32::MAX {
                        rows[n][c] = new_code((p.n, p.c));
                    }
                    rows[n][c]
                })
                .collect();
            (codes, pairs)
        });
        (codes, pairs)
    }

    /// A count-based metric's column as a table over the (n, c) pairs;
    /// `None` when a problem whose pair has no value still gets one from
    /// [`Metric::value`] (then the column is not a function of the pair).
    fn coded(
        &self,
        metric: &Metric,
        est: CountsEstimator,
        codes: &std::sync::Arc<[u32]>,
        pairs: &[(u64, u64)],
    ) -> Option<MetricColumn> {
        let mut table = vec![0.0; pairs.len()];
        let undefined = EstimatorTable::new(est).fill(pairs, &mut table);
        let mut excluded = std::collections::BTreeMap::new();
        if undefined.total() > 0 {
            for (&c, p) in codes.iter().zip(self.problems) {
                if table[c as usize].is_nan() {
                    let reason = metric.value(p, self.tie).err()?;
                    *excluded.entry(reason).or_insert(0u64) += 1;
                }
            }
        }
        Some(MetricColumn {
            metric: metric.clone(),
            values: ColumnValues::Coded {
                codes: codes.clone(),
                table,
            },
            excluded: excluded.into_iter().collect(),
        })
    }
}

/// Every problem's code of its (n, c) pair, and the distinct pairs by first
/// appearance.
type PairCodes = (std::sync::Arc<[u32]>, Vec<(u64, u64)>);

/// The k of a metric that reads maj@k (maj@k, or a gap on it).
fn cached_maj_k(m: &Metric) -> Option<u64> {
    match m {
        Metric::MajAtK(k) => Some(*k),
        Metric::SelectionGap { selector, .. } => match **selector {
            Metric::MajAtK(k) => Some(k),
            _ => None,
        },
        _ => None,
    }
}

/// A column from per-problem values, exclusions counted by reason.
fn column_of(
    metric: Metric,
    problems: &[ProblemSummary],
    value: impl Fn(usize, &ProblemSummary) -> Result<f64, Exclusion>,
) -> MetricColumn {
    let mut excluded = std::collections::BTreeMap::new();
    let values = problems
        .iter()
        .enumerate()
        .map(|(i, p)| {
            value(i, p).unwrap_or_else(|e| {
                *excluded.entry(e).or_insert(0u64) += 1;
                f64::NAN
            })
        })
        .collect();
    MetricColumn {
        metric,
        values: ColumnValues::Dense(values),
        excluded: excluded.into_iter().collect(),
    }
}

/// Columns folded together per pass over their shared code array by
/// [`fold_coded`]: enough independent chains to keep the adders busy, few
/// enough that their accumulators stay in registers.
const FOLD_GROUP: usize = 4;

/// Folds coded columns that share one code array: column j's accumulator
/// starts at `init(j)` and takes `step` with `tables[j][codes[i]]` for
/// every problem i in order — the same values in the same order as
/// folding that column alone, so the same bits.
///
/// A fold alone waits on its last addition at every problem (a sum over
/// 10⁷ problems is 10⁷ dependent additions); here a few columns' chains
/// interleave in one pass and the groups run in parallel, so 29 columns
/// cost about what 2 did one by one.
///
/// # Panics
///
/// If a code is past its column's table.
///
/// ```
/// use rollstat_core::aggregate::fold_coded;
/// let codes = [0, 1, 1, 0];
/// let (a, b) = (vec![1.0, 10.0], vec![2.0, 3.0]);
/// let sums = fold_coded(&codes, &[&a[..], &b[..]], |_| 0.0, |s, v| s + v);
/// assert_eq!(sums, [22.0, 10.0]);
/// ```
pub fn fold_coded<A, I, S>(codes: &[u32], tables: &[&[f64]], init: I, step: S) -> Vec<A>
where
    A: Copy + Send,
    I: Fn(usize) -> A + Sync,
    S: Fn(A, f64) -> A + Sync,
{
    use rayon::prelude::*;
    let groups: Vec<(usize, &[&[f64]])> = tables
        .chunks(FOLD_GROUP)
        .enumerate()
        .map(|(g, t)| (g * FOLD_GROUP, t))
        .collect();
    let folded: Vec<Vec<A>> = groups
        .par_iter()
        .map(|&(first, group)| match *group {
            [a, b, c, d] => {
                let mut acc = [0, 1, 2, 3].map(|j| init(first + j));
                for &code in codes {
                    let i = code as usize;
                    acc = [
                        step(acc[0], a[i]),
                        step(acc[1], b[i]),
                        step(acc[2], c[i]),
                        step(acc[3], d[i]),
                    ];
                }
                acc.to_vec()
            }
            _ => group
                .iter()
                .enumerate()
                .map(|(j, t)| {
                    let acc = init(first + j);
                    codes
                        .iter()
                        .fold(acc, |acc, &code| step(acc, t[code as usize]))
                })
                .collect(),
        })
        .collect();
    folded.into_iter().flatten().collect()
}

/// Coded columns that share one code array, as [`coded_groups`] finds
/// them: the array, each member's index among the columns and its table.
#[derive(Debug)]
pub struct CodedGroup<'a> {
    pub codes: &'a [u32],
    pub members: Vec<usize>,
    pub tables: Vec<&'a [f64]>,
}

/// The coded columns among `columns` (`Some((codes, table))` for each
/// coded one) grouped by their code array, in column order: what
/// [`fold_coded`] folds together.
///
/// ```
/// use rollstat_core::aggregate::coded_groups;
/// let (codes, other) = (vec![0u32, 1], vec![1u32, 0]);
/// let t = vec![0.5, 1.0];
/// let g = coded_groups([Some((&codes[..], &t[..])), None, Some((&other[..], &t[..])), Some((&codes[..], &t[..]))]);
/// assert_eq!(g.iter().map(|g| g.members.clone()).collect::<Vec<_>>(), [vec![0, 3], vec![2]]);
/// ```
pub fn coded_groups<'a>(
    columns: impl IntoIterator<Item = Option<(&'a [u32], &'a [f64])>>,
) -> Vec<CodedGroup<'a>> {
    let mut groups: Vec<CodedGroup<'a>> = Vec::new();
    for (j, coded) in columns.into_iter().enumerate() {
        let Some((codes, table)) = coded else {
            continue;
        };
        let at = groups.iter().position(|g| std::ptr::eq(g.codes, codes));
        let group = match at {
            Some(at) => &mut groups[at],
            None => {
                groups.push(CodedGroup {
                    codes,
                    members: Vec::new(),
                    tables: Vec::new(),
                });
                groups.last_mut().expect("just pushed")
            }
        };
        group.members.push(j);
        group.tables.push(table);
    }
    groups
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
        // `for_each`, not `for`: a column's iterator folds faster than it
        // steps (the same values in the same order).
        let (mut n, mut sum) = (0u64, crate::numeric::CompensatedSum::default());
        values.clone().for_each(|v| {
            n += 1;
            sum.add(v);
        });
        if n == 0 {
            return None;
        }
        let mean = sum.value() / n as f64;
        let stderr = (n >= 2).then(|| {
            let mut ss = crate::numeric::CompensatedSum::default();
            values.for_each(|v| ss.add((v - mean) * (v - mean)));
            (ss.value() / (n - 1) as f64).sqrt() / (n as f64).sqrt()
        });
        Some(PointSummary {
            mean,
            stderr,
            n_problems: n,
        })
    }

    /// [`PointSummary::of`] each coded column over one code array (the
    /// defined values of `tables[j][codes[i]]`), the same bits, the
    /// columns folded together ([`fold_coded`]).
    ///
    /// ```
    /// use rollstat_core::aggregate::PointSummary;
    /// let codes = [0, 1, 1, 2];
    /// let (a, b) = (vec![0.0, 1.0, f64::NAN], vec![0.5, 0.25, 1.0]);
    /// let both = PointSummary::of_coded(&codes, &[&a[..], &b[..]]);
    /// let alone = |t: &[f64]| PointSummary::of(codes.iter().map(|&c| t[c as usize]).filter(|v| !v.is_nan()));
    /// assert_eq!(both, [alone(&a), alone(&b)]);
    /// ```
    pub fn of_coded(codes: &[u32], tables: &[&[f64]]) -> Vec<Option<PointSummary>> {
        use crate::numeric::CompensatedSum;
        let sums = fold_coded(
            codes,
            tables,
            |_| (0u64, CompensatedSum::default()),
            |(n, mut sum), v| {
                if v.is_nan() {
                    return (n, sum);
                }
                sum.add(v);
                (n + 1, sum)
            },
        );
        let means: Vec<f64> = sums.iter().map(|(n, s)| s.value() / *n as f64).collect();
        let squares = fold_coded(
            codes,
            tables,
            |j| (means[j], CompensatedSum::default()),
            |(mean, mut ss), v| {
                if !v.is_nan() {
                    ss.add((v - mean) * (v - mean));
                }
                (mean, ss)
            },
        );
        sums.iter()
            .zip(squares)
            .map(|(&(n, _), (mean, ss))| {
                (n > 0).then(|| PointSummary {
                    mean,
                    stderr: (n >= 2)
                        .then(|| (ss.value() / (n - 1) as f64).sqrt() / (n as f64).sqrt()),
                    n_problems: n,
                })
            })
            .collect()
    }
}
