//! Codex (BASH_ENV, ZDOTDIR): the config names our scripts, they are ours and their launcher
//! runs, the user's login shell is one Codex runs with and we handle (bash, zsh), no older
//! rewriting hook is left, and that shell with our variable compacts a noisy failing command
//! and keeps its exit code. The probe runs with history off
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
    if !state.script_current {
        d.problem(
            Health::Warn,
            format!(
                "{} was written by an older tokenjuice and lacks later fixes of the route",
                paths.script.display()
            ),
            install_fix(spec.id),
        );
    }
    match codex_shell(env) {
        CodexShell::Bash(why) => {
            d.fact(format!("Codex runs your commands with bash ({why})"));
            probe(&mut d, &paths.script, spec.id)
        }
        CodexShell::Zsh => {
            let ours = paths.zdotdir.display().to_string();
            if state.configured_zdotdir.as_deref() != Some(ours.as_str()) {
                d.problem(Health::Disabled, format!("Codex runs your commands with zsh and {} sets no ZDOTDIR of tokenjuice's for Codex's commands (an install older than zsh support), so nothing is compacted", paths.config.display()), install_fix(spec.id));
            } else if !state.zsh_script_ours {
                d.problem(Health::Broken, format!("{} is missing or not tokenjuice's: every Codex command's zsh would read it", paths.zsh_script.display()), install_fix(spec.id));
            } else if !state.zdotdir_through {
                d.problem(Health::Disabled, "Codex runs your commands with zsh and shell_environment_policy.include_only does not let ZDOTDIR through, so Codex drops it and nothing is compacted".to_string(), "add \"ZDOTDIR\" to include_only, then run `tokenjuice install codex` again");
            } else {
                if !state.zsh_script_current {
                    d.problem(Health::Warn, format!("{} was written by an older tokenjuice and lacks later fixes of the route", paths.zsh_script.display()), install_fix(spec.id));
                }
                d.fact(format!(
                    "Codex runs your commands with zsh: shell_environment_policy.set.ZDOTDIR = {ours}"
                ));
                probe_zsh(&mut d, &paths.zdotdir, spec.id);
            }
        }
        CodexShell::Other(shell) => {
            d.problem(Health::Disabled, format!("your login shell is {shell}: Codex runs commands with it, and tokenjuice's route works for bash and zsh only, so nothing is compacted"), "use bash or zsh as your login shell for Codex, or `tokenjuice uninstall codex`");
        }
    }
    super::hook::version(&mut d, spec, env);
    d
}

/// The shell Codex runs commands with (read in Codex 0.169's source, `shell.rs`): the user's
/// login shell from the password database when it is bash, zsh or sh; otherwise bash on
/// Linux, zsh on macOS, when found. The database is read from `/etc/passwd` (asking the C
/// library would link its whole name-service machinery into the static build, +107 KB);
/// `SHELL` stands in for a user it does not list (a directory service's, and on macOS).
enum CodexShell {
    /// Why bash: the login shell, or Codex's fallback for it.
    Bash(String),
    Zsh,
    Other(String),
}

fn codex_shell(env: &Env) -> CodexShell {
    let login = passwd_shell(
        &std::fs::read_to_string("/etc/passwd").unwrap_or_default(),
        nix::unistd::getuid().as_raw(),
    )
    .or_else(|| env.var("SHELL").map(str::to_string));
    let stem = |p: &str| {
        let name = p.rsplit('/').next().unwrap_or(p);
        name.split('.').next().unwrap_or(name).to_string()
    };
    match login.as_deref().map(stem).as_deref() {
        Some("bash") => CodexShell::Bash("your login shell".into()),
        Some("zsh") => CodexShell::Zsh,
        Some("sh") => CodexShell::Other(login.unwrap_or_default()),
        _ if cfg!(target_os = "macos") && env.which("zsh").is_some() => CodexShell::Zsh,
        _ => CodexShell::Bash(match &login {
            Some(l) => format!("Codex's fallback for your login shell {l}"),
            None => "Codex's fallback: no login shell found".into(),
        }),
    }
}

/// The login shell `/etc/passwd` gives user `uid`.
fn passwd_shell(passwd: &str, uid: u32) -> Option<String> {
    passwd.lines().find_map(|l| {
        let f: Vec<&str> = l.split(':').collect();
        (f.len() == 7 && f[2].parse() == Ok(uid) && !f[6].is_empty()).then(|| f[6].to_string())
    })
}

fn probe_zsh(d: &mut Diagnosis, zdotdir: &std::path::Path, id: &str) {
    let Some(dir) = probe_dir_or_warn(d) else {
        return;
    };
    super::shell_probe(
        d,
        id,
        ("zsh", "ZDOTDIR", zdotdir),
        dir.path(),
        &["-c", "{}"],
        "zsh with tokenjuice's ZDOTDIR",
    );
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_login_shell_is_read_from_the_users_own_line() {
        let passwd = "root:x:0:0:root:/root:/bin/bash\n# a comment\nann:x:1000:1000:Ann,,,:/home/ann:/usr/bin/zsh\nbob:x:1001:1001::/home/bob:\n";
        assert_eq!(
            super::passwd_shell(passwd, 1000).as_deref(),
            Some("/usr/bin/zsh")
        );
        assert_eq!(super::passwd_shell(passwd, 0).as_deref(), Some("/bin/bash"));
        assert_eq!(super::passwd_shell(passwd, 1001), None);
        assert_eq!(super::passwd_shell(passwd, 7), None);
    }
}
