//! CodeBuddy Code, the command-line agent (`codebuddy`, shipped in `@tencent-ai/agent-sdk`),
//! as measured in the real CLI 2.117.0 by the end-to-end suite
//! (`crates/e2e/tests/hooks_differential_codebuddy.rs`). It reads the same settings files as
//! the IDE dialect ([`super::codebuddy`]) but differs from the IDE's published reference:
//!
//! - the shell tool is `Bash` in the payload (Claude Code's tool names); the IDE's names
//!   (`execute_command`, …) still match as aliases;
//! - a PreToolUse rewrite is read from `hookSpecificOutput.updatedInput` and applied without a
//!   `permissionDecision`; `modifiedInput` (the IDE's field) is ignored, and said so.
//!
//! Measured: the user settings file, the project's `settings.json` and `settings.local.json`
//! (read in the folder the CLI starts in only), the `Bash` name and the PreToolUse payload,
//! the two rewrite fields, all in `-y` (bypass) mode. Not measured, and taken as they are:
//! the other tools' names (Claude Code's), and the events, timeouts, matchers and
//! environment (the IDE dialect's); and whether the CLI wants `allow` before applying a
//! rewrite when a permission prompt would show.

use super::*;
use crate::events::EventKind as E;

const START: On = On::Events(&[E::SessionStart]);
const PROMPT: On = On::Events(&[E::UserPromptSubmit]);
const STOP: On = On::Events(&[E::Stop]);

pub(super) static DIALECT: Dialect = Dialect {
    host: Host::CodeBuddyCli,
    id: "codebuddy-cli",
    display_name: "CodeBuddy Code (CLI)",
    // the IDE's two files, then the project's settings.local.json: the CLI ran a hook from
    // it (measured in 2.117.0: crates/e2e/tests/hooks_differential_codebuddy.rs); only the
    // folder the CLI starts in counts, not a repository above it (measured too)
    locations: &[
        super::codebuddy::USER_SETTINGS,
        super::codebuddy::PROJECT_SETTINGS,
        ConfigLocation {
            scope: Scope::Local,
            anchor: Anchor::Project(".codebuddy"),
            file: "settings.local.json",
            shape: FileShape::MatcherGroupsJson,
        },
    ],
    // Claude Code's tool names, the IDE's as aliases
    tools: ToolTable {
        names: super::claude::DIALECT.tools.names,
        shell: super::claude::DIALECT.tools.shell,
        edit: super::claude::DIALECT.tools.edit,
        aliases: &[
            ("Bash", &["execute_command"]),
            ("Write", &["write_to_file"]),
            ("Edit", &["replace_in_file"]),
            ("MultiEdit", &["replace_in_file"]),
            ("Read", &["read_file"]),
            ("Glob", &["list_files"]),
            ("LS", &["list_files"]),
            ("Grep", &["search_content"]),
            ("Task", &["task"]),
            ("WebSearch", &["web_search"]),
            ("WebFetch", &["web_fetch"]),
        ],
    },
    rewrite: RewriteSpec {
        fields: &[("updatedInput", Placement::Nested)],
        style: RewriteStyle::Replace,
        requires_allow: false,
        foreign_fields: &["modifiedInput"],
        // of two hooks that both rewrite, the CLI 2.117 ran the later one's in the file,
        // whichever finished last (crates/e2e/tests/hooks_differential_codebuddy.rs)
        competing: CompetingRewrites::ConfigOrder,
    },
    // a PreToolUse hook past its timeout: the tool did not run and the model read `Error:
    // Hook timed out after 1000ms` (crates/e2e/tests/hooks_differential_codebuddy.rs)
    pre_tool_timeout_blocks: true,
    // what the CLI 2.117 gave a hook of each event it fired in a headless session
    // (PreToolUse, PostToolUse, SessionStart, UserPromptSubmit, Stop:
    // crates/e2e/tests/hooks_differential_codebuddy.rs): `model` it took from
    // CODEBUDDY_MODEL there; `permission_mode` was `bypassPermissions` under `-y` (the
    // toolkit sends `default`, as Claude Code does without it; not measured)
    payload_fields: &[
        field(
            On::ToolEvents,
            "call_id",
            "tool_input",
            FieldValue::CallId("call_"),
        ),
        field(
            On::ToolEvents,
            "tool_use_id",
            "call_id",
            FieldValue::CallId("call_"),
        ),
        field(
            On::ToolEvents,
            "agent_type",
            "tool_use_id",
            FieldValue::Text("cli"),
        ),
        field(
            On::ToolEvents,
            "permission_mode",
            "agent_type",
            FieldValue::Text("default"),
        ),
        field(
            On::ToolEvents,
            "client",
            "permission_mode",
            FieldValue::Text("CLI"),
        ),
        field(
            On::ToolEvents,
            "version",
            "client",
            FieldValue::Text("2.117.0"),
        ),
        field(
            On::ToolEvents,
            "generation_id",
            "version",
            FieldValue::Hex32,
        ),
        field(
            On::ToolEvents,
            "model",
            "generation_id",
            FieldValue::Var("CODEBUDDY_MODEL"),
        ),
        // SessionStart has no cwd
        field(START, "cwd", "cwd", FieldValue::Absent),
        field(
            START,
            "permission_mode",
            "source",
            FieldValue::Text("default"),
        ),
        field(START, "client", "permission_mode", FieldValue::Text("CLI")),
        field(START, "version", "client", FieldValue::Text("2.117.0")),
        field(
            START,
            "model",
            "version",
            FieldValue::Var("CODEBUDDY_MODEL"),
        ),
        field(
            PROMPT,
            "permission_mode",
            "prompt",
            FieldValue::Text("default"),
        ),
        field(PROMPT, "client", "permission_mode", FieldValue::Text("CLI")),
        field(PROMPT, "version", "client", FieldValue::Text("2.117.0")),
        field(
            PROMPT,
            "model",
            "version",
            FieldValue::Var("CODEBUDDY_MODEL"),
        ),
        field(
            STOP,
            "agent_type",
            "stop_hook_active",
            FieldValue::Text("cli"),
        ),
        // the turn's last answer, which the toolkit does not know (`--field`)
        field(
            STOP,
            "last_assistant_message",
            "agent_type",
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
        field(
            STOP,
            "permission_mode",
            "session_crons",
            FieldValue::Text("default"),
        ),
        field(STOP, "client", "permission_mode", FieldValue::Text("CLI")),
        field(STOP, "version", "client", FieldValue::Text("2.117.0")),
        field(STOP, "generation_id", "version", FieldValue::Hex32),
        field(
            STOP,
            "model",
            "generation_id",
            FieldValue::Var("CODEBUDDY_MODEL"),
        ),
    ],
    sources:
        "CodeBuddy Code CLI 2.117.0, measured (crates/e2e/tests/hooks_differential_codebuddy.rs)",
    // events, output and payload style, timeouts, matchers, environment: the IDE's (not
    // measured in the CLI)
    ..super::codebuddy::DIALECT
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cli_sends_claude_tool_names_and_keeps_the_ide_names_as_aliases() {
        assert_eq!(DIALECT.canonical_tool_name("execute_command"), "Bash");
        assert!(DIALECT.tool_in_class("Bash", ToolClass::Shell));
        assert!(DIALECT.tool_in_class("execute_command", ToolClass::Shell));
        assert_eq!(
            DIALECT
                .config_files(&HostEnv::with_home("/h"), Path::new("/p"))
                .len(),
            3
        );
    }
}
