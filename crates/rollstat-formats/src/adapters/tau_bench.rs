//! tau-bench (`EnvRunResult` list) and tau2-bench (`results.json`).
//!
//! tau-bench: a JSON list of `{task_id, reward, info, traj, trial}`, one row
//! per (task × trial). Success is `|reward − 1| ≤ 1e-6`, as in tau-bench's
//! `display_metrics`. An agent exception is stored as reward 0 with
//! `info.error`; we mark it `correct: null` (failed) and keep `error`, so the
//! denominator policy decides (`requested`, the default, counts it wrong, as
//! tau-bench does).
//!
//! tau2-bench: `{info, tasks, simulations: [{task_id, trial, reward_info:
//! {reward}, termination_reason, …}]}`; `infrastructure_error` terminations
//! are failures (tau2 excludes them).
//!
//! tau2-bench's per-simulation ("dir") layout, the default for voice runs:
//! `results.json` holds `{timestamp, info, tasks, simulation_index?}`
//! without `simulations`, and each simulation is `simulations/<id>.json`
//! beside it; they are read in file-name order, as tau2's `Results.load`
//! does.

use std::path::Path;

use serde_json::Value;

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::input;
use crate::util::{as_index, problem_id, read_json, Rollout};
use crate::NativeFile;

// ---- Detection and aggregate names (this format's registry entry) ----

/// `tau-bench`: a list of `{task_id, trial, reward}` rows, a tau2 object
/// with `simulations`, or tau2's per-simulation `results.json`.
pub(crate) fn detect(p: &Probe<'_>) -> Result<(), String> {
    let dir_layout = p.name == "results.json"
        && p.has("info")
        && p.has("tasks")
        && p.has_any(&["timestamp", "simulation_index"]);
    if (p.is_array && p.has("task_id") && p.has_any(&["reward", "trial"]))
        || (p.has("simulations") && p.has_any(&["tasks", "info"]))
        || dir_layout
    {
        Ok(())
    } else {
        Err(
            "neither a JSON list of {task_id, trial, reward} rows nor a tau2 \
             object with \"simulations\""
                .into(),
        )
    }
}

const TOL: f64 = 1e-6;

pub(crate) fn read(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::TauBench);
    let text = input::text(path, bytes, &mut file.warnings);
    let doc = read_json(path, &text)?;
    match doc {
        Value::Array(rows) => read_tau1(path, rows, &mut file)?,
        Value::Object(mut obj) => {
            let sims = match obj.remove("simulations") {
                Some(Value::Array(s)) => s,
                None if sims_dir(path).is_some() => read_sims_dir(path, &mut file),
                _ => {
                    return Err(FormatError::parse(
                        path,
                        None,
                        "object without a \"simulations\" list (and no simulations/ directory beside it)",
                        "pass a tau-bench results list or a tau2-bench results.json",
                    ))
                }
            };
            read_tau2(path, &Value::Object(obj), sims, &mut file)?;
        }
        _ => {
            return Err(FormatError::parse(
                path,
                None,
                "expected a JSON list of runs",
                "pass a tau-bench results list or a tau2-bench results.json",
            ))
        }
    }
    Ok(file)
}

/// The `simulations/` directory beside a tau2 `results.json`.
fn sims_dir(path: &Path) -> Option<std::path::PathBuf> {
    let dir = path.parent()?.join("simulations");
    dir.is_dir().then_some(dir)
}

/// Every `simulations/*.json` beside `path`, in file-name order; a file
/// that cannot be read or parsed is named and counted as a bad line.
fn read_sims_dir(path: &Path, file: &mut NativeFile) -> Vec<Value> {
    let Some(dir) = sims_dir(path) else {
        return Vec::new();
    };
    let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    names.retain(|p| p.extension().is_some_and(|e| e == "json"));
    names.sort();
    let mut sims = Vec::with_capacity(names.len());
    for p in names {
        let parsed = input::load(&p, input::DecompressLimit::default())
            .map_err(|e| e.to_string())
            .and_then(|l| serde_json::from_slice::<Value>(&l.content).map_err(|e| e.to_string()));
        match parsed {
            Ok(v) if v.is_object() => sims.push(v),
            Ok(_) => {
                file.bad_lines += 1;
                file.warnings
                    .push(format!("{}: not a simulation object; skipped", p.display()));
            }
            Err(e) => {
                file.bad_lines += 1;
                file.warnings.push(format!("{}: {e}; skipped", p.display()));
            }
        }
    }
    sims
}

fn verdict(reward: Option<f64>) -> Value {
    match reward {
        Some(r) => Value::Bool((r - 1.0).abs() <= TOL),
        None => Value::Null,
    }
}

fn read_tau1(path: &Path, rows: Vec<Value>, file: &mut NativeFile) -> Result<(), FormatError> {
    for (i, row) in rows.into_iter().enumerate() {
        let Some(obj) = row.as_object() else {
            file.bad_lines += 1;
            file.warnings.push(format!(
                "{}: run #{i} is not an object; skipped",
                path.display()
            ));
            continue;
        };
        let Some(task) = obj.get("task_id").and_then(problem_id) else {
            file.bad_lines += 1;
            file.warnings.push(format!(
                "{}: run #{i} has no task_id; skipped",
                path.display()
            ));
            continue;
        };
        let reward = obj.get("reward").and_then(Value::as_f64);
        let error = obj
            .get("info")
            .and_then(|i| i.get("error"))
            .filter(|e| !e.is_null());
        let mut r = Rollout::new(task);
        r.rollout = obj.get("trial").and_then(as_index);
        r.correct = Some(if error.is_some() {
            Value::Null
        } else {
            verdict(reward)
        });
        r.score = reward.map(Value::from);
        if let Some(t) = obj.get("trial") {
            r.extra("trial", t.clone());
        }
        if let Some(e) = error {
            r.extra("error", e.clone());
        }
        if let Some(c) = obj.get("info").and_then(|i| i.get("user_cost")) {
            r.extra("user_cost", c.clone());
        }
        file.rows.push(r.into_map());
    }
    Ok(())
}

fn read_tau2(
    path: &Path,
    head: &Value,
    sims: Vec<Value>,
    file: &mut NativeFile,
) -> Result<(), FormatError> {
    let info = head.get("info");
    let model = info
        .and_then(|i| i.pointer("/agent_info/llm"))
        .and_then(Value::as_str)
        .map(Value::from);
    let domain = info
        .and_then(|i| i.pointer("/environment_info/domain_name"))
        .and_then(Value::as_str)
        .map(Value::from);
    for (i, sim) in sims.into_iter().enumerate() {
        let Some(task) = sim.get("task_id").and_then(problem_id) else {
            file.bad_lines += 1;
            file.warnings.push(format!(
                "{}: simulation #{i} has no task_id; skipped",
                path.display()
            ));
            continue;
        };
        let reward = sim.pointer("/reward_info/reward").and_then(Value::as_f64);
        let term = sim.get("termination_reason").and_then(Value::as_str);
        let infra = term.is_some_and(|t| t.contains("infrastructure"));
        let mut r = Rollout::new(task);
        r.rollout = sim.get("trial").and_then(as_index);
        r.correct = Some(if infra { Value::Null } else { verdict(reward) });
        r.score = reward.map(Value::from);
        r.subset = domain.clone();
        r.model = model.clone();
        if let Some(t) = sim.get("trial") {
            r.extra("trial", t.clone());
        }
        if let Some(t) = term {
            r.extra("termination_reason", Value::from(t));
        }
        file.rows.push(r.into_map());
    }
    Ok(())
}
