//! A directory walk that finds nothing usable says why (#10 item 16): it
//! used to answer "every input was empty or malformed" when the files were
//! passed over for their extension or not recognised.

use rollstat::{report, ReportOptions, Source};

#[test]
fn an_empty_walk_names_the_files_passed_over_and_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    std::fs::write(dir.path().join("other.json"), r#"{"hello": 1}"#).unwrap();
    let e = report(
        &[Source::Path(dir.path().into())],
        &ReportOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(!e.contains("every input was empty or malformed"), "{e}");
    assert!(
        e.contains("1 file(s) passed over") && e.contains("notes.txt (extension .txt"),
        "{e}"
    );
    assert!(
        e.contains("1 file(s) could not be read") && e.contains("other.json"),
        "{e}"
    );
}
