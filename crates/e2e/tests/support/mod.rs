//! Shared parts of the end-to-end tests: finding the pinned agents, the tokenjuice binary,
//! a project fixture, running a session in a loopback-only network namespace, and the checks
//! that compare a run with tokenjuice against the same run without it.

#![allow(dead_code)]

pub mod drive;
pub mod scenarios;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
pub use tokenjuice_e2e::session::{Outcome, Spec};
pub use tokenjuice_e2e::wire::{ToolResult, Wire};

/// One line of `e2e/agents.lock`.
#[derive(Debug, Clone)]
pub struct Agent {
    pub host: String,
    pub package: String,
    pub version: String,
    pub dir: PathBuf,
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn cache_dir() -> PathBuf {
    match std::env::var_os("TOKENJUICE_E2E_CACHE") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
            .join(".cache/tokenjuice-e2e"),
    }
}

/// The pinned agent for `host`, installed; otherwise the reason it is not.
pub fn agent(host: &str) -> Result<Agent, String> {
    let lock = std::fs::read_to_string(repo_root().join("e2e/agents.lock"))
        .map_err(|e| format!("e2e/agents.lock: {e}"))?;
    let line = lock
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.first() == Some(&host))
        .ok_or_else(|| format!("{host} is not in e2e/agents.lock"))?;
    let dir = cache_dir().join(format!("{}-{}", line[0], line[2]));
    if !dir.join(".ok").exists() {
        return Err(format!(
            "{host} {} is not installed in {} (run e2e/install-agents {host})",
            line[2],
            cache_dir().display()
        ));
    }
    Ok(Agent {
        host: host.into(),
        package: line[1].into(),
        version: line[2].into(),
        dir,
    })
}

/// The agent, or the test's end: a missing agent fails unless `TOKENJUICE_E2E=skip`, and a
/// skip says so on stderr. Never a silent pass.
pub fn agent_or_skip(host: &str) -> Option<Agent> {
    match agent(host) {
        Ok(a) => Some(a),
        Err(why) => {
            if std::env::var("TOKENJUICE_E2E").as_deref() == Ok("skip") {
                eprintln!("SKIPPED e2e {host}: {why}");
                None
            } else {
                panic!("e2e {host}: {why}; set TOKENJUICE_E2E=skip to skip the real-agent tests");
            }
        }
    }
}

/// The tokenjuice binary of this build (`TOKENJUICE_E2E_BIN` overrides it, e.g. to measure
/// a release build's latency in the host).
pub fn tokenjuice() -> PathBuf {
    if let Some(p) = std::env::var_os("TOKENJUICE_E2E_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    let bin = dir.join("tokenjuice");
    assert!(
        bin.is_file(),
        "{} is missing: build it first (cargo build -p tokenjuice)",
        bin.display()
    );
    bin
}

pub fn tj_e2e() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tj-e2e"))
}

/// Whether sessions can run in a network namespace that has only loopback.
pub fn netns_available() -> bool {
    static CHECK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CHECK.get_or_init(|| {
        std::env::var("TOKENJUICE_E2E_NETNS").as_deref() != Ok("0")
            && Command::new("unshare")
                .args(["-n", "sh", "-c", "ip link set lo up"])
                .status()
                .is_ok_and(|s| s.success())
    })
}

/// Run one session through `tj-e2e`, inside `unshare -n` when possible.
pub fn run(spec: &Spec, work: &Path) -> Outcome {
    let spec_path = work.join(format!("spec-{}.json", unique()));
    let out_path = spec_path.with_extension("out.json");
    std::fs::write(&spec_path, spec.to_json().to_string()).unwrap();
    let mut cmd = if netns_available() {
        let mut c = Command::new("unshare");
        c.args(["-n", "sh", "-c", "ip link set lo up && exec \"$@\"", "sh"]);
        c.arg(tj_e2e());
        c
    } else {
        eprintln!("note: no network namespace here (unshare -n failed); the agent runs on the host network");
        Command::new(tj_e2e())
    };
    let status = cmd
        .arg("run")
        .arg(&spec_path)
        .arg(&out_path)
        .status()
        .expect("start tj-e2e");
    assert!(
        status.success(),
        "tj-e2e failed for {}",
        spec_path.display()
    );
    let text = std::fs::read_to_string(&out_path).unwrap();
    // TOKENJUICE_E2E_KEEP=<dir>: keep every session's record (requests, results) to look at
    if let Some(keep) = std::env::var_os("TOKENJUICE_E2E_KEEP") {
        let _ = std::fs::create_dir_all(&keep);
        let _ = std::fs::copy(
            &out_path,
            Path::new(&keep).join(out_path.file_name().unwrap()),
        );
    }
    Outcome::from_json(&serde_json::from_str::<Value>(&text).unwrap())
}

fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// A retry loop that logs each failed attempt with its traceback (all on stderr, so the
/// order is the same under every host): a block of lines that comes again, with a request
/// id per attempt.
const RETRY_PY: &str = r#"import socket, sys, traceback

def say(text):
    print(text, file=sys.stderr, flush=True)

ids = ["3f9c2a71", "8b1d4e06", "c27a9f53", "5e0b8d14", "a94c7e28", "1d6f3b90"]
for n, rid in enumerate(ids, 1):
    say(f"attempt {n} of 6: request {rid} to 127.0.0.1:9")
    try:
        socket.create_connection(("127.0.0.1", 9), timeout=1).close()
    except OSError:
        traceback.print_exc()
        say(f"retrying request {rid} in {n * 250} ms")
say("giving up after 6 attempts")
"#;

/// A project folder with what the scenarios need: a git repository of 200 commits, a folder
/// of 300 files, a Python test module with one failing test among 150, a subfolder, a victim
/// file for the deny probe.
pub fn project(at: &Path) {
    std::fs::create_dir_all(at.join("sub")).unwrap();
    std::fs::create_dir_all(at.join("assets")).unwrap();
    for i in 1..=300 {
        std::fs::write(at.join(format!("assets/img_{i:04}.png")), b"x").unwrap();
    }
    std::fs::write(at.join("victim.txt"), "keep me\n").unwrap();
    let mut tests = String::from("import unittest\n\nclass T(unittest.TestCase):\n");
    for i in 1..=150 {
        tests.push_str(&format!(
            "    def test_case_{i:03}(self):\n        self.assertEqual({i}, {i})\n"
        ));
    }
    tests.push_str("    def test_total_price(self):\n        self.assertEqual(sum([19, 23]), 43, 'total for cart 7')\n");
    std::fs::write(at.join("test_shop.py"), tests).unwrap();
    std::fs::write(at.join("retry.py"), RETRY_PY).unwrap();
    let git = |args: &[&str]| {
        let s = Command::new("git")
            .args(args)
            .current_dir(at)
            .env("GIT_AUTHOR_NAME", "Ada")
            .env("GIT_AUTHOR_EMAIL", "ada@example.com")
            .env("GIT_COMMITTER_NAME", "Ada")
            .env("GIT_COMMITTER_EMAIL", "ada@example.com")
            .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
            .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
            .output()
            .unwrap();
        assert!(
            s.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&s.stderr)
        );
    };
    git(&["init", "-q", "-b", "main"]);
    // 200 commits at once through fast-import
    let mut stream = String::new();
    for i in 1..=200 {
        let msg = format!(
            "change {i}: adjust the pricing rules for region {}\n",
            i % 7
        );
        stream.push_str(&format!(
            "commit refs/heads/main\ncommitter Ada <ada@example.com> {} +0000\ndata {}\n{msg}\n",
            1_767_225_600 + i * 60,
            msg.len()
        ));
    }
    let mut fi = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(at)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    fi.stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    assert!(fi.wait().unwrap().success());
    git(&["reset", "-q", "--hard", "main"]);
}

/// A folder holding `mytool`, a program only the agent's PATH has.
pub fn agent_tools(at: &Path) -> PathBuf {
    let dir = at.join("agent-tools");
    std::fs::create_dir_all(&dir).unwrap();
    use std::os::unix::fs::PermissionsExt;
    // `envnames`: the names of the variables a command sees, on one line, apart from the
    // setting `install` itself adds to a shell-prefix host's environment
    for (name, script) in [
        ("mytool", "#!/bin/sh\necho \"mytool says $1\"\n"),
        ("envnames", "#!/bin/sh\nenv | cut -d= -f1 | grep -v -x -e CLAUDE_CODE_SHELL_PREFIX -e CODEBUDDY_CODE_SHELL_PREFIX | sort | tr '\\n' ' '\n"),
    ] {
        let tool = dir.join(name);
        std::fs::write(&tool, script).unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

/// The o200k token estimate tokenjuice itself uses.
pub fn tokens(s: &str) -> u64 {
    tokenjuice_core::tokens::estimate(s)
}

pub fn timeout() -> Duration {
    Duration::from_secs(240)
}

/// One row of the host report (`target/e2e-report/<host>.json`), read by `tj-e2e report`.
/// Writes the host's report; the latency pair of every earlier run still in the file is kept
/// in `latency_runs` (`scripts/bench hosts` clears the folder, then runs several rounds).
pub fn write_report(host: &str, report: &Value) {
    let dir = repo_root().join("target/e2e-report");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{host}.json"));
    let mut runs: Vec<Value> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v["latency_runs"].as_array().cloned())
        .unwrap_or_default();
    let mut report = report.clone();
    if let (Some(a), Some(b)) = (
        report["latency_ms_without"].as_u64(),
        report["latency_ms_with"].as_u64(),
    ) {
        runs.push(serde_json::json!([a, b]));
    }
    report["latency_runs"] = Value::Array(runs);
    std::fs::write(path, serde_json::to_string_pretty(&report).unwrap()).unwrap();
}

/// The usual shell-tool arguments: the command, the scenario's name as the description,
/// and the scenario's extra arguments.
pub fn tool_args(s: &scenarios::Scenario) -> Value {
    let mut a = serde_json::json!({"command": s.command, "description": s.name});
    for (k, v) in s.extra.as_object().into_iter().flatten() {
        a[k] = v.clone();
    }
    a
}

/// The environment every agent gets: the temp HOME, the agent's bin folder and the
/// agent-only tools first on PATH, a dumb terminal, UTF-8, a temp folder of the session's
/// own (the agents leave files in it: Droid a `droid-terminal-*` folder per command, Gemini
/// CLI a `gemini-shell-*` one, which would pile up in the machine's `/tmp`); then the
/// agent's own variables.
pub fn agent_env(p: &drive::Paths, bin: &Path, own: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut env = vec![
        ("HOME".to_string(), p.home.display().to_string()),
        ("TMPDIR".to_string(), session_tmp(&p.work)),
        (
            "PATH".to_string(),
            format!(
                "{}:{}:/usr/local/bin:/usr/bin:/bin",
                bin.display(),
                p.tools.display()
            ),
        ),
        ("TERM".to_string(), "dumb".to_string()),
        ("LANG".to_string(), "C.UTF-8".to_string()),
        // any shell the user starts an agent from sets it (bash reads BASH_ENV for Codex's
        // commands only with it set; see docs/hosts.md)
        ("SHLVL".to_string(), "1".to_string()),
    ];
    env.extend(own.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    env
}

/// The argv prefix that runs a program in a mount namespace of its own where the file
/// `source` is bound over `target` (a password database naming another login shell, an
/// older bash as `/bin/bash`); it needs root.
pub fn with_file_bound(source: &str, target: &str) -> Vec<String> {
    vec![
        "unshare".to_string(),
        "-m".into(),
        "sh".into(),
        "-c".into(),
        format!("mount --bind \"$0\" {target} && exec \"$@\""),
        source.to_string(),
    ]
}

/// zsh's path on this machine (`.ci/run` installs zsh).
/// The bash older than 5 that `TOKENJUICE_OLD_BASH` names, for the tests `#[ignore]`d
/// until one is given (no such bash is packaged where CI runs).
pub fn old_bash() -> String {
    std::env::var("TOKENJUICE_OLD_BASH").expect("TOKENJUICE_OLD_BASH must name a bash older than 5")
}

pub fn zsh() -> Option<String> {
    ["/bin/zsh", "/usr/bin/zsh"]
        .into_iter()
        .find(|z| Path::new(z).is_file())
        .map(str::to_string)
}

/// A zsh user's `~/.zshrc` with an alias (`greet`) and a function (`tj_fn`), which the
/// agents' shell snapshots take; [`ZSHRC_PROBE`] calls both.
pub fn write_zshrc(home: &Path) {
    std::fs::write(
        home.join(".zshrc"),
        "alias greet='echo hello-from-zshrc'\ntj_fn() { print -r -- \"fn $1 in zsh $ZSH_VERSION\" }\n",
    )
    .unwrap();
}

/// The command that calls `~/.zshrc`'s alias and function.
pub const ZSHRC_PROBE: &str = "greet; tj_fn x";

/// The probe's output came from zsh with the user's `~/.zshrc`.
pub fn ran_zshrc(text: &str) -> bool {
    text.contains("hello-from-zshrc") && text.contains("fn x in zsh 5")
}

/// The session's own temp folder (`<work>/tmp`, made here), for `TMPDIR`: what an agent
/// leaves there goes with the session's folder.
pub fn session_tmp(work: &Path) -> String {
    let tmp = work.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    tmp.display().to_string()
}

/// `<agent>/node_modules/.bin/<name> --version`.
pub fn npm_bin_version(agent: &Agent, name: &str) -> Vec<String> {
    vec![
        agent
            .dir
            .join("node_modules/.bin")
            .join(name)
            .display()
            .to_string(),
        "--version".into(),
    ]
}

/// `gemini -p <prompt>` against the fake model server, in `p`'s project with `p`'s home,
/// asking before tools unless the settings allow them, calling the shell tool with `calls`.
pub fn gemini_spec(agent: &Agent, p: &drive::Paths, prompt: &str, calls: Vec<Value>) -> Spec {
    let bin = agent.dir.join("node_modules/.bin");
    Spec {
        wire: Wire::Gemini,
        tool: "run_shell_command".into(),
        calls,
        final_text: "done".into(),
        model: "gemini-2.5-pro".into(),
        argv: vec![
            bin.join("gemini").display().to_string(),
            "--skip-trust".into(),
            "--approval-mode".into(),
            "default".into(),
            "-p".into(),
            prompt.into(),
        ],
        env: agent_env(
            p,
            &bin,
            &[
                ("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:{PORT}"),
                ("GEMINI_API_KEY", "e2e-fake"),
                ("GEMINI_CLI_NO_RELAUNCH", "1"),
            ],
        ),
        cwd: p.project.clone(),
        timeout: timeout(),
        files: Vec::new(),
        stdin: None,
    }
}

/// The CodeBuddy Code CLI inside the pinned agent SDK (run it with node).
pub fn codebuddy_cli(agent: &Agent) -> PathBuf {
    agent
        .dir
        .join("node_modules/@tencent-ai/agent-sdk/cli/bin/codebuddy")
}

/// What CodeBuddy needs to talk to the fake model server (`{PORT}` is filled in).
pub const CODEBUDDY_ENV: &[(&str, &str)] = &[
    ("CODEBUDDY_BASE_URL", "http://127.0.0.1:{PORT}/v1"),
    ("CODEBUDDY_API_KEY", "e2e-fake"),
    ("CODEBUDDY_MODEL", "fake-model"),
    ("DISABLE_TELEMETRY", "1"),
    ("SHELL", "/bin/bash"),
];

/// The host and the toolkit decided alike on a hook that may stop the tool: the host ran it
/// (`ran`: its marker file exists) exactly when the toolkit does not call it blocked, and
/// when blocked, the host's tool result (`result`) and the toolkit's reason both hold
/// `blocked_because`.
pub fn assert_same_decision(
    name: &str,
    host: &str,
    ran: bool,
    result: &str,
    toolkit: &Value,
    blocked_because: Option<&str>,
) {
    assert_eq!(
        ran,
        blocked_because.is_none(),
        "{name}: did {host} run the tool? Its result: {result}"
    );
    assert_eq!(
        toolkit["blocked"],
        blocked_because.is_some(),
        "{name}: the toolkit: {toolkit}"
    );
    if let Some(reason) = blocked_because {
        assert!(result.contains(reason), "{name}: {host}'s result: {result}");
        assert!(
            toolkit["reason"]
                .as_str()
                .is_some_and(|r| r.contains(reason)),
            "{name}: the toolkit: {toolkit}"
        );
    }
}

/// `tokenjuice hooks run PreToolUse --host <host> --tool Bash` for `command`, with `hooks` as
/// the only settings of a fresh home (`<home>/<dir>/settings.json`): the JSON outcome, to hold
/// against what the real host did with the same settings.
pub fn toolkit_pre_tool_use(
    work: &Path,
    host: &str,
    dir: &str,
    hooks: Value,
    command: &str,
) -> Value {
    toolkit_run(work, host, dir, hooks, command, "PreToolUse", "Bash")
}

/// [`toolkit_pre_tool_use`] for another event (`PostToolUse`, Gemini's `BeforeTool`) and
/// the host's name of its shell tool.
pub fn toolkit_run(
    work: &Path,
    host: &str,
    dir: &str,
    hooks: Value,
    command: &str,
    event: &str,
    tool: &str,
) -> Value {
    let out = toolkit_in(work, dir, hooks)
        .args([
            "hooks", "run", event, "--host", host, "--tool", tool, "--format", "json", "--input",
        ])
        .arg(serde_json::json!({"command": command, "description": "probe"}).to_string())
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// Whether `tokenjuice hooks run <event> --host <host> --tool <tool>` for `echo ran`, run in
/// `cwd` with `home` as HOME, `vars` set and the hosts' own variables cleared, ran any hook;
/// and its JSON report.
#[allow(dead_code)]
pub fn toolkit_ran_in(
    host: &str,
    event: &str,
    tool: &str,
    home: &Path,
    cwd: &Path,
    vars: &[(&str, &str)],
) -> (bool, Value) {
    let mut c = Command::new(tokenjuice());
    c.args(["hooks", "run", event, "--host", host, "--tool", tool])
        .args(["--format", "json", "--input", r#"{"command":"echo ran"}"#])
        .env("HOME", home)
        .current_dir(cwd);
    for var in [
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_PROJECT_DIR",
        "CODEBUDDY_CONFIG_DIR",
        "CODEBUDDY_PROJECT_DIR",
        "GEMINI_CLI_HOME",
        "GEMINI_PROJECT_DIR",
        "GEMINI_CLI_TRUST_WORKSPACE",
        "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
    ] {
        c.env_remove(var);
    }
    c.envs(vars.iter().copied());
    let out = c.output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    (v["hooks"].as_array().is_some_and(|h| !h.is_empty()), v)
}

/// Runs `case` for each named case, and fails naming every case whose assertions failed
/// (each case's own message is printed as it fails).
#[allow(dead_code)]
pub fn each_case<T>(host: &str, cases: Vec<(&str, T)>, case: impl Fn(&str, T)) {
    let mut failed = Vec::new();
    for (name, c) in cases {
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| case(name, c)));
        if ok.is_err() {
            failed.push(name);
        }
    }
    assert!(
        failed.is_empty(),
        "the toolkit and {host} differ (see above): {failed:?}"
    );
}

/// A project folder `project` (made, with `git init` when `git`) whose `<dir>/<file>` holds
/// one `event` hook for `tool` that touches a marker file under `work`: the marker's path.
#[allow(dead_code)]
pub fn project_hook(
    project: &Path,
    dir: &str,
    file: &str,
    event: &str,
    tool: &str,
    git: bool,
    work: &Path,
) -> PathBuf {
    std::fs::create_dir_all(project.join(dir)).unwrap();
    if git {
        let st = Command::new("git")
            .args(["init", "-q"])
            .current_dir(project)
            .status()
            .unwrap();
        assert!(st.success());
    }
    let marker = work.join("hook-ran.txt");
    let hooks = serde_json::json!({event: [{"matcher": tool, "hooks": [{"type": "command",
        "command": format!("touch {}; cat >/dev/null", marker.display())}]}]});
    std::fs::write(
        project.join(dir).join(file),
        serde_json::json!({ "hooks": hooks }).to_string(),
    )
    .unwrap();
    marker
}

/// Hooks for `event` on `tool` that save their stdin to `<dir>/payload.json` and the names of
/// their environment to `<dir>/env.txt`.
#[allow(dead_code)]
pub fn probe_hooks(event: &str, tool: &str, dir: &Path) -> Value {
    std::fs::create_dir_all(dir).unwrap();
    serde_json::json!({event: [{"matcher": tool, "hooks": [{"type": "command", "command": format!(
        "cat > {0}/payload.json; env | cut -d= -f1 | sort > {0}/env.txt",
        dir.display()
    )}]}]})
}

/// The host's and the toolkit's probes (see [`probe_hooks`]) agree: the payload's top-level
/// fields, and each of `vars` is set for the hook by both (the host's other variables of
/// those prefixes are printed: its own process's, or the session's, not emulated).
#[allow(dead_code)]
pub fn assert_same_probe(host: &str, host_dir: &Path, toolkit_dir: &Path, vars: &[&str]) {
    let read = |d: &Path| -> (Vec<String>, Vec<String>) {
        let payload: Value = serde_json::from_str(
            &std::fs::read_to_string(d.join("payload.json")).unwrap_or_default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        let mut keys: Vec<String> = payload
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        keys.sort();
        let names = std::fs::read_to_string(d.join("env.txt"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        (keys, names)
    };
    let (host_keys, host_vars) = read(host_dir);
    eprintln!(
        "{host} payload: {}",
        std::fs::read_to_string(host_dir.join("payload.json")).unwrap_or_default()
    );
    let (tk_keys, tk_vars) = read(toolkit_dir);
    let prefixes: Vec<&str> = vars
        .iter()
        .map(|v| &v[..v.find('_').unwrap_or(v.len())])
        .collect();
    let not_emulated: Vec<&String> = host_vars
        .iter()
        .filter(|v| prefixes.iter().any(|p| v.starts_with(p)) && !tk_vars.contains(v))
        .collect();
    eprintln!(
        "{host}: payload {host_keys:?}; its variables the toolkit does not set: {not_emulated:?}"
    );
    assert_eq!(
        tk_keys, host_keys,
        "the payload's fields differ from {host}'s"
    );
    for v in vars {
        assert!(
            host_vars.iter().any(|h| h == v),
            "{host} no longer sets {v}"
        );
        assert!(
            tk_vars.iter().any(|h| h == v),
            "the toolkit does not set {v}, as {host} does"
        );
    }
}

/// Hooks for each of `events` (no matcher) that save their stdin to
/// `<dir>/<event>/payload.json` and the names of their environment to `<dir>/<event>/env.txt`
/// (see [`assert_same_probe`]).
#[allow(dead_code)]
pub fn probe_event_hooks(events: &[&str], dir: &Path) -> Value {
    let mut hooks = serde_json::Map::new();
    for event in events {
        let d = dir.join(event);
        std::fs::create_dir_all(&d).unwrap();
        hooks.insert(
            (*event).to_string(),
            serde_json::json!([{"hooks": [{"type": "command", "command": format!(
                "cat > {0}/payload.json; env | cut -d= -f1 | sort > {0}/env.txt",
                d.display()
            )}]}]),
        );
    }
    Value::Object(hooks)
}

/// `tokenjuice hooks run <event> --host <host> <args>` with `hooks` as the only settings of
/// a fresh home (`<work>/toolkit-home/<dir>/settings.json`), run in `work`.
#[allow(dead_code)]
pub fn toolkit_event(work: &Path, host: &str, dir: &str, hooks: Value, event: &str, args: &[&str]) {
    let out = toolkit_in(work, dir, hooks)
        .args(["hooks", "run", event, "--host", host, "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.code().is_some(), "{event}: {out:?}");
}

/// `tokenjuice`, run in `work` with a fresh home (`<work>/toolkit-home`) whose
/// `<dir>/settings.json` holds only `hooks`, and the hosts' own folder variables cleared.
fn toolkit_in(work: &Path, dir: &str, hooks: Value) -> Command {
    let home = work.join("toolkit-home");
    std::fs::create_dir_all(home.join(dir)).unwrap();
    std::fs::write(
        home.join(dir).join("settings.json"),
        serde_json::json!({"hooks": hooks}).to_string(),
    )
    .unwrap();
    let mut c = Command::new(tokenjuice());
    c.env("HOME", &home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEBUDDY_CONFIG_DIR")
        .env_remove("GEMINI_CLI_HOME")
        .current_dir(work);
    c
}

/// For each of `events`, the toolkit's probe (run by `toolkit`, given the event and the
/// arguments it needs: `--prompt go` for the prompt event `prompt_event`) agrees with the
/// host's probe under `host_dir` (see [`assert_same_probe`]); fails naming every event
/// that does not.
#[allow(dead_code)]
pub fn assert_same_event_probes(
    host: &str,
    events: &[&str],
    prompt_event: &str,
    host_dir: &Path,
    toolkit_dir: &Path,
    vars: &[&str],
    toolkit: impl Fn(&str, &[&str]),
) {
    let cases = events.iter().map(|e| (*e, ())).collect();
    each_case(host, cases, |event, ()| {
        let args: &[&str] = if event == prompt_event {
            &["--prompt", "go"]
        } else {
            &[]
        };
        toolkit(event, args);
        assert_same_probe(
            &format!("{host} ({event})"),
            &host_dir.join(event),
            &toolkit_dir.join(event),
            vars,
        );
    });
}
