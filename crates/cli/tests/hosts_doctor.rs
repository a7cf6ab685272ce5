//! `doctor` in each state, on the real binary: disabled (nothing installed, or a host
//! tokenjuice does not support), ok (proven by running the installed hook, extension or
//! the shell prefix on a line shaped like the host's), warn (legacy
//! entries, a missing timeout), broken (missing launcher, a prefix that is not ours or is
//! gone, a hook that does too little or too much, malformed file, an older hook in an
//! unsupported host) with exit 1, and the `doctor hooks` summary.

mod hosts_support;

use std::path::PathBuf;

use hosts_support::*;
use serde_json::{json, Value};

/// The hosts tokenjuice installs into.
const HOOK_HOSTS: &[&str] = &[
    "codebuddy",
    "claude-code",
    "pi",
    "gemini-cli",
    "copilot-cli",
    "opencode",
    "droid",
];

/// The hosts it refuses (`install` fails), with their config file under HOME (Devin's: in
/// the project).
const UNSUPPORTED: &[(&str, &str)] = &[
    ("qwen-code", ".qwen/settings.json"),
    ("cursor", ".cursor/hooks.json"),
    ("vscode-copilot", ".copilot/hooks/tokenjuice-vscode.json"),
    ("devin", ".devin/hooks.v1.json"),
];

fn unsupported_path(w: &World, host: &str, rel: &str) -> PathBuf {
    if host == "devin" {
        w.project.join(rel)
    } else {
        w.home.join(rel)
    }
}

/// A host's hook file holding the user's own hook and, with `ours`, a tokenjuice rewrite
/// entry as an older install wrote it, in the host's shape: Cursor's and VS Code's flat
/// lists, Devin's groups at the top level, Claude-style groups.
fn hook_file(host: &str, ours: Option<String>) -> Value {
    match host {
        "cursor" => {
            let mut hooks = vec![json!({"command": "user-guard.sh"})];
            hooks.extend(ours.map(|c| json!({"command": c, "timeout": 10})));
            json!({"version": 1, "hooks": {"preToolUse": hooks}})
        }
        "vscode-copilot" => {
            let mut hooks = vec![json!({"type": "command", "command": "user-guard.sh"})];
            hooks.extend(ours.map(|c| json!({"type": "command", "command": c, "matcher": "runTerminalCommand|run_in_terminal", "timeout": 10})));
            json!({"version": 1, "hooks": {"PreToolUse": hooks}})
        }
        _ => {
            let mut hooks = vec![json!({"type": "command", "command": "user-guard.sh"})];
            hooks.extend(ours.map(|c| json!({"type": "command", "command": c})));
            let events = json!({"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]});
            if host == "devin" {
                events
            } else {
                json!({ "hooks": events })
            }
        }
    }
}

/// Hosts reached through a shell prefix, with their settings file and prefix variable.
const PREFIX_HOSTS: &[(&str, &str, &str)] = &[
    (
        "claude-code",
        ".claude/settings.json",
        "CLAUDE_CODE_SHELL_PREFIX",
    ),
    (
        "codebuddy",
        ".codebuddy/settings.json",
        "CODEBUDDY_CODE_SHELL_PREFIX",
    ),
];

fn doctor(w: &World, host: &str) -> (String, i32) {
    let o = w.run(&["doctor", host]);
    (stdout(&o), o.status.code().unwrap_or(-1))
}

fn health(report: &str) -> &str {
    report
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("health: "))
        .unwrap_or("?")
}

#[test]
fn not_installed_is_disabled_with_the_install_fix() {
    let w = World::new();
    for h in HOOK_HOSTS {
        let (r, code) = doctor(&w, h);
        assert_eq!(health(&r), "disabled", "{h}: {r}");
        assert_eq!(code, 0, "{h}");
        assert!(
            r.contains(&format!("fix: run `tokenjuice install {h}`")),
            "{h}: {r}"
        );
    }
}

#[test]
fn unsupported_hosts_are_disabled_until_an_older_hook_is_found() {
    for (h, rel) in UNSUPPORTED {
        let w = World::new();
        let path = unsupported_path(&w, h, rel);
        // Nothing installed (no file; a file without our entry): disabled, saying why, and
        // never advising an install that would fail.
        for state in ["no file", "a file of the user's"] {
            if state != "no file" {
                w.write(&path, &hook_file(h, None).to_string());
            }
            let (r, code) = doctor(&w, h);
            assert_eq!(health(&r), "disabled", "{h}, {state}: {r}");
            assert_eq!(code, 0, "{h}, {state}");
            assert!(r.contains("not supported: "), "{h}, {state}: {r}");
            assert!(
                !r.contains(&format!("fix: run `tokenjuice install {h}`")),
                "{h}, {state}: an install that fails is no fix: {r}"
            );
        }
        // An older tokenjuice hook is still there: it changes what the agent does.
        let older = format!(
            "{} {h}-pre-tool-use --wrap-launcher {}",
            launcher(),
            launcher()
        );
        w.write(&path, &hook_file(h, Some(older)).to_string());
        let (r, code) = doctor(&w, h);
        assert_eq!(health(&r), "broken", "{h}: {r}");
        assert_eq!(code, 1, "{h}");
        assert!(r.contains(&format!("tokenjuice uninstall {h}")), "{h}: {r}");
        assert!(w.run(&["uninstall", h]).status.success(), "{h}");
        assert_eq!(
            w.json(&path),
            hook_file(h, None),
            "{h}: the user's hook stays"
        );
        let (r, code) = doctor(&w, h);
        assert_eq!(health(&r), "disabled", "{h}: {r}");
        assert_eq!(code, 0, "{h}");
    }
}

#[test]
fn installed_is_ok_and_proven_by_running_the_hook() {
    // Every host is checked; the failures are reported together.
    let mut failures = Vec::new();
    for h in HOOK_HOSTS {
        let w = World::new();
        let out = w.run(&["install", h, "--local"]);
        assert!(out.status.success(), "{h}: {}", stderr(&out));
        let (r, code) = doctor(&w, h);
        if health(&r) != "ok" || code != 0 {
            failures.push(format!("{h}: health {} exit {code}:\n{r}", health(&r)));
            continue;
        }
        // What proves it depends on the mechanism; each proof is a fact doctor only states
        // after running the installed hook (or extension, or prefix).
        let proofs: &[&[&str]] = match *h {
            "claude-code" => &[
                &["compacted a noisy failing command"],
                &["kept exit code 3"],
                &["kept its `cd`"],
            ],
            "codebuddy" => &[
                &["compacted a noisy failing command"],
                &["kept exit code 3"],
                &["a background command (its output going to a task file"],
            ],
            "gemini-cli" => &[&["read_file tail of the compacted result"]],
            "droid" => &[
                &["exported BASH_ENV into the env file and printed nothing"],
                &["kept exit code 3"],
            ],
            // extensions: the sample came back compacted
            "pi" | "opencode" => &[&["compacted", "exit code 3 kept"]],
            // and the large-output preview path: the saved full output is what is compacted
            "copilot-cli" => &[
                &["answered with a compacted result"],
                &["compacted from the saved full output"],
            ],
            other => panic!("no proof listed for {other}"),
        };
        for any_of in proofs {
            if !any_of.iter().any(|p| r.contains(p)) {
                failures.push(format!("{h}: doctor must run it ({any_of:?}):\n{r}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn permission_postures_are_stated() {
    let w = World::new();
    for (h, needle) in [
        ("claude-code", "permission rules"),
        ("codebuddy", "permission rules"),
        (
            "gemini-cli",
            "policy rules decide on the command as written",
        ),
    ] {
        assert!(w.run(&["install", h, "--local"]).status.success(), "{h}");
        let (r, _) = doctor(&w, h);
        assert!(r.contains("note: ") && r.contains(needle), "{h}: {r}");
    }
}

#[test]
fn a_missing_launcher_is_broken_and_exits_1() {
    for h in HOOK_HOSTS {
        let w = World::new();
        assert!(w.run(&["install", h, "--local"]).status.success());
        // Point the entry at a launcher that no longer exists.
        let mut found = false;
        for entry in walk(&w) {
            let text = w.read(&entry);
            if text.contains(&launcher()) {
                w.write(&entry, &text.replace(&launcher(), "/gone/bin/tokenjuice"));
                found = true;
            }
        }
        assert!(found, "{h}");
        let (r, code) = doctor(&w, h);
        assert_eq!(health(&r), "broken", "{h}: {r}");
        assert_eq!(code, 1, "{h}");
        assert!(
            r.contains("/gone/bin/tokenjuice") && r.contains("--local"),
            "{h}: {r}"
        );
    }
}

fn walk(w: &World) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![w.home.clone(), w.project.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.to_string_lossy().ends_with(".bak") {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn a_malformed_config_is_broken_with_file_and_line() {
    let w = World::new();
    let p = w.home.join(".claude/settings.json");
    w.write(&p, "{\n  \"hooks\": oops\n}\n");
    let (r, code) = doctor(&w, "claude-code");
    assert_eq!(health(&r), "broken", "{r}");
    assert_eq!(code, 1);
    assert!(r.contains(&format!("{}:2:", p.display())), "{r}");
}

#[test]
fn legacy_entries_are_reported_until_reinstall_removes_them() {
    let w = World::new();
    assert!(w.run(&["install", "codebuddy", "--local"]).status.success());
    let p = w.home.join(".codebuddy/settings.json");
    let mut v: Value = w.json(&p);
    v["hooks"]["PostToolUse"] = json!([{"matcher": "Bash", "hooks": [{"type": "command", "command": "tokenjuice codebuddy-post-tool-use", "statusMessage": "compacting bash output with tokenjuice"}]}]);
    w.write(&p, &serde_json::to_string_pretty(&v).unwrap());
    // it changes the results CodeBuddy shows: broken until install removes it
    let (r, code) = doctor(&w, "codebuddy");
    assert_eq!(health(&r), "broken", "{r}");
    assert_eq!(code, 1);
    assert!(
        r.contains("hooks.PostToolUse[0].hooks[0]") && r.contains("tokenjuice install codebuddy"),
        "{r}"
    );
    assert!(w.run(&["install", "codebuddy", "--local"]).status.success());
    assert!(w.json(&p).get("hooks").is_none(), "{}", w.read(&p));
    assert_eq!(health(&doctor(&w, "codebuddy").0), "ok");

    // Only a legacy entry: compaction is not working at all.
    let w = World::new();
    w.write(&w.home.join(".codebuddy/settings.json"), &json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "tokenjuice codebuddy-post-tool-use", "statusMessage": "compacting bash output with tokenjuice", "timeout": 30}]}]}}).to_string());
    let (r, code) = doctor(&w, "codebuddy");
    assert_eq!(health(&r), "broken", "{r}");
    assert_eq!(code, 1);
    assert!(r.contains("hooks.PostToolUse[0].hooks[0]"), "{r}");
}

/// The previous install's background-marking entry only costs time: warn; install removes it.
fn marking_entry_warns_until_reinstall_removes_it(host: &str, dir: &str) {
    let w = World::new();
    assert!(w.run(&["install", host, "--local"]).status.success());
    let p = w.home.join(dir).join("settings.json");
    let mut v: Value = w.json(&p);
    let marking = format!("{} {host}-pre-tool-use", launcher());
    v["hooks"] = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": marking, "timeout": 10}]}]});
    w.write(&p, &v.to_string());
    let (r, code) = doctor(&w, host);
    assert_eq!(health(&r), "warn", "{host}: {r}");
    assert_eq!(code, 0);
    assert!(
        r.contains("hooks.PreToolUse[0].hooks[0]") && r.contains("no longer needed"),
        "{host}: {r}"
    );
    let out = w.run(&["install", host, "--local"]);
    assert!(
        stdout(&out).contains("removed 1 older tokenjuice entry"),
        "{host}: {}",
        stdout(&out)
    );
    assert!(w.json(&p).get("hooks").is_none(), "{host}");
    assert_eq!(health(&doctor(&w, host).0), "ok", "{host}");
}

#[test]
fn claude_code_entries_of_older_installs_are_reported_until_reinstall_removes_them() {
    // CodeBuddy's too: its prefix tells background commands by their task files now
    marking_entry_warns_until_reinstall_removes_it("codebuddy", ".codebuddy");
    marking_entry_warns_until_reinstall_removes_it("claude-code", ".claude");
    let w = World::new();
    assert!(w
        .run(&["install", "claude-code", "--local"])
        .status
        .success());
    let p = w.home.join(".claude/settings.json");
    let mut v: Value = w.json(&p);
    let marking = format!("{} claude-code-pre-tool-use", launcher());
    v["hooks"] = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": marking, "timeout": 10}]}]});
    w.write(&p, &v.to_string());
    // an older rewriting entry changes what Claude runs: broken
    let mut v: Value = w.json(&p);
    v["hooks"]["PostToolUse"] = json!([{"matcher": "Bash", "hooks": [{"type": "command", "command": "tokenjuice claude-code-post-tool-use", "statusMessage": "compacting bash output with tokenjuice"}]}]);
    v["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = json!(format!(
        "{} claude-code-pre-tool-use --wrap-launcher {}",
        launcher(),
        launcher()
    ));
    w.write(&p, &v.to_string());
    let (r, code) = doctor(&w, "claude-code");
    assert_eq!(health(&r), "broken", "{r}");
    assert_eq!(code, 1);
    assert!(
        r.contains("hooks.PostToolUse[0].hooks[0]") && r.contains("changes the commands"),
        "{r}"
    );
    // install removes both; then ok
    assert!(w
        .run(&["install", "claude-code", "--local"])
        .status
        .success());
    assert!(w.json(&p).get("hooks").is_none());
    assert_eq!(health(&doctor(&w, "claude-code").0), "ok");
}

#[test]
fn a_missing_timeout_warns() {
    let w = World::new();
    assert!(w
        .run(&["install", "copilot-cli", "--local"])
        .status
        .success());
    let p = w.home.join(".copilot/hooks/tokenjuice-cli.json");
    let mut v = w.json(&p);
    v["hooks"]["postToolUse"][0]
        .as_object_mut()
        .unwrap()
        .remove("timeoutSec");
    w.write(&p, &v.to_string());
    let (r, _) = doctor(&w, "copilot-cli");
    assert_eq!(health(&r), "warn", "{r}");
    assert!(r.contains("no `timeoutSec`"), "{r}");
}

#[test]
fn a_prefix_host_whose_prefix_is_missing_foreign_or_gone_is_broken() {
    for (h, rel, var) in PREFIX_HOSTS {
        let cases: [(&str, Option<Value>, &str); 3] = [
            ("removed", None, "is not set"),
            (
                "someone else's",
                Some(json!("/usr/local/bin/other-prefix")),
                "not tokenjuice's",
            ),
            (
                "a launcher that is gone",
                Some(json!(format!("/gone/bin/tokenjuice --shell-prefix={h}"))),
                "/gone/bin/tokenjuice",
            ),
        ];
        for (what, value, needle) in cases {
            let w = World::new();
            assert!(w.run(&["install", h, "--local"]).status.success(), "{h}");
            let p = w.home.join(rel);
            let mut v = w.json(&p);
            match value {
                Some(x) => v["env"][*var] = x,
                None => {
                    v["env"].as_object_mut().unwrap().remove(*var);
                }
            }
            w.write(&p, &v.to_string());
            let (r, code) = doctor(&w, h);
            assert_eq!(health(&r), "broken", "{h}, {what}: {r}");
            assert_eq!(code, 1, "{h}, {what}");
            assert!(r.contains(needle), "{h}, {what}: {r}");
            assert!(
                !r.contains("compacted a noisy failing command"),
                "{h}, {what}: no probe through a prefix that is not ours: {r}"
            );
        }
    }
}

#[test]
fn disable_all_hooks_does_not_matter_to_claude_code() {
    // no hook: the prefix runs with hooks off (shown in the real Claude Code by the e2e suite)
    let w = World::new();
    assert!(w
        .run(&["install", "claude-code", "--local"])
        .status
        .success());
    let p = w.home.join(".claude/settings.json");
    let mut v = w.json(&p);
    v["disableAllHooks"] = json!(true);
    w.write(&p, &v.to_string());
    let (r, _) = doctor(&w, "claude-code");
    assert_eq!(health(&r), "ok", "{r}");
}

/// A stand-in for the hook program that reads the payload and prints `answer`.
fn fake_hook(w: &World, answer: &str) -> PathBuf {
    let fake = w.tmp.path().join("fake-tokenjuice");
    w.write(
        &fake,
        &format!("#!/bin/sh\ncat >/dev/null\necho '{answer}'\n"),
    );
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    fake
}

#[test]
fn a_hook_that_no_longer_compacts_is_broken() {
    // The entry points at a program that answers {} to everything.
    let w = World::new();
    assert!(w
        .run(&["install", "copilot-cli", "--local"])
        .status
        .success());
    let fake = fake_hook(&w, "{}");
    let p = w.home.join(".copilot/hooks/tokenjuice-cli.json");
    let mut v = w.json(&p);
    let cmd = v["hooks"]["postToolUse"][0]["bash"].as_str().unwrap();
    let cmd = cmd.replacen(&launcher(), &fake.display().to_string(), 1);
    v["hooks"]["postToolUse"][0]["bash"] = json!(cmd);
    w.write(&p, &v.to_string());
    let (r, code) = doctor(&w, "copilot-cli");
    assert_eq!(health(&r), "broken", "{r}");
    assert_eq!(code, 1);
    assert!(r.contains("did not replace a noisy sample result"), "{r}");
}

#[test]
fn doctor_hooks_summarises_every_host() {
    let w = World::new();
    let o = w.run(&["doctor", "hooks"]);
    assert_eq!(o.status.code(), Some(0));
    let r = stdout(&o);
    assert!(r.contains("no tokenjuice integration is installed"), "{r}");
    assert_eq!(health(&r), "disabled");
    for h in HOOK_HOSTS.iter().chain(UNSUPPORTED.iter().map(|(h, _)| h)) {
        assert!(r.contains(h), "{h}: {r}");
    }
    // the hint offers the agents it plugs into, and names apart the ones install refuses
    let hint = r
        .lines()
        .find(|l| l.starts_with("install one with"))
        .unwrap_or_default();
    let list = |after: &str| -> Vec<String> {
        hint.split_once(after)
            .map(|(_, rest)| rest.split(';').next().unwrap_or(""))
            .unwrap_or("")
            .split(", ")
            .map(str::to_string)
            .collect()
    };
    let offered = list("agents it plugs into: ");
    let refused = list("(install refuses and says why): ");
    let mut want: Vec<&str> = HOOK_HOSTS.to_vec();
    want.push("codex");
    want.sort_unstable();
    let mut got: Vec<&str> = offered.iter().map(String::as_str).collect();
    got.sort_unstable();
    assert_eq!(got, want, "{hint}");
    let mut want: Vec<&str> = UNSUPPORTED.iter().map(|(h, _)| *h).collect();
    want.sort_unstable();
    let mut got: Vec<&str> = refused.iter().map(String::as_str).collect();
    got.sort_unstable();
    assert_eq!(got, want, "{hint}");
    assert!(w
        .run(&["install", "copilot-cli", "--local"])
        .status
        .success());
    assert!(w.run(&["install", "agents-md"]).status.success());
    let r = stdout(&w.run(&["doctor", "hooks"]));
    assert!(
        r.contains("copilot-cli: ok") && r.contains("agents-md: ok"),
        "{r}"
    );
    assert_eq!(health(&r), "ok", "{r}");
    // Bare `doctor` is reducer health from the run history, not the host summary.
    let bare = stdout(&w.run(&["doctor"]));
    assert!(bare.starts_with("verdict: "), "{bare}");
    assert!(!bare.contains("copilot-cli: ok"), "{bare}");
    // One broken host makes the whole run exit 1.
    let p = w.home.join(".copilot/hooks/tokenjuice-cli.json");
    w.write(&p, &w.read(&p).replace(&launcher(), "/gone/tokenjuice"));
    let o = w.run(&["doctor", "hooks"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("copilot-cli: broken"));
}

/// A fake agent program `name` on PATH that prints `version` on stdout or stderr.
fn fake_agent(w: &mut World, name: &str, version: &str, on_stderr: bool) {
    let bin = w.tmp.path().join("fake-agents");
    std::fs::create_dir_all(&bin).unwrap();
    let redirect = if on_stderr { " >&2" } else { "" };
    let script = bin.join(name);
    w.write(&script, &format!("#!/bin/sh\necho '{version}'{redirect}\n"));
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    w.set("PATH", format!("{}:{}", bin.display(), system_path()));
}

#[test]
fn the_agents_version_is_checked_against_the_proven_ones() {
    // proven: a fact; stderr is read when stdout is empty (pi prints its version there)
    for (host, program, version, on_stderr) in [
        ("claude-code", "claude", "2.1.330 (Claude Code)", false),
        ("pi", "pi", "0.73.1", true),
    ] {
        let mut w = World::new();
        fake_agent(&mut w, program, version, on_stderr);
        assert!(w.run(&["install", host, "--local"]).status.success());
        let (r, code) = doctor(&w, host);
        assert_eq!((health(&r), code), ("ok", 0), "{host}: {r}");
        assert!(r.contains("the mechanism is proven in"), "{host}: {r}");
    }
    // another version: warn, naming the proven ones
    let mut w = World::new();
    fake_agent(&mut w, "claude", "3.0.1 (Claude Code)", false);
    assert!(w
        .run(&["install", "claude-code", "--local"])
        .status
        .success());
    let (r, code) = doctor(&w, "claude-code");
    assert_eq!((health(&r), code), ("warn", 0), "{r}");
    assert!(
        r.contains("claude 3.0.1 is a version the mechanism was not proven in (proven: 2.1)"),
        "{r}"
    );
}

#[test]
fn doctor_gemini_says_whether_gemini_trusts_the_folder() {
    // Gemini runs no hook in a folder it does not trust (read in its 0.61 bundle; its
    // project hooks measured by crates/e2e/tests/hooks_differential_gemini.rs): a note, not
    // a problem, since the user decides which folders to trust
    let mut w = World::new();
    assert!(w
        .run(&["install", "gemini-cli", "--local"])
        .status
        .success());
    let (r, code) = doctor(&w, "gemini-cli");
    assert_eq!((health(&r), code), ("ok", 0), "{r}");
    assert!(
        r.contains("note: Gemini does not trust this folder") && r.contains("no rule of"),
        "{r}"
    );
    w.write(
        &w.home.join(".gemini/trustedFolders.json"),
        &serde_json::json!({ w.project.display().to_string(): "TRUST_FOLDER" }).to_string(),
    );
    let (r, _) = doctor(&w, "gemini-cli");
    assert!(r.contains("Gemini trusts this folder"), "{r}");
    // the variable Gemini reads decides first
    w.set("GEMINI_CLI_TRUST_WORKSPACE", "false");
    let (r, _) = doctor(&w, "gemini-cli");
    assert!(r.contains("GEMINI_CLI_TRUST_WORKSPACE=false"), "{r}");
}
