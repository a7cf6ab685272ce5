//! Qwen Code, the real CLI (0.24.4, pinned in e2e/agents.lock with the Node.js 22 it needs):
//! why `tokenjuice install qwen-code` refuses. Hooks of our own answer each call the way a
//! rewrite or a replacement would, and log every call they get, so a hook that did not fire
//! cannot pass for one Qwen ignored:
//! - PreToolUse rewrites (`updatedInput`, with `permissionDecision: allow`, Gemini's
//!   `tool_input`) are ignored: the original command runs, the model reads its output;
//! - of PostToolUse's answers only `continue: false` replaces the result (`stopReason` is all
//!   the model reads), and Qwen then reports a command that did run as a tool that was not
//!   run: a warning on stderr, an error result and a permission denial in its own record;
//!   `updatedToolOutput` and `decision: block` change nothing, `additionalContext` is
//!   appended; a failing command fires only PostToolUseFailure, whose `continue: false` is
//!   ignored;
//! - so `install` refuses and changes nothing, `doctor` says not supported, and the user's own
//!   hooks behave as before.
//!
//! Every command pauses before it exits (`; sleep 0.2`): Qwen 0.24.4 now and then loses the
//! output of a command that exits at once (the model reads `Output: (empty)`; seen without
//! any hook, in about one call in seven with eight sessions at once; never with the pause).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use support::drive::Paths;
use support::{Agent, Outcome, Spec, Wire};

const TOOL: &str = "run_shell_command";

/// The probe hook: logs each call (`event`, `command`) as a JSON line, then prints the answer
/// `answers.json` holds for `"<event> <command>"`, if any.
const HOOK: &str = r#"import json, sys
event, log, answers = sys.argv[1], sys.argv[2], sys.argv[3]
data = json.load(sys.stdin)
command = (data.get("tool_input") or {}).get("command", "")
with open(log, "a") as f:
    f.write(json.dumps({"event": event, "command": command}) + "\n")
with open(answers) as f:
    answer = json.load(f).get(event + " " + command)
if answer is not None:
    print(json.dumps(answer))
"#;

/// A session folder: `home`, `project` (a git repository), the hook, its log and answers.
struct Probe {
    _tmp: tempfile::TempDir,
    paths: Paths,
    log: PathBuf,
    answers: PathBuf,
    hook: PathBuf,
}

impl Probe {
    fn new(answers: &Value) -> Probe {
        let tmp = tempfile::tempdir().unwrap();
        let paths = Paths::under(&tmp.path().join("session"));
        std::fs::create_dir_all(paths.home.join(".qwen")).unwrap();
        std::fs::create_dir_all(&paths.project).unwrap();
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&paths.project)
            .status()
            .unwrap();
        assert!(git.success());
        let hook = paths.work.join("hook.py");
        std::fs::write(&hook, HOOK).unwrap();
        let answers_path = paths.work.join("answers.json");
        std::fs::write(&answers_path, answers.to_string()).unwrap();
        Probe {
            log: paths.work.join("hook-log.jsonl"),
            answers: answers_path,
            hook,
            paths,
            _tmp: tmp,
        }
    }

    /// The hook's command for `event`.
    fn hook_command(&self, event: &str) -> String {
        format!(
            "python3 {} {event} {} {}",
            self.hook.display(),
            self.log.display(),
            self.answers.display()
        )
    }

    /// `~/.qwen/settings.json` with the probe hook on PreToolUse, PostToolUse and
    /// PostToolUseFailure of the shell tool.
    fn write_probe_settings(&self) {
        let group = |event: &str| json!([{"matcher": TOOL, "hooks": [{"type": "command", "command": self.hook_command(event)}]}]);
        let settings = json!({"hooks": {
            "PreToolUse": group("PreToolUse"),
            "PostToolUse": group("PostToolUse"),
            "PostToolUseFailure": group("PostToolUseFailure"),
        }});
        std::fs::write(self.settings(), settings.to_string()).unwrap();
    }

    fn settings(&self) -> PathBuf {
        self.paths.home.join(".qwen/settings.json")
    }

    /// `(event, command)` of every hook call so far.
    fn fired(&self) -> Vec<(String, String)> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (
                    v["event"].as_str().unwrap().to_string(),
                    v["command"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    fn count(&self, event: &str, command: &str) -> usize {
        self.fired()
            .iter()
            .filter(|(e, c)| e == event && c == command)
            .count()
    }

    /// The hook got `event` for `command` exactly `times` times.
    fn assert_fired(&self, event: &str, command: &str, times: usize) {
        assert_eq!(
            self.count(event, command),
            times,
            "{event} for {command}: {:?}",
            self.fired()
        );
    }

    /// One `qwen -p` session running `commands` (`-o stream-json` when `stream_json`).
    fn run(&self, agent: &Agent, commands: &[&str], stream_json: bool) -> Outcome {
        let calls = commands
            .iter()
            .enumerate()
            .map(|(i, c)| json!({"command": c, "description": format!("probe {i}")}))
            .collect::<Vec<_>>();
        let outcome = support::run(
            &spec(agent, &self.paths, calls, stream_json),
            &self.paths.work,
        );
        assert_eq!(
            outcome.results.len(),
            commands.len(),
            "{} of {} tool results came back; exit {:?}, timed out {}; stderr: {}\nstdout: {}",
            outcome.results.len(),
            commands.len(),
            outcome.exit,
            outcome.timed_out,
            outcome.stderr,
            outcome.stdout.chars().take(3000).collect::<String>()
        );
        assert_eq!(outcome.exit, Some(0), "stderr: {}", outcome.stderr);
        outcome
    }
}

fn spec(agent: &Agent, p: &Paths, calls: Vec<Value>, stream_json: bool) -> Spec {
    // the pinned Node.js 22 is in the same .bin folder, first on PATH
    let bin = agent.dir.join("node_modules/.bin");
    let mut argv = vec![
        bin.join("qwen").display().to_string(),
        "--auth-type".into(),
        "openai".into(),
        "--yolo".into(),
    ];
    if stream_json {
        argv.extend(["-o".into(), "stream-json".into()]);
    }
    argv.extend(["-p".into(), "run the commands".into()]);
    Spec {
        wire: Wire::OpenAiChat,
        tool: TOOL.into(),
        calls,
        final_text: "done".into(),
        model: "fake-model".into(),
        argv,
        env: support::agent_env(
            p,
            &bin,
            &[
                ("OPENAI_BASE_URL", "http://127.0.0.1:{PORT}/v1"),
                ("OPENAI_API_KEY", "e2e-fake"),
                ("OPENAI_MODEL", "fake-model"),
                ("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1"),
            ],
        ),
        cwd: p.project.clone(),
        timeout: support::timeout(),
        files: Vec::new(),
        stdin: None,
    }
}

/// Qwen's envelope of a command's result, as the model reads it.
fn envelope(command: &str, output: &str, exit: i32) -> String {
    format!(
        "Command: {command}\nDirectory: (root)\nOutput: {output}\nError: (none)\nExit Code: {exit}\n"
    )
}

#[test]
fn qwen_code_ignores_pre_tool_use_rewrites() {
    let Some(agent) = support::agent_or_skip("qwen-code") else {
        return;
    };
    // the pinned CLI starts, with the Node.js installed beside it
    let bin = agent.dir.join("node_modules/.bin");
    let version = Command::new(bin.join("qwen"))
        .arg("--version")
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        agent.version,
        "{}",
        String::from_utf8_lossy(&version.stderr)
    );
    // each rewrite would leave a file behind and print something else
    let rewrite = |n: u32| json!({"command": format!("echo rewritten-{n} > rewritten-{n}.txt; echo rewritten-{n}")});
    let commands = [
        "echo original-1; sleep 0.2",
        "echo original-2; sleep 0.2",
        "echo original-3; sleep 0.2",
    ];
    let answers = json!({
        format!("PreToolUse {}", commands[0]): {"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "updatedInput": rewrite(1)}},
        format!("PreToolUse {}", commands[1]): {"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "allow",
            "updatedInput": rewrite(2)}},
        format!("PreToolUse {}", commands[2]): {"decision": "approve", "hookSpecificOutput": {
            "hookEventName": "PreToolUse", "tool_input": rewrite(3)}},
    });
    let probe = Probe::new(&answers);
    probe.write_probe_settings();
    let o = probe.run(&agent, &commands, false);
    for (i, command) in commands.iter().enumerate() {
        let n = i + 1;
        let text = &o.results[i].text;
        eprintln!("qwen-code PreToolUse rewrite {n}: the model read {text:?}");
        probe.assert_fired("PreToolUse", command, 1);
        // the tool ran the command the model asked for, not the rewrite
        probe.assert_fired("PostToolUse", command, 1);
        assert!(
            text.starts_with(&envelope(command, &format!("original-{n}"), 0)),
            "rewrite {n}: {text}"
        );
        assert!(!text.contains("rewritten"), "rewrite {n}: {text}");
        assert!(
            !probe
                .paths
                .project
                .join(format!("rewritten-{n}.txt"))
                .exists(),
            "rewrite {n} ran"
        );
    }
}

#[test]
fn qwen_code_replaces_a_result_only_by_stopping_the_tool() {
    let Some(agent) = support::agent_or_skip("qwen-code") else {
        return;
    };
    let stop = |text: &str| json!({"continue": false, "stopReason": text});
    let stopped = "echo original-6 | tee ran-6.txt; sleep 0.2";
    let failing = "echo fails-8; sleep 0.2; exit 3";
    let commands = [
        "echo original-4; sleep 0.2",
        "echo original-5; sleep 0.2",
        stopped,
        "echo original-7; sleep 0.2",
        failing,
    ];
    let answers = json!({
        format!("PostToolUse {}", commands[0]): {"hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": {"stdout": "replaced-4", "stderr": "", "interrupted": false},
            "updatedMCPToolOutput": "replaced-4"}},
        format!("PostToolUse {}", commands[1]): {"decision": "block", "reason": "replaced-5"},
        format!("PostToolUse {stopped}"): stop("replaced-6"),
        format!("PostToolUse {}", commands[3]): {"hookSpecificOutput": {
            "hookEventName": "PostToolUse", "additionalContext": "context-7"}},
        format!("PostToolUse {failing}"): stop("replaced-8"),
        format!("PostToolUseFailure {failing}"): stop("replaced-8"),
    });

    // with Qwen's record of the session on stdout (-o stream-json)
    let probe = Probe::new(&answers);
    probe.write_probe_settings();
    let o = probe.run(&agent, &commands, true);
    let texts: Vec<&str> = o.results.iter().map(|r| r.text.as_str()).collect();
    eprintln!("qwen-code PostToolUse answers: the model read {texts:#?}");
    for command in &commands[..4] {
        probe.assert_fired("PostToolUse", command, 1);
    }
    // a failing command: only PostToolUseFailure fires
    probe.assert_fired("PostToolUseFailure", failing, 1);
    probe.assert_fired("PostToolUse", failing, 0);
    // updatedToolOutput and decision: block leave the result as it was
    assert!(
        texts[0].starts_with(&envelope(commands[0], "original-4", 0)),
        "{}",
        texts[0]
    );
    assert!(!texts[0].contains("replaced"), "{}", texts[0]);
    assert!(
        texts[1].starts_with(&envelope(commands[1], "original-5", 0)),
        "{}",
        texts[1]
    );
    assert!(!texts[1].contains("replaced"), "{}", texts[1]);
    // continue: false: the stop reason is all the model reads (not even Qwen's envelope),
    // although the command did run
    assert_eq!(texts[2], "replaced-6");
    assert_eq!(
        std::fs::read_to_string(probe.paths.project.join("ran-6.txt")).unwrap(),
        "original-6\n",
        "the stopped command did not run"
    );
    // additionalContext is appended
    assert!(
        texts[3].starts_with(&envelope(commands[3], "original-7", 0))
            && texts[3].ends_with("\n\ncontext-7"),
        "{}",
        texts[3]
    );
    // PostToolUseFailure's continue: false is ignored
    assert!(
        texts[4].starts_with(&envelope(failing, "fails-8", 3)),
        "{}",
        texts[4]
    );
    assert!(!texts[4].contains("replaced"), "{}", texts[4]);
    // Qwen's own record: the stopped call is an error result and a permission denial (the
    // failing command is an error result as any failing command is)
    let events: Vec<Value> = o
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let is_error = |id: &str| -> Option<bool> {
        events
            .iter()
            .filter(|e| e["type"] == "user")
            .flat_map(|e| {
                e["message"]["content"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .find(|c| c["type"] == "tool_result" && c["tool_use_id"] == id)
            .and_then(|c| c["is_error"].as_bool())
    };
    let flags: Vec<Option<bool>> = (0..commands.len())
        .map(|i| is_error(&format!("{}{i}", tokenjuice_e2e::session::CALL_PREFIX)))
        .collect();
    assert_eq!(
        flags,
        [
            Some(false),
            Some(false),
            Some(true),
            Some(false),
            Some(true)
        ],
        "is_error of each tool result in Qwen's stream-json record"
    );
    let result = events
        .iter()
        .find(|e| e["type"] == "result")
        .unwrap_or_else(|| panic!("no result event: {}", o.stdout));
    let denied: Vec<&Value> = result["permission_denials"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| &d["tool_input"]["command"])
        .collect();
    assert_eq!(denied, [&json!(stopped)], "{result}");

    // in text mode Qwen warns that the command was not run
    let probe = Probe::new(&answers);
    probe.write_probe_settings();
    let o = probe.run(&agent, &[commands[0], stopped], false);
    probe.assert_fired("PostToolUse", stopped, 1);
    assert_eq!(o.results[1].text, "replaced-6");
    assert!(probe.paths.project.join("ran-6.txt").exists());
    let warning = format!("Warning: Tool \"{TOOL}\" was not run: replaced-6");
    assert!(o.stderr.contains(&warning), "stderr: {}", o.stderr);
    assert_eq!(
        o.stderr.matches("was not run").count(),
        1,
        "stderr: {}",
        o.stderr
    );
}

/// A user's own settings: a hook of theirs (the probe, answering nothing) and other settings,
/// in their own formatting.
fn user_settings(probe: &Probe) -> String {
    format!(
        r#"{{
    "ui": {{ "hideTips": true }},
    "privacy": {{ "usageStatisticsEnabled": false }},
    "hooks": {{
        "PreToolUse": [
            {{
                "matcher": "{TOOL}",
                "hooks": [ {{ "type": "command", "command": "{}" }} ]
            }}
        ]
    }}
}}
"#,
        probe.hook_command("PreToolUse")
    )
}

fn tokenjuice(home: &Path, cwd: &Path, args: &[&str]) -> std::process::Output {
    Command::new(support::tokenjuice())
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .current_dir(cwd)
        .output()
        .unwrap()
}

#[test]
fn tokenjuice_refuses_qwen_code_and_changes_nothing() {
    let Some(agent) = support::agent_or_skip("qwen-code") else {
        return;
    };
    let command = "seq 1 400; sleep 0.2";
    let raw: String = (1..=400).map(|i| format!("{i}\n")).collect();
    let expected = envelope(command, raw.trim_end(), 0);

    // before: the user's settings, no tokenjuice
    let before = Probe::new(&json!({}));
    std::fs::write(before.settings(), user_settings(&before)).unwrap();
    let o_before = before.run(&agent, &[command], false);

    // after: the same settings, then every way to install
    let after = Probe::new(&json!({}));
    let text = user_settings(&after);
    std::fs::write(after.settings(), &text).unwrap();
    for args in [
        &["install", "qwen-code"][..],
        &["install", "qwen-code", "--local"],
    ] {
        let out = tokenjuice(&after.paths.home, &after.paths.project, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        eprintln!("tokenjuice {args:?}: {:?}; {stderr}", out.status.code());
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("does not install into qwen-code") && stderr.contains("not run"),
            "{args:?}: the reason: {stderr}"
        );
        assert_eq!(
            std::fs::read(after.settings()).unwrap(),
            text.as_bytes(),
            "{args:?} changed settings.json"
        );
        let names: Vec<String> = std::fs::read_dir(after.paths.home.join(".qwen"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["settings.json"], "{args:?} wrote beside it");
    }
    let out = tokenjuice(
        &after.paths.home,
        &after.paths.project,
        &["doctor", "qwen-code"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!(
        "tokenjuice doctor qwen-code: {:?}\n{stdout}",
        out.status.code()
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("qwen-code (not supported)") && stdout.contains("health: disabled"),
        "{stdout}"
    );
    assert_eq!(std::fs::read(after.settings()).unwrap(), text.as_bytes());
    let o_after = after.run(&agent, &[command], false);

    // the user's hook fired as before, and the model read the whole output both times
    for (label, probe, o) in [("before", &before, &o_before), ("after", &after, &o_after)] {
        assert_eq!(
            probe.fired(),
            [("PreToolUse".to_string(), command.to_string())],
            "{label}"
        );
        assert!(
            o.results[0].text.starts_with(&expected),
            "{label}: {}",
            o.results[0].text
        );
    }
    assert_eq!(o_after.results[0].text, o_before.results[0].text);
}
