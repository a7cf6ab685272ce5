//! `doctor`: proves an install works instead of guessing. For a hook host it reads the
//! config, finds our entry, checks the launcher, runs the installed hook through the hooks
//! engine with the sample payload the host would send, and runs the rewritten command to
//! see it go through `wrap` and keep the exit code.

mod codex;
mod droid;
mod extension;
mod guidance_check;
mod hook;
mod prefix;

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::env::Env;
use crate::registry::{HookSpec, Mechanism, Shape, Target};

/// Health, worst last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Health {
    Ok,
    Disabled,
    Warn,
    Broken,
}

impl Health {
    pub fn as_str(self) -> &'static str {
        match self {
            Health::Ok => "ok",
            Health::Warn => "warn",
            Health::Broken => "broken",
            Health::Disabled => "disabled",
        }
    }
}

impl fmt::Display for Health {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Something that is not right, and what to do about it.
#[derive(Debug, Clone)]
pub struct Problem {
    pub health: Health,
    pub what: String,
    pub fix: String,
}

#[derive(Debug, Clone)]
pub struct Diagnosis {
    pub host: &'static str,
    pub mechanism: Mechanism,
    pub path: Option<PathBuf>,
    /// What was checked and found fine.
    pub facts: Vec<String>,
    pub problems: Vec<Problem>,
    pub notes: Vec<String>,
}

impl Diagnosis {
    fn new(host: &'static str, mechanism: Mechanism) -> Diagnosis {
        Diagnosis {
            host,
            mechanism,
            path: None,
            facts: Vec::new(),
            problems: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn health(&self) -> Health {
        self.problems
            .iter()
            .map(|p| p.health)
            .max()
            .unwrap_or(Health::Ok)
    }

    fn problem(&mut self, health: Health, what: impl Into<String>, fix: impl Into<String>) {
        self.problems.push(Problem {
            health,
            what: what.into(),
            fix: fix.into(),
        });
    }

    fn fact(&mut self, s: impl Into<String>) {
        self.facts.push(s.into());
    }

    /// The full report.
    pub fn render(&self) -> String {
        let mut out = format!("{} ({})\n", self.host, self.mechanism.as_str());
        if let Some(p) = &self.path {
            out.push_str(&format!("  config: {}\n", p.display()));
        }
        for f in &self.facts {
            out.push_str(&format!("  ok: {f}\n"));
        }
        for p in &self.problems {
            out.push_str(&format!("  {}: {}\n    fix: {}\n", p.health, p.what, p.fix));
        }
        for n in &self.notes {
            out.push_str(&format!("  note: {n}\n"));
        }
        out.push_str(&format!("health: {}\n", self.health()));
        out
    }
}

impl Diagnosis {
    /// A diagnosis of a hook or extension host, with its config file located; a
    /// finished (broken) diagnosis when the file cannot be located.
    fn for_spec(spec: &'static HookSpec, env: &Env) -> Result<(Diagnosis, PathBuf), Diagnosis> {
        let mut d = Diagnosis::new(spec.id, spec.mechanism);
        if let Some(n) = spec.note {
            d.notes.push(n.to_string());
        }
        match crate::paths::config_path(&spec.anchor, spec.file, env) {
            Ok(path) => {
                d.path = Some(path.clone());
                Ok((d, path))
            }
            Err(e) => {
                d.problem(
                    Health::Broken,
                    e.to_string(),
                    "set HOME (or the host's config variable)",
                );
                Err(d)
            }
        }
    }
}

pub fn diagnose(target: Target, env: &Env) -> Diagnosis {
    match target {
        Target::Hook(spec) if spec.mechanism == Mechanism::BashEnv => codex::diagnose(spec, env),
        Target::Hook(spec) => match spec.shape {
            Shape::OwnedFile { template } => extension::diagnose(spec, template, env),
            _ => hook::diagnose(spec, env),
        },
        Target::Guidance(spec) => guidance_check::diagnose(spec, env),
    }
}

fn install_fix(id: &str) -> String {
    format!("run `tokenjuice install {id}`")
}

/// How long a probe (the hook, the rewritten command) may take.
const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// Runs `sh -c <line>` with a deadline; `None` when it had to be killed.
fn run_with_deadline(line: &str, cwd: &Path) -> std::io::Result<Option<std::process::Output>> {
    use std::process::Stdio;
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(line)
        .current_dir(cwd)
        // a probe never lands in the user's run history
        .env("TOKENJUICE_STATS", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let started = std::time::Instant::now();
    loop {
        if child.try_wait()?.is_some() {
            return child.wait_with_output().map(Some);
        }
        if started.elapsed() > PROBE_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// A temporary folder for a probe, or a warning saying the probe could not run.
fn probe_dir_or_warn(d: &mut Diagnosis) -> Option<tempfile::TempDir> {
    let dir = probe_dir();
    if dir.is_none() {
        d.problem(
            Health::Warn,
            "could not create a temporary directory for the probe",
            "check TMPDIR",
        );
    }
    dir
}

fn probe_dir() -> Option<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix("tokenjuice-doctor-")
        .tempdir()
        .ok()
}

/// The noisy failing command a BASH_ENV probe runs.
const NOISY_PROBE: &str = "for i in $(seq 1 300); do echo \"downloading chunk $i of 300\"; done; echo 'error: tokenjuice-doctor-probe'; exit 3";

/// Runs `bash <args>` with `BASH_ENV=<script>`, history off and a private store, in `dir`;
/// `args` holds `{}` where the noisy failing probe command goes. Ok (a fact) when the output
/// came back compacted with its error line and exit code 3; `what` names the run.
fn bash_env_probe(
    d: &mut Diagnosis,
    id: &str,
    script: &Path,
    dir: &Path,
    args: &[&str],
    what: &str,
) {
    shell_probe(d, id, ("bash", "BASH_ENV", script), dir, args, what)
}

/// [`bash_env_probe`] for any shell: `shell <args>` with `var=<value>`.
fn shell_probe(
    d: &mut Diagnosis,
    id: &str,
    (shell, var, value): (&str, &str, &Path),
    dir: &Path,
    args: &[&str],
    what: &str,
) {
    let mut cmd = Command::new(shell);
    cmd.args(
        args.iter()
            .map(|a| if *a == "{}" { NOISY_PROBE } else { a }),
    )
    .current_dir(dir)
    .env(var, value)
    .env("TOKENJUICE_HOME", dir.join("store"))
    .env("TOKENJUICE_STATS", "0");
    let Some(out) = prefix::run(&mut cmd, std::time::Duration::from_secs(20)) else {
        d.problem(
            Health::Broken,
            format!("{what} did not finish a sample command within 20 s"),
            install_fix(id),
        );
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let raw = 300 * "downloading chunk 100 of 300\n".len();
    if out.status.code() == Some(3)
        && text.contains("error: tokenjuice-doctor-probe")
        && text.len() < raw / 2
    {
        d.fact(format!(
            "{what} compacted a noisy failing command ({raw} → {} bytes) and kept exit code 3",
            text.len()
        ));
    } else {
        d.problem(
            Health::Broken,
            format!(
                "{what} did not compact a sample: exit {:?}, {} bytes: {:?}",
                out.status.code(),
                text.len(),
                text.chars().take(200).collect::<String>()
            ),
            install_fix(id),
        );
    }
}
