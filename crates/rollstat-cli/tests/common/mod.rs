//! Helpers shared by every CLI test file: the binary, the repository root,
//! running the binary (in a folder, with environment variables, with stdin)
//! and reading what it printed, and writing temporary input files. Each test
//! file includes this module (`mod common;`) and uses what it needs.

// Each test binary uses only some of the helpers.
#![allow(dead_code)]

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file of this crate's `tests/fixtures/` (`rel` below it).
pub fn fixture(rel: &str) -> String {
    format!("{}/tests/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// The `rollstat` binary, to be run from the repository root.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rollstat"));
    c.current_dir(root());
    c
}

/// Runs `rollstat ARGS` from the repository root.
pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("runs")
}

/// Runs `rollstat ARGS` from `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    bin().args(args).current_dir(dir).output().expect("runs")
}

/// Runs `rollstat ARGS` from the repository root with environment `env` set.
pub fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = bin();
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("runs")
}

/// Starts `rollstat ARGS` in `dir` with stdin, stdout and stderr piped.
pub fn spawn_in(dir: &Path, args: &[&str]) -> Child {
    bin()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts")
}

/// Runs `rollstat ARGS` from the repository root with `input` on stdin. A
/// usage error may exit before reading stdin, so a broken pipe is not an
/// error here (the caller checks the exit code and output).
pub fn run_stdin(args: &[&str], input: impl AsRef<[u8]>) -> Output {
    let mut child = spawn_in(&root(), args);
    if let Err(e) = child.stdin.take().unwrap().write_all(input.as_ref()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

/// stdout of a successful run with `RAYON_NUM_THREADS=threads`.
pub fn run_with(args: &[&str], threads: &str) -> String {
    ok(&run_env(args, &[("RAYON_NUM_THREADS", threads)]))
}

/// stdout, lossily decoded.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// stderr, lossily decoded.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `o`, after asserting that the run succeeded (exit 0).
#[track_caller]
pub fn success(o: Output) -> Output {
    assert!(
        o.status.success(),
        "exit {:?}\nstderr: {}",
        o.status.code(),
        stderr(&o)
    );
    o
}

/// stdout (UTF-8) of a run that must have succeeded.
#[track_caller]
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstderr: {}",
        o.status.code(),
        stderr(o)
    );
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

/// The JSON document on stdout of a run that must have succeeded.
#[track_caller]
pub fn json(o: &Output) -> Value {
    serde_json::from_str(&ok(o)).expect("valid JSON")
}

/// A report's `metrics.NAME.value`.
#[track_caller]
pub fn metric(r: &Value, name: &str) -> f64 {
    r["metrics"][name]["value"]
        .as_f64()
        .unwrap_or_else(|| panic!("no {name} in {}", r["metrics"]))
}

/// A JSON number.
#[track_caller]
pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Asserts `|a − b| ≤ tol`.
#[track_caller]
pub fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} vs {b}");
}

/// Writes `body` to `dir/name`; returns the path.
pub fn write(dir: impl AsRef<Path>, name: &str, body: impl AsRef<[u8]>) -> String {
    let p = dir.as_ref().join(name);
    std::fs::write(&p, body).unwrap();
    p.to_string_lossy().into_owned()
}

/// A file of `../shared/data/` (beside the checkout), for the ignored
/// whole-file tests: they fail, never skip, when it is absent.
#[track_caller]
pub fn shared_data(rel: &str) -> PathBuf {
    let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data")).join(rel);
    assert!(
        p.exists(),
        "{} not found: this test needs ../shared/data beside the checkout",
        p.display()
    );
    p
}
