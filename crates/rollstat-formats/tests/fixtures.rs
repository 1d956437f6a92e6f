//! One hand-written fixture per format (see tests/fixtures/make_fixtures.py),
//! compared row by row with the canonical rows spelled out independently in
//! tests/fixtures/expected/*.jsonl.

use std::path::{Path, PathBuf};

use rollstat_formats::{detect, read_path, read_path_lenient, Format, FormatError, NativeFile};
use serde_json::{json, Value};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

fn expected(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(fixture(&format!("expected/{name}.jsonl"))).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn rows(file: &NativeFile) -> Vec<Value> {
    file.rows.iter().cloned().map(Value::Object).collect()
}

/// Compare row by row so a failure names the first differing row.
fn assert_rows(file: &NativeFile, name: &str) {
    let got = rows(file);
    let want = expected(name);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{name}: row {i} differs");
        // The canonical keys lead each row.
        assert_eq!(
            g.as_object().unwrap().keys().next().map(String::as_str),
            Some("problem")
        );
    }
    assert_eq!(got.len(), want.len(), "{name}: row count");
}

fn read_one(rel: &str) -> NativeFile {
    let mut files = read_path(&fixture(rel), None).unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert_eq!(files.len(), 1, "{rel}");
    files.remove(0)
}

fn agg(file: &NativeFile, metric: &str) -> f64 {
    file.aggregates
        .iter()
        .find(|a| a.metric_name == metric)
        .unwrap_or_else(|| panic!("no aggregate {metric} in {:?}", file.aggregates))
        .value
}

const DATE: &str = "2026-01-02T03-04-05.678901";

#[test]
fn lm_eval_repeats_one_set_of_rows_per_filter() {
    let f = read_one(&format!("lm_eval/samples_gsm8k_sc_{DATE}.jsonl"));
    assert_eq!(f.format, Format::LmEvalSamples);
    assert_rows(&f, "lm_eval_gsm8k_sc");
    // results json beside it: aggregates for this task only, stderr in note.
    assert_eq!(f.aggregates.len(), 2);
    assert_eq!(agg(&f, "exact_match,score-first"), 0.5);
    assert_eq!(agg(&f, "exact_match,maj@4"), 1.0);
    assert!(f.aggregates[0]
        .source_path
        .ends_with(format!("results_{DATE}.json")));
    assert!(f.aggregates.iter().any(|a| a.note.contains("stderr=N/A")));
    // doc 1 has 3 of 4 configured repeats, once per filter line.
    let short = f
        .warnings
        .iter()
        .filter(|w| w.contains("3 of 4 configured repeats"))
        .count();
    assert_eq!(short, 2, "{:?}", f.warnings);
    assert!(f
        .warnings
        .iter()
        .any(|w| w.contains("rollstat grades them")));
}

#[test]
fn lm_eval_single_repeat_verdicts_invalid_and_bad_line() {
    let f = read_one(&format!("lm_eval/samples_math_single_{DATE}.jsonl"));
    assert_rows(&f, "lm_eval_math_single");
    assert_eq!(f.bad_lines, 1);
    let w = f
        .warnings
        .iter()
        .find(|w| w.contains(":4: invalid JSON"))
        .expect("bad line named");
    assert!(w.contains("samples_math_single"), "{w}");
    assert_eq!(agg(&f, "exact_match,strict-match"), 0.3333);
}

#[test]
fn lm_eval_results_alone_gives_aggregates_only() {
    let f = read_one(&format!("lm_eval/results_{DATE}.json"));
    assert_eq!(f.format, Format::LmEvalResults);
    assert!(f.rows.is_empty());
    assert_eq!(f.aggregates.len(), 3);
}

#[test]
fn inspect_eval_epochs_are_rollouts() {
    let f = read_one("inspect/2026-01-02T03-04-05+00-00_arith_abc123.eval");
    assert_eq!(f.format, Format::InspectEval);
    assert_rows(&f, "inspect_eval");
    assert_eq!(agg(&f, "match/accuracy"), 0.25);
    assert_eq!(agg(&f, "match/stderr"), 0.25);
}

#[test]
fn inspect_json_numeric_and_unscored() {
    let f = read_one("inspect/numeric_log.json");
    assert_eq!(f.format, Format::InspectJson);
    assert_rows(&f, "inspect_json");
    assert!(f.warnings.iter().any(|w| w.contains("non-binary")));
}

#[test]
fn evalscope_reviews() {
    let f = read_one("evalscope/reviews/qwen-7b/gsm8k_main.jsonl");
    assert_eq!(f.format, Format::EvalscopeReviews);
    assert_rows(&f, "evalscope");
}

#[test]
fn opencompass_results_and_predictions() {
    let f = read_one("opencompass/results/llama-3-8b/livemathbench.json");
    assert_eq!(f.format, Format::OpenCompassResults);
    assert_rows(&f, "opencompass_results");
    assert_eq!(agg(&f, "accuracy (3 runs average)"), 50.0);
    assert_eq!(agg(&f, "G-Pass@2_0.5"), 66.67);

    let p = read_one("opencompass/predictions/llama-3-8b/livemathbench.json");
    assert_eq!(p.format, Format::OpenCompassPredictions);
    assert_rows(&p, "opencompass_predictions");
    assert!(
        p.warnings
            .iter()
            .any(|w| w.contains("2 replicas of 2 problems")),
        "{:?}",
        p.warnings
    );
}

#[test]
fn sieval_result_directory() {
    let f = read_one("sieval/gsm8k");
    assert_eq!(f.format, Format::Sieval);
    assert_rows(&f, "sieval");
    assert_eq!(agg(&f, "pass@k"), 66.67);
    assert_eq!(agg(&f, "n_unextracted"), 1.0);
    assert!(f
        .aggregates
        .iter()
        .all(|a| a.source_path.ends_with("report.json")));
    assert_eq!(f.sha256.as_ref().map(String::len), Some(64));
}

#[test]
fn sieval_single_shard() {
    let f = read_one("sieval/gsm8k/0/final/0.jsonl");
    assert_eq!(f.format, Format::Sieval);
    assert_eq!(f.rows.len(), 4);
}

#[test]
fn matharena_current_zst_and_old_json() {
    let f = read_one("matharena/aime_2025/gpt-x/3.json.zst");
    assert_eq!(f.format, Format::MathArena);
    assert_rows(&f, "matharena_current");
    assert!(f.warnings.iter().any(|w| w.contains("3 of N = 4")));
    let raw = std::fs::read(fixture("matharena/aime_2025/gpt-x/3.json.zst")).unwrap();
    assert_eq!(
        &raw[..4],
        &[0x28, 0xb5, 0x2f, 0xfd],
        "fixture really is zstd"
    );

    let old = read_one("matharena/aime_2025/gpt-x/5.json");
    assert_rows(&old, "matharena_old");
}

#[test]
fn nemo_skills_one_file_per_seed_gz() {
    let files = read_path(&fixture("nemo_skills"), None).unwrap();
    assert_eq!(files.len(), 2);
    assert!(files.iter().all(|f| f.format == Format::NemoSkills));
    assert_rows(&files[0], "nemo_rs0");
    assert_rows(&files[1], "nemo_rs1");
    assert!(files[1].path.ends_with("output-rs1.jsonl.gz"));
}

#[test]
fn tau_bench_and_tau2() {
    let f = read_one("tau/retail_results.json");
    assert_eq!(f.format, Format::TauBench);
    assert_rows(&f, "tau_bench");
    let t2 = read_one("tau/tau2_results.json");
    assert_rows(&t2, "tau2_bench");
}

#[cfg(feature = "parquet")]
#[test]
fn lighteval_parquet_current_and_legacy() {
    let f = read_one(&format!(
        "lighteval/details/org__model/{DATE}/details_aime24|0_{DATE}.parquet"
    ));
    assert_eq!(f.format, Format::LightevalDetails);
    assert_rows(&f, "lighteval_current");
    let l =
        read_one("lighteval/legacy/details_lighteval|mmlu|0_2024-05-01T00-00-00.000000.parquet");
    assert_rows(&l, "lighteval_legacy");
}

/// zstd pages need the `parquet-zstd` feature; without it the error says so.
#[cfg(feature = "parquet")]
#[test]
fn lighteval_zstd_pages() {
    let p = "lighteval/zstd/details_lighteval|mmlu|0_2024-05-01T00-00-00.000000.parquet";
    if cfg!(feature = "parquet-zstd") {
        assert_rows(&read_one(p), "lighteval_legacy");
    } else {
        let e = read_path(&fixture(p), None).unwrap_err().to_string();
        assert!(e.contains("parquet-zstd"), "{e}");
    }
}

#[cfg(not(feature = "parquet"))]
#[test]
fn lighteval_without_feature_says_so() {
    let e = read_path(&fixture("lighteval/legacy"), None).unwrap_err();
    assert!(e.to_string().contains("feature `parquet`"), "{e}");
}

/// Every fixture file is detected as its format from the first 64 KiB.
#[test]
fn detection_of_every_fixture() {
    let cases: &[(&str, Format)] = &[
        (
            "lm_eval/samples_gsm8k_sc_2026-01-02T03-04-05.678901.jsonl",
            Format::LmEvalSamples,
        ),
        (
            "lm_eval/results_2026-01-02T03-04-05.678901.json",
            Format::LmEvalResults,
        ),
        (
            "inspect/2026-01-02T03-04-05+00-00_arith_abc123.eval",
            Format::InspectEval,
        ),
        ("inspect/numeric_log.json", Format::InspectJson),
        (
            "lighteval/results/org__model/results_2026-01-02T03-04-05.678901.json",
            Format::LightevalResults,
        ),
        (
            "evalscope/reviews/qwen-7b/gsm8k_main.jsonl",
            Format::EvalscopeReviews,
        ),
        (
            "opencompass/results/llama-3-8b/livemathbench.json",
            Format::OpenCompassResults,
        ),
        (
            "opencompass/predictions/llama-3-8b/livemathbench.json",
            Format::OpenCompassPredictions,
        ),
        ("sieval/gsm8k/0/final/0.jsonl", Format::Sieval),
        ("matharena/aime_2025/gpt-x/3.json.zst", Format::MathArena),
        ("matharena/aime_2025/gpt-x/5.json", Format::MathArena),
        ("nemo_skills/output-rs0.jsonl", Format::NemoSkills),
        ("nemo_skills/output-rs1.jsonl.gz", Format::NemoSkills),
        ("tau/retail_results.json", Format::TauBench),
        ("tau/tau2_results.json", Format::TauBench),
        (
            "lighteval/legacy/details_lighteval|mmlu|0_2024-05-01T00-00-00.000000.parquet",
            Format::LightevalDetails,
        ),
        ("canonical/rows.jsonl", Format::CanonicalJsonl),
        ("canonical/rows.csv", Format::CanonicalCsv),
    ];
    for (rel, want) in cases {
        let bytes = std::fs::read(fixture(rel)).unwrap();
        let head = &bytes[..bytes.len().min(64 * 1024)];
        assert_eq!(detect(&fixture(rel), head).unwrap(), *want, "{rel}");
    }
}

/// A truncated head (first record cut off) still detects by its keys.
#[test]
fn detection_from_a_short_head() {
    let p = fixture("tau/retail_results.json");
    let bytes = std::fs::read(&p).unwrap();
    assert_eq!(detect(&p, &bytes[..200]).unwrap(), Format::TauBench);
    let p = fixture(&format!("lm_eval/samples_gsm8k_sc_{DATE}.jsonl"));
    let bytes = std::fs::read(&p).unwrap();
    assert_eq!(detect(&p, &bytes[..300]).unwrap(), Format::LmEvalSamples);
}

#[test]
fn unknown_file_lists_every_format_tried() {
    let p = fixture("unknown/notes.json");
    let e = detect(&p, &std::fs::read(&p).unwrap()).unwrap_err();
    assert_eq!(e.tried.len(), Format::ALL.len());
    // One short line (#10 item 16: it was 1.6 KB): what was seen, why it is
    // not canonical rows, how many harness formats were tried.
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!(
            "{}: unrecognised input format (a JSON object with keys hello, items); \
             no known format fits (as canonical rows: the JSON object has no \"problem\" plus a verdict",
            p.display()
        )),
        "{msg}"
    );
    let harness = Format::ALL.iter().filter(|f| !f.is_canonical()).count();
    let tried = format!("nor does any of {harness} harness formats");
    assert!(msg.contains(&tried), "{msg}");
    let len = msg.len() - p.display().to_string().len();
    assert!(len <= 400, "{len} bytes beside the path: {msg}");
    // The alternate form lists every format with its reason.
    let all = format!("{e:#}");
    for f in Format::ALL {
        assert!(all.contains(f.name()), "{all} lacks {f}");
    }
    // The fix is worded without command-line flags (front ends name their own).
    assert!(msg.contains("Fix: name the format explicitly"), "{msg}");
    assert!(!msg.contains("--"), "{msg}");
    // read_path gives the same error.
    match read_path(&p, None) {
        Err(FormatError::Detect(d)) => assert_eq!(d, e),
        other => panic!("{other:?}"),
    }
}

#[test]
fn canonical_is_detected_not_parsed() {
    match read_path(&fixture("canonical/rows.jsonl"), None) {
        Err(FormatError::Canonical { format, .. }) => assert_eq!(format, "canonical-jsonl"),
        other => panic!("{other:?}"),
    }
    let r = read_path_lenient(&fixture("canonical"), None).unwrap();
    assert!(r.files.is_empty() && r.errors.is_empty());
    let formats: Vec<Format> = r.canonical.iter().map(|(_, f)| *f).collect();
    assert_eq!(formats, [Format::CanonicalCsv, Format::CanonicalJsonl]);
}

#[test]
fn format_names_parse_and_display() {
    let cases = [
        ("lm-eval", Format::LmEvalSamples),
        ("lighteval", Format::LightevalDetails),
        ("inspect", Format::InspectEval),
        ("evalscope", Format::EvalscopeReviews),
        ("opencompass", Format::OpenCompassResults),
        ("sieval", Format::Sieval),
        ("matharena", Format::MathArena),
        ("nemo-skills", Format::NemoSkills),
        ("tau-bench", Format::TauBench),
        ("tau2-bench", Format::TauBench),
        ("canonical", Format::CanonicalJsonl),
    ];
    for (name, f) in cases {
        assert_eq!(name.parse::<Format>().unwrap(), f, "{name}");
    }
    for f in Format::ALL {
        assert_eq!(f.to_string().parse::<Format>().unwrap(), f);
    }
    let e = "helm".parse::<Format>().unwrap_err().to_string();
    assert!(
        e.contains("unknown format \"helm\"") && e.contains("tau-bench"),
        "{e}"
    );
}

/// `--from inspect` on a legacy .json log picks the JSON variant; a forced
/// wrong format is a parse error naming the file, not a panic.
#[test]
fn override_by_family_and_wrong_override() {
    let f = read_path(
        &fixture("inspect/numeric_log.json"),
        Some(Format::InspectEval),
    )
    .unwrap();
    assert_eq!(f[0].format, Format::InspectJson);
    let e = read_path(
        &fixture("tau/retail_results.json"),
        Some(Format::EvalscopeReviews),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with(&fixture("tau/retail_results.json").display().to_string()),
        "{e}"
    );
}

#[test]
fn lighteval_results_aggregates() {
    let f = read_one(&format!("lighteval/results/org__model/results_{DATE}.json"));
    assert_eq!(f.format, Format::LightevalResults);
    assert!(f.rows.is_empty());
    let got: Vec<(&str, f64, &str)> = f
        .aggregates
        .iter()
        .map(|a| (a.metric_name.as_str(), a.value, a.note.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "pass@k:k=1&n=2",
                0.75,
                "lighteval results; task=lighteval|aime24|0; stderr=0.25"
            ),
            (
                "pass@k:k=1&n=2",
                0.75,
                "lighteval results; task=all; stderr=0.25"
            ),
        ]
    );
}

/// Walking a harness's whole output directory reads the per-sample files and
/// passes over companions (with the reason) instead of failing on them.
#[test]
fn harness_output_roots_skip_companion_files() {
    let r = read_path_lenient(&fixture("evalscope"), None).unwrap();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.files.len(), 1);
    assert_eq!(r.files[0].format, Format::EvalscopeReviews);
    let why: Vec<&str> = r.skipped.iter().map(|(_, w)| w.as_str()).collect();
    assert_eq!(why.len(), 2, "{why:?}");
    assert!(why[0].starts_with("evalscope predictions file"), "{why:?}");
    assert!(why[1].starts_with("evalscope report"), "{why:?}");

    let r = read_path_lenient(&fixture("opencompass"), None).unwrap();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.files.len(), 1);
    assert_eq!(r.files[0].format, Format::OpenCompassResults);
    assert!(r.skipped[0].1.starts_with("OpenCompass predictions"));

    // Given directly, a companion file is an error that says why.
    let e = read_path(
        &fixture("evalscope/predictions/qwen-7b/gsm8k_main.jsonl"),
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("reviews/") && e.contains("Fix:"), "{e}");

    let r = read_path_lenient(&fixture("sieval/gsm8k/0/final"), None).unwrap();
    assert_eq!(r.files.len(), 1, "a lone shard directory reads the shard");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dst = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dst);
        } else {
            std::fs::copy(&p, &dst).unwrap();
        }
    }
}

#[test]
fn mixed_directory_with_one_corrupt_file() {
    let dir = std::env::temp_dir().join(format!("rollstat-formats-mixed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    copy_dir(&fixture("lm_eval"), &dir.join("lm_eval"));
    copy_dir(&fixture("sieval"), &dir.join("sieval"));
    copy_dir(&fixture("tau"), &dir.join("tau"));
    std::fs::copy(
        fixture("evalscope/reviews/qwen-7b/gsm8k_main.jsonl"),
        dir.join("gsm8k_main.jsonl"),
    )
    .unwrap();
    std::fs::copy(
        fixture("inspect/2026-01-02T03-04-05+00-00_arith_abc123.eval"),
        dir.join("good.eval"),
    )
    .unwrap();
    std::fs::copy(fixture("canonical/rows.jsonl"), dir.join("rows.jsonl")).unwrap();
    // Corrupt: a ZIP header followed by garbage.
    std::fs::write(
        dir.join("broken.eval"),
        b"PK\x03\x04 this is not a zip archive",
    )
    .unwrap();
    std::fs::write(dir.join("notes.txt"), b"not an input").unwrap();

    let r = read_path_lenient(&dir, None).unwrap();
    assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
    let msg = r.errors[0].to_string();
    assert!(msg.contains("broken.eval") && msg.contains("ZIP"), "{msg}");
    let got: Vec<(String, Format)> = r
        .files
        .iter()
        .map(|f| {
            (
                f.path.strip_prefix(&dir).unwrap().display().to_string(),
                f.format,
            )
        })
        .collect();
    let want: Vec<(String, Format)> = vec![
        ("good.eval".into(), Format::InspectEval),
        ("gsm8k_main.jsonl".into(), Format::EvalscopeReviews),
        (
            format!("lm_eval/samples_gsm8k_sc_{DATE}.jsonl"),
            Format::LmEvalSamples,
        ),
        (
            format!("lm_eval/samples_math_single_{DATE}.jsonl"),
            Format::LmEvalSamples,
        ),
        ("sieval/gsm8k".into(), Format::Sieval),
        ("tau/retail_results.json".into(), Format::TauBench),
        ("tau/tau2_results.json".into(), Format::TauBench),
    ];
    assert_eq!(got, want);
    assert_eq!(r.canonical.len(), 1);
    let skipped: Vec<String> = r
        .skipped
        .iter()
        .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(skipped.contains(&"notes.txt".to_string()), "{skipped:?}");
    assert!(
        skipped.contains(&format!("results_{DATE}.json")),
        "{skipped:?}"
    );
    // Every file carries the sha256 of its raw bytes.
    assert!(r
        .files
        .iter()
        .all(|f| f.sha256.as_ref().is_some_and(|s| s.len() == 64)));

    // Strict reading fails and names the corrupt file.
    let e = read_path(&dir, None).unwrap_err().to_string();
    assert!(e.contains("broken.eval"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn missing_path_is_an_io_error_naming_it() {
    let e = read_path(Path::new("/nonexistent/rollstat/x.jsonl"), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("/nonexistent/rollstat/x.jsonl: cannot read"),
        "{e}"
    );
}

#[test]
fn garbage_never_panics() {
    let dir = std::env::temp_dir().join(format!("rollstat-formats-garbage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: &[(&str, &[u8])] = &[
        ("a.json", b"{\"results\": 3, \"configs\": []}"),
        ("samples_x_2026.jsonl", b"{\"doc_id\": 0, \"resps\": 5}\n"),
        ("b.json", b"[{\"task_id\": null, \"reward\": \"x\"}]"),
        ("c.json", b"{\"details\": 7}"),
        ("d.json", b"{\"idx\": 1, \"answers\": 3, \"N\": 2}"),
        ("e.jsonl.gz", b"\x1f\x8b\x08\x00garbage"),
        ("f.json.zst", b"\x28\xb5\x2f\xfdgarbage"),
        ("g.parquet", b"PAR1garbagePAR1"),
        ("h.json", b"{\"eval\": 1, \"samples\": [1, {\"id\": [1]}]}"),
        ("output-rs2.jsonl", b"[1,2]\n"),
        (
            "i.json",
            b"{\"simulations\": [{\"task_id\": 1, \"reward_info\": 3}], \"info\": 1}",
        ),
    ];
    for (name, bytes) in cases {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        let _ = detect(&p, bytes);
        let _ = read_path(&p, None);
        for f in Format::ALL {
            let _ = read_path(&p, Some(f));
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every fixture, truncated at many points and with bytes flipped, is read
/// without a panic (an error or fewer rows is fine).
#[test]
fn truncated_and_corrupted_fixtures_never_panic() {
    let dir = std::env::temp_dir().join(format!("rollstat-formats-trunc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut stack = vec![fixture("")];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.to_string_lossy().contains("expected") {
                files.push(p);
            }
        }
    }
    files.sort();
    for src in files {
        let bytes = std::fs::read(&src).unwrap();
        let dst = dir.join(src.file_name().unwrap());
        let step = (bytes.len() / 23).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            std::fs::write(&dst, &bytes[..cut]).unwrap();
            let _ = read_path(&dst, None);
            let mut flipped = bytes.clone();
            flipped[cut] ^= 0x5a;
            std::fs::write(&dst, &flipped).unwrap();
            let _ = read_path(&dst, None);
        }
        let _ = std::fs::remove_file(&dst);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// NeMo-Skills benchmarks beside each other (`eval-results/<benchmark>/`):
/// each file's rows carry the benchmark as `subset` (ids repeat across
/// benchmarks) and `subset_for_metrics` as `group`; verdicts come from the
/// evaluator's own field — answer judgement = expected judgement, Lean's
/// `proof_status`, IFEval's strict prompt-level result, `is_correct` — and a
/// file without `predicted_answer` has no answer information (not
/// "unextracted"), except a judge's, whose answer is its judgement.
#[test]
fn nemo_skills_benchmarks_and_their_verdict_fields() {
    let files = read_path(&fixture("nemo_skills_mixed"), None).unwrap();
    assert_eq!(files.len(), 8);
    let verdicts = |bench: &str| -> Vec<(String, Value)> {
        let f = files
            .iter()
            .find(|f| f.path.ends_with(format!("{bench}/output-rs0.jsonl")))
            .unwrap();
        f.rows
            .iter()
            .map(|r| {
                assert_eq!(r["subset"], bench, "{r:?}");
                // A judge's answer is its judgement; the others have none.
                assert_eq!(r.contains_key("answer"), bench == "judge-bench", "{r:?}");
                (
                    r["problem"].as_str().unwrap().to_string(),
                    r["correct"].clone(),
                )
            })
            .collect()
    };
    let t = Value::Bool(true);
    let f = Value::Bool(false);
    let ids = |v: &[(&str, &Value)]| -> Vec<(String, Value)> {
        v.iter()
            .map(|(i, c)| (i.to_string(), (*c).clone()))
            .collect()
    };
    // j1: Yes = Yes; j2: Yes ≠ No; j3: "no, it is not" = No; j4: no judgement.
    assert_eq!(
        verdicts("judge-bench"),
        ids(&[("j1", &t), ("j2", &f), ("j3", &t), ("j4", &f)])
    );
    assert_eq!(verdicts("minif2f"), ids(&[("1", &t), ("2", &f), ("3", &f)]));
    assert_eq!(verdicts("ifeval"), ids(&[("1", &t), ("2", &f)]));
    assert_eq!(verdicts("human-eval"), ids(&[("1", &t), ("2", &f)]));
    let judge = files
        .iter()
        .find(|f| f.path.ends_with("judge-bench/output-rs1.jsonl"))
        .unwrap();
    let groups: Vec<&str> = judge
        .rows
        .iter()
        .map(|r| r["group"].as_str().unwrap())
        .collect();
    assert_eq!(groups, ["math", "math", "algebra", "algebra"]);
    // What NeMo-Skills' majority@k votes on: yes, yes, no, and no judgement.
    let answers: Vec<&Value> = judge.rows.iter().map(|r| &r["answer"]).collect();
    assert_eq!(
        answers,
        [&json!("yes"), &json!("yes"), &json!("no"), &Value::Null]
    );
}
