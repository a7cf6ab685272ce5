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
    let child = match crate::child::spawn(&opts.argv) {
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
    let stdout_handle = std::io::stdout();
    let status = child.pump(|chunk| feed(chunk, &mut state, &mut session, &stdout_handle));

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
