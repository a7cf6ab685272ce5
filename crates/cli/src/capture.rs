//! Keeps the raw output of a command so it can be printed unchanged if anything
//! inside tokenjuice fails (fail open) or stored as an artifact.
//!
//! The first 8 MiB stay in memory; beyond that bytes go to an unlinked temporary
//! file (page cache, not process memory), up to 256 MiB. Past that cap the capture
//! is marked truncated: the reduction itself still sees every byte.
//!
//! When the input is a regular file (`reduce FILE`), nothing is copied: the file itself
//! is read again from the start if the raw output is needed.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use tokenjuice_core::result::Kind;

const MEM_CAP: usize = 8 << 20;
const SPOOL_CAP: u64 = 256 << 20;

#[derive(Default)]
pub struct RawCapture {
    mem: Vec<u8>,
    spool: Option<File>,
    spooled: u64,
    pub total: u64,
    pub truncated: bool,
    spool_failed: bool,
    /// The input file itself, when the input is a regular file: read again on demand.
    source: Option<File>,
}

impl RawCapture {
    /// A capture backed by the regular file being read (its own handle, so the
    /// reader's position is not disturbed).
    pub fn of_file(f: File) -> RawCapture {
        RawCapture {
            source: Some(f),
            ..RawCapture::default()
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        if self.truncated || self.source.is_some() {
            return;
        }
        if self.spool.is_none() && self.mem.len() + chunk.len() <= MEM_CAP {
            self.mem.extend_from_slice(chunk);
            return;
        }
        if self.spool.is_none() && !self.spool_failed {
            match tempfile::tempfile() {
                Ok(f) => self.spool = Some(f),
                Err(_) => self.spool_failed = true,
            }
        }
        match &mut self.spool {
            Some(f) if self.spooled + chunk.len() as u64 <= SPOOL_CAP => {
                if f.write_all(chunk).is_ok() {
                    self.spooled += chunk.len() as u64;
                } else {
                    self.truncated = true;
                }
            }
            _ => self.truncated = true,
        }
    }

    /// The start of the output held in memory (empty for a file input).
    pub fn head(&self) -> &[u8] {
        &self.mem
    }

    /// Stream everything kept to `out`.
    pub fn write_to(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        if let Some(f) = &mut self.source {
            f.seek(SeekFrom::Start(0))?;
            std::io::copy(&mut f.take(self.total), out)?;
            return Ok(());
        }
        out.write_all(&self.mem)?;
        if let Some(f) = &mut self.spool {
            f.seek(SeekFrom::Start(0))?;
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let n = f.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                out.write_all(&buf[..n])?;
            }
        }
        Ok(())
    }
}

/// Fail open, one way for `wrap` and `reduce`: the raw output as it was (text), or a JSON
/// result holding it (`--format json`, so a reader of JSON still gets JSON), with a line
/// saying when bytes past the capture's cap were not kept.
pub fn fail_open(
    out: &mut dyn Write,
    capture: &mut RawCapture,
    json: bool,
    exit_code: i32,
) -> std::io::Result<()> {
    if json {
        let mut raw = Vec::new();
        capture.write_to(&mut raw)?;
        let v = serde_json::json!({
            "result": { "inlineText": String::from_utf8_lossy(&raw), "compaction": {"authoritative": !capture.truncated, "kinds": [Kind::FailOpen.as_str()]} },
            "exitCode": exit_code,
        });
        writeln!(out, "{v}")
    } else {
        capture.write_to(out)?;
        if capture.truncated {
            writeln!(out, "\n[tokenjuice: output past 264 MiB was not kept]")?;
        }
        Ok(())
    }
}

/// Says once, on stderr, that our output could not be written (a full disk, an I/O error):
/// the output is not silently lost. A reader that went away (broken pipe) is not an error.
/// The exit code stays the command's.
pub fn note_write(result: std::io::Result<()>) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static SAID: AtomicBool = AtomicBool::new(false);
    if let Err(e) = result {
        if e.kind() != std::io::ErrorKind::BrokenPipe && !SAID.swap(true, Ordering::Relaxed) {
            eprintln!(
                "tokenjuice: error: the output could not be written ({e}); it is lost unless kept with --store. The exit code is the command's"
            );
        }
    }
}
