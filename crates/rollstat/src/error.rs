//! Errors of the engine. They say what is wrong with an option or an input
//! in the library's own terms (option names are the fields of the option
//! structs); each front end words its own advice (the CLI names flags).

use std::fmt;

/// An option of [`crate::ReportOptions`], [`crate::CompareOptions`] or
/// [`crate::PowerOptions`], by its field name (`tau`, `tie_policy`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionName(pub &'static str);

impl fmt::Display for OptionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// How many malformed rows [`Error::MalformedRowsOnly`] carries.
pub const MALFORMED_SHOWN: usize = 3;

fn plural_rows(n: usize) -> String {
    if n == 1 {
        "the only row was".into()
    } else {
        format!("all {n} rows were")
    }
}

/// Why the engine could not produce its document.
///
/// ```
/// let e = rollstat::Error::invalid("level", "1.5 is not in (0, 1)");
/// assert_eq!(e.to_string(), "level: 1.5 is not in (0, 1)");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An option value is unknown or out of range.
    #[error("{option}: {message}")]
    InvalidOption {
        /// The option's field name.
        option: OptionName,
        /// What is wrong with its value.
        message: String,
    },
    /// An input cannot be used: unreadable, unrecognised, or malformed
    /// under strict mode (the message names `path:line` where it can).
    #[error("{0}")]
    Input(String),
    /// Reading one side of a comparison failed: the side (`A` or `B`), its
    /// input's name, and the error itself (kept typed, so each front end
    /// words it as it words that error alone).
    #[error("reading {side} ({name}): {error}")]
    Side {
        /// `A` or `B`.
        side: String,
        /// What names the side: compare's input as given, a gate side's
        /// role (`baseline`, `candidate`).
        name: String,
        /// Why it could not be read.
        #[source]
        error: Box<Error>,
    },
    /// The reader stopped (strict mode, duplicated rollouts, I/O).
    #[error(transparent)]
    Read(#[from] rollstat_io::ReadError),
    /// Nothing to report: every input was empty, malformed or aggregates only.
    #[error("no problems to report: {0}")]
    NoProblems(String),
    /// Nothing to report because every row read was malformed (lenient
    /// mode): the first few rows and why, so the message says which fields
    /// were wrong instead of only that nothing was usable.
    #[error("no problems to report: {} malformed — {}", plural_rows(*total), first.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    MalformedRowsOnly {
        /// How many rows were malformed.
        total: usize,
        /// The first few of them ([`MALFORMED_SHOWN`]).
        first: Vec<rollstat_io::BadLine>,
    },
    /// A native harness file could not be read or recognised.
    #[error(transparent)]
    Format(#[from] rollstat_formats::FormatError),
    /// Strict mode: files of a directory walk could not be read.
    #[error("{} input file(s) could not be read: {} (strict mode rejects unreadable files)", files.len(), files.join(", "))]
    UnreadableFiles {
        /// Their paths.
        files: Vec<String>,
    },
    /// compare with one input and no field naming its two systems.
    #[error("by: one input: name the field that holds the two systems (model or run), or give two inputs A B")]
    SystemsFieldMissing,
    /// Strict mode: a problem with fewer rollouts than requested.
    #[error("{origin}: problem '{problem}' has {n} rollouts, {requested} requested (strict mode rejects short problems)")]
    ShortProblem {
        /// Where the problem was first seen (`path:line`).
        origin: String,
        /// The problem's id.
        problem: String,
        /// Rollouts that arrived.
        n: u64,
        /// The requested n.
        requested: u64,
    },
    /// Rows to grade whose targets the math extraction (the default) cannot
    /// read: graded so, every answer would be unextracted.
    #[error("{path}: the samples carry no verdicts and their targets are {targets}, which the math extraction cannot read; grade them with the extraction {extract}")]
    ExtractionNeeded {
        /// The input.
        path: String,
        /// What the targets are.
        targets: String,
        /// The extraction that reads them (`mcq`, `regex:…`).
        extract: String,
    },
    /// Strict mode: a run its harness declared bigger or unfinished (the
    /// finding's words).
    #[error("{0} (strict mode rejects incomplete runs)")]
    IncompleteRun(String),
    /// Merging summaries without a dedupe policy: one rollout in two of
    /// them.
    #[error("{problem} rollout {rollout} appears in two summaries (first at {first}, again at {again}); choose which to keep (first or last) when summarizing, as for duplicated rows")]
    DuplicateAcrossSummaries {
        /// The problem, as named in messages.
        problem: String,
        /// The rollout index.
        rollout: u64,
        /// Where it was first seen.
        first: String,
        /// Where it appeared again.
        again: String,
    },
    /// A ranking with fewer than two systems (their names).
    #[error("ranking needs two or more systems, found {} ({}); give one input per system, or name the field that tells them apart", found.len(), found.join(", "))]
    TooFewSystems {
        /// The systems found.
        found: Vec<String>,
    },
    /// A ranking whose systems share no problem with a value.
    #[error("no problem has a value on every system; ranking needs shared problems")]
    NoSharedProblems,
    /// Strict mode: systems scored on problems the others lack (name,
    /// problems outside the shared set).
    #[error("systems scored on problems the others lack (strict mode ranks only on shared problems): {}", systems.iter().map(|(s, d)| format!("{s} ({d})")).collect::<Vec<_>>().join(", "))]
    UnsharedProblems {
        /// Each such system and how many problems it would lose.
        systems: Vec<(String, u64)>,
    },
    /// Two groups of the systems field with one name in one input.
    #[error("system '{name}' appears twice")]
    SystemTwice {
        /// The system's name.
        name: String,
    },
    /// Ranking across benchmarks with fewer than two of them.
    #[error("ranking across benchmarks needs two or more benchmarks ({field}), found {found}")]
    TooFewBenchmarks {
        /// What names the benchmarks: a field (`subset`) or `inputs`.
        field: String,
        /// How many were found.
        found: usize,
    },
    /// A statistics routine refused its arguments.
    #[error(transparent)]
    Stats(#[from] rollstat_stats::StatsError),
}

impl Error {
    /// An [`Error::InvalidOption`].
    pub fn invalid(option: &'static str, message: impl Into<String>) -> Error {
        Error::InvalidOption {
            option: OptionName(option),
            message: message.into(),
        }
    }

    /// An [`Error::Input`].
    pub fn input(message: impl Into<String>) -> Error {
        Error::Input(message.into())
    }
}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
