//! Reading inputs: canonical JSONL/CSV/stdin through `rollstat-io`, native
//! harness files and directories through `rollstat-formats`.
//!
//! Every argument is a file, a directory (walked; every recognised file is
//! read) or `-` (stdin). `.gz` / `.zst` content is decompressed first, for
//! canonical and native files alike. A file named on the command line that
//! no format fits is an error (exit 2) that lists every format tried and
//! why it did not fit; a file met during a directory walk that cannot be read
//! is named on stderr, counted in a health warning and left out — `--strict`
//! makes it an error.

use crate::pipeline::InputError;
use anyhow::{bail, Result};
use rollstat_core::aggregate::Metric;
use rollstat_core::report::{HarnessComparison, InputInfo, Report};
use rollstat_core::summary::{summarize, DenominatorPolicy, ProblemData, ProblemSummary};
use rollstat_core::vote::{ExactClusterer, TiePolicy};
use rollstat_formats::{Classified, Format, FormatError, HarnessAggregate, NativeFile, Row};
use rollstat_io::record::{parse_record_with, Record};
use rollstat_io::{BadLine, Collected, Collector, Input, ReadError, ReadOptions};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Everything read, plus what the native adapters had to say.
pub struct Inputs {
    pub collected: Collected,
    /// Aggregates the harnesses stored themselves.
    pub aggregates: Vec<rollstat_formats::HarnessAggregate>,
    /// Notes for the health warnings (adapter assumptions, skipped files).
    pub notes: Vec<String>,
    /// The problems each harness aggregate summarises.
    pub scopes: Scopes,
}

fn usage(msg: String) -> anyhow::Error {
    InputError(msg).into()
}

/// One input after detection.
pub enum Source {
    /// Native rows, already canonical JSON objects.
    Native(NativeFile),
    /// Canonical JSONL/CSV bytes (decompressed) for rollstat-io's reader.
    Canonical {
        path: String,
        /// sha256 of the bytes as stored (before decompression).
        sha256: String,
        content: Vec<u8>,
    },
    /// An uncompressed canonical file, streamed by rollstat-io in blocks
    /// (memory grows with problems, not with the file).
    CanonicalFile { path: String },
}

/// What the command-line paths held.
#[derive(Default)]
pub struct Gathered {
    pub sources: Vec<Source>,
    /// Files of a directory walk that could not be read (already printed).
    pub failed: Vec<String>,
    /// Files of a directory walk passed over on purpose.
    pub skipped: Vec<(PathBuf, String)>,
}

/// Parses `--from`.
pub fn parse_from(from: Option<&str>) -> Result<Option<Format>> {
    from.map(|f| {
        f.parse::<Format>()
            .map_err(|e| usage(format!("--from: {e}")))
    })
    .transpose()
}

fn is_detect_failure(e: &FormatError) -> bool {
    matches!(e, FormatError::Detect(_))
}

/// A file that detection did not recognise may still be canonical JSONL
/// whose first rows are malformed: the canonical reader then names each bad
/// row. Returns the canonical source when at least one row parses.
fn canonical_fallback(path: &Path, opts: &ReadOptions) -> Option<Source> {
    let decoded = rollstat_formats::read_decoded(path).ok()?;
    let shown = path.display().to_string();
    let input = Input::from_bytes(&plain_name(&shown), decoded.content.clone());
    let rows = input.parse_rows(opts.by.as_deref(), opts.cluster_by.as_deref());
    // An empty file is named by the canonical reader ("no records").
    (rows.is_empty() || rows.iter().any(|(_, r)| r.is_ok())).then_some(Source::Canonical {
        path: shown,
        sha256: decoded.sha256,
        content: decoded.content,
    })
}

/// The name without a compression suffix, so the canonical reader picks
/// CSV vs JSONL from `x.csv.gz` as from `x.csv`.
fn plain_name(path: &str) -> String {
    for suffix in [".gz", ".zst", ".zstd"] {
        if path.len() > suffix.len() && path.to_ascii_lowercase().ends_with(suffix) {
            return path[..path.len() - suffix.len()].to_string();
        }
    }
    path.to_string()
}

/// An uncompressed file whose head is detected as canonical JSONL/CSV (or
/// `--from canonical`): it can be streamed instead of loaded.
fn plain_canonical(path: &Path, from: Option<Format>) -> bool {
    use std::io::Read;
    if from.is_some_and(|f| !f.is_canonical()) {
        return false;
    }
    let mut head = Vec::with_capacity(65536);
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    if file.take(65536).read_to_end(&mut head).is_err() {
        return false;
    }
    let compressed = head.starts_with(&[0x1f, 0x8b]) || head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]);
    !compressed
        && (from.is_some_and(|f| f.is_canonical())
            || rollstat_formats::detect(path, &head).is_ok_and(|f| f.is_canonical()))
}

fn canonical_source(path: &Path) -> Result<Source, FormatError> {
    let decoded = rollstat_formats::read_decoded(path)?;
    Ok(Source::Canonical {
        path: path.display().to_string(),
        sha256: decoded.sha256,
        content: decoded.content,
    })
}

/// Detects and reads every path. Files named on the command line must be
/// readable; files inside a directory are read leniently (failures are
/// printed and listed in `failed`).
pub fn gather(paths: &[String], from: Option<Format>, opts: &ReadOptions) -> Result<Gathered> {
    let mut g = Gathered::default();
    for arg in paths {
        if arg == "-" {
            g.sources.push(read_stdin(from)?);
            continue;
        }
        let path = Path::new(arg);
        if path.is_file() && plain_canonical(path, from) {
            g.sources.push(Source::CanonicalFile { path: arg.clone() });
            continue;
        }
        let report =
            rollstat_formats::read_path_lenient(path, from).map_err(|e| usage(e.to_string()))?;
        let is_dir = path.is_dir();
        for f in report.files {
            g.sources.push(Source::Native(f));
        }
        for (p, _) in report.canonical {
            if plain_canonical(&p, from) {
                g.sources.push(Source::CanonicalFile {
                    path: p.display().to_string(),
                });
                continue;
            }
            match canonical_source(&p) {
                Ok(s) => g.sources.push(s),
                Err(e) if is_dir => {
                    eprintln!("rollstat: error: {e}");
                    g.failed.push(p.display().to_string());
                }
                Err(e) => return Err(usage(e.to_string())),
            }
        }
        for e in report.errors {
            let p = e
                .path()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| path.to_path_buf());
            if from.is_none() && is_detect_failure(&e) {
                if let Some(s) = canonical_fallback(&p, opts) {
                    g.sources.push(s);
                    continue;
                }
            }
            if is_dir {
                eprintln!("rollstat: error: {e}");
                g.failed.push(p.display().to_string());
            } else {
                return Err(usage(e.to_string()));
            }
        }
        g.skipped.extend(report.skipped);
    }
    Ok(g)
}

fn read_stdin(from: Option<Format>) -> Result<Source> {
    use std::io::Read;
    let mut raw = Vec::new();
    std::io::stdin()
        .read_to_end(&mut raw)
        .map_err(|e| usage(format!("<stdin>: {e}")))?;
    let name = Path::new("<stdin>");
    let decoded = rollstat_formats::decode_bytes(name, raw).map_err(|e| usage(e.to_string()))?;
    let canonical = |d: rollstat_formats::Decoded| Source::Canonical {
        path: "<stdin>".into(),
        sha256: d.sha256,
        content: d.content,
    };
    match from {
        // Without --from, stdin is canonical unless its content is clearly
        // a native layout.
        None => match rollstat_formats::read_bytes(name, &decoded, None) {
            Ok(Classified::Native(f)) => Ok(Source::Native(f)),
            _ => Ok(canonical(decoded)),
        },
        Some(f) if f.is_canonical() => Ok(canonical(decoded)),
        Some(f) => match rollstat_formats::read_bytes(name, &decoded, Some(f)) {
            Ok(Classified::Native(f)) => Ok(Source::Native(f)),
            Ok(Classified::Canonical(_)) => Ok(canonical(decoded)),
            Err(e) => Err(usage(e.to_string())),
        },
    }
}

/// Warnings of a native file that stand for skipped malformed records, as
/// `(line, reason)`; the rest are notes.
fn split_warnings(f: &NativeFile) -> (Vec<(u64, String)>, Vec<String>) {
    let shown = f.path.display().to_string();
    let mut bad = Vec::new();
    let mut notes = Vec::new();
    for w in &f.warnings {
        if bad.len() < f.bad_lines && w.contains("skipped") {
            let rest = w
                .strip_prefix(&shown)
                .and_then(|r| r.strip_prefix(':'))
                .unwrap_or(w);
            let (line, reason) = match rest.split_once(':') {
                Some((n, r)) if n.trim().parse::<u64>().is_ok() => {
                    (n.trim().parse().unwrap_or(0), r.trim())
                }
                _ => (0, rest.trim()),
            };
            bad.push((line, reason.to_string()));
        } else {
            notes.push(w.clone());
        }
    }
    while bad.len() < f.bad_lines {
        bad.push((0, "malformed record skipped by the adapter".into()));
    }
    (bad, notes)
}

/// A problem's key as rollstat-io groups rows: (system, subset, problem).
type Key = (Option<String>, Option<String>, String);

/// Rows of one native file, tracked so that an aggregate can be compared on
/// exactly the problems it summarises.
struct Tracked {
    /// Keys of the file's rows, with the row's `run`.
    keys: Vec<(Key, Option<String>)>,
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
pub struct Scopes(Vec<((PathBuf, String), Scope)>);

/// Reads every input; bad rows are printed to stderr (first 20, then a count).
pub fn read_inputs(
    paths: &[String],
    opts: &ReadOptions,
    from: Option<&str>,
    grader: &dyn rollstat_io::Grader,
) -> Result<Inputs> {
    let from = parse_from(from)?;
    let g = gather(paths, from, opts)?;
    let mut collector = Collector::with_grader(opts.clone(), grader);
    let mut aggregates: Vec<(HarnessAggregate, usize)> = Vec::new();
    let mut tracked: Vec<Tracked> = Vec::new();
    let mut first_origin: HashMap<Key, String> = HashMap::new();
    let mut notes = Vec::new();
    let strict = |e: ReadError| usage(e.to_string());
    let mut track = |path: &str, line: u64, r: &Result<Record, String>| {
        if let Ok(r) = r {
            first_origin
                .entry((r.system.clone(), r.subset.clone(), r.problem.clone()))
                .or_insert_with(|| format!("{path}:{line}"));
        }
    };
    for source in g.sources {
        match source {
            Source::Canonical {
                path,
                sha256,
                content,
            } => {
                let input = Input::from_bytes(&plain_name(&path), content);
                let rows = input.parse_rows(opts.by.as_deref(), opts.cluster_by.as_deref());
                for (line, r) in &rows {
                    track(&path, *line, r);
                }
                let info = InputInfo {
                    path: path.clone(),
                    format: input.format().to_string(),
                    sha256,
                    records: rows.len() as u64,
                };
                if rows.is_empty() {
                    let e = ReadError::Empty { path: path.clone() };
                    if opts.strict {
                        return Err(usage(e.to_string()));
                    }
                    eprintln!("rollstat: warning: {e}");
                }
                collector.add_rows(info, rows).map_err(strict)?;
            }
            Source::CanonicalFile { path } => {
                let input = Input::open(&path).map_err(|e| usage(e.to_string()))?;
                match collector.add(input) {
                    Ok(()) => {}
                    Err(e @ ReadError::Empty { .. }) if !opts.strict => {
                        eprintln!("rollstat: warning: {e}")
                    }
                    Err(e) => return Err(strict(e)),
                }
            }
            Source::Native(f) => {
                let shown = f.path.display().to_string();
                let (bad, file_notes) = split_warnings(&f);
                notes.extend(file_notes);
                let rows: Vec<(u64, Result<Record, String>)> = f
                    .rows
                    .iter()
                    .enumerate()
                    .map(|(i, row)| {
                        (
                            i as u64 + 1,
                            parse_record_with(row, opts.by.as_deref(), opts.cluster_by.as_deref()),
                        )
                    })
                    .collect();
                let mut keys = Vec::new();
                for (line, r) in &rows {
                    track(&shown, *line, r);
                    if let Ok(r) = r {
                        keys.push((
                            (r.system.clone(), r.subset.clone(), r.problem.clone()),
                            f.rows[*line as usize - 1]
                                .get("run")
                                .and_then(|v| v.as_str())
                                .map(str::to_string),
                        ));
                    }
                }
                let info = InputInfo {
                    path: shown.clone(),
                    format: f.format.to_string(),
                    sha256: f.sha256.clone().unwrap_or_default(),
                    records: (f.rows.len() + f.bad_lines) as u64,
                };
                collector.add_rows(info, rows).map_err(strict)?;
                for (line, reason) in bad {
                    collector
                        .bad_line(BadLine {
                            path: shown.clone(),
                            line,
                            reason,
                        })
                        .map_err(strict)?;
                }
                let idx = tracked.len();
                tracked.push(Tracked { keys });
                aggregates.extend(f.aggregates.into_iter().map(|a| (a, idx)));
            }
        }
    }
    if !g.failed.is_empty() {
        let msg = format!(
            "{} input file(s) could not be read and were left out (named on stderr): {}",
            g.failed.len(),
            g.failed.join(", ")
        );
        if opts.strict {
            bail!(InputError(format!(
                "{msg} (strict mode rejects unreadable files; drop --strict to read the rest)"
            )));
        }
        notes.push(format!("{msg}; --strict makes this an error"));
    }
    if !g.skipped.is_empty() {
        let names: Vec<String> = g
            .skipped
            .iter()
            .take(5)
            .map(|(p, why)| format!("{} ({why})", p.display()))
            .collect();
        notes.push(format!(
            "{} file(s) in the input directories were passed over: {}{}",
            g.skipped.len(),
            names.join("; "),
            if g.skipped.len() > 5 { "; …" } else { "" }
        ));
    }
    let collected = collector.finish().map_err(|e| usage(e.to_string()))?;
    print_bad_lines(&collected.bad_lines);
    if collected.problems.is_empty() {
        let why = if aggregates.is_empty() {
            "every input was empty or malformed".to_string()
        } else {
            "the inputs hold harness aggregates only, no per-sample rows (pass the per-sample files, e.g. lm-eval samples_*.jsonl)".to_string()
        };
        bail!(InputError(format!("no problems to report: {why}")));
    }
    let scopes = record_scopes(&collected, &first_origin, &tracked, &aggregates);
    Ok(Inputs {
        collected,
        aggregates: aggregates.into_iter().map(|(a, _)| a).collect(),
        notes,
        scopes,
    })
}

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

fn record_scopes(
    collected: &Collected,
    first_origin: &HashMap<Key, String>,
    tracked: &[Tracked],
    aggregates: &[(HarnessAggregate, usize)],
) -> Scopes {
    let mut scopes = Vec::new();
    if aggregates.is_empty() {
        return Scopes(scopes);
    }
    let by_origin: HashMap<&str, usize> = collected
        .problems
        .iter()
        .enumerate()
        .map(|(i, p)| (p.origin.as_str(), i))
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
            t.keys.iter().collect()
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
        let key = (a.source_path.clone(), a.metric_name.clone());
        scopes.retain(|(k, _)| k != &key);
        scopes.push((key, scope));
    }
    Scopes(scopes)
}

fn print_bad_lines(bad: &[BadLine]) {
    for b in bad.iter().take(20) {
        eprintln!("rollstat: {b}");
    }
    if bad.len() > 20 {
        eprintln!("rollstat: … and {} more malformed rows", bad.len() - 20);
    }
}

/// What a harness metric name corresponds to in rollstat.
#[derive(Debug, Clone, PartialEq)]
enum Target {
    Metric(Metric),
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

/// Maps a harness metric name to the rollstat metric it reports.
fn target(name: &str, n: u64, k_hint: Option<u64>) -> Target {
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
    if metric.contains("stderr") || metric == "std" || metric.starts_with("sample") {
        return Target::None;
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
            return Target::Metric(Metric::MajAtN(k));
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
        return Target::Metric(Metric::MajAtN(k_hint.unwrap_or(n)));
    }
    if let Some(k) = metric
        .strip_prefix("maj@")
        .and_then(|r| num(r.split(|c: char| !c.is_ascii_digit()).next().unwrap_or("")))
    {
        return Target::Metric(Metric::MajAtN(k));
    }
    if let Some(k) = metric.strip_prefix("cons@").and_then(num) {
        return Target::Metric(Metric::MajAtN(k));
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
    ];
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

/// Harness aggregates beside rollstat's numbers: each harness number is
/// matched to the rollstat metric it reports and recomputed on exactly the
/// problems it summarises (its file; its filter/scorer when the file holds
/// several). A disagreement is explained where one known cause reproduces
/// the harness's number: percentage scale, first-sample-only scoring
/// (prefix@1), the other denominator policy, another tie policy, or short
/// problems scored 0/1 instead of excluded.
pub fn compare_aggregates(
    aggregates: &[HarnessAggregate],
    scopes: &Scopes,
    report: &Report,
) -> Vec<HarnessComparison> {
    let scopes = Some(&scopes.0);
    let n = report.config.n;
    let tie = report.config.tie_policy;
    let policy = report.config.denominator_policy;
    let mut out = Vec::new();
    for a in aggregates {
        let scope = scopes.as_ref().and_then(|s| {
            s.iter()
                .find(|(k, _)| k.0 == a.source_path && k.1 == a.metric_name)
                .map(|(_, v)| v)
        });
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
        match target(&a.metric_name, n, k_hint) {
            Target::None => {
                cmp.note.push_str("; no rollstat counterpart");
            }
            Target::Health(field) => {
                if scope.is_some_and(|s| s.whole) {
                    let v = match field {
                        "n_short" => report.health.n_short,
                        "n" => report.config.n,
                        _ => report.health.n_unextracted,
                    };
                    cmp.rollstat_metric = Some(field.to_string());
                    cmp.rollstat_value = Some(v as f64);
                    cmp.agrees = Some((v as f64 - a.value).abs() < 0.5);
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
                        .map(|d| summarize(d.clone(), p, &ExactClusterer))
                        .collect()
                };
                let ours_sums = sums(policy);
                // The report's own number when the scope is the whole
                // input (same clustering as printed above); else recomputed.
                let ours = if scope.whole && report.config.by.is_none() {
                    report
                        .block
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
                "a different denominator: with --denominator {} rollstat gives {} — {word}",
                match p {
                    DenominatorPolicy::Judged => "judged",
                    DenominatorPolicy::Requested => "requested",
                },
                fmt_num(v.unwrap_or(0.0) * scale)
            );
        }
    }
    // Ties in the vote.
    if matches!(m, Metric::MajAtN(_)) {
        for t in [TiePolicy::First, TiePolicy::None, TiePolicy::Fractional] {
            let v = scope_value(ours, m, t, None);
            if t != tie && fits(v) {
                return format!(
                    "ties: with --tie-policy {} rollstat gives {}",
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

/// Rows of every input as canonical JSON objects (for `rollstat convert`).
pub fn canonical_rows(source: &Source) -> Vec<(u64, Result<Row, String>)> {
    match source {
        Source::CanonicalFile { path } => match std::fs::read(path) {
            Ok(content) => canonical_rows(&Source::Canonical {
                path: path.clone(),
                sha256: String::new(),
                content,
            }),
            Err(e) => vec![(0, Err(format!("{path}: {e}")))],
        },
        Source::Native(f) => f
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| (i as u64 + 1, Ok(r.clone())))
            .collect(),
        Source::Canonical { path, content, .. } => {
            let text = String::from_utf8_lossy(content);
            if Input::from_bytes(&plain_name(path), content.clone()).format()
                == rollstat_io::InputFormat::Csv
            {
                return vec![(
                    0,
                    Err("canonical CSV is passed over by convert (it is already canonical; `rollstat report` reads it directly)".into()),
                )];
            }
            text.lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(i, l)| {
                    let row = match serde_json::from_str::<serde_json::Value>(l) {
                        Ok(serde_json::Value::Object(m)) => Ok(m),
                        Ok(_) => Err("expected a JSON object per line".to_string()),
                        Err(e) => Err(format!("invalid JSON: {e}")),
                    };
                    (i as u64 + 1, row)
                })
                .collect()
        }
    }
}
