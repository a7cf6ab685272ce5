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

use std::io::Write;
use std::os::unix::process::ExitStatusExt;

use tokenjuice_core::compact::{plan, Finish, Request};

use crate::capture::RawCapture;
use crate::drive::{self, Driver};
use crate::rules_env;
use crate::run_store::{Ending, RunStore};
use crate::{Format, OutputOpts};

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
    /// Set when a host runs its own shell line through tokenjuice (a shell prefix).
    pub host: Option<HostOutput>,
}

/// How a host that runs its command line through tokenjuice wants the output.
pub struct HostOutput {
    /// The user's command, for choosing a rule (argv is the host's whole shell line).
    pub command: String,
    /// The host's own output limits: our text always stays under them.
    pub cut: tokenjuice_core::budget::HostCut,
    /// The host prints the exit status itself.
    pub prints_exit: bool,
    /// The host shows stdout and stderr apart (CodeBuddy): the command's stderr gets its own
    /// pipe, and an output given back unchanged keeps the two apart.
    pub split_stderr: bool,
    /// The host gave us a file for stdout and stderr and reads it after we exit (Claude Code
    /// 2.1 writes every Bash command's output to a task file it may show while the command
    /// runs): the raw output is written there as it comes, and replaced by the compacted text
    /// at the end. Output streams as without tokenjuice, and nothing is held back.
    pub mirror: bool,
    /// How long the output may be held back: past it, what was held goes out as it came
    /// and the rest streams (CodeBuddy moves a foreground command still running at its
    /// timeout to the background and shows the model the output so far).
    pub hold: Option<Hold>,
}

/// How long a host lets the output be held back.
pub struct Hold {
    /// What the host's settings say.
    pub for_: std::time::Duration,
    /// Asked once if the command still runs after [`Hold::LOOK_AFTER`]: the time for this
    /// command alone, when it has its own (the timeout the model gave the call). Looking
    /// costs a read of the host's files, which a quick command never pays.
    pub this_command: Option<Box<dyn FnOnce() -> Option<std::time::Duration>>>,
}

impl Hold {
    pub const LOOK_AFTER: std::time::Duration = std::time::Duration::from_millis(700);
}

/// How long the last command ran (spawn to exit), in microseconds.
pub static CHILD_MICROS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
/// The signal that ended the last command, 0 when it exited by itself.
pub static CHILD_SIGNAL: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

pub fn run(mut opts: WrapOpts) -> i32 {
    // Plan first: a broken rule or a bug here must not stop the command from running.
    let plan = drive::plan_or_raw(|| {
        let rules = if opts.raw {
            Default::default()
        } else {
            rules_env::load_for_run()
        };
        let host_command = opts.host.as_ref().map(|h| h.command.as_str());
        let req = Request {
            tool_name: "exec",
            command: host_command,
            argv: if host_command.is_some() {
                None
            } else {
                Some(&opts.argv)
            },
            classifier: opts.classifier.as_deref(),
            raw: opts.raw,
            no_omit: opts.no_omit,
            host_shows_whole: opts.host.as_ref().and_then(|h| h.cut.shows_whole()),
        };
        plan(&req, &rules.rules)
    });
    let store = RunStore::begin(
        tokenjuice_store::RunKind::Wrap,
        // for a host, the raw output is kept so that a cut can name it; dropped when unused
        opts.store || opts.host.is_some(),
        opts.no_stats,
        opts.source.as_deref(),
    );
    // A host's shell line stays in the host's process group: the host's kill on a timeout
    // then reaches the command too.
    let group = if opts.host.is_some() {
        crate::child::Group::Inherit
    } else {
        crate::child::Group::Own
    };
    let split = opts.host.as_ref().is_some_and(|h| h.split_stderr);
    let child_started = std::time::Instant::now();
    let mut d = Driver::new(plan.as_ref(), opts.out.format, RawCapture::default(), store);
    let child = match crate::child::spawn(&opts.argv, group, split) {
        Ok(c) => c,
        Err(code) => {
            d.record_streamed(code);
            return code;
        }
    };
    d.mirror = !d.stream_raw && opts.host.as_ref().is_some_and(|h| h.mirror);
    if split {
        d.err_capture = Some(RawCapture::default());
    }
    let stdout_handle = std::io::stdout();
    let (mut hold_until, mut look) = match opts.host.as_mut().and_then(|h| h.hold.take()) {
        Some(h) => (Some(child_started + h.for_), h.this_command),
        None => (None, None),
    };
    let d = std::cell::RefCell::new(d);
    let status = child.pump(
        |chunk, is_err| d.borrow_mut().feed(chunk, is_err, &stdout_handle),
        || {
            let now = std::time::Instant::now();
            if look.is_some() && now >= child_started + Hold::LOOK_AFTER {
                if let Some(t) = look.take().and_then(|f| f()) {
                    hold_until = Some(child_started + t);
                }
            }
            if hold_until.is_some_and(|t| now >= t) {
                d.borrow_mut().give_up_holding(&stdout_handle);
            }
        },
    );
    let mut d = d.into_inner();

    CHILD_MICROS.store(
        u64::try_from(child_started.elapsed().as_micros()).unwrap_or(u64::MAX),
        std::sync::atomic::Ordering::Relaxed,
    );
    CHILD_SIGNAL.store(
        status.signal().unwrap_or(0),
        std::sync::atomic::Ordering::Relaxed,
    );
    let exit_code = match status.code() {
        Some(c) => c,
        None => 128 + status.signal().unwrap_or(0),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if d.stream_raw || (d.mirror && d.capture.total > drive::MIRROR_MAX) {
        // the output went through as it came (a mirror past its cap: the raw output is in
        // the host's file already; too much to reduce in memory)
        let _ = out.flush();
        drop(out);
        d.record_streamed(exit_code);
        return exit_code;
    }
    let fin = Finish {
        trace: opts.out.trace,
        source: opts.source.clone(),
        host_prints_exit: opts.host.as_ref().is_some_and(|h| h.prints_exit),
        ..Finish::default()
    };
    let mut result = match d.finish(exit_code, fin) {
        Ok(r) => r,
        Err(msg) => {
            d.fail_open(&mut out, &msg, opts.out.format == Format::Json, exit_code);
            crate::capture::note_write(out.flush());
            drop(out);
            d.record_failed_open(exit_code);
            return exit_code;
        }
    };
    match &opts.host {
        Some(h) => {
            let whole = d.capture.total == d.capture.head().len() as u64;
            let raw = fit_for_host(
                &mut result,
                h,
                &d.store,
                exit_code,
                d.capture.head(),
                d.plan.filter(|_| whole),
            );
            if !raw {
                d.store.attach(&mut result);
            }
            d.store.forget_artifact_unless_named(&result.inline_text);
            if !d.store.has_artifact() {
                result.raw_ref = None;
            }
            if raw || (d.mirror && !replace_host_file(&mut out)) {
                // nothing to gain: the host gets the output exactly as without us
                if !d.mirror {
                    let _ = d.capture.write_to(&mut out);
                }
                if let Some(c) = d.err_capture.as_mut() {
                    let _ = c.write_to(&mut std::io::stderr());
                }
                let _ = out.flush();
                drop(out);
                d.store
                    .record(d.plan, Ending::Result(&result), Some(exit_code));
                return exit_code;
            }
        }
        None => d.store.attach(&mut result),
    }
    crate::capture::note_write(crate::print_result(
        &mut out,
        &result,
        opts.out.format,
        exit_code,
    ));
    crate::capture::note_write(out.flush());
    drop(out);
    d.store
        .record(d.plan, Ending::Result(&result), Some(exit_code));
    exit_code
}

/// Keep a host's text under its limits, and never more tokens than the host would have
/// shown: the whole output, or its preview when the host would have cut it; a line reduction
/// of an output the host cuts is made of the lines the host would show (`plan` is given when
/// `raw_head` is the whole raw output). Returns true when the raw output should be given
/// instead (the reduction would not be smaller).
fn fit_for_host(
    result: &mut tokenjuice_core::result::CompactResult,
    h: &HostOutput,
    store: &RunStore,
    exit_code: i32,
    raw_head: &[u8],
    plan: Option<&tokenjuice_core::compact::Plan>,
) -> bool {
    use tokenjuice_core::host_view::{for_host, ForHost};
    if result.compaction.passed_through() {
        return true;
    }
    let raw_chars = usize::try_from(result.stats.raw_chars).unwrap_or(usize::MAX);
    let how = store
        .recover_hint()
        .unwrap_or_else(|| "rerun with `tokenjuice wrap --raw -- …` for all".into());
    let raw = String::from_utf8_lossy(raw_head);
    if let Some(plan) = plan {
        match for_host(plan, result, &raw, &h.cut, exit_code, h.prints_exit, &how) {
            Some(ForHost::Raw) => return true,
            Some(ForHost::Text(text)) => {
                result.set_host_text(text);
                return false;
            }
            None => {}
        }
    }
    let Some(text) = tokenjuice_core::budget::fit_to_host(
        &result.inline_text,
        &raw,
        raw_chars,
        result.stats.raw_tokens,
        &h.cut,
        exit_code != 0,
        &how,
    ) else {
        return true;
    };
    if text != result.inline_text {
        result.set_host_text(text);
    }
    false
}

/// Mirror mode: empties the host's output file so that the compacted text replaces the raw
/// output written there. False (the raw output stays) when the file cannot be emptied.
fn replace_host_file(out: &mut std::io::StdoutLock<'_>) -> bool {
    use std::os::fd::AsFd;
    if out.flush().is_err() {
        return false;
    }
    let fd = std::io::stdout();
    let fd = fd.as_fd();
    if nix::unistd::ftruncate(fd, 0).is_err() {
        return false;
    }
    // the host opens it for appending; without O_APPEND the next write must start at 0
    let _ = nix::unistd::lseek(1, 0, nix::unistd::Whence::SeekSet);
    true
}
