//! The shell-prefix hosts on the real binary: `tokenjuice --shell-prefix=<host> '<line>'`
//! as Claude Code (`CLAUDE_CODE_SHELL_PREFIX`) and CodeBuddy (`CODEBUDDY_CODE_SHELL_PREFIX`)
//! run it. A Bash tool line is compacted with its exit code and its shell semantics kept (the
//! `cd` recorded through Claude's cwd file); any other line passes through byte for byte; a
//! background command marked by the PreToolUse hook passes through once; and install over a
//! prefix the user already had keeps it running, proven by doctor, and uninstall gives it
//! back. Every run has HOME, TMPDIR and TOKENJUICE_HOME in temp dirs and history off.

mod hosts_support;

use std::path::{Path, PathBuf};
use std::process::Output;

use hosts_support::*;
use serde_json::json;

/// `tokenjuice --shell-prefix=<host> <line>` in `cwd`, with `env` on top of the World's.
fn prefix(w: &World, host: &str, line: &str, cwd: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = w.cmd(&[&format!("--shell-prefix={host}"), line]);
    c.current_dir(cwd);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run tokenjuice --shell-prefix")
}

/// A Claude Code Bash tool line: `eval '<cmd>' < /dev/null && pwd -P >| <cwd file>`.
fn claude_line(cmd: &str, cwd_file: &Path) -> String {
    format!(
        "eval {} < /dev/null && pwd -P >| {}",
        quote(cmd),
        quote(&cwd_file.display().to_string())
    )
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The root of the World's temp dir (canonical).
fn root(w: &World) -> PathBuf {
    std::fs::canonicalize(w.tmp.path()).unwrap()
}

/// `seq 1 3000`, as the command prints it.
fn seq_3000() -> String {
    (1..=3000).map(|i| format!("{i}\n")).collect()
}

fn assert_compacted_seq(what: &str, o: &Output) {
    let out = stdout(o);
    let raw = seq_3000();
    assert!(
        out.len() * 10 < raw.len(),
        "{what}: compacted ({} of {} bytes): {out}",
        out.len(),
        raw.len()
    );
    assert!(
        out.lines().any(|l| l.trim() == "3000"),
        "{what}: the last line kept: {out}"
    );
}

#[test]
fn a_claude_tool_line_is_compacted_and_keeps_its_exit_code() {
    let w = World::new();
    let dir = root(&w);
    let cwd_file = dir.join("cwd");
    let o = prefix(
        &w,
        "claude-code",
        &claude_line("seq 1 3000; exit 3", &cwd_file),
        &dir,
        &[],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_compacted_seq("claude-code", &o);
    // Claude prints `Exit code 3` itself: no exit line of ours.
    let out = stdout(&o);
    assert!(
        !out.lines().any(|l| l.starts_with("exit ")),
        "no exit line: {out}"
    );
    // The command ran in Claude's line as written: `exit 3` left before `pwd -P` ran.
    assert!(!cwd_file.exists(), "the line's own semantics kept");
}

#[test]
fn a_cd_in_a_claude_tool_line_reaches_the_cwd_file() {
    let w = World::new();
    let dir = root(&w);
    std::fs::create_dir(dir.join("sub")).unwrap();
    let cwd_file = dir.join("cwd");
    let o = prefix(
        &w,
        "claude-code",
        &claude_line("cd sub && echo x", &cwd_file),
        &dir,
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "x\n");
    let recorded = std::fs::read_to_string(&cwd_file).expect("the line wrote its cwd file");
    assert_eq!(Path::new(recorded.trim()), dir.join("sub"));
}

#[test]
fn lines_that_are_not_tool_lines_pass_through_byte_for_byte() {
    let w = World::new();
    let dir = root(&w);
    // A hook, an MCP server launch, a helper: as without tokenjuice, output and exit code.
    let o = prefix(&w, "claude-code", "printf 'a\\nb\\n'; exit 5", &dir, &[]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert_eq!(o.stdout, b"a\nb\n");
    assert_eq!(stderr(&o), "");
    // A noisy one is not compacted either.
    for host in ["claude-code", "codebuddy"] {
        let o = prefix(
            &w,
            host,
            "seq 1 3000",
            &dir,
            &[("CODEBUDDY_SESSION_ID", "x")],
        );
        assert_eq!(o.status.code(), Some(0), "{host}: {}", stderr(&o));
        assert_eq!(stdout(&o), seq_3000(), "{host}: passed through whole");
    }
}

/// Runs the prefix as Claude Code 2.1 does: stdout and stderr one task file opened for
/// appending. Returns the running child and the file.
fn prefix_into_task_file(w: &World, line: &str, dir: &Path) -> (std::process::Child, PathBuf) {
    use std::os::unix::fs::OpenOptionsExt;
    let file = dir.join("task.output");
    let f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .custom_flags(0)
        .open(&file)
        .unwrap();
    let child = w
        .std_cmd(&["--shell-prefix=claude-code", line])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(f.try_clone().unwrap())
        .stderr(f)
        .spawn()
        .unwrap();
    (child, file)
}

#[test]
fn in_claudes_task_file_the_output_streams_then_is_replaced_by_the_compaction() {
    let w = World::new();
    let dir = root(&w);
    let cwd_file = dir.join("cwd");
    // the raw output is in the file while the command runs (a background command's output
    // can be read as it comes)…
    let line = claude_line("echo started-9f2; sleep 2; seq 1 3000; exit 3", &cwd_file);
    let (mut child, file) = prefix_into_task_file(&w, &line, &dir);
    let t0 = std::time::Instant::now();
    let mut seen_early = false;
    while t0.elapsed() < std::time::Duration::from_secs(10) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if std::fs::read_to_string(&file)
            .unwrap_or_default()
            .contains("started-9f2")
        {
            seen_early = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        seen_early,
        "the output streams into the task file as it comes"
    );
    // …and the compacted text replaces it when the command ends; exit code kept
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(3));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.len() * 10 < seq_3000().len() && text.lines().any(|l| l.trim() == "3000"),
        "replaced by the compaction: {text}"
    );
    assert!(text.contains("started-9f2"), "{text}");
    assert!(!text.contains('\0'), "no hole before the text: {text:?}");
    // a small output stays exactly as the command wrote it
    let line = claude_line("echo one; echo two >&2", &cwd_file);
    let (mut child, file) = prefix_into_task_file(&w, &line, &tempfile_dir(&w, "small"));
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\ntwo\n");
}

#[test]
fn in_claudes_task_file_a_mark_is_taken_and_the_output_still_compacted() {
    let w = World::new();
    let dir = root(&w);
    let cwd_file = dir.join("cwd");
    let payload = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "seq 1 3000", "run_in_background": true}}).to_string();
    assert!(w
        .run_stdin(&["claude-code-pre-tool-use"], &payload)
        .status
        .success());
    let (mut child, file) = prefix_into_task_file(&w, &claude_line("seq 1 3000", &cwd_file), &dir);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.len() * 10 < seq_3000().len(), "{text}");
    assert!(files_under(&w.tmpdir()).is_empty(), "the mark was taken");
}

fn tempfile_dir(w: &World, name: &str) -> PathBuf {
    let d = root(w).join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_background_command_marked_by_the_hook_passes_through_once() {
    // stdout a pipe (not Claude 2.1's task file): a marked command streams uncompacted
    let w = World::new();
    let dir = root(&w);
    let cwd_file = dir.join("cwd");
    let line = claude_line("seq 1 3000", &cwd_file);
    let payload = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "seq 1 3000", "run_in_background": true}}).to_string();
    let o = w.run_stdin(&["claude-code-pre-tool-use"], &payload);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "{}\n", "the hook never changes the call");
    assert_eq!(
        files_under(&w.tmpdir()).len(),
        1,
        "one mark, in our private TMPDIR"
    );
    // Streams uncompacted: every line.
    let o = prefix(&w, "claude-code", &line, &dir, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), seq_3000(), "the marked run passes through");
    assert!(files_under(&w.tmpdir()).is_empty(), "the mark was taken");
    // The mark is taken once: the same command is compacted again.
    let o = prefix(&w, "claude-code", &line, &dir, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_compacted_seq("second run", &o);
}

#[test]
fn codebuddy_compacts_only_its_bash_tool_lines_and_keeps_stderr_apart() {
    let w = World::new();
    let dir = root(&w);
    let session = [("CODEBUDDY_SESSION_ID", "x")];
    // A Bash tool call carries the session id.
    let o = prefix(&w, "codebuddy", "eval 'seq 1 3000'", &dir, &session);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_compacted_seq("codebuddy", &o);
    let o = prefix(&w, "codebuddy", "eval 'seq 1 3000; exit 4'", &dir, &session);
    assert_eq!(o.status.code(), Some(4), "exit code kept: {}", stderr(&o));
    assert_compacted_seq("codebuddy, failing", &o);
    // Without it (the API key helper, other lines): passed through whole.
    let o = prefix(&w, "codebuddy", "eval 'seq 1 3000'", &dir, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), seq_3000());
    // A small result keeps stdout and stderr on their own streams.
    let o = prefix(
        &w,
        "codebuddy",
        "eval 'echo out; echo err >&2'",
        &dir,
        &session,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "out\n");
    assert_eq!(stderr(&o), "err\n");
}

#[test]
fn a_codebuddy_command_running_into_its_timeout_lets_its_output_go_as_it_came() {
    // CodeBuddy moves a foreground command still running at its timeout to the background
    // and shows the output so far: a little before that, the prefix stops holding it
    let w = World::new();
    let dir = root(&w);
    let env = [
        ("CODEBUDDY_SESSION_ID", "x"),
        ("BASH_DEFAULT_TIMEOUT_MS", "1500"),
    ];
    let line = "eval 'seq 1 3000; echo warn >&2; sleep 2; seq 1 3000; exit 3'";
    let o = prefix(&w, "codebuddy", line, &dir, &env);
    assert_eq!(o.status.code(), Some(3), "exit code kept: {}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("{}{}", seq_3000(), seq_3000()),
        "every line"
    );
    assert_eq!(stderr(&o), "warn\n", "stderr stays stderr");
    // a command that ends in time is still compacted; with auto-background off, CodeBuddy
    // ends the command at its timeout instead and shows what it printed until then: the
    // prefix lets go before that too
    let o = prefix(&w, "codebuddy", "eval 'seq 1 3000'", &dir, &env);
    assert_compacted_seq("in time", &o);
    let off = [
        ("CODEBUDDY_SESSION_ID", "x"),
        ("BASH_DEFAULT_TIMEOUT_MS", "1500"),
        ("CODEBUDDY_BASH_AUTO_BACKGROUND_DISABLED", "1"),
    ];
    let o = prefix(&w, "codebuddy", "eval 'seq 1 3000; sleep 2'", &dir, &off);
    assert_eq!(stdout(&o), seq_3000(), "auto-background off: every line");
    let o = prefix(&w, "codebuddy", "eval 'seq 1 3000'", &dir, &off);
    assert_compacted_seq("auto-background off, in time", &o);
}

#[test]
fn a_line_killed_by_a_signal_ends_the_prefix_by_the_same_signal() {
    // a host's timeout ends the line with a signal, and the host tells the model which
    // (CodeBuddy: `Signal: SIGTERM`); an exit code 128+N would read as a different ending
    use std::os::unix::process::ExitStatusExt;
    let w = World::new();
    let dir = root(&w);
    let session = [("CODEBUDDY_SESSION_ID", "x")];
    let o = prefix(
        &w,
        "codebuddy",
        "eval 'echo before; kill -TERM $$'",
        &dir,
        &session,
    );
    assert_eq!(o.status.signal(), Some(15), "{:?} {}", o.status, stderr(&o));
    assert_eq!(stdout(&o), "before\n");
    let cwd_file = dir.join("cwd");
    let o = prefix(
        &w,
        "claude-code",
        &claude_line("echo before; kill -HUP $$", &cwd_file),
        &dir,
        &[],
    );
    assert_eq!(o.status.signal(), Some(1), "{:?} {}", o.status, stderr(&o));
    assert_eq!(stdout(&o), "before\n");
    // an exit code of 143 stays an exit code
    let o = prefix(
        &w,
        "codebuddy",
        "eval 'echo before; exit 143'",
        &dir,
        &session,
    );
    assert_eq!(o.status.code(), Some(143), "{:?}", o.status);
}

#[test]
fn a_codebuddy_command_past_the_timeout_the_model_gave_it_lets_its_output_go() {
    // the call's own timeout, written by CodeBuddy to its session transcript before the
    // command starts, moves the command to the background before the default would
    let w = World::new();
    let dir = root(&w);
    let cmd = "seq 1 3000; sleep 2; seq 1 3000";
    let call = |command: &str, timeout: u64| {
        json!({"type": "function_call", "callId": "c1", "name": "Bash",
            "arguments": json!({"command": command, "timeout": timeout}).to_string()})
        .to_string()
    };
    let folder = w.home.join(".codebuddy/projects/some-project");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("s-1.jsonl"),
        format!("{}\n{}\n", call("true", 9000), call(cmd, 1200)),
    )
    .unwrap();
    let line = format!("eval {}", quote(cmd));
    let run = |session: &str| {
        prefix(
            &w,
            "codebuddy",
            &line,
            &dir,
            &[("CODEBUDDY_SESSION_ID", session)],
        )
    };
    let o = run("s-1");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("{}{}", seq_3000(), seq_3000()),
        "let go as it came"
    );
    // another session's transcript, or a call given a long timeout: held and compacted
    assert_compacted_twice(&run("s-2"));
    std::fs::write(folder.join("s-1.jsonl"), format!("{}\n", call(cmd, 60_000))).unwrap();
    assert_compacted_twice(&run("s-1"));
}

/// The output of `seq 1 3000` twice, compacted.
fn assert_compacted_twice(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    let out = stdout(o);
    assert!(out.len() < 1000 && out.contains("3000"), "{out}");
}

#[test]
fn a_codebuddy_background_command_writing_to_task_files_passes_through() {
    // CodeBuddy 2.117 gives a background command its task files (bg-tasks/<id>.stdout.log,
    // .stderr.log) as stdout and stderr; a foreground one gets sockets. No hook marks it.
    let w = World::new();
    let dir = root(&w);
    let (out_path, err_path) = (dir.join("t.stdout.log"), dir.join("t.stderr.log"));
    let status = w
        .std_cmd(&["--shell-prefix=codebuddy", "eval 'seq 1 3000; echo e >&2'"])
        .current_dir(&dir)
        .env("CODEBUDDY_SESSION_ID", "x")
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&out_path).unwrap(),
        seq_3000(),
        "every line, untouched"
    );
    assert_eq!(std::fs::read_to_string(&err_path).unwrap(), "e\n");
    // the same line on a pipe is a foreground command: compacted
    let o = prefix(
        &w,
        "codebuddy",
        "eval 'seq 1 3000'",
        &dir,
        &[("CODEBUDDY_SESSION_ID", "x")],
    );
    assert_compacted_seq("foreground", &o);
}

#[test]
fn install_keeps_the_users_prefix_running_doctor_proves_it_and_uninstall_gives_it_back() {
    let w = World::new();
    let dir = root(&w);
    let log = dir.join("audit.log");
    let audit = dir.join("audit");
    w.write(
        &audit,
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> {}\nexec /bin/sh -c \"$1\"\n",
            quote(&log.display().to_string())
        ),
    );
    std::fs::set_permissions(&audit, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let audit_s = audit.display().to_string();
    let original = json!({
        "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Bash(rm:*)"], "defaultMode": "default"},
        "env": {"CLAUDE_CODE_SHELL_PREFIX": audit_s, "FOO": "1"},
        "model": "opus",
    });
    let path = w.home.join(".claude/settings.json");
    w.write(&path, &serde_json::to_string_pretty(&original).unwrap());

    let out = w.run(&["install", "claude-code", "--local"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("is kept in env.TOKENJUICE_CLAUDE_CODE_NEXT_PREFIX"),
        "{}",
        stdout(&out)
    );
    let v = w.json(&path);
    assert_eq!(
        v["env"]["CLAUDE_CODE_SHELL_PREFIX"],
        format!("{} --shell-prefix=claude-code", launcher())
    );
    assert_eq!(
        v["env"]["TOKENJUICE_CLAUDE_CODE_NEXT_PREFIX"],
        json!(audit_s)
    );
    assert_eq!(v["env"]["FOO"], "1");
    assert_eq!(
        v["permissions"], original["permissions"],
        "permissions untouched"
    );
    assert_eq!(v["model"], "opus");

    // doctor runs its probe through the user's prefix, as Claude would.
    let o = w.run(&["doctor", "claude-code"]);
    let r = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{r}");
    assert!(r.lines().any(|l| l == "health: ok"), "{r}");
    assert!(r.contains("your earlier prefix"), "{r}");
    assert!(r.contains("compacted a noisy failing command"), "{r}");
    let logged = std::fs::read_to_string(&log).expect("the user's prefix ran");
    assert!(
        logged.contains("tokenjuice-doctor-probe"),
        "the probe went through the user's prefix: {logged}"
    );

    // At run time Claude passes the settings env: the line goes through both.
    std::fs::remove_file(&log).unwrap();
    let cwd_file = dir.join("cwd");
    let o = prefix(
        &w,
        "claude-code",
        &claude_line("seq 1 3000", &cwd_file),
        &dir,
        &[("TOKENJUICE_CLAUDE_CODE_NEXT_PREFIX", audit_s.as_str())],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_compacted_seq("through the user's prefix", &o);
    assert!(
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("eval 'seq 1 3000'"),
        "the user's prefix ran the line"
    );
    assert_eq!(
        std::fs::read_to_string(&cwd_file).unwrap().trim(),
        dir.display().to_string()
    );

    let un = w.run(&["uninstall", "claude-code"]);
    assert!(un.status.success(), "{}", stderr(&un));
    assert_eq!(w.json(&path), original, "the user's file given back");
}

#[test]
fn the_hosts_own_output_limit_settings_move_the_cut() {
    // 400 distinct coloured error lines (22,800 characters): over the limits set below,
    // under the default 30,000. Over a limit the host shows a preview of the start; what
    // tokenjuice gives is those lines, colour codes removed, in fewer tokens
    let noisy = "python3 -c \"import random; random.seed(7); [print('\\x1b[31merror:\\x1b[0m ' + ''.join(random.choice('abcdefghijklmnop') for _ in range(40))) for _ in range(400)]\"";
    let first = "error: kembcdlbgbcnnchcnbdhbmbhbejnedjfdgldcbgp";
    // CodeBuddy reads BASH_MAX_OUTPUT_LENGTH from its environment
    let w = World::new();
    let dir = root(&w);
    let env = [
        ("CODEBUDDY_SESSION_ID", "x"),
        ("BASH_MAX_OUTPUT_LENGTH", "6000"),
    ];
    let o = prefix(
        &w,
        "codebuddy",
        &format!("eval {}", quote(noisy)),
        &dir,
        &env,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.chars().count() < 2000, "{} chars: {out}", out.len());
    assert!(out.contains("tokenjuice") && out.contains(first), "{out}");
    // Claude Code reads bashOutputMaxChars from its settings (here the project's; 4,000 is
    // its least): an output over it would be a 2 KB preview, so ours stays under that
    let w = World::new();
    let dir = root(&w);
    w.write(
        &dir.join(".claude/settings.json"),
        r#"{"bashOutputMaxChars": 4000}"#,
    );
    let cwd_file = dir.join("cwd");
    let o = prefix(&w, "claude-code", &claude_line(noisy, &cwd_file), &dir, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.chars().count() <= 2000, "{} chars: {out}", out.len());
    assert!(
        out.contains("tokenjuice cat") && out.contains(first),
        "{out}"
    );
    // without the setting, Claude's default 30,000 leaves room for the whole reduction
    let w = World::new();
    let dir = root(&w);
    let o = prefix(&w, "claude-code", &claude_line(noisy, &cwd_file), &dir, &[]);
    assert!(stdout(&o).chars().count() > 4000, "{}", stdout(&o));
}
