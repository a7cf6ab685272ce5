//! `tokenjuice --shell-prefix=<host> '<line>'`: what a host's shell-prefix setting runs.
//!
//! Claude Code's `CLAUDE_CODE_SHELL_PREFIX` makes it run `'<prefix>' '<line>'` instead of
//! `<line>` for everything it starts through a shell: Bash tool commands, hooks, and MCP
//! server launches. A Bash tool line is Claude's own:
//! `source <snapshot> … && eval '<command>' < /dev/null && pwd -P >| <cwd file>`. The command
//! keeps running in Claude's shell line (permissions were checked on it, `cd` persists through
//! the cwd file, the snapshot's aliases and functions apply, PATH is Claude's); tokenjuice
//! only reads its output and prints the compacted text, which Claude then hands to the model.
//!
//! Everything else passes through untouched (`exec`, no output of ours): lines that are not a
//! Bash tool line, background commands (marked by the host's pre-tool hook, since their output
//! must stream), and any line when something is wrong here. A prefix the user had before
//! tokenjuice was installed is kept in `TOKENJUICE_<HOST>_NEXT_PREFIX` and still runs the line.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::process::Command;

use tokenjuice_core::shell::{self, Command as ShellCommand};
use tokenjuice_hosts::registry::{self, PrefixSpec};

use crate::wrap::{self, HostOutput, WrapOpts};
use crate::{Format, OutputOpts};

/// The host named by `--shell-prefix=<host>` when argv starts with it.
pub fn requested(args: &[OsString]) -> Option<String> {
    let first = args.get(1)?.to_str()?;
    first.strip_prefix("--shell-prefix=").map(str::to_string)
}

/// A Bash tool line, understood.
#[derive(Debug, PartialEq, Eq)]
pub struct ToolLine {
    /// The model's command, as `eval` receives it.
    pub command: String,
    /// `bash` or `zsh`, from the snapshot the line sources.
    pub shell: Option<&'static str>,
}

/// Reads a host's tool line: it ends in `eval <command> < /dev/null && pwd -P >| <file>`.
pub fn parse_tool_line(line: &str) -> Option<ToolLine> {
    let script = shell::parse(line);
    if script.incomplete {
        return None;
    }
    let items = &script.items;
    let last = items.last()?;
    let is_pwd = |c: &ShellCommand| match c {
        ShellCommand::Simple(s) => {
            s.argv() == ["pwd", "-P"] && s.redirects.len() == 1 && s.redirects[0].op == ">|"
        }
        _ => false,
    };
    if last.pipeline.commands.len() != 1 || !is_pwd(&last.pipeline.commands[0]) {
        return None;
    }
    let eval = items.get(items.len().checked_sub(2)?)?;
    let ShellCommand::Simple(e) = eval.pipeline.commands.first()? else {
        return None;
    };
    if eval.pipeline.commands.len() != 1 || e.words.len() != 2 || e.words[0].text != "eval" {
        return None;
    }
    let shell = if line.contains("/snapshot-zsh-") {
        Some("zsh")
    } else if line.contains("/snapshot-bash-") {
        Some("bash")
    } else {
        None
    };
    Some(ToolLine {
        command: e.words[1].text.clone(),
        shell,
    })
}

/// How the host builds a prefixed command string (Claude Code: the prefix is split at its
/// last ` -`; the part before is one quoted word, the flags after it stay as written).
pub fn prefixed(prefix: &str, line: &str) -> String {
    match prefix.rfind(" -").filter(|&i| i > 0) {
        Some(i) => format!(
            "{} {} {}",
            shell::quote(&prefix[..i]),
            &prefix[i + 1..],
            shell::quote(line)
        ),
        None => format!("{} {}", shell::quote(prefix), shell::quote(line)),
    }
}

/// The shell for a tool line: the snapshot's kind, found as the host would (its shell
/// variable, then `SHELL` when it is that kind, then `PATH`).
fn tool_shell(spec: &PrefixSpec, kind: Option<&str>) -> String {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let kind = kind.unwrap_or("bash");
    for cand in [env(spec.shell_env), env("SHELL")].into_iter().flatten() {
        let base = cand.rsplit('/').next().unwrap_or("");
        if base == kind && is_executable(&cand) {
            return cand;
        }
    }
    kind.to_string()
}

fn is_executable(p: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Replace this process with `argv` (nothing of ours is printed). Returns only on failure.
fn exec(argv: &[String]) -> i32 {
    let err = Command::new(&argv[0]).args(&argv[1..]).exec();
    eprintln!("tokenjuice: cannot run {}: {err}", argv[0]);
    if err.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    }
}

fn through_next(next: Option<&str>, line: &str, shell: String) -> Vec<String> {
    match next {
        Some(n) => vec!["/bin/sh".into(), "-c".into(), prefixed(n, line)],
        None => vec![shell, "-c".into(), line.to_string()],
    }
}

pub fn run(host: &str, args: &[OsString]) -> i32 {
    let rest = &args[2..];
    let Some(spec) = registry::prefix_host(host) else {
        eprintln!("tokenjuice: warning: --shell-prefix={host}: not a host with a shell prefix; running the line unchanged");
        return passthrough_any(rest);
    };
    let [line] = rest else {
        return passthrough_any(rest);
    };
    let Some(line) = line.to_str() else {
        return passthrough_any(rest);
    };
    let next = std::env::var(spec.next_env)
        .ok()
        .filter(|v| !v.trim().is_empty());
    let Some(tool) = parse_tool_line(line) else {
        // a hook or an MCP server launch: exactly as without us
        return exec(&through_next(next.as_deref(), line, "/bin/sh".into()));
    };
    let shell = tool_shell(spec, tool.shell);
    if tokenjuice_hosts::streaming::take_mark(&tool.command) {
        return exec(&through_next(next.as_deref(), line, shell));
    }
    let argv = through_next(next.as_deref(), line, shell);
    wrap::run(WrapOpts {
        argv,
        out: OutputOpts {
            format: Format::Text,
            trace: false,
        },
        raw: false,
        no_omit: crate::rules_env::no_omission_env(),
        classifier: None,
        source: Some(spec.id.to_string()),
        store: false,
        no_stats: false,
        host: Some(HostOutput {
            command: tool.command,
            cut: spec.cut,
            prints_exit: spec.prints_exit,
        }),
    })
}

/// Not a single line: run the arguments as the command they are.
fn passthrough_any(rest: &[OsString]) -> i32 {
    if rest.is_empty() {
        eprintln!("tokenjuice: --shell-prefix expects the host's command line as one argument");
        return 2;
    }
    let argv: Vec<String> = rest
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    exec(&argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"source /h/.claude/shell-snapshots/snapshot-bash-1-x.sh 2>/dev/null || true && { \builtin shopt -u extglob || \builtin setopt NO_EXTENDED_GLOB; } >/dev/null 2>&1 || true && { \builtin unalias -- 'which'; \builtin unset -f -- 'which'; } >/dev/null 2>&1 || true && eval 'mkdir -p sub && cd sub && echo '\''q'\''' < /dev/null && pwd -P >| /tmp/claude-04fc-cwd"#;

    #[test]
    fn reads_the_command_out_of_a_claude_line() {
        let t = parse_tool_line(LINE).expect("a tool line");
        assert_eq!(t.command, "mkdir -p sub && cd sub && echo 'q'");
        assert_eq!(t.shell, Some("bash"));
        let bare = "eval pwd < /dev/null && pwd -P >| /tmp/claude-1-cwd";
        assert_eq!(parse_tool_line(bare).unwrap().command, "pwd");
    }

    #[test]
    fn hooks_and_mcp_launches_are_not_tool_lines() {
        for l in [
            "/usr/bin/python3 ~/.claude/hooks/check.py",
            "'npx' '-y' '@modelcontextprotocol/server-memory'",
            "eval 'ls' && pwd -P",
            "eval 'ls' < /dev/null && pwd -P > /tmp/x",
            "echo 'unterminated",
        ] {
            assert_eq!(parse_tool_line(l), None, "{l}");
        }
    }

    #[test]
    fn builds_a_prefixed_line_as_the_host_does() {
        assert_eq!(prefixed("/bin/p", "echo hi"), "/bin/p 'echo hi'");
        assert_eq!(
            prefixed("/opt/my tools/p --flag x", "ls"),
            "'/opt/my tools/p' --flag x ls"
        );
    }
}
