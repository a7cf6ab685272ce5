//! What one `wrap`/`reduce`/`reduce-json` (or hook) call keeps: the raw artifact when
//! asked for (`--store`, `TOKENJUICE_<HOST>_STORE=1`), and one row of run history
//! unless turned off (`--no-stats`, `TOKENJUICE_STATS=0`).
//!
//! Nothing here can fail a run: a store that cannot be written costs the artifact
//! (one warning line, and the omission marker falls back to `--raw`) or the history
//! row (silently; one line only when a damaged database is set aside).

use std::time::Instant;
use tokenjuice_core::result::Kind;

use tokenjuice_core::compact::Plan;
use tokenjuice_core::result::{CompactResult, RawRef};
use tokenjuice_store::artifact::{self, BackgroundWriter, Stored};
use tokenjuice_store::history::{self, Outcome};
use tokenjuice_store::record::{mode, normalize_source};
use tokenjuice_store::{settings, signature, RunKind, RunRecord, Settings};

/// Per-call storage state.
pub struct RunStore {
    kind: RunKind,
    source: Option<String>,
    settings: Settings,
    record: bool,
    started: Instant,
    ts_ms: i64,
    writer: Option<BackgroundWriter>,
    /// The artifact is wanted but its writer starts with the first output byte: a command
    /// that prints nothing costs no thread and no file.
    writer_pending: bool,
    stored: Option<Stored>,
    capture_truncated: bool,
}

/// How a call ended, for the history row.
pub enum Ending<'a> {
    /// A result was produced (reduced, passed through, or raw).
    Result(&'a CompactResult),
    /// Raw text streamed straight through (`--raw` in text mode): sizes only.
    Streamed { raw_bytes: u64, raw_tokens: u64 },
    /// tokenjuice failed inside and printed the raw output.
    FailOpen { raw_bytes: u64 },
}

impl RunStore {
    /// Start: decide what to keep. `store` is the `--store` flag.
    pub fn begin(kind: RunKind, store: bool, no_stats: bool, source: Option<&str>) -> RunStore {
        let env = |k: &str| std::env::var(k).ok();
        let settings = Settings::load(&env);
        let want_store = store || settings::store_requested(&env, source);
        RunStore {
            kind,
            source: source.map(str::to_string),
            record: settings.history && !no_stats,
            settings,
            started: Instant::now(),
            ts_ms: tokenjuice_store::now_ms(),
            writer: None,
            writer_pending: want_store,
            stored: None,
            capture_truncated: false,
        }
    }

    fn start_writer(&mut self) {
        self.writer_pending = false;
        let started = match &self.settings.home {
            Some(home) => BackgroundWriter::start(home, self.settings.artifact_max_bytes),
            None => Err(tokenjuice_store::StoreError::NoHome),
        };
        match started {
            Ok(w) => self.writer = Some(w),
            Err(e) => eprintln!(
                "tokenjuice: warning: cannot keep the raw output ({e}); continuing without it"
            ),
        }
    }

    /// Output bytes as they arrive.
    pub fn push(&mut self, chunk: &[u8]) {
        if self.writer_pending && !chunk.is_empty() {
            self.start_writer();
        }
        if let Some(w) = &mut self.writer {
            w.push(chunk);
        }
    }

    /// The fail-open capture hit its cap (bytes past it were not kept).
    pub fn note_capture_truncated(&mut self, truncated: bool) {
        self.capture_truncated |= truncated;
    }

    /// Complete the artifact (if one is being written). Call before rendering, so the
    /// omission marker can name it.
    pub fn finish_artifact(&mut self) {
        if let Some(w) = self.writer.take() {
            match w.finish() {
                Ok(s) => self.stored = Some(s),
                Err(e) => eprintln!(
                    "tokenjuice: warning: the raw output could not be kept ({e}); use --raw to see it all"
                ),
            }
        }
    }

    /// Drop the artifact again when `text` does not name it (nothing was cut, so nobody
    /// needs it); used where the raw output is kept only in case a cut needs a pointer.
    pub fn forget_artifact_unless_named(&mut self, text: &str) {
        let named = self
            .stored
            .as_ref()
            .is_some_and(|s| text.contains(s.id.as_str()));
        if named {
            return;
        }
        if let (Some(s), Some(home)) = (self.stored.take(), &self.settings.home) {
            artifact::remove(home, &s.id);
        }
    }

    pub fn has_artifact(&self) -> bool {
        self.stored.is_some()
    }

    /// How to get the whole output back, for `Finish::recover_hint`.
    pub fn recover_hint(&self) -> Option<String> {
        let s = self.stored.as_ref()?;
        Some(if s.meta.truncated {
            format!(
                "tokenjuice cat {} has the first {} (rerun with --raw for all)",
                s.id,
                human_bytes(s.meta.kept_bytes)
            )
        } else {
            format!("tokenjuice cat {}", s.id)
        })
    }

    /// Fill `rawRef` in the result. When similar lines were folded (which the
    /// omission marker does not count) and the text does not name the artifact yet,
    /// one line says where the full output is.
    pub fn attach(&self, result: &mut CompactResult) {
        if let Some(s) = &self.stored {
            let folded = result.compaction.has(Kind::SimilarLineCollapse);
            let named = result.inline_text.contains(s.id.as_str());
            if let Some(hint) = self.recover_hint().filter(|_| folded && !named) {
                if !result.inline_text.ends_with('\n') {
                    result.inline_text.push('\n');
                }
                result.inline_text.push_str(&format!(
                    "[tokenjuice: similar lines were folded; all of them: {hint}]"
                ));
            }
            result.raw_ref = Some(RawRef {
                id: s.id.to_string(),
                storage: "file".into(),
                path: s.path.display().to_string(),
            });
        }
    }

    /// Write the history row (and complete the artifact's description). Quiet unless
    /// a damaged history had to be set aside.
    pub fn record(mut self, plan: Option<&Plan>, ending: Ending<'_>, exit_code: Option<i32>) {
        self.finish_artifact();
        let rec = self.build(plan, &ending, exit_code);
        if let (Some(s), Some(home)) = (&self.stored, &self.settings.home) {
            let mut meta = s.meta.clone();
            meta.source = Some(rec.source.clone());
            meta.command = Some(rec.command_key());
            meta.command_line = rec.command.clone();
            meta.rule_id = Some(rec.rule_id.clone());
            meta.exit_code = rec.exit_code;
            let _ = artifact::describe(&home.artifact_dir(), &meta);
            // keep artifacts within the budget (history rows are pruned as they are
            // written); never remove the artifact just named
            let _ = tokenjuice_store::retention::prune_with(
                None,
                home,
                &self.settings,
                rec.ts_ms,
                Some(&s.id),
            );
        }
        if !self.record {
            return;
        }
        if let Outcome::Reset { set_aside } = history::record(&self.settings, &rec) {
            eprintln!(
                "tokenjuice: note: the run history was damaged; it was moved to {} and a new one started",
                set_aside.display()
            );
        }
    }

    fn build(&self, plan: Option<&Plan>, ending: &Ending<'_>, exit_code: Option<i32>) -> RunRecord {
        let (program, subcommand) = match plan {
            // `a && b`, `a; b`: no one program to name, and the output is not one tool's,
            // so reports keep these together instead of under "(unknown)".
            Some(p) if p.norm.compound => ("(compound)".to_string(), None),
            Some(p) => {
                let argv = if p.norm.argv.is_empty() {
                    p.norm.pipeline.first().map(Vec::as_slice).unwrap_or(&[])
                } else {
                    &p.norm.argv
                };
                signature::signature(argv)
            }
            None => (String::new(), None),
        };
        let command = match plan {
            Some(p) if self.settings.keep_commands && !p.norm.original.is_empty() => {
                Some(tokenjuice_hooks::redact::redact_text(&p.norm.original))
            }
            _ => None,
        };
        let (family, rule_id) = match (ending, plan) {
            (Ending::Result(r), _) => (
                r.classification.family.clone(),
                r.classification.matched_reducer.clone(),
            ),
            (_, Some(p)) => (p.rule.family.clone(), p.rule.id.clone()),
            (_, None) => ("unknown".into(), "unknown".into()),
        };
        let (mode, raw_bytes, raw_tokens, reduced_bytes, reduced_tokens) = match ending {
            Ending::Result(r) => {
                let has = |k: Kind| r.compaction.has(k);
                let mode = if has(Kind::RawPassthrough) {
                    mode::RAW
                } else if has(Kind::ExactReadPassthrough) {
                    mode::EXACT_READ
                } else if has(Kind::FailOpen) {
                    mode::FAIL_OPEN
                } else if has(Kind::Passthrough) {
                    mode::PASSTHROUGH
                } else {
                    mode::REDUCED
                };
                (
                    mode,
                    r.stats.raw_bytes,
                    r.stats.raw_tokens,
                    r.inline_text.len() as u64,
                    r.stats.reduced_tokens,
                )
            }
            Ending::Streamed {
                raw_bytes,
                raw_tokens,
            } => {
                let exact = plan.is_some_and(|p| p.norm.exact_read && !p.forced);
                let mode = if exact { mode::EXACT_READ } else { mode::RAW };
                (mode, *raw_bytes, *raw_tokens, *raw_bytes, *raw_tokens)
            }
            Ending::FailOpen { raw_bytes } => {
                // the tokens were not counted; a rough estimate, nothing saved
                let t = raw_bytes / 4;
                (mode::FAIL_OPEN, *raw_bytes, t, *raw_bytes, t)
            }
        };
        RunRecord {
            ts_ms: self.ts_ms,
            kind: self.kind,
            source: normalize_source(self.source.as_deref()),
            program,
            subcommand,
            family,
            rule_id,
            mode: mode.to_string(),
            exit_code,
            raw_bytes,
            raw_tokens,
            reduced_bytes,
            reduced_tokens,
            duration_us: u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX),
            capture_truncated: self.capture_truncated
                || self.stored.as_ref().is_some_and(|s| s.meta.truncated),
            artifact_id: self.stored.as_ref().map(|s| s.id.to_string()),
            command,
        }
    }
}

/// `1.5 MiB`, `300 KiB`, `12 B`.
pub fn human_bytes(n: u64) -> String {
    const K: f64 = 1024.0;
    let f = n as f64;
    if f >= K * K * K {
        format!("{:.1} GiB", f / (K * K * K))
    } else if f >= K * K {
        format!("{:.1} MiB", f / (K * K))
    } else if f >= K {
        format!("{:.0} KiB", f / K)
    } else {
        format!("{n} B")
    }
}

/// `reduce-json` storage switches: the flags, plus the request's
/// `options.store` / `options.noStats` (`no_stats`) / `options.source` (or a top-level
/// `source`). A switch is turned on by either; never off by the request.
pub fn json_store_opts(
    v: &serde_json::Value,
    flags: crate::reduce_cmd::JsonStoreOpts,
) -> crate::reduce_cmd::JsonStoreOpts {
    let opts = v.get("options");
    let flag = |camel: &str, snake: &str| {
        opts.and_then(|o| o.get(camel).or_else(|| o.get(snake)))
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false)
    };
    let source = flags.source.or_else(|| {
        opts.and_then(|o| o.get("source"))
            .or_else(|| v.get("source"))
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
    });
    crate::reduce_cmd::JsonStoreOpts {
        store: flags.store || flag("store", "store"),
        no_stats: flags.no_stats || flag("noStats", "no_stats"),
        source,
    }
}
