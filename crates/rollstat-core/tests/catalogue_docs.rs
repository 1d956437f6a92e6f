//! The README's metric table names every family of the catalogue, and
//! every key it names is one of the catalogue's grammars.

use rollstat_core::catalogue::{Family, MetricKey, CATALOGUE};
use std::collections::BTreeSet;

/// The first cells of the table under `## Metrics`.
fn metric_cells(readme: &str) -> Vec<String> {
    let section = readme
        .split("\n## Metrics\n")
        .nth(1)
        .expect("a Metrics section");
    let section = section.split("\n## ").next().unwrap();
    section
        .lines()
        .skip_while(|l| !l.starts_with("| metric"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.split('|').nth(1).unwrap().trim().to_string())
        .collect()
}

/// A documented key with its placeholders filled (`pass@k` → `pass@4`).
fn example(documented: &str) -> String {
    documented
        .replace("_τ", "_0.5")
        .replace("@k", "@4")
        .replace("^k", "^4")
        .replace("@n", "@4")
        .replace("@K", "@100")
}

#[test]
fn the_readme_metric_table_covers_the_catalogue() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md");
    let mut documented: BTreeSet<Family> = BTreeSet::new();
    for cell in metric_cells(&readme) {
        for key in cell.split('`').skip(1).step_by(2) {
            let filled = example(key);
            let parsed: MetricKey = filled
                .parse()
                .unwrap_or_else(|e| panic!("README names `{key}`: {e}"));
            documented.insert(parsed.family());
        }
    }
    let all: BTreeSet<Family> = CATALOGUE.iter().map(|s| s.family).collect();
    assert_eq!(
        documented, all,
        "families missing from README.md's metric table"
    );
}
