//! Rule fixtures: `{id, ruleId, about?, input, expect{matchedReducer, family, contains[],
//! excludes[], facts{}, inlineText?}}` — the original tokenjuice format, plus `about`
//! (where the output came from).

use serde::Deserialize;
use serde_json::Value;

use crate::compact::{compact_text, Finish, Request};
use crate::result::CompactResult;
use crate::rules::loader::FileRule;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Fixture {
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    pub id: String,
    pub rule_id: String,
    #[serde(default)]
    pub about: Option<String>,
    pub input: Value,
    #[serde(default)]
    pub expect: Expect,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Expect {
    #[serde(default)]
    pub matched_reducer: Option<String>,
    #[serde(default)]
    pub family: Option<String>,
    #[serde(default)]
    pub contains: Vec<String>,
    #[serde(default)]
    pub excludes: Vec<String>,
    #[serde(default)]
    pub facts: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    pub inline_text: Option<String>,
    #[serde(default)]
    pub preview_text: Option<String>,
}

/// Parse a fixture file's text.
pub fn parse(text: &str) -> Result<Fixture, String> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        format!("$.{path}: {}", e.into_inner())
    })
}

/// Reduce the fixture's input and compare with its expectations; returns the failures.
pub fn run(fx: &Fixture, file_rules: &[FileRule]) -> (Vec<String>, Option<CompactResult>) {
    let (input, options) = match crate::input::parse(&fx.input) {
        Ok(x) => x,
        Err(e) => return (vec![format!("input: {e}")], None),
    };
    let req = Request {
        tool_name: &input.tool_name,
        command: input.command.as_deref(),
        argv: input.argv.as_deref(),
        classifier: options.classifier.as_deref(),
        raw: options.raw,
        no_omit: options.no_omit,
        ..Request::default()
    };
    let (_, result) = compact_text(
        &req,
        file_rules,
        input.text.as_bytes(),
        input.exit_code,
        &Finish::default(),
    );
    let mut fails = Vec::new();
    let got = &result.classification.matched_reducer;
    let want = fx.expect.matched_reducer.as_deref().unwrap_or(&fx.rule_id);
    if got != want {
        fails.push(format!("matched `{got}`, expected `{want}`"));
    }
    if fx.rule_id != want {
        fails.push(format!(
            "ruleId `{}` and expect.matchedReducer `{want}` differ",
            fx.rule_id
        ));
    }
    if let Some(f) = &fx.expect.family {
        if *f != result.classification.family {
            fails.push(format!(
                "family `{}`, expected `{f}`",
                result.classification.family
            ));
        }
    }
    let fact_text: String = result
        .facts
        .iter()
        .map(|(k, v)| format!("\n{v} {k}"))
        .collect();
    let hay = format!("{}{fact_text}", result.inline_text);
    for c in &fx.expect.contains {
        if !hay.contains(c.as_str()) {
            fails.push(format!("missing {c:?}"));
        }
    }
    for x in &fx.expect.excludes {
        if result.inline_text.contains(x.as_str()) {
            fails.push(format!("should not contain {x:?}"));
        }
    }
    if let Some(facts) = &fx.expect.facts {
        for (k, v) in facts {
            match result.facts.get(k) {
                Some(got) if got == v => {}
                got => fails.push(format!(
                    "fact {k:?} is {}, expected {v}",
                    got.map_or("absent".to_string(), Value::to_string)
                )),
            }
        }
    }
    if let Some(t) = &fx.expect.inline_text {
        if *t != result.inline_text {
            fails.push(format!(
                "inlineText differs:\n--- expected\n{t}\n--- got\n{}",
                result.inline_text
            ));
        }
    }
    (fails, Some(result))
}
