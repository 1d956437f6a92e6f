//! gate: a plan (a TOML file's text, or a dict as JSON) and in-memory data
//! → the engine's `gate()` → the `rollstat.gate/1` document as JSON text
//! (findings worded with the keyword arguments). The engine runs with the
//! GIL released.
//!
//! The Python layer replaces each DataFrame / Arrow table / list of rows
//! in a dict plan by a placeholder name (`<DataFrame: 120 rows>`) and
//! passes the data under that name; every other source string is a path
//! or glob, expanded against the plan's directory as the CLI expands it.

use crate::engine::{sources as named_sources, MessageLog};
use crate::pages::TypedGate;
use crate::wording::{engine_error_format_keyword as engine_error, finding_text};
use crate::InputError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rollstat::gate::{
    expand, gate as run_gate, plan_record, BenchmarkSources, GateOptions, GatePlan, Paths,
    PlanRecord, SuiteSources,
};
use rollstat::{Error, Finding, Format, GradingPolicy, Source};
use std::collections::HashMap;
use std::path::Path;

/// The plan and its record: `kind` `"toml"` (a plan file's text, `name`
/// its path) or `"json"` (a dict or the keyword arguments: recorded as the
/// plan's canonical TOML).
fn read_plan(kind: &str, text: &str, name: &str) -> PyResult<(GatePlan, PlanRecord)> {
    if kind == "toml" {
        let plan = GatePlan::from_toml(text, name).map_err(engine_error)?;
        return Ok((plan, plan_record(name, text)));
    }
    let plan = GatePlan::from_json(text).map_err(|e| match e {
        Error::Input(m) => InputError::new_err(worded(&m, text)),
        other => engine_error(other),
    })?;
    let record = plan_record(name, &plan.to_toml());
    Ok((plan, record))
}

/// A JSON plan's reading error in the dict's terms: serde_json's position
/// (in a text the caller never saw) dropped, and a bad value (`unknown
/// variant `loose``, `invalid type: string "x"`) named by its key.
fn worded(m: &str, text: &str) -> String {
    let m = m.rfind(" at line ").map_or(m, |i| &m[..i]);
    let value = ["unknown variant `", "invalid type: string \""]
        .iter()
        .find_map(|p| m.split_once(p))
        .and_then(|(_, rest)| rest.split(['`', '"']).next());
    let plan: Option<serde_json::Value> = serde_json::from_str(text).ok();
    match value.zip(plan).and_then(|(v, p)| key_of(&p, v)) {
        Some(key) => format!("{key}: {}", m.trim_start_matches("gate plan: ")),
        None => m.to_string(),
    }
}

/// Where `value` is a string in the plan: `rule`, `benchmark[1].tier`.
fn key_of(plan: &serde_json::Value, value: &str) -> Option<String> {
    let top = plan.as_object()?;
    let at = |o: &serde_json::Map<String, serde_json::Value>| {
        o.iter()
            .find(|(_, v)| v.as_str() == Some(value))
            .map(|(k, _)| k.clone())
    };
    at(top).or_else(|| {
        let list = top.get("benchmark")?.as_array()?;
        list.iter()
            .enumerate()
            .find_map(|(i, b)| at(b.as_object()?).map(|k| format!("benchmark[{i}].{k}")))
    })
}

/// One side's sources: in-memory data by its placeholder name, else a
/// path or glob against `base` (as `rollstat::gate::sources_from_paths`).
fn side(
    paths: &Paths,
    base: &Path,
    data: &mut HashMap<String, Vec<Source>>,
) -> rollstat::Result<Vec<Source>> {
    let mut out = Vec::new();
    for entry in &paths.0 {
        if let Some(srcs) = data.remove(entry) {
            out.extend(srcs);
            continue;
        }
        for path in expand(base, entry)? {
            if !path.exists() {
                return Err(Error::input(format!(
                    "{}: no such file or directory",
                    path.display()
                )));
            }
            out.push(Source::Path(path));
        }
    }
    Ok(out)
}

/// The suite's sources: the plan's paths and the in-memory data.
fn suite_sources(
    plan: &GatePlan,
    base: &Path,
    mut data: HashMap<String, Vec<Source>>,
) -> rollstat::Result<SuiteSources> {
    if let (Some(a), Some(b)) = (&plan.baseline, &plan.candidate) {
        return Ok(SuiteSources::Discovered {
            baseline: side(a, base, &mut data)?,
            candidate: side(b, base, &mut data)?,
        });
    }
    let mut out = Vec::new();
    for b in &plan.benchmarks {
        let named = |e: Error| Error::input(format!("benchmark '{}': {e}", b.name));
        out.push(BenchmarkSources {
            name: b.name.clone(),
            baseline: side(&b.baseline, base, &mut data).map_err(named)?,
            candidate: side(&b.candidate, base, &mut data).map_err(named)?,
        });
    }
    Ok(SuiteSources::Declared(out))
}

/// `gate(plan, data) -> (gate_json, messages, typed)`: `plan` is
/// `(kind, text, name, base)` (see [`read_plan`]; `base`: the directory
/// relative paths start from); `data`: placeholder name → in-memory
/// sources. Grading (`extract`, `match`) is in the plan.
#[pyfunction]
pub fn gate(
    py: Python<'_>,
    plan: (String, String, String, String),
    data: &Bound<'_, PyDict>,
) -> PyResult<(String, Vec<String>, TypedGate)> {
    let (kind, text, name, base) = plan;
    let (plan, record) = read_plan(&kind, &text, &name)?;
    let read: Vec<String> = plan.cluster_by.iter().cloned().collect();
    let mut memory = HashMap::new();
    for (k, v) in data.iter() {
        memory.insert(k.extract::<String>()?, named_sources(&v, &read)?);
    }
    let native = |f: &String| f.parse::<Format>().is_ok_and(|f| !f.is_canonical());
    if !memory.is_empty() && plan.format.as_ref().is_some_and(native) {
        return Err(InputError::new_err(
            "format: in-memory rows are canonical rows; format names the format of files only",
        ));
    }
    let sources = suite_sources(&plan, Path::new(&base), memory).map_err(engine_error)?;
    let log = MessageLog::default();
    let opts = GateOptions {
        grading: GradingPolicy::default(),
        messages: Some(log.sink()),
    };
    let g = py
        .detach(|| run_gate(&plan, record, sources, &opts))
        .map_err(engine_error)?;
    let json = Finding::serialize_worded(finding_text, || g.to_json());
    Ok((json + "\n", log.take(), TypedGate(g)))
}
