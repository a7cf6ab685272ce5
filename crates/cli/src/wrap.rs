//! `tokenjuice wrap -- <command> [args…]`: run a command, reduce its output as it
//! streams, print the reduction, exit with the command's exit code.
//!
//! - The command runs directly (no shell added), stdin inherited, stdout and stderr on
//!   one pipe so their interleaving is exact.
//! - Exit code: the child's; killed by signal N → 128+N; not found → 127; not
//!   executable → 126.
//! - SIGINT/SIGTERM/SIGHUP sent to wrap are forwarded to the child's process group;
//!   what was captured so far is still reduced and printed.
//! - Fail open: a panic or error inside tokenjuice prints the raw output, one warning
//!   line on stderr, and still exits with the child's code.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{killpg, SigSet, Signal};
use nix::unistd::Pid;

use tokenjuice_core::compact::{plan, Finish, Mode, Plan, Request};

use crate::capture::RawCapture;
use crate::rules_env;
use crate::run_store::{Ending, RunStore};
use crate::{Format, OutputOpts};

/// How long to keep reading after the child exited while a grandchild still holds the pipe.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(500);

pub struct WrapOpts {
    pub argv: Vec<String>,
    pub out: OutputOpts,
    pub raw: bool,
    pub no_omit: bool,
    pub classifier: Option<String>,
    pub source: Option<String>,
    /// Keep the raw output as an artifact (`--store`).
    pub store: bool,
    /// Do not record this run in the history (`--no-stats`).
    pub no_stats: bool,
}

pub fn run(opts: WrapOpts) -> i32 {
    // Plan first: a broken rule or a bug here must not stop the command from running.
    let planned = catch_unwind(AssertUnwindSafe(|| {
        crate::fault_injection("plan");
        let rules = if opts.raw {
            Default::default()
        } else {
            rules_env::load_for_run()
        };
        let req = Request {
            tool_name: "exec",
            command: None,
            argv: Some(&opts.argv),
            classifier: opts.classifier.as_deref(),
            raw: opts.raw,
            no_omit: opts.no_omit,
        };
        plan(&req, &rules.rules)
    }));
    let plan = match planned {
        Ok(p) => {
            for w in &p.warnings {
                eprintln!("tokenjuice: warning: {w}");
            }
            Some(p)
        }
        Err(e) => {
            eprintln!("tokenjuice: warning: internal error while planning ({}); output is passed through raw", panic_text(&e));
            None
        }
    };
    // Text output of a raw plan streams straight through: byte-identical, constant memory.
    let stream_raw =
        opts.out.format == Format::Text && plan.as_ref().is_none_or(|p| p.mode == Mode::Raw);

    let store = RunStore::begin(
        tokenjuice_store::RunKind::Wrap,
        opts.store,
        opts.no_stats,
        opts.source.as_deref(),
    );
    let child = match spawn(&opts.argv) {
        Ok(c) => c,
        Err(code) => {
            store.record(
                plan.as_ref(),
                Ending::Streamed {
                    raw_bytes: 0,
                    raw_tokens: 0,
                },
                Some(code),
            );
            return code;
        }
    };
    let mut state = RunState {
        capture: RawCapture::default(),
        broken: None,
        stream_raw,
        store,
    };
    // The session borrows the plan; both live in this scope.
    let mut session = plan.as_ref().map(Plan::session);
    let status = pump(child, &mut state, &mut session);

    let exit_code = match status.code() {
        Some(c) => c,
        None => 128 + status.signal().unwrap_or(0),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if state.stream_raw {
        let _ = out.flush();
        drop(out);
        let raw = session.as_ref().map(|s| s.raw_stats()).unwrap_or_default();
        let ending = Ending::Streamed {
            raw_bytes: raw.bytes,
            raw_tokens: raw.tokens,
        };
        state.store.record(plan.as_ref(), ending, Some(exit_code));
        return exit_code;
    }
    state.store.finish_artifact();
    state.store.note_capture_truncated(state.capture.truncated);
    let finished = match (session, state.broken.take()) {
        (Some(s), None) => {
            let fin = Finish {
                recover_hint: state.store.recover_hint(),
                capture_truncated: false,
                trace: opts.out.trace,
                source: opts.source.clone(),
            };
            catch_unwind(AssertUnwindSafe(move || {
                crate::fault_injection("finish");
                s.finish(exit_code, &fin)
            }))
            .map_err(|e| panic_text(&e))
        }
        (_, Some(msg)) => Err(msg),
        (None, None) => Err("no plan".into()),
    };
    let ending_result;
    let ending = match finished {
        Ok(mut result) => {
            state.store.attach(&mut result);
            let _ = crate::print_result(&mut out, &result, opts.out.format, exit_code);
            ending_result = result;
            Ending::Result(&ending_result)
        }
        Err(msg) => {
            eprintln!("tokenjuice: warning: internal error ({msg}); showing the raw output");
            if opts.out.format == Format::Json {
                let mut raw = Vec::new();
                let _ = state.capture.write_to(&mut raw);
                let v = serde_json::json!({
                    "result": { "inlineText": String::from_utf8_lossy(&raw), "compaction": {"authoritative": !state.capture.truncated, "kinds": ["fail-open"]} },
                    "exitCode": exit_code,
                });
                let _ = writeln!(out, "{v}");
            } else {
                let _ = state.capture.write_to(&mut out);
                if state.capture.truncated {
                    let _ = writeln!(out, "\n[tokenjuice: output past 264 MiB was not kept]");
                }
            }
            Ending::FailOpen {
                raw_bytes: state.capture.total,
            }
        }
    };
    let _ = out.flush();
    drop(out);
    state.store.record(plan.as_ref(), ending, Some(exit_code));
    exit_code
}

struct RunState {
    capture: RawCapture,
    broken: Option<String>,
    stream_raw: bool,
    store: RunStore,
}

struct Child {
    child: std::process::Child,
    read: File,
    own_group: bool,
    signalled: Arc<AtomicBool>,
}

/// Start the child on one pipe for stdout+stderr, in its own process group, with
/// termination signals forwarded to that group.
fn spawn(argv: &[String]) -> Result<Child, i32> {
    let (r, w) = match pipe_cloexec() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("tokenjuice: cannot create a pipe: {e}");
            return Err(126);
        }
    };
    let w2 = match w.try_clone() {
        Ok(w2) => w2,
        Err(e) => {
            eprintln!("tokenjuice: cannot duplicate a pipe: {e}");
            return Err(126);
        }
    };
    // In an interactive terminal the child stays in our process group so it can use the
    // terminal; otherwise it gets its own group so signals reach its whole tree.
    let interactive = is_foreground_tty();
    let mask = termination_signals();
    let _ = mask.thread_block();

    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .stdin(Stdio::inherit())
        .stdout(Stdio::from(w))
        .stderr(Stdio::from(w2));
    if !interactive {
        cmd.process_group(0);
    }
    let parent = std::process::id() as i32;
    // SAFETY: only async-signal-safe calls (sigprocmask, prctl, getppid) run between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            // We block termination signals to forward them; the command must not inherit that.
            let _ = nix::sys::signal::sigprocmask(
                nix::sys::signal::SigmaskHow::SIG_SETMASK,
                Some(&SigSet::empty()),
                None,
            );
            #[cfg(target_os = "linux")]
            {
                // If tokenjuice dies (even by SIGKILL), the command gets SIGTERM.
                let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGTERM);
                if nix::unistd::getppid().as_raw() != parent {
                    return Err(std::io::Error::other(
                        "tokenjuice exited before the command started",
                    ));
                }
            }
            let _ = parent;
            Ok(())
        });
    }
    let spawned = cmd.spawn();
    drop(cmd); // closes our copies of the pipe's write end
    let child = match spawned {
        Ok(c) => c,
        Err(e) => {
            let _ = mask.thread_unblock();
            let name = &argv[0];
            return Err(match e.kind() {
                std::io::ErrorKind::NotFound => {
                    eprintln!("tokenjuice: {name}: command not found");
                    127
                }
                std::io::ErrorKind::PermissionDenied => {
                    eprintln!("tokenjuice: {name}: permission denied (not executable)");
                    126
                }
                _ => {
                    eprintln!("tokenjuice: {name}: cannot run: {e}");
                    126
                }
            });
        }
    };
    let pid = child.id() as i32;
    let signalled = Arc::new(AtomicBool::new(false));
    let target = Arc::new(AtomicI32::new(pid));
    {
        let signalled = signalled.clone();
        let target = target.clone();
        std::thread::spawn(move || loop {
            let Ok(sig) = mask.wait() else { return };
            signalled.store(true, Ordering::SeqCst);
            let pid = target.load(Ordering::SeqCst);
            if interactive {
                // the terminal already delivers SIGINT to the whole foreground group
                if sig != Signal::SIGINT {
                    let _ = nix::sys::signal::kill(Pid::from_raw(pid), sig);
                }
            } else {
                let _ = killpg(Pid::from_raw(pid), sig);
            }
        });
    }
    Ok(Child {
        child,
        read: File::from(r),
        own_group: !interactive,
        signalled,
    })
}

fn termination_signals() -> SigSet {
    let mut s = SigSet::empty();
    s.add(Signal::SIGINT);
    s.add(Signal::SIGTERM);
    s.add(Signal::SIGHUP);
    s
}

fn is_foreground_tty() -> bool {
    let stdin = std::io::stdin();
    let fd = stdin.as_fd();
    match nix::unistd::tcgetpgrp(fd) {
        Ok(fg) => fg == nix::unistd::getpgrp(),
        Err(_) => false,
    }
}

fn pipe_cloexec() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let (r, w) = nix::unistd::pipe().map_err(std::io::Error::from)?;
    for fd in [&r, &w] {
        nix::fcntl::fcntl(
            fd.as_raw_fd(),
            nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
        )
        .map_err(std::io::Error::from)?;
    }
    Ok((r, w))
}

/// Read until EOF (or shortly after the child exits), feeding the session and capture.
fn pump(
    mut child: Child,
    state: &mut RunState,
    session: &mut Option<tokenjuice_core::compact::Session<'_>>,
) -> ExitStatus {
    let mut buf = vec![0u8; 64 * 1024];
    let mut status: Option<ExitStatus> = None;
    let mut deadline: Option<Instant> = None;
    let stdout = std::io::stdout();
    loop {
        let timeout = match deadline {
            Some(d) => d.saturating_duration_since(Instant::now()),
            None => Duration::from_millis(100),
        };
        let ms = u16::try_from(timeout.as_millis()).unwrap_or(u16::MAX);
        let ready = {
            let mut fds = [PollFd::new(child.read.as_fd(), PollFlags::POLLIN)];
            poll(&mut fds, PollTimeout::from(ms)).unwrap_or(0) > 0
        };
        if ready {
            match child.read.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => feed(&buf[..n], state, session, &stdout),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        if status.is_none() {
            if let Ok(Some(s)) = child.child.try_wait() {
                status = Some(s);
                deadline = Some(Instant::now() + DRAIN_AFTER_EXIT);
            }
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
    }
    let status = match status {
        Some(s) => s,
        None => child
            .child
            .wait()
            .unwrap_or_else(|_| ExitStatus::from_raw(1 << 8)),
    };
    // After a forwarded termination signal, nothing of the command may be left running.
    if child.signalled.load(Ordering::SeqCst) && child.own_group {
        let _ = killpg(Pid::from_raw(child.child.id() as i32), Signal::SIGKILL);
    }
    status
}

fn feed(
    chunk: &[u8],
    state: &mut RunState,
    session: &mut Option<tokenjuice_core::compact::Session<'_>>,
    stdout: &std::io::Stdout,
) {
    state.store.push(chunk);
    if state.stream_raw {
        let mut out = stdout.lock();
        let _ = out.write_all(chunk);
        if let Some(s) = session.as_mut() {
            s.push(chunk);
        }
        return;
    }
    state.capture.push(chunk);
    if state.broken.is_some() {
        return;
    }
    if let Some(s) = session.as_mut() {
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| {
            crate::fault_injection("push");
            s.push(chunk)
        })) {
            state.broken = Some(panic_text(&e));
        }
    }
}

pub fn panic_text(e: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = e.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".into()
    }
}
