//! Run history as a user meets it: one row per call, nothing secret by default, many
//! writers at once, and a locked, damaged or unwritable database never costing a
//! command its output or exit code.

mod common;

use common::Sandbox;
use rusqlite::Connection;
use std::path::PathBuf;

/// `tokenjuice` in the sandbox with no store settings inherited from the caller.
fn tj(sb: &Sandbox) -> assert_cmd::Command {
    sb.store_cmd()
}

fn db(sb: &Sandbox) -> PathBuf {
    sb.path("data/tokenjuice/history.sqlite3")
}

fn rows(sb: &Sandbox) -> Vec<serde_json::Value> {
    let c = Connection::open(db(sb)).unwrap();
    let mut st = c
        .prepare("SELECT kind, source, program, subcommand, rule_id, mode, exit_code, raw_bytes, raw_tokens, reduced_tokens, command, capture_truncated, artifact_id FROM runs ORDER BY id")
        .unwrap();
    let out = st
        .query_map([], |r| {
            Ok(serde_json::json!({
                "kind": r.get::<_, String>(0)?,
                "source": r.get::<_, String>(1)?,
                "program": r.get::<_, String>(2)?,
                "subcommand": r.get::<_, Option<String>>(3)?,
                "rule": r.get::<_, String>(4)?,
                "mode": r.get::<_, String>(5)?,
                "exit": r.get::<_, Option<i64>>(6)?,
                "rawBytes": r.get::<_, i64>(7)?,
                "rawTokens": r.get::<_, i64>(8)?,
                "reducedTokens": r.get::<_, i64>(9)?,
                "command": r.get::<_, Option<String>>(10)?,
                "truncated": r.get::<_, bool>(11)?,
                "artifact": r.get::<_, Option<String>>(12)?,
            }))
        })
        .unwrap();
    out.map(Result::unwrap).collect()
}

#[test]
fn every_call_is_one_row_without_the_command_line() {
    let sb = Sandbox::new();
    tj(&sb)
        .args(["wrap", "--source", "claude-code", "--", "git", "--version"])
        .assert()
        .success();
    tj(&sb)
        .args([
            "wrap",
            "--",
            "sh",
            "-c",
            "echo TOKEN=hunter2-very-secret; exit 5",
        ])
        .assert()
        .code(5);
    tj(&sb)
        .args(["reduce", "--source-command", "git status --short"])
        .write_stdin(" M src/a.rs\n")
        .assert()
        .success();
    tj(&sb)
        .arg("reduce-json")
        .write_stdin(r#"{"command":"cargo test --release","combinedText":"ok\n","exitCode":0}"#)
        .assert()
        .success();
    let r = rows(&sb);
    assert_eq!(r.len(), 4, "{r:#?}");
    assert_eq!(r[0]["kind"], "wrap");
    assert_eq!(r[0]["source"], "claude-code");
    assert_eq!(r[0]["program"], "git");
    assert_eq!(r[0]["exit"], 0);
    assert!(r[0]["rawBytes"].as_u64().unwrap() > "git version ".len() as u64);
    assert_eq!(r[1]["exit"], 5);
    assert_eq!(r[1]["program"], "echo"); // `exit 5` prints nothing: the output is echo's
    assert_eq!(r[1]["source"], "cli");
    assert_eq!(r[2]["kind"], "reduce");
    assert_eq!(r[2]["rule"], "git/status");
    assert_eq!(r[2]["subcommand"], "status");
    assert_eq!(r[3]["kind"], "reduce-json");
    assert_eq!(r[3]["program"], "cargo");
    assert_eq!(r[3]["subcommand"], "test");
    for row in &r {
        assert!(row["command"].is_null(), "{row}");
    }
    // nothing of the command lines or output is on disk
    for entry in std::fs::read_dir(sb.path("data/tokenjuice")).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("hunter2"));
        assert!(!text.contains("--release"));
    }
}

#[test]
fn compound_commands_are_recorded_as_such() {
    let sb = Sandbox::new();
    tj(&sb)
        .args(["wrap", "--", "sh", "-c", "echo one; echo two"])
        .assert()
        .success();
    let r = rows(&sb);
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!(r[0]["program"], "(compound)");
    assert_eq!(r[0]["rule"], "generic/fallback");
}

#[test]
fn command_lines_are_kept_only_on_request_and_redacted() {
    let sb = Sandbox::new();
    tj(&sb)
        .env("TOKENJUICE_STATS_COMMANDS", "1")
        .args([
            "wrap",
            "--",
            "sh",
            "-c",
            "curl -H 'Authorization: Bearer abcdef0123456789abcdef' https://user:pa55word@example.invalid/x?api_key=k3y-value-123 --token ghp_abcdefghijklmnopqrstuvwxyz0123456789 -o /dev/null 2>/dev/null; AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIbPxRfiCYEXAMPLEKEY echo AKIAIOSFODNN7EXAMPLE sk-proj-abcdefghijklmnopqrstuvwx; true",
        ])
        .assert()
        .success();
    let r = rows(&sb);
    let cmd = r[0]["command"].as_str().expect("command kept on request");
    assert!(cmd.contains("curl") && cmd.contains("[REDACTED]"), "{cmd}");
    for secret in [
        "abcdef0123456789abcdef",
        "pa55word",
        "k3y-value-123",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "wJalrXUtnFEMIbPxRfiCYEXAMPLEKEY",
        "AKIAIOSFODNN7EXAMPLE",
        "sk-proj-abcdefghijklmnopqrstuvwx",
    ] {
        assert!(!cmd.contains(secret), "{secret} leaked: {cmd}");
    }
}

#[test]
fn recording_can_be_turned_off() {
    let sb = Sandbox::new();
    tj(&sb)
        .args(["wrap", "--no-stats", "--", "true"])
        .assert()
        .success();
    for off in ["0", "false", "no", "off"] {
        tj(&sb)
            .env("TOKENJUICE_STATS", off)
            .args(["wrap", "--", "true"])
            .assert()
            .success();
    }
    tj(&sb)
        .args(["reduce", "--no-stats"])
        .write_stdin("x\n")
        .assert()
        .success();
    tj(&sb)
        .args(["reduce-json", "--no-stats"])
        .write_stdin(r#"{"command":"ls","combinedText":"a\n"}"#)
        .assert()
        .success();
    assert!(!db(&sb).exists());
    // and in the config file
    sb.write(
        "config/tokenjuice/config.toml",
        "[history]\nenabled = false\n",
    );
    tj(&sb).args(["wrap", "--", "true"]).assert().success();
    assert!(!db(&sb).exists());
}

#[test]
fn eight_processes_at_once_lose_no_row() {
    eight_processes_at_once("0"); // every run writes the database
}

#[test]
fn eight_processes_at_once_through_the_spool_lose_no_row() {
    eight_processes_at_once("1"); // a move into the database every few runs
}

fn eight_processes_at_once(batch_kb: &str) {
    let sb = Sandbox::new();
    tj(&sb).args(["wrap", "--", "true"]).assert().success(); // create it
    let per = 25;
    let bin = common::bin();
    let children: Vec<_> = (0..8)
        .map(|w| {
            let script = format!(
                "i=0; while [ $i -lt {per} ]; do \"$TJ\" wrap -- sh -c 'echo w{w}; seq 1 $0' $i >/dev/null || exit 9; i=$((i+1)); done"
            );
            std::process::Command::new("sh")
                .arg("-c")
                .arg(script)
                .env("TJ", &bin)
                .env("HOME", sb.path("home"))
                .env("XDG_CONFIG_HOME", sb.path("config"))
                .env("XDG_DATA_HOME", sb.path("data"))
                .env("TOKENJUICE_HOME", sb.path("data/tokenjuice"))
                .env_remove("TOKENJUICE_STATS")
                .env("TOKENJUICE_STATS_BATCH_KB", batch_kb)
                .current_dir(sb.work())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    // stats adds whatever waited in the spool
    let out = tj(&sb)
        .args(["stats", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["totals"]["runs"], 1 + 8 * per, "{v}");
    let c = Connection::open(db(&sb)).unwrap();
    let check: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let distinct: i64 = c
        .query_row("SELECT COUNT(DISTINCT raw_bytes) FROM runs", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(distinct >= per as i64, "rows are real runs, not copies");
}

#[test]
fn a_locked_database_never_holds_up_the_command() {
    let sb = Sandbox::new();
    tj(&sb).args(["wrap", "--", "true"]).assert().success();
    let lock = Connection::open(db(&sb)).unwrap();
    lock.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let out = tj(&sb)
        .args(["wrap", "--", "sh", "-c", "echo still here; exit 6"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "still here\n");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    lock.execute_batch("ROLLBACK").unwrap();
    drop(lock);
    // the parked record is not lost
    let out = tj(&sb)
        .args(["stats", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["totals"]["runs"], 2, "{v}");
    assert_eq!(v["failedRuns"], 1);
}

#[test]
fn a_damaged_database_costs_one_line_once() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(db(&sb).parent().unwrap()).unwrap();
    std::fs::write(db(&sb), b"garbage, not SQLite ".repeat(500)).unwrap();
    let out = tj(&sb)
        .args(["wrap", "--", "sh", "-c", "echo fine; exit 2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "fine\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("damaged"), "{err}");
    let out = tj(&sb)
        .args(["wrap", "--", "sh", "-c", "echo again"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "said only once: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(rows(&sb).len(), 2);
}

#[test]
fn an_unwritable_database_costs_nothing_visible() {
    let sb = Sandbox::new();
    // the database path is a directory: SQLite cannot open it
    std::fs::create_dir_all(db(&sb)).unwrap();
    let out = tj(&sb)
        .args(["wrap", "--", "sh", "-c", "echo ok; exit 3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok\n");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // and a data directory that cannot be created
    std::fs::write(sb.path("data/file"), b"x").unwrap();
    let out = tj(&sb)
        .env("TOKENJUICE_HOME", sb.path("data/file/tj"))
        .args(["wrap", "--", "sh", "-c", "echo ok; exit 3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // doctor says what is wrong
    let out = tj(&sb).args(["doctor"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("broken"));
}

#[test]
fn failing_and_raw_runs_are_recorded_as_such() {
    let sb = Sandbox::new();
    tj(&sb)
        .args(["wrap", "--raw", "--", "sh", "-c", "seq 1 100"])
        .assert()
        .success();
    tj(&sb)
        .args(["wrap", "--", "no-such-command-xyz"])
        .assert()
        .code(127);
    tj(&sb)
        .args(["wrap", "--", "cat", "/etc/hostname"])
        .assert()
        .success();
    let r = rows(&sb);
    assert_eq!(r[0]["mode"], "raw");
    assert_eq!(r[0]["rawBytes"], 292);
    assert_eq!(r[0]["rawTokens"], r[0]["reducedTokens"]);
    assert_eq!(r[1]["exit"], 127);
    assert_eq!(r[2]["mode"], "exact-read");
}
