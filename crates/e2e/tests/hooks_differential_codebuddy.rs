//! The hooks toolkit's `codebuddy-cli` dialect against the real CodeBuddy Code CLI, same
//! settings, same call: the shell tool's name in the payload, and which rewrite field the CLI
//! applies (`updatedInput`, without a permission decision) or ignores (`modifiedInput`, the
//! CodeBuddy IDE's field, even with `allow`), and which answers stop the tool (exit 2, a
//! `deny`; not exit 1). `tokenjuice hooks run --host codebuddy-cli` must say what the CLI
//! does.

mod support;

use std::path::Path;

use serde_json::{json, Value};
use support::{Spec, Wire};

/// A hook that saves its stdin to `payload` and prints `answer`.
fn hooks(payload: &Path, answer: &str) -> Value {
    json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
        "command": format!("cat > {}; printf '%s' '{answer}'", payload.display())}]}]})
}

fn cli_session(agent: &support::Agent, work: &Path, hooks: Value, command: &str) -> String {
    cli_session_in(agent, work, &work.join("project"), Some(hooks), command)
}

/// A `codebuddy -p -y` session under `work` (its home `work/home`), started in `cwd`, whose
/// model runs `command` once; the user's settings allow `echo` and hold `hooks`, if any.
/// The tool result.
fn cli_session_in(
    agent: &support::Agent,
    work: &Path,
    cwd: &Path,
    hooks: Option<Value>,
    command: &str,
) -> String {
    let home = work.join("home");
    std::fs::create_dir_all(home.join(".codebuddy")).unwrap();
    std::fs::create_dir_all(cwd).unwrap();
    let mut settings = json!({"permissions": {"allow": ["Bash(echo:*)"]}});
    if let Some(h) = hooks {
        settings["hooks"] = h;
    }
    std::fs::write(home.join(".codebuddy/settings.json"), settings.to_string()).unwrap();
    let cli = support::codebuddy_cli(agent);
    let bin = agent.dir.join("node_modules/.bin");
    let spec = Spec {
        wire: Wire::OpenAiChat,
        tool: "Bash".into(),
        calls: vec![json!({"command": command, "description": "probe"})],
        final_text: "done".into(),
        model: "fake-model".into(),
        argv: vec![
            "node".into(),
            cli.display().to_string(),
            "-p".into(),
            "go".into(),
            "-y".into(),
        ],
        env: [
            ("HOME".to_string(), home.display().to_string()),
            ("TMPDIR".to_string(), support::session_tmp(work)),
            (
                "PATH".to_string(),
                format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
            ),
            ("TERM".to_string(), "dumb".to_string()),
        ]
        .into_iter()
        .chain(
            support::CODEBUDDY_ENV
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        )
        .collect(),
        cwd: cwd.to_path_buf(),
        timeout: support::timeout(),
        files: Vec::new(),
        stdin: None,
    };
    let o = support::run(&spec, work);
    o.results
        .first()
        .map(|r| r.text.clone())
        .unwrap_or_else(|| panic!("no tool result from CodeBuddy: {o:?}"))
}

/// Which project settings files the real CodeBuddy Code CLI reads hooks from, and from
/// which folder: the toolkit, run in the same folder, must run the same hooks.
#[test]
fn the_hooks_toolkit_reads_the_project_settings_the_real_codebuddy_cli_reads() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // (name, (the settings file in the project, where the session starts below it))
    let cases = vec![
        ("settings.json in the project folder", ("settings.json", "")),
        (
            "settings.local.json in the project folder",
            ("settings.local.json", ""),
        ),
        (
            "settings.json, below in a repository",
            ("settings.json", "src/deep"),
        ),
    ];
    support::each_case("the CodeBuddy CLI", cases, |name, (file, below)| {
        let work = tmp.path().join(name.replace([' ', ','], "-"));
        let project = work.join("project");
        let cwd = project.join(below);
        let marker = support::project_hook(
            &project,
            ".codebuddy",
            file,
            "PreToolUse",
            "Bash",
            true,
            &work,
        );
        let result = cli_session_in(&agent, &work, &cwd, None, "echo ran");
        assert!(result.contains("ran"), "{name}: {result}");
        let cli_ran = marker.exists();
        let (toolkit_ran, v) = support::toolkit_ran_in(
            "codebuddy-cli",
            "PreToolUse",
            "Bash",
            &work.join("home"),
            &cwd,
            &[],
        );
        eprintln!("{name}: the CLI ran the project's hook: {cli_ran}; the toolkit: {toolkit_ran}");
        assert_eq!(toolkit_ran, cli_ran, "{name}: the toolkit: {v}");
    });
}

fn toolkit(work: &Path, hooks: Value, command: &str) -> Value {
    support::toolkit_pre_tool_use(work, "codebuddy-cli", ".codebuddy", hooks, command)
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap_or_default())
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_hooks_toolkit_decides_as_the_real_codebuddy_cli_does() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let nested = |field: &str, allow: bool, c: &str| {
        let decision = if allow {
            "\"permissionDecision\":\"allow\","
        } else {
            ""
        };
        format!("{{\"hookSpecificOutput\":{{\"hookEventName\":\"PreToolUse\",{decision}\"{field}\":{{\"command\":\"{c}\"}}}}}}")
    };

    // 1. updatedInput without a permission decision: the CLI runs the rewritten command
    let work = tmp.path().join("updated");
    std::fs::create_dir_all(&work).unwrap();
    let cli_payload = work.join("cli-payload.json");
    let tk_payload = work.join("toolkit-payload.json");
    let answer = nested("updatedInput", false, "echo via-updated");
    let ran = cli_session(&agent, &work, hooks(&cli_payload, &answer), "echo original");
    let v = toolkit(&work, hooks(&tk_payload, &answer), "echo original");
    assert!(
        ran.contains("Stdout: via-updated"),
        "the CLI's result: {ran}"
    );
    assert_eq!(
        v["updatedInput"]["command"], "echo via-updated",
        "the toolkit: {v}"
    );
    // the payload names the shell tool as the CLI does
    let (cli, tk) = (read_json(&cli_payload), read_json(&tk_payload));
    assert_eq!(cli["tool_name"], "Bash", "{cli}");
    assert_eq!(
        tk["tool_name"], cli["tool_name"],
        "toolkit {tk} vs CLI {cli}"
    );
    assert_eq!(
        tk["tool_input"], cli["tool_input"],
        "toolkit {tk} vs CLI {cli}"
    );
    assert_eq!(tk["hook_event_name"], cli["hook_event_name"]);

    // 2. modifiedInput (the IDE's field), even with allow: the CLI runs the original command
    let work = tmp.path().join("modified");
    std::fs::create_dir_all(&work).unwrap();
    let answer = nested("modifiedInput", true, "echo via-modified");
    let ran = cli_session(
        &agent,
        &work,
        hooks(&work.join("cli-payload.json"), &answer),
        "echo original",
    );
    let v = toolkit(
        &work,
        hooks(&work.join("toolkit-payload.json"), &answer),
        "echo original",
    );
    assert!(ran.contains("Stdout: original"), "the CLI's result: {ran}");
    assert_eq!(v["updatedInput"], Value::Null, "the toolkit: {v}");
    assert!(
        v["warnings"].to_string().contains("modifiedInput"),
        "the toolkit says the field was ignored: {v}"
    );

    // 3. blocking answers: whether the tool ran in the CLI, whether the toolkit says it is
    // blocked, and the reason the model reads
    let deny = "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"not-this-one\"}}";
    let cases: Vec<(&str, String, Option<&str>)> = vec![
        (
            "exit 2",
            "cat >/dev/null; echo not-this-one >&2; exit 2".into(),
            Some("not-this-one"),
        ),
        (
            "exit 1",
            "cat >/dev/null; echo a-warning >&2; exit 1".into(),
            None,
        ),
        (
            "deny",
            format!("cat >/dev/null; printf '%s' '{deny}'"),
            Some("not-this-one"),
        ),
    ];
    for (name, hook, blocked_because) in cases {
        let work = tmp.path().join(name.replace(' ', "-"));
        std::fs::create_dir_all(&work).unwrap();
        let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]}]});
        let marker = work.join("ran.txt");
        let cmd = format!("touch {}", marker.display());
        let result = cli_session(&agent, &work, hooks.clone(), &cmd);
        let v = toolkit(&work, hooks, &cmd);
        support::assert_same_decision(
            name,
            "the CLI",
            marker.exists(),
            &result,
            &v,
            blocked_because,
        );
    }
}

/// Two PreToolUse hooks that both rewrite the command (`updatedInput`), one slower, in
/// either order in the file: which rewrite the CLI runs, and which the toolkit says.
#[test]
fn the_hooks_toolkit_picks_the_rewrite_the_real_codebuddy_cli_runs() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let answer = |c: &str| {
        format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","updatedInput":{{"command":"{c}"}}}}}}"#
        )
    };
    let slow = json!({"type": "command", "command": format!("cat >/dev/null; sleep 0.5; printf '%s' '{}'", answer("echo slow"))});
    let fast = json!({"type": "command", "command": format!("cat >/dev/null; printf '%s' '{}'", answer("echo fast"))});
    let cases = vec![
        ("slow first", vec![slow.clone(), fast.clone()]),
        ("fast first", vec![fast, slow]),
    ];
    support::each_case("the CodeBuddy CLI", cases, |name, handlers| {
        let work = tmp.path().join(name.replace(' ', "-"));
        let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hooks": handlers}]});
        let result = cli_session(&agent, &work, hooks.clone(), "echo original");
        let v = toolkit(&work, hooks, "echo original");
        let cli_ran = ["slow", "fast", "original"]
            .into_iter()
            .find(|w| result.contains(w))
            .unwrap_or_else(|| panic!("{name}: which command ran in the CLI? {result:?}"));
        eprintln!(
            "{name}: the CLI ran `echo {cli_ran}`; the toolkit: {}",
            v["updatedInput"]
        );
        assert_eq!(
            v["updatedInput"]["command"],
            format!("echo {cli_ran}"),
            "{name}: the toolkit: {}",
            v["warnings"]
        );
    });
}

/// A PreToolUse hook that would block after 3 s, with `timeout: 1` (seconds): the CLI ends
/// it at its timeout and does not run the tool (unlike Claude Code, Codex and Gemini), the
/// model reading `Error: Hook timed out after 1000ms`; the toolkit must say the same.
#[test]
fn a_hook_past_its_timeout_decides_as_in_the_real_codebuddy_cli() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("timeout");
    let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "timeout": 1,
        "command": "cat >/dev/null; sleep 3; echo not-this-one >&2; exit 2"}]}]});
    let result = cli_session(&agent, &work, hooks.clone(), "echo ran");
    let v = toolkit(&work, hooks, "echo ran");
    assert_eq!(v["hooks"][0]["timedOut"], true, "the toolkit: {v}");
    let ran = result.lines().any(|l| l.trim() == "ran");
    support::assert_same_decision(
        "timeout",
        "the CLI",
        ran,
        &result,
        &v,
        Some("Hook timed out after 1000ms"),
    );
}

/// What a PreToolUse hook gets from the CodeBuddy CLI: the payload's fields and the
/// variables the CLI sets for it. The toolkit must give a hook the same.
#[test]
fn a_hook_gets_the_payload_and_variables_the_real_codebuddy_cli_gives() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for event in ["PreToolUse", "PostToolUse"] {
        let work = tmp.path().join(event);
        let host_dir = work.join("host");
        let _ = cli_session(
            &agent,
            &work,
            support::probe_hooks(event, "Bash", &host_dir),
            "echo ran",
        );
        let tk_dir = work.join("toolkit");
        let _ = support::toolkit_run(
            &work,
            "codebuddy-cli",
            ".codebuddy",
            support::probe_hooks(event, "Bash", &tk_dir),
            "echo ran",
            event,
            "Bash",
        );
        support::assert_same_probe(
            &format!("the CodeBuddy CLI ({event})"),
            &host_dir,
            &tk_dir,
            &["CODEBUDDY_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
        );
    }
}

/// What a hook of the events around the turn gets from the CodeBuddy CLI (SessionStart,
/// UserPromptSubmit, Stop). The toolkit must give a hook the same.
#[test]
fn the_session_events_payloads_are_those_of_the_real_codebuddy_cli() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("events");
    let events = ["SessionStart", "UserPromptSubmit", "Stop"];
    let host_dir = work.join("host");
    let _ = cli_session(
        &agent,
        &work,
        support::probe_event_hooks(&events, &host_dir),
        "echo ran",
    );
    let tk_dir = work.join("toolkit");
    support::assert_same_event_probes(
        "the CodeBuddy CLI",
        &events,
        "UserPromptSubmit",
        &host_dir,
        &tk_dir,
        &["CODEBUDDY_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
        |event, args| {
            support::toolkit_event(
                &work,
                "codebuddy-cli",
                ".codebuddy",
                support::probe_event_hooks(&[event], &tk_dir),
                event,
                args,
            )
        },
    );
}
