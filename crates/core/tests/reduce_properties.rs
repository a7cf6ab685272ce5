//! Any bytes, under any of a range of rules, reduce without panicking or hanging, and the
//! result accounts for its input.

use proptest::prelude::*;
use tokenjuice_core::compact::{compact_text, Finish, Request};

const COMMANDS: &[&str] = &[
    "some-tool run",
    "git status",
    "git diff",
    "git log",
    "cargo test",
    "cargo build",
    "pytest -x",
    "npm install",
    "ls -la",
    "grep -rn TODO src",
    "curl -s http://localhost:8080/api",
    "docker ps",
    "kubectl get pods",
    "terraform plan",
    "tool --help",
    "cat package-lock.json",
];

fn bytes_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..400),
        // line-shaped text with control characters, escapes and multi-byte characters mixed in
        prop::collection::vec(
            prop_oneof![
                Just(b"\n".to_vec()),
                Just(b"\r".to_vec()),
                Just(b"\x0c".to_vec()),
                Just(b"\x1b[31m".to_vec()),
                Just("é☃日".as_bytes().to_vec()),
                Just(b"error: failed ".to_vec()),
                Just(b"test a ... FAILED\n".to_vec()),
                Just(b"diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n".to_vec()),
                Just(b"{\"a\": [1, 2]}".to_vec()),
                "[ -~]{0,40}".prop_map(|s| s.into_bytes()),
            ],
            0..60
        )
        .prop_map(|parts| parts.concat()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn any_output_reduces(text in bytes_strategy(), cmd in 0..COMMANDS.len(), exit in prop_oneof![Just(0), Just(1), Just(101)]) {
        let req = Request { tool_name: "exec", command: Some(COMMANDS[cmd]), ..Request::default() };
        let (_, r) = compact_text(&req, &[], &text, exit, &Finish::default());
        prop_assert_eq!(r.stats.raw_bytes, text.len() as u64);
        // never longer than what the command printed (read as text: an invalid byte is one
        // replacement character for any reader)
        let raw_text = String::from_utf8_lossy(&text);
        let raw_tokens = r.stats.raw_tokens.max(tokenjuice_core::tokens::estimate(&raw_text));
        prop_assert!(
            r.stats.reduced_tokens <= raw_tokens,
            "{} > {} tokens: {:?}",
            r.stats.reduced_tokens,
            raw_tokens,
            r.inline_text
        );
        // a failure says so first, unless that line alone would make it longer
        if exit != 0 {
            let first = format!("exit {exit}");
            let with_exit = format!("{first}\n{}", r.inline_text);
            prop_assert!(
                r.inline_text.starts_with(&first)
                    || tokenjuice_core::tokens::estimate(&with_exit) > raw_tokens
                    || with_exit.chars().count()
                        > raw_text.chars().count() - raw_text.matches("\r\n").count(),
                "{}",
                r.inline_text
            );
        }
    }

    #[test]
    fn chunking_never_changes_the_result(text in bytes_strategy(), cut in 0usize..400) {
        let req = Request { tool_name: "exec", command: Some("some-tool run"), ..Request::default() };
        let plan = tokenjuice_core::compact::plan(&req, &[]);
        let whole = { let mut s = plan.session(); s.push(&text); s.finish(0, &Finish::default()) };
        let split = {
            let mut s = plan.session();
            let at = cut.min(text.len());
            s.push(&text[..at]);
            s.push(&text[at..]);
            s.finish(0, &Finish::default())
        };
        prop_assert_eq!(whole.inline_text, split.inline_text);
    }

    /// Keywords are searched once per chunk, and again per line only where a line spans
    /// chunks: fed whole or a byte at a time, the same lines count as errors and warnings.
    #[test]
    fn keyword_search_per_chunk_agrees_with_per_line(
        words in prop::collection::vec(
            prop_oneof![
                Just("error"), Just("Errors"), Just("ERROR:"), Just("warning"), Just("WARN"),
                Just("failed"), Just("not"), Just("found"), Just("not found"), Just("unable"),
                Just("to"), Just("timed out"), Just("0 errors"), Just("src/error.rs"),
                Just("deprecated"), Just("ok"), Just("GET /api/x 200"), Just("é"), Just("\n"),
                // cleaning joins these into keywords: the line must be searched again
                Just("er\x1b[0mror"), Just("zzzor\rerr"), Just("\x1b[33mWARN\x1b[0m"),
                Just("fail\u{9b}0med"),
                Just("\n"), Just("\n"),
            ],
            0..120,
        ),
        seps in prop::collection::vec(prop_oneof![Just(" "), Just(""), Just("-"), Just("\t")], 120),
    ) {
        let mut text = String::new();
        for (i, w) in words.iter().enumerate() {
            text.push_str(w);
            text.push_str(seps[i]);
        }
        let req = Request { tool_name: "exec", command: Some("some-tool run"), ..Request::default() };
        let plan = tokenjuice_core::compact::plan(&req, &[]);
        let whole = { let mut s = plan.session(); s.push(text.as_bytes()); s.finish(1, &Finish::default()) };
        let bytewise = {
            let mut s = plan.session();
            for b in text.as_bytes().chunks(1) {
                s.push(b);
            }
            s.finish(1, &Finish::default())
        };
        prop_assert_eq!(whole.inline_text, bytewise.inline_text);
        prop_assert_eq!(whole.facts, bytewise.facts);
    }
}
