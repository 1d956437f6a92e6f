//! The engine's errors and findings in the Python package's words: options
//! are named by their keyword arguments (`ci=`, `match=`, `strict=True`),
//! never by command-line flags.

use crate::{InputError, MalformedRows};
use pyo3::PyErr;
use rollstat::{DenominatorPolicy as D, Error, Finding};

/// The keyword argument of an engine option field.
pub fn keyword(option: &str) -> &str {
    match option {
        "method" => "ci",
        "matching" => "match",
        "field_map" => "columns",
        "a" => "a_name",
        "b" => "b_name",
        other => other,
    }
}

/// The engine's error as a `rollstat.InputError`, for functions whose
/// format keyword is `source_format` (report, compare, summarize).
pub fn engine_error(e: Error) -> PyErr {
    worded(e, String::new(), "source_format")
}

/// [`engine_error`] for `rank` and `gate`, whose format keyword (and plan
/// key) is `format`.
pub fn engine_error_format_keyword(e: Error) -> PyErr {
    worded(e, String::new(), "format")
}

/// [`engine_error`] with `prefix` before its text (where the error arose);
/// `format_keyword` names the format.
fn worded(e: Error, prefix: String, format_keyword: &str) -> PyErr {
    use rollstat::ReadError;
    let text = match e {
        Error::Side { side, name, error } => {
            let prefix = format!("{prefix}reading {side} ({name}): ");
            return worded(*error, prefix, format_keyword);
        }
        Error::SystemsFieldMissing => {
            "one input: pass by='model' (or by='run') to say which field holds the two systems, or give two inputs a and b".to_string()
        }
        Error::InvalidOption { option, message } => format!("{}: {message}", keyword(option.0)),
        Error::ShortProblem { .. } => format!("{e}; pass strict=False to report them as n_short"),
        Error::IncompleteRun(_) => format!("{e}; pass strict=False to report what is present"),
        Error::ExtractionNeeded { ref extract, .. } => {
            format!("{e} (pass extract='{extract}')")
        }
        Error::Read(ReadError::Strict(bad)) => format!(
            "{bad} (strict mode stops at the first bad row; pass strict=False to skip and count bad rows)"
        ),
        Error::Read(ReadError::Duplicates { first, count }) => format!(
            "{first}; {count} duplicated rollout(s) in all — fix the input or pass dedupe='first' or dedupe='last'"
        ),
        Error::DuplicateAcrossSummaries { problem, rollout, first, again } => format!(
            "{problem} rollout {rollout} appears in two summaries (first at {first}, again at {again}); pass dedupe='first' or dedupe='last' when summarizing, as for duplicated rows"
        ),
        Error::UnreadableFiles { .. } => format!("{e}; pass strict=False to read the rest"),
        Error::Format(f) => {
            let fix = format!("pass the format explicitly ({format_keyword}='NAME')");
            f.worded(&fix) + &columns_hint(&f)
        }
        Error::TooFewSystems { ref found } => format!(
            "ranking needs two or more systems, found {} ({}); give one source per system, or pass by='FIELD' (model, run, …) naming the field that tells them apart",
            found.len(),
            found.join(", ")
        ),
        Error::UnsharedProblems { .. } => format!("{e}; pass strict=False to rank on the shared problems"),
        Error::TooFewBenchmarks { .. } => format!(
            "{e}; suite='subset' needs problems in two or more subsets, suite='inputs' two or more sources"
        ),
        Error::MalformedRowsOnly { total, ref first } => {
            let rows: Vec<(String, String)> = first
                .iter()
                .map(|b| (format!("{}:{}", b.path, b.line), b.reason.clone()))
                .collect();
            let text = format!(
                "{prefix}{e} (strict=True stops at the first; rows need `problem` and `correct`, or `gold` with `response` or `answer`, or `n` and `c`)"
            );
            return MalformedRows::new_err((text, total, rows));
        }
        other => other.to_string(),
    };
    InputError::new_err(prefix + &text)
}

/// The field map suggested for a file no format fits, as the `columns=`
/// dict to pass.
fn columns_hint(e: &rollstat::FormatError) -> String {
    let Some(m) = rollstat::suggested_field_map(e) else {
        return String::new();
    };
    let records = m.records.iter().map(|r| format!("\"records\": \"{r}\""));
    let fields = m.fields.iter().map(|(f, p)| format!("\"{f}\": \"{p}\""));
    let entries: Vec<String> = records.chain(fields).collect();
    format!("; or read it through a field map: columns={{{}}}", entries.join(", "))
}

/// A finding in the package's words: the library's text, with the keyword
/// argument that acts on it where there is one.
pub fn finding_text(f: &Finding) -> String {
    match f {
        Finding::Failed { n, policy: D::Requested } => format!(
            "{n} rollouts have no verdict (failed call or judge); they count as wrong — pass denominator='judged' to drop them"
        ),
        Finding::Failed { n, policy: D::Judged } => format!(
            "{n} rollouts have no verdict (failed call or judge); they were dropped from n (denominator='judged')"
        ),
        Finding::BadRows { n } => format!(
            "{n} malformed rows were skipped (named in a RollstatWarning and in Report.bad_rows); strict=True makes them an error"
        ),
        Finding::DuplicatesDropped { n } => {
            format!("{n} duplicated rollouts were dropped by the dedupe= policy")
        }
        Finding::IntervalMethod { message, suggestion: Some(s) } => {
            format!("{message} (consider ci='{s}')")
        }
        Finding::UnreadableFiles { files } => format!(
            "{} input file(s) could not be read and were left out (named in a RollstatWarning): {}; strict=True makes this an error",
            files.len(),
            files.join(", ")
        ),
        Finding::PooledSystems { .. } => format!("{f} — pass by='model'"),
        Finding::DuplicatesAcrossInputs { .. } => format!("{f} (resolved by dedupe=)"),
        Finding::PooledSubsets { .. } => format!("{f} — pass by='subset'"),
        Finding::Readings { field, .. } => format!("{f} — pass by='{field}' to report each"),
        Finding::IncompleteRun { rollouts, short, .. } => match (rollouts, short) {
            (Some(r), 1..) => format!(
                "{f} (n={r} measures samples against the declared n; strict=True makes this an error)"
            ),
            _ => format!("{f} (strict=True makes this an error)"),
        },
        Finding::FieldAbsent { option, field } => {
            Finding::field_absent_text(field, &format!("{}=", keyword(option)))
        }
        Finding::UnequalRollouts { .. } => format!("{f} (compare at equal n with k=)"),
        Finding::UncheckedMetric { metric } => format!(
            "metric='{metric}': no row could be computed, so fail_on does not check it"
        ),
        other => other.to_string(),
    }
}
