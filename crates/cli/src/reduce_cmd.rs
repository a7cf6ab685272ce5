//! `tokenjuice reduce` (stream a file or stdin) and `tokenjuice reduce-json` (the adapter protocol).

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex};
use tokenjuice_core::result::Kind;

use tokenjuice_core::budget::CutShape;
use tokenjuice_core::compact::{compact_decoded_text, plan, ChunkScan, Finish, Request, ScanKind};
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
fn open_input(file: Option<&str>) -> Result<(Box<dyn Read + Send>, RawCapture), String> {
    match file {
        None | Some("-") => Ok((Box::new(std::io::stdin()), RawCapture::default())),
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

/// Bytes per read.
const CHUNK: usize = 256 * 1024;

/// The input in chunks. Once a whole chunk's worth has come (a large input), the reads go
/// on on a thread of their own, a few chunks ahead, and that thread also does the search of
/// each whole chunk (`ChunkScan`): the kernel's copy of the next chunk and its search then
/// overlap the reduction of this one's lines (on a 100 MB log, a fifth of the time). A
/// small input is read here, with no thread started.
struct ReadAhead {
    /// Shared with the reading thread, which alone reads once it runs; kept here so that a
    /// thread that cannot start loses nothing (the reads go on here).
    input: Arc<Mutex<Box<dyn Read + Send>>>,
    /// How the session searches chunks (none: no session, nothing to search).
    kind: Option<ScanKind>,
    ended: bool,
    /// Bytes read here so far.
    taken: u64,
    /// A reading thread was asked for (it is not asked again if it could not start).
    asked: bool,
    buf: Vec<u8>,
    /// The queue between the reading thread and this one, once it runs.
    ahead: Option<Arc<Queue>>,
    /// The chunk handed out last by the reading thread.
    current: Chunk,
}

/// A chunk read ahead, with its search (none when there was no session to search for, or
/// the search failed: the session then searches it itself).
#[derive(Default)]
struct Chunk {
    /// A whole chunk's buffer (never shrunk: a pipe's reads are smaller, and growing it
    /// back would zero it again), of which the first `len` bytes were read.
    buf: Vec<u8>,
    len: usize,
    scan: Option<ChunkScan>,
}

/// Chunks read ahead, in order, and the buffers of those reduced (for the next reads).
#[derive(Default)]
struct Queue {
    state: Mutex<QueueState>,
    changed: Condvar,
}

#[derive(Default)]
struct QueueState {
    ready: VecDeque<Chunk>,
    free: Vec<Chunk>,
    /// The reader's last word: the end of the input, or why it stopped.
    end: Option<std::io::Result<()>>,
    /// Nobody takes chunks any more: the reader stops.
    closed: bool,
}

/// Chunks read ahead of the one being reduced.
const AHEAD: usize = 3;

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn wait<'a>(
        &self,
        g: std::sync::MutexGuard<'a, QueueState>,
    ) -> std::sync::MutexGuard<'a, QueueState> {
        self.changed
            .wait(g)
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        if let Some(q) = &self.ahead {
            q.lock().closed = true;
            q.changed.notify_all();
        }
    }
}

impl ReadAhead {
    fn new(input: Box<dyn Read + Send>, kind: Option<ScanKind>) -> ReadAhead {
        ReadAhead {
            input: Arc::new(Mutex::new(input)),
            kind,
            ended: false,
            taken: 0,
            asked: false,
            buf: vec![0; CHUNK],
            ahead: None,
            current: Chunk::default(),
        }
    }

    /// The next chunk and its search, or `None` at the end of the input.
    fn next(&mut self) -> std::io::Result<Option<(&[u8], Option<&ChunkScan>)>> {
        if self.ended {
            return Ok(None);
        }
        if let Some(q) = &self.ahead {
            let mut g = q.lock();
            if !self.current.buf.is_empty() {
                // the buffers handed out before go back to the reader
                g.free.push(std::mem::take(&mut self.current));
            }
            loop {
                if let Some(chunk) = g.ready.pop_front() {
                    drop(g);
                    q.changed.notify_all();
                    self.current = chunk;
                    let c = &self.current;
                    return Ok(Some((&c.buf[..c.len], c.scan.as_ref())));
                }
                if let Some(end) = g.end.take() {
                    self.ended = true;
                    return end.map(|()| None);
                }
                g = q.wait(g);
            }
        }
        let n = read_retrying(&self.input, &mut self.buf)?;
        if n == 0 {
            self.ended = true;
            return Ok(None);
        }
        self.taken += n as u64;
        if self.taken >= CHUNK as u64 && !self.asked {
            self.asked = true;
            self.start_thread();
        }
        Ok(Some((&self.buf[..n], None)))
    }

    #[inline(never)]
    fn start_thread(&mut self) {
        let (input, kind, taken) = (Arc::clone(&self.input), self.kind, self.taken);
        let q = Arc::new(Queue::default());
        let theirs = Arc::clone(&q);
        let spawned = std::thread::Builder::new()
            .name("read-ahead".into())
            .spawn(move || {
                // a reader that panicked says so: the chunks before it are still given, then
                // the error (the reduction must not wait for a reader that is gone)
                let read = catch_unwind(AssertUnwindSafe(|| {
                    read_ahead(&input, kind, taken, &theirs);
                }));
                if read.is_err() {
                    let mut g = theirs.lock();
                    if g.end.is_none() {
                        g.end = Some(Err(std::io::Error::other("the reading thread failed")));
                    }
                    drop(g);
                    theirs.changed.notify_all();
                }
            });
        // without a thread the reads go on here
        if spawned.is_ok() {
            self.ahead = Some(q);
        }
    }
}

/// The reading thread: reads and searches chunks into `q` until the input ends, a read
/// fails or nobody takes chunks any more; `taken` bytes were read before it started.
fn read_ahead(input: &Mutex<Box<dyn Read + Send>>, kind: Option<ScanKind>, taken: u64, q: &Queue) {
    // the output's bytes through the chunk, and the scratch for the search
    let (mut through, mut lower) = (taken, Vec::new());
    loop {
        let mut chunk = q.lock().free.pop().unwrap_or_default();
        chunk.buf.resize(CHUNK, 0);
        let end = match read_retrying(input, &mut chunk.buf) {
            Ok(0) => Some(Ok(())),
            Ok(n) => {
                chunk.len = n;
                through += n as u64;
                chunk.scan = kind.and_then(|kind| {
                    let mut scan = chunk.scan.take().unwrap_or_default();
                    // a bug in the search leaves it to the session, which fails open
                    catch_unwind(AssertUnwindSafe(|| {
                        scan.scan(&chunk.buf[..n], kind, through, &mut lower);
                    }))
                    .ok()
                    .map(|()| scan)
                });
                None
            }
            Err(e) => Some(Err(e)),
        };
        let mut g = q.lock();
        while end.is_none() && g.ready.len() >= AHEAD && !g.closed {
            g = q.wait(g);
        }
        if g.closed {
            return;
        }
        let stop = end.is_some();
        match end {
            Some(end) => g.end = Some(end),
            None => g.ready.push_back(chunk),
        }
        drop(g);
        q.changed.notify_all();
        if stop {
            return;
        }
    }
}

/// One read, again when a signal interrupted it.
fn read_retrying(input: &Mutex<Box<dyn Read + Send>>, buf: &mut [u8]) -> std::io::Result<usize> {
    // a reader that panicked left the input as it was: it can be read on
    let mut input = input
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    loop {
        match input.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

pub fn reduce(o: ReduceOpts) -> i32 {
    let (input, capture) = match open_input(o.file.as_deref()) {
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
    let mut chunks = ReadAhead::new(input, d.scan_kind());
    loop {
        let (chunk, scan) = match chunks.next() {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(e) => {
                eprintln!("tokenjuice: read error: {e}");
                return 1;
            }
        };
        if !d.feed_scanned(chunk, scan, false, &stdout) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use tokenjuice_core::compact::Request;

    /// Bytes given out a few at a time (as a pipe does), then an error if asked.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        fail_at: Option<usize>,
        /// Where reading panics instead.
        panic_at: Option<usize>,
        /// Most bytes per read (a pipe gives 64 KiB at most).
        most: usize,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.fail_at.is_some_and(|f| self.at >= f) {
                return Err(std::io::Error::other("disk on fire"));
            }
            assert!(self.panic_at.is_none_or(|p| self.at < p), "a reader's bug");
            let n = buf.len().min(self.most).min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn trickle(data: Vec<u8>, fail_at: Option<usize>) -> Box<dyn Read + Send> {
        Box::new(Trickle {
            data,
            at: 0,
            fail_at,
            panic_at: None,
            most: usize::MAX,
        })
    }

    fn pipe(data: Vec<u8>) -> Box<dyn Read + Send> {
        Box::new(Trickle {
            data,
            at: 0,
            fail_at: None,
            panic_at: None,
            most: 64 * 1024,
        })
    }

    /// A log of `lines` lines, some of them errors (the keyword search finds those).
    fn log(lines: usize) -> Vec<u8> {
        let mut out = String::new();
        for i in 0..lines {
            if i % 97 == 0 {
                out.push_str(&format!(
                    "2026-11-22T00:00:{:02}Z ERROR unit {i} failed\n",
                    i % 60
                ));
            } else {
                out.push_str(&format!(
                    "2026-11-22T00:00:{:02}Z INFO GET /api/{i} 200\n",
                    i % 60
                ));
            }
        }
        out.into_bytes()
    }

    fn read_all(r: &mut ReadAhead) -> std::io::Result<(Vec<u8>, usize, usize)> {
        let (mut all, mut chunks, mut scanned) = (Vec::new(), 0, 0);
        while let Some((chunk, scan)) = r.next()? {
            all.extend_from_slice(chunk);
            chunks += 1;
            scanned += usize::from(scan.is_some());
        }
        Ok((all, chunks, scanned))
    }

    #[test]
    fn a_small_input_is_read_without_a_thread() {
        let data = log(100);
        let mut r = ReadAhead::new(trickle(data.clone(), None), None);
        let (all, chunks, _) = read_all(&mut r).unwrap();
        assert_eq!(all, data);
        assert_eq!(chunks, 1);
        assert!(r.ahead.is_none());
    }

    #[test]
    fn a_large_input_comes_whole_and_in_order_from_the_reading_thread() {
        let data = log(60_000); // about 2.5 MB
        let mut r = ReadAhead::new(trickle(data.clone(), None), None);
        let (all, chunks, scanned) = read_all(&mut r).unwrap();
        assert!(r.ahead.is_some());
        assert_eq!(all.len(), data.len());
        assert!(all == data, "the chunks came out of order");
        assert_eq!(chunks, data.len().div_ceil(CHUNK));
        assert_eq!(scanned, 0, "no session: nothing to search");
        // the end stays the end
        assert!(r.next().unwrap().is_none());
    }

    #[test]
    fn a_large_input_from_a_pipe_is_read_ahead_too() {
        let data = log(60_000);
        let mut r = ReadAhead::new(pipe(data.clone()), None);
        let (all, chunks, _) = read_all(&mut r).unwrap();
        assert!(
            r.ahead.is_some(),
            "a pipe never fills a whole chunk in one read"
        );
        assert!(all == data);
        assert_eq!(chunks, data.len().div_ceil(64 * 1024));
    }

    #[test]
    fn a_read_error_on_the_reading_thread_is_an_error_here() {
        let data = log(60_000);
        let mut r = ReadAhead::new(trickle(data, Some(2 * CHUNK)), None);
        let err = read_all(&mut r).unwrap_err();
        assert_eq!(err.to_string(), "disk on fire");
    }

    #[test]
    fn a_reader_that_panics_on_the_reading_thread_is_an_error_here_not_a_wait() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = ReadAhead::new(
                Box::new(Trickle {
                    data: log(60_000),
                    at: 0,
                    fail_at: None,
                    panic_at: Some(3 * CHUNK),
                    most: usize::MAX,
                }),
                None,
            );
            let mut got = 0;
            let err = loop {
                match r.next() {
                    Ok(Some((chunk, _))) => got += chunk.len(),
                    Ok(None) => break None,
                    Err(e) => break Some(e.to_string()),
                }
            };
            let _ = tx.send((got, err));
        });
        let (got, err) = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("the reduction waits for a reader that is gone");
        assert_eq!(
            got,
            3 * CHUNK,
            "the chunks read before the panic come first"
        );
        assert_eq!(err.as_deref(), Some("the reading thread failed"));
    }

    #[test]
    fn chunks_searched_on_the_reading_thread_reduce_as_the_session_would() {
        let data = log(60_000);
        let req = Request {
            tool_name: "exec",
            command: Some("tail -n 60000 app.log"),
            ..Request::default()
        };
        let plan = plan(&req, &[]);
        let mut direct = plan.session();
        for chunk in data.chunks(CHUNK) {
            direct.push(chunk);
        }
        let mut ahead = plan.session();
        // from a pipe: the reading thread starts after a few reads, and its chunks are not
        // the session's own chunks (the keyword search's offsets are the thread's)
        let mut r = ReadAhead::new(pipe(data.clone()), Some(ahead.scan_kind()));
        let mut scanned = 0;
        while let Some((chunk, scan)) = r.next().unwrap() {
            match scan {
                Some(scan) => {
                    scanned += 1;
                    ahead.push_scanned(chunk, scan);
                }
                None => ahead.push(chunk),
            }
        }
        assert_eq!(
            scanned,
            data.len().div_ceil(64 * 1024) - 4,
            "all but the first four reads"
        );
        let (a, b) = (
            direct.finish(0, &Finish::default()),
            ahead.finish(0, &Finish::default()),
        );
        assert!(
            a.inline_text.contains("ERROR unit 97 failed"),
            "{}",
            a.inline_text
        );
        assert_eq!(a.inline_text, b.inline_text);
        assert_eq!(a.stats, b.stats);
    }
}
