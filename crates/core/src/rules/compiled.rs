//! A rule with its regexes compiled and its defaults resolved, ready to reduce with.

use super::jsregex::JsRegex;
use super::model::{CounterSource, Diagnostic, FactMode, Rule};

/// What may differ between similar lines (the rule's `collapse.fold`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fold {
    pub numbers: bool,
    pub hashes: bool,
    pub paths: bool,
}

impl Default for Fold {
    fn default() -> Self {
        Fold {
            numbers: true,
            hashes: true,
            paths: false,
        }
    }
}

impl Fold {
    pub fn from_names(names: &[String]) -> Fold {
        let has = |n: &str| names.iter().any(|x| x == n);
        Fold {
            // times are runs of digits and separators, so they fold with numbers
            numbers: has("numbers") || has("times"),
            hashes: has("hashes"),
            paths: has("paths"),
        }
    }
}

/// Resolved numeric and boolean settings of a rule.
#[derive(Debug, Clone)]
pub struct Settings {
    pub strip_ansi: bool,
    pub dedupe: bool,
    pub trim_edges: bool,
    pub pretty_json: bool,
    pub head: usize,
    pub tail: usize,
    pub fail_head: usize,
    pub fail_tail: usize,
    pub preserve_on_failure: bool,
    pub context_before: usize,
    pub context_after: usize,
    pub collapse_similar: bool,
    pub collapse_repeats: bool,
    pub fold: Fold,
    pub signals: bool,
    pub max_line_chars: usize,
    /// The rule set `maxLineChars` itself: every longer line is clipped. Otherwise (the
    /// default) only a line that looks like a blob is (see `looks_like_a_blob`).
    pub clip_every_long_line: bool,
    pub counter_source: CounterSource,
    /// An output of at most this many entries is shown whole (0: no such size).
    pub whole_under: usize,
}

/// Defaults of the original format: summarize 6/6, failure 6/12.
pub const DEFAULT_HEAD: usize = 6;
pub const DEFAULT_TAIL: usize = 6;
pub const DEFAULT_FAIL_HEAD: usize = 6;
pub const DEFAULT_FAIL_TAIL: usize = 12;
pub const DEFAULT_MAX_LINE_CHARS: usize = 2000;
pub const DEFAULT_BLOCK_LINES: usize = 40;

pub struct CompiledBlock {
    pub start: JsRegex,
    pub end: Option<JsRegex>,
    pub max_lines: usize,
}

pub struct CompiledFact {
    pub re: JsRegex,
    /// (fact name, group name)
    pub values: Vec<(String, String)>,
    pub mode: FactMode,
}

pub struct CompiledRule {
    pub id: String,
    pub family: String,
    pub settings: Settings,
    pub skip: Vec<JsRegex>,
    pub keep: Vec<JsRegex>,
    pub counters: Vec<(String, JsRegex)>,
    pub match_output: Vec<(JsRegex, String)>,
    pub blocks: Vec<CompiledBlock>,
    pub facts: Vec<CompiledFact>,
    pub on_empty: Option<String>,
    pub reducer: Option<String>,
}

impl CompiledRule {
    /// Every compiled pattern of the rule.
    pub fn regexes(&self) -> Vec<&JsRegex> {
        let mut out: Vec<&JsRegex> = self.skip.iter().chain(&self.keep).collect();
        out.extend(self.counters.iter().map(|(_, r)| r));
        out.extend(self.match_output.iter().map(|(r, _)| r));
        for b in &self.blocks {
            out.push(&b.start);
            out.extend(b.end.as_ref());
        }
        out.extend(self.facts.iter().map(|f| &f.re));
        out
    }

    /// One short warning per pattern that hit the backtracking limit often enough in this run
    /// to be given up (it then matched nothing): the run says so instead of quietly
    /// reducing without it.
    pub fn given_up_warnings(&self) -> Vec<String> {
        self.regexes()
            .into_iter()
            .filter(|r| r.gave_up())
            .map(|r| {
                format!(
                    "rule {}: the pattern /{}/ hit the backtracking limit on this output and was skipped (it matched nothing); `tokenjuice verify` shows such patterns",
                    self.id,
                    super::jsregex::short(r.as_str())
                )
            })
            .collect()
    }

    /// Compile every regex of `rule`; errors carry the JSON path of the bad pattern.
    pub fn compile(rule: &Rule) -> Result<CompiledRule, Vec<Diagnostic>> {
        let mut errors = Vec::new();
        let mut re = |path: String, pattern: &str, flags: Option<&str>| -> Option<JsRegex> {
            match JsRegex::new(pattern, flags.unwrap_or("")) {
                Ok(r) => Some(r),
                Err(e) => {
                    errors.push(Diagnostic {
                        path,
                        message: e.to_string(),
                    });
                    None
                }
            }
        };
        let filters = rule.filters.clone().unwrap_or_default();
        let skip: Vec<JsRegex> = filters
            .skip_patterns
            .iter()
            .enumerate()
            .filter_map(|(i, p)| re(format!("$.filters.skipPatterns[{i}]"), p, None))
            .collect();
        let keep: Vec<JsRegex> = filters
            .keep_patterns
            .iter()
            .enumerate()
            .filter_map(|(i, p)| re(format!("$.filters.keepPatterns[{i}]"), p, None))
            .collect();
        let counters: Vec<(String, JsRegex)> = rule
            .counters
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                Some((
                    c.name.clone(),
                    re(
                        format!("$.counters[{i}].pattern"),
                        &c.pattern,
                        c.flags.as_deref(),
                    )?,
                ))
            })
            .collect();
        let match_output: Vec<(JsRegex, String)> = rule
            .match_output
            .iter()
            .enumerate()
            .filter_map(|(i, m)| {
                Some((
                    re(
                        format!("$.matchOutput[{i}].pattern"),
                        &m.pattern,
                        m.flags.as_deref(),
                    )?,
                    m.message.clone(),
                ))
            })
            .collect();
        let mut blocks = Vec::new();
        for (i, b) in rule.blocks.iter().enumerate() {
            let start = re(format!("$.blocks[{i}].start"), &b.start, b.flags.as_deref());
            let end = b
                .end
                .as_ref()
                .map(|e| re(format!("$.blocks[{i}].end"), e, b.flags.as_deref()));
            if let (Some(start), end) = (start, end) {
                if end.as_ref().is_some_and(Option::is_none) {
                    continue;
                }
                blocks.push(CompiledBlock {
                    start,
                    end: end.flatten(),
                    max_lines: b.max_lines.unwrap_or(DEFAULT_BLOCK_LINES).max(1),
                });
            }
        }
        let mut facts = Vec::new();
        for (i, f) in rule.facts.iter().enumerate() {
            if let Some(r) = re(
                format!("$.facts[{i}].pattern"),
                &f.pattern,
                f.flags.as_deref(),
            ) {
                facts.push(CompiledFact {
                    re: r,
                    values: f
                        .values
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                    mode: f.mode.unwrap_or_default(),
                });
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let t = rule.transforms.clone().unwrap_or_default();
        let sum = rule.summarize.clone().unwrap_or_default();
        let fail = rule.failure.clone().unwrap_or_default();
        let ctx = rule.context.clone().unwrap_or_default();
        let collapse = rule.collapse.as_ref();
        let preserve = fail.preserve_on_failure.unwrap_or(false);
        let head = sum.head.unwrap_or(DEFAULT_HEAD);
        let tail = sum.tail.unwrap_or(DEFAULT_TAIL);
        let settings = Settings {
            strip_ansi: t.strip_ansi.unwrap_or(true),
            dedupe: t.dedupe_adjacent.unwrap_or(true),
            trim_edges: t.trim_empty_edges.unwrap_or(true),
            pretty_json: t.pretty_print_json.unwrap_or(false),
            head,
            tail,
            fail_head: if preserve {
                fail.head.unwrap_or(DEFAULT_FAIL_HEAD)
            } else {
                head
            },
            fail_tail: if preserve {
                fail.tail.unwrap_or(DEFAULT_FAIL_TAIL)
            } else {
                tail
            },
            preserve_on_failure: preserve,
            context_before: ctx.before.unwrap_or(0),
            context_after: ctx.after.unwrap_or(0),
            collapse_similar: collapse.is_some_and(|c| c.similar.unwrap_or(true)),
            collapse_repeats: collapse.is_some_and(|c| c.repeats.unwrap_or(false)),
            fold: collapse
                .and_then(|c| c.fold.as_deref())
                .map(Fold::from_names)
                .unwrap_or_default(),
            signals: rule.signals.unwrap_or(true),
            max_line_chars: rule.max_line_chars.unwrap_or(DEFAULT_MAX_LINE_CHARS),
            clip_every_long_line: rule.max_line_chars.is_some(),
            whole_under: sum.whole_under.unwrap_or(0),
            counter_source: rule.counter_source.unwrap_or_default(),
        };
        Ok(CompiledRule {
            id: rule.id.clone(),
            family: rule.family.clone(),
            settings,
            skip,
            keep,
            counters,
            match_output,
            blocks,
            facts,
            on_empty: rule.on_empty.clone(),
            reducer: rule.reducer.clone(),
        })
    }
}
