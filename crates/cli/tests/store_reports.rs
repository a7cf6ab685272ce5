//! `stats`, `discover` and `doctor` on real histories.

mod common;

use common::Sandbox;
use rusqlite::{params, Connection};

/// `tokenjuice` in the sandbox with no store settings inherited from the caller.
fn tj(sb: &Sandbox) -> assert_cmd::Command {
    sb.store_cmd()
}

fn json(out: std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A run inserted directly: (time, rule, program, subcommand, raw tokens, reduced tokens).
type Run<'a> = (i64, &'a str, &'a str, Option<&'a str>, i64, i64);

fn insert(sb: &Sandbox, runs: &[Run<'_>]) {
    // a first wrap creates the database with its schema
    if !sb.path("data/tokenjuice/history.sqlite3").exists() {
        tj(sb).args(["wrap", "--", "true"]).assert().success();
        let c = Connection::open(sb.path("data/tokenjuice/history.sqlite3")).unwrap();
        c.execute("DELETE FROM runs", []).unwrap();
    }
    let c = Connection::open(sb.path("data/tokenjuice/history.sqlite3")).unwrap();
    for (ts, rule, prog, sub, raw, red) in runs {
        c.execute(
            "INSERT INTO runs (ts_ms, kind, source, program, subcommand, family, rule_id, mode, exit_code, raw_bytes, raw_tokens, reduced_bytes, reduced_tokens, duration_us, capture_truncated)
             VALUES (?1, 'wrap', 'cli', ?2, ?3, 'f', ?4, 'reduced', 0, ?5 * 4, ?5, ?6 * 4, ?6, 1000, 0)",
            params![ts, prog, sub, rule, raw, red],
        )
        .unwrap();
    }
}

fn ms(rfc3339: &str) -> i64 {
    let t: jiff_like::Ts = rfc3339.parse().unwrap();
    t.0
}

/// A tiny RFC 3339 (UTC, `Z`) parser so this test does not need a date crate.
mod jiff_like {
    pub struct Ts(pub i64);
    impl std::str::FromStr for Ts {
        type Err = ();
        fn from_str(s: &str) -> Result<Self, ()> {
            let n = |a: usize, b: usize| s.get(a..b).and_then(|x| x.parse::<i64>().ok()).ok_or(());
            let (y, mo, d, h, mi) = (n(0, 4)?, n(5, 7)?, n(8, 10)?, n(11, 13)?, n(14, 16)?);
            // days from civil (Howard Hinnant's algorithm)
            let y2 = if mo <= 2 { y - 1 } else { y };
            let era = y2.div_euclid(400);
            let yoe = y2 - era * 400;
            let doy = (153 * (if mo > 2 { mo - 3 } else { mo + 9 }) + 2) / 5 + d - 1;
            let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
            let days = era * 146097 + doe - 719468;
            Ok(Ts(((days * 24 + h) * 60 + mi) * 60_000))
        }
    }
}

#[test]
fn stats_totals_are_the_sum_of_the_rows() {
    let sb = Sandbox::new();
    for cmd in [
        vec!["wrap", "--", "sh", "-c", "seq 1 5000"],
        vec!["wrap", "--", "git", "--version"],
        vec!["wrap", "--", "sh", "-c", "for i in $(seq 1 300); do echo warning: thing $i happened in module m$((i % 7)); done; exit 1"],
        vec!["wrap", "--raw", "--", "sh", "-c", "seq 1 50"],
    ] {
        tj(&sb).args(&cmd).output().unwrap();
    }
    tj(&sb)
        .args(["reduce", "--source-command", "git status --short"])
        .write_stdin(" M a\n M b\n")
        .assert()
        .success();
    let c = Connection::open(sb.path("data/tokenjuice/history.sqlite3")).unwrap();
    let (n, raw, red, rawb): (i64, i64, i64, i64) = c
        .query_row(
            "SELECT COUNT(*), SUM(raw_tokens), SUM(reduced_tokens), SUM(raw_bytes) FROM runs",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(n, 5);
    let v = json(
        tj(&sb)
            .args(["stats", "--format", "json"])
            .output()
            .unwrap(),
    );
    assert_eq!(v["totals"]["runs"], n);
    assert_eq!(v["totals"]["rawTokens"], raw);
    assert_eq!(v["totals"]["reducedTokens"], red);
    assert_eq!(v["totals"]["savedTokens"], raw - red);
    assert_eq!(v["totals"]["rawBytes"], rawb);
    assert_eq!(v["failedRuns"], 1);
    assert_eq!(v["rawRuns"], 1);
    for key in ["reducers", "commands", "sources", "days"] {
        let groups = v[key].as_array().unwrap();
        let sum: i64 = groups
            .iter()
            .map(|g| g["rawTokens"].as_i64().unwrap())
            .sum();
        assert_eq!(sum, raw, "{key}");
    }
    // by reducer as CSV: rows sum to the totals too
    let out = tj(&sb)
        .args(["stats", "--by", "reducer", "--format", "csv"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "reducer,runs,raw_tokens,reduced_tokens,saved_tokens,ratio,raw_bytes,reduced_bytes"
    );
    let (mut runs, mut saved) = (0i64, 0i64);
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        runs += f[1].parse::<i64>().unwrap();
        saved += f[4].parse::<i64>().unwrap();
    }
    assert_eq!((runs, saved), (n, raw - red));
}

#[test]
fn text_stats_are_plain_when_not_a_terminal() {
    let sb = Sandbox::new();
    tj(&sb)
        .args(["wrap", "--", "sh", "-c", "seq 1 5000"])
        .assert()
        .success();
    let out = tj(&sb).arg("stats").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("tokenjuice stats"), "{text}");
    assert!(
        text.contains("top reducers") && text.contains("top commands"),
        "{text}"
    );
    assert!(text.contains("saved"), "{text}");
    assert!(
        !text.contains('\x1b') && !text.contains('█'),
        "plain when piped: {text}"
    );
    let out = tj(&sb).args(["stats", "--by", "command"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("seq"));
}

#[test]
fn days_follow_the_requested_zone() {
    let sb = Sandbox::new();
    let late = ms("2026-03-14T23:30Z");
    insert(
        &sb,
        &[
            (late, "a/b", "make", None, 1000, 100),
            (late - 86_400_000, "a/b", "make", None, 500, 100),
        ],
    );
    let days = |zone: &str| {
        let v = json(
            tj(&sb)
                .args([
                    "stats",
                    "--by",
                    "day",
                    "--format",
                    "json",
                    "--since",
                    "2026-03-12",
                    "--timezone",
                    zone,
                ])
                .output()
                .unwrap(),
        );
        v["groups"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["runs"].as_u64().unwrap() > 0)
            .map(|g| g["key"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(days("utc"), ["2026-03-13", "2026-03-14"]);
    assert_eq!(days("+02:00"), ["2026-03-14", "2026-03-15"]);
    if std::path::Path::new("/usr/share/zoneinfo/Asia/Tokyo").exists() {
        assert_eq!(days("Asia/Tokyo"), ["2026-03-14", "2026-03-15"]);
        assert_eq!(days("America/New_York"), ["2026-03-13", "2026-03-14"]);
    }
    let out = tj(&sb)
        .args(["stats", "--timezone", "Nowhere/Special"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown time zone"));
    let out = tj(&sb)
        .args(["stats", "--since", "a while"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--since"));
}

#[test]
fn discover_ranks_fallback_commands_and_weak_rules() {
    let sb = Sandbox::new();
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let mut runs = Vec::new();
    for _ in 0..6 {
        runs.push((
            t - 1000,
            "generic/fallback",
            "terraform",
            Some("plan"),
            4000,
            3800,
        ));
        runs.push((t - 1000, "build/make", "make", None, 2000, 1900));
        runs.push((t - 1000, "git/status", "git", Some("status"), 3000, 300));
    }
    insert(&sb, &runs);
    let v = json(
        tj(&sb)
            .args(["discover", "--format", "json"])
            .output()
            .unwrap(),
    );
    let c = v["candidates"].as_array().unwrap();
    assert_eq!(c.len(), 2, "{v}");
    assert_eq!(c[0]["kind"], "missing-rule");
    assert_eq!(c[0]["key"], "terraform plan");
    assert_eq!(c[0]["atStakeTokens"], 6 * 3800);
    assert_eq!(c[1]["kind"], "weak-rule");
    assert_eq!(c[1]["key"], "build/make");
    let out = tj(&sb).arg("discover").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("terraform plan") && text.contains("\"argvIncludes\": [[\"plan\"]]"),
        "{text}"
    );

    // doctor: the same facts, with a verdict and what to do
    let out = tj(&sb).arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("verdict: warn"), "{text}");
    assert!(
        text.contains("generic fallback") && text.contains("build/make"),
        "{text}"
    );
    assert!(text.contains("what to do"), "{text}");
    let v = json(
        tj(&sb)
            .args(["doctor", "--format", "json"])
            .output()
            .unwrap(),
    );
    assert_eq!(v["verdict"], "warn");
    assert_eq!(v["health"]["fallbackRuns"], 6);
    assert_eq!(v["store"]["runs"], 18);
}

#[test]
fn discover_judges_one_output() {
    let sb = Sandbox::new();
    let words = [
        "apple", "broker", "cinder", "delta", "ember", "fjord", "grain", "harbor",
    ];
    let noisy: String = (0..400)
        .map(|i| {
            format!(
                "{} {} {} step {i}\n",
                words[i % 8],
                words[(i / 8) % 8],
                words[(i * 3) % 8]
            )
        })
        .collect();
    sb.write("work/plan.txt", &noisy);
    let v = json(
        tj(&sb)
            .args([
                "discover",
                "plan.txt",
                "--source-command",
                "frobnicate deploy",
                "--exit-code",
                "0",
                "--format",
                "json",
            ])
            .output()
            .unwrap(),
    );
    assert_eq!(v["ruleId"], "generic/fallback", "{v}");
    assert_eq!(v["verdict"], "missing-rule", "{v}");
    assert!(v["rawTokens"].as_u64().unwrap() > 1000, "{v}");
    let text = tj(&sb)
        .args([
            "discover",
            "plan.txt",
            "--source-command",
            "git status --short",
        ])
        .output()
        .unwrap();
    assert!(text.status.success());
    let small = tj(&sb)
        .args([
            "discover",
            "-",
            "--source-command",
            "echo hi",
            "--format",
            "json",
        ])
        .write_stdin("hi\n")
        .output()
        .unwrap();
    assert_eq!(json(small)["verdict"], "too-small");
}

#[test]
fn doctor_with_no_history_and_with_a_host_target_goes_to_host_checks() {
    let sb = Sandbox::new();
    let out = tj(&sb).arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("verdict: warn — no run history yet"));
    // with a target, doctor checks agent integrations instead
    let out = tj(&sb).args(["doctor", "hooks"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no tokenjuice integration is installed"));
    let out = tj(&sb).args(["doctor", "no-such-agent"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = tj(&sb).arg("stats").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("no runs recorded yet"));
    let out = tj(&sb).arg("discover").output().unwrap();
    assert!(out.status.success());
}

#[test]
fn the_chart_draws_one_plain_line_per_day_scaled_to_the_best_day() {
    let sb = Sandbox::new();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let day = 86_400_000;
    insert(
        &sb,
        &[
            (now - 1000, "r/a", "cargo", Some("test"), 1000, 100),
            (now - 2000, "r/a", "cargo", Some("test"), 1000, 100),
            (now - 2 * day, "r/b", "git", Some("log"), 500, 400),
            (now - 5 * day, "r/c", "ls", None, 10, 20),
        ],
    );
    let out = tj(&sb)
        .args(["stats", "--chart", "--days", "7", "--timezone", "utc"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains('\x1b') && !text.contains('█'),
        "plain off a terminal: {text}"
    );
    assert!(text.starts_with("tokens saved per day "), "{text}");
    assert!(text.contains("1.9k saved in 4 runs"), "{text}");
    assert!(text.contains("scale: # = 45 tokens saved"), "{text}");
    let rows: Vec<&str> = text.lines().skip(2).collect();
    assert_eq!(rows.len(), 7, "seven days, empty ones too: {text}");
    let bar = |l: &str| l.matches('#').count();
    // today: the best day, a full bar; two days ago 100 of 1800: two cells; five days ago the
    // output grew: no bar, a negative number; empty days: no bar, 0
    assert_eq!(bar(rows[6]), 40, "{text}");
    assert!(
        rows[6].contains("1.8k") && rows[6].contains("2 runs, 90% saved"),
        "{text}"
    );
    assert_eq!(bar(rows[4]), 2, "{text}");
    assert_eq!(bar(rows[1]), 0, "{text}");
    assert!(
        rows[1].contains("-10") && rows[1].contains("1 run, -100% saved"),
        "{text}"
    );
    assert!(rows[0].trim_end().ends_with(" 0"), "{text}");
    // each row starts with its date and weekday
    let first = rows[0].split_whitespace().collect::<Vec<_>>();
    assert_eq!(first[0].len(), 10, "{text}");
    assert!(
        ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].contains(&first[1]),
        "{text}"
    );
    // --days narrows it; --chart with a breakdown is refused
    let out = tj(&sb)
        .args(["stats", "--chart", "--days", "2", "--timezone", "utc"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 4);
    let out = tj(&sb)
        .args(["stats", "--chart", "--by", "day"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
