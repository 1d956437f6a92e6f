//! The hand-written lists of formats (README, this crate's README, the
//! Python docstring) against the registry, which the CLI help is generated
//! from. A failure prints the text to paste.

use rollstat_formats::registry::{families, known_names, markdown_table};
use rollstat_formats::{Format, FORMATS};

fn read(rel: &str) -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    std::fs::read_to_string(format!("{root}{rel}")).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// `(`a`, `b`, …)` as Markdown writes a list of names.
fn ticked(names: &[&str], tick: &str) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("{tick}{n}{tick}")).collect();
    quoted.join(", ")
}

#[test]
fn registry_names_parse_back_and_every_format_has_one_entry() {
    assert_eq!(FORMATS.len(), Format::ALL.len());
    for (spec, f) in FORMATS.iter().zip(Format::ALL) {
        assert_eq!(spec.format, f);
        assert_eq!(f.spec().name, spec.name);
        for name in std::iter::once(&spec.name).chain(spec.aliases) {
            assert_eq!(name.parse::<Format>(), Ok(f), "{name}");
        }
        let module = concat!(env!("CARGO_MANIFEST_DIR"), "/src/").to_string() + spec.module;
        assert!(std::path::Path::new(&module).is_file(), "{module}");
    }
    for name in known_names() {
        assert!(name.parse::<Format>().is_ok(), "{name}");
    }
}

#[test]
fn readme_format_table_is_the_registry() {
    let readme = read("README.md");
    let table = markdown_table();
    assert!(
        readme.contains(&table),
        "README.md's format table differs from the registry; paste:\n{table}"
    );
    let from = format!("(`{}`)", families().join("`, `"));
    assert!(
        readme.contains(&from),
        "README.md's `--from NAME` row should list {from}"
    );
}

#[test]
fn crate_readme_detection_table_names_every_format() {
    let readme = read("crates/rollstat-formats/README.md");
    let start = readme
        .find("| `--from` | report name | detection rule |")
        .expect("the detection table");
    let rows: Vec<&str> = readme[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    let names: Vec<&str> = rows
        .iter()
        .filter_map(|r| r.split('|').nth(2))
        .map(|c| c.trim().trim_matches('`'))
        .collect();
    let registry: Vec<&str> = FORMATS.iter().map(|s| s.name).collect();
    assert_eq!(names, registry, "rows in registry (detection) order");
    for row in rows {
        let from = row.split('|').nth(1).unwrap_or_default();
        for name in from.split(',').map(|n| n.trim().trim_matches('`')) {
            assert!(name.parse::<Format>().is_ok(), "{name} in {row}");
        }
    }
}

#[test]
fn python_source_format_docstring_lists_the_families() {
    let init = read("python/rollstat/__init__.py");
    let text: String = init.split_whitespace().collect::<Vec<_>>().join(" ");
    let want = format!(
        "``source_format`` (override format detection for files: {}, or a format's own name",
        ticked(&families(), "``")
    );
    assert!(
        text.contains(&want),
        "python/rollstat/__init__.py: want {want}"
    );
}
