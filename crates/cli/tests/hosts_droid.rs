//! Droid on the real binary, without Droid (the end-to-end suite runs the real one): install
//! writes the SessionStart hook and the script, keeping the user's settings and migrating an
//! older rewrite hook; the hook exports `BASH_ENV` into the env file Droid names and prints
//! nothing; the script, in a shell started as Droid starts a command's supervisor shell
//! (`$0` = `factory-execute-supervisor`, the command in `$3`, stdout and stderr one file opened
//! for appending), writes the output there as it comes and replaces it with the reduction at
//! the end, keeps the exit code, leaves a killed command's output as it was, lets a
//! background child return at once, gives the command the environment it would have had,
//! and does nothing in any other bash; uninstall takes it all out again.

mod hosts_support;

use std::fs::OpenOptions;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hosts_support::*;
use serde_json::json;

const SUPERVISOR: &str = "factory-execute-supervisor";

fn installed() -> (World, PathBuf) {
    let w = World::new();
    let out = w.run(&["install", "droid", "--local"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let script = w.home.join(".factory/tokenjuice/bash_env.sh");
    assert!(script.exists(), "{}", stdout(&out));
    (w, script)
}

/// Runs `command` as Droid runs one: `bash -c <supervisor> factory-execute-supervisor <pid>
/// <bash> <command>` (this stand-in supervisor only runs `"$2" -c "$3"`), stdout and stderr
/// one file opened for appending, with `vars` set. Returns the file's text and the exit code.
fn as_droid(w: &World, vars: &[(&str, &str)], command: &str) -> (String, i32) {
    let out_file = w.tmp.path().join(format!("droid-{}.log", rand_suffix()));
    let (code, _) = spawn_as_droid(w, vars, command, &out_file, None);
    (std::fs::read_to_string(&out_file).unwrap(), code)
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// The stand-in for Droid's supervisor shell: runs the command with `"$2" -c "$3"`.
const RUN_COMMAND: &str = "\"$2\" -c \"$3\"";

/// `bash -c <supervisor> factory-execute-supervisor 1 /bin/bash <command>` as Droid starts a
/// command: a clean environment (HOME, PATH, the world's variables, then `vars`), stdout and
/// stderr one file opened for appending (`out_file`), its own process group.
fn droid_shell(
    w: &World,
    vars: &[(&str, &str)],
    supervisor: &str,
    command: &str,
    out_file: &Path,
) -> Command {
    let f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(out_file)
        .unwrap();
    let mut c = Command::new("bash");
    c.env_clear()
        .args(["-c", supervisor, SUPERVISOR, "1", "/bin/bash", command])
        .env("HOME", &w.home)
        .env("PATH", system_path())
        .current_dir(&w.project)
        .stdin(Stdio::null())
        .stdout(f.try_clone().unwrap())
        .stderr(f);
    for (k, v) in &w.vars {
        c.env(k, v);
    }
    for (k, v) in vars {
        c.env(k, v);
    }
    use std::os::unix::process::CommandExt;
    c.process_group(0);
    c
}

/// As [`as_droid`], into `out_file`; with `kill_after`, the process group is killed with
/// SIGKILL at that time (Droid's timeout). Returns the exit code (-9 when killed) and how
/// long the supervisor took.
fn spawn_as_droid(
    w: &World,
    vars: &[(&str, &str)],
    command: &str,
    out_file: &Path,
    kill_after: Option<Duration>,
) -> (i32, Duration) {
    let started = Instant::now();
    let mut child = droid_shell(w, vars, RUN_COMMAND, command, out_file)
        .spawn()
        .unwrap();
    if let Some(after) = kill_after {
        std::thread::sleep(after);
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(child.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let status = child.wait().unwrap();
    let took = started.elapsed();
    use std::os::unix::process::ExitStatusExt;
    (status.code().unwrap_or(-status.signal().unwrap_or(0)), took)
}

const NOISY: &str = "i=0; while [ $i -lt 300 ]; do echo \"downloading chunk $i of 300\"; i=$((i+1)); done; echo 'error: checksum mismatch in chunk 7' >&2; exit 7";

#[test]
fn install_keeps_the_users_settings_migrates_an_older_hook_and_uninstall_gives_them_back() {
    let w = World::new();
    let settings = w.home.join(".factory/settings.json");
    let users = json!({
        "customModels": [{"model": "m", "provider": "generic-chat-completion-api"}],
        "hooks": {
            "SessionStart": [{"hooks": [{"type": "command", "command": "hello.sh"}]}],
            "PreToolUse": [{"matcher": "Execute", "hooks": [
                {"type": "command", "command": "guard.sh"},
                {"type": "command", "command": "/old/bin/tokenjuice droid-pre-tool-use --wrap-launcher /old/bin/tokenjuice", "timeout": 10}
            ]}]
        }
    });
    w.write(&settings, &serde_json::to_string_pretty(&users).unwrap());
    let out = w.run(&["install", "droid", "--local"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("removed 1 older tokenjuice entry"),
        "{}",
        stdout(&out)
    );
    let v = w.json(&settings);
    assert_eq!(v["customModels"], users["customModels"]);
    assert_eq!(
        v["hooks"]["PreToolUse"],
        json!([{"matcher": "Execute", "hooks": [{"type": "command", "command": "guard.sh"}]}]),
        "the older rewrite goes, the user's guard stays"
    );
    let starts = v["hooks"]["SessionStart"].to_string();
    assert!(starts.contains("hello.sh"), "{starts}");
    assert!(
        starts.contains(&format!("{} droid-session-start", launcher())),
        "{starts}"
    );
    let script = w.home.join(".factory/tokenjuice/bash_env.sh");
    let text = w.read(&script);
    assert!(text.starts_with("# tokenjuice-managed: Droid BASH_ENV script"));
    // twice = once
    let before = w.read(&settings);
    assert!(w.run(&["install", "droid", "--local"]).status.success());
    assert_eq!(w.read(&settings), before);

    let report = stdout(&w.run(&["doctor", "droid"]));
    assert!(report.contains("health: ok"), "{report}");
    assert!(
        report.contains("exported BASH_ENV into the env file and printed nothing")
            && report.contains("kept exit code 3"),
        "{report}"
    );

    assert!(w.run(&["uninstall", "droid"]).status.success());
    assert!(!script.exists() && !script.parent().unwrap().exists());
    let v = w.json(&settings);
    assert_eq!(
        v["hooks"]["SessionStart"],
        json!([{"hooks": [{"type": "command", "command": "hello.sh"}]}])
    );
    let report = stdout(&w.run(&["doctor", "droid"]));
    assert!(report.contains("health: disabled"), "{report}");
}

#[test]
fn the_session_start_hook_exports_bash_env_into_droids_env_file_and_prints_nothing() {
    let (mut w, script) = installed();
    let env_file = w.tmp.path().join("droid-env.sh");
    let payload = |f: &Path| {
        json!({"session_id": "s", "hook_event_name": "SessionStart", "source": "startup", "CLAUDE_ENV_FILE": f}).to_string()
    };
    let out = w.run_stdin(&["droid-session-start"], &payload(&env_file));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "", "nothing for the model");
    assert_eq!(
        w.read(&env_file),
        format!("export BASH_ENV={}\n", script.display())
    );
    // a BASH_ENV the session already had is carried, to be put back for the command
    w.set("BASH_ENV", "/home/me/my env.sh");
    let second = w.tmp.path().join("droid-env-2.sh");
    let out = w.run_stdin(&["droid-session-start"], &payload(&second));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        w.read(&second),
        format!(
            "export TOKENJUICE_DROID_BASH_ENV='/home/me/my env.sh'\nexport BASH_ENV={}\n",
            script.display()
        )
    );
    // no script (removed by hand): nothing exported, a reason on stderr, exit 0
    std::fs::remove_file(&script).unwrap();
    let third = w.tmp.path().join("droid-env-3.sh");
    let out = w.run_stdin(&["droid-session-start"], &payload(&third));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "");
    assert!(!third.exists());
    assert!(
        stderr(&out).contains("tokenjuice install droid"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_command_run_as_droid_runs_one_is_compacted_in_its_file_and_keeps_its_exit_code() {
    let (w, script) = installed();
    let env = script.display().to_string();
    let (text, code) = as_droid(&w, &[("BASH_ENV", &env)], NOISY);
    assert_eq!(code, 7);
    assert!(
        text.len() < 400
            && text.contains("error: checksum mismatch in chunk 7")
            && text.contains("downloading chunk 299 of 300"),
        "{text}"
    );
    assert!(
        !text.lines().any(|l| l.starts_with("exit ")),
        "Droid prints the exit line: {text}"
    );
    // small output: byte for byte; the command's environment is the one it would have had
    let (text, code) = as_droid(
        &w,
        &[("BASH_ENV", &env)],
        "echo \"[${BASH_ENV-unset}] [${TOKENJUICE_DROID_BASH_ENV-unset}] $0\"; missing-tool-x; exit 4",
    );
    assert_eq!(code, 4);
    assert_eq!(
        text,
        "[unset] [unset] /bin/bash\n/bin/bash: line 1: missing-tool-x: command not found\n"
    );
    // a BASH_ENV the session had: sourced by the supervisor and put back for the command
    let user_env = w.tmp.path().join("user-env.sh");
    std::fs::write(&user_env, "export FROM_USER_ENV=yes\n").unwrap();
    let user = user_env.display().to_string();
    let (text, _) = as_droid(
        &w,
        &[("BASH_ENV", &env), ("TOKENJUICE_DROID_BASH_ENV", &user)],
        "echo \"$FROM_USER_ENV $BASH_ENV\"",
    );
    assert_eq!(text, format!("yes {user}\n"));
}

#[test]
fn the_output_streams_into_the_file_so_a_killed_command_leaves_it_as_without_tokenjuice() {
    let (w, script) = installed();
    let env = script.display().to_string();
    // Droid's timeout kills the process group: the file holds what was printed, as it is
    let out_file = w.tmp.path().join("killed.log");
    let cmd = "echo started; i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.1; done";
    let (code, _) = spawn_as_droid(
        &w,
        &[("BASH_ENV", &env)],
        cmd,
        &out_file,
        Some(Duration::from_millis(1500)),
    );
    assert_eq!(code, -9);
    let text = std::fs::read_to_string(&out_file).unwrap();
    assert!(
        text.starts_with("started\ntick 0\ntick 1\n") && text.lines().count() >= 8,
        "{text}"
    );
    // while a command runs, its output is already in the file
    let out_file = w.tmp.path().join("running.log");
    let mut child = droid_shell(
        &w,
        &[("BASH_ENV", &env)],
        RUN_COMMAND,
        "echo 'listening on :8080'; sleep 2; seq 1 2000",
        &out_file,
    )
    .spawn()
    .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(
        std::fs::read_to_string(&out_file).unwrap(),
        "listening on :8080\n"
    );
    assert!(child.wait().unwrap().success());
    let text = std::fs::read_to_string(&out_file).unwrap();
    assert!(
        text.starts_with("listening on :8080\n") && text.contains("2000") && text.len() < 300,
        "replaced by the reduction at the end: {text}"
    );
}

#[test]
fn a_background_child_lets_the_command_return_at_once() {
    let (w, script) = installed();
    let env = script.display().to_string();
    let out_file = w.tmp.path().join("bg.log");
    let (code, took) = spawn_as_droid(
        &w,
        &[("BASH_ENV", &env)],
        "(sleep 3; echo late) & echo started",
        &out_file,
        None,
    );
    assert_eq!(code, 0);
    assert!(took < Duration::from_secs(2), "returned after {took:?}");
    assert_eq!(std::fs::read_to_string(&out_file).unwrap(), "started\n");
    // the child's later output still lands in the file
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline && !std::fs::read_to_string(&out_file).unwrap().contains("late")
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        std::fs::read_to_string(&out_file).unwrap(),
        "started\nlate\n"
    );
}

#[test]
fn any_other_bash_reading_the_script_is_left_alone() {
    let (_w, script) = installed();
    let env = script.display().to_string();
    // a hook's bash, a script the command runs, a fireAndForget command: $0 is not the
    // supervisor
    let mut c = Command::new("bash");
    c.env_clear()
        .args(["-c", "seq 1 3000; exit 5", "some-script"])
        .env("PATH", system_path())
        .env("BASH_ENV", &env)
        .stdout(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut text = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(5));
    assert_eq!(text.lines().count(), 3000, "untouched");
}

#[test]
fn a_subshell_the_supervisor_stops_at_once_never_adds_a_second_marker() {
    // Droid's supervisor starts a watcher in the background and stops it when the command
    // ends; with a quick command that subshell once ran the exit trap too, and its marker
    // reached the file (about 1 run in 70)
    let (w, script) = installed();
    let env = script.display().to_string();
    let supervisor = "watch() { while :; do sleep 1; done; }; watch & p=$!; \"$2\" -c \"$3\"; s=$?; kill $p 2>/dev/null; wait $p 2>/dev/null; exit $s";
    for i in 0..150 {
        let out_file = w.tmp.path().join(format!("quick-{i}.log"));
        let status = droid_shell(
            &w,
            &[("BASH_ENV", &env)],
            supervisor,
            &format!("true {i}"),
            &out_file,
        )
        .status()
        .unwrap();
        assert!(status.success());
        let text = std::fs::read(&out_file).unwrap();
        assert!(
            text.is_empty(),
            "run {i}: {:?}",
            String::from_utf8_lossy(&text)
        );
    }
}

#[test]
fn with_tokenjuice_gone_a_command_keeps_its_output_exit_code_and_environment() {
    // the binary was removed or moved without `tokenjuice uninstall droid`
    let (w, script) = installed();
    let text = w.read(&script);
    std::fs::write(&script, text.replace(&launcher(), "/gone/bin/tokenjuice")).unwrap();
    let env = script.display().to_string();
    let (text, code) = as_droid(&w, &[("BASH_ENV", &env)], NOISY);
    assert_eq!(code, 7);
    assert_eq!(text.lines().count(), 301, "untouched: {text}");
    let (text, _) = as_droid(
        &w,
        &[("BASH_ENV", &env)],
        "echo \"[${BASH_ENV-unset}] [${TOKENJUICE_DROID_BASH_ENV-unset}]\"",
    );
    assert_eq!(text, "[unset] [unset]\n");
}

/// A script an older tokenjuice wrote still runs but lacks later fixes: doctor warns and
/// names the fix; installing again rewrites it and doctor is content.
#[test]
fn doctor_warns_of_a_script_an_older_tokenjuice_wrote() {
    let (w, script) = installed();
    // as an older tokenjuice wrote it (one comment line less)
    doctor_warns_of_an_older_script(&w, "droid", &script, |t| {
        t.replacen("# the shell waits for tokenjuice to finish.", "#", 1)
    });
}

/// A bash older than 5 reads `BASH_ENV` before it sets `$0` and the arguments, so the script
/// cannot tell Droid's command shell there: it gives `BASH_ENV` back (the user's, or none)
/// and the command runs with the output and environment it would have had. No bash older
/// than 5 is packaged where CI runs, so this runs only when `TOKENJUICE_OLD_BASH` names one
/// (`cargo nextest run --run-ignored only -E 'test(older_than_5)'`).
#[test]
#[ignore = "needs TOKENJUICE_OLD_BASH: a bash older than 5, which no package here provides"]
fn a_bash_older_than_5_is_left_alone_with_its_environment_given_back() {
    let old = std::env::var("TOKENJUICE_OLD_BASH")
        .expect("TOKENJUICE_OLD_BASH must name a bash older than 5");
    let (w, script) = installed();
    let user_env = w.tmp.path().join("user_env.sh");
    std::fs::write(&user_env, "export FROM_USER_ENV=yes\n").unwrap();
    let command = "echo \"${BASH_VERSINFO[0]} bash_env=${BASH_ENV-unset} user=${FROM_USER_ENV-unset}\"; env | grep -c TOKENJUICE_DROID; seq 1 300; exit 7";
    let run = |vars: &[(&str, &str)]| {
        let mut c = Command::new(&old);
        c.env_clear()
            .args(["-c", RUN_COMMAND, SUPERVISOR, "1", &old, command])
            .env("HOME", &w.home)
            .env("PATH", system_path());
        for (k, v) in vars {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code(),
        )
    };
    let ours = script.display().to_string();
    let mine = user_env.display().to_string();
    for (with, without) in [
        (vec![("BASH_ENV", ours.as_str())], vec![]),
        (
            vec![
                ("BASH_ENV", ours.as_str()),
                ("TOKENJUICE_DROID_BASH_ENV", mine.as_str()),
            ],
            vec![("BASH_ENV", mine.as_str())],
        ),
    ] {
        let (a, b) = (run(&with), run(&without));
        assert!(
            a.0.lines().next().is_some_and(|l| l.as_bytes()[0] < b'5'),
            "{}",
            a.0
        );
        assert_eq!(a, b, "{with:?}");
        assert_eq!(a.0.lines().count(), 302, "untouched");
    }
}
