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
        Value::Array(rows) => read_tau1(path, rows, &mut file),
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

/// tau-bench's (v1) domains: its `run.py` accepts these two.
const DOMAINS: [&str; 2] = ["airline", "retail"];

/// tau-bench's (v1) agent strategies, the first part of its result names.
const STRATEGIES: [&str; 4] = ["tool-calling", "act", "react", "few-shot"];

/// The system (agent model) and domain a tau-bench (v1) result file's name
/// gives. Its rows carry neither, so the name is the only record of them.
/// `run.py` names a file `<strategy>-<model>-<temperature>_range_…json`,
/// directories of runs `<strategy>-<domain>-<model>-…json`, and the
/// published trajectories are `<model>-<domain>.json`: the domain is the
/// `airline`/`retail` part, the model what remains before the temperature
/// (`tool-calling-retail-gpt-4o-mini-0.0_range_0-115_….json` is
/// `gpt-4o-mini` on `retail`). A name of none of these shapes gives no
/// model.
pub(crate) fn name_labels(name: &str) -> (Option<String>, Option<String>) {
    let stem = name.strip_suffix(".json").unwrap_or(name);
    let head = stem.split("_range_").next().unwrap_or(stem);
    let domain = stem
        .split(['-', '_'])
        .find(|p| DOMAINS.contains(p))
        .map(str::to_string);
    let strategy = STRATEGIES
        .iter()
        .find_map(|s| head.strip_prefix(s).and_then(|r| r.strip_prefix('-')));
    let model = match (strategy, domain.as_deref()) {
        (Some(rest), d) => {
            let rest = d
                .and_then(|d| rest.strip_prefix(d)?.strip_prefix('-'))
                .unwrap_or(rest);
            // The temperature run.py appends after the model (`-0.0`).
            match rest.rsplit_once('-') {
                Some((m, t)) if t.parse::<f64>().is_ok() => m,
                _ => rest,
            }
        }
        // `<model>-<domain>.json`, as the published trajectories.
        (None, Some(d)) => head
            .strip_suffix(d)
            .and_then(|m| m.strip_suffix('-'))
            .unwrap_or(""),
        (None, None) => "",
    };
    ((!model.is_empty()).then(|| model.to_string()), domain)
}

fn read_tau1(path: &Path, rows: Vec<Value>, file: &mut NativeFile) {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let (model, domain) = name_labels(name.as_deref().unwrap_or(""));
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
        r.model = model.clone().map(Value::from);
        r.subset = domain.clone().map(Value::from);
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

#[cfg(test)]
mod tests {
    use super::name_labels;

    /// The model and domain of the names run.py and the published
    /// trajectories use, each written out by hand.
    #[test]
    fn file_names_give_model_and_domain() {
        let cases = [
            (
                "tool-calling-retail-gpt-4o-mini-0.0_range_0-115_user-gpt-4o-llm_0101.json",
                Some("gpt-4o-mini"),
                Some("retail"),
            ),
            (
                "tool-calling-airline-gpt-4o-1.0.json",
                Some("gpt-4o"),
                Some("airline"),
            ),
            ("gpt-4o-airline.json", Some("gpt-4o"), Some("airline")),
            (
                "sonnet-35-new-retail.json",
                Some("sonnet-35-new"),
                Some("retail"),
            ),
            (
                "react-claude-3-5-sonnet-0.0_range_0-50_user-gpt-4o-llm_1231.json",
                Some("claude-3-5-sonnet"),
                None,
            ),
            ("retail_results.json", None, Some("retail")),
            ("results.json", None, None),
        ];
        for (name, model, domain) in cases {
            let (m, d) = name_labels(name);
            assert_eq!((m.as_deref(), d.as_deref()), (model, domain), "{name}");
        }
    }
}
