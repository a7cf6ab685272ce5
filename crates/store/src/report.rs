//! Savings reports (`tokenjuice stats`): totals and breakdowns, summed in SQL.
//!
//! Tokens saved = raw tokens − reduced tokens, summed over runs, so every total is
//! exactly the sum of the rows it covers. Days are bucketed in the requested zone: SQL
//! groups runs by quarter hour (every zone offset in use is a multiple of 15 minutes)
//! and each quarter hour is then placed on its local day.

use std::collections::BTreeMap;

use rusqlite::params;
use serde::Serialize;

use crate::history::History;
use crate::timefmt::{self, Date, TimeZone};
use crate::StoreError;

/// Rule id of the generic fallback.
pub const FALLBACK: &str = "generic/fallback";

/// How to break the totals down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Reducer,
    Command,
    Source,
    Family,
    Day,
}

impl By {
    pub fn name(self) -> &'static str {
        match self {
            By::Reducer => "reducer",
            By::Command => "command",
            By::Source => "source",
            By::Family => "family",
            By::Day => "day",
        }
    }
}

/// Sums over a set of runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sums {
    pub runs: u64,
    pub raw_tokens: u64,
    pub reduced_tokens: u64,
    /// raw − reduced (negative when the shown text was larger, e.g. an added `exit N`).
    pub saved_tokens: i64,
    pub raw_bytes: u64,
    pub reduced_bytes: u64,
}

impl Sums {
    /// reduced / raw tokens (1 when nothing was seen).
    pub fn ratio(&self) -> f64 {
        if self.raw_tokens == 0 {
            1.0
        } else {
            self.reduced_tokens as f64 / self.raw_tokens as f64
        }
    }

    /// saved / raw tokens, in percent.
    pub fn saved_pct(&self) -> f64 {
        if self.raw_tokens == 0 {
            0.0
        } else {
            self.saved_tokens as f64 * 100.0 / self.raw_tokens as f64
        }
    }

    fn add(&mut self, o: &Sums) {
        self.runs += o.runs;
        self.raw_tokens += o.raw_tokens;
        self.reduced_tokens += o.reduced_tokens;
        self.saved_tokens += o.saved_tokens;
        self.raw_bytes += o.raw_bytes;
        self.reduced_bytes += o.reduced_bytes;
    }
}

/// One line of a breakdown.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    pub key: String,
    #[serde(flatten)]
    pub sums: Sums,
    pub ratio: f64,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub from_ms: i64,
    pub to_ms: i64,
    pub timezone: String,
    pub totals: Sums,
    pub ratio: f64,
    pub saved_pct: f64,
    /// Runs whose capture hit its cap (their raw sizes still count: the reduction saw every byte).
    pub capture_truncated_runs: u64,
    pub failed_runs: u64,
    pub fallback_runs: u64,
    /// Runs shown raw on request or as exact file reads (nothing to save by design).
    pub raw_runs: u64,
    pub reducers: Vec<Group>,
    pub commands: Vec<Group>,
    pub sources: Vec<Group>,
    pub families: Vec<Group>,
    pub days: Vec<Group>,
}

const SUMS: &str = "COUNT(*), COALESCE(SUM(raw_tokens),0), COALESCE(SUM(reduced_tokens),0), COALESCE(SUM(raw_bytes),0), COALESCE(SUM(reduced_bytes),0)";

fn sums_at(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Sums> {
    let u = |n: i64| u64::try_from(n).unwrap_or(0);
    let raw: i64 = r.get(i + 1)?;
    let red: i64 = r.get(i + 2)?;
    Ok(Sums {
        runs: u(r.get(i)?),
        raw_tokens: u(raw),
        reduced_tokens: u(red),
        saved_tokens: raw - red,
        raw_bytes: u(r.get(i + 3)?),
        reduced_bytes: u(r.get(i + 4)?),
    })
}

fn group(key: String, sums: Sums) -> Group {
    Group {
        key,
        ratio: sums.ratio(),
        sums,
    }
}

/// Build the report for runs in `[from_ms, to_ms)`.
pub fn build(h: &History, from_ms: i64, to_ms: i64, tz: &TimeZone) -> Result<Report, StoreError> {
    build_for(h, from_ms, to_ms, tz, None)
}

/// The report for one source (host label) only.
pub fn build_for_source(
    h: &History,
    from_ms: i64,
    to_ms: i64,
    tz: &TimeZone,
    source: &str,
) -> Result<Report, StoreError> {
    build_for(h, from_ms, to_ms, tz, Some(source))
}

/// Runs in the window (`?1`, `?2`), of one source when `?3` is not NULL.
const WINDOW: &str = "ts_ms >= ?1 AND ts_ms < ?2 AND (?3 IS NULL OR source = ?3)";

fn build_for(
    h: &History,
    from_ms: i64,
    to_ms: i64,
    tz: &TimeZone,
    source: Option<&str>,
) -> Result<Report, StoreError> {
    let c = h.conn();
    let err = |e| StoreError::sql("read runs", h.path(), e);
    let (totals, truncated, failed, fallback, raw_runs) = c
        .query_row(
            &format!(
                "SELECT {SUMS}, COALESCE(SUM(capture_truncated),0), COALESCE(SUM(exit_code IS NOT NULL AND exit_code != 0),0),
                        COALESCE(SUM(rule_id = ?4),0), COALESCE(SUM(mode IN ('raw','exact-read')),0)
                 FROM runs WHERE {WINDOW}"
            ),
            params![from_ms, to_ms, source, FALLBACK],
            |r| {
                Ok((
                    sums_at(r, 0)?,
                    r.get::<_, i64>(5)?,
                    r.get::<_, i64>(6)?,
                    r.get::<_, i64>(7)?,
                    r.get::<_, i64>(8)?,
                ))
            },
        )
        .map_err(err)?;
    let grouped = |key_sql: &str| -> Result<Vec<Group>, StoreError> {
        let mut st = c
            .prepare(&format!(
                "SELECT {key_sql} AS k, {SUMS} FROM runs WHERE {WINDOW}
                 GROUP BY k ORDER BY SUM(raw_tokens) - SUM(reduced_tokens) DESC, COUNT(*) DESC, k"
            ))
            .map_err(err)?;
        let rows = st
            .query_map(params![from_ms, to_ms, source], |r| {
                Ok(group(r.get::<_, String>(0)?, sums_at(r, 1)?))
            })
            .map_err(err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(err)
    };
    let reducers = grouped("rule_id")?;
    let commands = grouped(
        "CASE WHEN program = '' THEN '(unknown)' WHEN subcommand IS NULL OR subcommand = '' THEN program ELSE program || ' ' || subcommand END",
    )?;
    let sources = grouped("source")?;
    let families = grouped("family")?;
    let days = days(h, from_ms, to_ms, tz, source)?;
    let u = |n: i64| u64::try_from(n).unwrap_or(0);
    Ok(Report {
        from_ms,
        to_ms,
        timezone: timefmt::zone_name(tz),
        ratio: totals.ratio(),
        saved_pct: totals.saved_pct(),
        totals,
        capture_truncated_runs: u(truncated),
        failed_runs: u(failed),
        fallback_runs: u(fallback),
        raw_runs: u(raw_runs),
        reducers,
        commands,
        sources,
        families,
        days,
    })
}

/// Per-day sums in `tz` for every day of `[from_ms, to_ms)`, empty days included,
/// oldest first.
fn days(
    h: &History,
    from_ms: i64,
    to_ms: i64,
    tz: &TimeZone,
    source: Option<&str>,
) -> Result<Vec<Group>, StoreError> {
    let err = |e| StoreError::sql("read runs", h.path(), e);
    let mut st = h
        .conn()
        .prepare(&format!(
            "SELECT ts_ms / 900000 AS q, {SUMS} FROM runs WHERE {WINDOW} GROUP BY q ORDER BY q"
        ))
        .map_err(err)?;
    let rows = st
        .query_map(params![from_ms, to_ms, source], |r| {
            Ok((r.get::<_, i64>(0)?, sums_at(r, 1)?))
        })
        .map_err(err)?;
    let mut by_day: BTreeMap<Date, Sums> = BTreeMap::new();
    for row in rows {
        let (q, sums) = row.map_err(err)?;
        by_day
            .entry(timefmt::day_of(q * 900_000, tz))
            .or_default()
            .add(&sums);
    }
    if by_day.is_empty() {
        return Ok(Vec::new());
    }
    // Every day of the window, empty ones too; at most MAX_DAYS (the newest).
    let end = timefmt::day_of(to_ms.saturating_sub(1), tz);
    let floor = to_ms.saturating_sub(MAX_DAYS as i64 * 86_400_000);
    let mut d = timefmt::day_of(from_ms.max(floor), tz);
    let mut out = Vec::new();
    while d <= end {
        out.push(group(
            timefmt::date_key(d),
            by_day.remove(&d).unwrap_or_default(),
        ));
        match timefmt::next_day(d) {
            Some(n) => d = n,
            None => break,
        }
    }
    Ok(out)
}

/// Longest day list a report shows.
pub const MAX_DAYS: usize = 400;

impl Report {
    /// The breakdown for `by`.
    pub fn groups(&self, by: By) -> &[Group] {
        match by {
            By::Reducer => &self.reducers,
            By::Command => &self.commands,
            By::Source => &self.sources,
            By::Family => &self.families,
            By::Day => &self.days,
        }
    }
}

/// The time of the oldest run, if any.
pub fn first_run_ms(h: &History) -> Result<Option<i64>, StoreError> {
    h.conn()
        .query_row("SELECT MIN(ts_ms) FROM runs", [], |r| r.get(0))
        .map_err(|e| StoreError::sql("read runs", h.path(), e))
}
