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
//! Bash tool line, CodeBuddy's background commands (their stdout is a task file, their output
//! must stream), commands an older install's pre-tool hook marked, and any line when something
//! is wrong here. A prefix the user had before tokenjuice was installed is kept in
//! `TOKENJUICE_<HOST>_NEXT_PREFIX` and still runs the line.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::process::Command;

use tokenjuice_core::shell::{self, Command as ShellCommand};
use tokenjuice_hosts::registry::{self, PrefixSpec, PrefixStyle};

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

/// Reads a CodeBuddy tool line: it ends in `eval '<command>'`, the command single-quoted
/// with `'\''` for each quote.
pub fn parse_codebuddy_line(line: &str) -> Option<ToolLine> {
    let body = line.strip_suffix('\'')?;
    let mut from = 0;
    while let Some(i) = body[from..].find("eval '") {
        let start = from + i;
        let inner = &body[start + "eval '".len()..];
        let at_boundary =
            start == 0 || body[..start].ends_with("&& ") || body[..start].ends_with("; ");
        if at_boundary && !inner.replace("'\\''", "").contains('\'') {
            let shell = if line.contains("/snapshot-zsh-") {
                Some("zsh")
            } else if line.contains("/snapshot-bash-") {
                Some("bash")
            } else {
                None
            };
            return Some(ToolLine {
                command: inner.replace("'\\''", "'"),
                shell,
            });
        }
        from = start + 1;
    }
    None
}

/// How the host builds a prefixed command string.
pub fn prefixed(style: PrefixStyle, prefix: &str, line: &str) -> String {
    if style == PrefixStyle::CodeBuddy {
        // pasted as it is, the line single-quoted
        return format!("{prefix} '{}'", line.replace('\'', "'\\''"));
    }
    // Claude: split at the last " -"; the part before is one quoted word
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

/// The shell CodeBuddy runs lines with: its shell variable (`bash`, `zsh`, `sh`), else
/// `SHELL` when executable, else `/bin/sh`.
fn codebuddy_shell(spec: &PrefixSpec) -> String {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match env(spec.shell_env).as_deref() {
        Some("bash") => return "bash".into(),
        Some("zsh") => return "zsh".into(),
        Some("sh") => return "/bin/sh".into(),
        _ => {}
    }
    match env("SHELL") {
        Some(s) if is_executable(&s) => s,
        _ => "/bin/sh".into(),
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

/// The argv that runs `line` as the host would have without us: through the user's own
/// earlier prefix when there was one.
fn through_next(spec: &PrefixSpec, next: Option<&str>, line: &str, shell: String) -> Vec<String> {
    let body = match next {
        Some(n) => prefixed(spec.style, n, line),
        None => line.to_string(),
    };
    match spec.style {
        PrefixStyle::Claude if next.is_some() => vec!["/bin/sh".into(), "-c".into(), body],
        PrefixStyle::Claude => vec![shell, "-c".into(), body],
        PrefixStyle::CodeBuddy => {
            // CodeBuddy's outer shell ran `shopt -u …` before our prefix: the line gets the same
            let is_bash = shell.rsplit('/').next() == Some("bash");
            let body = if is_bash {
                format!("shopt -u promptvars nullglob extglob nocaseglob dotglob; {body}")
            } else {
                body
            };
            vec![shell, "-c".into(), body]
        }
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
    let next = next.as_deref();
    let (tool, shell) = match spec.style {
        PrefixStyle::Claude => {
            let tool = parse_tool_line(line);
            let shell = match &tool {
                Some(t) => tool_shell(spec, t.shell),
                None => "/bin/sh".into(),
            };
            (tool, shell)
        }
        PrefixStyle::CodeBuddy => {
            // only Bash tool calls carry the session id (the API key helper does not)
            let in_session =
                std::env::var_os("CODEBUDDY_SESSION_ID").is_some_and(|v| !v.is_empty());
            let tool = parse_codebuddy_line(line).filter(|_| in_session);
            (tool, codebuddy_shell(spec))
        }
    };
    let argv = through_next(spec, next, line, shell);
    // a hook, an MCP server launch, a helper: exactly as without us
    let Some(tool) = tool else {
        return exec(&argv);
    };
    // a mark left by the pre-tool hook is taken either way (older installs still mark)
    let marked = tokenjuice_hosts::streaming::take_mark(&tool.command);
    let mirror = spec.style == PrefixStyle::Claude && stdout_is_one_file_with_stderr();
    // CodeBuddy runs a background command with its task files as stdout and stderr (a
    // foreground one gets sockets): its output streams there untouched, as without us
    let background = spec.style == PrefixStyle::CodeBuddy && stdout_is_a_file();
    if (marked || background) && !mirror {
        return exec(&argv);
    }
    let hold = (spec.style == PrefixStyle::CodeBuddy).then(|| codebuddy_hold(tool.command.clone()));
    let code = wrap::run(WrapOpts {
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
            cut: host_cut(spec),
            prints_exit: spec.host().prints_exit,
            split_stderr: spec.style == PrefixStyle::CodeBuddy,
            mirror,
            hold,
        }),
    });
    // the host sees the line end as it would have: a line killed by a signal (a host's
    // timeout sends one) ends this process by the same signal, not by exit code 128+N
    match wrap::CHILD_SIGNAL.load(std::sync::atomic::Ordering::Relaxed) {
        0 => code,
        sig => die_by(sig, code),
    }
}

/// Ends this process by signal `sig` with the default action; no core file of ours is left
/// in the user's folder when the command's shell dumped core. `code` when the signal did not
/// end it.
fn die_by(sig: i32, code: i32) -> i32 {
    use nix::sys::signal::{raise, signal, sigprocmask, SigHandler, SigSet, SigmaskHow, Signal};
    let Ok(s) = Signal::try_from(sig) else {
        return code;
    };
    let _ = std::io::Write::flush(&mut std::io::stdout());
    let _ = std::io::Write::flush(&mut std::io::stderr());
    let no_core = nix::libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: setrlimit with a valid struct; signal() to the default action has no handler
    // to be unsafe about.
    unsafe {
        nix::libc::setrlimit(nix::libc::RLIMIT_CORE, &no_core);
        let _ = signal(s, SigHandler::SigDfl);
    }
    let mut set = SigSet::empty();
    set.add(s);
    let _ = sigprocmask(SigmaskHow::SIG_UNBLOCK, Some(&set), None);
    let _ = raise(s);
    code
}

/// The host's cut of a result, as its settings have it: Claude Code's `bashOutputMaxChars`
/// moves it (the lower of it and the default is used for failures too, where the exact rule
/// is not known); CodeBuddy 2.117 takes `BASH_MAX_OUTPUT_LENGTH` from its environment, up
/// to 150,000, for every command.
fn host_cut(spec: &PrefixSpec) -> tokenjuice_core::budget::HostCut {
    let mut cut = spec.host().cut;
    match spec.style {
        PrefixStyle::Claude => {
            let env = tokenjuice_hosts::env::Env::from_process();
            if let Some(n) = tokenjuice_hosts::claude_settings::output_max_chars(&env, &env.cwd) {
                cut.fail_cut_chars = cut.fail_cut_chars.min(n);
                cut.cut_chars = n;
            }
        }
        PrefixStyle::CodeBuddy => {
            let n = std::env::var("BASH_MAX_OUTPUT_LENGTH")
                .ok()
                .and_then(|v| v.trim().parse::<usize>().ok())
                .filter(|n| *n > 0);
            if let Some(n) = n {
                cut.cut_chars = n.min(150_000);
                cut.fail_cut_chars = cut.cut_chars;
            }
        }
    }
    cut
}

/// How long the prefix may hold a CodeBuddy command's output. CodeBuddy 2.117 moves a
/// foreground command still running at its timeout (the call's own `timeout` when the model
/// gave one, up to `BASH_MAX_TIMEOUT_MS`, 600 s by default; else `BASH_DEFAULT_TIMEOUT_MS`,
/// 120 s by default) or past its assistant budget (`CODEBUDDY_BASH_ASSISTANT_BUDGET_MS`, off
/// by default) to the background and shows the model the output so far; the prefix lets go
/// a little before (a tenth of the time, at least 1 s and at most 5 s), so that output is
/// there as without tokenjuice. With `CODEBUDDY_BASH_AUTO_BACKGROUND_DISABLED=1` CodeBuddy ends the command
/// instead (`SIGTERM`, and the model reads what the command printed until then: shown in the
/// real CLI), so the prefix lets go before that too (before the budget as well: letting go
/// early costs only the compaction).
/// The call's timeout is read from CodeBuddy's session transcript
/// ([`tokenjuice_hosts::codebuddy_transcript`]) once the command has run for
/// [`wrap::Hold::LOOK_AFTER`]; a call given less than that is let go when it is read.
fn codebuddy_hold(command: String) -> wrap::Hold {
    let ms = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|n| *n > 0)
    };
    let budget = ms("CODEBUDDY_BASH_ASSISTANT_BUDGET_MS");
    let hold = move |timeout: u64| {
        let moved_at = budget.map_or(timeout, |b| b.min(timeout));
        // a tenth, but at least a second (half of a shorter time): on a busy machine
        // CodeBuddy's timer and ours drift by some hundred milliseconds
        let margin = (moved_at / 10).clamp((moved_at / 2).min(1_000), 5_000);
        std::time::Duration::from_millis(moved_at - margin)
    };
    let default = ms("BASH_DEFAULT_TIMEOUT_MS").unwrap_or(120_000);
    let max = ms("BASH_MAX_TIMEOUT_MS").unwrap_or(600_000);
    wrap::Hold {
        for_: hold(default),
        this_command: Some(Box::new(move || {
            let env = tokenjuice_hosts::env::Env::from_process();
            tokenjuice_hosts::codebuddy_transcript::call_timeout_ms(&env, &command)
                .map(|t| hold(t.min(max)))
        })),
    }
}

/// Claude Code 2.1 hands every Bash command one file, opened for appending, as stdout and
/// stderr (`tasks/<id>.output`), and reads it when the command ends (and while a background
/// command runs). Then the output can stream into that file and be replaced at the end.
fn stdout_is_one_file_with_stderr() -> bool {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    use nix::sys::stat::{fstat, SFlag};
    let (Ok(out), Ok(err)) = (fstat(1), fstat(2)) else {
        return false;
    };
    let regular = SFlag::from_bits_truncate(out.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG;
    let appending = fcntl(1, FcntlArg::F_GETFL)
        .is_ok_and(|f| OFlag::from_bits_truncate(f).contains(OFlag::O_APPEND));
    regular && appending && out.st_dev == err.st_dev && out.st_ino == err.st_ino
}

/// stdout is a regular file (not a pipe, socket or terminal).
fn stdout_is_a_file() -> bool {
    use nix::sys::stat::{fstat, SFlag};
    fstat(1).is_ok_and(|s| SFlag::from_bits_truncate(s.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG)
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
        assert_eq!(
            prefixed(PrefixStyle::Claude, "/bin/p", "echo hi"),
            "/bin/p 'echo hi'"
        );
        assert_eq!(
            prefixed(PrefixStyle::Claude, "/opt/my tools/p --flag x", "ls"),
            "'/opt/my tools/p' --flag x ls"
        );
        assert_eq!(
            prefixed(PrefixStyle::CodeBuddy, "'/opt/p' -q", "eval 'it'\\''s'"),
            "'/opt/p' -q 'eval '\\''it'\\''\\'\\'''\\''s'\\'''"
        );
    }

    #[test]
    fn reads_the_command_out_of_a_codebuddy_line() {
        let line = r#". '/h/.codebuddy/shell-snapshots/snapshot-bash-1-x.sh' && if [ -n "${X:-}" ]; then eval 'no'; fi && eval 'echo '\''a b'\'' && ls'"#;
        let t = parse_codebuddy_line(line).unwrap();
        assert_eq!(t.command, "echo 'a b' && ls");
        assert_eq!(t.shell, Some("bash"));
        assert_eq!(parse_codebuddy_line("eval 'pwd'").unwrap().command, "pwd");
        assert_eq!(parse_codebuddy_line("/usr/local/bin/key-helper"), None);
        assert_eq!(parse_codebuddy_line("eval 'a'b'"), None);
    }
}
