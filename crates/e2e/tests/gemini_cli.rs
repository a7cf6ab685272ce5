//! Gemini CLI, the real CLI (pinned in e2e/agents.lock), with and without
//! `tokenjuice install gemini-cli`: the AfterTool hook must hand the model compacted output
//! through a read_file tail call, and nothing else may change (policy rules, dir_path,
//! background commands, exit lines).

mod support;

use serde_json::{json, Value};
use support::drive::{self, Case, Paths};
use support::scenarios::{self, Judge, Scenario};
use support::{Agent, Spec, Wire};

/// A comment in the user's Gemini settings.
const USER_COMMENT: &str = "my own settings: tokenjuice must keep this line";

fn setup(p: &Paths) {
    let allowed: Vec<String> = [
        "seq", "git log", "ls", "python3", "echo", "printf", "tr", "cat", "cd", "pwd", "mytool",
        "true", "sleep", "exit", "export", "envnames", "set", "shopt", "xargs", "grep", "ulimit",
        "umask",
    ]
    .iter()
    .map(|c| format!("run_shell_command({c})"))
    .collect();
    // the user's settings carry comments, which Gemini reads (and tokenjuice keeps)
    let settings = format!(
        "{{\n  // {USER_COMMENT}\n  \"security\": {},\n  /* commands that run unasked */\n  \"tools\": {}\n}}\n",
        json!({"auth": {"selectedType": "gemini-api-key"}}),
        json!({"allowed": allowed}),
    );
    let dir = p.home.join(".gemini");
    std::fs::create_dir_all(dir.join("policies")).unwrap();
    std::fs::write(dir.join("settings.json"), settings).unwrap();
    std::fs::write(
        dir.join("policies/deny-rm.toml"),
        "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"rm\"\ndecision = \"deny\"\npriority = 500\n",
    )
    .unwrap();
}

fn spec(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    support::gemini_spec(agent, p, "run the commands", calls)
}

#[test]
fn gemini_cli_model_reads_compacted_output_and_nothing_else_changes() {
    let Some(agent) = support::agent_or_skip("gemini-cli") else {
        return;
    };
    let mut scs = scenarios::compaction();
    // Gemini CLI tells binary output itself and gives the model `Output: (empty)` for it (the
    // `image done` after it too): with tokenjuice the same
    for sc in scs
        .iter_mut()
        .filter(|sc| sc.name == "binary data on stdout")
    {
        sc.judge = Judge::Same;
    }
    scs.extend(scenarios::semantics());
    scs.extend(scenarios::permissions());
    scs.push(Scenario {
        name: "dir_path argument",
        command: "pwd".into(),
        extra: json!({"dir_path": "sub"}),
        judge: Judge::Same,
    });
    scs.push(Scenario {
        name: "background command",
        command: "sleep 0.5; echo bg-done".into(),
        extra: json!({"is_background": true}),
        judge: Judge::SameShape(&["Command moved to background (PID: "]),
    });
    // a failing command's output over 10,000 characters (Claude Code cuts those)
    scs.push(scenarios::failing_over_10k());
    // over Gemini's 40,000 characters: its first 8,000 and last 32,000; tokenjuice's text
    // holds every line of them
    scs.push(scenarios::failing_cut_by_host_76k());
    scs.extend(scenarios::latency());
    let case = Case {
        host: "gemini-cli",
        wire: Wire::Gemini,
        mechanism: "AfterTool hook: tailToolCallRequest read_file of the compacted result",
        scenarios: scs,
        args: support::tool_args,
        setup,
        spec,
        report: true,
        version: |a| support::npm_bin_version(a, "gemini"),
    };
    let (_, with) = drive::compare(&case, &agent);
    drive::assert_one_exit_line(&case, &with, "Exit Code: 1");
    // the permission probes decided as without tokenjuice, so Gemini read the commented
    // settings both times; the install kept the comments
    let settings = std::fs::read_to_string(with.work.join("home/.gemini/settings.json")).unwrap();
    assert!(
        settings.contains(&format!("// {USER_COMMENT}\n"))
            && settings.contains("/* commands that run unasked */")
            && settings.contains("gemini-cli-post-tool-use"),
        "{settings}"
    );
    // GEMINI_CLI_HOME replaces the home directory: settings in $GEMINI_CLI_HOME/.gemini
    drive::config_var_session(
        &case,
        &agent,
        "GEMINI_CLI_HOME",
        "gemini-home",
        "gemini-home",
    );
}
