//! CodeBuddy Code (the CLI inside @tencent-ai/agent-sdk, pinned in e2e/agents.lock), with and
//! without `tokenjuice install codebuddy`: the model must read compacted output through
//! CODEBUDDY_CODE_SHELL_PREFIX, and nothing else may change.

mod support;

use serde_json::{json, Value};
use support::drive::{self, Case, Paths};
use support::scenarios;
use support::{Agent, Spec, Wire};

fn setup(p: &Paths) {
    let settings = json!({
        "permissions": {
            "allow": ["Bash(seq:*)", "Bash(git log:*)", "Bash(ls:*)", "Bash(python3 -m unittest:*)",
                      "Bash(echo:*)", "Bash(printf:*)", "Bash(cat:*)", "Bash(cd:*)", "Bash(pwd)",
                      "Bash(mytool:*)", "Bash(sleep:*)", "Bash(true:*)",
                      "Bash(exit:*)", "Bash(tr:*)", "Bash(X=1:*)"],
            "deny": ["Bash(rm:*)"],
            "ask": ["Bash(git push:*)"]
        }
    });
    let path = p.home.join(".codebuddy/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, settings.to_string()).unwrap();
}

fn spec_yolo(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    let mut s = spec(agent, p, calls);
    s.argv.truncate(4);
    s.argv.push("-y".into());
    s
}

fn spec(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    let cli = support::codebuddy_cli(agent);
    let bin = agent.dir.join("node_modules/.bin");
    Spec {
        wire: Wire::OpenAiChat,
        tool: "Bash".into(),
        calls,
        final_text: "done".into(),
        model: "fake-model".into(),
        argv: vec![
            "node".into(),
            cli.display().to_string(),
            "-p".into(),
            "run the commands".into(),
            // an ask rule hangs plain -p (the host waits for an answer nobody can give)
            "--permission-mode".into(),
            "dontAsk".into(),
        ],
        env: support::agent_env(p, &bin, support::CODEBUDDY_ENV),
        cwd: p.project.clone(),
        timeout: support::timeout(),
        files: Vec::new(),
        stdin: None,
    }
}

#[test]
fn codebuddy_model_reads_compacted_output_and_nothing_else_changes() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    let mut scs = scenarios::compaction();
    scs.extend(scenarios::permissions());
    scs.extend(scenarios::latency());
    let case = Case {
        host: "codebuddy",
        wire: Wire::OpenAiChat,
        mechanism: "shell prefix (CODEBUDDY_CODE_SHELL_PREFIX) + a PreToolUse hook that only marks background commands",
        scenarios: scs,
        args: support::tool_args,
        setup,
        spec,
        report: true,
        version: |a| {
            vec![
                "node".into(),
                support::codebuddy_cli(a).display().to_string(),
                "--version".into(),
            ]
        },
    };
    let (_, with) = drive::compare(&case, &agent);
    drive::assert_one_exit_line(&case, &with, "Exit Code: 1");
    // CODEBUDDY_CONFIG_DIR is the configuration directory itself
    drive::config_var_session(
        &case,
        &agent,
        "CODEBUDDY_CONFIG_DIR",
        "cfg/.codebuddy",
        "cfg",
    );
    // shell semantics with every command allowed (-y): the default mode above refuses the
    // compound ones before they run
    let semantics = Case {
        scenarios: scenarios::semantics(),
        spec: spec_yolo,
        report: false,
        ..case
    };
    drive::compare(&semantics, &agent);
}

/// The CodeBuddy CLI here is headless: it refuses a background command in `-p` mode and in
/// stream-json mode alike (its own message suggests the latter), so the background-marking
/// hook is proven only for the prefix itself (docs/hosts.md). When this fails, a CodeBuddy
/// version runs background commands headless, and the marking hook can be tested for real.
#[test]
fn codebuddy_headless_refuses_background_commands() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let call = json!({"command": "echo bg-start; sleep 0.2; echo bg-done",
        "description": "bg", "run_in_background": true});
    for stream in [false, true] {
        let work = tmp.path().join(if stream { "stream" } else { "print" });
        let p = Paths::under(&work);
        std::fs::create_dir_all(&p.project).unwrap();
        setup(&p);
        let mut s = spec_yolo(&agent, &p, vec![call.clone()]);
        if stream {
            s.argv.truncate(3);
            s.argv.extend(
                [
                    "--input-format",
                    "stream-json",
                    "--output-format",
                    "stream-json",
                    "-y",
                ]
                .map(String::from),
            );
            s.stdin = Some(
                json!({"type": "user", "message": {"role": "user", "content": "run the commands"}})
                    .to_string()
                    + "\n",
            );
        }
        let o = support::run(&s, &work);
        let text = o.results.first().map(|r| r.text.as_str()).unwrap_or("");
        assert!(
            text.contains("Background command execution is not supported"),
            "stream-json {stream}: {o:?}"
        );
    }
}
