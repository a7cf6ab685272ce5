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
use std::panic::{catch_unwind, AssertUnwindSafe};

use tokenjuice_core::compact::{plan, Finish, Mode, Plan, Request};

use crate::capture::RawCapture;
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
}

/// In mirror mode, past this much output the replacement is given up (the raw output is
/// already in the host's file): a long-running background server must not fill memory.
const MIRROR_MAX: u64 = 64 << 20;

/// How long the last command ran (spawn to exit), in microseconds.
pub static CHILD_MICROS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

pub fn run(opts: WrapOpts) -> i32 {
    // Plan first: a broken rule or a bug here must not stop the command from running.
    let planned = catch_unwind(AssertUnwindSafe(|| {
        crate::fault_injection("plan");
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
    let child = match crate::child::spawn(&opts.argv, group, split) {
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
    let mirror = !stream_raw && opts.host.as_ref().is_some_and(|h| h.mirror);
    let mut state = RunState {
        capture: RawCapture::default(),
        err_capture: split.then(RawCapture::default),
        broken: None,
        stream_raw,
        mirror,
        store,
    };
    // The session borrows the plan; both live in this scope.
    let mut session = plan.as_ref().map(Plan::session);
    let stdout_handle = std::io::stdout();
    let status = child.pump(|chunk, is_err| {
        if is_err {
            if let Some(c) = state.err_capture.as_mut() {
                c.push(chunk);
            }
        }
        feed(chunk, is_err, &mut state, &mut session, &stdout_handle)
    });

    CHILD_MICROS.store(
        u64::try_from(child_started.elapsed().as_micros()).unwrap_or(u64::MAX),
        std::sync::atomic::Ordering::Relaxed,
    );
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
    if state.mirror && state.capture.total > MIRROR_MAX {
        // the raw output is in the host's file already; too much to reduce in memory
        drop(out);
        let ending = Ending::Streamed {
            raw_bytes: state.capture.total,
            raw_tokens: 0,
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
                host_prints_exit: opts.host.as_ref().is_some_and(|h| h.prints_exit),
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
            if let Some(h) = &opts.host {
                let raw = fit_for_host(
                    &mut result,
                    h,
                    &state.store,
                    exit_code,
                    state.capture.head(),
                );
                if !raw {
                    state.store.attach(&mut result);
                }
                state
                    .store
                    .forget_artifact_unless_named(&result.inline_text);
                if !state.store.has_artifact() {
                    result.raw_ref = None;
                }
                if raw || (state.mirror && !replace_host_file(&mut out)) {
                    // nothing to gain: the host gets the output exactly as without us
                    if !state.mirror {
                        let _ = state.capture.write_to(&mut out);
                    }
                    if let Some(c) = state.err_capture.as_mut() {
                        let _ = c.write_to(&mut std::io::stderr());
                    }
                    let _ = out.flush();
                    drop(out);
                    state
                        .store
                        .record(plan.as_ref(), Ending::Result(&result), Some(exit_code));
                    return exit_code;
                }
            }
            if opts.host.is_none() {
                state.store.attach(&mut result);
            }
            crate::capture::note_write(crate::print_result(
                &mut out,
                &result,
                opts.out.format,
                exit_code,
            ));
            ending_result = result;
            Ending::Result(&ending_result)
        }
        Err(msg) => {
            eprintln!("tokenjuice: warning: internal error ({msg}); showing the raw output");
            let json = opts.out.format == Format::Json;
            // in mirror mode the raw output is in the host's file already
            if json || !state.mirror {
                let _ = crate::capture::fail_open(&mut out, &mut state.capture, json, exit_code);
                if let Some(c) = state.err_capture.as_mut().filter(|_| !json) {
                    let _ = c.write_to(&mut std::io::stderr());
                }
            }
            Ending::FailOpen {
                raw_bytes: state.capture.total,
            }
        }
    };
    crate::capture::note_write(out.flush());
    drop(out);
    state.store.record(plan.as_ref(), ending, Some(exit_code));
    exit_code
}

/// Keep a host's text under its limits, and never more tokens than the host would have
/// shown: the whole output, or its preview when the host would have cut it. Returns true when
/// the raw output should be given instead (the reduction would not be smaller).
fn fit_for_host(
    result: &mut tokenjuice_core::result::CompactResult,
    h: &HostOutput,
    store: &RunStore,
    exit_code: i32,
    raw_head: &[u8],
) -> bool {
    use tokenjuice_core::tokens::estimate;
    let raw_chars = usize::try_from(result.stats.raw_chars).unwrap_or(usize::MAX);
    let text_chars = result.inline_text.chars().count();
    let passed_through = result
        .compaction
        .kinds
        .iter()
        .any(|k| k.ends_with("passthrough"));
    let failed = exit_code != 0;
    let preview = h.cut.preview_chars(raw_chars, failed);
    // what the model would read without us, in tokens
    let host_tokens = match preview {
        Some(keep) => {
            let head = String::from_utf8_lossy(raw_head);
            estimate(&head.chars().take(keep).collect::<String>())
        }
        None => result.stats.raw_tokens,
    };
    if passed_through
        || (preview.is_none()
            && (text_chars >= raw_chars || estimate(&result.inline_text) >= host_tokens))
    {
        return true;
    }
    let mut budget = h.cut.budget(raw_chars, failed);
    let how = store
        .recover_hint()
        .unwrap_or_else(|| "rerun with `tokenjuice wrap --raw -- …` for all".into());
    let original = std::mem::take(&mut result.inline_text);
    let mut text = original.clone();
    for _ in 0..8 {
        text = tokenjuice_core::budget::fit(&original, budget, h.cut.max_lines, &how);
        let tokens = estimate(&text);
        if tokens < host_tokens.max(1) || budget < 64 {
            break;
        }
        // dense text: shrink by the overshoot, with room
        let shrink = (host_tokens as f64 / tokens as f64 * 0.9).clamp(0.1, 0.95);
        budget = (budget as f64 * shrink) as usize;
    }
    if text != original {
        result.stats.reduced_chars = text.chars().count() as u64;
        result.stats.reduced_tokens = estimate(&text);
        result.compaction.kinds.push("host-budget".into());
    }
    result.inline_text = text;
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

struct RunState {
    /// The raw output (stdout only when stderr is split off).
    capture: RawCapture,
    err_capture: Option<RawCapture>,
    broken: Option<String>,
    stream_raw: bool,
    /// Every chunk also goes to stdout as it comes (see [`HostOutput::mirror`]).
    mirror: bool,
    store: RunStore,
}

/// Takes one chunk of output; false when nobody reads ours any more (the reader of a
/// streamed output went away), so the command should see its own output pipe close.
fn feed(
    chunk: &[u8],
    is_err: bool,
    state: &mut RunState,
    session: &mut Option<tokenjuice_core::compact::Session<'_>>,
    stdout: &std::io::Stdout,
) -> bool {
    state.store.push(chunk);
    if state.stream_raw {
        let mut out = stdout.lock();
        let written = out.write_all(chunk).and_then(|()| out.flush());
        if let Some(s) = session.as_mut() {
            s.push(chunk);
        }
        let reader_gone = matches!(&written, Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe);
        crate::capture::note_write(written);
        return !reader_gone;
    }
    if state.mirror {
        let mut out = stdout.lock();
        let _ = out.write_all(chunk).and_then(|()| out.flush());
        if state.capture.total > MIRROR_MAX {
            return true;
        }
    }
    if !is_err {
        state.capture.push(chunk);
    }
    if state.broken.is_some() {
        return true;
    }
    if let Some(s) = session.as_mut() {
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| {
            crate::fault_injection("push");
            s.push(chunk)
        })) {
            state.broken = Some(panic_text(&e));
        }
    }
    true
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
