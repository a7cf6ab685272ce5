//! Shell-prefix hosts (Claude Code): the prefix setting points at an executable tokenjuice,
//! the host's version is one where the mechanism was proven, and the prefix, run on a line
//! shaped like the host's own, compacts a noisy failing command, keeps its exit code, and
//! lets the line record its working directory as the host needs for `cd` to persist.
//! Probes run with a private `TOKENJUICE_HOME` and history off: nothing lands in the user's.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::{install_fix, probe_dir_or_warn, Diagnosis, Health};
use crate::env::is_executable;
use crate::prefix_env;
use crate::registry::PrefixSpec;

pub(super) fn check(d: &mut Diagnosis, spec: &PrefixSpec, root: &Map<String, Value>) {
    let Some(value) = prefix_env::current(spec, root) else {
        d.problem(
            Health::Broken,
            format!(
                "env.{} is not set, so nothing is compacted",
                spec.prefix_env
            ),
            install_fix(spec.id),
        );
        return;
    };
    if !prefix_env::is_ours(spec, &value) {
        d.problem(
            Health::Broken,
            format!(
                "env.{} is `{value}`, not tokenjuice's, so nothing is compacted",
                spec.prefix_env
            ),
            install_fix(spec.id),
        );
        return;
    }
    let launcher = prefix_env::launcher_of(spec, &value);
    if !is_executable(Path::new(&launcher)) {
        d.problem(
            Health::Broken,
            format!("the prefix names `{launcher}`, which does not exist or is not executable; every shell command of the agent fails"),
            format!(
                "{} (`--local` points it at this build), or `tokenjuice uninstall {}`",
                install_fix(spec.id),
                spec.id
            ),
        );
        return;
    }
    d.fact(format!("env.{} = {value}", spec.prefix_env));
    if let Some(next) = root
        .get("env")
        .and_then(|e| e.get(spec.next_env))
        .and_then(Value::as_str)
    {
        // checked by the probe below, which runs through it as the host would
        d.fact(format!(
            "your earlier prefix `{next}` still runs every command (env.{})",
            spec.next_env
        ));
    }
    let next = root
        .get("env")
        .and_then(|e| e.get(spec.next_env))
        .and_then(Value::as_str);
    probe(d, spec, &launcher, next);
}

pub(super) fn run(cmd: &mut Command, limit: Duration) -> Option<std::process::Output> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    wait_for(&mut child, limit)?;
    child.wait_with_output().ok()
}

/// Waits for `child` up to `limit`; past it the child is killed and `None` returned.
fn wait_for(child: &mut std::process::Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => return None,
        }
    }
}

/// The sample command with a regular file as stdout (a CodeBuddy background command's task
/// file): every line must land there as the command printed it, with its exit code.
fn background_probe(d: &mut Diagnosis, spec: &PrefixSpec, mut cmd: Command, task: &Path) {
    let status = std::fs::File::create(task).ok().and_then(|f| {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(f)
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        wait_for(&mut child, Duration::from_secs(20))
    });
    let text = std::fs::read_to_string(task).unwrap_or_default();
    let lines = text.lines().count();
    if status.and_then(|s| s.code()) == Some(3)
        && lines == 301
        && text.ends_with("error: tokenjuice-doctor-probe\n")
    {
        d.fact(format!(
            "a background command (its output going to a task file, as {} runs them) passed through untouched: all 301 lines, exit code 3",
            spec.id
        ));
    } else {
        d.problem(
            Health::Broken,
            format!(
                "a background command's output did not reach its task file untouched: exit {:?}, {lines} lines",
                status.and_then(|s| s.code())
            ),
            install_fix(spec.id),
        );
    }
}

fn probe(d: &mut Diagnosis, spec: &PrefixSpec, launcher: &str, next: Option<&str>) {
    let Some(dir) = probe_dir_or_warn(d) else {
        return;
    };
    let cwd_file = dir.path().join("cwd");
    let sub = dir.path().join("sub");
    let _ = std::fs::create_dir(&sub);
    let claude = spec.style == crate::registry::PrefixStyle::Claude;
    let line = |cmd: &str| {
        if claude {
            format!(
                "eval {} < /dev/null && pwd -P >| {}",
                tokenjuice_core::shell::quote(cmd),
                tokenjuice_core::shell::quote(&cwd_file.to_string_lossy())
            )
        } else {
            format!("eval '{}'", cmd.replace('\'', "'\\''"))
        }
    };
    let noisy = "for i in $(seq 1 300); do echo \"downloading chunk $i of 300\"; done; echo 'error: tokenjuice-doctor-probe'; exit 3";
    let prefixed = |l: String| {
        let mut c = Command::new(launcher);
        c.arg(format!("--shell-prefix={}", spec.id))
            .arg(l)
            .current_dir(dir.path())
            .env("TOKENJUICE_HOME", dir.path().join("store"))
            .env("TOKENJUICE_STATS", "0")
            // CodeBuddy runs Bash tool lines with a session id; the probe plays one
            .env("CODEBUDDY_SESSION_ID", "tokenjuice-doctor");
        match next {
            Some(n) => c.env(spec.next_env, n),
            None => c.env_remove(spec.next_env),
        };
        c
    };
    let Some(out) = run(&mut prefixed(line(noisy)), Duration::from_secs(20)) else {
        d.problem(
            Health::Broken,
            "the prefix did not finish a sample command within 20 s",
            install_fix(spec.id),
        );
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let raw_len = 300 * "downloading chunk 100 of 300\n".len();
    if out.status.code() != Some(3)
        || !text.contains("error: tokenjuice-doctor-probe")
        || text.len() >= raw_len / 2
    {
        d.problem(
            Health::Broken,
            format!(
                "the prefix did not compact a sample failing command as expected: exit {:?}, {} bytes out: {:?}",
                out.status.code(),
                text.len(),
                text.chars().take(300).collect::<String>()
            ),
            install_fix(spec.id),
        );
        return;
    }
    d.fact(format!(
        "the prefix, run on a line shaped like {}'s own, compacted a noisy failing command ({raw_len} → {} bytes) and kept exit code 3",
        spec.id,
        text.len()
    ));
    if !claude {
        // CodeBuddy gives a background command its task files as stdout and stderr: the
        // prefix must leave that output alone (it streams there). It keeps no working
        // directory between calls: nothing more to prove.
        background_probe(
            d,
            spec,
            prefixed(line(noisy)),
            &dir.path().join("task.stdout.log"),
        );
        return;
    }
    let Some(out) = run(
        &mut prefixed(line("cd sub && echo moved")),
        Duration::from_secs(20),
    ) else {
        d.problem(
            Health::Broken,
            "the prefix did not finish `cd sub` within 20 s",
            install_fix(spec.id),
        );
        return;
    };
    let recorded = std::fs::read_to_string(&cwd_file).unwrap_or_default();
    let want = sub.canonicalize().unwrap_or(sub);
    if out.status.success() && Path::new(recorded.trim()) == want {
        d.fact("the host's line kept its `cd` (the working directory file names the new folder)");
    } else {
        d.problem(
            Health::Broken,
            format!(
                "after `cd sub` through the prefix the working directory file holds {:?}, not {}",
                recorded.trim(),
                want.display()
            ),
            install_fix(spec.id),
        );
    }
}
