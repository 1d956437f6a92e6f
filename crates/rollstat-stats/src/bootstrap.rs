//! Multi-metric bootstrap over problems (or clusters of problems); see the
//! crate-level documentation for the conventions.

use rayon::prelude::*;
use rollstat_core::aggregate::{coded_groups, fold_coded, CodedGroup};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::cluster::{clustered_se, dense_cluster_ids};
use crate::column::Column;
use crate::dist::{normal_cdf, normal_quantile, t_quantile};
use crate::error::{check_level, Result, StatsError};
use crate::multinomial;
use crate::rng;

/// Confidence-interval method.
///
/// ```
/// use rollstat_stats::CiMethod;
/// assert_eq!(CiMethod::Bca.name(), "bca");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CiMethod {
    /// Percentile interval of the bootstrap distribution.
    Percentile,
    /// Basic (reverse-percentile) interval.
    Basic,
    /// Bias-corrected and accelerated interval.
    Bca,
    /// Student-t interval (no resampling).
    T,
}

impl CiMethod {
    /// All methods, in a fixed order.
    ///
    /// ```
    /// assert_eq!(rollstat_stats::CiMethod::ALL.len(), 4);
    /// ```
    pub const ALL: [CiMethod; 4] = [
        CiMethod::Percentile,
        CiMethod::Basic,
        CiMethod::Bca,
        CiMethod::T,
    ];

    /// Lower-case name (`"percentile"`, `"basic"`, `"bca"`, `"t"`).
    ///
    /// ```
    /// assert_eq!(rollstat_stats::CiMethod::T.name(), "t");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            CiMethod::Percentile => "percentile",
            CiMethod::Basic => "basic",
            CiMethod::Bca => "bca",
            CiMethod::T => "t",
        }
    }
}

/// A closed interval `[lower, upper]` (bounds may be `NaN` when undefined, or
/// infinite for one-sided intervals).
///
/// ```
/// let i = rollstat_stats::Interval { lower: 0.1, upper: 0.3 };
/// assert!(i.contains(0.2));
/// assert!((i.width() - 0.2).abs() < 1e-15);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower bound.
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
}

impl Interval {
    /// `upper − lower`.
    ///
    /// ```
    /// assert_eq!(rollstat_stats::Interval { lower: 1.0, upper: 3.0 }.width(), 2.0);
    /// ```
    pub fn width(&self) -> f64 {
        self.upper - self.lower
    }

    /// Whether `lower ≤ x ≤ upper` (false if a bound is NaN).
    ///
    /// ```
    /// assert!(!rollstat_stats::Interval { lower: f64::NAN, upper: 1.0 }.contains(0.5));
    /// ```
    pub fn contains(&self, x: f64) -> bool {
        self.lower <= x && x <= self.upper
    }

    pub(crate) const NAN: Interval = Interval {
        lower: f64::NAN,
        upper: f64::NAN,
    };
}

/// Bootstrap settings.
///
/// ```
/// let c = rollstat_stats::BootstrapConfig::default();
/// assert_eq!((c.resamples, c.level, c.seed), (10_000, 0.95, 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BootstrapConfig {
    /// Number of bootstrap resamples B (default 10 000).
    pub resamples: usize,
    /// Two-sided confidence level (default 0.95).
    pub level: f64,
    /// Seed of the random streams (default 0).
    pub seed: u64,
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        Self {
            resamples: 10_000,
            level: 0.95,
            seed: 0,
        }
    }
}

/// Bootstrap result for one column (metric).
///
/// ```
/// use rollstat_stats::{bootstrap_means, BootstrapConfig, CiMethod};
/// let y = [0.0, 1.0, 0.5, 1.0, 0.25, 0.75];
/// let r = bootstrap_means(&[&y], &BootstrapConfig { resamples: 500, ..Default::default() }).unwrap();
/// let col = &r.columns[0];
/// assert!(col.interval(CiMethod::Percentile).contains(col.estimate));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnBootstrap {
    /// Mean over the defined values.
    pub estimate: f64,
    /// Number of defined (non-NaN) values.
    pub n: usize,
    /// Bootstrap standard error (sd of the replicates, ddof = 1).
    pub std_error: f64,
    /// Analytic SE used by the `t` interval (sd/√n, or CR1 when clustered).
    pub analytic_se: f64,
    /// Degrees of freedom of the `t` interval (n − 1, or C − 1 when clustered).
    pub t_df: f64,
    /// Jackknife acceleration â used by BCa.
    pub acceleration: f64,
    /// Resamples where this column had no defined value (dropped).
    pub undefined_resamples: usize,
    /// Level of the intervals below.
    pub level: f64,
    /// Percentile interval at `level`.
    pub percentile: Interval,
    /// Basic interval at `level`.
    pub basic: Interval,
    /// BCa interval at `level`.
    pub bca: Interval,
    /// Student-t interval at `level`.
    pub t: Interval,
    #[serde(skip)]
    distribution: Vec<f64>,
}

impl ColumnBootstrap {
    /// The interval of `method` at the configured level.
    ///
    /// ```
    /// # use rollstat_stats::{bootstrap_means, BootstrapConfig, CiMethod};
    /// # let y = [0.0, 1.0, 0.5, 1.0];
    /// let r = bootstrap_means(&[&y], &BootstrapConfig { resamples: 200, ..Default::default() }).unwrap();
    /// assert_eq!(r.columns[0].interval(CiMethod::Basic), r.columns[0].basic);
    /// ```
    pub fn interval(&self, method: CiMethod) -> Interval {
        match method {
            CiMethod::Percentile => self.percentile,
            CiMethod::Basic => self.basic,
            CiMethod::Bca => self.bca,
            CiMethod::T => self.t,
        }
    }

    /// The two-sided interval of `method` at another `level`, reusing the
    /// stored bootstrap distribution.
    ///
    /// ```
    /// # use rollstat_stats::{bootstrap_means, BootstrapConfig, CiMethod};
    /// # let y = [0.0, 1.0, 0.5, 1.0, 0.2, 0.4];
    /// let r = bootstrap_means(&[&y], &BootstrapConfig { resamples: 500, ..Default::default() }).unwrap();
    /// let c = &r.columns[0];
    /// assert!(c.interval_at(CiMethod::T, 0.8).unwrap().width() < c.t.width());
    /// ```
    pub fn interval_at(&self, method: CiMethod, level: f64) -> Result<Interval> {
        check_level(level)?;
        if method == CiMethod::T {
            return Ok(t_interval(
                self.estimate,
                self.analytic_se,
                self.t_df,
                level,
            ));
        }
        distribution_interval(
            method,
            self.estimate,
            &self.distribution,
            self.acceleration,
            level,
        )
    }

    /// One-sided bounds at `level`: `lower` is the one-sided lower bound with
    /// coverage `level`, `upper` the one-sided upper bound with coverage
    /// `level`. These equal the two-sided interval at level `2·level − 1`
    /// (e.g. 0.95 one-sided ⇔ 0.90 two-sided). Requires `level > 0.5`.
    ///
    /// ```
    /// # use rollstat_stats::{bootstrap_means, BootstrapConfig, CiMethod};
    /// # let y = [0.0, 1.0, 0.5, 1.0, 0.2, 0.4];
    /// let r = bootstrap_means(&[&y], &BootstrapConfig { resamples: 500, ..Default::default() }).unwrap();
    /// let c = &r.columns[0];
    /// assert_eq!(c.one_sided_bounds(CiMethod::Percentile, 0.95).unwrap(),
    ///            c.interval_at(CiMethod::Percentile, 0.90).unwrap());
    /// ```
    pub fn one_sided_bounds(&self, method: CiMethod, level: f64) -> Result<Interval> {
        check_level(level)?;
        if level <= 0.5 {
            return Err(StatsError::InvalidArgument(format!(
                "one-sided level must exceed 0.5, got {level}"
            )));
        }
        self.interval_at(method, 2.0 * level - 1.0)
    }

    /// The result for the column multiplied by `factor` > 0: every
    /// estimate, SE, bound and replicate scaled (the percentile, basic, BCa
    /// and t intervals all scale with the column).
    ///
    /// ```
    /// # use rollstat_stats::{bootstrap_means, BootstrapConfig, CiMethod};
    /// let y = [0.0, 1.0, 0.5, 1.0, 0.2, 0.4];
    /// let cfg = BootstrapConfig { resamples: 300, ..Default::default() };
    /// let r = bootstrap_means(&[&y], &cfg).unwrap();
    /// let y4: Vec<f64> = y.iter().map(|v| 4.0 * v).collect();
    /// let r4 = bootstrap_means(&[&y4], &cfg).unwrap();
    /// let s = r.columns[0].scaled(4.0);
    /// let (a, b) = (s.interval(CiMethod::Bca), r4.columns[0].interval(CiMethod::Bca));
    /// assert!((a.lower - b.lower).abs() < 1e-12 && (a.upper - b.upper).abs() < 1e-12);
    /// ```
    pub fn scaled(&self, factor: f64) -> ColumnBootstrap {
        let iv = |i: Interval| Interval {
            lower: i.lower * factor,
            upper: i.upper * factor,
        };
        ColumnBootstrap {
            estimate: self.estimate * factor,
            std_error: self.std_error * factor,
            analytic_se: self.analytic_se * factor,
            percentile: iv(self.percentile),
            basic: iv(self.basic),
            bca: iv(self.bca),
            t: iv(self.t),
            distribution: self.distribution.iter().map(|x| x * factor).collect(),
            ..self.clone()
        }
    }

    /// The sorted finite bootstrap replicates.
    ///
    /// ```
    /// # use rollstat_stats::{bootstrap_means, BootstrapConfig};
    /// let r = bootstrap_means(&[&[1.0, 2.0, 3.0]], &BootstrapConfig { resamples: 100, ..Default::default() }).unwrap();
    /// let d = r.columns[0].distribution();
    /// assert_eq!(d.len(), 100);
    /// assert!(d.windows(2).all(|w| w[0] <= w[1]));
    /// ```
    pub fn distribution(&self) -> &[f64] {
        &self.distribution
    }
}

/// Result of [`bootstrap_means`] / [`cluster_bootstrap_means`].
///
/// ```
/// use rollstat_stats::{bootstrap_means, BootstrapConfig};
/// let r = bootstrap_means(&[&[1.0, 2.0]], &BootstrapConfig { resamples: 10, seed: 5, level: 0.9 }).unwrap();
/// assert_eq!((r.resamples, r.seed, r.units), (10, 5, 2));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BootstrapReport {
    /// B.
    pub resamples: usize,
    /// Two-sided level of the stored intervals.
    pub level: f64,
    /// Seed used.
    pub seed: u64,
    /// Random-stream scheme ([`rng::RNG_SCHEME`]).
    pub rng_scheme: &'static str,
    /// Number of resampling units (problems, or clusters).
    pub units: usize,
    /// One result per input column, in input order.
    pub columns: Vec<ColumnBootstrap>,
}

/// Bootstrap over problems for several metric columns at once.
///
/// `columns[m][i]` is the value of metric `m` on problem `i` (`NaN` =
/// undefined). All columns must have the same length N ≥ 1. See the module
/// docs for the resampling scheme and the interval conventions.
///
/// ```
/// use rollstat_stats::{bootstrap_means, BootstrapConfig, CiMethod};
/// let pass1 = [1.0, 0.0, 0.5, 1.0, 0.75, 0.25, 1.0, 0.0];
/// let other = [f64::NAN, 2.0, 3.0, 4.0, 1.0, 2.0, 5.0, 3.0];
/// let r = bootstrap_means(&[&pass1, &other], &BootstrapConfig::default()).unwrap();
/// assert_eq!(r.columns[1].n, 7);
/// let ci = r.columns[0].interval(CiMethod::Bca);
/// assert!(ci.lower < 0.5625 && 0.5625 < ci.upper);
/// ```
pub fn bootstrap_means(columns: &[&[f64]], config: &BootstrapConfig) -> Result<BootstrapReport> {
    let columns: Vec<Column> = columns.iter().map(|c| Column::Values(c)).collect();
    let (m, n) = check_columns(&columns)?;
    let ids: Vec<usize> = (0..n).collect();
    run(&columns, &ids, n, m, config, false)
}

/// Cluster bootstrap: resamples whole clusters (`clusters[i]` is the cluster id
/// of problem `i`; ids are arbitrary labels). The statistic is the
/// concatenated mean of the resampled clusters' defined values; the BCa
/// jackknife leaves out one cluster at a time, and the `t` interval uses the
/// CR1 cluster-robust SE with C − 1 degrees of freedom.
///
/// ```
/// use rollstat_stats::{cluster_bootstrap_means, BootstrapConfig};
/// let y = [1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
/// let cl = [0, 0, 0, 0, 1, 1, 1, 1];
/// let r = cluster_bootstrap_means(&[&y], &cl, &BootstrapConfig { resamples: 1000, ..Default::default() }).unwrap();
/// assert_eq!(r.units, 2);
/// ```
pub fn cluster_bootstrap_means(
    columns: &[&[f64]],
    clusters: &[u64],
    config: &BootstrapConfig,
) -> Result<BootstrapReport> {
    let columns: Vec<Column> = columns.iter().map(|c| Column::Values(c)).collect();
    let (m, n) = check_columns(&columns)?;
    if clusters.len() != n {
        return Err(StatsError::LengthMismatch {
            what: "clusters vs columns",
            left: clusters.len(),
            right: n,
        });
    }
    let (ids, c) = dense_cluster_ids(clusters);
    run(&columns, &ids, c, m, config, true)
}

fn check_columns(columns: &[Column]) -> Result<(usize, usize)> {
    let m = columns.len();
    if m == 0 {
        return Err(StatsError::Empty("no columns"));
    }
    let n = columns[0].len();
    if n == 0 {
        return Err(StatsError::Empty("no problems"));
    }
    for c in columns {
        if c.len() != n {
            return Err(StatsError::LengthMismatch {
                what: "column lengths",
                left: c.len(),
                right: n,
            });
        }
        // A table without infinite entries codes none (only a table that
        // has one needs the codes read).
        let finite_table =
            matches!(c, Column::Coded { table, .. } if table.iter().all(|v| !v.is_infinite()));
        if !finite_table && c.iter().any(|v| v.is_infinite()) {
            return Err(StatsError::InvalidArgument(
                "infinite value in column".into(),
            ));
        }
    }
    Ok((m, n))
}

/// Bootstraps the distinct columns once and copies the result to their
/// duplicates. Bit-identical columns are common among metrics (G-Pass@k at
/// τ ≤ 1/k is pass@k, at τ = 1 it is pass^k; prefix@n is pass@n), and a
/// duplicate changes neither the resampled units nor any statistic, so the
/// report is the same as resampling every column.
fn run(
    columns: &[Column],
    unit_of: &[usize],
    u: usize,
    m: usize,
    config: &BootstrapConfig,
    clustered: bool,
) -> Result<BootstrapReport> {
    run_with_replicates(columns, 0, unit_of, u, m, config, clustered).map(|(r, _)| r)
}

/// [`run`], also returning each column's replicates in resample order
/// (`replicates[c][b]`: column `c`'s mean in resample `b`, `NaN` where it
/// had no defined value). The last `per_draw` columns are per-draw
/// columns (see [`bootstrap_means_with_ratios`]).
fn run_with_replicates(
    columns: &[Column],
    per_draw: usize,
    unit_of: &[usize],
    u: usize,
    m: usize,
    config: &BootstrapConfig,
    clustered: bool,
) -> Result<(BootstrapReport, Vec<Vec<f64>>)> {
    let (unique, slot, mt) = distinct_columns(columns, m - per_draw);
    let mu = unique.len();
    let (mut r, stats) = run_distinct(&unique, mt, unit_of, u, mu, config, clustered)?;
    let replicates = slot
        .iter()
        .map(|&i| stats.iter().skip(i).step_by(mu).copied().collect())
        .collect();
    if mu < m {
        r.columns = slot.iter().map(|&i| r.columns[i].clone()).collect();
    }
    Ok((r, replicates))
}

fn run_distinct(
    columns: &[Column],
    mt: usize,
    unit_of: &[usize],
    u: usize,
    m: usize,
    config: &BootstrapConfig,
    clustered: bool,
) -> Result<(BootstrapReport, Vec<f64>)> {
    check_level(config.level)?;
    if config.resamples == 0 {
        return Err(StatsError::InvalidArgument("resamples must be > 0".into()));
    }
    let units = Units::new(columns, unit_of, u, clustered);
    let types = match clustered {
        false => code_types(&units, columns, (m, mt)),
        true => None,
    }
    .unwrap_or_else(|| unit_types(&units, (m, mt)));
    let stats = resample_stats(&units, &types, (m, mt), config.resamples, config.seed);
    let spreads = match units {
        Units::Problems(_) => coded_spreads(columns),
        Units::Clusters { .. } => vec![None; columns.len()],
    };
    let jackknifes = typed_jackknifes(&units, &types, mt);
    let out = columns
        .par_iter()
        .enumerate()
        .map(|(k, col)| {
            let dist: Vec<f64> = stats.iter().skip(k).step_by(m).copied().collect();
            let jackknife = jackknifes.get(k).copied();
            let spread = spreads[k];
            column_result(&units, (k, jackknife), (col, spread), unit_of, dist, config)
        })
        .collect();
    let report = BootstrapReport {
        resamples: config.resamples,
        level: config.level,
        seed: config.seed,
        rng_scheme: rng::RNG_SCHEME,
        units: u,
        columns: out,
    };
    Ok((report, stats))
}

/// The distinct columns (compared bit by bit, typed and per-draw columns
/// apart), each column's slot among them, and how many distinct columns
/// are typed (the first `typed` columns are, so their distinct copies come
/// first). Columns are matched by a hash of their bits and then compared:
/// nothing is copied. Columns coded over one code array (every code of
/// which some problem has) are equal when their tables are: those are
/// hashed and compared instead of the problems' values.
fn distinct_columns<'c>(
    columns: &[Column<'c>],
    typed: usize,
) -> (Vec<Column<'c>>, Vec<usize>, usize) {
    let hashes: Vec<u64> = columns
        .par_iter()
        .enumerate()
        .map(|(k, c)| {
            let mut h = FxHasher::default();
            h.write_u64(u64::from(k >= typed));
            match c {
                Column::Coded { codes, table } => {
                    h.write_u64(codes.as_ptr() as u64);
                    table.iter().for_each(|v| h.write_u64(v.to_bits()));
                }
                Column::Values(_) => c.iter().for_each(|v| h.write_u64(v.to_bits())),
            }
            h.finish()
        })
        .collect();
    let bits_equal = |a: &mut dyn Iterator<Item = f64>, b: &mut dyn Iterator<Item = f64>| {
        a.zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    };
    let same = |a: &Column, b: &Column| match (a, b) {
        (
            Column::Coded {
                codes: ca,
                table: ta,
            },
            Column::Coded {
                codes: cb,
                table: tb,
            },
        ) if std::ptr::eq(*ca, *cb) && ta.len() == tb.len() => {
            bits_equal(&mut ta.iter().copied(), &mut tb.iter().copied())
        }
        _ => a.len() == b.len() && bits_equal(&mut a.iter(), &mut b.iter()),
    };
    let mut unique: Vec<(Column<'c>, u64, bool)> = Vec::new();
    let mut mt = 0;
    let slot = columns
        .iter()
        .enumerate()
        .map(|(k, &c)| {
            let kind = k >= typed;
            let found = unique
                .iter()
                .position(|(d, h, per_draw)| *h == hashes[k] && *per_draw == kind && same(d, &c));
            let s = found.unwrap_or_else(|| {
                unique.push((c, hashes[k], kind));
                unique.len() - 1
            });
            if !kind {
                mt = unique.len();
            }
            s
        })
        .collect();
    (unique.into_iter().map(|(c, _, _)| c).collect(), slot, mt)
}

/// Column `k`'s estimate, jackknife acceleration and analytic SE (from the
/// units' sums; CR1 for clusters), with the intervals of its replicates
/// `dist` in resample order. With `types` (a typed column: its sum and
/// count are the same for every unit of a type), each unit's
/// leave-one-out mean is its type's. Sums run over the units in order, as
/// over a vector of them, but nothing of the units' length is allocated.
fn column_result(
    units: &Units,
    (k, jackknife): (usize, Option<(f64, f64, f64)>),
    (col, spread): (&Column, Option<(f64, usize)>),
    unit_of: &[usize],
    dist: Vec<f64>,
    config: &BootstrapConfig,
) -> ColumnBootstrap {
    let u = units.len();
    let (s_tot, n_tot, acceleration) = match jackknife {
        Some(j) => j,
        None => {
            let s_tot: f64 = (0..u).map(|j| units.sum(j, k)).sum();
            let n_tot: f64 = (0..u).map(|j| units.count(j, k)).sum();
            let loo = |j| leave_one_out(s_tot, n_tot, units.sum(j, k), units.count(j, k));
            let acceleration = match n_tot > 0.0 {
                true => jackknife_acceleration_of(u, || (0..u).map(loo)),
                false => f64::NAN,
            };
            (s_tot, n_tot, acceleration)
        }
    };
    let n_def = n_tot as usize;
    let estimate = if n_def > 0 { s_tot / n_tot } else { f64::NAN };
    let (analytic_se, t_df) = match units {
        Units::Clusters { .. } => {
            let ids: Vec<u64> = unit_of.iter().map(|&x| x as u64).collect();
            match clustered_se(&col.to_vec(), &ids) {
                Ok(c) => (c.se_cr1, c.clusters as f64 - 1.0),
                Err(_) => (f64::NAN, f64::NAN),
            }
        }
        Units::Problems(_) => {
            let (sd, nn) = spread.unwrap_or_else(|| {
                let (_, sd, nn) = mean_sd_streamed(|| col.iter());
                (sd, nn)
            });
            (sd / (nn as f64).sqrt(), nn as f64 - 1.0)
        }
    };
    column_of(
        estimate,
        n_def,
        dist,
        acceleration,
        (analytic_se, t_df),
        config,
    )
}

/// The mean of the other units' values when a unit of sum `sum` and count
/// `count` is left out of totals `s_tot`, `n_tot`.
#[inline]
fn leave_one_out(s_tot: f64, n_tot: f64, sum: f64, count: f64) -> f64 {
    let d = n_tot - count;
    if d > 0.0 {
        (s_tot - sum) / d
    } else {
        f64::NAN
    }
}

/// Each typed column's total sum and count over the units and its
/// jackknife acceleration (columns `0..typed`), read through the units'
/// types (a unit's sum and count are its type's): the same sums in the
/// same order as streaming every unit, with the columns over the one type
/// array folded together ([`fold_coded`]).
fn typed_jackknifes(units: &Units, t: &UnitTypes, typed: usize) -> Vec<(f64, f64, f64)> {
    // Each typed column's value of `of` at each type's first unit.
    let per_type = |of: fn(&Units, usize, usize) -> f64| -> Vec<Vec<f64>> {
        (0..typed)
            .map(|k| t.rows.iter().map(|&j| of(units, j, k)).collect())
            .collect()
    };
    let sums = per_type(|u, j, k| u.sum(j, k));
    let counts = per_type(|u, j, k| u.count(j, k));
    let sum_tables: Vec<&[f64]> = sums.iter().map(Vec::as_slice).collect();
    // Sums as `Sum` adds them, from -0.0.
    let s_tots = fold_coded(&t.type_of, &sum_tables, |_| -0.0, |s, v| s + v);
    // Whole numbers below 2^53: exact in any order.
    let n_tots: Vec<f64> = counts
        .iter()
        .map(|c| {
            let mut n_tot = 0.0;
            for (m, c) in t.multiplicity.iter().zip(c) {
                n_tot += *m as f64 * c;
            }
            n_tot
        })
        .collect();
    // The leave-one-out means of the columns whose acceleration is defined.
    let loo: Vec<Option<Vec<f64>>> = (0..typed)
        .map(|k| {
            let (s_tot, n_tot) = (s_tots[k], n_tots[k]);
            let loo: Vec<f64> = (sums[k].iter().zip(&counts[k]))
                .map(|(&s, &c)| leave_one_out(s_tot, n_tot, s, c))
                .collect();
            // n_tot > 0: some unit, so the acceleration's n is not 0.
            (n_tot > 0.0 && !loo.iter().any(|v| v.is_nan())).then_some(loo)
        })
        .collect();
    let defined: Vec<usize> = (0..typed).filter(|&k| loo[k].is_some()).collect();
    let loo_tables: Vec<&[f64]> = defined.iter().filter_map(|&k| loo[k].as_deref()).collect();
    let accelerations = jackknife_accelerations(&t.type_of, &loo_tables);
    let mut out: Vec<(f64, f64, f64)> = (0..typed)
        .map(|k| (s_tots[k], n_tots[k], f64::NAN))
        .collect();
    for (&k, a) in defined.iter().zip(accelerations) {
        out[k].2 = a;
    }
    out
}

/// [`jackknife_acceleration_of`] each sample of leave-one-out values
/// `table[type_of[i]]` (none NaN), the samples folded together.
fn jackknife_accelerations(type_of: &[u32], tables: &[&[f64]]) -> Vec<f64> {
    let n = type_of.len() as f64;
    let means: Vec<f64> = fold_coded(type_of, tables, |_| -0.0, |s, v| s + v)
        .into_iter()
        .map(|s| s / n)
        .collect();
    let moments = fold_coded(
        type_of,
        tables,
        |j| (0.0, 0.0, means[j]),
        |(s2, s3, mean), v| {
            let u = (n - 1.0) * (mean - v);
            (s2 + u * u, s3 + u * u * u, mean)
        },
    );
    moments
        .into_iter()
        .map(|(s2, s3, _)| {
            let num = 0.0 + s3 / (n * n * n);
            let den = 0.0 + s2 / (n * n);
            num / (6.0 * den.powf(1.5))
        })
        .collect()
}

/// The resampling units' sum and count of defined values in each column.
/// Each problem its own unit: read from the columns as needed (copied
/// into unit-major matrices they would take 16 bytes per problem and
/// metric — 5.6 GB at 10⁷ problems and 35 metrics). Clusters: accumulated
/// into unit-major matrices once.
enum Units<'a> {
    Problems(&'a [Column<'a>]),
    Clusters {
        sums: Vec<f64>,
        counts: Vec<f64>,
        m: usize,
        u: usize,
    },
}

impl<'a> Units<'a> {
    fn new(columns: &'a [Column<'a>], unit_of: &[usize], u: usize, clustered: bool) -> Units<'a> {
        if !clustered {
            return Units::Problems(columns);
        }
        let m = columns.len();
        let mut sums = vec![0.0; u * m];
        let mut counts = vec![0.0; u * m];
        for (k, col) in columns.iter().enumerate() {
            for (i, v) in col.iter().enumerate() {
                if !v.is_nan() {
                    sums[unit_of[i] * m + k] += v;
                    counts[unit_of[i] * m + k] += 1.0;
                }
            }
        }
        Units::Clusters { sums, counts, m, u }
    }

    fn len(&self) -> usize {
        match self {
            Units::Problems(columns) => columns[0].len(),
            Units::Clusters { u, .. } => *u,
        }
    }

    /// Unit `i`'s sum of column `k` (as accumulated from 0.0, so that a
    /// problem's −0.0 sums to 0.0 as in a cluster).
    #[inline]
    fn sum(&self, i: usize, k: usize) -> f64 {
        match self {
            Units::Problems(columns) => {
                let v = columns[k].get(i);
                if v.is_nan() {
                    0.0
                } else {
                    0.0 + v
                }
            }
            Units::Clusters { sums, m, .. } => sums[i * m + k],
        }
    }

    /// Unit `i`'s number of defined values in column `k`.
    #[inline]
    fn count(&self, i: usize, k: usize) -> f64 {
        match self {
            Units::Problems(columns) => f64::from(u8::from(!columns[k].get(i).is_nan())),
            Units::Clusters { counts, m, .. } => counts[i * m + k],
        }
    }

    /// What makes unit `i` interchangeable with others: its sums of the
    /// typed columns `..mt` and its counts of every column.
    fn key_into(&self, i: usize, (m, mt): (usize, usize), key: &mut Vec<u64>) {
        key.clear();
        for k in 0..m {
            key.push(if k < mt { self.sum(i, k).to_bits() } else { 0 });
            key.push(self.count(i, k).to_bits());
        }
    }
}

/// Units per task when typing units: fixed, so that nothing depends on the
/// thread count.
const TYPE_CHUNK: usize = 1 << 16;

/// Each unit's type, each type's first unit and its number of units.
struct UnitTypes {
    /// The type of each unit.
    type_of: Vec<u32>,
    /// The first unit of each type.
    rows: Vec<usize>,
    /// How many units each type has.
    multiplicity: Vec<u64>,
}

impl UnitTypes {
    fn new(type_of: Vec<u32>, rows: Vec<usize>) -> UnitTypes {
        let mut multiplicity = vec![0u64; rows.len()];
        for &t in &type_of {
            multiplicity[t as usize] += 1;
        }
        UnitTypes {
            type_of,
            rows,
            multiplicity,
        }
    }
}

/// [`unit_types`] when the units are problems and every column is coded
/// over one code array: a unit's key is its code's, so each code is keyed
/// once (at its first unit, not at each) and the types are the same,
/// numbered alike.
fn code_types(units: &Units, columns: &[Column], (m, mt): (usize, usize)) -> Option<UnitTypes> {
    let (codes, n_codes) = shared_codes(columns)?;
    let mut code_type = vec![u32::MAX; n_codes];
    let mut seen: HashMap<Vec<u64>, u32, FxBuild> = HashMap::default();
    let mut rows: Vec<usize> = Vec::new();
    let mut type_of = Vec::with_capacity(codes.len());
    let mut key = Vec::with_capacity(2 * m);
    for (i, &code) in codes.iter().enumerate() {
        let slot = code_type.get_mut(code as usize)?;
        if *slot == u32::MAX {
            units.key_into(i, (m, mt), &mut key);
            *slot = *seen.entry(key.clone()).or_insert_with(|| {
                rows.push(i);
                rows.len() as u32 - 1
            });
        }
        type_of.push(*slot);
    }
    Some(UnitTypes::new(type_of, rows))
}

/// The one code array every column is coded over, and the length of the
/// columns' tables (all one); `None` if a column is not coded over it.
fn shared_codes<'c>(columns: &[Column<'c>]) -> Option<(&'c [u32], usize)> {
    let mut shared: Option<(&[u32], usize)> = None;
    for c in columns {
        let Column::Coded { codes, table } = *c else {
            return None;
        };
        match shared {
            None => shared = Some((codes, table.len())),
            Some((s, len)) if std::ptr::eq(s, codes) && len == table.len() => {}
            Some(_) => return None,
        }
    }
    shared
}

/// Each unit's type and each type's first unit, types numbered by first
/// appearance: units with equal keys ([`Units::key_into`]) are of one type.
/// Chunks of units are typed in parallel, each numbering its own types by
/// first appearance; merging the chunks in order then numbers the types by
/// first appearance overall.
fn unit_types(units: &Units, (m, mt): (usize, usize)) -> UnitTypes {
    let u = units.len();
    let local: Vec<(Vec<u32>, Vec<usize>)> = (0..u.div_ceil(TYPE_CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut seen: HashMap<Vec<u64>, u32, FxBuild> = HashMap::default();
            let mut firsts = Vec::new();
            let mut key = Vec::with_capacity(2 * m);
            let types = (c * TYPE_CHUNK..((c + 1) * TYPE_CHUNK).min(u))
                .map(|i| {
                    units.key_into(i, (m, mt), &mut key);
                    if let Some(&t) = seen.get(key.as_slice()) {
                        return t;
                    }
                    firsts.push(i);
                    seen.insert(key.clone(), firsts.len() as u32 - 1);
                    firsts.len() as u32 - 1
                })
                .collect();
            (types, firsts)
        })
        .collect();
    let mut global: HashMap<Vec<u64>, u32, FxBuild> = HashMap::default();
    let mut rows: Vec<usize> = Vec::new();
    let mut type_of = Vec::with_capacity(u);
    for (types, firsts) in local {
        let to_global: Vec<u32> = firsts
            .into_iter()
            .map(|i| {
                let mut key = Vec::with_capacity(2 * m);
                units.key_into(i, (m, mt), &mut key);
                *global.entry(key).or_insert_with(|| {
                    rows.push(i);
                    rows.len() as u32 - 1
                })
            })
            .collect();
        type_of.extend(types.iter().map(|&t| to_global[t as usize]));
    }
    UnitTypes::new(type_of, rows)
}

/// A fast non-cryptographic hasher (rustc's Fx multiply–rotate) for the
/// unit keys and column hashes: inputs are our own numbers, not an
/// adversary's.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type FxBuild = BuildHasherDefault<FxHasher>;

/// One column's result from its estimate and its replicates in resample
/// order (`NaN`: no value in that resample, dropped and counted).
fn column_of(
    estimate: f64,
    n_def: usize,
    mut dist: Vec<f64>,
    acceleration: f64,
    (analytic_se, t_df): (f64, f64),
    config: &BootstrapConfig,
) -> ColumnBootstrap {
    dist.retain(|x| !x.is_nan());
    let undefined_resamples = config.resamples - dist.len();
    dist.sort_unstable_by(f64::total_cmp);
    let std_error = sd_ddof1(&dist);
    let level = config.level;
    let di = |method| {
        if n_def == 0 || !estimate.is_finite() {
            Interval::NAN
        } else {
            distribution_interval(method, estimate, &dist, acceleration, level)
                .unwrap_or(Interval::NAN)
        }
    };
    ColumnBootstrap {
        estimate,
        n: n_def,
        std_error,
        analytic_se,
        t_df,
        acceleration,
        undefined_resamples,
        level,
        percentile: di(CiMethod::Percentile),
        basic: di(CiMethod::Basic),
        bca: di(CiMethod::Bca),
        t: t_interval(estimate, analytic_se, t_df, level),
        distribution: dist,
    }
}

/// [`bootstrap_means`] (or [`cluster_bootstrap_means`] with `clusters`)
/// with per-draw columns and ratios of column means.
///
/// `typed` are ordinary columns. `per_draw` are columns whose values differ
/// from problem to problem (budgets): they take part in the same resamples
/// but not in the compression of interchangeable problems, so each resample
/// sums them over its drawn problems — exactly when it draws problems one by
/// one; when it draws counts per type of interchangeable problems, exactly
/// for a type drawn at most [`EXACT_DRAWS`] times, otherwise as a normal
/// with the exact conditional mean and variance of that sum (one normal per
/// type shared by the per-draw columns, which should be masks of one
/// quantity). Adding per-draw columns changes no replicate of a typed column.
///
/// For each `(num, den)` in `ratios` (indices into `typed` then
/// `per_draw`), the statistic mean(num) / mean(den) is computed in every
/// resample from the same resampled problems (a ratio estimator, not a mean
/// of per-problem ratios); the two columns should be defined on the same
/// problems. BCa uses the leave-one-unit-out ratios; the `t` interval the
/// delta-method SE, the SE of the mean of (numᵢ − R·denᵢ) / mean(den) (CR1
/// when clustered). A resample whose denominator mean is 0 has no ratio
/// (counted in `undefined_resamples`).
///
/// Returns the typed columns' report, then the per-draw columns' and the
/// ratios' results.
///
/// ```
/// use rollstat_stats::{bootstrap_means_with_ratios, BootstrapConfig};
/// let solved = [1.0, 0.0, 0.5, 0.5];
/// let tokens = [100.0, 300.0, 200.0, 400.0];
/// let cfg = BootstrapConfig { resamples: 200, ..Default::default() };
/// let (report, budget, ratios) =
///     bootstrap_means_with_ratios(&[&solved], &[&tokens], &[(1, 0)], None, &cfg).unwrap();
/// assert_eq!((report.columns.len(), budget[0].estimate), (1, 250.0));
/// assert_eq!(ratios[0].estimate, 250.0 / 0.5);
/// ```
pub fn bootstrap_means_with_ratios(
    typed: &[&[f64]],
    per_draw: &[&[f64]],
    ratios: &[(usize, usize)],
    clusters: Option<&[u64]>,
    config: &BootstrapConfig,
) -> Result<RatioBootstrap> {
    let typed: Vec<Column> = typed.iter().map(|c| Column::Values(c)).collect();
    bootstrap_columns_with_ratios(&typed, per_draw, ratios, clusters, config)
}

/// [`bootstrap_means_with_ratios`] with typed columns in any [`Column`]
/// form (the same results as their values as slices).
///
/// ```
/// use rollstat_stats::{bootstrap_columns_with_ratios, bootstrap_means_with_ratios, BootstrapConfig, Column};
/// let (codes, table) = ([0, 1, 1, 2, 0], [0.0, 0.5, 1.0]);
/// let cfg = BootstrapConfig { resamples: 300, ..Default::default() };
/// let coded = bootstrap_columns_with_ratios(&[Column::Coded { codes: &codes, table: &table }], &[], &[], None, &cfg).unwrap();
/// let plain = bootstrap_means_with_ratios(&[&[0.0, 0.5, 0.5, 1.0, 0.0]], &[], &[], None, &cfg).unwrap();
/// assert_eq!(coded.0, plain.0);
/// ```
pub fn bootstrap_columns_with_ratios(
    typed: &[Column],
    per_draw: &[&[f64]],
    ratios: &[(usize, usize)],
    clusters: Option<&[u64]>,
    config: &BootstrapConfig,
) -> Result<RatioBootstrap> {
    let columns: Vec<Column> = typed
        .iter()
        .copied()
        .chain(per_draw.iter().map(|c| Column::Values(c)))
        .collect();
    let (m, n) = check_columns(&columns)?;
    if typed.is_empty() {
        return Err(StatsError::Empty("no typed columns"));
    }
    if let Some(&(a, b)) = ratios.iter().find(|&&(a, b)| a >= m || b >= m) {
        return Err(StatsError::InvalidArgument(format!(
            "ratio ({a}, {b}) refers to a column beyond {m}"
        )));
    }
    let (unit_of, u) = resampling_units(clusters, n)?;
    let (mut report, replicates) = run_with_replicates(
        &columns,
        per_draw.len(),
        &unit_of,
        u,
        m,
        config,
        clusters.is_some(),
    )?;
    let ratio_columns = ratios
        .iter()
        .map(|&(a, b)| {
            let dist = replicates[a]
                .iter()
                .zip(&replicates[b])
                .map(|(&x, &y)| if y != 0.0 { x / y } else { f64::NAN })
                .collect();
            ratio_column(
                &columns[a],
                &columns[b],
                &unit_of,
                u,
                dist,
                clusters,
                config,
            )
        })
        .collect();
    let per_draw_columns = report.columns.split_off(typed.len());
    Ok((report, per_draw_columns, ratio_columns))
}

/// The resampling unit of each of the `n` problems and the number of
/// units: the problems themselves, or their clusters (dense ids in order
/// of first appearance).
fn resampling_units(clusters: Option<&[u64]>, n: usize) -> Result<(Vec<usize>, usize)> {
    match clusters {
        Some(cl) if cl.len() != n => Err(StatsError::LengthMismatch {
            what: "clusters vs columns",
            left: cl.len(),
            right: n,
        }),
        Some(cl) => Ok(dense_cluster_ids(cl)),
        None => Ok(((0..n).collect(), n)),
    }
}

/// What [`bootstrap_means_with_ratios`] returns: the typed columns' report,
/// the per-draw columns' results and the ratios' results.
pub type RatioBootstrap = (BootstrapReport, Vec<ColumnBootstrap>, Vec<ColumnBootstrap>);

/// The result of one ratio of means from its replicates.
fn ratio_column(
    num: &Column,
    den: &Column,
    unit_of: &[usize],
    u: usize,
    dist: Vec<f64>,
    clusters: Option<&[u64]>,
    config: &BootstrapConfig,
) -> ColumnBootstrap {
    let (mut sa, mut sb, mut cnt) = (vec![0.0; u], vec![0.0; u], vec![0.0; u]);
    for (i, (a, b)) in num.iter().zip(den.iter()).enumerate() {
        if !a.is_nan() && !b.is_nan() {
            sa[unit_of[i]] += a;
            sb[unit_of[i]] += b;
            cnt[unit_of[i]] += 1.0;
        }
    }
    let (ta, tb, tn): (f64, f64, f64) = (sa.iter().sum(), sb.iter().sum(), cnt.iter().sum());
    let ratio = |a: f64, b: f64| if b != 0.0 { a / b } else { f64::NAN };
    let estimate = ratio(ta, tb);
    let loo: Vec<f64> = (0..u).map(|j| ratio(ta - sa[j], tb - sb[j])).collect();
    let acceleration = jackknife_acceleration(&[&loo]);
    // Delta method: the ratio's error is that of the mean of z.
    let mean_b = tb / tn;
    let z: Vec<f64> = num
        .iter()
        .zip(den.iter())
        .map(|(a, b)| (a - estimate * b) / mean_b)
        .collect();
    let se = match clusters {
        Some(cl) => clustered_se(&z, cl)
            .map(|c| (c.se_cr1, c.clusters as f64 - 1.0))
            .unwrap_or((f64::NAN, f64::NAN)),
        None => {
            let (_, sd, nn) = mean_sd(&z);
            (sd / (nn as f64).sqrt(), nn as f64 - 1.0)
        }
    };
    column_of(estimate, tn as usize, dist, acceleration, se, config)
}

/// Resamples per rayon task; fixed so the work split is deterministic (the
/// results do not depend on it anyway, since each resample owns its stream).
const CHUNK: usize = 64;

/// A type drawn more often than this in one resample has the sum of its
/// per-draw columns over the draws taken from a normal with the sum's exact
/// conditional mean and variance instead of drawing its members one by one.
pub const EXACT_DRAWS: u32 = 32;

/// Columns `mt..m` of the unit-major `sums`: left out of the type
/// compression (their values differ from unit to unit, like budgets), so a
/// resample sums them over its drawn units.
struct PerDraw {
    /// Units of each type: `members[offsets[t]..offsets[t + 1]]`.
    offsets: Vec<usize>,
    members: Vec<u32>,
    /// Per type and per-draw column: mean and population variance of the
    /// members' sums (type-major).
    moments: Vec<(f64, f64)>,
    /// The per-draw columns' sums, unit-major (`values[i·mp + k]`): compact,
    /// for the random reads of the draws.
    values: Vec<f64>,
}

impl PerDraw {
    fn new(units: &Units, (m, mt): (usize, usize), type_of: &[u32], ut: usize) -> PerDraw {
        let mp = m - mt;
        let mut offsets = vec![0usize; ut + 1];
        for &t in type_of {
            offsets[t as usize + 1] += 1;
        }
        for t in 0..ut {
            offsets[t + 1] += offsets[t];
        }
        let mut fill = offsets.clone();
        let mut members = vec![0u32; type_of.len()];
        for (i, &t) in type_of.iter().enumerate() {
            members[fill[t as usize]] = i as u32;
            fill[t as usize] += 1;
        }
        let mut moments = vec![(0.0, 0.0); ut * mp];
        for t in 0..ut {
            let of = &members[offsets[t]..offsets[t + 1]];
            let n = of.len() as f64;
            for k in 0..mp {
                let x = |i: &u32| units.sum(*i as usize, mt + k);
                let mean = of.iter().map(x).sum::<f64>() / n;
                let var = of.iter().map(|i| (x(i) - mean).powi(2)).sum::<f64>() / n;
                moments[t * mp + k] = (mean, var);
            }
        }
        let values = (0..type_of.len())
            .flat_map(|i| (mt..m).map(move |k| units.sum(i, k)))
            .collect();
        PerDraw {
            offsets,
            members,
            moments,
            values,
        }
    }

    /// Adds unit `i`'s per-draw sums to `acc`.
    #[inline]
    fn add_unit(&self, i: usize, acc: &mut [f64]) {
        let mp = acc.len();
        if mp == 1 {
            acc[0] += self.values[i];
            return;
        }
        for (a, &x) in acc.iter_mut().zip(&self.values[i * mp..(i + 1) * mp]) {
            *a += x;
        }
    }

    /// Adds the per-draw sums of `w` draws from type `t`: drawn exactly up
    /// to [`EXACT_DRAWS`], else one standard normal shared by the columns
    /// (they are masks of one quantity, perfectly correlated in a type).
    fn add_type(&self, t: usize, w: u32, r: &mut rng::Xoshiro256PlusPlus, acc: &mut [f64]) {
        let of = &self.members[self.offsets[t]..self.offsets[t + 1]];
        if of.len() == 1 || w <= EXACT_DRAWS {
            for _ in 0..w {
                let j = if of.len() == 1 {
                    0
                } else {
                    rng::bounded(r, of.len() as u64) as usize
                };
                self.add_unit(of[j] as usize, acc);
            }
            return;
        }
        let u1 = 1.0 - r.next_f64();
        let u2 = r.next_f64();
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let mp = acc.len();
        let wf = f64::from(w);
        for (k, a) in acc.iter_mut().enumerate() {
            let (mean, var) = self.moments[t * mp + k];
            *a += wf * mean + (wf * var).sqrt() * z;
        }
    }
}

/// Resampled means of every column, resample-major (`out[b·m + k]`).
/// Columns `mt..m` are per-draw columns ([`PerDraw`]).
fn resample_stats(
    units: &Units,
    types: &UnitTypes,
    (m, mt): (usize, usize),
    resamples: usize,
    seed: u64,
) -> Vec<f64> {
    let u = units.len();
    // Units with identical (sums, counts) rows are interchangeable: a
    // resample only needs how many draws fell on each *type*. Metrics of
    // n-rollout problems take few distinct values (pass@k depends on c
    // alone), so T ≪ U and each resample costs O(U + T·M) instead of
    // O(U·M). The draws themselves are unchanged, so the resampled
    // problems are exactly those of the uncompressed scheme. Per-draw
    // columns enter the type by their counts only.
    let ut = types.rows.len();
    // With few types per unit, draw the counts per type directly (an exact
    // multinomial, O(T log U) per resample) instead of U indices.
    let by_type = ut * 64 <= u;
    let per_draw = (mt < m).then(|| PerDraw::new(units, (m, mt), &types.type_of, ut));
    let columns = TypeColumns::new(units, &types.rows, (m, mt));
    let mut out = vec![0.0; resamples * m];
    out.par_chunks_mut(CHUNK * m)
        .enumerate()
        .for_each(|(ci, chunk)| {
            // Multinomial counts w_i of each unit in the resample (from U
            // index draws), then one sequential dot product per column:
            // O(U·(1 + M)) per resample, cache-friendly for large U.
            let mut w = vec![0u32; ut];
            let mut wf = vec![0.0f64; ut];
            let mut acc = vec![0.0f64; m - mt];
            for (j, row) in chunk.chunks_mut(m).enumerate() {
                let b = (ci * CHUNK + j) as u64;
                let mut r = rng::stream(seed, b);
                acc.fill(0.0);
                let draw = (by_type, per_draw.as_ref());
                draw_type_counts(&mut r, types, u, draw, &mut w, &mut acc);
                for (f, &c) in wf.iter_mut().zip(&w) {
                    *f = c as f64;
                }
                columns.means(&wf, &acc, row);
            }
        });
    out
}

/// One resample's draw: how many of the `u` draws fall on each unit type
/// (`w`), by an exact multinomial over the types (`by_type`) or by `u`
/// index draws, and the per-draw columns' sums into `acc`.
fn draw_type_counts(
    r: &mut rng::Xoshiro256PlusPlus,
    types: &UnitTypes,
    u: usize,
    (by_type, per_draw): (bool, Option<&PerDraw>),
    w: &mut [u32],
    acc: &mut [f64],
) {
    if by_type {
        multinomial::multinomial(r, u as u64, &types.multiplicity, w);
        if let Some(pd) = per_draw {
            for (t, &c) in w.iter().enumerate().filter(|(_, &c)| c > 0) {
                pd.add_type(t, c, r, acc);
            }
        }
    } else {
        w.fill(0);
        for _ in 0..u {
            let i = rng::bounded(r, u as u64) as usize;
            w[types.type_of[i] as usize] += 1;
            if let Some(pd) = per_draw {
                pd.add_unit(i, acc);
            }
        }
    }
}

/// Per-type sums and counts of the columns, column-major for sequential
/// dot products with a resample's type weights.
struct TypeColumns {
    /// Problems per type: columns without NaN share this denominator (the
    /// resample's Σ_t w_t·size_t); only columns with NaN need own counts.
    sizes: Vec<f64>,
    /// Sums of columns `0..mt` per type.
    sums: Vec<Vec<f64>>,
    /// Per column: its index in `counts` when it has its own counts.
    own: Vec<Option<usize>>,
    counts: Vec<Vec<f64>>,
    /// Columns `mt..m` are per-draw columns, summed during the draw.
    mt: usize,
}

impl TypeColumns {
    fn new(units: &Units, rows: &[usize], (m, mt): (usize, usize)) -> TypeColumns {
        let sizes: Vec<f64> = rows
            .iter()
            .map(|&i| (0..m).map(|k| units.count(i, k)).fold(0.0, f64::max))
            .collect();
        let sums = (0..mt)
            .map(|k| rows.iter().map(|&i| units.sum(i, k)).collect())
            .collect();
        let mut own = vec![None; m];
        let mut counts: Vec<Vec<f64>> = Vec::new();
        for (k, o) in own.iter_mut().enumerate() {
            if (0..rows.len()).any(|t| units.count(rows[t], k) != sizes[t]) {
                *o = Some(counts.len());
                counts.push(rows.iter().map(|&i| units.count(i, k)).collect());
            }
        }
        TypeColumns {
            sizes,
            sums,
            own,
            counts,
            mt,
        }
    }

    /// The means of one resample with type weights `wf` and per-draw sums
    /// `acc`, into `row` (NaN where a column has no value in the resample).
    fn means(&self, wf: &[f64], acc: &[f64], row: &mut [f64]) {
        let total = dot(wf, &self.sizes);
        for (k, out) in row.iter_mut().enumerate() {
            let den = match self.own[k] {
                None => total,
                Some(j) => dot(wf, &self.counts[j]),
            };
            let num = if k < self.mt {
                dot(wf, &self.sums[k])
            } else {
                acc[k - self.mt]
            };
            *out = if den > 0.0 { num / den } else { f64::NAN };
        }
    }
}

/// Dot product with four interleaved accumulators (fixed summation order, so
/// deterministic; faster than a single dependency chain).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let ca = a.chunks_exact(4);
    let cb = b.chunks_exact(4);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        acc[0] += x[0] * y[0];
        acc[1] += x[1] * y[1];
        acc[2] += x[2] * y[2];
        acc[3] += x[3] * y[3];
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// Mean, sd (ddof = 1) and count of the non-NaN values.
pub(crate) fn mean_sd(x: &[f64]) -> (f64, f64, usize) {
    mean_sd_streamed(|| x.iter().copied())
}

/// The sample standard deviation and count of the defined values of each
/// coded column, as [`mean_sd_streamed`] computes them (the same bits),
/// the columns over one code array folded together
/// ([`rollstat_core::aggregate::fold_coded`]); `None` for the others.
fn coded_spreads(columns: &[Column]) -> Vec<Option<(f64, usize)>> {
    let mut out = vec![None; columns.len()];
    let coded = columns.iter().map(|c| match *c {
        Column::Coded { codes, table } => Some((codes, table)),
        Column::Values(_) => None,
    });
    for CodedGroup {
        codes,
        members,
        tables,
    } in coded_groups(coded)
    {
        // The count and the sum as `mean_sd_streamed` adds them, from -0.0.
        let sums = fold_coded(
            codes,
            &tables,
            |_| (0, -0.0),
            |(n, s), v| match v.is_nan() {
                true => (n, s),
                false => (n + 1, s + v),
            },
        );
        let means: Vec<f64> = sums.iter().map(|&(n, s)| s / n as f64).collect();
        let squares = fold_coded(
            codes,
            &tables,
            |j| (-0.0, means[j]),
            |(ss, mean), v| match v.is_nan() {
                true => (ss, mean),
                false => (ss + (v - mean) * (v - mean), mean),
            },
        );
        for ((&j, &(n, _)), (ss, _)) in members.iter().zip(&sums).zip(squares) {
            out[j] = match n {
                0 => Some((f64::NAN, 0)),
                1 => Some((f64::NAN, 1)),
                _ => Some(((ss / (n as f64 - 1.0)).sqrt(), n)),
            };
        }
    }
    out
}

/// [`mean_sd`] of the values `values()` yields (the same each call),
/// without collecting them.
fn mean_sd_streamed<I: Iterator<Item = f64>>(values: impl Fn() -> I) -> (f64, f64, usize) {
    let defined = || values().filter(|v| !v.is_nan());
    // The count and the sum in one pass; the sum as `Sum` adds, from -0.0.
    let (n, sum) = defined().fold((0usize, -0.0f64), |(n, s), v| (n + 1, s + v));
    if n == 0 {
        return (f64::NAN, f64::NAN, 0);
    }
    let mean = sum / n as f64;
    if n < 2 {
        return (mean, f64::NAN, n);
    }
    let ss: f64 = defined().map(|x| (x - mean) * (x - mean)).sum();
    (mean, (ss / (n as f64 - 1.0)).sqrt(), n)
}

pub(crate) fn sd_ddof1(v: &[f64]) -> f64 {
    let n = v.len();
    if n < 2 {
        return f64::NAN;
    }
    let mean = v.iter().sum::<f64>() / n as f64;
    let ss: f64 = v.iter().map(|x| (x - mean) * (x - mean)).sum();
    (ss / (n as f64 - 1.0)).sqrt()
}

/// A two-sided t interval `estimate ± t_{(1+level)/2, df} · se`; NaN bounds
/// for df ≤ 0 or a NaN se.
///
/// ```
/// let i = rollstat_stats::t_interval(0.5, 0.1, 1e9, 0.95);
/// assert!((i.upper - 0.5 - 0.1 * 1.959963984540054).abs() < 1e-6);
/// ```
pub fn t_interval(estimate: f64, se: f64, df: f64, level: f64) -> Interval {
    if !(df > 0.0) || se.is_nan() {
        return Interval::NAN;
    }
    let t = t_quantile(0.5 + level / 2.0, df);
    Interval {
        lower: estimate - t * se,
        upper: estimate + t * se,
    }
}

/// Quantile of sorted data by linear interpolation (Hyndman–Fan type 7, numpy
/// `method="linear"`): `h = (n−1)p`, `q = x[⌊h⌋] + (h−⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋])`.
/// Returns NaN for empty data or NaN `p`; `p` is clamped to [0, 1].
///
/// ```
/// use rollstat_stats::quantile_sorted;
/// let x = [1.0, 2.0, 3.0, 4.0];
/// assert_eq!(quantile_sorted(&x, 0.5), 2.5);
/// assert!((quantile_sorted(&x, 0.1) - 1.3).abs() < 1e-15);
/// ```
pub fn quantile_sorted(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() || p.is_nan() {
        return f64::NAN;
    }
    let p = p.clamp(0.0, 1.0);
    let h = (sorted.len() - 1) as f64 * p;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    let frac = h - lo as f64;
    let (a, b) = (sorted[lo], sorted[hi]);
    if frac == 0.0 || a == b {
        a
    } else {
        a + frac * (b - a)
    }
}

/// Jackknife acceleration â from leave-one-out statistic values, one slice per
/// independently resampled sample (scipy's multi-sample formula):
/// `U_ji = (n_j − 1)(θ̄_j − θ̂_(j,i))`,
/// `â = Σ_j Σ_i U_ji³/n_j³ / (6 (Σ_j Σ_i U_ji²/n_j²)^{3/2})`.
/// With one sample this is Efron's `Σ U³ / (6 (Σ U²)^{3/2})`. Returns NaN if any
/// value is NaN or all leave-one-out values are equal.
///
/// ```
/// // mean of x: leave-one-out means (S − x_i)/(n − 1)
/// let x = [1.0, 2.0, 4.0, 9.0];
/// let s: f64 = x.iter().sum();
/// let loo: Vec<f64> = x.iter().map(|v| (s - v) / 3.0).collect();
/// let a = rollstat_stats::jackknife_acceleration(&[&loo]);
/// assert!(a > 0.0); // right-skewed data
/// ```
pub fn jackknife_acceleration(leave_one_out: &[&[f64]]) -> f64 {
    if let [one] = leave_one_out {
        return jackknife_acceleration_of(one.len(), || one.iter().copied());
    }
    let mut num = 0.0;
    let mut den = 0.0;
    for s in leave_one_out {
        let n = s.len() as f64;
        if s.is_empty() || s.iter().any(|v| v.is_nan()) {
            return f64::NAN;
        }
        let mean = s.iter().sum::<f64>() / n;
        let mut s3 = 0.0;
        let mut s2 = 0.0;
        for &v in s.iter() {
            let u = (n - 1.0) * (mean - v);
            s2 += u * u;
            s3 += u * u * u;
        }
        num += s3 / (n * n * n);
        den += s2 / (n * n);
    }
    num / (6.0 * den.powf(1.5))
}

/// [`jackknife_acceleration`] of one sample of `n` leave-one-out values,
/// those `values()` yields (the same each call): the same sums in the same
/// order, nothing collected.
fn jackknife_acceleration_of<I: Iterator<Item = f64>>(n: usize, values: impl Fn() -> I) -> f64 {
    if n == 0 || values().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    let n = n as f64;
    let mean = values().sum::<f64>() / n;
    let (mut s2, mut s3) = (0.0, 0.0);
    for v in values() {
        let u = (n - 1.0) * (mean - v);
        s2 += u * u;
        s3 += u * u * u;
    }
    let num = 0.0 + s3 / (n * n * n);
    let den = 0.0 + s2 / (n * n);
    num / (6.0 * den.powf(1.5))
}

/// Two-sided interval of `method` (`Percentile`, `Basic` or `Bca`) from a
/// **sorted** bootstrap distribution, the point estimate and (for BCa) the
/// acceleration. `T` is rejected (it needs an analytic SE, not a distribution).
///
/// ```
/// use rollstat_stats::{distribution_interval, CiMethod};
/// let dist: Vec<f64> = (0..=100).map(|i| i as f64).collect();
/// let p = distribution_interval(CiMethod::Percentile, 50.0, &dist, 0.0, 0.9).unwrap();
/// assert!((p.lower - 5.0).abs() < 1e-9 && (p.upper - 95.0).abs() < 1e-9);
/// let b = distribution_interval(CiMethod::Basic, 60.0, &dist, 0.0, 0.9).unwrap();
/// assert!((b.lower - 25.0).abs() < 1e-9 && (b.upper - 115.0).abs() < 1e-9);
/// ```
pub fn distribution_interval(
    method: CiMethod,
    estimate: f64,
    sorted: &[f64],
    acceleration: f64,
    level: f64,
) -> Result<Interval> {
    check_level(level)?;
    if sorted.is_empty() {
        return Err(StatsError::Empty("bootstrap distribution"));
    }
    let alpha = (1.0 - level) / 2.0;
    Ok(match method {
        CiMethod::Percentile => Interval {
            lower: quantile_sorted(sorted, alpha),
            upper: quantile_sorted(sorted, 1.0 - alpha),
        },
        CiMethod::Basic => Interval {
            lower: 2.0 * estimate - quantile_sorted(sorted, 1.0 - alpha),
            upper: 2.0 * estimate - quantile_sorted(sorted, alpha),
        },
        CiMethod::Bca => {
            let b = sorted.len() as f64;
            let less = sorted.partition_point(|&x| x < estimate) as f64;
            let leq = sorted.partition_point(|&x| x <= estimate) as f64;
            let z0 = normal_quantile((less + leq) / (2.0 * b));
            let adj = |z: f64| {
                let w = z0 + z;
                normal_cdf(z0 + w / (1.0 - acceleration * w))
            };
            let a1 = adj(normal_quantile(alpha));
            let a2 = adj(normal_quantile(1.0 - alpha));
            Interval {
                lower: quantile_sorted(sorted, a1),
                upper: quantile_sorted(sorted, a2),
            }
        }
        CiMethod::T => {
            return Err(StatsError::InvalidArgument(
                "the t interval is analytic, not distribution-based".into(),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Types by first appearance, the obvious way: one map over whole keys.
    fn naive_types(units: &Units, mm: (usize, usize)) -> (Vec<u32>, Vec<usize>) {
        let mut seen: HashMap<Vec<u64>, u32> = HashMap::new();
        let mut rows = Vec::new();
        let mut key = Vec::new();
        let types = (0..units.len())
            .map(|i| {
                units.key_into(i, mm, &mut key);
                *seen.entry(key.clone()).or_insert_with(|| {
                    rows.push(i);
                    rows.len() as u32 - 1
                })
            })
            .collect();
        (types, rows)
    }

    // Units span several chunks, and types first seen late in a chunk come
    // before types first seen in the next chunk.
    #[test]
    fn chunked_typing_numbers_types_as_one_pass_would() {
        let u = 3 * TYPE_CHUNK + 123;
        let mut state = 7u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        let mut a: Vec<f64> = (0..u).map(|_| next(3) as f64).collect();
        // New types at the end of the first chunk and inside the third.
        a[TYPE_CHUNK - 1] = 7.0;
        a[2 * TYPE_CHUNK + 5] = 9.0;
        let b: Vec<f64> = (0..u)
            .map(|_| {
                if next(7) == 0 {
                    f64::NAN
                } else {
                    next(2) as f64
                }
            })
            .collect();
        let budget: Vec<f64> = (0..u).map(|_| next(1000) as f64).collect();
        let columns = [
            Column::Values(&a),
            Column::Values(&b),
            Column::Values(&budget),
        ];
        let units = Units::new(&columns, &[], u, false);
        let got = unit_types(&units, (3, 2));
        let got = (got.type_of, got.rows);
        assert_eq!(got, naive_types(&units, (3, 2)));
        // a in {0, 1, 2} × b in {0, 1, undefined}, and the two planted
        // units; the budget is per-draw (enters by its count only).
        assert_eq!(got.1.len(), 11);
        assert_eq!(got.1[9..], [TYPE_CHUNK - 1, 2 * TYPE_CHUNK + 5]);
    }

    // Columns coded over one code array are typed per code: the same types,
    // numbered alike, as keying every unit — codes whose values agree in
    // every column (here 0 and 5; 2 and 6 differ only by the sign of zero,
    // which a unit's sum drops) share a type.
    #[test]
    fn code_types_match_the_unit_keys() {
        let codes: Vec<u32> = (0..20_000u32).map(|i| (i * 7919 + i / 3) % 7).collect();
        let a = [0.5, 1.0, 0.0, f64::NAN, 0.25, 0.5, -0.0];
        let b = [1.0, 0.0, f64::NAN, 1.0, 0.0, 1.0, f64::NAN];
        let columns = [
            Column::Coded {
                codes: &codes,
                table: &a,
            },
            Column::Coded {
                codes: &codes,
                table: &b,
            },
        ];
        let units = Units::new(&columns, &[], codes.len(), false);
        for mt in [1, 2] {
            let got = code_types(&units, &columns, (2, mt)).expect("coded over one array");
            assert_eq!((got.type_of, got.rows), naive_types(&units, (2, mt)));
        }
        let other: Vec<u32> = codes.clone();
        let mixed = [
            columns[0],
            Column::Coded {
                codes: &other,
                table: &b,
            },
        ];
        assert!(code_types(&units, &mixed, (2, 2)).is_none());
        let values = columns[1].to_vec();
        assert!(code_types(&units, &[columns[0], Column::Values(&values)], (2, 2)).is_none());
        // And the whole bootstrap reads them as their values.
        let cfg = BootstrapConfig {
            resamples: 300,
            ..Default::default()
        };
        let plain = [columns[0].to_vec(), values];
        let coded = bootstrap_columns_with_ratios(&columns, &[], &[], None, &cfg).unwrap();
        let as_values =
            bootstrap_means_with_ratios(&[&plain[0], &plain[1]], &[], &[], None, &cfg).unwrap();
        assert_eq!(format!("{coded:?}"), format!("{as_values:?}"));
    }

    // An infinite value is refused whether a column holds it or codes it;
    // an infinite table entry no problem has is not a value.
    #[test]
    fn infinite_values_refused_in_every_column_form() {
        let cfg = BootstrapConfig {
            resamples: 50,
            ..Default::default()
        };
        let run = |c: Column| bootstrap_columns_with_ratios(&[c], &[], &[], None, &cfg).is_ok();
        let table = [0.5, f64::INFINITY, 1.0];
        assert!(!run(Column::Coded {
            codes: &[0, 1, 2],
            table: &table
        }));
        assert!(run(Column::Coded {
            codes: &[0, 2, 2],
            table: &table
        }));
        assert!(!run(Column::Values(&[0.5, f64::NEG_INFINITY])));
        assert!(run(Column::Coded {
            codes: &[0, 1],
            table: &[0.5, 1.0]
        }));
    }

    #[test]
    fn coded_columns_bootstrap_as_their_values() {
        let codes: Vec<u32> = (0..5000u32).map(|i| (i * 7919) % 17).collect();
        let table: Vec<f64> = (0..17)
            .map(|c| if c == 3 { f64::NAN } else { c as f64 / 16.0 })
            .collect();
        let coded = Column::Coded {
            codes: &codes,
            table: &table,
        };
        let values = coded.to_vec();
        let cfg = BootstrapConfig {
            resamples: 400,
            ..Default::default()
        };
        let clusters: Vec<u64> = (0..5000).map(|i| i / 10).collect();
        for cl in [None, Some(clusters.as_slice())] {
            let a =
                bootstrap_columns_with_ratios(&[coded, coded], &[], &[(0, 1)], cl, &cfg).unwrap();
            let b =
                bootstrap_means_with_ratios(&[&values, &values], &[], &[(0, 1)], cl, &cfg).unwrap();
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }
    }

    /// A pseudo-random generator for the batched-fold tests.
    fn lcg(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut state = seed;
        move |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        }
    }

    /// Coded columns over one code array (values spread over binades, some
    /// NaN), and a dense column between them.
    fn coded_columns(u: usize, types: usize, seed: u64) -> (Vec<u32>, Vec<Vec<f64>>, Vec<f64>) {
        let mut next = lcg(seed);
        let codes: Vec<u32> = (0..u).map(|_| next(types as u64) as u32).collect();
        let tables: Vec<Vec<f64>> = (0..7)
            .map(|j| {
                (0..types)
                    .map(|_| match next(9) {
                        0 if j % 3 == 1 => f64::NAN,
                        _ => next(1 << 20) as f64 * 2f64.powi(next(30) as i32 - 15),
                    })
                    .collect()
            })
            .collect();
        let dense = (0..u).map(|_| next(100) as f64 / 7.0).collect();
        (codes, tables, dense)
    }

    /// The batched spreads are `mean_sd_streamed`'s, bit for bit, for
    /// every coded column; dense columns are left to it.
    #[test]
    fn coded_spreads_are_the_streamed_ones() {
        for (u, types, seed) in [
            (0, 3, 1),
            (1, 3, 2),
            (2, 2, 3),
            (5000, 17, 4),
            (777, 300, 5),
        ] {
            let (codes, tables, dense) = coded_columns(u, types, seed);
            let mut columns: Vec<Column> = tables
                .iter()
                .map(|t| Column::Coded {
                    codes: &codes,
                    table: t,
                })
                .collect();
            columns.insert(3, Column::Values(&dense));
            let got = coded_spreads(&columns);
            for (c, g) in columns.iter().zip(&got) {
                let (_, sd, n) = mean_sd_streamed(|| c.iter());
                match c {
                    Column::Values(_) => assert_eq!(*g, None),
                    Column::Coded { .. } => {
                        let (gsd, gn) = g.expect("coded columns are batched");
                        assert_eq!((gsd.to_bits(), gn), (sd.to_bits(), n), "{u} {types}");
                    }
                }
            }
        }
    }

    /// The batched jackknife accelerations are `jackknife_acceleration_of`'s
    /// over every unit, bit for bit.
    #[test]
    fn batched_jackknife_accelerations_are_the_streamed_ones() {
        for (u, types, seed) in [(1, 1, 6), (2, 2, 7), (4000, 17, 8), (999, 250, 9)] {
            let (codes, tables, _) = coded_columns(u, types, seed);
            let tables: Vec<Vec<f64>> = tables
                .into_iter()
                .map(|t| {
                    t.into_iter()
                        .map(|v| if v.is_nan() { 0.5 } else { v })
                        .collect()
                })
                .collect();
            let refs: Vec<&[f64]> = tables.iter().map(Vec::as_slice).collect();
            let got = jackknife_accelerations(&codes, &refs);
            for (t, g) in tables.iter().zip(got) {
                let want = jackknife_acceleration_of(u, || codes.iter().map(|&c| t[c as usize]));
                assert_eq!(g.to_bits(), want.to_bits(), "{u} {types}");
            }
        }
    }
}
