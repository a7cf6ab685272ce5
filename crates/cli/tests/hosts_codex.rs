//! Codex on the real binary: `install codex` sets BASH_ENV for Codex's commands in
//! config.toml (keeping every byte the user wrote), writes the script, takes out an older
//! rewriting hook; bash with that BASH_ENV runs the command unchanged and prints the
//! compacted output with the command's exit code; a user's earlier BASH_ENV still runs;
//! uninstall gives back the config byte for byte; doctor proves it.

mod hosts_support;

use std::process::Command;

use hosts_support::*;

const CONFIG: &str = "# mine\nmodel = \"gpt-5.5\"   # keep this comment\n\n[shell_environment_policy]\ninherit = \"all\"\n\n[profiles.x]\nmodel = \"o3\"\n";

/// A world whose `~/.codex/config.toml` holds `text`; the `.codex` folder.
fn with_config(text: &str) -> (World, std::path::PathBuf) {
    let w = World::new();
    let dir = w.home.join(".codex");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), text).unwrap();
    (w, dir)
}

/// `CONFIG` with `shell_environment_policy.set = { var = "value" }`.
fn config_setting(var: &str, value: &std::path::Path) -> String {
    CONFIG.replace(
        "inherit = \"all\"\n",
        &format!(
            "inherit = \"all\"\nset = {{ {var} = \"{}\" }}\n",
            value.display()
        ),
    )
}

/// A world with `CONFIG` and `install codex --local` done; the script's path.
fn installed() -> (World, std::path::PathBuf) {
    let (w, dir) = with_config(CONFIG);
    assert!(w.run(&["install", "codex", "--local"]).status.success());
    let script = dir.join("tokenjuice/bash_env.sh");
    (w, script)
}

/// `<shell> -c <cmd>` as Codex runs it, with the variables `vars` set (and nothing else but
/// PATH, HOME, SHLVL and a private store with history off): stdout and the exit code.
fn shell_with(
    w: &World,
    shell: &str,
    vars: &[(&str, &std::path::Path)],
    cmd: &str,
) -> (String, i32) {
    shell_flag_with(w, shell, "-c", vars, cmd)
}

/// `<shell> <flag> <cmd>` with `vars` set, as [`shell_with`] describes.
fn shell_flag_with(
    w: &World,
    shell: &str,
    flag: &str,
    vars: &[(&str, &std::path::Path)],
    cmd: &str,
) -> (String, i32) {
    let out = shell_command(w, shell, flag, vars, cmd).output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// `<shell> <flag> <cmd>` in the test's home, a clean environment and `vars`, not started.
fn shell_command(
    w: &World,
    shell: &str,
    flag: &str,
    vars: &[(&str, &std::path::Path)],
    cmd: &str,
) -> Command {
    let mut c = Command::new(shell);
    c.arg(flag)
        .arg(cmd)
        .env_clear()
        .env("PATH", system_path())
        .env("HOME", &w.home)
        .env("SHLVL", "1")
        .env("TOKENJUICE_STATS", "0")
        .env("TOKENJUICE_HOME", w.tmp.path().join("store"));
    for (k, v) in vars {
        c.env(k, v);
    }
    c
}

/// A noisy failing command, and what the route must make of it: compacted, its error kept,
/// its status 3, no exit line of ours (Codex prints its own).
const NOISY_FAILURE: &str = "seq 1 3000; echo 'error: disk full' >&2; exit 3";

fn assert_noisy_failure_compacted((text, code): (String, i32)) {
    assert_eq!(code, 3, "{text}");
    assert!(
        text.len() < 400 && text.contains("3000") && text.contains("error: disk full"),
        "{text}"
    );
    assert!(
        !text.lines().any(|l| l.starts_with("exit ")),
        "Codex prints the exit line: {text}"
    );
}

/// Where an installed world's two routes live: the `ZDOTDIR` zsh is given and the
/// `BASH_ENV` bash is given.
struct Routes {
    zdotdir: std::path::PathBuf,
    bash_env: std::path::PathBuf,
}

impl Routes {
    fn of(w: &World) -> Routes {
        Routes {
            zdotdir: w.home.join(".codex/tokenjuice/zsh"),
            bash_env: w.home.join(".codex/tokenjuice/bash_env.sh"),
        }
    }

    /// Both variables, as Codex sets them for every command.
    fn vars(&self) -> [(&'static str, &std::path::Path); 2] {
        [("ZDOTDIR", &self.zdotdir), ("BASH_ENV", &self.bash_env)]
    }
}

fn bash_with(w: &World, bash_env: &str, cmd: &str) -> (String, i32) {
    shell_with(
        w,
        "bash",
        &[("BASH_ENV", std::path::Path::new(bash_env))],
        cmd,
    )
}

#[test]
fn install_sets_bash_env_and_the_command_runs_unchanged_with_compacted_output() {
    let (w, dir) = with_config(CONFIG);
    // an older install's rewriting hook, and a user's own BASH_ENV file
    let user_env = w.tmp.path().join("user_env.sh");
    std::fs::write(&user_env, "export FROM_USER_ENV=yes\n").unwrap();
    let with_user = config_setting("BASH_ENV", &user_env);
    std::fs::write(dir.join("config.toml"), &with_user).unwrap();
    std::fs::write(
        dir.join("hooks.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"tokenjuice codex-pre-tool-use --wrap-launcher tokenjuice","statusMessage":"wrapping bash through tokenjuice for compaction"}]}]}}"#,
    )
    .unwrap();
    let out = w.run(&["install", "codex", "--local"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let config = w.read(&dir.join("config.toml"));
    let script = dir.join("tokenjuice/bash_env.sh");
    assert!(
        config.contains(&format!("BASH_ENV = \"{}\"", script.display())),
        "{config}"
    );
    assert!(
        config.starts_with("# mine\nmodel = \"gpt-5.5\"   # keep this comment\n"),
        "{config}"
    );
    assert!(config.contains("[profiles.x]\nmodel = \"o3\""), "{config}");
    assert!(
        !w.read(&dir.join("hooks.json"))
            .contains("codex-pre-tool-use"),
        "the old rewrite is gone"
    );
    // twice = once
    assert!(w.run(&["install", "codex", "--local"]).status.success());
    assert_eq!(w.read(&dir.join("config.toml")), config);

    let env = script.display().to_string();
    assert_noisy_failure_compacted(bash_with(&w, &env, NOISY_FAILURE));
    // small output: byte for byte; the user's BASH_ENV ran first and stays for child scripts
    let (text, code) = bash_with(
        &w,
        &env,
        "echo \"$FROM_USER_ENV\"; echo $BASH_ENV; mytool-missing 2>&1; exit 4",
    );
    assert_eq!(code, 4);
    assert_eq!(
        text,
        format!(
            "yes\n{}\nbash: line 1: mytool-missing: command not found\n",
            user_env.display()
        ),
        "same text as bash -c would give"
    );
    // the command starts with the status and `$_` the user's BASH_ENV left
    std::fs::write(&user_env, "export FROM_USER_ENV=yes; false\n").unwrap();
    let probe = "echo \"[$?] [$_] $FROM_USER_ENV\"";
    assert_eq!(bash_with(&w, &env, probe).0, "[1] [false] yes\n");

    let out = w.run(&["doctor", "codex"]);
    let report = stdout(&out);
    assert!(report.contains("health: ok"), "{report}");
    assert!(report.contains("kept exit code 3"), "{report}");

    assert!(w.run(&["uninstall", "codex"]).status.success());
    assert_eq!(
        w.read(&dir.join("config.toml")),
        with_user,
        "uninstall gives the config back"
    );
    assert!(!script.exists());
}

/// `bash -c <cmd>` as Codex runs it with the installed BASH_ENV script, stdout piped.
fn spawn_through_script(w: &World, script: &std::path::Path, cmd: &str) -> std::process::Child {
    shell_command(w, "bash", "-c", &[("BASH_ENV", script)], cmd)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn output_before_a_pause_is_shown_while_the_command_runs_and_the_rest_is_compacted() {
    use std::io::Read;
    let (w, script) = installed();
    // a server's first line, a pause well past the filter's idle second, then a noisy end
    let mut child = spawn_through_script(
        &w,
        &script,
        "echo listening on 8080; sleep 3; seq 1 3000; echo 'error: disk full' >&2; exit 3",
    );
    let mut stdout = child.stdout.take().unwrap();
    // the first read returns while the command sleeps: the line came before the pause
    let mut first = vec![0u8; 64 * 1024];
    let n = stdout.read(&mut first).unwrap();
    assert_eq!(String::from_utf8_lossy(&first[..n]), "listening on 8080\n");
    assert!(
        child.try_wait().unwrap().is_none(),
        "the command is still running"
    );
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(3));
    // the part after the pause was held and reduced: every fact, few characters
    assert!(
        rest.len() < 400 && rest.contains("3000") && rest.contains("error: disk full"),
        "{rest}"
    );
}

#[test]
fn output_shown_while_the_command_runs_is_folded_with_nothing_cut() {
    use std::io::Read;
    let (w, script) = installed();
    // 200 similar lines, a pause past the idle second, then a last line
    let mut child = spawn_through_script(
        &w,
        &script,
        "for i in $(seq 1 200); do echo \"fetching part $i of 200\"; done; sleep 3; echo done",
    );
    let mut stdout = child.stdout.take().unwrap();
    // what comes while the command sleeps (a loaded machine may print the loop slowly:
    // read until its last line)
    let mut first = String::new();
    let mut buf = vec![0u8; 64 * 1024];
    while !first.contains("part 200 of 200\n") {
        let n = stdout.read(&mut buf).unwrap();
        assert!(n > 0, "{first}");
        first.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "the command is still running"
    );
    // shown while it runs: folded, the first and last line and how many between
    // (a loaded machine may pause the loop too: then each part is folded apart)
    assert!(
        first.len() < 500
            && first.contains("fetching part 1 of 200\n")
            && first.contains("fetching part 200 of 200\n")
            && first.contains(" similar lines"),
        "{first}"
    );
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_eq!(rest, "done\n");
}

#[test]
fn a_policy_that_would_drop_bash_env_is_refused_untouched() {
    let text = "[shell_environment_policy]\ninclude_only = [\"PATH\", \"HOME\"]\n";
    let (w, dir) = with_config(text);
    let out = w.run(&["install", "codex", "--local"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("include_only"), "{}", stderr(&out));
    assert_eq!(w.read(&dir.join("config.toml")), text);
    let bad = "model = [\n";
    std::fs::write(dir.join("config.toml"), bad).unwrap();
    assert_eq!(
        w.run(&["install", "codex", "--local"]).status.code(),
        Some(1)
    );
    assert_eq!(w.read(&dir.join("config.toml")), bad);
}

#[test]
fn with_tokenjuice_gone_the_script_leaves_every_command_alone() {
    // the binary was removed or moved without `tokenjuice uninstall codex`: no pipe to a
    // program that is not there (the command would die writing into it)
    let (w, script) = installed();
    let text = w.read(&script);
    std::fs::write(&script, text.replace(&launcher(), "/gone/bin/tokenjuice")).unwrap();
    let (out, code) = bash_with(
        &w,
        &script.display().to_string(),
        "seq 1 3000; echo 'error: disk full'; exit 3",
    );
    assert_eq!(code, 3);
    assert_eq!(
        out.lines().count(),
        3001,
        "untouched: {}",
        &out[out.len() - 40..]
    );
    // and zsh's
    let zdotdir = w.home.join(".codex/tokenjuice/zsh");
    let zsh_script = zdotdir.join(".zshenv");
    let text = w.read(&zsh_script);
    std::fs::write(
        &zsh_script,
        text.replace(&launcher(), "/gone/bin/tokenjuice"),
    )
    .unwrap();
    let (out, code) = zsh_with(
        &w,
        &zdotdir,
        "seq 1 3000; echo \"${ZDOTDIR-unset}\"; exit 3",
    );
    assert_eq!(code, 3);
    assert_eq!(out.lines().count(), 3001, "untouched");
    assert!(out.ends_with("\nunset\n"), "ZDOTDIR given back");
}

/// `zsh -c <cmd>` as Codex runs it for a zsh user, with `ZDOTDIR` as install set it.
fn zsh_with(w: &World, zdotdir: &std::path::Path, cmd: &str) -> (String, i32) {
    let bash_env = w.home.join(".codex/tokenjuice/bash_env.sh");
    shell_with(
        w,
        "zsh",
        &[("ZDOTDIR", zdotdir), ("BASH_ENV", &bash_env)],
        cmd,
    )
}

/// `zsh -c <cmd>` without tokenjuice, in the same home: its output and exit code.
fn plain_zsh(w: &World, cmd: &str) -> (String, i32) {
    shell_with(w, "zsh", &[], cmd)
}

#[test]
fn a_zsh_users_command_runs_unchanged_with_their_start_up_files_and_compacted_output() {
    let (w, _) = installed();
    let dir = w.home.join(".codex");
    let config = w.read(&dir.join("config.toml"));
    let zdotdir = dir.join("tokenjuice/zsh");
    assert!(
        config.contains(&format!("ZDOTDIR = \"{}\"", zdotdir.display())),
        "{config}"
    );
    // the user's own files: ~/.zshenv moves ZDOTDIR, whose .zshenv exports a variable
    std::fs::write(
        w.home.join(".zshenv"),
        "export FROM_ZSHENV=yes\nexport ZDOTDIR=\"$HOME/.config/zsh\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(w.home.join(".config/zsh")).unwrap();
    std::fs::write(w.home.join(".config/zsh/.zshenv"), "export FROM_XDG=yes\n").unwrap();

    assert_noisy_failure_compacted(zsh_with(&w, &zdotdir, NOISY_FAILURE));
    // what the command sees is what plain zsh gives it: the user's ~/.zshenv ran (in the
    // command's own zsh), the variables tokenjuice set are gone, the shell level is the same
    let probe = "echo \"[$?] [$_] $0 $FROM_ZSHENV ${ZDOTDIR-unset} ${BASH_ENV-unset} $SHLVL\"; zsh -c 'echo nested ${FROM_XDG-unset}'; exit 4";
    let (text, code) = zsh_with(&w, &zdotdir, probe);
    let (plain, plain_code) = plain_zsh(&w, probe);
    assert_eq!(code, 4);
    assert_eq!(plain_code, 4);
    assert_eq!(text, plain);
    assert_eq!(
        text,
        format!(
            "[0] [export] zsh yes {}/.config/zsh unset 2\nnested yes\n",
            w.home.display()
        )
    );

    let out = w.run(&["uninstall", "codex"]);
    assert!(out.status.success());
    assert_eq!(w.read(&dir.join("config.toml")), CONFIG);
    assert!(!zdotdir.join(".zshenv").exists());
}

#[test]
fn a_zsh_users_command_runs_in_the_zsh_codex_started_which_waits_for_its_output() {
    runs_in_the_shell_codex_started("zsh");
}

#[test]
fn a_bash_users_command_runs_in_the_bash_codex_started_which_waits_for_its_output() {
    runs_in_the_shell_codex_started("bash");
}

/// The in-shell route of `shell`: the command runs in the shell Codex started, its output
/// through the filter (a coprocess) that the shell waits for at exit; what would show the
/// difference runs in a second shell, exactly as the shell runs it.
fn runs_in_the_shell_codex_started(shell: &str) {
    let (w, _) = installed();
    let routes = Routes::of(&w);
    let vars = routes.vars();
    let run = |cmd: &str| shell_with(&w, shell, &vars, cmd);
    let plain = |cmd: &str| shell_with(&w, shell, &[], cmd);
    // the command runs in the shell Codex started (no second shell): its parent is Codex's
    let (text, code) = run("cut -d' ' -f4 /proc/$$/stat; exit 6");
    assert_eq!(code, 6);
    assert_eq!(text, format!("{}\n", std::process::id()));
    // the command starts with the status and `$_` the shell's start left, as without us
    let probe = "echo \"[$?] [$_] ${TJ_A-unset}\"";
    assert_eq!(run(probe), plain(probe));
    if shell == "zsh" {
        for zshenv in ["export TJ_A=1; false\n", "# nothing to run\n"] {
            std::fs::write(w.home.join(".zshenv"), zshenv).unwrap();
            assert_eq!(run(probe), plain(probe), "{zshenv}");
        }
        std::fs::remove_file(w.home.join(".zshenv")).unwrap();
    }
    // the last program runs as the shell's child, not in its place: a command that would
    // show it (a shell it starts, `printenv`, `env`) runs in a second shell, as the shell
    // runs it
    for probe in [
        "printenv SHLVL".to_string(),
        format!("true; {shell} -c 'echo nested $SHLVL'"),
        "echo $SHLVL; env | grep -c '^SHLVL=2$'".to_string(),
    ] {
        assert_eq!(run(&probe), plain(&probe), "{probe}");
    }
    // the filter is no job of the command: `wait` returns, `jobs` is empty
    let (text, code) = run("sleep 0.1 & wait; jobs; echo waited");
    assert_eq!((text.as_str(), code), ("waited\n", 0));
    // the exit trap leaves the command's status as it was, errexit or not
    for (cmd, want) in [
        ("set -e; echo x", 0),
        ("set -e; false; echo never", 1),
        ("nosuchcommand-tj", 127),
    ] {
        let (text, code) = run(cmd);
        assert_eq!(code, want, "{cmd}: {text}");
        assert!(
            !text.contains("never") && !text.contains("TJEXIT"),
            "{text}"
        );
    }
    // a command that sets its own exit trap, or `exec`s, runs in a second shell: still
    // compacted, its trap runs, its status is kept
    for cmd in [
        "trap 'echo bye-from-trap' EXIT; seq 1 3000; exit 5".to_string(),
        format!("echo bye-from-trap; exec {shell} -c 'seq 1 3000; exit 5'"),
    ] {
        let (text, code) = run(&cmd);
        assert_eq!(code, 5, "{cmd}: {text}");
        assert!(
            text.len() < 400 && text.contains("3000") && text.contains("bye-from-trap"),
            "{cmd}: {text}"
        );
    }
    // a background job the command leaves behind does not hold the shell: it exits when
    // the command is done, with the compacted output written, and the job's later line
    // still comes through
    let out_path = w.tmp.path().join("bg.out");
    let (code, took) = leaving_a_job(
        &w,
        shell,
        &vars,
        "(sleep 3; echo late-line) & seq 1 3000",
        &out_path,
    );
    assert_eq!(code, Some(0));
    let text = w.read(&out_path);
    assert!(took < std::time::Duration::from_secs(2), "held {took:?}");
    assert!(text.len() < 400 && text.contains("3000"), "{text}");
    wait_for_late_line(&w, &out_path);
}

/// A background job that is still writing when the command ends: its lines may reach the
/// filter in the same read as the exit marker, after it. The shell returns at once, the
/// command's output compacted, and the job's lines keep coming (before, the marker was
/// looked for only at the end of what had come, and the shell waited for the job: 2 s).
#[test]
fn a_background_job_writing_as_the_command_ends_does_not_hold_the_shell() {
    let (w, _) = installed();
    let routes = Routes::of(&w);
    let vars = routes.vars();
    for shell in ["bash", "zsh"] {
        for round in 0..3 {
            let out_path = w.tmp.path().join(format!("{shell}-{round}.out"));
            let (code, took) = leaving_a_job(
                &w,
                shell,
                &vars,
                "(end=$((SECONDS + 3)); while [ $SECONDS -lt $end ]; do echo tick; done; echo late-line) & seq 1 3000; exit 4",
                &out_path,
            );
            assert_eq!(code, Some(4), "{shell}");
            assert!(
                took < std::time::Duration::from_millis(1500),
                "{shell}: held {took:?}"
            );
            wait_for_late_line(&w, &out_path);
            let text = w.read(&out_path);
            assert!(
                text.contains("\n3000\n") && !text.contains("TJEXIT"),
                "{shell}: {}",
                &text[..text.len().min(400)]
            );
        }
    }
}

/// The user's `.zshenv` may change zsh's options or emulation for the shell that runs the
/// command: what follows it in ours is read before it runs and means the same under any
/// options, so the command sees what plain zsh gives and its output comes compacted with
/// its status (before, `emulate sh` there made the status 127, and `xtrace` held the shell
/// forever: the trace of the exit trap quoted the marker).
#[test]
fn a_zsh_users_options_and_emulation_change_nothing_but_the_output() {
    let (w, _) = installed();
    let zdotdir = w.home.join(".codex/tokenjuice/zsh");
    let vars = [("ZDOTDIR", zdotdir.as_path())];
    let probe =
        "echo \"[$?] [$_] $0\"; f() { echo \"f0=$0\"; }; f; setopt | xargs; seq 1 3000 | tail -1";
    for zshenv in [
        "emulate sh\n",
        "emulate ksh\n",
        "emulate csh\n",
        "setopt ksharrays shwordsplit nounset errexit\n",
        "alias unset=true trap=true print=true\n",
        "setopt xtrace\n",
    ] {
        std::fs::write(w.home.join(".zshenv"), zshenv).unwrap();
        // (the trace goes to stderr, which the route sends through the filter with stdout,
        // as Codex reads both: compared for the status and the output's end only)
        if zshenv != "setopt xtrace\n" {
            assert_eq!(
                shell_with(&w, "zsh", &vars, probe),
                shell_with(&w, "zsh", &[], probe),
                "{zshenv}"
            );
        }
        let started = std::time::Instant::now();
        let (text, code) = shell_with(&w, "zsh", &vars, "seq 1 3000; exit 3");
        assert_eq!(code, 3, "{zshenv}: {text}");
        assert!(
            text.len() < 400 && text.contains("3000"),
            "{zshenv}: {text}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(3),
            "{zshenv}"
        );
    }
}

/// A bash older than 5 (macOS's `/bin/bash` is 3.2) must parse the script and take the
/// second-bash route: the command runs as that bash runs it, its output compacted. No bash
/// older than 5 is packaged where CI runs, so this runs only when `TOKENJUICE_OLD_BASH`
/// names one (`cargo nextest run --run-ignored only -E 'test(older_than_5)'`); it ran
/// with bash 3.2.48 built from GNU's source.
#[test]
#[ignore = "needs TOKENJUICE_OLD_BASH: a bash older than 5, which no package here provides"]
fn a_bash_older_than_5_runs_the_command_as_it_would_with_compacted_output() {
    let old = std::env::var("TOKENJUICE_OLD_BASH")
        .expect("TOKENJUICE_OLD_BASH must name a bash older than 5");
    let (version, _) = shell_with(&World::new(), &old, &[], "echo ${BASH_VERSINFO[0]}");
    let major: u32 = version.trim().parse().expect("a bash");
    assert!(major < 5, "{old} is bash {major}");
    let (w, script) = installed();
    let vars = [("BASH_ENV", script.as_path())];
    // the same text and status as that bash gives on its own
    for cmd in [
        "echo \"[$?] [$_] $0 shlvl=$SHLVL bash_env=${BASH_ENV-unset}\"; bash -c 'echo nested $SHLVL'",
        "mytool-missing 2>&1; exit 4",
        "sleep 0.1 & wait; jobs; echo waited $?",
        "trap 'echo trap-ran' EXIT; seq 1 3; exit 3",
        "echo before; exec seq 1 3",
        "set -e; false; echo never",
        "cd / && pwd; cat <<'EOF'\nliteral $HOME\nEOF",
    ] {
        assert_eq!(
            shell_with(&w, &old, &vars, cmd),
            shell_with(&w, &old, &[], cmd),
            "{cmd}"
        );
    }
    // and a long output comes compacted, the status kept
    assert_noisy_failure_compacted(shell_with(&w, &old, &vars, NOISY_FAILURE));
}

/// Runs `cmd` (which leaves a background job behind) in `shell` as Codex does, stdout into
/// `out_path`: its exit code and how long the shell took.
fn leaving_a_job(
    w: &World,
    shell: &str,
    vars: &[(&str, &std::path::Path)],
    cmd: &str,
    out_path: &std::path::Path,
) -> (Option<i32>, std::time::Duration) {
    let started = std::time::Instant::now();
    let status = shell_command(w, shell, "-c", vars, cmd)
        .stdout(std::fs::File::create(out_path).unwrap())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    (status.code(), started.elapsed())
}

/// The job's `late-line` reaches `out_path` after the shell has gone (within 10 s).
fn wait_for_late_line(w: &World, out_path: &std::path::Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !w.read(out_path).contains("late-line") {
        assert!(std::time::Instant::now() < deadline, "{}", w.read(out_path));
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn a_zdotdir_the_user_set_for_codex_is_given_back_to_commands_and_by_uninstall() {
    let (w, dir) = with_config(CONFIG);
    let mine = w.home.join("zdot");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join(".zshenv"), "export FROM_MINE=yes\n").unwrap();
    let text = config_setting("ZDOTDIR", &mine);
    std::fs::write(dir.join("config.toml"), &text).unwrap();
    let out = w.run(&["install", "codex", "--local"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!(
            "your ZDOTDIR `{}` (from config.toml)",
            mine.display()
        )),
        "{}",
        stdout(&out)
    );
    // installing again keeps what the user had (read back from the script)
    assert!(w.run(&["install", "codex", "--local"]).status.success());
    let (out, code) = zsh_with(
        &w,
        &dir.join("tokenjuice/zsh"),
        "echo \"$FROM_MINE $ZDOTDIR\"",
    );
    assert_eq!(code, 0);
    assert_eq!(out, format!("yes {}\n", mine.display()));
    assert!(w.run(&["uninstall", "codex"]).status.success());
    assert_eq!(w.read(&dir.join("config.toml")), text);
}

#[test]
fn a_policy_that_would_drop_zdotdir_installs_for_bash_and_says_zsh_gets_nothing() {
    let text = "[shell_environment_policy]\ninclude_only = [\"PATH\", \"HOME\", \"BASH_*\"]\n";
    let (w, _) = with_config(text);
    let out = w.run(&["install", "codex", "--local"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("does not let ZDOTDIR through"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn an_interactive_zsh_reads_the_users_own_files_and_is_left_alone() {
    let (w, _) = installed();
    let zdotdir = w.home.join(".codex/tokenjuice/zsh");
    std::fs::write(w.home.join(".zshenv"), "export FROM_ZSHENV=yes\n").unwrap();
    std::fs::write(
        w.home.join(".zshrc"),
        "alias greet='echo hello-from-zshrc'\n",
    )
    .unwrap();
    let mut child = Command::new("zsh")
        .arg("-i")
        .env_clear()
        .env("PATH", system_path())
        .env("HOME", &w.home)
        .env("ZDOTDIR", &zdotdir)
        .env("TOKENJUICE_STATS", "0")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"greet\necho \"$FROM_ZSHENV ${ZDOTDIR-unset}\"\nseq 1 3000 | wc -l\nexit 5\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(5));
    // the user's .zshenv and .zshrc were read, ZDOTDIR is theirs, and output is untouched
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "hello-from-zshrc\nyes unset\n3000\n"
    );
}

/// `<shell> -lc <script>` (how Codex takes its shell snapshot: a login shell printing its
/// functions, options, aliases and variables), with `vars` set: stdout and the exit code.
fn login_shell_with(
    w: &World,
    shell: &str,
    vars: &[(&str, &std::path::Path)],
    script: &str,
) -> (String, i32) {
    shell_flag_with(w, shell, "-lc", vars, script)
}

/// Should Codex ever take its shell snapshot with our variables set (0.171 does not: its
/// snapshot shell gets no `shell_environment_policy.set`, seen in the real Codex), the
/// snapshot is still what the login shell alone makes: not run again in a second, non-login
/// shell (which would lose what the login files defined) and not compacted.
#[test]
fn codex_taking_its_shell_snapshot_is_left_alone() {
    let (w, script) = installed();
    std::fs::write(
        w.home.join(".bash_profile"),
        "from_profile() { echo hi; }\nalias from_profile_alias='echo hi'\n",
    )
    .unwrap();
    std::fs::write(w.home.join(".zprofile"), "from_zprofile() { echo hi; }\n").unwrap();
    // the shape of Codex's snapshot scripts (its `__codex_snapshot_command` helper included),
    // with a long listing that tokenjuice would compact
    let bash_snapshot = "if [ -z \"${BASH_ENV-}\" ] && [ -r \"$HOME/.bashrc\" ]; then . \"$HOME/.bashrc\"; fi\n\
__codex_snapshot_command() { \"$@\"; }\n\
echo '# Snapshot file'\nshopt -p login_shell\ndeclare -f\nalias -p\necho \"bash_env=${BASH_ENV-unset}\"\nseq 1 3000\n";
    let alone = login_shell_with(&w, "bash", &[], bash_snapshot);
    assert!(
        alone.0.contains("from_profile ()") && alone.0.contains("\n3000\n"),
        "{alone:?}"
    );
    assert_same_snapshot(
        &login_shell_with(&w, "bash", &[("BASH_ENV", &script)], bash_snapshot),
        &alone,
    );
    let zdotdir = w.home.join(".codex/tokenjuice/zsh");
    let zsh_snapshot = "__codex_snapshot_command() { \"$@\"; }\n\
print '# Snapshot file'\n[[ -o login ]] && print login\nfunctions from_zprofile\n\
print \"zdotdir=${ZDOTDIR-unset} bash_env=${BASH_ENV-unset}\"\nseq 1 3000\n";
    let alone = login_shell_with(&w, "zsh", &[], zsh_snapshot);
    assert!(
        alone.0.contains("from_zprofile ()") && alone.0.contains("\n3000\n"),
        "{alone:?}"
    );
    assert_same_snapshot(
        &login_shell_with(
            &w,
            "zsh",
            &[("ZDOTDIR", &zdotdir), ("BASH_ENV", &script)],
            zsh_snapshot,
        ),
        &alone,
    );
}

/// The same output and exit code; else the first line that differs.
fn assert_same_snapshot(with: &(String, i32), alone: &(String, i32)) {
    if with == alone {
        return;
    }
    let first = with
        .0
        .lines()
        .zip(alone.0.lines())
        .position(|(a, b)| a != b);
    let line =
        |t: &str, i: Option<usize>| i.and_then(|i| t.lines().nth(i)).unwrap_or("").to_string();
    panic!(
        "the snapshot differs (exit {} vs {}; {} vs {} lines); first differing line: {:?} vs {:?}",
        with.1,
        alone.1,
        with.0.lines().count(),
        alone.0.lines().count(),
        line(&with.0, first),
        line(&alone.0, first),
    );
}

/// A script an older tokenjuice wrote still works but lacks later fixes: doctor warns and
/// names the fix; installing again rewrites it and doctor is content.
#[test]
fn doctor_warns_of_a_script_an_older_tokenjuice_wrote() {
    let (w, script) = installed();
    // as an older tokenjuice wrote it: its snapshot guard matches nothing
    doctor_warns_of_an_older_script(&w, "codex", &script, |t| {
        t.replace("*__codex_snapshot_command*)", "__older__)")
    });
}
