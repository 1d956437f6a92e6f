//! A directory walk reads every file once: symlinks back up the tree and
//! second links to a file are passed over and named (#10 item 2).
#![cfg(unix)]

use rollstat_formats::read_path_lenient;

#[test]
fn symlink_loops_and_hard_links_are_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    std::fs::create_dir(&a).unwrap();
    std::fs::write(a.join("r.jsonl"), "{\"problem\":\"p\",\"correct\":true}\n").unwrap();
    std::fs::hard_link(a.join("r.jsonl"), a.join("s.jsonl")).unwrap();
    // Two links up the tree: without a visited set the walk never ends.
    std::os::unix::fs::symlink("..", a.join("up")).unwrap();
    std::os::unix::fs::symlink("..", a.join("up2")).unwrap();
    let report = read_path_lenient(dir.path(), None).unwrap();
    assert_eq!(report.canonical.len(), 1, "{:?}", report.canonical);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let why: Vec<&str> = report.skipped.iter().map(|(_, w)| w.as_str()).collect();
    assert_eq!(
        why.iter().filter(|w| w.contains("a symlink")).count(),
        2,
        "{why:?}"
    );
    assert_eq!(
        why.iter().filter(|w| w.contains("a link")).count(),
        1,
        "{why:?}"
    );
}
