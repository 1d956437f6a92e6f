//! Option values that would overflow, panic or ask for unbounded memory are
//! refused with a message naming the flag (#10 item 9).

mod common;
use common::{run, write};

fn fails(args: &[&str], needle: &str) {
    let o = run(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(needle), "{args:?}: {err}");
}

#[test]
fn out_of_range_options_are_usage_errors() {
    let demo = "examples/demo.jsonl";
    fails(
        &["report", demo, "--resamples", "18446744073709551615"],
        "--resamples: 18446744073709551615 exceeds the maximum",
    );
    fails(
        &["report", demo, "--n", "18446744073709551615"],
        "--n: 18446744073709551615 exceeds the maximum of 2^62",
    );
    fails(
        &["report", demo, "--k", "1,9223372036854775808"],
        "--k: 9223372036854775808 exceeds the maximum of 2^62",
    );
    fails(
        &["compare", demo, demo, "--permutations", "1000000000000"],
        "--permutations: 1000000000000 exceeds the maximum",
    );
    // Huge values are named briefly (1e308 in full is 309 digits).
    fails(
        &["compare", demo, demo, "--margin", "1e308"],
        "--margin: 1e308 is not in (0, 1)",
    );
}

/// power's counts and effect: a fraction of a problem, 10^300 problems or
/// rollouts and an effect of 500 points were accepted and printed.
#[test]
fn power_counts_and_effect_are_in_range() {
    let b = ["--baseline", "0.5"];
    for (args, needle) in [
        (
            vec!["--problems", "0.5"],
            "--problems: 0.5 is not between 1 and 2^53",
        ),
        (
            vec!["--problems", "1e300"],
            "--problems: 1e300 is not between 1 and 2^53",
        ),
        (
            vec!["--problems", "100", "--rollouts", "1e300"],
            "--rollouts: 1e300 is not between 1 and 2^53",
        ),
        (vec!["--delta", "5"], "--delta: 5 is not in [−1, 1]"),
        (
            vec!["--problems", "100", "--factors", "1e300"],
            "--factors: multipliers must be > 0 and at most 10^6",
        ),
    ] {
        let mut all = vec!["power"];
        all.extend(b);
        all.extend(args);
        fails(&all, needle);
    }
}

/// A count row with n ≥ 2^63 used to loop forever building the default k list.
#[test]
fn default_k_list_stops_for_huge_n() {
    let ks = rollstat_core_default_ks(u64::MAX);
    assert_eq!(ks.len(), 65);
    assert_eq!(ks[63], 1 << 63);
    assert_eq!(ks[64], u64::MAX);
}

fn rollstat_core_default_ks(n: u64) -> Vec<u64> {
    rollstat_core::aggregate::default_ks(n)
}

/// A compressed input past `--max-decompressed` is refused with its name and
/// the limit (#10 item 10); within the limit, or with `none`, it is read.
#[test]
fn max_decompressed_limits_compressed_inputs() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    for i in 0..2000 {
        writeln!(
            enc,
            r#"{{"problem": "p{}", "correct": {}}}"#,
            i % 20,
            i % 3 == 0
        )
        .unwrap();
    }
    let path = write(&dir, "rows.jsonl.gz", enc.finish().unwrap());
    let p = path.as_str();
    fails(
        &["report", p, "--max-decompressed", "1K"],
        "rows.jsonl.gz: the content decompresses to more than 1 KiB",
    );
    fails(
        &["report", p, "--max-decompressed", "lots"],
        "--max-decompressed: 'lots' is not a size",
    );
    for size in ["1M", "none"] {
        let o = run(&["report", p, "--max-decompressed", size, "--format", "json"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// One count row with n = 10⁸ and half correct: G-Pass@k and mG-Pass@k up
/// to k = 2²⁶ used to take minutes (O(k) steps each); now O(σ·√log) (#10
/// item 9). The distribution is symmetric about k/2 there, so
/// P(X ≥ k/2) = (1 + P(X = k/2))/2 and E[(X − k/2)₊] = E|X − k/2|/2, both
/// checked against the normal approximation (relative error O(1/σ²), σ ≈ 2349).
#[test]
fn report_on_a_huge_count_row_completes() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "row.jsonl",
        r#"{"problem": "p", "n": 100000000, "c": 50000000}"#,
    );
    let o = run(&["report", &path, "--ci", "none", "--format", "json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let value = |key: &str| report["metrics"][key]["value"].as_f64().unwrap();
    let (n, k) = (1e8f64, (1u64 << 26) as f64);
    let sigma = (k * 0.25 * (n - k) / (n - 1.0)).sqrt();
    let density = 1.0 / (sigma * (2.0 * std::f64::consts::PI).sqrt());
    let g = value("g-pass@67108864_0.5");
    assert!((g - (0.5 + density / 2.0)).abs() < 1e-9, "g-pass {g}");
    let mg = value("mg-pass@67108864");
    // E[(X − k/2)₊] = σ/√(2π) = σ²·density.
    let mg_normal = 2.0 * sigma * sigma * density / k;
    assert!(
        ((mg - mg_normal) / mg_normal).abs() < 1e-6,
        "mg-pass {mg} vs {mg_normal}"
    );
}
