//! The pi extension and the opencode plugin, loaded by the real Node.js with a stand-in for
//! the host's API: pi's `tool_result` handler replaces a bash result with the compacted text
//! from `tokenjuice reduce-json`; opencode's `tool.execute.after` does the same for opencode's
//! bash result (reading opencode's saved full output when it cut it) and never touches the
//! command.

mod hosts_support;

use std::path::Path;
use std::process::Command;

use hosts_support::*;
use serde_json::{json, Value};

fn node() -> &'static str {
    let ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "these tests need Node.js on PATH (the hosts run their extensions with it)"
    );
    "node"
}

/// Runs `script` (an ES module) with node and parses the JSON it prints.
fn run_node(dir: &Path, script: &str) -> Value {
    let p = dir.join("driver.mjs");
    std::fs::write(&p, script).unwrap();
    let o = Command::new(node())
        .arg(&p)
        .env_clear()
        .env("HOME", dir.join("home"))
        .env("PATH", system_path())
        .env("SHELL", "/bin/bash")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

fn noise(n: usize) -> String {
    (0..n)
        .map(|i| format!("downloading chunk {i} of {n}\n"))
        .collect()
}

#[test]
fn pi_extension_replaces_bash_results_with_the_compacted_text() {
    let w = World::new();
    assert!(w.run(&["install", "pi", "--local"]).status.success());
    let ext = w.home.join(".pi/agent/extensions/tokenjuice.ts");
    let dir = w.tmp.path();
    std::fs::copy(&ext, dir.join("ext.mjs")).unwrap();
    let broken = w.read(&ext).replace(&launcher(), "/gone/tokenjuice");
    std::fs::write(dir.join("broken.mjs"), broken).unwrap();

    let full = format!("error: early failure in chunk 0\n{}", noise(3000));
    let full_path = dir.join("pi-bash-full.log");
    std::fs::write(&full_path, &full).unwrap();
    let shown_tail: String = full.lines().skip(1001).map(|l| format!("{l}\n")).collect();
    let shown = format!(
        "{shown_tail}\n[Showing lines 1002-3001 of 3001. Full output: {}]",
        full_path.display()
    );
    let plain = format!("{}error: checksum mismatch\n", noise(300));
    // pi shows 50,000 characters whole, so only what the rule calls noise goes (cargo's
    // progress), never plain lines
    let compiling: String = (0..300)
        .map(|i| format!("   Compiling crate{i} v0.1.0\n"))
        .collect();
    let cargo_failed = format!("{compiling}error: checksum mismatch\n");
    let cases = json!({
        "plain": {"toolName": "bash", "input": {"command": "./fetch.sh"}, "content": [{"type": "text", "text": plain}], "isError": false},
        "failed": {"toolName": "bash", "input": {"command": "cargo test"}, "content": [{"type": "text", "text": format!("{cargo_failed}\n\nCommand exited with code 101")}], "isError": true},
        "truncated": {"toolName": "bash", "input": {"command": "./big.sh"}, "content": [{"type": "text", "text": shown}], "details": {"fullOutputPath": full_path.to_string_lossy()}, "isError": false},
        // a failing command's result is pi's error message: no details, the path in its note
        "truncated_failed": {"toolName": "bash", "input": {"command": "./big.sh"}, "content": [{"type": "text", "text": format!("{shown}\n\nCommand exited with code 1")}], "isError": true},
        "wrapped": {"toolName": "bash", "input": {"command": "tokenjuice wrap --raw -- ./fetch.sh"}, "content": [{"type": "text", "text": plain}], "isError": false},
        "other_tool": {"toolName": "read", "input": {"path": "x"}, "content": [{"type": "text", "text": plain}], "isError": false},
        "aborted": {"toolName": "bash", "input": {"command": "sleep 100"}, "content": [{"type": "text", "text": format!("{plain}\n\nCommand aborted")}], "isError": true},
        "small": {"toolName": "bash", "input": {"command": "echo hi"}, "content": [{"type": "text", "text": "hi\n"}], "isError": false},
    });
    let script = format!(
        r#"
import ext from "./ext.mjs";
import broken from "./broken.mjs";
const cases = {cases};
async function drive(factory) {{
  const handlers = {{}};
  factory({{ on(name, fn) {{ (handlers[name] ??= []).push(fn); }} }});
  const out = {{}};
  for (const [name, ev] of Object.entries(cases)) {{
    const r = await handlers["tool_result"][0](ev, {{ signal: undefined }});
    out[name] = r === undefined ? null : r;
  }}
  return out;
}}
console.log(JSON.stringify({{ ok: await drive(ext), broken: await drive(broken) }}));
"#
    );
    let r = run_node(dir, &script);
    let text = |name: &str| {
        r["ok"][name]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: {}", r["ok"][name]))
            .to_string()
    };
    let t = text("plain");
    assert!(
        t.len() * 3 < plain.len() && t.contains("error: checksum mismatch"),
        "{t}"
    );
    let t = text("failed");
    assert!(
        t.ends_with("Command exited with code 101")
            && t.contains("error: checksum mismatch")
            && t.len() * 3 < cargo_failed.len(),
        "{t}"
    );
    // pi prints its own exit line: no second one from tokenjuice
    assert_eq!(t.matches("101").count(), 1, "{t}");
    assert!(!t.lines().any(|l| l.starts_with("exit ")), "{t}");
    let saved = format!("[Full output: {}]", full_path.display());
    let t = text("truncated");
    assert!(
        t.contains("error: early failure in chunk 0") && t.ends_with(&saved),
        "the full output file was read and is named: {t}"
    );
    let t = text("truncated_failed");
    assert!(
        t.contains("error: early failure in chunk 0")
            && t.contains(&saved)
            && t.ends_with("Command exited with code 1"),
        "the full output file of a failing command was read and is named: {t}"
    );
    // every line pi showed is there (folded): its last 2,000 lines
    assert!(t.contains(full.lines().last().unwrap()), "{t}");
    for name in ["wrapped", "other_tool", "aborted", "small"] {
        assert!(r["ok"][name].is_null(), "{name}: {}", r["ok"][name]);
    }
    for (name, v) in r["broken"].as_object().unwrap() {
        assert!(
            v.is_null(),
            "fail open with a missing launcher: {name}: {v}"
        );
    }
}

#[test]
fn opencode_plugin_replaces_bash_results_and_never_touches_the_command() {
    let w = World::new();
    assert!(w.run(&["install", "opencode", "--local"]).status.success());
    let plugin = w.home.join(".config/opencode/plugins/tokenjuice.js");
    let dir = w.tmp.path();
    std::fs::copy(&plugin, dir.join("plugin.mjs")).unwrap();
    let plain = format!("{}error: boom\n", noise(300));
    let full = format!("error: early failure\n{}", noise(3000));
    let saved = dir.join("opencode-saved.txt");
    std::fs::write(&saved, &full).unwrap();
    let cut = format!(
        "...output truncated...\n\nFull output saved to: {}\n\n{}",
        saved.display(),
        full.lines().skip(1000).collect::<Vec<_>>().join("\n")
    );
    // a word per number (letters: no two lines fold as similar)
    let word = |i: usize| -> String {
        (0..4)
            .map(|k| char::from(b'a' + ((i / 26usize.pow(k)) % 26) as u8))
            .collect()
    };
    let long_whole: String = (0..3000)
        .map(|i| {
            let mut l = format!("note {} distinct\n", word(i));
            if i % 10 == 9 {
                l.extend((1..=20).map(|k| format!("fetching part {k} of 20\n")));
            }
            l
        })
        .collect();
    // ... and with limits raised to 5,000 lines, cut the same output (saved whole) to its last
    // 5,000
    let raised_saved = dir.join("opencode-raised.txt");
    std::fs::write(&raised_saved, &long_whole).unwrap();
    let raised_tail: Vec<&str> = long_whole.lines().skip(9000 - 5000).collect();
    let raised = format!(
        "...output truncated...\n\nFull output saved to: {}\n\n{}",
        raised_saved.display(),
        raised_tail.join("\n")
    );
    let cases = json!({
        "noisy": ["bash", "./fetch.sh", plain, 7],
        "cut": ["bash", "./big.sh", cut, 0],
        "raised_cut": ["bash", "./long.sh", raised, 1],
        "small": ["bash", "echo hi", "hi\n", 0],
        // opencode with raised `tool_output` limits showed 3,000 lines whole
        "long_whole": ["bash", "./long.sh", long_whole, 1],
        "wrapped": ["bash", "tokenjuice wrap -- ls", plain, 0],
        "timeout": ["bash", "sleep 9", format!("{plain}\n\n<shell_metadata>\nshell tool terminated command after exceeding timeout\n</shell_metadata>"), null],
        "edit": ["edit", "ls", plain, 0],
    });
    let script = format!(
        r#"
import * as mod from "./plugin.mjs";
const {{ TokenjuicePlugin }} = mod;
const hooks = await TokenjuicePlugin({{}});
const after = hooks["tool.execute.after"];
const out = {{}};
for (const [name, [tool, command, text, exit]] of Object.entries({cases})) {{
  const args = {{ command, description: "d" }};
  const output = {{ title: command, output: text, metadata: {{ exit, output: text }} }};
  await after({{ tool, sessionID: "s", callID: "c", args }}, output);
  out[name] = {{ text: output.output, args }};
}}
out.exports = Object.keys(mod);
out.hasBefore = typeof hooks["tool.execute.before"];
console.log(JSON.stringify(out));
"#
    );
    let r = run_node(dir, &script);
    let t = r["noisy"]["text"].as_str().unwrap();
    assert!(
        t.len() * 3 < plain.len() && t.contains("error: boom"),
        "{t}"
    );
    assert_eq!(
        r["noisy"]["args"]["command"], "./fetch.sh",
        "the command is never changed"
    );
    let t = r["cut"]["text"].as_str().unwrap();
    assert!(
        t.contains("error: early failure")
            && t.contains(&format!("Full output saved to: {}", saved.display())),
        "the saved full output was read and its path kept: {t}"
    );
    // nothing opencode showed is cut: every distinct line stays (only noise may go)
    let t = r["long_whole"]["text"].as_str().unwrap();
    assert!(t.len() * 2 < long_whole.len(), "folded: {t}");
    for i in [0, 1500, 2999] {
        assert!(t.contains(&format!("note {} distinct", word(i))), "{t}");
    }
    let t = r["raised_cut"]["text"].as_str().unwrap();
    for l in raised_tail.iter().filter(|l| l.starts_with("note ")) {
        assert!(t.contains(l), "`{l}` opencode showed is lost: {t}");
    }
    for name in ["small", "wrapped", "timeout", "edit"] {
        assert_eq!(
            r[name]["text"], cases[name][2],
            "{name} must stay as opencode made it"
        );
    }
    // opencode calls every export of a plugin module as a plugin: only one is exported.
    assert_eq!(r["exports"], json!(["TokenjuicePlugin"]));
    assert_eq!(
        r["hasBefore"], "undefined",
        "no rewrite before the command runs"
    );
}

#[test]
fn opencode_plugin_reads_the_saved_output_only_once_opencode_finished_writing_it() {
    // opencode appends a long output to its saved file through a write stream it does not
    // wait for before the hook runs: a plugin reading at once can see half the output
    let w = World::new();
    assert!(w.run(&["install", "opencode", "--local"]).status.success());
    let plugin = w.home.join(".config/opencode/plugins/tokenjuice.js");
    let dir = w.tmp.path();
    std::fs::copy(&plugin, dir.join("plugin.mjs")).unwrap();
    let full: String = (1..=20000).map(|i| format!("{i}\n")).collect();
    let split = full.find("12091\n").unwrap() + "12091\n".len();
    let (first, rest) = full.split_at(split);
    let late = dir.join("late.txt");
    let never = dir.join("never.txt");
    std::fs::write(&late, first).unwrap();
    std::fs::write(&never, first).unwrap();
    let tail: String = (18000..=20000).map(|i| format!("{i}\n")).collect();
    let shown = |p: &Path| {
        format!(
            "...output truncated...\n\nFull output saved to: {}\n\n{tail}",
            p.display()
        )
    };
    let script = format!(
        r#"
import {{ appendFileSync }} from "node:fs";
import {{ TokenjuicePlugin }} from "./plugin.mjs";
const after = (await TokenjuicePlugin({{}}))["tool.execute.after"];
const out = {{}};
// the rest of the output lands 150 ms after the hook started
setTimeout(() => appendFileSync({late}, {rest}), 150);
for (const [name, text] of Object.entries({{ late: {shown_late}, never: {shown_never} }})) {{
  const output = {{ title: "seq", output: text, metadata: {{ exit: 0, output: text }} }};
  await after({{ tool: "bash", sessionID: "s", callID: "c", args: {{ command: "seq 20000" }} }}, output);
  out[name] = output.output;
}}
console.log(JSON.stringify(out));
"#,
        late = json!(late.display().to_string()),
        rest = json!(rest),
        shown_late = json!(shown(&late)),
        shown_never = json!(shown(&never)),
    );
    let r = run_node(dir, &script);
    let t = r["late"].as_str().unwrap();
    assert!(
        t.contains("20000") && t.len() < 2000,
        "compacted from the whole output: {t}"
    );
    // a file that never ends as opencode showed: opencode's own result stays
    assert_eq!(r["never"], json!(shown(&never)));
}
