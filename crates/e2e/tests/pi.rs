//! pi (pinned in e2e/agents.lock), with and without `tokenjuice install pi`: the extension
//! replaces bash results with the compacted text; nothing else may change. pi has no
//! permission rules, so the permission probes do not apply.

mod support;

use serde_json::{json, Value};
use support::drive::{self, Case, Paths};
use support::scenarios;
use support::{Agent, Spec, Wire};

fn setup(p: &Paths) {
    let models = json!({"providers": {"fake": {
        "baseUrl": "http://127.0.0.1:{PORT}/v1",
        "api": "openai-completions",
        "apiKey": "e2e-fake",
        "models": [{"id": "fake-model"}]
    }}});
    let dir = p.home.join(".pi/agent");
    std::fs::create_dir_all(&dir).unwrap();
    // the port is filled in by the session (files with {PORT})
    std::fs::write(dir.join("models.json.in"), models.to_string()).unwrap();
}

fn spec(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    let bin = agent.dir.join("node_modules/.bin");
    let models_in = p.home.join(".pi/agent/models.json.in");
    let models = std::fs::read_to_string(&models_in).unwrap();
    Spec {
        wire: Wire::OpenAiChat,
        tool: "bash".into(),
        calls,
        final_text: "done".into(),
        model: "fake-model".into(),
        argv: vec![
            bin.join("pi").display().to_string(),
            "--provider".into(),
            "fake".into(),
            "--model".into(),
            "fake-model".into(),
            "-p".into(),
            "run the commands".into(),
        ],
        env: support::agent_env(p, &bin, &[("PI_OFFLINE", "1"), ("SHELL", "/bin/bash")]),
        cwd: p.project.clone(),
        timeout: support::timeout(),
        files: vec![(p.home.join(".pi/agent/models.json"), models)],
        stdin: None,
    }
}

#[test]
fn pi_model_reads_compacted_output_and_nothing_else_changes() {
    let Some(agent) = support::agent_or_skip("pi") else {
        return;
    };
    let mut scs = scenarios::compaction();
    scs.extend(scenarios::semantics());
    // a failing command's output over 10,000 characters (Claude Code cuts those)
    scs.push(scenarios::failing_over_10k());
    // over 2,000 lines and 51,200 bytes: pi shows its last lines
    scs.push(scenarios::failing_cut_by_host_76k());
    // pi's `timeout` is in seconds
    scs.push(scenarios::past_its_timeout(
        serde_json::json!({"timeout": 3}),
    ));
    scs.extend(scenarios::latency());
    let case = Case {
        host: "pi",
        wire: Wire::OpenAiChat,
        mechanism: "extension: tool_result replaced by the compacted text",
        scenarios: scs,
        args: support::tool_args,
        setup,
        spec,
        report: true,
        version: |a| support::npm_bin_version(a, "pi"),
    };
    let (_, with) = drive::compare(&case, &agent);
    drive::assert_one_exit_line(&case, &with, "exited with code 1");
}
