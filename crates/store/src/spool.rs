//! The spool: where a run's record goes first. One small append per run costs a few
//! microseconds, where opening SQLite costs a few hundred; records move into the database
//! in batches (see `history::record`), and before every report.
//!
//! `history.pending` holds one JSON record per line (mode 0600, at most
//! [`MAX_SPOOL_BYTES`]). Appenders hold a shared `flock` while writing; the writer that
//! next holds the database lock claims the file by renaming it, takes an exclusive
//! `flock` (waiting for appenders that opened it before the rename), reads it and adds
//! its records in the same transaction as its own. An appender that finds the file
//! renamed under it (the inode at the path changed) appends again to the new file.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};

use crate::RunRecord;

/// Past this size new records are dropped rather than spooled (the database has been
/// unwritable for a long time; doctor says so).
pub const MAX_SPOOL_BYTES: u64 = 1 << 20;

/// Times an append opens the spool afresh when it was moved away meanwhile.
const APPEND_TRIES: usize = 100;

/// Append one record to the spool; returns the spool's size before and after.
pub fn append(path: &Path, rec: &RunRecord) -> std::io::Result<(u64, u64)> {
    let mut line = serde_json::to_vec(rec).map_err(std::io::Error::other)?;
    line.push(b'\n');
    // a writer moving the spool into the database renames it between our open and our
    // lock; under load (many agents' runs at once) that happened four times in a row, so
    // a record was lost: each try costs an open and a lock, and renames are rare
    for _ in 0..APPEND_TRIES {
        let f = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .open(path)?;
        let mut locked =
            Flock::lock(f, FlockArg::LockShared).map_err(|(_, e)| std::io::Error::from(e))?;
        let same = match (locked.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
            _ => false,
        };
        if !same {
            continue; // claimed while we opened it: append to the new file
        }
        let before = locked.metadata()?.len();
        if before + line.len() as u64 > MAX_SPOOL_BYTES {
            return Err(std::io::Error::other(format!(
                "{} is full ({} KiB)",
                path.display(),
                MAX_SPOOL_BYTES >> 10
            )));
        }
        // One write of a whole line with O_APPEND: concurrent appenders never interleave.
        locked.write_all(&line)?;
        return Ok((before, before + line.len() as u64));
    }
    Err(std::io::Error::other(format!(
        "{} kept being replaced",
        path.display()
    )))
}

/// Records taken from the spool by one writer.
pub struct Claimed {
    pub records: Vec<RunRecord>,
    file: PathBuf,
    spool: PathBuf,
}

impl Claimed {
    /// The records are in the database: forget them.
    pub fn done(self) {
        let _ = std::fs::remove_file(&self.file);
    }

    /// The records could not be written: put them back for the next writer.
    pub fn give_back(self) {
        for r in &self.records {
            let _ = append(&self.spool, r);
        }
        let _ = std::fs::remove_file(&self.file);
    }
}

/// Take the spooled records, if any. Cheap when there is no spool (one `stat`).
pub fn claim(spool: &Path) -> Option<Claimed> {
    std::fs::symlink_metadata(spool).ok()?;
    // Unique per claim, not just per process: two threads of one process claiming at
    // once must not rename onto each other's claimed file.
    static CLAIMS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CLAIMS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut name = spool.as_os_str().to_owned();
    name.push(format!(".claimed-{}-{n}", std::process::id()));
    let claimed = PathBuf::from(name);
    std::fs::rename(spool, &claimed).ok()?;
    let records = match File::open(&claimed) {
        Ok(f) => match Flock::lock(f, FlockArg::LockExclusive) {
            Ok(mut locked) => {
                let mut text = Vec::new();
                let _ = locked.read_to_end(&mut text);
                parse_lines(&text)
            }
            Err(_) => Vec::new(),
        },
        Err(_) => Vec::new(),
    };
    Some(Claimed {
        records,
        file: claimed,
        spool: spool.to_path_buf(),
    })
}

/// Records in spool text; damaged lines (a crash mid-write) are skipped.
fn parse_lines(text: &[u8]) -> Vec<RunRecord> {
    text.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect()
}

/// Number of records waiting in the spool (for doctor).
pub fn pending(spool: &Path) -> usize {
    std::fs::read(spool)
        .map(|t| parse_lines(&t).len())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RunKind;

    pub(crate) fn rec(n: u64) -> RunRecord {
        RunRecord {
            ts_ms: 1_700_000_000_000 + n as i64,
            kind: RunKind::Wrap,
            source: "cli".into(),
            program: "git".into(),
            subcommand: Some("status".into()),
            family: "git-status".into(),
            rule_id: "git/status".into(),
            mode: "reduced".into(),
            exit_code: Some(0),
            raw_bytes: 100 + n,
            raw_tokens: 30,
            reduced_bytes: 40,
            reduced_tokens: 10,
            duration_us: 900,
            capture_truncated: false,
            artifact_id: None,
            command: None,
        }
    }

    #[test]
    fn append_claim_done() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("history.pending");
        assert!(claim(&p).is_none());
        for n in 0..3 {
            append(&p, &rec(n)).unwrap();
        }
        assert_eq!(pending(&p), 3);
        let c = claim(&p).unwrap();
        assert_eq!(c.records, vec![rec(0), rec(1), rec(2)]);
        assert!(!p.exists());
        c.done();
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0);
    }

    #[test]
    fn give_back_keeps_records_and_damaged_lines_are_skipped() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("history.pending");
        append(&p, &rec(1)).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .unwrap()
            .write_all(b"{\"ts_ms\": 12, \"kin")
            .unwrap();
        let c = claim(&p).unwrap();
        assert_eq!(c.records.len(), 1);
        c.give_back();
        assert_eq!(pending(&p), 1);
    }

    #[test]
    fn spool_is_private_and_bounded() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("history.pending");
        append(&p, &rec(1)).unwrap();
        assert_eq!(
            std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let mut n = 0;
        while append(&p, &rec(n)).is_ok() {
            n += 1;
            assert!(n < 100_000, "the spool never filled up");
        }
        assert!(std::fs::metadata(&p).unwrap().len() <= MAX_SPOOL_BYTES);
    }
}
