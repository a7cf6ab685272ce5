//! `doctor` in each state, on the real binary: disabled (nothing installed), ok (proven by
//! running the installed hook and the rewritten command), warn (legacy entries, a missing
//! timeout, Codex trust), broken (missing launcher, malformed file, native Windows) with
//! exit 1, and the `doctor hooks` summary.

mod hosts_support;

use std::path::PathBuf;

use hosts_support::*;
use serde_json::{json, Value};

const HOOK_HOSTS: &[&str] = &[
    "codebuddy",
    "cursor",
    "claude-code",
    "codex",
    "pi",
    "gemini-cli",
    "qwen-code",
    "copilot-cli",
    "vscode-copilot",
    "droid",
    "devin",
    "opencode",
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

/// Trusts our Codex entry the way Codex records it, so codex can reach `ok`.
fn trust_codex(w: &World) {
    let hooks = w.home.join(".codex/hooks.json");
    w.write(
        &w.home.join(".codex/config.toml"),
        &format!("model = \"gpt-5\"\n\n[hooks.state.\"{}:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:abc\"\n", hooks.display()),
    );
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
fn installed_is_ok_and_proven_by_running_the_hook() {
    for h in HOOK_HOSTS {
        let w = World::new();
        assert!(w.run(&["install", h, "--local"]).status.success(), "{h}");
        if *h == "codex" {
            trust_codex(&w);
        }
        let (r, code) = doctor(&w, h);
        assert_eq!(health(&r), "ok", "{h}: {r}");
        assert_eq!(code, 0);
        let proven = r.contains("exit code 3 kept") || r.contains("compacted");
        assert!(proven, "{h}: doctor must run the hook: {r}");
        if !matches!(*h, "pi" | "opencode" | "copilot-cli") {
            assert!(r.contains("through the hooks engine"), "{h}: {r}");
        }
    }
}

#[test]
fn permission_postures_are_stated() {
    let w = World::new();
    for (h, needle) in [
        ("cursor", "permission \"allow\""),
        ("codebuddy", "permissionDecision \"allow\""),
        ("codex", "carries no approval"),
        ("qwen-code", "yolo"),
    ] {
        assert!(w.run(&["install", h, "--local"]).status.success());
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
        if *h == "codex" {
            trust_codex(&w);
        }
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
fn legacy_entries_warn_until_reinstall_migrates_them() {
    let w = World::new();
    assert!(w
        .run(&["install", "claude-code", "--local"])
        .status
        .success());
    let p = w.home.join(".claude/settings.json");
    let mut v: Value = w.json(&p);
    v["hooks"]["PostToolUse"] = json!([{"matcher": "Bash", "hooks": [{"type": "command", "command": "tokenjuice claude-code-post-tool-use", "statusMessage": "compacting bash output with tokenjuice"}]}]);
    w.write(&p, &serde_json::to_string_pretty(&v).unwrap());
    let (r, code) = doctor(&w, "claude-code");
    assert_eq!(health(&r), "warn", "{r}");
    assert_eq!(code, 0);
    assert!(
        r.contains("hooks.PostToolUse[0].hooks[0]") && r.contains("migrates"),
        "{r}"
    );
    assert!(w
        .run(&["install", "claude-code", "--local"])
        .status
        .success());
    assert_eq!(health(&doctor(&w, "claude-code").0), "ok");

    // Only a legacy entry: compaction is not working at all.
    let w = World::new();
    w.write(&w.home.join(".codex/hooks.json"), &json!({"hooks": {"PostToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "tokenjuice codex-post-tool-use", "statusMessage": "compacting bash output with tokenjuice", "timeout": 30}]}]}}).to_string());
    let (r, code) = doctor(&w, "codex");
    assert_eq!(health(&r), "broken", "{r}");
    assert_eq!(code, 1);
}

#[test]
fn a_missing_timeout_warns() {
    let w = World::new();
    assert!(w.run(&["install", "cursor", "--local"]).status.success());
    let p = w.home.join(".cursor/hooks.json");
    let mut v = w.json(&p);
    v["hooks"]["preToolUse"][0]
        .as_object_mut()
        .unwrap()
        .remove("timeout");
    w.write(&p, &v.to_string());
    let (r, _) = doctor(&w, "cursor");
    assert_eq!(health(&r), "warn", "{r}");
    assert!(r.contains("no `timeout`"), "{r}");
}

#[test]
fn codex_trust_and_feature_flag() {
    let w = World::new();
    assert!(w.run(&["install", "codex", "--local"]).status.success());
    let (r, _) = doctor(&w, "codex");
    assert_eq!(health(&r), "warn", "{r}");
    assert!(r.contains("trust") && r.contains("/hooks"), "{r}");
    trust_codex(&w);
    assert_eq!(health(&doctor(&w, "codex").0), "ok");
    let cfg = w.home.join(".codex/config.toml");
    let text = w.read(&cfg);
    w.write(&cfg, &format!("[features]\nhooks = false\n\n{text}"));
    let (r, code) = doctor(&w, "codex");
    assert_eq!(health(&r), "disabled", "{r}");
    assert_eq!(code, 0);
    assert!(r.contains("hooks = true"), "{r}");
}

#[test]
fn disable_all_hooks_is_reported() {
    for (h, rel) in [
        ("qwen-code", ".qwen/settings.json"),
        ("claude-code", ".claude/settings.json"),
    ] {
        let w = World::new();
        assert!(w.run(&["install", h, "--local"]).status.success());
        let p = w.home.join(rel);
        let mut v = w.json(&p);
        v["disableAllHooks"] = json!(true);
        w.write(&p, &v.to_string());
        let (r, _) = doctor(&w, h);
        assert_eq!(health(&r), "disabled", "{h}: {r}");
    }
}

#[test]
fn native_windows_is_broken_when_installed_and_disabled_otherwise() {
    for h in ["codebuddy", "cursor"] {
        let mut w = World::new();
        w.set("TOKENJUICE_HOST_PLATFORM", "win32");
        let (r, code) = doctor(&w, h);
        assert_eq!(health(&r), "disabled", "{h}: {r}");
        assert_eq!(code, 0);
        assert!(r.contains("WSL"), "{r}");
        assert!(w.run(&["install", h, "--local"]).status.success());
        let (r, code) = doctor(&w, h);
        assert_eq!(health(&r), "broken", "{h}: {r}");
        assert_eq!(code, 1);
        assert!(
            r.contains("WSL") && r.contains(&format!("tokenjuice uninstall {h}")),
            "{r}"
        );
    }
}

#[test]
fn a_hook_that_no_longer_rewrites_is_broken() {
    // The entry points at a program that answers {} to everything.
    let w = World::new();
    assert!(w
        .run(&["install", "claude-code", "--local"])
        .status
        .success());
    let fake = w.tmp.path().join("fake-tokenjuice");
    w.write(&fake, "#!/bin/sh\ncat >/dev/null\necho '{}'\n");
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let p = w.home.join(".claude/settings.json");
    let text = w
        .read(&p)
        .replacen(&launcher(), &fake.display().to_string(), 1);
    w.write(&p, &text);
    let (r, code) = doctor(&w, "claude-code");
    assert_eq!(health(&r), "broken", "{r}");
    assert_eq!(code, 1);
    assert!(r.contains("did not rewrite"), "{r}");
}

#[test]
fn doctor_hooks_summarises_every_host() {
    let w = World::new();
    let o = w.run(&["doctor", "hooks"]);
    assert_eq!(o.status.code(), Some(0));
    let r = stdout(&o);
    assert!(r.contains("no tokenjuice integration is installed"), "{r}");
    assert_eq!(health(&r), "disabled");
    for h in HOOK_HOSTS {
        assert!(r.contains(h), "{h}: {r}");
    }
    assert!(w.run(&["install", "cursor", "--local"]).status.success());
    assert!(w.run(&["install", "agents-md"]).status.success());
    let r = stdout(&w.run(&["doctor", "hooks"]));
    assert!(
        r.contains("cursor: ok") && r.contains("agents-md: ok"),
        "{r}"
    );
    assert_eq!(health(&r), "ok", "{r}");
    // Bare `doctor` is reducer health from the run history, not the host summary.
    let bare = stdout(&w.run(&["doctor"]));
    assert!(bare.starts_with("verdict: "), "{bare}");
    assert!(!bare.contains("cursor: ok"), "{bare}");
    // One broken host makes the whole run exit 1.
    let p = w.home.join(".cursor/hooks.json");
    w.write(&p, &w.read(&p).replace(&launcher(), "/gone/tokenjuice"));
    let o = w.run(&["doctor", "hooks"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("cursor: broken"));
}
