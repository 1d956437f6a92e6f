//! Intervals, clustered standard errors and the variance split for every
//! metric of a report. All metrics of one population are resampled with the
//! same problem (or cluster) indices, so their intervals are consistent.

use crate::args::UncertaintyArgs;
use crate::pipeline::InputError;
use anyhow::Result;
use rollstat_core::aggregate::{Metric, MetricColumn};
use rollstat_core::report::{CiConfig, MetricBlock, VarianceEntry};
use rollstat_core::summary::ProblemSummary;
use rollstat_stats::{
    binomial_interval, bootstrap_means, cluster_bootstrap_means, clustered_se, dist,
    method_warnings, pass1_sampling_variance, pass_at_k_sampling_variance, rng,
    variance_decomposition, BinomialMethod, BootstrapConfig, BootstrapReport, CiMethod,
    ClusteredSe, MethodContext,
};

/// The interval a report computes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IntervalMethod {
    None,
    Resampled(CiMethod),
    Binomial(BinomialMethod),
}

impl IntervalMethod {
    fn parse(s: &str) -> Result<IntervalMethod> {
        Ok(match s {
            "none" => IntervalMethod::None,
            "bootstrap" | "percentile" => IntervalMethod::Resampled(CiMethod::Percentile),
            "bca" => IntervalMethod::Resampled(CiMethod::Bca),
            "basic" => IntervalMethod::Resampled(CiMethod::Basic),
            "t" => IntervalMethod::Resampled(CiMethod::T),
            "wilson" => IntervalMethod::Binomial(BinomialMethod::Wilson),
            "jeffreys" => IntervalMethod::Binomial(BinomialMethod::Jeffreys),
            "clopper-pearson" => IntervalMethod::Binomial(BinomialMethod::ClopperPearson),
            other => {
                return Err(InputError(format!(
                    "--ci: unknown method '{other}'; expected bootstrap, bca, basic, t, wilson, jeffreys, clopper-pearson or none"
                ))
                .into())
            }
        })
    }

    fn name(self) -> &'static str {
        match self {
            IntervalMethod::None => "none",
            IntervalMethod::Resampled(CiMethod::Percentile) => "bootstrap",
            IntervalMethod::Resampled(m) => m.name(),
            IntervalMethod::Binomial(m) => m.name(),
        }
    }

    fn resamples(self) -> bool {
        matches!(
            self,
            IntervalMethod::Resampled(CiMethod::Percentile | CiMethod::Basic | CiMethod::Bca)
                | IntervalMethod::Binomial(_)
        )
    }
}

/// Validated uncertainty settings.
#[derive(Clone, Debug)]
pub struct Uncertainty {
    pub method: IntervalMethod,
    pub level: f64,
    pub resamples: usize,
    pub seed: u64,
    pub cluster_by: Option<String>,
}

impl Uncertainty {
    pub fn from_args(a: &UncertaintyArgs) -> Result<Uncertainty> {
        if !(a.level > 0.0 && a.level < 1.0) {
            return Err(InputError(format!("--level: {} is not in (0, 1)", a.level)).into());
        }
        if a.resamples < 2 {
            return Err(InputError("--resamples: need at least 2".into()).into());
        }
        Ok(Uncertainty {
            method: IntervalMethod::parse(&a.ci)?,
            level: a.level,
            resamples: a.resamples,
            seed: a.seed,
            cluster_by: a.cluster_by.clone(),
        })
    }

    /// What `config.ci` records.
    pub fn config(&self) -> CiConfig {
        let resampled = self.method.resamples();
        CiConfig {
            method: match (self.method, &self.cluster_by) {
                (IntervalMethod::None, _) => "none".into(),
                (m, Some(_)) if resampled => format!("cluster-{}", m.name()),
                (m, _) => m.name().into(),
            },
            level: self.level,
            resamples: resampled.then_some(self.resamples as u64),
            seed: resampled.then_some(self.seed),
            rng: resampled.then(|| rng::RNG_SCHEME.to_string()),
            cluster_by: self.cluster_by.clone(),
        }
    }

    /// Fills `ci`, `method`, `level`, `seed`, clustered `stderr` and the
    /// variance split of every metric in `block`; returns warnings in words.
    pub fn apply(
        &self,
        columns: &[MetricColumn],
        summaries: &[ProblemSummary],
        clusters: Option<&[u64]>,
        block: &mut MetricBlock,
    ) -> Vec<String> {
        let mut warnings = Vec::new();
        let defined: Vec<&MetricColumn> = columns
            .iter()
            .filter(|c| block.metrics.get(&c.metric.to_string()).is_some())
            .collect();
        if defined.is_empty() {
            return warnings;
        }
        let boot = if self.method.resamples() {
            self.bootstrap(&defined, clusters)
        } else {
            None
        };
        // What each column needs from its values, computed for all columns
        // in parallel: clustered SE, variance split, defined count, 1s, 0/1-ness.
        let stats: Vec<ColumnStats> = {
            use rayon::prelude::*;
            defined
                .par_iter()
                .map(|col| ColumnStats::of(col, clusters, summaries))
                .collect()
        };
        let mut fell_back = Vec::new();
        for ((idx, col), st) in defined.iter().enumerate().zip(stats) {
            let name = col.metric.to_string();
            let entry = block
                .metrics
                .0
                .iter_mut()
                .find(|(k, _)| *k == name)
                .map(|(_, e)| e)
                .expect("defined");
            let mut df = st.n as f64 - 1.0;
            if let Some(c) = st.clustered {
                entry.stderr = Some(c.se_cr1);
                df = c.clusters as f64 - 1.0;
            }
            if let Some(v) = st.variance {
                entry.variance = Some(v);
            }
            let binary = st.binary;
            let ci = match self.method {
                IntervalMethod::None => continue,
                IntervalMethod::Resampled(CiMethod::T) => {
                    entry.stderr.filter(|_| df >= 1.0).map(|se| {
                        let q = dist::t_quantile(1.0 - (1.0 - self.level) / 2.0, df);
                        [entry.value - q * se, entry.value + q * se]
                    })
                }
                IntervalMethod::Binomial(m) if binary && clusters.is_none() => {
                    binomial_interval(st.ones, st.n as u64, self.level, m)
                        .ok()
                        .map(|i| [i.lower, i.upper])
                }
                IntervalMethod::Binomial(_) => {
                    fell_back.push(name.clone());
                    boot.as_ref()
                        .map(|b| interval(b, idx, CiMethod::Percentile))
                }
                IntervalMethod::Resampled(m) => boot.as_ref().map(|b| interval(b, idx, m)),
            };
            entry.ci = ci.filter(|c| c[0].is_finite() && c[1].is_finite());
            entry.method = if fell_back.last() == Some(&name) {
                "bootstrap".into()
            } else {
                self.config().method
            };
            entry.level = Some(self.level);
            entry.seed = self.method.resamples().then_some(self.seed);
        }
        if !fell_back.is_empty() {
            warnings.push(format!(
                "{} intervals need one 0/1 value per problem (and no clusters); {} got a percentile bootstrap instead",
                self.method.name(),
                summarize_names(&fell_back)
            ));
        }
        if let Some(first) = defined.first() {
            let n = first.values.iter().filter(|v| !v.is_nan()).count();
            let binary = first
                .values
                .iter()
                .filter(|v| !v.is_nan())
                .all(|&v| v == 0.0 || v == 1.0);
            let method = match self.method {
                IntervalMethod::Resampled(m) => Some(m),
                IntervalMethod::Binomial(_) | IntervalMethod::None => None,
            };
            if let Some(method) = method {
                let ctx = MethodContext {
                    method,
                    n,
                    clusters: clusters.map(|c| {
                        let mut ids = c.to_vec();
                        ids.sort_unstable();
                        ids.dedup();
                        ids.len()
                    }),
                    binary,
                    resamples: self.resamples,
                };
                warnings.extend(
                    method_warnings(&ctx)
                        .into_iter()
                        .map(|w| match w.suggestion {
                            Some(s) => format!("{} (consider --ci {s})", w.message),
                            None => w.message,
                        }),
                );
            }
        }
        warnings
    }

    fn bootstrap(
        &self,
        cols: &[&MetricColumn],
        clusters: Option<&[u64]>,
    ) -> Option<BootstrapReport> {
        let slices: Vec<&[f64]> = cols.iter().map(|c| c.values.as_slice()).collect();
        let cfg = BootstrapConfig {
            resamples: self.resamples,
            level: self.level,
            seed: self.seed,
        };
        match clusters {
            Some(cl) => cluster_bootstrap_means(&slices, cl, &cfg).ok(),
            None => bootstrap_means(&slices, &cfg).ok(),
        }
    }
}

fn interval(b: &BootstrapReport, idx: usize, m: CiMethod) -> [f64; 2] {
    let i = b.columns[idx].interval(m);
    [i.lower, i.upper]
}

fn summarize_names(names: &[String]) -> String {
    if names.len() <= 4 {
        names.join(", ")
    } else {
        format!(
            "{} and {} more metrics",
            names[..3].join(", "),
            names.len() - 3
        )
    }
}

/// Between/within split for pass@k, from the unbiased per-problem sampling
/// variance (defined where n ≥ 2k).
/// Per column: what the interval code reads from its values.
struct ColumnStats {
    clustered: Option<ClusteredSe>,
    variance: Option<VarianceEntry>,
    /// Defined values.
    n: usize,
    /// Values equal to 1.
    ones: u64,
    /// Every defined value is 0 or 1.
    binary: bool,
}

impl ColumnStats {
    fn of(col: &MetricColumn, clusters: Option<&[u64]>, summaries: &[ProblemSummary]) -> Self {
        let (mut n, mut ones, mut binary) = (0usize, 0u64, true);
        for &v in col.values.iter().filter(|v| !v.is_nan()) {
            n += 1;
            ones += (v == 1.0) as u64;
            binary &= v == 0.0 || v == 1.0;
        }
        ColumnStats {
            clustered: clusters.and_then(|cl| clustered_se(&col.values, cl).ok()),
            variance: variance_split(&col.metric, &col.values, summaries),
            n,
            ones,
            binary,
        }
    }
}

fn variance_split(
    metric: &Metric,
    values: &[f64],
    summaries: &[ProblemSummary],
) -> Option<VarianceEntry> {
    let Metric::PassAtK(k) = *metric else {
        return None;
    };
    // The estimate depends on (n, c) only, which repeat across problems:
    // a dense row per n (up to 4096), a map beyond.
    let compute = |n: u64, c: u64| {
        let est = if k == 1 {
            pass1_sampling_variance(n, c)
        } else {
            pass_at_k_sampling_variance(n, c, k)
        };
        est.unwrap_or(f64::NAN)
    };
    let mut rows: Vec<Vec<Option<f64>>> = Vec::new();
    let mut big: std::collections::HashMap<(u64, u64), f64> = std::collections::HashMap::new();
    let v: Vec<f64> = summaries
        .iter()
        .map(|p| {
            if p.n <= 4096 && p.c <= p.n {
                let n = p.n as usize;
                if rows.len() <= n {
                    rows.resize(n + 1, Vec::new());
                }
                if rows[n].is_empty() {
                    rows[n] = vec![None; n + 1];
                }
                *rows[n][p.c as usize].get_or_insert_with(|| compute(p.n, p.c))
            } else {
                *big.entry((p.n, p.c)).or_insert_with(|| compute(p.n, p.c))
            }
        })
        .collect();
    let d = variance_decomposition(values, &v).ok()?;
    if d.n < 2 {
        return None;
    }
    Some(VarianceEntry {
        between: d.between,
        within: d.within,
        dominant: format!("{:?}", d.dominant).to_lowercase(),
        advice: d.dominant.advice().to_string(),
        n_problems: d.n as u64,
    })
}

/// Dense cluster ids in order of first appearance; a problem without a
/// value is its own cluster (treated as independent).
pub fn cluster_ids(values: &[Option<&str>]) -> Vec<u64> {
    let mut map: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
    let mut next = 0u64;
    values
        .iter()
        .map(|v| {
            let id = match v {
                Some(s) => *map.entry(s).or_insert_with(|| {
                    next += 1;
                    next - 1
                }),
                None => {
                    next += 1;
                    next - 1
                }
            };
            id
        })
        .collect()
}
