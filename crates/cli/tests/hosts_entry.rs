//! The hook entrypoints on the real binary: the answer for plain, already-wrapped,
//! shell-override and no-shell inputs per pre-tool rewrite host (vscode-copilot, devin); the
//! shell-prefix hosts' hook (claude-code, codebuddy), which never changes the call and only
//! marks background commands; payload spellings; Cursor's retired entry; fail-open; and end to
//! end: payload → hook → rewritten command run by the real shell → compacted output with the
//! command's exit code (and Gemini's AfterTool tail of the compacted result).

mod hosts_support;

use std::path::{Path, PathBuf};

use hosts_support::*;
use serde_json::{json, Value};

/// A host whose pre-tool hook rewrites the command to run through `tokenjuice wrap`.
struct Pre {
    id: &'static str,
    event: &'static str,
    tool: &'static str,
    /// JSON pointer of the rewritten command in the answer.
    pointer: &'static str,
    /// The pointer of the whole rewritten input.
    input_pointer: &'static str,
    bash_rung: bool,
}

const PRE: &[Pre] = &[
    Pre {
        id: "vscode-copilot",
        event: "PreToolUse",
        tool: "run_in_terminal",
        pointer: "/hookSpecificOutput/updatedInput/command",
        input_pointer: "/hookSpecificOutput/updatedInput",
        bash_rung: true,
    },
    Pre {
        id: "devin",
        event: "PreToolUse",
        tool: "exec",
        pointer: "/hookSpecificOutput/updatedInput/command",
        input_pointer: "/hookSpecificOutput/updatedInput",
        bash_rung: true,
    },
];

/// Hosts reached through their shell prefix: the PreToolUse hook answers `{}` to everything.
const MARK_HOSTS: &[&str] = &["claude-code", "codebuddy"];

impl Pre {
    fn payload(&self, input: Value) -> String {
        json!({
            "session_id": "s1",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": "/tmp",
            "hook_event_name": self.event,
            "permission_mode": "default",
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

fn no_change(id: &str, a: &Value) {
    assert_eq!(a, &json!({}), "{id}: expected no change, got {a}");
}

fn pre(id: &str) -> &'static Pre {
    PRE.iter().find(|p| p.id == id).unwrap()
}

#[test]
fn plain_commands_are_rewritten_through_wrap_keeping_every_other_field() {
    for p in PRE {
        let w = World::new();
        let input = json!({"command": "git status --short && echo \"$HOME\"", "description": "Show status", "timeout": 120000, "requires_approval": false, "is_background": false});
        let a = p.hook(&w, &p.payload(input.clone()));
        let l = launcher();
        // `-c`, never a login shell: the host's PATH and environment stay as they are
        let expected = format!(
            "{l} wrap --source {} -- /bin/bash -c 'git status --short && echo \"$HOME\"'",
            p.id
        );
        assert_eq!(
            p.rewritten(&a).as_deref(),
            Some(expected.as_str()),
            "{}: {a}",
            p.id
        );
        let mut want = input.clone();
        want["command"] = json!(expected);
        assert_eq!(
            a.pointer(p.input_pointer),
            Some(&want),
            "{}: other tool_input fields kept",
            p.id
        );
        assert!(
            a.pointer("/hookSpecificOutput/permissionDecision")
                .is_none(),
            "{}: no permission decision: {a}",
            p.id
        );
        assert!(a.get("permission").is_none(), "{}: {a}", p.id);
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
            no_change(p.id, &a);
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
            p.rewritten(&a).unwrap().contains(" -- /bin/sh -c ls"),
            "{}: {a}",
            p.id
        );
        // 2. then TOKENJUICE_<HOST>_SHELL over SHELL.
        let mut w = World::new();
        w.set(&p.shell_var(), "sh");
        let a = p.hook(&w, &p.payload(json!({"command": "ls"})));
        assert!(
            p.rewritten(&a).unwrap().contains(" -- /usr/bin/sh -c ls")
                || p.rewritten(&a).unwrap().contains(" -- /bin/sh -c ls"),
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
            p.rewritten(&a).unwrap().contains(" -- /bin/bash -c ls"),
            "{}: {a}",
            p.id
        );
        // 4. no usable SHELL: bash
        let mut w = World::new();
        w.set("SHELL", "/no/such/shell")
            .set("PATH", bin.display().to_string());
        let a = p.hook(&w, &p.payload(json!({"command": "ls"})));
        let want = if p.bash_rung { "bash" } else { "sh" };
        assert!(
            p.rewritten(&a)
                .unwrap()
                .contains(&format!(" -- {} -c ls", bin.join(want).display())),
            "{}: {a}",
            p.id
        );
        // 4b. a service account's SHELL (nologin, false) is no shell: the host's fallback runs
        for login in ["/usr/sbin/nologin", "/bin/false"] {
            let mut w = World::new();
            w.set("SHELL", login).set("PATH", bin.display().to_string());
            let a = p.hook(&w, &p.payload(json!({"command": "ls"})));
            let rewritten = p.rewritten(&a).unwrap();
            assert!(
                !rewritten.contains(login)
                    && rewritten.contains(&format!(" -- {} -c ls", bin.join(want).display())),
                "{}: {login}: {a}",
                p.id
            );
        }
        // 5. nothing usable: unchanged.
        let empty = dir.path().join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        let mut w = World::new();
        w.set("SHELL", "/no/such/shell")
            .set("PATH", empty.display().to_string());
        let a = p.hook(&w, &p.payload(json!({"command": "ls"})));
        no_change(p.id, &a);
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
            no_change(p.id, &answer(&o));
        }
        // No --wrap-launcher: nothing to rewrite to.
        let o = w.run_stdin(&[&sub], &p.payload(json!({"command": "ls"})));
        no_change(p.id, &answer(&o));
    }
}

#[test]
fn shell_prefix_hosts_answer_nothing_but_an_empty_object_and_mark_only_background_commands() {
    for id in MARK_HOSTS {
        let sub = format!("{id}-pre-tool-use");
        let bash = |input: Value| {
            json!({"session_id": "s1", "hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": "Bash", "tool_input": input}).to_string()
        };
        let w = World::new();
        for payload in [
            bash(json!({"command": "git status --short", "description": "Show status"})),
            bash(json!({"command": "rm -rf build", "requires_approval": true})),
            bash(json!({"command": "npm run dev", "run_in_background": false})),
            bash(json!({"command": "tokenjuice wrap -- cargo test"})),
            bash(json!({"command": "npm run dev", "run_in_background": "true"})),
            json!({"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {"command": "ls", "run_in_background": true}}).to_string(),
            json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "ls", "run_in_background": true}}).to_string(),
            bash(json!({"command": "  ", "run_in_background": true})),
            "not json at all".into(),
            "".into(),
            "[1,2]".into(),
        ] {
            // An older install passed --wrap-launcher; it changes nothing now.
            for args in [vec![sub.as_str()], vec![&sub, "--wrap-launcher", "/x/tokenjuice"]] {
                let o = w.run_stdin(&args, &payload);
                assert_eq!(o.status.code(), Some(0), "{id}: {}", stderr(&o));
                assert_eq!(stdout(&o), "{}\n", "{id}: {payload}");
            }
        }
        assert_eq!(
            files_under(&w.tmpdir()),
            Vec::<PathBuf>::new(),
            "{id}: nothing marked for a foreground command, another tool or event"
        );
        let o = w.run_stdin(
            &[&sub],
            &bash(json!({"command": "npm run dev", "run_in_background": true})),
        );
        assert_eq!(stdout(&o), "{}\n", "{id}");
        assert_eq!(
            files_under(&w.tmpdir()).len(),
            1,
            "{id}: one mark for a background command"
        );
    }
}

#[test]
fn camel_case_payloads_and_tool_args_strings_are_accepted() {
    let w = World::new();
    let l = launcher();
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
    assert!(
        a.pointer("/hookSpecificOutput/updatedInput/command")
            .and_then(Value::as_str)
            .is_some_and(|c| c.contains(" wrap --source vscode-copilot -- ")),
        "{a}"
    );
    let args_string = json!({"toolName": "exec", "toolArgs": "{\"command\":\"ls\"}"}).to_string();
    let a = answer(&w.run_stdin(&["devin-pre-tool-use", "--wrap-launcher", &l], &args_string));
    assert!(
        a.pointer("/hookSpecificOutput/updatedInput/command")
            .and_then(Value::as_str)
            .is_some_and(|c| c.contains(" wrap --source devin -- ")),
        "{a}"
    );
}

#[test]
fn a_payload_starting_with_a_byte_order_mark_is_read() {
    let w = World::new();
    let vs = pre("vscode-copilot");
    let payload = format!("\u{feff}{}", vs.payload(json!({"command": "ls"})));
    assert!(vs.rewritten(&vs.hook(&w, &payload)).is_some());
}

#[test]
fn an_older_cursor_hook_changes_nothing_and_says_so() {
    // Cursor applies a rewrite only with a permission decision, so tokenjuice no longer
    // rewrites there; an entry an older install left answers "no change" (no permission).
    let w = World::new();
    let payload = json!({"hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": {"command": "ls"}}).to_string();
    let o = w.run_stdin(
        &["cursor-pre-tool-use", "--wrap-launcher", &launcher()],
        &payload,
    );
    assert_eq!(o.status.code(), Some(0));
    let a: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        a.get("permission").is_none() && a.get("updated_input").is_none(),
        "{a}"
    );
    assert!(
        stderr(&o).contains("tokenjuice doctor cursor"),
        "{}",
        stderr(&o)
    );
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
    // An old hook still calling these must not put an error in front of the model after
    // every command.
    let w = World::new();
    for sub in [
        "codex-post-tool-use",
        "claude-code-post-tool-use",
        "codebuddy-post-tool-use",
        "pi-pre-tool-use",
        // Gemini's old BeforeTool rewrite; it is an AfterTool tail now
        "gemini-cli-pre-tool-use",
    ] {
        let o = w.run_stdin(
            &[sub, "--wrap-launcher", &launcher()],
            r#"{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_response":{"stdout":"x"}}"#,
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
        no_change(p.id, &a);
    }
    for id in MARK_HOSTS {
        let o = w.run_stdin(
            &[&format!("{id}-pre-tool-use")],
            &json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls", "run_in_background": true}}).to_string(),
        );
        assert_eq!(stdout(&o), "{}\n", "{id}");
        assert_eq!(o.status.code(), Some(0), "{id}");
    }
    assert!(files_under(&w.tmpdir()).is_empty(), "the panic came first");
    for sub in ["copilot-cli-post-tool-use", "gemini-cli-post-tool-use"] {
        let o = w.run_stdin(&[sub], "{}");
        assert_eq!(answer(&o), json!({}), "{sub}");
    }
}

const NOISY: &str = "i=0; while [ $i -lt 300 ]; do echo \"downloading chunk $i of 300\"; i=$((i+1)); done; echo 'error: checksum mismatch in chunk 7' >&2; exit 7";

fn assert_compacted(id: &str, out: &str, code: i32, home: &Path) {
    let (raw, raw_code) = run_shell(
        &format!("/bin/bash -c {}", tokenjuice_core_quote(NOISY)),
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
fn gemini_after_tool_hands_back_a_read_file_of_the_compacted_result() {
    let mut w = World::new();
    let system = w.tmp.path().join("no-system-settings.json");
    w.set(
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
        system.display().to_string(),
    );
    let (raw, code) = run_shell(
        &format!("/bin/bash -c {}", tokenjuice_core_quote(NOISY)),
        &w.home,
    );
    assert_eq!(code, 7);
    let envelope = format!(
        "<untrusted_context>\nOutput: {}\nExit Code: 7\nProcess Group PGID: 4242\n</untrusted_context>",
        raw.trim_end()
    );
    let transcript = w.home.join(".gemini/tmp/proj/chats/session-1.json");
    let payload = |input: Value, response: Value| {
        json!({
            "session_id": "s1",
            "hook_event_name": "AfterTool",
            "cwd": w.project,
            "transcript_path": transcript,
            "tool_name": "run_shell_command",
            "tool_input": input,
            "tool_response": response,
        })
        .to_string()
    };
    let a = answer(&w.run_stdin(
        &["gemini-cli-post-tool-use"],
        &payload(
            json!({"command": "./fetch.sh", "description": "fetch"}),
            json!({"llmContent": envelope}),
        ),
    ));
    let tail = a
        .pointer("/hookSpecificOutput/tailToolCallRequest")
        .unwrap_or_else(|| panic!("{a}"));
    assert_eq!(tail["name"], "read_file", "{a}");
    let file = PathBuf::from(tail["args"]["file_path"].as_str().unwrap());
    assert!(
        file.starts_with(w.home.join(".gemini/tmp/proj/tokenjuice")),
        "beside the transcript: {}",
        file.display()
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("<untrusted_context>\nOutput: "), "{text}");
    assert!(
        text.ends_with("\nExit Code: 7\nProcess Group PGID: 4242\n</untrusted_context>"),
        "Gemini's trailer kept: {text}"
    );
    assert!(
        text.contains("error: checksum mismatch in chunk 7"),
        "{text}"
    );
    assert!(text.len() * 3 < envelope.len(), "compacted: {text}");
    // A background command or another tool: Gemini's own result.
    for p in [
        payload(
            json!({"command": "./fetch.sh", "is_background": true}),
            json!({"llmContent": envelope}),
        ),
        payload(
            json!({"command": "./fetch.sh"}),
            json!({"llmContent": "ok"}),
        ),
    ] {
        assert_eq!(
            answer(&w.run_stdin(&["gemini-cli-post-tool-use"], &p)),
            json!({})
        );
    }
}

#[test]
fn copilot_cli_post_tool_use_replaces_the_result_text() {
    let w = World::new();
    let (out, _) = run_shell(
        &format!("/bin/bash -c {} || true", tokenjuice_core_quote(NOISY)),
        &w.home,
    );
    // Copilot ends a shell result with its own exit line
    let raw = format!("{out}\n<shellId: 0 completed with exit code 7>");
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
        assert!(
            text.ends_with("\n<shellId: 0 completed with exit code 7>")
                && !text.lines().any(|l| l.starts_with("exit ")),
            "Copilot's exit line kept, no second one: {text}"
        );
        if key == "textResultForLlm" {
            assert_eq!(a["modifiedResult"]["sessionLog"], "kept");
            assert_eq!(a["modifiedResult"]["resultType"], "success");
        }
    }
    // A large-output preview: the saved full output is what gets compacted, its path kept.
    let saved = w.tmp.path().join("1795-copilot-tool-output-1-abc.txt");
    std::fs::write(
        &saved,
        format!(
            "error: first failure\n{}",
            "downloading chunk 5 of 9\n".repeat(4000)
        ),
    )
    .unwrap();
    let preview = format!(
        "Output too large to read at once (96.0 KB). Saved to: {}\nConsider using tools like grep to examine portions of the output.\n\nPreview (first 500 chars):\n{}\n<shellId: 3 completed with exit code 2>",
        saved.display(),
        "downloading chunk 5 of 9\n".repeat(20)
    );
    let payload = json!({"toolName": "bash", "toolArgs": "{\"command\":\"./big.sh\"}", "toolResult": {"resultType": "success", "textResultForLlm": preview}});
    let a = answer(&w.run_stdin(&["copilot-cli-post-tool-use"], &payload.to_string()));
    let text = a["modifiedResult"]["textResultForLlm"]
        .as_str()
        .unwrap_or_else(|| panic!("{a}"));
    assert!(
        text.contains("error: first failure")
            && text.contains(&saved.display().to_string())
            && text.ends_with("<shellId: 3 completed with exit code 2>")
            && text.len() < preview.len(),
        "{text}"
    );
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
