//! Claude Code settings that size its own cut of a Bash result, read the way Claude merges
//! them. Claude Code 2.1 keeps `bashOutputMaxChars` characters of a successful command's output
//! inline (default 30,000; values clamp to 4,000–128,000) and turns longer output into a
//! preview and a file path; the key may sit in managed, local, project or user settings, the
//! first of those that sets it winning.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::env::Env;

/// Claude Code's managed settings file on Linux.
const MANAGED: &str = "/etc/claude-code/managed-settings.json";

/// The settings files that may hold the key, highest precedence first: managed, then
/// `.claude/settings.local.json` and `.claude/settings.json` of the nearest folder at or above
/// `cwd` that has a `.claude` folder (the project), then the user's.
fn files(env: &Env, cwd: &Path) -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from(MANAGED)];
    let user = tokenjuice_hooks::homes::CLAUDE.resolve(env.home.as_deref(), |k| env.var(k));
    if let Some(project) = cwd
        .ancestors()
        .find(|d| d.join(".claude").is_dir() && Some(d.join(".claude")) != user)
    {
        out.push(project.join(".claude/settings.local.json"));
        out.push(project.join(".claude/settings.json"));
    }
    if let Some(u) = user {
        out.push(u.join("settings.json"));
    }
    out
}

fn read_key(path: &Path) -> Option<u64> {
    // a project's settings come with a cloned repository: regular files only, never blocking
    let bytes = tokenjuice_untrusted::read(path, tokenjuice_untrusted::MAX_SETTINGS_FILE).ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    v.get("bashOutputMaxChars")?.as_u64().filter(|n| *n > 0)
}

/// Claude's inline limit for a Bash result, when a settings file sets one.
pub fn output_max_chars(env: &Env, cwd: &Path) -> Option<usize> {
    let n = files(env, cwd).iter().find_map(|p| read_key(p))?;
    Some(n.clamp(4_000, 128_000) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(home: &Path) -> Env {
        Env {
            home: Some(home.to_path_buf()),
            ..Default::default()
        }
    }

    #[test]
    fn project_settings_win_over_the_users_and_values_clamp() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let project = t.path().join("project");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::create_dir_all(project.join("src/deep")).unwrap();
        let e = env(&home);
        assert_eq!(output_max_chars(&e, &project.join("src/deep")), None);
        std::fs::write(
            home.join(".claude/settings.json"),
            r#"{"bashOutputMaxChars": 9000}"#,
        )
        .unwrap();
        assert_eq!(output_max_chars(&e, &project.join("src/deep")), Some(9000));
        std::fs::write(
            project.join(".claude/settings.json"),
            r#"{"bashOutputMaxChars": 1000}"#,
        )
        .unwrap();
        assert_eq!(output_max_chars(&e, &project.join("src")), Some(4000));
        std::fs::write(
            project.join(".claude/settings.local.json"),
            r#"{"bashOutputMaxChars": 500000}"#,
        )
        .unwrap();
        assert_eq!(output_max_chars(&e, &project), Some(128_000));
        // a file that is not settings is skipped
        std::fs::write(project.join(".claude/settings.local.json"), "{oops").unwrap();
        assert_eq!(output_max_chars(&e, &project), Some(4000));
    }
}
