//! Claude Code: the reference dialect.
//!
//! Files: `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR/settings.json`),
//! `<project>/.claude/settings.json`, `<project>/.claude/settings.local.json`; hook lists
//! from all scopes are concatenated. Rewrite field `hookSpecificOutput.updatedInput`
//! (replaces the whole input). Default command timeout 600 s. `CLAUDE_PROJECT_DIR`.

use super::*;
use crate::events::EventKind as E;

// PreToolUse and PostToolUse, not PermissionRequest
const RAN: On = On::Events(&[E::PreToolUse, E::PostToolUse]);
const ASK: On = On::Events(&[E::PermissionRequest]);
const STOP: On = On::Events(&[E::Stop]);
// every event Claude Code was seen to give a `prompt_id` besides the tool events
const PROMPTED: On = On::Events(&[E::UserPromptSubmit, E::Stop, E::SessionEnd, E::PreCompact]);
const PROMPT_OR_STOP: On = On::Events(&[E::UserPromptSubmit, E::Stop]);
const COMPACT: On = On::Events(&[E::PreCompact]);

pub(super) static DIALECT: Dialect = Dialect {
    host: Host::Claude,
    id: "claude",
    display_name: "Claude Code",
    locations: &[
        ConfigLocation {
            scope: Scope::User,
            anchor: Anchor::User(&crate::homes::CLAUDE),
            file: "settings.json",
            shape: FileShape::MatcherGroupsJson,
        },
        ConfigLocation {
            scope: Scope::Project,
            anchor: Anchor::Project(".claude"),
            file: "settings.json",
            shape: FileShape::MatcherGroupsJson,
        },
        ConfigLocation {
            scope: Scope::Local,
            anchor: Anchor::Project(".claude"),
            file: "settings.local.json",
            shape: FileShape::MatcherGroupsJson,
        },
    ],
    events: &[
        ev(E::SessionStart, "SessionStart"),
        ev(E::SessionEnd, "SessionEnd"),
        ev(E::UserPromptSubmit, "UserPromptSubmit"),
        ev(E::PreToolUse, "PreToolUse"),
        ev(E::PostToolUse, "PostToolUse"),
        ev(E::Stop, "Stop"),
        ev(E::PreCompact, "PreCompact"),
        ev(E::Notification, "Notification"),
        ev(E::SubagentStart, "SubagentStart"),
        ev(E::SubagentStop, "SubagentStop"),
        ev(E::PermissionRequest, "PermissionRequest"),
        ev(E::TaskCompleted, "TaskCompleted"),
        ev(E::ConfigChange, "ConfigChange"),
    ],
    tools: ToolTable {
        names: &[
            "Bash",
            "Read",
            "Write",
            "Edit",
            "MultiEdit",
            "NotebookEdit",
            "Glob",
            "Grep",
            "LS",
            "Task",
            "WebFetch",
            "WebSearch",
            "TodoWrite",
        ],
        shell: &["Bash"],
        edit: &["Write", "Edit", "MultiEdit", "NotebookEdit"],
        aliases: &[],
    },
    rewrite: RewriteSpec {
        fields: &[("updatedInput", Placement::Nested)],
        style: RewriteStyle::Replace,
        requires_allow: false,
        foreign_fields: &["modifiedInput"],
        competing: CompetingRewrites::LastToFinish,
    },
    output: OutputStyle::Claude,
    payload: PayloadStyle::Claude,
    default_timeout: Duration::from_secs(600),
    timeout_unit: TimeoutUnit::Seconds,
    matcher: MatcherSyntax::CLAUDE_FAMILY,
    project_dir_env: &["CLAUDE_PROJECT_DIR"],
    // what Claude Code 2.1.332 gave a hook of each event it fired in a headless session
    // (PreToolUse, PostToolUse, SessionStart, UserPromptSubmit, Stop, SessionEnd, and
    // PreCompact on `claude -p /compact`:
    // crates/e2e/tests/hooks_differential.rs);
    // it also sets variables of its own process (CLAUDE_CODE_ENTRYPOINT, CLAUDE_PID, its
    // messaging socket, …), not emulated
    session_id_env: Some("CLAUDE_CODE_SESSION_ID"),
    constant_env: &[("CLAUDECODE", "1")],
    payload_fields: &[
        // tool events
        field(On::ToolEvents, "prompt_id", "cwd", FieldValue::Uuid),
        field(
            On::ToolEvents,
            "permission_mode",
            "prompt_id",
            FieldValue::Text("default"),
        ),
        field(
            On::ToolEvents,
            "effort",
            "permission_mode",
            FieldValue::Json(r#"{"level":"medium"}"#),
        ),
        field(
            RAN,
            "tool_use_id",
            "tool_input",
            FieldValue::CallId("toolu_"),
        ),
        // after the tool ran: how long it took, which the toolkit does not know
        // (`--field duration_ms=…`)
        field(
            On::ToolEvents,
            "duration_ms",
            "tool_response",
            FieldValue::Json("0"),
        ),
        // what Claude would offer the user to allow (it depends on the command; the toolkit
        // sends none: `--field permission_suggestions=[…]`)
        field(
            ASK,
            "permission_suggestions",
            "tool_input",
            FieldValue::Json("[]"),
        ),
        field(PROMPTED, "prompt_id", "cwd", FieldValue::Uuid),
        field(
            PROMPT_OR_STOP,
            "permission_mode",
            "prompt_id",
            FieldValue::Text("default"),
        ),
        field(
            STOP,
            "effort",
            "permission_mode",
            FieldValue::Json(r#"{"level":"medium"}"#),
        ),
        // the turn's last answer, which the toolkit does not know (`--field`)
        field(
            STOP,
            "last_assistant_message",
            "stop_hook_active",
            FieldValue::Text(""),
        ),
        field(
            STOP,
            "background_tasks",
            "last_assistant_message",
            FieldValue::Json("[]"),
        ),
        field(
            STOP,
            "session_crons",
            "background_tasks",
            FieldValue::Json("[]"),
        ),
        // `/compact` without instructions gave `custom_instructions: null`
        field(
            COMPACT,
            "custom_instructions",
            "trigger",
            FieldValue::Json("null"),
        ),
    ],
    fail_closed_key: None,
    dedupes_identical_commands: true,
    handler_types: &["command", "prompt", "agent"],
    pre_tool_stop_runs_tool: true,
    exit2_needs_stderr: false,
    strict_tool_output: false,
    project_layers_from_root: false,
    pre_tool_timeout_blocks: false,
    sources: "Claude Code hooks reference (code.claude.com/docs/en/hooks), settings docs",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_scopes_in_order() {
        let files = DIALECT.config_files(&HostEnv::with_home("/h"), Path::new("/p"));
        let got: Vec<_> = files.iter().map(|f| (f.scope, f.path.clone())).collect();
        assert_eq!(
            got,
            vec![
                (Scope::User, PathBuf::from("/h/.claude/settings.json")),
                (Scope::Project, PathBuf::from("/p/.claude/settings.json")),
                (
                    Scope::Local,
                    PathBuf::from("/p/.claude/settings.local.json")
                ),
            ]
        );
        assert_eq!(DIALECT.default_timeout, Duration::from_secs(600));
        assert_eq!(
            DIALECT.rewrite.fields,
            &[("updatedInput", Placement::Nested)]
        );
    }
}
