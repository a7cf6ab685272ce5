//! Matchers: which hooks of an event apply.
//!
//! Classification (the same three-way split the hosts use):
//! - absent, `""` or `"*"`: matches everything;
//! - only word characters (per dialect) separated by `|`: an exact name or list of names;
//! - anything else: an **unanchored** regular expression. The JavaScript-like flavour
//!   (fancy-regex: look-around and back-references) is used by the Claude-family hosts;
//!   the Rust `regex` flavour is used for Codex, which is what Codex itself uses.
//!
//! An invalid pattern is reported when the settings are loaded, never at match time.

use std::fmt;

/// Which regex engine a dialect's matchers use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegexFlavor {
    /// ECMAScript-like semantics incl. look-around and back-references (fancy-regex).
    JavaScript,
    /// The Rust `regex` crate (linear time, no look-around), as Codex uses.
    Rust,
}

/// How a dialect classifies matcher strings.
#[derive(Clone, Copy, Debug)]
pub struct MatcherSyntax {
    pub flavor: RegexFlavor,
    /// Characters allowed in an exact name (besides ASCII letters and digits).
    pub exact_extra_chars: &'static str,
    /// Separators of an exact list.
    pub list_separators: &'static str,
}

impl MatcherSyntax {
    pub const CLAUDE_FAMILY: MatcherSyntax = MatcherSyntax {
        flavor: RegexFlavor::JavaScript,
        exact_extra_chars: "_-",
        list_separators: "|",
    };
    pub const CODEX: MatcherSyntax = MatcherSyntax {
        flavor: RegexFlavor::Rust,
        exact_extra_chars: "_",
        list_separators: "|",
    };
}

#[derive(Clone, Debug)]
enum Compiled {
    Fancy(fancy_regex::Regex),
    Rust(regex::Regex),
}

/// A classified, compiled matcher.
#[derive(Clone, Debug)]
pub enum Matcher {
    All,
    Exact(Vec<String>),
    Regex {
        source: String,
        compiled: CompiledRegex,
    },
}

/// A compiled regex of either flavour.
#[derive(Clone, Debug)]
pub struct CompiledRegex(Compiled);

impl CompiledRegex {
    fn is_match(&self, text: &str) -> bool {
        match &self.0 {
            // A regex that exceeds fancy-regex's backtracking limit does not match: a
            // matcher must never take the agent down.
            Compiled::Fancy(re) => re.is_match(text).unwrap_or(false),
            Compiled::Rust(re) => re.is_match(text),
        }
    }
}

impl Matcher {
    /// Classifies and compiles a matcher string. The error is the regex engine's message.
    pub fn parse(source: Option<&str>, syntax: MatcherSyntax) -> Result<Matcher, String> {
        let Some(src) = source else {
            return Ok(Matcher::All);
        };
        if src.is_empty() || src == "*" {
            return Ok(Matcher::All);
        }
        let is_word = |c: char| c.is_ascii_alphanumeric() || syntax.exact_extra_chars.contains(c);
        let is_sep = |c: char| syntax.list_separators.contains(c);
        if src.chars().all(|c| is_word(c) || is_sep(c)) {
            let names: Vec<String> = src
                .split(|c: char| is_sep(c))
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            if !names.is_empty() {
                return Ok(Matcher::Exact(names));
            }
        }
        let compiled = match syntax.flavor {
            RegexFlavor::JavaScript => fancy_regex::Regex::new(src)
                .map(Compiled::Fancy)
                .map_err(|e| e.to_string())?,
            RegexFlavor::Rust => regex::Regex::new(src)
                .map(Compiled::Rust)
                .map_err(|e| e.to_string())?,
        };
        Ok(Matcher::Regex {
            source: src.to_string(),
            compiled: CompiledRegex(compiled),
        })
    }

    /// True when any of `names` (a tool name and its aliases, or a field value) matches.
    pub fn matches_any(&self, names: &[&str]) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Exact(list) => names.iter().any(|n| list.iter().any(|l| l == n)),
            Matcher::Regex { compiled, .. } => names.iter().any(|n| compiled.is_match(n)),
        }
    }

    /// Short description for traces: `*`, `exact execute_command|Bash`, `regex read.*`.
    pub fn describe(&self) -> String {
        match self {
            Matcher::All => "* (all)".to_string(),
            Matcher::Exact(list) => format!("exact {}", list.join("|")),
            Matcher::Regex { source, .. } => format!("regex {source}"),
        }
    }
}

impl fmt::Display for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(src: &str) -> Matcher {
        Matcher::parse(Some(src), MatcherSyntax::CLAUDE_FAMILY).unwrap()
    }

    #[test]
    fn match_all_forms() {
        assert!(matches!(
            Matcher::parse(None, MatcherSyntax::CLAUDE_FAMILY),
            Ok(Matcher::All)
        ));
        assert!(matches!(js(""), Matcher::All));
        assert!(matches!(js("*"), Matcher::All));
        assert!(js("*").matches_any(&["anything"]));
    }

    #[test]
    fn plain_names_are_exact_not_substring() {
        let m = js("execute_command");
        assert!(m.matches_any(&["execute_command"]));
        assert!(!m.matches_any(&["execute_command_v2"]));
        assert!(!m.matches_any(&["xexecute_command"]));
        let m = js("write_to_file|replace_in_file");
        assert!(matches!(m, Matcher::Exact(ref v) if v.len() == 2));
        assert!(m.matches_any(&["replace_in_file"]));
        assert!(!m.matches_any(&["write_to"]));
        // Exact matching is case-sensitive.
        assert!(!js("Bash").matches_any(&["bash"]));
    }

    #[test]
    fn anything_else_is_an_unanchored_regex() {
        let m = js("read.*|search.*");
        assert!(matches!(m, Matcher::Regex { .. }));
        assert!(m.matches_any(&["read_file"]));
        assert!(m.matches_any(&["search_content"]));
        // unanchored: `Edit.*` also hits NotebookEdit, like JavaScript's RegExp.test
        assert!(js("Edit.*").matches_any(&["NotebookEdit"]));
        assert!(js("^Bash$").matches_any(&["Bash"]));
        assert!(!js("^Bash$").matches_any(&["Bashful"]));
    }

    #[test]
    fn javascript_look_around_and_backreferences_work() {
        let m = js("^(?!read_).*_file$");
        assert!(m.matches_any(&["write_to_file"]));
        assert!(!m.matches_any(&["read_file"]));
        assert!(js("(?<=mcp__)github").matches_any(&["mcp__github__create_issue"]));
        assert!(js(r"^(\w)\1").matches_any(&["aab"]));
    }

    #[test]
    fn invalid_regex_is_an_error() {
        assert!(Matcher::parse(Some("read(["), MatcherSyntax::CLAUDE_FAMILY).is_err());
        // Codex uses the Rust regex crate: no look-around, so this is invalid there.
        assert!(Matcher::parse(Some("(?!x)y"), MatcherSyntax::CODEX).is_err());
        assert!(Matcher::parse(Some("(?!x)y"), MatcherSyntax::CLAUDE_FAMILY).is_ok());
    }

    #[test]
    fn codex_exact_charset_has_no_hyphen() {
        // `my-tool` is a regex for codex (hyphen not in its exact charset) but an exact name
        // for the Claude family.
        assert!(matches!(
            Matcher::parse(Some("my-tool"), MatcherSyntax::CODEX),
            Ok(Matcher::Regex { .. })
        ));
        assert!(matches!(js("my-tool"), Matcher::Exact(_)));
        // mcp__memory exact never matches mcp__memory__x
        let m = Matcher::parse(Some("mcp__memory"), MatcherSyntax::CODEX).unwrap();
        assert!(!m.matches_any(&["mcp__memory__x"]));
    }

    #[test]
    fn any_alias_can_match() {
        assert!(js("Bash").matches_any(&["execute_command", "Bash"]));
        assert!(js("Read.*").matches_any(&["read_file", "Read"]));
    }
}
