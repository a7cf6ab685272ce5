//! `tokenjuice hooks list|validate|events|log|sessions|lifecycle|intro|remember`.

mod hooks_support;

use hooks_support::*;
use serde_json::{json, Value};

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn list_shows_every_hook_with_its_source_in_json_and_text() {
    let w = World::new();
    w.write_json(
        &w.home.join(".codebuddy/settings.json"),
        &json!({"hooks": {"SessionStart": [group(Some("startup"), "echo hi", Some(5.0))]}}),
    );
    w.write_json(
        &w.project.join(".codebuddy/settings.json"),
        &json!({"hooks": {"PreToolUse": [group(Some("execute_command"), "guard.py", None)]}}),
    );
    let out = w
        .cmd()
        .args(["hooks", "list", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["host"], "codebuddy");
    let hooks = v["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 2);
    assert_eq!(hooks[0]["scope"], "user");
    assert_eq!(hooks[0]["timeoutMs"], 5000);
    assert_eq!(hooks[1]["entry"], "hooks.PreToolUse[0].hooks[0]");
    assert_eq!(
        hooks[1]["timeoutMs"], 60_000,
        "CodeBuddy's default timeout is 60 s"
    );
    assert_eq!(hooks[1]["timeoutIsDefault"], true);
    let text = stdout(&w.cmd().args(["hooks", "list"]).output().unwrap());
    assert!(
        text.contains("[execute_command] guard.py  (command, timeout 60s default)"),
        "{text}"
    );
    assert!(
        text.contains("not present") || text.contains("1 hook(s)"),
        "{text}"
    );
}

#[test]
fn validate_given_files_reports_line_and_column_and_exit_code() {
    let w = World::new();
    let good = w.tmp.path().join("good.json");
    let bad = w.tmp.path().join("bad.json");
    w.write_json(
        &good,
        &json!({"hooks": {"Stop": [group(None, "true", None)]}}),
    );
    w.write(&bad, "{\n  \"hooks\": {\n    \"Stop\": [ }\n}\n");
    let out = w
        .cmd()
        .args(["hooks", "validate"])
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("valid: 0 error(s)"));
    let out = w
        .cmd()
        .args(["hooks", "validate"])
        .arg(&good)
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains(&format!("{}:3:15: error: invalid JSON", bad.display())),
        "{text}"
    );
    let missing = w.tmp.path().join("nope.json");
    let out = w
        .cmd()
        .args(["hooks", "validate"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("file not found"));
}

#[test]
fn validate_warns_about_other_hosts_spellings() {
    let w = World::new();
    w.write_json(
        &w.project.join(".codebuddy/settings.json"),
        &json!({"hooks": {"BeforeTool": [group(None, "true", None)]}}),
    );
    let out = w
        .cmd()
        .args(["hooks", "validate", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "warnings do not fail validation"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["warnings"], 1);
    assert!(v["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .contains("unknown event `BeforeTool`"));
}

#[test]
fn events_lists_host_spellings() {
    let w = World::new();
    let out = w
        .cmd()
        .args(["hooks", "events", "--host", "cursor", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pre = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event"] == "UserPromptSubmit")
        .unwrap();
    assert_eq!(pre["hostName"], "beforeSubmitPrompt");
    let text = stdout(&w.cmd().args(["hooks", "events"]).output().unwrap());
    assert!(
        text.contains("PreCompact") && text.contains("trigger"),
        "{text}"
    );
    assert!(text.contains("views: PreBash"), "{text}");
}

#[test]
fn log_record_as_a_post_tool_use_hook_then_stats_and_tail() {
    let w = World::new();
    let bin = assert_cmd::cargo::cargo_bin("tokenjuice");
    let record = format!("'{}' hooks log record", bin.display());
    w.write_json(
        &w.project.join(".codebuddy/settings.json"),
        &json!({"hooks": {"PostToolUse": [group(None, &record, None)]}}),
    );
    let (code, v) = w.run(
        "codebuddy",
        "PostToolUse",
        &[
            "--tool",
            "execute_command",
            "--input",
            r#"{"command":"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 gh pr create"}"#,
            "--tool-response",
            r#"{"exitCode":0,"stdout":"ok","stderr":""}"#,
        ],
    );
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["hooks"][0]["exitCode"], 0, "{v:#}");
    let (code, _) = w.run(
        "codebuddy",
        "PostToolUse",
        &[
            "--tool",
            "write_to_file",
            "--input",
            r#"{"filePath":"/p/a.ts"}"#,
        ],
    );
    assert_eq!(code, 0);
    let logs = w.home.join(".codebuddy/logs");
    let out = w
        .cmd()
        .args(["hooks", "log", "stats", "--format", "json"])
        .output()
        .unwrap();
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["totalEntries"], 2, "{s:#}");
    assert_eq!(s["byKind"]["bash_command"], 1);
    assert_eq!(s["byKind"]["file_edit"], 1);
    let tail = stdout(
        &w.cmd()
            .args(["hooks", "log", "tail", "-n", "5"])
            .output()
            .unwrap(),
    );
    assert!(
        !tail.contains("ghp_abcdefghijklmnopqrstuvwxyz0123"),
        "{tail}"
    );
    // by default only the program is recorded, not the command line
    assert!(
        tail.contains("gh (command line not recorded)") && !tail.contains("pr create"),
        "{tail}"
    );
    assert!(tail.contains("\"sessionId\":\"sess-1\""), "{tail}");
    assert!(logs.read_dir().unwrap().count() >= 1);
    // with --command-lines the whole line is kept, secrets redacted
    w.write_json(
        &w.project.join(".codebuddy/settings.json"),
        &json!({"hooks": {"PostToolUse": [group(None, &format!("{record} --command-lines"), None)]}}),
    );
    let (code, _) = w.run(
        "codebuddy",
        "PostToolUse",
        &[
            "--tool",
            "execute_command",
            "--input",
            r#"{"command":"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 gh pr create"}"#,
            "--tool-response",
            r#"{"exitCode":0,"stdout":"ok","stderr":""}"#,
        ],
    );
    assert_eq!(code, 0);
    let tail = stdout(
        &w.cmd()
            .args(["hooks", "log", "tail", "-n", "5"])
            .output()
            .unwrap(),
    );
    assert!(
        !tail.contains("ghp_abcdefghijklmnopqrstuvwxyz0123"),
        "{tail}"
    );
    assert!(
        tail.contains("GITHUB_TOKEN=[REDACTED] gh pr create"),
        "{tail}"
    );
}

#[test]
fn sessions_list_show_and_cleanup() {
    let w = World::new();
    let dir = w.home.join(".codebuddy/sessions");
    let mut store = tokenjuice_hooks::sessions::SessionStore::new(
        &w.project,
        tokenjuice_hooks::sessions::SessionConfig::in_dir(&dir),
    );
    for id in ["a", "b", "c"] {
        store.start(Some(id)).unwrap();
        store
            .add_message(
                tokenjuice_hooks::sessions::Role::User,
                format!("hello {id}"),
            )
            .unwrap();
        store.end().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::fs::write(dir.join("session-zzz.json"), "garbage").unwrap();
    let out = w
        .cmd()
        .args(["hooks", "sessions", "list"])
        .output()
        .unwrap();
    let text = stdout(&out);
    let ids: Vec<&str> = text
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(ids, ["c", "b", "a"], "{text}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("session-zzz.json"),
        "a corrupt file is a warning"
    );
    let out = w
        .cmd()
        .args(["hooks", "sessions", "show", "b"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["messages"][0]["content"], "hello b");
    let out = w
        .cmd()
        .args(["hooks", "sessions", "cleanup", "--max", "1"])
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains("deleted 2 session(s)"),
        "{}",
        stdout(&out)
    );
    assert!(dir.join("session-c.json").exists());
    assert!(!dir.join("session-a.json").exists());
    let out = w
        .cmd()
        .args(["hooks", "sessions", "show", "../x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn lifecycle_enable_is_persisted_and_run_passes_file_names_safely() {
    let w = World::new();
    let text = stdout(
        &w.cmd()
            .args(["hooks", "lifecycle", "list"])
            .output()
            .unwrap(),
    );
    assert!(
        text.contains("[Disabled] lint-on-edit [built-in]"),
        "{text}"
    );
    let out = w
        .cmd()
        .args(["hooks", "lifecycle", "enable", "pre-commit-lint"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(
        &w.cmd()
            .args(["hooks", "lifecycle", "list"])
            .output()
            .unwrap(),
    );
    assert!(text.contains("[Enabled ] pre-commit-lint"), "{text}");
    let cfg: Value = serde_json::from_str(
        &std::fs::read_to_string(w.project.join(".codebuddy/lifecycle-hooks.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(cfg["builtins"]["pre-commit-lint"]["enabled"], true);

    // a user hook that echoes the file it is given
    w.write_json(
        &w.project.join(".codebuddy/lifecycle-hooks.json"),
        &json!({"hooks": [{"name": "show", "type": "post-edit", "command": "printf 'edited %s' ${file}", "filePatterns": ["*.rs"]}]}),
    );
    let out = w
        .cmd()
        .args([
            "hooks",
            "lifecycle",
            "run",
            "post-edit",
            "--file",
            "src/$(touch pwned).rs",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("edited"), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("$(touch pwned).rs"),
        "{}",
        stdout(&out)
    );
    assert!(!w.project.join("pwned").exists());
    let out = w
        .cmd()
        .args([
            "hooks",
            "lifecycle",
            "run",
            "post-edit",
            "--file",
            "a.py",
            "--explain",
        ])
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains("show: ") && stdout(&out).contains("does not match *.rs"),
        "{}",
        stdout(&out)
    );
    let out = w
        .cmd()
        .args(["hooks", "lifecycle", "run", "sometime"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn intro_and_remember() {
    let w = World::new();
    w.write(
        &w.project.join(".codebuddy/intro_hook.txt"),
        "You are careful.",
    );
    w.write(&w.home.join(".codebuddy/intro_hook.txt"), "Global rule.");
    let out = w.cmd().args(["hooks", "intro"]).output().unwrap();
    assert_eq!(stdout(&out), "You are careful.\n\n---\n\nGlobal rule.\n");
    let out = w
        .cmd()
        .args(["hooks", "intro", "--max-length", "30", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["truncated"], true);
    assert_eq!(v["content"].as_str().unwrap().chars().count(), 30);

    let out = w
        .cmd()
        .args(["hooks", "remember", "# Always run cargo fmt"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = w
        .cmd()
        .args(["hooks", "remember", "Always run cargo fmt"])
        .output()
        .unwrap();
    assert!(stdout(&out).starts_with("Already in"));
    let rules = std::fs::read_to_string(w.project.join(".codebuddyrules")).unwrap();
    assert_eq!(rules, "instructions:\n- Always run cargo fmt\n");
    std::fs::write(w.project.join(".codebuddyrules"), "bad: [yaml").unwrap();
    let out = w
        .cmd()
        .args(["hooks", "remember", "# other"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(w.project.join(".codebuddyrules")).unwrap(),
        "bad: [yaml"
    );
}

#[test]
fn every_subcommand_has_help() {
    let w = World::new();
    for sub in [
        vec!["hooks"],
        vec!["hooks", "list"],
        vec!["hooks", "validate"],
        vec!["hooks", "run"],
        vec!["hooks", "events"],
        vec!["hooks", "log"],
        vec!["hooks", "log", "record"],
        vec!["hooks", "sessions"],
        vec!["hooks", "lifecycle"],
        vec!["hooks", "lifecycle", "run"],
        vec!["hooks", "intro"],
        vec!["hooks", "remember"],
    ] {
        let out = w.cmd().args(&sub).arg("--help").output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{sub:?}");
        assert!(stdout(&out).contains("Usage:"), "{sub:?}");
    }
}
