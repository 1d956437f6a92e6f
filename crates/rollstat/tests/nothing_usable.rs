//! A directory walk that finds nothing usable says why (#10 item 16): it
//! used to answer "every input was empty or malformed" when the files were
//! passed over for their extension or not recognised.

// Options are built field by field, as a user of the library does.
#![allow(clippy::field_reassign_with_default)]
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

/// Issue 30 item 11: when every row is malformed (columns not named
/// `problem` / `correct`, a float reward in `correct`), the error is the
/// typed [`rollstat::Error::MalformedRowsOnly`] with the first rows and
/// their reasons, not "every input was empty or malformed".
#[test]
fn every_row_malformed_names_the_first_rows_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.jsonl");
    let text = "{\"id\": 1, \"passed\": true}\n{\"id\": 2, \"passed\": false}\n\
                {\"problem\": \"p\", \"correct\": 0.5}\n{\"problem\": \"q\", \"correct\": 0.25}\n";
    std::fs::write(&path, text).unwrap();
    // Read as canonical rows (a first line without `problem` is otherwise
    // not recognised as canonical at all, which is its own error).
    let mut o = ReportOptions::default();
    o.source_format = Some(rollstat::Format::CanonicalJsonl);
    let e = report(&[Source::Path(path.clone())], &o).unwrap_err();
    let rollstat::Error::MalformedRowsOnly { total, first } = &e else {
        panic!("expected MalformedRowsOnly, got {e:?}");
    };
    assert_eq!(*total, 4);
    assert_eq!(first.len(), rollstat::MALFORMED_SHOWN);
    assert_eq!(
        first.iter().map(|b| b.line).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    assert!(first[0].reason.contains("problem"), "{:?}", first[0]);
    assert!(first[2].reason.contains("correct"), "{:?}", first[2]);
    let text = e.to_string();
    assert!(
        text.contains("all 4 rows were malformed") && text.contains("rows.jsonl:1:"),
        "{text}"
    );
    assert!(
        !text.contains("every input was empty or malformed"),
        "{text}"
    );
}

/// Issue 30 item 15: `by`, `cluster_by` and a named `budget` that no row
/// has are findings (a misspelt field used to change nothing, silently);
/// the right names give none.
#[test]
fn a_field_no_row_has_is_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.jsonl");
    let text: String = (0..6)
        .map(|i| {
            format!(
                "{{\"problem\": \"p{}\", \"correct\": {}, \"subset\": \"s{}\", \"output_tokens\": {}}}\n",
                i / 2,
                i % 3 == 0,
                i % 2,
                100 + i
            )
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    let absent = |by: &str, cluster: &str, budget: &str| {
        let mut o = ReportOptions::default();
        o.by = Some(by.into());
        o.intervals.cluster_by = Some(cluster.into());
        o.metrics.budget = rollstat::Budget::Field(budget.into());
        let r = report(&[Source::Path(path.clone())], &o).unwrap();
        r.health
            .warnings
            .iter()
            .filter_map(|f| match f {
                rollstat::Finding::FieldAbsent { option, field } => {
                    Some((option.clone(), field.clone()))
                }
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        absent("subest", "tmpl", "tokens"),
        vec![
            s("by", "subest"),
            s("cluster_by", "tmpl"),
            s("budget", "tokens")
        ]
    );
    assert_eq!(absent("subset", "subset", "output_tokens"), vec![]);
    let t = rollstat::Finding::FieldAbsent {
        option: "by".into(),
        field: "subest".into(),
    }
    .to_string();
    assert!(
        t.contains("'subest' (by)") && t.contains("'(none)' group"),
        "{t}"
    );
}
