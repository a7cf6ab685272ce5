use super::*;
use crate::engine::codex_trust::{identity, trust_records_toml};
use std::fs;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn cb_settings(home: &Path, project: &Path) -> HookSettings {
    HookSettings::load(Host::CodeBuddy, project, &HostEnv::with_home(home))
}

#[test]
fn user_then_project_with_provenance() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let proj = t.path().join("proj");
    write(
        &home.join(".codebuddy/settings.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"execute_command","hooks":[{"type":"command","command":"user.sh","timeout":10}]}]}}"#,
    );
    write(
        &proj.join(".codebuddy/settings.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"write_to_file|replace_in_file","hooks":[{"type":"command","command":"proj-a.sh"},{"type":"command","command":"proj-b.sh","timeout":20}]}],"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"init.py","timeout":30}]}]}}"#,
    );
    let s = cb_settings(&home, &proj);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    let cmds: Vec<_> = s
        .hooks
        .iter()
        .map(|h| h.handler.kind.text().to_string())
        .collect();
    assert_eq!(cmds, ["user.sh", "proj-a.sh", "proj-b.sh", "init.py"]);
    assert_eq!(s.hooks[0].provenance.scope, Scope::User);
    assert_eq!(s.hooks[0].provenance.entry, "hooks.PreToolUse[0].hooks[0]");
    assert_eq!(
        s.hooks[2].provenance.path,
        proj.join(".codebuddy/settings.json")
    );
    assert_eq!(s.hooks[2].provenance.entry, "hooks.PreToolUse[0].hooks[1]");
    assert_eq!(
        s.hooks[0].handler.timeout,
        Some(std::time::Duration::from_secs(10))
    );
    assert_eq!(s.hooks[1].handler.timeout, None);
    assert_eq!(s.hooks[1].group, s.hooks[2].group);
    assert_ne!(s.hooks[0].group, s.hooks[1].group);
    assert_eq!(s.for_event(EventKind::SessionStart).count(), 1);
    assert_eq!(
        s.files.iter().map(|f| f.status.clone()).collect::<Vec<_>>(),
        vec![
            FileStatus::Loaded { hooks: 1 },
            FileStatus::Loaded { hooks: 3 }
        ]
    );
}

#[test]
fn broken_json_reports_line_and_column_and_others_still_load() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let proj = t.path().join("proj");
    write(
        &home.join(".codebuddy/settings.json"),
        "{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n",
    );
    write(
        &proj.join(".codebuddy/settings.json"),
        r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"ok.sh"}]}]}}"#,
    );
    let s = cb_settings(&home, &proj);
    assert_eq!(s.hooks.len(), 1);
    assert_eq!(s.files[0].status, FileStatus::Broken);
    let d = &s.diagnostics[0];
    assert_eq!(d.severity, Severity::Error);
    assert_eq!((d.line, d.column), (Some(3), Some(14)));
    let text = d.to_string();
    assert!(
        text.starts_with(&format!(
            "{}:3:14: error: invalid JSON",
            home.join(".codebuddy/settings.json").display()
        )),
        "{text}"
    );
}

#[test]
fn invalid_regex_names_file_and_entry_and_skips_only_that_group() {
    let t = tempfile::tempdir().unwrap();
    let proj = t.path().join("proj");
    write(
        &proj.join(".codebuddy/settings.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"read([","hooks":[{"type":"command","command":"bad.sh"}]},{"matcher":"read.*","hooks":[{"type":"command","command":"good.sh"}]}]}}"#,
    );
    let s = cb_settings(&t.path().join("home"), &proj);
    assert_eq!(s.hooks.len(), 1);
    assert_eq!(s.hooks[0].handler.kind.text(), "good.sh");
    let d = &s.diagnostics[0];
    assert_eq!(d.entry.as_deref(), Some("hooks.PreToolUse[0].matcher"));
    assert!(d.message.contains("read(["), "{}", d.message);
    assert!(s.has_errors());
}

#[test]
fn shape_errors_unknown_events_and_ignored_matchers() {
    let t = tempfile::tempdir().unwrap();
    let proj = t.path().join("proj");
    write(
        &proj.join(".codebuddy/settings.json"),
        r#"{"model":"x","hooks":{
            "BeforeTool":[{"hooks":[{"type":"command","command":"x"}]}],
            "PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command"},{"type":"http","url":"u"},{"type":"command","command":"t.sh","timeout":"5"}]}],
            "UserPromptSubmit":[{"matcher":"foo","hooks":[{"command":"u.sh"}]}],
            "Stop":{"hooks":[]}
        }}"#,
    );
    let s = cb_settings(&t.path().join("home"), &proj);
    let msgs: Vec<String> = s.diagnostics.iter().map(|d| d.to_string()).collect();
    let all = msgs.join("\n");
    assert!(all.contains("unknown event `BeforeTool`"), "{all}");
    assert!(
        all.contains("hooks.PreToolUse[0].hooks[0]: missing `command`"),
        "{all}"
    );
    assert!(
        all.contains("handler type `http` is not supported"),
        "{all}"
    );
    assert!(
        all.contains("hooks.PreToolUse[0].hooks[2].timeout: timeout must be a number"),
        "{all}"
    );
    assert!(
        all.contains("UserPromptSubmit has no matcher; `foo` is ignored"),
        "{all}"
    );
    assert!(all.contains("missing `type`"), "{all}");
    assert!(all.contains("hooks.Stop: must be a list"), "{all}");
    let cmds: Vec<_> = s.hooks.iter().map(|h| h.handler.kind.text()).collect();
    assert_eq!(cmds, ["t.sh", "u.sh"]);
    assert!(matches!(s.hooks[1].matcher, Matcher::All));
}

#[test]
fn claude_reads_three_scopes_and_config_dir() {
    let t = tempfile::tempdir().unwrap();
    let cfg = t.path().join("cfg");
    let proj = t.path().join("proj");
    write(
        &cfg.join("settings.json"),
        r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"u"}]}]}}"#,
    );
    write(
        &proj.join(".claude/settings.json"),
        r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"p"}]}]}}"#,
    );
    write(
        &proj.join(".claude/settings.local.json"),
        r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"l"}]}]}}"#,
    );
    let env =
        HostEnv::with_home(t.path().join("home")).set("CLAUDE_CONFIG_DIR", cfg.to_str().unwrap());
    let s = HookSettings::load(Host::Claude, &proj, &env);
    let got: Vec<_> = s
        .hooks
        .iter()
        .map(|h| (h.handler.kind.text().to_string(), h.provenance.scope))
        .collect();
    assert_eq!(
        got,
        vec![
            ("u".into(), Scope::User),
            ("p".into(), Scope::Project),
            ("l".into(), Scope::Local)
        ]
    );
}

#[test]
fn cursor_flat_shape_version_and_fail_closed() {
    let t = tempfile::tempdir().unwrap();
    let proj = t.path().join("proj");
    write(
        &proj.join(".cursor/hooks.json"),
        r#"{"version":1,"hooks":{"preToolUse":[{"command":"a.sh","matcher":"Shell","timeout":5,"failClosed":true},{"command":"b.sh"}],"beforeShellExecution":[{"command":"c.sh","matcher":"git push"}]}}"#,
    );
    let s = HookSettings::load(Host::Cursor, &proj, &HostEnv::with_home(t.path().join("h")));
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(s.hooks.len(), 3);
    assert!(s.hooks[0].handler.fail_closed);
    assert!(!s.hooks[1].handler.fail_closed);
    assert_ne!(s.hooks[0].group, s.hooks[1].group);
    assert_eq!(s.hooks[2].event, EventKind::PreBash);
    // a missing version refuses the file
    write(
        &proj.join(".cursor/hooks.json"),
        r#"{"hooks":{"preToolUse":[{"command":"a.sh"}]}}"#,
    );
    let s = HookSettings::load(Host::Cursor, &proj, &HostEnv::with_home(t.path().join("h")));
    assert!(s.hooks.is_empty());
    assert!(
        s.diagnostics[0].to_string().contains("version"),
        "{}",
        s.diagnostics[0]
    );
}

#[test]
fn codex_reads_json_and_toml_layers() {
    let t = tempfile::tempdir().unwrap();
    let ch = t.path().join("codexhome");
    let proj = t.path().join("proj");
    let json_hooks = serde_json::json!({"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"j.sh"}]}]});
    write(
        &ch.join("hooks.json"),
        &serde_json::json!({ "hooks": json_hooks }).to_string(),
    );
    let toml_text = "model = \"x\"\n\n[[hooks.PreToolUse]]\nmatcher = \"^Bash$\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"t.sh\"\ntimeout = 30\n";
    let toml_hooks = toml::from_str::<serde_json::Value>(toml_text).unwrap()["hooks"].clone();
    // both trusted, as Codex runs only trusted hooks
    write(
        &ch.join("config.toml"),
        &format!(
            "{toml_text}{}{}",
            trust_records_toml(&ch.join("hooks.json"), &json_hooks),
            trust_records_toml(&ch.join("config.toml"), &toml_hooks)
        ),
    );
    write(&proj.join(".codex/config.toml"), "[[hooks.Stop]\nbroken");
    let env = HostEnv::with_home(t.path().join("h")).set("CODEX_HOME", ch.to_str().unwrap());
    let s = HookSettings::load(Host::Codex, &proj, &env);
    let cmds: Vec<_> = s.hooks.iter().map(|h| h.handler.kind.text()).collect();
    assert_eq!(cmds, ["j.sh", "t.sh"]);
    assert_eq!(
        s.hooks[1].handler.timeout,
        Some(std::time::Duration::from_secs(30))
    );
    let d = s
        .diagnostics
        .iter()
        .find(|d| d.path.ends_with("proj/.codex/config.toml"))
        .unwrap();
    assert_eq!(d.line, Some(1));
    assert!(d.message.contains("invalid TOML"), "{d}");
}

#[test]
fn gemini_sequential_groups_and_millisecond_timeouts() {
    let t = tempfile::tempdir().unwrap();
    let proj = t.path().join("proj");
    write(
        &proj.join(".gemini/settings.json"),
        r#"{"hooks":{"BeforeTool":[{"matcher":"run_shell_command","sequential":true,"hooks":[{"type":"command","command":"a","timeout":1500},{"type":"command","command":"b"}]}]}}"#,
    );
    let env = HostEnv::with_home(t.path().join("h")).set("GEMINI_CLI_TRUST_WORKSPACE", "true");
    let s = HookSettings::load(Host::Gemini, &proj, &env);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert!(s.hooks.iter().all(|h| h.sequential));
    assert_eq!(
        s.hooks[0].handler.timeout,
        Some(std::time::Duration::from_millis(1500))
    );
    assert_eq!(s.hooks[0].event, EventKind::PreToolUse);
    // `sequential` elsewhere is only a warning
    write(
        &proj.join(".codebuddy/settings.json"),
        r#"{"hooks":{"Stop":[{"sequential":true,"hooks":[{"type":"command","command":"a"}]}]}}"#,
    );
    let s = cb_settings(&t.path().join("h"), &proj);
    assert!(!s.hooks[0].sequential);
    assert_eq!(s.diagnostics[0].severity, Severity::Warning);
}

#[test]
fn unreadable_and_non_object_files_are_broken_not_fatal() {
    let t = tempfile::tempdir().unwrap();
    let proj = t.path().join("proj");
    write(&proj.join(".codebuddy/settings.json"), "[1,2]");
    let s = cb_settings(&t.path().join("h"), &proj);
    assert_eq!(s.files[1].status, FileStatus::Broken);
    assert!(s.diagnostics[0]
        .message
        .contains("top level must be an object"));
    // a directory where the file should be
    fs::remove_file(proj.join(".codebuddy/settings.json")).unwrap();
    fs::create_dir_all(proj.join(".codebuddy/settings.json")).unwrap();
    let s = cb_settings(&t.path().join("h"), &proj);
    assert_eq!(s.files[1].status, FileStatus::Broken);
}

#[test]
fn a_matcher_that_is_not_a_string_skips_only_its_entry_in_both_shapes() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let proj = t.path().join("proj");
    // groups (CodeBuddy): the bad group goes, the good one stays
    write(
        &proj.join(".codebuddy/settings.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":5,"hooks":[{"type":"command","command":"bad.sh"}]},{"matcher":"Bash","hooks":[{"type":"command","command":"good.sh"}]}]}}"#,
    );
    let s = cb_settings(&home, &proj);
    let cmds: Vec<_> = s.hooks.iter().map(|h| h.handler.kind.text()).collect();
    assert_eq!(cmds, ["good.sh"]);
    assert_eq!(s.diagnostics.len(), 1, "{:?}", s.diagnostics);
    assert_eq!(
        s.diagnostics[0].entry.as_deref(),
        Some("hooks.PreToolUse[0].matcher")
    );
    assert!(s.diagnostics[0].message.contains("must be a string"));
    // flat entries (Cursor): the same rule
    write(
        &home.join(".cursor/hooks.json"),
        r#"{"version":1,"hooks":{"preToolUse":[{"command":"bad.sh","matcher":["Shell"]},{"command":"good.sh","matcher":"Shell"}]}}"#,
    );
    let s = HookSettings::load(Host::Cursor, &proj, &HostEnv::with_home(&home));
    let cmds: Vec<_> = s.hooks.iter().map(|h| h.handler.kind.text()).collect();
    assert_eq!(cmds, ["good.sh"], "{:?}", s.diagnostics);
    assert!(s.diagnostics.iter().any(|d| d.entry.as_deref()
        == Some("hooks.preToolUse[0].matcher")
        && d.message.contains("must be a string")));
}

#[test]
fn codex_hook_state_records_in_config_toml_are_not_events() {
    // Codex writes `[hooks.state."<key>"]` (enabled, trusted_hash) beside the events in
    // config.toml (openai/codex codex-rs/config/src/hook_config.rs, `HooksToml.state`)
    let t = tempfile::tempdir().unwrap();
    let ch = t.path().join("codexhome");
    let text = "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"s.sh\"\n\n[hooks.state.\"/c/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:00\"\n";
    let hooks = toml::from_str::<serde_json::Value>(text).unwrap()["hooks"].clone();
    write(
        &ch.join("config.toml"),
        &format!(
            "{text}{}",
            trust_records_toml(&ch.join("config.toml"), &hooks)
        ),
    );
    let env = HostEnv::with_home(t.path().join("h")).set("CODEX_HOME", ch.to_str().unwrap());
    let s = HookSettings::load(Host::Codex, &t.path().join("proj"), &env);
    let cmds: Vec<_> = s.hooks.iter().map(|h| h.handler.kind.text()).collect();
    assert_eq!(cmds, ["s.sh"]);
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
}

#[test]
fn codex_runs_only_the_hooks_the_user_trusted_as_they_are_now() {
    // Codex 0.169 skips a hook without a trust record in the user's config.toml, one changed
    // since it was trusted, and one turned off there (openai/codex
    // codex-rs/hooks/src/engine/discovery.rs; crates/e2e/tests/hooks_differential_codex.rs)
    let t = tempfile::tempdir().unwrap();
    let ch = t.path().join("codexhome");
    let hooks_json = ch.join("hooks.json");
    let hooks = serde_json::json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "trusted.sh"},
        {"type": "command", "command": "changed.sh"},
        {"type": "command", "command": "off.sh"},
        {"type": "command", "command": "new.sh"}
    ]}]});
    write(
        &hooks_json,
        &serde_json::json!({ "hooks": hooks }).to_string(),
    );
    // the records Codex writes when the user trusts the first three: the third turned off
    let record = |i: usize, extra: &str| {
        let h = hooks["PreToolUse"][0]["hooks"][i].as_object().unwrap();
        let id = identity(&hooks_json, "PreToolUse", 0, i, Some("Bash"), h);
        format!(
            "[hooks.state.{}]\ntrusted_hash = {}\n{extra}\n",
            serde_json::Value::from(id.key),
            serde_json::Value::from(id.hash.unwrap())
        )
    };
    write(
        &ch.join("config.toml"),
        &[record(0, ""), record(1, ""), record(2, "enabled = false")].concat(),
    );
    // then the second changes
    let mut changed = hooks.clone();
    changed["PreToolUse"][0]["hooks"][1]["command"] = "changed.sh --now".into();
    write(
        &hooks_json,
        &serde_json::json!({ "hooks": changed }).to_string(),
    );
    let env = HostEnv::with_home(t.path().join("h")).set("CODEX_HOME", ch.to_str().unwrap());
    let s = HookSettings::load(Host::Codex, &t.path().join("proj"), &env);
    let cmds: Vec<_> = s.hooks.iter().map(|h| h.handler.kind.text()).collect();
    assert_eq!(cmds, ["trusted.sh"]);
    let said = |entry: &str| {
        s.diagnostics
            .iter()
            .find(|d| d.entry.as_deref() == Some(entry))
            .map(|d| d.message.clone())
            .unwrap_or_default()
    };
    assert!(
        said("hooks.PreToolUse[0].hooks[1]").contains("changed since it was trusted"),
        "{:?}",
        s.diagnostics
    );
    assert!(
        said("hooks.PreToolUse[0].hooks[2]").contains("enabled = false"),
        "{:?}",
        s.diagnostics
    );
    assert!(
        said("hooks.PreToolUse[0].hooks[3]").contains("not trusted"),
        "{:?}",
        s.diagnostics
    );
    assert_eq!(
        s.files
            .iter()
            .find(|f| f.path == hooks_json)
            .map(|f| f.status.clone()),
        Some(FileStatus::Loaded { hooks: 1 })
    );
}

#[test]
fn codex_runs_a_projects_hooks_only_when_the_user_trusts_the_project() {
    // Codex 0.171 loads a project's .codex folder only when the user's config.toml marks the
    // project trusted: by the folder, its project root (`.git`) or its repository's main
    // checkout (openai/codex codex-rs/core/src/config_loader;
    // crates/e2e/tests/hooks_differential_codex.rs)
    let t = tempfile::tempdir().unwrap();
    let ch = t.path().join("codexhome");
    let hooks = serde_json::json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "project.sh"}]}]});
    let load = |proj: &Path, projects: &str| {
        let file = proj.join(".codex/hooks.json");
        write(&file, &serde_json::json!({ "hooks": hooks }).to_string());
        write(
            &ch.join("config.toml"),
            &format!("{projects}\n{}", trust_records_toml(&file, &hooks)),
        );
        let env = HostEnv::with_home(t.path().join("h")).set("CODEX_HOME", ch.to_str().unwrap());
        HookSettings::load(Host::Codex, proj, &env)
    };
    let entry = |dir: &Path, level: &str| {
        format!(
            "[projects.{}]\ntrust_level = \"{level}\"\n",
            serde_json::Value::from(dir.display().to_string())
        )
    };
    let ran = |s: &HookSettings| -> Vec<String> {
        s.hooks
            .iter()
            .map(|h| h.handler.kind.text().to_string())
            .collect()
    };

    let proj = t.path().join("proj");
    let s = load(&proj, "");
    assert!(ran(&s).is_empty());
    let warned = s
        .diagnostics
        .iter()
        .find(|d| d.path.ends_with("proj/.codex/hooks.json"));
    assert!(
        warned.is_some_and(|d| d.message.contains("is not a trusted project")),
        "{:?}",
        s.diagnostics
    );
    assert_eq!(
        s.files
            .iter()
            .find(|f| f.path.ends_with("proj/.codex/hooks.json"))
            .map(|f| f.status.clone()),
        Some(FileStatus::Loaded { hooks: 0 })
    );
    assert_eq!(ran(&load(&proj, &entry(&proj, "trusted"))), ["project.sh"]);
    let s = load(&proj, &entry(&proj, "untrusted"));
    assert!(ran(&s).is_empty());
    assert!(
        s.diagnostics
            .iter()
            .any(|d| d.message.contains("trust_level` is not")),
        "{:?}",
        s.diagnostics
    );

    // a folder inside a repository: the repository's entry decides, the folder's first
    let repo = t.path().join("repo");
    fs::create_dir_all(repo.join(".git")).unwrap();
    let sub = repo.join("sub");
    assert_eq!(ran(&load(&sub, &entry(&repo, "trusted"))), ["project.sh"]);
    let both = format!("{}{}", entry(&sub, "untrusted"), entry(&repo, "trusted"));
    assert!(ran(&load(&sub, &both)).is_empty());

    // a linked worktree is trusted by its main checkout
    let wt = t.path().join("wt");
    fs::create_dir_all(repo.join(".git/worktrees/wt")).unwrap();
    write(
        &wt.join(".git"),
        &format!("gitdir: {}\n", repo.join(".git/worktrees/wt").display()),
    );
    assert_eq!(ran(&load(&wt, &entry(&repo, "trusted"))), ["project.sh"]);
    assert!(ran(&load(&wt, "")).is_empty());
}
