//! Measures what the engine adds to running a hook: `sh -c true` spawned directly with
//! std::process versus the same command through `run_handler` (new session, stdin payload,
//! poll loop, output capture, parsing) and through `Engine::run` with three hooks.
//!
//! `cargo run -p tokenjuice-hooks --example hook_overhead [iterations]`

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use tokenjuice_hooks::dialects::{ConfigFile, FileShape};
use tokenjuice_hooks::{
    build_payload, run_handler, Engine, EngineOptions, EventKind, EventRequest, Handler,
    HookSettings, Host, HostEnv, Scope,
};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let dir = std::env::temp_dir();
    let dialect = Host::CodeBuddy.dialect();
    let req = EventRequest {
        cwd: dir.clone(),
        tool_input: Some(json!({"command": "ls"})),
        ..Default::default()
    };
    let payload = match build_payload(dialect, EventKind::PreToolUse, &req) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return;
        }
    };

    let mut direct = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        let _ = Command::new("/bin/sh")
            .args(["-c", "true"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .output();
        direct.push(t.elapsed());
    }
    let handler = Handler::command("true");
    let opts = EngineOptions::default();
    let mut engine_one = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        let _ = run_handler(
            dialect,
            EventKind::PreToolUse,
            &handler,
            &payload,
            &dir,
            &opts,
        );
        engine_one.push(t.elapsed());
    }
    let settings = json!({"hooks": {"PreToolUse": [
        {"matcher": "execute_command", "hooks": [{"type": "command", "command": "true"}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo '{\"continue\": true}'"}]},
        {"matcher": ".*", "hooks": [{"type": "command", "command": "cat >/dev/null"}]}
    ]}});
    let file = ConfigFile {
        path: dir.join("bench-settings.json"),
        scope: Scope::Project,
        shape: FileShape::MatcherGroupsJson,
    };
    let engine = Engine::new(
        HookSettings::parse_text(dialect, &settings.to_string(), &file),
        &dir,
        HostEnv::default(),
    );
    let mut engine_three = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        let o = engine.run(EventKind::PreToolUse, &payload);
        assert_eq!(o.hooks.len(), 3);
        engine_three.push(t.elapsed());
    }
    let (d, o, th) = (median(direct), median(engine_one), median(engine_three));
    println!("iterations: {n}");
    println!(
        "sh -c true via std::process (median):        {:>8.3} ms",
        d.as_secs_f64() * 1e3
    );
    println!(
        "same hook via run_handler (median):          {:>8.3} ms",
        o.as_secs_f64() * 1e3
    );
    println!(
        "engine overhead per hook (median diff):      {:>8.3} ms",
        (o.as_secs_f64() - d.as_secs_f64()) * 1e3
    );
    println!(
        "Engine::run, 3 matching hooks in parallel:   {:>8.3} ms",
        th.as_secs_f64() * 1e3
    );
}
