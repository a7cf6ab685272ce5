//! Where reducers fall short (`tokenjuice discover`), from the history.
//!
//! - **missing rule**: a command whose output keeps going to `generic/fallback`.
//! - **weak rule**: a specific rule that leaves most of the output (token ratio at or
//!   above [`Thresholds::weak_ratio`]).
//!
//! Only runs that could have been reduced count: `--raw` runs and exact file reads are
//! byte-identical by design, and outputs under [`Thresholds::min_run_tokens`] are too
//! small to matter. Candidates are ranked by the tokens at stake: what those runs
//! still sent to the model.

use rusqlite::params;
use serde::Serialize;

use crate::history::History;
use crate::record::command_key;
use crate::report::FALLBACK;
use crate::StoreError;

#[derive(Debug, Clone, Copy)]
pub struct Thresholds {
    /// A run smaller than this (raw tokens) is not considered.
    pub min_run_tokens: u64,
    /// A candidate needs at least this many tokens at stake in total.
    pub min_stake_tokens: u64,
    /// A rule whose reduced/raw token ratio is at least this is weak.
    pub weak_ratio: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            min_run_tokens: 100,
            min_stake_tokens: 300,
            weak_ratio: 0.65,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    MissingRule,
    WeakRule,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::MissingRule => "missing-rule",
            Kind::WeakRule => "weak-rule",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub kind: Kind,
    /// The command (`program subcommand`) for a missing rule, the rule id for a weak one.
    pub key: String,
    pub runs: u64,
    pub raw_tokens: u64,
    pub reduced_tokens: u64,
    /// Tokens these runs still sent to the model.
    pub at_stake_tokens: u64,
    pub ratio: f64,
    /// For a weak rule: the command it was used for most (by tokens).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_command: Option<String>,
    /// What to do about it.
    pub suggestion: String,
}

fn u(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// Candidates among runs in `[from_ms, to_ms)`, most tokens at stake first.
pub fn candidates(
    h: &History,
    from_ms: i64,
    to_ms: i64,
    t: &Thresholds,
) -> Result<Vec<Candidate>, StoreError> {
    let c = h.conn();
    let err = |e| StoreError::sql("read runs", h.path(), e);
    let min_run = i64::try_from(t.min_run_tokens).unwrap_or(i64::MAX);
    let mut out = Vec::new();

    let mut st = c
        .prepare(
            "SELECT program, subcommand, COUNT(*), SUM(raw_tokens), SUM(reduced_tokens)
             FROM runs
             WHERE ts_ms >= ?1 AND ts_ms < ?2 AND rule_id = ?3 AND mode IN ('reduced', 'passthrough')
               AND raw_tokens >= ?4
             GROUP BY program, subcommand",
        )
        .map_err(err)?;
    let rows = st
        .query_map(params![from_ms, to_ms, FALLBACK, min_run], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(1)?,
                u(r.get(2)?),
                u(r.get(3)?),
                u(r.get(4)?),
            ))
        })
        .map_err(err)?;
    for row in rows {
        let (program, sub, runs, raw, reduced) = row.map_err(err)?;
        if reduced < t.min_stake_tokens {
            continue;
        }
        let key = command_key(&program, sub.as_deref());
        let suggestion = if program.is_empty() {
            "the command was not known: pass --source-command to reduce, or `command` to reduce-json, so a rule can be chosen".to_string()
        } else {
            let mut m = format!("\"argv0\": [\"{program}\"]");
            if let Some(s) = &sub {
                m.push_str(&format!(", \"argvIncludes\": [[\"{s}\"]]"));
            }
            format!("write a rule with \"match\": {{{m}}} in ~/.config/tokenjuice/rules or .tokenjuice/rules (see docs/rules.md); check it with `tokenjuice verify`")
        };
        out.push(Candidate {
            kind: Kind::MissingRule,
            key,
            runs,
            raw_tokens: raw,
            reduced_tokens: reduced,
            at_stake_tokens: reduced,
            ratio: ratio(reduced, raw),
            top_command: None,
            suggestion,
        });
    }

    let mut st = c
        .prepare(
            "SELECT rule_id, COUNT(*), SUM(raw_tokens), SUM(reduced_tokens)
             FROM runs
             WHERE ts_ms >= ?1 AND ts_ms < ?2 AND rule_id != ?3 AND mode IN ('reduced', 'passthrough')
               AND raw_tokens >= ?4
             GROUP BY rule_id",
        )
        .map_err(err)?;
    let rows = st
        .query_map(params![from_ms, to_ms, FALLBACK, min_run], |r| {
            Ok((
                r.get::<_, String>(0)?,
                u(r.get(1)?),
                u(r.get(2)?),
                u(r.get(3)?),
            ))
        })
        .map_err(err)?;
    let mut weak = Vec::new();
    for row in rows {
        let (rule, runs, raw, reduced) = row.map_err(err)?;
        if reduced < t.min_stake_tokens || ratio(reduced, raw) < t.weak_ratio {
            continue;
        }
        weak.push((rule, runs, raw, reduced));
    }
    for (rule, runs, raw, reduced) in weak {
        let top_command: Option<String> = c
            .query_row(
                "SELECT program, subcommand FROM runs
                 WHERE ts_ms >= ?1 AND ts_ms < ?2 AND rule_id = ?3 AND raw_tokens >= ?4
                 GROUP BY program, subcommand ORDER BY SUM(reduced_tokens) DESC LIMIT 1",
                params![from_ms, to_ms, rule, min_run],
                |r| {
                    Ok(command_key(
                        &r.get::<_, String>(0)?,
                        r.get::<_, Option<String>>(1)?.as_deref(),
                    ))
                },
            )
            .ok();
        out.push(Candidate {
            kind: Kind::WeakRule,
            suggestion: format!(
                "`{rule}` keeps {:.0}% of what it sees: look at one output with `tokenjuice wrap --store --trace -- …` then `tokenjuice cat <id>`, and override the rule by id (skipPatterns, summarize, or a keep-block) in ~/.config/tokenjuice/rules",
                ratio(reduced, raw) * 100.0
            ),
            key: rule,
            runs,
            raw_tokens: raw,
            reduced_tokens: reduced,
            at_stake_tokens: reduced,
            ratio: ratio(reduced, raw),
            top_command,
        });
    }
    out.sort_by(|a, b| {
        b.at_stake_tokens
            .cmp(&a.at_stake_tokens)
            .then(b.runs.cmp(&a.runs))
            .then_with(|| a.key.cmp(&b.key))
    });
    Ok(out)
}

fn ratio(reduced: u64, raw: u64) -> f64 {
    if raw == 0 {
        1.0
    } else {
        reduced as f64 / raw as f64
    }
}

/// The verdict on one output (`tokenjuice discover FILE …`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Single {
    pub rule_id: String,
    pub raw_tokens: u64,
    pub reduced_tokens: u64,
    pub ratio: f64,
    /// `missing-rule`, `weak-rule`, `fine`, `too-small` or `not-reducible`.
    pub verdict: String,
    pub explanation: String,
}

/// Judge one reduction by the same thresholds as the history.
pub fn judge(
    rule_id: &str,
    mode: &str,
    raw_tokens: u64,
    reduced_tokens: u64,
    t: &Thresholds,
) -> Single {
    let r = ratio(reduced_tokens, raw_tokens);
    let (verdict, explanation) = if matches!(mode, "raw" | "exact-read") {
        (
            "not-reducible",
            "shown byte-identical by design (--raw or an exact file read)".to_string(),
        )
    } else if raw_tokens < t.min_run_tokens {
        (
            "too-small",
            format!("{raw_tokens} tokens: too small to be worth a rule"),
        )
    } else if rule_id == FALLBACK {
        (
            "missing-rule",
            format!(
                "no specific rule matched; the generic fallback kept {:.0}%",
                r * 100.0
            ),
        )
    } else if r >= t.weak_ratio {
        (
            "weak-rule",
            format!("`{rule_id}` kept {:.0}% of the tokens", r * 100.0),
        )
    } else {
        (
            "fine",
            format!("`{rule_id}` kept {:.0}% of the tokens", r * 100.0),
        )
    };
    Single {
        rule_id: rule_id.to_string(),
        raw_tokens,
        reduced_tokens,
        ratio: r,
        verdict: verdict.to_string(),
        explanation,
    }
}
