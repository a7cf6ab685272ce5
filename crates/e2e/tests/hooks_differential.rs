//! The hooks toolkit against the real Claude Code, same settings, same call: where the two
//! could differ (a PreToolUse `continue: false`; two hooks that both rewrite the input),
//! `tokenjuice hooks run --host claude` must say what Claude does.

mod support;

use serde_json::{json, Value};
use support::{Spec, Wire};

fn claude_session(
    agent: &support::Agent,
    work: &std::path::Path,
    hooks: Value,
    command: &str,
) -> support::Outcome {
    let project = work.join("project");
    claude_session_in(agent, work, &project, Some(hooks), command)
}

/// A `claude -p` session under `work` (its home `work/home`), started in `cwd`, whose model
/// runs `command` once; the user's settings allow Bash and hold `hooks`, if any.
fn claude_session_in(
    agent: &support::Agent,
    work: &std::path::Path,
    cwd: &std::path::Path,
    hooks: Option<Value>,
    command: &str,
) -> support::Outcome {
    let mut settings = json!({"permissions": {"allow": ["Bash(*)"]}});
    if let Some(h) = hooks {
        settings["hooks"] = h;
    }
    claude_session_with(agent, work, cwd, settings, command)
}

/// [`claude_session_in`] with these user settings.
fn claude_session_with(
    agent: &support::Agent,
    work: &std::path::Path,
    cwd: &std::path::Path,
    settings: Value,
    command: &str,
) -> support::Outcome {
    let calls = vec![json!({"command": command, "description": "probe"})];
    claude_prompt_session(agent, work, cwd, settings, "go", calls)
}

/// `claude -p <prompt>` under `work` (its home `work/home`, these user settings), started in
/// `cwd`, whose model makes these Bash calls, then answers.
fn claude_prompt_session(
    agent: &support::Agent,
    work: &std::path::Path,
    cwd: &std::path::Path,
    settings: Value,
    prompt: &str,
    calls: Vec<Value>,
) -> support::Outcome {
    let home = work.join("home");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(cwd).unwrap();
    std::fs::write(home.join(".claude/settings.json"), settings.to_string()).unwrap();
    let bin = agent.dir.join("node_modules/.bin");
    let spec = Spec {
        wire: Wire::Anthropic,
        tool: "Bash".into(),
        calls,
        final_text: "done".into(),
        model: "claude-sonnet-4-5".into(),
        argv: vec![
            bin.join("claude").display().to_string(),
            "-p".into(),
            prompt.into(),
            "--output-format".into(),
            "stream-json".into(),
            "--verbose".into(),
        ],
        env: vec![
            ("HOME".into(), home.display().to_string()),
            ("TMPDIR".into(), support::session_tmp(work)),
            (
                "PATH".into(),
                format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
            ),
            (
                "ANTHROPIC_BASE_URL".into(),
                "http://127.0.0.1:{PORT}".into(),
            ),
            ("ANTHROPIC_API_KEY".into(), "sk-e2e-fake".into()),
            ("TERM".into(), "dumb".into()),
        ],
        cwd: cwd.to_path_buf(),
        timeout: support::timeout(),
        files: Vec::new(),
        stdin: None,
    };
    support::run(&spec, work)
}

/// Which project's settings Claude Code reads when it starts in a folder below the one that
/// holds `.claude/settings.json`: the toolkit, run there, must run the same hooks.
#[test]
fn the_hooks_toolkit_reads_the_project_settings_the_real_claude_code_reads() {
    let Some(agent) = support::agent_or_skip("claude-code") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // (name, (`git init` in the folder with the settings, where the session starts below
    // it, the settings file))
    let cases = vec![
        ("in the project folder", (true, "", "settings.json")),
        ("settings.local.json", (true, "", "settings.local.json")),
        (
            "below, in a repository",
            (true, "src/deep", "settings.json"),
        ),
        ("below, no repository", (false, "src/deep", "settings.json")),
    ];
    support::each_case("Claude Code", cases, |name, (git, below, file)| {
        let work = tmp.path().join(name.replace([' ', ','], "-"));
        let project = work.join("project");
        let cwd = project.join(below);
        let marker =
            support::project_hook(&project, ".claude", file, "PreToolUse", "Bash", git, &work);
        let o = claude_session_in(&agent, &work, &cwd, None, "echo ran");
        let result = o.results.first().map(|r| r.text.clone());
        assert!(
            result.as_deref().is_some_and(|t| t.contains("ran")),
            "{name}: the command did not run in Claude: {result:?}, exit {:?}, stderr {}",
            o.exit,
            o.stderr
        );
        let claude_ran = marker.exists();
        let (toolkit_ran, v) = support::toolkit_ran_in(
            "claude",
            "PreToolUse",
            "Bash",
            &work.join("home"),
            &cwd,
            &[],
        );
        eprintln!(
            "{name}: Claude ran the project's hook: {claude_ran}; the toolkit: {toolkit_ran}"
        );
        assert_eq!(toolkit_ran, claude_ran, "{name}: the toolkit: {v}");
    });
}

fn toolkit(work: &std::path::Path, hooks: Value, command: &str) -> Value {
    support::toolkit_pre_tool_use(work, "claude", ".claude", hooks, command)
}

#[test]
fn the_hooks_toolkit_decides_as_the_real_claude_code_does() {
    let Some(agent) = support::agent_or_skip("claude-code") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();

    // 1. continue:false on PreToolUse: Claude runs the tool, then ends the session
    let work = tmp.path().join("stop");
    std::fs::create_dir_all(&work).unwrap();
    let stop = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
        "command": "cat >/dev/null; printf '%s' '{\"continue\":false,\"stopReason\":\"enough\"}'"}]}]});
    let marker = work.join("ran.txt");
    let cmd = format!("touch {}", marker.display());
    let _ = claude_session(&agent, &work, stop.clone(), &cmd);
    let v = toolkit(&work, stop, &cmd);
    assert!(
        marker.exists(),
        "Claude did not run the tool after continue:false"
    );
    assert_eq!(
        v["blocked"], false,
        "the toolkit blocks where Claude runs the tool: {v}"
    );
    assert_eq!(v["continue"], false, "{v}");

    // 2. two rewriting hooks: the one that finishes last wins, whole
    let work = tmp.path().join("rewrite");
    std::fs::create_dir_all(&work).unwrap();
    let answer = |c: &str| {
        format!("{{\"hookSpecificOutput\":{{\"hookEventName\":\"PreToolUse\",\"updatedInput\":{{\"command\":\"{c}\"}}}}}}")
    };
    let rewrites = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("cat >/dev/null; sleep 0.5; printf '%s' '{}'", answer("echo slow"))},
        {"type": "command", "command": format!("cat >/dev/null; printf '%s' '{}'", answer("echo fast"))},
    ]}]});
    let o = claude_session(&agent, &work, rewrites.clone(), "echo original");
    let v = toolkit(&work, rewrites, "echo original");
    let claude_ran = o
        .results
        .first()
        .map(|r| r.text.trim().to_string())
        .unwrap_or_default();
    assert_eq!(claude_ran, "slow", "Claude's result: {o:?}");
    assert_eq!(
        v["updatedInput"]["command"], "echo slow",
        "the toolkit: {v}"
    );

    // 3. the usual answers of a PreToolUse hook: whether the tool ran in Claude, whether the
    // toolkit says it is blocked, and the reason the model reads
    let deny = "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"not-this-one\"}}";
    let legacy_block = "{\"decision\":\"block\",\"reason\":\"not-this-one\"}";
    let cases: Vec<(&str, &str, String, Option<&str>)> = vec![
        // (name, matcher, hook command, reason the model reads when blocked; None: runs)
        (
            "exit 2",
            "Bash",
            "cat >/dev/null; echo not-this-one >&2; exit 2".into(),
            Some("not-this-one"),
        ),
        (
            "exit 1",
            "Bash",
            "cat >/dev/null; echo a-warning >&2; exit 1".into(),
            None,
        ),
        (
            "deny",
            "Bash",
            format!("cat >/dev/null; printf '%s' '{deny}'"),
            Some("not-this-one"),
        ),
        (
            "legacy block",
            "Bash",
            format!("cat >/dev/null; printf '%s' '{legacy_block}'"),
            Some("not-this-one"),
        ),
        ("other tool", "Write", "cat >/dev/null; exit 2".into(), None),
        (
            "alternatives",
            "Edit|Bash",
            "cat >/dev/null; echo not-this-one >&2; exit 2".into(),
            Some("not-this-one"),
        ),
    ];
    for (name, matcher, hook, blocked_because) in cases {
        let work = tmp.path().join(name.replace(' ', "-"));
        std::fs::create_dir_all(&work).unwrap();
        let hooks = json!({"PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": hook}]}]});
        let marker = work.join("ran.txt");
        let cmd = format!("touch {}", marker.display());
        let o = claude_session(&agent, &work, hooks.clone(), &cmd);
        let v = toolkit(&work, hooks, &cmd);
        let result = o
            .results
            .first()
            .map(|r| r.text.clone())
            .unwrap_or_default();
        support::assert_same_decision(
            name,
            "Claude",
            marker.exists(),
            &result,
            &v,
            blocked_because,
        );
    }

    // 4. PostToolUse: what of the hook's answer the model reads after the tool ran (in
    // Claude, anywhere in its next request; in the toolkit, its feedback, added context or
    // reason)
    let cases: Vec<(&str, String, bool)> = vec![
        ("post exit 2", "echo marker-text >&2; exit 2".into(), true),
        ("post exit 1", "echo marker-text >&2; exit 1".into(), false),
        (
            "post block",
            "printf '%s' '{\"decision\":\"block\",\"reason\":\"marker-text\"}'".into(),
            true,
        ),
        (
            "post context",
            "printf '%s' '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"marker-text\"}}'".into(),
            true,
        ),
    ];
    for (name, answer, model_reads) in cases {
        let work = tmp.path().join(name.replace(' ', "-"));
        std::fs::create_dir_all(&work).unwrap();
        let hooks = json!({"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": format!("cat >/dev/null; {answer}")}]}]});
        let o = claude_session(&agent, &work, hooks.clone(), "echo ran");
        let v = support::toolkit_run(
            &work,
            "claude",
            ".claude",
            hooks,
            "echo ran",
            "PostToolUse",
            "Bash",
        );
        let last = o
            .requests
            .last()
            .map(|(_, body)| body.clone())
            .unwrap_or_default();
        assert_eq!(
            last.to_string().contains("marker-text"),
            model_reads,
            "{name}: the last message of Claude's last request: {}",
            last["messages"]
                .as_array()
                .and_then(|m| m.last())
                .unwrap_or(&Value::Null)
        );
        let toolkit_says = [&v["feedback"], &v["additionalContext"], &v["reason"]]
            .iter()
            .any(|x| x.to_string().contains("marker-text"));
        assert_eq!(toolkit_says, model_reads, "{name}: the toolkit: {v}");
    }
}

/// A PreToolUse hook that would block after 3 s, with `timeout: 1` (seconds): Claude Code
/// ends it at its timeout and runs the tool, and the toolkit must say so.
#[test]
fn a_hook_past_its_timeout_decides_as_in_the_real_claude_code() {
    let Some(agent) = support::agent_or_skip("claude-code") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("timeout");
    std::fs::create_dir_all(&work).unwrap();
    let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "timeout": 1,
        "command": "cat >/dev/null; sleep 3; echo not-this-one >&2; exit 2"}]}]});
    let marker = work.join("ran.txt");
    let cmd = format!("touch {}", marker.display());
    let o = claude_session(&agent, &work, hooks.clone(), &cmd);
    let v = toolkit(&work, hooks, &cmd);
    let result = o
        .results
        .first()
        .map(|r| r.text.clone())
        .unwrap_or_default();
    assert_eq!(v["hooks"][0]["timedOut"], true, "the toolkit: {v}");
    support::assert_same_decision("timeout", "Claude", marker.exists(), &result, &v, None);
}

/// What a PreToolUse hook gets from Claude Code: the payload's fields and the variables
/// Claude sets for it. The toolkit must give a hook the same.
#[test]
fn a_hook_gets_the_payload_and_variables_the_real_claude_code_gives() {
    let Some(agent) = support::agent_or_skip("claude-code") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for event in ["PreToolUse", "PostToolUse"] {
        let work = tmp.path().join(event);
        std::fs::create_dir_all(&work).unwrap();
        let hooks = |dir: &std::path::Path| support::probe_hooks(event, "Bash", dir);
        let host_dir = work.join("host");
        let _ = claude_session(&agent, &work, hooks(&host_dir), "echo ran");
        let tk_dir = work.join("toolkit");
        let _ = support::toolkit_run(
            &work,
            "claude",
            ".claude",
            hooks(&tk_dir),
            "echo ran",
            event,
            "Bash",
        );
        support::assert_same_probe(
            &format!("Claude Code ({event})"),
            &host_dir,
            &tk_dir,
            &["CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SESSION_ID", "CLAUDECODE"],
        );
    }
}

/// What a hook of the events around the turn gets from Claude Code (SessionStart,
/// UserPromptSubmit, Stop, SessionEnd): the payload's fields and the variables Claude sets.
/// The toolkit must give a hook the same.
#[test]
fn the_session_events_payloads_are_those_of_the_real_claude_code() {
    let Some(agent) = support::agent_or_skip("claude-code") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("events");
    std::fs::create_dir_all(&work).unwrap();
    let events = ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"];
    let host_dir = work.join("host");
    let _ = claude_session(
        &agent,
        &work,
        support::probe_event_hooks(&events, &host_dir),
        "echo ran",
    );
    let tk_dir = work.join("toolkit");
    support::assert_same_event_probes(
        "Claude Code",
        &events,
        "UserPromptSubmit",
        &host_dir,
        &tk_dir,
        &["CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SESSION_ID", "CLAUDECODE"],
        |event, args| {
            support::toolkit_event(
                &work,
                "claude",
                ".claude",
                support::probe_event_hooks(&[event], &tk_dir),
                event,
                args,
            )
        },
    );
}

/// A PermissionRequest hook in Claude Code, where no rule allows the command: what its
/// payload holds and what its `allow` does, in the real CLI and in the toolkit.
#[test]
fn a_permission_request_hook_decides_as_in_the_real_claude_code() {
    let Some(agent) = support::agent_or_skip("claude-code") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("permission");
    let project = work.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let host_dir = work.join("host");
    std::fs::create_dir_all(&host_dir).unwrap();
    let allow = r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#;
    let hooks = |dir: &std::path::Path| {
        json!({"PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": format!(
            "cat > {0}/payload.json; env | cut -d= -f1 | sort > {0}/env.txt; printf '%s' '{allow}'",
            dir.display()
        )}]}]})
    };
    // the user's settings allow nothing: only the hook can let the command run
    let marker = work.join("ran.txt");
    let cmd = format!("touch {}", marker.display());
    let o = claude_session_with(
        &agent,
        &work,
        &project,
        json!({"hooks": hooks(&host_dir)}),
        &cmd,
    );
    let result = o
        .results
        .first()
        .map(|r| r.text.clone())
        .unwrap_or_default();
    eprintln!(
        "Claude: the hook ran {}, the command ran {}; the model read {result:?}",
        host_dir.join("payload.json").exists(),
        marker.exists()
    );
    let tk_dir = work.join("toolkit");
    std::fs::create_dir_all(&tk_dir).unwrap();
    let v = support::toolkit_run(
        &work,
        "claude",
        ".claude",
        hooks(&tk_dir),
        &cmd,
        "PermissionRequest",
        "Bash",
    );
    eprintln!(
        "the toolkit: decision {} blocked {}",
        v["decision"], v["blocked"]
    );
    // the hook's allow let the command run in Claude, and the toolkit reads it as an allow
    assert!(
        marker.exists(),
        "Claude did not run the command: {result:?}"
    );
    assert_eq!(v["decision"], "allow", "the toolkit: {v}");
    support::assert_same_probe(
        "Claude Code (PermissionRequest)",
        &host_dir,
        &tk_dir,
        &["CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SESSION_ID", "CLAUDECODE"],
    );
}

/// PreCompact, which `claude -p /compact` fires: what its hook gets from Claude Code, and
/// from the toolkit.
#[test]
fn the_pre_compact_payload_is_that_of_the_real_claude_code() {
    let Some(agent) = support::agent_or_skip("claude-code") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("compact");
    let host_dir = work.join("host");
    let mut hooks = support::probe_event_hooks(&["PreCompact"], &host_dir);
    // something to compact: Claude answers `No messages to compact` to an empty session, and
    // a SessionStart hook's output is a message of the session
    hooks["SessionStart"] =
        json!([{"hooks": [{"type": "command", "command": "echo the project uses cargo"}]}]);
    let _ = claude_prompt_session(
        &agent,
        &work,
        &work.join("project"),
        json!({"hooks": hooks}),
        "/compact",
        Vec::new(),
    );
    let tk_dir = work.join("toolkit");
    support::toolkit_event(
        &work,
        "claude",
        ".claude",
        support::probe_event_hooks(&["PreCompact"], &tk_dir),
        "PreCompact",
        &[],
    );
    let (host, toolkit) = (host_dir.join("PreCompact"), tk_dir.join("PreCompact"));
    support::assert_same_probe(
        "Claude Code (PreCompact)",
        &host,
        &toolkit,
        &["CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SESSION_ID", "CLAUDECODE"],
    );
    // and the values a hook matches on or reads: `/compact` is a manual compaction with no
    // instructions
    for dir in [&host, &toolkit] {
        let p: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("payload.json")).unwrap())
                .unwrap();
        assert_eq!(
            (&p["trigger"], &p["custom_instructions"]),
            (&json!("manual"), &Value::Null),
            "{}: {p}",
            dir.display()
        );
    }
}
