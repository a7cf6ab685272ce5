//! The one streaming driver behind `wrap` (a command's output) and `reduce` (a file or
//! stdin), so that both fail open the same way:
//!
//! - planning runs under `catch_unwind`: a broken rule or a bug there passes the output
//!   through raw, with one warning line;
//! - a raw plan with text output streams straight through (byte-identical, constant memory);
//!   otherwise every chunk is kept (for fail-open) and pushed into the session under
//!   `catch_unwind`;
//! - finishing runs under `catch_unwind`; any failure prints the raw output as it came (text)
//!   or a JSON result holding it (`--format json`, so a JSON reader still gets JSON).

use std::io::{Stdout, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};

use tokenjuice_core::compact::{ChunkScan, Finish, Mode, Plan, ScanKind, Session};
use tokenjuice_core::result::CompactResult;

use crate::capture::RawCapture;
use crate::run_store::{Ending, RunStore};
use crate::Format;

/// In mirror mode, past this much output the replacement is given up (the raw output is
/// already in the host's file): a long-running background server must not fill memory.
pub const MIRROR_MAX: u64 = 64 << 20;

/// Plans under `catch_unwind`; `None` (after one warning line) when planning failed, and the
/// output is then passed through raw.
pub fn plan_or_raw(make: impl FnOnce() -> Plan) -> Option<Plan> {
    match catch_unwind(AssertUnwindSafe(|| {
        crate::fault_injection("plan");
        make()
    })) {
        Ok(p) => {
            for w in &p.warnings {
                eprintln!("tokenjuice: warning: {w}");
            }
            Some(p)
        }
        Err(e) => {
            eprintln!(
                "tokenjuice: warning: internal error while planning ({}); the output is passed through raw",
                panic_text(&e)
            );
            None
        }
    }
}

pub struct Driver<'p> {
    pub plan: Option<&'p Plan>,
    session: Option<Session<'p>>,
    /// The raw output (stdout side), for fail-open and for giving it back unchanged.
    pub capture: RawCapture,
    /// The command's stderr, when it has a pipe of its own.
    pub err_capture: Option<RawCapture>,
    broken: Option<String>,
    /// Text output of a raw plan (or of no plan): every chunk is written as it comes.
    pub stream_raw: bool,
    /// Every chunk is written as it comes and the reduction replaces it at the end (see
    /// `HostOutput::mirror`).
    pub mirror: bool,
    pub store: RunStore,
}

impl<'p> Driver<'p> {
    pub fn new(
        plan: Option<&'p Plan>,
        format: Format,
        capture: RawCapture,
        store: RunStore,
    ) -> Self {
        Driver {
            plan,
            session: plan.map(Plan::session),
            capture,
            err_capture: None,
            broken: None,
            stream_raw: format == Format::Text && plan.is_none_or(|p| p.mode == Mode::Raw),
            mirror: false,
            store,
        }
    }

    /// Takes one chunk of output; false when nobody reads ours any more (the reader of a
    /// streamed output went away), so the producer should stop.
    pub fn feed(&mut self, chunk: &[u8], is_err: bool, stdout: &Stdout) -> bool {
        self.feed_scanned(chunk, None, is_err, stdout)
    }

    /// How the session searches its chunks, for a caller that searches them ahead (on
    /// another thread) and gives them to [`feed_scanned`](Self::feed_scanned).
    pub fn scan_kind(&self) -> Option<ScanKind> {
        self.session.as_ref().map(Session::scan_kind)
    }

    /// [`feed`](Self::feed), with the chunk's search already done (with [`Self::scan_kind`]).
    pub fn feed_scanned(
        &mut self,
        chunk: &[u8],
        scan: Option<&ChunkScan>,
        is_err: bool,
        stdout: &Stdout,
    ) -> bool {
        let push = |s: &mut Session<'p>| match scan {
            Some(scan) => s.push_scanned(chunk, scan),
            None => s.push(chunk),
        };
        self.store.push(chunk);
        if is_err {
            if let Some(c) = self.err_capture.as_mut() {
                c.push(chunk);
            }
        }
        if self.stream_raw {
            if is_err && self.err_capture.is_some() {
                // the command's stderr has a pipe of its own: it stays stderr
                let mut err = std::io::stderr().lock();
                let _ = err.write_all(chunk).and_then(|()| err.flush());
                if let Some(s) = self.session.as_mut() {
                    push(s);
                }
                return true;
            }
            let mut out = stdout.lock();
            let written = out.write_all(chunk).and_then(|()| out.flush());
            if let Some(s) = self.session.as_mut() {
                push(s);
            }
            let reader_gone =
                matches!(&written, Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe);
            crate::capture::note_write(written);
            return !reader_gone;
        }
        if self.mirror {
            let mut out = stdout.lock();
            let _ = out.write_all(chunk).and_then(|()| out.flush());
            if self.capture.total > MIRROR_MAX {
                return true;
            }
        }
        if !is_err {
            self.capture.push(chunk);
        }
        if self.broken.is_some() {
            return true;
        }
        if let Some(s) = self.session.as_mut() {
            if let Err(e) = catch_unwind(AssertUnwindSafe(|| {
                crate::fault_injection("push");
                push(s)
            })) {
                self.broken = Some(panic_text(&e));
            }
        }
        true
    }

    /// Gives up holding the output: what was held is written as it came (stdout, and stderr
    /// when it has a pipe of its own), and what follows streams through. The session goes on
    /// counting, for the history's record.
    pub fn give_up_holding(&mut self, stdout: &Stdout) {
        if self.stream_raw || self.mirror {
            return;
        }
        let mut out = stdout.lock();
        let _ = self.capture.write_to(&mut out);
        let _ = out.flush();
        if let Some(c) = self.err_capture.as_mut() {
            let mut err = std::io::stderr().lock();
            let _ = c.write_to(&mut err);
            let _ = err.flush();
        }
        self.stream_raw = true;
    }

    /// Records a run whose output went through as it came (nothing more to print).
    pub fn record_streamed(self, exit_code: i32) {
        let ending = if self.stream_raw {
            let raw = self
                .session
                .as_ref()
                .map(|s| s.raw_stats())
                .unwrap_or_default();
            Ending::Streamed {
                raw_bytes: raw.bytes,
                raw_tokens: raw.tokens,
            }
        } else {
            // a mirror given up past its cap: the session saw only the start
            Ending::Streamed {
                raw_bytes: self.capture.total,
                raw_tokens: 0,
            }
        };
        self.store.record(self.plan, ending, Some(exit_code));
    }

    /// Finishes the reduction under `catch_unwind` (the artifact is sealed first, so the
    /// result can name it). `Err` carries what went wrong, for [`Driver::fail_open`].
    pub fn finish(&mut self, exit_code: i32, fin: Finish) -> Result<CompactResult, String> {
        self.store.finish_artifact();
        self.store.note_capture_truncated(self.capture.truncated);
        let fin = Finish {
            recover_hint: self.store.recover_hint(),
            ..fin
        };
        match (self.session.take(), self.broken.take()) {
            (_, Some(msg)) => Err(msg),
            (None, None) => Err("no plan".into()),
            (Some(s), None) => {
                let done = catch_unwind(AssertUnwindSafe(move || {
                    crate::fault_injection("finish");
                    s.finish(exit_code, &fin)
                }))
                .map_err(|e| panic_text(&e));
                for w in self
                    .plan
                    .map(|p| p.rule.given_up_warnings())
                    .unwrap_or_default()
                {
                    eprintln!("tokenjuice: warning: {w}");
                }
                done
            }
        }
    }

    /// Prints the raw output after a failure: as it came (text; in mirror mode it is in the
    /// host's file already) or a JSON result holding it.
    pub fn fail_open(&mut self, out: &mut dyn Write, msg: &str, json: bool, exit_code: i32) {
        eprintln!("tokenjuice: warning: internal error ({msg}); showing the raw output");
        if json || !self.mirror {
            let _ = crate::capture::fail_open(out, &mut self.capture, json, exit_code);
            if let Some(c) = self.err_capture.as_mut().filter(|_| !json) {
                let _ = c.write_to(&mut std::io::stderr());
            }
        }
    }

    /// The history's record of a run that ended in [`Driver::fail_open`].
    pub fn record_failed_open(self, exit_code: i32) {
        let ending = Ending::FailOpen {
            raw_bytes: self.capture.total,
        };
        self.store.record(self.plan, ending, Some(exit_code));
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
