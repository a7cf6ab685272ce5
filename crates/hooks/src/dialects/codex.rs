//! Codex CLI: `hooks.json` and inline `[hooks]` tables in `config.toml`.
//!
//! Files: `$CODEX_HOME` (default `~/.codex`) `hooks.json` and `config.toml`, then
//! `.codex/hooks.json` and `config.toml` of each folder from the project root (the nearest
//! folder up holding `.git`, or a `project_root_markers` entry of the user's config.toml)
//! down to the project directory; a project's folders load only when the user's
//! config.toml marks the project trusted (see `engine::codex_trust`). Same matcher-group
//! shape as Claude; matchers use the Rust `regex` crate (no look-around) and exact names
//! are `[A-Za-z0-9_|]`. `apply_patch` is matched by the aliases `Write` and `Edit`.
//! `updatedInput` is honoured only together with `allow`; of two rewrites, the one of the hook
//! that finished last wins. Default timeout 600 s.

use super::*;
use crate::events::EventKind as E;

const START: On = On::Events(&[E::SessionStart]);
const TURN: On = On::Events(&[E::UserPromptSubmit, E::Stop]);
const STOP: On = On::Events(&[E::Stop]);

pub(super) static DIALECT: Dialect = Dialect {
    host: Host::Codex,
    id: "codex",
    display_name: "Codex CLI",
    locations: &[
        ConfigLocation {
            scope: Scope::User,
            anchor: Anchor::User(&crate::homes::CODEX),
            file: "hooks.json",
            shape: FileShape::MatcherGroupsJson,
        },
        ConfigLocation {
            scope: Scope::User,
            anchor: Anchor::User(&crate::homes::CODEX),
            file: "config.toml",
            shape: FileShape::MatcherGroupsToml,
        },
        ConfigLocation {
            scope: Scope::Project,
            anchor: Anchor::Project(".codex"),
            file: "hooks.json",
            shape: FileShape::MatcherGroupsJson,
        },
        ConfigLocation {
            scope: Scope::Project,
            anchor: Anchor::Project(".codex"),
            file: "config.toml",
            shape: FileShape::MatcherGroupsToml,
        },
    ],
    events: &[
        ev(E::SessionStart, "SessionStart"),
        ev(E::UserPromptSubmit, "UserPromptSubmit"),
        ev(E::PreToolUse, "PreToolUse"),
        ev(E::PermissionRequest, "PermissionRequest"),
        ev(E::PostToolUse, "PostToolUse"),
        ev(E::PreCompact, "PreCompact"),
        ev(E::SubagentStart, "SubagentStart"),
        ev(E::SubagentStop, "SubagentStop"),
        ev(E::Stop, "Stop"),
    ],
    tools: ToolTable {
        names: &["Bash", "apply_patch"],
        shell: &["Bash"],
        edit: &["apply_patch"],
        aliases: &[("apply_patch", &["Write", "Edit"])],
    },
    rewrite: RewriteSpec {
        fields: &[("updatedInput", Placement::Nested)],
        style: RewriteStyle::Replace,
        requires_allow: true,
        foreign_fields: &["modifiedInput"],
        // of two hooks that both rewrite, Codex 0.171 ran the rewrite of the one that
        // finished last, whichever came first in the file
        // (crates/e2e/tests/hooks_differential_codex.rs)
        competing: CompetingRewrites::LastToFinish,
    },
    output: OutputStyle::Claude,
    payload: PayloadStyle::Claude,
    default_timeout: Duration::from_secs(600),
    timeout_unit: TimeoutUnit::Seconds,
    matcher: MatcherSyntax::CODEX,
    project_dir_env: &[],
    session_id_env: None,
    constant_env: &[],
    // what Codex 0.171 gave a hook of each event it fired in `codex exec` (PreToolUse,
    // PostToolUse, SessionStart, UserPromptSubmit, Stop:
    // crates/e2e/tests/hooks_differential_codex.rs; codex-rs/hooks/src/schema.rs): `model` is the session's,
    // which the toolkit does not know (`--field model=…`); `permission_mode` was
    // `bypassPermissions` under `codex exec` (the toolkit sends `default`; not measured)
    payload_fields: &[
        field(On::ToolEvents, "turn_id", "session_id", FieldValue::Uuid),
        field(
            On::ToolEvents,
            "model",
            "hook_event_name",
            FieldValue::Text(""),
        ),
        field(
            On::ToolEvents,
            "permission_mode",
            "model",
            FieldValue::Text("default"),
        ),
        field(
            On::ToolEvents,
            "tool_use_id",
            "tool_input",
            FieldValue::CallId("call_"),
        ),
        field(START, "model", "hook_event_name", FieldValue::Text("")),
        field(
            START,
            "permission_mode",
            "model",
            FieldValue::Text("default"),
        ),
        field(TURN, "turn_id", "session_id", FieldValue::Uuid),
        field(TURN, "model", "hook_event_name", FieldValue::Text("")),
        field(
            TURN,
            "permission_mode",
            "model",
            FieldValue::Text("default"),
        ),
        // the turn's last answer, which the toolkit does not know (`--field`)
        field(
            STOP,
            "last_assistant_message",
            "stop_hook_active",
            FieldValue::Text(""),
        ),
    ],
    fail_closed_key: None,
    dedupes_identical_commands: false,
    handler_types: &["command"],
    pre_tool_stop_runs_tool: false,
    // exit 2 with an empty stderr: "PreToolUse hook exited with code 2 but did not write a
    // blocking reason to stderr", a failed hook (openai/codex
    // codex-rs/hooks/src/events/pre_tool_use.rs `parse_completed`; the Codex 0.169 binary
    // says the same for PostToolUse, PermissionRequest, UserPromptSubmit, Stop and
    // SubagentStop); the tool ran in Codex 0.169 (crates/e2e/tests/hooks_differential_codex.rs)
    exit2_needs_stderr: true,
    // codex-rs/hooks/src/schema.rs (`deny_unknown_fields` wire structs) and
    // codex-rs/hooks/src/engine/output_parser.rs (`parse_pre_tool_use`,
    // `parse_post_tool_use`); measured in Codex 0.169 (PreToolUse) and 0.171 (both) by
    // crates/e2e/tests/hooks_differential_codex.rs
    strict_tool_output: true,
    // openai/codex codex-rs/core/src/config_loader `load_project_layers`, `find_project_root`
    project_layers_from_root: true,
    // Codex 0.171 ran the tool (crates/e2e/tests/hooks_differential_codex.rs)
    pre_tool_timeout_blocks: false,
    sources: "developers.openai.com/codex/hooks; openai/codex codex-rs/hooks",
};

/// The markers of a project root: `project_root_markers` of the user's config.toml
/// (parsed), `.git` when it sets none (openai/codex `codex-rs/core/src/config_loader`).
pub fn root_markers(config: Option<&serde_json::Value>) -> Vec<String> {
    config
        .and_then(|c| c.get("project_root_markers"))
        .and_then(serde_json::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(serde_json::Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_else(|| vec![".git".to_string()])
}

/// The project root of `dir`: the nearest folder up holding one of `markers`, else `dir`
/// itself (and `dir` when there are no markers), as Codex's `find_project_root`.
pub fn project_root<'a>(dir: &'a Path, markers: &[String]) -> &'a Path {
    dir.ancestors()
        .find(|d| markers.iter().any(|m| d.join(m).exists()))
        .unwrap_or(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_toml_layers_with_codex_home() {
        let env = HostEnv::with_home("/h").set("CODEX_HOME", "/ch");
        let files = DIALECT.config_files(&env, Path::new("/p"));
        let got: Vec<_> = files.iter().map(|f| (f.path.clone(), f.shape)).collect();
        assert_eq!(
            got,
            vec![
                (
                    PathBuf::from("/ch/hooks.json"),
                    FileShape::MatcherGroupsJson
                ),
                (
                    PathBuf::from("/ch/config.toml"),
                    FileShape::MatcherGroupsToml
                ),
                (
                    PathBuf::from("/p/.codex/hooks.json"),
                    FileShape::MatcherGroupsJson
                ),
                (
                    PathBuf::from("/p/.codex/config.toml"),
                    FileShape::MatcherGroupsToml
                ),
            ]
        );
        assert_eq!(
            DIALECT.tool_names_for_matching("apply_patch"),
            vec!["apply_patch", "Write", "Edit"]
        );
    }

    #[test]
    fn project_folders_from_the_project_root_down() {
        // Codex reads the .codex folder of each folder from the project root (`.git`, or
        // the user's `project_root_markers`) down to the working directory, the root's
        // first, and never the user's own folder twice
        let t = tempfile::tempdir().unwrap();
        let repo = t.path().join("repo");
        let sub = repo.join("a/b");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(&sub).unwrap();
        let ch = t.path().join("ch");
        std::fs::create_dir_all(&ch).unwrap();
        let env = HostEnv::with_home(t.path()).set("CODEX_HOME", ch.to_str().unwrap());
        let project_files = |project: &Path| -> Vec<PathBuf> {
            DIALECT
                .config_files(&env, project)
                .into_iter()
                .filter(|f| f.scope == Scope::Project)
                .map(|f| f.path.strip_prefix(t.path()).unwrap().to_path_buf())
                .collect()
        };
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(
            project_files(&sub),
            [
                p("repo/.codex/hooks.json"),
                p("repo/.codex/config.toml"),
                p("repo/a/.codex/hooks.json"),
                p("repo/a/.codex/config.toml"),
                p("repo/a/b/.codex/hooks.json"),
                p("repo/a/b/.codex/config.toml"),
            ]
        );
        // other markers, or none: the working directory alone
        std::fs::write(ch.join("config.toml"), "project_root_markers = [\"a\"]\n").unwrap();
        assert_eq!(project_files(&repo.join("a")).len(), 4);
        std::fs::write(ch.join("config.toml"), "project_root_markers = []\n").unwrap();
        assert_eq!(
            project_files(&sub),
            [
                p("repo/a/b/.codex/hooks.json"),
                p("repo/a/b/.codex/config.toml")
            ]
        );
        // the user's folder is not read again as a project's
        let env =
            HostEnv::with_home(t.path()).set("CODEX_HOME", repo.join(".codex").to_str().unwrap());
        let files = DIALECT.config_files(&env, &repo);
        assert_eq!(
            files.len(),
            2,
            "{:?}",
            files.iter().map(|f| &f.path).collect::<Vec<_>>()
        );
    }
}
