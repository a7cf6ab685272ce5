//! opencode (pinned in e2e/agents.lock), with and without `tokenjuice install opencode`: the
//! plugin replaces bash results with the compacted text after the command ran as the model
//! asked; nothing else may change (the command the model sees in its history, permission
//! patterns, PATH).

mod support;

use serde_json::{json, Value};
use support::drive::{self, Case, Paths};
use support::scenarios;
use support::{Agent, Spec, Wire};

fn config() -> Value {
    json!({
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": false,
        "share": "disabled",
        "provider": {"fake": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "fake",
            "options": {"baseURL": "http://127.0.0.1:{PORT}/v1", "apiKey": "e2e-fake"},
            "models": {"fake-model": {"name": "fake-model"}}
        }},
        "model": "fake/fake-model",
        "permission": {"bash": {"*": "allow", "rm *": "deny", "git push *": "ask", "touch *": "deny"}}
    })
}

fn setup(p: &Paths) {
    let dir = p.home.join(".config/opencode");
    std::fs::create_dir_all(&dir).unwrap();
    // opencode installs its plugin API package into the config folder before it loads a user
    // plugin; there is no network in the test namespace, so it gets the pinned copy (without
    // it, a session with any plugin waits ~70 s for npm to give up)
    if let Ok(pkg) = support::agent("opencode-plugin") {
        for f in ["package.json", "package-lock.json"] {
            std::fs::copy(pkg.dir.join(f), dir.join(f)).unwrap();
        }
        let status = std::process::Command::new("cp")
            .arg("-r")
            .arg(pkg.dir.join("node_modules"))
            .arg(&dir)
            .status()
            .unwrap();
        assert!(status.success());
    }
}

fn spec(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    spec_with(agent, p, calls, config())
}

/// The user raised opencode's `tool_output` limits (2,000 lines and 51,200 bytes unless set)
/// so that it shows long outputs whole.
fn spec_raised_limits(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    let mut c = config();
    c["tool_output"] = json!({"max_lines": 100000, "max_bytes": 4194304});
    spec_with(agent, p, calls, c)
}

fn spec_with(agent: &Agent, p: &Paths, calls: Vec<Value>, config: Value) -> Spec {
    let bin = agent.dir.join("node_modules/.bin");
    Spec {
        wire: Wire::OpenAiChat,
        tool: "bash".into(),
        calls,
        final_text: "done".into(),
        model: "fake-model".into(),
        argv: vec![
            bin.join("opencode").display().to_string(),
            "run".into(),
            "run the commands".into(),
        ],
        env: support::agent_env(
            p,
            &bin,
            &[("SHELL", "/bin/bash"), ("OPENCODE_DISABLE_AUTOUPDATE", "1")],
        ),
        cwd: p.project.clone(),
        timeout: support::timeout(),
        files: vec![(
            p.home.join(".config/opencode/opencode.json"),
            config.to_string(),
        )],
        stdin: None,
    }
}

#[test]
fn opencode_model_reads_compacted_output_and_nothing_else_changes() {
    let Some(agent) = support::agent_or_skip("opencode") else {
        return;
    };
    let mut scs = scenarios::compaction();
    // opencode 1.18 now and then keeps only part of a long output that arrives at once and
    // ends with the process (`seq 1 20000`): twice the run with tokenjuice got it cut short
    // (once the text the plugin reduced stopped at line 16187), and the plugin takes
    // opencode's saved output only once it ends with the line opencode itself showed last,
    // so opencode's own text stopped there too. A pause before the exit lets opencode read it
    // all, with and without tokenjuice alike.
    for s in scs.iter_mut().filter(|s| s.command.starts_with("seq ")) {
        s.command.push_str("; sleep 0.2");
    }
    scs.extend(scenarios::semantics());
    // `opencode run` ends the session at an "ask" (nobody can answer): that probe is left out
    scs.extend(
        scenarios::permissions()
            .into_iter()
            .filter(|s| s.name != "ask rule"),
    );
    scs.push(scenarios::Scenario {
        name: "workdir argument",
        command: "pwd".into(),
        extra: serde_json::json!({"workdir": "sub"}),
        judge: scenarios::Judge::Same,
    });
    // a failing command's output over 10,000 characters (Claude Code cuts those)
    scs.push(scenarios::failing_over_10k());
    // over 2,000 lines and 51,200 bytes: opencode shows its last lines (with the pause
    // before the exit that the seq scenarios have, for the same reason)
    let mut cut = scenarios::failing_cut_by_host_76k();
    cut.command = format!("{}; r=$?; sleep 0.2; exit $r", cut.command);
    scs.push(cut);
    // opencode's `timeout` is in milliseconds
    scs.push(scenarios::past_its_timeout(json!({"timeout": 3000})));
    scs.extend(scenarios::latency());
    let case = Case {
        host: "opencode",
        wire: Wire::OpenAiChat,
        mechanism: "plugin: tool.execute.after replaces the bash result with the compacted text",
        scenarios: scs,
        args: support::tool_args,
        setup,
        spec,
        report: true,
        version: |a| support::npm_bin_version(a, "opencode"),
    };
    let (without, with) = drive::compare(&case, &agent);
    // the model's own command is what its history holds (no wrapper text)
    for run in [&without, &with] {
        let last = run
            .outcome
            .requests
            .last()
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        assert!(
            !last.contains("wrap --source"),
            "wrapper text in the model's history"
        );
    }
}

/// With `tool_output` limits raised, opencode shows a long output whole, and the plugin
/// (which cannot read opencode's config) sees that it was shown past the default cut: the
/// model must then get every line opencode showed, in fewer tokens.
#[test]
fn opencode_with_raised_output_limits_keeps_every_line_it_shows() {
    let Some(agent) = support::agent_or_skip("opencode") else {
        return;
    };
    // the pause before the exit: see the test above
    let seq = scenarios::Scenario {
        name: "seq 20k lines",
        command: "seq 1 20000; sleep 0.2".into(),
        extra: json!({}),
        judge: scenarios::Judge::Compacts(&["\n1\n", "20000"]),
    };
    let mut cut = scenarios::failing_cut_by_host_76k();
    cut.command = format!("{}; r=$?; sleep 0.2; exit $r", cut.command);
    let scs = vec![seq, cut, scenarios::failing_over_10k()];
    let case = Case {
        host: "opencode",
        wire: Wire::OpenAiChat,
        mechanism: "plugin, with opencode's tool_output limits raised",
        scenarios: scs,
        args: support::tool_args,
        setup,
        spec: spec_raised_limits,
        report: false,
        version: |a| support::npm_bin_version(a, "opencode"),
    };
    let (without, _) = drive::compare(&case, &agent);
    // opencode did show the 76 KB output whole (else this proves nothing)
    let text = &without.outcome.results[1].text;
    assert!(
        !text.contains("output truncated") && text.matches("error:").count() == 300,
        "{}",
        text.chars().take(500).collect::<String>()
    );
}
