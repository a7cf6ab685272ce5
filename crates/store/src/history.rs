//! Run history in SQLite.
//!
//! One file, `history.sqlite3` (mode 0600), in WAL mode so readers never block writers
//! and many agent shells can append at once. A writer waits at most `busy_ms` for the
//! lock; then its record goes to the spool ([`crate::spool`]) and the next writer
//! that gets the lock adds it. A damaged file is set aside (renamed
//! `history.sqlite3.damaged-<time>`) and a new one started, once, with one line said.

use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OpenFlags, Row};

use crate::record::{RunKind, RunRecord};
use crate::{spool, Home, Settings, StoreError};

/// A WAL longer than this is checkpointed and truncated after a write (about 30
/// pages: a dozen runs).
const WAL_TRUNCATE_BYTES: u64 = 128 << 10;

/// The schema this build writes and reads.
pub const SCHEMA_VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    id                INTEGER PRIMARY KEY,
    ts_ms             INTEGER NOT NULL,
    kind              TEXT    NOT NULL,
    source            TEXT    NOT NULL,
    program           TEXT    NOT NULL,
    subcommand        TEXT,
    family            TEXT    NOT NULL,
    rule_id           TEXT    NOT NULL,
    mode              TEXT    NOT NULL,
    exit_code         INTEGER,
    raw_bytes         INTEGER NOT NULL,
    raw_tokens        INTEGER NOT NULL,
    reduced_bytes     INTEGER NOT NULL,
    reduced_tokens    INTEGER NOT NULL,
    duration_us       INTEGER NOT NULL,
    capture_truncated INTEGER NOT NULL,
    artifact_id       TEXT,
    command           TEXT
);
CREATE INDEX IF NOT EXISTS runs_ts ON runs(ts_ms);
CREATE INDEX IF NOT EXISTS runs_artifact ON runs(artifact_id) WHERE artifact_id IS NOT NULL;
";

/// The columns of `runs` in [`RunRecord`] order (for `SELECT`).
pub const COLUMNS: &str = "ts_ms, kind, source, program, subcommand, family, rule_id, mode, exit_code, raw_bytes, raw_tokens, reduced_bytes, reduced_tokens, duration_us, capture_truncated, artifact_id, command";

/// An open history database.
pub struct History {
    conn: Connection,
    path: PathBuf,
    /// Inode of the file when it was opened (to set aside the right file when damaged).
    ino: Option<u64>,
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

impl History {
    /// Open (creating if needed) for writing. Waits at most `busy_ms` for locks.
    pub fn open_for_write(home: &Home, busy_ms: u32) -> Result<History, StoreError> {
        let path = home.history_path();
        if !path.exists() {
            home.ensure()?;
            // Created here, not by SQLite, so it is private from the first byte; SQLite
            // gives its -wal and -shm files the same mode.
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
            {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(StoreError::io("create", path, e)),
            }
        }
        let ino = std::fs::metadata(&path).ok().map(|m| m.ino());
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| StoreError::sql("open", &path, e))?;
        let h = History { conn, path, ino };
        h.configure(busy_ms)?;
        h.migrate()?;
        Ok(h)
    }

    /// Open an existing history for reports; `None` when there is none yet.
    pub fn open_existing(home: &Home) -> Result<Option<History>, StoreError> {
        let path = home.history_path();
        if !path.exists() {
            return Ok(None);
        }
        let ino = std::fs::metadata(&path).ok().map(|m| m.ino());
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .or_else(|_| {
            Connection::open_with_flags(
                &path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
        })
        .map_err(|e| StoreError::sql("open", &path, e))?;
        let h = History { conn, path, ino };
        h.configure(2_000)?;
        let version = h.user_version()?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                path: h.path,
                found: version,
                supported: SCHEMA_VERSION,
            });
        }
        if version < SCHEMA_VERSION {
            if h.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true) {
                return Ok(None);
            }
            h.migrate()?;
        }
        Ok(Some(h))
    }

    fn configure(&self, busy_ms: u32) -> Result<(), StoreError> {
        let c = &self.conn;
        c.busy_timeout(Duration::from_millis(u64::from(busy_ms)))
            .map_err(|e| StoreError::sql("configure", &self.path, e))?;
        // Each run is its own short-lived process: closing does not checkpoint (that
        // would cost two fsyncs per run); `checkpoint_if_long` truncates the WAL
        // every few dozen pages instead. (The first connection of a process
        // re-reads the whole WAL to rebuild its index, so a short WAL keeps every
        // open cheap; SQLite's own auto-checkpoint cannot restart the log across
        // processes, so it is not relied on.)
        let _ = c.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        );
        // In WAL mode NORMAL never corrupts; at worst the last runs before a power cut are lost.
        c.pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| StoreError::sql("configure", &self.path, e))?;
        Ok(())
    }

    fn user_version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| StoreError::sql("read the schema version", &self.path, e))
    }

    fn migrate(&self) -> Result<(), StoreError> {
        let v = self.user_version()?;
        if v == SCHEMA_VERSION {
            return Ok(());
        }
        if v > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                path: self.path.clone(),
                found: v,
                supported: SCHEMA_VERSION,
            });
        }
        let c = &self.conn;
        let err = |e| StoreError::sql("create the schema", &self.path, e);
        // Both only take effect on a new, empty database; harmless otherwise.
        c.pragma_update(None, "auto_vacuum", "INCREMENTAL")
            .map_err(err)?;
        let _: String = c
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(err)?;
        c.execute_batch("BEGIN IMMEDIATE").map_err(err)?;
        let done = (|| {
            let v: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
            if v < SCHEMA_VERSION {
                c.execute_batch(SCHEMA)?;
                c.pragma_update(None, "user_version", SCHEMA_VERSION)?;
            }
            c.execute_batch("COMMIT")
        })();
        if let Err(e) = done {
            let _ = c.execute_batch("ROLLBACK");
            return Err(err(e));
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Insert records in one transaction; returns the last row id.
    pub fn insert_all(&mut self, records: &[RunRecord]) -> Result<i64, StoreError> {
        let path = self.path.clone();
        let err = |e| StoreError::sql("add a run", &path, e);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        let mut last = 0;
        {
            let mut st = tx
                .prepare(
                    "INSERT INTO runs (ts_ms, kind, source, program, subcommand, family, rule_id, mode, exit_code, raw_bytes, raw_tokens, reduced_bytes, reduced_tokens, duration_us, capture_truncated, artifact_id, command)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
                )
                .map_err(err)?;
            for r in records {
                st.execute(params![
                    r.ts_ms,
                    r.kind.as_str(),
                    r.source,
                    r.program,
                    r.subcommand,
                    r.family,
                    r.rule_id,
                    r.mode,
                    r.exit_code,
                    to_i64(r.raw_bytes),
                    to_i64(r.raw_tokens),
                    to_i64(r.reduced_bytes),
                    to_i64(r.reduced_tokens),
                    to_i64(r.duration_us),
                    r.capture_truncated,
                    r.artifact_id,
                    r.command,
                ])
                .map_err(err)?;
                last = tx.last_insert_rowid();
            }
        }
        tx.commit().map_err(err)?;
        Ok(last)
    }

    /// Move the WAL into the database and truncate it, when it has grown past
    /// [`WAL_TRUNCATE_BYTES`]. Skipped quietly while other connections are busy.
    pub fn checkpoint_if_long(&self) {
        let mut wal = self.path.as_os_str().to_owned();
        wal.push("-wal");
        let long =
            std::fs::metadata(PathBuf::from(wal)).is_ok_and(|m| m.len() > WAL_TRUNCATE_BYTES);
        if long {
            let _ = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }

    /// Runs in `[from_ms, to_ms)`, oldest first.
    pub fn runs_between(&self, from_ms: i64, to_ms: i64) -> Result<Vec<RunRecord>, StoreError> {
        let err = |e| StoreError::sql("read runs", &self.path, e);
        let mut st = self
            .conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM runs WHERE ts_ms >= ?1 AND ts_ms < ?2 ORDER BY ts_ms, id"
            ))
            .map_err(err)?;
        let rows = st
            .query_map(params![from_ms, to_ms], record_from_row)
            .map_err(err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(err)
    }

    pub fn count(&self) -> Result<u64, StoreError> {
        self.conn
            .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get::<_, i64>(0))
            .map(to_u64)
            .map_err(|e| StoreError::sql("count runs", &self.path, e))
    }

    /// Bytes on disk: the database and its WAL.
    pub fn disk_bytes(&self) -> u64 {
        disk_bytes(&self.path)
    }

    /// Checks SQLite's own integrity check (quick form); `Ok(None)` when fine.
    pub fn quick_check(&self) -> Result<Option<String>, StoreError> {
        let r: String = self
            .conn
            .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
            .map_err(|e| StoreError::sql("check", &self.path, e))?;
        Ok((r != "ok").then_some(r))
    }
}

/// Size of the database file and its WAL.
pub fn disk_bytes(db: &Path) -> u64 {
    let mut n = 0;
    for suffix in ["", "-wal"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        n += std::fs::metadata(PathBuf::from(p))
            .map(|m| m.len())
            .unwrap_or(0);
    }
    n
}

pub fn record_from_row(r: &Row<'_>) -> rusqlite::Result<RunRecord> {
    let kind: String = r.get(1)?;
    Ok(RunRecord {
        ts_ms: r.get(0)?,
        kind: RunKind::parse(&kind).unwrap_or(RunKind::Wrap),
        source: r.get(2)?,
        program: r.get(3)?,
        subcommand: r.get(4)?,
        family: r.get(5)?,
        rule_id: r.get(6)?,
        mode: r.get(7)?,
        exit_code: r.get(8)?,
        raw_bytes: to_u64(r.get(9)?),
        raw_tokens: to_u64(r.get(10)?),
        reduced_bytes: to_u64(r.get(11)?),
        reduced_tokens: to_u64(r.get(12)?),
        duration_us: to_u64(r.get(13)?),
        capture_truncated: r.get(14)?,
        artifact_id: r.get(15)?,
        command: r.get(16)?,
    })
}

/// What happened to a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Written to the database (with `n` spooled records from earlier runs).
    Recorded { row_id: i64, drained: usize },
    /// The database was busy; parked in the spool for the next writer.
    Spooled,
    /// History is turned off.
    Disabled,
    /// Lost: the database and the spool could not be written.
    Dropped(String),
    /// The database was damaged: it was set aside, a new one started, the record written.
    Reset { set_aside: PathBuf },
}

/// Record one run: appended to the spool, and moved into the database with the spool's
/// other records each time the spool crosses a multiple of `settings.batch_bytes` (32 KiB
/// by default: about one run in a hundred pays for opening the database), or at once when
/// batching is off (`batch_bytes` 0) or the spool cannot be written. Never panics on I/O or database trouble, never
/// waits more than about `busy_ms`, never prints: the caller decides what to say (at
/// most one line, for [`Outcome::Reset`]).
pub fn record(settings: &Settings, rec: &RunRecord) -> Outcome {
    if !settings.history {
        return Outcome::Disabled;
    }
    let Some(home) = &settings.home else {
        return Outcome::Dropped(StoreError::NoHome.to_string());
    };
    let mut pending = Some(rec);
    if let Some(batch) = std::num::NonZeroU64::new(settings.batch_bytes) {
        if let Ok((before, after)) = spool::append(&home.spool_path(), rec) {
            if before / batch == after / batch {
                return Outcome::Spooled;
            }
            // this run crossed a batch boundary: it moves the spool (its own record
            // included) into the database
            pending = None;
        }
    }
    let ino_before = std::fs::metadata(home.history_path()).ok().map(|m| m.ino());
    match write(home, settings, pending) {
        Ok(o) => o,
        Err(StoreError::Corrupt { .. }) => match set_aside(home, ino_before) {
            Ok(set_aside) => match write(home, settings, pending) {
                Ok(o) => match set_aside {
                    Some(set_aside) => Outcome::Reset { set_aside },
                    // another run set it aside first (and said so)
                    None => o,
                },
                Err(e) => Outcome::Dropped(e.to_string()),
            },
            Err(e) => Outcome::Dropped(e.to_string()),
        },
        // already in the spool: the next boundary or report moves it
        Err(e) if e.is_busy() && pending.is_none() => Outcome::Spooled,
        Err(e) if e.is_busy() => match spool::append(&home.spool_path(), rec) {
            Ok(_) => Outcome::Spooled,
            Err(se) => Outcome::Dropped(format!("{e}; and the spool: {se}")),
        },
        Err(e) if pending.is_none() => Outcome::Dropped(format!(
            "{e} (the record stays in {} for the next try)",
            home.spool_path().display()
        )),
        Err(e) => Outcome::Dropped(e.to_string()),
    }
}

/// Write the spooled records and `rec` (if any) in one transaction.
fn write(home: &Home, settings: &Settings, rec: Option<&RunRecord>) -> Result<Outcome, StoreError> {
    let mut h = History::open_for_write(home, settings.busy_ms)?;
    let claimed = spool::claim(&home.spool_path());
    let mut batch: Vec<RunRecord> = Vec::new();
    if let Some(c) = &claimed {
        batch.extend(c.records.iter().cloned());
    }
    let drained = batch.len();
    batch.extend(rec.cloned());
    if batch.is_empty() {
        // another run moved the spool first
        if let Some(c) = claimed {
            c.done();
        }
        return Ok(Outcome::Spooled);
    }
    match h.insert_all(&batch) {
        Ok(row_id) => {
            if let Some(c) = claimed {
                c.done();
            }
            h.checkpoint_if_long();
            if should_prune(row_id, drained) {
                let _ = crate::retention::prune(&h, home, settings, crate::now_ms(), None);
            }
            Ok(Outcome::Recorded { row_id, drained })
        }
        Err(e) => {
            if let Some(c) = claimed {
                c.give_back();
            }
            Err(e)
        }
    }
}

/// Retention runs on about one write in 128 (row ids are sequential), so its cost
/// (a few ms at most) is spread thin and old data still goes within a day of use.
fn should_prune(row_id: i64, drained: usize) -> bool {
    let first = row_id - drained as i64;
    (first..=row_id).any(|id| id % 128 == 0)
}

/// Rename a damaged database aside (and drop its WAL/SHM) so a new one can start.
/// Only the file that was found damaged (same inode) is moved: when another run got
/// there first, nothing is moved and `None` comes back.
fn set_aside(home: &Home, damaged_ino: Option<u64>) -> Result<Option<PathBuf>, StoreError> {
    let path = home.history_path();
    let now_ino = std::fs::metadata(&path).ok().map(|m| m.ino());
    if now_ino.is_none() || now_ino != damaged_ino {
        return Ok(None);
    }
    let to = home.dir.join(format!(
        "{}.damaged-{}",
        crate::home::HISTORY_FILE,
        crate::now_ms()
    ));
    std::fs::rename(&path, &to).map_err(|e| StoreError::io("set aside", path.clone(), e))?;
    for suffix in ["-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
    Ok(Some(to))
}

impl History {
    /// The inode this connection opened (tests use it to check a file was replaced).
    pub fn inode(&self) -> Option<u64> {
        self.ino
    }
}

/// Move spooled records into the database now (reports call this so they count every
/// run). Returns how many were moved.
pub fn flush_spool(home: &Home, busy_ms: u32) -> Result<usize, StoreError> {
    if !home.spool_path().exists() {
        return Ok(0);
    }
    let mut h = History::open_for_write(home, busy_ms)?;
    let Some(claimed) = spool::claim(&home.spool_path()) else {
        return Ok(0);
    };
    let n = claimed.records.len();
    if n == 0 {
        claimed.done();
        return Ok(0);
    }
    match h.insert_all(&claimed.records) {
        Ok(_) => {
            claimed.done();
            Ok(n)
        }
        Err(e) => {
            claimed.give_back();
            Err(e)
        }
    }
}
