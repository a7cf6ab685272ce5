//! Conformance of the default dialect (CodeBuddy's hook reference) through `tokenjuice hooks run`,
//! with real hook scripts and real processes.

mod hooks_support;

use hooks_support::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn settings(w: &World, hooks: Value) {
    w.write_json(
        &w.project.join(".codebuddy/settings.json"),
        &json!({ "hooks": hooks }),
    );
}

#[test]
fn dangerous_command_is_denied_with_continue_false() {
    let w = World::new();
    settings(
        &w,
        json!({"PreToolUse": [group(Some("execute_command"), &py("guard_dangerous.py"), Some(10.0))]}),
    );
    let (code, v) = w.run(
        "codebuddy",
        "PreToolUse",
        &[
            "--tool",
            "execute_command",
            "--input",
            r#"{"command":"rm -rf / --no-preserve-root"}"#,
        ],
    );
    assert_eq!(code, 2, "{v:#}");
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["reason"], "Dangerous command detected: rm -rf /");
    assert_eq!(v["continue"], false);
    assert_eq!(v["updatedInput"], Value::Null);
    let h = &v["hooks"][0];
    assert_eq!(h["outcome"], "deny");
    assert_eq!(h["exitCode"], 0);
    assert_eq!(h["timedOut"], false);
    assert_eq!(h["matcher"], "execute_command");
    assert_eq!(
        h["source"],
        w.project
            .join(".codebuddy/settings.json")
            .display()
            .to_string()
    );
    assert_eq!(
        h["output"]["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );
    assert!(h["durationMs"].is_u64());
}

#[test]
fn safe_command_is_allowed_and_force_push_asks() {
    let w = World::new();
    settings(
        &w,
        json!({"PreToolUse": [group(Some("Bash"), &py("guard_dangerous.py"), None)]}),
    );
    let (code, v) = w.run(
        "codebuddy",
        "PreToolUse",
        &["--tool", "Bash", "--input", r#"{"command":"ls -la"}"#],
    );
    assert_eq!(code, 0);
    assert_eq!(v["decision"], "none");
    assert_eq!(v["continue"], true);
    assert_eq!(
        v["payload"]["tool_name"], "execute_command",
        "Bash is sent as the IDE name"
    );
    let (code, v) = w.run(
        "codebuddy",
        "PreToolUse",
        &["--input", r#"{"command":"git push --force origin main"}"#],
    );
    assert_eq!(code, 0, "ask may proceed after the user confirms");
    assert_eq!(v["decision"], "ask");
    assert_eq!(v["reason"], "Force push rewrites shared history. Continue?");
}

#[test]
fn npm_install_is_rewritten_through_modified_input() {
    let w = World::new();
    settings(
        &w,
        json!({"PreToolUse": [group(Some("execute_command"), &py("npm_legacy_peers.py"), None)]}),
    );
    let (code, v) = w.run(
        "codebuddy",
        "PreToolUse",
        &[
            "--input",
            r#"{"command":"npm install","requires_approval":false}"#,
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(v["decision"], "allow");
    assert_eq!(
        v["updatedInput"],
        json!({"command": "npm install --legacy-peer-deps", "requires_approval": false})
    );
    assert!(v["hooks"][0]["output"]["hookSpecificOutput"]["modifiedInput"].is_object());
}

#[test]
fn rewrite_and_guard_together_guard_wins() {
    let w = World::new();
    settings(
        &w,
        json!({"PreToolUse": [
            group(Some("execute_command"), &py("npm_legacy_peers.py"), None),
            group(Some("execute_command"), &py("guard_dangerous.py"), None),
        ]}),
    );
    let (code, v) = w.run(
        "codebuddy",
        "PreToolUse",
        &["--input", r#"{"command":"npm install && rm -rf /"}"#],
    );
    assert_eq!(code, 2);
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["updatedInput"], Value::Null, "no rewrite survives a deny");
    assert_eq!(v["hooks"].as_array().unwrap().len(), 2);
}

#[test]
fn file_backup_hook_copies_the_file_before_an_edit() {
    let w = World::new();
    settings(
        &w,
        json!({"PreToolUse": [group(Some("write_to_file|replace_in_file"), &sh("backup_before_write.sh", &[]), Some(15.0))]}),
    );
    let target = w.project.join("src/app.ts");
    w.write(&target, "export const v = 1;\n");
    let input = json!({"filePath": target, "content": "export const v = 2;\n"}).to_string();
    let (code, v) = w.run(
        "codebuddy",
        "PreToolUse",
        &["--tool", "Write", "--input", &input],
    );
    assert_eq!(code, 0, "{v:#}");
    let backup = w.project.join(".codebuddy/backups/app.ts.bak");
    assert_eq!(
        std::fs::read_to_string(&backup).unwrap(),
        "export const v = 1;\n"
    );
    assert_eq!(
        v["systemMessage"],
        format!("Backed up to: {}", backup.display())
    );
    // read_file does not match the matcher: nothing runs
    let (_, v) = w.run(
        "codebuddy",
        "PreToolUse",
        &["--tool", "read_file", "--input", &input],
    );
    assert_eq!(v["hooks"].as_array().unwrap().len(), 0);
    assert!(
        v["skipped"][0]["why"]
            .as_str()
            .unwrap()
            .contains("no match"),
        "{v:#}"
    );
}

#[test]
fn session_start_context_hook_uses_the_project_dir_variable() {
    let w = World::new();
    w.write_json(
        &w.project.join(".codebuddy/project.json"),
        &json!({"name": "shop", "tech_stack": ["TypeScript", "React"]}),
    );
    // user-level settings, with $CODEBUDDY_PROJECT_DIR expanded by the shell
    w.write_json(
        &w.home.join(".codebuddy/settings.json"),
        &json!({"hooks": {"SessionStart": [group(Some("startup"), "python3 \"$CODEBUDDY_PROJECT_DIR/.codebuddy/hooks/ctx.py\"", Some(30.0))]}}),
    );
    std::fs::create_dir_all(w.project.join(".codebuddy/hooks")).unwrap();
    std::fs::copy(
        fixture("session_context.py"),
        w.project.join(".codebuddy/hooks/ctx.py"),
    )
    .unwrap();
    let (code, v) = w.run("codebuddy", "SessionStart", &[]);
    assert_eq!(code, 0, "{v:#}");
    let ctx = v["additionalContext"][0].as_str().unwrap();
    assert!(ctx.contains("Session startup"), "{ctx}");
    assert!(ctx.contains(&w.project.display().to_string()), "{ctx}");
    assert!(ctx.contains("Project shop uses TypeScript, React"), "{ctx}");
    assert_eq!(
        v["hooks"][0]["source"],
        w.home
            .join(".codebuddy/settings.json")
            .display()
            .to_string()
    );
    // matcher `startup` does not match another source
    let (_, v) = w.run("codebuddy", "SessionStart", &["--field", "source=resume"]);
    assert_eq!(v["hooks"].as_array().unwrap().len(), 0);
}

#[test]
fn pre_compact_saves_the_transcript_on_auto_only() {
    let w = World::new();
    settings(
        &w,
        json!({"PreCompact": [group(Some("auto"), &py("save_transcript.py"), Some(20.0))]}),
    );
    let transcript = w.tmp.path().join("transcript.txt");
    w.write(&transcript, "user: hi\nassistant: hello\n");
    let t = transcript.display().to_string();
    let (code, v) = w.run(
        "codebuddy",
        "PreCompact",
        &["--field", "trigger=auto", "--transcript", &t],
    );
    assert_eq!(code, 0, "{v:#}");
    let saved = w
        .project
        .join(".codebuddy/context_history/transcript-sess-1.txt");
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap(),
        "user: hi\nassistant: hello\n"
    );
    assert_eq!(
        v["additionalContext"],
        json!(["Keep the API design decisions."])
    );
    let (_, v) = w.run(
        "codebuddy",
        "PreCompact",
        &["--field", "trigger=manual", "--transcript", &t],
    );
    assert_eq!(
        v["hooks"].as_array().unwrap().len(),
        0,
        "matcher auto does not match manual"
    );
}

#[test]
fn user_prompt_submit_continue_false_blocks_and_keeps_stop_reason() {
    let w = World::new();
    let block =
        r#"{"continue": false, "stopReason": "Input contains sensitive information, blocked"}"#;
    let ctx = r#"{"continue": true, "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Use the JWT library"}}"#;
    settings(
        &w,
        json!({"UserPromptSubmit": [
            // a matcher on UserPromptSubmit is ignored (CodeBuddy hook reference)
            group(Some("never-matches-anything"), &sh("print.sh", &[ctx]), None),
            group(None, &sh("print.sh", &[block]), None),
        ]}),
    );
    let (code, v) = w.run(
        "codebuddy",
        "UserPromptSubmit",
        &["--prompt", "my password is hunter2"],
    );
    assert_eq!(code, 2);
    assert_eq!(v["continue"], false);
    assert_eq!(
        v["stopReason"],
        "Input contains sensitive information, blocked"
    );
    assert_eq!(v["additionalContext"], json!(["Use the JWT library"]));
    assert_eq!(v["payload"]["prompt"], "my password is hunter2");
}

#[test]
fn exit_two_blocks_with_stderr_and_exit_one_only_warns() {
    let w = World::new();
    settings(
        &w,
        json!({"PreToolUse": [
            group(None, &sh("exit_code.sh", &["1", "lint config missing"]), None),
            group(None, &sh("exit_code.sh", &["2", "Blocked: deleting .git is not allowed"]), None),
            group(None, &sh("exit_code.sh", &["42", "weird"]), None),
        ]}),
    );
    let (code, v) = w.run(
        "codebuddy",
        "PreToolUse",
        &["--input", r#"{"command":"rm -rf .git"}"#],
    );
    assert_eq!(code, 2);
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["reason"], "Blocked: deleting .git is not allowed");
    let outcomes: Vec<&str> = v["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["error", "blocked", "error"]);
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("exit code 1") && warnings.contains("lint config missing"),
        "{warnings}"
    );
    assert!(warnings.contains("exit code 42"), "{warnings}");

    // exit 1 alone: proceeds
    settings(
        &w,
        json!({"PreToolUse": [group(None, &sh("exit_code.sh", &["1", "oops"]), None)]}),
    );
    let (code, v) = w.run(
        "codebuddy",
        "PreToolUse",
        &["--input", r#"{"command":"ls"}"#],
    );
    assert_eq!(code, 0);
    assert_eq!(v["decision"], "none");
    assert_eq!(v["hooks"][0]["exitCode"], 1);
    assert_eq!(v["hooks"][0]["stderr"], "oops\n");
}

#[test]
fn stop_hook_exit_two_keeps_the_agent_working() {
    let w = World::new();
    settings(
        &w,
        json!({"Stop": [group(None, &sh("exit_code.sh", &["2", "Please verify the unit tests pass"]), None)]}),
    );
    let (code, v) = w.run("codebuddy", "Stop", &[]);
    assert_eq!(code, 2);
    assert_eq!(v["reason"], "Please verify the unit tests pass");
    assert_eq!(v["payload"]["stop_hook_active"], false);
}

#[test]
fn non_json_stdout_and_json_looking_garbage() {
    let w = World::new();
    settings(
        &w,
        json!({
            "SessionStart": [group(None, &sh("print.sh", &["Remember: run cargo fmt"]), None)],
            "PreToolUse": [
                group(None, &sh("print.sh", &["just some chatter"]), None),
                group(None, &sh("print.sh", &[r#"{"hookSpecificOutput": {"permissionDecision": "deny"}"#]), None),
            ]
        }),
    );
    let (code, v) = w.run("codebuddy", "SessionStart", &[]);
    assert_eq!(code, 0);
    assert_eq!(
        v["additionalContext"],
        json!(["Remember: run cargo fmt"]),
        "plain text is context on SessionStart"
    );
    assert_eq!(v["hooks"][0]["output"], Value::Null);

    let (code, v) = w.run(
        "codebuddy",
        "PreToolUse",
        &["--input", r#"{"command":"ls"}"#],
    );
    assert_eq!(code, 0, "an unparsable deny must not deny: {v:#}");
    assert_eq!(v["decision"], "none");
    assert_eq!(
        v["additionalContext"],
        json!([]),
        "plain text is not context on PreToolUse"
    );
    assert_eq!(v["hooks"][1]["output"], Value::Null);
    assert!(
        v["warnings"]
            .to_string()
            .contains("looks like JSON but is not valid JSON"),
        "{v:#}"
    );
}

#[test]
fn a_hanging_hook_is_killed_at_its_timeout_with_its_children() {
    let w = World::new();
    let pidfile = w.tmp.path().join("child.pid");
    settings(
        &w,
        json!({"PreToolUse": [
            group(None, &sh("hang_with_child.sh", &[&pidfile.display().to_string()]), Some(1.0)),
            group(None, &py("guard_dangerous.py"), None),
        ]}),
    );
    let start = Instant::now();
    let (code, v) = w.run(
        "codebuddy",
        "PreToolUse",
        &["--input", r#"{"command":"ls"}"#],
    );
    let took = start.elapsed();
    assert!(took < Duration::from_secs(6), "took {took:?}");
    assert_eq!(code, 0, "a timeout is non-blocking: {v:#}");
    let h = &v["hooks"][0];
    assert_eq!(h["timedOut"], true);
    assert_eq!(h["outcome"], "timeout");
    assert_eq!(h["timeoutMs"], 1000);
    assert!(h["durationMs"].as_u64().unwrap() >= 1000);
    assert_eq!(
        v["hooks"][1]["outcome"], "ok",
        "the other hook is unaffected"
    );
    let child = read_pid(&pidfile);
    assert!(
        wait_gone(child),
        "child {child} of the timed-out hook is still alive"
    );
}

#[test]
fn a_hook_that_forks_a_background_child_does_not_hang_the_run() {
    let w = World::new();
    let pidfile = w.tmp.path().join("bg.pid");
    settings(
        &w,
        json!({"PreToolUse": [group(None, &sh("fork_background.sh", &[&pidfile.display().to_string()]), Some(20.0))]}),
    );
    let start = Instant::now();
    let (code, v) = w.run(
        "codebuddy",
        "PreToolUse",
        &["--input", r#"{"command":"ls"}"#],
    );
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(code, 0);
    assert_eq!(v["decision"], "allow");
    assert_eq!(v["hooks"][0]["timedOut"], false);
    assert!(
        v["hooks"][0]["notes"]
            .to_string()
            .contains("background process"),
        "{v:#}"
    );
    // clean up the child the hook left behind
    let bg = read_pid(&pidfile);
    let _ = std::process::Command::new("kill")
        .arg(bg.to_string())
        .status();
}

#[test]
fn a_hook_that_never_reads_stdin_works_with_a_huge_payload() {
    let w = World::new();
    settings(
        &w,
        json!({"PreToolUse": [group(None, &sh("ignore_stdin.sh", &[]), None)]}),
    );
    let big = json!({"command": "echo", "content": "y".repeat(2_000_000)});
    let input = w.tmp.path().join("input.json");
    w.write_json(&input, &big);
    let arg = format!("@{}", input.display());
    let (code, v) = w.run("codebuddy", "PreToolUse", &["--input", &arg]);
    assert_eq!(code, 0);
    assert_eq!(v["systemMessage"], "did not read stdin");
    assert_eq!(v["hooks"][0]["exitCode"], 0);
}

#[test]
fn huge_output_is_capped_and_reported() {
    let w = World::new();
    settings(
        &w,
        json!({"PostToolUse": [group(None, &sh("huge_output.sh", &[]), None)]}),
    );
    let start = Instant::now();
    let (code, v) = w.run(
        "codebuddy",
        "PostToolUse",
        &[
            "--tool-response",
            r#"{"exitCode":0,"stdout":"ok","stderr":""}"#,
        ],
    );
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(code, 0);
    let h = &v["hooks"][0];
    assert_eq!(h["stdoutTruncated"], true);
    assert_eq!(h["stderrTruncated"], true);
    assert_eq!(h["stdout"].as_str().unwrap().len(), 1024 * 1024);
    assert!(
        h["notes"].to_string().contains("stdout was 8000000 bytes"),
        "{}",
        h["notes"]
    );
    assert_eq!(v["payload"]["tool_response"]["stdout"], "ok");
}

#[test]
fn identical_commands_in_user_and_project_run_once() {
    let w = World::new();
    let marker = w.tmp.path().join("runs");
    let c = format!("echo run >> '{}'", marker.display());
    w.write_json(
        &w.home.join(".codebuddy/settings.json"),
        &json!({"hooks": {"Stop": [group(None, &c, None)]}}),
    );
    settings(&w, json!({"Stop": [group(None, &c, None)]}));
    let (_, v) = w.run("codebuddy", "Stop", &[]);
    assert_eq!(v["hooks"].as_array().unwrap().len(), 1);
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "run\n");
    assert_eq!(v["hooks"][0]["duplicates"].as_array().unwrap().len(), 1);
}

#[test]
fn broken_user_settings_do_not_take_the_project_down() {
    let w = World::new();
    w.write(
        &w.home.join(".codebuddy/settings.json"),
        "{\"hooks\": {\"Stop\": [\n  {\"hooks\": [}\n]}}",
    );
    settings(
        &w,
        json!({"Stop": [group(None, &sh("print.sh", &["{\"systemMessage\": \"project hook ran\"}"]), None)]}),
    );
    let (code, v) = w.run("codebuddy", "Stop", &[]);
    assert_eq!(code, 0);
    assert_eq!(v["systemMessage"], "project hook ran");
    let d = &v["settingsDiagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["line"], 2);
    assert!(d["path"]
        .as_str()
        .unwrap()
        .ends_with(".codebuddy/settings.json"));
}

#[test]
fn claude_project_dir_is_set_too_and_cwd_is_the_project() {
    let w = World::new();
    let c = r#"python3 -c 'import json,os; print(json.dumps({"systemMessage": os.environ["CLAUDE_PROJECT_DIR"] + "|" + os.environ["CODEBUDDY_PROJECT_DIR"] + "|" + os.getcwd()}))'"#;
    settings(&w, json!({"SessionEnd": [group(Some("other"), c, None)]}));
    let (_, v) = w.run("codebuddy", "SessionEnd", &[]);
    let p = w.project.display().to_string();
    assert_eq!(v["systemMessage"], format!("{p}|{p}|{p}"));
    assert_eq!(v["payload"]["reason"], "other");
}

#[test]
fn payload_file_replaces_the_built_payload() {
    let w = World::new();
    settings(
        &w,
        json!({"PreToolUse": [group(Some("execute_command"), &py("guard_dangerous.py"), None)]}),
    );
    let payload = w.tmp.path().join("payload.json");
    w.write_json(&payload, &json!({"session_id": "abc123", "transcript_path": "/t", "cwd": w.project, "hook_event_name": "PreToolUse", "tool_name": "execute_command", "tool_input": {"command": "mkfs /dev/sda"}}));
    let arg = format!("@{}", payload.display());
    let (code, v) = w.run("codebuddy", "PreToolUse", &["--payload", &arg]);
    assert_eq!(code, 2);
    assert_eq!(v["reason"], "Dangerous command detected: mkfs");
    assert_eq!(v["payload"]["session_id"], "abc123");
}

#[test]
fn usage_errors_exit_one_with_a_fix() {
    let w = World::new();
    let out = w
        .cmd()
        .args(["hooks", "run", "Notification"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("codebuddy does not fire Notification"),
        "{err}"
    );
    let out = w
        .cmd()
        .args(["hooks", "run", "PreToolUse", "--input", "[1]"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("must be a JSON object"));
    let out = w
        .cmd()
        .args(["hooks", "run", "Stop", "--host", "vim"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown host"));
}

#[test]
fn text_output_shows_the_decision_and_trace() {
    let w = World::new();
    settings(
        &w,
        json!({"PreToolUse": [group(Some("execute_command"), &py("guard_dangerous.py"), None)]}),
    );
    let out = w
        .cmd()
        .args([
            "hooks",
            "run",
            "PreToolUse",
            "--input",
            r#"{"command":"rm -rf /"}"#,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("decision: deny — Dangerous command detected: rm -rf /  [BLOCKED]"),
        "{text}"
    );
    assert!(
        text.contains("matched: tool `execute_command` (aliases Bash) vs exact execute_command"),
        "{text}"
    );
    assert!(text.contains("hooks.PreToolUse[0].hooks[0]"), "{text}");
}

#[test]
fn the_cli_stops_the_tool_when_a_pre_tool_use_hook_times_out() {
    // the CodeBuddy CLI 2.117 did not run the tool and the model read `Error: Hook timed out
    // after 1000ms` (crates/e2e/tests/hooks_differential_codebuddy.rs); the IDE's reference
    // says nothing of it, so the codebuddy dialect lets the tool run
    let w = World::new();
    settings(
        &w,
        json!({"PreToolUse": [group(Some("Bash"), "sleep 3; exit 2", Some(1.0))]}),
    );
    let input = ["--tool", "Bash", "--input", r#"{"command":"ls"}"#];
    let (code, v) = w.run("codebuddy-cli", "PreToolUse", &input);
    assert_eq!(code, 2, "{v:#}");
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["reason"], "Hook timed out after 1000ms");
    assert_eq!(v["hooks"][0]["timedOut"], true);
    let (code, v) = w.run("codebuddy", "PreToolUse", &input);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["hooks"][0]["timedOut"], true);
}
