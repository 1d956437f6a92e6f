//! Outputs never destroy inputs: `-o` naming an input (directly, through
//! `./`, a symlink or a hard link) is refused before anything is written;
//! `-o -` is stdout; files are replaced whole, never left truncated.

mod common;
use common::run_in as run;

const ROWS: &str = "{\"problem\": \"p1\", \"gold\": \"0.5\", \"answer\": \"1/2\"}\n{\"problem\": \"p1\", \"gold\": \"0.5\", \"answer\": \"3\"}\n";

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.jsonl"), ROWS).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("x.jsonl", dir.path().join("link.jsonl")).unwrap();
    std::fs::hard_link(dir.path().join("x.jsonl"), dir.path().join("hard.jsonl")).unwrap();
    dir
}

#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let dir = setup();
    let d = dir.path();
    let mut targets = vec!["x.jsonl", "./x.jsonl", "hard.jsonl"];
    if cfg!(unix) {
        targets.push("link.jsonl");
    }
    for cmd in ["grade", "report", "convert"] {
        for out in &targets {
            let o = run(d, &[cmd, "x.jsonl", "-o", out]);
            assert_eq!(o.status.code(), Some(2), "{cmd} -o {out}");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains("the output is the input"), "{cmd}: {err}");
            assert_eq!(std::fs::read_to_string(d.join("x.jsonl")).unwrap(), ROWS);
        }
    }
    let o = run(d, &["compare", "x.jsonl", "x.jsonl", "-o", "hard.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(d.join("x.jsonl")).unwrap(), ROWS);
}

#[test]
fn dash_is_stdout_and_files_are_written_whole() {
    let dir = setup();
    let d = dir.path();
    let o = run(d, &["grade", "x.jsonl", "-o", "-"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"correct\": true"));
    assert!(!d.join("-").exists());
    let o = run(
        d,
        &[
            "report", "x.jsonl", "--ci", "none", "--format", "json", "-o", "-",
        ],
    );
    assert!(o.status.success());
    assert!(o.stdout.starts_with(b"{"));
    assert!(!d.join("-").exists());
    // A file output replaces the destination; no temporary file stays behind.
    std::fs::write(d.join("out.jsonl"), "old").unwrap();
    let o = run(d, &["grade", "x.jsonl", "-o", "out.jsonl"]);
    assert!(o.status.success());
    let graded = std::fs::read_to_string(d.join("out.jsonl")).unwrap();
    assert_eq!(graded.lines().count(), 2);
    let leftovers: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
    // A run that fails leaves an existing output untouched.
    let o = run(d, &["report", "missing.jsonl", "-o", "out.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(d.join("out.jsonl")).unwrap(),
        graded
    );
}

/// `-o /dev/null` (what benchmarks and scripts use to discard output) writes
/// to the device: renaming a temporary file over it would replace the
/// machine's `/dev/null` with a regular file.
#[cfg(unix)]
#[test]
fn a_device_output_is_written_in_place_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = setup();
    let d = dir.path();
    for args in [
        &["report", "x.jsonl", "--ci", "none", "-o", "/dev/null"][..],
        &["grade", "x.jsonl", "-o", "/dev/null"][..],
        &["convert", "x.jsonl", "-o", "/dev/null"][..],
    ] {
        let o = run(d, args);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let meta = std::fs::metadata("/dev/null").unwrap();
        assert!(
            meta.file_type().is_char_device(),
            "{args:?} replaced /dev/null"
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir("/dev")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".rollstat-"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "temporary files left in /dev: {leftovers:?}"
    );
}

/// An output named through a symlink replaces the file it points to and
/// leaves the link a link.
#[cfg(unix)]
#[test]
fn a_symlinked_output_keeps_the_link() {
    let dir = setup();
    let d = dir.path();
    std::fs::write(d.join("out.json"), "old").unwrap();
    std::os::unix::fs::symlink("out.json", d.join("out-link.json")).unwrap();
    let o = run(
        d,
        &[
            "report",
            "x.jsonl",
            "--ci",
            "none",
            "--format",
            "json",
            "-o",
            "out-link.json",
        ],
    );
    assert!(o.status.success());
    let link = std::fs::symlink_metadata(d.join("out-link.json")).unwrap();
    assert!(link.file_type().is_symlink());
    let written = std::fs::read_to_string(d.join("out.json")).unwrap();
    assert!(written.contains("\"metrics\""), "{written}");
}

/// A file a directory input's walk reads is an input too: converting
/// `runs/` into `runs/all.jsonl` a second time would replace it with its own
/// rows plus the others again. A report beside the runs (`.md`), or an
/// output that does not exist yet, is fine.
#[test]
fn an_output_read_by_an_input_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("runs/a")).unwrap();
    std::fs::write(d.join("runs/a/x.jsonl"), ROWS).unwrap();
    let o = run(d, &["convert", "runs", "-o", "runs/all.jsonl"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let all = std::fs::read_to_string(d.join("runs/all.jsonl")).unwrap();
    assert_eq!(all.lines().count(), 2);
    for (cmd, out) in [
        ("convert", "runs/all.jsonl"),
        ("convert", "./runs/a/../all.jsonl"),
        ("report", "runs/a/x.jsonl"),
        ("report", "runs/all.jsonl"),
    ] {
        let o = run(d, &[cmd, "runs", "-o", out]);
        assert_eq!(o.status.code(), Some(2), "{cmd} -o {out}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("read as an input inside the directory runs"),
            "{err}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(d.join("runs/all.jsonl")).unwrap(),
        all
    );
    assert_eq!(
        std::fs::read_to_string(d.join("runs/a/x.jsonl")).unwrap(),
        ROWS
    );
    std::fs::write(d.join("runs/report.md"), "old").unwrap();
    let o = run(
        d,
        &[
            "report",
            "runs",
            "--ci",
            "none",
            "--format",
            "markdown",
            "-o",
            "runs/report.md",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
