//! Codex CLI (pinned in e2e/agents.lock), with and without `tokenjuice install codex`: the
//! BASH_ENV script must hand the model compacted output while Codex's exec-policy rules,
//! sandbox, PATH and `workdir` decide and behave exactly as without tokenjuice.

mod support;

use serde_json::{json, Value};
use support::drive::{self, Case, Paths};
use support::scenarios::{self, Judge, Scenario};
use support::{Agent, Spec, Wire};

fn setup(p: &Paths) {
    let dir = p.home.join(".codex");
    std::fs::create_dir_all(dir.join("rules")).unwrap();
    // {PORT} is filled in when the session starts (see spec)
    std::fs::write(
        dir.join("config.toml"),
        "model = \"gpt-5.5\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"http://127.0.0.1:{PORT}/v1\"\nwire_api = \"responses\"\nenv_key = \"FAKE_KEY\"\n",
    )
    .unwrap();
    // a login shell's own start-up file, whose exported variable Codex's shell snapshot
    // (taken with `bash -lc`) carries into every command
    std::fs::write(
        p.home.join(".bash_profile"),
        "export FROM_PROFILE=from-profile\nfrom_profile() { echo hi; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("rules/default.rules"),
        "prefix_rule(pattern=[\"rm\"], decision=\"forbidden\", justification=\"no rm\")\nprefix_rule(pattern=[\"git\", \"push\"], decision=\"prompt\")\nprefix_rule(pattern=[\"touch\"], decision=\"prompt\")\n",
    )
    .unwrap();
}

fn args(s: &Scenario) -> Value {
    let mut a = json!({"cmd": s.command});
    for (k, v) in s.extra.as_object().into_iter().flatten() {
        a[k] = v.clone();
    }
    a
}

fn spec(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    spec_for(agent, p, calls, "/bin/bash", Vec::new())
}

/// The session as a user whose login shell is zsh: Codex takes the shell from the password
/// database, so the agent runs in a mount namespace where `/etc/passwd` names zsh.
fn spec_zsh(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    spec_as(agent, p, calls, &support::zsh().expect("zsh"))
}

/// A fish user: Codex runs their commands with bash (its fallback for a shell it does not run).
fn spec_fish(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    spec_as(agent, p, calls, &login_shell("fish").expect("fish"))
}

/// A user whose login shell is `sh`, which Codex runs as it is.
fn spec_sh(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    spec_as(agent, p, calls, "/bin/sh")
}

/// The session in a mount namespace whose `/etc/passwd` gives this user `shell`.
fn spec_as(agent: &Agent, p: &Paths, calls: Vec<Value>, shell: &str) -> Spec {
    let passwd = passwd_naming(p, shell);
    spec_for(agent, p, calls, shell, as_login_shell_user(&passwd))
}

/// The argv prefix that runs a program with `passwd` bound over `/etc/passwd`.
fn as_login_shell_user(passwd: &std::path::Path) -> Vec<String> {
    support::with_file_bound(&passwd.display().to_string(), "/etc/passwd")
}

/// A copy of `/etc/passwd` under the session folder whose entry for this user names `shell`.
fn passwd_naming(p: &Paths, shell: &str) -> std::path::PathBuf {
    let passwd = p.work.join("passwd");
    let text = std::fs::read_to_string("/etc/passwd").unwrap();
    // the owner of a folder this test made is the user the agent runs as
    let uid = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&p.work).unwrap()).to_string();
    let text: String = text
        .lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split(':').collect();
            if f.len() == 7 && f[2] == uid {
                f[6] = shell;
            }
            f.join(":") + "\n"
        })
        .collect();
    std::fs::write(&passwd, text).unwrap();
    passwd
}

/// Where `name` is installed, if it is.
fn login_shell(name: &str) -> Option<String> {
    ["/bin", "/usr/bin"]
        .iter()
        .map(|d| format!("{d}/{name}"))
        .find(|p| std::path::Path::new(p).is_file())
}

fn spec_for(agent: &Agent, p: &Paths, calls: Vec<Value>, shell: &str, wrap: Vec<String>) -> Spec {
    let bin = agent.dir.join("node_modules/.bin");
    let config = p.home.join(".codex/config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    let mut argv = wrap;
    argv.extend([
        bin.join("codex").display().to_string(),
        "exec".into(),
        "--skip-git-repo-check".into(),
        "-s".into(),
        "workspace-write".into(),
        "run the commands".into(),
    ]);
    Spec {
        wire: Wire::OpenAiResponses,
        tool: "exec_command".into(),
        calls,
        final_text: "done".into(),
        model: "gpt-5.5".into(),
        argv,
        env: support::agent_env(
            p,
            &bin,
            &[
                ("CODEX_HOME", &p.home.join(".codex").display().to_string()),
                ("FAKE_KEY", "e2e-fake"),
                ("SHELL", shell),
            ],
        ),
        cwd: p.project.clone(),
        timeout: support::timeout(),
        files: vec![(config, text)],
        stdin: None,
    }
}

/// `shell` installed, and a mount namespace to give the agent a password database that
/// names it; else why not. Without them the test fails, unless `TOKENJUICE_E2E=skip`.
fn login_shell_user_or_skip(shell: &str, what: &str) -> Option<String> {
    let why = match login_shell(shell) {
        Some(path) => {
            let ok = std::process::Command::new("unshare")
                .args(["-m", "sh", "-c", "mount --bind /etc/passwd /etc/passwd"])
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                return Some(path);
            }
            "no mount namespace here (`unshare -m` with a bind mount failed; it needs root)"
                .to_string()
        }
        None => format!("{shell} is not installed"),
    };
    if std::env::var("TOKENJUICE_E2E").as_deref() == Ok("skip") {
        eprintln!("SKIPPED e2e codex ({what}): {why}");
        return None;
    }
    panic!("e2e codex ({what}): {why}; set TOKENJUICE_E2E=skip to skip the real-agent tests");
}

/// `tokenjuice doctor codex` run as a user whose login shell is `shell`, with Codex set up
/// by `setup` and tokenjuice installed: its report.
fn doctor_as(shell: &str, setup: fn(&Paths)) -> String {
    let (_tmp, p) = drive::installed_home("codex", setup);
    let argv = as_login_shell_user(&passwd_naming(&p, shell));
    let out = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .arg(support::tokenjuice())
        .args(["doctor", "codex"])
        .env("HOME", &p.home)
        .env_remove("CODEX_HOME")
        .env_remove("ZDOTDIR")
        .output()
        .unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The user's own zsh start-up files: `~/.zshenv` exports a variable and moves ZDOTDIR to
/// `~/.config/zsh` (as many do), whose `.zshenv` exports another; `~/.zshrc` an alias.
fn setup_zsh(p: &Paths) {
    setup(p);
    std::fs::write(
        p.home.join(".zshenv"),
        "export FROM_ZSHENV=yes\nexport ZDOTDIR=\"$HOME/.config/zsh\"\n",
    )
    .unwrap();
    let xdg = p.home.join(".config/zsh");
    std::fs::create_dir_all(&xdg).unwrap();
    std::fs::write(xdg.join(".zshenv"), "export FROM_XDG_ZSHENV=yes\n").unwrap();
    std::fs::write(xdg.join(".zshrc"), "alias ll='ls -l'\n").unwrap();
}

/// A Codex case that only judges (the report row is the bash user's).
fn case(
    mechanism: &'static str,
    scenarios: Vec<Scenario>,
    setup: fn(&Paths),
    spec: fn(&Agent, &Paths, Vec<Value>) -> Spec,
) -> Case {
    Case {
        host: "codex",
        wire: Wire::OpenAiResponses,
        mechanism,
        scenarios,
        args,
        setup,
        spec,
        report: false,
        version: |a| support::npm_bin_version(a, "codex"),
    }
}

/// A command (after `before`) that starts a job and waits for it: `wait` returns at once
/// after it, and `jobs` lists nothing (the filter is no job of the command's).
fn waited_job(before: &str) -> Scenario {
    Scenario {
        name: "a job the command waits for",
        command: format!("{before}sleep 0.2 & wait; jobs; echo waited $?"),
        extra: json!({}),
        judge: Judge::Same,
    }
}

/// Commands that start a background child and end: one that prints after the shell has
/// gone, and one still writing as the command ends (its lines may reach the filter in the
/// same read as the exit marker, after it).
fn background_children() -> [Scenario; 2] {
    [
        Scenario {
            name: "a background child",
            command: "(sleep 2; echo late) & echo started".into(),
            extra: json!({}),
            judge: Judge::Same,
        },
        Scenario {
            name: "a background child writing as the command ends",
            // a burst as the command runs, then a line every 50 ms for 2 s: how many of
            // those reach the model after the shell ends depends on timing alone
            command: "(for i in $(seq 1 2000); do echo tick $i; done; end=$((SECONDS + 2)); while [ $SECONDS -lt $end ]; do echo tick; sleep 0.05; done) & seq 1 3000".into(),
            extra: json!({}),
            judge: Judge::Compacts(&["3000"]),
        },
    ]
}

/// The call that left a background child returned as soon as the shell ended (Codex's
/// `Wall time` under a second, the child sleeping 2 s), with and without tokenjuice: the
/// filter does not wait for the child's end (the comparison leaves the wall time out).
fn returns_before_its_background_child(case: &Case, without: &drive::Run, with: &drive::Run) {
    for (run, which, name) in [(without, "without"), (with, "with")]
        .into_iter()
        .flat_map(|(r, w)| background_children().map(|s| (r, w, s.name)))
    {
        let text = read_for(case, run, name);
        let secs: f64 = text
            .lines()
            .find_map(|l| l.strip_prefix("Wall time: ")?.strip_suffix(" seconds"))
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no wall time ({which} tokenjuice): {text}"));
        assert!(
            secs < 1.0,
            "{name}, {which} tokenjuice: held {secs} s: {text}"
        );
    }
}

/// The shared semantics scenarios as Codex gives them: Codex reads a command's stdout and
/// stderr from two pipes and orders them differently from run to run by itself.
fn semantics() -> Vec<Scenario> {
    scenarios::semantics()
        .into_iter()
        .map(|mut s| {
            if s.name == "non-zero exit" {
                s.judge = Judge::SameLines;
            }
            s
        })
        .collect()
}

/// The shared compaction, semantics and permission scenarios.
fn shared_scenarios() -> Vec<Scenario> {
    let mut scs = scenarios::compaction();
    scs.extend(semantics());
    scs.extend(scenarios::permissions());
    scs
}

/// What the model read for the scenario called `name`.
fn read_for<'a>(case: &Case, run: &'a drive::Run, name: &str) -> &'a str {
    let i = case
        .scenarios
        .iter()
        .position(|s| s.name == name)
        .unwrap_or_else(|| panic!("no scenario {name}"));
    &run.outcome.results[i].text
}

#[test]
fn codex_model_reads_compacted_output_and_nothing_else_changes() {
    let Some(agent) = support::agent_or_skip("codex") else {
        return;
    };
    let mut scs = shared_scenarios();
    scs.push(Scenario {
        name: "workdir argument",
        command: "pwd".into(),
        extra: json!({"workdir": "sub"}),
        judge: Judge::Same,
    });
    scs.push(Scenario {
        name: "tty session",
        command: "seq 1 300; tty >/dev/null && echo has-tty".into(),
        extra: json!({"tty": true}),
        judge: Judge::Same,
    });
    // Codex takes its shell snapshot with `bash -lc`: what the login shell exported (here
    // from ~/.bash_profile) reaches every command. Its functions do not: Codex `exec`s a new
    // bash for the command after sourcing the snapshot (0.171), with or without tokenjuice.
    scs.push(Scenario {
        name: "the login shell's snapshot",
        command: "echo \"${FROM_PROFILE-unset} $(type -t from_profile || echo no-function)\""
            .into(),
        extra: json!({}),
        judge: Judge::Same,
    });
    // the variables tokenjuice sets are given back, and the shell is as deep as before
    scs.push(Scenario {
        name: "the shell's own variables",
        command: "echo \"shlvl=$SHLVL zdotdir=${ZDOTDIR-unset} bash_env=${BASH_ENV-unset}\"; bash -c 'echo nested $SHLVL'".into(),
        extra: json!({}),
        judge: Judge::Same,
    });
    // the route runs the command in the bash Codex started, the filter beside it: no job of
    // the command's, the command's status and `$_` as bash starts them; a command with its
    // own exit trap, or `exec`, takes the second-bash route
    scs.push(waited_job("echo \"[$?] [$_]\"; "));
    // a background child the command leaves behind: the call returns when the shell ends,
    // and what the child prints later reaches the model as it does without tokenjuice
    scs.extend(background_children());
    scs.push(Scenario {
        name: "an exit trap",
        command: "trap 'echo trap-ran' EXIT; seq 1 3000; exit 3".into(),
        extra: json!({}),
        judge: Judge::Compacts(&["3000", "trap-ran"]),
    });
    scs.push(Scenario {
        name: "exec",
        command: "echo before-exec; exec seq 1 3000".into(),
        extra: json!({}),
        judge: Judge::Compacts(&["3000", "before-exec"]),
    });
    // The filter shows held output once the command has printed nothing for a second: a
    // call that yields while the command sleeps gets the output printed before the pause,
    // as without tokenjuice ...
    scs.push(Scenario {
        name: "yields after the output paused",
        command: "echo started; sleep 4; echo finished".into(),
        extra: json!({"yield_time_ms": 2500}),
        judge: Judge::SameShape(&["started", "Process running with session ID"]),
    });
    // ... and a call that yields within that second gets it too: the filter reads the
    // call's own yield from Codex's rollout and shows what it holds just before
    scs.push(Scenario {
        name: "yields before it ends",
        command: "echo started; sleep 1.5; echo finished".into(),
        extra: json!({"yield_time_ms": 300}),
        judge: Judge::SameShape(&["started", "Process running with session ID"]),
    });
    // ... and a command that prints steadily past Codex's default yield (10 s) shows the
    // model what it printed so far, as without tokenjuice (the filter shows what it holds
    // every 4 s at least; it held 30 s before, and the model got no output at all)
    scs.push(Scenario {
        name: "steady output past the default yield",
        command: "for w in alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu; do echo \"word $w\"; sleep 0.45; done".into(),
        extra: json!({}),
        judge: Judge::NoLarger(&["word alpha", "word bravo", "word papa", "Process running with session ID"]),
    });
    // ... and what is shown after a pause is folded too (nothing cut: the exit status is not
    // known yet): a build that pauses halfway is compacted whole (without the fold, its first
    // half came back as it was: 3,836 -> 1,965 tokens)
    scs.push(Scenario {
        name: "build with a pause",
        command: "for i in $(seq 1 150); do echo \"   Compiling crate$i v0.1.$i\"; done; sleep 1.5; for i in $(seq 151 300); do echo \"   Compiling crate$i v0.1.$i\"; done; echo '    Finished dev profile'".into(),
        extra: json!({}),
        judge: Judge::Compacts(&["crate1 v0.1.1", "crate150 v0.1.150", "crate300 v0.1.300", "Finished"]),
    });
    // a failing command's output over 10,000 characters (Claude Code cuts those)
    scs.push(scenarios::failing_over_10k());
    scs.extend(scenarios::latency());
    let case = Case {
        host: "codex",
        wire: Wire::OpenAiResponses,
        mechanism: "BASH_ENV (shell_environment_policy.set) script: the command runs unchanged, its output through tokenjuice (zsh users: ZDOTDIR, held in a second run as a zsh user)",
        scenarios: scs,
        args,
        setup,
        spec,
        report: true,
        version: |a| support::npm_bin_version(a, "codex"),
    };
    let (without, with) = drive::compare(&case, &agent);
    // the snapshot did carry the login file's variable (the same in both sessions)
    let snapshot = read_for(&case, &without, "the login shell's snapshot");
    assert!(snapshot.contains("from-profile no-function"), "{snapshot}");
    returns_before_its_background_child(&case, &without, &with);
}

#[test]
fn codex_zsh_user_model_reads_compacted_output_and_nothing_else_changes() {
    let Some(agent) = support::agent_or_skip("codex") else {
        return;
    };
    if login_shell_user_or_skip("zsh", "zsh user").is_none() {
        return;
    }
    let mut scs = shared_scenarios();
    scs.extend([
        Scenario {
            name: "the user's start-up files",
            command: "echo \"[$?] [$_] $0 zshenv=${FROM_ZSHENV-unset} xdg=${FROM_XDG_ZSHENV-unset} zdotdir=${ZDOTDIR-unset} bash_env=${BASH_ENV-unset} shlvl=$SHLVL\"; print -r -- ${ZSH_VERSION+zsh}".into(),
            extra: json!({}),
            judge: Judge::Same,
        },
        Scenario {
            name: "a zsh the command starts",
            command: "zsh -c 'echo nested xdg=${FROM_XDG_ZSHENV-unset} zdotdir=${ZDOTDIR-unset} shlvl=$SHLVL'; bash -c 'echo bash ${BASH_ENV-unset} shlvl=$SHLVL'".into(),
            extra: json!({}),
            judge: Judge::Same,
        },
        Scenario {
            name: "workdir argument",
            command: "pwd".into(),
            extra: json!({"workdir": "sub"}),
            judge: Judge::Same,
        },
        // the route's filter runs beside the command in its zsh: no job of the command's
        waited_job(""),
        Scenario {
            // an exit trap of the command's own, and `exec`: the route steps back for them
            name: "an exit trap and exec",
            command: "trap 'echo trap-ran' EXIT; seq 1 3000; exec zsh -c 'exit 3'".into(),
            extra: json!({}),
            judge: Judge::Compacts(&["3000", "trap-ran"]),
        },
        Scenario {
            name: "not a login shell",
            command: "seq 1 3000; echo $0".into(),
            extra: json!({"login": false}),
            judge: Judge::Compacts(&["3000", "zsh"]),
        },
        Scenario {
            name: "tty session",
            command: "seq 1 300; tty >/dev/null && echo has-tty".into(),
            extra: json!({"tty": true}),
            judge: Judge::Same,
        },
        scenarios::failing_over_10k(),
    ]);
    scs.extend(background_children());
    scs.extend(scenarios::latency());
    let case = case(
        "ZDOTDIR (shell_environment_policy.set) .zshenv: the command runs unchanged in the user's zsh, its output through tokenjuice",
        scs,
        setup_zsh,
        spec_zsh,
    );
    let (without, with) = drive::compare(&case, &agent);
    returns_before_its_background_child(&case, &without, &with);
    // doctor, as that user, names the route and proves it
    let report = doctor_as(&support::zsh().expect("zsh"), setup_zsh);
    assert!(
        report.contains("Codex runs your commands with zsh")
            && report.contains("zsh with tokenjuice's ZDOTDIR compacted")
            && report.contains("health: ok"),
        "{report}"
    );
}

/// A fish user: Codex runs their commands with bash, so tokenjuice's BASH_ENV route applies
/// (Codex's fallback for a login shell it does not run, read in its `shell.rs`; shown here).
#[test]
fn codex_fish_user_gets_the_bash_route() {
    let Some(agent) = support::agent_or_skip("codex") else {
        return;
    };
    let Some(fish) = login_shell_user_or_skip("fish", "fish user") else {
        return;
    };
    let mut scs = scenarios::compaction();
    scs.extend(semantics());
    scs.push(Scenario {
        name: "the shell Codex runs",
        command: "echo \"$0 ${BASH_VERSION+bash} shlvl=$SHLVL bash_env=${BASH_ENV-unset} zdotdir=${ZDOTDIR-unset}\"".into(),
        extra: json!({}),
        judge: Judge::Same,
    });
    scs.push(scenarios::failing_over_10k());
    let case = case(
        "BASH_ENV for a fish user (Codex runs bash)",
        scs,
        setup,
        spec_fish,
    );
    let (without, _) = drive::compare(&case, &agent);
    // it was bash, not fish, that ran the commands
    let shell = read_for(&case, &without, "the shell Codex runs");
    assert!(shell.contains(" bash shlvl="), "{shell}");
    let report = doctor_as(&fish, setup);
    assert!(
        report.contains(&format!("Codex's fallback for your login shell {fish}"))
            && report.contains("bash with tokenjuice's BASH_ENV compacted")
            && report.contains("health: ok"),
        "{report}"
    );
}

/// A user whose login shell is a bash older than 5 (macOS's `/bin/bash` is 3.2): the script
/// must parse there and take its second-bash route. No such bash is packaged where CI runs,
/// so this runs only when `TOKENJUICE_OLD_BASH` names one (`--run-ignored only`).
fn spec_old_bash(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    spec_as(agent, p, calls, &support::old_bash())
}

#[test]
#[ignore = "needs TOKENJUICE_OLD_BASH: a bash older than 5, which no package here provides"]
fn codex_user_of_a_bash_older_than_5_gets_the_second_bash_route() {
    let Some(agent) = support::agent_or_skip("codex") else {
        return;
    };
    let old = support::old_bash();
    let mut scs = shared_scenarios();
    scs.extend([
        Scenario {
            name: "the shell Codex runs",
            command: "echo \"[$?] [$_] $0 ${BASH_VERSINFO[0]} shlvl=$SHLVL bash_env=${BASH_ENV-unset}\"; bash -c 'echo nested $SHLVL'".into(),
            extra: json!({}),
            judge: Judge::Same,
        },
        waited_job(""),
        Scenario {
            name: "an exit trap and exec",
            command: "trap 'echo trap-ran' EXIT; seq 1 3000; exec bash -c 'exit 3'".into(),
            extra: json!({}),
            judge: Judge::Compacts(&["3000", "trap-ran"]),
        },
        scenarios::failing_over_10k(),
    ]);
    scs.extend(background_children());
    let case = case(
        "BASH_ENV for a user of a bash older than 5 (the second-bash route)",
        scs,
        setup,
        spec_old_bash,
    );
    let (without, with) = drive::compare(&case, &agent);
    returns_before_its_background_child(&case, &without, &with);
    // it was that bash that ran the commands
    let shell = read_for(&case, &without, "the shell Codex runs");
    let major = shell
        .lines()
        .find(|l| l.starts_with('['))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|v| v.parse::<u32>().ok());
    assert!(major.is_some_and(|m| m < 5), "{shell}");
    let report = doctor_as(&old, setup);
    assert!(
        report.contains("bash with tokenjuice's BASH_ENV compacted")
            && report.contains("health: ok"),
        "{report}"
    );
}

/// A user whose login shell is `sh`: Codex runs their commands with it, tokenjuice's route
/// does not apply, and the model gets exactly what it got without tokenjuice; `doctor` says
/// nothing is compacted.
#[test]
fn codex_sh_user_is_left_as_codex_has_it_and_doctor_says_so() {
    let Some(agent) = support::agent_or_skip("codex") else {
        return;
    };
    if login_shell_user_or_skip("sh", "sh user").is_none() {
        return;
    }
    let mut scs: Vec<Scenario> = scenarios::compaction()
        .into_iter()
        .map(|mut s| {
            // Codex orders a command's stdout and stderr differently from run to run by
            // itself, and the test run's time and Codex's token count for it vary
            s.judge = match s.name {
                "failing test run" => Judge::SameShape(&[
                    "Process exited with code 1",
                    "total for cart 7",
                    "FAILED (failures=1)",
                ]),
                // each session makes its files anew: their times may fall in another minute
                "ls -la of 300 files" => Judge::SameShape(&["img_0001.png", "img_0300.png"]),
                _ => Judge::Same,
            };
            s
        })
        .collect();
    scs.push(Scenario {
        name: "the shell Codex runs",
        command: "echo \"$0 ${BASH_VERSION-no-bash} ${ZSH_VERSION-no-zsh}\"".into(),
        extra: json!({}),
        judge: Judge::Same,
    });
    let mut failing = scenarios::failing_over_10k();
    failing.judge = Judge::SameLines;
    scs.push(failing);
    let case = case("none for an sh user (Codex runs sh)", scs, setup, spec_sh);
    let (without, _) = drive::compare(&case, &agent);
    let shell = read_for(&case, &without, "the shell Codex runs");
    assert!(shell.contains("no-bash no-zsh"), "{shell}");
    let report = doctor_as("/bin/sh", setup);
    assert!(
        report.contains("your login shell is /bin/sh") && report.contains("nothing is compacted"),
        "{report}"
    );
}

/// A command that waits for input, in a terminal session (`tty: true`: Codex closes a
/// session's stdin without one; `write_stdin` then fails alike with and without tokenjuice,
/// seen in the real Codex 0.169): the model gets the prompt, writes an answer with
/// `write_stdin` (Codex returns what the command printed within the call's yield, 250 ms by
/// default), then polls until the command ends. tokenjuice steps aside for terminal sessions,
/// so each call must show what it showed without.
#[test]
fn codex_a_terminal_session_answered_through_write_stdin_reads_the_same() {
    let Some(agent) = support::agent_or_skip("codex") else {
        return;
    };
    fn args_or_stdin(s: &Scenario) -> Value {
        if s.extra.get("__tool").is_some() {
            s.extra.clone()
        } else {
            args(s)
        }
    }
    let mut terminal = scenarios::semantics()
        .into_iter()
        .find(|s| s.name == "terminal or not")
        .expect("the semantics scenarios ask whether each descriptor is a terminal");
    terminal.extra = json!({"tty": true});
    let scs = vec![
        // a terminal session's command has a terminal on 0, 1 and 2, with tokenjuice too
        terminal,
        Scenario {
            name: "a prompt",
            command: "printf 'name? '; read x; echo \"hello $x\"; sleep 2; echo bye".into(),
            extra: json!({"yield_time_ms": 500, "tty": true}),
            judge: Judge::SameShape(&["name? ", "Process running with session ID"]),
        },
        Scenario {
            name: "the answer",
            command: String::new(),
            extra: json!({"__tool": "write_stdin", "session_id": "{SESSION_ID}", "chars": "bob\n"}),
            judge: Judge::SameShape(&["hello bob"]),
        },
        Scenario {
            name: "the end",
            command: String::new(),
            extra: json!({"__tool": "write_stdin", "session_id": "{SESSION_ID}", "chars": "", "yield_time_ms": 5000}),
            judge: Judge::SameShape(&["bye", "Process exited with code 0"]),
        },
    ];
    let case = Case {
        args: args_or_stdin,
        ..case(
            "BASH_ENV, a terminal session answered through write_stdin",
            scs,
            setup,
            spec,
        )
    };
    drive::compare(&case, &agent);
}

/// The timer of `tokenjuice_e2e::span` standing in for the user's login shell `name`: a link
/// named so in the session's `span` folder; its log is `span/span.log`.
fn span_shell(p: &Paths, name: &str) -> std::path::PathBuf {
    let dir = p.work.join("span");
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join(name);
    if !link.exists() {
        std::os::unix::fs::symlink(support::tj_e2e(), &link).unwrap();
    }
    link
}

fn spec_span_zsh(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    let shell = span_shell(p, "zsh");
    spec_as(agent, p, calls, &shell.display().to_string())
}

fn spec_span_bash(agent: &Agent, p: &Paths, calls: Vec<Value>) -> Spec {
    let shell = span_shell(p, "bash");
    spec_as(agent, p, calls, &shell.display().to_string())
}

/// What tokenjuice's route adds inside the shell process Codex starts for a command, with
/// Codex's own time (which moves by ±20 ms) left out: the user's login shell is a timer
/// (`tokenjuice_e2e::span`) that runs the real shell and logs how long it ran. Prints the
/// medians for `scripts/bench hosts`; checks that the timer saw every probe in both
/// sessions and that compaction still reached the model through it.
fn added_in_the_shell(shell: &str, spec: fn(&Agent, &Paths, Vec<Value>) -> Spec) {
    let Some(agent) = support::agent_or_skip("codex") else {
        return;
    };
    if login_shell_user_or_skip(shell, &format!("{shell} user, timed")).is_none() {
        return;
    }
    let mut scs = vec![scenarios::compaction().remove(0)];
    scs.extend(scenarios::latency());
    let setup = if shell == "zsh" { setup_zsh } else { setup };
    let case = case(
        "the login shell timed: what the route adds inside the shell Codex starts",
        scs,
        setup,
        spec,
    );
    let (without, with) = drive::compare(&case, &agent);
    let probes: Vec<String> = case
        .scenarios
        .iter()
        .filter(|s| s.name == "latency probe")
        .map(|s| s.command.clone())
        .collect();
    // per probe: the outermost shell (Codex's snapshot wrapper, which `exec`s the command's
    // shell: the timer again) and the innermost (the command's own shell)
    let medians = |run: &drive::Run| -> (u64, u64) {
        let log = std::fs::read_to_string(run.work.join("span/span.log"))
            .expect("the timer stood in for the login shell");
        let mut outer = Vec::new();
        let mut inner = Vec::new();
        for c in &probes {
            let (o, i) = tokenjuice_e2e::span::spans_of(&log, c)
                .unwrap_or_else(|| panic!("no span for `{c}`:\n{log}"));
            outer.push(o);
            inner.push(i);
        }
        let median = |mut v: Vec<u64>| {
            v.sort_unstable();
            v[v.len() / 2]
        };
        (median(outer), median(inner))
    };
    let ((a, ai), (b, bi)) = (medians(&without), medians(&with));
    eprintln!(
        "codex ({shell} user) time per trivial command in the shell Codex starts (median of {}): {a} µs without, {b} µs with tokenjuice: {:+} µs (the command's own shell: {ai} → {bi} µs)",
        probes.len(),
        b as i64 - a as i64
    );
}

#[test]
fn codex_zsh_user_added_time_in_the_shell() {
    added_in_the_shell("zsh", spec_span_zsh);
}

#[test]
fn codex_bash_user_added_time_in_the_shell() {
    added_in_the_shell("bash", spec_span_bash);
}
