//! `tokenjuice wrap` as a user runs it: exit codes, raw byte identity, signals, fail-open.

mod common;

use common::{alive, Sandbox};
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn exit_codes_are_the_childs() {
    let sb = Sandbox::new();
    for code in [0, 1, 7, 42, 255] {
        sb.cmd()
            .args([
                "wrap",
                "--",
                "sh",
                "-c",
                &format!("echo out; echo err >&2; exit {code}"),
            ])
            .assert()
            .code(code);
    }
}

#[test]
fn failure_output_keeps_stderr_and_says_exit_when_reduced() {
    let sb = Sandbox::new();
    let run = |script: &str| {
        let out = sb
            .cmd()
            .args(["wrap", "--", "sh", "-c", script])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(7));
        String::from_utf8(out.stdout).unwrap()
    };
    // a short output comes back as it was: an `exit 7` line would make it longer than what
    // the command printed (the exit code is wrap's own)
    assert_eq!(
        run("echo hello; echo broken >&2; exit 7"),
        "hello\nbroken\n"
    );
    // a reduced one starts with the exit line
    let text = run(
        "for i in $(seq 400); do echo step $i of the build went fine; done; echo broken >&2; exit 7",
    );
    assert!(text.starts_with("exit 7\n"), "{text}");
    assert!(text.contains("broken"), "{text}");
}

#[test]
fn a_compound_command_that_reads_files_comes_back_whole() {
    let sb = Sandbox::new();
    // 400 similar lines: the fallback would fold them if this were not a file read
    let body: String = (1..=400)
        .map(|i| format!("pub const VALUE_{i}: u32 = {i};\n"))
        .collect();
    sb.write("work/consts.rs", &body);
    let out = sb
        .cmd()
        .args(["wrap", "--", "sh", "-c", "cat consts.rs; echo done"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{body}done\n")
    );
}

#[test]
fn not_found_is_127_and_not_executable_is_126() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["wrap", "--", "definitely-not-a-command-xyz"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(127));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("definitely-not-a-command-xyz: command not found"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one line: {err}");

    let script = sb.write("work/script.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = sb
        .cmd()
        .args(["wrap", "--", script.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(126));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not executable"));
}

#[test]
fn killed_by_signal_is_128_plus_n() {
    let sb = Sandbox::new();
    sb.cmd()
        .args(["wrap", "--", "sh", "-c", "kill -TERM $$"])
        .assert()
        .code(143);
    sb.cmd()
        .args(["wrap", "--", "sh", "-c", "kill -KILL $$"])
        .assert()
        .code(137);
    sb.cmd()
        .args(["wrap", "--raw", "--", "sh", "-c", "kill -INT $$"])
        .assert()
        .code(130);
}

#[test]
fn raw_is_byte_identical_for_binary_and_multibyte_output() {
    let sb = Sandbox::new();
    // invalid UTF-8, NUL, CR, ANSI, and 300k two-byte characters that straddle pipe reads
    let script = "printf '\\000\\377\\376abc\\r\\n\\033[31mred\\033[0m\\n'; python3 -c \"import sys; sys.stdout.write('é'*300000); sys.stdout.write('\\n日本語\\n')\"";
    let expected = Command::new("sh")
        .args(["-c", script])
        .output()
        .unwrap()
        .stdout;
    assert!(expected.len() > 600_000);
    for flag in ["--raw", "--full"] {
        let out = sb
            .cmd()
            .args(["wrap", flag, "--", "sh", "-c", script])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(
            out.stdout == expected,
            "{flag}: output differs from the child's bytes"
        );
    }
}

#[test]
fn reduced_output_keeps_multibyte_characters_intact() {
    let sb = Sandbox::new();
    // 4000 lines of accented text: reduced, but every shown character must be intact
    let script = "python3 -c \"import sys\nfor i in range(4000): sys.stdout.write('ligne numéro %d: été ☃ 日本\\n' % i)\"";
    let out = sb
        .cmd()
        .args(["wrap", "--", "sh", "-c", script])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).expect("valid UTF-8");
    assert!(
        !text.contains('\u{fffd}'),
        "replacement character in output"
    );
    assert!(text.contains("ligne numéro 0: été ☃ 日本"));
    assert!(text.contains("ligne numéro 3999: été ☃ 日本"));
}

#[test]
fn raw_json_has_ratio_one() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args([
            "wrap",
            "--raw",
            "--format",
            "json",
            "--",
            "sh",
            "-c",
            "seq 1 500",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"]["stats"]["ratio"], 1.0);
    assert_eq!(v["exitCode"], 0);
    assert!(v["result"]["inlineText"]
        .as_str()
        .unwrap()
        .ends_with("499\n500\n"));
}

fn wait_for(path: &std::path::Path) -> String {
    let start = Instant::now();
    loop {
        if let Ok(s) = std::fs::read_to_string(path) {
            if s.ends_with('\n') {
                return s;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out waiting for {}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal_test(sig: nix::sys::signal::Signal, expected_code: i32) {
    let sb = Sandbox::new();
    let pidfile = sb.path("work/pids");
    // the shell starts a background grandchild and a foreground child, prints, records pids
    let script = format!(
        "echo started; sleep 300 & bg=$!; sleep 301 & fg=$!; echo \"$bg $fg $$\" > {p}.tmp; mv {p}.tmp {p}; wait $fg",
        p = pidfile.display()
    );
    let mut child = Command::new(common::bin())
        .args(["wrap", "--", "sh", "-c", &script])
        .current_dir(sb.work())
        .env("HOME", sb.path("home"))
        .env("XDG_CONFIG_HOME", sb.path("config"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pids: Vec<i32> = wait_for(&pidfile)
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert!(pids.iter().all(|p| alive(*p)));
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig).unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "wrap did not exit after {sig}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(status.code(), Some(expected_code), "stdout: {out}");
    assert!(
        out.contains("started"),
        "captured output still printed: {out:?}"
    );
    std::thread::sleep(Duration::from_millis(200));
    for p in pids {
        assert!(!alive(p), "process {p} left running after {sig}");
    }
}

#[test]
fn sigterm_is_forwarded_and_nothing_is_left_running() {
    signal_test(nix::sys::signal::Signal::SIGTERM, 143);
}

#[test]
fn sigint_and_sighup_are_forwarded_too() {
    signal_test(nix::sys::signal::Signal::SIGINT, 130);
    signal_test(nix::sys::signal::Signal::SIGHUP, 129);
}

#[test]
fn a_background_grandchild_holding_the_pipe_does_not_hang_wrap() {
    let sb = Sandbox::new();
    let start = Instant::now();
    let out = sb
        .cmd()
        .args(["wrap", "--", "sh", "-c", "echo parent-done; sleep 20 &"])
        .output()
        .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "wrap waited for the background job"
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("parent-done"));
}

#[test]
fn stdin_is_inherited() {
    let sb = Sandbox::new();
    sb.cmd()
        .args(["wrap", "--", "sh", "-c", "read line; echo got:$line"])
        .write_stdin("hello\n")
        .assert()
        .success()
        .stdout("got:hello\n");
}

#[test]
fn a_broken_user_rule_is_skipped_with_one_warning() {
    let sb = Sandbox::new();
    sb.write(
        "config/tokenjuice/rules/broken.json",
        "{ \"id\": \"x/y\", \"family\": ",
    );
    sb.write(
        "config/tokenjuice/rules/typo.json",
        r#"{"id":"x/typo","family":"x","match":{"argv00":["echo"]}}"#,
    );
    let out = sb
        .cmd()
        .args(["wrap", "--", "sh", "-c", "echo still works; exit 3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "still works\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "exactly one warning line: {err}");
    assert!(
        err.contains("broken.json") && err.contains("tokenjuice verify"),
        "{err}"
    );
}

#[test]
fn user_rules_override_builtins_by_id() {
    let sb = Sandbox::new();
    sb.write(
        "config/tokenjuice/rules/seq.json",
        r#"{"id":"user/seq","family":"numbers","match":{"argv0":["seq"]},"summarize":{"head":2,"tail":1},"signals":false}"#,
    );
    let out = sb
        .cmd()
        .args([
            "wrap", "--format", "json", "--trace", "--", "seq", "1", "100",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"]["classification"]["matchedReducer"], "user/seq");
    assert_eq!(v["result"]["trace"]["ruleLayer"], "user");
    let text = v["result"]["inlineText"].as_str().unwrap();
    assert!(
        text.starts_with("1\n2\n... 97 lines omitted ...\n100\n"),
        "{text}"
    );
}

#[test]
fn project_rules_are_found_from_a_subdirectory_up_to_the_repo_root() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.path("work/.git")).unwrap();
    sb.write(
        "work/.tokenjuice/rules/seq.json",
        r#"{"id":"project/seq","family":"numbers","match":{"argv0":["seq"]},"summarize":{"head":1,"tail":1}}"#,
    );
    std::fs::create_dir_all(sb.path("work/a/b")).unwrap();
    let out = sb
        .cmd()
        .current_dir(sb.path("work/a/b"))
        .args([
            "wrap", "--format", "json", "--trace", "--", "seq", "1", "50",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["result"]["classification"]["matchedReducer"],
        "project/seq"
    );
    assert_eq!(v["result"]["trace"]["ruleLayer"], "project");
}

#[test]
fn fail_open_on_an_internal_panic() {
    let sb = Sandbox::new();
    for point in ["plan", "push", "finish"] {
        let out = sb
            .cmd()
            .env("TOKENJUICE_DEBUG_PANIC", point)
            .args([
                "wrap",
                "--",
                "sh",
                "-c",
                "seq 1 3000; echo tail-line; exit 5",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(5), "{point}");
        let text = String::from_utf8_lossy(&out.stdout);
        let expected: String =
            (1..=3000).map(|i| format!("{i}\n")).collect::<String>() + "tail-line\n";
        assert!(
            text == expected,
            "{point}: raw output expected, got {} bytes starting {:?}",
            text.len(),
            &text[..text.len().min(80)]
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{point}: {err}");
        assert!(err.contains("internal error"), "{point}: {err}");
    }
}

#[test]
fn no_omit_mode_cuts_nothing() {
    let sb = Sandbox::new();
    let script = "for i in $(seq 1 300); do echo \"entry $i\"; done";
    let out = sb
        .cmd()
        .args(["wrap", "--no-omit", "--", "sh", "-c", script])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("omitted"), "{text}");
    let out2 = sb
        .cmd()
        .env("TOKENJUICE_NO_OMISSION", "1")
        .args(["wrap", "--", "sh", "-c", script])
        .output()
        .unwrap();
    assert_eq!(out.stdout, out2.stdout);
}

#[test]
fn exact_file_reads_come_back_byte_identical() {
    let sb = Sandbox::new();
    let body: String = (0..2000)
        .map(|i| format!("fn f{i}() {{ println!(\"{i}\"); }}\n"))
        .collect();
    sb.write("work/src.rs", &body);
    for args in [
        vec!["cat", "src.rs"],
        vec!["sed", "-n", "1,2000p", "src.rs"],
        vec!["head", "-n", "5000", "src.rs"],
    ] {
        let mut full = vec!["wrap", "--"];
        full.extend(args.iter().copied());
        let out = sb.cmd().args(&full).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), body, "{args:?}");
    }
    // also through a shell, as host hooks run it
    let out = sb
        .cmd()
        .args(["wrap", "--", "bash", "-lc", "cat src.rs | grep 'f1()'"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "fn f1() { println!(\"1\"); }\n"
    );
}

#[test]
fn a_user_rule_with_a_bad_regex_that_wins_falls_back_with_one_warning() {
    let sb = Sandbox::new();
    sb.write(
        "config/tokenjuice/rules/seq.json",
        r#"{"id":"user/seq","family":"numbers","match":{"argv0":["seq"]},"filters":{"skipPatterns":["(unclosed"]}}"#,
    );
    let out = sb
        .cmd()
        .args(["wrap", "--format", "json", "--", "seq", "1", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["result"]["classification"]["matchedReducer"],
        "generic/fallback"
    );
    assert_eq!(v["result"]["inlineText"], "1\n2\n3");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("user/seq") && err.contains("(unclosed"),
        "{err}"
    );
}

#[test]
fn every_byte_value_passes_through_without_hanging() {
    // a form feed once hung the token estimate: all 256 byte values, reduced and raw
    let sb = Sandbox::new();
    let script =
        "python3 -c \"import sys; b=bytes(range(256)); sys.stdout.buffer.write((b+b'\\n')*50)\"";
    for mode in [None, Some("--raw")] {
        let mut args = vec!["wrap"];
        args.extend(mode);
        args.extend(["--", "sh", "-c", script]);
        let out = sb
            .cmd()
            .args(&args)
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{mode:?}");
        assert!(!out.stdout.is_empty());
    }
}

/// The `SigIgn` mask of a `/proc/<pid>/status` text.
fn ignored_mask(status: &str) -> u64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .map(|m| u64::from_str_radix(m.trim(), 16).unwrap())
        .expect("a SigIgn line")
}

#[test]
fn the_command_starts_with_the_signals_wrap_was_started_with_ignored_and_no_more() {
    // glibc's posix_spawn would leave its internal signals (32, 33) ignored in the command;
    // a shell the agent starts itself does not have them so (seen in the real CodeBuddy)
    let sb = Sandbox::new();
    let script = "grep SigIgn /proc/$PPID/status; grep SigIgn /proc/self/status";
    for outer in ["", "trap '' INT; "] {
        let mut c = std::process::Command::new("sh");
        c.arg("-c")
            .arg(format!("{outer}exec \"$0\" wrap -- sh -c \"$1\""))
            .arg(assert_cmd::cargo::cargo_bin("tokenjuice"))
            .arg(script)
            .current_dir(sb.work())
            .env("TOKENJUICE_HOME", sb.path("data/tokenjuice"));
        // start the outer shell with every signal at its default, 32 and 33 too (this test
        // may have been started with them ignored), as an agent's own shell is
        use std::os::unix::process::CommandExt;
        // SAFETY: only raw system calls between fork and exec
        unsafe {
            c.pre_exec(|| {
                let default = [0usize; 4];
                for sig in 1..=64usize {
                    nix::libc::syscall(
                        nix::libc::SYS_rt_sigaction,
                        sig,
                        default.as_ptr(),
                        std::ptr::null_mut::<usize>(),
                        8usize,
                    );
                }
                Ok(())
            });
        }
        let out = c.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        let (wrap, command) = (
            ignored_mask(lines.next().unwrap_or_default()),
            ignored_mask(lines.next().unwrap_or_default()),
        );
        // wrap ignores SIGPIPE itself (the Rust runtime); the command gets it at its default
        let sigpipe = 1u64 << (13 - 1);
        assert_eq!(command, wrap & !sigpipe, "{outer:?}: {text}");
        assert_eq!(command & 1 << 1 != 0, !outer.is_empty(), "SIGINT: {text}");
        assert_eq!(command & (3 << 31), 0, "signals 32 and 33: {text}");
    }
}
