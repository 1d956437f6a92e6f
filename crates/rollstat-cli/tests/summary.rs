//! `rollstat summarize` → `merge` → `report` / `compare` gives the document
//! `report` / `compare` give on the raw rows (docs/summary.md): rows are
//! shuffled, cut into three shards that split problems, summarized shard by
//! shard and merged; the JSON must equal, byte for byte, the JSON of the
//! shards' rows concatenated into one file — except the `inputs` list (it
//! names the files read: three shards vs one file). The expected document
//! is produced independently, by the raw reader on the concatenated file.

mod common;
use common::{root, run_in, spawn_in};
use std::path::Path;

fn ok(args: &[&str], dir: &Path) -> String {
    let out = run_in(dir, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// A small deterministic generator (splitmix64).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i as u64 + 1) as usize);
        }
    }
}

/// Shuffles the lines, cuts them into three shards (line i to shard i mod
/// 3, so a problem's rows land in several shards), writes the shards and
/// their concatenation; returns the shard names.
fn cut(lines: &[String], dir: &Path, seed: u64) -> [String; 3] {
    let mut lines = lines.to_vec();
    Mix(seed).shuffle(&mut lines);
    let names = ["s0.jsonl", "s1.jsonl", "s2.jsonl"].map(String::from);
    let mut all = String::new();
    for (s, name) in names.iter().enumerate() {
        let part: String = lines
            .iter()
            .skip(s)
            .step_by(3)
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(dir.join(name), &part).unwrap();
        all.push_str(&part);
    }
    std::fs::write(dir.join("all.jsonl"), all).unwrap();
    names
}

/// Summarizes each shard (with `flags`) and merges them into `merged.jsonl`.
fn summarize_and_merge(shards: &[String; 3], flags: &[&str], dir: &Path) {
    summarize_and_merge_as(shards, flags, dir, ["jsonl"; 3], "merged.jsonl");
}

/// Summarizes shard i (with `flags`) into `p{i}.{exts[i]}` — Parquet or
/// JSON Lines, by the extension — and merges the parts into `merged`.
fn summarize_and_merge_as(
    shards: &[String; 3],
    flags: &[&str],
    dir: &Path,
    exts: [&str; 3],
    merged: &str,
) {
    let mut parts = Vec::new();
    for (i, s) in shards.iter().enumerate() {
        let part = format!("p{i}.{}", exts[i]);
        let mut args = vec!["summarize", s.as_str(), "-o", part.as_str()];
        args.extend(flags);
        ok(&args, dir);
        parts.push(part);
    }
    let mut args = vec!["merge"];
    args.extend(parts.iter().map(String::as_str));
    args.extend(["-o", merged]);
    ok(&args, dir);
}

/// The document without its `inputs` lists at `indent` (the lines from
/// `"inputs": [` to the next `],`), which name the files read.
fn without_inputs_at(json: &str, indent: &str) -> String {
    let (open, close) = (format!("{indent}\"inputs\": ["), format!("{indent}],"));
    let mut out = String::new();
    let mut skipping = false;
    for line in json.lines() {
        if line == open {
            skipping = true;
        } else if skipping && line == close {
            skipping = false;
        } else if !skipping {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn without_inputs(json: &str) -> String {
    without_inputs_at(json, "  ")
}

/// The lines that differ, for a readable failure.
fn first_difference(a: &str, b: &str) -> Option<(usize, String, String)> {
    a.lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| (i + 1, x.to_string(), y.to_string()))
}

fn assert_report_equal(dir: &Path, flags: &[&str]) {
    assert_report_equal_on(dir, "merged.jsonl", flags);
}

/// `report` on the summary `merged` gives the document of `all.jsonl`.
fn assert_report_equal_on(dir: &Path, merged: &str, flags: &[&str]) {
    let mut raw = vec!["report", "all.jsonl", "--format", "json"];
    raw.extend(flags);
    let mut merged = vec!["report", merged, "--format", "json"];
    merged.extend(flags);
    let (a, b) = (ok(&raw, dir), ok(&merged, dir));
    assert!(a.contains("\"n_problems\""), "a report: {a}");
    let (a2, b2) = (without_inputs(&a), without_inputs(&b));
    assert!(
        a2 == b2,
        "flags {flags:?}: {:?}",
        first_difference(&a2, &b2)
    );
    assert_ne!(a, b, "the inputs lists name different files");
}

#[test]
fn every_bundled_example_cut_into_three_shards_reports_as_the_whole() {
    for example in ["demo", "demo-b", "budget_long", "budget_short"] {
        let dir = tempfile::tempdir().unwrap();
        let text =
            std::fs::read_to_string(root().join(format!("examples/{example}.jsonl"))).unwrap();
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let shards = cut(&lines, dir.path(), 7);
        summarize_and_merge(&shards, &[], dir.path());
        assert_report_equal(dir.path(), &[]);
        assert_report_equal(
            dir.path(),
            &["--per-problem", "--ci", "bca", "--resamples", "500"],
        );
    }
}

/// Generated rows with every per-rollout field a metric reads: two
/// subsets, failed verdicts, unextracted and junk answers, answers equal
/// only up to math equivalence, truncation, scores, budgets with gaps, a
/// count-row problem, a malformed row and duplicated rollouts.
fn generated(system: &str, seed: u64) -> Vec<String> {
    let mut g = Mix(seed);
    let mut lines = Vec::new();
    for p in 0..40 {
        let subset = if p % 2 == 0 { "alpha" } else { "beta" };
        let n = 4 + g.below(13);
        for r in 0..n {
            let correct = match g.below(10) {
                0 => "null".to_string(),
                x => (x < 5).to_string(),
            };
            let answer = match g.below(8) {
                0 => "null".to_string(),
                1 => "\"[invalid]\"".to_string(),
                2 => "\"1/2\"".to_string(),
                3 => "\"0.5\"".to_string(),
                x => format!("\"{}\"", x % 3),
            };
            let finish = if g.below(9) == 0 { "length" } else { "stop" };
            let tokens = match g.below(12) {
                0 => "null".to_string(),
                x => (100 * x + g.below(50)).to_string(),
            };
            let score = g.below(1000) as f64 / 7.0;
            lines.push(format!(
                "{{\"problem\": \"q{p}\", \"subset\": \"{subset}\", \"model\": \"{system}\", \"rollout\": {r}, \"correct\": {correct}, \"answer\": {answer}, \"finish_reason\": \"{finish}\", \"output_tokens\": {tokens}, \"score\": {score}, \"group\": \"g{}\"}}",
                p % 5
            ));
        }
    }
    lines.push(format!(
        "{{\"problem\": \"counted\", \"model\": \"{system}\", \"n\": 8, \"c\": 3, \"group\": \"g0\"}}"
    ));
    lines
}

#[test]
fn generated_shards_that_split_problems_report_as_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let lines = generated("m", 11);
    let shards = cut(&lines, dir.path(), 3);
    summarize_and_merge(
        &shards,
        &["--by", "group", "--cluster-by", "group"],
        dir.path(),
    );
    let flags = ["--by", "group", "--cluster-by", "group", "--per-problem"];
    assert_report_equal(dir.path(), &flags);
    assert_report_equal(
        dir.path(),
        &[
            "--by",
            "group",
            "--cluster-by",
            "group",
            "--denominator",
            "judged",
            "--tie-policy",
            "fractional",
        ],
    );
}

#[test]
fn duplicates_and_bad_rows_across_shards_count_as_in_the_whole() {
    for keep in ["first", "last"] {
        let dir = tempfile::tempdir().unwrap();
        let mut lines = generated("m", 5);
        // Every tenth row again, with the opposite verdict and another
        // score: which copy is kept changes the numbers.
        let again: Vec<String> = lines
            .iter()
            .step_by(10)
            .filter(|l| l.contains("\"rollout\""))
            .map(|l| {
                l.replace("\"correct\": true", "\"correct\": false")
                    .replace("\"score\": ", "\"score\": 1")
            })
            .collect();
        lines.extend(again);
        lines.push("{\"problem\": \"broken\", \"correct\": maybe}".to_string());
        let shards = cut(&lines, dir.path(), 9);
        summarize_and_merge(&shards, &["--dedupe", keep], dir.path());
        let raw = ok(
            &["report", "all.jsonl", "--format", "json", "--dedupe", keep],
            dir.path(),
        );
        assert!(raw.contains("\"n_bad_lines\": 1,"), "{raw}");
        assert!(!raw.contains("\"n_duplicate_rollouts\": 0,"), "{raw}");
        assert_report_equal(dir.path(), &["--dedupe", keep, "--per-problem"]);
    }
}

#[test]
fn a_shard_of_malformed_rows_only_counts_them_in_the_merge() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = "{\"problem\": \"p\", \"rollout\": 0, \"correct\": true}\n";
    let bad = "{\"problem\": \"q\", \"correct\": maybe}\n{\"rollout\": 1}\n";
    std::fs::write(d.join("good.jsonl"), good).unwrap();
    std::fs::write(d.join("bad.jsonl"), bad).unwrap();
    ok(&["summarize", "bad.jsonl", "-o", "bad.sum.jsonl"], d);
    ok(&["summarize", "good.jsonl", "-o", "good.sum.jsonl"], d);
    ok(
        &["merge", "good.sum.jsonl", "bad.sum.jsonl", "-o", "m.jsonl"],
        d,
    );
    let merged = ok(&["report", "m.jsonl", "--format", "json"], d);
    let raw = ok(
        &["report", "good.jsonl", "bad.jsonl", "--format", "json"],
        d,
    );
    assert!(raw.contains("\"n_bad_lines\": 2,"), "{raw}");
    assert_eq!(merged, raw);
    // Alone, a summary of no problems is reported as nothing to report.
    let out = run_in(d, &["report", "bad.sum.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no problems"));
}

#[test]
fn compare_reads_summaries_as_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (system, seed) in [("a", 21), ("b", 22)] {
        let shards = cut(&generated(system, seed), d, seed);
        summarize_and_merge(&shards, &[], d);
        std::fs::rename(d.join("all.jsonl"), d.join(format!("{system}.jsonl"))).unwrap();
        std::fs::rename(
            d.join("merged.jsonl"),
            d.join(format!("{system}.sum.jsonl")),
        )
        .unwrap();
    }
    let raw = ok(&["compare", "a.jsonl", "b.jsonl", "--format", "json"], d);
    let merged = ok(
        &["compare", "a.sum.jsonl", "b.sum.jsonl", "--format", "json"],
        d,
    );
    assert!(raw.contains("\"pairs\""), "{raw}");
    // Each side's `inputs` and its name (`a.jsonl (a)`: the source's path
    // and the model) name the files read; nothing else may differ.
    let strip = |json: &str| -> String {
        without_inputs_at(json, "    ")
            .lines()
            .filter(|l| !l.starts_with("    \"name\": "))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let (a2, b2) = (strip(&raw), strip(&merged));
    assert!(a2.contains("\"mcnemar\""), "{a2}");
    assert!(a2 == b2, "{:?}", first_difference(&a2, &b2));
    assert!(raw.contains("\"name\": \"a.jsonl (a)\""), "{raw}");
    assert!(merged.contains("\"name\": \"a.sum.jsonl (a)\""), "{merged}");
}

#[test]
fn what_cannot_merge_exactly_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The same rollout in two shards, no dedupe policy: as reading the rows.
    std::fs::write(
        d.join("x.jsonl"),
        "{\"problem\": \"p\", \"rollout\": 0, \"correct\": true}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("y.jsonl"),
        "{\"problem\": \"p\", \"rollout\": 0, \"correct\": false}\n",
    )
    .unwrap();
    ok(&["summarize", "x.jsonl", "-o", "x.sum"], d);
    ok(&["summarize", "y.jsonl", "-o", "y.sum"], d);
    let out = run_in(d, &["merge", "x.sum", "y.sum", "-o", "m.sum"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("problem 'p' rollout 0 appears in two summaries"),
        "{err}"
    );
    assert!(!d.join("m.sum").exists());
    // Rows without an index, split: their numbering depends on the split.
    std::fs::write(
        d.join("u.jsonl"),
        "{\"problem\": \"p\", \"correct\": true}\n",
    )
    .unwrap();
    ok(&["summarize", "u.jsonl", "-o", "u.sum"], d);
    let out = run_in(d, &["merge", "x.sum", "u.sum", "-o", "m.sum"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("carry no rollout index"), "{err}");
    // A summary made under one breakdown field is not read under another.
    let out = run_in(d, &["report", "x.sum", "--by", "group"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("breakdown field none"), "{err}");
    // The output is never one of the inputs.
    let out = run_in(d, &["merge", "x.sum", "-o", "x.sum"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is the input"));
}

/// `rollstat ARGS` with `input` piped to stdin in small pieces, a pause
/// after the first: the reader must look at the start of stdin across
/// several reads and still read every byte.
fn piped(args: &[&str], input: &[u8], dir: &Path) -> String {
    use std::io::Write;
    let mut child = spawn_in(dir, args);
    let mut stdin = child.stdin.take().unwrap();
    for (i, piece) in input.chunks(7).enumerate() {
        stdin.write_all(piece).unwrap();
        stdin.flush().unwrap();
        if i == 0 {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_summary_piped_to_stdin_reads_as_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let demo = root().join("examples/demo.jsonl");
    let demo = demo.to_str().unwrap();
    let summary = ok(&["summarize", demo, "-o", "-"], d);
    assert!(summary.starts_with("{\"rollstat_summary\":1,"), "{summary}");
    let direct = ok(&["report", demo, "--format", "json"], d);
    // The summary keeps the input it was made from: nothing differs.
    let from_summary = piped(&["report", "-", "--format", "json"], summary.as_bytes(), d);
    assert_eq!(from_summary, direct);
    // Rollout rows piped in are read whole, the peeked start included:
    // the same document but for the input's name (and nothing else).
    let rows = std::fs::read_to_string(demo).unwrap();
    let from_rows = piped(&["report", "-", "--format", "json"], rows.as_bytes(), d);
    assert_eq!(
        from_rows.replace("\"<stdin>\"", &format!("{demo:?}")),
        direct
    );
    // Rollout files and summaries are not mixed in one reading.
    std::fs::write(d.join("s.jsonl"), &summary).unwrap();
    let out = run_in(d, &["report", demo, "s.jsonl"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the inputs mix summaries with rollout files"),
        "{err}"
    );
}

// ------------------------------------------------------------ Parquet parts

/// Parts written in both formats, mixed: the parts' extensions and the
/// merged file's name.
const MIXED: [([&str; 3], &str); 2] = [
    (["parquet", "jsonl", "parquet"], "merged.parquet"),
    (["jsonl", "parquet", "jsonl"], "merged.jsonl"),
];

#[test]
fn parquet_summaries_of_every_example_report_as_the_rows() {
    for example in ["demo", "demo-b", "budget_long", "budget_short"] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let path = root().join(format!("examples/{example}.jsonl"));
        let path = path.to_str().unwrap();
        // One file summarized whole keeps its input: nothing differs.
        ok(&["summarize", path, "-o", "whole.parquet"], d);
        assert!(std::fs::read(d.join("whole.parquet"))
            .unwrap()
            .starts_with(b"PAR1"));
        for flags in [
            &[][..],
            &["--per-problem", "--ci", "bca", "--resamples", "300"],
        ] {
            let mut direct = vec!["report", path, "--format", "json"];
            direct.extend(flags);
            let mut summary = vec!["report", "whole.parquet", "--format", "json"];
            summary.extend(flags);
            assert_eq!(ok(&summary, d), ok(&direct, d), "{example} {flags:?}");
        }
        // Shards summarized to both formats and merged.
        let text = std::fs::read_to_string(path).unwrap();
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let shards = cut(&lines, d, 7);
        for (exts, merged) in MIXED {
            summarize_and_merge_as(&shards, &[], d, exts, merged);
            assert_report_equal_on(d, merged, &["--per-problem"]);
        }
    }
}

#[test]
fn split_problems_merge_alike_from_parquet_and_json_lines_parts() {
    for keep in ["first", "last"] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut lines = generated("m", 13);
        let again: Vec<String> = lines
            .iter()
            .step_by(7)
            .filter(|l| l.contains("\"rollout\""))
            .map(|l| l.replace("\"correct\": true", "\"correct\": false"))
            .collect();
        lines.extend(again);
        lines.push("{\"problem\": \"broken\", \"correct\": maybe}".to_string());
        let shards = cut(&lines, d, 5);
        let flags = ["--by", "group", "--cluster-by", "group", "--dedupe", keep];
        summarize_and_merge_as(&shards, &flags, d, ["jsonl"; 3], "all-jsonl.jsonl");
        for (exts, merged) in MIXED {
            summarize_and_merge_as(&shards, &flags, d, exts, merged);
            assert_report_equal_on(d, merged, &[&flags[..], &["--per-problem"]].concat());
            // The merged summary is the same whatever the parts' formats.
            ok(&["merge", merged, "-o", "back.jsonl"], d);
            assert_eq!(
                std::fs::read_to_string(d.join("back.jsonl")).unwrap(),
                std::fs::read_to_string(d.join("all-jsonl.jsonl")).unwrap(),
                "{keep} {exts:?}"
            );
        }
    }
}

#[test]
fn compare_reads_parquet_and_json_lines_summaries_alike() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (system, seed) in [("a", 31), ("b", 32)] {
        std::fs::write(
            d.join(format!("{system}.jsonl")),
            generated(system, seed).join("\n"),
        )
        .unwrap();
        let rows = format!("{system}.jsonl");
        ok(
            &["summarize", &rows, "-o", &format!("{system}.sum.jsonl")],
            d,
        );
        ok(
            &["summarize", &rows, "-o", &format!("{system}.sum.parquet")],
            d,
        );
    }
    let jsonl = ok(
        &["compare", "a.sum.jsonl", "b.sum.jsonl", "--format", "json"],
        d,
    );
    let mixed = ok(
        &[
            "compare",
            "a.sum.parquet",
            "b.sum.jsonl",
            "--format",
            "json",
        ],
        d,
    );
    assert!(jsonl.contains("\"mcnemar\""), "{jsonl}");
    // Only the side's name (its source's path) differs.
    assert_eq!(mixed.replace("a.sum.parquet (a)", "a.sum.jsonl (a)"), jsonl);
}

/// Summarizes examples/demo.jsonl into `s.parquet` in `dir`; its bytes.
fn demo_parquet(dir: &Path) -> Vec<u8> {
    let demo = root().join("examples/demo.jsonl");
    ok(
        &["summarize", demo.to_str().unwrap(), "-o", "s.parquet"],
        dir,
    );
    std::fs::read(dir.join("s.parquet")).unwrap()
}

#[test]
fn a_parquet_summary_piped_to_stdin_reads_as_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bytes = demo_parquet(d);
    let direct = ok(&["report", "s.parquet", "--format", "json"], d);
    assert_eq!(
        piped(&["report", "-", "--format", "json"], &bytes, d),
        direct
    );
}

/// Runs `args` expecting a bad-input exit (2) with a message naming
/// `file` and saying `what`, and no panic.
fn refused(args: &[&str], dir: &Path, file: &str, what: &str) {
    let out = run_in(dir, args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(file) && err.contains(what), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

#[test]
fn broken_parquet_summaries_are_named_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = demo_parquet(d);
    // Truncated: the footer is gone.
    std::fs::write(d.join("cut.parquet"), &good[..good.len() / 2]).unwrap();
    for cmd in ["report", "merge"] {
        let args = if cmd == "merge" {
            vec![cmd, "cut.parquet", "-o", "m.jsonl"]
        } else {
            vec![cmd, "cut.parquet"]
        };
        refused(&args, d, "cut.parquet", "footer cannot be read");
    }
    // The first page header overwritten: the footer reads, the data not.
    let mut bad = good.clone();
    bad[4..40].fill(0xff);
    std::fs::write(d.join("bad.parquet"), &bad).unwrap();
    refused(
        &["report", "bad.parquet"],
        d,
        "bad.parquet",
        "bad.parquet: ",
    );
    refused(
        &["merge", "bad.parquet", "-o", "m.jsonl"],
        d,
        "bad.parquet",
        "bad.parquet: ",
    );
    // Another format version, in the key-value metadata (which the reader
    // takes over the Arrow schema's copy).
    let text = b"\"rollstat_summary\":1,";
    let at = good
        .windows(text.len())
        .position(|w| w == text)
        .expect("the header is in the footer");
    let mut v2 = good.clone();
    v2[at + text.len() - 2] = b'2';
    std::fs::write(d.join("v2.parquet"), &v2).unwrap();
    refused(
        &["report", "v2.parquet"],
        d,
        "v2.parquet",
        "summary format version 2; this rollstat reads version 1",
    );
    refused(
        &["merge", "v2.parquet", "s.parquet", "-o", "m.jsonl"],
        d,
        "v2.parquet",
        "version 2",
    );
    assert!(!d.join("m.jsonl").exists());
    // A Parquet file without a summary header is no summary to merge (and
    // `report` keeps reading it as lighteval details: tests/native.rs).
    let lighteval = root().join("crates/rollstat-formats/tests/fixtures/lighteval/legacy/details_lighteval|mmlu|0_2024-05-01T00-00-00.000000.parquet");
    std::fs::copy(lighteval, d.join("details.parquet")).unwrap();
    refused(
        &["merge", "details.parquet", "-o", "m.jsonl"],
        d,
        "details.parquet",
        "not a rollstat summary",
    );
    let out = ok(&["report", "details.parquet", "--format", "json"], d);
    assert!(out.contains("lighteval"), "{out}");
}
