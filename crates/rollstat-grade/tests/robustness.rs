//! Fuzz-style robustness: every call returns (no panic) within a generous
//! hang-guard bound. The real ≤10 ms/pair target is measured by
//! `cargo run --release --example bench -p rollstat-grade`.
//!
//! The guard reads the calling thread's CPU clock, not the wall clock: on a
//! loaded machine (tests run in parallel on 2 cores in CI) a thread can wait
//! for a core longer than the guard, which says nothing about the work the
//! call did.

use std::time::Duration;

use proptest::prelude::*;
use rollstat_grade::{
    canonical_key, cluster_answers, extract_answer, grade, is_equivalent, ExtractMode,
};

const GUARD: Duration = Duration::from_millis(100);

/// CPU time used by this thread so far.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant
    // every Linux and macOS libc defines.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Starts a CPU-time measurement of this thread.
struct CpuTimer(Duration);

impl CpuTimer {
    fn now() -> Self {
        CpuTimer(thread_cpu())
    }
    fn elapsed(&self) -> Duration {
        thread_cpu().saturating_sub(self.0)
    }
}

#[track_caller]
fn check_pair(a: &str, b: &str) {
    let t = CpuTimer::now();
    let v = is_equivalent(a, b);
    let dt = t.elapsed();
    assert!(
        dt < GUARD,
        "is_equivalent took {dt:?} on {:?} / {:?}",
        short(a),
        short(b)
    );
    let _ = v;
    let t = CpuTimer::now();
    let _ = canonical_key(a);
    assert!(t.elapsed() < GUARD, "canonical_key slow on {:?}", short(a));
}

#[track_caller]
fn check_extract(s: &str) {
    for mode in [ExtractMode::Math, ExtractMode::Mcq, ExtractMode::Number] {
        let t = CpuTimer::now();
        let _ = extract_answer(s, &mode);
        let dt = t.elapsed();
        assert!(
            dt < GUARD * 3,
            "extract {mode:?} took {dt:?} on {:?}",
            short(s)
        );
    }
}

fn short(s: &str) -> String {
    s.chars().take(80).collect()
}

fn adversarial() -> Vec<String> {
    let mut v = vec![
        "{".repeat(10_000),
        "}".repeat(10_000),
        format!("{}1{}", "{".repeat(3000), "}".repeat(3000)),
        format!("{}1{}", "(".repeat(3000), ")".repeat(3000)),
        format!("{}1{}", "\\frac{".repeat(500), "}{2}".repeat(500)),
        format!("{}2", "\\sqrt{".repeat(1000)),
        "10^{10^{10^{10}}}".to_string(),
        "2^99999999".to_string(),
        "2^{99999999}".to_string(),
        "(2^{99999999})^{99999999}".to_string(),
        "10^{-99999999}".to_string(),
        "99999999!".to_string(),
        "3000!".to_string(),
        "(3000!)!".to_string(),
        "\\binom{99999999}{49999999}".to_string(),
        "9".repeat(5000),
        "0.".to_string() + &"3".repeat(3000),
        "1E99999999".to_string(),
        "x^{x^{x^{x^{x^{x^{x}}}}}}".to_string(),
        "-".repeat(3000) + "1",
        "\\pm".repeat(500) + "1",
        "1,".repeat(2000),
        "(1,2),".repeat(600),
        "\\{".repeat(800),
        "|".repeat(999),
        "\\left(".repeat(1000),
        "\\begin{pmatrix}".repeat(200),
        "\\text{".repeat(500),
        "\\boxed{".repeat(5000),
        "$".repeat(10_000),
        "\\(".repeat(10_000),
        "\\[".repeat(10_000),
        "a".repeat(100_000),
        "ß∑∫√π∞≤≥€😀\u{0}\u{202e}".repeat(100),
        "\\".repeat(5001),
        "^".repeat(3000),
        "_".repeat(3000),
        "1/0".to_string(),
        "0^{-1}".to_string(),
        "0/0".to_string(),
        "\\frac{1}{0}".to_string(),
        "\\sqrt{-1}".to_string(),
        "\\log(0)".to_string(),
        "\\infty - \\infty".to_string(),
        "x = y = z = ".repeat(300),
        "1 < 2 < ".repeat(300) + "3",
        "and or and or".repeat(200),
        "\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}^{99999}".to_string(),
        "\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}".repeat(50),
    ];
    // 1 MB inputs
    v.push("1+".repeat(500_000));
    v.push(format!(
        "{} \\boxed{{42}}",
        "lorem ipsum $x$ ".repeat(65_000)
    ));
    v.push("\\boxed{".repeat(200_000));
    // many answer statements, follow-up questions and boxes (#10 item 18 rules)
    v.push("The answer is this answer is ".repeat(20_000));
    v.push("Answer: (".repeat(50_000));
    v.push("答案是".repeat(50_000));
    v.push("x\nQuestion: ".repeat(50_000));
    v.push("\\boxed{1} = \\boxed{2} = ".repeat(20_000));
    v.push("I'm sorry ".to_string() + &"3 and 1/4 ".repeat(50_000));
    v
}

#[test]
fn adversarial_inputs_terminate() {
    let cases = adversarial();
    for (i, a) in cases.iter().enumerate() {
        eprintln!("case {i}: {:?} ({} bytes)", short(a), a.len());
        check_extract(a);
        check_pair(a, "1");
        check_pair("1", a);
        check_pair(a, a);
    }
    // pathological pairs
    check_pair("2^{99999999}", "2^{99999998}");
    check_pair("10^{10^{10^{10}}}", "10^{10^{10^{10}}}+1");
    check_pair(&"(1,2),".repeat(250), &"(2,1),".repeat(250));
    let big_set = (0..256)
        .map(|i| format!("{i}!"))
        .collect::<Vec<_>>()
        .join(",");
    check_pair(&big_set, &big_set.replace("1!", "2!"));
}

#[test]
fn huge_exponent_is_limit_or_unequal_not_hang() {
    let v = is_equivalent("2^{99999999}", "2^{99999998}");
    assert!(!v.equal);
    let v = is_equivalent("10^{10^{10^{10}}}", "10^{10^{10^{10}}}+1");
    let _ = v; // either answer is acceptable, it just has to return
}

#[test]
fn grade_and_cluster_on_adversarial() {
    let cases = adversarial();
    for a in cases.iter().take(30) {
        let t = CpuTimer::now();
        let _ = grade(Some(a), None, "1", &ExtractMode::Math);
        let _ = grade(None, Some(a), "1", &ExtractMode::Mcq);
        assert!(t.elapsed() < GUARD * 4, "grade slow on {:?}", short(a));
    }
    let small: Vec<Option<&str>> = cases.iter().take(40).map(|s| Some(s.as_str())).collect();
    let t = CpuTimer::now();
    let ids = cluster_answers(&small);
    assert_eq!(ids.len(), small.len());
    assert!(t.elapsed() < Duration::from_secs(20));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_unicode_never_panics(a in "\\PC{0,200}", b in "\\PC{0,200}") {
        check_pair(&a, &b);
        check_extract(&a);
    }

    #[test]
    fn random_latex_soup_never_panics(
        a in proptest::collection::vec(proptest::sample::select(vec![
            "\\frac", "{", "}", "(", ")", "[", "]", "\\{", "\\}", "^", "_", "1", "23", "0.5", "x", "y",
            "e", "\\pi", "\\sqrt", "\\left", "\\right", ",", ";", "=", "<", "\\le", "\\in", "\\cup",
            "\\pm", "-", "+", "*", "/", "!", "%", "\\%", "|", "&", "\\\\", "\\begin{pmatrix}",
            "\\end{pmatrix}", "\\text{", "and", " ", "\\infty", "\\boxed{", "$", "\\cdot", "9999",
            "^{99999}", "\\sin", "\\log_", ":", "\\approx",
        ]), 0..60),
        b in proptest::collection::vec(proptest::sample::select(vec![
            "1", "2", "x", "+", "-", "(", ")", "{", "}", "\\frac", "^", "=", ",", "\\sqrt", "0.5",
        ]), 0..30),
    ) {
        let a: String = a.concat();
        let b: String = b.concat();
        check_pair(&a, &b);
        check_pair(&b, &a);
        check_extract(&a);
    }

    #[test]
    fn equivalence_is_reflexive_for_numbers(n in -1_000_000i64..1_000_000, d in 1i64..1000) {
        let s = format!("\\frac{{{n}}}{{{d}}}");
        prop_assert!(is_equivalent(&s, &s).equal);
        let q = format!("{n}/{d}");
        prop_assert!(is_equivalent(&s, &q).equal);
        prop_assert_eq!(canonical_key(&s), canonical_key(&q));
    }
}
