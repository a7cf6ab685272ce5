//! Property: for arbitrary command strings (quotes, `$vars`, `$(…)`, backticks, heredocs,
//! newlines, unicode, syntax errors), `tokenjuice wrap --raw -- bash -c '<command>'` (what
//! the guidance files tell the model to run for exact bytes) gives exactly the output and
//! exit code of `bash -c '<command>'`: wrapping never changes what a command means.

mod hosts_support;

use std::process::{Command, Stdio};

use hosts_support::*;
use proptest::prelude::*;

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
    fn wrap_raw_preserves_output_and_exit_code(cmd in command()) {
        let w = World::new();
        let (got, got_code) = merged(&[BIN, "wrap", "--raw", "--", "/bin/bash", "-c", &cmd], &w.home);
        let (want, want_code) = merged(&["/bin/bash", "-c", &cmd], &w.home);
        prop_assert_eq!(got_code, want_code, "command {:?}", cmd);
        prop_assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&want), "command {:?}", cmd);
    }
}
