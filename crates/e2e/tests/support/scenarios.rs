//! The scenarios every host runs, with and without tokenjuice, and how each is judged.

#![allow(dead_code)]

use serde_json::{json, Value};

use super::{tokens, ToolResult};

/// How a scenario's two results (without, with tokenjuice) must compare.
#[derive(Debug, Clone)]
pub enum Judge {
    /// Byte-identical: small outputs, shell semantics, permission answers.
    Same,
    /// Same apart from ids the host makes up (background task ids, temp paths): each of
    /// these texts must be in both, and the lengths must be close.
    SameShape(&'static [&'static str]),
    /// A host's window of a long output's first and last lines, which a line the host adds
    /// itself, now and then, can move by one (Droid's job notice under a bash older than 5):
    /// each of these texts in both, and the lengths within one line of each other.
    SameWindow(&'static [&'static str]),
    /// The same lines, in any order: for a host that itself interleaves stdout and stderr
    /// differently from run to run (Copilot CLI).
    SameLines,
    /// Noisy output: fewer tokens with tokenjuice, every listed fact still there.
    Compacts(&'static [&'static str]),
    /// Output whose every line is a fact: no more tokens with tokenjuice (the host's own
    /// text when the host shows it whole), every listed fact still there.
    NoLarger(&'static [&'static str]),
    /// Output a host cuts itself: fewer tokens with tokenjuice, and every line the host
    /// showed without it that starts with one of these (colour codes removed; a line the
    /// host cut through counts by the part it showed) is in tokenjuice's text.
    KeepsHostLines(&'static [&'static str]),
}

#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: &'static str,
    pub command: String,
    /// Extra tool arguments (e.g. `run_in_background`).
    pub extra: Value,
    pub judge: Judge,
}

fn s(name: &'static str, command: &str, judge: Judge) -> Scenario {
    Scenario {
        name,
        command: command.into(),
        extra: json!({}),
        judge,
    }
}

/// Output and facts: the noisy cases and a failing test run.
pub fn compaction() -> Vec<Scenario> {
    vec![
        s(
            "seq 5k lines",
            "seq 1 5000",
            Judge::Compacts(&["\n1\n", "5000"]),
        ),
        s("seq 20k lines", "seq 1 20000", Judge::Compacts(&["20000"])),
        s(
            "git log of 200 commits",
            "git log",
            Judge::Compacts(&["change 200:", "change 1:"]),
        ),
        s(
            "ls -la of 300 files",
            "ls -la assets",
            Judge::Compacts(&["img_0001.png", "img_0300.png"]),
        ),
        s(
            "retry loop logging a traceback per attempt",
            "python3 retry.py",
            Judge::Compacts(&[
                "attempt 1 of 6: request 3f9c2a71",
                "ConnectionRefusedError",
                "c27a9f53",
                "1500",
                "1d6f3b90",
                "giving up after 6 attempts",
            ]),
        ),
        s(
            "binary data on stdout",
            "python3 -c \"import random,sys\nrandom.seed(5)\nsys.stdout.buffer.write(b'\\x89PNG\\r\\n\\x1a\\n'+bytes(random.randrange(256) for _ in range(20000))+b'\\nimage done\\n')\"",
            Judge::Compacts(&["image done"]),
        ),
        s(
            "failing test run",
            "python3 -m unittest -v test_shop",
            Judge::Compacts(&[
                "test_total_price",
                "AssertionError",
                "42 != 43",
                "total for cart 7",
                "FAILED (failures=1)",
            ]),
        ),
    ]
}

/// A failing command with 400 distinct lines, 200 plain ones then 200 error lines (18,800
/// characters): over Claude Code's 10,000-character cut of failures, under the 30,000 of
/// successes. Every line is a fact: a host that shows it whole gets it whole, a plain line
/// from the middle of the plain ones (no error near it) included.
pub fn failing_over_10k() -> Scenario {
    failing_lines(&[
        "note kembcdlbgbcnnchcnbdhbmbhbejnedjfdgldcbgp",
        "note dbknklcdofgbhncggjaindfofjmhkiacgieccmjc",
        "error: icaofifgnifeocomfamdgekggplblddhplcboknh",
        "error: hopgbcaacioajpfcopfejkmheklabopeabjimjpc",
    ])
}

/// A failing command whose output a host cuts itself (27 KB), and which tokenjuice can make
/// smaller without losing what the host shows: 200 distinct coloured `note` lines with a run
/// of 20 progress lines after every tenth, then 200 distinct coloured error lines. Claude
/// Code shows its first and last 5,000 characters, Droid a summary of its keyword lines;
/// every `note`/`error:` line either shows must be in tokenjuice's smaller text.
pub fn failing_cut_by_host() -> Scenario {
    coloured_log("failing output the host cuts", 200, 200)
}

/// The same log three times as long (76 KB: over Gemini CLI's 40,000 characters).
pub fn failing_cut_by_host_76k() -> Scenario {
    coloured_log("failing 76 KB output the host cuts", 600, 300)
}

fn coloured_log(name: &'static str, notes: usize, errors: usize) -> Scenario {
    s(
        name,
        &format!("python3 -c \"import random,sys\nrandom.seed(11)\nw=lambda: ''.join(random.choice('abcdefghijklmnop') for _ in range(40))\nfor i in range({notes}):\n  print('\\x1b[36mnote\\x1b[0m '+w())\n  if i%10==9:\n    for k in range(1,21): print('fetching part %d of 20' % k)\nfor i in range({errors}): print('\\x1b[31merror:\\x1b[0m '+w())\nsys.exit(1)\""),
        Judge::KeepsHostLines(&["note ", "error: "]),
    )
}

fn failing_lines(facts: &'static [&'static str]) -> Scenario {
    s(
        "failing output over the 10k cut",
        "python3 -c \"import random,sys\nrandom.seed(7)\nfor i in range(400): print(('note ' if i < 200 else 'error: ') + ''.join(random.choice('abcdefghijklmnop') for _ in range(40)))\nsys.exit(1)\"",
        Judge::NoLarger(facts),
    )
}

/// A command that prints three lines, then runs past the timeout the model gave it (`extra`:
/// the host's own timeout argument): the host ends it or moves it on, and shows what it
/// printed so far; with tokenjuice the model must read the same.
pub fn past_its_timeout(extra: Value) -> Scenario {
    Scenario {
        name: "command past its timeout",
        command: "echo fg-start; seq 1 3; sleep 8; echo fg-done".into(),
        extra,
        judge: Judge::SameShape(&["fg-start\n1\n2\n3"]),
    }
}

/// Shell semantics: quoting, heredocs, exit codes, cd, the agent's PATH.
pub fn semantics() -> Vec<Scenario> {
    vec![
        s(
            "non-zero exit",
            "echo partial; echo oops >&2; exit 3",
            Judge::Same,
        ),
        s(
            "quotes pipes and vars",
            "printf '%s|%s\\n' \"a b\" 'c\"d' | tr a-z A-Z && X=1 && echo \"x=$X\" || echo never",
            Judge::Same,
        ),
        s(
            "heredoc",
            "cat <<'EOF'\nliteral $HOME `x`\nEOF",
            Judge::Same,
        ),
        s(
            "export",
            "export TJ_E2E_VAR=kept && echo \"set=$TJ_E2E_VAR\"",
            Judge::Same,
        ),
        s(
            "export persisted",
            "echo \"v=${TJ_E2E_VAR:-unset}\"",
            Judge::Same,
        ),
        s("cd into sub", "cd sub && pwd", Judge::Same),
        s("cd persisted", "pwd", Judge::Same),
        s("tool on the agent's PATH", "mytool hello", Judge::Same),
        // the names of the variables the command sees (their values hold per-session ids and
        // paths; `envnames` is an agent tool: see `agent_tools`)
        s("the environment's variable names", "envnames", Judge::Same),
        // the shell's options, on one line (a list of `option off` lines would be folded as
        // similar lines; Claude Code refuses to run `shopt` for a zsh user)
        s("the shell's options", "set -o | xargs", Judge::Same),
        // the signals a command starts with ignored or blocked (what the host gave its shell)
        s(
            "the signals a command inherits",
            "grep -E Sig[IB] /proc/self/status | xargs",
            Judge::Same,
        ),
        // the descriptors a command is started with (their numbers), its limits and umask
        s("open descriptors", "ls /proc/self/fd | xargs", Judge::Same),
        s("limits and umask", "ulimit -a | xargs; umask", Judge::Same),
        // whether stdin, stdout and stderr are a terminal (tools print otherwise when they
        // are: colours, columns, progress bars, prompts), and what stdin holds
        s(
            "terminal or not",
            "test -t 0 && echo 0:tty || echo 0:not-tty; test -t 1 && echo 1:tty || echo 1:not-tty; test -t 2 && echo 2:tty || echo 2:not-tty",
            Judge::Same,
        ),
        s("what stdin holds", "timeout 2 cat | wc -c", Judge::Same),
        // a program killed by a signal: the shell's status for it (128 + the signal); the
        // shell's notice of it (`Terminated`, with a process id in bash older than 5) goes
        // to /dev/null (a group's redirection holds while the shell reaps the program), as
        // a host reading stdout and stderr through two pipes (Codex) puts it before or
        // after `status=` as the reads fall
        s(
            "a program killed by a signal",
            "{ sh -c 'kill -TERM $$'; } 2>/dev/null; echo \"status=$?\"",
            Judge::Same,
        ),
        // bytes that are not UTF-8 (a Latin-1 file, a binary): as the host shows them
        s("bytes that are not UTF-8", "printf 'caf\\351 \\377 ok\\n'", Judge::Same),
    ]
}

/// Permission probes (the host's own rules decide; the answers must be identical).
pub fn permissions() -> Vec<Scenario> {
    vec![
        s("deny rule", "rm -f victim.txt", Judge::Same),
        s("ask rule", "git push origin main", Judge::Same),
        s("no rule, writes", "touch created-by-agent.txt", Judge::Same),
        s("allow prefix", "ls sub", Judge::Same),
    ]
}

/// How one scenario came out.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub name: &'static str,
    pub ok: bool,
    pub why: String,
    pub tokens_without: u64,
    pub tokens_with: u64,
}

/// Numbers a host makes up per run (process ids) replaced by `N`, so two runs compare.
pub fn normalize(text: &str) -> String {
    let mut out = text.to_string();
    for label in ["Process Group PGID: ", "(PID: ", "Background PIDs: "] {
        let mut res = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(i) = rest.find(label) {
            res.push_str(&rest[..i + label.len()]);
            rest = &rest[i + label.len()..];
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits > 0 {
                res.push('N');
            }
            rest = &rest[digits..];
        }
        res.push_str(rest);
        out = res;
    }
    // Codex's per-call header: a chunk id and the wall time
    let out: String = out
        .lines()
        .map(|l| {
            if l.starts_with("Chunk ID: ") {
                "Chunk ID: N".to_string()
            } else if l.starts_with("Wall time: ") && l.ends_with(" seconds") {
                "Wall time: N seconds".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if out.ends_with('\n') { "\n" } else { "" };
    // Droid's command shell under a bash older than 5 now and then reports the end of its
    // own watcher job (`factory-execute-supervisor: line 26:  4070 Terminated  watch_owner`),
    // with or without tokenjuice, as the timing falls: on a line of its own or right after
    // output that did not end its line
    let mut out = out;
    let notice = "factory-execute-supervisor: line ";
    let mut from = 0;
    while let Some(i) = out[from..].find(notice).map(|i| from + i) {
        let end = out[i..].find('\n').map_or(out.len(), |n| i + n + 1);
        if out[i..end].contains(" Terminated ") {
            out.replace_range(i..end, "");
            from = i;
        } else {
            from = end;
        }
    }
    // files a host names per run (Copilot's saved output: time, pid and a uuid in the name)
    // and Droid's (a temporary directory and a uuid)
    for label in ["Saved to: ", "output saved to: "] {
        let mut res = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(i) = rest.find(label) {
            res.push_str(&rest[..i + label.len()]);
            rest = &rest[i + label.len()..];
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            res.push_str("<file>");
            rest = &rest[end..];
        }
        res.push_str(rest);
        out = res;
    }
    out
}

pub fn judge(sc: &Scenario, without: &ToolResult, with: &ToolResult) -> Verdict {
    let (tw, tj) = (
        tokens(&normalize(&without.text)),
        tokens(&normalize(&with.text)),
    );
    let (without, with) = (
        &ToolResult {
            text: normalize(&without.text),
            ..without.clone()
        },
        &ToolResult {
            text: normalize(&with.text),
            ..with.clone()
        },
    );
    let mut why = Vec::new();
    if without.is_error != with.is_error {
        why.push(format!(
            "is_error {:?} → {:?}",
            without.is_error, with.is_error
        ));
    }
    match &sc.judge {
        Judge::Same => {
            if without.text != with.text {
                why.push(format!(
                    "text differs:\n--- without ---\n{}\n--- with ---\n{}",
                    clip(&without.text),
                    clip(&with.text)
                ));
            }
        }
        Judge::SameLines => {
            let sorted = |t: &str| {
                let mut l: Vec<String> = t.lines().map(str::to_string).collect();
                l.sort();
                l
            };
            if sorted(&without.text) != sorted(&with.text) {
                why.push(format!(
                    "lines differ:\n--- without ---\n{}\n--- with ---\n{}",
                    clip(&without.text),
                    clip(&with.text)
                ));
            }
        }
        Judge::SameShape(parts) | Judge::SameWindow(parts) => {
            for p in *parts {
                if !without.text.contains(p) || !with.text.contains(p) {
                    why.push(format!(
                        "`{p}` not in both: without {:?} / with {:?}",
                        clip(&without.text),
                        clip(&with.text)
                    ));
                }
            }
            let line = |t: &str| t.lines().map(|l| l.len() as i64 + 1).max().unwrap_or(0);
            let within = match sc.judge {
                Judge::SameWindow(_) => line(&without.text).max(line(&with.text)),
                _ => 40,
            };
            let (a, b) = (without.text.len() as i64, with.text.len() as i64);
            if (a - b).abs() > within {
                why.push(format!("lengths differ: {a} vs {b}"));
            }
        }
        Judge::NoLarger(facts) => {
            if tj > tw {
                why.push(format!(
                    "larger: {tw} → {tj} tokens\n--- with ---\n{}",
                    clip(&with.text)
                ));
            }
            for f in *facts {
                if without.text.contains(f) && !with.text.contains(f) {
                    why.push(format!("lost the fact `{f}`:\n{}", clip(&with.text)));
                }
            }
        }
        Judge::KeepsHostLines(starts) => {
            if tj >= tw {
                why.push(format!(
                    "not smaller: {tw} → {tj} tokens\n--- with ---\n{}",
                    clip(&with.text)
                ));
            }
            let lost: Vec<String> = without
                .text
                .lines()
                .map(strip_colour)
                .filter(|l| starts.iter().any(|s| l.starts_with(s)))
                .filter(|l| !with.text.contains(l.as_str()))
                .collect();
            if !lost.is_empty() {
                why.push(format!(
                    "{} lines the host showed are not in tokenjuice's text, e.g. `{}`:\n{}",
                    lost.len(),
                    lost[0],
                    clip(&with.text)
                ));
            }
        }
        Judge::Compacts(facts) => {
            // the host's own text kept as it was (tokenjuice declined: it could not do better
            // than the host's preview) is allowed; the caller requires most to compact
            if tj >= tw && without.text != with.text {
                why.push(format!(
                    "not smaller: {tw} → {tj} tokens\n--- with ---\n{}",
                    clip(&with.text)
                ));
            }
            // a fact that starts with a line break is a whole line: at the start counts too
            let has = |t: &str, f: &str| {
                t.contains(f) || f.strip_prefix('\n').is_some_and(|l| t.starts_with(l))
            };
            for f in *facts {
                if has(&without.text, f) && !has(&with.text, f) {
                    why.push(format!("lost the fact `{f}`:\n{}", clip(&with.text)));
                }
            }
            // a command the host refused (no allow rule) or could not run gives the same
            // short text twice: it proves nothing
            let seen = |t: &str| facts.iter().any(|f| has(t, f));
            if !facts.is_empty() && !seen(&without.text) && !seen(&with.text) {
                why.push(format!(
                    "none of its facts in either run: the command did not run as meant\n--- without ---\n{}",
                    clip(&without.text)
                ));
            }
        }
    }
    // (made-up ids and a host's own window differ in length; the judges bound that above)
    if tj > tw && !matches!(sc.judge, Judge::SameShape(_) | Judge::SameWindow(_)) {
        why.push(format!(
            "the model reads more tokens with tokenjuice: {tw} → {tj}"
        ));
    }
    Verdict {
        name: sc.name,
        ok: why.is_empty(),
        why: why.join("; "),
        tokens_without: tw,
        tokens_with: tj,
    }
}

/// `s` without terminal colour codes (ESC [ … m).
fn strip_colour(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("\x1b[") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find('m') {
            Some(m) => rest = &after[m + 1..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

fn clip(s: &str) -> String {
    if s.chars().count() <= 1500 {
        s.to_string()
    } else {
        let head: String = s.chars().take(1000).collect();
        let tail: String = s
            .chars()
            .rev()
            .take(400)
            .collect::<String>()
            .chars()
            .rev()
            .collect();
        format!("{head}\n[… {} chars …]\n{tail}", s.chars().count() - 1400)
    }
}

/// Trivial commands whose time in the host, with and without tokenjuice, gives the latency
/// tokenjuice adds per command.
/// How many: 10, or `TOKENJUICE_E2E_PROBES` (the bench asks for more, for a steadier median).
pub fn latency_probes() -> usize {
    std::env::var("TOKENJUICE_E2E_PROBES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n: &usize| (1..=500).contains(n))
        .unwrap_or(10)
}

pub fn latency() -> Vec<Scenario> {
    // distinct commands: some hosts stop a session that repeats one call (loop detection)
    (0..latency_probes())
        .map(|i| s("latency probe", &format!("true {i}"), Judge::Same))
        .collect()
}

/// Median of the host's time for the latency probes (the last `n` calls).
pub fn probe_median_ms(call_times: &[u64], total_calls: usize, n: usize) -> Option<u64> {
    if n == 0 || call_times.len() < total_calls || total_calls < n {
        return None;
    }
    let mut t: Vec<u64> = call_times[total_calls - n..total_calls].to_vec();
    t.sort_unstable();
    Some(t[t.len() / 2])
}
