//! The hooks toolkit's `gemini` dialect against the real Gemini CLI, same settings, same
//! call: which BeforeTool answers stop the shell tool (exit 2 with a message on stderr, a
//! `decision: "deny"` with its reason), which let it run (exit 1, a hook for another tool),
//! and whether the model reads the reason. `tokenjuice hooks run BeforeTool --host gemini`
//! must say what Gemini does.

mod support;

use std::path::Path;

use serde_json::{json, Value};

/// One `gemini -p` session whose model runs `command` once, with `hooks` in the user's
/// settings (and `touch` allowed, so only the hook can stop it): the model's tool result.
fn gemini_session(agent: &support::Agent, work: &Path, hooks: Value, command: &str) -> String {
    let p = support::drive::Paths::under(work);
    std::fs::create_dir_all(p.home.join(".gemini")).unwrap();
    std::fs::create_dir_all(&p.project).unwrap();
    std::fs::write(
        p.home.join(".gemini/settings.json"),
        json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "tools": {"allowed": ["run_shell_command(touch)"]},
            "hooks": hooks,
        })
        .to_string(),
    )
    .unwrap();
    let calls = vec![json!({"command": command, "description": "probe"})];
    let o = support::run(&support::gemini_spec(agent, &p, "go", calls), work);
    o.results
        .first()
        .map(|r| r.text.clone())
        .unwrap_or_else(|| panic!("no tool result from Gemini: {o:?}"))
}

/// The toolkit run on `command` for `event` of Gemini's shell tool, with `hooks` as the only
/// settings: its JSON report.
fn toolkit(work: &Path, hooks: Value, command: &str, event: &str) -> Value {
    support::toolkit_run(
        work,
        "gemini",
        ".gemini",
        hooks,
        command,
        event,
        "run_shell_command",
    )
}

#[test]
fn the_hooks_toolkit_decides_as_the_real_gemini_cli_does() {
    let Some(agent) = support::agent_or_skip("gemini-cli") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let deny = "{\"decision\":\"deny\",\"reason\":\"not-this-one\"}";
    // (name, matcher, hook command, reason the model reads when blocked; None: runs)
    let cases: Vec<(&str, &str, String, Option<&str>)> = vec![
        (
            "exit 2",
            "run_shell_command",
            "cat >/dev/null; echo not-this-one >&2; exit 2".into(),
            Some("not-this-one"),
        ),
        (
            "exit 1",
            "run_shell_command",
            "cat >/dev/null; echo a-warning >&2; exit 1".into(),
            None,
        ),
        (
            "deny",
            "run_shell_command",
            format!("cat >/dev/null; printf '%s' '{deny}'"),
            Some("not-this-one"),
        ),
        (
            "other tool",
            "read_file",
            "cat >/dev/null; exit 2".into(),
            None,
        ),
    ];
    for (name, matcher, hook, blocked_because) in cases {
        let work = tmp.path().join(name.replace(' ', "-"));
        std::fs::create_dir_all(&work).unwrap();
        let hooks = json!({"BeforeTool": [{"matcher": matcher, "hooks": [{"type": "command", "command": hook}]}]});
        let marker = work.join("ran.txt");
        let cmd = format!("touch {}", marker.display());
        let result = gemini_session(&agent, &work, hooks.clone(), &cmd);
        let v = toolkit(&work, hooks, &cmd, "BeforeTool");
        support::assert_same_decision(
            name,
            "Gemini",
            marker.exists(),
            &result,
            &v,
            blocked_because,
        );
    }
}

/// Which project's settings the real Gemini CLI reads hooks from: only in a folder it
/// trusts (`GEMINI_CLI_TRUST_WORKSPACE=true` or a `TRUST_FOLDER` rule; `--skip-trust` lets
/// the session start, yet leaves the project's hooks out), and only the folder it starts
/// in. The toolkit, run in the same folder, must run the same hooks. (Without any trust
/// Gemini 0.61 refuses to start headless: exit 55.)
#[test]
fn the_hooks_toolkit_reads_the_project_settings_the_real_gemini_cli_reads() {
    let Some(agent) = support::agent_or_skip("gemini-cli") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // (name, (`git init` in the folder with the settings, where the session starts below
    // it, how the folder is trusted))
    let cases = vec![
        ("in the project folder", (true, "", "flag")),
        ("in the project folder, env", (true, "", "env")),
        (
            "in the project folder, trusted folders file",
            (true, "", "file"),
        ),
        ("below, in a repository", (true, "src/deep", "file")),
        ("below, no repository", (false, "src/deep", "file")),
    ];
    support::each_case("Gemini CLI", cases, |name, (git, below, trust)| {
        let work = tmp.path().join(name.replace([' ', ','], "-"));
        let mut p = support::drive::Paths::under(&work);
        let root = p.project.clone();
        p.project = root.join(below);
        std::fs::create_dir_all(&p.project).unwrap();
        let marker = support::project_hook(
            &root,
            ".gemini",
            "settings.json",
            "BeforeTool",
            "run_shell_command",
            git,
            &work,
        );
        std::fs::create_dir_all(p.home.join(".gemini")).unwrap();
        std::fs::write(
            p.home.join(".gemini/settings.json"),
            json!({
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "tools": {"allowed": ["run_shell_command(echo)"]},
            })
            .to_string(),
        )
        .unwrap();
        let calls = vec![json!({"command": "echo ran", "description": "probe"})];
        let mut spec = support::gemini_spec(&agent, &p, "go", calls);
        // the toolkit sees what Gemini saw: the same home, folder and variables (it cannot
        // see a `--skip-trust` flag)
        let mut vars: Vec<(&str, &str)> = Vec::new();
        match trust {
            "env" => {
                spec.argv.retain(|a| a != "--skip-trust");
                spec.env
                    .push(("GEMINI_CLI_TRUST_WORKSPACE".into(), "true".into()));
                vars.push(("GEMINI_CLI_TRUST_WORKSPACE", "true"));
            }
            "file" => {
                spec.argv.retain(|a| a != "--skip-trust");
                std::fs::write(
                    p.home.join(".gemini/trustedFolders.json"),
                    json!({ root.display().to_string(): "TRUST_FOLDER" }).to_string(),
                )
                .unwrap();
            }
            _ => {}
        }
        let o = support::run(&spec, &work);
        let result = o.results.first().map(|r| r.text.clone());
        let gemini_ran = marker.exists();
        let (toolkit_ran, v) = support::toolkit_ran_in(
            "gemini",
            "BeforeTool",
            "run_shell_command",
            &p.home,
            &p.project,
            &vars,
        );
        eprintln!(
            "{name}: Gemini ran the project's hook: {gemini_ran} (its tool result {result:?}, exit {:?}); the toolkit: {toolkit_ran}",
            o.exit
        );
        assert!(
            result.as_deref().is_some_and(|t| t.contains("ran")),
            "{name}: the command did not run in Gemini: {result:?}, stderr {}",
            o.stderr
        );
        assert_eq!(toolkit_ran, gemini_ran, "{name}: the toolkit: {v}");
    });
}

/// Two BeforeTool hooks of one group that both rewrite the command (`tool_input`), one
/// slower, in either order in the file: which rewrite Gemini runs, and which the toolkit
/// says.
#[test]
fn the_hooks_toolkit_picks_the_rewrite_the_real_gemini_cli_runs() {
    let Some(agent) = support::agent_or_skip("gemini-cli") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cases = vec![("slow first", true), ("fast first", false)];
    support::each_case("Gemini CLI", cases, |name, slow_first| {
        let work = tmp.path().join(name.replace(' ', "-"));
        std::fs::create_dir_all(&work).unwrap();
        let touch = |w: &str| format!("touch {}", work.join(w).display());
        let answer = |w: &str| {
            json!({"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": touch(w)}}}).to_string()
        };
        let slow = json!({"type": "command", "command": format!("cat >/dev/null; sleep 0.5; printf '%s' '{}'", answer("slow"))});
        let fast = json!({"type": "command", "command": format!("cat >/dev/null; printf '%s' '{}'", answer("fast"))});
        let handlers = if slow_first {
            vec![slow, fast]
        } else {
            vec![fast, slow]
        };
        let hooks = json!({"BeforeTool": [{"matcher": "run_shell_command", "hooks": handlers}]});
        let result = gemini_session(&agent, &work, hooks.clone(), &touch("original"));
        let ran: Vec<&str> = ["slow", "fast", "original"]
            .into_iter()
            .filter(|w| work.join(w).exists())
            .collect();
        let v = toolkit(&work, hooks, &touch("original"), "BeforeTool");
        eprintln!(
            "{name}: Gemini ran {ran:?} (its result {result:?}); the toolkit: {}",
            v["updatedInput"]
        );
        assert_eq!(ran.len(), 1, "{name}: {ran:?}");
        assert_eq!(
            v["updatedInput"]["command"],
            touch(ran[0]),
            "{name}: the toolkit: {}",
            v["warnings"]
        );
    });
}

/// A BeforeTool hook that would block after 3 s, with `timeout: 1000` (milliseconds): what
/// Gemini does at the timeout, and the toolkit must say the same.
#[test]
fn a_hook_past_its_timeout_decides_as_in_the_real_gemini_cli() {
    let Some(agent) = support::agent_or_skip("gemini-cli") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("timeout");
    std::fs::create_dir_all(&work).unwrap();
    let hooks = json!({"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "timeout": 1000,
        "command": "cat >/dev/null; sleep 3; echo not-this-one >&2; exit 2"}]}]});
    let marker = work.join("ran.txt");
    let cmd = format!("touch {}", marker.display());
    let result = gemini_session(&agent, &work, hooks.clone(), &cmd);
    let v = toolkit(&work, hooks, &cmd, "BeforeTool");
    assert_eq!(v["hooks"][0]["timedOut"], true, "the toolkit: {v}");
    support::assert_same_decision("timeout", "Gemini", marker.exists(), &result, &v, None);
}

/// What a BeforeTool hook gets from Gemini CLI: the payload's fields and the variables Gemini
/// sets for it. The toolkit must give a hook the same.
#[test]
fn a_hook_gets_the_payload_and_variables_the_real_gemini_cli_gives() {
    let Some(agent) = support::agent_or_skip("gemini-cli") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for event in ["BeforeTool", "AfterTool"] {
        let work = tmp.path().join(event);
        std::fs::create_dir_all(&work).unwrap();
        let host_dir = work.join("host");
        let marker = work.join("ran.txt");
        let cmd = format!("touch {}", marker.display());
        let _ = gemini_session(
            &agent,
            &work,
            support::probe_hooks(event, "run_shell_command", &host_dir),
            &cmd,
        );
        let tk_dir = work.join("toolkit");
        let _ = toolkit(
            &work,
            support::probe_hooks(event, "run_shell_command", &tk_dir),
            &cmd,
            event,
        );
        support::assert_same_probe(
            &format!("Gemini CLI ({event})"),
            &host_dir,
            &tk_dir,
            &[
                "GEMINI_PROJECT_DIR",
                "GEMINI_SESSION_ID",
                "GEMINI_CWD",
                "CLAUDE_PROJECT_DIR",
            ],
        );
    }
}

/// What a hook of the events around the turn gets from Gemini CLI (SessionStart,
/// BeforeAgent, AfterAgent, PreCompress, SessionEnd). The toolkit must give a hook the same.
#[test]
fn the_session_events_payloads_are_those_of_the_real_gemini_cli() {
    let Some(agent) = support::agent_or_skip("gemini-cli") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("events");
    std::fs::create_dir_all(&work).unwrap();
    let events = [
        "SessionStart",
        "BeforeAgent",
        "AfterAgent",
        "PreCompress",
        "SessionEnd",
    ];
    let host_dir = work.join("host");
    let marker = work.join("ran.txt");
    let cmd = format!("touch {}", marker.display());
    let _ = gemini_session(
        &agent,
        &work,
        support::probe_event_hooks(&events, &host_dir),
        &cmd,
    );
    let tk_dir = work.join("toolkit");
    support::assert_same_event_probes(
        "Gemini CLI",
        &events,
        "BeforeAgent",
        &host_dir,
        &tk_dir,
        &[
            "GEMINI_PROJECT_DIR",
            "GEMINI_SESSION_ID",
            "GEMINI_CWD",
            "CLAUDE_PROJECT_DIR",
        ],
        |event, args| {
            support::toolkit_event(
                &work,
                "gemini",
                ".gemini",
                support::probe_event_hooks(&[event], &tk_dir),
                event,
                args,
            )
        },
    );
}
