//! `tokenjuice --codex-filter=<nonce> '<command>'` / `--droid-filter=<nonce>`: the reading end
//! of a host's BASH_ENV script.
//!
//! Codex runs every model command as `bash -c '<command>'` with the environment from
//! `shell_environment_policy`; tokenjuice sets `BASH_ENV` there to a script of ours. Bash
//! sources it before the command: the script starts this filter as a coprocess of that bash
//! (Codex's PATH, working directory, snapshot and sandbox) and sends the bash's output here;
//! bash runs the command, and an exit trap writes an exit marker carrying a per-run nonce
//! and the command's status, then waits for the filter to exit (zsh the same through
//! `ZDOTDIR`; some commands run in a second shell piped here: `tokenjuice_hosts::codex_env`).
//! Droid runs each command under a supervisor shell; the script (set through a SessionStart
//! hook) sends that shell's output here and writes the marker when it exits
//! (`tokenjuice_hosts::droid_env`). Permissions were decided by the host on the command as
//! the model wrote it, before bash started.
//!
//! The filter holds the output until the marker, then prints the reduction (only when it is
//! smaller and fits the host's cut, with no exit line: both hosts print the exit code). While the command
//! runs, held output is shown (folded, nothing cut: see `show_held`) once the command has printed nothing for [`IDLE`]
//! (a server that printed its address and waits, a build between two steps) or has been
//! held for [`MAX_HOLD`], or, for a Codex call given a shorter `yield_time_ms`, just before
//! that yield; what comes after is held again, and at the marker that last part
//! is reduced. So a model that polls a running command sees its output about a second after
//! it paused, and the final burst (test failures, the summary) still comes compacted. After
//! the marker it returns at once, and a detached copy of itself keeps passing through
//! whatever a background job the command left behind still writes, as Codex's pipe would
//! have taken it.
//!
//! Droid hands its command shell one file, opened for appending, for stdout and stderr, and
//! reads it while the command runs (its timeout kills the command's process group, this
//! filter with it, and shows the file as it is) and when the command ends. There the filter
//! writes the output into that file as it comes, as without tokenjuice, and at the marker
//! replaces the file's content with the reduction when that is smaller.

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use tokenjuice_core::budget;
use tokenjuice_core::compact::{compact_text, Finish, Request};

/// Held output is shown once the command has printed nothing for this long.
const IDLE: Duration = Duration::from_secs(1);
/// Held output is shown once it has been held this long, however busy the command. Codex's
/// `exec_command` hands the model what a running command printed by its `yield_time_ms`
/// (10 s unless the model sets it), and an empty `write_stdin` poll waits 5 s at least (its
/// source's `MIN_EMPTY_YIELD_TIME_MS`; the e2e suite runs the 10 s case):
/// under 5 s, a model that waits as Codex does by default sees a steadily printing build's
/// progress at every turn (held 30 s, it got `Output:` and nothing).
const MAX_HOLD: Duration = Duration::from_secs(4);
/// More than this is not held in memory: it streams through.
const MAX_HELD: usize = 64 << 20;
/// A Codex command still running this long looks up the call's own `yield_time_ms`
/// (`tokenjuice_hosts::codex_rollout`); a quicker one never reads the rollout.
const LOOK_AFTER: Duration = Duration::from_millis(100);

/// When held output must be shown for a Codex call that yields sooner than [`MAX_HOLD`]: a
/// little before the yield (a tenth of it, 100–500 ms), so what the command printed is in
/// Codex's hands when it returns.
fn before_yield(started: Instant, yield_ms: u64) -> Option<Instant> {
    let y = Duration::from_millis(yield_ms);
    if y >= MAX_HOLD + IDLE {
        return None;
    }
    let margin = (y / 10).clamp(Duration::from_millis(100), Duration::from_millis(500));
    Some(started + y.saturating_sub(margin))
}

/// The host and the nonce of `--<host>-filter=<nonce>` when argv starts with it.
pub fn requested(args: &[std::ffi::OsString]) -> Option<(&'static str, String)> {
    let first = args.get(1)?.to_str()?;
    ["codex", "droid"].into_iter().find_map(|host| {
        first
            .strip_prefix("--")?
            .strip_prefix(host)?
            .strip_prefix("-filter=")
            .map(|n| (host, n.to_string()))
    })
}

/// The host's cut: its row of the host table.
fn host_cut(host: &str) -> budget::HostCut {
    tokenjuice_hosts::registry::by_id(host)
        .map(|s| s.cut)
        .unwrap_or(budget::HostCut::NONE)
}

fn marker_prefix(nonce: &str) -> Vec<u8> {
    format!("\x1eTJEXIT:{nonce}:").into_bytes()
}

/// The longest exit status a marker carries (`-2147483648`), and its closing byte.
const MARKER_TAIL: usize = 12;

/// A whole marker in `buf`, searched for in its last `recent` bytes (and a marker's length
/// before them): where it starts, where it ends and the exit code. Not only at the end:
/// a background job of the command, or zsh's `xtrace` tracing the exit trap itself, may
/// write right after it, in the same read.
fn find_marker(buf: &[u8], prefix: &[u8], recent: usize) -> Option<(usize, usize, i32)> {
    let from = buf
        .len()
        .saturating_sub(recent + prefix.len() + MARKER_TAIL);
    let mut end = buf.len();
    while let Some(i) = buf[from..end]
        .windows(prefix.len())
        .rposition(|w| w == prefix)
    {
        let start = from + i;
        let digits = &buf[start + prefix.len()..];
        let closed = digits.iter().take(MARKER_TAIL).position(|&b| b == 0x1e);
        if let Some(n) = closed {
            if let Some(code) = std::str::from_utf8(&digits[..n])
                .ok()
                .and_then(|t| t.parse().ok())
            {
                return Some((start, start + prefix.len() + n + 1, code));
            }
        }
        end = start + prefix.len() - 1;
    }
    None
}

pub fn run(args: &[std::ffi::OsString]) -> i32 {
    let Some((host, nonce)) = requested(args) else {
        return 2;
    };
    let mirror = host == "droid" && stdout_appends_to_a_file();
    // mirror: everything written to the host's file so far
    let mut shown: Vec<u8> = Vec::new();
    let command = args
        .get(2)
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = marker_prefix(&nonce);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut held: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    // when the first byte now held came, and when the last one did
    let (mut held_since, mut last_input) = (Instant::now(), Instant::now());
    let started = Instant::now();
    // a Codex call's own yield, looked up once the command has run LOOK_AFTER; what is
    // held is shown once just before it
    let mut look_up_yield = host == "codex" && !mirror;
    let mut yield_due: Option<Instant> = None;
    // bytes the last read added (where a marker may be)
    let mut fresh = 0;
    loop {
        if held.len() > MAX_HELD || shown.len() > MAX_HELD {
            return stream_through(&held, &mut input, &prefix);
        }
        let now = Instant::now();
        if look_up_yield && now >= started + LOOK_AFTER {
            look_up_yield = false;
            let env = tokenjuice_hosts::env::Env::from_process();
            yield_due = tokenjuice_hosts::codex_rollout::call_yield_ms(&env)
                .and_then(|ms| before_yield(started, ms));
        }
        let yield_now = yield_due.is_some_and(|t| now >= t);
        if yield_now {
            yield_due = None;
        }
        if mirror && !held.is_empty() {
            let n = showable(&held, &prefix);
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(&held[..n]).and_then(|()| out.flush());
            shown.extend(held.drain(..n));
        } else if !held.is_empty()
            && (yield_now || now >= last_input + IDLE || now >= held_since + MAX_HOLD)
        {
            show_held(
                host,
                &command,
                &mut held,
                &prefix,
                &mut std::io::stdout().lock(),
            );
            // a kept-back tail waits as if it had just come
            (held_since, last_input) = (now, now);
        }
        let mut due = if held.is_empty() {
            now + Duration::from_secs(1)
        } else {
            (last_input + IDLE).min(held_since + MAX_HOLD)
        };
        if look_up_yield {
            due = due.min(started + LOOK_AFTER);
        }
        if let Some(t) = yield_due {
            due = due.min(t);
        }
        let wait = due.saturating_duration_since(now);
        let ms = u16::try_from(wait.as_millis().clamp(1, 1000)).unwrap_or(1000);
        let ready = {
            let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
            matches!(poll(&mut fds, PollTimeout::from(ms)), Ok(n) if n > 0)
        };
        if !ready {
            continue;
        }
        match input.read(&mut chunk) {
            Ok(0) => {
                // no marker: the command's shell went away (killed); give back what came
                let _ = std::io::stdout().write_all(&held);
                return 0;
            }
            Ok(n) => {
                if held.is_empty() {
                    held_since = Instant::now();
                }
                last_input = Instant::now();
                held.extend_from_slice(&chunk[..n]);
                fresh = n;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => {
                let _ = std::io::stdout().write_all(&held);
                return 0;
            }
        }
        if let Some((at, end, code)) = find_marker(&held, &prefix, fresh) {
            // what came after the marker was written once the shell had ended (a
            // background job): it follows the reduction, as it came
            let after = held.split_off(end);
            held.truncate(at);
            if mirror {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(&held).and_then(|()| out.flush());
                shown.append(&mut held);
                if let Some(text) = reduced(host, &command, &shown, code) {
                    replace_file(&mut out, &text);
                }
                let _ = out.write_all(&after).and_then(|()| out.flush());
            } else {
                print_reduced(host, &command, &held, code);
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(&after).and_then(|()| out.flush());
            }
            drain_detached(&mut input);
            return 0;
        }
    }
}

/// How much of the held output can be shown: all but a tail that may be the start of the
/// marker.
fn showable(held: &[u8], prefix: &[u8]) -> usize {
    let tail_from = held.len().saturating_sub(prefix.len() + 16);
    held[tail_from..]
        .iter()
        .position(|&b| b == 0x1e)
        .map_or(held.len(), |i| tail_from + i)
}

/// Shows the held output while the command runs, but for a tail that may be the start of
/// the marker (kept back, held on). Its whole lines are shown folded and without the noise
/// the rule names, nothing cut ([`folded`]), when that is smaller; the rest as it is.
fn show_held(host: &str, command: &str, held: &mut Vec<u8>, prefix: &[u8], out: &mut impl Write) {
    let keep_from = showable(held, prefix);
    let lines_end = held[..keep_from]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    match folded(host, command, &held[..lines_end]) {
        Some(text) => {
            // one write: a reader polling the pipe sees the folded part whole
            let mut shown = text.into_bytes();
            if shown.last() != Some(&b'\n') {
                shown.push(b'\n');
            }
            shown.extend_from_slice(&held[lines_end..keep_from]);
            let _ = out.write_all(&shown);
        }
        None => {
            let _ = out.write_all(&held[..keep_from]);
        }
    }
    let _ = out.flush();
    held.drain(..keep_from);
}

/// Part of a running command's output (whole lines), as the rule's line engine shows it with
/// nothing cut (`noOmit`: similar lines folded and counted, the rule's noise left out and
/// counted), when that is smaller. Its exit status is not known yet, so nothing that depends
/// on it is made: no summary, no structured reducer's text, no cut; those wait for the end.
fn folded(host: &str, command: &str, raw: &[u8]) -> Option<String> {
    if raw.is_empty() {
        return None;
    }
    let text = std::panic::catch_unwind(|| {
        let req = Request {
            no_omit: true,
            ..request(command)
        };
        let (_, result) = compact_for(host, &req, raw, 0);
        // (a `noOmit` text is marked passed through, folded or not)
        let summary = tokenjuice_core::host_view::is_summary(&result);
        (!summary && result.inline_text.len() < raw.len()).then_some(result.inline_text)
    });
    text.ok().flatten()
}

/// Droid's command file: a regular file opened for appending, as stdout.
fn stdout_appends_to_a_file() -> bool {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    use nix::sys::stat::{fstat, SFlag};
    let regular = fstat(1)
        .is_ok_and(|s| SFlag::from_bits_truncate(s.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG);
    regular
        && fcntl(1, FcntlArg::F_GETFL)
            .is_ok_and(|f| OFlag::from_bits_truncate(f).contains(OFlag::O_APPEND))
}

/// Empties the host's file and writes `text` in its place.
fn replace_file(out: &mut std::io::StdoutLock<'_>, text: &str) {
    let fd = std::io::stdout();
    if nix::unistd::ftruncate(fd.as_fd(), 0).is_err() {
        return;
    }
    let _ = nix::unistd::lseek(1, 0, nix::unistd::Whence::SeekSet);
    let _ = out.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
    let _ = out.flush();
}

fn print_reduced(host: &str, command: &str, raw: &[u8], code: i32) {
    let mut out = std::io::stdout().lock();
    match reduced(host, command, raw, code) {
        Some(t) => {
            let _ = out.write_all(t.as_bytes());
            if !t.ends_with('\n') {
                let _ = out.write_all(b"\n");
            }
        }
        None => {
            let _ = out.write_all(raw);
        }
    }
    let _ = out.flush();
}

/// A request for the host's command.
fn request(command: &str) -> Request<'_> {
    Request {
        tool_name: "exec",
        command: Some(command),
        ..Request::default()
    }
}

/// `raw` reduced for `host` (which prints the exit code itself) with the rules in force.
fn compact_for(
    host: &str,
    req: &Request<'_>,
    raw: &[u8],
    code: i32,
) -> (
    tokenjuice_core::compact::Plan,
    tokenjuice_core::result::CompactResult,
) {
    let rules = crate::rules_env::load_for_run();
    let fin = Finish {
        source: Some(host.into()),
        host_prints_exit: true,
        ..Finish::default()
    };
    compact_text(req, &rules.rules, raw, code, &fin)
}

/// The reduction for the host, when it is smaller than the raw output (fitted to the
/// host's cut); `None` keeps the raw output.
fn reduced(host: &str, command: &str, raw: &[u8], code: i32) -> Option<String> {
    if raw.is_empty() {
        // nothing printed, nothing to reduce (no rules loaded)
        return None;
    }
    let text = std::panic::catch_unwind(|| {
        let req = Request {
            host_shows_whole: tokenjuice_hosts::registry::by_id(host).and_then(|h| h.shows_whole()),
            ..request(command)
        };
        let (plan, result) = compact_for(host, &req, raw, code);
        if result.compaction.passed_through() {
            return None;
        }
        let how = "rerun it through `tokenjuice wrap --raw --` for all";
        let raw = String::from_utf8_lossy(raw);
        let cut = host_cut(host);
        // a line reduction of an output the host cuts: made of the lines the host shows
        match tokenjuice_core::host_view::for_host(&plan, &result, &raw, &cut, code, true, how) {
            Some(tokenjuice_core::host_view::ForHost::Text(t)) => return Some(t),
            Some(tokenjuice_core::host_view::ForHost::Raw) => return None,
            None => {}
        }
        budget::fit_to_host(
            &result.inline_text,
            &raw,
            usize::try_from(result.stats.raw_chars).unwrap_or(usize::MAX),
            result.stats.raw_tokens,
            &cut,
            code != 0,
            how,
        )
    });
    text.ok().flatten()
}

/// Too much to hold: what is held, then everything as it comes, the marker left out.
fn stream_through(held: &[u8], input: &mut impl Read, prefix: &[u8]) -> i32 {
    let mut out = std::io::stdout().lock();
    let mut pending: Vec<u8> = held.to_vec();
    let mut chunk = vec![0u8; 64 * 1024];
    // at most a marker's length is kept back, in case it is the marker's start
    let keep = prefix.len() + 16;
    let mut fresh = pending.len();
    loop {
        if let Some((at, end, _)) = find_marker(&pending, prefix, fresh) {
            let _ = out.write_all(&pending[..at]);
            let _ = out.write_all(&pending[end..]);
            let _ = out.flush();
            drop(out);
            drain_detached(input);
            return 0;
        }
        if pending.len() > keep {
            let cut = pending.len() - keep;
            if out.write_all(&pending[..cut]).is_err() {
                return 0;
            }
            let _ = out.flush();
            pending.drain(..cut);
        }
        match input.read(&mut chunk) {
            Ok(0) | Err(_) => {
                let _ = out.write_all(&pending);
                return 0;
            }
            Ok(n) => {
                pending.extend_from_slice(&chunk[..n]);
                fresh = n;
            }
        }
    }
}

/// Keep passing through what a background job of the command still writes, in a detached
/// process, so that the command's shell returns now (as without us) and the job is not
/// killed by a closed pipe.
fn drain_detached(input: &mut impl Read) {
    // SAFETY: the filter is single-threaded here; the child only reads, writes and exits.
    if let Ok(nix::unistd::ForkResult::Child) = unsafe { nix::unistd::fork() } {
        let _ = nix::unistd::setsid();
        // The copy holds only the input and the host's stdout and stderr: any other
        // descriptor the filter was given (the zsh route's "done" pipe, which its shell
        // waits on before it exits) closes with the filter, not with the background job.
        // SAFETY: close_range and close take plain integers; a kernel older than 5.9 has
        // no close_range (an error), and other systems no such call: then the usual range
        // is closed one by one.
        unsafe {
            #[cfg(target_os = "linux")]
            let closed = nix::libc::syscall(nix::libc::SYS_close_range, 3u32, u32::MAX, 0u32) == 0;
            #[cfg(not(target_os = "linux"))]
            let closed = false;
            if !closed {
                for fd in 3..1024 {
                    nix::libc::close(fd);
                }
            }
        }
        let mut chunk = vec![0u8; 16 * 1024];
        let mut out = std::io::stdout();
        while let Ok(n) = input.read(&mut chunk) {
            if n == 0
                || out
                    .write_all(&chunk[..n])
                    .and_then(|_| out.flush())
                    .is_err()
            {
                break;
            }
        }
        std::process::exit(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_output_keeps_back_what_may_be_the_start_of_the_marker() {
        let p = marker_prefix("42");
        let mut held = b"listening on 8080\n".to_vec();
        let mut out = Vec::new();
        show_held("codex", "server", &mut held, &p, &mut out);
        assert_eq!(out, b"listening on 8080\n");
        assert!(held.is_empty());
        // the marker's first bytes arrived: they stay held, the text before goes
        let mut held = b"done\n\x1eTJEXIT:4".to_vec();
        let mut out = Vec::new();
        show_held("codex", "server", &mut held, &p, &mut out);
        assert_eq!(out, b"done\n");
        assert_eq!(held, b"\x1eTJEXIT:4");
    }

    #[test]
    fn the_marker_is_found_whole_with_what_came_after_it() {
        let p = marker_prefix("42");
        let mut b = b"out\n".to_vec();
        b.extend_from_slice(&p);
        b.extend_from_slice(b"3\x1e");
        let all = b.len();
        assert_eq!(find_marker(&b, &p, all), Some((4, all, 3)));
        assert_eq!(find_marker(&b[..all - 1], &p, all), None);
        let other = marker_prefix("43");
        assert_eq!(find_marker(&b, &other, all), None);
        // a background job's line (or zsh tracing the trap) right after it, in one read
        b.extend_from_slice(b"tick 7\n");
        assert_eq!(find_marker(&b, &p, 11), Some((4, all, 3)));
        // the nonce quoted in a trace line before the real marker is no marker
        let mut t = b"+zsh:1> print -rn -- $'\\C-^TJEXIT:42:3\\C-^'\n".to_vec();
        let start = t.len();
        t.extend_from_slice(&b[4..]);
        assert_eq!(
            find_marker(&t, &p, t.len()),
            Some((start, start + all - 4, 3))
        );
        // a prefix with no status after it is passed over for an earlier whole marker
        let mut u = b[..all].to_vec();
        u.extend_from_slice(&p);
        u.extend_from_slice(b"x\n");
        assert_eq!(find_marker(&u, &p, u.len()), Some((4, all, 3)));
    }
}
