//! One row, one verdict, on every path (#10 item 4): a row is accepted or
//! refused the same whether the byte scanner, the serde fast path or the
//! general path reads it — and which one reads it depends on `--by`. Before,
//! invalid UTF-8, a lone surrogate or deep nesting inside a field no path
//! uses passed the fast paths and failed the general one, so `--by level`
//! changed pass@1. A key given twice was read as "last wins" everywhere.

use rollstat_io::{Collector, Input, ReadError, ReadOptions};

/// Rows whose defects sit in fields the fast paths skip; every one of them
/// but the first is invalid JSON or ambiguous, whatever reads it.
fn rows() -> Vec<u8> {
    let deep = format!(
        r#"{{"problem":"p4","correct":true,"x":{}1{}}}"#,
        "[".repeat(130),
        "]".repeat(130)
    );
    let mut out = Vec::new();
    for line in [
        br#"{"problem":"p1","correct":false,"subset":"s"}"#.to_vec(),
        b"{\"problem\":\"p2\",\"correct\":true,\"note\":\"\xff\xfe\"}".to_vec(),
        br#"{"problem":"p3","correct":true,"note":"\ud800"}"#.to_vec(),
        deep.into_bytes(),
        br#"{"problem":"p5","correct":true,"note":1,"note":2}"#.to_vec(),
        br#"{"problem":"p6","correct":true,"correct":false}"#.to_vec(),
        br#"{"problem":"p7","correct":true,"subset":"s","sub\u0073et":"t"}"#.to_vec(),
        br#"{"problem":"p8","n":2,"c":1,"n":3}"#.to_vec(),
    ] {
        out.extend_from_slice(&line);
        out.push(b'\n');
    }
    out
}

fn read(by: Option<&str>, strict: bool) -> Result<rollstat_io::Collected, ReadError> {
    let mut c = Collector::new(ReadOptions {
        by: by.map(str::to_string),
        strict,
        ..Default::default()
    });
    c.add(Input::from_bytes("rows.jsonl", rows()))?;
    c.finish()
}

#[test]
fn every_path_refuses_the_same_rows() {
    // None and `subset`: the scanner and serde fast path read clean rows;
    // `level` (a field they do not know) sends every row to the general path.
    for by in [None, Some("subset"), Some("level")] {
        let got = read(by, false).unwrap();
        let problems: Vec<&str> = got.problems.iter().map(|p| p.problem.as_str()).collect();
        assert_eq!(problems, ["p1"], "by {by:?}");
        let lines: Vec<u64> = got.bad_lines.iter().map(|b| b.line).collect();
        assert_eq!(lines, [2, 3, 4, 5, 6, 7, 8], "by {by:?}");
        let reasons: Vec<&str> = got.bad_lines.iter().map(|b| b.reason.as_str()).collect();
        for (i, key) in [(3, "note"), (4, "correct"), (5, "subset"), (6, "n")] {
            assert!(
                reasons[i].contains(&format!("key `{key}` appears twice")),
                "{}",
                reasons[i]
            );
        }
    }
}

#[test]
fn strict_stops_at_the_first_refused_row() {
    for by in [None, Some("level")] {
        match read(by, true) {
            Err(ReadError::Strict(bad)) => assert_eq!(bad.line, 2, "{bad}"),
            other => panic!("expected a strict error, got {other:?}"),
        }
    }
    // A duplicated key alone is enough under strict.
    let mut c = Collector::new(ReadOptions {
        strict: true,
        ..Default::default()
    });
    let e = c
        .add(Input::from_bytes(
            "dup.jsonl",
            br#"{"problem": "a", "correct": true, "correct": false}"#.to_vec(),
        ))
        .unwrap_err();
    assert!(e.to_string().contains("`correct` appears twice"), "{e}");
}

#[test]
fn a_csv_column_named_twice_is_refused() {
    let mut c = Collector::new(ReadOptions::default());
    c.add(Input::from_bytes(
        "dup.csv",
        b"problem,correct,correct\np1,true,false\n".to_vec(),
    ))
    .unwrap();
    let got = c.finish().unwrap();
    assert!(got.problems.is_empty());
    assert_eq!(got.bad_lines.len(), 1);
    assert!(
        got.bad_lines[0]
            .reason
            .contains("column `correct` appears twice"),
        "{}",
        got.bad_lines[0]
    );
}
