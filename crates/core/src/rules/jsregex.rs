//! JavaScript-flavoured regular expressions, as written in tokenjuice rule files.
//!
//! Patterns are translated from JS syntax to Rust syntax, then compiled with the
//! linear-time `regex` engine when possible, and with `fancy-regex` only when the
//! pattern needs look-around or back-references.
//!
//! Translation keeps JS meaning where the engines differ:
//! `\d` `\w` `\b` are ASCII as in JS; `\/`, `\e` and other identity escapes are the
//! literal character; a `{` that is not a quantifier is literal; `[` inside a class
//! is literal; `[^]` is any character and `[]` matches nothing; `\cX` is a control
//! character; `\uXXXX` and `\u{X}` are code points. Flags `i m s u` map to inline
//! flags; `g` and `y` do not change matching and are ignored.

use std::fmt;

/// A compiled JS-flavoured pattern.
#[derive(Clone)]
pub struct JsRegex {
    source: String,
    engine: Engine,
}

#[derive(Clone)]
enum Engine {
    Fast(regex::Regex),
    /// The backtracking engine (look-around, back-references), with how many times a match
    /// hit the backtracking limit: past [`MAX_BACKTRACK_HITS`] the pattern is treated as never
    /// matching, so one pathological pattern cannot make every line cost the whole limit.
    Fancy(
        Box<fancy_regex::Regex>,
        std::sync::Arc<std::sync::atomic::AtomicU32>,
    ),
}

/// Longest pattern accepted, in characters.
pub const MAX_PATTERN_CHARS: usize = 4096;
/// Steps one match of the backtracking engine may take.
const BACKTRACK_LIMIT: usize = 200_000;
/// Matches that may hit [`BACKTRACK_LIMIT`] before the pattern stops being tried.
const MAX_BACKTRACK_HITS: u32 = 3;

/// Why a pattern could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid regular expression /{}/{flags}: {message}", short(pattern))]
pub struct RegexError {
    pub pattern: String,
    pub flags: String,
    pub message: String,
}

/// A pattern as shown in a message: at most 60 characters, so a huge one never floods a
/// warning line (which can land in an agent's context).
pub fn short(pattern: &str) -> String {
    let n = pattern.chars().count();
    if n <= 60 {
        pattern.to_string()
    } else {
        let head: String = pattern.chars().take(57).collect();
        format!("{head}… ({n} characters)")
    }
}

impl fmt::Debug for JsRegex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "/{}/", self.source)
    }
}

impl JsRegex {
    /// Compile `pattern` with JS `flags` (any of `gimsuy`, plus `d`/`v` accepted and ignored).
    pub fn new(pattern: &str, flags: &str) -> Result<Self, RegexError> {
        let err = |message: String| RegexError {
            pattern: pattern.to_string(),
            flags: flags.to_string(),
            message,
        };
        let mut prefix = String::new();
        for f in flags.chars() {
            match f {
                'i' => prefix.push_str("(?i)"),
                'm' => prefix.push_str("(?m)"),
                's' => prefix.push_str("(?s)"),
                'g' | 'y' | 'u' | 'd' | 'v' => {}
                other => {
                    return Err(err(format!(
                        "unknown flag `{other}` (allowed: g i m s u y)"
                    )))
                }
            }
        }
        let chars = pattern.chars().count();
        if chars > MAX_PATTERN_CHARS {
            return Err(err(format!(
                "the pattern has {chars} characters; at most {MAX_PATTERN_CHARS}"
            )));
        }
        let fast_src = translate(pattern, true).map_err(&err)?;
        match regex::RegexBuilder::new(&format!("{prefix}{fast_src}"))
            .size_limit(8 << 20)
            .dfa_size_limit(8 << 20)
            .build()
        {
            Ok(re) => Ok(Self {
                source: pattern.to_string(),
                engine: Engine::Fast(re),
            }),
            Err(fast_err) => {
                let fancy_src = translate(pattern, false).map_err(&err)?;
                match fancy_regex::RegexBuilder::new(&format!("{prefix}{fancy_src}"))
                    .backtrack_limit(BACKTRACK_LIMIT)
                    .delegate_size_limit(8 << 20)
                    .delegate_dfa_size_limit(8 << 20)
                    .build()
                {
                    Ok(re) => Ok(Self {
                        source: pattern.to_string(),
                        engine: Engine::Fancy(Box::new(re), Default::default()),
                    }),
                    Err(fancy_err) => {
                        // Report the more useful of the two messages.
                        let fast_msg = fast_err.to_string();
                        let fancy_msg = fancy_err.to_string();
                        let msg = if fancy_msg.contains("Variable-length lookbehind") {
                            "a look-behind must have a fixed length (`(?<=ab)c`, not `(?<=ab+)c`)"
                                .to_string()
                        } else if fast_msg.contains("look-around")
                            || fast_msg.contains("backreference")
                        {
                            fancy_msg
                        } else if fast_msg.contains("Unicode property not found") {
                            "Unicode property not found (general categories such as \\p{L} and \\p{Lu} and binary properties work; scripts such as \\p{Greek} do not)".to_string()
                        } else {
                            fast_msg.lines().last().unwrap_or("").trim().to_string()
                        };
                        Err(err(msg))
                    }
                }
            }
        }
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Does the pattern match anywhere in `text`? A backtracking limit counts as no match.
    pub fn is_match(&self, text: &str) -> bool {
        match &self.engine {
            Engine::Fast(re) => re.is_match(text),
            Engine::Fancy(re, hits) => {
                if tripped(hits) {
                    return false;
                }
                re.is_match(text).unwrap_or_else(|_| {
                    hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    false
                })
            }
        }
    }

    /// True once the pattern hit the backtracking limit often enough to be given up for
    /// this run.
    pub fn gave_up(&self) -> bool {
        matches!(&self.engine, Engine::Fancy(_, hits) if tripped(hits))
    }

    /// A probe for `verify`: a pattern that hits the backtracking limit on short strings made
    /// of its own literal characters (`aaaa…!` for `^((?=a)a+)+(?=b)`) would cost every line of a
    /// real output the whole limit. Returns the probe that hit it.
    pub fn backtracks_badly(&self) -> Option<String> {
        let Engine::Fancy(re, _) = &self.engine else {
            return None;
        };
        let mut lits: Vec<char> = self
            .source
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == ' ')
            .collect();
        lits.sort_unstable();
        lits.dedup();
        lits.truncate(16);
        for c in lits {
            for tail in ["", "!", "\n"] {
                let probe = format!("{}{tail}", c.to_string().repeat(40));
                if re.is_match(&probe).is_err() {
                    return Some(probe);
                }
            }
        }
        None
    }

    /// Named and numbered groups of the first match: `(name_or_index, text)`.
    pub fn captures(&self, text: &str) -> Option<Vec<(String, String)>> {
        fn pairs<'t>(
            names: impl Iterator<Item = Option<&'t str>>,
            get: impl Fn(usize) -> Option<&'t str>,
        ) -> Vec<(String, String)> {
            names
                .enumerate()
                .filter_map(|(i, name)| {
                    let m = get(i)?;
                    Some((
                        name.map_or_else(|| i.to_string(), str::to_string),
                        m.to_string(),
                    ))
                })
                .collect()
        }
        match &self.engine {
            Engine::Fast(re) => {
                let caps = re.captures(text)?;
                Some(pairs(re.capture_names(), |i| {
                    caps.get(i).map(|m| m.as_str())
                }))
            }
            Engine::Fancy(re, hits) => {
                if tripped(hits) {
                    return None;
                }
                let caps = match re.captures(text) {
                    Ok(c) => c?,
                    Err(_) => {
                        hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        return None;
                    }
                };
                Some(pairs(re.capture_names(), |i| {
                    caps.get(i).map(|m| m.as_str())
                }))
            }
        }
    }

    /// Uses the backtracking engine (for diagnostics and tests).
    pub fn is_fancy(&self) -> bool {
        matches!(self.engine, Engine::Fancy(..))
    }
}

fn tripped(hits: &std::sync::atomic::AtomicU32) -> bool {
    hits.load(std::sync::atomic::Ordering::Relaxed) >= MAX_BACKTRACK_HITS
}

/// Translate JS regex syntax into Rust `regex`/`fancy-regex` syntax.
fn translate(p: &str, fast: bool) -> Result<String, String> {
    let chars: Vec<char> = p.chars().collect();
    let mut out = String::with_capacity(p.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    let mut class_start = 0usize; // index in `chars` just after `[` or `[^`
    let word = if fast { "(?-u:\\b)" } else { "\\b" };
    let not_word = if fast { "(?-u:\\B)" } else { "\\B" };
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            let Some(&e) = chars.get(i + 1) else {
                return Err("pattern ends with a lone backslash".into());
            };
            i += 2;
            match e {
                'd' => out.push_str(if in_class { "0-9" } else { "[0-9]" }),
                'D' => out.push_str(if in_class { "\\D" } else { "[^0-9]" }),
                'w' => out.push_str(if in_class {
                    "0-9A-Za-z_"
                } else {
                    "[0-9A-Za-z_]"
                }),
                'W' => out.push_str(if in_class { "\\W" } else { "[^0-9A-Za-z_]" }),
                's' | 'S' | 't' | 'n' | 'r' | 'f' | 'v' => {
                    if e == 'v' {
                        out.push_str("\\x0B");
                    } else {
                        out.push('\\');
                        out.push(e);
                    }
                }
                'b' => {
                    if in_class {
                        out.push_str("\\x08");
                    } else {
                        out.push_str(word);
                    }
                }
                'B' => out.push_str(not_word),
                '0' if !chars.get(i).is_some_and(char::is_ascii_digit) => out.push_str("\\x00"),
                '1'..='9' => {
                    // back-reference: \1 … \99
                    let mut n = String::from(e);
                    while let Some(d) = chars.get(i).filter(|d| d.is_ascii_digit()) {
                        n.push(*d);
                        i += 1;
                    }
                    out.push('\\');
                    out.push_str(&n);
                }
                'k' if chars.get(i) == Some(&'<') => {
                    let end = chars[i..].iter().position(|&x| x == '>').map(|k| i + k);
                    let Some(end) = end else {
                        return Err("unterminated \\k<name>".into());
                    };
                    let name: String = chars[i + 1..end].iter().collect();
                    out.push_str(&format!("\\k<{name}>"));
                    i = end + 1;
                }
                'p' | 'P' if chars.get(i) == Some(&'{') => {
                    let end = chars[i..].iter().position(|&x| x == '}').map(|k| i + k);
                    let Some(end) = end else {
                        return Err("unterminated \\p{…}".into());
                    };
                    let body: String = chars[i + 1..end].iter().collect();
                    // JS `Script=Latin` / `General_Category=L` → Rust accepts `Script=Latin` too.
                    out.push('\\');
                    out.push(e);
                    out.push('{');
                    out.push_str(&body);
                    out.push('}');
                    i = end + 1;
                }
                'x' => {
                    let h: String = chars.iter().skip(i).take(2).collect();
                    if h.len() == 2 && h.chars().all(|c| c.is_ascii_hexdigit()) {
                        out.push_str(&format!("\\x{{{h}}}"));
                        i += 2;
                    } else {
                        push_literal(&mut out, 'x', in_class);
                    }
                }
                'u' => {
                    if chars.get(i) == Some(&'{') {
                        let end = chars[i..].iter().position(|&x| x == '}').map(|k| i + k);
                        let Some(end) = end else {
                            return Err("unterminated \\u{…}".into());
                        };
                        let h: String = chars[i + 1..end].iter().collect();
                        out.push_str(&format!("\\x{{{h}}}"));
                        i = end + 1;
                    } else {
                        let h: String = chars.iter().skip(i).take(4).collect();
                        if h.len() == 4 && h.chars().all(|c| c.is_ascii_hexdigit()) {
                            out.push_str(&format!("\\x{{{h}}}"));
                            i += 4;
                        } else {
                            push_literal(&mut out, 'u', in_class);
                        }
                    }
                }
                'c' => match chars.get(i) {
                    Some(l) if l.is_ascii_alphabetic() => {
                        out.push_str(&format!("\\x{{{:02X}}}", (*l as u32) % 32));
                        i += 1;
                    }
                    _ => out.push_str("\\\\c"),
                },
                other => push_literal(&mut out, other, in_class),
            }
            continue;
        }
        if in_class {
            match c {
                ']' if i > class_start => {
                    in_class = false;
                    out.push(']');
                }
                ']' => {
                    // `[]` matches nothing, `[^]` matches anything.
                    let negated = out.ends_with("[^");
                    out.truncate(out.len() - if negated { 2 } else { 1 });
                    out.push_str(if negated { "[\\s\\S]" } else { "[^\\s\\S]" });
                    in_class = false;
                }
                '[' => out.push_str("\\["),
                '&' | '~' if chars.get(i + 1) == Some(&c) => {
                    out.push('\\');
                    out.push(c);
                }
                '-' if chars.get(i + 1) == Some(&'-') => out.push_str("\\-"),
                _ => out.push(c),
            }
            i += 1;
            continue;
        }
        match c {
            '[' => {
                in_class = true;
                out.push('[');
                i += 1;
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                class_start = i;
                continue;
            }
            '{' => {
                if let Some(len) = quantifier_len(&chars[i..]) {
                    let q: String = chars[i..i + len].iter().collect();
                    out.push_str(&q);
                    i += len;
                    continue;
                }
                out.push_str("\\{");
            }
            '}' => out.push_str("\\}"),
            '(' if chars.get(i + 1) == Some(&'?') && chars.get(i + 2) == Some(&'<') => {
                // named group `(?<name>` (look-behind `(?<=`/`(?<!` pass through)
                out.push_str("(?<");
                i += 3;
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    if in_class {
        return Err("unterminated character class `[`".into());
    }
    Ok(out)
}

/// Length of a `{n}`, `{n,}` or `{n,m}` quantifier at the start of `s`.
fn quantifier_len(s: &[char]) -> Option<usize> {
    let mut i = 1;
    let digits = |i: &mut usize| {
        let start = *i;
        while s.get(*i).is_some_and(char::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return None;
    }
    if s.get(i) == Some(&',') {
        i += 1;
        digits(&mut i);
    }
    (s.get(i) == Some(&'}')).then_some(i + 1)
}

fn push_literal(out: &mut String, c: char, in_class: bool) {
    let meta = if in_class {
        matches!(c, '\\' | ']' | '[' | '^' | '-' | '&' | '~')
    } else {
        regex_syntax_is_meta(c)
    };
    if meta {
        out.push('\\');
    }
    out.push(c);
}

fn regex_syntax_is_meta(c: char) -> bool {
    matches!(
        c,
        '\\' | '.'
            | '+'
            | '*'
            | '?'
            | '('
            | ')'
            | '|'
            | '['
            | ']'
            | '{'
            | '}'
            | '^'
            | '$'
            | '#'
            | '&'
            | '-'
            | '~'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, f: &str, t: &str) -> bool {
        JsRegex::new(p, f)
            .unwrap_or_else(|e| panic!("{e}"))
            .is_match(t)
    }

    #[test]
    fn js_syntax_compiles_and_matches() {
        assert!(m(r"a\/b", "", "a/b"));
        assert!(m(r"\bfoo\b", "", "a foo b"));
        assert!(!m(r"\bfoo\b", "", "afoob"));
        assert!(m(r"^\d+ passed", "", "12 passed"));
        assert!(!m(r"^\d$", "", "٣"), "\\d is ASCII in JS");
        assert!(m(r"a{", "", "a{"));
        assert!(m(r"a{,3}", "", "a{,3}"));
        assert!(m(r"x{2,}", "", "xxx"));
        assert!(m(r"[a-z[]+", "", "[ab"));
        assert!(m(r"[^]", "", "\n"));
        assert!(!m(r"a[]", "", "a"));
        assert!(m(r"\e", "", "e"));
        assert!(m(r"\u0041\u{42}\x43", "", "ABC"));
        assert!(m(r"\cA", "", "\u{1}"));
        assert!(m(r"ERROR", "i", "an error"));
        assert!(m(r"^b$", "m", "a\nb\nc"));
        assert!(m(r"a.b", "s", "a\nb"));
        assert!(m(r"\p{L}+", "u", "héllo"));
        assert!(m(r"(?<n>\d+)x", "", "12x"));
        assert!(m(r"[\w-]+", "", "a-b"));
        assert!(m(r"[a&&b]", "", "&"));
    }

    #[test]
    fn look_around_and_backrefs_use_fancy() {
        let r = JsRegex::new(r"(?<=x)y", "").unwrap();
        assert!(r.is_fancy() && r.is_match("xy") && !r.is_match("zy"));
        assert!(m(r"(?<!no )error", "", "an error"));
        assert!(!m(r"(?<!no )error", "", "no error"));
        assert!(m(r"(\w)\1", "", "hello"));
        assert!(m(r"(?<q>['])x\k<q>", "", "'x'"));
        assert!(m(r"foo(?=bar)", "", "foobar"));
        assert!(!JsRegex::new(r"\bfoo", "").unwrap().is_fancy());
    }

    #[test]
    fn errors_name_the_pattern() {
        let e = JsRegex::new(r"(unclosed", "").unwrap_err();
        assert!(e.to_string().contains("(unclosed"), "{e}");
        assert!(JsRegex::new("a", "q").is_err());
        assert!(JsRegex::new("[abc", "").is_err());
        assert!(JsRegex::new("abc\\", "").is_err());
    }

    #[test]
    fn captures_by_name() {
        let r = JsRegex::new(r"(?<passed>\d+) passed; (?<failed>\d+) failed", "").unwrap();
        let caps = r
            .captures("test result: FAILED. 40 passed; 3 failed")
            .unwrap();
        assert!(caps.contains(&("passed".into(), "40".into())));
        assert!(caps.contains(&("failed".into(), "3".into())));
    }
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    #[test]
    fn a_pattern_that_keeps_hitting_the_backtracking_limit_is_given_up() {
        // a look-ahead inside the repeated group keeps the backtracking engine on it
        let re = JsRegex::new("^((?=a)a+)+(?=b)", "").unwrap();
        assert!(re.is_fancy());
        let line = "a".repeat(40);
        for _ in 0..MAX_BACKTRACK_HITS {
            assert!(!re.is_match(&line));
        }
        assert!(re.gave_up());
        // given up: no more work, and never a match, even where it would match
        assert!(!re.is_match("aab"));
        assert!(re.backtracks_badly().is_some(), "verify's probe finds it");
        // a sane look-around is not flagged
        let ok = JsRegex::new(r"(?<=error: )\w+", "").unwrap();
        assert!(ok.backtracks_badly().is_none());
        assert!(ok.is_match("error: boom"));
    }

    #[test]
    fn what_is_not_supported_is_said_plainly() {
        let e = JsRegex::new("(?<=ab+)c", "").unwrap_err().to_string();
        assert!(e.contains("a look-behind must have a fixed length"), "{e}");
        assert!(JsRegex::new("(?<=ab)c", "").unwrap().is_match("abc"));
        // (script properties such as \p{Greek} are left out of the release build's tables but
        // come back in test builds through a dev-dependency's features, so not checked here)
        let ok = JsRegex::new(r"^\p{Lu}\p{L}+ \p{N}", "u").unwrap();
        assert!(ok.is_match("Ärger 7"));
    }

    #[test]
    fn a_huge_pattern_is_refused_and_shown_short() {
        let p = "x".repeat(MAX_PATTERN_CHARS + 1);
        let e = JsRegex::new(&p, "").unwrap_err();
        let shown = e.to_string();
        assert!(shown.len() < 200, "{shown}");
        assert!(
            shown.contains("4097 characters") && shown.contains("at most 4096"),
            "{shown}"
        );
    }
}
