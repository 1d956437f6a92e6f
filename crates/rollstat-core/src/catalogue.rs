//! The metric catalogue: one typed description per metric family, and the
//! one grammar of metric keys.
//!
//! Every key a report, a comparison or a harness reconciliation carries
//! (`pass@4`, `pass^4`, `g-pass@4_0.5`, `maj@8`, `pass@4-maj@4`,
//! `cost_of_pass@4`, `pass@100_fit`, …) is a [`MetricKey`]: it is written
//! by `Display` and read back by `FromStr`, and nothing else in the tree
//! builds or parses keys. What a front end needs to know about a metric —
//! its unit, what the rows must carry for it, whether the tables for
//! people show it, which chart draws it, whether `compare` gives it a
//! non-inferiority verdict — is a [`FamilySpec`] in [`CATALOGUE`], reached
//! from any key by [`MetricKey::spec`].
//!
//! # Adding a count-based estimator
//!
//! Its function in [`crate::estimators`] (with an exact test), a
//! [`Metric`] variant with its `Display` / `FromStr` arm and its
//! [`Family`], and one [`CATALOGUE`] entry. The renderers, `compare` and
//! the docs' metric table read the entry; a test walks every family.
//!
//! ```
//! use rollstat_core::catalogue::{Family, Headline, MetricKey, Unit};
//! let key: MetricKey = "pass^4".parse().unwrap();
//! assert_eq!(key.family(), Family::PassPowK);
//! assert_eq!(key.k(), Some(4));
//! assert_eq!(key.spec().unit, Unit::Fraction);
//! assert_eq!(key.spec().headline, Headline::Always);
//! assert_eq!(key.spec().primary, rollstat_core::catalogue::Primary::LargestK);
//! assert_eq!(key.to_string(), "pass^4");
//! assert!("pass@4-maj@4".parse::<MetricKey>().unwrap().spec().headline == Headline::Never);
//! ```

use crate::aggregate::Metric;
use crate::best::ScoreOrder;
use std::fmt;
use std::str::FromStr;

/// A metric family: every key of one grammar (`pass@k` for all k).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Family {
    /// `pass@k`: at least one of k draws correct (unbiased, Chen et al.).
    PassAtK,
    /// `pass^k`: all k draws correct.
    PassPowK,
    /// `g-pass@k_τ`: at least ⌈τk⌉ of k draws correct.
    GPassAtK,
    /// `mg-pass@k`: G-Pass averaged over τ in (0.5, 1].
    MgPassAtK,
    /// `prefix@k`: the first k rollouts in order contain a correct one.
    PrefixAtK,
    /// `maj@k`: the most frequent answer of k draws is correct (maj@n at
    /// k = n).
    MajAtK,
    /// `bon@k`: the highest-scored of k draws is correct.
    BonAtK,
    /// `wmaj@n`: majority weighted by summed selector score.
    WmajAtN,
    /// `pass@k-maj@k`, `pass@k-bon@k`: the selection gap per problem.
    SelectionGap,
    /// `self_consistency`: the share of rollouts agreeing with the majority.
    SelfConsistency,
    /// `distinct_answers`: answer clusters per problem (a count).
    DistinctAnswers,
    /// `budget@k`: expected budget of k draws.
    BudgetAtK,
    /// `cost_of_pass@k`, `cost_of_maj@k`, `cost_of_bon@k`: budget per
    /// solved problem (a ratio of means).
    CostOf,
    /// `pass@K_fit`: pass@K beyond n from a beta-binomial fit.
    PassAtKFit,
}

/// The unit of a metric's values, as the report's `unit` field spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// A fraction in [0, 1] (printed as %).
    Fraction,
    /// A count (answer clusters).
    Count,
    /// In the budget field's unit (tokens, dollars, seconds).
    Budget,
    /// Budget per solved problem.
    BudgetPerSolved,
}

impl Unit {
    /// The wire spelling (`fraction`, `count`, `budget`, `budget_per_solved`).
    pub fn name(self) -> &'static str {
        match self {
            Unit::Fraction => "fraction",
            Unit::Count => "count",
            Unit::Budget => "budget",
            Unit::BudgetPerSolved => "budget_per_solved",
        }
    }

    /// Whether values print as percentages.
    pub fn is_fraction(self) -> bool {
        self == Unit::Fraction
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a problem's rows must carry for the metric to have a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Needs {
    /// Rollouts in order (per-rollout rows, not counts).
    pub rollout_order: bool,
    /// Extracted answers on every rollout.
    pub answers: bool,
    /// A selector score on every rollout.
    pub scores: bool,
    /// A budget value (tokens, cost, latency) on the rollouts.
    pub budget: bool,
}

/// Whether the tables for people (terminal, Markdown, HTML) show a metric
/// by default; every metric is in the JSON and in the full table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Headline {
    /// In the headline set (unless it equals another row by definition).
    Always,
    /// Only when the user asked for G-Pass thresholds.
    WhenTauAsked,
    /// Only in the full table.
    Never,
}

/// A chart the HTML report draws against k.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chart {
    /// pass@k, pass^k, maj@k and bon@k against k.
    AgainstK,
    /// prefix@k against pass@k.
    PrefixAgainstPass,
}

/// How a family is plotted: the charts it is a series of, and its series
/// number (the colour: the same number in every chart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plot {
    pub charts: &'static [Chart],
    pub series: u8,
}

/// What `compare` makes of a family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compared {
    /// A paired row, and a non-inferiority verdict when a margin is given
    /// (a correctness score: "B no worse than A" means something).
    WithVerdict,
    /// A paired row without a verdict (agreement, not correctness).
    WithoutVerdict,
    /// No row, for the reason given.
    NotCompared(&'static str),
}

/// Which row of a family `compare` puts in its default family of primary
/// metrics (the rows Holm and BH adjust over when none are named): one
/// overall row per family at its headline k.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Primary {
    /// The row at the smallest k compared: pass@1, the accuracy a model
    /// card quotes.
    SmallestK,
    /// The row at the largest k compared: pass^n (every rollout right) and
    /// maj@n (the vote over every rollout), as these families are quoted.
    LargestK,
    /// Not in the default family (named explicitly it can be): prefix@k
    /// estimates what pass@k estimates, G-Pass lies between pass@k and
    /// pass^k, self-consistency is agreement, the rest is not headline.
    No,
}

/// One catalogue entry: everything a front end knows about a family.
#[derive(Clone, Copy, Debug)]
pub struct FamilySpec {
    pub family: Family,
    /// The key grammar, for people (`pass@{k}`).
    pub grammar: &'static str,
    pub unit: Unit,
    pub needs: Needs,
    pub headline: Headline,
    /// The charts that draw it, if any.
    pub plot: Option<Plot>,
    /// What `compare` makes of it.
    pub compared: Compared,
    /// Whether (at which k) it is in `compare`'s default family.
    pub primary: Primary,
    /// One line for the docs' metric table.
    pub description: &'static str,
}

const ORDER: Needs = Needs {
    rollout_order: true,
    answers: false,
    scores: false,
    budget: false,
};
const ANSWERS: Needs = Needs {
    answers: true,
    ..ORDER
};
const SCORES: Needs = Needs {
    scores: true,
    ..ORDER
};
const BUDGET: Needs = Needs {
    budget: true,
    ..ORDER
};
const COUNTS: Needs = Needs {
    rollout_order: false,
    answers: false,
    scores: false,
    budget: false,
};

/// Every metric family, in report order.
pub static CATALOGUE: &[FamilySpec] = &[
    FamilySpec {
        family: Family::PassAtK,
        grammar: "pass@{k}",
        unit: Unit::Fraction,
        needs: COUNTS,
        headline: Headline::Always,
        plot: Some(Plot {
            charts: &[Chart::AgainstK, Chart::PrefixAgainstPass],
            series: 1,
        }),
        compared: Compared::WithVerdict,
        primary: Primary::SmallestK,
        description: "at least one of k draws (without replacement) from the n rollouts is correct; unbiased",
    },
    FamilySpec {
        family: Family::PassPowK,
        grammar: "pass^{k}",
        unit: Unit::Fraction,
        needs: COUNTS,
        headline: Headline::Always,
        plot: Some(Plot {
            charts: &[Chart::AgainstK],
            series: 2,
        }),
        compared: Compared::WithVerdict,
        primary: Primary::LargestK,
        description: "all k draws correct (reliability); C(c,k)/C(n,k)",
    },
    FamilySpec {
        family: Family::GPassAtK,
        grammar: "g-pass@{k}_{tau}",
        unit: Unit::Fraction,
        needs: COUNTS,
        headline: Headline::WhenTauAsked,
        plot: None,
        compared: Compared::WithVerdict,
        primary: Primary::No,
        description: "at least ⌈τk⌉ of k draws correct (hypergeometric tail)",
    },
    FamilySpec {
        family: Family::MgPassAtK,
        grammar: "mg-pass@{k}",
        unit: Unit::Fraction,
        needs: COUNTS,
        headline: Headline::WhenTauAsked,
        plot: None,
        compared: Compared::WithVerdict,
        primary: Primary::No,
        description: "G-Pass@k averaged over the thresholds τ in (0.5, 1]",
    },
    FamilySpec {
        family: Family::PrefixAtK,
        grammar: "prefix@{k}",
        unit: Unit::Fraction,
        needs: ORDER,
        headline: Headline::Always,
        plot: Some(Plot {
            charts: &[Chart::PrefixAgainstPass],
            series: 5,
        }),
        compared: Compared::WithVerdict,
        primary: Primary::No,
        description: "one of the first k rollouts in file order is correct (what a run with n = k reports)",
    },
    FamilySpec {
        family: Family::MajAtK,
        grammar: "maj@{k}",
        unit: Unit::Fraction,
        needs: ANSWERS,
        headline: Headline::Always,
        plot: Some(Plot {
            charts: &[Chart::AgainstK],
            series: 3,
        }),
        compared: Compared::WithVerdict,
        primary: Primary::LargestK,
        description: "the most frequent extracted answer of k draws is correct (exact over all k-subsets; maj@n at k = n)",
    },
    FamilySpec {
        family: Family::BonAtK,
        grammar: "bon@{k}",
        unit: Unit::Fraction,
        needs: SCORES,
        headline: Headline::Never,
        plot: Some(Plot {
            charts: &[Chart::AgainstK],
            series: 4,
        }),
        compared: Compared::WithVerdict,
        primary: Primary::No,
        description: "the highest-scored of k draws is correct (best-of-k by the selector score)",
    },
    FamilySpec {
        family: Family::WmajAtN,
        grammar: "wmaj@{n}",
        unit: Unit::Fraction,
        needs: Needs {
            answers: true,
            scores: true,
            ..ORDER
        },
        headline: Headline::Never,
        plot: None,
        compared: Compared::WithVerdict,
        primary: Primary::No,
        description: "majority over all n rollouts weighted by summed selector score",
    },
    FamilySpec {
        family: Family::SelectionGap,
        grammar: "pass@{k}-{selector}",
        unit: Unit::Fraction,
        needs: ANSWERS,
        headline: Headline::Never,
        plot: None,
        compared: Compared::NotCompared("a difference of two metrics that are compared row by row"),
        primary: Primary::No,
        description: "pass@k minus maj@k or bon@k per problem: what the selector leaves on the table",
    },
    FamilySpec {
        family: Family::SelfConsistency,
        grammar: "self_consistency",
        unit: Unit::Fraction,
        needs: ANSWERS,
        headline: Headline::Always,
        plot: None,
        compared: Compared::WithoutVerdict,
        primary: Primary::No,
        description: "share of other rollouts agreeing with the majority answer (agreement, not correctness)",
    },
    FamilySpec {
        family: Family::DistinctAnswers,
        grammar: "distinct_answers",
        unit: Unit::Count,
        needs: ANSWERS,
        headline: Headline::Never,
        plot: None,
        compared: Compared::NotCompared("a count of answer clusters, not a score of either system"),
        primary: Primary::No,
        description: "distinct answer clusters per problem",
    },
    FamilySpec {
        family: Family::BudgetAtK,
        grammar: "budget@{k}",
        unit: Unit::Budget,
        needs: BUDGET,
        headline: Headline::Never,
        plot: None,
        compared: Compared::NotCompared("compare matches budgets instead: budget-matched pass@k, maj@k and bon@k rows"),
        primary: Primary::No,
        description: "expected budget of k draws: k × the problem's mean budget per rollout",
    },
    FamilySpec {
        family: Family::CostOf,
        grammar: "cost_of_{pass|maj|bon}@{k}",
        unit: Unit::BudgetPerSolved,
        needs: BUDGET,
        headline: Headline::Never,
        plot: None,
        compared: Compared::NotCompared("compare matches budgets instead: budget-matched pass@k, maj@k and bon@k rows"),
        primary: Primary::No,
        description: "expected budget per solved problem: mean budget@k / mean success@k over the same problems",
    },
    FamilySpec {
        family: Family::PassAtKFit,
        grammar: "pass@{K}_fit",
        unit: Unit::Fraction,
        needs: COUNTS,
        headline: Headline::Never,
        plot: None,
        compared: Compared::NotCompared("model-based; compare fits no extrapolation"),
        primary: Primary::No,
        description: "pass@K beyond n from a beta-binomial fit of the problems' success rates (model-based)",
    },
];

/// The catalogue entry of `family`.
///
/// ```
/// use rollstat_core::catalogue::{spec, Family, Unit};
/// assert_eq!(spec(Family::DistinctAnswers).unit, Unit::Count);
/// ```
pub fn spec(family: Family) -> &'static FamilySpec {
    CATALOGUE
        .iter()
        .find(|s| s.family == family)
        .expect("every family has a catalogue entry (tested)")
}

/// Every key a report can carry.
#[derive(Clone, Debug, PartialEq)]
pub enum MetricKey {
    /// A mean of per-problem values.
    Metric(Metric),
    /// `cost_of_<success>`: budget@k over the success metric at the same k
    /// (pass@k, maj@k or bon@k).
    CostOf(Metric),
    /// `pass@K_fit`: extrapolated pass@K.
    PassAtKFit(u64),
}

impl From<Metric> for MetricKey {
    fn from(m: Metric) -> MetricKey {
        MetricKey::Metric(m)
    }
}

impl MetricKey {
    /// The key's family.
    pub fn family(&self) -> Family {
        match self {
            MetricKey::Metric(m) => m.family(),
            MetricKey::CostOf(_) => Family::CostOf,
            MetricKey::PassAtKFit(_) => Family::PassAtKFit,
        }
    }

    /// The key's catalogue entry.
    pub fn spec(&self) -> &'static FamilySpec {
        spec(self.family())
    }

    /// The draw size k (maj@n: n), where the key has one.
    pub fn k(&self) -> Option<u64> {
        match self {
            MetricKey::Metric(m) | MetricKey::CostOf(m) => m.k(),
            MetricKey::PassAtKFit(k) => Some(*k),
        }
    }

    /// The per-problem metric, for keys that are one.
    pub fn metric(&self) -> Option<&Metric> {
        match self {
            MetricKey::Metric(m) => Some(m),
            _ => None,
        }
    }
}

impl fmt::Display for MetricKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MetricKey::Metric(m) => m.fmt(f),
            MetricKey::CostOf(m) => write!(f, "cost_of_{m}"),
            MetricKey::PassAtKFit(k) => write!(f, "pass@{k}_fit"),
        }
    }
}

/// A text that is no metric key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{key}' is not a metric key (pass@k, pass^k, g-pass@k_τ, mg-pass@k, prefix@k, maj@k, bon@k, wmaj@n, pass@k-maj@k, self_consistency, distinct_answers, budget@k, cost_of_pass@k, pass@K_fit)")]
#[non_exhaustive]
pub struct UnknownKey {
    /// The text as given.
    pub key: String,
}

impl FromStr for MetricKey {
    type Err = UnknownKey;

    fn from_str(s: &str) -> Result<MetricKey, UnknownKey> {
        let unknown = || UnknownKey { key: s.to_string() };
        if let Some(success) = s.strip_prefix("cost_of_") {
            let m: Metric = success.parse().map_err(|_| unknown())?;
            return match m {
                Metric::PassAtK(_) | Metric::MajAtK(_) | Metric::BonAtK { .. } => {
                    Ok(MetricKey::CostOf(m))
                }
                _ => Err(unknown()),
            };
        }
        if let Some(k) = s.strip_prefix("pass@").and_then(|r| r.strip_suffix("_fit")) {
            return positive(k).map(MetricKey::PassAtKFit).ok_or_else(unknown);
        }
        s.parse().map(MetricKey::Metric)
    }
}

/// A draw size: a positive integer in plain decimal (no sign, no leading
/// zero), so that every key has one spelling.
fn positive(text: &str) -> Option<u64> {
    let plain = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && !(text.len() > 1 && text.starts_with('0'));
    text.parse().ok().filter(|&k| plain && k >= 1)
}

/// A G-Pass threshold as written in a key: a decimal in (0, 1].
fn tau(text: &str) -> Option<f64> {
    let plain = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    text.parse::<f64>()
        .ok()
        .filter(|&t| plain && t > 0.0 && t <= 1.0)
}

impl FromStr for Metric {
    type Err = UnknownKey;

    /// Reads a per-problem metric's key. Two facts are not in the key and
    /// take their usual value: `maj@k` reads as [`Metric::MajAtK`] (the
    /// report writes maj@n for k = n with the same key), and `bon@k` as
    /// the descending score order.
    ///
    /// ```
    /// use rollstat_core::aggregate::Metric;
    /// assert_eq!("pass@4".parse::<Metric>().unwrap(), Metric::PassAtK(4));
    /// assert!("pass@04".parse::<Metric>().is_err());
    /// let gap: Metric = "pass@4-maj@4".parse().unwrap();
    /// assert_eq!(gap.to_string(), "pass@4-maj@4");
    /// ```
    fn from_str(s: &str) -> Result<Metric, UnknownKey> {
        let unknown = || UnknownKey { key: s.to_string() };
        match s {
            "self_consistency" => return Ok(Metric::SelfConsistency),
            "distinct_answers" => return Ok(Metric::DistinctAnswers),
            _ => {}
        }
        if let Some((pass, selector)) = s.split_once('-').filter(|(p, _)| p.starts_with("pass@")) {
            let Ok(Metric::PassAtK(k)) = pass.parse::<Metric>() else {
                return Err(unknown());
            };
            let selector: Metric = selector.parse().map_err(|_| unknown())?;
            return match selector {
                Metric::MajAtK(j) | Metric::BonAtK { k: j, .. } if j == k => {
                    Ok(Metric::SelectionGap {
                        k,
                        selector: Box::new(selector),
                    })
                }
                _ => Err(unknown()),
            };
        }
        if let Some((k, t)) = s.strip_prefix("g-pass@").and_then(|r| r.split_once('_')) {
            let (k, tau_value) = (
                positive(k).ok_or_else(unknown)?,
                tau(t).ok_or_else(unknown)?,
            );
            return Ok(Metric::GPassAtK {
                k,
                tau: tau_value,
                tau_text: t.to_string(),
            });
        }
        let (family, k) = s
            .find(['@', '^'])
            .map(|i| s.split_at(i + 1))
            .ok_or_else(unknown)?;
        let k = positive(k).ok_or_else(unknown)?;
        Ok(match family {
            "pass@" => Metric::PassAtK(k),
            "pass^" => Metric::PassPowK(k),
            "mg-pass@" => Metric::MgPassAtK(k),
            "prefix@" => Metric::PrefixAtK(k),
            "maj@" => Metric::MajAtK(k),
            "bon@" => Metric::BonAtK {
                k,
                order: ScoreOrder::Descending,
            },
            "wmaj@" => Metric::WmajAtN(k),
            "budget@" => Metric::BudgetAtK(k),
            _ => return Err(unknown()),
        })
    }
}

impl Metric {
    /// The metric's family in the [`CATALOGUE`].
    ///
    /// ```
    /// use rollstat_core::aggregate::Metric;
    /// use rollstat_core::catalogue::Family;
    /// assert_eq!(Metric::MajAtN(8).family(), Family::MajAtK);
    /// ```
    pub fn family(&self) -> Family {
        match self {
            Metric::PassAtK(_) => Family::PassAtK,
            Metric::PassPowK(_) => Family::PassPowK,
            Metric::GPassAtK { .. } => Family::GPassAtK,
            Metric::MgPassAtK(_) => Family::MgPassAtK,
            Metric::PrefixAtK(_) => Family::PrefixAtK,
            Metric::MajAtN(_) | Metric::MajAtK(_) => Family::MajAtK,
            Metric::BonAtK { .. } => Family::BonAtK,
            Metric::WmajAtN(_) => Family::WmajAtN,
            Metric::SelectionGap { .. } => Family::SelectionGap,
            Metric::SelfConsistency => Family::SelfConsistency,
            Metric::DistinctAnswers => Family::DistinctAnswers,
            Metric::BudgetAtK(_) => Family::BudgetAtK,
        }
    }

    /// The metric's catalogue entry.
    pub fn spec(&self) -> &'static FamilySpec {
        spec(self.family())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_exactly_one_entry() {
        let families = [
            Family::PassAtK,
            Family::PassPowK,
            Family::GPassAtK,
            Family::MgPassAtK,
            Family::PrefixAtK,
            Family::MajAtK,
            Family::BonAtK,
            Family::WmajAtN,
            Family::SelectionGap,
            Family::SelfConsistency,
            Family::DistinctAnswers,
            Family::BudgetAtK,
            Family::CostOf,
            Family::PassAtKFit,
        ];
        for f in families {
            assert_eq!(
                CATALOGUE.iter().filter(|s| s.family == f).count(),
                1,
                "{f:?}"
            );
        }
        assert_eq!(CATALOGUE.len(), families.len());
    }

    /// One key per family, written by hand: each parses to its family and
    /// prints back as written.
    #[test]
    fn keys_round_trip_through_their_family() {
        let cases = [
            ("pass@1", Family::PassAtK, Some(1)),
            ("pass^16", Family::PassPowK, Some(16)),
            ("g-pass@4_0.5", Family::GPassAtK, Some(4)),
            ("g-pass@4_1.0", Family::GPassAtK, Some(4)),
            ("mg-pass@8", Family::MgPassAtK, Some(8)),
            ("prefix@2", Family::PrefixAtK, Some(2)),
            ("maj@64", Family::MajAtK, Some(64)),
            ("bon@3", Family::BonAtK, Some(3)),
            ("wmaj@8", Family::WmajAtN, Some(8)),
            ("pass@4-maj@4", Family::SelectionGap, Some(4)),
            ("pass@2-bon@2", Family::SelectionGap, Some(2)),
            ("self_consistency", Family::SelfConsistency, None),
            ("distinct_answers", Family::DistinctAnswers, None),
            ("budget@4", Family::BudgetAtK, Some(4)),
            ("cost_of_pass@4", Family::CostOf, Some(4)),
            ("cost_of_maj@4", Family::CostOf, Some(4)),
            ("cost_of_bon@1", Family::CostOf, Some(1)),
            ("pass@100_fit", Family::PassAtKFit, Some(100)),
        ];
        for (text, family, k) in cases {
            let key: MetricKey = text.parse().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!((key.family(), key.k()), (family, k), "{text}");
            assert_eq!(key.to_string(), text);
        }
    }

    /// Every metric a report or a comparison computes, for n = 1 … 20, the
    /// default ks and three thresholds: its key reads back to the same
    /// family, k and needs, and prints as before.
    #[test]
    fn every_metric_a_report_makes_round_trips() {
        use crate::aggregate::{default_ks, metric_set, selection_metrics};
        let taus = [
            (0.25, "0.25".to_string()),
            (0.5, "0.5".into()),
            (1.0, "1.0".into()),
        ];
        for n in 1..=20u64 {
            let ks = default_ks(n);
            let mut all = metric_set(&ks, &taus, n);
            all.extend(selection_metrics(&ks, n, Some(ScoreOrder::Descending)));
            all.extend(ks.iter().map(|&k| Metric::BudgetAtK(k)));
            for m in all {
                let text = m.to_string();
                let back: Metric = text.parse().unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(back.to_string(), text);
                assert_eq!(
                    (back.family(), back.k(), back.needs()),
                    (m.family(), m.k(), m.needs())
                );
            }
        }
    }

    #[test]
    fn malformed_keys_are_refused() {
        for text in [
            "",
            "pass@",
            "pass@0",
            "pass@04",
            "pass@+4",
            "pass@4x",
            "pass^",
            "pass@4-maj@2",
            "pass@4-pass^4",
            "g-pass@4",
            "g-pass@4_0",
            "g-pass@4_1.5",
            "g-pass@4_-0.5",
            "cost_of_pass^4",
            "cost_of_",
            "pass@_fit",
            "pass@0_fit",
            "unknown@4",
            "maj@n",
            "Self_Consistency",
        ] {
            assert!(text.parse::<MetricKey>().is_err(), "{text:?} parsed");
        }
    }

    #[test]
    fn units_spell_as_on_the_wire() {
        for (u, text) in [
            (Unit::Fraction, "\"fraction\""),
            (Unit::Count, "\"count\""),
            (Unit::Budget, "\"budget\""),
            (Unit::BudgetPerSolved, "\"budget_per_solved\""),
        ] {
            assert_eq!(serde_json::to_string(&u).unwrap(), text);
            assert_eq!(format!("\"{u}\""), text);
        }
    }
}
