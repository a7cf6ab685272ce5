//! From what the agent ran to the command whose output we are reading.
//!
//! - `bash|sh|zsh|fish|dash|ksh … -c/-lc/-ic/-ec '<body>'` is unwrapped to its body
//!   (recursively, absolute shell paths too).
//! - Leading `VAR=v`, `env …`, `sudo`, `time`, `nice`, `nohup`, `timeout N`, `command`,
//!   `exec`, `stdbuf` prefixes are stripped.
//! - Setup segments (`cd x &&`, `export …;`, `set -e;`, `source …`, `if [ … ]; then …; fi`,
//!   quiet file commands such as `mkdir -p`) are skipped when choosing the command.
//! - Two or more substantive commands in sequence make the command *compound*: no
//!   single rule may be applied to their mixed output, and when one of them reads files
//!   (`cat a; cat b`) the whole output passes through as an exact read.
//! - In a pipeline into structural filters (`| head`, `| grep`, `| sort` …) the first
//!   command is the one that counts; otherwise the last one produces the output.
//!
//! argv given to `wrap` stays argv: it is never re-joined and re-split.

use crate::shell::{self, Command, Script, Sep, SimpleCommand};

/// Which candidate the classification used (compatible with the original's `matchedVia`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Original,
    ShellBody,
    Effective,
}

impl Via {
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Original => "original",
            Via::ShellBody => "shell-body",
            Via::Effective => "effective",
        }
    }
}

/// The command as tokenjuice understands it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Normalized {
    /// The command as given (argv quoted and joined when only argv was given).
    pub original: String,
    /// The unwrapped shell body, if the command was `<shell> -c '<body>'`.
    pub shell_body: Option<String>,
    /// The command the output comes from, as text.
    pub command: String,
    /// Its argv (empty when compound or unknown).
    pub argv: Vec<String>,
    /// The same command as typed, before `env …`/`sudo`/`time`… prefixes were stripped
    /// (empty when nothing was stripped). Rules may also match this form.
    pub typed_argv: Vec<String>,
    /// A package runner (`npx`, `pnpm exec`, `python -m`, `poetry run`, …) was stripped: the
    /// program it runs is what the output comes from, so a rule matching that program wins
    /// over one that matches only the runner as typed.
    pub runner: bool,
    pub via: Via,
    /// Two or more substantive commands in sequence.
    pub compound: bool,
    /// argv of every stage of the chosen pipeline.
    pub pipeline: Vec<Vec<String>>,
    /// The output is the content of files (`cat`, `sed -n`, `jq` …): never compacted.
    pub exact_read: bool,
    /// Human-readable notes for `--trace`.
    pub notes: Vec<String>,
}

impl Normalized {
    /// The number of lines a pipeline's last stage asks for, when it is `head`/`tail` with a
    /// count of at most 500 reading the pipe (`… | head -n 300`): the output was sized by
    /// whoever wrote the command.
    pub fn sized_by_pipe(&self) -> Option<u64> {
        let [_, .., last] = self.pipeline.as_slice() else {
            return None;
        };
        let a0 = basename(last.first()?);
        let follow = last
            .iter()
            .any(|a| a == "-f" || a == "-F" || a == "--follow");
        if !matches!(a0, "head" | "tail") || follow || !operands(last, a0).is_empty() {
            return None;
        }
        line_count(last).filter(|&n| n <= MAX_SIZED_READ)
    }
}

const SHELLS: [&str; 10] = [
    "bash", "sh", "zsh", "fish", "dash", "ksh", "mksh", "ash", "csh", "tcsh",
];

/// The last path component without a Windows executable extension.
pub fn basename(s: &str) -> &str {
    let base = s.rsplit(['/', '\\']).next().unwrap_or(s);
    for ext in [".exe", ".cmd", ".bat", ".EXE", ".CMD", ".BAT"] {
        if let Some(b) = base.strip_suffix(ext) {
            return b;
        }
    }
    base
}

/// If argv is `<shell> [opts] -c <body> …`, return the body.
pub fn shell_body(argv: &[String]) -> Option<&str> {
    let first = argv.first()?;
    if !SHELLS.contains(&basename(first)) {
        return None;
    }
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        if a == "--" {
            return None;
        }
        if a.starts_with("--") {
            // --login, --norc, --noprofile …
            i += 1;
            continue;
        }
        if let Some(flags) = a.strip_prefix('-').or_else(|| a.strip_prefix('+')) {
            if flags.is_empty() {
                return None;
            }
            if flags.contains('c') && flags.chars().all(|c| c.is_ascii_alphabetic()) {
                return argv.get(i + 1).map(String::as_str);
            }
            // `-o pipefail` takes an argument
            if flags == "o" || flags == "O" {
                i += 2;
                continue;
            }
            i += 1;
            continue;
        }
        return None;
    }
    None
}

/// Normalize a command given as argv (from `wrap`) or as text (from hooks and `reduce`).
pub fn normalize(command: Option<&str>, argv: Option<&[String]>) -> Normalized {
    let mut notes = Vec::new();
    let (original, script, body) = match (argv.filter(|a| !a.is_empty()), command) {
        (Some(argv), _) => {
            let original = shell::join(argv);
            if let Some(body) = shell_body(argv) {
                notes.push(format!("unwrapped `{} -c` body", basename(&argv[0])));
                (original, Some(shell::parse(body)), Some(body.to_string()))
            } else {
                // argv stays argv: a single simple command, no re-splitting.
                let sc = SimpleCommand {
                    assignments: Vec::new(),
                    words: argv
                        .iter()
                        .map(|a| shell::Word {
                            text: a.clone(),
                            quoted: false,
                            expansion: false,
                            unquoted_prefix: a.len(),
                        })
                        .collect(),
                    redirects: Vec::new(),
                };
                let script = Script {
                    items: vec![shell::Item {
                        sep: None,
                        pipeline: shell::Pipeline {
                            commands: vec![Command::Simple(sc)],
                            negated: false,
                        },
                    }],
                    incomplete: false,
                };
                (original, Some(script), None)
            }
        }
        (None, Some(cmd)) => (cmd.to_string(), Some(shell::parse(cmd)), None),
        (None, None) => (String::new(), None, None),
    };
    let Some(mut script) = script else {
        return Normalized {
            original,
            shell_body: None,
            command: String::new(),
            argv: Vec::new(),
            typed_argv: Vec::new(),
            runner: false,
            via: Via::Original,
            compound: false,
            pipeline: Vec::new(),
            exact_read: false,
            notes,
        };
    };
    let mut body = body;
    let mut via = if body.is_some() {
        Via::ShellBody
    } else {
        Via::Original
    };

    // Nested shells: `bash -lc "sh -c '…'"`, up to a few levels.
    for _ in 0..4 {
        let single = single_simple(&script).map(|sc| strip_prefixes(&sc.argv(), &mut Vec::new()));
        let Some(argv) = single else { break };
        let Some(inner) = shell_body(&argv) else {
            break;
        };
        notes.push(format!("unwrapped nested `{} -c` body", basename(&argv[0])));
        body = Some(inner.to_string());
        script = shell::parse(inner);
        via = Via::ShellBody;
    }

    let pipelines = flatten(&script);
    let mut substantive: Vec<(usize, &shell::Pipeline)> = Vec::new();
    let mut skipped = Vec::new();
    for (i, (_, p)) in pipelines.iter().enumerate() {
        match role(p) {
            Role::Setup => skipped.push(describe(p)),
            Role::Substantive => substantive.push((i, p)),
        }
    }
    let chosen = match substantive.len() {
        1 => Some(substantive[0]),
        _ => None,
    };
    let compound = substantive.len() > 1;
    if !skipped.is_empty() && chosen.is_some() {
        notes.push(format!("skipped setup: {}", skipped.join("; ")));
        via = Via::Effective;
    }
    if compound {
        notes.push(format!(
            "compound command: {} substantive commands ({})",
            substantive.len(),
            substantive
                .iter()
                .map(|(_, p)| describe(p))
                .collect::<Vec<_>>()
                .join(" / ")
        ));
    }
    let chosen = chosen.or_else(|| {
        // only setup commands: classify the last one
        (!compound)
            .then(|| pipelines.last().map(|(_, p)| (pipelines.len() - 1, *p)))
            .flatten()
    });

    let mut typed_argv = Vec::new();
    let (argv, stages, exact_read) = match chosen.filter(|_| !compound) {
        Some((_, p)) => {
            let typed: Vec<Vec<String>> = p
                .commands
                .iter()
                .map(|c| match c {
                    Command::Simple(sc) => strip_keywords(&sc.argv()),
                    Command::Subshell(_) | Command::Group(_) => Vec::new(),
                })
                .collect();
            let stages = stage_argvs(p, &mut notes);
            let idx = pick_stage(&stages);
            if stages.len() > 1 {
                notes.push(format!(
                    "pipeline of {}: classified by stage {}",
                    stages.len(),
                    idx + 1
                ));
            }
            let argv = stages.get(idx).cloned().unwrap_or_default();
            if let Some(t) = typed.get(idx).filter(|t| **t != argv) {
                typed_argv = t.clone();
            }
            let exact = is_exact_read(&stages, idx);
            (argv, stages, exact)
        }
        None => {
            // `cat a.rs; cat b.rs`, `cat Cargo.toml && cargo build`: the agent asked for file
            // content, and no reducer may cut it out of the mixed output (fidelity first).
            let reader = substantive.iter().find(|(_, p)| {
                let stages = stage_argvs(p, &mut Vec::new());
                is_exact_read(&stages, pick_stage(&stages))
            });
            if let Some((_, p)) = reader {
                notes.push(format!(
                    "compound command reads files ({}): passed through whole",
                    describe(p)
                ));
            }
            (Vec::new(), Vec::new(), compound && reader.is_some())
        }
    };
    let runner = !typed_argv.is_empty() && notes.iter().any(|n| n.starts_with(RUNNER_NOTE));
    if via == Via::Original && notes.iter().any(|n| n.starts_with("stripped")) {
        via = Via::Effective;
    }
    let command = if argv.is_empty() {
        body.clone().unwrap_or_else(|| original.clone())
    } else {
        shell::join(&argv)
    };
    Normalized {
        original,
        shell_body: body,
        command,
        argv,
        typed_argv,
        runner,
        via,
        compound,
        pipeline: stages,
        exact_read,
        notes,
    }
}

fn single_simple(s: &Script) -> Option<&SimpleCommand> {
    if s.items.len() != 1 || s.items[0].pipeline.commands.len() != 1 {
        return None;
    }
    match &s.items[0].pipeline.commands[0] {
        Command::Simple(sc) => Some(sc),
        _ => None,
    }
}

/// Pipelines in order, with subshells and groups that stand alone opened up.
fn flatten(s: &Script) -> Vec<(Option<Sep>, &shell::Pipeline)> {
    let mut out = Vec::new();
    for item in &s.items {
        if item.pipeline.commands.len() == 1 {
            if let Command::Subshell(inner) | Command::Group(inner) = &item.pipeline.commands[0] {
                out.extend(flatten(inner));
                continue;
            }
        }
        out.push((item.sep, &item.pipeline));
    }
    out
}

#[derive(Debug, PartialEq, Eq)]
enum Role {
    /// Changes state, prints nothing worth classifying: `cd`, `export`, `set -e` …
    Setup,
    /// Prints output (even `echo`: its lines must never be read as another command's).
    Substantive,
}

const SETUP: &[&str] = &[
    "cd", "pushd", "popd", "export", "set", "unset", "source", ".", "true", ":", "trap", "shopt",
    "alias", "unalias", "umask", "ulimit", "[", "[[", "test", "local", "declare", "typeset",
    "readonly", "fi", "done", "esac", "then", "else", "do", "sleep", "wait", "hash", "mkdir",
    "touch", "cp", "mv", "rm", "ln", "chmod", "chown", "nvm", "conda", "workon",
    // print nothing: `cargo test; exit $?` is still cargo test's output
    "exit", "return",
];

fn role(p: &shell::Pipeline) -> Role {
    if p.commands.len() != 1 {
        return Role::Substantive;
    }
    let Command::Simple(sc) = &p.commands[0] else {
        return Role::Substantive;
    };
    let argv = strip_keywords(&sc.argv());
    if argv.is_empty() {
        return Role::Setup; // bare assignments or a closing keyword
    }
    let a0 = basename(&argv[0]);
    let quiet_redirect = sc.redirects.iter().any(|r| r.target.text == "/dev/null");
    // stdout into a file or /dev/null (`npm install >/dev/null 2>&1`, `echo x > f`): the
    // command prints at most its errors, and the rule of the command that prints the
    // output keeps error lines
    let stdout_away = sc.redirects.iter().any(|r| {
        let t = r.target.text.as_str();
        // `>/dev/stdout`, `>/dev/stderr`, `>&2`, `>/dev/fd/1` still print
        let printed = t.starts_with('&')
            || matches!(t, "/dev/stdout" | "/dev/stderr" | "/dev/tty")
            || t.starts_with("/dev/fd/")
            || t.starts_with("/proc/self/fd/");
        let file = !printed && r.heredoc.is_none();
        let stdout = match r.op.as_str() {
            ">" | ">>" | ">|" => r.fd.is_none_or(|f| f == 1),
            "&>" | "&>>" => true,
            _ => false,
        };
        file && stdout
    });
    if stdout_away {
        return Role::Setup;
    }
    match a0 {
        "echo" | "printf" => Role::Substantive,
        // a loop's or a case's header prints nothing (`for f in *.ts`, `case $x in`); the
        // commands in the loop's body are judged on their own
        "for" | "case" if argv.len() >= 3 => Role::Setup,
        "command" | "type" | "which" if quiet_redirect => Role::Setup,
        "git" if argv.get(1).is_some_and(|s| s == "add") => Role::Setup,
        // `python -m venv .venv` prints nothing
        "python" | "python3"
            if argv.get(1).is_some_and(|s| s == "-m")
                && argv.get(2).is_some_and(|s| s == "venv") =>
        {
            Role::Setup
        }
        "virtualenv" => Role::Setup,
        "nvm" | "conda" => {
            if argv.get(1).is_some_and(|s| s == "use" || s == "activate") {
                Role::Setup
            } else {
                Role::Substantive
            }
        }
        _ if SETUP.contains(&a0) => Role::Setup,
        _ => Role::Substantive,
    }
}

/// The argv of each stage of a pipeline with keywords and prefixes stripped (empty for a
/// subshell or group); what was stripped is noted.
fn stage_argvs(p: &shell::Pipeline, notes: &mut Vec<String>) -> Vec<Vec<String>> {
    p.commands
        .iter()
        .map(|c| match c {
            Command::Simple(sc) => {
                let mut n = Vec::new();
                let a = strip_prefixes(&strip_keywords(&sc.argv()), &mut n);
                if !n.is_empty() || !sc.assignments.is_empty() {
                    notes.extend(n);
                    if !sc.assignments.is_empty() {
                        notes.push("stripped variable assignments".into());
                    }
                }
                a
            }
            Command::Subshell(_) | Command::Group(_) => Vec::new(),
        })
        .collect()
}

/// Drop leading reserved words (`if`, `then`, `!` …) so `if [ -f x ]` reads as `[ -f x ]`.
fn strip_keywords(argv: &[String]) -> Vec<String> {
    let mut i = 0;
    while i < argv.len()
        && matches!(
            argv[i].as_str(),
            "if" | "then" | "else" | "elif" | "do" | "while" | "until" | "!" | "time"
        )
    {
        i += 1;
    }
    argv[i..].to_vec()
}

/// Options of package runners that take a value (the next word).
const RUNNER_VALUE_OPTIONS: &[&str] = &[
    "-p",
    "--package",
    "-c",
    "--call",
    "--node-options",
    "--cache",
    "--registry",
    "--userconfig",
    "--filter",
    "-C",
    "--dir",
    "--cwd",
    "--spec",
    "--python",
    "--env",
    // uv run
    "--with",
    "-w",
    "--project",
    "--directory",
    "--extra",
    "--group",
    "--env-file",
    "--index",
];

/// yarn's own commands (1.x and 2+): any other first word names a script or a binary.
const YARN_COMMANDS: &[&str] = &[
    "add",
    "audit",
    "autoclean",
    "bin",
    "cache",
    "check",
    "config",
    "constraints",
    "create",
    "dedupe",
    "dlx",
    "exec",
    "explain",
    "generate-lock-entry",
    "global",
    "help",
    "import",
    "info",
    "init",
    "install",
    "licenses",
    "link",
    "list",
    "login",
    "logout",
    "node",
    "npm",
    "outdated",
    "owner",
    "pack",
    "patch",
    "patch-commit",
    "plugin",
    "policies",
    "publish",
    "rebuild",
    "remove",
    "run",
    "search",
    "set",
    "stage",
    "tag",
    "team",
    "unlink",
    "unplug",
    "up",
    "upgrade",
    "upgrade-interactive",
    "version",
    "versions",
    "why",
    "workspace",
    "workspaces",
];

/// How many words of a package runner (`npx`, `pnpm exec`, `poetry run`, `python -m`, …)
/// come before the program it runs; `None` when `argv[i..]` does not start with one, or
/// runs nothing.
fn runner_len(argv: &[String], i: usize) -> Option<usize> {
    let a0 = basename(argv.get(i)?);
    let sub = argv.get(i + 1).map(String::as_str);
    let head = match (a0, sub) {
        ("npx" | "bunx" | "pnpx", _) => 1,
        ("pnpm", Some("exec" | "dlx")) | ("yarn", Some("dlx" | "exec")) => 2,
        ("npm", Some("exec" | "x")) => 2,
        ("bun", Some("x")) => 2,
        // `yarn cdk diff`: yarn (1.x) runs a package's binary by its name; a script of the
        // same name classifies as that name too (no rule takes `build` or `test` alone)
        ("yarn", Some(sub)) if !sub.starts_with('-') && !YARN_COMMANDS.contains(&sub) => 1,
        ("poetry" | "pipx" | "pdm" | "hatch" | "rye" | "uv", Some("run")) => 2,
        _ => {
            // python -m <module> …: the module is the program
            let py = a0 == "python"
                || a0 == "python3"
                || a0
                    .strip_prefix("python3.")
                    .is_some_and(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()));
            if py && argv.get(i + 1).is_some_and(|a| a == "-m") {
                return argv.get(i + 2).map(|_| 2);
            }
            return None;
        }
    };
    let mut j = i + head;
    while let Some(a) = argv.get(j) {
        if a == "--" {
            j += 1;
            break;
        }
        if !a.starts_with('-') {
            break;
        }
        j += if RUNNER_VALUE_OPTIONS.contains(&a.as_str()) {
            2
        } else {
            1
        };
    }
    argv.get(j).map(|_| j - i)
}

/// How [`strip_prefixes`] notes a package runner it stripped (`npx`, `python -m`, …).
const RUNNER_NOTE: &str = "stripped package runner";

/// Strip `env …`, `sudo …`, `time`, `nice`, `nohup`, `timeout N`, `command`, `exec`,
/// `stdbuf`, and package runners (`npx`, `pnpm exec`/`dlx`, `yarn dlx`, `yarn <binary>`,
/// `npm exec`, `bunx`, `poetry run`, `pipx run`, `python -m …`), so the command classifies as the tool it runs;
/// rules written for the runner still match the command as typed.
pub fn strip_prefixes(argv: &[String], notes: &mut Vec<String>) -> Vec<String> {
    let mut i = 0;
    let n = argv.len();
    while i < n {
        let a0 = basename(&argv[i]);
        let start = i;
        match a0 {
            "env" => {
                i += 1;
                while i < n {
                    let a = &argv[i];
                    if a == "--" {
                        i += 1;
                        break;
                    }
                    if matches!(a.as_str(), "-u" | "-C" | "-S" | "--unset" | "--chdir") {
                        i += 2;
                    } else if a.starts_with('-')
                        || (a.contains('=') && shell::is_name(a.split('=').next().unwrap_or("")))
                    {
                        i += 1;
                    } else {
                        break;
                    }
                }
                if i >= n {
                    // nothing to run: env prints the environment, as printenv does
                    notes.push("`env` with no command prints the environment (as printenv)".into());
                    return vec!["printenv".to_string()];
                }
            }
            "sudo" | "doas" => {
                i += 1;
                while i < n && argv[i].starts_with('-') {
                    let takes = matches!(
                        argv[i].as_str(),
                        "-u" | "-g" | "-C" | "-p" | "-h" | "-U" | "-r" | "-t"
                    );
                    i += if takes { 2 } else { 1 };
                }
            }
            "time" | "nohup" | "exec" => i += 1,
            "command" if argv.get(i + 1).is_some_and(|s| !s.starts_with('-')) => i += 1,
            "nice" | "ionice" | "stdbuf" | "chrt" | "taskset" => {
                i += 1;
                while i < n && argv[i].starts_with('-') {
                    let takes = matches!(argv[i].as_str(), "-n" | "-c");
                    i += if takes { 2 } else { 1 };
                }
            }
            "timeout" => {
                i += 1;
                while i < n && argv[i].starts_with('-') {
                    let takes =
                        matches!(argv[i].as_str(), "-s" | "-k" | "--signal" | "--kill-after");
                    i += if takes { 2 } else { 1 };
                }
                i += 1; // the duration
            }
            _ => match runner_len(argv, i) {
                Some(len) => {
                    i += len;
                    notes.push(format!("{RUNNER_NOTE} `{a0}`"));
                    continue;
                }
                None => break,
            },
        }
        if i > start {
            notes.push(format!("stripped `{a0}` prefix"));
        }
    }
    argv.get(i.min(n)..)
        .map(<[String]>::to_vec)
        .unwrap_or_default()
}

/// Commands that only filter their input; the first stage's rule still applies.
const FILTERS: &[&str] = &[
    "head", "tail", "grep", "egrep", "fgrep", "sort", "uniq", "tee", "cut", "less", "more", "cat",
    "column", "tr", "rg", "ag", "nl", "wc", "fold", "fmt", "ts", "pv",
];

fn pick_stage(stages: &[Vec<String>]) -> usize {
    if stages.len() <= 1 {
        return 0;
    }
    let all_filters = stages[1..].iter().all(|s| {
        s.first().is_some_and(|a0| {
            let b = basename(a0);
            // `cat` with files or `rg` with a path is a new source, not a filter
            let extra_files = matches!(b, "cat" | "rg" | "grep" | "ag")
                && operands(s, b).len() > usize::from(b != "cat");
            FILTERS.contains(&b) && !extra_files
        })
    });
    if all_filters {
        0
    } else {
        stages.len() - 1
    }
}

/// Options of grep, rg, ag and git grep that take a value (the next word).
pub const SEARCH_VALUE_OPTIONS: &[&str] = &[
    "-e",
    "-f",
    "-m",
    "-A",
    "-B",
    "-C",
    "-g",
    "-t",
    "-T",
    "--glob",
    "--type",
    "--type-not",
    "--max-count",
    "--regexp",
    "--file",
    "--context",
    "--after-context",
    "--before-context",
    "-M",
    "--max-columns",
    "--color",
    "--colors",
    "-j",
    "--threads",
    "--include",
    "--exclude",
    "--exclude-dir",
    "-d",
    "-D",
    "--max-depth",
    "--encoding",
];

/// Non-option arguments of a command (after its first word).
fn operands<'a>(argv: &'a [String], a0: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut i = 1;
    let takes_value: &[&str] = match a0 {
        "head" | "tail" => &["-n", "-c", "--lines", "--bytes"],
        "sed" => &["-e", "-f", "--expression", "--file", "-l"],
        "grep" | "rg" => SEARCH_VALUE_OPTIONS,
        "jq" => &[
            "--arg",
            "--argjson",
            "--slurpfile",
            "--rawfile",
            "--indent",
            "-f",
            "--from-file",
        ],
        "bat" | "batcat" => &[
            "-l",
            "--language",
            "-r",
            "--line-range",
            "--style",
            "--theme",
            "-H",
            "--highlight-line",
        ],
        _ => &[],
    };
    let mut only_operands = false;
    while i < argv.len() {
        let a = argv[i].as_str();
        if only_operands {
            out.push(a);
        } else if a == "--" {
            only_operands = true;
        } else if takes_value.contains(&a) {
            i += 1;
        } else if a.starts_with('-') && a.len() > 1 {
            // `-n5` style options carry their value
        } else {
            out.push(a);
        }
        i += 1;
    }
    out
}

fn looks_like_log(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    p.ends_with(".log")
        || p.contains(".log.")
        || p.ends_with(".out")
        || p.ends_with(".err")
        || p.contains("/log/")
        || p.contains("/logs/")
        || p.starts_with("/var/log")
}

/// A log read with `head`/`tail` and at most this many lines asked for is an exact read.
const MAX_SIZED_READ: u64 = 500;

/// The number of lines `head`/`tail` were asked for: `-n 200`, `-n200`, `--lines=200`,
/// `--lines 200`, `-200`. A signed count is no bound (`tail -n +50`: from line 50 to the
/// end; `head -n -5`: all but the last five), so it gives None.
fn line_count(argv: &[String]) -> Option<u64> {
    let num = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        if a == "--" {
            break;
        }
        if a == "-n" || a == "--lines" {
            return argv.get(i + 1).and_then(|v| num(v));
        }
        if let Some(v) = a.strip_prefix("--lines=").or_else(|| a.strip_prefix("-n")) {
            return num(v);
        }
        if let Some(v) = a.strip_prefix('-').filter(|v| !v.is_empty()) {
            if let Some(n) = num(v) {
                return Some(n);
            }
        }
        i += 1;
    }
    None
}

/// Is the chosen stage a read of file contents that must stay byte-identical?
fn is_exact_read(stages: &[Vec<String>], idx: usize) -> bool {
    let Some(argv) = stages.get(idx) else {
        return false;
    };
    let Some(a0) = argv.first().map(|a| basename(a)) else {
        return false;
    };
    let ops = operands(argv, a0);
    match a0 {
        "cat" | "bat" | "batcat" | "nl" | "less" | "more" => !ops.iter().any(|o| looks_like_log(o)),
        "jq" | "yq" | "gojq" | "jaq" => true,
        "head" | "tail" => {
            let follow = argv
                .iter()
                .any(|a| a == "-f" || a == "-F" || a == "--follow");
            // a file operand that is not a log, or a log read by an explicit number of lines
            // (`tail -n 200 app.log`: the agent sized its read); stdin (`| head`) is a
            // filter, not a read
            let sized = line_count(argv).is_some_and(|n| n <= MAX_SIZED_READ);
            !follow && !ops.is_empty() && (sized || !ops.iter().any(|o| looks_like_log(o)))
        }
        "sed" => {
            let quiet = argv.iter().any(|a| {
                a == "-n"
                    || a == "--quiet"
                    || a == "--silent"
                    || (a.starts_with('-')
                        && !a.starts_with("--")
                        && a.contains('n')
                        && !a.contains('i'))
            });
            let in_place = argv
                .iter()
                .any(|a| a.starts_with("-i") || a == "--in-place");
            quiet && !in_place && ops.len() >= 2 && !ops[1..].iter().any(|o| looks_like_log(o))
        }
        "git" => {
            // git show REV:path
            let sub = argv.iter().skip(1).find(|a| !a.starts_with('-'));
            sub.is_some_and(|s| s == "show")
                && argv
                    .iter()
                    .skip(2)
                    .any(|a| !a.starts_with('-') && a.contains(':') && !a.contains("://"))
        }
        _ => false,
    }
}

fn describe(p: &shell::Pipeline) -> String {
    let parts: Vec<String> = p
        .commands
        .iter()
        .map(|c| match c {
            Command::Simple(sc) => {
                let argv = sc.argv();
                argv.iter().take(3).cloned().collect::<Vec<_>>().join(" ")
            }
            Command::Subshell(_) => "( … )".into(),
            Command::Group(_) => "{ … }".into(),
        })
        .collect();
    parts.join(" | ")
}

/// An inventory command that runs other commands on what it finds (`find -exec`,
/// `fd -x`): its output is those commands' output, not a listing.
pub fn inventory_runs_commands(argv: &[String]) -> bool {
    match argv.first().map(|a| basename(a)) {
        Some("find") => argv
            .iter()
            .any(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")),
        Some("fd" | "fdfind") => argv
            .iter()
            .any(|a| matches!(a.as_str(), "-x" | "--exec" | "-X" | "--exec-batch")),
        _ => false,
    }
}

/// The git subcommand: the first non-option word after git's own global options.
pub fn git_subcommand(argv: &[String]) -> Option<&str> {
    if argv.first().map(|a| basename(a)) != Some("git") {
        return None;
    }
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path"
            | "--super-prefix" | "--config-env" => i += 2,
            _ if a.starts_with('-') => i += 1,
            _ => return Some(a),
        }
    }
    None
}

#[cfg(test)]
#[path = "normalize_tests.rs"]
mod tests;
