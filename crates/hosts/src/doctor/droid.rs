//! Droid (BASH_ENV from a SessionStart hook), after the generic entry and launcher checks:
//! the script is ours and its launcher runs, bash is 5 or later, the installed hook — run
//! as Droid runs it, on a SessionStart payload naming an env file — adds `BASH_ENV` there and
//! prints nothing, and a shell started as Droid starts a command's supervisor shell
//! (`$0` = `factory-execute-supervisor`, the command in `$3`) with that environment
//! compacts a noisy failing command and keeps its exit code. Probes run with history off
//! and a private TOKENJUICE_HOME.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::json;
use tokenjuice_hooks::{run_handler, EngineOptions, EventKind, Handler};

use super::{install_fix, probe_dir_or_warn, Diagnosis, Health, PROBE_TIMEOUT};
use crate::droid_env;
use crate::env::{is_executable, Env};
use crate::registry::HookSpec;

pub(super) fn check(d: &mut Diagnosis, spec: &'static HookSpec, command: &str, env: &Env) {
    let script = match droid_env::script_path(env) {
        Ok(p) => p,
        Err(e) => {
            d.problem(Health::Broken, e.to_string(), install_fix(spec.id));
            return;
        }
    };
    let text = std::fs::read_to_string(&script).unwrap_or_default();
    let Some(launcher) = droid_env::script_launcher(&text) else {
        d.problem(
            Health::Broken,
            format!(
                "{} is missing or not tokenjuice's: the hook would point BASH_ENV at it",
                script.display()
            ),
            install_fix(spec.id),
        );
        return;
    };
    if !is_executable(Path::new(&launcher)) {
        d.problem(
            Health::Broken,
            format!("the script's launcher {launcher} does not exist or is not executable"),
            install_fix(spec.id),
        );
        return;
    }
    d.fact(format!(
        "{} is ours; its launcher {launcher} is executable",
        script.display()
    ));
    if text != droid_env::script(&launcher) {
        d.problem(
            Health::Warn,
            format!(
                "{} was written by an older tokenjuice and lacks later fixes of the route",
                script.display()
            ),
            install_fix(spec.id),
        );
    }
    bash_version(d);
    let Some(dir) = probe_dir_or_warn(d) else {
        return;
    };
    let env_file = dir.path().join("droid-env.sh");
    let payload = json!({
        "session_id": "tokenjuice-doctor",
        "hook_event_name": "SessionStart",
        "source": "startup",
        "cwd": dir.path().to_string_lossy(),
        "CLAUDE_ENV_FILE": env_file.to_string_lossy(),
    });
    let handler = Handler {
        timeout: Some(PROBE_TIMEOUT),
        ..Handler::command(command)
    };
    let trace = run_handler(
        spec.dialect.dialect(),
        EventKind::SessionStart,
        &handler,
        &payload,
        dir.path(),
        &EngineOptions::default(),
    );
    let written = std::fs::read_to_string(&env_file).unwrap_or_default();
    let want = format!(
        "export BASH_ENV={}",
        tokenjuice_core::shell::quote(&script.display().to_string())
    );
    if trace.exit_code != Some(0) || !written.lines().any(|l| l == want) {
        d.problem(
            Health::Broken,
            format!(
                "the SessionStart hook did not add `{want}` to the env file (exit {:?}; stderr: {})",
                trace.exit_code,
                trace.stderr.trim()
            ),
            install_fix(spec.id),
        );
        return;
    }
    if !trace.stdout.trim().is_empty() {
        d.problem(
            Health::Broken,
            format!(
                "the SessionStart hook printed {:?}, which Droid would hand the model",
                trace.stdout.trim()
            ),
            install_fix(spec.id),
        );
        return;
    }
    d.fact("the SessionStart hook, run on a sample payload, exported BASH_ENV into the env file and printed nothing");
    supervisor_probe(d, spec.id, &script, dir.path());
}

/// Droid runs commands with `/bin/bash` (else `/usr/bin/bash`, else `bash`); the script
/// acts only in bash 5 or later (an older bash reads it before it sets `$0`, so the
/// script cannot tell Droid's command shell there) and steps aside before that.
fn bash_version(d: &mut Diagnosis) {
    let bash = ["/bin/bash", "/usr/bin/bash"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or("bash");
    let out = super::prefix::run(
        Command::new(bash).args(["-c", "echo \"${BASH_VERSINFO[0]} ${BASH_VERSINFO[1]}\""]),
        Duration::from_secs(10),
    );
    let text = out
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let v: Vec<u32> = text
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    match v.as_slice() {
        [major, minor] if *major >= 5 => {
            d.fact(format!("{bash} is bash {major}.{minor} (5 or later)"))
        }
        _ => d.problem(
            Health::Disabled,
            format!("{bash} is not bash 5 or later ({:?}): the script steps aside, so nothing is compacted", text.trim()),
            "install bash 5 or later as /bin/bash (Droid runs commands with it), or `tokenjuice uninstall droid`",
        ),
    }
}

fn supervisor_probe(d: &mut Diagnosis, id: &str, script: &Path, dir: &Path) {
    // a stand-in for Droid's supervisor: `$0` and the arguments as Droid passes them
    let args = [
        "-c",
        "\"$2\" -c \"$3\"",
        droid_env::SUPERVISOR,
        "1",
        "bash",
        "{}",
    ];
    super::bash_env_probe(
        d,
        id,
        script,
        dir,
        &args,
        "a command started as Droid starts one",
    );
}
