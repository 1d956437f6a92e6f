//! Time per answer pair: `cargo run --release -p rollstat-grade --example bench`.
//!
//! Runs every Math-Verify case (`tests/fixtures/math_verify_cases.jsonl`, a
//! copy of `../shared/cases/`) and a set of adversarial pairs, and prints the
//! typical (median), p99 and worst time of `extract + is_equivalent` per pair.

use std::time::{Duration, Instant};

use rollstat_grade::{cluster_answers, extract_answer, is_equivalent, ExtractMode};

fn cases() -> Vec<(String, String)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/math_verify_cases.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| {
            (
                v["gold"].as_str().unwrap_or("").to_string(),
                v["pred"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn adversarial() -> Vec<(String, String)> {
    let twos = |n: usize| vec!["2"; n].join("^");
    vec![
        // issue #10 item 7
        ("615!^3^32".into(), "0".into()),
        (format!("\\boxed{{{}}}", twos(36)), "0".into()),
        (twos(32), "1".into()),
        ("((((20!)!)!)!)!".into(), "1".into()),
        (
            (1..=60)
                .map(|i| format!("{}!", 2000 + i))
                .collect::<Vec<_>>()
                .join("\\cdot "),
            "1".into(),
        ),
        ("2^{99999999}".into(), "2^{99999998}".into()),
        ("10^{10^{10^{10}}}".into(), "10^{10^{10^{10}}}+1".into()),
        ("3000!".into(), "2999! \\cdot 3000".into()),
        (format!("{}1{}", "{".repeat(30), "}".repeat(30)), "1".into()),
        (
            format!("{}1{}", "\\frac{".repeat(30), "}{2}".repeat(30)),
            "2^{-30}".into(),
        ),
        ("(1,2),".repeat(250), "(2,1),".repeat(250)),
        (
            (0..256)
                .map(|i| format!("{i}!"))
                .collect::<Vec<_>>()
                .join(","),
            (0..256)
                .rev()
                .map(|i| format!("{i}!"))
                .collect::<Vec<_>>()
                .join(","),
        ),
        ("x^{x^{x^{x^{x}}}}".into(), "x^{x^{x^{x^{x}}}}+0".into()),
        (
            "\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}^{3}".into(),
            "\\begin{pmatrix}37&54\\\\81&118\\end{pmatrix}".into(),
        ),
        ("1+".repeat(1999) + "1", "2000".into()),
        ("a".repeat(3999), "b".repeat(3999)),
        (
            "lorem ipsum $x$ ".repeat(65_000) + "\\boxed{42}",
            "42".into(),
        ),
        ("\\boxed{".repeat(200_000), "1".into()),
        (
            (0..256)
                .map(|i| format!("7^{{{}}}", 9000 + i))
                .collect::<Vec<_>>()
                .join(","),
            (0..256)
                .map(|i| format!("7^{{{}}}", 9256 - i))
                .collect::<Vec<_>>()
                .join(","),
        ),
        (
            (0..40)
                .map(|i| format!("{}!", 3000 - i))
                .collect::<Vec<_>>()
                .join("+"),
            (0..40)
                .map(|i| format!("{}!", 2999 - i))
                .collect::<Vec<_>>()
                .join("+"),
        ),
        (
            (0..256)
                .map(|i| format!("(x+{i})^2"))
                .collect::<Vec<_>>()
                .join(","),
            (0..256)
                .map(|i| format!("x^2+{}x+{}", 2 * i + 1, i * i))
                .collect::<Vec<_>>()
                .join(","),
        ),
        (
            (0..256)
                .map(|i| format!("\\sqrt{{{}}}", i + 2))
                .collect::<Vec<_>>()
                .join(","),
            (0..256)
                .map(|i| format!("\\sqrt{{{}}}", i + 3))
                .collect::<Vec<_>>()
                .join(","),
        ),
        (
            (0..256)
                .map(|i| format!("\\sqrt{{{}}}", 99_999_989 - 2 * i))
                .collect::<Vec<_>>()
                .join(","),
            (0..256)
                .map(|i| format!("\\sqrt{{{}}}", 99_999_787 + 2 * i))
                .collect::<Vec<_>>()
                .join(","),
        ),
    ]
}

fn main() {
    // `bench cluster`: only the clustering timings
    if std::env::args().nth(1).as_deref() != Some("cluster") {
        pairs();
    }
    clustering();
}

fn pairs() {
    let mut times: Vec<(Duration, String)> = Vec::new();
    let mut all: Vec<(String, String, bool)> =
        cases().into_iter().map(|(a, b)| (a, b, true)).collect();
    all.extend(adversarial().into_iter().map(|(a, b)| (a, b, false)));
    for (gold, pred, extract) in &all {
        // warm-up excluded: measure the median of 5 runs per pair
        let mut runs = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            if *extract {
                let g = extract_answer(gold, &ExtractMode::Math).unwrap_or_else(|| gold.clone());
                let p = extract_answer(pred, &ExtractMode::Math).unwrap_or_else(|| pred.clone());
                let _ = is_equivalent(&g, &p);
            } else {
                // adversarial answers go straight to the checker
                let _ = is_equivalent(gold, pred);
            }
            runs.push(t.elapsed());
            if runs[0] > Duration::from_millis(500) {
                break; // pathological (before a fix): one run is enough
            }
        }
        runs.sort();
        let label: String = format!(
            "{} | {:?}",
            gold.chars().take(40).collect::<String>(),
            if runs[0] > Duration::from_millis(500) {
                "(not re-run)".to_string()
            } else {
                format!("{:?}", is_equivalent(gold, pred).reason)
            }
        );
        times.push((runs[runs.len() / 2], label));
    }
    times.sort_by_key(|t| t.0);
    let n = times.len();
    let pct = |q: f64| times[((n as f64 - 1.0) * q) as usize].0;
    println!("pairs: {n}");
    println!(
        "median: {:?}  p90: {:?}  p99: {:?}  max: {:?}",
        pct(0.5),
        pct(0.9),
        pct(0.99),
        times[n - 1].0
    );
    for (d, l) in times.iter().rev().take(8) {
        println!("  slowest {d:?}  {l:?}");
    }
}

fn clustering() {
    // clustering 300 answers
    let owned: Vec<String> = (0..300)
        .map(|i| format!("\\frac{{{}}}{{{}}}", i % 97, 1 + i % 13))
        .collect();
    let sym: Vec<String> = (0..300).map(|i| format!("(x+{})^2", i % 60)).collect();
    let distinct: Vec<String> = (0..300)
        .map(|i| format!("x^{{2}}+{i}x+\\sqrt{{{}}}", i + 2))
        .collect();
    let distinct_sets: Vec<String> = (0..300).map(|i| format!("({i}, x+{i})")).collect();
    // issue #10 item 8: 10k distinct long answers in one problem
    let long: Vec<String> = (0..10_000)
        .map(|i| format!("the set of all points at distance {i} from the line through A and B, excluding the endpoints of segment AB and its midpoint"))
        .collect();
    let long_answers: Vec<Option<&str>> = long.iter().map(|s| Some(s.as_str())).collect();
    let t = Instant::now();
    let ids = cluster_answers(&long_answers);
    let k = ids.iter().flatten().max().map_or(0, |m| m + 1);
    println!(
        "cluster 10000 distinct long answers -> {k} clusters in {:?}",
        t.elapsed()
    );
    let exprs: Vec<String> = (0..10_000)
        .map(|i| format!("x^{{2}}+{i}x+\\sqrt{{{}}}+\\frac{{y}}{{{}}}", i + 2, i + 1))
        .collect();
    let expr_answers: Vec<Option<&str>> = exprs.iter().map(|s| Some(s.as_str())).collect();
    let t = Instant::now();
    let ids = cluster_answers(&expr_answers);
    let k = ids.iter().flatten().max().map_or(0, |m| m + 1);
    println!(
        "cluster 10000 distinct symbolic answers -> {k} clusters in {:?}",
        t.elapsed()
    );
    for (name, set) in [
        ("numeric", &owned),
        ("symbolic", &sym),
        ("all-distinct symbolic", &distinct),
        ("all-distinct tuples", &distinct_sets),
    ] {
        let answers: Vec<Option<&str>> = set.iter().map(|s| Some(s.as_str())).collect();
        let t = Instant::now();
        let ids = cluster_answers(&answers);
        let k = ids.iter().flatten().max().map_or(0, |m| m + 1);
        println!(
            "cluster 300 {name} answers -> {k} clusters in {:?}",
            t.elapsed()
        );
    }
}
