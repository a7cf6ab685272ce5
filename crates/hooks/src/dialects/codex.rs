//! Codex CLI: `hooks.json` and inline `[hooks]` tables in `config.toml`.
//!
//! Files: `$CODEX_HOME` (default `~/.codex`) `hooks.json` and `config.toml`, then
//! `<project>/.codex/hooks.json` and `config.toml`; every layer loads. Same matcher-group
//! shape as Claude; matchers use the Rust `regex` crate (no look-around) and exact names
//! are `[A-Za-z0-9_|]`. `apply_patch` is matched by the aliases `Write` and `Edit`.
//! `updatedInput` is honoured only together with `allow`. Default timeout 600 s.

use super::*;
use crate::events::EventKind as E;

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
        competing: CompetingRewrites::ConfigOrder,
    },
    output: OutputStyle::Claude,
    payload: PayloadStyle::Claude,
    default_timeout: Duration::from_secs(600),
    timeout_unit: TimeoutUnit::Seconds,
    matcher: MatcherSyntax::CODEX,
    project_dir_env: &[],
    session_id_env: None,
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
    sources: "developers.openai.com/codex/hooks; openai/codex codex-rs/hooks",
};

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
}
