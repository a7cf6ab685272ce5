//! The host table of `docs/hosts.md`, produced from the last end-to-end run: one row per
//! host that ran (version, mechanism, whether compaction reached the model, invariants held,
//! tokens saved, time added per command), then the hosts that do not run here and why.

use std::path::Path;

use serde_json::Value;

const START: &str = "<!-- e2e-table:start -->";
const END: &str = "<!-- e2e-table:end -->";

/// Hosts with no real-agent run, and why (kept beside the measured rows).
const NOT_RUN: &[(&str, &str)] = &[
    ("qwen-code", "not supported: a hook replaces a result only by stopping the tool (Qwen then records it as not run, and a failing command ignores it); rewrites are ignored; no shell prefix; `install` refuses (shown in the real Qwen Code 0.24.4 by `crates/e2e/tests/qwen_code.rs`)"),
    ("cursor", "not supported: Cursor applies a hook's rewrite only with a permission decision (allow or deny), which would answer for the user; `install` refuses and points to `cursor-rules` guidance (Cursor's CLI does not install here)"),
    ("vscode-copilot", "not supported: VS Code applies a hook's rewrite before its terminal auto-approve rules, which would then judge the rewritten command (allow entries stop matching; an entry requiring approval for `rm` no longer matches it); no hook replaces a result; no shell prefix; `install` refuses (VS Code does not install here; read in its public source)"),
    ("devin", "not supported: its hooks follow Claude Code's, where permission rules judge a hook's rewritten input; no documented hook replaces a result; no shell prefix; `install` refuses (Devin's CLI does not install here)"),
];

fn row(v: &Value) -> String {
    let scenarios = v["scenarios"].as_array().cloned().unwrap_or_default();
    let total = scenarios.len();
    let ok = scenarios.iter().filter(|s| s["ok"] == true).count();
    let compaction: Vec<&Value> = scenarios
        .iter()
        .filter(|s| {
            s["tokens_without"].as_u64().unwrap_or(0) > s["tokens_with"].as_u64().unwrap_or(0)
        })
        .collect();
    let without: u64 = compaction
        .iter()
        .filter_map(|s| s["tokens_without"].as_u64())
        .sum();
    let with: u64 = compaction
        .iter()
        .filter_map(|s| s["tokens_with"].as_u64())
        .sum();
    let saved = if without > 0 {
        format!(
            "{without} → {with} ({:.0}% less)",
            100.0 - 100.0 * with as f64 / without as f64
        )
    } else {
        "—".into()
    };
    let mut latency = latency_cell(v);
    if let Some(us) = v["own_us"].as_u64() {
        latency.push_str(&format!(
            "; the prefix's own time in the host: {:.1} ms",
            us as f64 / 1000.0
        ));
    }
    format!(
        "| {} | {} | {} | {} | {ok}/{total} | {saved} | {latency} |",
        v["host"].as_str().unwrap_or("?"),
        v["version"]
            .as_str()
            .and_then(|t| t.lines().next())
            .unwrap_or("?")
            .trim_end_matches('.'),
        v["mechanism"].as_str().unwrap_or("?"),
        if compaction.is_empty() { "no" } else { "yes" },
    )
}

/// The time added per command: with several rounds (`latency_runs`, pairs of medians without
/// and with tokenjuice), the median of their differences and the range; with one, that one.
fn latency_cell(v: &Value) -> String {
    let build = v["build"].as_str().unwrap_or("debug");
    let mut runs: Vec<(i64, i64)> = v["latency_runs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p[0].as_i64()?, p[1].as_i64()?)))
        .collect();
    if runs.is_empty() {
        if let (Some(a), Some(b)) = (
            v["latency_ms_without"].as_i64(),
            v["latency_ms_with"].as_i64(),
        ) {
            runs.push((a, b));
        }
    }
    match runs.len() {
        0 => "—".into(),
        1 => {
            let (a, b) = runs[0];
            format!("{:+} ms ({a} → {b} ms, {build} build)", b - a)
        }
        n => {
            let mut d: Vec<i64> = runs.iter().map(|(a, b)| b - a).collect();
            d.sort_unstable();
            let median = if n % 2 == 1 {
                d[n / 2] as f64
            } else {
                (d[n / 2 - 1] + d[n / 2]) as f64 / 2.0
            };
            let mut without: Vec<i64> = runs.iter().map(|r| r.0).collect();
            without.sort_unstable();
            // with eight rounds or more, the middle half of the rounds too (the range alone
            // is set by the two noisiest)
            let middle = if n >= 8 {
                format!(", middle half {:+}…{:+}", d[n / 4], d[n - 1 - n / 4])
            } else {
                String::new()
            };
            format!(
                "{median:+} ms (median of {n} rounds, each {:+}…{:+}{middle}; host alone ~{} ms; {build} build)",
                d[0],
                d[n - 1],
                without[n / 2]
            )
        }
    }
}

/// The table for the reports in `dir`.
pub fn table(dir: &Path) -> Result<(String, usize), String> {
    let mut reports: Vec<Value> = Vec::new();
    let rd = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in rd.flatten() {
        if e.path().extension().is_some_and(|x| x == "json") {
            let text = std::fs::read_to_string(e.path())
                .map_err(|er| format!("{}: {er}", e.path().display()))?;
            reports.push(
                serde_json::from_str(&text)
                    .map_err(|er| format!("{}: {er}", e.path().display()))?,
            );
        }
    }
    reports.sort_by(|a, b| a["host"].as_str().cmp(&b["host"].as_str()));
    let mut out = String::from(
        "| host | version | mechanism | compaction reaches the model | scenarios as without tokenjuice (or smaller) | tokens, noisy scenarios (without → with) | added time per command (median) |\n|---|---|---|---|---|---|---|\n",
    );
    for r in &reports {
        out.push_str(&row(r));
        out.push('\n');
    }
    for (host, why) in NOT_RUN {
        if !reports.iter().any(|r| r["host"] == *host) {
            out.push_str(&format!("| {host} | — | {why} | no | — | — | — |\n"));
        }
    }
    Ok((out, reports.len()))
}

/// Rewrite the marked table in `doc`.
pub fn rewrite(dir: &Path, doc: &Path) -> Result<usize, String> {
    let (t, n) = table(dir)?;
    let text = std::fs::read_to_string(doc).map_err(|e| format!("{}: {e}", doc.display()))?;
    let (Some(a), Some(b)) = (text.find(START), text.find(END)) else {
        return Err(format!("{}: no {START} … {END} markers", doc.display()));
    };
    let new = format!("{}{START}\n{t}{}", &text[..a], &text[b..]);
    std::fs::write(doc, new).map_err(|e| format!("{}: {e}", doc.display()))?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_row_sums_the_noisy_scenarios_and_the_latency() {
        let r = row(&json!({"host": "h", "version": "1.0", "mechanism": "m",
            "scenarios": [{"ok": true, "tokens_without": 100, "tokens_with": 25}, {"ok": false, "tokens_without": 5, "tokens_with": 5}],
            "latency_ms_without": 40, "latency_ms_with": 43, "build": "release"}));
        assert_eq!(
            r,
            "| h | 1.0 | m | yes | 1/2 | 100 → 25 (75% less) | +3 ms (40 → 43 ms, release build) |"
        );
    }

    #[test]
    fn several_rounds_give_the_median_difference_and_its_range() {
        let v = json!({"build": "release", "latency_runs": [[40, 52], [41, 42], [47, 47]]});
        assert_eq!(
            latency_cell(&v),
            "+1 ms (median of 3 rounds, each +0…+12; host alone ~41 ms; release build)"
        );
        let runs: Vec<Value> = (0..8).map(|i| json!([40, 40 + i])).collect();
        let v = json!({"build": "release", "latency_runs": runs});
        assert_eq!(
            latency_cell(&v),
            "+3.5 ms (median of 8 rounds, each +0…+7, middle half +2…+5; host alone ~40 ms; release build)"
        );
        let v = json!({"build": "release", "latency_runs": [[40, 44], [40, 41]]});
        assert_eq!(
            latency_cell(&v),
            "+2.5 ms (median of 2 rounds, each +1…+4; host alone ~40 ms; release build)"
        );
    }
}
