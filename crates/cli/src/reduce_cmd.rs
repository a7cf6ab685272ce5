//! `tokenjuice reduce` (stream a file or stdin) and `tokenjuice reduce-json` (the adapter protocol).

use std::io::{Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use tokenjuice_core::result::Kind;

use tokenjuice_core::budget::CutShape;
use tokenjuice_core::compact::{compact_decoded_text, plan, Finish, Request};
use tokenjuice_core::host_view::{self, ForHost};

use crate::capture::RawCapture;
use crate::drive::{self, panic_text, Driver};
use crate::rules_env;
use crate::run_store::{Ending, RunStore};
use crate::{print_result, Format, OutputOpts};

pub struct ReduceOpts {
    pub file: Option<String>,
    pub out: OutputOpts,
    pub raw: bool,
    pub no_omit: bool,
    pub classifier: Option<String>,
    pub source_command: Option<String>,
    pub exit_code: i32,
    pub tool_name: String,
    /// Keep the raw input as an artifact (`--store`).
    pub store: bool,
    /// Do not record this run in the history (`--no-stats`).
    pub no_stats: bool,
    /// Who is calling (a host label), for the history.
    pub source: Option<String>,
}

/// The input, and where its raw bytes can be had again for fail-open: a regular file
/// is simply re-read; anything else is captured as it streams.
fn open_input(file: Option<&str>) -> Result<(Box<dyn Read>, RawCapture), String> {
    match file {
        None | Some("-") => Ok((Box::new(std::io::stdin().lock()), RawCapture::default())),
        Some(path) => {
            let f = std::fs::File::open(path)
                .map_err(|e| format!("tokenjuice: cannot read {path}: {e}"))?;
            let regular = f.metadata().is_ok_and(|m| m.is_file());
            let capture = match regular.then(|| std::fs::File::open(path)) {
                Some(Ok(again)) => RawCapture::of_file(again),
                _ => RawCapture::default(),
            };
            Ok((Box::new(f), capture))
        }
    }
}

pub fn reduce(o: ReduceOpts) -> i32 {
    let (mut input, capture) = match open_input(o.file.as_deref()) {
        Ok(r) => r,
        Err(msg) => {
            eprintln!("{msg}");
            return 1;
        }
    };
    // a broken rule or a bug while planning must not lose the input
    let plan = drive::plan_or_raw(|| {
        let rules = if o.raw {
            Default::default()
        } else {
            rules_env::load_for_run()
        };
        let req = Request {
            tool_name: &o.tool_name,
            command: o.source_command.as_deref(),
            argv: None,
            classifier: o.classifier.as_deref(),
            raw: o.raw,
            no_omit: o.no_omit,
            ..Request::default()
        };
        plan(&req, &rules.rules)
    });
    let store = RunStore::begin(
        tokenjuice_store::RunKind::Reduce,
        o.store,
        o.no_stats,
        o.source.as_deref(),
    );
    let mut d = Driver::new(plan.as_ref(), o.out.format, capture, store);
    let stdout = std::io::stdout();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!("tokenjuice: read error: {e}");
                return 1;
            }
        };
        if !d.feed(&buf[..n], false, &stdout) {
            // nobody reads the output any more
            return 0;
        }
    }
    let mut out = stdout.lock();
    if d.stream_raw {
        let _ = out.flush();
        drop(out);
        d.record_streamed(o.exit_code);
        return 0;
    }
    let fin = Finish {
        trace: o.out.trace,
        ..Finish::default()
    };
    match d.finish(o.exit_code, fin) {
        Ok(mut result) => {
            d.store.attach(&mut result);
            crate::capture::note_write(print_result(&mut out, &result, o.out.format, o.exit_code));
            crate::capture::note_write(out.flush());
            drop(out);
            d.store
                .record(d.plan, Ending::Result(&result), Some(o.exit_code));
        }
        Err(msg) => {
            d.fail_open(&mut out, &msg, o.out.format == Format::Json, o.exit_code);
            crate::capture::note_write(out.flush());
            drop(out);
            d.record_failed_open(o.exit_code);
        }
    }
    0
}

/// Largest JSON request accepted.
const MAX_JSON_INPUT: u64 = 256 << 20;

fn json_error(path: &str, message: &str) -> i32 {
    let v = serde_json::json!({ "error": { "path": path, "message": message } });
    println!("{v}");
    1
}

/// Storage switches of `reduce-json` (flags; the request's `options` may add to them).
#[derive(Default)]
pub struct JsonStoreOpts {
    pub store: bool,
    pub no_stats: bool,
    pub source: Option<String>,
}

pub fn reduce_json(file: Option<&str>, so: JsonStoreOpts) -> i32 {
    let input = match open_input(file) {
        Ok((r, _)) => r,
        Err(msg) => return json_error("$", &msg),
    };
    let mut text = String::new();
    if let Err(e) = input.take(MAX_JSON_INPUT + 1).read_to_string(&mut text) {
        return json_error("$", &format!("cannot read the request as UTF-8 text: {e}"));
    }
    if text.len() as u64 > MAX_JSON_INPUT {
        return json_error("$", "the request is larger than 256 MiB");
    }
    if text.trim().is_empty() {
        return json_error("$", "empty input: send a JSON object such as {\"command\":\"git status\",\"combinedText\":\"…\",\"exitCode\":0}");
    }
    let value: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return json_error("$", &format!("invalid JSON: {e}")),
    };
    let (input, options) = match tokenjuice_core::input::parse(&value) {
        Ok(x) => x,
        Err(e) => return json_error(&e.path, &e.message),
    };
    let so = crate::run_store::json_store_opts(&value, so);
    // the host the output goes back to (`--source pi`)
    let host = so
        .source
        .as_deref()
        .and_then(tokenjuice_hosts::registry::by_id);
    let mut store = RunStore::begin(
        tokenjuice_store::RunKind::ReduceJson,
        so.store,
        so.no_stats,
        so.source.as_deref(),
    );
    store.push(input.text.as_bytes());
    store.finish_artifact();
    let rules = rules_env::load_for_run();
    let req = Request {
        tool_name: &input.tool_name,
        command: input.command.as_deref(),
        argv: input.argv.as_deref(),
        classifier: options.classifier.as_deref(),
        raw: options.raw,
        no_omit: options.no_omit || rules_env::no_omission_env(),
        // the host the output goes back to (`--source pi`) shows it whole up to its cut
        host_shows_whole: host.and_then(|h| h.shows_whole()),
    };
    let fin = Finish {
        trace: options.trace,
        recover_hint: store.recover_hint(),
        host_prints_exit: options.host_prints_exit,
        ..Finish::default()
    };
    let done = catch_unwind(AssertUnwindSafe(|| {
        // (the JSON carried text: bytes that were not UTF-8 are `\u{FFFD}` already)
        compact_decoded_text(&req, &rules.rules, &input.text, input.exit_code, &fin)
    }));
    match done {
        Ok((p, mut result)) => {
            // a host whose hook gets the whole output of a command it cuts to its last lines
            // (pi, opencode; it saves the whole output and names the file) gets a line
            // reduction made of the lines it would have shown
            // (`noOmit`: the caller says nothing is to be cut)
            let tail_host = host.filter(|h| matches!(h.cut.shape, CutShape::Tail { .. }));
            if let Some(h) = tail_host.filter(|_| !req.no_omit) {
                let how = store
                    .recover_hint()
                    .unwrap_or_else(|| "the host saved the whole output".into());
                let made = catch_unwind(AssertUnwindSafe(|| {
                    host_view::for_host(
                        &p,
                        &result,
                        &input.text,
                        &h.cut,
                        input.exit_code,
                        options.host_prints_exit,
                        &how,
                    )
                }));
                match made {
                    Ok(Some(ForHost::Text(t))) => result.set_host_text(t),
                    Ok(Some(ForHost::Raw)) | Err(_) => result.set_raw(&input.text),
                    Ok(None) => {}
                }
            }
            store.attach(&mut result);
            // The CompactResult at the top level (what existing adapters read), plus exitCode.
            let mut v = serde_json::to_value(&result).unwrap_or_default();
            if let Some(obj) = v.as_object_mut() {
                obj.insert("exitCode".into(), input.exit_code.into());
            }
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            let _ = serde_json::to_writer_pretty(&mut out, &v);
            let _ = out.write_all(b"\n");
            let _ = out.flush();
            drop(out);
            store.record(Some(&p), Ending::Result(&result), Some(input.exit_code));
            0
        }
        Err(e) => {
            // fail open: the raw text comes back as the result
            eprintln!(
                "tokenjuice: warning: internal error ({}); returning the raw text",
                panic_text(&e)
            );
            let v = serde_json::json!({
                "inlineText": input.text,
                "compaction": { "authoritative": true, "kinds": [Kind::FailOpen.as_str()] },
                "exitCode": input.exit_code,
            });
            println!("{v}");
            let ending = Ending::FailOpen {
                raw_bytes: input.text.len() as u64,
            };
            store.record(None, ending, Some(input.exit_code));
            0
        }
    }
}
