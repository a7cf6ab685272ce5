//! Conformance of the `gemini` dialect: BeforeTool/AfterTool, millisecond timeouts,
//! sequential groups, top-level decision.

mod hooks_support;

use hooks_support::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The project's settings hold `hooks`, in a folder the user trusts.
fn gemini(w: &World, hooks: Value) {
    w.write_json(
        &w.project.join(".gemini/settings.json"),
        &json!({"hooks": hooks}),
    );
    w.trust_gemini_folder();
}

/// The project's settings guard the shell tool with `guard_dangerous.py`.
fn guarded(w: &World) {
    gemini(
        w,
        json!({"BeforeTool": [group(Some("run_shell_command"), &py("guard_dangerous.py"), Some(5000.0))]}),
    );
}

#[test]
fn before_tool_deny_via_top_level_decision() {
    let w = World::new();
    guarded(&w);
    let (code, v) = w.run(
        "gemini",
        "BeforeTool",
        &["--input", r#"{"command":"rm -rf /"}"#],
    );
    assert_eq!(code, 2, "{v:#}");
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["payload"]["hook_event_name"], "BeforeTool");
    assert_eq!(v["payload"]["tool_name"], "run_shell_command");
    assert!(v["payload"]["timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        v["hooks"][0]["timeoutMs"], 5000,
        "gemini timeouts are milliseconds"
    );
}

#[test]
fn timeouts_are_milliseconds() {
    let w = World::new();
    let pid = w.tmp.path().join("pid");
    gemini(
        &w,
        json!({"BeforeTool": [group(None, &sh("hang_with_child.sh", &[&pid.display().to_string()]), Some(400.0))]}),
    );
    let start = Instant::now();
    let (code, v) = w.run("gemini", "PreToolUse", &[]);
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(code, 0);
    assert_eq!(v["hooks"][0]["timedOut"], true);
    assert!(wait_gone(read_pid(&pid)));
}

#[test]
fn sequential_group_chains_tool_input_and_parallel_groups_merge() {
    let w = World::new();
    let seen = r#"python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({"hookSpecificOutput":{"tool_input":{"description":"ran: "+d["tool_input"]["command"]}}}))'"#;
    gemini(
        &w,
        json!({"BeforeTool": [{
            "matcher": "run_shell_command",
            "sequential": true,
            "hooks": [
                {"type": "command", "command": py("npm_legacy_peers.py")},
                {"type": "command", "command": seen}
            ]
        }]}),
    );
    let (code, v) = w.run(
        "gemini",
        "BeforeTool",
        &["--input", r#"{"command":"npm install"}"#],
    );
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        v["updatedInput"],
        json!({"command": "npm install --legacy-peer-deps", "description": "ran: npm install --legacy-peer-deps"}),
        "the second hook saw the first hook's rewrite"
    );
}

#[test]
fn plain_stdout_becomes_a_system_message_and_env_is_set() {
    let w = World::new();
    let c = r#"python3 -c 'import os; print(os.environ["GEMINI_PROJECT_DIR"] + "|" + os.environ["GEMINI_SESSION_ID"])'"#;
    gemini(
        &w,
        json!({"SessionStart": [group(Some("startup"), c, None)]}),
    );
    let (_, v) = w.run("gemini", "SessionStart", &[]);
    assert_eq!(
        v["systemMessage"],
        format!("{}|sess-1", w.project.display())
    );
}

#[test]
fn project_hooks_run_before_user_hooks() {
    let w = World::new();
    gemini(
        &w,
        json!({"AfterAgent": [group(None, &sh("print.sh", &[r#"{"systemMessage":"project"}"#]), None)]}),
    );
    w.write_json(&w.home.join(".gemini/settings.json"), &json!({"hooks": {"AfterAgent": [group(None, &sh("print.sh", &[r#"{"systemMessage":"user"}"#]), None)]}}));
    let (_, v) = w.run("gemini", "Stop", &[]);
    assert_eq!(v["systemMessage"], "project\nuser");
    assert_eq!(v["payload"]["hook_event_name"], "AfterAgent");
}

#[test]
fn a_tool_name_gemini_does_not_have_is_pointed_out() {
    let w = World::new();
    guarded(&w);
    // Claude's name for the shell tool: the hook for run_shell_command does not see it
    let (code, v) = w.run(
        "gemini",
        "BeforeTool",
        &["--tool", "Bash", "--input", r#"{"command":"rm -rf /"}"#],
    );
    assert_eq!(code, 0, "{v:#}");
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("`Bash` is not one of gemini's tools")
            && warnings.contains("the shell tool here is run_shell_command"),
        "{v:#}"
    );
    // its own name, or an MCP tool's, is taken as given
    for tool in ["run_shell_command", "mcp__memory__read"] {
        let (_, v) = w.run(
            "gemini",
            "BeforeTool",
            &["--tool", tool, "--input", r#"{"command":"ls"}"#],
        );
        assert!(
            !v["warnings"].to_string().contains("is not one of"),
            "{v:#}"
        );
    }
}

#[test]
fn a_projects_hooks_run_only_in_a_folder_gemini_trusts() {
    // Gemini CLI 0.61 leaves a project's hooks out in a folder it does not trust
    // (crates/e2e/tests/hooks_differential_gemini.rs)
    let w = World::new();
    let marker = w.tmp.path().join("ran");
    w.write_json(
        &w.project.join(".gemini/settings.json"),
        &json!({"hooks": {"BeforeTool": [group(Some("run_shell_command"), &format!("touch '{}'", marker.display()), None)]}}),
    );
    let input = [
        "--tool",
        "run_shell_command",
        "--input",
        r#"{"command":"ls"}"#,
    ];
    let (code, v) = w.run("gemini", "BeforeTool", &input);
    assert_eq!(code, 0, "{v:#}");
    assert!(!marker.exists(), "a hook of an untrusted folder ran");
    let said = v["settingsDiagnostics"].to_string();
    assert!(said.contains("is not a trusted folder"), "{v:#}");
    // DO_NOT_TRUST is said as such
    w.write_json(
        &w.home.join(".gemini/trustedFolders.json"),
        &json!({ w.project.display().to_string(): "DO_NOT_TRUST" }),
    );
    let (_, v) = w.run("gemini", "BeforeTool", &input);
    assert!(
        v["settingsDiagnostics"]
            .to_string()
            .contains("DO_NOT_TRUST"),
        "{v:#}"
    );
    assert!(!marker.exists());
    // the variable Gemini reads trusts it
    let out = w
        .cmd()
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
        .args([
            "hooks",
            "run",
            "BeforeTool",
            "--host",
            "gemini",
            "--format",
            "json",
        ])
        .args(input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        marker.exists(),
        "the hook did not run with GEMINI_CLI_TRUST_WORKSPACE=true"
    );
    // and so does a TRUST_FOLDER rule
    std::fs::remove_file(&marker).unwrap();
    w.trust_gemini_folder();
    let _ = w.run("gemini", "BeforeTool", &input);
    assert!(marker.exists(), "the hook did not run in a trusted folder");
}
