//! Gemini CLI's folder trust: Gemini (0.61) runs the hooks of a project's
//! `.gemini/settings.json` only in a trusted folder (its hook registry leaves them out with
//! "Project hooks disabled because the folder is not trusted"). The facts, read in the 0.61
//! bundle (`checkPathTrust`, `LoadedTrustedFolders.isPathTrusted`, `isFolderTrustEnabled`)
//! and measured in the real CLI by `crates/e2e/tests/hooks_differential_gemini.rs`:
//! - `GEMINI_RESTRICTED_MODE=true` or `GEMINI_CLI_TRUST_WORKSPACE=false`: not trusted;
//!   `GEMINI_CLI_TRUST_WORKSPACE=true`: trusted;
//! - `security.folderTrust.enabled = false` in the user's settings: every folder is trusted
//!   (the default is true);
//! - else the user's `trustedFolders.json` (`$GEMINI_CLI_TRUSTED_FOLDERS_PATH`, or
//!   `.gemini/trustedFolders.json` in Gemini's home): of the rules whose folder holds this
//!   one (`TRUST_FOLDER` and `DO_NOT_TRUST` name the folder, `TRUST_PARENT` the folder's
//!   parent; paths compared resolved), the one written longest decides;
//! - no rule: not trusted. Gemini then asks in a terminal and refuses to start headless.
//!
//! Measured: `--skip-trust` lets a headless session start but its project hooks do not run
//! (the flag sets `GEMINI_CLI_TRUST_WORKSPACE` only after the settings are read); the
//! variable set beforehand, or a `TRUST_FOLDER` rule, runs them.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Whether Gemini trusts a folder, and what decided it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FolderTrust {
    Trusted,
    /// Not trusted, and why (to tell the user).
    Untrusted(String),
}

/// Gemini's trust of `folder` (the project directory), given the variables it sees, the
/// user's settings (parsed) and the path of its `trustedFolders.json`.
pub fn folder_trust(
    var: impl Fn(&str) -> Option<String>,
    user_settings: Option<&Value>,
    trusted_folders: &Path,
    folder: &Path,
) -> FolderTrust {
    if var("GEMINI_RESTRICTED_MODE").as_deref() == Some("true") {
        return FolderTrust::Untrusted("GEMINI_RESTRICTED_MODE=true".into());
    }
    match var("GEMINI_CLI_TRUST_WORKSPACE").as_deref() {
        Some("false") => return FolderTrust::Untrusted("GEMINI_CLI_TRUST_WORKSPACE=false".into()),
        Some("true") => return FolderTrust::Trusted,
        _ => {}
    }
    let enabled = user_settings
        .and_then(|s| s.get("security"))
        .and_then(|s| s.get("folderTrust"))
        .and_then(|s| s.get("enabled"))
        .and_then(Value::as_bool)
        .unwrap_or(true);
    if !enabled {
        return FolderTrust::Trusted;
    }
    let rules: Vec<(String, String)> = std::fs::read_to_string(trusted_folders)
        .ok()
        // Gemini strips comments from it
        .and_then(|t| serde_json::from_str::<Value>(&crate::jsonc::blank_comments(&t)).ok())
        .and_then(|v| v.as_object().cloned())
        .map(|m| {
            m.into_iter()
                .filter_map(|(k, v)| Some((k, v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    let here = resolved(folder);
    let mut best: Option<(usize, &str, &str)> = None;
    for (rule, level) in &rules {
        let rule_path = Path::new(rule);
        let effective = match level.as_str() {
            "TRUST_PARENT" => rule_path.parent().unwrap_or(rule_path),
            "TRUST_FOLDER" | "DO_NOT_TRUST" => rule_path,
            _ => continue,
        };
        if here.starts_with(resolved(effective)) && best.is_none_or(|(len, _, _)| rule.len() > len)
        {
            best = Some((rule.len(), rule.as_str(), level.as_str()));
        }
    }
    match best {
        Some((_, _, "TRUST_FOLDER" | "TRUST_PARENT")) => FolderTrust::Trusted,
        Some((_, rule, _)) => FolderTrust::Untrusted(format!(
            "{} marks {rule} DO_NOT_TRUST",
            trusted_folders.display()
        )),
        None => FolderTrust::Untrusted(format!(
            "no rule of {} trusts it",
            trusted_folders.display()
        )),
    }
}

fn resolved(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn variables_settings_and_the_longest_rule_decide() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path().join("repo");
        let sub = repo.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        let file = t.path().join("trustedFolders.json");
        let none = |_: &str| None;
        let trust = |var: &dyn Fn(&str) -> Option<String>, settings: Option<&Value>, dir: &Path| {
            folder_trust(var, settings, &file, dir)
        };
        // no file, no rule: not trusted
        assert!(matches!(
            trust(&none, None, &sub),
            FolderTrust::Untrusted(_)
        ));
        // the variables come first
        let env_true = |k: &str| (k == "GEMINI_CLI_TRUST_WORKSPACE").then(|| "true".to_string());
        assert_eq!(trust(&env_true, None, &sub), FolderTrust::Trusted);
        let restricted = |k: &str| match k {
            "GEMINI_RESTRICTED_MODE" | "GEMINI_CLI_TRUST_WORKSPACE" => Some("true".to_string()),
            _ => None,
        };
        assert!(matches!(
            trust(&restricted, None, &sub),
            FolderTrust::Untrusted(_)
        ));
        // folder trust turned off in the user's settings
        let off = json!({"security": {"folderTrust": {"enabled": false}}});
        assert_eq!(trust(&none, Some(&off), &sub), FolderTrust::Trusted);
        // TRUST_FOLDER holds the folder and what is under it; the longest rule wins
        std::fs::write(
            &file,
            format!(
                "// comment\n{{\"{}\": \"TRUST_FOLDER\", /* x */ \"{}\": \"DO_NOT_TRUST\"}}",
                repo.display(),
                sub.display()
            ),
        )
        .unwrap();
        assert_eq!(trust(&none, None, &repo), FolderTrust::Trusted);
        assert!(
            matches!(trust(&none, None, &sub), FolderTrust::Untrusted(w) if w.contains("DO_NOT_TRUST"))
        );
        // TRUST_PARENT trusts the parent of the folder it names
        std::fs::write(
            &file,
            json!({ sub.display().to_string(): "TRUST_PARENT" }).to_string(),
        )
        .unwrap();
        assert_eq!(trust(&none, None, &repo), FolderTrust::Trusted);
        assert!(matches!(
            trust(&none, None, t.path()),
            FolderTrust::Untrusted(_)
        ));
    }
}
