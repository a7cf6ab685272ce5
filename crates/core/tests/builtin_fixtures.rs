//! Every built-in fixture: its expectations hold, and its reduced text matches the
//! reviewed golden file in `tests/snapshots/` (insta; `INSTA_UPDATE=always` to rewrite,
//! then review the diff by eye before committing).

use tokenjuice_core::fixture::{self, Fixture};
use tokenjuice_core::rules::builtin::{builtin_fixtures, BUILTIN_RULES};

fn fixtures() -> Vec<(String, Fixture)> {
    builtin_fixtures()
        .into_iter()
        .map(|(path, text)| {
            let fx = fixture::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
            (path, fx)
        })
        .collect()
}

#[test]
fn builtin_fixture_expectations_hold() {
    let mut failures = Vec::new();
    for (path, fx) in fixtures() {
        let (fails, _) = fixture::run(&fx, &[]);
        for f in fails {
            failures.push(format!("{path} ({}): {f}", fx.id));
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn builtin_fixtures_match_their_golden_output() {
    for (path, fx) in fixtures() {
        let (_, result) = fixture::run(&fx, &[]);
        let Some(r) = result else { continue };
        let name = path.trim_end_matches(".fixture.json").replace('/', "__");
        let header = format!(
            "rule: {}\nraw: {} tokens, {} lines -> reduced: {} tokens\n---\n",
            r.classification.matched_reducer,
            r.stats.raw_tokens,
            r.stats.raw_lines,
            r.stats.reduced_tokens
        );
        insta::assert_snapshot!(name, format!("{header}{}", r.inline_text));
    }
}

#[test]
fn every_builtin_rule_has_a_success_and_a_failure_fixture() {
    let all = fixtures();
    let mut missing = Vec::new();
    for rule in BUILTIN_RULES {
        let codes: Vec<i64> = all
            .iter()
            .filter(|(_, f)| f.rule_id == rule.id)
            .map(|(_, f)| {
                f.input
                    .get("exitCode")
                    .or_else(|| f.input.get("exit_code"))
                    .and_then(|v| v.as_i64())
                    .unwrap_or(0)
            })
            .collect();
        if !codes.contains(&0) || !codes.iter().any(|c| *c != 0) {
            missing.push(format!(
                "{}: fixtures with exit codes {codes:?} (needs a success and a failure)",
                rule.id
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn every_builtin_rule_reads_back_as_its_file_less_the_description() {
    // the binary embeds a rule's id, family and match block once, outside its JSON
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/");
    for b in BUILTIN_RULES {
        let text = std::fs::read_to_string(format!("{root}{}", b.path)).unwrap();
        let mut file = tokenjuice_core::rules::model::Rule::from_json(&text).unwrap();
        file.description = None;
        assert_eq!(b.rule().unwrap(), file, "{}", b.path);
    }
}
