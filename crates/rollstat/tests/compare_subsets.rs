//! Two evalscope run directories whose subsets reuse problem ids compare
//! problem by (subset, id), as `report` keeps subsets apart (#10 item 16:
//! this failed with "problem '1' appears twice").

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{compare, CompareOptions, Source};
use std::path::{Path, PathBuf};

/// A run directory with the fixture's reviews as two subsets (`main`,
/// `socratic`), each with problems 0, 1, 2.
fn run_dir(root: &Path, name: &str) -> PathBuf {
    let reviews = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../rollstat-formats/tests/fixtures/evalscope/reviews/qwen-7b/gsm8k_main.jsonl");
    let dir = root.join(name).join("reviews/qwen-7b");
    std::fs::create_dir_all(&dir).unwrap();
    for subset in ["main", "socratic"] {
        std::fs::copy(&reviews, dir.join(format!("gsm8k_{subset}.jsonl"))).unwrap();
    }
    root.join(name)
}

#[test]
fn evalscope_runs_with_subsets_reusing_ids_compare() {
    let root = tempfile::tempdir().unwrap();
    let a = run_dir(root.path(), "run_a");
    let b = run_dir(root.path(), "run_b");
    let mut o = CompareOptions::default();
    o.intervals.resamples = 200;
    let c = compare(&[Source::Path(a), Source::Path(b)], &o).unwrap();
    let p1 = c
        .rows
        .iter()
        .find(|r| r.metric == "pass@1" && r.group.is_none())
        .unwrap();
    // 3 problems (group ids 0, 1, 2) in each of 2 subsets.
    assert_eq!(p1.n_problems, 6);
    // The same rows on both sides.
    assert_eq!(p1.delta, 0.0);
    assert_eq!(p1.a, p1.b);
}
