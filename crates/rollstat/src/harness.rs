//! Harness reconciliation: the numbers a harness stored itself (lm-eval
//! `results_*.json`, inspect scores, SiEval `pass@k`, …) beside rollstat's,
//! each recomputed on exactly the problems it summarises, with the likely
//! reason for a disagreement.

use crate::document::{HarnessComparison, Health, MetricBlock};
use rollstat_core::aggregate::Metric;
use rollstat_core::summary::{summarize, DenominatorPolicy, ProblemData, ProblemSummary};
use rollstat_core::vote::{AnswerClusterer, TiePolicy};
use rollstat_formats::HarnessAggregate;
use rollstat_io::Collected;
use std::collections::HashMap;

/// A problem's key as rollstat-io groups rows: (system, subset, problem).
pub(crate) type Key = (Option<String>, Option<String>, String);

/// Rows of one native file, tracked so that an aggregate can be compared on
/// exactly the problems it summarises.
pub(crate) struct Tracked {
    /// Keys of the file's rows, with the row's `run`.
    pub keys: Vec<(Key, Option<String>)>,
}

/// Per-aggregate problem data, kept for [`compare_aggregates`] (keyed by the
/// aggregate's source and metric name; a pure function of the files read).
struct Scope {
    problems: Vec<ProblemData>,
    /// All problems of the input are in the scope.
    whole: bool,
}

/// Per-aggregate problem data, keyed by (source path, metric name).
#[derive(Default)]
pub(crate) struct Scopes(Vec<Option<Scope>>);

/// The `run` an aggregate is about, when its file holds several runs
/// (lm-eval `metric,filter`; inspect `scorer/metric`).
fn aggregate_run(a: &HarnessAggregate, runs: &[&str]) -> Option<String> {
    let name = a.metric_name.as_str();
    let cands = [
        name.split_once(',').map(|(_, f)| f),
        name.split_once('/').map(|(s, _)| s),
    ];
    cands
        .into_iter()
        .flatten()
        .find(|c| runs.contains(c))
        .map(str::to_string)
}

/// `key=value` from a `; `-separated aggregate note.
fn note_field(note: &str, key: &str) -> Option<String> {
    note.split("; ")
        .find_map(|part| part.strip_prefix(&format!("{key}=")))
        .map(str::to_string)
}

pub(crate) fn record_scopes(
    collected: &Collected,
    first_origin: &HashMap<Key, String>,
    tracked: &[Tracked],
    aggregates: &[(HarnessAggregate, usize)],
) -> Scopes {
    let mut scopes = Vec::with_capacity(aggregates.len());
    if aggregates.is_empty() {
        return Scopes(scopes);
    }
    let by_origin: HashMap<String, usize> = collected
        .problems
        .iter()
        .enumerate()
        .map(|(i, p)| (collected.origin(p.origin), i))
        .collect();
    for (a, idx) in aggregates {
        let t = &tracked[*idx];
        let mut runs: Vec<&str> = t.keys.iter().filter_map(|(_, r)| r.as_deref()).collect();
        runs.sort_unstable();
        runs.dedup();
        let run = aggregate_run(a, &runs);
        // A file of aggregates only (lighteval results, a lone lm-eval
        // results file): its numbers cover the rows of its task elsewhere.
        let task = note_field(&a.note, "task").or_else(|| note_field(&a.note, "dataset"));
        let keys: Vec<&(Key, Option<String>)> = if t.keys.is_empty() {
            tracked
                .iter()
                .flat_map(|t| t.keys.iter())
                .filter(|((_, subset, _), _)| match (&task, subset) {
                    (Some(task), _) if task == "all" => true,
                    (Some(task), Some(s)) => {
                        task == s
                            || task.ends_with(&format!("|{s}"))
                            || s.ends_with(&format!("|{task}"))
                    }
                    _ => false,
                })
                .collect()
        } else {
            // A file of several tasks (lm-eval results with embedded
            // samples): a task's number covers that task's rows only.
            let of_task = |(k, _): &&(Key, Option<String>)| k.1.is_some() && k.1 == task;
            match t.keys.iter().any(|k| of_task(&k)) {
                true => t.keys.iter().filter(of_task).collect(),
                false => t.keys.iter().collect(),
            }
        };
        let mut members: Vec<usize> = keys
            .into_iter()
            .filter(|(_, r)| run.is_none() || r == &run)
            .filter_map(|(k, _)| first_origin.get(k))
            .filter_map(|o| by_origin.get(o.as_str()).copied())
            .collect();
        members.sort_unstable();
        members.dedup();
        let scope = Scope {
            whole: members.len() == collected.problems.len(),
            problems: members
                .iter()
                .map(|&i| collected.problems[i].data.clone())
                .collect(),
        };
        // One scope per aggregate, by position: one results file holds the
        // same metric name for several tasks.
        scopes.push(Some(scope));
    }
    Scopes(scopes)
}

/// What a harness metric name corresponds to in rollstat.
#[derive(Debug, Clone, PartialEq)]
enum Target {
    Metric(Metric),
    /// The standard error of a metric's mean over problems (sd/√N with the
    /// N − 1 divisor, as inspect's `stderr` and lm-eval's `*_stderr`).
    Stderr(Metric),
    /// A count in the health block.
    Health(&'static str),
    None,
}

fn g_pass(k: u64, tau_text: &str) -> Option<Metric> {
    let tau: f64 = tau_text.parse().ok()?;
    (0.0..=1.0).contains(&tau).then(|| Metric::GPassAtK {
        k,
        tau,
        tau_text: tau_text.to_string(),
    })
}

/// The report's vote at k: maj@k (exact over k-subsets) below the requested
/// n, maj@n at or above it — the metric the report's `maj@<k>` key holds.
fn maj_at(k: u64, n: u64) -> Metric {
    if k < n {
        Metric::MajAtK(k)
    } else {
        Metric::MajAtN(k)
    }
}

/// Maps a harness metric name to the rollstat metric it reports.
/// `scored_by` is the per-sample metric the rows' verdicts come from, when
/// the adapter knows it (lm-eval's first metric, evalscope's main score):
/// that metric's mean is pass@1 whatever its name (`acc_norm`), and
/// another accuracy-like metric is not.
fn target(name: &str, n: u64, k_hint: Option<u64>, scored_by: Option<&str>) -> Target {
    let full = name.trim().to_ascii_lowercase();
    // lm-eval `metric,filter`: the filter decides what was scored.
    let (metric, filter) = match full.split_once(',') {
        Some((m, f)) => (m.to_string(), Some(f.to_string())),
        None => (full.clone(), None),
    };
    // inspect `scorer/metric`.
    let metric = metric
        .rsplit('/')
        .next()
        .unwrap_or(&metric)
        .trim()
        .to_string();
    // lighteval `pass@k:k=1&n=2`: parameters after the colon.
    let (metric, k_hint) = match metric.split_once(':') {
        Some((base, params)) => {
            let k = params
                .split('&')
                .find_map(|kv| kv.strip_prefix("k="))
                .and_then(|v| v.trim().parse::<u64>().ok());
            (base.to_string(), k.or(k_hint))
        }
        None => (metric, k_hint),
    };
    // inspect `scorer/stderr` is the stderr of the scorer's accuracy;
    // `acc_stderr` that of `acc`.
    let stderr_of = match metric.as_str() {
        "stderr" => Some("accuracy"),
        m => m.strip_suffix("_stderr"),
    };
    if let Some(base) = stderr_of {
        let base = match &filter {
            Some(f) => format!("{base},{f}"),
            None => base.to_string(),
        };
        return match target(&base, n, k_hint, scored_by) {
            Target::Metric(m) => Target::Stderr(m),
            _ => Target::None,
        };
    }
    if metric.contains("stderr") || metric == "std" || metric.starts_with("sample") {
        return Target::None;
    }
    // evalscope `mean_acc`, `mean_acc_pass@4`, `acc_vote@4`, `acc_pass^4`.
    if let Some((_, at)) = metric
        .rsplit_once("_pass@")
        .map(|(b, k)| (b, format!("pass@{k}")))
        .or_else(|| {
            metric
                .rsplit_once("_pass^")
                .map(|(b, k)| (b, format!("pass^{k}")))
        })
    {
        return target(&at, n, k_hint, scored_by);
    }
    if let Some((_, k)) = metric.rsplit_once("_vote@") {
        if let Ok(k) = k.trim().parse::<u64>() {
            return Target::Metric(maj_at(k, n));
        }
    }
    if let Some(k) = metric
        .strip_prefix("vote@")
        .and_then(|k| k.trim().parse::<u64>().ok())
    {
        return Target::Metric(maj_at(k, n));
    }
    match metric.as_str() {
        "n_short" => return Target::Health("n_short"),
        "n_unextracted" => return Target::Health("n_unextracted"),
        "n" => return Target::Health("n"),
        _ => {}
    }
    let num = |s: &str| s.trim().parse::<u64>().ok();
    if let Some(f) = &filter {
        if let Some(k) = f.strip_prefix("maj@").and_then(num) {
            return Target::Metric(maj_at(k, n));
        }
        if f.contains("maj") || f.contains("vote") {
            return Target::Metric(Metric::MajAtN(n));
        }
        if f.contains("first") {
            return Target::Metric(Metric::PrefixAtK(1));
        }
    }
    if let Some(rest) = metric.strip_prefix("g-pass@") {
        if let Some((k, tau)) = rest.split_once('_') {
            if let (Some(k), Some(m)) = (num(k), tau.parse::<f64>().ok().and(Some(tau))) {
                if let Some(m) = g_pass(k, m) {
                    return Target::Metric(m);
                }
            }
        }
    }
    if let Some(rest) = metric.strip_prefix("mg-pass@") {
        if let Some(k) = num(rest) {
            return Target::Metric(Metric::MgPassAtK(k));
        }
    }
    for (prefix, is_pow) in [("pass@", false), ("pass^", true), ("pass_at_", false)] {
        if let Some(rest) = metric.strip_prefix(prefix) {
            let k = num(rest).or_else(|| (rest == "k" || rest == "n").then_some(k_hint).flatten());
            if let Some(k) = k {
                return Target::Metric(if is_pow {
                    Metric::PassPowK(k)
                } else {
                    Metric::PassAtK(k)
                });
            }
        }
    }
    if metric == "maj@k" {
        return Target::Metric(maj_at(k_hint.unwrap_or(n), n));
    }
    if let Some(k) = metric
        .strip_prefix("maj@")
        .and_then(|r| num(r.split(|c: char| !c.is_ascii_digit()).next().unwrap_or("")))
    {
        return Target::Metric(maj_at(k, n));
    }
    // NeMo-Skills `majority@k`.
    if let Some(k) = metric.strip_prefix("majority@").and_then(num) {
        return Target::Metric(maj_at(k, n));
    }
    if let Some(k) = metric.strip_prefix("cons@").and_then(num) {
        return Target::Metric(maj_at(k, n));
    }
    let accuracy_like = [
        "acc",
        "accuracy",
        "exact_match",
        "em",
        "score",
        "mean",
        "avg@n",
        "avg",
        "correct",
        "is_correct",
        "quasi_exact_match",
        "math_pass@1:1_samples",
        "extractive_match",
        "averageaccuracy",
        "weightedaverageaccuracy",
    ];
    let metric = metric.strip_prefix("mean_").unwrap_or(&metric).to_string();
    if let Some(main) = scored_by.map(str::to_ascii_lowercase) {
        if metric == main {
            return Target::Metric(Metric::PassAtK(1));
        }
        if accuracy_like.contains(&metric.as_str()) || metric.contains("acc") {
            return Target::None;
        }
    }
    if accuracy_like.contains(&metric.as_str())
        || metric.starts_with("accuracy")
        || metric.starts_with("avg@")
    {
        return Target::Metric(Metric::PassAtK(1));
    }
    Target::None
}

/// Mean of a metric over the scope's problems; `(mean, n_excluded)`.
/// `excluded_as` scores excluded problems (k > n) with that value instead.
fn scope_value(
    sums: &[ProblemSummary],
    m: &Metric,
    tie: TiePolicy,
    excluded_as: Option<f64>,
) -> Option<f64> {
    let mut total = 0.0;
    let mut count = 0u64;
    for s in sums {
        match (m.value(s, tie), excluded_as) {
            (Ok(v), _) => {
                total += v;
                count += 1;
            }
            (Err(rollstat_core::aggregate::Exclusion::TooFewRollouts), Some(x)) => {
                total += x;
                count += 1;
            }
            _ => {}
        }
    }
    (count > 0).then(|| total / count as f64)
}

/// sd/√N (N − 1 divisor) of a metric's per-problem values over the scope.
fn scope_stderr(sums: &[ProblemSummary], m: &Metric, tie: TiePolicy) -> Option<f64> {
    let values: Vec<f64> = sums.iter().filter_map(|s| m.value(s, tie).ok()).collect();
    let n = values.len() as f64;
    if values.len() < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n;
    let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    Some((ss / (n - 1.0) / n).sqrt())
}

/// Decimal places the harness printed (from the shortest round-trip form).
fn decimals(v: f64) -> i32 {
    let s = format!("{v}");
    s.split_once('.').map(|(_, d)| d.len() as i32).unwrap_or(0)
}

fn close(harness: f64, ours: f64) -> bool {
    let d = decimals(harness).clamp(2, 12);
    (harness - ours).abs() <= 0.5 * 10f64.powi(-d) + 1e-9 * harness.abs().max(1.0)
}

fn fmt_num(v: f64) -> String {
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// What the reconciliation needs from the report being built.
pub(crate) struct Context<'a> {
    pub n: u64,
    pub tie: TiePolicy,
    pub policy: DenominatorPolicy,
    /// The report is broken down by a field.
    pub grouped: bool,
    /// The overall metrics and health.
    pub block: &'a MetricBlock,
    pub health: &'a Health,
    /// The clusterer the report's summaries were made with.
    pub clusterer: &'a dyn AnswerClusterer,
}

/// Harness aggregates beside rollstat's numbers: each harness number is
/// matched to the rollstat metric it reports and recomputed on exactly the
/// problems it summarises (its file; its filter/scorer when the file holds
/// several). A disagreement is explained where one known cause reproduces
/// the harness's number: percentage scale, first-sample-only scoring
/// (prefix@1), the other denominator policy, another tie policy, or short
/// problems scored 0/1 instead of excluded.
pub(crate) fn compare_aggregates(
    aggregates: &[HarnessAggregate],
    scopes: &Scopes,
    ctx: &Context,
) -> Vec<HarnessComparison> {
    let n = ctx.n;
    let tie = ctx.tie;
    let policy = ctx.policy;
    let mut out = Vec::new();
    for (i, a) in aggregates.iter().enumerate() {
        let scope = scopes.0.get(i).and_then(Option::as_ref);
        // SiEval stores `pass@k` with k beside it.
        let k_hint = aggregates
            .iter()
            .find(|b| b.source_path == a.source_path && b.metric_name == "k")
            .map(|b| b.value as u64);
        let percent = a.note.contains("percentage") || a.value > 1.0 + 1e-9;
        let scale = if percent { 100.0 } else { 1.0 };
        let source = a.source_path.display().to_string();
        let mut cmp = HarnessComparison {
            source,
            harness_metric: a.metric_name.clone(),
            harness_value: a.value,
            rollstat_metric: None,
            rollstat_value: None,
            agrees: None,
            note: a.note.clone(),
        };
        let scope_n = scope.map(|s| s.problems.len());
        let scored_by = note_field(&a.note, "scored_by");
        match target(&a.metric_name, n, k_hint, scored_by.as_deref()) {
            Target::None => match scored_by {
                Some(main) => cmp.note.push_str(&format!(
                    "; no rollstat counterpart: the rows' verdicts are {main}, not this metric"
                )),
                None => cmp.note.push_str("; no rollstat counterpart"),
            },
            Target::Health(field) => {
                if scope.is_some_and(|s| s.whole) {
                    let v = match field {
                        "n_short" => ctx.health.n_short,
                        "n" => ctx.n,
                        _ => ctx.health.n_unextracted,
                    };
                    cmp.rollstat_metric = Some(field.to_string());
                    cmp.rollstat_value = Some(v as f64);
                    cmp.agrees = Some((v as f64 - a.value).abs() < 0.5);
                }
            }
            Target::Stderr(m) => {
                let name = format!("stderr of {m}");
                cmp.rollstat_metric = Some(name.clone());
                let ours = scope.and_then(|s| {
                    let sums: Vec<ProblemSummary> = s
                        .problems
                        .iter()
                        .map(|d| summarize(d.clone(), policy, ctx.clusterer))
                        .collect();
                    scope_stderr(&sums, &m, tie)
                });
                match ours {
                    Some(v) => {
                        cmp.rollstat_value = Some(v * scale);
                        let ok = close(a.value, v * scale);
                        cmp.agrees = Some(ok);
                        if !ok {
                            cmp.note.push_str("; DISAGREES: rollstat's is sd/√N over problems (N − 1 divisor, epochs averaged per problem first); the harness may cluster or use another divisor");
                        }
                    }
                    None => cmp
                        .note
                        .push_str(&format!("; {name} needs 2 problems with a value")),
                }
            }
            Target::Metric(m) => {
                let name = m.to_string();
                cmp.rollstat_metric = Some(name.clone());
                let Some(scope) = scope else {
                    cmp.note.push_str("; its problems are not in the input");
                    out.push(cmp);
                    continue;
                };
                let sums = |p: DenominatorPolicy| -> Vec<ProblemSummary> {
                    scope
                        .problems
                        .iter()
                        .map(|d| summarize(d.clone(), p, ctx.clusterer))
                        .collect()
                };
                let ours_sums = sums(policy);
                // The report's own number when the scope is the whole
                // input (same clustering as printed above); else recomputed.
                let ours = if scope.whole && !ctx.grouped {
                    ctx.block
                        .metrics
                        .get(&name)
                        .map(|e| e.value)
                        .or_else(|| scope_value(&ours_sums, &m, tie, None))
                } else {
                    scope_value(&ours_sums, &m, tie, None)
                };
                let Some(ours) = ours else {
                    cmp.note
                        .push_str(&format!("; {name} is not computable on these problems"));
                    out.push(cmp);
                    continue;
                };
                cmp.rollstat_value = Some(ours * scale);
                if !scope.whole {
                    cmp.note.push_str(&format!(
                        "; rollstat value over the {} problems this number covers",
                        scope_n.unwrap_or(0)
                    ));
                }
                let ok = close(a.value, ours * scale);
                cmp.agrees = Some(ok);
                if !ok {
                    let reason = explain(a.value, scale, &m, &ours_sums, &sums, tie, n);
                    cmp.note.push_str(&format!("; DISAGREES: {reason}"));
                }
            }
        }
        out.push(cmp);
    }
    out
}

/// The likely reason a harness number differs from rollstat's.
fn explain(
    harness: f64,
    scale: f64,
    m: &Metric,
    ours: &[ProblemSummary],
    sums: &dyn Fn(DenominatorPolicy) -> Vec<ProblemSummary>,
    tie: TiePolicy,
    n: u64,
) -> String {
    let fits = |v: Option<f64>| v.is_some_and(|v| close(harness, v * scale));
    let mine = scope_value(ours, m, tie, None).unwrap_or(f64::NAN);
    // Percentage scale.
    if scale == 1.0 && close(harness, mine * 100.0) {
        return "the harness number is a percentage (0-100); rollstat's fractions match it".into();
    }
    if scale == 100.0 && close(harness * 100.0, mine * 100.0) {
        return "the harness number is a fraction; rollstat's value matches it on the same scale"
            .into();
    }
    // First-sample-only scoring.
    let prefix1 = scope_value(ours, &Metric::PrefixAtK(1), tie, None);
    if *m != Metric::PrefixAtK(1) && fits(prefix1) {
        return format!(
            "first-sample-only scoring: it equals rollstat's prefix@1 = {} (only rollout 0 was scored)",
            fmt_num(prefix1.unwrap_or(0.0) * scale)
        );
    }
    // The other denominator.
    for (p, word) in [
        (
            DenominatorPolicy::Judged,
            "judged (failed rollouts dropped)",
        ),
        (
            DenominatorPolicy::Requested,
            "requested (failed rollouts counted wrong)",
        ),
    ] {
        let v = scope_value(&sums(p), m, tie, None);
        if fits(v) {
            return format!(
                "a different denominator: with the {} denominator policy rollstat gives {} — {word}",
                match p {
                    DenominatorPolicy::Judged => "judged",
                    DenominatorPolicy::Requested => "requested",
                },
                fmt_num(v.unwrap_or(0.0) * scale)
            );
        }
    }
    // Ties in the vote.
    if matches!(m, Metric::MajAtN(_) | Metric::MajAtK(_)) {
        for t in [TiePolicy::First, TiePolicy::None, TiePolicy::Fractional] {
            let v = scope_value(ours, m, t, None);
            if t != tie && fits(v) {
                return format!(
                    "ties: with tie policy {} rollstat gives {}",
                    format!("{t:?}").to_lowercase(),
                    fmt_num(v.unwrap_or(0.0) * scale)
                );
            }
        }
    }
    // Short problems scored instead of excluded.
    for (x, word) in [(0.0, "0"), (1.0, "1")] {
        let v = scope_value(ours, m, tie, Some(x));
        if v != scope_value(ours, m, tie, None) && fits(v) {
            return format!(
                "a different denominator: problems with fewer than k rollouts were scored {word} by the harness (rollstat excludes them); that gives {}",
                fmt_num(v.unwrap_or(0.0) * scale)
            );
        }
    }
    // Plain pass@1 when the harness claims something else.
    let p1 = scope_value(ours, &Metric::PassAtK(1), tie, None);
    if *m != Metric::PassAtK(1) && fits(p1) {
        return format!(
            "it equals rollstat's pass@1 = {} (mean accuracy over all rollouts)",
            fmt_num(p1.unwrap_or(0.0) * scale)
        );
    }
    let _ = n;
    format!(
        "differs by {}; no single known cause (scale, first-sample scoring, denominator, ties, short problems) reproduces it — the harness may extract or grade answers differently",
        fmt_num(harness - mine * scale)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// evalscope's report names (schema 1 `mean_acc`, `mean_acc_pass@4`,
    /// `AverageAccuracy` of 0.x; schema 2 identities written `acc_vote@4`,
    /// `acc_pass^2`) and lm-eval's, with the metric the rows were scored by.
    #[test]
    fn harness_names_map_to_the_metric_they_report() {
        let m = |name: &str, scored_by: Option<&str>| target(name, 8, None, scored_by);
        let metric = |x: Metric| Target::Metric(x);
        assert_eq!(m("mean_acc", Some("acc")), metric(Metric::PassAtK(1)));
        assert_eq!(m("AverageAccuracy", None), metric(Metric::PassAtK(1)));
        assert_eq!(m("accuracy", None), metric(Metric::PassAtK(1)));
        assert_eq!(
            m("mean_acc_pass@4", Some("acc")),
            metric(Metric::PassAtK(4))
        );
        assert_eq!(m("acc_pass^2", None), metric(Metric::PassPowK(2)));
        assert_eq!(m("acc_vote@4", None), metric(Metric::MajAtK(4)));
        assert_eq!(m("acc_vote@8", None), metric(Metric::MajAtN(8)));
        // A task scored only by acc_norm: its mean is pass@1, its stderr
        // that of pass@1; acc (not the verdicts) has no counterpart.
        let norm = Some("acc_norm");
        assert_eq!(m("acc_norm,none", norm), metric(Metric::PassAtK(1)));
        assert_eq!(
            m("acc_norm_stderr,none", norm),
            Target::Stderr(Metric::PassAtK(1))
        );
        assert_eq!(m("acc,none", norm), Target::None);
        assert_eq!(m("acc_norm,none", None), Target::None);
        // Verdicts from acc: acc_norm stays without a counterpart.
        assert_eq!(m("acc_norm,none", Some("acc")), Target::None);
        assert_eq!(m("acc,none", Some("acc")), metric(Metric::PassAtK(1)));
    }
}
