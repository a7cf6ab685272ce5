//! Codex (BASH_ENV): the config names our script, the script is ours and its launcher runs,
//! the user's shell is bash, no older rewriting hook is left, and bash with that BASH_ENV
//! compacts a noisy failing command and keeps its exit code. The probe runs with history off
//! and a private TOKENJUICE_HOME.

use super::{install_fix, probe_dir_or_warn, Diagnosis, Health};
use crate::codex_env;
use crate::edit;
use crate::env::{is_executable, Env};
use crate::files;
use crate::registry::HookSpec;

pub(super) fn diagnose(spec: &'static HookSpec, env: &Env) -> Diagnosis {
    let mut d = Diagnosis::new(spec.id, spec.mechanism);
    if let Some(n) = spec.note {
        d.notes.push(n.to_string());
    }
    let (paths, state) = match codex_env::state(env) {
        Ok(x) => x,
        Err(e) => {
            d.problem(Health::Broken, e.to_string(), "repair config.toml");
            return d;
        }
    };
    d.path = Some(paths.config.clone());
    if let Ok(l) = files::load(&paths.hooks) {
        let old = files::parse_object(&l)
            .map(|root| !edit::find(spec, &root).is_empty())
            .unwrap_or(false);
        if old {
            d.problem(Health::Broken, format!("an older tokenjuice PreToolUse rewrite is still in {}: Codex checks its exec policy on the rewritten command", paths.hooks.display()), install_fix(spec.id));
        }
    }
    let ours = paths.script.display().to_string();
    match state.configured.as_deref() {
        None => {
            d.problem(
                Health::Disabled,
                format!(
                    "{} sets no BASH_ENV for Codex's commands, so nothing is compacted",
                    paths.config.display()
                ),
                install_fix(spec.id),
            );
            return d;
        }
        Some(v) if v != ours => {
            d.problem(
                Health::Broken,
                format!("shell_environment_policy.set.BASH_ENV is `{v}`, not tokenjuice's script"),
                install_fix(spec.id),
            );
            return d;
        }
        Some(_) => d.fact(format!("shell_environment_policy.set.BASH_ENV = {ours}")),
    }
    if !state.script_ours {
        d.problem(
            Health::Broken,
            format!(
                "{} is missing or not tokenjuice's: every Codex command would source it",
                paths.script.display()
            ),
            install_fix(spec.id),
        );
        return d;
    }
    match &state.launcher {
        Some(l) if is_executable(std::path::Path::new(l)) => {
            d.fact(format!("launcher {l} is executable"))
        }
        other => {
            d.problem(Health::Broken, format!("the script's launcher {other:?} does not exist or is not executable; Codex's commands would print an error"), install_fix(spec.id));
            return d;
        }
    }
    let shell = env.var("SHELL").unwrap_or("");
    if !shell.is_empty() && shell.rsplit('/').next() != Some("bash") {
        d.problem(Health::Disabled, format!("your shell is {shell}: Codex runs commands with it, and only bash reads BASH_ENV, so nothing is compacted"), "use bash as your login shell for Codex, or `tokenjuice uninstall codex`");
    }
    probe(&mut d, &paths.script, spec.id);
    super::hook::version(&mut d, spec, env);
    d
}

fn probe(d: &mut Diagnosis, script: &std::path::Path, id: &str) {
    let Some(dir) = probe_dir_or_warn(d) else {
        return;
    };
    super::bash_env_probe(
        d,
        id,
        script,
        dir.path(),
        &["-c", "{}"],
        "bash with tokenjuice's BASH_ENV",
    );
}
