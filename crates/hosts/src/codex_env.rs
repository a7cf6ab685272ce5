//! Codex: `BASH_ENV` and `ZDOTDIR` through `shell_environment_policy`.
//!
//! Codex (0.169) lets the user set variables for the commands it runs
//! (`[shell_environment_policy] set = { … }` in `config.toml`); hooks do not get them.
//! Codex runs a command with the user's login shell (from the password database; bash when
//! that is neither bash nor zsh on Linux), as `<shell> -c '<command>'` behind a wrapper
//! `<shell> -c` that sources its shell snapshot and `exec`s it.
//!
//! - bash: tokenjuice sets `BASH_ENV` to a script of its own. Bash reads that script before
//!   running the command: the script sends that bash's output through `tokenjuice
//!   --codex-filter` (a coprocess) and sets an exit trap that writes the exit marker and
//!   waits for the filter; bash then runs the command itself. A command that could undo the
//!   trap or would show it (`exec`, `trap`, a shell, `env`, …) runs in a second bash whose
//!   output goes through the filter, and the script exits with the command's status.
//! - zsh: tokenjuice sets `ZDOTDIR` to a folder of its own whose `.zshenv` does the same for
//!   the command's zsh, gives the user's `ZDOTDIR` back and reads the user's `.zshenv` in
//!   place; zsh then goes on as it would have (the user's other start-up files, then the
//!   command, in the same process). A command with one of the same words runs in a second
//!   zsh. Where it does not run the command (Codex's snapshot wrapper, a terminal session, an
//!   interactive zsh), it reads the user's `.zshenv` in place and steps aside.
//!
//! Codex decided approval, sandbox and exec-policy rules on the command as the model wrote
//! it, before the shell started; PATH, working directory and the shell snapshot are Codex's.
//! Codex's own snapshot wrapper (`__CODEX_SNAPSHOT_…`) and terminal sessions (`tty`) are
//! left alone. Before the command runs, both variables are given back: a `BASH_ENV` the
//! user had is sourced first and stays the one the command's own bash scripts see, and the
//! `ZDOTDIR` the user had (set in config.toml, or in the environment `install` ran in) is the
//! one the command and its own zsh scripts see.

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, Table, Value};

use crate::env::Env;
use crate::error::{HostsError, Result};
use crate::files;

/// First line of the bash script; marks it as ours.
pub const SCRIPT_MARK: &str = "# tokenjuice-managed: Codex BASH_ENV script";
/// First line of the zsh script (`<ZDOTDIR>/.zshenv`); marks it as ours.
pub const ZSH_MARK: &str = "# tokenjuice-managed: Codex ZDOTDIR script";
/// In the script Codex runs as `<shell> -lc` to take its shell snapshot (its
/// `shell_snapshot.rs`; the same in 0.169 and 0.171): where the execution string holds it,
/// the scripts give the variables back and step aside, so the snapshot is what the login
/// shell alone makes (not run again in a non-login shell, not compacted). Codex 0.171 gives
/// that shell none of `shell_environment_policy.set` (seen in the real Codex), so this only
/// guards a Codex that would.
const SNAPSHOT_MARK: &str = "__codex_snapshot_command";
/// In the scripts when the user's `ZDOTDIR` came from config.toml (uninstall puts it back
/// there); without it, it came from the environment `install` ran in.
const ZDOTDIR_FROM_CONFIG: &str = "# ZDOTDIR was set in config.toml";

pub struct Paths {
    pub config: PathBuf,
    pub script: PathBuf,
    /// The folder `ZDOTDIR` names; its `.zshenv` is [`Paths::zsh_script`].
    pub zdotdir: PathBuf,
    pub zsh_script: PathBuf,
    pub hooks: PathBuf,
}

pub fn paths(env: &Env) -> Result<Paths> {
    let config = crate::paths::config_path(
        &crate::registry::Anchor::User(&tokenjuice_hooks::homes::CODEX),
        "config.toml",
        env,
    )?;
    let dir = config.parent().map(Path::to_path_buf).unwrap_or_default();
    let zdotdir = dir.join("tokenjuice/zsh");
    Ok(Paths {
        script: dir.join("tokenjuice/bash_env.sh"),
        zsh_script: zdotdir.join(".zshenv"),
        zdotdir,
        hooks: dir.join("hooks.json"),
        config,
    })
}

/// What the user had before tokenjuice: given back to the command, and by uninstall.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Previous {
    pub bash_env: Option<String>,
    pub zdotdir: Option<String>,
    /// `zdotdir` was in config.toml's `set` (else it came from the environment).
    pub zdotdir_in_config: bool,
}

impl Previous {
    /// Shell lines that give both variables back (for bash and zsh alike).
    fn give_back(&self, indent: &str) -> String {
        let q = tokenjuice_core::shell::quote;
        let line = |var: &str, v: &Option<String>| match v {
            Some(p) => format!("{indent}export {var}={}\n", q(p)),
            None => format!("{indent}unset {var}\n"),
        };
        format!(
            "{}{}",
            line("BASH_ENV", &self.bash_env),
            line("ZDOTDIR", &self.zdotdir)
        )
    }

    fn origin_line(&self) -> String {
        if self.zdotdir_in_config {
            format!("{ZDOTDIR_FROM_CONFIG}\n")
        } else {
            String::new()
        }
    }

    /// Read back from one of our scripts.
    fn read_back(script_text: &str) -> Previous {
        Previous {
            bash_env: exported_in(script_text, "BASH_ENV"),
            zdotdir: exported_in(script_text, "ZDOTDIR"),
            zdotdir_in_config: script_text.lines().any(|l| l.trim() == ZDOTDIR_FROM_CONFIG),
        }
    }
}

/// Words that make a command run in a second shell rather than in the shell Codex
/// started: the ones that could undo the exit trap or replace the shell (`exec`, `trap`,
/// `coproc`), and the ones that would show that the command's last program runs as the
/// shell's child instead of in its place (a shell it starts, `env`, `printenv`: `SHLVL` one
/// higher, the shell its parent).
const APART_WORDS: [&str; 11] = [
    "exec", "trap", "coproc", "bash", "zsh", "sh", "dash", "ksh", "fish", "env", "printenv",
];

/// A bash `case` pattern list (no extended globs) matching a command that names one of
/// [`APART_WORDS`] as a word, or `SHLVL` or `PPID` anywhere.
fn bash_apart_patterns() -> String {
    // a word ends where a character other than these is
    let w = "[![:alnum:]_./-]";
    APART_WORDS
        .iter()
        .flat_map(|k| {
            [
                k.to_string(),
                format!("{k}{w}*"),
                format!("*{w}{k}"),
                format!("*{w}{k}{w}*"),
            ]
        })
        .chain(["*SHLVL*".to_string(), "*PPID*".to_string()])
        .collect::<Vec<_>>()
        .join("|")
}

/// The bash script, with the launcher and what the user had baked in.
///
/// For a command, the output of the command's own bash goes through the filter, a
/// coprocess (disowned: the command's `wait` and `jobs` do not see it); bash then runs the
/// command itself, so `$0`, `$$`, `$PPID`, `$SHLVL`, error messages and the `$?` and `$_` it
/// starts with are bash's own. An exit trap writes the exit marker with the command's
/// status, closes the filter's input and waits until the filter has printed and exited, so
/// Codex never sees the shell exit before the output. A command naming one of
/// [`APART_WORDS`] (or `SHLVL`, `PPID`) runs in a second bash whose output goes through the
/// filter, as bash itself would run it; so does every command when the user had a
/// `BASH_ENV` of their own (the second bash reads it as bash does: sourced from here, bash
/// would leave its path in `$_`), and when bash is older than 5 (macOS's `/bin/bash` is
/// 3.2, without `{var}>&` redirections; shown with bash 3.2.48 and 4.4 built from GNU's
/// source, outside Codex and in the real Codex, by tests that need `TOKENJUICE_OLD_BASH`).
pub fn script(launcher: &str, previous: &Previous) -> String {
    let q = tokenjuice_core::shell::quote;
    let launcher = q(launcher);
    let give_back = previous.give_back("    ");
    let second_shell = |indent: &str| {
        format!(
            "{indent}__tj_n=\"${{SRANDOM:-$RANDOM}}$RANDOM$$\"
{indent}{{ SHLVL=$(( SHLVL - 1 )) \"${{BASH:-/bin/bash}}\" -c \"$BASH_EXECUTION_STRING\" \"$0\"; __tj_rc=$?; printf '\\036TJEXIT:%s:%d\\036' \"$__tj_n\" \"$__tj_rc\"; exit \"$__tj_rc\"; }} 2>&1 \\
{indent}  | {launcher} --codex-filter=\"$__tj_n\" \"$BASH_EXECUTION_STRING\"
{indent}exit \"${{PIPESTATUS[0]}}\"
"
        )
    };
    let run_apart = format!(
        "{give_back}    if [ ! -t 1 ] && [ -x {launcher} ]; then\n{}    fi\n    ;;\n",
        second_shell("      ")
    );
    // bash 5 syntax (`{var}>&1`, coproc), in an `eval` so that an older bash, which takes
    // the second-bash route, never has to parse it
    let in_shell = format!(
        "__tj_n=\"${{SRANDOM:-$RANDOM}}$RANDOM$$\"
exec {{__tj_o}}>&1
coproc __TJ_F {{ exec {launcher} --codex-filter=\"$__tj_n\" \"$BASH_EXECUTION_STRING\" 8>&1 >&\"$__tj_o\" {{__tj_o}}>&-; }}
disown
exec >&\"${{__TJ_F[1]}}\" 2>&1 {{__tj_o}}>&- {{__TJ_F[1]}}>&-
trap \"printf '\\\\036TJEXIT:%s:%d\\\\036' $__tj_n \\$? || :; exec >&- 2>&-; read -r -u ${{__TJ_F[0]}} __tj_d || :\" EXIT
unset __tj_n __tj_o __TJ_F __TJ_F_PID
"
    );
    let (keep, branches, restore) = match &previous.bash_env {
        Some(p) => (
            format!("[ -r {0} ] && . {0}\n", q(p)),
            format!("  *)\n{run_apart}"),
            String::new(),
        ),
        None => (
            "__tj_s=(\"$?\" \"$_\")\n".to_string(),
            format!(
                "  {apart})
{run_apart}  *)
{give_back}    if [ ! -t 1 ] && [ -x {launcher} ]; then
      if [ \"${{BASH_VERSINFO[0]:-0}}\" -ge 5 ]; then
        eval {in_shell}
      else
{older}      fi
    fi
    ;;
",
                apart = bash_apart_patterns(),
                in_shell = q(&in_shell),
                older = second_shell("        "),
            ),
            "# the command starts with the status and `$_` bash started with (kept at 0 when
# errexit is on, where a status would stop the shell)
__tj_end() { unset -f __tj_end; unset __tj_s; [[ -o errexit ]] || return \"$1\"; }
__tj_end \"${__tj_s[@]}\"
"
            .to_string(),
        ),
    };
    format!(
        "{SCRIPT_MARK} (written by `tokenjuice install codex`; `tokenjuice uninstall codex` removes it; do not edit).
# Bash reads this before `bash -c '<command>'`. For a command, the user's BASH_ENV and ZDOTDIR
# are given back, this bash's output goes through tokenjuice and bash goes on to run the
# command unchanged; at exit it writes an exit marker with the command's status and waits
# for tokenjuice to print. A command that names exec, trap, coproc, a shell, env, printenv,
# SHLVL or PPID (and every command, when the user had a BASH_ENV of their own or bash is
# older than 5) runs in a second bash instead, exactly as bash would run it, its output
# sent through tokenjuice.
{origin}{keep}case \"${{BASH_EXECUTION_STRING-}}\" in
  ''|__CODEX_SNAPSHOT_*) ;;
  *{SNAPSHOT_MARK}*)
    # Codex taking its shell snapshot, not a command: it runs here, as without tokenjuice
{give_back}    ;;
{branches}esac
{restore}",
        origin = previous.origin_line(),
    )
}

/// The zsh script (`.zshenv` in the folder `ZDOTDIR` names for Codex's commands).
///
/// For a command, the output of the command's own zsh goes through the filter, a coprocess
/// (disowned: the command's `wait` and `jobs` do not see it) started before anything else
/// runs; the user's `.zshenv` is read in place and zsh goes on as without tokenjuice (its
/// other start-up files, then the command, in this same process: `$0`, `$$`, `$PPID`,
/// `$SHLVL`, error messages and the `$?` and `$_` it starts with are zsh's own). An exit
/// trap writes the exit marker with the command's status, closes the filter's input
/// (`coproc exit` is zsh's way to close a coprocess's pipe) and waits until the filter has
/// printed and exited (it holds the coprocess's output pipe until then), so Codex never sees
/// the shell exit before the output. A background job the command left keeps writing to a
/// detached copy of the filter, which does not hold that pipe.
///
/// Since the zsh waits to hand over the output, the command's last program runs as its child
/// instead of in its place (zsh `exec`s a `-c` string's last command): its parent is the
/// zsh, and `SHLVL` in its environment is one higher than zsh would have left it. So a
/// command that names a shell, `env`, `printenv`, `SHLVL` or `PPID` (the ones that would
/// show it) runs in a second zsh whose output goes through the filter, where both are as
/// without tokenjuice; so does a command that could replace the trap or the shell (`exec`,
/// `trap`, `TRAPEXIT`, `zshexit`, `coproc`).
pub fn zsh_script(launcher: &str, previous: &Previous) -> String {
    let q = tokenjuice_core::shell::quote;
    format!(
        "{ZSH_MARK} (written by `tokenjuice install codex`; `tokenjuice uninstall codex` removes it; do not edit).
# zsh reads this first: Codex sets ZDOTDIR to this folder for its commands. For a command,
# the user's ZDOTDIR and BASH_ENV are given back, this zsh's output goes through tokenjuice,
# the user's .zshenv is read in place and zsh goes on as it would have (its other start-up
# files, then the command); at exit it writes an exit marker with the command's status and
# waits for tokenjuice to print. A command that names exec, trap, zshexit or coproc, a shell,
# env, printenv, SHLVL or PPID runs in a second zsh instead (exactly as zsh would run it: the
# last program in its place, SHLVL as it would be), its output sent through tokenjuice.
# Anywhere else (Codex's snapshot wrapper or snapshot, a terminal, an interactive zsh) this
# reads the user's .zshenv in place.
{origin}__tj_s1=$? __tj_s2=$_
__tj_ours=$ZDOTDIR
__tj_run=
case ${{ZSH_EXECUTION_STRING-}} in
  ''|__CODEX_SNAPSHOT_*|*{SNAPSHOT_MARK}*) ;;
  *TRAP*|*zshexit*|*SHLVL*|*PPID*|(|*[^[:alnum:]_./-])({words})(|[^[:alnum:]_./-]*))
    [[ ! -t 1 && -x {launcher} ]] && __tj_run=apart ;;
  *) [[ ! -t 1 && -x {launcher} ]] && __tj_run=here ;;
esac
{give_back}# what Codex's snapshot wrapper found in the user's .zshenv (below) comes first
if [[ -n ${{__TJ_CODEX_ZDOTDIR+x}} ]]; then
  [[ $__TJ_CODEX_ZDOTDIR == set:* ]] && export ZDOTDIR=${{__TJ_CODEX_ZDOTDIR#set:}}
  unset __TJ_CODEX_ZDOTDIR
fi
if [[ $__tj_run == apart ]]; then
  unset __tj_run __tj_ours
  __tj_n=$RANDOM$RANDOM$RANDOM$$
  __tj_l=()
  [[ -o login ]] && __tj_l=(-l)
  {{ SHLVL=$(( SHLVL - 1 )) \"${{ZSH_ARGZERO#-}}\" $__tj_l -c \"$ZSH_EXECUTION_STRING\" \"$0\"; __tj_rc=$?; printf '\\036TJEXIT:%s:%d\\036' \"$__tj_n\" \"$__tj_rc\"; exit $__tj_rc; }} 2>&1 \\
    | {launcher} --codex-filter=\"$__tj_n\" \"$ZSH_EXECUTION_STRING\"
  exit ${{pipestatus[1]}}
fi
__tj_n=
if [[ $__tj_run == here ]]; then
  __tj_n=$RANDOM$RANDOM$RANDOM$$
  __tj_mo=${{options[multios]}}
  unsetopt multios
  exec {{__tj_o}}>&1
  coproc {launcher} --codex-filter=\"$__tj_n\" \"$ZSH_EXECUTION_STRING\" 8>&1 >&$__tj_o {{__tj_o}}>&-
  disown
  exec >&p 2>&1 {{__tj_o}}>&-
  [[ $__tj_mo == on ]] && setopt multios
  unset __tj_mo __tj_o
fi
unset __tj_run
# From here to the end is one block, read before the user's .zshenv runs, so the options
# and aliases that file sets (`emulate sh`, `ksharrays`, ...) change nothing of how it is
# read; what runs after that file is written to mean the same under any options.
{{
  # `$0` stays `zsh` in the user's file, as in a start-up file (POSIX_ARGZERO; touching
  # FUNCTION_ARGZERO instead would undo an `emulate sh` there)
  __tj_pa=${{options[posixargzero]}}
  setopt posixargzero
  __tj_f=${{ZDOTDIR:-$HOME}}/.zshenv
  __tj_r2=$__tj_f
  if [[ -r $__tj_f ]]; then
    . $__tj_f
    __tj_s1=$? __tj_r2=$_
  fi
  # the rest untraced when that file turned `xtrace` on
  {{
    # a file with no command in it leaves its own path there
    if [ \"$__tj_r2\" != \"$__tj_f\" ]; then __tj_s2=$__tj_r2; fi
    if [ \"$__tj_pa\" = off ]; then unsetopt posixargzero; fi
    if [ -n \"$__tj_n\" ]; then
      # (a numbered descriptor: `{{var}}` redirections are not read under `emulate sh`)
      # (its words quoted: the trap is read at exit, after the user's aliases)
      trap \"\\\\print -rn -- \\$'\\\\036TJEXIT:$__tj_n:'\\$?\\$'\\\\036'; \\\\unsetopt xtrace; \\\\exec 9<&p >&- 2>&-; coproc exit; \\\\read -u 9 __tj_d || \\\\:\" EXIT
    fi
    case ${{ZSH_EXECUTION_STRING-}} in
      __CODEX_SNAPSHOT_*)
        # the wrapper `exec`s the command's zsh, which must find this file again, and then
        # start with the ZDOTDIR the user's .zshenv left for it
        if [[ ${{(t)ZDOTDIR}} == *export* ]]; then export __TJ_CODEX_ZDOTDIR=set:$ZDOTDIR; else export __TJ_CODEX_ZDOTDIR=unset; fi
        ZDOTDIR=$__tj_ours
        export ZDOTDIR
        ;;
    esac
    unset __tj_n __tj_pa __tj_r2
    # the command starts with the status and `$_` the user's .zshenv left, as without
    # this file (kept at 0 when that file set errexit, which a status would trip here)
    () {{ unset __tj_s1 __tj_s2 __tj_f __tj_ours; [[ -o errexit ]] || return $1 }} \"$__tj_s1\" \"$__tj_s2\"
  }} 2>/dev/null
}}
",
        origin = previous.origin_line(),
        give_back = previous.give_back(""),
        launcher = q(launcher),
        words = APART_WORDS.join("|"),
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

/// A variable set for Codex's commands (`shell_environment_policy.set`), if any.
pub fn policy_var(doc: &DocumentMut, var: &str) -> Option<String> {
    policy_set(doc)?.get(var)?.as_str().map(str::to_string)
}

/// The `BASH_ENV` value set for Codex's commands, if any.
pub fn bash_env(doc: &DocumentMut) -> Option<String> {
    policy_var(doc, "BASH_ENV")
}

/// Whether `shell_environment_policy.include_only` (patterns; `*` matches any run of
/// characters, case-insensitively, as Codex matches them) lets `var` through.
pub fn include_only_lets_through(doc: &DocumentMut, var: &str) -> bool {
    let Some(only) = doc
        .get("shell_environment_policy")
        .and_then(|t| t.get("include_only"))
        .and_then(Item::as_array)
    else {
        return true;
    };
    only.is_empty()
        || only
            .iter()
            .filter_map(|v| v.as_str())
            .any(|pat| glob_matches(&pat.to_ascii_uppercase(), &var.to_ascii_uppercase()))
}

fn glob_matches(pat: &str, s: &str) -> bool {
    match pat.split_once('*') {
        None => pat == s,
        Some((head, rest)) => {
            let Some(s) = s.strip_prefix(head) else {
                return false;
            };
            (0..=s.len()).any(|i| s.is_char_boundary(i) && glob_matches(rest, &s[i..]))
        }
    }
}

/// A script of ours at `path` (either mark).
fn our_script(path: &Path, mark: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    text.starts_with(mark).then_some(text)
}

/// The value of an `export VAR=<word>` line of one of our scripts (only the lines that give
/// back what the user had are written so).
fn exported_in(script_text: &str, var: &str) -> Option<String> {
    let prefix = format!("export {var}=");
    let word = script_text
        .lines()
        .find_map(|l| l.trim().strip_prefix(prefix.as_str()))?;
    let parsed = tokenjuice_core::shell::parse(word);
    match parsed.items.first()?.pipeline.commands.first()? {
        tokenjuice_core::shell::Command::Simple(c) => c.words.first().map(|w| w.text.clone()),
        _ => None,
    }
}

/// What the user had: from config.toml where it is not ours, else from our scripts, else
/// (`ZDOTDIR` only) from the environment install runs in.
fn previous(doc: &DocumentMut, p: &Paths, env: &Env) -> Previous {
    let before = our_script(&p.script, SCRIPT_MARK)
        .or_else(|| our_script(&p.zsh_script, ZSH_MARK))
        .map(|t| Previous::read_back(&t))
        .unwrap_or_default();
    let script = p.script.display().to_string();
    let zdotdir = p.zdotdir.display().to_string();
    let bash_env = match bash_env(doc) {
        Some(v) if v == script => before.bash_env.clone(),
        other => other,
    };
    let (zdotdir, zdotdir_in_config) = match policy_var(doc, "ZDOTDIR") {
        Some(v) if v == zdotdir => match env.var("ZDOTDIR") {
            Some(e) if e != zdotdir && !before.zdotdir_in_config => (Some(e.to_string()), false),
            _ => (before.zdotdir.clone(), before.zdotdir_in_config),
        },
        Some(v) => (Some(v), true),
        None => (
            env.var("ZDOTDIR")
                .filter(|e| *e != zdotdir)
                .map(str::to_string),
            false,
        ),
    };
    Previous {
        bash_env,
        zdotdir,
        zdotdir_in_config,
    }
}

/// Edit the config and write the scripts. Returns lines for the user.
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
    let ours_zd = p.zdotdir.display().to_string();
    let previous = previous(&doc, &p, env);
    if !include_only_lets_through(&doc, "BASH_ENV") {
        return Err(HostsError::Shape {
            path: p.config.clone(),
            what: "shell_environment_policy.include_only does not let BASH_ENV through, so Codex would drop it".into(),
            fix: "add \"BASH_ENV\" (and \"ZDOTDIR\" for zsh) to include_only, then run `tokenjuice install codex` again".into(),
        });
    }
    let zsh_through = include_only_lets_through(&doc, "ZDOTDIR");
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
    set.insert("ZDOTDIR", Item::Value(Value::from(ours_zd.as_str())));
    let scripts = [
        (&p.script, SCRIPT_MARK, script(launcher, &previous)),
        (&p.zsh_script, ZSH_MARK, zsh_script(launcher, &previous)),
    ];
    let mut loaded_scripts = Vec::new();
    for (path, mark, text) in scripts {
        let l = files::load(path)?;
        if l.text.as_deref().is_some_and(|t| !t.starts_with(mark)) {
            return Err(HostsError::Shape {
                path: path.clone(),
                what: "the file exists and was not written by tokenjuice".into(),
                fix: "move it aside, then run `tokenjuice install codex` again".into(),
            });
        }
        loaded_scripts.push((l, text));
    }
    for (l, text) in &loaded_scripts {
        if let Some(dir) = l.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| HostsError::Write {
                path: dir.to_path_buf(),
                source: e,
            })?;
        }
        files::store_owned(l, Some(text))?;
    }
    files::store(&loaded, Some(&doc.to_string()))?;
    let mut lines = vec![
        format!(
            "{}: shell_environment_policy.set.BASH_ENV = {ours}, ZDOTDIR = {ours_zd}",
            p.config.display()
        ),
        format!(
            "wrote {} (bash) and {} (zsh)",
            p.script.display(),
            p.zsh_script.display()
        ),
    ];
    if let Some(prev) = &previous.bash_env {
        lines.push(format!("your BASH_ENV `{prev}` is still read first and stays the one your commands' scripts see"));
    }
    if let Some(prev) = &previous.zdotdir {
        let from = if previous.zdotdir_in_config {
            "config.toml"
        } else {
            "your environment"
        };
        lines.push(format!("your ZDOTDIR `{prev}` (from {from}) is given back to every command before it starts, so zsh reads your own start-up files"));
    }
    if !zsh_through {
        lines.push("zsh: shell_environment_policy.include_only does not let ZDOTDIR through, so if your login shell is zsh nothing is compacted; add \"ZDOTDIR\" to include_only and run `tokenjuice install codex` again".into());
    }
    Ok(lines)
}

/// Take it out again (and give back what the user had set). True when anything changed.
pub fn uninstall(env: &Env) -> Result<bool> {
    let p = paths(env)?;
    let loaded = files::load(&p.config)?;
    let Some(text) = loaded.text.clone() else {
        return Ok(false);
    };
    let mut doc: DocumentMut = text.parse().map_err(|e| malformed(&p.config, e))?;
    let ours = p.script.display().to_string();
    let ours_zd = p.zdotdir.display().to_string();
    let has_bash = bash_env(&doc).as_deref() == Some(ours.as_str());
    let has_zsh = policy_var(&doc, "ZDOTDIR").as_deref() == Some(ours_zd.as_str());
    if !has_bash && !has_zsh {
        return Ok(false);
    }
    let previous = our_script(&p.script, SCRIPT_MARK)
        .or_else(|| our_script(&p.zsh_script, ZSH_MARK))
        .map(|t| Previous::read_back(&t))
        .unwrap_or_default();
    if let Some(policy) = doc
        .get_mut("shell_environment_policy")
        .and_then(Item::as_table_like_mut)
    {
        if let Some(set) = policy.get_mut("set").and_then(Item::as_table_like_mut) {
            let mut give_back = |var: &str, ours: bool, prev: Option<&String>| {
                if !ours {
                    return;
                }
                match prev {
                    Some(v) => {
                        set.insert(var, Item::Value(Value::from(v.as_str())));
                    }
                    None => {
                        set.remove(var);
                    }
                }
            };
            give_back("BASH_ENV", has_bash, previous.bash_env.as_ref());
            give_back(
                "ZDOTDIR",
                has_zsh,
                previous
                    .zdotdir
                    .as_ref()
                    .filter(|_| previous.zdotdir_in_config),
            );
            if set.is_empty() {
                policy.remove("set");
            }
        }
        if policy.is_empty() {
            doc.remove("shell_environment_policy");
        }
    }
    files::store(&loaded, Some(&doc.to_string()))?;
    for (path, mark) in [(&p.script, SCRIPT_MARK), (&p.zsh_script, ZSH_MARK)] {
        if let Ok(s) = files::load(path) {
            if s.text.as_deref().is_some_and(|t| t.starts_with(mark)) {
                let _ = files::store_owned(&s, None);
            }
        }
    }
    let _ = std::fs::remove_dir(&p.zdotdir);
    Ok(true)
}

/// What doctor needs: the scripts installed and named by the config, and their launcher.
pub struct State {
    pub configured: Option<String>,
    pub configured_zdotdir: Option<String>,
    pub script_ours: bool,
    pub zsh_script_ours: bool,
    /// The bash script is what this tokenjuice writes for its launcher and what the user
    /// had (an older tokenjuice's lacks later fixes).
    pub script_current: bool,
    pub zsh_script_current: bool,
    /// `include_only` lets `ZDOTDIR` through.
    pub zdotdir_through: bool,
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
    let text = our_script(&p.script, SCRIPT_MARK);
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
    let zsh_text = our_script(&p.zsh_script, ZSH_MARK);
    // regenerated from its own launcher and what the user had, read back from it
    let current = |t: &Option<String>, write: fn(&str, &Previous) -> String| match (t, &launcher) {
        (Some(t), Some(l)) => *t == write(l, &Previous::read_back(t)),
        _ => false,
    };
    let s = State {
        configured: bash_env(&doc),
        configured_zdotdir: policy_var(&doc, "ZDOTDIR"),
        script_ours: text.is_some(),
        zsh_script_ours: zsh_text.is_some(),
        script_current: current(&text, script),
        zsh_script_current: current(&zsh_text, zsh_script),
        zdotdir_through: include_only_lets_through(&doc, "ZDOTDIR"),
        launcher,
    };
    Ok((p, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_an_older_tokenjuice_wrote_is_not_current() {
        let t = tempfile::tempdir().unwrap();
        let env = Env {
            home: Some(t.path().to_path_buf()),
            cwd: t.path().to_path_buf(),
            ..Env::default()
        };
        let p = paths(&env).unwrap();
        std::fs::create_dir_all(&p.zdotdir).unwrap();
        std::fs::write(&p.config, "").unwrap();
        let prev = Previous {
            bash_env: Some("/home/u/.bash_env".into()),
            ..Previous::default()
        };
        std::fs::write(&p.script, script("/opt/t j/tokenjuice", &prev)).unwrap();
        std::fs::write(&p.zsh_script, zsh_script("/opt/t j/tokenjuice", &prev)).unwrap();
        let (_, s) = state(&env).unwrap();
        assert!(s.script_current && s.zsh_script_current);
        // the scripts without the snapshot guard, as an older tokenjuice wrote them
        let older = |t: String| t.replace(&format!("*{SNAPSHOT_MARK}*"), "__never__");
        let text = std::fs::read_to_string(&p.script).unwrap();
        std::fs::write(&p.script, older(text)).unwrap();
        let text = std::fs::read_to_string(&p.zsh_script).unwrap();
        std::fs::write(&p.zsh_script, older(text)).unwrap();
        let (_, s) = state(&env).unwrap();
        assert!(s.script_ours && !s.script_current);
        assert!(s.zsh_script_ours && !s.zsh_script_current);
    }

    #[test]
    fn what_the_user_had_is_read_back_from_either_script() {
        let prev = Previous {
            bash_env: Some("/home/a b/.bash_env".into()),
            zdotdir: Some("/home/a b/.config/zsh".into()),
            zdotdir_in_config: true,
        };
        for s in [
            script("/usr/bin/tokenjuice", &prev),
            zsh_script("/usr/bin/tokenjuice", &prev),
        ] {
            assert_eq!(Previous::read_back(&s), prev, "{s}");
        }
        let none = Previous::default();
        assert_eq!(Previous::read_back(&script("/x", &none)), none);
        assert_eq!(Previous::read_back(&zsh_script("/x", &none)), none);
        assert!(script("/opt/t j/tokenjuice", &none)
            .contains("| '/opt/t j/tokenjuice' --codex-filter="));
    }

    #[test]
    fn include_only_patterns_match_as_codex_matches_them() {
        let doc = |only: &str| -> DocumentMut {
            format!("[shell_environment_policy]\ninclude_only = [{only}]\n")
                .parse()
                .unwrap()
        };
        assert!(include_only_lets_through(
            &doc("\"PATH\", \"BASH_*\""),
            "BASH_ENV"
        ));
        assert!(!include_only_lets_through(
            &doc("\"PATH\", \"BASH_*\""),
            "ZDOTDIR"
        ));
        assert!(include_only_lets_through(&doc("\"*DOT*\""), "ZDOTDIR"));
        assert!(include_only_lets_through(&doc("\"zdotdir\""), "ZDOTDIR"));
        assert!(include_only_lets_through(&doc(""), "ZDOTDIR"));
        assert!(!include_only_lets_through(
            &doc("\"Z*R\", \"*X\""),
            "ZDOTDIRS"
        ));
    }
}
