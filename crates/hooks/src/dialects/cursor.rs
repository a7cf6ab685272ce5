//! Cursor: flat `hooks.json` files with `version: 1`.
//!
//! Files: `~/.cursor/hooks.json`, `<project>/.cursor/hooks.json`. Each event holds a flat
//! list of `{command, matcher?, timeout?, failClosed?}` (no matcher groups). Events are
//! camelCase (`preToolUse`, `beforeShellExecution`, …); `beforeShellExecution` matches its
//! matcher against the command text. Output is snake_case: `permission`, `user_message`,
//! `agent_message`, `updated_input`. `CURSOR_PROJECT_DIR` plus the `CLAUDE_PROJECT_DIR`
//! alias. Failures fail open unless `failClosed: true`.

use super::*;
use crate::events::EventKind as E;

pub(super) static DIALECT: Dialect = Dialect {
    host: Host::Cursor,
    id: "cursor",
    display_name: "Cursor",
    locations: &[
        ConfigLocation {
            scope: Scope::User,
            anchor: Anchor::User(&crate::homes::CURSOR),
            file: "hooks.json",
            shape: FileShape::FlatJson,
        },
        ConfigLocation {
            scope: Scope::Project,
            anchor: Anchor::Project(".cursor"),
            file: "hooks.json",
            shape: FileShape::FlatJson,
        },
    ],
    events: &[
        ev(E::SessionStart, "sessionStart"),
        ev(E::SessionEnd, "sessionEnd"),
        ev(E::UserPromptSubmit, "beforeSubmitPrompt"),
        ev(E::PreToolUse, "preToolUse"),
        ev(E::PostToolUse, "postToolUse"),
        ev(E::Stop, "stop"),
        ev(E::PreCompact, "preCompact"),
        ev(E::SubagentStart, "subagentStart"),
        ev(E::SubagentStop, "subagentStop"),
        HostEvent {
            kind: E::PreBash,
            name: "beforeShellExecution",
            matcher_target: Some(MatcherTarget::Field("command")),
        },
        HostEvent {
            kind: E::PostBash,
            name: "afterShellExecution",
            matcher_target: Some(MatcherTarget::Field("command")),
        },
        HostEvent {
            kind: E::PostEdit,
            name: "afterFileEdit",
            matcher_target: Some(MatcherTarget::Ignored),
        },
    ],
    tools: ToolTable {
        names: &[
            "Shell",
            "Read",
            "Write",
            "Edit",
            "StrReplace",
            "Delete",
            "Grep",
            "Task",
            "MCP",
        ],
        shell: &["Shell"],
        edit: &["Write", "Edit", "StrReplace"],
        aliases: &[],
    },
    rewrite: RewriteSpec {
        fields: &[("updated_input", Placement::TopLevel)],
        style: RewriteStyle::Replace,
        requires_allow: false,
        foreign_fields: &["updatedInput", "modifiedInput"],
        competing: CompetingRewrites::ConfigOrder,
    },
    output: OutputStyle::Cursor,
    payload: PayloadStyle::Cursor,
    default_timeout: Duration::from_secs(60),
    timeout_unit: TimeoutUnit::Seconds,
    matcher: MatcherSyntax::CLAUDE_FAMILY,
    project_dir_env: &["CURSOR_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
    session_id_env: None,
    constant_env: &[],
    payload_fields: &[],
    fail_closed_key: Some("failClosed"),
    dedupes_identical_commands: true,
    handler_types: &["command", "prompt"],
    pre_tool_stop_runs_tool: false,
    exit2_needs_stderr: false,
    strict_tool_output: false,
    project_layers_from_root: false,
    pre_tool_timeout_blocks: false,
    sources: "cursor.com/docs/hooks; agent-config docs/agents/cursor.md",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_files_and_camel_case_events() {
        let files = DIALECT.config_files(&HostEnv::with_home("/h"), Path::new("/p"));
        assert!(files.iter().all(|f| f.shape == FileShape::FlatJson));
        assert_eq!(files[1].path, PathBuf::from("/p/.cursor/hooks.json"));
        assert_eq!(
            DIALECT.event_name(E::UserPromptSubmit),
            Some("beforeSubmitPrompt")
        );
        assert_eq!(DIALECT.event_name(E::PreBash), Some("beforeShellExecution"));
        assert_eq!(
            DIALECT.matcher_target(E::PreBash),
            MatcherTarget::Field("command")
        );
        assert_eq!(
            DIALECT.matcher_target(E::PreToolUse),
            MatcherTarget::ToolName
        );
    }
}
