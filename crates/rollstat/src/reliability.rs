//! The report's `reliability` block: how much one run of the evaluation
//! would move if it were run again (docs/statistics.md, "Run-to-run
//! reliability"; docs/spec.md §6). Trials are the rollout indices (taken as
//! exchangeable) or, with the `run_by` option, the runs named by the
//! `run`/`model` label; statistics are over the problems every trial has.

use crate::findings::{Finding, RunGap};
use crate::options::IntervalOptions;
use rollstat_core::summary::{DenominatorPolicy, ProblemData, ProblemSummary, Verdict};
use rollstat_io::CollectedProblem;
use rollstat_stats::reliability::{
    flip_stats, icc_bootstrap, icc_oneway, noise_floor, spearman_brown, spread, OneWayAnova,
};
use rollstat_stats::{pass1_sampling_variance, variance_decomposition_of};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Problems named in a finding about runs that lack problems, per run.
const NAMED_MISSING: usize = 5;

/// The `reliability` block of report.json.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reliability {
    /// What a trial is: `rollout index` (exchangeable) or the run field.
    pub trials: TrialSource,
    /// Trials per problem on the shared set (runs × rollouts per run).
    pub n_trials: u64,
    /// Problems every trial has (the statistics are over these).
    pub n_problems: u64,
    /// Problems left out because some trial lacks them.
    pub n_problems_left_out: u64,
    /// pass@1 of each run (each trial without a run field) on the shared
    /// set, in run order.
    pub runs: Vec<RunValue>,
    /// Mean, SD (N − 1 divisor), min, max and range of the runs' pass@1.
    pub run_spread: Option<RunSpread>,
    /// Verdict flips across trials.
    pub flips: Flips,
    /// ICC(1) and ICC(1,k) with intervals (bootstrap ∪ F); absent when every problem's
    /// trials agree (no trial noise) or every problem has the same mean.
    pub icc: Option<IccEntry>,
    /// The between/within split of pass@1 on the shared set.
    pub variance: VarianceSplit,
    /// How far apart two scores must be to exceed trial noise.
    pub noise_floor: NoiseFloor,
    /// What narrows the interval of pass@1, and by how much.
    pub levers: Vec<Lever>,
    /// Problems with 0 < c < n, most unstable first.
    pub flaky: Vec<FlakyProblem>,
}

/// What a trial is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrialSource {
    /// `rollout_index` or `field`.
    pub kind: String,
    /// The run field, when trials are runs.
    pub field: Option<String>,
    /// Rollouts of a problem are taken as exchangeable trials.
    pub exchangeable: bool,
}

/// One run's pass@1 on the shared problems.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunValue {
    /// The run (its label, or the rollout index).
    pub run: String,
    /// Mean verdict over the shared problems (and the run's rollouts).
    pub pass_at_1: f64,
}

/// The spread of the per-run values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpread {
    /// Mean of the runs.
    pub mean: f64,
    /// Sample SD of the runs (`null` for one run).
    pub sd: Option<f64>,
    /// Lowest run.
    pub min: f64,
    /// Highest run.
    pub max: f64,
    /// `max − min`.
    pub range: f64,
}

/// Verdict flips across the trials of the shared problems.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flips {
    /// Trials per problem (the share flipping grows with it).
    pub n_trials: u64,
    /// Problems whose verdict differs between trials (0 < c < n).
    pub n_flipping: u64,
    /// `n_flipping` over the shared problems.
    pub share_flipping: f64,
    /// Mean over problems of `2c(n − c)/(n(n − 1))`: the chance that two
    /// distinct trials of a random problem disagree.
    pub mean_pairwise: f64,
    /// `by_correct[c]`: problems with `c` of `n_trials` correct.
    pub by_correct: Vec<u64>,
}

impl Flips {
    /// Problems by pairwise flip rate: `(2c(n − c)/(n(n − 1)), problems)`
    /// for c = 0 … ⌊n/2⌋ (c and n − c share a rate), rising rates.
    ///
    /// ```
    /// let f = rollstat::Flips { n_trials: 4, n_flipping: 3, share_flipping: 0.6,
    ///     mean_pairwise: 0.3, by_correct: vec![1, 1, 1, 1, 1] };
    /// assert_eq!(f.histogram(), vec![(0.0, 2), (0.5, 2), (2.0 / 3.0, 1)]);
    /// ```
    pub fn histogram(&self) -> Vec<(f64, u64)> {
        let n = self.n_trials;
        (0..=n / 2)
            .map(|c| {
                let rate = rollstat_stats::within_flip(c, n).unwrap_or(f64::NAN);
                let mirror = if 2 * c == n {
                    0
                } else {
                    self.by_correct[(n - c) as usize]
                };
                (rate, self.by_correct[c as usize] + mirror)
            })
            .collect()
    }
}

/// ICC(1) and ICC(1,k) of the shared set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IccEntry {
    /// One trial's reliability.
    pub icc1: f64,
    /// `[lower, upper]` of `icc1`: the union of `icc1_bootstrap_interval`
    /// and `icc1_f_interval` (`interval_method`). On 0/1 trials each of the
    /// two under-covers somewhere (docs/statistics.md §13.1); the union
    /// covers at least as often as either.
    pub icc1_interval: [f64; 2],
    /// The reliability of the mean of the `n_trials` trials.
    pub icc1k: f64,
    /// `[lower, upper]` of `icc1k`: the Spearman–Brown image
    /// `kρ/(1 + (k − 1)ρ)` of `icc1_interval` (the estimators obey it
    /// exactly, and the F interval's bounds too). The lower bound is −∞
    /// (JSON `null`) when `icc1_interval` reaches ICC(1)'s floor
    /// −1/(k − 1): with so few problems nothing bounds it.
    #[serde(deserialize_with = "unbounded_below")]
    pub icc1k_interval: [f64; 2],
    /// How the intervals were computed: `bootstrap+F` (the union), or `F`
    /// when no bootstrap resample had an ICC. (Documents written before
    /// the bootstrap read back as `F`.)
    #[serde(default = "f_method")]
    pub interval_method: String,
    /// Bootstrap resamples with an ICC (over problems, the report's seed).
    #[serde(default)]
    pub resamples_used: usize,
    /// The percentile bootstrap interval of `icc1` over problems: it
    /// approaches its level as problems grow, and under-covers below ~50.
    #[serde(default)]
    pub icc1_bootstrap_interval: Option<[f64; 2]>,
    /// The normal-theory F interval of `icc1` (Shrout & Fleiss 1979): exact
    /// for normal ratings, approximate for 0/1 trials (it under-covers when
    /// the ICC is high or the success rate far from ½, at any size). (In
    /// documents written before the bootstrap, `icc1_interval` was this.)
    #[serde(default = "nan_bounds")]
    pub icc1_f_interval: [f64; 2],
    /// `MSB/MSW` and its degrees of freedom.
    pub f: f64,
    /// Numerator degrees of freedom (problems − 1).
    pub df1: f64,
    /// Denominator degrees of freedom (problems × (trials − 1)).
    pub df2: f64,
    /// P(F ≥ f) when the problems do not differ.
    pub p_value: f64,
    /// Interval level.
    pub level: f64,
}

fn f_method() -> String {
    "F".into()
}

fn nan_bounds() -> [f64; 2] {
    [f64::NAN; 2]
}

/// An interval whose JSON `null` lower bound is −∞ (JSON has no
/// infinities; serde_json writes them as `null`).
fn unbounded_below<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[f64; 2], D::Error> {
    let [lo, hi] = <[Option<f64>; 2]>::deserialize(d)?;
    Ok([lo.unwrap_or(f64::NEG_INFINITY), hi.unwrap_or(f64::NAN)])
}

/// pass@1's variance split on the shared set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VarianceSplit {
    /// Between-problem variance (method of moments).
    pub between: f64,
    /// Within-problem variance of the per-problem mean: E[s²]/n.
    pub within: f64,
    /// One trial's within-problem variance E[s²] (mean of c(n−c)/(n(n−1))).
    pub trial_variance: f64,
    /// Standard error of pass@1 over problems, `sqrt((between + within)/N)`.
    pub se: f64,
    /// `between` or `within`.
    pub dominant: String,
}

/// The smallest gaps that exceed trial noise at `level`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoiseFloor {
    /// Interval level.
    pub level: f64,
    /// Two single runs (one trial per problem each).
    pub single_run: f64,
    /// Two means of `m` runs: `[m, floor]` for m = 2, 4, 8 and `n_trials`.
    pub means: Vec<(u64, f64)>,
}

/// One way to narrow pass@1's interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lever {
    /// `more_runs` (one more run), `double_runs` or `double_problems`.
    pub change: String,
    /// Projected standard error.
    pub se: f64,
    /// Projected half-width at the report's level (normal quantile).
    pub half_width: f64,
}

/// A problem whose verdict differs between trials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlakyProblem {
    /// The problem (`system:` prefixed as in `per_problem`).
    pub problem: String,
    /// Correct trials.
    pub c: u64,
    /// Trials.
    pub n: u64,
    /// `2c(n − c)/(n(n − 1))`.
    pub flip_rate: f64,
}

/// How trials are told apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// A problem's rollout index is its trial.
    Index,
    /// The `model`/`run` label is the run; problems match across runs by
    /// subset and id.
    System,
}

/// The `run_by` values that name the run label (the rest are errors, see
/// [`crate::ReportOptions::validate`]).
pub(crate) const RUN_FIELDS: [&str; 2] = ["run", "model"];

/// The `run_by` values that mean the rollout index.
pub(crate) const INDEX_FIELDS: [&str; 3] = ["rollout", "trial", "epoch"];

/// Rejects a `run_by` that is neither a run label nor the rollout index.
///
/// ```
/// let mut o = rollstat::ReportOptions::default();
/// o.run_by = Some("seed".into());
/// assert!(o.validate().is_err());
/// o.run_by = Some("run".into());
/// assert!(o.validate().is_ok());
/// ```
pub(crate) fn check_run_by(run_by: Option<&str>) -> crate::Result<()> {
    match run_by {
        Some(f) if !RUN_FIELDS.contains(&f) && !INDEX_FIELDS.contains(&f) => Err(crate::Error::invalid(
            "run_by",
            format!("'{f}' is not read per rollout; runs are the `run` or `model` label, or the rollout index (`rollout`, `trial`, `epoch`)"),
        )),
        _ => Ok(()),
    }
}

fn mode_of(run_by: Option<&str>) -> Mode {
    match run_by {
        Some(f) if RUN_FIELDS.contains(&f) => Mode::System,
        _ => Mode::Index,
    }
}

/// One problem as trials: the collected problems that hold its rollouts
/// (one without a run field; one per run with it).
type Unit = Vec<usize>;

/// The units of `problems`, and how many problems lack the run label.
fn units(problems: &[CollectedProblem], mode: Mode) -> (Vec<Unit>, u64) {
    if mode == Mode::Index {
        return ((0..problems.len()).map(|i| vec![i]).collect(), 0);
    }
    let mut order: Vec<Unit> = Vec::new();
    let mut seen: std::collections::HashMap<(Option<&str>, &str), usize> = Default::default();
    let mut without = 0u64;
    for (i, p) in problems.iter().enumerate() {
        if p.system().is_none() {
            without += 1;
            continue;
        }
        let key = (p.subset(), p.problem.as_str());
        let slot = *seen.entry(key).or_insert_with(|| {
            order.push(Vec::new());
            order.len() - 1
        });
        order[slot].push(i);
    }
    (order, without)
}

/// A unit's label: `system:problem` by rollout index (as `per_problem`),
/// `subset/problem` across runs.
fn label(problems: &[CollectedProblem], unit: &Unit, mode: Mode) -> String {
    let p = &problems[unit[0]];
    match (mode, p.system(), p.subset()) {
        (Mode::Index, Some(sys), _) => format!("{sys}:{}", p.problem),
        (Mode::System, _, Some(sub)) => format!("{sub}/{}", p.problem),
        _ => p.problem.clone(),
    }
}

/// Every (trial, verdict) of a unit; a failed rollout is wrong under the
/// requested denominator and no trial under the judged one.
fn trials<'a>(
    problems: &'a [CollectedProblem],
    summaries: &'a [ProblemSummary],
    unit: &'a Unit,
    mode: Mode,
) -> impl Iterator<Item = ((&'a str, u64), bool)> + 'a {
    unit.iter().flat_map(move |&i| {
        let run = match mode {
            Mode::Index => "",
            Mode::System => problems[i].system().unwrap_or(""),
        };
        let judged = summaries[i].policy == DenominatorPolicy::Judged;
        let table = match &problems[i].data {
            ProblemData::Rollouts(t) => Some(t),
            ProblemData::Counts { .. } => None,
        };
        let len = table.map_or(0, |t| t.len());
        (0..len).filter_map(move |j| {
            let r = table?.get(j);
            match r.verdict {
                Verdict::Correct => Some(((run, r.index), true)),
                Verdict::Wrong => Some(((run, r.index), false)),
                Verdict::Failed => (!judged).then_some(((run, r.index), false)),
            }
        })
    })
}

/// The problems' (subset of) trials read into counts over the shared set.
struct Shared {
    /// Trials, in order: (run, rollout index).
    keys: Vec<(String, u64)>,
    /// Correct trials of each shared problem.
    c: Vec<u64>,
    /// Correct count per trial over the shared problems.
    per_trial: Vec<u64>,
    /// Flaky problems: (label, c).
    flaky: Vec<(String, u64)>,
    /// Per run: problems lacking it (the first few named) and how many.
    gaps: BTreeMap<String, (Vec<String>, u64)>,
    /// Units that lack some trial.
    left_out: u64,
    /// Count rows (c of n, no rollout order): no per-trial values.
    from_counts: bool,
}

/// Rollout indices below this are slotted through a table, not a map.
const DENSE_INDICES: u64 = 1 << 20;

/// Every trial any problem has, in order, and each one's slot: by rollout
/// index through a table without runs (the common case, one lookup per
/// rollout), else through an ordered map.
struct Slots<'a> {
    keys: Vec<(&'a str, u64)>,
    dense: Option<Vec<usize>>,
    map: BTreeMap<(&'a str, u64), usize>,
}

impl<'a> Slots<'a> {
    fn new(
        problems: &'a [CollectedProblem],
        summaries: &'a [ProblemSummary],
        units: &'a [Unit],
        mode: Mode,
    ) -> Slots<'a> {
        let all = || {
            units
                .iter()
                .flat_map(|u| trials(problems, summaries, u, mode))
        };
        let small = mode == Mode::Index && all().all(|(k, _)| k.1 < DENSE_INDICES);
        if small {
            let mut seen = Vec::new();
            for ((_, i), _) in all() {
                if seen.len() <= i as usize {
                    seen.resize(i as usize + 1, false);
                }
                seen[i as usize] = true;
            }
            let keys: Vec<(&str, u64)> = (0..seen.len() as u64)
                .filter(|&i| seen[i as usize])
                .map(|i| ("", i))
                .collect();
            let mut dense = vec![usize::MAX; seen.len()];
            for (slot, k) in keys.iter().enumerate() {
                dense[k.1 as usize] = slot;
            }
            return Slots {
                keys,
                dense: Some(dense),
                map: BTreeMap::new(),
            };
        }
        let mut map = BTreeMap::new();
        for (k, _) in all() {
            map.entry(k).or_insert(0);
        }
        for (slot, v) in map.values_mut().enumerate() {
            *v = slot;
        }
        Slots {
            keys: map.keys().copied().collect(),
            dense: None,
            map,
        }
    }

    fn slot(&self, k: (&str, u64)) -> usize {
        match &self.dense {
            Some(d) => d[k.1 as usize],
            None => self.map[&k],
        }
    }
}

/// The shared set's counts, and what the other problems lack.
fn shared(
    problems: &[CollectedProblem],
    summaries: &[ProblemSummary],
    units: &[Unit],
    mode: Mode,
) -> Shared {
    let slots = Slots::new(problems, summaries, units, mode);
    let n = slots.keys.len();
    let mut s = Shared {
        keys: slots
            .keys
            .iter()
            .map(|(r, i)| (r.to_string(), *i))
            .collect(),
        c: Vec::new(),
        per_trial: vec![0; n],
        flaky: Vec::new(),
        gaps: BTreeMap::new(),
        left_out: 0,
        from_counts: false,
    };
    let mut seen = vec![None::<bool>; n];
    for u in units {
        seen.iter_mut().for_each(|v| *v = None);
        for (k, y) in trials(problems, summaries, u, mode) {
            seen[slots.slot(k)] = Some(y);
        }
        if seen.iter().all(Option::is_none) {
            // Count rows: no trials to read.
            s.left_out += 1;
        } else if seen.iter().all(Option::is_some) {
            let mut c = 0;
            for (slot, y) in seen.iter().enumerate() {
                let y = u64::from(y == &Some(true));
                s.per_trial[slot] += y;
                c += y;
            }
            if c > 0 && c < n as u64 {
                s.flaky.push((label(problems, u, mode), c));
            }
            s.c.push(c);
        } else {
            s.left_out += 1;
            note_gaps(&mut s, &seen, label(problems, u, mode), mode);
        }
    }
    s
}

/// Count rows as exchangeable trials: the problems with the most common
/// n ≥ 2 (the others left out); per-trial values are unknown.
fn from_counts(problems: &[CollectedProblem], summaries: &[ProblemSummary]) -> Option<Shared> {
    let counted = || {
        problems
            .iter()
            .zip(summaries)
            .filter(|(p, _)| matches!(p.data, ProblemData::Counts { .. }))
    };
    let mut by_n: BTreeMap<u64, u64> = BTreeMap::new();
    for (_, sm) in counted().filter(|(_, sm)| sm.n >= 2) {
        *by_n.entry(sm.n).or_default() += 1;
    }
    let n = by_n
        .iter()
        .max_by_key(|(n, k)| (**k, **n))
        .map(|(n, _)| *n)?;
    let mut s = Shared {
        keys: (0..n).map(|i| (String::new(), i)).collect(),
        c: Vec::new(),
        per_trial: vec![0; n as usize],
        flaky: Vec::new(),
        gaps: BTreeMap::new(),
        left_out: (problems.len() - counted().count()) as u64,
        from_counts: true,
    };
    // Count rows come by the million: the flaky list keeps the most
    // unstable (c nearest n/2) without a label for every problem.
    let mut flaky: Vec<(u64, usize)> = Vec::new();
    for (i, (p, sm)) in problems.iter().zip(summaries).enumerate() {
        if !matches!(p.data, ProblemData::Counts { .. }) {
            continue;
        }
        if sm.n != n {
            s.left_out += 1;
            continue;
        }
        if sm.c > 0 && sm.c < n {
            flaky.push((sm.c.min(n - sm.c), i));
        }
        s.c.push(sm.c);
    }
    flaky.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    flaky.truncate(FLAKY_LISTED_FROM_COUNTS);
    s.flaky = flaky
        .into_iter()
        .map(|(_, i)| (label(problems, &vec![i], Mode::Index), summaries[i].c))
        .collect();
    Some(s)
}

/// Flaky problems a count-row block lists (`flips.n_flipping` counts all).
const FLAKY_LISTED_FROM_COUNTS: usize = 1000;

/// Records, per run (per trial without a run field), that a problem lacks
/// it.
fn note_gaps(s: &mut Shared, seen: &[Option<bool>], label: String, mode: Mode) {
    let mut runs: Vec<String> = seen
        .iter()
        .zip(&s.keys)
        .filter(|(v, _)| v.is_none())
        .map(|(_, k)| run_name(k, mode))
        .collect();
    runs.dedup();
    for run in runs {
        let gap = s.gaps.entry(run).or_default();
        if gap.0.len() < NAMED_MISSING {
            gap.0.push(label.clone());
        }
        gap.1 += 1;
    }
}

/// A trial's run as shown: the run label, or `rollout i`.
fn run_name((run, index): &(String, u64), mode: Mode) -> String {
    match mode {
        Mode::Index => index.to_string(),
        Mode::System => run.clone(),
    }
}

/// The `reliability` block of the report's problems (with their summaries,
/// in the same order) and the findings about it; `None` when nothing can be
/// measured (the findings say why). `run_by` names the run field (see
/// [`RUN_FIELDS`] and [`INDEX_FIELDS`]); `intervals` are the report's
/// (its level, resamples and seed).
pub(crate) fn reliability(
    problems: &[CollectedProblem],
    summaries: &[ProblemSummary],
    run_by: Option<&str>,
    intervals: &IntervalOptions,
) -> (Option<Reliability>, Vec<Finding>) {
    let mut findings = Vec::new();
    let is_counts = |p: &CollectedProblem| matches!(p.data, ProblemData::Counts { .. });
    let counts_only = mode_of(run_by) == Mode::Index && problems.iter().all(is_counts);
    // Count rows carry c of n exchangeable trials and no order: no units
    // to build (they come by the million).
    let (mode, s) = match counts_only
        .then(|| from_counts(problems, summaries))
        .flatten()
    {
        Some(s) => (Mode::Index, s),
        None => {
            let (mode, groups) = mode_and_units(problems, run_by, &mut findings);
            (mode, shared(problems, summaries, &groups, mode))
        }
    };
    let n = s.keys.len() as u64;
    if n < 2 {
        findings.push(Finding::SingleTrial {
            n_problems: s.c.len() as u64,
        });
        return (None, findings);
    }
    if !s.gaps.is_empty() {
        findings.push(Finding::RunsLackProblems {
            gaps: s
                .gaps
                .iter()
                .map(|(run, (named, n))| RunGap {
                    run: run.clone(),
                    n_missing: *n,
                    named: named.clone(),
                })
                .collect(),
            shared: s.c.len() as u64,
        });
    }
    if s.c.len() < 2 {
        findings.push(Finding::TooFewSharedProblems {
            shared: s.c.len() as u64,
        });
        return (None, findings);
    }
    if s.flaky.is_empty() {
        findings.push(Finding::NoSamplingVariation {
            n_trials: n,
            n_problems: s.c.len() as u64,
        });
    }
    let source = trial_source(mode, run_by, s.from_counts);
    (Some(block(s, mode, source, intervals)), findings)
}

/// The mode and its units; with a run field on only some problems, a
/// finding (and without it anywhere, the rollout index after all).
fn mode_and_units(
    problems: &[CollectedProblem],
    run_by: Option<&str>,
    findings: &mut Vec<Finding>,
) -> (Mode, Vec<Unit>) {
    let mode = mode_of(run_by);
    let (groups, without) = units(problems, mode);
    if mode == Mode::System && without > 0 {
        let with = problems.len() as u64 - without;
        findings.push(Finding::RunFieldPartial {
            field: run_by.unwrap_or_default().to_string(),
            with,
            without,
        });
        if with == 0 {
            return (Mode::Index, units(problems, Mode::Index).0);
        }
    }
    (mode, groups)
}

/// What a trial is, for the block.
fn trial_source(mode: Mode, run_by: Option<&str>, from_counts: bool) -> TrialSource {
    TrialSource {
        kind: match (mode, from_counts) {
            (Mode::Index, true) => "counts",
            (Mode::Index, false) => "rollout_index",
            (Mode::System, _) => "field",
        }
        .into(),
        field: run_by.filter(|_| mode == Mode::System).map(str::to_string),
        exchangeable: run_by.is_none()
            || mode == Mode::Index && !INDEX_FIELDS.contains(&run_by.unwrap_or("")),
    }
}

/// The block from the shared set's counts.
fn block(s: Shared, mode: Mode, trials: TrialSource, intervals: &IntervalOptions) -> Reliability {
    let level = intervals.level;
    let n = s.keys.len() as u64;
    let n_problems = s.c.len() as u64;
    let runs = if s.from_counts {
        Vec::new()
    } else {
        run_values(&s, mode)
    };
    let values: Vec<f64> = runs.iter().map(|r| r.pass_at_1).collect();
    let run_spread = spread(&values).ok().map(|sp| RunSpread {
        mean: sp.mean,
        sd: sp.sd.is_finite().then_some(sp.sd),
        min: sp.min,
        max: sp.max,
        range: sp.range(),
    });
    let f = flip_stats(&s.c, n).expect("n ≥ 2 and c ≤ n");
    let flips = Flips {
        n_trials: f.n_trials,
        n_flipping: f.n_flipping,
        share_flipping: f.share_flipping,
        mean_pairwise: f.mean_pairwise,
        by_correct: f.by_correct,
    };
    let icc = icc_entry(&s.c, n, intervals);
    let (variance, decomposition) = variance_split(&s.c, n);
    let noise_floor = floors(variance.trial_variance, n_problems, n, level);
    // Count rows: each of the n exchangeable trials is a run.
    let levers = levers(&decomposition, runs.len().max(n as usize) as f64, level);
    Reliability {
        trials,
        n_trials: n,
        n_problems,
        n_problems_left_out: s.left_out,
        runs,
        run_spread,
        flips,
        icc,
        variance,
        noise_floor,
        levers,
        flaky: flaky(s.flaky, n),
    }
}

/// pass@1 per run: each trial's mean verdict, averaged over the run's
/// trials (one per run without a run field).
fn run_values(s: &Shared, mode: Mode) -> Vec<RunValue> {
    let n_problems = s.c.len() as f64;
    let mut runs: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut order = Vec::new();
    for (key, &correct) in s.keys.iter().zip(&s.per_trial) {
        let name = run_name(key, mode);
        let e = runs.entry(name.clone()).or_insert_with(|| {
            order.push(name);
            (0, 0)
        });
        e.0 += correct;
        e.1 += 1;
    }
    order
        .into_iter()
        .map(|run| {
            let (correct, trials) = runs[&run];
            RunValue {
                pass_at_1: correct as f64 / (trials as f64 * n_problems),
                run,
            }
        })
        .collect()
}

/// pass@1's between/within split on the shared set (the report's own
/// decomposition, [`variance_decomposition_of`]).
fn variance_split(c: &[u64], n: u64) -> (VarianceSplit, rollstat_stats::VarianceDecomposition) {
    let pairs = c.iter().map(|&c| {
        let v = pass1_sampling_variance(n, c).expect("n ≥ 2");
        (c as f64 / n as f64, v)
    });
    let d = variance_decomposition_of(pairs).expect("2 problems");
    let split = VarianceSplit {
        between: d.between,
        within: d.within,
        trial_variance: d.within * n as f64,
        se: d.se(),
        dominant: format!("{:?}", d.dominant).to_lowercase(),
    };
    (split, d)
}

/// The floors for one run and for means of 2, 4, 8 and `n` runs.
fn floors(trial_variance: f64, n_problems: u64, n: u64, level: f64) -> NoiseFloor {
    let floor = |m| noise_floor(trial_variance, n_problems, m, level).unwrap_or(f64::NAN);
    let mut ms: Vec<u64> = vec![2, 4, 8, n];
    ms.sort_unstable();
    ms.dedup();
    NoiseFloor {
        level,
        single_run: floor(1),
        means: ms.into_iter().map(|m| (m, floor(m))).collect(),
    }
}

/// One more run, twice the runs, twice the problems: pass@1's projected
/// standard error and half-width (`runs` runs now).
fn levers(d: &rollstat_stats::VarianceDecomposition, runs: f64, level: f64) -> Vec<Lever> {
    let z = rollstat_stats::dist::normal_quantile(1.0 - (1.0 - level) / 2.0);
    let n = d.n as f64;
    [
        ("more_runs", d.projected_se(n, (runs + 1.0) / runs)),
        ("double_runs", d.projected_se(n, 2.0)),
        ("double_problems", d.projected_se(2.0 * n, 1.0)),
    ]
    .into_iter()
    .map(|(change, se)| Lever {
        change: change.into(),
        se,
        half_width: z * se,
    })
    .collect()
}

/// The flaky problems, most unstable (highest pairwise flip rate) first.
fn flaky(list: Vec<(String, u64)>, n: u64) -> Vec<FlakyProblem> {
    let mut out: Vec<FlakyProblem> = list
        .into_iter()
        .map(|(problem, c)| FlakyProblem {
            problem,
            c,
            n,
            flip_rate: rollstat_stats::within_flip(c, n).unwrap_or(f64::NAN),
        })
        .collect();
    out.sort_by(|a, b| b.flip_rate.total_cmp(&a.flip_rate));
    out
}

/// ICC(1) and ICC(1,k) of problems with `c` correct of `n` trials each,
/// with bootstrap intervals at the options' level, resamples and seed;
/// `None` when undefined (no trial noise, or no spread between problems).
pub(crate) fn icc_entry(c: &[u64], n: u64, o: &IntervalOptions) -> Option<IccEntry> {
    let level = o.level;
    let anova = OneWayAnova::from_counts(c, n).ok()?;
    let i = icc_oneway(&anova, level).ok().flatten()?;
    let boot = icc_bootstrap(c, n, level, o.resamples, o.seed)
        .ok()
        .flatten();
    let f = i.icc1_interval;
    let shown = boot.map_or(f, |b| {
        (f.0.min(b.icc1_interval.0), f.1.max(b.icc1_interval.1))
    });
    Some(IccEntry {
        icc1: i.icc1,
        icc1_interval: [shown.0, shown.1],
        icc1k: i.icc1k,
        icc1k_interval: [spearman_brown(shown.0, n), spearman_brown(shown.1, n)],
        interval_method: if boot.is_some() { "bootstrap+F" } else { "F" }.into(),
        resamples_used: boot.map_or(0, |b| b.resamples_used),
        icc1_bootstrap_interval: boot.map(|b| [b.icc1_interval.0, b.icc1_interval.1]),
        icc1_f_interval: [f.0, f.1],
        f: i.f,
        df1: i.df.0,
        df2: i.df.1,
        p_value: i.p_value,
        level,
    })
}
