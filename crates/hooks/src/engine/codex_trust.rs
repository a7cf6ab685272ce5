//! Codex's hook trust: Codex (0.169, 0.171) runs a command hook from the user's or a
//! project's files only when the user's `config.toml` holds a record for it,
//! `[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash = "sha256:<hex>"`, whose
//! hash is that of the hook as it is now; a record with `enabled = false` turns the hook off.
//! Anything else is skipped without a word (seen in the real Codex 0.169 by
//! `crates/e2e/tests/hooks_differential_codex.rs`, which also checks these keys and hashes
//! against what `codex app-server` reports in `hooks/list`).
//!
//! The facts, from openai/codex (`codex-rs/hooks/src/lib.rs` `hook_key`,
//! `hook_event_key_label`; `codex-rs/hooks/src/engine/discovery.rs` `command_hook_hash`,
//! `hook_trust_status`; `codex-rs/config` `version_for_toml`):
//! - the key: the absolute path of the `hooks.json` or `config.toml` that defines the hook,
//!   the event in snake case (`pre_tool_use`), the group's and the handler's index (from 0)
//!   within that file and event;
//! - the hash: `sha256:` and the SHA-256 of the compact JSON, keys sorted, of
//!   `{"event_name": <snake case>, "matcher": <as written; left out when none and on events
//!   that take no matcher>, "hooks": [{"type": "command", "command", "timeout": <600 unless
//!   set, at least 1>, "async": false, "statusMessage": <left out when none>}]}`; an `async`
//!   hook has no hash (it is never trusted).
//!
//! A project's hooks need more: Codex loads a project's `.codex` folder only when the user's
//! `config.toml` marks the project trusted ([`project_trust`]).

use std::collections::HashMap;
use std::path::Path;

use serde_json::{json, Map, Value};

/// Where Codex looks for a hook's trust, and what it must find there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustId {
    pub key: String,
    /// None for a hook Codex never trusts (an `async` one).
    pub hash: Option<String>,
}

/// What the user's `config.toml` says of one hook.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    pub trusted_hash: Option<String>,
    pub enabled: Option<bool>,
}

/// Whether Codex runs a hook, and why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trust {
    Trusted,
    Disabled,
    /// Never trusted, or changed since (the record's hash is another).
    Untrusted {
        changed: bool,
    },
}

/// `PreToolUse` → `pre_tool_use`.
pub fn event_label(event_name: &str) -> String {
    let mut label = String::with_capacity(event_name.len() + 4);
    for (i, c) in event_name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            label.push('_');
        }
        label.push(c.to_ascii_lowercase());
    }
    label
}

/// Events whose matcher is part of the hash (Codex ignores a matcher on the others).
fn uses_matcher(label: &str) -> bool {
    matches!(
        label,
        "permission_request"
            | "post_compact"
            | "post_tool_use"
            | "pre_compact"
            | "pre_tool_use"
            | "session_start"
    )
}

/// The trust key and hash of the command handler `handler` (its JSON object as written),
/// `handler_index` of group `group_index` of `event_name` in the file at `path`.
pub fn identity(
    path: &Path,
    event_name: &str,
    group_index: usize,
    handler_index: usize,
    matcher: Option<&str>,
    handler: &Map<String, Value>,
) -> TrustId {
    let label = event_label(event_name);
    let key = format!("{}:{label}:{group_index}:{handler_index}", path.display());
    let is_async = handler.get("async").and_then(Value::as_bool) == Some(true);
    let hash = (!is_async).then(|| {
        let mut h = json!({
            "type": "command",
            "command": handler.get("command").cloned().unwrap_or(Value::Null),
            "timeout": handler.get("timeout").and_then(Value::as_u64).unwrap_or(600).max(1),
            "async": false,
        });
        if let Some(m) = handler.get("statusMessage").and_then(Value::as_str) {
            h["statusMessage"] = m.into();
        }
        let mut id = json!({"event_name": label, "hooks": [h]});
        if let Some(m) = matcher.filter(|_| uses_matcher(&label)) {
            id["matcher"] = m.into();
        }
        format!(
            "sha256:{}",
            crate::sha256::hex(canonical(&id).to_string().as_bytes())
        )
    });
    TrustId { key, hash }
}

/// `v` with every object's keys sorted (serde_json keeps insertion order here).
fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&m[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// The records of `[hooks.state]` in the user's `config.toml` (parsed).
pub fn records(config: &Value) -> HashMap<String, Record> {
    let Some(state) = config
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(Value::as_object)
    else {
        return HashMap::new();
    };
    state
        .iter()
        .map(|(k, v)| {
            let text = |name: &str| v.get(name).and_then(Value::as_str).map(str::to_string);
            let record = Record {
                trusted_hash: text("trusted_hash").or_else(|| text("trustedHash")),
                enabled: v.get("enabled").and_then(Value::as_bool),
            };
            (k.clone(), record)
        })
        .collect()
}

/// What Codex does with the hook `id` given the user's records.
pub fn trust(id: &TrustId, records: &HashMap<String, Record>) -> Trust {
    let record = records.get(&id.key);
    if record.and_then(|r| r.enabled) == Some(false) {
        return Trust::Disabled;
    }
    match (record.and_then(|r| r.trusted_hash.as_deref()), &id.hash) {
        (Some(t), Some(h)) if t == h => Trust::Trusted,
        (Some(_), _) => Trust::Untrusted { changed: true },
        (None, _) => Trust::Untrusted { changed: false },
    }
}

/// What the user's `config.toml` says of a project whose `.codex` folder is in `layer_dir`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProjectTrust {
    Trusted,
    /// `trust_level = "untrusted"` (or another value) under this key.
    Untrusted {
        key: String,
    },
    /// No `[projects]` entry for the folder, its project root or its repository.
    Unset,
}

/// Whether Codex loads the project layer in `layer_dir` (the folder holding `.codex`):
/// only when the user's `config.toml` marks it trusted, `[projects."<path>"] trust_level =
/// "trusted"`. The first entry found decides, looked up by the folder itself, then the
/// project root (the nearest folder up from it holding one of `project_root_markers`,
/// `.git` unless the config sets others; the folder itself when none does), then the
/// repository root (a linked worktree's main checkout), each as written and resolved
/// (openai/codex `codex-rs/core/src/config_loader`, `ProjectTrustContext::decision_for_dir`;
/// measured in Codex 0.171 by crates/e2e/tests/hooks_differential_codex.rs: a project's
/// hooks ran only when its entry said "trusted").
pub fn project_trust(config: Option<&Value>, layer_dir: &Path) -> ProjectTrust {
    let projects = config
        .and_then(|c| c.get("projects"))
        .and_then(Value::as_object);
    use crate::dialects::codex::{project_root, root_markers};
    let project_root = project_root(layer_dir, &root_markers(config));
    let mut candidates = vec![layer_dir.to_path_buf(), project_root.to_path_buf()];
    if let Some(repo) = repo_root_for_trust(layer_dir) {
        candidates.push(repo);
    }
    for dir in candidates {
        let mut keys = vec![dir.display().to_string()];
        if let Ok(real) = std::fs::canonicalize(&dir) {
            keys.insert(0, real.display().to_string());
        }
        for key in keys {
            let Some(entry) = projects.and_then(|p| p.get(&key)) else {
                continue;
            };
            let Some(level) = entry.get("trust_level").and_then(Value::as_str) else {
                continue;
            };
            return if level == "trusted" {
                ProjectTrust::Trusted
            } else {
                ProjectTrust::Untrusted { key }
            };
        }
    }
    ProjectTrust::Unset
}

/// The repository root Codex trusts a folder by: the nearest folder up holding `.git`; for a
/// linked worktree (`.git` is a file `gitdir: <main>/.git/worktrees/<name>`), the main
/// checkout.
fn repo_root_for_trust(dir: &Path) -> Option<std::path::PathBuf> {
    let root = dir.ancestors().find(|d| d.join(".git").exists())?;
    let dot_git = root.join(".git");
    if dot_git.is_dir() {
        return Some(root.to_path_buf());
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let git_dir = root.join(text.trim().strip_prefix("gitdir:")?.trim());
    let worktrees = git_dir.parent()?;
    if worktrees.file_name()? != "worktrees" {
        return None;
    }
    Some(worktrees.parent()?.parent()?.to_path_buf())
}

/// The `[hooks.state]` records that trust every command hook of `hooks` (the `hooks` object
/// of the `hooks.json` or `config.toml` at `path`, as JSON) as it is now: what Codex writes
/// when the user trusts them. For tests and examples.
pub fn trust_records_toml(path: &Path, hooks: &Value) -> String {
    let mut out = String::new();
    for (event, groups) in hooks.as_object().into_iter().flatten() {
        if event == "state" {
            continue;
        }
        for (gi, group) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = group.get("matcher").and_then(Value::as_str);
            let handlers = group.get("hooks").and_then(Value::as_array);
            for (hi, h) in handlers.into_iter().flatten().enumerate() {
                let Some(h) = h.as_object() else { continue };
                let id = identity(path, event, gi, hi, matcher, h);
                if let Some(hash) = id.hash {
                    out.push_str(&format!(
                        "\n[hooks.state.{}]\ntrusted_hash = {}\n",
                        Value::from(id.key),
                        Value::from(hash)
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handler(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn labels_are_snake_case() {
        assert_eq!(event_label("PreToolUse"), "pre_tool_use");
        assert_eq!(event_label("UserPromptSubmit"), "user_prompt_submit");
        assert_eq!(event_label("Stop"), "stop");
    }

    #[test]
    fn the_key_names_the_file_the_event_and_the_indexes() {
        let id = identity(
            Path::new("/h/.codex/hooks.json"),
            "PreToolUse",
            1,
            2,
            Some("Bash"),
            &handler(json!({"type": "command", "command": "x"})),
        );
        assert_eq!(id.key, "/h/.codex/hooks.json:pre_tool_use:1:2");
    }

    #[test]
    fn the_hash_is_that_of_the_normalized_hook() {
        let p = Path::new("/h/hooks.json");
        let h = |v: Value| handler(v);
        let hash = |event: &str, m: Option<&str>, v: Value| {
            identity(p, event, 0, 0, m, &h(v)).hash.unwrap()
        };
        // the compact, key-sorted JSON this hashes, by hand
        let text = r#"{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"echo hi","timeout":600,"type":"command"}],"matcher":"Bash"}"#;
        assert_eq!(
            hash(
                "PreToolUse",
                Some("Bash"),
                json!({"type": "command", "command": "echo hi"})
            ),
            format!("sha256:{}", crate::sha256::hex(text.as_bytes()))
        );
        // the default timeout written out, and `async: false`, are the same hook
        assert_eq!(
            hash(
                "PreToolUse",
                Some("Bash"),
                json!({"command": "echo hi", "timeout": 600, "async": false})
            ),
            hash("PreToolUse", Some("Bash"), json!({"command": "echo hi"}))
        );
        // a matcher on an event that takes none is not part of it
        assert_eq!(
            hash("Stop", Some("x"), json!({"command": "c"})),
            hash("Stop", None, json!({"command": "c"}))
        );
        assert_ne!(
            hash("PreToolUse", Some("x"), json!({"command": "c"})),
            hash("PreToolUse", None, json!({"command": "c"}))
        );
        for other in [
            json!({"command": "c", "timeout": 5}),
            json!({"command": "c", "statusMessage": "s"}),
            json!({"command": "d"}),
        ] {
            assert_ne!(
                hash("PreToolUse", None, other),
                hash("PreToolUse", None, json!({"command": "c"}))
            );
        }
        assert_eq!(
            identity(
                p,
                "PreToolUse",
                0,
                0,
                None,
                &h(json!({"command": "c", "async": true}))
            )
            .hash,
            None
        );
    }

    #[test]
    fn records_decide_trust() {
        let id = identity(
            Path::new("/h/hooks.json"),
            "PreToolUse",
            0,
            0,
            None,
            &handler(json!({"command": "c"})),
        );
        let hash = id.hash.clone().unwrap();
        let config = |state: Value| records(&json!({"hooks": {"state": state}}));
        assert_eq!(
            trust(
                &id,
                &config(json!({id.key.clone(): {"trusted_hash": hash}}))
            ),
            Trust::Trusted
        );
        assert_eq!(
            trust(
                &id,
                &config(json!({id.key.clone(): {"trusted_hash": "sha256:0"}}))
            ),
            Trust::Untrusted { changed: true }
        );
        assert_eq!(
            trust(&id, &config(json!({}))),
            Trust::Untrusted { changed: false }
        );
        assert_eq!(
            trust(
                &id,
                &config(json!({id.key.clone(): {"trusted_hash": hash, "enabled": false}}))
            ),
            Trust::Disabled
        );
        assert!(records(&json!({"model": "x"})).is_empty());
    }
}
