//! A directory walk through a symlink back up the tree reads each file
//! once and says what it passed over (#10 item 2): the issue's `a/up -> ..`
//! read one file 16 times (rollouts per problem 2 → 32, exit 0), and two
//! such links never finished.
#![cfg(unix)]
// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{report, IntervalMethod, ReportOptions, Source};

#[test]
fn an_up_link_does_not_multiply_rollouts() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    std::fs::create_dir(&a).unwrap();
    std::fs::write(
        a.join("r.jsonl"),
        "{\"problem\":\"p\",\"correct\":true}\n{\"problem\":\"p\",\"correct\":false}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("..", a.join("up")).unwrap();
    std::os::unix::fs::symlink("..", a.join("up2")).unwrap();
    let mut o = ReportOptions::default();
    o.intervals.method = IntervalMethod::None;
    let r = report(&[Source::Path(dir.path().into())], &o).unwrap();
    assert_eq!(r.health.n_rollouts_total, 2);
    assert_eq!(r.config.n, 2);
    let said: Vec<String> = r.health.warnings.iter().map(|f| f.to_string()).collect();
    let said = said.join("\n");
    assert!(
        said.contains("passed over") && said.contains("up"),
        "{said}"
    );
}
