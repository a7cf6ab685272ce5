//! Runs one hook command the way the hosts do, and never lets it hang the caller.
//!
//! - `sh -c <command>` (never a login shell) in a **new session** (`setsid`), so the hook
//!   and everything it starts share one process group that can be signalled as a whole;
//! - the payload is written to stdin from the same poll loop that drains stdout/stderr, and
//!   stdin is closed afterwards. A hook that never reads stdin only costs a broken pipe
//!   (EPIPE is expected, recorded, and harmless);
//! - stdout and stderr are captured up to a cap each; the rest is read and dropped so the
//!   hook never blocks on a full pipe;
//! - at the timeout the group gets SIGTERM, then SIGKILL after a short grace period;
//! - when the hook exits but a background child still holds the pipes open, the runner
//!   stops reading after a short drain window instead of waiting for the child.

use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

/// Limits of one run.
#[derive(Clone, Debug)]
pub struct RunLimits {
    pub timeout: Duration,
    /// Time between SIGTERM and SIGKILL.
    pub grace: Duration,
    /// Bytes kept of stdout and of stderr each.
    pub output_cap: usize,
    /// How long to keep reading after the hook exited while its pipes are still open.
    pub drain_after_exit: Duration,
}

impl Default for RunLimits {
    fn default() -> RunLimits {
        RunLimits {
            timeout: Duration::from_secs(60),
            grace: Duration::from_millis(500),
            output_cap: 1024 * 1024,
            drain_after_exit: Duration::from_millis(200),
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct CommandRequest {
    pub command: String,
    pub cwd: PathBuf,
    /// Extra environment variables (the parent environment is inherited).
    pub env: Vec<(String, String)>,
    pub stdin: Vec<u8>,
}

/// What happened.
#[derive(Clone, Debug, Default)]
pub struct RawRun {
    pub pid: u32,
    /// Exit code when the process exited normally.
    pub exit_code: Option<i32>,
    /// Terminating signal, when killed.
    pub signal: Option<i32>,
    pub timed_out: bool,
    /// SIGKILL was needed after the grace period.
    pub killed: bool,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Total bytes the hook wrote (may exceed what was kept).
    pub stdout_total: usize,
    pub stderr_total: usize,
    /// The hook closed stdin before reading all of the payload.
    pub stdin_closed_early: bool,
    /// The hook exited but something it started kept the output pipes open.
    pub pipes_held_open: bool,
    pub duration: Duration,
}

impl RawRun {
    pub fn stdout_truncated(&self) -> bool {
        self.stdout_total > self.stdout.len()
    }
    pub fn stderr_truncated(&self) -> bool {
        self.stderr_total > self.stderr.len()
    }
}

fn set_nonblocking(fd: &impl AsRawFd) -> std::io::Result<()> {
    let raw = fd.as_raw_fd();
    let flags = fcntl(raw, FcntlArg::F_GETFL).map_err(std::io::Error::from)?;
    let flags = OFlag::from_bits_truncate(flags) | OFlag::O_NONBLOCK;
    fcntl(raw, FcntlArg::F_SETFL(flags)).map_err(std::io::Error::from)?;
    Ok(())
}

struct Capture {
    buf: Vec<u8>,
    total: usize,
    cap: usize,
}

impl Capture {
    fn new(cap: usize) -> Capture {
        Capture {
            buf: Vec::new(),
            total: 0,
            cap,
        }
    }
    fn push(&mut self, data: &[u8]) {
        self.total += data.len();
        let room = self.cap.saturating_sub(self.buf.len());
        self.buf.extend_from_slice(&data[..data.len().min(room)]);
    }
}

/// Reads what is available; returns false at EOF or on error.
fn drain<R: Read>(r: &mut R, cap: &mut Capture) -> bool {
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match r.read(&mut chunk) {
            Ok(0) => return false,
            Ok(n) => cap.push(&chunk[..n]),
            Err(e) if e.kind() == ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => return false,
        }
    }
}

fn signal_group(pid: u32, sig: Signal) {
    // The hook is a session (and group) leader: its pgid is its pid. ESRCH = already gone.
    if let Ok(p) = i32::try_from(pid) {
        let _ = killpg(Pid::from_raw(p), sig);
    }
}

/// Starts `sh -c <command>` in its own session.
fn spawn(req: &CommandRequest) -> std::io::Result<Child> {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(&req.command)
        .current_dir(&req.cwd)
        .envs(req.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setsid is async-signal-safe and touches no memory of the parent; it is the
    // only thing run between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            nix::unistd::setsid()
                .map(|_| ())
                .map_err(std::io::Error::from)
        });
    }
    cmd.spawn()
}

/// Runs a hook command to completion (or to its timeout). Only a failure to start the
/// process is an error; everything else is recorded in [`RawRun`].
pub fn run_command(req: &CommandRequest, limits: &RunLimits) -> std::io::Result<RawRun> {
    let start = Instant::now();
    if !Path::new(&req.cwd).is_dir() {
        return Err(std::io::Error::new(
            ErrorKind::NotFound,
            format!("working directory {} does not exist", req.cwd.display()),
        ));
    }
    let mut child = spawn(req)?;
    let pid = child.id();
    let mut stdin: Option<ChildStdin> = child.stdin.take();
    let mut stdout: Option<ChildStdout> = child.stdout.take();
    let mut stderr: Option<ChildStderr> = child.stderr.take();
    for fd in [
        stdin.as_ref().map(|s| s.as_raw_fd()),
        stdout.as_ref().map(|s| s.as_raw_fd()),
        stderr.as_ref().map(|s| s.as_raw_fd()),
    ]
    .into_iter()
    .flatten()
    {
        let _ = set_nonblocking(&fd);
    }
    if req.stdin.is_empty() {
        stdin = None;
    }

    let mut out = Capture::new(limits.output_cap);
    let mut err = Capture::new(limits.output_cap);
    let mut written = 0usize;
    let mut run = RawRun {
        pid,
        ..RawRun::default()
    };
    let deadline = start + limits.timeout;
    let mut term_sent_at: Option<Instant> = None;
    let mut exit_at: Option<Instant> = None;
    let mut status = None;
    let mut idle_pause = Duration::from_micros(50);

    loop {
        if status.is_none() {
            if let Ok(Some(s)) = child.try_wait() {
                status = Some(s);
                exit_at = Some(Instant::now());
                // Nobody will read the rest of the payload.
                if stdin.take().is_some() && written < req.stdin.len() {
                    run.stdin_closed_early = true;
                }
            }
        }
        let now = Instant::now();
        if status.is_some() && stdout.is_none() && stderr.is_none() {
            break;
        }
        if let Some(at) = exit_at {
            if now >= at + limits.drain_after_exit {
                // The hook exited; a child it left behind holds the pipes. Stop reading.
                run.pipes_held_open = stdout.is_some() || stderr.is_some();
                break;
            }
        }
        // Timeout handling.
        if status.is_none() && now >= deadline && term_sent_at.is_none() {
            run.timed_out = true;
            signal_group(pid, Signal::SIGTERM);
            term_sent_at = Some(now);
        }
        if let Some(t) = term_sent_at {
            if now >= t + limits.grace {
                signal_group(pid, Signal::SIGKILL);
                run.killed = status.is_none();
                break;
            }
        }

        // Compute how long to wait.
        let mut wait_until = if term_sent_at.is_some() {
            term_sent_at.map(|t| t + limits.grace).unwrap_or(deadline)
        } else {
            deadline
        };
        if let Some(at) = exit_at {
            wait_until = wait_until.min(at + limits.drain_after_exit);
        }
        let mut wait = wait_until.saturating_duration_since(now);
        if status.is_none() {
            // Process exit is not pollable portably. While the pipes are open their EOF
            // wakes us; once both are closed the exit is imminent, so look again after a
            // short, growing pause (50 µs doubling to 2 ms) rather than a fixed sleep.
            let closed = stdout.is_none() && stderr.is_none();
            wait = wait.min(if closed {
                idle_pause
            } else {
                Duration::from_millis(20)
            });
        }
        if stdout.is_none() && stderr.is_none() && stdin.is_none() {
            std::thread::sleep(wait);
            idle_pause = (idle_pause * 2).min(Duration::from_millis(2));
            continue;
        }
        let timeout = PollTimeout::try_from(wait.as_millis().min(i32::MAX as u128) as i32)
            .unwrap_or(PollTimeout::ZERO);

        let mut fds: Vec<PollFd> = Vec::with_capacity(3);
        let mut which: Vec<u8> = Vec::with_capacity(3);
        if let Some(s) = stdout.as_ref() {
            fds.push(PollFd::new(s.as_fd(), PollFlags::POLLIN));
            which.push(1);
        }
        if let Some(s) = stderr.as_ref() {
            fds.push(PollFd::new(s.as_fd(), PollFlags::POLLIN));
            which.push(2);
        }
        if let Some(s) = stdin.as_ref() {
            fds.push(PollFd::new(s.as_fd(), PollFlags::POLLOUT));
            which.push(0);
        }
        let ready = match poll(&mut fds, timeout) {
            Ok(n) => n,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(std::io::Error::from(e)),
        };
        if ready == 0 {
            continue;
        }
        let revents: Vec<(u8, PollFlags)> = fds
            .iter()
            .zip(which.iter())
            .map(|(f, w)| (*w, f.revents().unwrap_or(PollFlags::empty())))
            .collect();
        drop(fds);
        for (w, ev) in revents {
            if ev.is_empty() {
                continue;
            }
            match w {
                1 => {
                    if let Some(s) = stdout.as_mut() {
                        if !drain(s, &mut out) {
                            stdout = None;
                        }
                    }
                }
                2 => {
                    if let Some(s) = stderr.as_mut() {
                        if !drain(s, &mut err) {
                            stderr = None;
                        }
                    }
                }
                _ => {
                    if let Some(s) = stdin.as_mut() {
                        if ev.intersects(PollFlags::POLLERR | PollFlags::POLLHUP) {
                            run.stdin_closed_early = written < req.stdin.len();
                            stdin = None;
                            continue;
                        }
                        match s.write(&req.stdin[written..]) {
                            Ok(n) => {
                                written += n;
                                if written >= req.stdin.len() {
                                    stdin = None; // close: the hook sees EOF
                                }
                            }
                            Err(e)
                                if e.kind() == ErrorKind::WouldBlock
                                    || e.kind() == ErrorKind::Interrupted => {}
                            Err(_) => {
                                // EPIPE: the hook does not read stdin. Harmless.
                                run.stdin_closed_early = true;
                                stdin = None;
                            }
                        }
                    }
                }
            }
        }
    }
    drop(stdin);
    drop(stdout);
    drop(stderr);
    let status = match status {
        Some(s) => s,
        None => child.wait()?,
    };
    if run.timed_out {
        // Make sure nothing of the group survives a timeout, even if the leader exited on
        // SIGTERM while a child ignored it.
        signal_group(pid, Signal::SIGKILL);
    }
    run.exit_code = status.code();
    run.signal = status.signal();
    run.stdout_total = out.total;
    run.stderr_total = err.total;
    run.stdout = out.buf;
    run.stderr = err.buf;
    run.duration = start.elapsed();
    Ok(run)
}

#[cfg(test)]
#[path = "command_runner_tests.rs"]
mod tests;
