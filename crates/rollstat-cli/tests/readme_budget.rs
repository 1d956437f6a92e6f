//! The README's worked examples for the two budget questions ("Is B better
//! than A at the same token budget?", "What would pass@100 be?") run as
//! written: every `rollstat …` command in their `sh` blocks is run and every
//! `#` output line under it must appear in its output (`…` stands for
//! columns left out; runs of spaces count as one). The `jq -c '.correct |=
//! .[:m]'` step is done here in Rust (keep the first m verdicts of each
//! problem row), so the test needs no jq.

mod common;
use common::{root, run_in};
use std::path::Path;

/// The README text from the budget question's heading to the next `## `.
fn budget_sections() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("### Is B better than A at the same token budget?")
        .expect("the budget section");
    let end = readme[start..]
        .find("\n## ")
        .map_or(readme.len(), |i| start + i);
    readme[start..end].to_string()
}

/// The lines of every `sh` block of `text`.
fn sh_blocks(text: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```sh") => current = Some(Vec::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(b), _) => b.push(line.to_string()),
            _ => {}
        }
    }
    blocks
}

fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `jq -c '.correct |= .[:m]' SRC > DST`: SRC read from the repository,
/// DST written into `dir`.
fn first_verdicts(line: &str, dir: &Path) {
    let rest = line
        .strip_prefix("jq -c '.correct |= .[:")
        .expect("the only jq step the README uses");
    let (m, rest) = rest.split_once("]' ").unwrap();
    let m: usize = m.parse().unwrap();
    let (src, dst) = rest.split_once(" > ").unwrap();
    let mut out = String::new();
    for row in std::fs::read_to_string(root().join(src.trim()))
        .unwrap()
        .lines()
    {
        let mut v: serde_json::Value = serde_json::from_str(row).unwrap();
        let kept: Vec<_> = v["correct"].as_array().unwrap()[..m].to_vec();
        v["correct"] = kept.into();
        out += &format!("{v}\n");
    }
    std::fs::write(dir.join(dst.trim()), out).unwrap();
}

/// Runs a README command line (plain words, no quoting) in `dir`.
fn run(line: &str, dir: &Path) -> String {
    let mut words = line.split_whitespace();
    assert_eq!(words.next(), Some("rollstat"));
    let out = run_in(dir, &words.collect::<Vec<_>>());
    assert!(
        out.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Whether some line of `output` holds the pieces of `expected` (split at
/// `…`) in order.
fn shows(output: &str, expected: &str) -> bool {
    let pieces: Vec<String> = expected
        .split('…')
        .map(squeeze)
        .filter(|p| !p.is_empty())
        .collect();
    output.lines().map(squeeze).any(|line| {
        let mut from = 0;
        pieces.iter().all(|p| match line[from..].find(p.as_str()) {
            Some(i) => {
                from += i + p.len();
                true
            }
            None => false,
        })
    })
}

#[test]
fn budget_examples_run_as_written() {
    let dir = tempfile::tempdir().unwrap();
    // Commands name examples/… relative to the repository root.
    #[cfg(unix)]
    std::os::unix::fs::symlink(root().join("examples"), dir.path().join("examples")).unwrap();
    let blocks = sh_blocks(&budget_sections());
    assert_eq!(blocks.len(), 2, "one block per question");
    let mut checked = 0;
    for block in blocks {
        let mut output = String::new();
        for line in &block {
            if line.starts_with("jq ") {
                first_verdicts(line, dir.path());
            } else if line.starts_with("rollstat ") {
                output = run(line, dir.path());
            } else if let Some(expected) = line.strip_prefix('#') {
                assert!(
                    shows(&output, expected),
                    "README line\n{line}\nnot in\n{output}"
                );
                checked += usize::from(expected.trim() != "…");
            }
        }
    }
    // Header, pass@1, the budget-matched row; the pass@100_fit row, the fit check.
    assert_eq!(checked, 5);
}
