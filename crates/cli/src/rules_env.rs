//! Loading user and project rules for a run, with one warning line for broken ones.

use std::path::Path;

use tokenjuice_core::rules::loader::{load_files, FileRules, RuleDirs};

pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Rule directories for the current working directory.
pub fn dirs() -> RuleDirs {
    let cwd = std::env::current_dir().unwrap_or_else(|_| Path::new(".").to_path_buf());
    RuleDirs::discover(&cwd, env_var)
}

/// Load user and project rules. Broken rules are skipped; one line on stderr says so.
pub fn load_for_run() -> FileRules {
    let dirs = dirs();
    if dirs.is_empty() {
        return FileRules::default();
    }
    let loaded = load_files(&dirs);
    let errors: Vec<_> = loaded.problems.iter().filter(|p| p.is_error).collect();
    if let Some(first) = errors.first() {
        let more = if errors.len() > 1 {
            format!(" (and {} more problems)", errors.len() - 1)
        } else {
            String::new()
        };
        eprintln!("tokenjuice: warning: skipped a broken rule: {first}{more}; run `tokenjuice verify` for details");
    }
    loaded
}

/// `TOKENJUICE_NO_OMISSION=1|true|yes` turns on no-omit mode.
pub fn no_omission_env() -> bool {
    matches!(
        env_var("TOKENJUICE_NO_OMISSION")
            .as_deref()
            .map(str::trim)
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("1" | "true" | "yes" | "on")
    )
}
