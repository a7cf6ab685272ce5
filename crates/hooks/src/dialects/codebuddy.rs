//! CodeBuddy (default dialect), as CodeBuddy's published hook reference states.
//!
//! Files: `~/.codebuddy/settings.json`, `<project>/.codebuddy/settings.json` (user first,
//! then project; lists are concatenated). Seven events. Tool names are the IDE's
//! (`execute_command`, `write_to_file`, `replace_in_file`, …); matchers may also use the
//! Claude-style aliases (`Bash`, `Write`, `Edit`, …) and vice versa. The rewrite field is
//! `modifiedInput` (read inside `hookSpecificOutput`, and at the top level as some adapters
//! emit it), applied only with `permissionDecision: "allow"`. Default timeout 60 s.
//! `CODEBUDDY_PROJECT_DIR` and `CLAUDE_PROJECT_DIR` are set for every hook.

use super::*;
use crate::events::EventKind as E;

/// `~/.codebuddy/settings.json` (or `$CODEBUDDY_CONFIG_DIR/settings.json`).
pub(super) const USER_SETTINGS: ConfigLocation = ConfigLocation {
    scope: Scope::User,
    anchor: Anchor::User(&crate::homes::CODEBUDDY),
    file: "settings.json",
    shape: FileShape::MatcherGroupsJson,
};

/// `<project>/.codebuddy/settings.json`.
pub(super) const PROJECT_SETTINGS: ConfigLocation = ConfigLocation {
    scope: Scope::Project,
    anchor: Anchor::Project(".codebuddy"),
    file: "settings.json",
    shape: FileShape::MatcherGroupsJson,
};

pub(super) static DIALECT: Dialect = Dialect {
    host: Host::CodeBuddy,
    id: "codebuddy",
    display_name: "CodeBuddy",
    locations: &[USER_SETTINGS, PROJECT_SETTINGS],
    events: &[
        ev(E::SessionStart, "SessionStart"),
        ev(E::SessionEnd, "SessionEnd"),
        ev(E::UserPromptSubmit, "UserPromptSubmit"),
        ev(E::PreToolUse, "PreToolUse"),
        ev(E::PostToolUse, "PostToolUse"),
        ev(E::Stop, "Stop"),
        ev(E::PreCompact, "PreCompact"),
    ],
    tools: ToolTable {
        names: &[
            "read_file",
            "write_to_file",
            "replace_in_file",
            "delete_files",
            "list_files",
            "search_file",
            "search_content",
            "read_lints",
            "execute_command",
            "preview_url",
            "task",
            "web_search",
            "web_fetch",
            "ask_followup_question",
        ],
        shell: &["execute_command"],
        edit: &["write_to_file", "replace_in_file"],
        aliases: &[
            ("execute_command", &["Bash"]),
            ("write_to_file", &["Write"]),
            ("replace_in_file", &["Edit", "MultiEdit"]),
            ("read_file", &["Read"]),
            ("list_files", &["Glob", "LS"]),
            ("search_content", &["Grep"]),
            ("task", &["Task"]),
            ("web_search", &["WebSearch"]),
            ("web_fetch", &["WebFetch"]),
        ],
    },
    rewrite: RewriteSpec {
        fields: &[
            ("modifiedInput", Placement::Nested),
            ("modifiedInput", Placement::TopLevel),
        ],
        style: RewriteStyle::Replace,
        requires_allow: true,
        foreign_fields: &["updatedInput"],
        competing: CompetingRewrites::ConfigOrder,
    },
    output: OutputStyle::Claude,
    payload: PayloadStyle::Claude,
    default_timeout: Duration::from_secs(60),
    timeout_unit: TimeoutUnit::Seconds,
    matcher: MatcherSyntax::CLAUDE_FAMILY,
    project_dir_env: &["CODEBUDDY_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
    session_id_env: None,
    constant_env: &[],
    payload_fields: &[],
    fail_closed_key: None,
    dedupes_identical_commands: true,
    handler_types: &["command", "prompt"],
    pre_tool_stop_runs_tool: false,
    exit2_needs_stderr: false,
    strict_tool_output: false,
    project_layers_from_root: false,
    pre_tool_timeout_blocks: false,
    sources: "CodeBuddy hook reference (tencentcloud 1256/77296)",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_002_files_and_defaults() {
        let env = HostEnv::with_home("/home/u");
        let files = DIALECT.config_files(&env, Path::new("/proj"));
        let paths: Vec<_> = files.iter().map(|f| f.path.clone()).collect();
        assert_eq!(
            paths,
            vec![
                PathBuf::from("/home/u/.codebuddy/settings.json"),
                PathBuf::from("/proj/.codebuddy/settings.json")
            ]
        );
        assert_eq!(DIALECT.default_timeout, Duration::from_secs(60));
        assert_eq!(
            DIALECT.project_dir_env,
            &["CODEBUDDY_PROJECT_DIR", "CLAUDE_PROJECT_DIR"]
        );
        assert_eq!(DIALECT.events.len(), 7);
    }

    #[test]
    fn aliases_are_bidirectional() {
        assert_eq!(
            DIALECT.tool_names_for_matching("execute_command"),
            vec!["execute_command", "Bash"]
        );
        assert_eq!(
            DIALECT.tool_names_for_matching("Bash"),
            vec!["Bash", "execute_command"]
        );
        assert_eq!(DIALECT.canonical_tool_name("Write"), "write_to_file");
        assert_eq!(DIALECT.canonical_tool_name("Edit"), "replace_in_file");
        assert_eq!(DIALECT.canonical_tool_name("read_file"), "read_file");
        assert_eq!(DIALECT.canonical_tool_name("mcp__x"), "mcp__x");
        assert!(DIALECT.tool_in_class("Bash", ToolClass::Shell));
        assert!(DIALECT.tool_in_class("replace_in_file", ToolClass::Edit));
        assert!(!DIALECT.tool_in_class("read_file", ToolClass::Edit));
    }
}
