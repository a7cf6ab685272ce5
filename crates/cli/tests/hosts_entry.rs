//! The hook entrypoints on the real binary: the older entries of hosts tokenjuice refuses
//! (Cursor, VS Code Copilot, Devin, Qwen Code), which answer "no change" and never
//! rewrite or decide anything; the shell-prefix hosts' hook (claude-code, codebuddy), which
//! never changes the call and only marks background commands; payload spellings; retired
//! entrypoints; fail-open; and Copilot CLI's and Gemini CLI's post-tool answers with the
//! compacted output of a real command.

mod hosts_support;

use std::path::PathBuf;

use hosts_support::*;
use serde_json::{json, Value};

/// Hosts reached through their shell prefix: the PreToolUse hook answers `{}` to everything.
const MARK_HOSTS: &[&str] = &["claude-code", "codebuddy"];

fn no_change(id: &str, a: &Value) {
    assert_eq!(a, &json!({}), "{id}: expected no change, got {a}");
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

/// Hosts where tokenjuice refuses to install: an entry an older install left must change
/// nothing (no rewrite, no permission decision), whatever it is sent, and say where to look.
const REFUSED: &[(&str, &str, &str)] = &[
    ("cursor", "preToolUse", "Shell"),
    ("vscode-copilot", "PreToolUse", "run_in_terminal"),
    ("devin", "PreToolUse", "exec"),
    ("qwen-code", "PreToolUse", "run_shell_command"),
];

#[test]
fn an_older_hook_of_a_refused_host_changes_nothing_and_says_so() {
    let w = World::new();
    for (id, event, tool) in REFUSED {
        let sub = format!("{id}-pre-tool-use");
        for payload in [
            json!({"hook_event_name": event, "tool_name": tool, "permission_mode": "yolo", "tool_input": {"command": "rm -rf build", "description": "clean"}}).to_string(),
            json!({"hookEventName": event, "toolName": tool, "toolArgs": "{\"command\":\"ls\"}"}).to_string(),
            format!("\u{feff}{}", json!({"hook_event_name": event, "tool_name": tool, "tool_input": {"command": "ls"}})),
            "not json at all".into(),
            "".into(),
        ] {
            // older installs passed --wrap-launcher
            for args in [vec![sub.as_str(), "--wrap-launcher", "/x/tokenjuice"], vec![sub.as_str()]] {
                let o = w.run_stdin(&args, &payload);
                assert_eq!(o.status.code(), Some(0), "{id}: {}", stderr(&o));
                no_change(id, &answer(&o));
                assert!(
                    stderr(&o).contains(&format!("tokenjuice doctor {id}")),
                    "{id}: {}",
                    stderr(&o)
                );
            }
        }
    }
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
        // Droid's old rewrite; BASH_ENV from a SessionStart hook now
        "droid-pre-tool-use",
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

fn tokenjuice_core_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
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
        // a payload may start with a byte-order mark
        let bom = answer(&w.run_stdin(
            &["copilot-cli-post-tool-use"],
            &format!("\u{feff}{payload}"),
        ));
        assert_eq!(bom, a);
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
    // A line reduction of a large output is made from the lines of Copilot's preview (its
    // first 500 characters), folded, with the output's end: every line the preview showed
    // is in it (the rule's own head keeps 10 lines: it would leave 6 of these out)
    let words = [
        "amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "haven", "inlet", "jasper",
        "kelp", "lumen", "maple", "nectar", "onyx", "pine",
    ];
    let mut full = String::new();
    for (i, w) in words.iter().enumerate() {
        full.push_str(&format!("set {w} {}\n", words[(i * 7) % words.len()]));
    }
    full.push_str(&"downloading chunk 5 of 9\n".repeat(3000));
    // more distinct lines than the rule shows whole (60): without the preview's lines its
    // usual head applies
    for i in 0..80 {
        let (a, b) = (words[i % 16], words[(i * 5 + i / 16) % 16]);
        full.push_str(&format!(
            "linked {a} with {b} twice, then {}\n",
            words[(i / 5) % 16]
        ));
    }
    full.push_str("error: the last chunk failed its checksum\n");
    std::fs::write(&saved, &full).unwrap();
    let shown: String = full.chars().take(500).collect();
    let preview = format!(
        "Output too large to read at once (75.6 KB). Saved to: {}\nConsider using tools like grep to examine portions of the output.\n\nPreview (first 500 chars):\n{shown}\n<shellId: 4 completed with exit code 0>",
        saved.display(),
    );
    let payload = json!({"toolName": "bash", "toolArgs": "{\"command\":\"./fetch.sh\"}", "toolResult": {"resultType": "success", "textResultForLlm": preview}});
    let a = answer(&w.run_stdin(&["copilot-cli-post-tool-use"], &payload.to_string()));
    let text = a["modifiedResult"]["textResultForLlm"]
        .as_str()
        .unwrap_or_else(|| panic!("{a}"));
    // the preview's whole lines (its last one may be cut through)
    let whole_lines: Vec<&str> = shown.lines().collect();
    for l in &whole_lines[..whole_lines.len() - 1] {
        assert!(text.contains(l), "lost the preview's line {l:?}:\n{text}");
    }
    assert!(
        text.contains("error: the last chunk failed its checksum")
            && text.contains(&saved.display().to_string())
            && text.ends_with("<shellId: 4 completed with exit code 0>")
            && text.chars().count() < preview.chars().count(),
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
