//! Reducer health from the history (`tokenjuice doctor` with no target).

use serde::Serialize;

use crate::discover::{self, Candidate, Kind, Thresholds};
use crate::history::History;
use crate::report::{self, Sums};
use crate::StoreError;

/// The fallback may take this share of raw tokens before it is worth a warning.
pub const FALLBACK_SHARE_WARN: f64 = 0.35;
/// A token ratio at or above this over enough runs is poor.
pub const POOR_RATIO: f64 = 0.85;
/// Fewer runs than this say too little for a `poor` verdict.
pub const MIN_RUNS_FOR_POOR: u64 = 20;
/// The fallback's share is only judged over at least this many runs.
pub const MIN_RUNS_FOR_SHARE: u64 = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Good,
    Warn,
    Poor,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Good => "good",
            Verdict::Warn => "warn",
            Verdict::Poor => "poor",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    pub verdict: Verdict,
    pub totals: Sums,
    /// reduced / raw tokens over reducible runs.
    pub ratio: f64,
    /// Mean of per-run ratios over reducible runs.
    pub average_run_ratio: f64,
    pub fallback_runs: u64,
    /// Share of reducible runs that fell to the generic fallback.
    pub fallback_share_runs: f64,
    /// Share of reducible raw tokens that went to the generic fallback.
    pub fallback_share_tokens: f64,
    pub missing: Vec<Candidate>,
    pub weak: Vec<Candidate>,
    /// Why the verdict is what it is.
    pub reasons: Vec<String>,
    /// What to do.
    pub advice: Vec<String>,
}

/// Judge runs in `[from_ms, to_ms)`.
pub fn health(h: &History, from_ms: i64, to_ms: i64) -> Result<Health, StoreError> {
    let c = h.conn();
    let err = |e| StoreError::sql("read runs", h.path(), e);
    let (runs, raw, reduced, fb_runs, fb_raw, avg): (i64, i64, i64, i64, i64, Option<f64>) = c
        .query_row(
            "SELECT COUNT(*), COALESCE(SUM(raw_tokens),0), COALESCE(SUM(reduced_tokens),0),
                    COALESCE(SUM(rule_id = ?3),0), COALESCE(SUM(CASE WHEN rule_id = ?3 THEN raw_tokens ELSE 0 END),0),
                    AVG(CASE WHEN raw_tokens > 0 THEN CAST(reduced_tokens AS REAL) / raw_tokens END)
             FROM runs WHERE ts_ms >= ?1 AND ts_ms < ?2 AND mode NOT IN ('raw', 'exact-read')",
            rusqlite::params![from_ms, to_ms, report::FALLBACK],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
        )
        .map_err(err)?;
    let u = |n: i64| u64::try_from(n).unwrap_or(0);
    let totals = Sums {
        runs: u(runs),
        raw_tokens: u(raw),
        reduced_tokens: u(reduced),
        saved_tokens: raw - reduced,
        raw_bytes: 0,
        reduced_bytes: 0,
    };
    let cands = discover::candidates(h, from_ms, to_ms, &Thresholds::default())?;
    let (missing, weak): (Vec<_>, Vec<_>) =
        cands.into_iter().partition(|c| c.kind == Kind::MissingRule);
    let share = |a: i64, b: i64| if b > 0 { a as f64 / b as f64 } else { 0.0 };
    let fallback_share_runs = share(fb_runs, runs);
    let fallback_share_tokens = share(fb_raw, raw);
    let ratio = totals.ratio();
    let mut reasons = Vec::new();
    let mut advice = Vec::new();
    let mut verdict = Verdict::Good;
    if runs == 0 {
        verdict = Verdict::Warn;
        reasons.push("no reducible runs recorded in this window".to_string());
        advice.push("run commands through `tokenjuice wrap` (or install a host integration); if you do, check that history is on: TOKENJUICE_STATS is not 0/false/no/off and `[history] enabled` is not false in config.toml".to_string());
    } else {
        if u(runs) >= MIN_RUNS_FOR_POOR && ratio >= POOR_RATIO {
            verdict = Verdict::Poor;
            reasons.push(format!(
                "outputs keep {:.0}% of their tokens on average (poor at {:.0}% or more)",
                ratio * 100.0,
                POOR_RATIO * 100.0
            ));
        }
        if u(runs) >= MIN_RUNS_FOR_SHARE && fallback_share_tokens >= FALLBACK_SHARE_WARN {
            if verdict == Verdict::Good {
                verdict = Verdict::Warn;
            }
            reasons.push(format!(
                "{:.0}% of output tokens ({} of {} runs) went to the generic fallback",
                fallback_share_tokens * 100.0,
                fb_runs,
                runs
            ));
        }
        if !weak.is_empty() {
            if verdict == Verdict::Good {
                verdict = Verdict::Warn;
            }
            reasons.push(format!(
                "{} {} little: {}",
                weak.len(),
                if weak.len() == 1 {
                    "rule saves"
                } else {
                    "rules save"
                },
                weak.iter()
                    .take(3)
                    .map(|c| c.key.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if verdict == Verdict::Good {
            reasons.push(format!(
                "outputs keep {:.0}% of their tokens; the fallback takes {:.0}% of them",
                ratio * 100.0,
                fallback_share_tokens * 100.0
            ));
            if u(runs) < MIN_RUNS_FOR_SHARE {
                reasons.push(format!(
                    "only {runs} {} so far: too few to judge the fallback share ({MIN_RUNS_FOR_SHARE} needed) or the ratio ({MIN_RUNS_FOR_POOR} needed)",
                    if runs == 1 { "run" } else { "runs" }
                ));
            } else if u(runs) < MIN_RUNS_FOR_POOR {
                reasons.push(format!(
                    "only {runs} runs so far: too few to judge the ratio ({MIN_RUNS_FOR_POOR} needed)"
                ));
            }
        }
        if let Some(m) = missing.first() {
            advice.push(format!(
                "most tokens left to the fallback come from `{}` ({} runs): {}",
                m.key, m.runs, m.suggestion
            ));
        }
        if let Some(w) = weak.first() {
            advice.push(w.suggestion.clone());
        }
        if !missing.is_empty() || !weak.is_empty() {
            advice.push(
                "`tokenjuice discover` lists every candidate, ranked by tokens at stake"
                    .to_string(),
            );
        }
    }
    Ok(Health {
        verdict,
        totals,
        ratio,
        average_run_ratio: avg.unwrap_or(1.0),
        fallback_runs: u(fb_runs),
        fallback_share_runs,
        fallback_share_tokens,
        missing,
        weak,
        reasons,
        advice,
    })
}
