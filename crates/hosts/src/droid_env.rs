//! Droid: `BASH_ENV` set by a SessionStart hook.
//!
//! Droid (0.225) runs each Execute command as `bash -c <supervisor> factory-execute-supervisor
//! <owner pid> <bash> <command>`: a small supervisor shell that watches Droid and runs the
//! command with `<bash> -c <command>`, both writing into a file Droid reads when the
//! supervisor exits. Droid decides the command's risk and permission before that, on the
//! command as the model wrote it. A SessionStart hook may add `export` lines to the file
//! named by `CLAUDE_ENV_FILE`, and Droid passes those variables to the commands it starts.
//!
//! `tokenjuice install droid` adds a SessionStart hook (`<launcher> droid-session-start`)
//! that exports `BASH_ENV=<our script>`. Every non-interactive bash of the session reads the
//! script; it acts only in the supervisor shell (`$0` is `factory-execute-supervisor`, the
//! command is `$3`): it puts back the `BASH_ENV` the session had (so the command's own bash
//! sees what it would have), sends the supervisor's output (the command's, stdout and stderr
//! as Droid merges them) through `tokenjuice --droid-filter`, and when the supervisor exits
//! writes an exit marker and waits for the filter. The command, its working folder, PATH
//! and environment are Droid's. Commands started with `fireAndForget` do not go through the
//! supervisor and are left alone, as is every shell of a bash older than 5 (macOS's
//! `/bin/bash` is 3.2): it reads `BASH_ENV` before it sets `$0` and the arguments, so the
//! script cannot tell the supervisor there, and gives `BASH_ENV` back.

use std::path::PathBuf;

use serde_json::Value;

use crate::env::Env;
use crate::error::{HostsError, Result};
use crate::files;

/// First line of the script; marks it as ours.
pub const SCRIPT_MARK: &str = "# tokenjuice-managed: Droid BASH_ENV script";
/// Carries a `BASH_ENV` the session already had past ours, to be put back.
pub const USER_BASH_ENV: &str = "TOKENJUICE_DROID_BASH_ENV";
/// `$0` of the shell Droid runs an Execute command under.
pub const SUPERVISOR: &str = "factory-execute-supervisor";

/// Where the script lives: `tokenjuice/bash_env.sh` beside Droid's `settings.json`.
pub fn script_path(env: &Env) -> Result<PathBuf> {
    let settings = crate::paths::config_path(
        &crate::registry::Anchor::User(&tokenjuice_hooks::homes::DROID),
        "settings.json",
        env,
    )?;
    Ok(settings
        .parent()
        .map(|d| d.join("tokenjuice/bash_env.sh"))
        .unwrap_or_else(|| PathBuf::from("tokenjuice/bash_env.sh")))
}

/// The script, with the launcher baked in.
pub fn script(launcher: &str) -> String {
    let q = tokenjuice_core::shell::quote;
    format!(
        "{SCRIPT_MARK} (written by `tokenjuice install droid`; `tokenjuice uninstall droid` removes it; do not edit).
# Droid's SessionStart hook exports BASH_ENV=<this file>, so every non-interactive bash of the
# session reads it. It acts only in the shell Droid runs an Execute command under ($0 is
# {SUPERVISOR}, the command is $3): the BASH_ENV the session had is put back, the
# shell's output goes through tokenjuice, and when the shell exits an exit marker follows and
# the shell waits for tokenjuice to finish. The command runs as Droid wrote it.
# A bash older than 5 reads this file before it sets $0 and the arguments, so it cannot
# tell that shell from another: there it gives everything back and does nothing.
if [ \"${{BASH_VERSINFO[0]:-0}}\" -lt 5 ]; then
  if [ -n \"${{{USER_BASH_ENV}+x}}\" ]; then export BASH_ENV=\"${USER_BASH_ENV}\"; else unset BASH_ENV; fi
  unset {USER_BASH_ENV}
  if [ -n \"${{BASH_ENV-}}\" ] && [ -r \"$BASH_ENV\" ]; then . \"$BASH_ENV\"; fi
elif [ \"$0\" = {SUPERVISOR} ] && [ -n \"${{3-}}\" ] && [ -z \"${{__tj_droid-}}\" ]; then
  __tj_droid=1
  if [ -n \"${{{USER_BASH_ENV}+x}}\" ]; then export BASH_ENV=\"${USER_BASH_ENV}\"; else unset BASH_ENV; fi
  unset {USER_BASH_ENV}
  if [ -n \"${{BASH_ENV-}}\" ] && [ -r \"$BASH_ENV\" ]; then . \"$BASH_ENV\"; fi
  # not to a terminal; tokenjuice still there
  if [ ! -t 1 ] && [ -x {launcher} ]; then
    __tj_n=\"${{SRANDOM:-$RANDOM}}$RANDOM$$\" __tj_self=$BASHPID
    exec > >(exec {launcher} --droid-filter=\"$__tj_n\" \"$3\") 2>&1
    __tj_p=$!
    # only in this shell: a subshell stopped right after it started (the supervisor's
    # watcher, when the command is quick) was seen to run it too
    trap '__tj_s=$?; if [ \"$BASHPID\" = \"$__tj_self\" ]; then printf \"\\036TJEXIT:%s:%d\\036\" \"$__tj_n\" \"$__tj_s\"; exec >&- 2>&-; wait \"$__tj_p\" 2>/dev/null; exit \"$__tj_s\"; fi' EXIT
  fi
elif [ -n \"${{{USER_BASH_ENV}-}}\" ] && [ -r \"${USER_BASH_ENV}\" ]; then
  . \"${USER_BASH_ENV}\"
fi
",
        launcher = q(launcher)
    )
}

/// The launcher a script of ours runs, when `text` is one.
pub fn script_launcher(text: &str) -> Option<String> {
    if !text.starts_with(SCRIPT_MARK) {
        return None;
    }
    let line = text.lines().find(|l| l.contains(" --droid-filter="))?;
    let word = line
        .trim()
        .strip_prefix("exec > >(exec ")?
        .split(" --droid-filter=")
        .next()?;
    let parsed = tokenjuice_core::shell::parse(word);
    match parsed.items.first()?.pipeline.commands.first()? {
        tokenjuice_core::shell::Command::Simple(c) => c.words.first().map(|w| w.text.clone()),
        _ => None,
    }
}

/// Writes the script (refusing a file of the same name that is not ours). Lines for the user.
pub fn install_script(launcher: &str, env: &Env) -> Result<Vec<String>> {
    let path = script_path(env)?;
    let loaded = files::load(&path)?;
    if loaded
        .text
        .as_deref()
        .is_some_and(|t| !t.starts_with(SCRIPT_MARK))
    {
        return Err(HostsError::Shape {
            path,
            what: "the file exists and was not written by tokenjuice".into(),
            fix: "move it aside, then run `tokenjuice install droid` again".into(),
        });
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| HostsError::Write {
            path: dir.to_path_buf(),
            source: e,
        })?;
    }
    files::store_owned(&loaded, Some(&script(launcher)))?;
    Ok(vec![format!(
        "wrote {} (the SessionStart hook points BASH_ENV at it)",
        path.display()
    )])
}

/// Removes a script of ours. True when one was removed.
pub fn uninstall_script(env: &Env) -> Result<bool> {
    let path = script_path(env)?;
    let loaded = files::load(&path)?;
    if !loaded
        .text
        .as_deref()
        .is_some_and(|t| t.starts_with(SCRIPT_MARK))
    {
        return Ok(false);
    }
    files::store_owned(&loaded, None)?;
    if let Some(dir) = path.parent() {
        // only when empty
        let _ = std::fs::remove_dir(dir);
    }
    Ok(true)
}

/// The lines the SessionStart hook adds to Droid's env file: `BASH_ENV` pointing at the
/// script, and the session's own `BASH_ENV` (when it had one) to put back.
pub fn env_lines(script: &str, session_bash_env: Option<&str>) -> String {
    let q = tokenjuice_core::shell::quote;
    let mut out = String::new();
    if let Some(user) = session_bash_env.filter(|v| !v.is_empty() && *v != script) {
        out.push_str(&format!("export {USER_BASH_ENV}={}\n", q(user)));
    }
    out.push_str(&format!("export BASH_ENV={}\n", q(script)));
    out
}

/// `tokenjuice droid-session-start`: appends [`env_lines`] to the file the payload's
/// `CLAUDE_ENV_FILE` (or the variable) names, when the script is installed. Prints nothing
/// (a SessionStart hook's output would reach the model); a problem is for stderr.
pub fn session_start(stdin: &str, env: &Env) -> std::result::Result<(), String> {
    let payload: Value = serde_json::from_str(stdin.trim_start_matches('\u{feff}'))
        .map_err(|e| format!("the SessionStart payload is not JSON: {e}"))?;
    let file = payload
        .get("CLAUDE_ENV_FILE")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| env.var("CLAUDE_ENV_FILE").map(str::to_string))
        .filter(|f| !f.is_empty())
        .ok_or("Droid gave no CLAUDE_ENV_FILE: this session's commands are not compacted")?;
    let script = script_path(env).map_err(|e| e.to_string())?;
    if !std::fs::read_to_string(&script).is_ok_and(|t| t.starts_with(SCRIPT_MARK)) {
        return Err(format!(
            "{} is missing: run `tokenjuice install droid`",
            script.display()
        ));
    }
    let lines = env_lines(&script.display().to_string(), env.var("BASH_ENV"));
    use std::io::Write;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .and_then(|mut f| f.write_all(lines.as_bytes()))
        .map_err(|e| format!("cannot add BASH_ENV to {file}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_names_its_launcher_and_acts_only_in_the_supervisor() {
        let s = script("/opt/t j/tokenjuice");
        assert!(s.starts_with(SCRIPT_MARK));
        assert!(s.contains(
            "exec > >(exec '/opt/t j/tokenjuice' --droid-filter=\"$__tj_n\" \"$3\") 2>&1"
        ));
        assert!(s.contains("if [ \"$0\" = factory-execute-supervisor ]"));
        assert_eq!(script_launcher(&s).as_deref(), Some("/opt/t j/tokenjuice"));
        assert_eq!(script_launcher("#!/bin/sh\necho hi\n"), None);
    }

    #[test]
    fn env_lines_carry_the_sessions_own_bash_env() {
        assert_eq!(
            env_lines("/h/.factory/tokenjuice/bash_env.sh", None),
            "export BASH_ENV=/h/.factory/tokenjuice/bash_env.sh\n"
        );
        assert_eq!(
            env_lines("/s.sh", Some("/my env.sh")),
            "export TOKENJUICE_DROID_BASH_ENV='/my env.sh'\nexport BASH_ENV=/s.sh\n"
        );
        // ours already (a nested session): not carried
        assert_eq!(env_lines("/s.sh", Some("/s.sh")), "export BASH_ENV=/s.sh\n");
    }
}
