//! Gemini CLI.
//!
//! Files: `<project>/.gemini/settings.json` then `~/.gemini/settings.json` (project hooks
//! run first). Events `BeforeTool`, `AfterTool`, `BeforeAgent`, `AfterAgent`,
//! `PreCompress`, … Timeouts are in **milliseconds** (default 60 000). A matcher group with
//! `"sequential": true` runs its hooks one after another, each seeing the `tool_input` as
//! rewritten by the previous one. Rewrites are `hookSpecificOutput.tool_input`, merged over
//! the input. Top-level `decision` (`allow`/`deny`/`block`) and `reason`; plain stdout on
//! exit 0 becomes a systemMessage. `GEMINI_PROJECT_DIR`, `CLAUDE_PROJECT_DIR`,
//! `GEMINI_SESSION_ID`.

use super::*;
use crate::events::EventKind as E;

const AFTER_AGENT: On = On::Events(&[E::Stop]);
const PRE_COMPRESS: On = On::Events(&[E::PreCompact]);

pub(super) static DIALECT: Dialect = Dialect {
    host: Host::Gemini,
    id: "gemini",
    display_name: "Gemini CLI",
    locations: &[
        ConfigLocation {
            scope: Scope::Project,
            anchor: Anchor::Project(".gemini"),
            file: "settings.json",
            shape: FileShape::MatcherGroupsJson,
        },
        ConfigLocation {
            scope: Scope::User,
            anchor: Anchor::User(&crate::homes::GEMINI),
            file: "settings.json",
            shape: FileShape::MatcherGroupsJson,
        },
    ],
    events: &[
        ev(E::SessionStart, "SessionStart"),
        ev(E::SessionEnd, "SessionEnd"),
        ev(E::UserPromptSubmit, "BeforeAgent"),
        ev(E::PreToolUse, "BeforeTool"),
        ev(E::PostToolUse, "AfterTool"),
        ev(E::Stop, "AfterAgent"),
        ev(E::PreCompact, "PreCompress"),
        ev(E::Notification, "Notification"),
    ],
    tools: ToolTable {
        names: &[
            "run_shell_command",
            "read_file",
            "read_many_files",
            "write_file",
            "replace",
            "glob",
            "search_file_content",
            "list_directory",
            "web_fetch",
            "google_web_search",
        ],
        shell: &["run_shell_command"],
        edit: &["write_file", "replace"],
        aliases: &[],
    },
    rewrite: RewriteSpec {
        fields: &[("tool_input", Placement::Nested)],
        style: RewriteStyle::Patch,
        requires_allow: false,
        foreign_fields: &["updatedInput", "modifiedInput"],
        competing: CompetingRewrites::ConfigOrder,
    },
    output: OutputStyle::Gemini,
    payload: PayloadStyle::Gemini,
    default_timeout: Duration::from_millis(60_000),
    timeout_unit: TimeoutUnit::Milliseconds,
    matcher: MatcherSyntax::CLAUDE_FAMILY,
    // and GEMINI_CWD, the session's working directory (Gemini CLI 0.61 gave a hook all
    // three: crates/e2e/tests/hooks_differential_gemini.rs; its GEMINI_PLANS_DIR, a folder of
    // the session's, is not emulated)
    project_dir_env: &["GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "GEMINI_CWD"],
    session_id_env: Some("GEMINI_SESSION_ID"),
    constant_env: &[],
    // AfterAgent also carries the prompt and the answer (Gemini CLI 0.61 gave a hook both:
    // crates/e2e/tests/hooks_differential_gemini.rs), which the toolkit does not know
    // (`--prompt`, `--field prompt_response=…`)
    payload_fields: &[
        field(AFTER_AGENT, "prompt", "timestamp", FieldValue::Text("")),
        field(
            AFTER_AGENT,
            "prompt_response",
            "prompt",
            FieldValue::Text(""),
        ),
        // PreCompress has its `trigger` only (Gemini CLI 0.61, which fired it with
        // `"auto"` in a headless session): no `custom_instructions` as Claude Code's has
        field(
            PRE_COMPRESS,
            "custom_instructions",
            "custom_instructions",
            FieldValue::Absent,
        ),
    ],
    fail_closed_key: None,
    dedupes_identical_commands: true,
    handler_types: &["command"],
    pre_tool_stop_runs_tool: false,
    exit2_needs_stderr: false,
    strict_tool_output: false,
    project_layers_from_root: false,
    pre_tool_timeout_blocks: false,
    sources: "google-gemini/gemini-cli docs/hooks (index.md, reference.md), hookRunner.ts",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_first_and_millisecond_timeouts() {
        let files = DIALECT.config_files(&HostEnv::with_home("/h"), Path::new("/p"));
        assert_eq!(files[0].scope, Scope::Project);
        assert_eq!(files[1].path, PathBuf::from("/h/.gemini/settings.json"));
        assert_eq!(DIALECT.event_name(E::PreToolUse), Some("BeforeTool"));
        assert_eq!(DIALECT.event_name(E::PostToolUse), Some("AfterTool"));
        assert_eq!(DIALECT.timeout_unit, TimeoutUnit::Milliseconds);
        assert_eq!(DIALECT.rewrite.style, RewriteStyle::Patch);
    }
}
