//! Run history on a real SQLite file: recording, contention, damage, retention, reports.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::Connection;
use tokenjuice_store::artifact::{self, ArtifactId, ArtifactWriter};
use tokenjuice_store::discover::{self, Kind, Thresholds};
use tokenjuice_store::doctor::{self, Verdict};
use tokenjuice_store::history::{self, History, Outcome};
use tokenjuice_store::report;
use tokenjuice_store::retention;
use tokenjuice_store::timefmt;
use tokenjuice_store::{Home, RunKind, RunRecord, Settings};

const DAY: i64 = 86_400_000;

/// Each record written to the database at once (these tests look at the database).
fn settings(home: &Path) -> Settings {
    Settings {
        home: Some(Home::at(home)),
        batch_bytes: 0,
        ..Settings::default()
    }
}

fn rec(ts_ms: i64, rule: &str, program: &str, raw: u64, reduced: u64) -> RunRecord {
    RunRecord {
        ts_ms,
        kind: RunKind::Wrap,
        source: "cli".into(),
        program: program.into(),
        subcommand: None,
        family: rule.split('/').next().unwrap_or("").into(),
        rule_id: rule.into(),
        mode: "reduced".into(),
        exit_code: Some(0),
        raw_bytes: raw * 4,
        raw_tokens: raw,
        reduced_bytes: reduced * 4,
        reduced_tokens: reduced,
        duration_us: 1000,
        capture_truncated: false,
        artifact_id: None,
        command: None,
    }
}

fn now() -> i64 {
    tokenjuice_store::now_ms()
}

fn count(home: &Path) -> u64 {
    History::open_existing(&Home::at(home))
        .unwrap()
        .map(|h| h.count().unwrap())
        .unwrap_or(0)
}

#[test]
fn records_round_trip_and_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("tj");
    let s = settings(&home);
    let mut r = rec(now(), "git/status", "git", 300, 40);
    r.subcommand = Some("status".into());
    r.exit_code = Some(-3);
    r.artifact_id = Some("tj_0123456789ab".into());
    assert!(matches!(history::record(&s, &r), Outcome::Recorded { .. }));
    let h = History::open_existing(&Home::at(&home)).unwrap().unwrap();
    let back = h.runs_between(0, i64::MAX).unwrap();
    assert_eq!(back, vec![r]);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&home), 0o700);
    for f in [
        "history.sqlite3",
        "history.sqlite3-wal",
        "history.sqlite3-shm",
    ] {
        let p = home.join(f);
        if p.exists() {
            assert_eq!(mode(&p), 0o600, "{f}");
        }
    }
}

#[test]
fn disabled_history_writes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let mut s = settings(t.path());
    s.history = false;
    assert_eq!(
        history::record(&s, &rec(now(), "x/y", "x", 1, 1)),
        Outcome::Disabled
    );
    assert!(!t.path().join("history.sqlite3").exists());
}

#[test]
fn a_locked_database_parks_the_record_and_the_next_writer_adds_it() {
    let t = tempfile::tempdir().unwrap();
    let s = settings(t.path());
    assert!(matches!(
        history::record(&s, &rec(now(), "a/b", "a", 10, 5)),
        Outcome::Recorded { .. }
    ));
    let lock = Connection::open(t.path().join("history.sqlite3")).unwrap();
    lock.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let started = Instant::now();
    assert_eq!(
        history::record(&s, &rec(now(), "a/b", "a", 10, 5)),
        Outcome::Spooled
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "waited {:?} for a locked database",
        started.elapsed()
    );
    lock.execute_batch("ROLLBACK").unwrap();
    drop(lock);
    match history::record(&s, &rec(now(), "a/b", "a", 10, 5)) {
        Outcome::Recorded { drained, .. } => assert_eq!(drained, 1),
        o => panic!("{o:?}"),
    }
    assert_eq!(count(t.path()), 3);
    assert!(!t.path().join("history.pending").exists());
}

#[test]
fn a_damaged_database_is_set_aside_once_and_a_new_one_started() {
    let t = tempfile::tempdir().unwrap();
    let s = settings(t.path());
    std::fs::write(
        t.path().join("history.sqlite3"),
        b"this is not a database, it is a shopping list\n".repeat(200),
    )
    .unwrap();
    match history::record(&s, &rec(now(), "a/b", "a", 10, 5)) {
        Outcome::Reset { set_aside } => {
            assert!(set_aside.exists());
            assert!(std::fs::read(&set_aside)
                .unwrap()
                .starts_with(b"this is not"));
        }
        o => panic!("{o:?}"),
    }
    assert!(matches!(
        history::record(&s, &rec(now(), "a/b", "a", 10, 5)),
        Outcome::Recorded { .. }
    ));
    assert_eq!(count(t.path()), 2);
}

#[test]
fn an_unwritable_store_costs_only_the_record() {
    let t = tempfile::tempdir().unwrap();
    // a data directory that cannot exist: its parent is a file
    std::fs::write(t.path().join("file"), b"x").unwrap();
    let s = settings(&t.path().join("file/tj"));
    assert!(matches!(
        history::record(&s, &rec(now(), "a/b", "a", 10, 5)),
        Outcome::Dropped(_)
    ));
    // the history path is a directory
    let t2 = tempfile::tempdir().unwrap();
    std::fs::create_dir(t2.path().join("history.sqlite3")).unwrap();
    assert!(matches!(
        history::record(&settings(t2.path()), &rec(now(), "a/b", "a", 10, 5)),
        Outcome::Dropped(_)
    ));
}

#[test]
fn concurrent_writers_lose_nothing() {
    concurrent_writers(0);
}

#[test]
fn concurrent_writers_through_the_spool_lose_nothing() {
    // small batches: many moves from the spool, racing with appenders and each other
    concurrent_writers(2 << 10);
}

fn concurrent_writers(batch_bytes: u64) {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().to_path_buf();
    let threads: Vec<_> = (0..8)
        .map(|w| {
            let home = home.clone();
            std::thread::spawn(move || {
                let s = Settings {
                    batch_bytes,
                    ..settings(&home)
                };
                let mut lost = Vec::new();
                for i in 0..40 {
                    let r = rec(now(), "w/x", &format!("p{w}"), 100 + i, 10);
                    if let Outcome::Dropped(why) = history::record(&s, &r) {
                        lost.push(why);
                    }
                }
                lost
            })
        })
        .collect();
    let lost: Vec<String> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    assert!(lost.is_empty(), "records dropped: {lost:?}");
    history::flush_spool(&Home::at(&home), 1000).unwrap();
    let h = History::open_existing(&Home::at(&home)).unwrap().unwrap();
    assert_eq!(h.count().unwrap(), 320);
    assert_eq!(h.quick_check().unwrap(), None);
    // every writer's rows are all there, none duplicated
    for w in 0..8 {
        let n: i64 = h
            .conn()
            .query_row(
                "SELECT COUNT(DISTINCT raw_tokens) FROM runs WHERE program = ?1",
                [format!("p{w}")],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 40, "writer {w}");
    }
}

#[test]
fn retention_by_age_removes_old_runs_and_artifacts() {
    let t = tempfile::tempdir().unwrap();
    let home = Home::at(t.path());
    let mut s = settings(t.path());
    s.retention_days = 7;
    let n = now();
    let mut h = History::open_for_write(&home, 100).unwrap();
    h.insert_all(&[
        rec(n - 30 * DAY, "a/b", "old", 1, 1),
        rec(n - 8 * DAY, "a/b", "old", 1, 1),
        rec(n - 6 * DAY, "a/b", "new", 1, 1),
        rec(n, "a/b", "new", 1, 1),
    ])
    .unwrap();
    let mut ids = Vec::new();
    for age in [10 * DAY, DAY] {
        let mut w = ArtifactWriter::create(&home, u64::MAX).unwrap();
        w.write(b"output\n").unwrap();
        let mut stored = w.finish().unwrap();
        stored.meta.created_ms = n - age;
        artifact::describe(&home.artifact_dir(), &stored.meta).unwrap();
        ids.push(stored.id);
    }
    let pruned = retention::prune(&h, &home, &s, n, None).unwrap();
    assert_eq!(pruned.runs, 2);
    assert_eq!(pruned.artifacts, 1);
    let left: Vec<String> = h
        .runs_between(0, i64::MAX)
        .unwrap()
        .into_iter()
        .map(|r| r.program)
        .collect();
    assert_eq!(left, vec!["new", "new"]);
    let listed: Vec<String> = artifact::list(&home)
        .unwrap()
        .into_iter()
        .map(|l| l.id)
        .collect();
    assert_eq!(listed, vec![ids[1].to_string()]);
}

fn incompressible(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn retention_by_size_removes_oldest_artifacts_then_oldest_runs() {
    let t = tempfile::tempdir().unwrap();
    let home = Home::at(t.path());
    let mut s = settings(t.path());
    s.max_bytes = 1 << 20;
    let n = now();
    let mut ids: Vec<ArtifactId> = Vec::new();
    for i in 0..4 {
        let mut w = ArtifactWriter::create(&home, u64::MAX).unwrap();
        w.write(&incompressible(400_000, i + 1)).unwrap();
        let mut stored = w.finish().unwrap();
        stored.meta.created_ms = n - (10 - i as i64) * 1000;
        artifact::describe(&home.artifact_dir(), &stored.meta).unwrap();
        ids.push(stored.id);
    }
    let h = History::open_for_write(&home, 100).unwrap();
    // the oldest artifact is the one just stored: it must stay
    let keep = ids[0].clone();
    retention::prune(&h, &home, &s, n, Some(&keep)).unwrap();
    let left: Vec<String> = artifact::list(&home)
        .unwrap()
        .into_iter()
        .map(|l| l.id)
        .collect();
    assert!(left.contains(&keep.to_string()), "{left:?}");
    assert!(
        left.contains(&ids[3].to_string()),
        "the newest fits too: {left:?}"
    );
    assert_eq!(left.len(), 2, "{left:?}");
    drop(h);

    // now rows: a budget smaller than the history itself
    let t = tempfile::tempdir().unwrap();
    let home = Home::at(t.path());
    let mut h = History::open_for_write(&home, 100).unwrap();
    let rows: Vec<RunRecord> = (0..20_000)
        .map(|i| {
            let mut r = rec(
                n - 20_000 + i,
                "some/rule-with-a-long-name",
                "program",
                1,
                1,
            );
            r.command = Some(format!("program --with many arguments number {i}"));
            r
        })
        .collect();
    h.insert_all(&rows).unwrap();
    let before = h.disk_bytes();
    let mut s = settings(t.path());
    s.max_bytes = before / 2;
    let pruned = retention::prune(&h, &home, &s, n, None).unwrap();
    assert!(pruned.runs > 0);
    assert!(
        h.disk_bytes() <= s.max_bytes,
        "{} > {}",
        h.disk_bytes(),
        s.max_bytes
    );
    // the oldest went, the newest stayed
    let kept = h.runs_between(0, i64::MAX).unwrap();
    assert_eq!(kept.last().unwrap().ts_ms, n - 1);
    assert!(kept.first().unwrap().ts_ms > n - 20_000);
}

#[test]
fn report_totals_are_the_sum_of_the_rows() {
    let t = tempfile::tempdir().unwrap();
    let home = Home::at(t.path());
    let mut h = History::open_for_write(&home, 100).unwrap();
    let n = now();
    let mut rows = Vec::new();
    let rules = ["git/status", "generic/fallback", "tests/cargo-test"];
    let progs = ["git", "make", "cargo", ""];
    let mut x: u64 = 7;
    for i in 0..500u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let raw = (x >> 40) % 5000;
        let reduced = if i % 17 == 0 {
            raw + 3
        } else {
            raw * ((x >> 20) % 100) / 100
        };
        let mut r = rec(
            n - (x >> 33) as i64 % (20 * DAY),
            rules[(x % 3) as usize],
            progs[(x % 4) as usize],
            raw,
            reduced,
        );
        r.source = ["cli", "codex", "claude-code"][(i % 3) as usize].into();
        rows.push(r);
    }
    h.insert_all(&rows).unwrap();
    let tz = timefmt::zone("utc").unwrap();
    let rep = report::build(&h, 0, n + 1, &tz).unwrap();
    let raw: u64 = rows.iter().map(|r| r.raw_tokens).sum();
    let red: u64 = rows.iter().map(|r| r.reduced_tokens).sum();
    assert_eq!(rep.totals.runs, 500);
    assert_eq!(rep.totals.raw_tokens, raw);
    assert_eq!(rep.totals.reduced_tokens, red);
    assert_eq!(rep.totals.saved_tokens, raw as i64 - red as i64);
    assert_eq!(
        rep.totals.raw_bytes,
        rows.iter().map(|r| r.raw_bytes).sum::<u64>()
    );
    for by in [
        report::By::Reducer,
        report::By::Command,
        report::By::Source,
        report::By::Family,
        report::By::Day,
    ] {
        let g = rep.groups(by);
        assert_eq!(g.iter().map(|g| g.sums.runs).sum::<u64>(), 500, "{by:?}");
        assert_eq!(
            g.iter().map(|g| g.sums.raw_tokens).sum::<u64>(),
            raw,
            "{by:?}"
        );
        assert_eq!(
            g.iter().map(|g| g.sums.saved_tokens).sum::<i64>(),
            raw as i64 - red as i64,
            "{by:?}"
        );
    }
    // the unknown program is labelled, not blank
    assert!(rep.commands.iter().any(|g| g.key == "(unknown)"));
    // a window is honoured
    let rep = report::build(&h, n - 5 * DAY, n + 1, &tz).unwrap();
    let want = rows.iter().filter(|r| r.ts_ms >= n - 5 * DAY).count() as u64;
    assert_eq!(rep.totals.runs, want);
    // one source only
    let rep = report::build_for_source(&h, 0, n + 1, &tz, "codex").unwrap();
    assert_eq!(
        rep.totals.runs,
        rows.iter().filter(|r| r.source == "codex").count() as u64
    );
}

#[test]
fn a_run_at_2330_utc_is_on_the_next_day_at_plus_two() {
    let t = tempfile::tempdir().unwrap();
    let home = Home::at(t.path());
    let mut h = History::open_for_write(&home, 100).unwrap();
    let ts: jiff::Timestamp = "2026-03-14T23:30:00Z".parse().unwrap();
    let ts = ts.as_millisecond();
    h.insert_all(&[
        rec(ts, "a/b", "a", 100, 10),
        rec(ts - 3_600_000, "a/b", "a", 50, 10),
    ])
    .unwrap();
    let day = |zone: &str| {
        let tz = timefmt::zone(zone).unwrap();
        let rep = report::build(&h, ts - DAY, ts + 1, &tz).unwrap();
        rep.days
            .into_iter()
            .filter(|d| d.sums.runs > 0)
            .map(|d| (d.key, d.sums.runs))
            .collect::<Vec<_>>()
    };
    assert_eq!(day("utc"), vec![("2026-03-14".to_string(), 2)]);
    // 22:30 UTC is 00:30 on the 15th at +02:00, so both land on the 15th
    assert_eq!(day("+02:00"), vec![("2026-03-15".to_string(), 2)]);
    // at -01:00 both are on the 14th
    assert_eq!(day("-01:00"), vec![("2026-03-14".to_string(), 2)]);
    // at +01:00 one run is on each side of midnight
    assert_eq!(
        day("+01:00"),
        vec![("2026-03-14".to_string(), 1), ("2026-03-15".to_string(), 1)]
    );
}

#[test]
fn discover_ranks_by_tokens_at_stake_and_doctor_judges() {
    let t = tempfile::tempdir().unwrap();
    let home = Home::at(t.path());
    let mut h = History::open_for_write(&home, 100).unwrap();
    let n = now();
    let mut rows = Vec::new();
    for _ in 0..10 {
        rows.push(rec(n, "generic/fallback", "terraform", 5000, 4500));
        rows.push(rec(n, "generic/fallback", "tiny", 50, 50)); // too small to count
        rows.push(rec(n, "build/make", "make", 3000, 2700)); // weak
        rows.push(rec(n, "git/status", "git", 2000, 200)); // fine
        rows.push(rec(n, "generic/fallback", "helm", 1000, 900));
    }
    let mut raw = rec(n, "generic/fallback", "cat", 90_000, 90_000);
    raw.mode = "exact-read".into();
    rows.push(raw);
    h.insert_all(&rows).unwrap();
    let c = discover::candidates(&h, 0, n + 1, &Thresholds::default()).unwrap();
    let keys: Vec<(Kind, &str)> = c.iter().map(|c| (c.kind, c.key.as_str())).collect();
    assert_eq!(
        keys,
        vec![
            (Kind::MissingRule, "terraform"),
            (Kind::WeakRule, "build/make"),
            (Kind::MissingRule, "helm")
        ]
    );
    assert_eq!(c[0].at_stake_tokens, 45_000);
    assert!(c[0].suggestion.contains("\"argv0\": [\"terraform\"]"));
    assert_eq!(c[1].top_command.as_deref(), Some("make"));

    let d = doctor::health(&h, 0, n + 1).unwrap();
    // 76% of tokens kept overall: not poor (85%), but the fallback and make need work
    assert_eq!(d.verdict, Verdict::Warn, "{:?}", d.reasons);
    assert!(d.reasons[0].contains("generic fallback"), "{:?}", d.reasons);
    assert_eq!(d.weak.len(), 1);
    assert_eq!(d.missing.len(), 2);
    assert!(d.advice.iter().any(|a| a.contains("terraform")));

    // a healthy history
    let t = tempfile::tempdir().unwrap();
    let home = Home::at(t.path());
    let mut h = History::open_for_write(&home, 100).unwrap();
    let good: Vec<_> = (0..30)
        .map(|_| rec(n, "git/status", "git", 2000, 200))
        .collect();
    h.insert_all(&good).unwrap();
    let d = doctor::health(&h, 0, n + 1).unwrap();
    assert_eq!(d.verdict, Verdict::Good, "{:?}", d.reasons);
    // an empty window
    let d = doctor::health(&h, n + 10, n + 20).unwrap();
    assert_eq!(d.verdict, Verdict::Warn);
    // a poor one: most of everything is kept
    let t = tempfile::tempdir().unwrap();
    let mut h = History::open_for_write(&Home::at(t.path()), 100).unwrap();
    let poor: Vec<_> = (0..30)
        .map(|_| rec(n, "git/log", "git", 2000, 1900))
        .collect();
    h.insert_all(&poor).unwrap();
    let d = doctor::health(&h, 0, n + 1).unwrap();
    assert_eq!(d.verdict, Verdict::Poor, "{:?}", d.reasons);
    assert!(
        d.reasons
            .iter()
            .any(|r| r.contains("1 rule saves little: git/log")),
        "{:?}",
        d.reasons
    );
    // too few runs to call it poor
    let t = tempfile::tempdir().unwrap();
    let mut h = History::open_for_write(&Home::at(t.path()), 100).unwrap();
    h.insert_all(&poor[..3]).unwrap();
    let d = doctor::health(&h, 0, n + 1).unwrap();
    assert_eq!(d.verdict, Verdict::Warn);
    // two runs, both to the fallback: "good" must not read as a judgement it cannot make
    let t = tempfile::tempdir().unwrap();
    let mut h = History::open_for_write(&Home::at(t.path()), 100).unwrap();
    h.insert_all(&[
        rec(n, "generic/fallback", "seq", 9000, 90),
        rec(n, "generic/fallback", "seq", 9000, 90),
    ])
    .unwrap();
    let d = doctor::health(&h, 0, n + 1).unwrap();
    assert_eq!(d.verdict, Verdict::Good, "{:?}", d.reasons);
    assert!(
        d.reasons
            .iter()
            .any(|r| r.contains("only 2 runs so far: too few to judge the fallback share")),
        "{:?}",
        d.reasons
    );
}

#[test]
fn judge_single_outputs() {
    let t = Thresholds::default();
    assert_eq!(
        discover::judge("generic/fallback", "reduced", 5000, 4000, &t).verdict,
        "missing-rule"
    );
    assert_eq!(
        discover::judge("build/make", "reduced", 5000, 4000, &t).verdict,
        "weak-rule"
    );
    assert_eq!(
        discover::judge("build/make", "reduced", 5000, 400, &t).verdict,
        "fine"
    );
    assert_eq!(
        discover::judge("generic/fallback", "reduced", 20, 20, &t).verdict,
        "too-small"
    );
    assert_eq!(
        discover::judge("generic/fallback", "exact-read", 5000, 5000, &t).verdict,
        "not-reducible"
    );
}

#[test]
fn records_wait_in_the_spool_and_move_in_batches() {
    let dir = tempfile::tempdir().unwrap();
    let s = Settings {
        home: Some(Home::at(dir.path())),
        batch_bytes: 4 << 10,
        ..Settings::default()
    };
    let home = s.home.clone().unwrap();
    let mut outcomes = Vec::new();
    for i in 0..60 {
        outcomes.push(history::record(
            &s,
            &rec(now() + i, "git/status", "git", 100, 10),
        ));
    }
    let spooled = outcomes
        .iter()
        .filter(|o| matches!(o, history::Outcome::Spooled))
        .count();
    let moved = outcomes
        .iter()
        .filter(|o| matches!(o, history::Outcome::Recorded { .. }))
        .count();
    assert!(
        spooled > 40 && moved >= 2,
        "spooled {spooled}, moved {moved}"
    );
    // a report first moves what is left; nothing is lost
    history::flush_spool(&home, 50).unwrap();
    let h = History::open_existing(&home).unwrap().unwrap();
    assert_eq!(h.count().unwrap(), 60);
}

/// Batching must not skip the chores of the direct path: a damaged database is still
/// set aside, and retention still runs.
#[test]
fn batched_writes_still_reset_a_damaged_database_and_prune() {
    let t = tempfile::tempdir().unwrap();
    let s = Settings {
        home: Some(Home::at(t.path())),
        batch_bytes: 1,
        ..Settings::default()
    };
    std::fs::write(
        t.path().join("history.sqlite3"),
        b"this is not a database, it is a shopping list\n".repeat(200),
    )
    .unwrap();
    assert!(matches!(
        history::record(&s, &rec(now(), "a/b", "a", 10, 5)),
        Outcome::Reset { .. }
    ));
    assert_eq!(count(t.path()), 1);

    let t = tempfile::tempdir().unwrap();
    let s = Settings {
        home: Some(Home::at(t.path())),
        batch_bytes: 4 << 10,
        retention_days: 7,
        ..Settings::default()
    };
    for i in 0..150 {
        history::record(&s, &rec(now() - 30 * DAY + i, "a/b", "old", 10, 5));
    }
    for i in 0..150 {
        history::record(&s, &rec(now() + i, "a/b", "new", 10, 5));
    }
    history::flush_spool(s.home.as_ref().unwrap(), 50).unwrap();
    let h = History::open_existing(s.home.as_ref().unwrap())
        .unwrap()
        .unwrap();
    let programs: Vec<String> = h
        .runs_between(0, i64::MAX)
        .unwrap()
        .into_iter()
        .map(|r| r.program)
        .collect();
    assert_eq!(programs.len(), 150, "old runs were not pruned");
    assert!(programs.iter().all(|p| p == "new"));
}
