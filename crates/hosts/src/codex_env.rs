//! Codex: `BASH_ENV` through `shell_environment_policy`.
//!
//! Codex (0.169) lets the user set variables for the commands it runs
//! (`[shell_environment_policy] set = { … }` in `config.toml`); hooks do not get them.
//! tokenjuice sets `BASH_ENV` to a script of its own. Bash reads that script before running
//! `bash -c '<command>'`: the script runs the command unchanged in a subshell of the same
//! bash and sends the output through `tokenjuice --codex-filter`, then exits with the
//! command's status. Codex decided approval, sandbox and exec-policy rules on the command as
//! the model wrote it, before bash started; PATH, working directory and the shell snapshot
//! are Codex's. Codex's own snapshot wrapper (`__CODEX_SNAPSHOT_…`), terminal sessions
//! (`tty`) and shells other than bash are left alone. A `BASH_ENV` the user had is sourced
//! first and stays the one the command's own bash scripts see.

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, Table, Value};

use crate::env::Env;
use crate::error::{HostsError, Result};
use crate::files;

/// First line of the script; marks it as ours.
pub const SCRIPT_MARK: &str = "# tokenjuice-managed: Codex BASH_ENV script";

pub struct Paths {
    pub config: PathBuf,
    pub script: PathBuf,
    pub hooks: PathBuf,
}

pub fn paths(env: &Env) -> Result<Paths> {
    let config = crate::paths::config_path(
        &crate::registry::Anchor::User(&tokenjuice_hooks::homes::CODEX),
        "config.toml",
        env,
    )?;
    let dir = config.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok(Paths {
        script: dir.join("tokenjuice/bash_env.sh"),
        hooks: dir.join("hooks.json"),
        config,
    })
}

/// The script, with the launcher and a user's earlier `BASH_ENV` baked in.
pub fn script(launcher: &str, previous: Option<&str>) -> String {
    let q = tokenjuice_core::shell::quote;
    let (chain, keep) = match previous {
        Some(p) => (
            format!("[ -r {0} ] && . {0}\n", q(p)),
            format!("export BASH_ENV={}", q(p)),
        ),
        None => (String::new(), "unset BASH_ENV".to_string()),
    };
    format!(
        "{SCRIPT_MARK} (written by `tokenjuice install codex`; `tokenjuice uninstall codex` removes it; do not edit).
# Bash reads this before `bash -c '<command>'`. The command runs unchanged in the same bash
# program with the same environment; its output goes through tokenjuice, then an exit marker;
# bash exits with the command's status.
{chain}case \"${{BASH_EXECUTION_STRING-}}\" in
  ''|__CODEX_SNAPSHOT_*) ;;
  *)
    {keep}
    if [ ! -t 1 ] && [ -x {launcher} ]; then
      __tj_n=\"${{SRANDOM:-$RANDOM}}$RANDOM$$\"
      {{ \"${{BASH:-/bin/bash}}\" -c \"$BASH_EXECUTION_STRING\" \"$0\"; __tj_rc=$?; printf '\\036TJEXIT:%s:%d\\036' \"$__tj_n\" \"$__tj_rc\"; exit \"$__tj_rc\"; }} 2>&1 \\
        | {launcher} --codex-filter=\"$__tj_n\" \"$BASH_EXECUTION_STRING\"
      exit \"${{PIPESTATUS[0]}}\"
    fi
    ;;
esac
",
        launcher = q(launcher)
    )
}

fn malformed(path: &Path, e: impl std::fmt::Display) -> HostsError {
    HostsError::Malformed {
        path: path.to_path_buf(),
        line: 1,
        column: 1,
        what: format!("not valid TOML: {e}"),
    }
}

fn policy_set(doc: &DocumentMut) -> Option<&Item> {
    doc.get("shell_environment_policy")?.get("set")
}

/// The `BASH_ENV` value set for Codex's commands, if any.
pub fn bash_env(doc: &DocumentMut) -> Option<String> {
    policy_set(doc)?
        .get("BASH_ENV")?
        .as_str()
        .map(str::to_string)
}

/// A script of ours at `path`, and the earlier `BASH_ENV` it sources.
fn our_script(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    text.starts_with(SCRIPT_MARK).then_some(text)
}

fn previous_in(script_text: &str) -> Option<String> {
    let line = script_text
        .lines()
        .find(|l| l.starts_with("    export BASH_ENV="))?;
    let word = line.trim().strip_prefix("export BASH_ENV=")?;
    let parsed = tokenjuice_core::shell::parse(word);
    match parsed.items.first()?.pipeline.commands.first()? {
        tokenjuice_core::shell::Command::Simple(c) => c.words.first().map(|w| w.text.clone()),
        _ => None,
    }
}

/// Edit the config and write the script. Returns lines for the user.
pub fn install(launcher: &str, env: &Env) -> Result<Vec<String>> {
    let p = paths(env)?;
    let loaded = files::load(&p.config)?;
    let mut doc: DocumentMut = loaded
        .text
        .as_deref()
        .unwrap_or("")
        .parse()
        .map_err(|e| malformed(&p.config, e))?;
    let ours = p.script.display().to_string();
    let current = bash_env(&doc);
    let previous = match current.as_deref() {
        Some(v) if v == ours => our_script(&p.script).and_then(|t| previous_in(&t)),
        Some(v) => Some(v.to_string()),
        None => None,
    };
    if let Some(only) = doc
        .get("shell_environment_policy")
        .and_then(|t| t.get("include_only"))
        .and_then(Item::as_array)
    {
        let lets_through = only
            .iter()
            .filter_map(|v| v.as_str())
            .any(|pat| pat == "*" || pat.eq_ignore_ascii_case("BASH_ENV") || pat == "BASH_*");
        if !only.is_empty() && !lets_through {
            return Err(HostsError::Shape {
                path: p.config.clone(),
                what: "shell_environment_policy.include_only does not let BASH_ENV through, so Codex would drop it".into(),
                fix: "add \"BASH_ENV\" to include_only, then run `tokenjuice install codex` again".into(),
            });
        }
    }
    let policy = doc
        .entry("shell_environment_policy")
        .or_insert(Item::Table(Table::new()));
    let Some(policy) = policy.as_table_like_mut() else {
        return Err(HostsError::Shape {
            path: p.config.clone(),
            what: "shell_environment_policy is not a table".into(),
            fix: "fix it by hand and run the command again".into(),
        });
    };
    let set = policy
        .entry("set")
        .or_insert(Item::Value(Value::InlineTable(Default::default())));
    let Some(set) = set.as_table_like_mut() else {
        return Err(HostsError::Shape {
            path: p.config.clone(),
            what: "shell_environment_policy.set is not a table".into(),
            fix: "fix it by hand and run the command again".into(),
        });
    };
    set.insert("BASH_ENV", Item::Value(Value::from(ours.as_str())));
    let text = script(launcher, previous.as_deref());
    let script_loaded = files::load(&p.script)?;
    if let Some(t) = &script_loaded.text {
        if !t.starts_with(SCRIPT_MARK) {
            return Err(HostsError::Shape {
                path: p.script.clone(),
                what: "the file exists and was not written by tokenjuice".into(),
                fix: "move it aside, then run `tokenjuice install codex` again".into(),
            });
        }
    }
    if let Some(dir) = p.script.parent() {
        std::fs::create_dir_all(dir).map_err(|e| HostsError::Write {
            path: dir.to_path_buf(),
            source: e,
        })?;
    }
    files::store_owned(&script_loaded, Some(&text))?;
    files::store(&loaded, Some(&doc.to_string()))?;
    let mut lines = vec![
        format!(
            "{}: shell_environment_policy.set.BASH_ENV = {ours}",
            p.config.display()
        ),
        format!("wrote {}", p.script.display()),
    ];
    if let Some(prev) = previous {
        lines.push(format!("your BASH_ENV `{prev}` is still read first and stays the one your commands' scripts see"));
    }
    Ok(lines)
}

/// Take it out again (and give back a `BASH_ENV` the user had). True when anything changed.
pub fn uninstall(env: &Env) -> Result<bool> {
    let p = paths(env)?;
    let loaded = files::load(&p.config)?;
    let Some(text) = loaded.text.clone() else {
        return Ok(false);
    };
    let mut doc: DocumentMut = text.parse().map_err(|e| malformed(&p.config, e))?;
    let ours = p.script.display().to_string();
    if bash_env(&doc).as_deref() != Some(ours.as_str()) {
        return Ok(false);
    }
    let previous = our_script(&p.script).and_then(|t| previous_in(&t));
    if let Some(policy) = doc
        .get_mut("shell_environment_policy")
        .and_then(Item::as_table_like_mut)
    {
        if let Some(set) = policy.get_mut("set").and_then(Item::as_table_like_mut) {
            match &previous {
                Some(prev) => {
                    set.insert("BASH_ENV", Item::Value(Value::from(prev.as_str())));
                }
                None => {
                    set.remove("BASH_ENV");
                }
            }
            if set.is_empty() {
                policy.remove("set");
            }
        }
        if policy.is_empty() {
            doc.remove("shell_environment_policy");
        }
    }
    files::store(&loaded, Some(&doc.to_string()))?;
    if let Ok(s) = files::load(&p.script) {
        if s.text
            .as_deref()
            .is_some_and(|t| t.starts_with(SCRIPT_MARK))
        {
            let _ = files::store_owned(&s, None);
        }
    }
    Ok(true)
}

/// What doctor needs: the script installed and named by the config, and its launcher.
pub struct State {
    pub configured: Option<String>,
    pub script_ours: bool,
    pub launcher: Option<String>,
}

pub fn state(env: &Env) -> Result<(Paths, State)> {
    let p = paths(env)?;
    let loaded = files::load(&p.config)?;
    let doc: DocumentMut = loaded
        .text
        .as_deref()
        .unwrap_or("")
        .parse()
        .map_err(|e| malformed(&p.config, e))?;
    let text = our_script(&p.script);
    let launcher = text.as_deref().and_then(|t| {
        let line = t.lines().find(|l| l.contains(" --codex-filter="))?;
        let cmd = line
            .trim()
            .trim_start_matches("| ")
            .split(" --codex-filter=")
            .next()?;
        let parsed = tokenjuice_core::shell::parse(cmd);
        match parsed.items.first()?.pipeline.commands.first()? {
            tokenjuice_core::shell::Command::Simple(c) => c.words.first().map(|w| w.text.clone()),
            _ => None,
        }
    });
    let s = State {
        configured: bash_env(&doc),
        script_ours: text.is_some(),
        launcher,
    };
    Ok((p, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earlier_bash_env_is_read_back_from_the_script() {
        let s = script("/usr/bin/tokenjuice", Some("/home/a b/.bash_env"));
        assert!(s.starts_with(SCRIPT_MARK));
        assert_eq!(previous_in(&s).as_deref(), Some("/home/a b/.bash_env"));
        assert_eq!(previous_in(&script("/x", None)), None);
        assert!(
            script("/opt/t j/tokenjuice", None).contains("| '/opt/t j/tokenjuice' --codex-filter=")
        );
    }
}
