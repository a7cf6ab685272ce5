//! Conformance of the `cursor` dialect: flat hooks.json with version 1, snake_case output.

mod hooks_support;

use hooks_support::*;
use serde_json::{json, Value};

fn cursor_hooks(w: &World, hooks: Value) {
    w.write_json(
        &w.project.join(".cursor/hooks.json"),
        &json!({"version": 1, "hooks": hooks}),
    );
}

#[test]
fn permission_deny_and_ask_in_snake_case() {
    let w = World::new();
    cursor_hooks(
        &w,
        json!({"preToolUse": [{"command": py("guard_dangerous.py"), "matcher": "Shell", "timeout": 10}]}),
    );
    let (code, v) = w.run(
        "cursor",
        "preToolUse",
        &[
            "--tool",
            "Shell",
            "--input",
            r#"{"command":"dd if=/dev/zero of=/dev/sda"}"#,
        ],
    );
    assert_eq!(code, 2, "{v:#}");
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["reason"], "Dangerous command detected: dd if=/dev/zero");
    assert_eq!(
        v["systemMessage"], "Dangerous command detected: dd if=/dev/zero",
        "user_message is shown to the user"
    );
    assert_eq!(v["hooks"][0]["output"]["permission"], "deny");
    assert_eq!(v["payload"]["hook_event_name"], "preToolUse");
    assert!(v["payload"]["conversation_id"].is_string());
    let (code, v) = w.run(
        "cursor",
        "PreToolUse",
        &["--tool", "Shell", "--input", r#"{"command":"git push -f"}"#],
    );
    assert_eq!(code, 0);
    assert_eq!(v["decision"], "ask");
}

#[test]
fn updated_input_rewrite() {
    let w = World::new();
    cursor_hooks(
        &w,
        json!({"preToolUse": [{"command": py("npm_legacy_peers.py")}]}),
    );
    let (code, v) = w.run(
        "cursor",
        "preToolUse",
        &["--tool", "Shell", "--input", r#"{"command":"npm install"}"#],
    );
    assert_eq!(code, 0);
    assert_eq!(
        v["updatedInput"],
        json!({"command": "npm install --legacy-peer-deps"})
    );
}

#[test]
fn before_shell_execution_matches_the_command_text() {
    let w = World::new();
    cursor_hooks(
        &w,
        json!({"beforeShellExecution": [{"command": sh("exit_code.sh", &["2", "no pushes from the agent"]), "matcher": r"\bgit\s+push\b"}]}),
    );
    let (code, v) = w.run(
        "cursor",
        "beforeShellExecution",
        &["--input", r#"{"command":"cd app && git push origin"}"#],
    );
    assert_eq!(code, 2, "{v:#}");
    assert_eq!(v["reason"], "no pushes from the agent");
    assert_eq!(v["payload"]["command"], "cd app && git push origin");
    let (code, v) = w.run(
        "cursor",
        "PreBash",
        &["--input", r#"{"command":"git status"}"#],
    );
    assert_eq!(code, 0);
    assert_eq!(v["hooks"].as_array().unwrap().len(), 0);
}

#[test]
fn fail_closed_denies_on_failure_and_timeout() {
    let w = World::new();
    let pid = w.tmp.path().join("pid");
    cursor_hooks(
        &w,
        json!({"preToolUse": [
            {"command": sh("exit_code.sh", &["1", "crashed"]), "failClosed": true},
            {"command": sh("hang_with_child.sh", &[&pid.display().to_string()]), "timeout": 1, "failClosed": true}
        ]}),
    );
    let (code, v) = w.run("cursor", "preToolUse", &["--tool", "Shell"]);
    assert_eq!(code, 2);
    assert_eq!(v["decision"], "deny");
    let outcomes: Vec<&str> = v["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["deny", "deny"]);
    assert_eq!(v["hooks"][1]["timedOut"], true);
    assert!(wait_gone(read_pid(&pid)));
}

#[test]
fn cursor_env_and_version_requirement() {
    let w = World::new();
    let c = r#"python3 -c 'import json,os; print(json.dumps({"additional_context": os.environ["CURSOR_PROJECT_DIR"] + "|" + os.environ["CLAUDE_PROJECT_DIR"]}))'"#;
    cursor_hooks(&w, json!({"sessionStart": [{"command": c}]}));
    let (_, v) = w.run("cursor", "sessionStart", &[]);
    let p = w.project.display().to_string();
    assert_eq!(v["additionalContext"], json!([format!("{p}|{p}")]));
    w.write_json(
        &w.project.join(".cursor/hooks.json"),
        &json!({"hooks": {"sessionStart": [{"command": c}]}}),
    );
    let out = w
        .cmd()
        .args(["hooks", "validate", "--host", "cursor"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("missing `\"version\": 1`"));
}
