//! Conformance of the `claude` dialect.

mod hooks_support;

use hooks_support::*;
use serde_json::{json, Value};

#[test]
fn three_scopes_merge_with_provenance_and_config_dir_override() {
    let w = World::new();
    let cfg = w.tmp.path().join("claude-config");
    w.write_json(&cfg.join("settings.json"), &json!({"hooks": {"Stop": [group(None, &sh("print.sh", &[r#"{"systemMessage":"user"}"#]), None)]}}));
    w.write_json(&w.project.join(".claude/settings.json"), &json!({"hooks": {"Stop": [group(None, &sh("print.sh", &[r#"{"systemMessage":"project"}"#]), None)]}}));
    w.write_json(&w.project.join(".claude/settings.local.json"), &json!({"hooks": {"Stop": [group(None, &sh("print.sh", &[r#"{"systemMessage":"local"}"#]), None)]}}));
    // ~/.claude is ignored when CLAUDE_CONFIG_DIR is set
    w.write_json(&w.home.join(".claude/settings.json"), &json!({"hooks": {"Stop": [group(None, &sh("print.sh", &[r#"{"systemMessage":"home"}"#]), None)]}}));
    let out = w
        .cmd()
        .env("CLAUDE_CONFIG_DIR", &cfg)
        .args([
            "hooks", "run", "Stop", "--host", "claude", "--format", "json",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["systemMessage"], "user\nproject\nlocal");
    let scopes: Vec<&str> = v["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["scope"].as_str().unwrap())
        .collect();
    assert_eq!(scopes, ["user", "project", "local"]);
    // without the override, ~/.claude/settings.json is the user file
    let (_, v) = w.run("claude", "Stop", &[]);
    assert_eq!(v["systemMessage"], "home\nproject\nlocal");
}

#[test]
fn updated_input_is_the_rewrite_field_and_modified_input_is_ignored() {
    let w = World::new();
    w.write_json(
        &w.project.join(".claude/settings.json"),
        &json!({"hooks": {"PreToolUse": [group(Some("Bash"), &py("npm_legacy_peers.py"), None)]}}),
    );
    let (code, v) = w.run(
        "claude",
        "PreToolUse",
        &[
            "--tool",
            "Bash",
            "--input",
            r#"{"command":"npm i","description":"install"}"#,
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(
        v["updatedInput"],
        json!({"command": "npm i --legacy-peer-deps", "description": "install"})
    );
    assert!(v["hooks"][0]["output"]["hookSpecificOutput"]["updatedInput"].is_object());

    let foreign =
        r#"{"hookSpecificOutput":{"permissionDecision":"allow","modifiedInput":{"command":"x"}}}"#;
    w.write_json(
        &w.project.join(".claude/settings.json"),
        &json!({"hooks": {"PreToolUse": [group(None, &sh("print.sh", &[foreign]), None)]}}),
    );
    let (_, v) = w.run("claude", "PreToolUse", &["--input", r#"{"command":"ls"}"#]);
    assert_eq!(v["updatedInput"], Value::Null);
    assert!(
        v["warnings"]
            .to_string()
            .contains("does not read `modifiedInput`"),
        "{v:#}"
    );
}

#[test]
fn claude_env_default_timeout_and_tool_names() {
    let w = World::new();
    let c = r#"python3 -c 'import json,os; print(json.dumps({"systemMessage": os.environ.get("CLAUDE_PROJECT_DIR","-") + "|" + os.environ.get("CODEBUDDY_PROJECT_DIR","unset")}))'"#;
    w.write_json(
        &w.project.join(".claude/settings.json"),
        &json!({"hooks": {"PreToolUse": [group(Some("Bash"), c, None)]}}),
    );
    let (_, v) = w.run("claude", "PreToolUse", &["--input", r#"{"command":"ls"}"#]);
    assert_eq!(v["systemMessage"], format!("{}|unset", w.project.display()));
    assert_eq!(
        v["hooks"][0]["timeoutMs"], 600_000,
        "Claude's default command timeout is 600 s"
    );
    assert_eq!(v["payload"]["tool_name"], "Bash");
}

#[test]
fn claude_fires_events_codebuddy_does_not_and_legacy_block() {
    let w = World::new();
    w.write_json(
        &w.project.join(".claude/settings.json"),
        &json!({"hooks": {
            "Notification": [group(Some("permission_prompt"), &sh("print.sh", &[r#"{"systemMessage":"notified"}"#]), None)],
            "SubagentStop": [group(None, &sh("print.sh", &[r#"{"decision":"block","reason":"subagent must re-check"}"#]), None)]
        }}),
    );
    let (code, v) = w.run(
        "claude",
        "Notification",
        &["--field", "notification_type=permission_prompt"],
    );
    assert_eq!(code, 0);
    assert_eq!(v["systemMessage"], "notified");
    let (code, v) = w.run("claude", "SubagentStop", &[]);
    assert_eq!(code, 2);
    assert_eq!(v["reason"], "subagent must re-check");
}

#[test]
fn regex_matchers_are_unanchored_javascript_style() {
    let w = World::new();
    w.write_json(
        &w.project.join(".claude/settings.json"),
        &json!({"hooks": {"PreToolUse": [
            group(Some("Edit.*"), &sh("print.sh", &[r#"{"systemMessage":"edit-ish"}"#]), None),
            group(Some("^(?!Read).*$"), &sh("print.sh", &[r#"{"systemMessage":"not a read"}"#]), None)
        ]}}),
    );
    let (_, v) = w.run("claude", "PreToolUse", &["--tool", "NotebookEdit"]);
    assert_eq!(
        v["systemMessage"], "edit-ish\nnot a read",
        "`Edit.*` is unanchored, so NotebookEdit matches"
    );
    let (_, v) = w.run("claude", "PreToolUse", &["--tool", "Read"]);
    assert_eq!(
        v["hooks"].as_array().unwrap().len(),
        0,
        "negative look-ahead excludes Read: {v:#}"
    );
    let (_, v) = w.run("claude", "PreToolUse", &["--tool", "Bash"]);
    assert_eq!(v["systemMessage"], "not a read");
}

/// Measured in the real Claude Code 2.1.330 (e2e): a PreToolUse `continue: false` does not
/// stop the tool — the tool runs, then the session ends. CodeBuddy's dialect blocks.
#[test]
fn pre_tool_continue_false_runs_the_tool_then_stops_in_claude() {
    let w = World::new();
    let stop = json!({"hooks": {"PreToolUse": [group(Some("Bash"), &sh("print.sh", &[r#"{"continue":false,"stopReason":"enough"}"#]), None)]}});
    w.write_json(&w.project.join(".claude/settings.json"), &stop);
    let (code, v) = w.run(
        "claude",
        "PreToolUse",
        &["--tool", "Bash", "--input", r#"{"command":"ls"}"#],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["blocked"], false, "{v}");
    assert_eq!(v["continue"], false);
    assert_eq!(v["toolRunsBeforeStop"], true);
    assert_eq!(v["stopReason"], "enough");
    w.write_json(&w.project.join(".codebuddy/settings.json"), &stop);
    let (code, v) = w.run(
        "codebuddy",
        "PreToolUse",
        &["--tool", "Bash", "--input", r#"{"command":"ls"}"#],
    );
    assert_eq!((code, &v["blocked"]), (2, &json!(true)), "{v}");
}

/// Measured in the real Claude Code 2.1.330 (e2e): of two hooks that both rewrite the input,
/// the one that finishes last wins, whole. Other dialects merge in configuration order.
#[test]
fn competing_rewrites_resolve_to_the_last_hook_to_finish_in_claude() {
    let w = World::new();
    let slow = w.tmp.path().join("slow.sh");
    std::fs::write(
        &slow,
        "sleep 0.4; printf '%s' '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"updatedInput\":{\"command\":\"echo slow\"}}}'\n",
    )
    .unwrap();
    let fast = sh(
        "print.sh",
        &[
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"echo fast","description":"fast"}}}"#,
        ],
    );
    // the slow hook comes first in configuration order and finishes last
    w.write_json(
        &w.project.join(".claude/settings.json"),
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": format!("sh '{}'", slow.display())},
            {"type": "command", "command": fast},
        ]}]}}),
    );
    let (code, v) = w.run(
        "claude",
        "PreToolUse",
        &["--tool", "Bash", "--input", r#"{"command":"ls"}"#],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["updatedInput"], json!({"command": "echo slow"}), "{v}");
    assert!(v["warnings"].to_string().contains("finished last"), "{v}");
}
