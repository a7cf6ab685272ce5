//! Files a cloned repository can carry — a rule file or agent settings that are a symlink to
//! /dev/zero, a named pipe, or a huge file — are skipped with one short warning; every command
//! still finishes at once with its output. Without the checks each of these hung or filled
//! memory (7.3 GB in 15 s for /dev/zero).

mod common;

use std::time::Duration;

use common::Sandbox;

/// A hostile folder: `<dir>/zero.json -> /dev/zero`, `<dir>/fifo.json` a FIFO, `<dir>/big.json`
/// of 2 MB.
fn plant(dir: &std::path::Path, names: [&str; 3]) {
    std::fs::create_dir_all(dir).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join(names[0])).unwrap();
    nix::unistd::mkfifo(&dir.join(names[1]), nix::sys::stat::Mode::S_IRWXU).unwrap();
    std::fs::write(dir.join(names[2]), vec![b' '; 2 << 20]).unwrap();
}

#[test]
fn hostile_project_rule_files_are_skipped_and_wrap_still_prints_the_output() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.work().join(".git")).unwrap();
    plant(
        &sb.work().join(".tokenjuice/rules"),
        ["zero.json", "fifo.json", "big.json"],
    );
    let out = sb
        .cmd()
        .args([
            "wrap",
            "--",
            "sh",
            "-c",
            "echo hello-from-the-command; exit 4",
        ])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(4),
        "finished with the command's code"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("hello-from-the-command"));
    let err = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "one warning: {err}");
    assert!(
        warnings[0].contains("(and 2 more problems)") && warnings[0].len() < 400,
        "{err}"
    );
    // verify names each one
    let out = sb
        .cmd()
        .args(["verify"])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for what in [
        "a character device, not a regular file",
        "a named pipe (FIFO), not a regular file",
        "over the 1048576 bytes",
    ] {
        assert!(text.contains(what), "{what}: {text}");
    }
}

#[test]
fn hostile_project_settings_are_skipped_by_hooks_and_the_shell_prefix() {
    let sb = Sandbox::new();
    plant(
        &sb.work().join(".claude"),
        ["settings.json", "settings.local.json", "big.json"],
    );
    let out = sb
        .cmd()
        .args(["hooks", "list", "--host", "claude", "--project"])
        .arg(sb.work())
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("a character device, not a regular file"),
        "{text}"
    );
    assert!(
        text.contains("a named pipe (FIFO), not a regular file"),
        "{text}"
    );
    // Claude Code's prefix reads the project's settings for its output limit on every
    // command: it must not hang on them either, and still compacts
    let cwd_file = sb.work().join("cwd");
    let line = format!(
        "eval 'seq 1 3000' < /dev/null && pwd -P >| '{}'",
        cwd_file.display()
    );
    let out = sb
        .cmd()
        .args(["--shell-prefix=claude-code", &line])
        .env("TOKENJUICE_STATS", "0")
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.len() < 2000 && text.contains("3000"), "{text}");
}

/// A project rule for `sh` with `patterns`.
fn project_rule(sb: &Sandbox, name: &str, skip: &[String]) {
    let dir = sb.work().join(".tokenjuice/rules");
    std::fs::create_dir_all(&dir).unwrap();
    let rule = serde_json::json!({
        "id": format!("local/{name}"),
        "family": "local",
        "match": {"argv0": ["sh"]},
        "filters": {"skipPatterns": skip},
    });
    std::fs::write(dir.join(format!("{name}.json")), rule.to_string()).unwrap();
}

#[test]
fn rule_limits_keep_warnings_short_and_verify_flags_runaway_patterns() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.work().join(".git")).unwrap();
    // too many patterns, and one pattern too long: skipped with one short warning
    project_rule(&sb, "many", &vec!["^noise".to_string(); 1500]);
    project_rule(&sb, "long", &["y".repeat(500_000)]);
    let out = sb
        .cmd()
        .args(["wrap", "--", "sh", "-c", "echo kept-line"])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("kept-line"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.lines().count() == 1 && err.len() < 400,
        "one short line: {err}"
    );
    let out = sb
        .cmd()
        .arg("verify")
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        text.contains("the rule has 1500 patterns; at most 1000"),
        "{text}"
    );
    assert!(
        text.contains("the pattern has 500000 characters; at most 4096"),
        "{text}"
    );
    assert!(
        text.lines().all(|l| l.len() < 600),
        "no line echoes the pattern: {text}"
    );
    // a pattern that backtracks without bound: the run still finishes with every line, and
    // verify names it
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.work().join(".git")).unwrap();
    project_rule(&sb, "slow", &["^((?=a)a+)+(?=b)".to_string()]);
    let out = sb
        .cmd()
        .args([
            "wrap",
            "--raw",
            "--",
            "sh",
            "-c",
            "for i in $(seq 2000); do echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done; echo last-line",
        ])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("last-line"));
    // a script, so that the rule (argv0 `sh`) is the one chosen (`sh -c` is classified by
    // the command inside)
    std::fs::write(
        sb.work().join("gen.sh"),
        "for i in $(seq 2000); do echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done; echo last-line\n",
    )
    .unwrap();
    let out = sb
        .cmd()
        .args(["wrap", "--", "sh", "gen.sh"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("last-line"));
    // the run says that the pattern was given up, on one short line
    let err = String::from_utf8_lossy(&out.stderr);
    let warned: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("hit the backtracking limit on this output"))
        .collect();
    assert_eq!(warned.len(), 1, "{err}");
    assert!(
        warned[0].contains("local/slow") && warned[0].len() < 300,
        "{err}"
    );
    let out = sb.cmd().arg("verify").output().unwrap();
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("hits the backtracking limit on"), "{text}");
}

#[test]
fn small_things_a_user_meets() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    // a data folder someone opened to everyone is made private again
    let data = sb.path("data/tokenjuice");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o777)).unwrap();
    for _ in 0..3 {
        sb.store_cmd()
            .args(["wrap", "--store", "--", "seq", "1", "3000"])
            .assert()
            .success();
    }
    let mode = std::fs::metadata(&data).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    // ls --format json: each key once
    let out = sb
        .store_cmd()
        .args(["ls", "--format", "json"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.split("},").next().unwrap();
    assert_eq!(first.matches("\"id\"").count(), 1, "{first}");
    // ls | head: no broken-pipe error
    // (a pipe whose reader is already gone)
    let (r, w) = nix::unistd::pipe().unwrap();
    drop(r);
    let out = std::process::Command::new(common::bin())
        .args(["ls"])
        .env("HOME", sb.path("home"))
        .env("TOKENJUICE_HOME", &data)
        .stdout(std::process::Stdio::from(w))
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("Broken pipe"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // wrap of a folder says what it is
    let out = sb.cmd().args(["wrap", "--", "/tmp"]).output().unwrap();
    assert_eq!(out.status.code(), Some(126));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("/tmp: is a directory"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn output_that_cannot_be_written_is_reported_not_silently_lost() {
    let sb = Sandbox::new();
    for args in [
        vec!["wrap", "--no-stats", "--", "seq", "1", "3000"],
        vec!["wrap", "--raw", "--no-stats", "--", "seq", "1", "3000"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = std::process::Command::new(common::bin())
            .args(&args)
            .env("HOME", sb.path("home"))
            .env("TOKENJUICE_HOME", sb.path("data/tokenjuice"))
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "the command's exit code: {err}");
        assert_eq!(
            err.matches("the output could not be written").count(),
            1,
            "{args:?}: {err}"
        );
        assert!(err.contains("No space left on device"), "{err}");
    }
}
