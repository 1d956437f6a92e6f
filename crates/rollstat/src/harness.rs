//! Harness reconciliation: the numbers a harness stored itself (lm-eval
//! `results_*.json`, inspect scores, SiEval `pass@k`, …) beside rollstat's,
//! each recomputed on exactly the problems it summarises, with the likely
//! reason for a disagreement.

use crate::document::{HarnessComparison, Health, MetricBlock};
use rollstat_core::aggregate::Metric;
use rollstat_core::summary::{summarize, DenominatorPolicy, ProblemData, ProblemSummary};
use rollstat_core::vote::{AnswerClusterer, TiePolicy};
use rollstat_formats::{HarnessAggregate, HarnessTarget, HealthCount, TargetHints};
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
        // The aggregate's filter or scorer, when its file holds several runs
        // (its format's dialect says where the name carries one).
        let run = a.run(&runs).map(str::to_string);
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
/// matched to the rollstat metric it reports (by its format's dialect,
/// [`HarnessAggregate::target`]) and recomputed on exactly the problems it
/// summarises (its file; its filter/scorer when the file holds several). A
/// disagreement is explained where one known cause reproduces the
/// harness's number: percentage scale, first-sample-only scoring
/// (prefix@1), the other denominator policy, another tie policy, or short
/// problems scored 0/1 instead of excluded.
pub(crate) fn compare_aggregates(
    aggregates: &[HarnessAggregate],
    scopes: &Scopes,
    ctx: &Context,
) -> Vec<HarnessComparison> {
    let scope = |i: usize| scopes.0.get(i).and_then(Option::as_ref);
    (aggregates.iter().enumerate())
        .map(|(i, a)| compare_one(a, aggregates, scope(i), ctx))
        .collect()
}

/// One harness number beside rollstat's.
fn compare_one(
    a: &HarnessAggregate,
    all: &[HarnessAggregate],
    scope: Option<&Scope>,
    ctx: &Context,
) -> HarnessComparison {
    // SiEval stores `pass@k` with k beside it.
    let k_hint = all
        .iter()
        .find(|b| b.source_path == a.source_path && b.metric_name == "k")
        .map(|b| b.value as u64);
    let percent = a.note.contains("percentage") || a.value > 1.0 + 1e-9;
    let scale = if percent { 100.0 } else { 1.0 };
    let mut cmp = HarnessComparison {
        source: a.source_path.display().to_string(),
        harness_metric: a.metric_name.clone(),
        harness_value: a.value,
        rollstat_metric: None,
        rollstat_value: None,
        agrees: None,
        note: a.note.clone(),
    };
    let scored_by = note_field(&a.note, "scored_by");
    let hints = TargetHints {
        n: ctx.n,
        k_hint,
        scored_by: scored_by.as_deref(),
    };
    match a.target(&hints) {
        HarnessTarget::Health(field) => compare_health(&mut cmp, field, scope, ctx),
        HarnessTarget::Stderr(m) => compare_stderr(&mut cmp, &m, scope, scale, ctx),
        HarnessTarget::Metric(m) => compare_metric(&mut cmp, &m, scope, scale, ctx),
        _ => match scored_by {
            Some(main) => cmp.note.push_str(&format!(
                "; no rollstat counterpart: the rows' verdicts are {main}, not this metric"
            )),
            None => cmp.note.push_str("; no rollstat counterpart"),
        },
    }
    cmp
}

/// A health count, compared when the aggregate covers the whole input.
fn compare_health(
    cmp: &mut HarnessComparison,
    field: HealthCount,
    scope: Option<&Scope>,
    ctx: &Context,
) {
    if !scope.is_some_and(|s| s.whole) {
        return;
    }
    let v = match field {
        HealthCount::NShort => ctx.health.n_short,
        HealthCount::N => ctx.n,
        _ => ctx.health.n_unextracted,
    };
    cmp.rollstat_metric = Some(field.name().to_string());
    cmp.rollstat_value = Some(v as f64);
    cmp.agrees = Some((v as f64 - cmp.harness_value).abs() < 0.5);
}

/// The scope's problems summarized under `policy`.
fn scope_sums(scope: &Scope, policy: DenominatorPolicy, ctx: &Context) -> Vec<ProblemSummary> {
    (scope.problems.iter())
        .map(|d| summarize(d.clone(), policy, ctx.clusterer))
        .collect()
}

/// A stderr: rollstat's sd/√N of the same metric over the scope.
fn compare_stderr(
    cmp: &mut HarnessComparison,
    m: &Metric,
    scope: Option<&Scope>,
    scale: f64,
    ctx: &Context,
) {
    let name = format!("stderr of {m}");
    cmp.rollstat_metric = Some(name.clone());
    let ours = scope.and_then(|s| scope_stderr(&scope_sums(s, ctx.policy, ctx), m, ctx.tie));
    let Some(v) = ours else {
        cmp.note
            .push_str(&format!("; {name} needs 2 problems with a value"));
        return;
    };
    cmp.rollstat_value = Some(v * scale);
    let ok = close(cmp.harness_value, v * scale);
    cmp.agrees = Some(ok);
    if !ok {
        cmp.note.push_str("; DISAGREES: rollstat's is sd/√N over problems (N − 1 divisor, epochs averaged per problem first); the harness may cluster or use another divisor");
    }
}

/// A metric: rollstat's value over the scope, and the likely cause of a
/// disagreement.
fn compare_metric(
    cmp: &mut HarnessComparison,
    m: &Metric,
    scope: Option<&Scope>,
    scale: f64,
    ctx: &Context,
) {
    let name = m.to_string();
    cmp.rollstat_metric = Some(name.clone());
    let Some(scope) = scope else {
        cmp.note.push_str("; its problems are not in the input");
        return;
    };
    let sums = |p: DenominatorPolicy| scope_sums(scope, p, ctx);
    let ours_sums = sums(ctx.policy);
    // The report's own number when the scope is the whole input (same
    // clustering as printed above); else recomputed.
    let recomputed = || scope_value(&ours_sums, m, ctx.tie, None);
    let ours = match scope.whole && !ctx.grouped {
        true => ctx
            .block
            .metrics
            .get(&name)
            .map(|e| e.value)
            .or_else(recomputed),
        false => recomputed(),
    };
    let Some(ours) = ours else {
        cmp.note
            .push_str(&format!("; {name} is not computable on these problems"));
        return;
    };
    cmp.rollstat_value = Some(ours * scale);
    if !scope.whole {
        cmp.note.push_str(&format!(
            "; rollstat value over the {} problems this number covers",
            scope.problems.len()
        ));
    }
    let ok = close(cmp.harness_value, ours * scale);
    cmp.agrees = Some(ok);
    if !ok {
        let reason = explain(
            cmp.harness_value,
            scale,
            m,
            &ours_sums,
            &sums,
            ctx.tie,
            ctx.n,
        );
        cmp.note.push_str(&format!("; DISAGREES: {reason}"));
    }
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
