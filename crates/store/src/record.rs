//! One row of run history.

use serde::{Deserialize, Serialize};

/// Which entry point produced the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunKind {
    Wrap,
    Reduce,
    ReduceJson,
    /// A host hook entry point (post-tool compaction).
    Hook,
}

impl RunKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Wrap => "wrap",
            RunKind::Reduce => "reduce",
            RunKind::ReduceJson => "reduce-json",
            RunKind::Hook => "hook",
        }
    }

    pub fn parse(s: &str) -> Option<RunKind> {
        Some(match s {
            "wrap" => RunKind::Wrap,
            "reduce" => RunKind::Reduce,
            "reduce-json" => RunKind::ReduceJson,
            "hook" => RunKind::Hook,
            _ => return None,
        })
    }
}

/// How the shown text was produced.
pub mod mode {
    /// A rule reduced the output.
    pub const REDUCED: &str = "reduced";
    /// Reduction would not have saved enough; the cleaned output was shown.
    pub const PASSTHROUGH: &str = "passthrough";
    /// `--raw`: byte-identical on request.
    pub const RAW: &str = "raw";
    /// An exact file read (`cat`, `sed -n` …): byte-identical by design.
    pub const EXACT_READ: &str = "exact-read";
    /// tokenjuice failed inside and showed the raw output.
    pub const FAIL_OPEN: &str = "fail-open";
}

/// What is recorded about one call. No command line unless the user opted in, and
/// then only after redaction (the caller redacts; see `keep_commands`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Start time, milliseconds since the Unix epoch (UTC).
    pub ts_ms: i64,
    pub kind: RunKind,
    /// Who called (a host label), normalized by [`normalize_source`].
    pub source: String,
    /// The program's name (basename of the effective argv0), "" when unknown.
    pub program: String,
    /// Its subcommand (`git status` → `status`) for programs known to have them.
    pub subcommand: Option<String>,
    /// The rule's family (`git-status`, `test-results`, …).
    pub family: String,
    pub rule_id: String,
    /// See [`mode`].
    pub mode: String,
    pub exit_code: Option<i32>,
    pub raw_bytes: u64,
    pub raw_tokens: u64,
    pub reduced_bytes: u64,
    pub reduced_tokens: u64,
    pub duration_us: u64,
    /// Bytes past the capture cap were not kept (the reduction still saw them).
    pub capture_truncated: bool,
    pub artifact_id: Option<String>,
    /// The redacted command line, only when the user opted in.
    pub command: Option<String>,
}

impl RunRecord {
    /// `program subcommand`, or the program alone, or `(unknown)`.
    pub fn command_key(&self) -> String {
        command_key(&self.program, self.subcommand.as_deref())
    }
}

pub fn command_key(program: &str, subcommand: Option<&str>) -> String {
    match (program, subcommand) {
        ("", _) => "(unknown)".into(),
        (p, Some(s)) if !s.is_empty() => format!("{p} {s}"),
        (p, _) => p.into(),
    }
}

/// A host label as recorded: lower case, `[a-z0-9._-]`, at most 40 chars, hook
/// entry-point suffixes dropped (`codex-post-tool-use` → `codex`), `claude` →
/// `claude-code`; nothing (or `cli`/`wrap`/`direct`) → `cli`.
pub fn normalize_source(source: Option<&str>) -> String {
    let raw = source.unwrap_or("").trim().to_ascii_lowercase();
    let mut s: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    for suffix in [
        "-pre-tool-use",
        "-post-tool-use",
        "-after-tool",
        "-before-tool",
        "-hook",
    ] {
        if let Some(base) = s.strip_suffix(suffix) {
            s = base.to_string();
            break;
        }
    }
    match s.as_str() {
        "" | "cli" | "wrap" | "direct" | "tokenjuice" => "cli".into(),
        "claude" => "claude-code".into(),
        _ => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources() {
        assert_eq!(normalize_source(None), "cli");
        assert_eq!(normalize_source(Some("wrap")), "cli");
        assert_eq!(normalize_source(Some("Codex-Post-Tool-Use")), "codex");
        assert_eq!(normalize_source(Some("claude")), "claude-code");
        assert_eq!(normalize_source(Some("my host/x")), "my-host-x");
        assert_eq!(normalize_source(Some(&"x".repeat(100))).len(), 40);
    }

    #[test]
    fn command_keys() {
        assert_eq!(command_key("git", Some("status")), "git status");
        assert_eq!(command_key("ls", None), "ls");
        assert_eq!(command_key("", None), "(unknown)");
    }
}
