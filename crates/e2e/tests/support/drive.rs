//! Running one host's scenarios twice (without tokenjuice, then with `tokenjuice install`),
//! at the same paths, and judging every scenario.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use super::scenarios::{self, Scenario};
use super::{Agent, Outcome, Spec, Wire};

/// What differs between hosts.
pub struct Case {
    pub host: &'static str,
    pub wire: Wire,
    pub mechanism: &'static str,
    pub scenarios: Vec<Scenario>,
    /// The tool call's arguments for a scenario.
    pub args: fn(&Scenario) -> Value,
    /// Write the host's own config (permissions, model server) before install.
    pub setup: fn(&Paths),
    /// The session to run.
    pub spec: fn(&Agent, &Paths, Vec<Value>) -> Spec,
    /// The command that prints the host's version.
    pub version: fn(&Agent) -> Vec<String>,
    /// Written to the host report (one case per host does; others only judge).
    pub report: bool,
}

/// Where a session lives.
pub struct Paths {
    pub work: PathBuf,
    pub home: PathBuf,
    pub project: PathBuf,
    pub tools: PathBuf,
}

impl Paths {
    /// The usual layout under a session folder: `home`, `project`, `agent-tools`.
    pub fn under(work: &Path) -> Paths {
        Paths {
            work: work.to_path_buf(),
            home: work.join("home"),
            project: work.join("project"),
            tools: work.join("agent-tools"),
        }
    }
}

pub struct Run {
    pub outcome: Outcome,
    pub project: PathBuf,
    /// The session's folder (its `tmp` is the agent's `TMPDIR`); it lives as long as the run.
    pub work: PathBuf,
    _dir: Option<std::rc::Rc<tempfile::TempDir>>,
}

fn session(case: &Case, agent: &Agent, work: &Path, with_tj: bool) -> Run {
    let paths = Paths::under(work);
    std::fs::create_dir_all(&paths.home).unwrap();
    super::project(&paths.project);
    super::agent_tools(work);
    (case.setup)(&paths);
    if with_tj {
        install(case, &paths.home, &paths.project, None);
    }
    let calls = case.scenarios.iter().map(case.args).collect();
    let mut spec = (case.spec)(agent, &paths, calls);
    // the shell prefix logs, per command, its own time and the command's (set in both
    // sessions, so the commands see the same variables)
    spec.env.push((
        "TOKENJUICE_TIMING_LOG".into(),
        work.join("timing.log").display().to_string(),
    ));
    Run {
        outcome: super::run(&spec, work),
        project: paths.project,
        work: work.to_path_buf(),
        _dir: None,
    }
}

/// `tokenjuice install <host> --local` with `home` as HOME (and the host's variable, if any).
fn install(case: &Case, home: &Path, project: &Path, var: Option<(&str, &Path)>) {
    install_host(case.host, home, project, var)
}

/// A fresh home and project (in a temporary folder, kept as long as the returned guard) set
/// up by `setup` and with tokenjuice installed for `host`: where a test runs `doctor` as a
/// user would.
pub fn installed_home(host: &str, setup: fn(&Paths)) -> (tempfile::TempDir, Paths) {
    let tmp = tempfile::tempdir().unwrap();
    let p = Paths::under(tmp.path());
    std::fs::create_dir_all(&p.home).unwrap();
    std::fs::create_dir_all(&p.project).unwrap();
    setup(&p);
    install_host(host, &p.home, &p.project, None);
    (tmp, p)
}

/// [`install`] for a host by name, for a test that runs its own sessions.
pub fn install_host(host: &str, home: &Path, project: &Path, var: Option<(&str, &Path)>) {
    let mut cmd = Command::new(super::tokenjuice());
    cmd.args(["install", host, "--local"])
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .current_dir(project);
    if let Some((k, v)) = var {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "tokenjuice install {host} ({var:?}): {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The permission probes had the same effect: the denied rm kept the file, the unapproved
/// write did not happen.
pub fn check_side_effects(run: &Run) {
    assert!(run.project.join("victim.txt").exists(), "a denied rm ran");
    assert!(
        !run.project.join("sub/created-by-agent.txt").exists()
            && !run.project.join("created-by-agent.txt").exists(),
        "an unapproved write ran"
    );
}

/// Both runs, judged; panics listing every scenario that differs. Returns the runs for
/// host-specific checks.
pub fn compare(case: &Case, agent: &Agent) -> (Run, Run) {
    let tmp = tempfile::tempdir().unwrap();
    // both sessions at the same path, one after the other, so paths in outputs compare equal
    let work = tmp.path().join("session");
    // `scripts/bench hosts` alternates the order between rounds, so neither session
    // always gets the warmer caches
    let with_first = std::env::var_os("TOKENJUICE_E2E_WITH_FIRST").is_some_and(|v| !v.is_empty());
    let first = session(case, agent, &work, with_first);
    check_side_effects(&first);
    let keep = tmp.path().join("first-project");
    std::fs::rename(&work, &keep).unwrap();
    let second = session(case, agent, &work, !with_first);
    check_side_effects(&second);
    let tmp = std::rc::Rc::new(tmp);
    let first = Run {
        outcome: first.outcome,
        project: keep.join("project"),
        work: keep,
        _dir: Some(tmp.clone()),
    };
    let second = Run {
        _dir: Some(tmp),
        ..second
    };
    let (without, with) = if with_first {
        (second, first)
    } else {
        (first, second)
    };
    let n = case.scenarios.len();
    for (label, run) in [("without", &without), ("with", &with)] {
        assert_eq!(
            run.outcome.results.len(),
            n,
            "{label} tokenjuice: {} of {n} tool results came back; exit {:?}, timed out {}; stderr: {}\nstdout: {}",
            run.outcome.results.len(),
            run.outcome.exit,
            run.outcome.timed_out,
            run.outcome.stderr,
            run.outcome.stdout.chars().take(3000).collect::<String>()
        );
    }
    let mut failures = Vec::new();
    let mut rows = Vec::new();
    for (i, sc) in case.scenarios.iter().enumerate() {
        let v = scenarios::judge(sc, &without.outcome.results[i], &with.outcome.results[i]);
        eprintln!(
            "{} {:<28} {:>6} → {:>6} tokens  {}",
            case.host,
            v.name,
            v.tokens_without,
            v.tokens_with,
            if v.ok { "ok" } else { "FAILED" }
        );
        if !v.ok {
            failures.push(format!("{}: {}", v.name, v.why));
        }
        rows.push(json!({"scenario": v.name, "ok": v.ok, "tokens_without": v.tokens_without, "tokens_with": v.tokens_with}));
    }
    // compaction must reach the model: most noisy scenarios come back smaller
    let noisy: Vec<&Value> = rows
        .iter()
        .filter(|r| {
            case.scenarios.iter().any(|s| {
                s.name == r["scenario"] && matches!(s.judge, scenarios::Judge::Compacts(_))
            })
        })
        .collect();
    let smaller = noisy
        .iter()
        .filter(|r| r["tokens_with"].as_u64() < r["tokens_without"].as_u64())
        .count();
    if !noisy.is_empty() && smaller * 2 <= noisy.len() {
        failures.push(format!(
            "compaction reached the model in only {smaller} of {} noisy scenarios",
            noisy.len()
        ));
    }
    let probes = case
        .scenarios
        .iter()
        .filter(|s| s.name == "latency probe")
        .count();
    let times =
        |r: &Run| scenarios::probe_median_ms(&r.outcome.call_times_ms(case.wire), n, probes);
    let (lat_without, lat_with) = (times(&without), times(&with));
    // inside the agent, what the prefix itself added to each trivial command (its time minus
    // the command's; process start not included)
    let own_us = own_time_us(&with.work.join("timing.log"), probes);
    if let Some(us) = own_us {
        eprintln!(
            "{} tokenjuice's own time per trivial command inside the host (median of {probes}): {us} µs",
            case.host
        );
    }
    eprintln!(
        "{} time per trivial command in the host (median of {}): {lat_without:?} ms without, {lat_with:?} ms with tokenjuice",
        case.host,
        probes
    );
    let argv = (case.version)(agent);
    let version = Command::new(&argv[0])
        .args(&argv[1..])
        .output()
        .map(|o| {
            // some print their version on stderr (pi)
            let out = String::from_utf8_lossy(&o.stdout).trim().to_string();
            if out.is_empty() {
                String::from_utf8_lossy(&o.stderr).trim().to_string()
            } else {
                out
            }
        })
        .unwrap_or_default();
    // the bench names the build it copied (a copy's path says nothing); else the path does
    let build = match std::env::var("TOKENJUICE_E2E_BUILD").ok().as_deref() {
        Some("release") => "release",
        Some(_) => "debug",
        None if super::tokenjuice().to_string_lossy().contains("/release/") => "release",
        None => "debug",
    };
    if case.report {
        super::write_report(
            case.host,
            &json!({"host": case.host, "version": version, "mechanism": case.mechanism,
                "scenarios": rows, "latency_ms_without": lat_without, "latency_ms_with": lat_with, "own_us": own_us, "build": build,
                "failures": failures.len()}),
        );
    }
    assert!(
        failures.is_empty(),
        "{}: {} scenario(s) differ:\n{}",
        case.host,
        failures.len(),
        failures.join("\n\n")
    );
    (without, with)
}

/// The median of `<ours> - <command's>` over the last `n` lines of a timing log.
fn own_time_us(log: &Path, n: usize) -> Option<u64> {
    let text = std::fs::read_to_string(log).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    if n == 0 || lines.len() < n {
        return None;
    }
    let mut added: Vec<u64> = lines[lines.len() - n..]
        .iter()
        .filter_map(|l| {
            let (t, c) = l.split_once(' ')?;
            Some(t.parse::<u64>().ok()?.saturating_sub(c.parse().ok()?))
        })
        .collect();
    added.sort_unstable();
    added.get(added.len() / 2).copied()
}

/// The result of the "failing test run" scenario holds the host's own exit line exactly once
/// and no `exit N` line of tokenjuice's (also after a host's label: `Output: exit 1`).
pub fn assert_one_exit_line(case: &Case, run: &Run, host_line: &str) {
    let i = case
        .scenarios
        .iter()
        .position(|s| s.name == "failing test run")
        .expect("the case runs the failing test scenario");
    let text = &run.outcome.results[i].text;
    assert_eq!(text.matches(host_line).count(), 1, "{text}");
    let ours = |l: &str| {
        let l = l.split_once(": ").map_or(l, |(label, rest)| {
            if label.chars().all(char::is_alphabetic) {
                rest
            } else {
                l
            }
        });
        l.strip_prefix("exit ")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    assert!(!text.lines().any(ours), "a second exit line: {text}");
}

/// One session with tokenjuice installed while the host's own configuration variable points
/// away from `HOME` (`var` = `work/<rel>`): the host's config is written there, `HOME` is an
/// empty directory. Compaction reaches the model only when `tokenjuice install` wrote where
/// the host reads, so its 5,000-line output must come back as far fewer lines.
/// `setup_home` is where the case's `setup` writes (the directory that stands for `HOME`).
pub fn config_var_session(case: &Case, agent: &Agent, var: &str, rel: &str, setup_home: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("session");
    let value = work.join(rel);
    let paths = Paths {
        work: work.clone(),
        home: work.join(setup_home),
        project: work.join("project"),
        tools: work.join("agent-tools"),
    };
    let home = work.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&paths.home).unwrap();
    super::project(&paths.project);
    super::agent_tools(&work);
    (case.setup)(&paths);
    install(case, &home, &paths.project, Some((var, &value)));
    let sc = case
        .scenarios
        .iter()
        .find(|s| s.command == "seq 1 5000")
        .expect("the case runs the 5k-line scenario");
    let mut spec = (case.spec)(agent, &paths, vec![(case.args)(sc)]);
    spec.env.retain(|(k, _)| k != "HOME" && k != var);
    spec.env.push(("HOME".into(), home.display().to_string()));
    spec.env.push((var.into(), value.display().to_string()));
    let outcome = super::run(&spec, &work);
    assert_eq!(
        outcome.results.len(),
        1,
        "{}: no tool result with {var}; stderr: {}",
        case.host,
        outcome.stderr
    );
    let got = &outcome.results[0].text;
    let raw_lines = 5000;
    assert!(
        got.lines().count() * 4 < raw_lines,
        "{}: with {var} set the model read {} lines of a {raw_lines}-line output: tokenjuice was \
         not installed where the host reads\n{}",
        case.host,
        got.lines().count(),
        got.chars().take(2000).collect::<String>()
    );
}
