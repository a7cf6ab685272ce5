//! install / uninstall for every hook host, on the real binary with a temp HOME: fresh
//! install (the hook entry; claude-code and codebuddy get only their shell prefix),
//! install over the user's own hooks (with a sibling in our matcher group), legacy
//! migration, idempotent reinstall, uninstall, malformed files refused untouched, symlinks
//! and file modes, each host's config-dir variables, and the hosts tokenjuice refuses to
//! install into (qwen-code, vscode-copilot, devin, cursor) while still removing an
//! older hook of theirs.

mod hosts_support;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use hosts_support::*;
use serde_json::{json, Value};

#[derive(Clone, Copy)]
enum Shape {
    Groups,
    Flat,
}

struct Case {
    id: &'static str,
    rel: &'static str,
    in_project: bool,
    shape: Shape,
    event: &'static str,
    matcher: Option<&'static str>,
    key: &'static str,
    entry: &'static str,
    /// The host's shell-prefix variable in the settings `env`.
    prefix_env: Option<&'static str>,
}

const CASES: &[Case] = &[
    Case {
        id: "gemini-cli",
        rel: ".gemini/settings.json",
        in_project: false,
        shape: Shape::Groups,
        event: "AfterTool",
        matcher: Some("run_shell_command"),
        key: "command",
        entry: "gemini-cli-post-tool-use",
        prefix_env: None,
    },
    Case {
        id: "copilot-cli",
        rel: ".copilot/hooks/tokenjuice-cli.json",
        in_project: false,
        shape: Shape::Flat,
        event: "postToolUse",
        matcher: None,
        key: "bash",
        entry: "copilot-cli-post-tool-use",
        prefix_env: None,
    },
];

/// Hosts tokenjuice refuses to install into: (id, variable naming the folder, the file in it;
/// without a variable the folder is `<HOME>/.qwen`).
const UNSUPPORTED: &[(&str, Option<&str>, &str)] = &[
    ("qwen-code", None, "settings.json"),
    (
        "vscode-copilot",
        Some("HOME"),
        ".copilot/hooks/tokenjuice-vscode.json",
    ),
    ("devin", Some("DEVIN_PROJECT_DIR"), ".devin/hooks.v1.json"),
];

impl Case {
    /// What the entry's command must be for launcher `l`.
    fn command(&self, l: &str) -> String {
        format!("{l} {}", self.entry)
    }

    /// What the shell-prefix setting must hold for launcher `l` (a plain path).
    fn prefix_value(&self, l: &str) -> String {
        format!("{l} --shell-prefix={}", self.id)
    }

    fn path(&self, w: &World) -> PathBuf {
        if self.in_project {
            w.project.join(self.rel)
        } else {
            w.home.join(self.rel)
        }
    }

    /// The events map of a parsed file.
    fn events<'a>(&self, v: &'a Value) -> &'a Value {
        &v["hooks"]
    }

    /// Our handlers: (event, group index, handler).
    fn ours(&self, v: &Value) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        let Some(events) = self.events(v).as_object() else {
            return out;
        };
        for (ev, list) in events {
            for g in list.as_array().into_iter().flatten() {
                let handlers: Vec<&Value> = match self.shape {
                    Shape::Flat => vec![g],
                    _ => g["hooks"]
                        .as_array()
                        .map(|a| a.iter().collect())
                        .unwrap_or_default(),
                };
                for h in handlers {
                    let cmd = h[self.key].as_str().or(h["command"].as_str()).unwrap_or("");
                    if cmd.contains("tokenjuice") && cmd.contains("-tool-use") {
                        out.push((ev.clone(), h.clone()));
                    }
                }
            }
        }
        out
    }

    /// A file with the user's own hooks, a sibling in our matcher group, and one stale
    /// tokenjuice entry (a legacy PostToolUse compaction hook, or an old launcher).
    fn users_file(&self) -> Value {
        let legacy = json!({"type": "command", "command": format!("/old/bin/tokenjuice {}-post-tool-use", self.id), "statusMessage": "compacting bash output with tokenjuice"});
        let mut ours_group =
            json!({"hooks": [{"type": "command", "command": "user-guard.sh", "timeout": 5}]});
        if let Some(m) = self.matcher {
            ours_group["matcher"] = json!(m);
        }
        let events = json!({
            self.event: [ours_group, {"matcher": "Other", "hooks": [{"type": "command", "command": "other.sh"}]}],
            "SessionStart": [{"hooks": [{"type": "command", "command": "hello.sh"}]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [legacy, {"type": "command", "command": "audit.sh"}]}],
        });
        match self.shape {
            Shape::Groups => json!({"theme": "dark", "hooks": events, "zzz": 1}),
            Shape::Flat => {
                let mut user = json!({"command": "user-guard.sh"});
                let mut k = user.as_object().unwrap().clone();
                if self.key != "command" {
                    k.remove("command");
                    k.insert(self.key.into(), json!("user-guard.sh"));
                }
                if let Some(m) = self.matcher {
                    k.insert("matcher".into(), json!(m));
                }
                user = Value::Object(k);
                let stale = json!({self.key: format!("/old/bin/tokenjuice {} --wrap-launcher /old/bin/tokenjuice", self.entry)});
                json!({"version": 1, "hooks": {self.event: [stale, user], "stop": [{"command": "bye.sh"}]}, "zzz": true})
            }
        }
    }

    /// The user's file with only the stale tokenjuice entry taken out (what uninstall leaves).
    fn users_file_without_ours(&self) -> Value {
        let mut v = self.users_file();
        match self.shape {
            Shape::Flat => {
                v["hooks"][self.event].as_array_mut().unwrap().remove(0);
            }
            Shape::Groups => {
                v["hooks"]["PostToolUse"][0]["hooks"]
                    .as_array_mut()
                    .unwrap()
                    .remove(0);
            }
        }
        v
    }
}

fn install(w: &World, id: &str) -> std::process::Output {
    w.run(&["install", id, "--local"])
}

/// `doctor <id>`: its report and exit code.
fn doctor_of(w: &World, id: &str) -> (String, Option<i32>) {
    let o = w.run(&["doctor", id]);
    (stdout(&o), o.status.code())
}

#[test]
fn fresh_install_writes_exactly_one_entry_in_the_hosts_shape() {
    for c in CASES {
        let w = World::new();
        let out = install(&w, c.id);
        assert!(out.status.success(), "{}: {}", c.id, stderr(&out));
        let v = w.json(&c.path(&w));
        let ours = c.ours(&v);
        assert_eq!(ours.len(), 1, "{}: {v:#}", c.id);
        let (ev, h) = &ours[0];
        assert_eq!(ev, c.event, "{}", c.id);
        let cmd = h[c.key].as_str().unwrap();
        let l = launcher();
        assert_eq!(cmd, c.command(&l), "{}", c.id);
        match c.prefix_env {
            Some(var) => {
                assert_eq!(v["env"][var], json!(c.prefix_value(&l)), "{}: {v:#}", c.id);
                assert_eq!(
                    v["env"].as_object().map(|e| e.len()),
                    Some(1),
                    "{}: only the prefix: {v:#}",
                    c.id
                );
                assert!(
                    stdout(&out).contains(&format!("env.{var} = ")),
                    "{}: {}",
                    c.id,
                    stdout(&out)
                );
            }
            None => assert!(v.get("env").is_none(), "{}: {v:#}", c.id),
        }
        assert_eq!(h["type"], "command", "{}", c.id);
        let has_timeout = h
            .get("timeout")
            .or(h.get("timeoutSec"))
            .and_then(Value::as_u64);
        assert!(
            has_timeout.is_some_and(|t| t > 0),
            "{}: timeout written: {h}",
            c.id
        );
        if let Shape::Flat = c.shape {
            assert_eq!(v["version"], 1, "{}", c.id);
            assert_eq!(
                h.get("matcher").and_then(Value::as_str),
                c.matcher,
                "{}",
                c.id
            );
        } else {
            let group = &c.events(&v)[c.event][0];
            assert_eq!(group["matcher"].as_str(), c.matcher, "{}", c.id);
        }
        assert!(
            !c.path(&w).with_extension("json.bak").exists(),
            "{}: no backup of a new file",
            c.id
        );
        assert!(
            stdout(&out).contains(&c.path(&w).display().to_string()),
            "{}",
            c.id
        );
    }
}

#[test]
fn install_over_users_hooks_keeps_them_migrates_legacy_and_is_idempotent() {
    for c in CASES {
        let w = World::new();
        let path = c.path(&w);
        let original = serde_json::to_string_pretty(&c.users_file()).unwrap();
        w.write(&path, &original);
        let out = install(&w, c.id);
        assert!(out.status.success(), "{}: {}", c.id, stderr(&out));
        if !matches!(c.shape, Shape::Flat) {
            assert!(
                stdout(&out).contains("removed 1 older tokenjuice entry"),
                "{}: {}",
                c.id,
                stdout(&out)
            );
        }
        let v = w.json(&path);
        // Key order and unrelated keys kept; a prefix host's `env` is added at the end.
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        let mut before: Vec<String> = c
            .users_file()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        if let Some(var) = c.prefix_env {
            before.push("env".into());
            assert_eq!(
                v["env"][var],
                json!(c.prefix_value(&launcher())),
                "{}",
                c.id
            );
        }
        assert_eq!(keys, before.iter().collect::<Vec<_>>(), "{}", c.id);
        let ours = c.ours(&v);
        assert_eq!(
            ours.len(),
            1,
            "{}: exactly one entry after migration: {v:#}",
            c.id
        );
        assert_eq!(
            ours[0].1[c.key].as_str().unwrap(),
            c.command(&launcher()),
            "{}",
            c.id
        );
        let events = c.events(&v);
        match c.shape {
            Shape::Flat => {
                let list = events[c.event].as_array().unwrap();
                assert_eq!(list.len(), 2, "{}: {v:#}", c.id);
                assert!(
                    list[0][c.key].as_str().unwrap().contains(&launcher()),
                    "{}: replaced in place",
                    c.id
                );
                assert_eq!(list[1][c.key], "user-guard.sh", "{}", c.id);
                assert_eq!(events["stop"][0]["command"], "bye.sh", "{}", c.id);
            }
            _ => {
                let group = &events[c.event][0]["hooks"];
                assert_eq!(
                    group[0]["command"], "user-guard.sh",
                    "{}: sibling kept first",
                    c.id
                );
                assert_eq!(group[0]["timeout"], 5, "{}", c.id);
                assert!(
                    group[1]["command"].as_str().unwrap().contains(c.entry),
                    "{}: ours in the same group",
                    c.id
                );
                assert_eq!(
                    events[c.event][1]["hooks"][0]["command"], "other.sh",
                    "{}",
                    c.id
                );
                assert_eq!(
                    events["SessionStart"][0]["hooks"][0]["command"], "hello.sh",
                    "{}",
                    c.id
                );
                let post = events["PostToolUse"][0]["hooks"].as_array().unwrap();
                assert_eq!(
                    post.len(),
                    1,
                    "{}: legacy stripped, sibling kept: {v:#}",
                    c.id
                );
                assert_eq!(post[0]["command"], "audit.sh", "{}", c.id);
            }
        }
        let bak = PathBuf::from(format!("{}.bak", path.display()));
        assert_eq!(
            w.read(&bak),
            original,
            "{}: one-time backup holds the original",
            c.id
        );

        // Reinstall: byte-identical, backup untouched.
        let first = w.read(&path);
        let again = install(&w, c.id);
        assert!(again.status.success(), "{}", c.id);
        assert!(
            stdout(&again).contains("already holds the current tokenjuice entry"),
            "{}: {}",
            c.id,
            stdout(&again)
        );
        assert_eq!(
            w.read(&path),
            first,
            "{}: install twice = install once",
            c.id
        );
        assert_eq!(w.read(&bak), original, "{}: backup never overwritten", c.id);

        // Uninstall: only ours goes.
        let un = w.run(&["uninstall", c.id]);
        assert!(un.status.success(), "{}: {}", c.id, stderr(&un));
        assert_eq!(
            w.json(&path),
            c.users_file_without_ours(),
            "{}: uninstall leaves the user's hooks",
            c.id
        );
        assert_eq!(w.read(&bak), original, "{}: backup never overwritten", c.id);
        let un2 = w.run(&["uninstall", c.id]);
        assert!(
            stdout(&un2).contains("nothing to remove"),
            "{}: {}",
            c.id,
            stdout(&un2)
        );
    }
}

#[test]
fn uninstall_after_a_fresh_install_leaves_no_empty_groups() {
    for c in CASES {
        let w = World::new();
        let path = c.path(&w);
        w.write(&path, "{\"theme\": \"dark\"}\n");
        assert!(install(&w, c.id).status.success(), "{}", c.id);
        assert!(w.run(&["uninstall", c.id]).status.success(), "{}", c.id);
        let v = w.json(&path);
        match c.shape {
            Shape::Groups => assert_eq!(
                v,
                json!({"theme": "dark"}),
                "{}: empty hooks map removed",
                c.id
            ),
            Shape::Flat => assert_eq!(
                v,
                json!({"version": 1, "theme": "dark", "hooks": {}}),
                "{}",
                c.id
            ),
        }
    }
}

#[test]
fn a_file_only_tokenjuice_created_is_removed_on_uninstall() {
    for c in CASES.iter().filter(|c| matches!(c.shape, Shape::Flat)) {
        let w = World::new();
        assert!(install(&w, c.id).status.success());
        assert!(w.run(&["uninstall", c.id]).status.success());
        assert!(!c.path(&w).exists(), "{}", c.id);
    }
}

#[test]
fn malformed_or_misshapen_files_are_refused_and_left_untouched() {
    for c in CASES {
        for (bad, expect) in [
            ("{\n  \"hooks\": {\n    \"X\": [}\n}\n", ":3:"),
            ("[1, 2]\n", "expected a JSON object"),
        ] {
            let w = World::new();
            let path = c.path(&w);
            w.write(&path, bad);
            for args in [vec!["install", c.id, "--local"], vec!["uninstall", c.id]] {
                let out = w.run(&args);
                assert_eq!(out.status.code(), Some(1), "{} {args:?}", c.id);
                let err = stderr(&out);
                assert!(
                    err.contains(&path.display().to_string()) && err.contains(expect),
                    "{}: {err}",
                    c.id
                );
                assert!(err.contains("untouched"), "{}: {err}", c.id);
                assert_eq!(w.read(&path), bad, "{}: file left as it was", c.id);
                assert!(!PathBuf::from(format!("{}.bak", path.display())).exists());
            }
        }
    }
    // A key of the wrong type is refused too, naming the key.
    let w = World::new();
    let path = w.home.join(".claude/settings.json");
    w.write(&path, "{\"hooks\": [\"x\"]}");
    let out = w.run(&["install", "claude-code", "--local"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("`hooks` is an array"),
        "{}",
        stderr(&out)
    );
    assert_eq!(w.read(&path), "{\"hooks\": [\"x\"]}");
    // So is a settings `env` that is not an object of variables, and a prefix that is not a
    // string: the hook is not written without its prefix.
    for (text, expect) in [
        ("{\"env\": [\"x\"]}", "`env` is an array"),
        (
            "{\"env\": {\"CLAUDE_CODE_SHELL_PREFIX\": 3}}",
            "`env.CLAUDE_CODE_SHELL_PREFIX` is a number",
        ),
    ] {
        let w = World::new();
        let path = w.home.join(".claude/settings.json");
        w.write(&path, text);
        let out = w.run(&["install", "claude-code", "--local"]);
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(stderr(&out).contains(expect), "{text}: {}", stderr(&out));
        assert_eq!(w.read(&path), text, "left as it was");
    }
}

#[test]
fn symlinked_settings_are_written_through_and_mode_is_kept() {
    let w = World::new();
    let real = w.home.join("dotfiles/codebuddy.json");
    w.write(&real, "{\"theme\": \"dark\"}\n");
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = w.home.join(".codebuddy/settings.json");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("../dotfiles/codebuddy.json", &link).unwrap();
    assert!(install(&w, "codebuddy").status.success());
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "link kept"
    );
    let v = w.json(&real);
    assert_eq!(v["theme"], "dark");
    assert!(v.get("hooks").is_none(), "no hook for codebuddy: {v:#}");
    assert_eq!(
        v["env"]["CODEBUDDY_CODE_SHELL_PREFIX"],
        format!("{} --shell-prefix=codebuddy", launcher())
    );
    assert_eq!(
        std::fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(
        w.home.join("dotfiles/codebuddy.json.bak").exists(),
        "backup beside the target"
    );
}

#[test]
fn config_dir_variables_are_honoured() {
    type Vars = &'static [(&'static str, &'static str)];
    let cases: &[(&str, Vars, &str)] = &[
        (
            "codebuddy",
            &[("CODEBUDDY_CONFIG_DIR", "cfg")],
            "cfg/settings.json",
        ),
        // Variables the hosts themselves do not read (checked in their bundles) move nothing.
        (
            "codebuddy",
            &[("CODEBUDDY_HOME", "legacy")],
            "home/.codebuddy/settings.json",
        ),
        (
            "claude-code",
            &[("CLAUDE_HOME", "legacy")],
            "home/.claude/settings.json",
        ),
        (
            "gemini-cli",
            &[("GEMINI_HOME", "gem")],
            "home/.gemini/settings.json",
        ),
        (
            "claude-code",
            &[("CLAUDE_CONFIG_DIR", "cc")],
            "cc/settings.json",
        ),
        (
            "pi",
            &[("PI_CODING_AGENT_DIR", "pia")],
            "pia/extensions/tokenjuice.ts",
        ),
        (
            "copilot-cli",
            &[("COPILOT_HOME", "cop")],
            "cop/hooks/tokenjuice-cli.json",
        ),
        // Gemini CLI's variable replaces the home directory, not the .gemini folder.
        (
            "gemini-cli",
            &[("GEMINI_CLI_HOME", "gem")],
            "gem/.gemini/settings.json",
        ),
        (
            "opencode",
            &[("OPENCODE_CONFIG_DIR", "oc")],
            "oc/plugins/tokenjuice.js",
        ),
        (
            "opencode",
            &[("XDG_CONFIG_HOME", "xdg")],
            "xdg/opencode/plugins/tokenjuice.js",
        ),
        // Droid's variable replaces the home directory; the script sits beside the settings
        (
            "droid",
            &[("FACTORY_HOME_OVERRIDE", "fac")],
            "fac/.factory/settings.json",
        ),
        (
            "droid",
            &[("FACTORY_HOME_OVERRIDE", "fac")],
            "fac/.factory/tokenjuice/bash_env.sh",
        ),
    ];
    for (id, vars, rel) in cases {
        let mut w = World::new();
        let base = w.tmp.path().to_path_buf();
        for (k, v) in *vars {
            w.set(k, base.join(v).display().to_string());
        }
        let out = install(&w, id);
        assert!(out.status.success(), "{id}: {}", stderr(&out));
        assert!(base.join(rel).exists(), "{id} {vars:?}: expected {rel}");
        assert!(
            rel.starts_with("home/") || !w.home.join(".codebuddy").exists() || *id != "codebuddy",
            "{id}: home untouched"
        );
    }
    // Without variables: under HOME.
    let w = World::new();
    assert!(install(&w, "pi").status.success());
    assert!(w.home.join(".pi/agent/extensions/tokenjuice.ts").exists());
}

#[test]
fn the_launcher_is_taken_from_path_unless_local() {
    let mut w = World::new();
    let bin = w.tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(BIN, bin.join("tokenjuice")).unwrap();
    w.set("PATH", format!("{}:{}", bin.display(), system_path()));
    let out = w.run(&["install", "claude-code"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = w.json(&w.home.join(".claude/settings.json"));
    let l = bin.join("tokenjuice").display().to_string();
    assert!(v.get("hooks").is_none(), "no hook for claude-code: {v:#}");
    assert_eq!(
        v["env"]["CLAUDE_CODE_SHELL_PREFIX"],
        format!("{l} --shell-prefix=claude-code")
    );
    assert!(stdout(&out).contains("found on PATH"));
    // --local repoints the prefix at this build (the running binary), in place.
    let out = w.run(&["install", "claude-code", "--local"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("--local"), "{}", stdout(&out));
    let v = w.json(&w.home.join(".claude/settings.json"));
    assert!(v.get("hooks").is_none(), "{v:#}");
    assert_eq!(
        v["env"]["CLAUDE_CODE_SHELL_PREFIX"],
        format!("{} --shell-prefix=claude-code", launcher())
    );
    assert!(
        v["env"].get("TOKENJUICE_CLAUDE_CODE_NEXT_PREFIX").is_none(),
        "our own earlier prefix is not kept as the user's: {v:#}"
    );
}

#[test]
fn unsupported_hosts_refuse_install_and_uninstall_still_removes_an_older_hook() {
    for (id, var, file) in UNSUPPORTED {
        let mut w = World::new();
        let dir = match var {
            Some(v) => {
                let d = w.tmp.path().join(format!("{id}-dir"));
                w.set(v, d.display().to_string());
                d
            }
            None => w.home.join(".qwen"),
        };
        let path = dir.join(file);
        let out = install(&w, id);
        assert_eq!(out.status.code(), Some(1), "{id}");
        let err = stderr(&out);
        assert!(
            err.contains(&format!("tokenjuice does not install into {id}: "))
                && err.contains("tokenjuice install agents-md")
                && err.contains(&format!("tokenjuice uninstall {id}")),
            "{id}: {err}"
        );
        assert!(!dir.exists(), "{id}: nothing written");
        // A file with the user's hook and the rewrite hook an older tokenjuice installed,
        // in the host's own shape.
        let old =
            format!("/old/bin/tokenjuice {id}-pre-tool-use --wrap-launcher /old/bin/tokenjuice");
        let (older, after) = match *id {
            "vscode-copilot" => (
                json!({"version": 1, "hooks": {"PreToolUse": [
                    {"type": "command", "command": "user-guard.sh"},
                    {"type": "command", "command": old, "matcher": "runTerminalCommand|run_in_terminal", "timeout": 10}
                ]}}),
                json!({"version": 1, "hooks": {"PreToolUse": [{"type": "command", "command": "user-guard.sh"}]}}),
            ),
            "devin" => (
                json!({"PreToolUse": [{"matcher": "exec", "hooks": [
                    {"type": "command", "command": "user-guard.sh"},
                    {"type": "command", "command": old, "timeout": 10}
                ]}]}),
                json!({"PreToolUse": [{"matcher": "exec", "hooks": [{"type": "command", "command": "user-guard.sh"}]}]}),
            ),
            _ => (
                json!({"model": "m", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "user-guard.sh"},
                    {"type": "command", "command": old, "timeout": 30}
                ]}]}}),
                json!({"model": "m", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "user-guard.sh"}
                ]}]}}),
            ),
        };
        w.write(&path, &serde_json::to_string_pretty(&older).unwrap());
        let before = w.read(&path);
        let out = install(&w, id);
        assert_eq!(out.status.code(), Some(1), "{id}");
        assert_eq!(
            w.read(&path),
            before,
            "{id}: refused install leaves the file"
        );
        let (_, code) = doctor_of(&w, id);
        assert_eq!(code, Some(1), "{id}: doctor calls the older hook broken");
        let un = w.run(&["uninstall", id]);
        assert!(un.status.success(), "{id}: {}", stderr(&un));
        assert_eq!(
            w.json(&path),
            after,
            "{id}: only the older tokenjuice hook goes"
        );
        let (report, code) = doctor_of(&w, id);
        assert_eq!(code, Some(0), "{id}: {report}");
        assert!(report.contains("health: disabled"), "{id}: {report}");
        let un2 = w.run(&["uninstall", id]);
        assert!(stdout(&un2).contains("nothing to remove"), "{id}");
    }
}

#[test]
fn cursor_is_refused_with_its_rules_file_as_the_alternative() {
    // Cursor applies a hook's rewrite only together with a permission decision.
    let w = World::new();
    let out = install(&w, "cursor");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("tokenjuice does not install into cursor: ")
            && err.contains("permission decision")
            && err.contains("tokenjuice install cursor-rules"),
        "{err}"
    );
    assert!(!w.home.join(".cursor").exists(), "nothing written");
}

#[test]
fn an_older_rewrite_install_is_migrated_in_place() {
    // claude-code and codebuddy: the old PreToolUse rewrite entry (and the later marking
    // entry) goes, the user's hook beside it stays, and the prefix is set.
    for (id, dir, var) in [
        ("claude-code", ".claude", "CLAUDE_CODE_SHELL_PREFIX"),
        ("codebuddy", ".codebuddy", "CODEBUDDY_CODE_SHELL_PREFIX"),
    ] {
        for old in [
            format!("/old/bin/tokenjuice {id}-pre-tool-use --wrap-launcher /old/bin/tokenjuice"),
            format!("/old/bin/tokenjuice {id}-pre-tool-use"),
        ] {
            let w = World::new();
            let path = w.home.join(dir).join("settings.json");
            w.write(
            &path,
            &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": old, "statusMessage": "wrapping bash through tokenjuice for compaction", "timeout": 10},
                {"type": "command", "command": "after.sh"}
            ]}]}})
            .to_string(),
        );
            let out = install(&w, id);
            assert!(out.status.success(), "{id}: {}", stderr(&out));
            assert!(
                stdout(&out).contains("removed 1 older tokenjuice entry"),
                "{id}: {}",
                stdout(&out)
            );
            let v = w.json(&path);
            let hooks = v["hooks"]["PreToolUse"][0]["hooks"].as_array().unwrap();
            assert_eq!(hooks.len(), 1, "{id}: {v:#}");
            assert_eq!(hooks[0]["command"], "after.sh");
            assert_eq!(v["env"][var], format!("{} --shell-prefix={id}", launcher()));
            // and uninstall takes the prefix out, leaving the user's hook
            let out = w.run(&["uninstall", id]);
            assert!(out.status.success(), "{id}: {}", stderr(&out));
            let v = w.json(&path);
            assert!(v.get("env").is_none(), "{id}: {v:#}");
            assert_eq!(
                v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
                "after.sh"
            );
        }
    }
    // gemini-cli: the old BeforeTool rewrite goes, the AfterTool tail comes.
    let w = World::new();
    let path = w.home.join(".gemini/settings.json");
    w.write(
        &path,
        &json!({"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
            {"type": "command", "name": "tokenjuice", "command": "/old/bin/tokenjuice gemini-cli-pre-tool-use --wrap-launcher /old/bin/tokenjuice", "timeout": 10000}
        ]}]}})
        .to_string(),
    );
    let out = install(&w, "gemini-cli");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("removed 1 older tokenjuice entry"),
        "{}",
        stdout(&out)
    );
    let v = w.json(&path);
    assert!(v["hooks"].get("BeforeTool").is_none(), "{v:#}");
    assert_eq!(
        v["hooks"]["AfterTool"][0]["hooks"][0]["command"],
        format!("{} gemini-cli-post-tool-use", launcher()),
        "{v:#}"
    );
}

#[test]
fn extension_files_are_owned_whole_and_foreign_files_are_refused() {
    for (id, rel) in [
        ("pi", ".pi/agent/extensions/tokenjuice.ts"),
        ("opencode", ".config/opencode/plugins/tokenjuice.js"),
    ] {
        let w = World::new();
        let path = w.home.join(rel);
        w.write(&path, "// my own plugin\n");
        let out = install(&w, id);
        assert_eq!(out.status.code(), Some(1), "{id}");
        assert!(
            stderr(&out).contains("not written by tokenjuice"),
            "{id}: {}",
            stderr(&out)
        );
        assert_eq!(w.read(&path), "// my own plugin\n");
        let un = w.run(&["uninstall", id]);
        assert!(
            stdout(&un).contains("left") && path.exists(),
            "{id}: foreign file kept"
        );
        std::fs::remove_file(&path).unwrap();

        assert!(install(&w, id).status.success(), "{id}");
        let text = w.read(&path);
        assert!(text.starts_with("// tokenjuice-managed"), "{id}");
        assert!(
            text.contains(&format!("const LAUNCHER = {};", Value::String(launcher()))),
            "{id}"
        );
        let again = install(&w, id);
        assert!(stdout(&again).contains("already holds"), "{id}");
        // Repointing it (a new launcher) rewrites the file we own without a backup.
        let mut w2 = World::new();
        w2.home = w.home.clone();
        let bin = w.tmp.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let _ = std::os::unix::fs::symlink(BIN, bin.join("tokenjuice"));
        w2.set("PATH", format!("{}:{}", bin.display(), system_path()));
        assert!(w2.run(&["install", id]).status.success(), "{id}");
        assert!(
            w.read(&path)
                .contains(&bin.join("tokenjuice").display().to_string()),
            "{id}"
        );
        assert!(w.run(&["uninstall", id]).status.success());
        assert!(!path.exists(), "{id}: removed");
        let bak = PathBuf::from(format!("{}.bak", path.display()));
        assert!(!bak.exists(), "{id}: nothing of the user's to back up");
    }
}

#[test]
fn unknown_hosts_are_named_with_the_known_list() {
    let w = World::new();
    let out = w.run(&["install", "vim"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("unknown host `vim`")
            && err.contains("codebuddy")
            && err.contains("agents-md"),
        "{err}"
    );
}

#[test]
fn the_files_indentation_is_kept() {
    let w = World::new();
    let path = w.home.join(".claude/settings.json");
    w.write(&path, "{\n    \"theme\": \"dark\"\n}\n");
    assert!(install(&w, "claude-code").status.success());
    let text = w.read(&path);
    assert!(
        text.starts_with(
            "{\n    \"theme\": \"dark\",\n    \"env\": {\n        \"CLAUDE_CODE_SHELL_PREFIX\""
        ),
        "{text}"
    );
}

#[test]
fn a_settings_file_made_read_only_is_refused_untouched() {
    let w = World::new();
    let p = w.home.join(".claude/settings.json");
    w.write(&p, "{\"theme\": \"dark\"}\n");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = install(&w, "claude-code");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is read-only (mode 0444)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(w.read(&p), "{\"theme\": \"dark\"}\n");
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o444
    );
}

#[test]
fn install_then_uninstall_gives_the_users_file_back_byte_for_byte() {
    // escapes, number forms, a BOM, a 30-digit integer, the user's own layout
    let original = "\u{feff}{\n  \"name\" : \"caf\\u00e9\",\n    \"ratio\": 1.0e2,\n  \"big\": 123456789012345678901234567890,\n  \"hooks\": {}\n}";
    let w = World::new();
    let p = w.home.join(".claude/settings.json");
    w.write(&p, original);
    assert!(install(&w, "claude-code").status.success());
    let installed = w.read(&p);
    assert_ne!(installed, original, "installed");
    // installing touched only what it added: the user's bytes are all still there
    let kept = original.strip_suffix("\n}").unwrap();
    assert!(installed.starts_with(kept), "{installed}");
    let out = w.run(&["uninstall", "claude-code"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(w.read(&p), original, "byte for byte");
    // when the user changed something else meanwhile, their change stays (only our entries
    // are taken out) and every other byte is as it was
    let w = World::new();
    let p = w.home.join(".claude/settings.json");
    w.write(&p, original);
    assert!(install(&w, "claude-code").status.success());
    let edited = w
        .read(&p)
        .replacen("\"ratio\"", "\"theme\": \"light\",\n    \"ratio\"", 1);
    w.write(&p, &edited);
    assert!(w.run(&["uninstall", "claude-code"]).status.success());
    assert_eq!(
        w.read(&p),
        original.replacen("\"ratio\"", "\"theme\": \"light\",\n    \"ratio\"", 1)
    );
    let after: serde_json::Value =
        serde_json::from_str(w.read(&p).trim_start_matches('\u{feff}')).unwrap();
    assert_eq!(after["theme"], "light");
    assert_eq!(after["name"], "café");
    assert!(after.get("env").is_none(), "{after:#}");
}

#[test]
fn gemini_install_and_doctor_say_its_hook_costs_more_than_the_time_budget() {
    // Gemini CLI starts each hook as a new process copied from its own: the time that adds
    // per command is over tokenjuice's budget, and the user is told so where they decide
    let w = World::new();
    let out = install(&w, "gemini-cli");
    assert!(out.status.success(), "{}", stderr(&out));
    let (report, _) = doctor_of(&w, "gemini-cli");
    for text in [stdout(&out), report] {
        assert!(
            text.contains("~6–7.5 ms longer") && text.contains("over tokenjuice's 5 ms budget"),
            "{text}"
        );
    }
}

#[test]
fn comments_are_kept_where_the_host_reads_them_and_refused_where_it_does_not() {
    // Gemini CLI reads its settings with `//` and `/* */` comments allowed
    let original = "{\n  // my theme\n  \"theme\": \"Dracula\",\n  /* commands that run unasked */\n  \"tools\": {\"allowed\": [\"run_shell_command(ls)\"]} // keep\n}\n";
    let w = World::new();
    let p = w.home.join(".gemini/settings.json");
    w.write(&p, original);
    let out = install(&w, "gemini-cli");
    assert!(out.status.success(), "{}", stderr(&out));
    let installed = w.read(&p);
    for c in ["// my theme", "/* commands that run unasked */", "// keep"] {
        assert!(installed.contains(c), "{c}: {installed}");
    }
    assert!(
        installed.contains("gemini-cli-post-tool-use"),
        "{installed}"
    );
    let (report, code) = doctor_of(&w, "gemini-cli");
    assert_eq!(code, Some(0), "{report}");
    let out = w.run(&["uninstall", "gemini-cli"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(w.read(&p), original, "byte for byte");
    // a file of comments alone: they stay above the entry, and come back as they were
    let w = World::new();
    let p = w.home.join(".gemini/settings.json");
    let only = "// my settings will come here\n";
    w.write(&p, only);
    assert!(install(&w, "gemini-cli").status.success());
    assert!(w.read(&p).starts_with(only), "{}", w.read(&p));
    assert!(w.run(&["uninstall", "gemini-cli"]).status.success());
    assert_eq!(w.read(&p), only);
    // Claude Code ignores a settings file with comments: refused, untouched, and the
    // message says why
    let w = World::new();
    let p = w.home.join(".claude/settings.json");
    w.write(&p, "{\n  // mine\n  \"model\": \"opus\"\n}\n");
    let out = install(&w, "claude-code");
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("settings.json:2:3: the file has comments"),
        "{err}"
    );
    assert_eq!(w.read(&p), "{\n  // mine\n  \"model\": \"opus\"\n}\n");
}
