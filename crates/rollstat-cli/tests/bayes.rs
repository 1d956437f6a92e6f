//! `rollstat report --ci beta-binomial`: the model-based interval of pass@k
//! on a 20-problem set (tests/fixtures/bayes/small20.jsonl: count rows, n = 4,
//! c = i mod 5 for problems 0..19), against the same hierarchical model
//! integrated by adaptive quadrature in scipy 1.17.1 (docs/statistics.md §12;
//! `integrate.dblquad` over μ and ln κ with epsrel 1e-10, the bounds by
//! `optimize.brentq` on the integrated CDF; for pass@4 the CDF integrates μ
//! up to the root of θ(μ, κ) = x for each κ, `integrate.quad` nested; the
//! same for pass^2).

mod common;
use common::{close, f, fixture, json, run, run_with};
use serde_json::Value;

fn report(extra: &[&str]) -> Value {
    let path = fixture("bayes/small20.jsonl");
    let args = [&["report", path.as_str(), "--format", "json"][..], extra].concat();
    json(&run(&args))
}

fn ci(r: &Value, metric: &str) -> (f64, f64, String) {
    let m = &r["metrics"][metric];
    let method = m["method"].as_str().unwrap_or_default().to_string();
    (f(&m["ci"][0]), f(&m["ci"][1]), method)
}

#[test]
fn uniform_prior_matches_quadrature() {
    let r = report(&["--ci", "beta-binomial"]);
    let label = "beta-binomial model, uniform prior";
    assert_eq!(r["config"]["ci"]["method"], label);
    let (lo, hi, method) = ci(&r, "pass@1");
    assert_eq!(method, label);
    close(lo, 0.3510402794997227, 1e-4);
    close(hi, 0.648959720500278, 1e-4);
    let (lo, hi, _) = ci(&r, "pass@4");
    close(lo, 0.6029738400574856, 1e-4);
    close(hi, 0.9210152992809344, 1e-4);
    // The point estimate stays the unbiased one: the mean of c/n is 0.5,
    // pass@4 the share of problems with a success, 16/20.
    close(f(&r["metrics"]["pass@1"]["value"]), 0.5, 1e-15);
    close(f(&r["metrics"]["pass@4"]["value"]), 0.8, 1e-15);
    // pass^2 = E[p²] under the same model.
    let (lo, hi, method) = ci(&r, "pass^2");
    assert_eq!(method, label);
    close(lo, 0.19523186763695585, 1e-4);
    close(hi, 0.5124932409296455, 1e-4);
}

#[test]
fn jeffreys_prior_matches_quadrature() {
    let r = report(&["--ci", "beta-binomial", "--prior", "jeffreys"]);
    let (lo, hi, method) = ci(&r, "pass@1");
    assert_eq!(method, "beta-binomial model, jeffreys prior");
    close(lo, 0.34923245038860384, 1e-4);
    close(hi, 0.6507675496113975, 1e-4);
}

/// G-Pass is not modelled: it gets the percentile bootstrap, labelled so,
/// and a finding names it.
#[test]
fn other_metrics_fall_back_and_say_so() {
    let r = report(&["--ci", "beta-binomial"]);
    let (_, _, method) = ci(&r, "g-pass@4_0.5");
    assert_eq!(method, "bootstrap");
    let findings = r["health"]["findings"].as_array().expect("findings");
    let fallback = findings
        .iter()
        .find(|x| x["kind"] == "model_fallback")
        .expect("a model_fallback finding");
    let metrics: Vec<&str> = fallback["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(metrics.contains(&"g-pass@4_0.5"), "{metrics:?}");
    assert!(
        !metrics.contains(&"pass@1") && !metrics.contains(&"pass^2"),
        "{metrics:?}"
    );
}

#[test]
fn bad_prior_is_named() {
    let path = fixture("bayes/small20.jsonl");
    let o = run(&["report", &path, "--ci", "beta-binomial", "--prior", "flat"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--prior: unknown prior 'flat'; expected uniform or jeffreys"),
        "{err}"
    );
}

/// compare refuses the model-based method (it is for one system).
#[test]
fn compare_refuses_the_model() {
    let path = fixture("bayes/small20.jsonl");
    let o = run(&["compare", &path, &path, "--ci", "beta-binomial"]);
    assert_ne!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("beta-binomial"), "{err}");
}

/// The model-based interval draws no random numbers and sums its grid in
/// order: the same bytes for any thread count.
#[test]
fn same_bytes_for_any_thread_count() {
    let path = fixture("bayes/small20.jsonl");
    let args = [
        "report",
        path.as_str(),
        "--ci",
        "beta-binomial",
        "--format",
        "json",
    ];
    assert_eq!(run_with(&args, "1"), run_with(&args, "3"));
}
