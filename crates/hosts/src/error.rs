//! Errors of the host integrations. Every message says what went wrong, where, and what to
//! do about it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum HostsError {
    #[error("unknown host `{name}`; known hosts: {known}")]
    UnknownHost { name: String, known: String },

    #[error(
        "{}:{line}:{column}: {what}. tokenjuice left the file untouched: fix it (or move it aside) and run the command again",
        path.display()
    )]
    Malformed {
        path: PathBuf,
        line: usize,
        column: usize,
        what: String,
    },

    #[error("{}: {what}. tokenjuice left the file untouched: {fix}", path.display())]
    Shape {
        path: PathBuf,
        what: String,
        fix: String,
    },

    #[error("cannot read {}: {source}. Check the file's permissions, then run the command again", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("cannot write {}: {source}. Check that the directory exists and is writable, then run the command again", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("{} changed while tokenjuice was editing it; nothing was written. Run the command again", path.display())]
    Changed { path: PathBuf },

    #[error("{} is read-only (mode {mode:04o}); tokenjuice does not replace a file you made read-only. Make it writable (chmod u+w) and run the command again, or leave it as it is", path.display())]
    ReadOnly { path: PathBuf, mode: u32 },

    #[error("no home directory: HOME is not set. Set HOME (or the host's own variable, e.g. {hint}) and run the command again")]
    NoHome { hint: &'static str },

    #[error("tokenjuice does not install into {host}: {why}. {fix}")]
    Unsupported {
        host: &'static str,
        why: &'static str,
        fix: String,
    },

    #[error("cannot find the tokenjuice binary to point the hook at: {0}. Put tokenjuice on PATH or use --local")]
    NoLauncher(String),
}

pub type Result<T> = std::result::Result<T, HostsError>;
