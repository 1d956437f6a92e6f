//! Clustering is a function of the set of answers: reversing and rotating
//! the input gives the same partition and the same count of capped
//! comparisons.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rollstat_grade::Grader;

/// Whether answers `i` and `j` share a cluster, keyed by the answers' text.
fn partition(answers: &[&str]) -> (Vec<Vec<bool>>, u64) {
    let opts: Vec<Option<&str>> = answers.iter().map(|a| Some(*a)).collect();
    let (ids, n) = Grader::default().cluster_answers_counted(&opts);
    let mut order: Vec<usize> = (0..answers.len()).collect();
    order.sort_by_key(|&i| answers[i]);
    let rel = order
        .iter()
        .map(|&i| {
            order
                .iter()
                .map(|&j| ids[i].is_some() && ids[i] == ids[j])
                .collect()
        })
        .collect();
    (rel, n)
}

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let answers: Vec<&str> = s.split('\n').take(64).collect();
    let reference = partition(&answers);
    let mut reversed = answers.clone();
    reversed.reverse();
    assert_eq!(partition(&reversed), reference);
    let mut rotated = answers.clone();
    rotated.rotate_left(answers.len() / 2);
    assert_eq!(partition(&rotated), reference);
});
