//! Writes docs/coverage.md: every built-in rule with what it keeps, its fixtures and the
//! token reduction measured on them with the o200k tokenizer (exact), and reports how far
//! tokenjuice's built-in token estimate is from the exact count.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use tokenjuice_core::fixture;
use tokenjuice_core::rules::builtin::{builtin_fixtures, BUILTIN_RULES};
use tokenjuice_core::rules::Rule;
use tokenjuice_core::tokens;

#[derive(Default)]
struct Row {
    family: String,
    description: String,
    real: usize,
    documented: usize,
    raw: usize,
    reduced: usize,
}

fn main() {
    let bpe = tiktoken_rs::o200k_base().expect("o200k table is embedded in tiktoken-rs");
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.first().is_some_and(|a| a == "--count") {
        // `--count FILE...`: the exact token count of each file, for scripts/live-eval
        for f in &files[1..] {
            let text = std::fs::read(f).unwrap_or_else(|e| panic!("{f}: {e}"));
            let text = String::from_utf8_lossy(&text);
            println!("{}\t{f}", bpe.encode_ordinary(&text).len());
        }
        return;
    }
    if std::env::var("TOKENIZE").is_ok() {
        // print how each stdin line is split, for looking at the tokenizer
        for line in std::io::stdin().lines().map_while(Result::ok) {
            let toks = bpe.encode_ordinary(&line);
            let pieces: Vec<String> = toks
                .iter()
                .map(|t| format!("{:?}", bpe.decode(vec![*t]).unwrap_or_default()))
                .collect();
            println!(
                "{} tokens (estimate {}): {}",
                toks.len(),
                tokens::estimate(&line),
                pieces.join(" ")
            );
        }
        return;
    }
    let count = |s: &str| bpe.encode_ordinary(s).len();
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    for r in BUILTIN_RULES {
        // the binary embeds rules without their description: it is read from the file
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/").to_string() + r.path;
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let rule = Rule::from_json(&text).expect("built-in rules parse");
        rows.insert(
            r.id.to_string(),
            Row {
                family: rule.family.clone(),
                description: rule.description.clone().unwrap_or_default(),
                ..Row::default()
            },
        );
    }
    let (mut est_err, mut est_n, mut est_bias) = (0f64, 0usize, 0f64);
    let (mut total_raw, mut total_reduced) = (0usize, 0usize);
    let mut grew: Vec<String> = Vec::new();
    let all_fixtures = builtin_fixtures();
    let rules_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/");
    for (path, _) in &all_fixtures {
        // the binary embeds fixtures without their `about`: they are read from the file
        let file = format!("{rules_dir}{path}");
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let fx = fixture::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        let (_, result) = fixture::run(&fx, &[]);
        let Some(result) = result else { continue };
        let raw = tokenjuice_core::input::parse(&fx.input)
            .map(|(i, _)| i.text)
            .unwrap_or_default();
        let (raw_t, red_t) = (count(&raw), count(&result.inline_text));
        if std::env::var("FEATURES").is_ok() {
            for (text, exact) in [(raw.as_str(), raw_t), (result.inline_text.as_str(), red_t)] {
                let f = tokens::features(text.as_bytes());
                println!(
                    "F,{exact},{}",
                    f.iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                );
            }
        }
        for (text, exact) in [(raw.as_str(), raw_t), (result.inline_text.as_str(), red_t)] {
            if exact >= 20 {
                let est = tokens::estimate(text) as f64;
                let e = (est - exact as f64) / exact as f64;
                est_err += e.abs();
                est_bias += e;
                est_n += 1;
            }
        }
        total_raw += raw_t;
        total_reduced += red_t;
        if red_t > raw_t {
            grew.push(format!("{path} ({raw_t} → {red_t})"));
        }
        let row = rows.entry(fx.rule_id.clone()).or_insert_with(|| Row {
            family: result.classification.family.clone(),
            description: virtual_description(&fx.rule_id).into(),
            ..Row::default()
        });
        if fx.about.as_deref().unwrap_or("").contains("documented") {
            row.documented += 1;
        } else {
            row.real += 1;
        }
        row.raw += raw_t;
        row.reduced += red_t;
    }
    let mut md = String::new();
    writeln!(md, "# Rule coverage\n").ok();
    writeln!(
        md,
        "Generated by `cargo run --release --manifest-path tools/coverage/Cargo.toml` from the built-in rules and \
their fixtures. Tokens are counted exactly with the o200k tokenizer (the GPT-4o family's) on each fixture's raw \
output and on tokenjuice's reduction of it. Fixtures are real output captured on this machine unless counted as \
\"documented\" (written from the tool's documented output format because the tool cannot run here; each fixture's \
`about` says why).\n"
    )
    .ok();
    writeln!(
        md,
        "**{} rules, {} fixtures: {} → {} tokens ({:.0}% less) over all fixtures.** Small outputs that would not \
shrink by 10% (and by fewer than 150 tokens) pass through whole by design, so per-rule savings are lowest for rules whose fixtures are short.\n",
        rows.len(),
        all_fixtures.len(),
        total_raw,
        total_reduced,
        100.0 * (1.0 - total_reduced as f64 / total_raw.max(1) as f64)
    )
    .ok();
    writeln!(
        md,
        "Token estimate used at run time (`stats.rawTokens`/`reducedTokens`, method `estimate-o200k`): mean absolute \
error {:.1}%, bias {:+.1}% against the exact count, over {} texts of 20+ tokens.\n",
        100.0 * est_err / est_n.max(1) as f64,
        100.0 * est_bias / est_n.max(1) as f64,
        est_n
    )
    .ok();
    writeln!(
        md,
        "Outputs that grew (more tokens after reduction than before): {}{}\n",
        grew.len(),
        if grew.is_empty() {
            String::new()
        } else {
            format!(" — {}", grew.join(", "))
        }
    )
    .ok();
    // by family: (rules, fixtures, raw, reduced)
    type Totals = (usize, usize, usize, usize);
    let mut families: BTreeMap<&str, Totals> = BTreeMap::new();
    for row in rows.values() {
        let f = families.entry(row.family.as_str()).or_default();
        f.0 += 1;
        f.1 += row.real + row.documented;
        f.2 += row.raw;
        f.3 += row.reduced;
    }
    let mut fam: Vec<(&str, Totals)> = families.into_iter().collect();
    fam.sort_by(|a, b| b.1 .2.cmp(&a.1 .2).then(a.0.cmp(b.0)));
    writeln!(md, "## By family\n").ok();
    writeln!(md, "| family | rules | fixtures | tokens raw → reduced |").ok();
    writeln!(md, "|---|---:|---:|---|").ok();
    for (name, (rules, fixtures, raw, reduced)) in fam {
        let pct = if raw == 0 {
            "—".to_string()
        } else {
            format!("{:.0}%", 100.0 * (1.0 - reduced as f64 / raw as f64))
        };
        writeln!(
            md,
            "| {name} | {rules} | {fixtures} | {raw} → {reduced} ({pct}) |"
        )
        .ok();
    }
    writeln!(md).ok();
    let mut by_dir: BTreeMap<String, Vec<(&String, &Row)>> = BTreeMap::new();
    for (id, row) in &rows {
        by_dir
            .entry(id.split('/').next().unwrap_or("").to_string())
            .or_default()
            .push((id, row));
    }
    for (dir, list) in by_dir {
        writeln!(md, "## {dir}\n").ok();
        writeln!(md, "| rule id | family | what it keeps | fixtures (real + documented) | tokens raw → reduced |").ok();
        writeln!(md, "|---|---|---|---|---|").ok();
        for (id, r) in list {
            let pct = if r.raw > 0 {
                100.0 * (1.0 - r.reduced as f64 / r.raw as f64)
            } else {
                0.0
            };
            writeln!(
                md,
                "| `{id}` | {} | {} | {} + {} | {} → {} ({:.0}%) |",
                r.family,
                r.description.replace('|', "\\|"),
                r.real,
                r.documented,
                r.raw,
                r.reduced,
                pct
            )
            .ok();
        }
        writeln!(md).ok();
    }
    let out = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/coverage.md");
    std::fs::write(out, md).expect("write docs/coverage.md");
    println!(
        "docs/coverage.md: {} rules, {} fixtures, {total_raw} -> {total_reduced} tokens; estimate MAE {:.1}% bias {:+.1}%",
        rows.len(),
        all_fixtures.len(),
        100.0 * est_err / est_n.max(1) as f64,
        100.0 * est_bias / est_n.max(1) as f64
    );
}

fn virtual_description(id: &str) -> &'static str {
    match id {
        "generic/json" => "Whole-output JSON: minified, whole up to 12,000 characters; a larger document keeps every key with long arrays cut to their first items and long strings clipped, each cut counted.",
        "generic/package-lock-summary" => "Reads of package-lock.json: name, version, lockfileVersion, package counts, direct dependencies with locked versions, packages locked at several versions.",
        "generic/names" => "A list of names, one per line, from a command without a rule (`rustup target list`, `git tag`, `locale -a`): every name in its order, a run sharing its first part said once (`aarch64- (20): apple-darwin apple-ios …`), numbered runs folded to their first and last; used only when that saves a fifth of the tokens.",
        "generic/paths" => "A list of paths, one per line, from a command without a rule (`dpkg -L`, `locate`, `… | head -300` of one): every path, grouped by directory as the find rule does (numbered runs folded to their first and last), instead of the fallback's cut.",
        "generic/diff" => "A unified diff from a command without a rule (`isort --diff`, `buf format -d`, `gofmt -d`): read as `git diff` is, every file, hunk header and changed line, context shrunk to one line around each change (each run under a header with its own line numbers), instead of the fallback's cut.",
        "generic/json-lines" => "JSON lines (one object per line: `buf breaking --error-format json`) from a command without a rule: one table, field names said once and one line of values per object, every object kept; used only when it holds them all within 24,000 characters and saves a quarter.",
        "generic/github-actions-log" => "GitHub Actions run logs: each failing step's error lines with context and the exit code; steps without errors listed by name.",
        _ => "",
    }
}
