use super::*;
use crate::dialects::{ConfigFile, FileShape, Scope};
use crate::payload::{build_payload, EventRequest};
use serde_json::json;
use std::time::Instant;

struct Fixture {
    _dir: tempfile::TempDir,
    project: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    Fixture { _dir: dir, project }
}

fn engine(host: Host, f: &Fixture, settings: Value) -> Engine {
    let d = host.dialect();
    let file = ConfigFile {
        path: f.project.join("settings.json"),
        scope: Scope::Project,
        shape: FileShape::MatcherGroupsJson,
    };
    let s = HookSettings::parse_text(d, &settings.to_string(), &file);
    assert!(!s.has_errors(), "{:?}", s.diagnostics);
    Engine::new(s, &f.project, HostEnv::default())
}

fn cmd(c: &str) -> Value {
    json!({"type": "command", "command": c})
}

fn payload(host: Host, f: &Fixture, event: EventKind, tool: Option<&str>, input: Value) -> Value {
    let req = EventRequest {
        session_id: Some("s1".into()),
        cwd: f.project.clone(),
        tool_name: tool.map(str::to_string),
        tool_input: Some(input),
        ..Default::default()
    };
    build_payload(host.dialect(), event, &req).unwrap()
}

#[test]
fn matching_hooks_run_in_parallel_and_merge_in_config_order() {
    let f = fixture();
    // The first hook is slow and denies; the second is fast and asks. Finish order is the
    // reverse of configuration order; the reason must still be the denier's.
    let e = engine(
        Host::CodeBuddy,
        &f,
        json!({"hooks": {"PreToolUse": [
            {"matcher": "execute_command", "hooks": [cmd(r#"sleep 1; echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"slow deny"}}'"#)]},
            {"matcher": "Bash", "hooks": [cmd(r#"sleep 0.5; echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"fast ask"}}'"#)]},
            {"matcher": "write_to_file", "hooks": [cmd("echo never")]}
        ]}}),
    );
    let p = payload(
        Host::CodeBuddy,
        &f,
        EventKind::PreToolUse,
        Some("execute_command"),
        json!({"command": "ls"}),
    );
    let start = Instant::now();
    let out = e.run(EventKind::PreToolUse, &p);
    let took = start.elapsed();
    assert!(
        took < Duration::from_millis(1450),
        "hooks did not run in parallel: {took:?}"
    );
    assert_eq!(out.hooks.len(), 2);
    assert_eq!(out.decision, Some(Decision::Deny));
    assert_eq!(out.reason.as_deref(), Some("slow deny"));
    assert_eq!(out.exit_code(), 2);
    assert_eq!(out.hooks[0].outcome, HookStatus::Deny);
    assert_eq!(out.hooks[1].outcome, HookStatus::Ask);
    assert!(
        out.hooks[1].matched.contains("aliases Bash"),
        "{}",
        out.hooks[1].matched
    );
}

#[test]
fn identical_commands_run_once_and_the_copy_is_reported() {
    let f = fixture();
    let marker = f.project.join("count");
    let c = format!("echo x >> '{}'", marker.display());
    let e = engine(
        Host::CodeBuddy,
        &f,
        json!({"hooks": {"Stop": [{"hooks": [cmd(&c)]}, {"hooks": [cmd(&c)]}]}}),
    );
    let p = payload(Host::CodeBuddy, &f, EventKind::Stop, None, json!({}));
    let out = e.run(EventKind::Stop, &p);
    assert_eq!(out.hooks.len(), 1);
    assert_eq!(out.hooks[0].duplicates.len(), 1);
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "x\n");
    // Codex does not dedupe.
    std::fs::remove_file(&marker).unwrap();
    let e = engine(
        Host::Codex,
        &f,
        json!({"hooks": {"Stop": [{"hooks": [cmd(&c)]}, {"hooks": [cmd(&c)]}]}}),
    );
    let out = e.run(
        EventKind::Stop,
        &payload(Host::Codex, &f, EventKind::Stop, None, json!({})),
    );
    assert_eq!(out.hooks.len(), 2);
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "x\nx\n");
}

#[test]
fn exit_codes_follow_seed_002() {
    let f = fixture();
    let e = engine(
        Host::CodeBuddy,
        &f,
        json!({"hooks": {"PreToolUse": [{"hooks": [
            cmd("echo 'warn only' >&2; exit 1"),
            cmd("echo 'should not count' ; echo 'Blocked: rm' >&2; exit 2"),
            cmd("exit 7"),
        ]}]}}),
    );
    let p = payload(
        Host::CodeBuddy,
        &f,
        EventKind::PreToolUse,
        Some("execute_command"),
        json!({"command": "rm -rf /"}),
    );
    let out = e.run(EventKind::PreToolUse, &p);
    assert_eq!(out.hooks[0].outcome, HookStatus::Error);
    assert_eq!(out.hooks[1].outcome, HookStatus::Blocked);
    assert_eq!(out.hooks[2].outcome, HookStatus::Error);
    assert_eq!(out.decision, Some(Decision::Deny));
    assert_eq!(out.reason.as_deref(), Some("Blocked: rm"));
    assert!(
        out.warnings
            .iter()
            .any(|w| w.contains("exit code 1") && w.contains("warn only")),
        "{:?}",
        out.warnings
    );
    assert!(
        out.warnings.iter().any(|w| w.contains("exit code 7")),
        "{:?}",
        out.warnings
    );
}

#[test]
fn exit_two_on_post_tool_use_is_feedback_and_on_session_start_a_warning() {
    let f = fixture();
    let e = engine(
        Host::CodeBuddy,
        &f,
        json!({"hooks": {
            "PostToolUse": [{"hooks": [cmd("echo 'lint failed' >&2; exit 2")]}],
            "SessionStart": [{"hooks": [cmd("echo 'nope' >&2; exit 2")]}]
        }}),
    );
    let out = e.run(
        EventKind::PostToolUse,
        &payload(Host::CodeBuddy, &f, EventKind::PostToolUse, None, json!({})),
    );
    assert_eq!(out.feedback, vec!["lint failed"]);
    assert!(!out.blocked());
    let out = e.run(
        EventKind::SessionStart,
        &payload(
            Host::CodeBuddy,
            &f,
            EventKind::SessionStart,
            None,
            json!({}),
        ),
    );
    assert!(!out.blocked());
    assert_eq!(out.hooks[0].outcome, HookStatus::Error);
}

#[test]
fn env_vars_and_working_directory() {
    let f = fixture();
    let e = engine(
        Host::CodeBuddy,
        &f,
        json!({"hooks": {"SessionStart": [{"hooks": [
            cmd(r#"printf '%s\n%s\n%s' "$CODEBUDDY_PROJECT_DIR" "$CLAUDE_PROJECT_DIR" "$(pwd)""#)
        ]}]}}),
    );
    let out = e.run(
        EventKind::SessionStart,
        &payload(
            Host::CodeBuddy,
            &f,
            EventKind::SessionStart,
            None,
            json!({}),
        ),
    );
    let dir = f.project.display().to_string();
    let lines: Vec<&str> = out.hooks[0].stdout.lines().collect();
    assert_eq!(lines[0], dir);
    assert_eq!(lines[1], dir);
    assert_eq!(
        std::fs::canonicalize(lines[2]).unwrap(),
        std::fs::canonicalize(&f.project).unwrap()
    );
    // plain text on SessionStart becomes context
    assert_eq!(out.additional_context.len(), 1);
}

#[test]
fn pre_bash_view_runs_pre_tool_use_hooks_only_for_shell_tools() {
    let f = fixture();
    let e = engine(
        Host::CodeBuddy,
        &f,
        json!({"hooks": {"PreToolUse": [{"hooks": [cmd("echo hi")]}]}}),
    );
    let p = payload(
        Host::CodeBuddy,
        &f,
        EventKind::PreBash,
        None,
        json!({"command": "ls"}),
    );
    assert_eq!(p["tool_name"], "execute_command");
    assert_eq!(e.run(EventKind::PreBash, &p).hooks.len(), 1);
    let p = payload(
        Host::CodeBuddy,
        &f,
        EventKind::PreToolUse,
        Some("read_file"),
        json!({}),
    );
    let plan = e.plan(EventKind::PreBash, &p);
    assert!(plan.selected.is_empty());
    assert!(
        plan.skipped[0].why.contains("only execute_command"),
        "{}",
        plan.skipped[0].why
    );
}

#[test]
fn gemini_sequential_group_chains_tool_input() {
    let f = fixture();
    let e = engine(
        Host::Gemini,
        &f,
        json!({"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "sequential": true, "hooks": [
            cmd(r#"echo '{"hookSpecificOutput":{"tool_input":{"command":"ls -la"}}}'"#),
            cmd(r#"python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({"hookSpecificOutput":{"tool_input":{"seen":d["tool_input"]["command"]}}}))'"#),
        ]}]}}),
    );
    let p = payload(
        Host::Gemini,
        &f,
        EventKind::PreToolUse,
        None,
        json!({"command": "ls"}),
    );
    let out = e.run(EventKind::PreToolUse, &p);
    let updated = Value::Object(out.updated_input.clone().unwrap());
    assert_eq!(
        updated,
        json!({"command": "ls -la", "seen": "ls -la"}),
        "{:#?}",
        out.hooks
    );
}

#[test]
fn cursor_fail_closed_turns_a_crash_into_deny() {
    let f = fixture();
    let d = Host::Cursor.dialect();
    let file = ConfigFile {
        path: f.project.join("hooks.json"),
        scope: Scope::Project,
        shape: FileShape::FlatJson,
    };
    let text = json!({"version": 1, "hooks": {"preToolUse": [{"command": "exit 1", "failClosed": true}, {"command": "echo oops >&2; exit 1"}]}}).to_string();
    let s = HookSettings::parse_text(d, &text, &file);
    let e = Engine::new(s, &f.project, HostEnv::default());
    let out = e.run(
        EventKind::PreToolUse,
        &payload(
            Host::Cursor,
            &f,
            EventKind::PreToolUse,
            Some("Shell"),
            json!({}),
        ),
    );
    assert_eq!(out.decision, Some(Decision::Deny));
    assert_eq!(out.hooks[0].outcome, HookStatus::Deny);
    assert_eq!(out.hooks[1].outcome, HookStatus::Error);
}

#[test]
fn prompt_hooks_answer_allow_without_a_model_and_use_a_plugged_evaluator() {
    let f = fixture();
    let s = json!({"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the work done?"}]}]}});
    let e = engine(Host::Claude, &f, s.clone());
    let p = payload(Host::Claude, &f, EventKind::Stop, None, json!({}));
    let out = e.run(EventKind::Stop, &p);
    assert_eq!(out.hooks[0].outcome, HookStatus::Ok);
    assert!(out.hooks[0].notes[0].contains("no model configured"));
    assert!(!out.blocked());

    struct Strict;
    impl PromptEvaluator for Strict {
        fn evaluate(
            &self,
            h: &HandlerKind,
            payload: &Value,
        ) -> Result<crate::handler::ModelVerdict, String> {
            assert_eq!(payload["hook_event_name"], "Stop");
            Ok(crate::handler::ModelVerdict {
                output: json!({"decision": "block", "reason": format!("model says no to: {}", h.text())}),
                note: "strict".into(),
            })
        }
    }
    let e = engine(Host::Claude, &f, s).with_options(EngineOptions {
        evaluator: Arc::new(Strict),
        ..EngineOptions::default()
    });
    let out = e.run(EventKind::Stop, &p);
    assert!(out.blocked());
    assert_eq!(
        out.reason.as_deref(),
        Some("model says no to: Is the work done?")
    );
}

#[test]
fn run_handler_runs_one_command_with_a_payload() {
    let f = fixture();
    let p = payload(
        Host::Claude,
        &f,
        EventKind::PreToolUse,
        Some("Bash"),
        json!({"command": "git status"}),
    );
    let h = Handler::command(
        r#"python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command": d["tool_input"]["command"] + " --short"}}}))'"#,
    );
    let t = run_handler(
        Host::Claude.dialect(),
        EventKind::PreToolUse,
        &h,
        &p,
        &f.project,
        &EngineOptions::default(),
    );
    assert_eq!(t.outcome, HookStatus::Allow);
    assert_eq!(
        t.effect.rewrite.unwrap().input["command"],
        "git status --short"
    );
    assert_eq!(t.exit_code, Some(0));
}

#[test]
fn field_matchers_use_the_event_target() {
    let f = fixture();
    let e = engine(
        Host::CodeBuddy,
        &f,
        json!({"hooks": {"PreCompact": [
            {"matcher": "auto", "hooks": [cmd("echo auto")]},
            {"matcher": "manual", "hooks": [cmd("echo manual")]}
        ]}}),
    );
    let mut req = EventRequest {
        cwd: f.project.clone(),
        ..Default::default()
    };
    req.fields.insert("trigger".into(), json!("auto"));
    let p = build_payload(Host::CodeBuddy.dialect(), EventKind::PreCompact, &req).unwrap();
    let out = e.run(EventKind::PreCompact, &p);
    assert_eq!(out.hooks.len(), 1);
    assert_eq!(out.hooks[0].command, "echo auto");
    assert_eq!(out.additional_context, vec!["auto"]);
}

#[test]
fn codex_exit_two_needs_a_message_on_stderr() {
    // Codex 0.169 runs the tool when a PreToolUse hook exits 2 with an empty stderr (a
    // failed hook, not a block: openai/codex codex-rs/hooks/src/events/pre_tool_use.rs;
    // crates/e2e/tests/hooks_differential_codex.rs); with a message it blocks.
    let f = fixture();
    let e = engine(
        Host::Codex,
        &f,
        json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [cmd("exit 2")]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [cmd("echo '  ' >&2; exit 2")]}]
        }}),
    );
    let pre = payload(
        Host::Codex,
        &f,
        EventKind::PreToolUse,
        Some("Bash"),
        json!({"command": "ls"}),
    );
    let out = e.run(EventKind::PreToolUse, &pre);
    assert!(!out.blocked(), "{:?}", out.to_json());
    assert_eq!(out.hooks[0].outcome, HookStatus::Error);
    assert!(
        out.warnings.iter().any(|w| w.contains("nothing on stderr")),
        "{:?}",
        out.warnings
    );
    let post = payload(
        Host::Codex,
        &f,
        EventKind::PostToolUse,
        Some("Bash"),
        json!({"command": "ls"}),
    );
    let out = e.run(EventKind::PostToolUse, &post);
    assert!(out.feedback.is_empty(), "{:?}", out.to_json());
    assert_eq!(out.hooks[0].outcome, HookStatus::Error);

    // the same hook under Claude Code's rules blocks
    let e = engine(
        Host::Claude,
        &f,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [cmd("exit 2")]}]}}),
    );
    let out = e.run(
        EventKind::PreToolUse,
        &payload(
            Host::Claude,
            &f,
            EventKind::PreToolUse,
            Some("Bash"),
            json!({"command": "ls"}),
        ),
    );
    assert!(out.blocked());
}

#[test]
fn codex_refused_pre_tool_use_answer_is_a_failed_hook_and_the_tool_runs() {
    // a deny without hookEventName: Codex 0.169 ran the tool
    // (crates/e2e/tests/hooks_differential_codex.rs)
    let f = fixture();
    let e = engine(
        Host::Codex,
        &f,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            cmd(r#"printf '%s' '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}'"#)
        ]}]}}),
    );
    let p = payload(
        Host::Codex,
        &f,
        EventKind::PreToolUse,
        Some("Bash"),
        json!({"command": "ls"}),
    );
    let out = e.run(EventKind::PreToolUse, &p);
    assert!(!out.blocked(), "{:?}", out.to_json());
    assert_eq!(out.decision, None);
    assert_eq!(out.hooks[0].outcome, HookStatus::Error);
    assert!(
        out.warnings
            .iter()
            .any(|w| w.contains("hookEventName") && w.contains("tool runs")),
        "{:?}",
        out.warnings
    );
}
