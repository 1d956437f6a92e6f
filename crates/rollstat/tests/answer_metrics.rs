//! Answer metrics only where answers exist (#10 item 17): an agent
//! benchmark (tau-bench rows carry a reward, no answer) and an n = 1 run
//! used to report self_consistency 100%, distinct_answers 1 or a warning
//! per answer metric. The engine now leaves maj@k, wmaj@n,
//! self_consistency, distinct_answers and pass@k − maj@k out of the report
//! and says why once, in `config.answer_metrics_left_out`.

use rollstat::{
    compare, report, AnswerMetricsLeftOut, CompareOptions, Report, ReportOptions, Source,
};

/// tau-bench's `EnvRunResult` list: 3 tasks × 2 trials, rewards
/// [1, 0], [1, 1], [0, 0] → pass@1 = (1/2 + 1 + 0)/3 = 1/2,
/// pass@2 = (1 + 1 + 0)/3 = 2/3, pass^2 = (0 + 1 + 0)/3 = 1/3.
const TAU: &str = r#"[
 {"task_id": 0, "trial": 0, "reward": 1.0, "info": {}, "traj": [{"role": "user", "content": "hi"}]},
 {"task_id": 0, "trial": 1, "reward": 0.0, "info": {}, "traj": []},
 {"task_id": 1, "trial": 0, "reward": 1.0, "info": {}, "traj": []},
 {"task_id": 1, "trial": 1, "reward": 1.0, "info": {}, "traj": []},
 {"task_id": 2, "trial": 0, "reward": 0.0, "info": {}, "traj": []},
 {"task_id": 2, "trial": 1, "reward": 0.0, "info": {}, "traj": []}
]"#;

/// One rollout per problem, each with an answer: 2 of 3 correct.
const N1: &str = r#"{"problem": "a", "correct": true, "answer": "1"}
{"problem": "b", "correct": false, "answer": "2"}
{"problem": "c", "correct": true, "answer": "3"}
"#;

fn bytes(name: &str, text: &str) -> Source {
    Source::Bytes {
        name: name.into(),
        bytes: text.as_bytes().to_vec(),
    }
}

fn is_answer_metric(name: &str) -> bool {
    name.contains("maj@") || name == "self_consistency" || name == "distinct_answers"
}

/// No answer metric anywhere in the report, its JSON, or its warnings.
fn assert_no_answer_metrics(r: &Report) {
    let names: Vec<&String> = r.block.metrics.iter().map(|(k, _)| k).collect();
    assert!(!names.iter().any(|n| is_answer_metric(n)), "{names:?}");
    assert!(r
        .block
        .not_computable
        .iter()
        .all(|(k, _)| !is_answer_metric(k)));
    let said: Vec<String> = r.health.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        !said
            .iter()
            .any(|w| w.contains("answer") || w.contains("maj@")),
        "{said:?}"
    );
    let json = r.to_json();
    assert!(!json.contains("self_consistency"), "{json}");
    assert!(!json.contains("\"maj@"), "{json}");
}

fn value(r: &Report, name: &str) -> f64 {
    r.block.metrics.get(name).unwrap().value
}

#[test]
fn agent_benchmark_without_answers_has_no_answer_metrics() {
    let opts = ReportOptions {
        per_problem: true,
        ..ReportOptions::default()
    };
    let r = report(&[bytes("tau.json", TAU)], &opts).unwrap();
    assert_eq!(r.inputs[0].format, "tau-bench");
    assert_eq!(value(&r, "pass@1"), 0.5);
    assert!((value(&r, "pass@2") - 2.0 / 3.0).abs() < 1e-15);
    assert!((value(&r, "pass^2") - 1.0 / 3.0).abs() < 1e-15);
    assert_no_answer_metrics(&r);
    assert_eq!(
        r.config.answer_metrics_left_out,
        Some(AnswerMetricsLeftOut::NoAnswers)
    );
    for p in r.per_problem.as_ref().unwrap() {
        assert!(p.values.iter().all(|(k, _)| !is_answer_metric(k)));
    }
    let json = r.to_json();
    assert!(json.contains(r#""answer_metrics_left_out": "no_answers""#));
    // The field reads back.
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(back.config, r.config);

    // compare: no maj@k or self_consistency rows, no warning for each.
    let c = compare(
        &[bytes("a.json", TAU), bytes("b.json", TAU)],
        &CompareOptions::default(),
    )
    .unwrap();
    assert!(c.rows.iter().all(|row| !is_answer_metric(&row.metric)));
    assert!(c.rows.iter().any(|row| row.metric == "pass@2"));
    let said: Vec<String> = c.warnings.iter().map(|w| w.to_string()).collect();
    assert!(!said.iter().any(|w| w.contains("answer")), "{said:?}");
    assert_eq!(
        c.config.answer_metrics_left_out,
        Some(AnswerMetricsLeftOut::NoAnswers)
    );
}

#[test]
fn one_rollout_per_problem_has_no_answer_metrics() {
    let r = report(&[bytes("n1.jsonl", N1)], &ReportOptions::default()).unwrap();
    assert_eq!(r.config.n, 1);
    assert!((value(&r, "pass@1") - 2.0 / 3.0).abs() < 1e-15);
    assert_no_answer_metrics(&r);
    assert_eq!(
        r.config.answer_metrics_left_out,
        Some(AnswerMetricsLeftOut::OneRollout)
    );
}

#[test]
fn answers_and_two_rollouts_keep_the_answer_metrics() {
    // a: answers 1, 1 (both correct) → maj@2 = 1, self_consistency 1;
    // b: answers 2, 3 (3 correct), tie policy first → maj@2 = 0 (first
    // cluster "2" is wrong), self_consistency 1/2. Means: maj@2 = 1/2,
    // self_consistency = 3/4, distinct_answers = 3/2.
    let rows = r#"{"problem": "a", "correct": true, "answer": "1"}
{"problem": "a", "correct": true, "answer": "1"}
{"problem": "b", "correct": false, "answer": "2"}
{"problem": "b", "correct": true, "answer": "3"}
"#;
    let r = report(&[bytes("two.jsonl", rows)], &ReportOptions::default()).unwrap();
    assert_eq!(r.config.answer_metrics_left_out, None);
    assert_eq!(value(&r, "maj@2"), 0.5);
    assert_eq!(value(&r, "self_consistency"), 0.75);
    assert_eq!(value(&r, "distinct_answers"), 1.5);
    assert!(!r.to_json().contains("answer_metrics_left_out"));
}
