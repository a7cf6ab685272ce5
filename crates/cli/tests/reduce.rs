//! `reduce`, `reduce-json`, `verify` and the JSON/trace shapes.

mod common;

use common::Sandbox;

fn git(dir: &std::path::Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn wrap_json_trace_unwraps_the_host_shell() {
    let sb = Sandbox::new();
    let w = sb.work();
    git(&w, &["init", "-q"]);
    for i in 0..30 {
        sb.write(&format!("work/f{i}.txt"), "x\n");
    }
    let out = sb
        .cmd()
        .env("SHELL", "/bin/bash")
        .args([
            "wrap",
            "--format",
            "json",
            "--trace",
            "--",
            "/bin/bash",
            "-lc",
            "git status --short",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["result"];
    assert_eq!(r["trace"]["normalizedCommand"], "git status --short");
    assert_eq!(
        r["trace"]["normalizedArgv"],
        serde_json::json!(["git", "status", "--short"])
    );
    assert_eq!(r["trace"]["matchedReducer"], "git/status");
    assert_eq!(r["trace"]["family"], "git-status");
    assert_eq!(r["classification"]["matchedVia"], "shell-body");
    assert_eq!(r["classification"]["matchedReducer"], "git/status");
    for k in [
        "rawChars",
        "reducedChars",
        "ratio",
        "rawTokens",
        "reducedTokens",
    ] {
        assert!(r["stats"][k].is_number(), "stats.{k}");
    }
    assert!(r["compaction"]["authoritative"].is_boolean());
    assert!(r["compaction"]["kinds"].is_array());
    assert!(r["facts"].is_object());
    assert_eq!(v["exitCode"], 0);
    assert!(v.get("stdout").is_none(), "raw output is not embedded");
    assert!(r["inlineText"].as_str().unwrap().contains("f29.txt"));
}

#[test]
fn trace_is_absent_without_the_flag() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["wrap", "--format", "json", "--", "echo", "hi"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["result"].get("trace").is_none());
}

#[test]
fn reduce_reads_stdin_and_applies_failure_retention() {
    let sb = Sandbox::new();
    let input: String = (1..=200)
        .map(|i| format!("step {i} ok\n"))
        .collect::<String>()
        + "error: linking failed\n";
    let out = sb
        .cmd()
        .args(["reduce", "--source-command", "make all", "--exit-code", "2"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.success(), "reduce itself succeeds");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("exit 2\n"), "{text}");
    assert!(text.contains("error: linking failed"), "{text}");
}

#[test]
fn a_cut_output_of_blocks_that_come_again_is_shown_whole_folded() {
    // the traceback Python 3.11 prints for two functions calling each other past the
    // recursion limit: one block of frames, forty times; nothing of it needs cutting
    let sb = Sandbox::new();
    let mut input = String::from(
        "Traceback (most recent call last):\n  File \"/tmp/rec.py\", line 7, in <module>\n    f(0)\n",
    );
    for _ in 0..40 {
        input.push_str(
            "  File \"/tmp/rec.py\", line 4, in f\n    return g(n+1)\n           ^^^^^^\n",
        );
        input.push_str(
            "  File \"/tmp/rec.py\", line 6, in g\n    return f(n+1)\n           ^^^^^^\n",
        );
    }
    input.push_str("RecursionError: maximum recursion depth exceeded\n");
    let out = sb
        .cmd()
        .args([
            "reduce",
            "--source-command",
            "python3 rec.py",
            "--exit-code",
            "1",
        ])
        .write_stdin(input)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("... the 6 lines above again 39 times, the same ...\nRecursionError: maximum recursion depth exceeded"),
        "{text}"
    );
    assert!(!text.contains("omitted"), "{text}");
}

/// `make -k` of three files that fail alike (real gcc 12 output, 2026-11-28).
const MAKE_K_ALIKE: &str = "gcc -Wall -c m1.c -o m1.o
m1.c: In function ‘f1’:
m1.c:1:23: error: ‘x1’ undeclared (first use in this function); did you mean ‘f1’?
    1 | int f1(void) { return x1; }
      |                       ^~
      |                       f1
m1.c:1:23: note: each undeclared identifier is reported only once for each function it appears in
m1.c: In function ‘g1’:
m1.c:2:17: warning: implicit declaration of function ‘undefined_fn’ [-Wimplicit-function-declaration]
    2 | void g1(void) { undefined_fn(); }
      |                 ^~~~~~~~~~~~
m1.c: In function ‘f1’:
m1.c:1:27: warning: control reaches end of non-void function [-Wreturn-type]
    1 | int f1(void) { return x1; }
      |                           ^
make: *** [Makefile:3: m1.o] Error 1
gcc -Wall -c m2.c -o m2.o
m2.c: In function ‘f2’:
m2.c:1:23: error: ‘x2’ undeclared (first use in this function); did you mean ‘f2’?
    1 | int f2(void) { return x2; }
      |                       ^~
      |                       f2
m2.c:1:23: note: each undeclared identifier is reported only once for each function it appears in
m2.c: In function ‘g2’:
m2.c:2:17: warning: implicit declaration of function ‘undefined_fn’ [-Wimplicit-function-declaration]
    2 | void g2(void) { undefined_fn(); }
      |                 ^~~~~~~~~~~~
m2.c: In function ‘f2’:
m2.c:1:27: warning: control reaches end of non-void function [-Wreturn-type]
    1 | int f2(void) { return x2; }
      |                           ^
make: *** [Makefile:3: m2.o] Error 1
gcc -Wall -c m3.c -o m3.o
m3.c: In function ‘f3’:
m3.c:1:23: error: ‘x3’ undeclared (first use in this function); did you mean ‘f3’?
    1 | int f3(void) { return x3; }
      |                       ^~
      |                       f3
m3.c:1:23: note: each undeclared identifier is reported only once for each function it appears in
m3.c: In function ‘g3’:
m3.c:2:17: warning: implicit declaration of function ‘undefined_fn’ [-Wimplicit-function-declaration]
    2 | void g3(void) { undefined_fn(); }
      |                 ^~~~~~~~~~~~
m3.c: In function ‘f3’:
m3.c:1:27: warning: control reaches end of non-void function [-Wreturn-type]
    1 | int f3(void) { return x3; }
      |                           ^
make: *** [Makefile:3: m3.o] Error 1
make: Target 'all' not remade because of errors.
";

#[test]
fn a_rule_that_keeps_like_lines_apart_still_says_a_block_that_comes_again_once() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["reduce", "--source-command", "make -k", "--exit-code", "2"])
        .write_stdin(MAKE_K_ALIKE)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("make: *** [Makefile:3: m1.o] Error 1\n... the 16 lines above again 2 times; what differs: m2.c m2.o"), "{text}");
    assert!(text.contains("| m3.c m3.o"), "{text}");
    assert!(
        text.contains("make: Target 'all' not remade because of errors."),
        "{text}"
    );
    assert!(!text.contains("gcc -Wall -c m2.c"), "{text}");
}

#[test]
fn reduce_reads_a_file_and_reports_a_missing_one() {
    let sb = Sandbox::new();
    sb.write("work/out.txt", "hello\n");
    sb.cmd()
        .args(["reduce", "out.txt"])
        .assert()
        .success()
        .stdout("hello\n");
    let out = sb.cmd().args(["reduce", "missing.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read missing.txt"));
}

#[test]
fn reduce_json_accepts_camel_snake_and_envelopes() {
    let sb = Sandbox::new();
    let a = r#"{"toolName":"exec","command":"git status --short","combinedText":" M a.rs\n","exitCode":0}"#;
    let b = r#"{"tool_name":"exec","command":"git status --short","combined_text":" M a.rs\n","exit_code":0}"#;
    let c = r#"{"input":{"argv":["git","status","--short"],"stdout":" M a.rs\n"},"options":{"trace":true}}"#;
    let mut texts = Vec::new();
    for req in [a, b, c] {
        let out = sb
            .cmd()
            .arg("reduce-json")
            .write_stdin(req)
            .output()
            .unwrap();
        assert!(out.status.success(), "{req}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["classification"]["matchedReducer"], "git/status");
        texts.push(v["inlineText"].as_str().unwrap().to_string());
    }
    assert!(texts.iter().all(|t| t == &texts[0]));
}

#[test]
fn reduce_json_for_a_host_that_shows_the_last_lines_keeps_every_line_it_would_show() {
    // pi and opencode show an output over 2,000 lines or 51,200 bytes as its last lines;
    // their hooks send the whole output. 3,000 distinct lines (each a fact) with a run of
    // progress lines every 50: the text holds every distinct line of the host's tail (the
    // progress folded) and says how much of the start the host would have cut.
    let sb = Sandbox::new();
    let mut raw = String::new();
    for i in 0..3_000 {
        raw.push_str(&format!("note {i:05} {}\n", "x".repeat(i % 7)));
        if i % 50 == 49 {
            for k in 1..=20 {
                raw.push_str(&format!("fetching part {k} of 20\n"));
            }
        }
    }
    let lines: Vec<&str> = raw.lines().collect();
    let host_tail = &lines[lines.len() - 1_999..];
    let req = serde_json::json!({"input": {"toolName": "bash", "command": "./build.sh", "combinedText": raw, "exitCode": 1}, "options": {"hostPrintsExit": true}});
    let run = |source: Option<&str>| {
        let mut c = sb.cmd();
        c.arg("reduce-json");
        if let Some(s) = source {
            c.args(["--source", s]);
        }
        let out = c.write_stdin(req.to_string()).output().unwrap();
        assert!(out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["inlineText"].as_str().unwrap().to_string()
    };
    for host in ["pi", "opencode"] {
        let t = run(Some(host));
        for l in host_tail.iter().filter(|l| l.starts_with("note ")) {
            assert!(t.contains(l.trim_end()), "{host}: `{l}` lost:\n{t}");
        }
        assert!(
            !t.contains("note 00100 "),
            "{host}: the host's cut part is cut: {t}"
        );
        assert!(t.contains("lines hidden"), "{host}: {t}");
        // the progress runs folded: a quarter smaller than what the host shows
        assert!(
            t.len() * 4 < host_tail.join("\n").len() * 3,
            "{host}: {}",
            t.len()
        );
    }
    // without a host, the usual cuts: lines of that tail are left out
    let t = run(None);
    assert!(host_tail
        .iter()
        .any(|l| l.starts_with("note ") && !t.contains(l.trim_end())));
}

#[test]
fn binary_data_is_one_note_from_bytes_and_from_a_hosts_decoded_text() {
    let sb = Sandbox::new();
    // a PNG after the headers `curl -si` prints, and a line after it
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut out = b"HTTP/1.1 200 OK\r\ncontent-type: image/png\r\n\r\n\x89PNG\r\n\x1a\n".to_vec();
    out.extend((0..30_000).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 24) as u8
    }));
    out.extend_from_slice(b"\ndone\n");
    std::fs::write(sb.dir.path().join("out.bin"), &out).unwrap();
    // raw bytes (reduce, as wrap reads them): the size said exactly
    let r = sb
        .cmd()
        .args([
            "reduce",
            "--source-command",
            "curl -si https://example.com/logo.png",
        ])
        .arg(sb.dir.path().join("out.bin"))
        .output()
        .unwrap();
    assert!(r.status.success());
    let text = String::from_utf8(r.stdout).unwrap();
    assert!(
        text.starts_with("HTTP/1.1 200 OK\ncontent-type: image/png\n"),
        "{text}"
    );
    assert!(text.contains("\n[binary data: 30009 bytes in "), "{text}");
    assert!(
        text.contains(", not shown as text (a PNG image)]\ndone\n"),
        "{text}"
    );
    // a host's JSON carries text: the bytes were replaced by U+FFFD before we saw them
    let req = serde_json::json!({
        "toolName": "exec",
        "command": "curl -si https://example.com/logo.png",
        "combinedText": String::from_utf8_lossy(&out),
        "exitCode": 0,
    });
    let r = sb
        .cmd()
        .arg("reduce-json")
        .write_stdin(req.to_string())
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let text = v["inlineText"].as_str().unwrap();
    assert!(text.contains("\n[binary data in "), "{text}");
    assert!(text.contains("(a PNG image)]\ndone\n"), "{text}");
    assert!(v["compaction"]["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .any(|k| k == "binary-data"));
    assert!(text.len() < 400, "{text}");
}

#[test]
fn reduce_json_bad_input_is_a_json_error() {
    let sb = Sandbox::new();
    for (req, path) in [
        ("not json", "$"),
        ("[1,2]", "$"),
        (r#"{"command":5}"#, "$.command"),
        ("", "$"),
    ] {
        let out = sb
            .cmd()
            .arg("reduce-json")
            .write_stdin(req)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{req}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("JSON error for {req:?}"));
        assert_eq!(v["error"]["path"], path, "{req}");
        assert!(v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()));
        assert!(
            out.stderr.is_empty(),
            "no stack trace: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn verify_reports_file_and_json_path() {
    let sb = Sandbox::new();
    sb.cmd().args(["verify", "--fixtures"]).assert().success();
    std::fs::create_dir_all(sb.path("work/.git")).unwrap();
    sb.write("work/.tokenjuice/rules/bad.json", r#"{"id":"p/bad","family":"x","match":{"argv0":["x"]},"filters":{"skipPatterns":["(unclosed"]}}"#);
    sb.write(
        "work/.tokenjuice/rules/empty.json",
        r#"{"id":"p/empty","family":"x","match":{}}"#,
    );
    sb.write(
        "work/.tokenjuice/rules/unknown.json",
        r#"{"id":"p/unknown","family":"x","match":{"argv00":["x"]}}"#,
    );
    sb.write(
        "work/.tokenjuice/rules/dup1.json",
        r#"{"id":"p/dup","family":"x","match":{"argv0":["a"]}}"#,
    );
    sb.write(
        "work/.tokenjuice/rules/dup2.json",
        r#"{"id":"p/dup","family":"x","match":{"argv0":["b"]}}"#,
    );
    let out = sb
        .cmd()
        .args(["verify", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let problems = v["problems"].as_array().unwrap();
    let has = |file: &str, path: &str| {
        problems.iter().any(|p| {
            p["file"].as_str().unwrap().ends_with(file)
                && p["path"] == path
                && p["severity"] == "error"
        })
    };
    assert!(has("bad.json", "$.filters.skipPatterns[0]"), "{problems:?}");
    assert!(has("empty.json", "$.match"), "{problems:?}");
    assert!(has("unknown.json", "$.match.argv00"), "{problems:?}");
    assert!(has("dup2.json", "$.id"), "{problems:?}");
}

#[test]
fn verify_runs_project_fixtures() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.path("work/.git")).unwrap();
    sb.write(
        "work/.tokenjuice/rules/seq.json",
        r#"{"id":"p/seq","family":"numbers","match":{"argv0":["seq"]}}"#,
    );
    sb.write(
        "work/.tokenjuice/rules/seq.ok.fixture.json",
        r#"{"id":"p-seq-ok","ruleId":"p/seq","input":{"command":"seq 3","combinedText":"1\n2\n3\n"},"expect":{"contains":["3"]}}"#,
    );
    sb.cmd().args(["verify", "--fixtures"]).assert().success();
    sb.write(
        "work/.tokenjuice/rules/seq.bad.fixture.json",
        r#"{"id":"p-seq-bad","ruleId":"p/seq","input":{"command":"seq 3","combinedText":"1\n2\n3\n"},"expect":{"contains":["4"]}}"#,
    );
    let out = sb.cmd().args(["verify", "--fixtures"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing \"4\""));
}

#[test]
fn every_subcommand_has_help_and_there_is_a_version() {
    let sb = Sandbox::new();
    sb.cmd().arg("--version").assert().success();
    for sub in ["wrap", "reduce", "reduce-json", "verify"] {
        let out = sb.cmd().args([sub, "--help"]).output().unwrap();
        assert!(out.status.success(), "{sub}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("Usage:"),
            "{sub}"
        );
    }
}

#[test]
fn compound_commands_fall_back_to_the_generic_rule() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args([
            "wrap",
            "--format",
            "json",
            "--trace",
            "--",
            "bash",
            "-c",
            "git --version; ls /",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["result"]["classification"]["matchedReducer"],
        "generic/fallback"
    );
    assert_eq!(v["result"]["trace"]["compound"], true);
}

#[test]
fn classifier_forces_a_rule() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["reduce", "--classifier", "git/status", "--format", "json"])
        .write_stdin(" M x.rs\n")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["result"]["classification"]["matchedReducer"],
        "git/status"
    );
    assert_eq!(v["result"]["classification"]["confidence"], 1.0);
}

#[test]
fn reduce_fails_open_with_the_exact_input_from_a_file_or_stdin() {
    let sb = Sandbox::new();
    // past the in-memory capture (8 MiB) for stdin; a file is re-read instead
    let mut raw: Vec<u8> = (1..=1_200_000)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    raw.extend_from_slice(b"\xff invalid byte\n");
    let path = sb.work().join("big.log");
    std::fs::write(&path, &raw).unwrap();
    for point in ["push", "finish"] {
        let from_file = sb
            .cmd()
            .env("TOKENJUICE_DEBUG_PANIC", point)
            .args(["reduce", "--source-command", "cat big.log"])
            .arg(&path)
            .output()
            .unwrap();
        let from_stdin = sb
            .cmd()
            .env("TOKENJUICE_DEBUG_PANIC", point)
            .args(["reduce", "--source-command", "cat big.log"])
            .write_stdin(raw.clone())
            .output()
            .unwrap();
        for out in [from_file, from_stdin] {
            assert_eq!(out.status.code(), Some(0), "{point}");
            assert!(
                out.stdout == raw,
                "{point}: {} bytes, not the input",
                out.stdout.len()
            );
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(err.lines().count(), 1, "{point}: {err}");
            assert!(err.contains("internal error"), "{point}: {err}");
        }
    }
}

#[test]
fn reduce_fails_open_like_wrap_when_planning_or_finishing_panics() {
    let input = "line one\nerror: something broke\nline three\n".repeat(50);
    for point in ["plan", "finish"] {
        // text: the input, byte for byte, and one warning
        let out = assert_cmd::Command::cargo_bin("tokenjuice")
            .unwrap()
            .args(["reduce", "--no-stats", "--source-command", "make"])
            .env("TOKENJUICE_DEBUG_PANIC", point)
            .write_stdin(input.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{point}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), input, "{point}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("internal error"),
            "{point}"
        );
        // JSON: still JSON, holding the input
        let out = assert_cmd::Command::cargo_bin("tokenjuice")
            .unwrap()
            .args([
                "reduce",
                "--no-stats",
                "--format",
                "json",
                "--source-command",
                "make",
            ])
            .env("TOKENJUICE_DEBUG_PANIC", point)
            .write_stdin(input.clone())
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{point}: not JSON ({e}): {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        assert_eq!(v["result"]["inlineText"], input.as_str(), "{point}");
        assert_eq!(
            v["result"]["compaction"]["kinds"][0], "fail-open",
            "{point}"
        );
    }
}

#[test]
fn a_long_line_of_words_stays_whole_and_a_blob_is_clipped() {
    // a zsh user's `set -o` joined on one line (3,000 characters): every option is a fact;
    // before, the middle 1,000 characters were clipped away
    let sb = Sandbox::new();
    let words: String = (0..180).map(|i| format!("option{i} off ")).collect();
    let blob = "Zm9vYmFy".repeat(600);
    let input = format!("{words}\n{blob}\n");
    let out = sb
        .cmd()
        .args(["reduce", "--source-command", "python3 gen.py"])
        .write_stdin(input)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(words.trim_end()), "{text}");
    assert!(text.contains("chars clipped]"), "{text}");
    assert!(!text.contains(&blob), "{text}");
}

/// `git diff` with context hidden: every shown line sits at the line number its header
/// gives, in the old file (context and `-` lines) and in the new one (context and `+`
/// lines), checked against the files themselves.
#[test]
fn a_reduced_git_diff_keeps_every_line_at_its_number() {
    let sb = Sandbox::new();
    let w = sb.work();
    git(&w, &["init", "-q"]);
    let numbered = |n: usize| (1..=n).map(|i| format!("line {i}\n")).collect::<String>();
    for k in 0..6 {
        sb.write(&format!("work/f{k}.txt"), &numbered(60));
    }
    sb.write("work/tail.txt", "a\nb\nc\nd\ne\nf\ng");
    git(&w, &["add", "."]);
    git(
        &w,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "one",
        ],
    );
    let old: Vec<String> = (0..6).map(|_| numbered(60)).collect();
    for (k, text) in old.iter().enumerate() {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        // changes 6, 3 and 12 lines apart (one hunk each with git's 3 lines of context),
        // lines added at the top, lines removed at the end
        for at in [5, 11, 14, 26, 40 + k] {
            lines[at] = format!("changed {at}");
        }
        lines.insert(0, format!("new first {k}"));
        lines.truncate(57);
        sb.write(&format!("work/f{k}.txt"), &(lines.join("\n") + "\n"));
    }
    sb.write("work/tail.txt", "a\nb\nc\nd\ne\nF\ng");
    let diff = std::process::Command::new("git")
        .args(["diff"])
        .current_dir(&w)
        .output()
        .unwrap()
        .stdout;
    let raw = sb.write("diff.txt", std::str::from_utf8(&diff).unwrap());
    let out = sb
        .cmd()
        .args(["reduce", "--no-stats", "--source-command", "git diff"])
        .arg(&raw)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.len() < diff.len(), "the diff was reduced:\n{text}");
    let mut file = String::new();
    let (mut old_at, mut new_at) = (0usize, 0usize);
    let mut checked = 0;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("diff --git a/") {
            file = rest.split(' ').next().unwrap().to_string();
            continue;
        }
        if let Some(rest) = line.strip_prefix("@@ -") {
            let (o, rest) = rest.split_once(" +").unwrap();
            let n = rest.split_once(" @@").unwrap().0;
            let start = |r: &str| {
                let (s, c) = r.split_once(',').unwrap_or((r, "1"));
                let s: usize = s.parse().unwrap();
                if c == "0" {
                    s + 1
                } else {
                    s
                }
            };
            (old_at, new_at) = (start(o), start(n));
            continue;
        }
        if file.is_empty() || !matches!(line.chars().next(), Some('-' | '+' | ' ')) {
            continue;
        }
        let old_text = git_show(&w, &file);
        let new_text = std::fs::read_to_string(w.join(&file)).unwrap();
        // the line, without its mark, is line `at` of that side of the file
        let holds = |t: &str, at: usize, side: &str| {
            let found = t.lines().nth(at - 1);
            assert_eq!(found, Some(&line[1..]), "{file} {side} {at}:\n{text}");
        };
        match line.chars().next() {
            Some('-') => {
                holds(&old_text, old_at, "old");
                old_at += 1;
            }
            Some('+') => {
                holds(&new_text, new_at, "new");
                new_at += 1;
            }
            Some(' ') => {
                holds(&old_text, old_at, "old");
                holds(&new_text, new_at, "new");
                (old_at, new_at) = (old_at + 1, new_at + 1);
            }
            _ => continue,
        }
        checked += 1;
    }
    assert!(checked > 60, "{checked} lines checked:\n{text}");
    assert!(
        text.contains("@@ -26,3 +27,3 @@"),
        "a run of its own:\n{text}"
    );
}

fn git_show(dir: &std::path::Path, file: &str) -> String {
    let out = std::process::Command::new("git")
        .args(["show", &format!("HEAD:{file}")])
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}
