//! Retention: history rows and artifacts older than `retention_days` go; then, while
//! history and artifacts together are over `max_size_mb`, the oldest artifacts go, and
//! then the oldest rows (the database file is shrunk afterwards).
//!
//! An artifact just stored (`keep`) is never removed by the run that stored it, even
//! when alone it is over the budget: its id was just printed.

use rusqlite::params;

use crate::artifact::{self, ArtifactId};
use crate::history::{disk_bytes, History};
use crate::{Home, Settings, StoreError};

/// What one pass removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pruned {
    pub runs: u64,
    pub artifacts: u64,
}

/// Leftovers of interrupted writes older than this are removed.
const STALE_PART_MS: i64 = 6 * 3_600_000;

/// Apply retention now.
pub fn prune(
    history: &History,
    home: &Home,
    settings: &Settings,
    now_ms: i64,
    keep: Option<&ArtifactId>,
) -> Result<Pruned, StoreError> {
    prune_with(Some(history), home, settings, now_ms, keep)
}

/// Apply retention; without a history only artifacts are considered.
pub fn prune_with(
    history: Option<&History>,
    home: &Home,
    settings: &Settings,
    now_ms: i64,
    keep: Option<&ArtifactId>,
) -> Result<Pruned, StoreError> {
    let mut pruned = Pruned::default();
    let max_age = settings.max_age_ms();
    let cutoff = (max_age > 0).then(|| now_ms.saturating_sub(max_age));

    // 1. by age
    if let (Some(h), Some(cutoff)) = (history, cutoff) {
        let n = h
            .conn()
            .execute("DELETE FROM runs WHERE ts_ms < ?1", params![cutoff])
            .map_err(|e| StoreError::sql("remove old runs", h.path(), e))?;
        pruned.runs += n as u64;
    }
    let mut arts = artifact::list(home)?;
    arts.retain(|a| {
        let old = cutoff.is_some_and(|c| a.meta.created_ms < c);
        let kept = keep.is_some_and(|k| k.as_str() == a.id);
        if old && !kept {
            if let Ok(id) = ArtifactId::parse(&a.id) {
                artifact::remove(home, &id);
                pruned.artifacts += 1;
            }
            false
        } else {
            true
        }
    });
    remove_stale_parts(home, now_ms);

    // 2. by size
    if settings.max_bytes == 0 {
        return Ok(pruned);
    }
    let db_bytes = history
        .map(History::disk_bytes)
        .unwrap_or_else(|| disk_bytes(&home.history_path()));
    let art_bytes: u64 = arts.iter().map(|a| a.meta.stored_bytes + 512).sum();
    let mut total = db_bytes + art_bytes;
    // oldest artifacts first (list is newest first)
    while total > settings.max_bytes {
        let Some(pos) = arts
            .iter()
            .rposition(|a| keep.is_none_or(|k| k.as_str() != a.id))
        else {
            break;
        };
        let a = arts.remove(pos);
        if let Ok(id) = ArtifactId::parse(&a.id) {
            artifact::remove(home, &id);
            pruned.artifacts += 1;
        }
        total = total.saturating_sub(a.meta.stored_bytes + 512);
    }
    if total > settings.max_bytes {
        if let Some(h) = history {
            pruned.runs += shrink_history(h, total - settings.max_bytes)?;
        }
    }
    Ok(pruned)
}

/// Remove the oldest rows to free about `excess` bytes, then give the pages back.
fn shrink_history(h: &History, excess: u64) -> Result<u64, StoreError> {
    let err = |e| StoreError::sql("shrink", h.path(), e);
    let rows = h.count()?;
    if rows == 0 {
        return Ok(0);
    }
    let bytes = h.disk_bytes().max(1);
    let per_row = (bytes / rows).max(64);
    // a quarter more than needed, so this does not run again at the next write
    let n = (excess / per_row + 1) * 5 / 4;
    let removed = h
        .conn()
        .execute(
            "DELETE FROM runs WHERE id IN (SELECT id FROM runs ORDER BY ts_ms, id LIMIT ?1)",
            params![i64::try_from(n).unwrap_or(i64::MAX)],
        )
        .map_err(err)?;
    // the pragma frees pages as it is stepped: run it to the end
    {
        let mut st = h.conn().prepare("PRAGMA incremental_vacuum").map_err(err)?;
        let mut rows = st.query([]).map_err(err)?;
        while rows.next().map_err(err)?.is_some() {}
    }
    // move the freed pages out of the WAL and truncate it; skipped if readers are busy
    let _ = h
        .conn()
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    Ok(removed as u64)
}

fn remove_stale_parts(home: &Home, now_ms: i64) {
    let old = |p: &std::path::Path| {
        std::fs::metadata(p)
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .is_some_and(|d| (d.as_millis() as i64) < now_ms - STALE_PART_MS)
    };
    if let Ok(rd) = std::fs::read_dir(home.artifact_dir()) {
        for e in rd.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(".tj_") && name.ends_with(".part") && old(&e.path()) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    if let Ok(rd) = std::fs::read_dir(&home.dir) {
        for e in rd.flatten() {
            let name = e.file_name();
            if name
                .to_string_lossy()
                .starts_with(&format!("{}.claimed-", crate::home::SPOOL_FILE))
                && old(&e.path())
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}
