//! The hook entrypoints on the real binary: the answer for plain, already-wrapped,
//! shell-override and no-shell inputs per host; payload spellings; Windows; fail-open; and
//! end to end: payload → hook → rewritten command run by the real shell → compacted output
//! with the command's exit code.

mod hosts_support;

use std::path::Path;

use hosts_support::*;
use serde_json::{json, Value};

struct Pre {
    id: &'static str,
    event: &'static str,
    tool: &'static str,
    /// JSON pointer of the rewritten command in the answer.
    pointer: &'static str,
    /// The pointer of the whole rewritten input (None: the host merges a patch).
    input_pointer: Option<&'static str>,
    no_change: &'static str,
    /// `permissionDecision` the answer carries, if any.
    decision: Option<&'static str>,
    bash_rung: bool,
}

const PRE: &[Pre] = &[
    Pre {
        id: "codebuddy",
        event: "PreToolUse",
        tool: "execute_command",
        pointer: "/hookSpecificOutput/modifiedInput/command",
        input_pointer: Some("/hookSpecificOutput/modifiedInput"),
        no_change: r#"{"continue":true}"#,
        decision: Some("allow"),
        bash_rung: true,
    },
    Pre {
        id: "claude-code",
        event: "PreToolUse",
        tool: "Bash",
        pointer: "/hookSpecificOutput/updatedInput/command",
        input_pointer: Some("/hookSpecificOutput/updatedInput"),
        no_change: "{}",
        decision: None,
        bash_rung: true,
    },
    Pre {
        id: "codex",
        event: "PreToolUse",
        tool: "Bash",
        pointer: "/hookSpecificOutput/updatedInput/command",
        input_pointer: Some("/hookSpecificOutput/updatedInput"),
        no_change: "{}",
        decision: Some("allow"),
        bash_rung: true,
    },
    Pre {
        id: "cursor",
        event: "preToolUse",
        tool: "Shell",
        pointer: "/updated_input/command",
        input_pointer: Some("/updated_input"),
        no_change: "{}",
        decision: None,
        bash_rung: false,
    },
    Pre {
        id: "gemini-cli",
        event: "BeforeTool",
        tool: "run_shell_command",
        pointer: "/hookSpecificOutput/tool_input/command",
        input_pointer: None,
        no_change: "{}",
        decision: None,
        bash_rung: true,
    },
    Pre {
        id: "qwen-code",
        event: "PreToolUse",
        tool: "run_shell_command",
        pointer: "/hookSpecificOutput/updatedInput/command",
        input_pointer: Some("/hookSpecificOutput/updatedInput"),
        no_change: "{}",
        decision: Some("allow"),
        bash_rung: true,
    },
    Pre {
        id: "vscode-copilot",
        event: "PreToolUse",
        tool: "run_in_terminal",
        pointer: "/hookSpecificOutput/updatedInput/command",
        input_pointer: Some("/hookSpecificOutput/updatedInput"),
        no_change: "{}",
        decision: None,
        bash_rung: true,
    },
    Pre {
        id: "droid",
        event: "PreToolUse",
        tool: "Execute",
        pointer: "/hookSpecificOutput/updatedInput/command",
        input_pointer: Some("/hookSpecificOutput/updatedInput"),
        no_change: "{}",
        decision: None,
        bash_rung: true,
    },
    Pre {
        id: "devin",
        event: "PreToolUse",
        tool: "exec",
        pointer: "/hookSpecificOutput/updatedInput/command",
        input_pointer: Some("/hookSpecificOutput/updatedInput"),
        no_change: "{}",
        decision: None,
        bash_rung: true,
    },
];

impl Pre {
    fn payload(&self, input: Value) -> String {
        json!({
            "session_id": "s1",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": "/tmp",
            "hook_event_name": self.event,
            "permission_mode": "yolo",
            "tool_name": self.tool,
            "tool_input": input,
        })
        .to_string()
    }

    fn hook(&self, w: &World, payload: &str) -> Value {
        let sub = format!("{}-pre-tool-use", self.id);
        answer(&w.run_stdin(&[&sub, "--wrap-launcher", &launcher()], payload))
    }

    fn rewritten(&self, a: &Value) -> Option<String> {
        a.pointer(self.pointer)
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    fn shell_var(&self) -> String {
        format!(
            "TOKENJUICE_{}_SHELL",
            self.id.to_ascii_uppercase().replace('-', "_")
        )
    }
}

fn no_change(p: &Pre, a: &Value) {
    assert_eq!(
        a,
        &serde_json::from_str::<Value>(p.no_change).unwrap(),
        "{}: expected no change, got {a}",
        p.id
    );
}

#[test]
fn plain_commands_are_rewritten_through_wrap_keeping_every_other_field() {
    for p in PRE {
        let w = World::new();
        let input = json!({"command": "git status --short && echo \"$HOME\"", "description": "Show status", "timeout": 120000, "requires_approval": false, "is_background": false});
        let a = p.hook(&w, &p.payload(input.clone()));
        let l = launcher();
        let expected = format!(
            "{l} wrap --source {} -- /bin/bash -lc 'git status --short && echo \"$HOME\"'",
            p.id
        );
        assert_eq!(
            p.rewritten(&a).as_deref(),
            Some(expected.as_str()),
            "{}: {a}",
            p.id
        );
        if let Some(ip) = p.input_pointer {
            let mut want = input.clone();
            want["command"] = json!(expected);
            assert_eq!(
                a.pointer(ip),
                Some(&want),
                "{}: other tool_input fields kept",
                p.id
            );
        }
        let decision = a
            .pointer("/hookSpecificOutput/permissionDecision")
            .and_then(Value::as_str);
        assert_eq!(decision, p.decision, "{}: permission posture", p.id);
        let cursor_permission = a.get("permission").and_then(Value::as_str);
        if p.id == "cursor" {
            // Cursor applies updated_input only with an allow (documented in docs/hosts.md).
            assert_eq!(cursor_permission, Some("allow"), "{a}");
        } else {
            assert!(cursor_permission.is_none(), "{}: {a}", p.id);
        }
    }
}

#[test]
fn already_wrapped_commands_are_left_unchanged() {
    let l = launcher();
    for p in PRE {
        let w = World::new();
        for c in [
            "tokenjuice wrap --raw -- pnpm --help".to_string(),
            format!("{l} wrap -- cargo test"),
            "cd web && /opt/homebrew/Cellar/tokenjuice/0.9.1/bin/tokenjuice wrap -- npm test"
                .into(),
            "node /abs/dist/cli/main.js wrap --raw -- ls".into(),
            "~/.local/share/pnpm/tokenjuice wrap -- ls".into(),
            "tokenjuice.exe wrap -- dir".into(),
        ] {
            let a = p.hook(&w, &p.payload(json!({"command": c})));
            no_change(p, &a);
        }
    }
}

#[test]
fn shell_order_per_host() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink("/bin/bash", bin.join("bash")).unwrap();
    std::os::unix::fs::symlink("/bin/sh", bin.join("sh")).unwrap();
    for p in PRE {
        // 1. tool_input.shell wins (a bare name is looked up on PATH).
        let mut w = World::new();
        w.set(&p.shell_var(), "/bin/bash");
        let a = p.hook(&w, &p.payload(json!({"command": "ls", "shell": "/bin/sh"})));
        assert!(
            p.rewritten(&a).unwrap().contains(" -- /bin/sh -lc ls"),
            "{}: {a}",
            p.id
        );
        // 2. then TOKENJUICE_<HOST>_SHELL over SHELL.
        let mut w = World::new();
        w.set(&p.shell_var(), "sh");
        let a = p.hook(&w, &p.payload(json!({"command": "ls"})));
        assert!(
            p.rewritten(&a).unwrap().contains(" -- /usr/bin/sh -lc ls")
                || p.rewritten(&a).unwrap().contains(" -- /bin/sh -lc ls"),
            "{}: {a}",
            p.id
        );
        // 3. an unusable override falls through to SHELL.
        let mut w = World::new();
        w.set(&p.shell_var(), "/no/such/shell");
        let a = p.hook(
            &w,
            &p.payload(json!({"command": "ls", "shell": "/also/missing"})),
        );
        assert!(
            p.rewritten(&a).unwrap().contains(" -- /bin/bash -lc ls"),
            "{}: {a}",
            p.id
        );
        // 4. no usable SHELL: bash (codebuddy & co.) or straight to sh (cursor).
        let mut w = World::new();
        w.set("SHELL", "/no/such/shell")
            .set("PATH", bin.display().to_string());
        let a = p.hook(&w, &p.payload(json!({"command": "ls"})));
        let want = if p.bash_rung { "bash" } else { "sh" };
        assert!(
            p.rewritten(&a)
                .unwrap()
                .contains(&format!(" -- {} -lc ls", bin.join(want).display())),
            "{}: {a}",
            p.id
        );
        // 5. nothing usable: unchanged.
        let empty = dir.path().join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        let mut w = World::new();
        w.set("SHELL", "/no/such/shell")
            .set("PATH", empty.display().to_string());
        let a = p.hook(&w, &p.payload(json!({"command": "ls"})));
        no_change(p, &a);
    }
}

#[test]
fn non_shell_tools_other_events_and_garbage_get_the_no_change_answer() {
    for p in PRE {
        let w = World::new();
        let sub = format!("{}-pre-tool-use", p.id);
        for payload in [
            json!({"hook_event_name": p.event, "tool_name": "Write", "tool_input": {"command": "ls"}}).to_string(),
            json!({"hook_event_name": "PostToolUse", "tool_name": p.tool, "tool_input": {"command": "ls"}}).to_string(),
            json!({"hook_event_name": p.event, "tool_name": p.tool, "tool_input": {"command": "   "}}).to_string(),
            json!({"hook_event_name": p.event, "tool_name": p.tool, "tool_input": {}}).to_string(),
            "not json at all".into(),
            "".into(),
            "[1,2]".into(),
        ] {
            let o = w.run_stdin(&[&sub, "--wrap-launcher", &launcher()], &payload);
            no_change(p, &answer(&o));
        }
        // No --wrap-launcher: nothing to rewrite to.
        let o = w.run_stdin(&[&sub], &p.payload(json!({"command": "ls"})));
        no_change(p, &answer(&o));
    }
}

#[test]
fn camel_case_payloads_and_both_codebuddy_tool_names_are_accepted() {
    let w = World::new();
    let l = launcher();
    for tool in ["Bash", "execute_command"] {
        let a = answer(&w.run_stdin(&["codebuddy-pre-tool-use", "--wrap-launcher", &l], &json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": {"command": "ls"}}).to_string()));
        assert!(
            a.pointer("/hookSpecificOutput/modifiedInput/command")
                .is_some(),
            "{tool}: {a}"
        );
    }
    let camel = json!({"hookEventName": "PreToolUse", "toolName": "run_in_terminal", "toolInput": {"command": "ls", "explanation": "list"}}).to_string();
    let a = answer(&w.run_stdin(
        &["vscode-copilot-pre-tool-use", "--wrap-launcher", &l],
        &camel,
    ));
    assert_eq!(
        a.pointer("/hookSpecificOutput/updatedInput/explanation"),
        Some(&json!("list")),
        "{a}"
    );
    let args_string = json!({"toolName": "Bash", "toolArgs": "{\"command\":\"ls\"}"}).to_string();
    let a = answer(&w.run_stdin(
        &["claude-code-pre-tool-use", "--wrap-launcher", &l],
        &args_string,
    ));
    assert!(
        a.pointer("/hookSpecificOutput/updatedInput/command")
            .is_some(),
        "{a}"
    );
}

#[test]
fn a_payload_starting_with_a_byte_order_mark_is_read() {
    let w = World::new();
    let cur = PRE.iter().find(|p| p.id == "cursor").unwrap();
    let payload = format!("\u{feff}{}", cur.payload(json!({"command": "ls"})));
    assert!(cur.rewritten(&cur.hook(&w, &payload)).is_some());
}

#[test]
fn codebuddy_never_allows_a_command_the_model_marked_for_approval() {
    let w = World::new();
    let p = &PRE[0];
    let a = p.hook(
        &w,
        &p.payload(json!({"command": "rm -rf build", "requires_approval": true})),
    );
    no_change(p, &a);
}

#[test]
fn qwen_rewrites_only_in_yolo_mode() {
    let w = World::new();
    for mode in ["default", "plan", "auto_edit"] {
        let payload = json!({"hook_event_name": "PreToolUse", "permission_mode": mode, "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}).to_string();
        let a = answer(&w.run_stdin(
            &["qwen-code-pre-tool-use", "--wrap-launcher", &launcher()],
            &payload,
        ));
        assert_eq!(a, json!({}), "{mode}");
    }
}

#[test]
fn native_windows_gets_a_deny_asking_for_wsl_for_codebuddy_and_cursor() {
    let mut w = World::new();
    w.set("TOKENJUICE_HOST_PLATFORM", "win32");
    let cb = PRE.iter().find(|p| p.id == "codebuddy").unwrap();
    let a = cb.hook(&w, &cb.payload(json!({"command": "dir"})));
    assert_eq!(
        a.pointer("/hookSpecificOutput/permissionDecision"),
        Some(&json!("deny")),
        "{a}"
    );
    assert!(a
        .pointer("/hookSpecificOutput/permissionDecisionReason")
        .and_then(Value::as_str)
        .unwrap()
        .contains("WSL"));
    let cur = PRE.iter().find(|p| p.id == "cursor").unwrap();
    let a = cur.hook(&w, &cur.payload(json!({"command": "dir"})));
    assert_eq!(a["permission"], "deny", "{a}");
    assert!(a["agent_message"].as_str().unwrap().contains("WSL"));
    // Other hosts are not affected by the Windows boundary of these two.
    let cc = PRE.iter().find(|p| p.id == "claude-code").unwrap();
    assert!(cc
        .rewritten(&cc.hook(&w, &cc.payload(json!({"command": "ls"}))))
        .is_some());
}

#[test]
fn unknown_entry_subcommands_are_usage_errors() {
    let w = World::new();
    let o = w.run_stdin(&["vim-pre-tool-use"], "{}");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unrecognized subcommand"));
}

#[test]
fn retired_entrypoints_of_older_installs_answer_no_change() {
    // An old PostToolUse hook still calling these must not put an error in front of the
    // model after every command.
    let w = World::new();
    for sub in [
        "codex-post-tool-use",
        "claude-code-post-tool-use",
        "codebuddy-post-tool-use",
        "pi-pre-tool-use",
    ] {
        let o = w.run_stdin(
            &[sub],
            r#"{"tool_name":"Bash","tool_response":{"stdout":"x"}}"#,
        );
        assert_eq!(answer(&o), json!({}), "{sub}");
        assert!(
            stderr(&o).contains("tokenjuice install"),
            "{sub}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_panic_inside_the_hook_fails_open() {
    let mut w = World::new();
    w.set("TOKENJUICE_DEBUG_PANIC", "host-entry");
    for p in PRE {
        let a = p.hook(&w, &p.payload(json!({"command": "ls"})));
        no_change(p, &a);
    }
    let o = w.run_stdin(&["copilot-cli-post-tool-use"], "{}");
    assert_eq!(answer(&o), json!({}));
}

const NOISY: &str = "i=0; while [ $i -lt 300 ]; do echo \"downloading chunk $i of 300\"; i=$((i+1)); done; echo 'error: checksum mismatch in chunk 7' >&2; exit 7";

fn assert_compacted(id: &str, out: &str, code: i32, home: &Path) {
    let (raw, raw_code) = run_shell(
        &format!("/bin/bash -lc {}", tokenjuice_core_quote(NOISY)),
        home,
    );
    assert_eq!(raw_code, 7);
    assert_eq!(code, 7, "{id}: exit code kept: {out}");
    assert!(
        out.contains("error: checksum mismatch in chunk 7"),
        "{id}: the error line survives: {out}"
    );
    assert!(out.contains("downloading chunk 0 of 300"), "{id}: {out}");
    assert!(
        out.len() * 3 < raw.len(),
        "{id}: compacted ({} of {} bytes): {out}",
        out.len(),
        raw.len()
    );
}

fn tokenjuice_core_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn end_to_end_payload_hook_shell_compacted_output_and_exit_code() {
    for p in PRE {
        let w = World::new();
        let a = p.hook(
            &w,
            &p.payload(json!({"command": NOISY, "description": "fetch"})),
        );
        let rewritten = p.rewritten(&a).unwrap_or_else(|| panic!("{}: {a}", p.id));
        let (out, code) = run_shell(&rewritten, &w.home);
        assert_compacted(p.id, &out, code, &w.home);
    }
}

#[test]
fn copilot_cli_post_tool_use_replaces_the_result_text() {
    let w = World::new();
    let (raw, _) = run_shell(
        &format!("/bin/bash -c {} || true", tokenjuice_core_quote(NOISY)),
        &w.home,
    );
    for (payload, key) in [
        (
            json!({"sessionId": "s", "toolName": "bash", "toolArgs": json!({"command": "./fetch.sh"}).to_string(), "toolResult": {"resultType": "success", "textResultForLlm": raw, "sessionLog": "kept"}}),
            "textResultForLlm",
        ),
        (
            json!({"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "bash", "tool_input": {"command": "./fetch.sh"}, "tool_result": {"result_type": "success", "text_result_for_llm": raw}}),
            "text_result_for_llm",
        ),
    ] {
        let a = answer(&w.run_stdin(&["copilot-cli-post-tool-use"], &payload.to_string()));
        let text = a["modifiedResult"][key]
            .as_str()
            .unwrap_or_else(|| panic!("{a}"));
        assert!(text.len() * 3 < raw.len(), "{text}");
        assert!(
            text.contains("error: checksum mismatch in chunk 7"),
            "{text}"
        );
        if key == "textResultForLlm" {
            assert_eq!(a["modifiedResult"]["sessionLog"], "kept");
            assert_eq!(a["modifiedResult"]["resultType"], "success");
        }
    }
    // Failures, small outputs and raw escapes are left alone.
    for payload in [
        json!({"toolName": "bash", "toolArgs": "{\"command\":\"x\"}", "toolResult": {"resultType": "failure", "textResultForLlm": raw}}),
        json!({"toolName": "bash", "toolArgs": "{\"command\":\"x\"}", "toolResult": {"resultType": "success", "textResultForLlm": "ok\n"}}),
        json!({"toolName": "bash", "toolArgs": "{\"command\":\"tokenjuice wrap --raw -- x\"}", "toolResult": {"resultType": "success", "textResultForLlm": raw}}),
        json!({"toolName": "edit", "toolArgs": "{\"command\":\"x\"}", "toolResult": {"resultType": "success", "textResultForLlm": raw}}),
    ] {
        assert_eq!(
            answer(&w.run_stdin(&["copilot-cli-post-tool-use"], &payload.to_string())),
            json!({})
        );
    }
}
