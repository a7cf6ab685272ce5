//! Choosing the rule for a command.
//!
//! Every rule whose `match` holds is a candidate; the most specific wins:
//! `priority×1000 + 100 (argv0) + 60 (gitSubcommands) + 40 per argvIncludes group
//! + 35 (argvIncludesAny) + 25 per commandIncludes entry + 20 (commandIncludesAny)
//! + 10 (toolNames)`. Each *kind* of constraint counts once however many
//! alternatives it lists: listing more alternatives widens a rule, it does not make
//! it more specific. Ties go to the later layer (project > user > built-in), then to
//! the rule id in alphabetical order. Compound commands always get `generic/fallback`.

use crate::normalize::{basename, git_subcommand, Normalized};
use crate::rules::builtin::{BuiltinRule, BUILTIN_RULES};
use crate::rules::loader::{FileRule, Layer};
use crate::rules::model::Match;

pub const FALLBACK_ID: &str = "generic/fallback";

/// A rule's match block, whichever layer it comes from.
#[derive(Debug, Clone, Copy)]
pub enum MatchRef<'a> {
    Static(&'a crate::rules::builtin::StaticMatch),
    Owned(&'a Match),
}

/// Where the winning rule lives.
#[derive(Debug, Clone, Copy)]
pub enum RuleRef<'a> {
    Builtin(&'static BuiltinRule),
    File(&'a FileRule),
}

impl RuleRef<'_> {
    pub fn id(&self) -> &str {
        match self {
            RuleRef::Builtin(b) => b.id,
            RuleRef::File(f) => &f.rule.id,
        }
    }
    pub fn family(&self) -> &str {
        match self {
            RuleRef::Builtin(b) => b.family,
            RuleRef::File(f) => &f.rule.family,
        }
    }
    pub fn layer(&self) -> Layer {
        match self {
            RuleRef::Builtin(_) => Layer::Builtin,
            RuleRef::File(f) => f.layer,
        }
    }
    fn priority(&self) -> f64 {
        match self {
            RuleRef::Builtin(b) => b.priority,
            RuleRef::File(f) => f.rule.priority.unwrap_or(0.0),
        }
    }
    fn matcher(&self) -> MatchRef<'_> {
        match self {
            RuleRef::Builtin(b) => MatchRef::Static(&b.matcher),
            RuleRef::File(f) => MatchRef::Owned(&f.rule.matcher),
        }
    }

    /// The part of a file operand of `argv` that one of the rule's `commandIncludes`
    /// names (`dpkg.log` in `tail -n 200 /var/log/dpkg.log`): the rule was written for
    /// that file's format.
    pub fn names_file_of(&self, argv: &[String]) -> Option<String> {
        let includes: Vec<&str> = match self.matcher() {
            MatchRef::Static(x) => x.command_includes.map(<[&str]>::to_vec),
            MatchRef::Owned(x) => x
                .command_includes
                .as_ref()
                .map(|v| v.iter().map(String::as_str).collect()),
        }?;
        let files = argv.iter().skip(1).filter(|a| !a.starts_with('-'));
        files
            .flat_map(|f| includes.iter().map(move |i| (f, *i)))
            .find(|(f, i)| !i.is_empty() && includes_word(f, i))
            .map(|(_, i)| i.to_string())
    }
}

/// The classification result.
#[derive(Debug, Clone)]
pub struct Choice<'a> {
    pub rule: RuleRef<'a>,
    pub score: f64,
    /// Why this rule: which constraints matched, or why the fallback.
    pub reason: String,
    /// Runners-up: (id, score), best first, at most 5.
    pub others: Vec<(String, f64)>,
}

/// What a command looks like to the matchers.
pub struct Subject<'a> {
    pub tool_name: &'a str,
    pub argv: &'a [String],
    pub command: &'a str,
}

const SHELL_TOOLS: &[&str] = &[
    "exec",
    "bash",
    "shell",
    "sh",
    "execute_command",
    "run_shell_command",
    "terminal",
    "run_in_terminal",
    "runterminalcommand",
    "execute",
    "command",
    "run_command",
    "local_shell",
    "container.exec",
];

fn tool_matches(list: &[&str], tool: &str) -> bool {
    let tool_l = tool.to_ascii_lowercase();
    let tool_shell = SHELL_TOOLS.contains(&tool_l.as_str());
    list.iter().any(|t| {
        let t = t.to_ascii_lowercase();
        t == tool_l || (tool_shell && SHELL_TOOLS.contains(&t.as_str()))
    })
}

/// Substring test that respects word edges where the needle starts or ends with a word character.
pub fn includes_word(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    let nb = needle.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let check_start = word(nb[0]);
    let check_end = word(nb[nb.len() - 1]);
    let hb = hay.as_bytes();
    let mut from = 0;
    while let Some(k) = hay[from..].find(needle) {
        let s = from + k;
        let e = s + needle.len();
        let ok_start = !check_start || s == 0 || !word(hb[s - 1]);
        let ok_end = !check_end || e == hb.len() || !word(hb[e]);
        if ok_start && ok_end {
            return true;
        }
        from = s + hay[s..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Score of a match, or None when it does not hold. `why` collects the matched constraints.
fn score_match(m: MatchRef<'_>, s: &Subject<'_>, why: &mut Vec<&'static str>) -> Option<f64> {
    // a built-in rule's lists are borrowed as they are (this runs for every rule on every
    // command); a user rule's are collected
    macro_rules! lists {
        ($f:ident) => {
            match m {
                MatchRef::Static(x) => x.$f.map(std::borrow::Cow::Borrowed),
                MatchRef::Owned(x) => x.$f.as_ref().map(|v| {
                    std::borrow::Cow::Owned(v.iter().map(String::as_str).collect::<Vec<_>>())
                }),
            }
        };
    }
    macro_rules! groups {
        ($f:ident) => {
            match m {
                MatchRef::Static(x) => {
                    x.$f.map(|v| v.iter().map(|g| g.to_vec()).collect::<Vec<_>>())
                }
                MatchRef::Owned(x) => x.$f.as_ref().map(|v| {
                    v.iter()
                        .map(|g| g.iter().map(String::as_str).collect::<Vec<_>>())
                        .collect::<Vec<_>>()
                }),
            }
        };
    }
    let mut score = 0.0;
    let argv0 = s.argv.first().map(|a| basename(a));
    if let Some(list) = lists!(argv0) {
        let a0 = argv0?;
        let full = s.argv.first().map(String::as_str).unwrap_or("");
        if !list.iter().any(|x| *x == a0 || *x == full) {
            return None;
        }
        score += 100.0;
        why.push("argv0");
    }
    if let Some(list) = lists!(git_subcommands) {
        let sub = git_subcommand(s.argv)?;
        if !list.contains(&sub) {
            return None;
        }
        score += 60.0;
        why.push("gitSubcommands");
    }
    // anywhere in argv, the program name included (as in the original): a rule for
    // `pytest` matches `pytest -x` as well as `python -m pytest` and `uv run pytest`; a
    // program run by its path (`.venv/bin/pytest`) by its name
    let has = |tok: &str| {
        s.argv
            .iter()
            .enumerate()
            .any(|(i, a)| a == tok || (i == 0 && basename(a) == tok))
    };
    if let Some(gs) = groups!(argv_includes) {
        if !gs.iter().all(|g| g.iter().all(|t| has(t))) {
            return None;
        }
        score += 40.0 * gs.len() as f64;
        why.push("argvIncludes");
    }
    if let Some(gs) = groups!(argv_includes_any) {
        if !gs.iter().any(|g| g.iter().all(|t| has(t))) {
            return None;
        }
        score += 35.0;
        why.push("argvIncludesAny");
    }
    if let Some(list) = lists!(command_includes) {
        if !list.iter().all(|n| includes_word(s.command, n)) {
            return None;
        }
        score += 25.0 * list.len() as f64;
        why.push("commandIncludes");
    }
    if let Some(list) = lists!(command_includes_any) {
        if !list.iter().any(|n| includes_word(s.command, n)) {
            return None;
        }
        score += 20.0;
        why.push("commandIncludesAny");
    }
    if let Some(list) = lists!(tool_names) {
        if !tool_matches(&list, s.tool_name) {
            return None;
        }
        score += 10.0;
        why.push("toolNames");
    }
    Some(score)
}

/// Choose the rule for a normalized command. `file_rules` override built-ins by id.
pub fn classify<'a>(tool_name: &str, norm: &Normalized, file_rules: &'a [FileRule]) -> Choice<'a> {
    let fallback = || -> RuleRef<'a> {
        file_rules
            .iter()
            .rev()
            .find(|f| f.rule.id == FALLBACK_ID)
            .map(RuleRef::File)
            .or_else(|| crate::rules::builtin::find(FALLBACK_ID).map(RuleRef::Builtin))
            .expect("the built-in generic/fallback rule is embedded")
    };
    if crate::normalize::inventory_runs_commands(&norm.argv) {
        return Choice {
            rule: fallback(),
            score: 0.0,
            reason: "an inventory command running other commands (find -exec, fd -x): its output is theirs, not a listing".into(),
            others: Vec::new(),
        };
    }
    if norm.compound {
        return Choice {
            rule: fallback(),
            score: 0.0,
            reason:
                "compound command: several commands' output is mixed, so no single rule applies"
                    .into(),
            others: Vec::new(),
        };
    }
    let subject = Subject {
        tool_name,
        argv: &norm.argv,
        command: &norm.command,
    };
    // The command as typed (`env -u X node a.js`), before prefixes were stripped: a rule
    // written for the prefix itself (task/env) may match it; the best score counts.
    let typed_command = (!norm.typed_argv.is_empty()).then(|| crate::shell::join(&norm.typed_argv));
    let typed = typed_command.as_deref().map(|command| Subject {
        tool_name,
        argv: &norm.typed_argv,
        command,
    });
    // (rule, score, why, matched the command only as typed)
    let mut scored: Vec<(RuleRef<'a>, f64, Vec<&'static str>, bool)> = Vec::new();
    let overridden = |id: &str| file_rules.iter().any(|f| f.rule.id == id);
    let candidates = BUILTIN_RULES
        .iter()
        .filter(|b| !overridden(b.id))
        .map(RuleRef::Builtin)
        .chain(file_rules.iter().map(RuleRef::File));
    for r in candidates {
        if r.id() == FALLBACK_ID {
            continue;
        }
        let mut why = Vec::new();
        let mut score = score_match(r.matcher(), &subject, &mut why);
        let mut only_typed = false;
        if let Some(t) = &typed {
            let mut why_t = Vec::new();
            if let Some(st) = score_match(r.matcher(), t, &mut why_t) {
                if score.is_none_or(|se| st > se) {
                    only_typed = score.is_none();
                    score = Some(st);
                    why = why_t;
                    why.push("as typed, before the prefix was stripped");
                }
            }
        }
        if let Some(sc) = score {
            // an empty match (only possible in a user rule verify rejects) never wins
            if why.is_empty() {
                continue;
            }
            scored.push((r, r.priority() * 1000.0 + sc, why, only_typed));
        }
    }
    // behind a package runner, the program it runs decides: `python -m pytest` is pytest's
    // output, not python's, whatever a rule for `python` scores
    let demote = |only_typed: bool| norm.runner && only_typed;
    scored.sort_by(|a, b| {
        demote(a.3)
            .cmp(&demote(b.3))
            .then_with(|| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal))
            .then_with(|| b.0.layer().cmp(&a.0.layer()))
            .then_with(|| a.0.id().cmp(b.0.id()))
    });
    let others = scored
        .iter()
        .skip(1)
        .take(5)
        .map(|(r, s, _, _)| (r.id().to_string(), *s))
        .collect();
    match scored.into_iter().next() {
        Some((rule, score, why, _)) => Choice {
            reason: format!(
                "matched {} ({} layer), score {}",
                why.join(" + "),
                rule.layer().name(),
                score
            ),
            rule,
            score,
            others,
        },
        None => Choice {
            rule: fallback(),
            score: 0.0,
            reason: if norm.argv.is_empty() {
                "no command to classify".into()
            } else {
                format!("no rule matches `{}`", basename(&norm.argv[0]))
            },
            others,
        },
    }
}

/// Resolve a forced `--classifier <id>`.
pub fn by_id<'a>(id: &str, file_rules: &'a [FileRule]) -> Option<RuleRef<'a>> {
    file_rules
        .iter()
        .rev()
        .find(|f| f.rule.id == id)
        .map(RuleRef::File)
        .or_else(|| crate::rules::builtin::find(id).map(RuleRef::Builtin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inventory_commands_that_run_commands_are_not_listings() {
        let n = |c: &str| crate::normalize::normalize(Some(c), None);
        assert_eq!(
            classify("exec", &n("find . -name '*.rs'"), &[]).rule.id(),
            "filesystem/find"
        );
        assert_eq!(
            classify("exec", &n("find . -name '*.rs' -exec wc -l {} +"), &[])
                .rule
                .id(),
            FALLBACK_ID
        );
        assert_eq!(
            classify("exec", &n("fd -e rs -x rustfmt --check"), &[])
                .rule
                .id(),
            FALLBACK_ID
        );
        // a directory tree keeps every entry through its own rule (drawing folded)
        assert!(!n("tree src").exact_read);
        assert_eq!(
            classify("exec", &n("tree src"), &[]).rule.id(),
            "filesystem/tree"
        );
    }

    #[test]
    fn word_edges() {
        assert!(includes_word("npx vitest run", "vitest"));
        assert!(!includes_word("npx vitestx run", "vitest"));
        assert!(includes_word("a --help", "--help"));
        assert!(includes_word("x.y", "."));
    }

    #[test]
    fn shell_tool_aliases() {
        assert!(tool_matches(&["exec"], "Bash"));
        assert!(tool_matches(&["bash"], "execute_command"));
        assert!(!tool_matches(&["exec"], "Read"));
        assert!(tool_matches(&["sessions_history"], "sessions_history"));
    }

    #[test]
    fn alternatives_do_not_add_specificity() {
        let wide = Match {
            argv0: Some(vec!["a".into(), "b".into(), "c".into(), "x".into()]),
            ..Match::default()
        };
        let narrow = Match {
            argv0: Some(vec!["x".into()]),
            ..Match::default()
        };
        let argv = vec!["x".to_string()];
        let s = Subject {
            tool_name: "exec",
            argv: &argv,
            command: "x",
        };
        let mut w = Vec::new();
        assert_eq!(
            score_match(MatchRef::Owned(&wide), &s, &mut w),
            score_match(MatchRef::Owned(&narrow), &s, &mut w)
        );
        let more = Match {
            argv0: Some(vec!["x".into()]),
            argv_includes: Some(vec![vec!["--y".into()]]),
            ..Match::default()
        };
        let argv2 = vec!["x".to_string(), "--y".to_string()];
        let s2 = Subject {
            tool_name: "exec",
            argv: &argv2,
            command: "x --y",
        };
        assert!(
            score_match(MatchRef::Owned(&more), &s2, &mut w)
                > score_match(MatchRef::Owned(&narrow), &s2, &mut w)
        );
    }

    #[test]
    fn behind_a_package_runner_the_program_decides() {
        let n = |c: &str| crate::normalize::normalize(Some(c), None);
        for (cmd, want) in [
            ("python -m pytest -v", "tests/pytest"),
            ("python3 -m pip install x", "install/pip"),
            ("uv run pytest -q", "tests/pytest"),
            ("uv run python -m pytest", "tests/pytest"),
            ("npx prisma generate", "database/prisma"),
            ("pnpm dlx next build", "build/next-build"),
            // nothing matches the program: the runner's own rule, as typed
            ("uv run manage.py migrate", "task/uv"),
            ("python -m json.tool", "task/python"),
        ] {
            assert_eq!(classify("exec", &n(cmd), &[]).rule.id(), want, "{cmd}");
        }
    }

    #[test]
    fn a_rule_for_the_prefix_may_match_the_command_as_typed() {
        let n = |c: &str| crate::normalize::normalize(Some(c), None);
        let env = n("env -u NODE_OPTIONS node script.js");
        assert_eq!(env.argv[0], "node");
        assert_eq!(env.typed_argv[0], "env");
        assert_eq!(classify("exec", &env, &[]).rule.id(), "task/env");
        // plain assignments through env: the program's own rule
        let plain = n("env RUST_BACKTRACE=1 cargo install --path .");
        assert_eq!(
            classify("exec", &plain, &[]).rule.id(),
            "install/cargo-install"
        );
        assert!(n("cargo test").typed_argv.is_empty());
        // env with nothing to run prints the environment; with a program, it is the program's
        for bare in ["env", "env FOO=1", "printenv"] {
            assert_eq!(
                classify("exec", &n(bare), &[]).rule.id(),
                "system/env",
                "{bare}"
            );
        }
        assert_eq!(
            classify("exec", &n("env FOO=1 mytool run"), &[]).rule.id(),
            "generic/fallback"
        );
    }

    #[test]
    fn argv_includes_sees_the_program_name() {
        let m = Match {
            argv_includes_any: Some(vec![vec!["pytest".into()]]),
            ..Match::default()
        };
        let mut w = Vec::new();
        for argv in [
            vec!["pytest", "-x"],
            vec!["python", "-m", "pytest"],
            vec![".venv/bin/pytest", "-q"],
        ] {
            let argv: Vec<String> = argv.into_iter().map(String::from).collect();
            let command = argv.join(" ");
            let s = Subject {
                tool_name: "exec",
                argv: &argv,
                command: &command,
            };
            assert!(
                score_match(MatchRef::Owned(&m), &s, &mut w).is_some(),
                "{argv:?}"
            );
        }
    }
}
