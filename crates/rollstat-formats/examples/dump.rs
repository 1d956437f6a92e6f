//! Print the canonical rows (JSONL) and aggregates read from a path.
//!
//! `cargo run -p rollstat-formats --example dump -- PATH [FORMAT]`

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: dump PATH [FORMAT]");
        std::process::exit(2);
    };
    let from = args.next().map(|f| {
        f.parse().unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        })
    });
    let report = match rollstat_formats::read_path_lenient(path.as_ref(), from) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    for f in &report.files {
        eprintln!(
            "# {} [{}] {} rows, sha256 {:?}",
            f.path.display(),
            f.format,
            f.rows.len(),
            f.sha256
        );
        for a in &f.aggregates {
            eprintln!("#   aggregate {} = {} ({})", a.metric_name, a.value, a.note);
        }
        for w in &f.warnings {
            eprintln!("#   warning: {w}");
        }
        for r in &f.rows {
            println!("{}", serde_json::Value::Object(r.clone()));
        }
    }
    for (p, f) in &report.canonical {
        eprintln!("# {} is {f}: use the canonical reader", p.display());
    }
    for (p, why) in &report.skipped {
        eprintln!("# skipped {}: {why}", p.display());
    }
    for e in &report.errors {
        eprintln!("error: {e}");
    }
    if !report.errors.is_empty() {
        std::process::exit(2);
    }
}
