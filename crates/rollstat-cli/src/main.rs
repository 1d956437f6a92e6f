//! `rollstat`: the thin binary. Parse flags → run → render → exit code.

mod args;
mod convert;
mod gate_cmd;
mod grade_cmd;
mod options;
mod output;
mod passk;
mod progress;
mod rank_cmd;
mod render;
mod summary_cmd;

use anyhow::{Context, Result};
use args::{Cli, Command, CompareFormat, PowerFormat};
use clap::FromArgMatches;
use rollstat::Source;
use std::process::ExitCode;

// Rows are parsed on worker threads and folded (and freed) on the main one;
// glibc's per-thread arenas make those cross-thread frees slow.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Report(a) => {
            output::check_not_an_input(a.output.as_deref(), &a.inputs)?;
            let report = report(&a)?;
            let view = rollstat_render::View {
                all: a.all,
                tau_asked: a.metrics.tau.is_some(),
            };
            let text = render::render(&report, a.format, view);
            write_output(a.output.as_deref(), &text)
        }
        Command::Passk(a) => write_output(None, &passk::run(&a)?),
        Command::Compare(a) => {
            output::check_not_an_input(a.output.as_deref(), &a.inputs)?;
            let opts = options::compare_options(&a)?;
            let sources: Vec<Source> = a.inputs.iter().map(Source::from).collect();
            let cmp = rollstat::compare(&sources, &opts).map_err(options::cli_error)?;
            let view = rollstat_render::View {
                all: a.all,
                tau_asked: a.metrics.tau.is_some(),
            };
            let w = &render::WORDS;
            let text = match a.format {
                CompareFormat::Json => render::compare::json(&cmp, w),
                CompareFormat::Table => render::compare::render_text(&cmp, false, w, view),
                CompareFormat::Markdown => render::compare::render_text(&cmp, true, w, view),
                CompareFormat::Html => render::compare_html(&cmp, w, view),
            };
            write_output(a.output.as_deref(), &text)?;
            if cmp.fail.as_ref().is_some_and(|f| f.failed) {
                // A failed verdict under --fail-on: exit 1 (docs/spec.md §8).
                std::process::exit(1);
            }
            Ok(())
        }
        Command::Power(a) => {
            let inputs: Vec<String> = a.report.iter().cloned().collect();
            output::check_not_an_input(a.output.as_deref(), &inputs)?;
            let p = power(&a)?;
            let text = match a.format {
                PowerFormat::Json => {
                    let mut s = serde_json::to_string_pretty(&p).expect("serializes");
                    s.push('\n');
                    s
                }
                PowerFormat::Table => render::power::render(&p),
            };
            write_output(a.output.as_deref(), &text)
        }
        Command::Grade(a) => grade_cmd::run(&a),
        Command::Convert(a) => convert::run(&a),
        Command::Summarize(a) => summary_cmd::summarize(&a),
        Command::Merge(a) => summary_cmd::merge(&a),
        Command::Rank(a) => {
            let r = rank_cmd::run(&a)?;
            let text = match a.format {
                rank_cmd::RankFormat::Json => rollstat_render::rank::json(&r, &render::WORDS),
                rank_cmd::RankFormat::Table => {
                    rollstat_render::rank::render_text(&r, false, &render::WORDS)
                }
                rank_cmd::RankFormat::Markdown => {
                    rollstat_render::rank::render_text(&r, true, &render::WORDS)
                }
                rank_cmd::RankFormat::Html => rollstat_render::rank_html(&r, &render::WORDS),
            };
            write_output(a.output.as_deref(), &text)
        }
        Command::Gate(a) => {
            let (g, code) = gate_cmd::run(&a)?;
            let text = render::gate(&g, a.format);
            write_output(a.output.as_deref(), &text)?;
            if code != 0 {
                // NO-GO 1, INCONCLUSIVE 3 (docs/gate.md); 2 stays bad input.
                std::process::exit(code);
            }
            Ok(())
        }
    }
}

/// `rollstat report`: flags → options, the progress line, the engine, and
/// the reader's diagnostics on stderr.
fn report(a: &args::ReportArgs) -> Result<rollstat::Report> {
    let mut opts = options::report_options(a)?;
    let progress = progress::Progress::start();
    progress.phase("reading");
    progress.set_total(
        a.inputs
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum(),
    );
    opts.bytes_read = Some(progress.bytes_counter());
    let sources: Vec<Source> = a.inputs.iter().map(Source::from).collect();
    let report = rollstat::report(&sources, &opts).map_err(options::cli_error)?;
    Ok(report)
}

/// `rollstat power`: from parameters, or from a report.json read back as a
/// typed report.
fn power(a: &args::PowerArgs) -> Result<rollstat::PowerReport> {
    let opts = options::power_options(a);
    let report = match &a.report {
        None => None,
        Some(path) => Some((path.as_str(), read_report(path)?)),
    };
    rollstat::power(&opts, report.as_ref().map(|(p, r)| (*p, r))).map_err(options::cli_error)
}

fn read_report(path: &str) -> Result<rollstat::Report> {
    let fix = "write one with `rollstat report FILES --format json -o report.json`";
    let bad = |m: String| anyhow::Error::from(options::InputError(m));
    let text = std::fs::read_to_string(path)
        .map_err(|e| bad(format!("{path}: {e}")))
        .context("reading the report")?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("{path}: not JSON ({e}); {fix}")))?;
    if v["schema"].as_str() != Some(rollstat::REPORT_SCHEMA) {
        return Err(bad(format!(
            "{path}: not a rollstat report (schema {}); {fix}",
            v["schema"]
        )));
    }
    serde_json::from_value(v).map_err(|e| {
        bad(format!(
            "{path}: not a valid {} document ({e})",
            rollstat::REPORT_SCHEMA
        ))
    })
}

fn write_output(path: Option<&std::path::Path>, text: &str) -> Result<()> {
    output::write_text(path, text)
}

/// Opts this process out of transparent huge pages (Linux).
///
/// The reader allocates and frees its per-block rows continuously; with THP
/// set to `always`, the kernel zeroes a whole 2 MiB page at the first touch of
/// each fresh region. On a 1.2 GB input this was 0.5–1.2 s of system time
/// (of 3.3 s wall); opted out, 0.6–0.7 s of system time in all.
#[cfg(target_os = "linux")]
fn disable_transparent_huge_pages() {
    extern "C" {
        fn prctl(option: std::ffi::c_int, ...) -> std::ffi::c_int;
    }
    const PR_SET_THP_DISABLE: std::ffi::c_int = 41;
    let (on, zero): (std::ffi::c_ulong, std::ffi::c_ulong) = (1, 0);
    // SAFETY: prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) only sets a flag on this
    // process's memory map; a failure (old kernel) leaves THP as it was.
    unsafe {
        prctl(PR_SET_THP_DISABLE, on, zero, zero, zero);
    }
}

/// mimalloc 3 keeps freed memory for a second before it returns it to the
/// system (`purge_delay`, 1000 ms). A report frees each stage's data (the
/// folding state, the problems) just before the next stage allocates its
/// own, so what was freed still counted while the next stage grew: 10⁷
/// count rows peaked at 1.86–2.07 GB; with a delay of 50 ms at 1.73–1.81 GB
/// in as much time (1 ms: 1.65–1.73 GB, but more page faults to refill
/// what was returned). A `MIMALLOC_PURGE_DELAY` the user sets wins.
fn return_freed_memory_promptly() {
    extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    // `mi_option_purge_delay` in mimalloc 3's `mi_option_t` (the version
    // libmimalloc-sys 0.1.49 builds; Cargo.lock pins it).
    const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of mimalloc's tuning options (in milliseconds);
        // it changes when freed memory is returned, never what is kept.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 50) };
    }
}

fn main() -> ExitCode {
    return_freed_memory_promptly();
    #[cfg(target_os = "linux")]
    disable_transparent_huge_pages();
    let cli = match args::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => match args::value_error(&e) {
            Some(text) => {
                eprintln!("rollstat: {text}");
                return ExitCode::from(2);
            }
            None => e.exit(),
        },
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rollstat: {e:#}");
            // Bad input, usage and output errors all exit 2; exit 1 is
            // reserved for a failed compare verdict (docs/spec.md §8).
            ExitCode::from(2)
        }
    }
}
