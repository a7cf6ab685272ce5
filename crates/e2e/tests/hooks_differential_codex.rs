//! The hooks toolkit's `codex` dialect against the real Codex CLI, same files, same call:
//! which PreToolUse answers stop the shell tool (exit 2 with a message on stderr, a
//! `permissionDecision: "deny"` or a legacy `decision: "block"` with its reason), which let
//! it run (exit 1, exit 2 with nothing on stderr, answers outside Codex's PreToolUse schema,
//! a hook for another tool), whether the model reads the reason, and what of a PostToolUse
//! hook's answer reaches the model. `tokenjuice hooks run --host codex`, reading the very
//! `CODEX_HOME` Codex read, must say what Codex does. One case shows what the toolkit does
//! not model: Codex skips a hook it was not told to trust.
//!
//! Codex runs a hook from the user's files only once it is trusted: `config.toml` holds
//! `[hooks.state."<hooks.json path>:<event>:<group>:<handler>"] trusted_hash = "sha256:…"`,
//! the hash of the hook's normalized identity (see [`trusted_hash`]). The test writes that
//! record itself, checks it against what `codex app-server` reports (`hooks/list`), and
//! every hook also touches a marker of its own, so a hook that Codex skipped is seen.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use support::drive::Paths;
use support::{Agent, Outcome, Spec, Wire};

/// The event's label in Codex's hook-state keys and trust identity.
fn event_label(event: &str) -> &'static str {
    match event {
        "PreToolUse" => "pre_tool_use",
        "PostToolUse" => "post_tool_use",
        "SessionStart" => "session_start",
        "UserPromptSubmit" => "user_prompt_submit",
        "Stop" => "stop",
        other => panic!("no label for {other}"),
    }
}

/// `sha256:<hex>` of `text`, by coreutils' `sha256sum`.
fn sha256(text: &str) -> String {
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sha256sum");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let hex = String::from_utf8_lossy(&out.stdout);
    format!("sha256:{}", hex.split_whitespace().next().unwrap())
}

/// The hash Codex 0.169 trusts a command hook by: SHA-256 of the compact JSON, keys sorted,
/// of `{event_name, matcher (left out when none), hooks: [the one handler, normalized:
/// type, command, timeout (600 when unset), async (false when unset), statusMessage (left
/// out when none)]}` (openai/codex `codex-rs/hooks/src/engine/discovery.rs`,
/// `command_hook_hash`; `codex-rs/config` `version_for_toml`). Only the fields the cases use.
fn trusted_hash(event: &str, matcher: Option<&str>, handler: &Value) -> String {
    let mut h = serde_json::Map::new();
    h.insert(
        "async".into(),
        handler["async"].as_bool().unwrap_or(false).into(),
    );
    h.insert("command".into(), handler["command"].clone());
    h.insert(
        "timeout".into(),
        handler["timeout"].as_u64().unwrap_or(600).max(1).into(),
    );
    h.insert("type".into(), "command".into());
    let mut identity = serde_json::Map::new();
    identity.insert("event_name".into(), event_label(event).into());
    identity.insert("hooks".into(), Value::Array(vec![Value::Object(h)]));
    if let Some(m) = matcher {
        identity.insert("matcher".into(), m.into());
    }
    // the keys were inserted in sorted order, as Codex's canonical form has them
    sha256(&Value::Object(identity).to_string())
}

/// Every handler of `hooks` (a `hooks.json` `hooks` object) with its state key and the hash
/// Codex trusts it by.
fn trust_records(hooks_json: &Path, hooks: &Value) -> Vec<(String, String)> {
    let mut records = Vec::new();
    for (event, groups) in hooks.as_object().unwrap() {
        for (g, group) in groups.as_array().unwrap().iter().enumerate() {
            for (i, handler) in group["hooks"].as_array().unwrap().iter().enumerate() {
                let key = format!("{}:{}:{g}:{i}", hooks_json.display(), event_label(event));
                records.push((key, trusted_hash(event, group["matcher"].as_str(), handler)));
            }
        }
    }
    records
}

/// A Codex home under `p.home/.codex`: the fake model provider, `hooks` in `hooks.json`,
/// and, when `trusted`, a trust record for each of its hooks in `config.toml`. Returns the
/// path of `config.toml`.
fn codex_home(p: &Paths, hooks: &Value, trusted: bool) -> PathBuf {
    let dir = p.home.join(".codex");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(&p.project).unwrap();
    let hooks_json = dir.join("hooks.json");
    std::fs::write(&hooks_json, json!({"hooks": hooks}).to_string()).unwrap();
    // {PORT} is filled in when the session starts (see `spec`)
    let mut config = String::from(
        "model = \"gpt-5.5\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"http://127.0.0.1:{PORT}/v1\"\nwire_api = \"responses\"\nenv_key = \"FAKE_KEY\"\n",
    );
    if trusted {
        for (key, hash) in trust_records(&hooks_json, hooks) {
            config.push_str(&format!(
                "\n[hooks.state.{}]\ntrusted_hash = {}\n",
                Value::from(key),
                Value::from(hash)
            ));
        }
    }
    let path = dir.join("config.toml");
    std::fs::write(&path, config).unwrap();
    path
}

fn env(p: &Paths, bin: &Path) -> Vec<(String, String)> {
    support::agent_env(
        p,
        bin,
        &[
            ("CODEX_HOME", &p.home.join(".codex").display().to_string()),
            ("FAKE_KEY", "e2e-fake"),
            ("SHELL", "/bin/bash"),
        ],
    )
}

/// One `codex exec` session in `p` whose model runs `command` once.
fn codex_session(agent: &Agent, p: &Paths, config: &Path, command: &str) -> Outcome {
    let bin = agent.dir.join("node_modules/.bin");
    let spec = Spec {
        wire: Wire::OpenAiResponses,
        tool: "exec_command".into(),
        calls: vec![json!({"cmd": command})],
        final_text: "done".into(),
        model: "gpt-5.5".into(),
        argv: vec![
            bin.join("codex").display().to_string(),
            "exec".into(),
            "--skip-git-repo-check".into(),
            "-s".into(),
            "workspace-write".into(),
            "go".into(),
        ],
        env: env(p, &bin),
        cwd: p.project.clone(),
        timeout: support::timeout(),
        files: vec![(
            config.to_path_buf(),
            std::fs::read_to_string(config).unwrap(),
        )],
        stdin: None,
    };
    support::run(&spec, &p.work)
}

/// What `codex app-server` lists for the project (`hooks/list`): the hooks of `p`'s Codex
/// home with their keys, hashes and trust status, as Codex itself sees them.
fn codex_hooks_list(agent: &Agent, p: &Paths) -> Vec<Value> {
    let bin = agent.dir.join("node_modules/.bin");
    let mut cmd = if support::netns_available() {
        let mut c = Command::new("unshare");
        c.args(["-n", "sh", "-c", "ip link set lo up && exec \"$@\"", "sh"]);
        c
    } else {
        Command::new("env")
    };
    let mut child = cmd
        .args(["timeout", "60"])
        .arg(bin.join("codex"))
        .arg("app-server")
        .env_clear()
        .envs(env(p, &bin))
        .current_dir(&p.project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("codex app-server");
    let mut stdin = child.stdin.take().unwrap();
    for msg in [
        json!({"id": 0, "method": "initialize", "params": {"clientInfo": {"name": "tj-e2e", "version": "1"}}}),
        json!({"method": "initialized"}),
        json!({"id": 1, "method": "hooks/list", "params": {"cwds": [p.project]}}),
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    let mut answer = Value::Null;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let v: Value = serde_json::from_str(&line.unwrap()).unwrap_or_default();
        if v["id"] == 1 {
            answer = v;
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    answer["result"]["data"][0]["hooks"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("no hooks/list answer from codex app-server: {answer}"))
}

/// The first tool result of the session, or the session's end in the panic message.
fn first_result(o: &Outcome) -> String {
    o.results
        .first()
        .map(|r| r.text.clone())
        .unwrap_or_else(|| {
            panic!(
                "no tool result from Codex: exit {:?}, timed out {}; stderr: {}",
                o.exit, o.timed_out, o.stderr
            )
        })
}

/// `tokenjuice hooks run <event> --host codex --tool Bash` for `command`, on the Codex home
/// and project the session used: the JSON outcome.
fn toolkit(p: &Paths, command: &str, event: &str) -> Value {
    let out = Command::new(support::tokenjuice())
        .args(["hooks", "run", event, "--host", "codex", "--tool", "Bash"])
        .args(["--format", "json", "--project"])
        .arg(&p.project)
        .arg("--input")
        .arg(json!({"command": command}).to_string())
        .env("HOME", &p.home)
        .env("CODEX_HOME", p.home.join(".codex"))
        .current_dir(&p.project)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// Whether the toolkit ran the hook (its trace lists it) or left it out.
fn toolkit_ran_a_hook(v: &Value) -> bool {
    v["hooks"].as_array().is_some_and(|h| !h.is_empty())
}

/// A hook command that prints `json` on stdout.
fn prints(json: &str) -> String {
    format!("printf '%s' '{json}'")
}

/// `hooks/list` of Codex names the hook by the key the test wrote, with the hash the test
/// computed (and the toolkit computes: the records it would write hold both), and says
/// whether it is trusted.
fn assert_codex_lists(agent: &Agent, p: &Paths, hooks: &Value, status: &str) {
    let listed = codex_hooks_list(agent, p);
    let file = p.home.join(".codex/hooks.json");
    let records = trust_records(&file, hooks);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["key"], records[0].0.as_str(), "{listed:?}");
    assert_eq!(
        listed[0]["currentHash"],
        records[0].1.as_str(),
        "{listed:?}"
    );
    assert_eq!(listed[0]["trustStatus"], status, "{listed:?}");
    let toolkit = tokenjuice_hooks::engine::codex_trust::trust_records_toml(&file, hooks);
    assert!(
        toolkit.contains(&format!("[hooks.state.{}]", listed[0]["key"]))
            && toolkit.contains(&format!("trusted_hash = {}", listed[0]["currentHash"])),
        "the toolkit's trust record differs from Codex's {listed:?}: {toolkit}"
    );
}

/// A PreToolUse hook that touches `hook_marker`, reads its input, then does `then`.
fn pre_tool_use(matcher: &str, hook_marker: &Path, then: &str) -> Value {
    json!({"PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command",
        "command": format!("touch {}; cat >/dev/null; {then}", hook_marker.display())}]}]})
}

#[test]
fn the_hooks_toolkit_decides_as_the_real_codex_cli_does() {
    let Some(agent) = support::agent_or_skip("codex") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not-this-one"}}"#;
    // (name, matcher, what the hook does after reading its input, the reason the model
    // reads when the tool is blocked (None: the tool runs)); the hook runs when its matcher
    // names the shell tool (`Bash` to hooks)
    let cases: Vec<(&str, &str, String, Option<&str>)> = vec![
        (
            "exit 2",
            "Bash",
            "echo not-this-one >&2; exit 2".into(),
            Some("not-this-one"),
        ),
        // Codex wants the reason on stderr: without one the hook failed, nothing blocks
        ("exit 2 silent", "Bash", "exit 2".into(), None),
        ("exit 1", "Bash", "echo a-warning >&2; exit 1".into(), None),
        ("deny", "Bash", prints(deny), Some("not-this-one")),
        (
            "legacy block",
            "Bash",
            prints(r#"{"decision":"block","reason":"not-this-one"}"#),
            Some("not-this-one"),
        ),
        // answers outside Codex's PreToolUse schema: the hook failed, the tool runs
        (
            "continue false",
            "Bash",
            prints(r#"{"continue":false,"stopReason":"enough"}"#),
            None,
        ),
        (
            "deny without a reason",
            "Bash",
            prints(
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#,
            ),
            None,
        ),
        (
            "deny without hookEventName",
            "Bash",
            prints(
                r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"not-this-one"}}"#,
            ),
            None,
        ),
        (
            "block with an unknown field",
            "Bash",
            prints(r#"{"decision":"block","reason":"not-this-one","note":1}"#),
            None,
        ),
        (
            "top-level deny",
            "Bash",
            prints(r#"{"decision":"deny","reason":"not-this-one"}"#),
            None,
        ),
        (
            "ask",
            "Bash",
            prints(
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"not-this-one"}}"#,
            ),
            None,
        ),
        (
            "other tool",
            "apply_patch",
            "echo not-this-one >&2; exit 2".into(),
            None,
        ),
    ];
    // every case runs; the ones that differ are listed at the end
    let mut failed = Vec::new();
    for (name, matcher, then, blocked_because) in cases {
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let work = tmp.path().join(name.replace(' ', "-"));
            let p = Paths::under(&work);
            let hook_marker = work.join("hook-ran.txt");
            let hooks = pre_tool_use(matcher, &hook_marker, &then);
            let config = codex_home(&p, &hooks, true);
            if name == "exit 2" {
                // the trust record the test wrote is the one Codex looks for
                assert_codex_lists(&agent, &p, &hooks, "trusted");
            }
            let marker = p.project.join("ran.txt");
            let cmd = format!("touch {}", marker.display());
            let result = first_result(&codex_session(&agent, &p, &config, &cmd));
            let hook_runs = matcher == "Bash";
            assert_eq!(
                hook_marker.exists(),
                hook_runs,
                "{name}: did Codex run the hook? Its result: {result}"
            );
            let v = toolkit(&p, &cmd, "PreToolUse");
            eprintln!(
                "{name}: Codex ran the tool: {}; the model read: {result:?}; the toolkit: blocked {}, reason {}, warnings {}",
                marker.exists(),
                v["blocked"],
                v["reason"],
                v["warnings"]
            );
            assert_eq!(
                toolkit_ran_a_hook(&v),
                hook_runs,
                "{name}: the toolkit runs the hook when Codex does: {v}"
            );
            support::assert_same_decision(
                name,
                "Codex",
                marker.exists(),
                &result,
                &v,
                blocked_because,
            );
        }));
        if ok.is_err() {
            failed.push(name);
        }
    }

    // A hook Codex was not told to trust, and one changed since it was trusted: Codex skips
    // them without a word and the tool runs; the toolkit skips them too, and says why.
    for (name, status) in [("untrusted", "untrusted"), ("changed", "modified")] {
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let work = tmp.path().join(name);
            let p = Paths::under(&work);
            let hook_marker = work.join("hook-ran.txt");
            let hooks = pre_tool_use("Bash", &hook_marker, "echo not-this-one >&2; exit 2");
            let config = codex_home(&p, &hooks, name == "changed");
            let hooks = if name == "changed" {
                // trusted as it was, then changed
                let changed = pre_tool_use("Bash", &hook_marker, "echo changed >&2; exit 2");
                std::fs::write(
                    p.home.join(".codex/hooks.json"),
                    json!({ "hooks": changed }).to_string(),
                )
                .unwrap();
                changed
            } else {
                hooks
            };
            assert_codex_lists(&agent, &p, &hooks, status);
            let marker = p.project.join("ran.txt");
            let cmd = format!("touch {}", marker.display());
            let result = first_result(&codex_session(&agent, &p, &config, &cmd));
            assert!(!hook_marker.exists(), "{name}: Codex ran the hook");
            assert!(
                marker.exists(),
                "{name}: Codex did not run the tool: {result}"
            );
            let v = toolkit(&p, &cmd, "PreToolUse");
            assert!(
                !toolkit_ran_a_hook(&v) && v["blocked"] == false,
                "{name}: the toolkit ran the hook Codex skipped: {v}"
            );
            let said = v["settingsDiagnostics"].to_string();
            assert!(
                said.contains(if name == "changed" {
                    "changed since it was trusted"
                } else {
                    "not trusted"
                }),
                "{name}: {said}"
            );
        }));
        if ok.is_err() {
            failed.push(name);
        }
    }

    // PostToolUse: what of the hook's answer the model reads after the tool ran (in Codex,
    // anywhere in its next request; in the toolkit, its feedback, added context or reason),
    // and whether it takes the place of the command's output in the tool result
    let cases: Vec<(&str, String, bool, bool)> = vec![
        (
            "post exit 2",
            "echo marker-text >&2; exit 2".into(),
            true,
            true,
        ),
        (
            "post exit 1",
            "echo marker-text >&2; exit 1".into(),
            false,
            false,
        ),
        (
            "post block",
            prints(r#"{"decision":"block","reason":"marker-text"}"#),
            true,
            true,
        ),
        (
            "post context",
            prints(
                r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"marker-text"}}"#,
            ),
            true,
            false,
        ),
        // Codex reads a PostToolUse answer against a closed schema too (openai/codex
        // codex-rs/hooks/src/schema.rs, `PostToolUseCommandOutputWire`) and refuses what it
        // does not support there: each of these is a failed hook, and nothing of its answer
        // reaches the model
        (
            "post exit 2 without stderr",
            "echo marker-text; exit 2".into(),
            false,
            false,
        ),
        ("post plain stdout", "echo marker-text".into(), false, false),
        (
            "post block without reason",
            prints(
                r#"{"decision":"block","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"marker-text"}}"#,
            ),
            false,
            false,
        ),
        (
            "post reason without decision",
            prints(r#"{"reason":"marker-text"}"#),
            false,
            false,
        ),
        (
            "post suppressOutput",
            prints(
                r#"{"suppressOutput":true,"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"marker-text"}}"#,
            ),
            false,
            false,
        ),
        (
            "post unknown field",
            prints(
                r#"{"extra":1,"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"marker-text"}}"#,
            ),
            false,
            false,
        ),
        (
            "post context without hookEventName",
            prints(r#"{"hookSpecificOutput":{"additionalContext":"marker-text"}}"#),
            false,
            false,
        ),
        (
            "post updatedMCPToolOutput",
            prints(
                r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"marker-text","updatedMCPToolOutput":{"a":1}}}"#,
            ),
            false,
            false,
        ),
        // continue: false is supported on PostToolUse: its stopReason takes the place of the
        // command's output
        (
            "post continue false",
            prints(r#"{"continue":false,"stopReason":"marker-text"}"#),
            true,
            true,
        ),
    ];
    for (name, then, model_reads, replaces_output) in cases {
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let work = tmp.path().join(name.replace(' ', "-"));
            let p = Paths::under(&work);
            let hook_marker = work.join("hook-ran.txt");
            let hooks = json!({"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                "command": format!("touch {}; cat >/dev/null; {then}", hook_marker.display())}]}]});
            let config = codex_home(&p, &hooks, true);
            let o = codex_session(&agent, &p, &config, "echo ran");
            let result = first_result(&o);
            assert!(hook_marker.exists(), "{name}: Codex did not run the hook");
            let last = o
                .requests
                .last()
                .map(|(_, body)| body.clone())
                .unwrap_or_default();
            let v = toolkit(&p, "echo ran", "PostToolUse");
            eprintln!(
                "{name}: the tool result the model read: {result:?}; the toolkit: feedback {}, context {}, reason {}",
                v["feedback"], v["additionalContext"], v["reason"]
            );
            assert_eq!(
                last.to_string().contains("marker-text"),
                model_reads,
                "{name}: the input of Codex's last request: {}",
                last["input"]
            );
            assert_eq!(
                result.trim() == "marker-text",
                replaces_output,
                "{name}: the tool result: {result:?}"
            );
            let toolkit_says = [&v["feedback"], &v["additionalContext"], &v["reason"]]
                .iter()
                .any(|x| x.to_string().contains("marker-text"));
            assert_eq!(toolkit_says, model_reads, "{name}: the toolkit: {v}");
        }));
        if ok.is_err() {
            failed.push(name);
        }
    }
    assert!(
        failed.is_empty(),
        "the toolkit and Codex differ (see above): {failed:?}"
    );
}

/// A project's own hooks (`<project>/.codex/hooks.json`, trusted by hash in the user's
/// `config.toml`): whether Codex runs them depends on what the user's `config.toml` says of
/// the project (`[projects."<path>"] trust_level`), and the toolkit must run them exactly
/// when Codex does; Codex also reads the repository root's `.codex` from a folder below it.
#[test]
fn the_hooks_toolkit_runs_a_projects_hooks_when_the_real_codex_cli_does() {
    let Some(agent) = support::agent_or_skip("codex") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // (name, (the project's trust level, the session runs in a folder below the repository
    // root, whose .codex holds the hook))
    let cases = vec![
        ("no trust level", (None, false)),
        ("trusted", (Some("trusted"), false)),
        ("untrusted", (Some("untrusted"), false)),
        ("trusted, from a folder below", (Some("trusted"), true)),
    ];
    support::each_case("Codex", cases, |name, (trust_level, below)| {
        let work = tmp.path().join(name.replace([' ', ','], "-"));
        let mut p = Paths::under(&work);
        let repo = p.project.clone();
        if below {
            p.project = repo.join("src/deep");
        }
        let config = codex_home(&p, &json!({}), false);
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&repo)
            .status()
            .unwrap();
        assert!(git.success());
        let hook_marker = work.join("hook-ran.txt");
        let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                "command": format!("touch {}; cat >/dev/null; echo not-this-one >&2; exit 2", hook_marker.display())}]}]});
        let project_hooks = repo.join(".codex/hooks.json");
        std::fs::create_dir_all(project_hooks.parent().unwrap()).unwrap();
        std::fs::write(&project_hooks, json!({"hooks": hooks}).to_string()).unwrap();
        let mut text = std::fs::read_to_string(&config).unwrap();
        for (key, hash) in trust_records(&project_hooks, &hooks) {
            text.push_str(&format!(
                "\n[hooks.state.{}]\ntrusted_hash = {}\n",
                Value::from(key),
                Value::from(hash)
            ));
        }
        if let Some(level) = trust_level {
            text.push_str(&format!(
                "\n[projects.{}]\ntrust_level = {}\n",
                Value::from(repo.display().to_string()),
                Value::from(level)
            ));
        }
        std::fs::write(&config, text).unwrap();
        let o = codex_session(&agent, &p, &config, "echo ran");
        let result = first_result(&o);
        let codex_ran = hook_marker.exists();
        let v = toolkit(&p, "echo ran", "PreToolUse");
        eprintln!(
                "{name}: Codex ran the project's hook: {codex_ran} (the model read {result:?}); the toolkit ran it: {}; it said {}",
                toolkit_ran_a_hook(&v),
                v["settingsDiagnostics"]
            );
        assert_eq!(
            toolkit_ran_a_hook(&v),
            codex_ran,
            "{name}: the toolkit: {v}"
        );
    });
}

/// Two PreToolUse hooks that both rewrite the command (`allow` with `updatedInput`), one
/// slower, in either order in the file: which rewrite Codex runs, and which the toolkit says.
#[test]
fn the_hooks_toolkit_picks_the_rewrite_the_real_codex_cli_runs() {
    let Some(agent) = support::agent_or_skip("codex") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let answer = |c: &str| {
        format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{{"command":"{c}"}}}}}}"#
        )
    };
    let slow = json!({"type": "command", "command": format!("cat >/dev/null; sleep 0.5; {}", prints(&answer("echo slow")))});
    let fast = json!({"type": "command", "command": format!("cat >/dev/null; {}", prints(&answer("echo fast")))});
    let cases = vec![
        ("slow first", vec![slow.clone(), fast.clone()]),
        ("fast first", vec![fast, slow]),
    ];
    support::each_case("Codex", cases, |name, handlers| {
        let p = Paths::under(&tmp.path().join(name.replace(' ', "-")));
        let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hooks": handlers}]});
        let config = codex_home(&p, &hooks, true);
        let o = codex_session(&agent, &p, &config, "echo original");
        let result = first_result(&o);
        let v = toolkit(&p, "echo original", "PreToolUse");
        let codex_ran = ["slow", "fast", "original"]
            .into_iter()
            .find(|w| result.lines().any(|l| l.trim() == *w))
            .unwrap_or_else(|| panic!("{name}: which command ran in Codex? {result:?}"));
        eprintln!(
            "{name}: Codex ran `echo {codex_ran}`; the toolkit: {}",
            v["updatedInput"]
        );
        assert_eq!(
            v["updatedInput"]["command"],
            format!("echo {codex_ran}"),
            "{name}: the toolkit: {}",
            v["warnings"]
        );
    });
}

/// A PreToolUse hook that would block after 3 s, with `timeout: 1` (seconds): what Codex
/// does at the timeout, and the toolkit must say the same.
#[test]
fn a_hook_past_its_timeout_decides_as_in_the_real_codex_cli() {
    let Some(agent) = support::agent_or_skip("codex") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let p = Paths::under(&tmp.path().join("timeout"));
    let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "timeout": 1,
        "command": "cat >/dev/null; sleep 3; echo not-this-one >&2; exit 2"}]}]});
    let config = codex_home(&p, &hooks, true);
    let o = codex_session(&agent, &p, &config, "echo ran");
    let result = first_result(&o);
    let v = toolkit(&p, "echo ran", "PreToolUse");
    assert_eq!(v["hooks"][0]["timedOut"], true, "the toolkit: {v}");
    let ran = result.lines().any(|l| l.trim() == "ran");
    support::assert_same_decision("timeout", "Codex", ran, &result, &v, None);
}

/// What a PreToolUse hook gets from Codex: the payload's fields and the variables Codex sets
/// for it. The toolkit must give a hook the same.
#[test]
fn a_hook_gets_the_payload_and_variables_the_real_codex_cli_gives() {
    let Some(agent) = support::agent_or_skip("codex") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for event in ["PreToolUse", "PostToolUse"] {
        let p = Paths::under(&tmp.path().join(event));
        let host_dir = p.work.join("host");
        let config = codex_home(&p, &support::probe_hooks(event, "Bash", &host_dir), true);
        let _ = codex_session(&agent, &p, &config, "echo ran");
        // the toolkit, with the same hooks.json (its own trust records written the same way)
        let tk_dir = p.work.join("toolkit");
        let tk = Paths::under(&p.work.join("tk"));
        codex_home(&tk, &support::probe_hooks(event, "Bash", &tk_dir), true);
        let _ = toolkit(&tk, "echo ran", event);
        support::assert_same_probe(
            &format!("Codex ({event})"),
            &host_dir,
            &tk_dir,
            &["CODEX_HOME"],
        );
    }
}

/// What a hook of the events around the turn gets from Codex (SessionStart,
/// UserPromptSubmit, Stop). The toolkit must give a hook the same.
#[test]
fn the_session_events_payloads_are_those_of_the_real_codex_cli() {
    let Some(agent) = support::agent_or_skip("codex") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let events = ["SessionStart", "UserPromptSubmit", "Stop"];
    let p = Paths::under(&tmp.path().join("events"));
    let host_dir = p.work.join("host");
    let config = codex_home(&p, &support::probe_event_hooks(&events, &host_dir), true);
    let _ = codex_session(&agent, &p, &config, "echo ran");
    let tk_dir = p.work.join("toolkit");
    let tk = Paths::under(&p.work.join("tk"));
    codex_home(&tk, &support::probe_event_hooks(&events, &tk_dir), true);
    support::assert_same_event_probes(
        "Codex",
        &events,
        "UserPromptSubmit",
        &host_dir,
        &tk_dir,
        &["CODEX_HOME"],
        |event, args| {
            let out = Command::new(support::tokenjuice())
                .args([
                    "hooks",
                    "run",
                    event,
                    "--host",
                    "codex",
                    "--format",
                    "json",
                    "--project",
                ])
                .arg(&tk.project)
                .args(args)
                .env("HOME", &tk.home)
                .env("CODEX_HOME", tk.home.join(".codex"))
                .current_dir(&tk.project)
                .output()
                .unwrap();
            assert!(out.status.code().is_some(), "{event}: {out:?}");
        },
    );
}
