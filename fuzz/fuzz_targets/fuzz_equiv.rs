//! Equivalence never panics, stays under its per-pair work cap (a capped
//! pair ends "not decided", `Reason::LimitExceeded`, never equal), and an
//! answer always equals itself unless it is unparseable or capped.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rollstat_grade::{grade, is_equivalent, ExtractMode, Reason};

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let (gold, answer) = s.split_once('\u{0}').unwrap_or((s, "0"));
    let v = is_equivalent(gold, answer);
    if v.reason == Reason::LimitExceeded {
        assert!(!v.equal);
    }
    let g = grade(None, Some(answer), gold, &ExtractMode::Math);
    assert!(!(g.undecided && g.correct));
    let same = is_equivalent(gold, gold);
    assert!(
        same.equal || matches!(same.reason, Reason::Unparseable | Reason::LimitExceeded),
        "{gold:?} != itself: {same:?}"
    );
});
