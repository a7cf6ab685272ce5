//! Claude Code, the real CLI (pinned in e2e/agents.lock), with and without
//! `tokenjuice install claude-code`, same scripted session: the model must read compacted
//! output where output is noisy, and everything else must be exactly as without tokenjuice.

mod support;

use serde_json::{json, Value};
use support::drive::{self, Case, Paths};
use support::scenarios::{self, Judge, Scenario};
use support::{Agent, Spec, Wire};

fn setup(p: &Paths) {
    let settings = json!({
        "permissions": {
            "allow": ["Bash(seq:*)", "Bash(git log:*)", "Bash(ls:*)", "Bash(python3 -m unittest:*)", "Bash(python3 retry.py)", "Bash(python3 -c:*)",
                      "Bash(echo:*)", "Bash(printf:*)", "Bash(cat:*)", "Bash(cd:*)", "Bash(pwd)",
                      "Bash(mytool:*)", "Bash(sleep:*)", "Bash(true:*)", "Bash(export:*)",
                      "Bash(envnames)", "Bash(sh:*)", "Bash(test:*)", "Bash(timeout:*)", "Bash(wc:*)", "Bash(set:*)", "Bash(shopt:*)", "Bash(xargs)", "Bash(grep:*)", "Bash(ulimit:*)", "Bash(umask)"],
            "deny": ["Bash(rm:*)"],
            "ask": ["Bash(git push:*)"]
        },
        // tokenjuice needs no hook in Claude Code: compaction must work with hooks off
        "disableAllHooks": true
    });
    let path = p.home.join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, settings.to_string()).unwrap();
}

/// `setup` with Claude's inline limit lowered to its minimum (`bashOutputMaxChars`).
fn setup_small_cut(p: &Paths) {
    setup(p);
    let path = p.home.join(".claude/settings.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["bashOutputMaxChars"] = json!(4000);
    std::fs::write(path, v.to_string()).unwrap();
}

fn spec(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    spec_with_shell(agent, p, calls, None)
}

/// A user whose shell is zsh (Claude Code runs its shell lines with `SHELL` when that is bash
/// or zsh), with an alias and a function in `~/.zshrc`, which Claude's shell snapshot takes.
fn setup_zsh(p: &Paths) {
    setup_allowing(p, &["Bash(greet:*)", "Bash(tj_fn:*)"]);
    support::write_zshrc(&p.home);
}

/// `setup` with these rules added to the allow list.
fn setup_allowing(p: &Paths, rules: &[&str]) {
    setup(p);
    let path = p.home.join(".claude/settings.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for rule in rules {
        v["permissions"]["allow"]
            .as_array_mut()
            .unwrap()
            .push(json!(rule));
    }
    std::fs::write(path, v.to_string()).unwrap();
}

/// The shared scenarios, a probe of the user's shell and a failing output over 10k, run as
/// that user (`setup`, `spec`): the case's scenarios end with the probe and the failure.
fn another_shell(
    mechanism: &'static str,
    probe: Scenario,
    setup: fn(&Paths),
    spec: fn(&Agent, &Paths, Vec<Value>) -> Spec,
) -> Case {
    let mut scs = scenarios::compaction();
    scs.extend(scenarios::semantics());
    scs.extend(scenarios::permissions());
    scs.extend([probe, scenarios::failing_over_10k()]);
    Case {
        host: "claude-code",
        wire: Wire::Anthropic,
        mechanism,
        scenarios: scs,
        args: support::tool_args,
        setup,
        spec,
        report: false,
        version: |a| support::npm_bin_version(a, "claude"),
    }
}

fn spec_zsh(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    let zsh = support::zsh().expect("zsh is installed (.ci/run installs it)");
    spec_with_shell(agent, p, calls, Some(&zsh))
}

fn spec_with_shell(agent: &Agent, p: &Paths, calls: Vec<Value>, shell: Option<&str>) -> Spec {
    let bin = agent.dir.join("node_modules/.bin");
    let mut own = vec![
        ("ANTHROPIC_BASE_URL", "http://127.0.0.1:{PORT}"),
        ("ANTHROPIC_API_KEY", "sk-e2e-fake"),
        ("DISABLE_AUTOUPDATER", "1"),
    ];
    if let Some(sh) = shell {
        own.push(("SHELL", sh));
    }
    Spec {
        wire: Wire::Anthropic,
        tool: "Bash".into(),
        calls,
        final_text: "done".into(),
        model: "claude-sonnet-4-5".into(),
        argv: vec![
            bin.join("claude").display().to_string(),
            "-p".into(),
            "run the commands".into(),
            "--output-format".into(),
            "stream-json".into(),
            "--verbose".into(),
        ],
        env: support::agent_env(p, &bin, &own),
        cwd: p.project.clone(),
        timeout: support::timeout(),
        files: Vec::new(),
        stdin: None,
    }
}

/// The file Claude writes a background command's output to, as its result names it.
fn background_output(run: &drive::Run, text: &str) -> Option<String> {
    let start = text.find("Output is being written to: ")? + "Output is being written to: ".len();
    let rest = &text[start..];
    let end = rest.find(".output")? + ".output".len();
    // the file is in the session's TMPDIR, whose folder may have moved since (see
    // `drive::compare`): the part after it names the file
    let inside = rest[..end].rsplit_once("/tmp/")?.1;
    std::fs::read_to_string(run.work.join("tmp").join(inside)).ok()
}

#[test]
fn claude_code_model_reads_compacted_output_and_nothing_else_changes() {
    let Some(agent) = support::agent_or_skip("claude-code") else {
        return;
    };
    let mut scs = scenarios::compaction();
    scs.extend(scenarios::semantics());
    scs.extend(scenarios::permissions());
    scs.push(Scenario {
        name: "background command",
        command: "echo bg-start; sleep 0.2; echo bg-done".into(),
        extra: json!({"run_in_background": true}),
        judge: Judge::SameShape(&["Command running in background with ID:", "tasks/"]),
    });
    // failing commands' output over 10,000 characters, which Claude cuts to its first and
    // last 5,000: 400 distinct lines (nothing smaller holds what Claude shows of them, so
    // Claude gets them and cuts them as without us), and a coloured log with progress runs
    // (tokenjuice's text holds every line Claude would show, in fewer tokens, under the cut)
    scs.push(scenarios::failing_over_10k());
    scs.push(scenarios::failing_cut_by_host());
    scs.extend(scenarios::latency());
    let at = |name: &str| scs.iter().position(|s| s.name == name).unwrap();
    let (failing_19k, failing_27k) = (
        at("failing output over the 10k cut"),
        at("failing output the host cuts"),
    );
    let bg = scs
        .iter()
        .position(|s| s.name == "background command")
        .unwrap();
    let case = Case {
        host: "claude-code",
        wire: Wire::Anthropic,
        mechanism: "shell prefix (CLAUDE_CODE_SHELL_PREFIX), no hook: the output streams into Claude's task file and is replaced by the compaction",
        scenarios: scs,
        args: support::tool_args,
        setup,
        spec,
        report: true,
        version: |a| support::npm_bin_version(a, "claude"),
    };
    let (without, with) = drive::compare(&case, &agent);
    // a background command's output streams to its file untouched, as without tokenjuice
    let file = background_output(&with, &with.outcome.results[bg].text);
    assert!(
        file.as_deref().is_some_and(|t| t.contains("bg-done")),
        "the background command's file, with tokenjuice: {file:?}"
    );
    assert_eq!(
        file,
        background_output(&without, &without.outcome.results[bg].text),
        "background output file differs"
    );
    // the host prints the exit code; tokenjuice adds no second one
    drive::assert_one_exit_line(&case, &with, "Exit code 1");
    let (cut, ours) = (
        &without.outcome.results[failing_19k].text,
        &with.outcome.results[failing_19k].text,
    );
    assert!(
        cut.contains("characters truncated] ...") && ours.contains("characters truncated] ..."),
        "Claude cuts the 400 distinct lines itself, with tokenjuice too: {ours}"
    );
    let (cut, ours) = (
        &without.outcome.results[failing_27k].text,
        &with.outcome.results[failing_27k].text,
    );
    assert!(
        cut.contains("characters truncated] ..."),
        "Claude cuts it: {cut}"
    );
    assert!(
        !ours.contains("characters truncated] ...") && ours.chars().count() <= 10_000,
        "cut by Claude with tokenjuice: {ours}"
    );
    // CLAUDE_CONFIG_DIR is the configuration directory itself
    drive::config_var_session(&case, &agent, "CLAUDE_CONFIG_DIR", "cfg/.claude", "cfg");
    // bashOutputMaxChars moves Claude's cut: tokenjuice's text stays under it (no preview)
    let small_cut = Case {
        scenarios: scenarios::compaction(),
        setup: setup_small_cut,
        report: false,
        ..case
    };
    let (without, with) = drive::compare(&small_cut, &agent);
    assert!(
        without
            .outcome
            .results
            .iter()
            .any(|r| r.text.contains("<persisted-output>")),
        "Claude previews these outputs itself at 4,000 characters"
    );
    for r in &with.outcome.results {
        assert!(
            !r.text.contains("<persisted-output>") && r.text.chars().count() <= 4_000,
            "over Claude's cut with tokenjuice: {}",
            r.text.chars().take(1500).collect::<String>()
        );
    }
}

#[test]
fn claude_code_zsh_user_model_reads_compacted_output_and_nothing_else_changes() {
    let Some(agent) = support::agent_or_skip("claude-code") else {
        return;
    };
    let case = another_shell(
        "shell prefix (CLAUDE_CODE_SHELL_PREFIX), a zsh user",
        Scenario {
            name: "alias and function from .zshrc",
            command: support::ZSHRC_PROBE.into(),
            extra: json!({}),
            judge: Judge::Same,
        },
        setup_zsh,
        spec_zsh,
    );
    let (without, _) = drive::compare(&case, &agent);
    // the session really ran zsh, with the user's .zshrc
    let alias = &without.outcome.results[case.scenarios.len() - 2].text;
    assert!(support::ran_zshrc(alias), "{alias}");
}

/// A user whose `SHELL` is a bash older than 5 (macOS's `/bin/bash` is 3.2), which Claude
/// Code runs its shell lines with: the prefix compacts there too and nothing else changes.
/// No such bash is packaged where CI runs, so this runs only when `TOKENJUICE_OLD_BASH`
/// names one (`--run-ignored only -E 'test(older_than_5)'`).
fn setup_old_bash(p: &Paths) {
    setup_allowing(p, &["Bash(nosuchcommand-tj:*)"]);
}

fn spec_old_bash(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    spec_with_shell(agent, p, calls, Some(&support::old_bash()))
}

#[test]
#[ignore = "needs TOKENJUICE_OLD_BASH: a bash older than 5, which no package here provides"]
fn claude_code_user_of_a_bash_older_than_5_reads_compacted_output_and_nothing_else_changes() {
    let Some(agent) = support::agent_or_skip("claude-code") else {
        return;
    };
    let case = another_shell(
        "shell prefix (CLAUDE_CODE_SHELL_PREFIX), a user of a bash older than 5",
        Scenario {
            name: "the shell Claude runs",
            // Claude refuses to run a variable it cannot check: the shell names itself in
            // its message for a missing command
            command: "nosuchcommand-tj".into(),
            extra: json!({}),
            judge: Judge::Same,
        },
        setup_old_bash,
        spec_old_bash,
    );
    let (without, _) = drive::compare(&case, &agent);
    let old = support::old_bash();
    let shell = &without.outcome.results[case.scenarios.len() - 2].text;
    assert!(shell.contains(&format!("{old}: ")), "{shell}");
}

/// A command that runs past the timeout the model gave it (`timeout`, 3 s): Claude moves it
/// to the background and shows what it printed so far; with background tasks switched off
/// (`CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1`) it ends it. Either way the model reads the same
/// as without tokenjuice.
#[test]
fn claude_code_a_command_past_its_timeout_reads_the_same() {
    let Some(agent) = support::agent_or_skip("claude-code") else {
        return;
    };
    fn spec_no_background(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
        let mut s = spec(agent, p, calls);
        s.env
            .push(("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS".into(), "1".into()));
        s
    }
    let case = Case {
        host: "claude-code",
        wire: Wire::Anthropic,
        mechanism: "shell prefix, a command past its timeout",
        scenarios: vec![Scenario {
            name: "foreground command past its timeout",
            command: "echo fg-start; seq 1 3; sleep 8; echo fg-done".into(),
            extra: json!({"timeout": 3000}),
            judge: Judge::SameShape(&["fg-start\n1\n2\n3"]),
        }],
        args: support::tool_args,
        setup,
        spec,
        report: false,
        version: |a| support::npm_bin_version(a, "claude"),
    };
    let (without, with) = drive::compare(&case, &agent);
    for r in [&without, &with] {
        let text = &r.outcome.results[0].text;
        assert!(text.contains("moved to the background"), "{text}");
    }
    let case = Case {
        spec: spec_no_background,
        ..case
    };
    let (without, with) = drive::compare(&case, &agent);
    for r in [&without, &with] {
        let text = &r.outcome.results[0].text;
        assert!(
            text.contains("Command timed out after 3s\nfg-start\n1\n2\n3"),
            "{text}"
        );
    }
}
