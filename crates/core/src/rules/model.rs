//! The rule file format: the original tokenjuice JSON shape, unchanged, plus our extensions.
//!
//! Original keys: `id family description priority onEmpty counterSource matchOutput match
//! filters transforms summarize failure counters`. Extensions (documented in `docs/rules.md`):
//! `reducer blocks context collapse facts signals maxLineChars`.

use serde::{Deserialize, Serialize};

/// One rule, as read from JSON.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Rule {
    /// Editor schema reference; ignored.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    pub id: String,
    pub family: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_empty: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter_source: Option<CounterSource>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub match_output: Vec<MatchOutput>,
    #[serde(rename = "match")]
    pub matcher: Match,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<Filters>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transforms: Option<Transforms>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summarize: Option<HeadTail>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<Counter>,

    // ---- extensions ----
    /// A named structured reducer that parses the tool's format (see `reduce::structured`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reducer: Option<String>,
    /// Blocks kept whole: from a line matching `start` through a line matching `end`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Block>,
    /// Context lines kept around every kept line (signals, keepPatterns matches, block starts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Context>,
    /// Collapse runs of similar lines into one line with a count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collapse: Option<Collapse>,
    /// Facts parsed from the tool's own summary lines (named capture groups).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<FactExtractor>,
    /// Keep error/warning/failure lines found anywhere (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signals: Option<bool>,
    /// Clip lines longer than this many characters in the middle (default 2000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_line_chars: Option<usize>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "camelCase")]
pub enum CounterSource {
    #[default]
    PostKeep,
    PreKeep,
    /// Every line, those dropped by `skipPatterns` too (an extension: passing tests the
    /// rule drops as noise are still counted).
    All,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MatchOutput {
    pub pattern: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
}

/// Which commands a rule applies to. Every present key must hold.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Match {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_names: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv0: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_subcommands: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv_includes: Option<Vec<Vec<String>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv_includes_any: Option<Vec<Vec<String>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_includes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_includes_any: Option<Vec<String>>,
}

impl Match {
    /// True when no constraint is present (the rule would match every command).
    pub fn is_empty(&self) -> bool {
        self.tool_names.is_none()
            && self.argv0.is_none()
            && self.git_subcommands.is_none()
            && self.argv_includes.is_none()
            && self.argv_includes_any.is_none()
            && self.command_includes.is_none()
            && self.command_includes_any.is_none()
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Filters {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skip_patterns: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keep_patterns: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Transforms {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strip_ansi: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pretty_print_json: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dedupe_adjacent: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim_empty_edges: Option<bool>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HeadTail {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<usize>,
    /// (ext) An output of at most this many lines (after folding) is shown whole.
    #[serde(
        default,
        rename = "wholeUnder",
        skip_serializing_if = "Option::is_none"
    )]
    pub whole_under: Option<usize>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Failure {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preserve_on_failure: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Counter {
    pub name: String,
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
}

/// Extension: keep a block of lines whole.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Block {
    /// A line matching this starts a block.
    pub start: String,
    /// A line matching this ends the block (kept). Without it the block ends at a blank line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
    /// At most this many lines per block (default 40); the rest is counted as omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_lines: Option<usize>,
}

/// Extension: context lines around kept lines.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Context {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<usize>,
}

/// Extension: collapse similar lines.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Collapse {
    /// Collapse runs of adjacent lines that differ only in the folded parts (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similar: Option<bool>,
    /// What may differ: any of `numbers`, `hashes`, `times`, `paths` (default the first three).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fold: Option<Vec<String>>,
    /// Also fold repeats of an error/warning line seen earlier, not only adjacent ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<bool>,
}

/// Extension: read facts from the tool's summary line.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FactExtractor {
    /// A pattern with named groups, e.g. `(?<passed>\d+) passed`.
    pub pattern: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
    /// Fact name → capture group name.
    pub values: std::collections::BTreeMap<String, String>,
    /// How several matching lines combine: `sum` (default), `last` or `max`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FactMode>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum FactMode {
    #[default]
    Sum,
    Last,
    Max,
}

/// A problem found in a rule or fixture file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// JSON path inside the file, e.g. `$.match.argv0[1]`.
    pub path: String,
    pub message: String,
}

/// The fold options of [`Collapse`].
pub const FOLD_KINDS: [&str; 4] = ["numbers", "hashes", "times", "paths"];

impl Rule {
    /// Parse one rule from JSON text, reporting the JSON path of the first structural problem.
    pub fn from_json(text: &str) -> Result<Rule, Diagnostic> {
        let de = &mut serde_json::Deserializer::from_str(text);
        match serde_path_to_error::deserialize::<_, Rule>(de) {
            Ok(rule) => Ok(rule),
            Err(e) => {
                let path = e.path().to_string();
                let inner = e.into_inner();
                let msg = inner.to_string();
                // serde_json appends " at line L column C"; keep it, it helps locate the problem.
                Err(Diagnostic {
                    path: if path == "." {
                        "$".into()
                    } else {
                        format!("$.{path}")
                    },
                    message: msg,
                })
            }
        }
    }

    /// Semantic checks beyond the shape: ids, empty match, regexes, option values.
    pub fn check(&self) -> Vec<Diagnostic> {
        self.check_with(true)
    }

    /// [`Rule::check`] without compiling the regexes: what a run does for every user and
    /// project rule (only the winning rule's regexes are compiled; `verify` checks them all).
    pub fn check_structure(&self) -> Vec<Diagnostic> {
        self.check_with(false)
    }

    fn check_with(&self, regexes: bool) -> Vec<Diagnostic> {
        /// Patterns a rule may have in all.
        const MAX_PATTERNS: usize = 1000;
        let mut out = Vec::new();
        let mut add = |path: &str, message: String| {
            out.push(Diagnostic {
                path: path.to_string(),
                message,
            })
        };
        if self.id.trim().is_empty() || self.id.contains('\0') {
            add("$.id", "id must be a non-empty string".into());
        }
        if self.family.trim().is_empty() {
            add("$.family", "family must be a non-empty string".into());
        }
        if self.matcher.is_empty() && self.id != "generic/fallback" {
            add(
                "$.match",
                "match is empty, so this rule would match every command; add argv0, toolNames or another constraint".into(),
            );
        }
        let m = &self.matcher;
        for (key, list) in [
            ("toolNames", &m.tool_names),
            ("argv0", &m.argv0),
            ("gitSubcommands", &m.git_subcommands),
            ("commandIncludes", &m.command_includes),
            ("commandIncludesAny", &m.command_includes_any),
        ] {
            if let Some(list) = list {
                if list.is_empty() {
                    add(
                        &format!("$.match.{key}"),
                        "an empty list never matches; remove the key or add values".into(),
                    );
                }
                for (i, v) in list.iter().enumerate() {
                    if v.is_empty() {
                        add(&format!("$.match.{key}[{i}]"), "empty string".into());
                    }
                }
            }
        }
        for (key, groups) in [
            ("argvIncludes", &m.argv_includes),
            ("argvIncludesAny", &m.argv_includes_any),
        ] {
            if let Some(groups) = groups {
                if groups.is_empty() {
                    add(
                        &format!("$.match.{key}"),
                        "an empty list never matches; remove the key or add groups".into(),
                    );
                }
                for (i, g) in groups.iter().enumerate() {
                    if g.is_empty() {
                        add(&format!("$.match.{key}[{i}]"), "an empty group".into());
                    }
                }
            }
        }
        if let Some(p) = self.priority {
            if !p.is_finite() {
                add("$.priority", "priority must be a finite number".into());
            }
        }
        let mut bad = Vec::new();
        let mut regex = |path: String, pattern: &str, flags: Option<&str>| {
            if !regexes {
                return;
            }
            if let Err(e) = super::jsregex::JsRegex::new(pattern, flags.unwrap_or("")) {
                bad.push(Diagnostic {
                    path,
                    message: e.to_string(),
                });
            }
        };
        for (i, mo) in self.match_output.iter().enumerate() {
            regex(
                format!("$.matchOutput[{i}].pattern"),
                &mo.pattern,
                mo.flags.as_deref(),
            );
        }
        if let Some(f) = &self.filters {
            for (i, p) in f.skip_patterns.iter().enumerate() {
                regex(format!("$.filters.skipPatterns[{i}]"), p, None);
            }
            for (i, p) in f.keep_patterns.iter().enumerate() {
                regex(format!("$.filters.keepPatterns[{i}]"), p, None);
            }
        }
        for (i, c) in self.counters.iter().enumerate() {
            regex(
                format!("$.counters[{i}].pattern"),
                &c.pattern,
                c.flags.as_deref(),
            );
        }
        for (i, b) in self.blocks.iter().enumerate() {
            regex(format!("$.blocks[{i}].start"), &b.start, b.flags.as_deref());
            if let Some(end) = &b.end {
                regex(format!("$.blocks[{i}].end"), end, b.flags.as_deref());
            }
        }
        for (i, fx) in self.facts.iter().enumerate() {
            regex(
                format!("$.facts[{i}].pattern"),
                &fx.pattern,
                fx.flags.as_deref(),
            );
        }
        out.extend(bad);
        let patterns = self.match_output.len()
            + self
                .filters
                .as_ref()
                .map_or(0, |f| f.skip_patterns.len() + f.keep_patterns.len())
            + self.counters.len()
            + self.blocks.len() * 2
            + self.facts.len();
        if patterns > MAX_PATTERNS {
            out.push(Diagnostic {
                path: "$".into(),
                message: format!(
                    "the rule has {patterns} patterns; at most {MAX_PATTERNS} (every one is tried on every line)"
                ),
            });
        }
        for (i, fx) in self.facts.iter().enumerate() {
            {
                for (name, group) in &fx.values {
                    let needle = format!("(?<{group}>");
                    if !fx.pattern.contains(&needle) {
                        out.push(Diagnostic {
                            path: format!("$.facts[{i}].values.{name}"),
                            message: format!("the pattern has no named group `{group}`"),
                        });
                    }
                }
            }
        }
        if let Some(c) = &self.collapse {
            if let Some(fold) = &c.fold {
                for (i, f) in fold.iter().enumerate() {
                    if !FOLD_KINDS.contains(&f.as_str()) {
                        out.push(Diagnostic {
                            path: format!("$.collapse.fold[{i}]"),
                            message: format!(
                                "unknown fold `{f}` (allowed: {})",
                                FOLD_KINDS.join(", ")
                            ),
                        });
                    }
                }
            }
        }
        if let Some(r) = &self.reducer {
            if !crate::reduce::structured::is_known(r) {
                out.push(Diagnostic {
                    path: "$.reducer".into(),
                    message: format!(
                        "unknown structured reducer `{r}` (known: {})",
                        crate::reduce::structured::names()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
            }
        }
        out
    }
}
