use super::*;
use std::sync::Mutex;

fn manager() -> (tempfile::TempDir, HooksManager) {
    let t = tempfile::tempdir().unwrap();
    let m = HooksManager::new(t.path()).unwrap();
    (t, m)
}

#[test]
fn builtins_exist_disabled_with_their_types() {
    let (_t, m) = manager();
    let names: Vec<_> = m
        .hooks()
        .iter()
        .map(|h| (h.name.clone(), h.hook_type, h.enabled))
        .collect();
    assert_eq!(
        names,
        vec![
            ("lint-on-edit".to_string(), LifecycleType::PostEdit, false),
            ("format-on-edit".into(), LifecycleType::PostEdit, false),
            ("test-on-edit".into(), LifecycleType::PostEdit, false),
            ("pre-commit-lint".into(), LifecycleType::PreCommit, false),
            ("pre-commit-test".into(), LifecycleType::PreCommit, false),
        ]
    );
    assert!(m.get("pre-commit-test").unwrap().fail_on_error);
    assert!(m
        .format_status()
        .contains("[Disabled] lint-on-edit [built-in]"));
}

#[test]
fn enabling_a_builtin_is_persisted() {
    let (t, mut m) = manager();
    m.set_enabled("format-on-edit", true).unwrap();
    let again = HooksManager::new(t.path()).unwrap();
    assert!(again.get("format-on-edit").unwrap().enabled);
    assert!(!again.get("lint-on-edit").unwrap().enabled);
    assert!(matches!(
        m.set_enabled("nope", true),
        Err(LifecycleError::Unknown(_))
    ));
}

#[test]
fn user_hooks_round_trip_and_a_broken_config_is_refused() {
    let (t, mut m) = manager();
    let mut h = LifecycleHook::command("mine", LifecycleType::PreBash, "echo hi");
    h.command_patterns = vec!["git push".into()];
    m.register(h).unwrap();
    m.save().unwrap();
    let again = HooksManager::new(t.path()).unwrap();
    assert_eq!(again.get("mine").unwrap().command_patterns, ["git push"]);
    std::fs::write(m.config_path(), "{oops").unwrap();
    let err = HooksManager::new(t.path()).unwrap_err();
    assert!(err.to_string().contains("left untouched"), "{err}");
    assert_eq!(std::fs::read_to_string(m.config_path()).unwrap(), "{oops");
}

#[test]
fn runs_in_registration_order_with_events_and_skips_disabled() {
    let (_t, mut m) = manager();
    let events = Arc::new(Mutex::new(Vec::new()));
    let ev = events.clone();
    m.on_event(move |e| ev.lock().unwrap().push(e.clone()));
    m.register(LifecycleHook::command(
        "first",
        LifecycleType::PostBash,
        "echo one",
    ))
    .unwrap();
    m.register(LifecycleHook {
        enabled: false,
        ..LifecycleHook::command("off", LifecycleType::PostBash, "echo off")
    })
    .unwrap();
    m.register(LifecycleHook::handler(
        "second",
        LifecycleType::PostBash,
        |ctx| HandlerResult {
            success: true,
            output: ctx.command.clone(),
            ..Default::default()
        },
    ))
    .unwrap();
    let ctx = LifecycleContext {
        command: Some("ls".into()),
        ..Default::default()
    };
    let r = m.execute(LifecycleType::PostBash, &ctx);
    let got: Vec<_> = r
        .iter()
        .map(|x| (x.name.as_str(), x.success, x.output.trim()))
        .collect();
    assert_eq!(got, [("first", true, "one"), ("second", true, "ls")]);
    let ev = events.lock().unwrap();
    assert!(ev.contains(&LifecycleEvent::Executing {
        name: "first".into()
    }));
    assert!(ev.contains(&LifecycleEvent::Executed {
        name: "second".into(),
        success: true
    }));
    assert!(!ev
        .iter()
        .any(|e| matches!(e, LifecycleEvent::Executing { name } if name == "off")));
}

#[test]
fn fail_on_error_stops_the_chain_and_abort_too() {
    let (_t, mut m) = manager();
    m.register(LifecycleHook {
        fail_on_error: true,
        ..LifecycleHook::command(
            "lint",
            LifecycleType::PreCommit,
            "echo 'lint failed' >&2; exit 1",
        )
    })
    .unwrap();
    m.register(LifecycleHook::command(
        "after",
        LifecycleType::PreCommit,
        "echo after",
    ))
    .unwrap();
    let r = m.execute(LifecycleType::PreCommit, &LifecycleContext::default());
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].error.as_deref(), Some("lint failed"));
    // without failOnError the chain goes on
    m.register(LifecycleHook::command(
        "lint",
        LifecycleType::PreCommit,
        "exit 1",
    ))
    .unwrap();
    assert_eq!(
        m.execute(LifecycleType::PreCommit, &LifecycleContext::default())
            .len(),
        2
    );
    m.register(LifecycleHook::handler(
        "lint",
        LifecycleType::PreCommit,
        |_| HandlerResult {
            success: true,
            abort: true,
            ..Default::default()
        },
    ))
    .unwrap();
    let r = m.execute(LifecycleType::PreCommit, &LifecycleContext::default());
    assert_eq!(r.len(), 1);
    assert!(r[0].aborted);
}

#[test]
fn file_patterns_are_real_globs() {
    let (t, mut m) = manager();
    let mut h = LifecycleHook::command("ts", LifecycleType::PostEdit, "echo ts");
    h.file_patterns = vec!["*.{ts,tsx}".into(), "scripts/**/*.sh".into()];
    m.register(h).unwrap();
    let run = |f: &str| {
        let ctx = LifecycleContext {
            file: Some(t.path().join(f)),
            ..Default::default()
        };
        m.execute(LifecycleType::PostEdit, &ctx).len()
    };
    assert_eq!(run("src/deep/app.tsx"), 1);
    assert_eq!(run("a.ts"), 1);
    assert_eq!(run("scripts/ci/build.sh"), 1);
    assert_eq!(run("other/build.sh"), 0);
    assert_eq!(run("a.ts.bak"), 0);
    assert_eq!(
        m.execute(LifecycleType::PostEdit, &LifecycleContext::default())
            .len(),
        0,
        "no file: skipped"
    );
    let mut bad = LifecycleHook::command("bad", LifecycleType::PostEdit, "x");
    bad.file_patterns = vec!["a[".into()];
    assert!(matches!(
        m.register(bad),
        Err(LifecycleError::BadPattern { .. })
    ));
}

#[test]
fn command_patterns_match_commands_not_substrings() {
    assert!(command_matches("git commit -m x", "git commit"));
    assert!(command_matches("cd repo && git commit -m x", "git commit"));
    assert!(command_matches("make; git   commit", "git commit"));
    assert!(!command_matches("echo git commit", "git commit"));
    assert!(!command_matches("git commitx", "git commit"));
    assert!(!command_matches("anything", "   "));
}

#[test]
fn file_names_cannot_inject_shell_code() {
    let (t, mut m) = manager();
    let pwned = t.path().join("pwned");
    let mut h = LifecycleHook::command(
        "echo-file",
        LifecycleType::PostEdit,
        "printf '%s' ${file} > out.txt",
    );
    h.file_patterns = vec!["*".into()];
    m.register(h).unwrap();
    let evil = format!("a; touch {} #.ts", pwned.display());
    let ctx = LifecycleContext {
        file: Some(PathBuf::from(&evil)),
        ..Default::default()
    };
    let r = m.execute(LifecycleType::PostEdit, &ctx);
    assert!(r[0].success, "{r:?}");
    assert!(!pwned.exists(), "the file name was executed as shell code");
    assert_eq!(
        std::fs::read_to_string(t.path().join("out.txt")).unwrap(),
        evil
    );
}

#[test]
fn timeouts_and_context_on_stdin() {
    let (_t, mut m) = manager();
    m.register(LifecycleHook {
        timeout_ms: 200,
        ..LifecycleHook::command("slow", LifecycleType::OnError, "sleep 5")
    })
    .unwrap();
    m.register(LifecycleHook::command("ctx", LifecycleType::OnError, "cat"))
        .unwrap();
    let ctx = LifecycleContext {
        error: Some("boom".into()),
        ..Default::default()
    };
    let start = Instant::now();
    let r = m.execute(LifecycleType::OnError, &ctx);
    assert!(start.elapsed() < Duration::from_secs(3));
    assert!(r[0].timed_out && !r[0].success);
    let v: Value = serde_json::from_str(&r[1].output).unwrap();
    assert_eq!(v["error"], "boom");
    assert_eq!(v["type"], "on-error");
}
