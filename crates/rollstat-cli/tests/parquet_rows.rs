//! `rollstat report rollouts.parquet`: a Parquet file of canonical rollout
//! rows reports as the JSON Lines file of the same rows (everything but
//! the `inputs` list). `fixtures/demo-rows.parquet` is
//! `examples/demo.jsonl` written by pyarrow
//! (`pq.write_table(pyarrow.json.read_json("examples/demo.jsonl"), …)`).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn json(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_rollstat"))
        .args(args)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn report_and_compare_read_a_parquet_file_of_rows() {
    let parquet = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/demo-rows.parquet");
    let parquet = parquet.to_str().unwrap();
    let jsonl = root().join("examples/demo.jsonl");
    let jsonl = jsonl.to_str().unwrap();
    let mut from_parquet = json(&["report", parquet, "--format", "json", "--by", "group"]);
    let mut from_jsonl = json(&["report", jsonl, "--format", "json", "--by", "group"]);
    assert_eq!(from_parquet["inputs"][0]["records"], 48);
    for doc in [&mut from_parquet, &mut from_jsonl] {
        doc.as_object_mut().unwrap().remove("inputs");
    }
    assert_eq!(from_parquet, from_jsonl);
    // compare: the same rows on both sides differ by nothing.
    let c = json(&["compare", parquet, jsonl, "--format", "json"]);
    let cj = json(&["compare", jsonl, jsonl, "--format", "json"]);
    assert_eq!(c["rows"], cj["rows"]);
}
