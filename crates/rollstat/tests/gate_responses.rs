//! A gate lists the responses of its flipped problems, both sides.

use rollstat::gate::{gate, plan_record, BenchmarkSources, GateOptions, GatePlan, SuiteSources};
use rollstat::rows::{RolloutRow, Row};
use rollstat::Source;

/// Two rollouts per problem; `solved[i]` says whether problem i's are
/// correct; each response names its side, problem and rollout.
fn side(name: &str, solved: &[bool]) -> Source {
    let rows = solved
        .iter()
        .enumerate()
        .flat_map(|(i, &ok)| {
            (0..2).map(move |r| {
                let response = (r == 0).then(|| format!("{name}: p{i} rollout {r}"));
                Row::from(RolloutRow {
                    answer: Some(Some(if ok { "4" } else { "5" }.to_string())),
                    response,
                    ..RolloutRow::new(format!("p{i}"), ok)
                })
            })
        })
        .collect();
    Source::Rows {
        name: name.into(),
        rows,
    }
}

#[test]
fn a_flipped_problem_lists_both_sides_responses() {
    let text = "margin = 0.05\n[[benchmark]]\nname = 'toy'\nbaseline = 'a'\ncandidate = 'b'\n";
    let plan = GatePlan::from_toml(text, "plan.toml").unwrap();
    let sources = SuiteSources::Declared(vec![BenchmarkSources {
        name: "toy".into(),
        baseline: vec![side("a", &[true, true, false, true])],
        candidate: vec![side("b", &[true, false, false, true])],
    }]);
    let g = gate(
        &plan,
        plan_record("plan.toml", text),
        sources,
        &GateOptions::default(),
    )
    .unwrap();
    let flipped = &g.benchmarks[0].flipped;
    assert_eq!(flipped.len(), 1);
    let f = &flipped[0];
    assert_eq!(f.problem, "p1");
    assert_eq!(f.a.responses, [Some("a: p1 rollout 0".to_string()), None]);
    assert_eq!(f.b.responses, [Some("b: p1 rollout 0".to_string()), None]);
    assert!(g.to_json().contains("\"responses\""));
}

/// Both sides split into benchmarks by subset (ids holding `/`): each
/// benchmark's flipped problem lists its own responses, cut at 2,000
/// characters.
#[test]
fn discovered_benchmarks_list_their_own_responses() {
    let long = "x".repeat(2_500);
    let bytes = |flip: bool| {
        let mut out = String::new();
        for subset in ["s1", "s2"] {
            for i in 0..3 {
                let ok = !(flip && i == 0);
                let response = if subset == "s2" {
                    long.clone()
                } else {
                    format!("{subset} {i} {ok}")
                };
                out.push_str(&format!(
                    "{{\"problem\": \"a/{i}\", \"subset\": \"{subset}\", \"correct\": {ok}, \"response\": \"{response}\"}}\n"
                ));
            }
        }
        out.into_bytes()
    };
    let text = "margin = 0.05\n";
    let plan = GatePlan::from_toml(
        "margin = 0.05\nbaseline = 'a.jsonl'\ncandidate = 'b.jsonl'\n",
        "plan.toml",
    )
    .unwrap();
    let sources = SuiteSources::Discovered {
        baseline: vec![Source::Bytes {
            name: "a.jsonl".into(),
            bytes: bytes(false),
        }],
        candidate: vec![Source::Bytes {
            name: "b.jsonl".into(),
            bytes: bytes(true),
        }],
    };
    let g = gate(
        &plan,
        plan_record("plan.toml", text),
        sources,
        &GateOptions::default(),
    )
    .unwrap();
    assert_eq!(g.benchmarks.len(), 2);
    let f = &g.benchmarks[0].flipped[0];
    assert_eq!(f.problem, "s1/a/0");
    assert_eq!(f.a.responses, [Some("s1 0 true".to_string())]);
    assert_eq!(f.b.responses, [Some("s1 0 false".to_string())]);
    let cut = g.benchmarks[1].flipped[0].a.responses[0].clone().unwrap();
    assert_eq!(cut.chars().count(), 2_001);
    assert!(cut.ends_with('…'));
}
