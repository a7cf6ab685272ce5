//! GitHub Copilot CLI (pinned in e2e/agents.lock), with and without
//! `tokenjuice install copilot-cli`: the postToolUse hook replaces the shell result with the
//! compacted text (the full output file for Copilot's large-output previews), keeps Copilot's
//! own `<shellId: … exit code N>` line, and nothing else changes.

mod support;

use serde_json::Value;
use support::drive::{self, Case, Paths};
use support::scenarios;
use support::{Agent, Spec, Wire};

fn setup(p: &Paths) {
    std::fs::create_dir_all(p.home.join(".copilot")).unwrap();
    // Copilot unpacks ~235 MB into ~/.cache/copilot on its first start: share one copy
    if let Ok(a) = support::agent("copilot-cli") {
        let shared = a.dir.join("home-cache");
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::create_dir_all(p.home.join(".cache")).unwrap();
        std::os::unix::fs::symlink(&shared, p.home.join(".cache/copilot")).unwrap();
    }
}

fn spec(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    let bin = agent.dir.join("node_modules/.bin");
    Spec {
        wire: Wire::OpenAiChat,
        tool: "bash".into(),
        calls,
        final_text: "done".into(),
        model: "fake-model".into(),
        argv: vec![
            bin.join("copilot").display().to_string(),
            "-p".into(),
            "run the commands".into(),
            "--allow-all-tools".into(),
            "--deny-tool".into(),
            "shell(rm)".into(),
            "--deny-tool".into(),
            "shell(touch)".into(),
        ],
        env: support::agent_env(
            p,
            &bin,
            &[
                ("COPILOT_OFFLINE", "true"),
                ("COPILOT_PROVIDER_BASE_URL", "http://127.0.0.1:{PORT}/v1"),
                ("COPILOT_PROVIDER_API_KEY", "e2e-fake"),
                ("COPILOT_MODEL", "fake-model"),
                ("SHELL", "/bin/bash"),
            ],
        ),
        cwd: p.project.clone(),
        timeout: support::timeout(),
        files: Vec::new(),
        stdin: None,
    }
}

#[test]
fn copilot_cli_model_reads_compacted_output_and_nothing_else_changes() {
    let Some(agent) = support::agent_or_skip("copilot-cli") else {
        return;
    };
    let mut scs = scenarios::compaction();
    // Copilot orders a command's stdout and stderr differently from run to run by itself
    scs.extend(scenarios::semantics().into_iter().map(|mut s| {
        if s.name == "non-zero exit" {
            s.judge = scenarios::Judge::SameLines;
        }
        s
    }));
    // --allow-all-tools: no "ask" exists in -p mode; deny rules still apply
    scs.extend(
        scenarios::permissions()
            .into_iter()
            .filter(|s| s.name != "ask rule"),
    );
    scs.push(scenarios::Scenario {
        name: "background command",
        command: "echo bg-start; sleep 0.3; echo bg-done".into(),
        extra: serde_json::json!({"mode": "async"}),
        judge: scenarios::Judge::Same,
    });
    // a failing command's output over 10,000 characters (Claude Code cuts those)
    scs.push(scenarios::failing_over_10k());
    // over Copilot's ~20 KB: its 500-character preview; tokenjuice's text holds every line of it
    scs.push(scenarios::failing_cut_by_host());
    scs.extend(scenarios::latency());
    let case = Case {
        host: "copilot-cli",
        wire: Wire::OpenAiChat,
        mechanism: "postToolUse hook: modifiedResult with the compacted text (the saved full output for large-output previews)",
        scenarios: scs,
        args: support::tool_args,
        setup,
        spec,
        report: true,
        version: |a| support::npm_bin_version(a, "copilot"),
    };
    let (_, with) = drive::compare(&case, &agent);
    drive::assert_one_exit_line(&case, &with, "exit code 1");
}
