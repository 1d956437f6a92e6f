//! Error types. Every message starts with `path:line:` or `path:` and ends
//! with what the user can do about it.

use std::fmt;
use std::path::PathBuf;

/// Why one format did not fit a file (one entry of [`DetectError::tried`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The stable format name (`lm-eval-samples`, `tau-bench`, …).
    pub format: String,
    /// Why it did not fit, e.g. `first record has no "doc_id"`.
    pub reason: String,
}

/// No known format fits a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct DetectError {
    /// The file that was looked at.
    pub path: PathBuf,
    /// What the content looked like (`a JSON array whose first element has
    /// keys idx, ys, …`).
    pub seen: String,
    /// Every format tried, in order, with the reason it was rejected.
    pub tried: Vec<Rejection>,
}

/// One line, whatever the file: what the content looked like, why it is not
/// canonical rows (the format most files are meant to be), and how many
/// native formats were tried. `{:#}` lists every format with its reason
/// (also in [`DetectError::tried`]).
impl fmt::Display for DetectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, "name the format explicitly")
    }
}

impl DetectError {
    /// The message with the front end's way of naming a format in its fix
    /// (`pass the format explicitly (--from NAME)`); `Display` says "name
    /// the format explicitly".
    ///
    /// ```
    /// let e = rollstat_formats::DetectError { path: "x.json".into(), seen: "a JSON object".into(), tried: vec![] };
    /// assert!(e.worded("pass --from NAME").contains("Fix: pass --from NAME, or convert"));
    /// ```
    pub fn worded(&self, name_it: &str) -> String {
        struct W<'a>(&'a DetectError, &'a str);
        impl fmt::Display for W<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.write(f, self.1)
            }
        }
        W(self, name_it).to_string()
    }

    /// One short line for a file of a directory walk: its path and what
    /// its content looked like. The formats tried and the fix are said once
    /// for all such files ([`DetectError::summary`]).
    ///
    /// ```
    /// let e = rollstat_formats::DetectError { path: "x.json".into(), seen: "a JSON object".into(), tried: vec![] };
    /// assert_eq!(e.short(), "x.json: unrecognised input format (a JSON object)");
    /// ```
    pub fn short(&self) -> String {
        format!(
            "{}: unrecognised input format ({})",
            self.path.display(),
            self.seen
        )
    }

    /// One line for the `n` unrecognised files of a directory walk: the
    /// formats tried (every format of the registry) and the fix.
    ///
    /// ```
    /// let s = rollstat_formats::DetectError::summary(3);
    /// assert!(s.starts_with("3 file(s) were not recognised; formats tried: inspect-eval, "));
    /// ```
    pub fn summary(n: usize) -> String {
        let names: Vec<&str> = crate::FORMATS.iter().map(|s| s.name).collect();
        format!(
            "{n} file(s) were not recognised; formats tried: {}. Fix: name the format explicitly, \
             or convert the files to canonical JSONL rows (rules: rollstat-formats/README.md)",
            names.join(", ")
        )
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, name_it: &str) -> fmt::Result {
        write!(
            f,
            "{}: unrecognised input format ({})",
            self.path.display(),
            self.seen
        )?;
        if f.alternate() {
            f.write_str("; tried: ")?;
            for (i, r) in self.tried.iter().enumerate() {
                if i > 0 {
                    f.write_str("; ")?;
                }
                write!(f, "{} ({})", r.format, r.reason)?;
            }
        } else {
            // The canonical form the content was meant as: CSV for a CSV
            // file, else JSON Lines.
            let meant = if self.seen.starts_with("a CSV file") {
                "canonical-csv"
            } else {
                "canonical-jsonl"
            };
            let canonical = self.tried.iter().find(|r| r.format == meant);
            let natives = self
                .tried
                .iter()
                .filter(|r| !r.format.starts_with("canonical"))
                .count();
            f.write_str("; no known format fits")?;
            if let Some(r) = canonical {
                write!(f, " (as canonical rows: {})", r.reason)?;
            }
            write!(f, ", nor does any of {natives} harness formats")?;
        }
        write!(
            f,
            ". Fix: {name_it}, or convert the \
             file to canonical JSONL rows (rules: rollstat-formats/README.md)"
        )
    }
}

/// An error while reading a native harness file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// The file or directory could not be read.
    #[error("{}: cannot read: {source}. Fix: check that the path exists and is readable", path.display())]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// No adapter recognised the file.
    #[error(transparent)]
    Detect(#[from] DetectError),
    /// The file was recognised but its content does not follow the layout.
    #[error("{}{}: {reason}. Fix: {fix}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line (JSONL) when known.
        line: Option<usize>,
        /// What is wrong.
        reason: String,
        /// What the user can do.
        fix: String,
    },
    /// The format is known but this build cannot read it.
    #[error("{}: {format} input needs the cargo feature `{feature}`. Fix: rebuild with `--features {feature}`, or convert the file first", path.display())]
    FeatureDisabled {
        /// The file.
        path: PathBuf,
        /// The format name.
        format: String,
        /// The missing feature.
        feature: &'static str,
    },
    /// A canonical file was given: rollstat's own reader should handle it.
    #[error("{}: this is canonical {format} input; read it with rollstat's canonical reader", path.display())]
    Canonical {
        /// The file.
        path: PathBuf,
        /// `canonical-jsonl` or `canonical-csv`.
        format: String,
    },
    /// Several files of a directory failed (strict reading).
    #[error("{} of the inputs could not be read:\n{}", errors.len(), errors.iter().map(|e| format!("  {e}")).collect::<Vec<_>>().join("\n"))]
    Several {
        /// One error per failing file.
        errors: Vec<FormatError>,
    },
}

impl FormatError {
    /// The message with the front end's way of naming a format in the fix
    /// of an unrecognised file (see [`DetectError::worded`]), in nested
    /// errors too; the other messages as `Display` writes them.
    pub fn worded(&self, name_it: &str) -> String {
        match self {
            FormatError::Detect(d) => d.worded(name_it),
            FormatError::Several { errors } => {
                let lines: Vec<String> = errors
                    .iter()
                    .map(|e| format!("  {}", e.worded(name_it)))
                    .collect();
                format!(
                    "{} of the inputs could not be read:\n{}",
                    errors.len(),
                    lines.join("\n")
                )
            }
            other => other.to_string(),
        }
    }

    pub(crate) fn parse(
        path: &std::path::Path,
        line: Option<usize>,
        reason: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        FormatError::Parse {
            path: path.to_path_buf(),
            line,
            reason: reason.into(),
            fix: fix.into(),
        }
    }

    /// The path the error is about, when there is exactly one.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            FormatError::Io { path, .. }
            | FormatError::Parse { path, .. }
            | FormatError::FeatureDisabled { path, .. }
            | FormatError::Canonical { path, .. } => Some(path),
            FormatError::Detect(d) => Some(&d.path),
            FormatError::Several { .. } => None,
        }
    }
}
