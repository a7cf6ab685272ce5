//! Property: for arbitrary command strings (quotes, `$vars`, `$(…)`, backticks, heredocs,
//! newlines, unicode, syntax errors), the command a pre-tool rewrite hook (vscode-copilot,
//! devin) writes, run with `wrap --raw`, gives exactly the output and exit
//! code of the original run through the same shell with `-c` (not a login shell). So the
//! rewrite never changes what a command means.

mod hosts_support;

use std::process::{Command, Stdio};

use hosts_support::*;
use proptest::prelude::*;
use serde_json::{json, Value};

/// Shell fragments, safe to run in any order. No `|` and no `&`: two processes writing at
/// once interleave differently from run to run even without tokenjuice.
const TOKENS: &[&str] = &[
    "echo",
    "printf '%s:\\n'",
    "'single quoted'",
    "\"double $X\"",
    "$X",
    "${X:-unset}",
    "${NOPE:-fallback}",
    "$(printf sub)",
    "`printf back`",
    "é日本🎉",
    "\\\\",
    "\\$X",
    "'it'\\''s'",
    "\"a\\\"b\"",
    ";",
    "&&",
    "||",
    "\n",
    "exit 3",
    "true",
    "false",
    "cat <<'EOF'\nliteral $X `x` é\nEOF\n",
    "cat <<EOF\nexpanded $X $(printf in)\nEOF\n",
    "Y=local",
    "# a comment",
    "'",
    "\"",
    "(",
    ")",
    "{",
    "}",
    "echo to-stderr >&2",
    "tr a-z A-Z",
    "printf 'no newline'",
    "  ",
    "\t",
];

fn command() -> impl Strategy<Value = String> {
    prop::collection::vec((0..TOKENS.len(), prop::bool::ANY), 1..9).prop_map(|parts| {
        let mut s = String::new();
        for (i, space) in parts {
            s.push_str(TOKENS[i]);
            s.push(if space { ' ' } else { '\n' });
        }
        s
    })
}

fn shell_env(c: &mut Command, home: &std::path::Path) {
    c.env_clear()
        .env("HOME", home)
        .env("PATH", system_path())
        .env("X", "x-value with  spaces")
        .env("SHELL", "/bin/bash")
        .env("TMPDIR", home)
        .env("TOKENJUICE_HOME", home.join(".tokenjuice-test"))
        .env("TOKENJUICE_STATS", "0")
        .stdin(Stdio::null());
}

/// Runs `argv` with stdout and stderr on one pipe, like `wrap` captures them.
fn merged(argv: &[&str], home: &std::path::Path) -> (Vec<u8>, i32) {
    let mut c = Command::new("/bin/sh");
    c.arg("-c").arg("exec \"$@\" 2>&1").arg("sh").args(argv);
    shell_env(&mut c, home);
    let o = c.output().unwrap();
    (o.stdout, o.status.code().unwrap_or(-1))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    #[test]
    fn the_rewrite_preserves_output_and_exit_code(cmd in command(), host in 0usize..2) {
        let (id, event, tool) = [("vscode-copilot", "PreToolUse", "run_in_terminal"), ("devin", "PreToolUse", "exec")][host];
        let w = World::new();
        let payload = json!({"hook_event_name": event, "tool_name": tool, "tool_input": {"command": cmd}}).to_string();
        let a = answer(&w.run_stdin(&[&format!("{id}-pre-tool-use"), "--wrap-launcher", &launcher()], &payload));
        let rewritten = ["/updated_input/command", "/hookSpecificOutput/updatedInput/command"]
            .iter()
            .find_map(|p| a.pointer(p).and_then(Value::as_str))
            .map(str::to_string);
        let rewritten = match rewritten {
            Some(r) => r,
            // A blank command is left alone (nothing to run); every other one is rewritten.
            None if cmd.trim().is_empty() => return Ok(()),
            None => return Err(TestCaseError::fail(format!("not rewritten: {a}"))),
        };
        let marker = format!(" wrap --source {id} -- ");
        prop_assert!(rewritten.contains(&marker), "{}", rewritten);
        prop_assert!(rewritten.contains(" -- /bin/bash -c "), "not a login shell: {}", rewritten);
        let raw = rewritten.replacen(" wrap --source ", " wrap --raw --source ", 1);
        let (got, got_code) = merged(&["/bin/sh", "-c", &raw], &w.home);
        let (want, want_code) = merged(&["/bin/bash", "-c", &cmd], &w.home);
        prop_assert_eq!(got_code, want_code, "command {:?}\nrewritten {}", cmd, raw);
        prop_assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&want), "command {:?}", cmd);
    }
}
