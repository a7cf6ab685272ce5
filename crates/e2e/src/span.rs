//! Timing the shell an agent starts for a command, inside the real agent.
//!
//! An agent's own time per command moves by more than the 5 ms budget from one call to the
//! next (Codex: ±20 ms), so a difference of a few milliseconds between a session with
//! tokenjuice and one without drowns in it. What tokenjuice adds to a shell route happens
//! entirely inside the shell process the agent starts (a start-up script of ours, one more
//! shell, the filter), so the span of that process measures it without the agent's noise.
//!
//! The `tj-e2e` binary, started under the name of a shell (`zsh`, `bash`, `sh`: a symbolic
//! link named so, which the test names as the user's login shell), is that timer: it starts
//! the real shell of that name with the same arguments (and the real shell's path as its
//! `argv[0]`, so a shell that starts "itself" again starts the real one), waits for it,
//! appends `<microseconds>\t<arguments>` to `span.log` beside the link (one line: the
//! arguments apart by U+001F, a line break in them as U+001E), and exits with the shell's
//! status. It runs the same way with and without tokenjuice, so its own cost cancels
//! out of the difference.

use std::io::Write;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

/// The shells the timer stands in for.
pub const SHELLS: [&str; 3] = ["zsh", "bash", "sh"];

/// The log the timer started as `argv0` writes to.
pub fn log_path(argv0: &Path) -> PathBuf {
    argv0
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("span.log")
}

/// Which real shell the timer started as `argv0` stands in for, if any.
pub fn shell_name(argv0: &str) -> Option<&'static str> {
    let name = Path::new(argv0).file_name()?.to_str()?;
    SHELLS.into_iter().find(|s| *s == name)
}

fn real_shell(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// Runs the real shell `name` with `args`, times it, logs the span; the shell's status.
pub fn run(argv0: &str, name: &str, args: &[String]) -> ExitCode {
    let Some(real) = real_shell(name) else {
        eprintln!("tj-e2e: no {name} in /usr/bin or /bin to time");
        return ExitCode::from(127);
    };
    let start = Instant::now();
    let status = Command::new(&real).arg0(&real).args(args).status();
    let micros = start.elapsed().as_micros();
    // one line per shell: the arguments' own line breaks (a wrapper script) become U+001E
    let line = format!(
        "{micros}\t{}\n",
        args.join("\u{1f}").replace('\n', "\u{1e}")
    );
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log_path(Path::new(argv0)))
    {
        let _ = f.write_all(line.as_bytes());
    }
    match status {
        Ok(s) => match (s.code(), s.signal()) {
            (Some(c), _) => ExitCode::from(c as u8),
            (None, Some(sig)) => ExitCode::from((128 + sig) as u8),
            (None, None) => ExitCode::from(1),
        },
        Err(e) => {
            eprintln!("tj-e2e: {}: {e}", real.display());
            ExitCode::from(126)
        }
    }
}

/// From a span log, the spans of the outermost and the innermost shell that ran `command`
/// (the longest and the shortest of the lines naming it: a wrapper shell that `exec`s the
/// command's shell as the timer again logs both), in microseconds. `command` must appear as
/// a whole (`true 1` is not `true 10`).
pub fn spans_of(log: &str, command: &str) -> Option<(u64, u64)> {
    let spans: Vec<u64> = log
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter(|(_, args)| names_whole(args, command))
        .filter_map(|(us, _)| us.parse::<u64>().ok())
        .collect();
    Some((*spans.iter().max()?, *spans.iter().min()?))
}

fn names_whole(text: &str, command: &str) -> bool {
    text.match_indices(command).any(|(i, _)| {
        let after = text[i + command.len()..].chars().next();
        let before = text[..i].chars().next_back();
        !after.is_some_and(|c| c.is_ascii_alphanumeric())
            && !before.is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outermost_and_innermost_spans_of_a_whole_command_are_read() {
        let log = "900\t-lc\u{1f}. snapshot\u{1e}exec zsh -c 'true 1'\n\
                   700\t-c\u{1f}true 1\n\
                   5000\t-c\u{1f}true 10\n\
                   nonsense\n";
        assert_eq!(spans_of(log, "true 1"), Some((900, 700)));
        assert_eq!(spans_of(log, "true 10"), Some((5000, 5000)));
        assert_eq!(spans_of(log, "true 2"), None);
    }

    #[test]
    fn only_shell_names_start_the_timer() {
        assert_eq!(shell_name("/tmp/x/span/zsh"), Some("zsh"));
        assert_eq!(shell_name("bash"), Some("bash"));
        assert_eq!(shell_name("/usr/bin/tj-e2e"), None);
        assert_eq!(shell_name("/tmp/zsh/tj-e2e"), None);
    }

    #[test]
    fn the_timer_runs_the_real_shell_logs_and_keeps_its_status() {
        let dir = std::env::temp_dir().join(format!("tj-span-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let argv0 = dir.join("sh").display().to_string();
        let code = run(&argv0, "sh", &["-c".into(), ":\nexit 3".into()]);
        assert_eq!(format!("{code:?}"), format!("{:?}", ExitCode::from(3)));
        let log = std::fs::read_to_string(log_path(Path::new(&argv0))).unwrap();
        assert_eq!(log.lines().count(), 1, "one line per shell: {log}");
        assert!(
            spans_of(&log, "exit 3").is_some_and(|(us, _)| us > 0),
            "{log}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
