//! `tokenjuice verify [--fixtures]`: check every rule layer, optionally run fixtures.

use std::collections::BTreeMap;

use tokenjuice_core::fixture;
use tokenjuice_core::rules::builtin::{builtin_fixtures, BUILTIN_RULES};
use tokenjuice_core::rules::compiled::CompiledRule;
use tokenjuice_core::rules::loader::{fixture_files, load_files_checked, parse_builtin, Problem};

use crate::{rules_env, Format};

pub fn run(fixtures: bool, format: Format) -> i32 {
    let mut problems: Vec<Problem> = Vec::new();
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for b in BUILTIN_RULES {
        let file = format!("builtin:rules/{}", b.path);
        if let Some(first) = seen.insert(b.id, b.path) {
            problems.push(Problem {
                file: file.clone(),
                json_path: "$.id".into(),
                message: format!("duplicate id `{}` (also in rules/{first})", b.id),
                is_error: true,
            });
        }
        match parse_builtin(b) {
            Ok(rule) => {
                if let Err(ds) = CompiledRule::compile(&rule) {
                    problems.extend(ds.into_iter().map(|d| Problem {
                        file: file.clone(),
                        json_path: d.path,
                        message: d.message,
                        is_error: true,
                    }));
                }
            }
            Err(ds) => problems.extend(ds.into_iter().map(|d| Problem {
                file: file.clone(),
                json_path: d.path,
                message: d.message,
                is_error: true,
            })),
        }
    }
    let dirs = rules_env::dirs();
    let files = load_files_checked(&dirs);
    problems.extend(files.problems.iter().cloned());
    // patterns that backtrack without bound on short strings of their own characters
    for fr in &files.rules {
        if let Ok(c) = CompiledRule::compile(&fr.rule) {
            for re in c.regexes() {
                if let Some(probe) = re.backtracks_badly() {
                    problems.push(Problem {
                        file: fr.path.display().to_string(),
                        json_path: "$".into(),
                        message: format!(
                            "the pattern /{}/ hits the backtracking limit on `{}`: on real output every such line costs the whole limit (the pattern is given up after a few); rewrite it without nested repetition",
                            tokenjuice_core::rules::jsregex::short(re.as_str()),
                            probe.escape_debug()
                        ),
                        is_error: true,
                    });
                }
            }
        }
    }
    let rule_count = BUILTIN_RULES.len() + files.rules.len();

    let mut fixture_count = 0usize;
    let mut fixture_failures: Vec<(String, String)> = Vec::new();
    if fixtures {
        let mut covered: BTreeMap<String, usize> = BTreeMap::new();
        for (path, text) in builtin_fixtures() {
            fixture_count += 1;
            let shown = format!("builtin:rules/{path}");
            match fixture::parse(&text) {
                Ok(fx) => {
                    *covered.entry(fx.rule_id.clone()).or_default() += 1;
                    let (fails, _) = fixture::run(&fx, &[]);
                    for f in fails {
                        fixture_failures.push((format!("{shown} ({})", fx.id), f));
                    }
                }
                Err(e) => fixture_failures.push((shown, e)),
            }
        }
        for b in BUILTIN_RULES {
            if !covered.contains_key(b.id) {
                fixture_failures.push((
                    format!("coverage:{}", b.id),
                    "built-in rule has no fixture".into(),
                ));
            }
        }
        let dirs_list: Vec<_> = dirs
            .user
            .iter()
            .chain(dirs.project.iter())
            .cloned()
            .collect();
        for d in dirs_list {
            for path in fixture_files(&d) {
                fixture_count += 1;
                let shown = path.display().to_string();
                match std::fs::read_to_string(&path)
                    .map_err(|e| e.to_string())
                    .and_then(|t| fixture::parse(&t))
                {
                    Ok(fx) => {
                        let (fails, _) = fixture::run(&fx, &files.rules);
                        for f in fails {
                            fixture_failures.push((format!("{shown} ({})", fx.id), f));
                        }
                    }
                    Err(e) => fixture_failures.push((shown, e)),
                }
            }
        }
    }
    let errors = problems.iter().filter(|p| p.is_error).count();
    let ok = errors == 0 && fixture_failures.is_empty();
    match format {
        Format::Json => {
            let v = serde_json::json!({
                "ok": ok,
                "rules": rule_count,
                "fixtures": fixture_count,
                "problems": problems.iter().map(|p| serde_json::json!({
                    "file": p.file, "path": p.json_path, "message": p.message,
                    "severity": if p.is_error { "error" } else { "warning" },
                })).collect::<Vec<_>>(),
                "fixtureFailures": fixture_failures.iter().map(|(f, m)| serde_json::json!({"fixture": f, "message": m})).collect::<Vec<_>>(),
            });
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        }
        Format::Text => {
            for p in &problems {
                let sev = if p.is_error { "error" } else { "warning" };
                eprintln!("{sev}: {p}");
            }
            for (f, m) in &fixture_failures {
                eprintln!("fixture failed: {f}: {m}");
            }
            if ok {
                if fixtures {
                    println!("ok: {rule_count} rules validated, {fixture_count} fixtures verified");
                } else {
                    println!("ok: {rule_count} rules validated");
                }
            } else {
                println!(
                    "failed: {errors} rule errors, {} fixture failures ({rule_count} rules, {fixture_count} fixtures)",
                    fixture_failures.len()
                );
            }
        }
    }
    i32::from(!ok)
}
