//! Reading inputs: canonical JSONL/CSV/stdin through `rollstat-io`, native
//! harness files and directories through `rollstat-formats`.

use crate::pipeline::InputError;
use anyhow::{bail, Result};
use rollstat_core::report::{HarnessComparison, Report};
use rollstat_io::{BadLine, Collected, Collector, Input, ReadError, ReadOptions};

/// Everything read, plus what the native adapters had to say.
pub struct Inputs {
    pub collected: Collected,
    /// Aggregates the harnesses stored themselves.
    pub aggregates: Vec<rollstat_formats::HarnessAggregate>,
    /// Notes for the health warnings (adapter assumptions, skipped files).
    pub notes: Vec<String>,
}

fn usage(msg: String) -> anyhow::Error {
    InputError(msg).into()
}

/// Reads every input; bad rows are printed to stderr (first 20, then a count).
pub fn read_inputs(
    paths: &[String],
    opts: &ReadOptions,
    _from: Option<&str>,
    grader: &dyn rollstat_io::Grader,
) -> Result<Inputs> {
    let mut collector = Collector::with_grader(opts.clone(), grader);
    for path in paths {
        let input = Input::open(path).map_err(|e| usage(e.to_string()))?;
        match collector.add(input) {
            Ok(()) => {}
            Err(e @ ReadError::Empty { .. }) if !opts.strict => eprintln!("rollstat: warning: {e}"),
            Err(e) => return Err(usage(e.to_string())),
        }
    }
    let collected = collector.finish().map_err(|e| usage(e.to_string()))?;
    print_bad_lines(&collected.bad_lines);
    if collected.problems.is_empty() {
        bail!(InputError(
            "no problems to report: every input was empty or malformed".into()
        ));
    }
    Ok(Inputs {
        collected,
        aggregates: Vec::new(),
        notes: Vec::new(),
    })
}

fn print_bad_lines(bad: &[BadLine]) {
    for b in bad.iter().take(20) {
        eprintln!("rollstat: {b}");
    }
    if bad.len() > 20 {
        eprintln!("rollstat: … and {} more malformed rows", bad.len() - 20);
    }
}

/// Harness aggregates beside rollstat's numbers.
pub fn compare_aggregates(
    _aggregates: &[rollstat_formats::HarnessAggregate],
    _report: &Report,
) -> Vec<HarnessComparison> {
    Vec::new()
}
