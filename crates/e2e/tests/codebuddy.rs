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
            "allow": ["Bash(seq:*)", "Bash(git log:*)", "Bash(ls:*)", "Bash(python3 -m unittest:*)", "Bash(python3 retry.py)", "Bash(python3 -c:*)",
                      "Bash(echo:*)", "Bash(printf:*)", "Bash(cat:*)", "Bash(cd:*)", "Bash(pwd)",
                      "Bash(mytool:*)", "Bash(sleep:*)", "Bash(true:*)",
                      "Bash(exit:*)", "Bash(tr:*)", "Bash(X=1:*)",
                      "Bash(envnames)", "Bash(sh:*)", "Bash(test:*)", "Bash(timeout:*)", "Bash(wc:*)", "Bash(set:*)", "Bash(shopt:*)", "Bash(xargs)", "Bash(grep:*)", "Bash(ulimit:*)", "Bash(umask)"],
            "deny": ["Bash(rm:*)"],
            "ask": ["Bash(git push:*)"]
        }
    });
    let path = p.home.join(".codebuddy/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    // the user's settings carry comments, which CodeBuddy reads (and tokenjuice keeps)
    let text = format!("{{\n  // {USER_COMMENT}\n{}", &settings.to_string()[1..]);
    std::fs::write(path, text).unwrap();
}

/// A comment in the user's CodeBuddy settings.
const USER_COMMENT: &str = "my own settings: tokenjuice must keep this line";

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

/// The CLI's version command.
fn version(a: &Agent) -> Vec<String> {
    vec![
        "node".into(),
        support::codebuddy_cli(a).display().to_string(),
        "--version".into(),
    ]
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
        mechanism: "shell prefix (CODEBUDDY_CODE_SHELL_PREFIX), no hook: a background command's task files are left alone",
        scenarios: scs,
        args: support::tool_args,
        setup,
        spec,
        report: true,
        version,
    };
    let (_, with) = drive::compare(&case, &agent);
    drive::assert_one_exit_line(&case, &with, "Exit Code: 1");
    // CodeBuddy read the commented settings (its allow rules and tokenjuice's shell prefix
    // are there, and the commands ran compacted), and the install kept the comment
    let settings =
        std::fs::read_to_string(with.work.join("home/.codebuddy/settings.json")).unwrap();
    assert!(
        settings.contains(&format!("// {USER_COMMENT}\n"))
            && settings.contains("CODEBUDDY_CODE_SHELL_PREFIX"),
        "{settings}"
    );
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
    let mut yolo = scenarios::semantics();
    // CodeBuddy keeps a failing command's output whole up to its 30,000-character cut
    yolo.push(scenarios::failing_over_10k());
    let semantics = Case {
        scenarios: yolo,
        spec: spec_yolo,
        report: false,
        ..case
    };
    drive::compare(&semantics, &agent);
}

/// The CodeBuddy CLI refuses a background command in `-p` mode and in stream-json mode alike
/// (its own message suggests the latter); it runs them over ACP (next test). When this
/// fails, a CodeBuddy version runs them in print mode too, and the suite can test them there.
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

/// The CLI over the Agent Client Protocol (`--acp`), the mode in which it runs background
/// commands, driven by `e2e/acp-client.py`.
fn spec_acp(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    let mut s = spec(agent, p, calls);
    s.argv = vec![
        "python3".into(),
        support::repo_root()
            .join("e2e/acp-client.py")
            .display()
            .to_string(),
        "node".into(),
        support::codebuddy_cli(agent).display().to_string(),
        "--acp".into(),
    ];
    s
}

/// A background command's task file (`bg-tasks/<id>.stdout.log` under CodeBuddy's temp
/// folder, inside the session's `TMPDIR`), from the task id its result names.
fn background_output(tmp: &std::path::Path, result: &str) -> Option<String> {
    let id = result
        .split("task_id: ")
        .nth(1)?
        .split_whitespace()
        .next()?
        .to_string();
    let name = format!("{id}.stdout.log");
    let mut stack = vec![tmp.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() && !p.is_symlink() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == name.as_str())
                && p.parent().is_some_and(|d| d.ends_with("bg-tasks"))
            {
                return std::fs::read_to_string(p).ok();
            }
        }
    }
    None
}

/// In ACP mode CodeBuddy runs a background command with its task files as stdout and
/// stderr: through the prefix its output lands there untouched, every line, as without
/// tokenjuice (no hook marks it), while a foreground command is still compacted.
#[test]
fn codebuddy_background_commands_stream_untouched_without_a_hook() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    let scs = vec![
        scenarios::Scenario {
            name: "background command",
            command: "echo bg-start; sleep 0.3; seq 1 3000; echo bg-done".into(),
            extra: json!({"run_in_background": true}),
            judge: scenarios::Judge::SameShape(&["Running in background with task_id"]),
        },
        scenarios::Scenario {
            name: "wait for it",
            command: "sleep 1".into(),
            extra: json!({}),
            judge: scenarios::Judge::Same,
        },
        scenarios::Scenario {
            name: "seq 5k lines",
            command: "seq 1 5000".into(),
            extra: json!({}),
            judge: scenarios::Judge::Compacts(&["5000"]),
        },
    ];
    let case = Case {
        host: "codebuddy",
        wire: Wire::OpenAiChat,
        mechanism: "shell prefix, ACP mode",
        scenarios: scs,
        args: support::tool_args,
        setup,
        spec: spec_acp,
        report: false,
        version,
    };
    let (without, with) = drive::compare(&case, &agent);
    let files: Vec<Option<String>> = [&without, &with]
        .iter()
        .map(|r| background_output(&r.work.join("tmp"), &r.outcome.results[0].text))
        .collect();
    let expected = format!(
        "bg-start\n{}bg-done\n",
        (1..=3000).map(|i| format!("{i}\n")).collect::<String>()
    );
    assert_eq!(
        files[0].as_deref(),
        Some(expected.as_str()),
        "without tokenjuice"
    );
    assert_eq!(
        files[1].as_deref(),
        Some(expected.as_str()),
        "with tokenjuice"
    );
}

/// CodeBuddy moves a foreground command that runs past its timeout to the background and
/// shows the model the output so far (`Current Output (partial): …`); the model then polls
/// it. The prefix holds a command's output to compact it at the end, so it gives that up
/// shortly before the host's default timeout (`BASH_DEFAULT_TIMEOUT_MS`, here 4 s): what it
/// held goes out as it came, and the rest streams.
#[test]
fn codebuddy_a_foreground_command_past_its_timeout_shows_its_output_so_far() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    fn spec_short_timeout(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
        let mut s = spec_acp(agent, p, calls);
        s.env
            .push(("BASH_DEFAULT_TIMEOUT_MS".into(), "4000".into()));
        s
    }
    past_its_timeout(
        &agent,
        "a 4 s default timeout",
        json!({}),
        spec_short_timeout,
    );
}

/// The same with the timeout the model gives the one command (`timeout`, 4 s) and
/// CodeBuddy's default left as it is: the prefix reads the call's timeout from CodeBuddy's
/// session transcript, where the call is written before the command starts.
#[test]
fn codebuddy_a_command_past_the_timeout_the_model_gave_it_shows_its_output_so_far() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    past_its_timeout(
        &agent,
        "a 4 s timeout given by the model",
        json!({"timeout": 4000}),
        spec_acp,
    );
}

/// With auto-backgrounding switched off (`CODEBUDDY_BASH_AUTO_BACKGROUND_DISABLED=1`),
/// CodeBuddy ends a command at its timeout instead: the model must read the same as without
/// tokenjuice.
#[test]
fn codebuddy_without_auto_background_a_command_ended_at_its_timeout_shows_the_same() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    fn spec_no_background(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
        let mut s = spec_acp(agent, p, calls);
        s.env.extend([
            ("BASH_DEFAULT_TIMEOUT_MS".into(), "4000".into()),
            ("CODEBUDDY_BASH_AUTO_BACKGROUND_DISABLED".into(), "1".into()),
        ]);
        s
    }
    let scs = vec![scenarios::Scenario {
        name: "foreground command ended at its timeout",
        command: "echo fg-start; seq 1 3; sleep 7; echo fg-done".into(),
        extra: json!({}),
        judge: scenarios::Judge::Same,
    }];
    let case = Case {
        host: "codebuddy",
        wire: Wire::OpenAiChat,
        mechanism: "auto-background off, a 4 s default timeout",
        scenarios: scs,
        args: support::tool_args,
        setup,
        spec: spec_no_background,
        report: false,
        version,
    };
    let (without, with) = drive::compare(&case, &agent);
    // what was printed before the timeout, and the signal that ended it (with tokenjuice the
    // output was lost, and CodeBuddy read `Exit Code: 143` for the signal)
    for r in [&without, &with] {
        let text = &r.outcome.results[0].text;
        assert!(
            text.contains("Stdout: fg-start\n1\n2\n3") && text.contains("Signal: SIGTERM"),
            "{text}"
        );
    }
}

/// A command printing three lines, then sleeping past a 4 s timeout (`extra`: the call's
/// own arguments), run over ACP with and without tokenjuice: both times the model reads the
/// output so far.
fn past_its_timeout(
    agent: &Agent,
    what: &'static str,
    extra: Value,
    spec: fn(&Agent, &Paths, Vec<Value>) -> Spec,
) {
    let scs = vec![scenarios::Scenario {
        name: "foreground command past its timeout",
        command: "echo fg-start; seq 1 3; sleep 7; echo fg-done".into(),
        extra,
        judge: scenarios::Judge::SameShape(&["fg-start\n1\n2\n3", "task_id"]),
    }];
    let case = Case {
        host: "codebuddy",
        wire: Wire::OpenAiChat,
        mechanism: what,
        scenarios: scs,
        args: support::tool_args,
        setup,
        spec,
        report: false,
        version,
    };
    let (without, with) = drive::compare(&case, agent);
    for r in [&without, &with] {
        assert!(
            r.outcome.results[0]
                .text
                .contains("Current Output (partial): fg-start\n1\n2\n3"),
            "{}",
            r.outcome.results[0].text
        );
    }
}

/// A user whose shell is zsh (CodeBuddy runs its lines with `SHELL`), with an alias and a
/// function in `~/.zshrc`; every command allowed (`-y`).
fn setup_zsh(p: &Paths) {
    setup(p);
    support::write_zshrc(&p.home);
}

fn spec_zsh(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    let zsh = support::zsh().expect("zsh is installed (.ci/run installs it)");
    spec_with_shell(agent, p, calls, &zsh)
}

/// `spec_yolo` with `SHELL` set to `shell`.
fn spec_with_shell(agent: &Agent, p: &Paths, calls: Vec<Value>, shell: &str) -> Spec {
    let mut s = spec_yolo(agent, p, calls);
    for (k, v) in s.env.iter_mut() {
        if k == "SHELL" {
            *v = shell.to_string();
        }
    }
    s
}

/// Every compaction and semantics scenario, then a probe of the shell (`name`: `command`,
/// read the same with and without tokenjuice) and a failure over 10 k, for a user whose
/// shell is not bash 5.
fn another_shell(
    mechanism: &'static str,
    (name, command): (&'static str, String),
    setup: fn(&Paths),
    spec: fn(&Agent, &Paths, Vec<Value>) -> Spec,
) -> Case {
    let probe = scenarios::Scenario {
        name,
        command,
        extra: json!({}),
        judge: scenarios::Judge::Same,
    };
    let mut scs = scenarios::compaction();
    scs.extend(scenarios::semantics());
    scs.extend([probe, scenarios::failing_over_10k()]);
    Case {
        host: "codebuddy",
        wire: Wire::OpenAiChat,
        mechanism,
        scenarios: scs,
        args: support::tool_args,
        setup,
        spec,
        report: false,
        version,
    }
}

#[test]
fn codebuddy_zsh_user_model_reads_compacted_output_and_nothing_else_changes() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    let case = another_shell(
        "shell prefix (CODEBUDDY_CODE_SHELL_PREFIX), a zsh user",
        (
            "alias and function from .zshrc",
            format!("{}; echo $ZSH_NAME", support::ZSHRC_PROBE),
        ),
        setup_zsh,
        spec_zsh,
    );
    let (without, _) = drive::compare(&case, &agent);
    // the session really ran zsh, with the user's .zshrc
    let text = &without.outcome.results[case.scenarios.len() - 2].text;
    assert!(support::ran_zshrc(text), "{text}");
}

/// A user whose `SHELL` is a bash older than 5 (macOS's `/bin/bash` is 3.2), which
/// CodeBuddy runs its lines with: the prefix compacts there too and nothing else changes.
/// No such bash is packaged where CI runs, so this runs only when `TOKENJUICE_OLD_BASH`
/// names one (`--run-ignored only -E 'test(older_than_5)'`).
fn spec_old_bash(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    spec_with_shell(agent, p, calls, &support::old_bash())
}

#[test]
#[ignore = "needs TOKENJUICE_OLD_BASH: a bash older than 5, which no package here provides"]
fn codebuddy_user_of_a_bash_older_than_5_reads_compacted_output_and_nothing_else_changes() {
    let Some(agent) = support::agent_or_skip("codebuddy") else {
        return;
    };
    let case = another_shell(
        "shell prefix (CODEBUDDY_CODE_SHELL_PREFIX), a user of a bash older than 5",
        ("the shell CodeBuddy runs", "echo \"$BASH_VERSION\"".into()),
        setup,
        spec_old_bash,
    );
    let (without, _) = drive::compare(&case, &agent);
    let version = &without.outcome.results[case.scenarios.len() - 2].text;
    // CodeBuddy's own layout of a result: `Stdout: <what was printed>`
    assert!(
        version.contains("Stdout: 3.") || version.contains("Stdout: 4."),
        "{version}"
    );
}
