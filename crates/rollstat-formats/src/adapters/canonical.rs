//! rollstat's own rows: only *detected* here. The caller reads them with
//! `rollstat-io`'s canonical reader (docs/spec.md §2), so these formats
//! have no adapter (`read: None` in the registry).

use crate::detect::{skip_ws, Probe};

/// `canonical-jsonl`: a record with `problem` plus a verdict (`correct`,
/// `n`+`c`, or `gold` with an answer or response).
pub(crate) fn detect_jsonl(p: &Probe<'_>) -> Result<(), String> {
    let verdict = p.has("correct")
        || (p.has("n") && p.has("c"))
        || (p.has("gold") && p.has_any(&["answer", "answers", "response", "responses"]));
    if p.has("problem") && verdict {
        Ok(())
    } else {
        Err(p.missing("\"problem\" plus a verdict", &["correct", "n+c", "gold"]))
    }
}

/// `canonical-csv`: the first line is a CSV header with a `problem` column.
pub(crate) fn detect_csv(p: &Probe<'_>) -> Result<(), String> {
    let text = &p.bytes[skip_ws(p.bytes)..];
    let line = text.split(|b| *b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let has_problem = line
        .split(',')
        .any(|c| c.trim().trim_matches('"').eq_ignore_ascii_case("problem"));
    if !line.starts_with('{') && !line.starts_with('[') && has_problem {
        Ok(())
    } else {
        Err("the first line is not a CSV header with a \"problem\" column (canonical CSV: problem plus correct, or n and c)".into())
    }
}
