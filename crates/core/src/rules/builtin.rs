//! Built-in rules and fixtures, embedded at build time from `<workspace>/rules`.

/// A rule's `match` block as static data (see `build.rs`).
#[derive(Debug)]
pub struct StaticMatch {
    pub tool_names: Option<&'static [&'static str]>,
    pub argv0: Option<&'static [&'static str]>,
    pub git_subcommands: Option<&'static [&'static str]>,
    pub argv_includes: Option<&'static [&'static [&'static str]]>,
    pub argv_includes_any: Option<&'static [&'static [&'static str]]>,
    pub command_includes: Option<&'static [&'static str]>,
    pub command_includes_any: Option<&'static [&'static str]>,
}

/// One embedded rule: its classification data and its JSON text (whose `id`, `family` and
/// `match` are empty: read the rule with [`BuiltinRule::rule`]).
#[derive(Debug)]
pub struct BuiltinRule {
    /// Path below `rules/`, e.g. `git/status.json`.
    pub path: &'static str,
    pub id: &'static str,
    pub family: &'static str,
    pub priority: f64,
    pub matcher: StaticMatch,
    pub json: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/builtin_rules.rs"));

impl StaticMatch {
    /// The match block as a rule holds it.
    pub fn to_match(&self) -> super::model::Match {
        let list = |l: Option<&[&str]>| l.map(|l| l.iter().map(|s| s.to_string()).collect());
        let groups = |g: Option<&[&[&str]]>| {
            g.map(|g| {
                g.iter()
                    .map(|l| l.iter().map(|s| s.to_string()).collect())
                    .collect()
            })
        };
        super::model::Match {
            tool_names: list(self.tool_names),
            argv0: list(self.argv0),
            git_subcommands: list(self.git_subcommands),
            argv_includes: groups(self.argv_includes),
            argv_includes_any: groups(self.argv_includes_any),
            command_includes: list(self.command_includes),
            command_includes_any: list(self.command_includes_any),
        }
    }
}

impl BuiltinRule {
    /// The rule as its file has it (less its description): the embedded JSON, with the id,
    /// family and match block, which are embedded once as this struct's fields, put back.
    pub fn rule(&self) -> Result<super::model::Rule, super::model::Diagnostic> {
        let mut rule = super::model::Rule::from_json(self.json)?;
        rule.id = self.id.to_string();
        rule.family = self.family.to_string();
        rule.matcher = self.matcher.to_match();
        Ok(rule)
    }
}

/// The built-in fixtures as `(path below rules/, JSON text)`, decompressed on demand
/// (only `verify --fixtures` and the tests read them).
pub fn builtin_fixtures() -> Vec<(String, String)> {
    use std::io::Read;
    let mut blob = Vec::new();
    flate2::read::DeflateDecoder::new(BUILTIN_FIXTURES_DEFLATE)
        .read_to_end(&mut blob)
        .expect("the embedded fixture blob was written by build.rs");
    let mut parts = blob.split(|&b| b == 0);
    let mut out = Vec::with_capacity(BUILTIN_FIXTURE_COUNT);
    while let (Some(path), Some(text)) = (parts.next(), parts.next()) {
        if path.is_empty() {
            break;
        }
        out.push((
            String::from_utf8_lossy(path).into_owned(),
            String::from_utf8_lossy(text).into_owned(),
        ));
    }
    out
}

/// The built-in rule with this id.
pub fn find(id: &str) -> Option<&'static BuiltinRule> {
    BUILTIN_RULES.iter().find(|r| r.id == id)
}
