//! End-to-end tests of `rollstat power`: Miller (2024) §5 worked examples
//! with the corrections of docs/statistics.md §1.6, the §1.8 power table, and a
//! report.json with a hand-computed variance split.

mod common;
use common::{close, f, json, run};
use serde_json::Value;

fn power_json(args: &[&str]) -> Value {
    json(&run(&[&["power", "--format", "json"][..], args].concat()))
}

const Z2: f64 = 7.8488797343; // (z_.025 + z_.2)², docs/statistics.md §1.8

/// Miller §5: σ² = 0, ω² = 1/9, δ = 0.03 → n ≈ 969 (968.997). The paper's
/// ω² = 1/9 does not follow from its own "uniform scores, corr 0.5"
/// (docs/statistics.md §1.6.1): 2·(1/12)·(1 − 0.5) = 1/12 → 726.75 → 727.
#[test]
fn miller_problems_needed_and_erratum() {
    let r = power_json(&["--omega2", "1/9", "--delta", "0.03"]);
    close(f(&r["z2"]), Z2, 1e-9);
    let row = &r["rows"][0];
    close(f(&row["problems_needed_exact"]), 968.997, 1e-3);
    assert_eq!(row["problems_needed"], 969);

    let r = power_json(&[
        "--var-between",
        "1/12",
        "--correlation",
        "0.5",
        "--delta",
        "0.03",
    ]);
    let row = &r["rows"][0];
    close(f(&row["omega2"]), 1.0 / 12.0, 1e-15);
    close(f(&row["problems_needed_exact"]), Z2 / 12.0 / 0.0009, 1e-6);
    assert_eq!(row["problems_needed"], 727);

    // the table says it in words
    let o = run(&["power", "--omega2", "1/9", "--delta", "0.03"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("problems needed for δ = 3.00 pts: 969 (968.997)"),
        "{text}"
    );
}

/// Miller §5: σ_A² = σ_B² = 1/6, ω² = 1/9, K 1 → 10 cuts the MDE "from 13.2%
/// to 7.5%" — which holds for n = 200, not the stated 198 (§1.6.2):
/// n = 200 → 0.13207 / 0.07529; n = 198 → 0.13273 / 0.07567.
#[test]
fn miller_mde_more_rollouts() {
    for (n, k1, k10) in [("200", 0.13207, 0.07529), ("198", 0.13273, 0.07567)] {
        let r = power_json(&[
            "--omega2",
            "1/9",
            "--sigma2",
            "1/6",
            "--problems",
            n,
            "--factors",
            "10",
        ]);
        let row = &r["rows"][0];
        close(f(&row["mde"]), k1, 5e-6);
        close(f(&row["tradeoff"][0]["mde_more_rollouts"]), k10, 5e-6);
        // the same effect directly with --rollouts 10
        let r10 = power_json(&[
            "--omega2",
            "1/9",
            "--sigma2",
            "1/6",
            "--problems",
            n,
            "--rollouts",
            "10",
        ]);
        close(f(&r10["rows"][0]["mde"]), k10, 5e-6);
        // K → ∞ leaves only ω²: sqrt(Z2 · (1/9) / n)
        let nn: f64 = n.parse().unwrap();
        close(
            f(&row["mde_infinite_rollouts"]),
            (Z2 / 9.0 / nn).sqrt(),
            1e-9,
        );
        // ten times the problems beats ten times the rollouts here
        assert!(f(&row["tradeoff"][0]["mde_more_problems"]) < k10);
    }
    let o = run(&[
        "power",
        "--omega2",
        "1/9",
        "--sigma2",
        "1/6",
        "--problems",
        "200",
        "--factors",
        "10",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("minimum detectable effect with 200 problems: 13.21 pts"),
        "{text}"
    );
    assert!(text.contains("7.53 pts"), "{text}");
}

/// docs/statistics.md §1.8 power table (Eq. 9/10).
#[test]
fn power_table_vectors() {
    for (omega2, sigma2, k, n_needed, mde1000) in [
        ("0.21", "0", "1", 1831.405, 0.040599),
        ("0.42", "0", "1", 3662.811, f64::NAN),
        ("0.05", "0.1", "1", 2180.244, 0.044297),
        ("0.05", "0.1", "10", 610.468, 0.023440),
    ] {
        let r = power_json(&[
            "--omega2",
            omega2,
            "--sigma2",
            sigma2,
            "--rollouts",
            k,
            "--delta",
            "0.03",
            "--problems",
            "1000",
        ]);
        let row = &r["rows"][0];
        close(f(&row["problems_needed_exact"]), n_needed, 1e-3);
        if !mde1000.is_nan() {
            close(f(&row["mde"]), mde1000, 1e-6);
        }
    }
}

/// From a report.json: docs/statistics.md §1.8 resampling vector (K = 4):
/// rows [[1,1,1,0],[0,0,0,0],[1,0,1,0],[1,1,1,1],[0,1,0,0]] → Var(x) =
/// 0.1145833333, Ê[σ²] = 1/6 (within = 1/24 at K = 4). With ρ = 0 and B like
/// A: V = 2·(0.1145833 + 1/24) = 0.3125 (= 2·var of the means, 2·0.15625);
/// at K = 16 (factor 4): 2·(0.1145833 + 1/96) = 0.25; K → ∞: 0.2291667.
#[test]
fn from_report_json() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("r.jsonl");
    let rows = [
        [1, 1, 1, 0],
        [0, 0, 0, 0],
        [1, 0, 1, 0],
        [1, 1, 1, 1],
        [0, 1, 0, 0],
    ];
    let body: String = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let c: Vec<&str> = r
                .iter()
                .map(|&x| if x == 1 { "true" } else { "false" })
                .collect();
            format!(
                "{{\"problem\": \"p{i}\", \"correct\": [{}]}}\n",
                c.join(", ")
            )
        })
        .collect();
    std::fs::write(&data, body).unwrap();
    let report = dir.path().join("report.json");
    let o = run(&[
        "report",
        data.to_str().unwrap(),
        "--format",
        "json",
        "-o",
        report.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = power_json(&[
        report.to_str().unwrap(),
        "--metric",
        "pass@1",
        "--delta",
        "0.1",
    ]);
    let row = &r["rows"][0];
    assert_eq!(row["metric"], "pass@1");
    close(f(&row["rollouts"]), 4.0, 0.0);
    close(f(&row["problems"]), 5.0, 0.0);
    close(f(&row["variance"]), 0.3125, 1e-12);
    close(f(&row["omega2"]), 2.0 * 0.1145833333, 1e-9);
    close(f(&row["sigma2_a"]), 1.0 / 6.0, 1e-12);
    close(f(&row["mde"]), (Z2 * 0.3125 / 5.0).sqrt(), 1e-9);
    close(f(&row["problems_needed_exact"]), Z2 * 0.3125 / 0.01, 1e-6);
    let t4 = r["rows"][0]["tradeoff"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["factor"] == 4.0)
        .unwrap();
    close(f(&t4["mde_more_rollouts"]), (Z2 * 0.25 / 5.0).sqrt(), 1e-9);
    close(
        f(&t4["mde_more_problems"]),
        (Z2 * 0.3125 / 20.0).sqrt(),
        1e-9,
    );
    close(
        f(&row["mde_infinite_rollouts"]),
        (Z2 * 2.0 * 0.1145833333 / 5.0).sqrt(),
        1e-8,
    );

    // r = 0.5 is the correlation of per-problem scores (c/n at K = 4), as
    // compare prints it: Cov(x_A, x_B) = r·(between + within) = 0.5·0.15625,
    // ω² = 2·(0.1145833 − 0.078125) = 0.0729167; within stays:
    // V = 0.0729167 + 2/24 = 0.15625.
    let r = power_json(&[
        report.to_str().unwrap(),
        "--metric",
        "pass@1",
        "--correlation",
        "0.5",
    ]);
    close(
        f(&r["rows"][0]["omega2"]),
        2.0 * (0.1145833333 - 0.5 * 0.15625),
        1e-9,
    );
    close(f(&r["rows"][0]["variance"]), 0.15625, 1e-9);
    // Rollout noise caps the observable correlation at between/total =
    // 0.1145833/0.15625 = 0.733: r = 0.8 would need ω² < 0.
    let o = run(&[
        "power",
        report.to_str().unwrap(),
        "--metric",
        "pass@1",
        "--correlation",
        "0.8",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("0.733333"));

    // a non-report JSON is a usage error
    let o = run(&["power", data.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn usage_errors() {
    for args in [
        vec!["power", "--delta", "0.03"],
        vec!["power", "--omega2", "0.1"],
        vec![
            "power", "--omega2", "0.1", "--delta", "0.03", "--alpha", "1.5",
        ],
        vec![
            "power",
            "--baseline",
            "0.5",
            "--sigma2",
            "0.3",
            "--delta",
            "0.03",
        ],
    ] {
        assert_eq!(run(&args).status.code(), Some(2), "{args:?}");
    }
}

/// Issue 30 item 14: from a report, power covers the fraction metrics
/// (unit `fraction` in the catalogue) with a nonzero stderr; token metrics
/// and zero-variance rows are left out and the assumptions name them.
/// Problems (4 rollouts each, 100 + 10·i output tokens): a = 1000, b =
/// 1100, c = 0000, d = 1111. Every problem has the same pass@1 − maj@1
/// gap (0: one draw is its own majority), so that row has zero variance.
#[test]
fn from_report_fraction_metrics_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("r.jsonl");
    let verdicts = [[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]];
    let mut body = String::new();
    for (p, vs) in verdicts.iter().enumerate() {
        for (i, v) in vs.iter().enumerate() {
            let answer = if *v == 1 {
                "1".to_string()
            } else {
                format!("{}", 2 + i % 2)
            };
            body.push_str(&format!(
                "{{\"problem\": \"p{p}\", \"rollout\": {i}, \"correct\": {}, \"answer\": \"{answer}\", \"output_tokens\": {}}}\n",
                *v == 1,
                100 + 10 * (4 * p + i)
            ));
        }
    }
    std::fs::write(&data, body).unwrap();
    let report = dir.path().join("report.json");
    let o = run(&[
        "report",
        data.to_str().unwrap(),
        "--format",
        "json",
        "-o",
        report.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rep: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert!(
        rep["metrics"]["budget@1"].is_object(),
        "the report has token metrics"
    );
    assert_eq!(f(&rep["metrics"]["pass@1-maj@1"]["stderr"]), 0.0);
    let r = power_json(&[report.to_str().unwrap(), "--delta", "0.03"]);
    let metrics: Vec<&str> = r["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["metric"].as_str().unwrap())
        .collect();
    assert!(
        metrics.contains(&"pass@1") && metrics.contains(&"maj@4"),
        "{metrics:?}"
    );
    for m in &metrics {
        assert_eq!(rep["metrics"][m]["unit"], "fraction", "{m}");
        assert!(
            !m.starts_with("budget@") && !m.starts_with("cost_of_"),
            "{m}"
        );
        assert!(f(&rep["metrics"][m]["stderr"]) > 0.0, "{m}");
    }
    assert!(!metrics.contains(&"pass@1-maj@1"));
    let notes = r["assumptions"].to_string();
    assert!(
        notes.contains("not measured as a fraction") && notes.contains("budget@1"),
        "{notes}"
    );
    assert!(
        notes.contains("zero variance") && notes.contains("pass@1-maj@1"),
        "{notes}"
    );
    // Named, a token metric is powered all the same.
    let r = power_json(&[
        report.to_str().unwrap(),
        "--delta",
        "0.03",
        "--metric",
        "budget@1",
    ]);
    assert_eq!(r["rows"][0]["metric"], "budget@1");
}
