//! Factory Droid (`droid exec`, pinned in e2e/agents.lock), with and without `tokenjuice
//! install droid`: the SessionStart hook's BASH_ENV script must hand the model compacted
//! output while Droid's risk levels, autonomy and deny list decide exactly as without
//! tokenjuice, and the command, its environment, folder, background launches and timeouts
//! behave as without it. `droid exec` ends the session at the first command it refuses, so
//! the refusals are probed in sessions of their own.

mod support;

use serde_json::{json, Value};
use support::drive::{self, Case, Paths};
use support::scenarios::{self, Judge, Scenario};
use support::{Agent, Spec, Wire};

/// The binary inside the platform package (it has no `.bin` link).
const DROID: &str = "node_modules/@factory/cli-linux-x64/bin/droid";

fn setup(p: &Paths) {
    let settings = json!({
        "customModels": [{
            "model": "fake-model",
            "displayName": "fake-model",
            "baseUrl": "http://127.0.0.1:{PORT}/v1",
            "apiKey": "e2e-fake",
            "provider": "generic-chat-completion-api",
            "maxOutputTokens": 4096
        }],
        "commandDenylist": ["rm"]
    });
    let dir = p.home.join(".factory");
    std::fs::create_dir_all(&dir).unwrap();
    // {PORT} is filled in when the session starts (see spec); the user's settings carry
    // comments, which Droid reads (JSONC) and tokenjuice keeps
    let text = serde_json::to_string_pretty(&settings).unwrap().replacen(
        "{\n",
        &format!("{{\n  // {USER_COMMENT}\n  /* the fake model */\n"),
        1,
    );
    std::fs::write(dir.join("settings.json"), text).unwrap();
}

/// A comment in the user's Droid settings.
const USER_COMMENT: &str = "my own settings: tokenjuice must keep this line";

/// Droid's Execute arguments: the model declares a risk level, which Droid's autonomy
/// level (`--auto low` here) and deny list judge.
fn args(s: &Scenario) -> Value {
    let risk = if s.command.starts_with("rm ") || s.command.starts_with("git push") {
        "high"
    } else if s.command.starts_with("touch ") {
        "medium"
    } else {
        "low"
    };
    let mut a = json!({
        "summary": "Run the scenario command now",
        "command": s.command,
        "riskLevelReason": "The scenario says so.",
        "riskLevel": risk,
    });
    for (k, v) in s.extra.as_object().into_iter().flatten() {
        a[k] = v.clone();
    }
    a
}

fn spec(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    let settings = p.home.join(".factory/settings.json");
    // as setup wrote it, and `tokenjuice install droid` after it
    let text = std::fs::read_to_string(&settings).unwrap();
    let bin = agent.dir.join(DROID);
    Spec {
        wire: Wire::OpenAiChat,
        tool: "Execute".into(),
        calls,
        final_text: "done".into(),
        model: "fake-model".into(),
        argv: vec![
            bin.display().to_string(),
            "exec".into(),
            "-m".into(),
            "custom:fake-model".into(),
            "--auto".into(),
            "low".into(),
            "run the commands".into(),
        ],
        env: support::agent_env(p, bin.parent().unwrap(), &[("SHELL", "/bin/bash")]),
        cwd: p.project.clone(),
        timeout: support::timeout(),
        files: vec![(settings, text)],
        stdin: None,
    }
}

#[test]
fn droid_model_reads_compacted_output_and_nothing_else_changes() {
    let Some(agent) = support::agent_or_skip("droid") else {
        return;
    };
    let mut scs = scenarios::compaction();
    scs.extend(scenarios::semantics());
    // the allowed probe; the refused ones end `droid exec` (see the next test)
    scs.extend(
        scenarios::permissions()
            .into_iter()
            .filter(|s| s.name == "allow prefix"),
    );
    // a launch Droid itself puts in the background (not through its command shell): left
    // alone; the pid and the log file's name differ from run to run
    scs.push(Scenario {
        name: "fireAndForget launch",
        command: "echo from-the-background; sleep 1".into(),
        extra: json!({"fireAndForget": true}),
        judge: Judge::SameShape(&["Background process started", "Running in background"]),
    });
    // a background child of a foreground command: the call returns at once, as without us
    scs.push(Scenario {
        name: "background child",
        command: "(sleep 3; echo late) & echo started".into(),
        extra: json!({}),
        judge: Judge::Same,
    });
    // Droid's timeout kills the command and shows the output so far: the same lines (the
    // count of ticks may differ by one from run to run)
    scs.push(Scenario {
        name: "timeout",
        command:
            "echo started; i=0; while [ $i -lt 100 ]; do echo tick $i; i=$((i+1)); sleep 0.2; done"
                .into(),
        extra: json!({"timeout": 2}),
        judge: Judge::SameShape(&[
            "Command timed out after 2 seconds",
            "Partial output before timeout:\nstarted\ntick 0\ntick 1\ntick 2\n",
        ]),
    });
    // failing commands' output over the 12,000 characters Droid shows whole: Droid makes a
    // summary of it (its keyword lines with context); 400 distinct lines (nothing smaller
    // holds what that summary shows, so Droid gets them as without us), and a coloured log
    // with progress runs (tokenjuice's text holds every line of Droid's summary, in fewer
    // tokens)
    scs.push(scenarios::failing_over_10k());
    scs.push(scenarios::failing_cut_by_host());
    scs.extend(scenarios::latency());
    let case = Case {
        host: "droid",
        wire: Wire::OpenAiChat,
        mechanism: "BASH_ENV from a SessionStart hook: Droid's command shell sends the output through tokenjuice, which writes it into Droid's file as it comes and replaces it with the compaction at the end",
        scenarios: scs,
        args,
        setup,
        spec,
        report: true,
        version: |a| vec![a.dir.join(DROID).display().to_string(), "--version".into()],
    };
    let (_, with) = drive::compare(&case, &agent);
    drive::assert_one_exit_line(&case, &with, "[Process exited with code 1]");
    // Droid read the commented settings both times (its fake model is named there), and
    // the install kept the comments
    let settings = std::fs::read_to_string(with.work.join("home/.factory/settings.json")).unwrap();
    assert!(
        settings.contains(&format!("// {USER_COMMENT}\n"))
            && settings.contains("/* the fake model */")
            && settings.contains("droid-session-start"),
        "{settings}"
    );
}

/// One `droid exec` session of `calls`, with or without tokenjuice: its exit, what it said,
/// the results the model got, and whether the probes' side effects happened.
fn refusal_session(
    agent: &Agent,
    work: &std::path::Path,
    with_tj: bool,
    calls: Vec<Value>,
) -> Value {
    let p = Paths::under(work);
    std::fs::create_dir_all(&p.home).unwrap();
    support::project(&p.project);
    support::agent_tools(work);
    setup(&p);
    if with_tj {
        drive::install_host("droid", &p.home, &p.project, None);
    }
    let o = support::run(&spec(agent, &p, calls), work);
    json!({
        "exit": o.exit,
        "stderr": o.stderr.trim(),
        "results": o.results.iter().map(|r| r.text.clone()).collect::<Vec<_>>(),
        "victim kept": p.project.join("victim.txt").exists(),
        "nothing written": !p.project.join("created-by-agent.txt").exists(),
    })
}

#[test]
fn droid_refuses_the_same_commands_with_and_without_tokenjuice() {
    let Some(agent) = support::agent_or_skip("droid") else {
        return;
    };
    let probes = |refused: &str| -> Vec<Value> {
        let mut v: Vec<Value> = scenarios::permissions()
            .iter()
            .filter(|s| s.name == "allow prefix" || s.name == refused)
            .map(args)
            .collect();
        // the allowed one first, then the refusal that ends the session
        v.sort_by_key(|a| a["riskLevel"] != "low");
        v
    };
    // `rm` is on the deny list and declared high-risk; `git push` high-risk; `touch`
    // medium-risk: every one is over `--auto low`
    for refused in ["deny rule", "ask rule", "no rule, writes"] {
        let tmp = tempfile::tempdir().unwrap();
        let work = tmp.path().join("session");
        let without = refusal_session(&agent, &work, false, probes(refused));
        std::fs::rename(&work, tmp.path().join("first")).unwrap();
        let with = refusal_session(&agent, &work, true, probes(refused));
        eprintln!("droid {refused}: {with}");
        assert_eq!(
            with, without,
            "{refused}: decided differently with tokenjuice"
        );
        assert_eq!(with["exit"], 1, "{refused}: refused: {with}");
        assert!(
            with["stderr"]
                .as_str()
                .unwrap()
                .contains("insufficient permission"),
            "{refused}: {with}"
        );
        assert_eq!(with["victim kept"], true);
        assert_eq!(with["nothing written"], true);
        assert_eq!(
            with["results"].as_array().unwrap().len(),
            1,
            "the allowed probe ran: {with}"
        );
    }
}

/// `argv` run in a mount namespace where `/bin/bash` is `TOKENJUICE_OLD_BASH`.
fn with_old_bash(argv: Vec<String>) -> Vec<String> {
    let mut wrapped = support::with_file_bound(&support::old_bash(), "/bin/bash");
    wrapped.extend(argv);
    wrapped
}

fn spec_old_bash(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    let mut s = spec(agent, p, calls);
    s.argv = with_old_bash(s.argv);
    s
}

/// Droid runs every command with `/bin/bash`; a bash older than 5 reads the script before it
/// sets `$0`, so the script cannot tell Droid's command shell there and steps aside, giving
/// `BASH_ENV` back (macOS's `/bin/bash` is 3.2). With such a bash the model
/// reads exactly what it reads without tokenjuice, and `doctor droid` says nothing is
/// compacted. No such bash is packaged where CI runs, so this runs only when
/// `TOKENJUICE_OLD_BASH` names one (`--run-ignored only`); it needs a mount namespace.
#[test]
#[ignore = "needs TOKENJUICE_OLD_BASH: a bash older than 5, which no package here provides"]
fn droid_with_a_bash_older_than_5_is_left_as_it_is_and_doctor_says_so() {
    let Some(agent) = support::agent_or_skip("droid") else {
        return;
    };
    let mut scs: Vec<Scenario> = scenarios::compaction()
        .into_iter()
        .map(|mut s| {
            // the test run's own time, the files' and commits' times (made for each
            // session) differ from run to run, and with such a bash Droid's own count of
            // the lines it skips in a long output moves by a few; its job notice, now and
            // then a line of the saved output, moves the window of the last lines by one
            s.judge = match s.name {
                "seq 5k lines" | "seq 20k lines" => {
                    Judge::SameWindow(&["lines skipped ...]", "[Process exited with code 0]"])
                }
                "failing test run" => Judge::SameWindow(&["FAILED (failures=1)", "42 != 43"]),
                "ls -la of 300 files" => Judge::SameWindow(&["img_0001.png", "img_0300.png"]),
                "git log of 200 commits" => Judge::SameWindow(&["change 200:", "change 1:"]),
                _ => Judge::Same,
            };
            s
        })
        .collect();
    scs.extend(scenarios::semantics());
    scs.push(Scenario {
        name: "the shell Droid runs",
        command: "echo \"${BASH_VERSINFO[0]}.${BASH_VERSINFO[1]} shlvl=$SHLVL\"".into(),
        extra: json!({}),
        judge: Judge::Same,
    });
    let case = Case {
        host: "droid",
        wire: Wire::OpenAiChat,
        mechanism: "BASH_ENV from a SessionStart hook, with a /bin/bash older than 5",
        scenarios: scs,
        args,
        setup,
        spec: spec_old_bash,
        report: false,
        version: |a| vec![a.dir.join(DROID).display().to_string(), "--version".into()],
    };
    let (without, _) = drive::compare(&case, &agent);
    let i = case
        .scenarios
        .iter()
        .position(|s| s.name == "the shell Droid runs")
        .unwrap();
    let shell = &without.outcome.results[i].text;
    let major = shell
        .lines()
        .next()
        .and_then(|l| l.split('.').next())
        .and_then(|m| m.parse::<u32>().ok());
    assert!(major.is_some_and(|m| m < 5), "{shell}");
    // doctor, with that bash as /bin/bash, says the script steps aside
    let (_tmp, p) = drive::installed_home("droid", setup);
    let argv = with_old_bash(vec![
        support::tokenjuice().display().to_string(),
        "doctor".into(),
        "droid".into(),
    ]);
    let out = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .env("HOME", &p.home)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("is not bash 5 or later") && !report.contains("health: ok"),
        "{report}"
    );
}
