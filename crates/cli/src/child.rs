//! Running the wrapped command.
//!
//! - stdout and stderr of the command share one pipe, so their interleaving is exact;
//!   stdin is inherited.
//! - The command gets its own process group (unless it must share the terminal with us),
//!   so a forwarded signal reaches everything it started.
//! - SIGINT/SIGTERM/SIGHUP sent to tokenjuice are caught by a handler that writes the
//!   signal number to a self-pipe; the read loop polls that pipe beside the output pipe
//!   and forwards the signal to the command's group (one we were started with ignored
//!   stays ignored, as a shell leaves it). No thread and no blocked signal mask are
//!   needed, so the command starts with `posix_spawn`, with the signal dispositions we
//!   were given: what we ignore it ignores, everything else (SIGPIPE, and glibc's two
//!   internal signals, which its posix_spawn would leave ignored) at its default.
//! - After the command exits, output still arriving from a background grandchild that
//!   holds the pipe is read for a short while, then left: `wrap` never hangs on it.
//!
//! - SIGKILL cannot be caught: when the command has its own group, a watcher process (forked
//!   right after the start, in a group of its own so an agent's kill of our group does not
//!   reach it) waits on a pipe only tokenjuice holds. If tokenjuice dies before the command
//!   ended (killed, or its whole group killed on an agent's timeout), the pipe closes without
//!   the "done" byte and the watcher kills the command's group, as the kill would have
//!   without us. After a normal end it just exits, leaving background jobs the command
//!   started alone, as a shell does.

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use nix::fcntl::{fcntl, FcntlArg, FdFlag, OFlag};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{killpg, sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
use nix::unistd::Pid;

/// How long to keep reading after the command exited while a grandchild holds the pipe.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(500);

/// Write end of the signal self-pipe (-1 when not installed).
static SIGNAL_PIPE: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_signal(sig: nix::libc::c_int) {
    let fd = SIGNAL_PIPE.load(Ordering::Relaxed);
    if fd >= 0 {
        // SAFETY: the fd stays open for the life of the process; write(2) is async-signal-safe.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        let _ = nix::unistd::write(fd, &[sig as u8]);
    }
}

/// A running command.
pub struct Child {
    child: Proc,
    output: File,
    /// stderr on its own pipe, when the caller asked to keep the two apart.
    errput: Option<File>,
    signals: File,
    own_group: bool,
    signalled: bool,
    watcher: Option<Watcher>,
}

/// The write end of the watcher's pipe (see the module notes).
struct Watcher {
    pipe: OwnedFd,
}

impl Watcher {
    /// Starts the watcher, before the command starts (so no moment of the command's life is
    /// unwatched); [`Watcher::watch`] then tells it the command's group. `None` when it
    /// cannot (the command runs unwatched, as before).
    fn start() -> Option<Watcher> {
        let (r, w) = pipe_with(OFlag::empty()).ok()?;
        let child = watcher::start(r.as_raw_fd())?;
        // the watcher leaves our group before an agent's kill of it can reach it
        // (it does so itself too; whichever runs first)
        let _ = nix::unistd::setpgid(child, child);
        drop(r);
        Some(Watcher { pipe: w })
    }

    /// The command runs in group `pgid`.
    fn watch(&self, pgid: i32) {
        let _ = nix::unistd::write(&self.pipe, &pgid.to_le_bytes());
    }

    /// The command ended: the watcher leaves its group alone and exits.
    fn done(self) {
        let _ = nix::unistd::write(&self.pipe, b"d");
    }
}

/// The watcher process itself. On Linux (x86-64, arm64) it is a clone that shares our
/// memory instead of a fork: a fork copies the page tables of this 8 MB process and makes
/// every page we write afterwards fault once more, which measured 0.13 ms of a
/// `wrap -- true` (306 against 279 page faults) and 0.6 ms beside a `git status`. Sharing
/// our memory, the watcher must never touch anything but its own stack: it makes system
/// calls directly (no libc wrapper, which would write our thread's errno), cannot panic
/// (no index can fail in `body`) and starts with every signal blocked (so none of our
/// handlers can run in it). Elsewhere it is forked and calls libc. (valgrind does not run
/// such a clone: profile `wrap` there through `reduce`, or with a terminal on stdin.)
mod watcher {
    use nix::libc;
    use nix::unistd::Pid;

    /// Starts a watcher reading `keep` (a pipe's read end); returns its pid.
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    pub fn start(keep: i32) -> Option<Pid> {
        const STACK: usize = 64 * 1024;
        extern "C" fn entry(arg: *mut libc::c_void) -> libc::c_int {
            // SAFETY: only raw system calls on the watcher's own stack (see the module notes)
            unsafe { body(arg as usize as i32) };
            0
        }
        // SAFETY: the mapping is never unmapped (the watcher may outlive our exit, and keeps
        // the memory alive by itself then); the signal mask is restored right after the clone,
        // which copies it; `entry` touches nothing of ours (see the module notes).
        unsafe {
            let stack = libc::mmap(
                std::ptr::null_mut(),
                STACK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            );
            if stack == libc::MAP_FAILED {
                return None;
            }
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
            let pid = libc::clone(
                entry,
                stack.cast::<u8>().add(STACK).cast(),
                libc::CLONE_VM | libc::SIGCHLD,
                keep as usize as *mut libc::c_void,
            );
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            (pid > 0).then(|| Pid::from_raw(pid))
        }
    }

    #[cfg(not(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )))]
    pub fn start(keep: i32) -> Option<Pid> {
        // SAFETY: the child branch calls only async-signal-safe functions and never
        // returns into Rust code.
        match unsafe { nix::unistd::fork() } {
            Ok(nix::unistd::ForkResult::Child) => unsafe {
                body(keep);
                libc::_exit(0)
            },
            Ok(nix::unistd::ForkResult::Parent { child }) => Some(child),
            Err(_) => None,
        }
    }

    /// The watcher: its own group, every descriptor but `keep` closed, then the command's
    /// group (4 bytes) and "done" (1 byte) read from `keep`; the group is killed when the
    /// pipe ends between the two.
    unsafe fn body(keep: i32) {
        sys::setpgid();
        for fd in 0..3 {
            sys::close(fd);
        }
        // every other descriptor goes, the write end of our own pipe above all
        let below = keep == 3 || sys::close_range(3, keep as u32 - 1);
        if !below || !sys::close_range(keep as u32 + 1, u32::MAX) {
            for fd in 3..4096 {
                if fd != keep {
                    sys::close(fd);
                }
            }
        }
        let mut buf = [0u8; 5];
        let mut got = 0usize;
        while got < buf.len() {
            match sys::read(keep, &mut buf[got..]) {
                Some(0) | None => break,
                Some(n) => got += n,
            }
        }
        let pgid = i32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]);
        if got == 4 && pgid > 1 {
            sys::kill_group(pgid);
        }
    }

    /// System calls made directly (the clone shares our errno: no libc wrapper may run).
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    mod sys {
        use nix::libc;

        #[cfg(target_arch = "x86_64")]
        unsafe fn call(n: libc::c_long, a: usize, b: usize, c: usize) -> isize {
            let ret: isize;
            std::arch::asm!("syscall", inlateout("rax") n as isize => ret, in("rdi") a, in("rsi") b,
                in("rdx") c, lateout("rcx") _, lateout("r11") _, options(nostack));
            ret
        }

        #[cfg(target_arch = "aarch64")]
        unsafe fn call(n: libc::c_long, a: usize, b: usize, c: usize) -> isize {
            let ret: isize;
            std::arch::asm!("svc 0", in("x8") n, inlateout("x0") a as isize => ret, in("x1") b,
                in("x2") c, options(nostack));
            ret
        }

        pub unsafe fn setpgid() {
            call(libc::SYS_setpgid, 0, 0, 0);
        }
        pub unsafe fn close(fd: i32) {
            call(libc::SYS_close, fd as usize, 0, 0);
        }
        pub unsafe fn close_range(first: u32, last: u32) -> bool {
            call(libc::SYS_close_range, first as usize, last as usize, 0) == 0
        }
        /// Bytes read, `Some(0)` at the end of the pipe, `None` on an error.
        pub unsafe fn read(fd: i32, buf: &mut [u8]) -> Option<usize> {
            loop {
                let n = call(
                    libc::SYS_read,
                    fd as usize,
                    buf.as_mut_ptr() as usize,
                    buf.len(),
                );
                if n == -(libc::EINTR as isize) {
                    continue;
                }
                return usize::try_from(n).ok();
            }
        }
        pub unsafe fn kill_group(pgid: i32) {
            call(
                libc::SYS_kill,
                (-pgid) as isize as usize,
                libc::SIGKILL as usize,
                0,
            );
        }
    }

    /// The forked watcher has its own memory: libc is fine.
    #[cfg(not(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )))]
    mod sys {
        use nix::libc;

        pub unsafe fn setpgid() {
            libc::setpgid(0, 0);
        }
        pub unsafe fn close(fd: i32) {
            libc::close(fd);
        }
        pub unsafe fn close_range(first: u32, last: u32) -> bool {
            #[cfg(target_os = "linux")]
            return libc::syscall(libc::SYS_close_range, first, last, 0) == 0;
            #[cfg(not(target_os = "linux"))]
            return first > last;
        }
        pub unsafe fn read(fd: i32, buf: &mut [u8]) -> Option<usize> {
            loop {
                let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
                if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return usize::try_from(n).ok();
            }
        }
        pub unsafe fn kill_group(pgid: i32) {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

fn pipe_with(flags: OFlag) -> std::io::Result<(OwnedFd, OwnedFd)> {
    let (r, w) = nix::unistd::pipe().map_err(std::io::Error::from)?;
    for fd in [&r, &w] {
        fcntl(fd.as_raw_fd(), FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC))
            .map_err(std::io::Error::from)?;
        if !flags.is_empty() {
            fcntl(fd.as_raw_fd(), FcntlArg::F_SETFL(flags)).map_err(std::io::Error::from)?;
        }
    }
    Ok((r, w))
}

/// First size of [`Child::pump`]'s read buffer, and the sizes it grows to.
const SMALL_READ: usize = 4 * 1024;
/// A pipe's default capacity.
const FULL_READ: usize = 64 * 1024;
/// The capacity a pipe is given once a command has filled its default one. (1 MiB, the
/// most an unprivileged process may set, took a 100 MB output through `wrap` from 338 to
/// 285 ms; this, 392 to 347 ms on a busier minute: about as much, for 0.75 MB less of the
/// 16 MB memory budget, which a reduced 1 GB output comes within 1 MB of.)
const BIG_READ: usize = 256 * 1024;

/// Grows the read buffer once a read of `n` bytes from `pipe` filled it: to [`FULL_READ`];
/// then (a command writing faster than it is read) the pipe and the buffer to [`BIG_READ`]:
/// fewer, larger reads and fewer switches between the command and us. A pipe that cannot
/// grow (the user's pipes already hold their quota) keeps the buffer at the pipe's size.
fn grow_when_full(buf: &mut Vec<u8>, n: usize, pipe: &impl AsRawFd) {
    if n < buf.len() {
        return;
    }
    if buf.len() < FULL_READ {
        buf.resize(FULL_READ, 0);
    } else if buf.len() < BIG_READ {
        let big = i32::try_from(BIG_READ).unwrap_or(i32::MAX);
        if let Ok(got) = fcntl(pipe.as_raw_fd(), FcntlArg::F_SETPIPE_SZ(big)) {
            buf.resize(
                usize::try_from(got)
                    .unwrap_or(FULL_READ)
                    .clamp(FULL_READ, BIG_READ),
                0,
            );
        }
    }
}

/// Catch the termination signals into a self-pipe; returns its read end.
fn install_signal_pipe() -> std::io::Result<File> {
    let (r, w) = pipe_with(OFlag::O_NONBLOCK)?;
    // The write end lives as long as the process: it is used from the signal handler.
    let w = std::mem::ManuallyDrop::new(w);
    SIGNAL_PIPE.store(w.as_raw_fd(), Ordering::SeqCst);
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    for sig in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        // a signal we were started with ignored (nohup, a background job) stays ignored, for
        // us and for the command, as a shell leaves it
        if ignored(sig as i32) {
            continue;
        }
        // SAFETY: the handler only loads an atomic and calls write(2).
        unsafe { sigaction(sig, &action) }.map_err(std::io::Error::from)?;
    }
    Ok(File::from(r))
}

/// Whether signal `sig` is ignored in this process. Asked of the kernel: glibc's
/// sigaction refuses to say for its internal signals (32, 33), which we may have been
/// started with ignored.
#[cfg(target_os = "linux")]
fn ignored(sig: i32) -> bool {
    // the kernel's struct sigaction starts with the handler on every Linux architecture;
    // the buffer is larger than any layout of it
    let mut old = [0usize; 8];
    // SAFETY: a query (no new action) into a buffer the kernel's struct fits in; the last
    // argument is the kernel's signal set size (8 bytes).
    let r = unsafe {
        nix::libc::syscall(
            nix::libc::SYS_rt_sigaction,
            sig,
            std::ptr::null::<usize>(),
            old.as_mut_ptr(),
            8usize,
        )
    };
    r == 0 && old[0] == nix::libc::SIG_IGN
}

#[cfg(not(target_os = "linux"))]
fn ignored(sig: i32) -> bool {
    let mut old: nix::libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: a query (no new action), into a zeroed struct of the right type.
    let ok = unsafe { nix::libc::sigaction(sig, std::ptr::null(), &mut old) } == 0;
    ok && old.sa_sigaction == nix::libc::SIG_IGN
}

/// Adds `sig` to `set`. glibc's sigaddset refuses its internal signals (32, 33), which
/// posix_spawn's default set must name to start them at their default action: there the
/// bit is set directly (glibc's sigset_t is a bit array, signal n at bit n - 1).
fn add_signal(set: &mut nix::libc::sigset_t, sig: i32) {
    // SAFETY: a valid, initialized set
    if unsafe { nix::libc::sigaddset(set, sig) } == 0 {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const BITS: usize = 8 * std::mem::size_of::<std::ffi::c_ulong>();
        let words =
            std::mem::size_of::<nix::libc::sigset_t>() / std::mem::size_of::<std::ffi::c_ulong>();
        let bit = (sig - 1) as usize;
        if bit / BITS < words {
            // SAFETY: glibc's sigset_t is `unsigned long __val[N]`; the index is in bounds
            unsafe {
                let words = (set as *mut nix::libc::sigset_t).cast::<std::ffi::c_ulong>();
                *words.add(bit / BITS) |= 1 << (bit % BITS);
            }
        }
    }
}

/// A command started by [`start`].
struct Proc {
    pid: i32,
}

impl Proc {
    fn id(&self) -> u32 {
        self.pid as u32
    }

    fn wait_with(&self, flags: i32) -> std::io::Result<Option<ExitStatus>> {
        let mut status = 0;
        loop {
            // SAFETY: waits for our own child, into a local.
            let r = unsafe { nix::libc::waitpid(self.pid, &mut status, flags) };
            if r == self.pid {
                return Ok(Some(ExitStatus::from_raw(status)));
            }
            if r == 0 {
                return Ok(None);
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }

    fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        self.wait_with(nix::libc::WNOHANG)
    }

    fn wait(&mut self) -> std::io::Result<ExitStatus> {
        self.wait_with(0)?
            .ok_or_else(|| std::io::Error::other("no status"))
    }
}

/// Starts `argv` (found on PATH) with posix_spawn(3), its stdout and stderr on `out` and
/// `err`, in its own process group when `own_group`, with no signal blocked. Every signal we
/// do not ignore starts at its default action (SIGPIPE too, which the Rust runtime ignores):
/// glibc's posix_spawn would otherwise start the command with its two internal signals (32,
/// 33) ignored, which a shell the host starts itself does not have (seen in the real
/// CodeBuddy: `SigIgn` of the command differed).
fn start(argv: &[String], out: i32, err: i32, own_group: bool) -> std::io::Result<Proc> {
    use nix::libc;
    use std::ffi::CString;
    let cstrings: Vec<CString> = argv
        .iter()
        .map(|a| CString::new(a.as_bytes()))
        .collect::<Result<_, _>>()
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    let mut ptrs: Vec<*mut libc::c_char> = cstrings.iter().map(|c| c.as_ptr() as *mut _).collect();
    ptrs.push(std::ptr::null_mut());
    extern "C" {
        static environ: *const *mut libc::c_char;
    }
    let check = |r: libc::c_int| {
        if r == 0 {
            Ok(())
        } else {
            Err(std::io::Error::from_raw_os_error(r))
        }
    };
    // SAFETY: plain libc calls on zero-initialized attribute structs that are destroyed
    // below; every pointer outlives the call.
    unsafe {
        let mut actions: libc::posix_spawn_file_actions_t = std::mem::zeroed();
        let mut attr: libc::posix_spawnattr_t = std::mem::zeroed();
        check(libc::posix_spawn_file_actions_init(&mut actions))?;
        if let Err(e) = check(libc::posix_spawnattr_init(&mut attr)) {
            libc::posix_spawn_file_actions_destroy(&mut actions);
            return Err(e);
        }
        let result = (|| {
            check(libc::posix_spawn_file_actions_adddup2(&mut actions, out, 1))?;
            check(libc::posix_spawn_file_actions_adddup2(&mut actions, err, 2))?;
            let mut flags = libc::POSIX_SPAWN_SETSIGMASK | libc::POSIX_SPAWN_SETSIGDEF;
            if own_group {
                flags |= libc::POSIX_SPAWN_SETPGROUP;
                check(libc::posix_spawnattr_setpgroup(&mut attr, 0))?;
            }
            check(libc::posix_spawnattr_setflags(
                &mut attr,
                flags as libc::c_short,
            ))?;
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            check(libc::posix_spawnattr_setsigmask(&mut attr, &none))?;
            let mut default: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut default);
            for sig in 1..=libc::SIGRTMAX() {
                if sig == libc::SIGKILL || sig == libc::SIGSTOP {
                    continue;
                }
                if sig == libc::SIGPIPE || !ignored(sig) {
                    add_signal(&mut default, sig);
                }
            }
            check(libc::posix_spawnattr_setsigdefault(&mut attr, &default))?;
            let mut pid: libc::pid_t = 0;
            check(libc::posix_spawnp(
                &mut pid,
                ptrs[0],
                &actions,
                &attr,
                ptrs.as_ptr(),
                environ,
            ))?;
            Ok(Proc { pid })
        })();
        libc::posix_spawnattr_destroy(&mut attr);
        libc::posix_spawn_file_actions_destroy(&mut actions);
        result
    }
}

fn is_foreground_tty() -> bool {
    let stdin = std::io::stdin();
    match nix::unistd::tcgetpgrp(stdin.as_fd()) {
        Ok(fg) => fg == nix::unistd::getpgrp(),
        Err(_) => false,
    }
}

/// Which process group the command runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Its own group (unless it must share the terminal), so forwarded signals reach
    /// everything it starts.
    Own,
    /// Ours: whoever kills our group (an agent on a timeout) kills the command too.
    Inherit,
}

/// Start `argv`. On failure the one-line reason is printed and the shell-style exit
/// code returned: 127 not found, 126 not executable or not startable.
pub fn spawn(argv: &[String], group: Group, split_stderr: bool) -> Result<Child, i32> {
    let fail = |what: &str, e: std::io::Error| {
        eprintln!("tokenjuice: {what}: {e}");
        126
    };
    let signals = install_signal_pipe().map_err(|e| fail("cannot watch for signals", e))?;
    let (r, w) = pipe_with(OFlag::empty()).map_err(|e| fail("cannot create a pipe", e))?;
    let (err_r, w2) = if split_stderr {
        let (er, ew) = pipe_with(OFlag::empty()).map_err(|e| fail("cannot create a pipe", e))?;
        (Some(er), ew)
    } else {
        let w2 = w
            .try_clone()
            .map_err(|e| fail("cannot duplicate a pipe", e))?;
        (None, w2)
    };
    // In an interactive terminal the command stays in our process group so it can use the
    // terminal; otherwise it gets its own group so signals reach everything it starts.
    let interactive = group == Group::Inherit || is_foreground_tty();
    let watcher = if interactive { None } else { Watcher::start() };
    let spawned = start(argv, w.as_raw_fd(), w2.as_raw_fd(), !interactive);
    drop((w, w2)); // our copies of the pipes' write ends
    let child = spawned.map_err(|e| {
        let name = &argv[0];
        match e.kind() {
            std::io::ErrorKind::NotFound => {
                eprintln!("tokenjuice: {name}: command not found");
                127
            }
            std::io::ErrorKind::PermissionDenied
                if name.contains('/') && std::path::Path::new(name).is_dir() =>
            {
                eprintln!("tokenjuice: {name}: is a directory");
                126
            }
            std::io::ErrorKind::PermissionDenied => {
                eprintln!("tokenjuice: {name}: permission denied (not executable)");
                126
            }
            _ => {
                eprintln!("tokenjuice: {name}: cannot run: {e}");
                126
            }
        }
    })?;
    if let Some(w) = &watcher {
        w.watch(child.id() as i32);
    }
    Ok(Child {
        child,
        // SAFETY: `r` is an open pipe read end we own.
        output: unsafe { File::from_raw_fd(std::os::fd::IntoRawFd::into_raw_fd(r)) },
        errput: err_r.map(File::from),
        signals,
        own_group: !interactive,
        signalled: false,
        watcher,
    })
}

impl Child {
    fn forward(&mut self) {
        let mut buf = [0u8; 16];
        while let Ok(n) = self.signals.read(&mut buf) {
            if n == 0 {
                break;
            }
            for &raw in &buf[..n] {
                let Ok(sig) = Signal::try_from(i32::from(raw)) else {
                    continue;
                };
                self.signalled = true;
                let pid = Pid::from_raw(self.child.id() as i32);
                if self.own_group {
                    let _ = killpg(pid, sig);
                } else if sig != Signal::SIGINT {
                    // the terminal already delivers SIGINT to the whole foreground group
                    let _ = nix::sys::signal::kill(pid, sig);
                }
            }
        }
    }

    /// Read the command's output until it ends, handing each chunk to `on_chunk` (with
    /// true for a chunk of a separate stderr pipe); returns the command's exit status. When
    /// `on_chunk` answers false (nobody reads our output any more), the command's pipes are
    /// closed, so its next write fails as it would have without us (`yes | head -1`), and
    /// its end is awaited.
    pub fn pump(
        mut self,
        mut on_chunk: impl FnMut(&[u8], bool) -> bool,
        mut on_tick: impl FnMut(),
    ) -> ExitStatus {
        // Small at first: a zeroed 64 KB buffer costs 16 page faults (~15% of a `wrap --
        // true`'s own faults) that a command printing little never needs. The first read
        // that fills it grows it to a pipe's whole capacity.
        let mut buf = vec![0u8; SMALL_READ];
        let mut status: Option<ExitStatus> = None;
        let mut deadline: Option<Instant> = None;
        let mut out_closed = false;
        loop {
            let timeout = match deadline {
                Some(d) => d.saturating_duration_since(Instant::now()),
                None => Duration::from_millis(100),
            };
            let ms = u16::try_from(timeout.as_millis()).unwrap_or(u16::MAX);
            let (out_ready, err_ready, sig_ready) = {
                let mut fds = vec![
                    PollFd::new(self.output.as_fd(), PollFlags::POLLIN),
                    PollFd::new(self.signals.as_fd(), PollFlags::POLLIN),
                ];
                if let Some(e) = &self.errput {
                    fds.push(PollFd::new(e.as_fd(), PollFlags::POLLIN));
                }
                let ready = |fds: &[PollFd], i: usize| {
                    fds.get(i)
                        .and_then(|f| f.revents())
                        .is_some_and(|r| !r.is_empty())
                };
                match poll(&mut fds, PollTimeout::from(ms)) {
                    Ok(n) if n > 0 => (ready(&fds, 0), ready(&fds, 2), ready(&fds, 1)),
                    _ => (false, false, false), // timeout or EINTR: look again below
                }
            };
            if sig_ready {
                self.forward();
            }
            // at least every 100 ms while the command runs
            on_tick();
            if err_ready {
                let done = match self.errput.as_mut().map(|e| e.read(&mut buf)) {
                    Some(Ok(0)) | Some(Err(_)) | None => true,
                    Some(Ok(n)) => {
                        let go_on = on_chunk(&buf[..n], true);
                        if let Some(e) = &self.errput {
                            grow_when_full(&mut buf, n, e);
                        }
                        !go_on
                    }
                };
                if done {
                    self.errput = None;
                }
            }
            if out_ready {
                match self.output.read(&mut buf) {
                    Ok(0) if self.errput.is_none() => break,
                    Ok(0) => out_closed = true,
                    Ok(n) => {
                        let go_on = on_chunk(&buf[..n], false);
                        grow_when_full(&mut buf, n, &self.output);
                        if !go_on {
                            // the reader went away: close the command's pipes and wait
                            let Child {
                                mut child,
                                output,
                                errput,
                                watcher,
                                ..
                            } = self;
                            drop((output, errput));
                            let status = child
                                .wait()
                                .unwrap_or_else(|_| ExitStatus::from_raw(1 << 8));
                            if let Some(w) = watcher {
                                w.done();
                            }
                            return status;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) if self.errput.is_none() => break,
                    Err(_) => out_closed = true,
                }
            }
            if out_closed && self.errput.is_none() {
                break;
            }
            if status.is_none() {
                if let Ok(Some(s)) = self.child.try_wait() {
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
            None => self
                .child
                .wait()
                .unwrap_or_else(|_| ExitStatus::from_raw(1 << 8)),
        };
        if let Some(w) = self.watcher.take() {
            w.done();
        }
        // A signal that arrived while we were finishing still counts.
        self.forward();
        // After a forwarded termination signal, nothing of the command may be left running.
        if self.signalled && self.own_group {
            let _ = killpg(Pid::from_raw(self.child.id() as i32), Signal::SIGKILL);
        }
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_read_buffer_grows_once_a_read_fills_it_and_the_pipe_with_it() {
        let (r, _w) = pipe_with(OFlag::empty()).unwrap();
        let capacity = || fcntl(r.as_raw_fd(), FcntlArg::F_GETPIPE_SZ).unwrap() as usize;
        assert_eq!(capacity(), FULL_READ);
        let mut buf = vec![0u8; SMALL_READ];
        grow_when_full(&mut buf, 100, &r);
        assert_eq!(buf.len(), SMALL_READ, "a short read leaves it small");
        grow_when_full(&mut buf, SMALL_READ, &r);
        assert_eq!(buf.len(), FULL_READ, "a full read grows it");
        assert_eq!(capacity(), FULL_READ, "not the pipe yet");
        grow_when_full(&mut buf, FULL_READ - 1, &r);
        assert_eq!(buf.len(), FULL_READ);
        grow_when_full(&mut buf, FULL_READ, &r);
        assert_eq!(buf.len(), BIG_READ, "a pipe filled: both grow");
        assert_eq!(capacity(), BIG_READ, "the buffer is the pipe's size");
        grow_when_full(&mut buf, BIG_READ, &r);
        assert_eq!(buf.len(), BIG_READ, "never past it");
    }
}
