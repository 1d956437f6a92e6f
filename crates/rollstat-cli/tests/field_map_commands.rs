//! `--map` on every command that reads rollouts (compare, gate, rank,
//! summarize, convert — report's is in native.rs): a layout no format
//! knows, read through the map, gives the numbers of the same rows written
//! as canonical JSON Lines, and its inputs record the map.
//!
//! The systems are written from declared per-problem correct counts, so
//! the values checked are those counts' means (exact rationals), and the
//! canonical twin files are written from the same counts, not by rollstat.

mod common;
use common::{json, run, run_in, stderr, success};
use serde_json::Value;
use std::path::Path;

/// Correct counts of 12 problems × 4 rollouts per system.
const SYSTEMS: [(&str, [u32; 12]); 3] = [
    ("a", [4, 3, 2, 1, 0, 4, 2, 3, 1, 4, 0, 2]),
    ("b", [3, 3, 1, 1, 0, 4, 1, 2, 1, 4, 0, 1]),
    ("c", [4, 4, 3, 2, 1, 4, 3, 3, 2, 4, 1, 3]),
];
const MAP: &str = "problem=task_id,correct=is_correct,answer=prediction,gold=target";

/// `dir/m/NAME.jsonl` (the unknown layout) and `dir/c/NAME.jsonl` (the
/// same rows as canonical rows) for every system.
fn write_systems(dir: &Path) {
    for sub in ["m", "c"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    for (name, counts) in SYSTEMS {
        let (mut mystery, mut canonical) = (String::new(), String::new());
        for (p, &c) in counts.iter().enumerate() {
            for r in 0..4 {
                let (ok, answer) = (r < c, if r < c { "42" } else { "7" });
                mystery += &format!(
                    "{{\"task_id\": \"t{p}\", \"prediction\": \"{answer}\", \"target\": \"42\", \"is_correct\": {ok}}}\n"
                );
                canonical += &format!(
                    "{{\"problem\": \"t{p}\", \"answer\": \"{answer}\", \"gold\": \"42\", \"correct\": {ok}}}\n"
                );
            }
        }
        std::fs::write(dir.join(format!("m/{name}.jsonl")), mystery).unwrap();
        std::fs::write(dir.join(format!("c/{name}.jsonl")), canonical).unwrap();
    }
}

/// pass@1 of a system: its mean correct count over 4.
fn pass1(name: &str) -> f64 {
    let counts = SYSTEMS.iter().find(|(n, _)| *n == name).unwrap().1;
    counts.iter().sum::<u32>() as f64 / 48.0
}

/// The document without what names the files it was read from (paths,
/// formats, digests, the plan's text): what must agree between the twins.
fn numbers(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for key in ["inputs", "plan", "origin", "path", "inputs_a", "inputs_b"] {
                    m.remove(key);
                }
                if let Some(Value::String(name)) = m.get_mut("name") {
                    *name = name.replace("m/", "c/");
                }
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

fn json_in(dir: &Path, args: &[&str]) -> Value {
    let o = run_in(dir, args);
    assert!(matches!(o.status.code(), Some(0 | 1 | 3)), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Every `inputs` entry read through the map records it.
fn assert_inputs_record_the_map(v: &Value) {
    let mut seen = 0;
    fn walk(v: &Value, seen: &mut usize) {
        match v {
            Value::Object(m) => {
                if let (Some(f), Some(_)) = (m.get("format"), m.get("sha256")) {
                    assert_eq!(f, "field-map", "{v}");
                    assert_eq!(m["field_map"], MAP, "{v}");
                    *seen += 1;
                }
                m.values().for_each(|x| walk(x, seen));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, seen)),
            _ => {}
        }
    }
    walk(v, &mut seen);
    assert!(seen >= 2, "no input entry found in {v}");
}

#[test]
fn compare_reads_both_sides_through_the_map() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_systems(d);
    let mapped = json_in(
        d,
        &[
            "compare",
            "m/a.jsonl",
            "m/b.jsonl",
            "--map",
            MAP,
            "--format",
            "json",
        ],
    );
    let canonical = json_in(
        d,
        &["compare", "c/a.jsonl", "c/b.jsonl", "--format", "json"],
    );
    let row = mapped["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "pass@1" && r["group"].is_null())
        .unwrap();
    assert_eq!(row["a"].as_f64().unwrap(), pass1("a"));
    assert_eq!(row["b"].as_f64().unwrap(), pass1("b"));
    assert_eq!(numbers(mapped.clone()), numbers(canonical));
    assert_inputs_record_the_map(&mapped);
}

#[test]
fn compare_without_a_map_suggests_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_systems(d);
    let o = run_in(d, &["compare", "m/a.jsonl", "c/b.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    // The side is named and the error is worded as report words it: the
    // flag that names a format, and the map built from the first record.
    assert!(
        e.contains("reading A (m/a.jsonl): m/a.jsonl: unrecognised input format"),
        "{e}"
    );
    assert!(e.contains("(--from NAME)"), "{e}");
    assert!(e.contains(&format!("--map {MAP}")), "{e}");
}

#[test]
fn rank_reads_every_system_through_the_map() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_systems(d);
    let args = |s: &str| {
        ["a", "b", "c"]
            .iter()
            .map(|n| format!("{s}/{n}.jsonl"))
            .collect::<Vec<_>>()
    };
    let m = args("m");
    let c = args("c");
    let mut margs: Vec<&str> = vec!["rank"];
    margs.extend(m.iter().map(String::as_str));
    margs.extend(["--map", MAP, "--format", "json"]);
    let mut cargs: Vec<&str> = vec!["rank"];
    cargs.extend(c.iter().map(String::as_str));
    cargs.extend(["--format", "json"]);
    let mapped = json_in(d, &margs);
    let canonical = json_in(d, &cargs);
    for s in mapped["systems"].as_array().unwrap() {
        let name = s["name"].as_str().unwrap();
        assert_eq!(s["value"].as_f64().unwrap(), pass1(name), "{name}");
    }
    assert_eq!(numbers(mapped.clone()), numbers(canonical));
    assert_inputs_record_the_map(&mapped);
}

#[test]
fn gate_reads_through_the_flag_and_the_plan_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_systems(d);
    let short = |side: &str, map: bool| {
        let (a, b) = (format!("{side}/a.jsonl"), format!("{side}/b.jsonl"));
        let mut args = vec![
            "gate",
            "--baseline",
            &a,
            "--candidate",
            &b,
            "--margin",
            "0.05",
        ];
        if map {
            args.extend(["--map", MAP]);
        }
        args.extend([
            "--resamples",
            "2000",
            "--permutations",
            "2000",
            "--format",
            "json",
        ]);
        json_in(d, &args)
    };
    let mapped = short("m", true);
    let canonical = short("c", false);
    assert_eq!(mapped["benchmarks"][0]["a"].as_f64().unwrap(), pass1("a"));
    assert_eq!(mapped["benchmarks"][0]["b"].as_f64().unwrap(), pass1("b"));
    assert_eq!(numbers(mapped.clone()), numbers(canonical));
    assert_inputs_record_the_map(&mapped);
    // The same map as the plan's `map` key gives the same decision.
    std::fs::write(
        d.join("plan.toml"),
        format!(
            "margin = 0.05\nresamples = 2000\npermutations = 2000\nmap = \"{MAP}\"\n\
             [[benchmark]]\nname = \"a\"\nbaseline = \"m/a.jsonl\"\ncandidate = \"m/b.jsonl\"\n"
        ),
    )
    .unwrap();
    let planned = json_in(d, &["gate", "plan.toml", "--format", "json"]);
    assert_eq!(planned["verdict"], mapped["verdict"]);
    assert_eq!(
        planned["benchmarks"][0]["delta"],
        mapped["benchmarks"][0]["delta"]
    );
}

#[test]
fn gate_names_the_key_or_the_flag_of_a_bad_or_missing_map() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_systems(d);
    std::fs::write(
        d.join("plan.toml"),
        format!("margin = 0.05\nmap = \"{MAP}\"\n"),
    )
    .unwrap();
    // A plan with a map the parser refuses names the key.
    std::fs::write(
        d.join("bad.toml"),
        "margin = 0.05\nmap = \"problem\"\nbaseline = \"m/a.jsonl\"\ncandidate = \"m/b.jsonl\"\n",
    )
    .unwrap();
    let o = run_in(d, &["gate", "bad.toml"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("bad.toml:2: map: field map entry \"problem\": not FIELD=PATH"),
        "{e}"
    );
    // In the short form, the flag.
    let o = run_in(
        d,
        &[
            "gate",
            "--baseline",
            "m/a.jsonl",
            "--candidate",
            "m/b.jsonl",
            "--margin",
            "0.05",
            "--map",
            "x",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--map: field map entry \"x\""),
        "{}",
        stderr(&o)
    );
    // A plan without the map: the advice is the plan's keys, not flags
    // (the flags are refused beside a plan).
    std::fs::write(
        d.join("nomap.toml"),
        "margin = 0.05\nbaseline = \"m/a.jsonl\"\ncandidate = \"m/b.jsonl\"\n",
    )
    .unwrap();
    let o = run_in(d, &["gate", "nomap.toml"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("reading A (baseline): m/a.jsonl: unrecognised input format"),
        "{e}"
    );
    assert!(e.contains("(format = \"NAME\")"), "{e}");
    assert!(e.contains(&format!("map = \"{MAP}\" in the plan")), "{e}");
    assert!(!e.contains("--"), "{e}");
    // The flag beside a plan is refused, as every setting flag is.
    let o = run_in(d, &["gate", "plan.toml", "--map", MAP]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--map"), "{}", stderr(&o));
}

#[test]
fn summarize_and_convert_read_through_the_map() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_systems(d);
    let p = |rel: &str| d.join(rel).to_str().unwrap().to_string();
    success(run(&[
        "summarize",
        &p("m/a.jsonl"),
        "--map",
        MAP,
        "-o",
        &p("s.jsonl"),
    ]));
    let header: Value = serde_json::from_str(
        std::fs::read_to_string(p("s.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["inputs"][0]["field_map"], MAP);
    let r = json(&success(run(&[
        "report",
        &p("s.jsonl"),
        "--format",
        "json",
        "--ci",
        "none",
    ])));
    assert_eq!(
        r["metrics"]["pass@1"]["value"].as_f64().unwrap(),
        pass1("a")
    );
    // convert writes the canonical rows the map reads: the twin's rows.
    let o = success(run(&["convert", &p("m/c.jsonl"), "--map", MAP]));
    let rows: Vec<Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let twin: Vec<Value> = std::fs::read_to_string(p("c/c.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows, twin);
}
