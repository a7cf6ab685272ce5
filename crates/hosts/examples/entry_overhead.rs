//! What a pre-tool hook answer costs.
//!
//! - in-process (parse payload, check, resolve the shell, rewrite, serialize):
//!   `cargo run --release -p tokenjuice-hosts --example entry_overhead`
//! - as the host runs it, a process with the payload on stdin, against a trivial process:
//!   `cargo run --release -p tokenjuice-hosts --example entry_overhead -- --spawn <tokenjuice> [<baseline-binary>]`

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tokenjuice_hosts::entry::pre_tool_use;
use tokenjuice_hosts::registry::{find, Target};
use tokenjuice_hosts::Env;

const PAYLOAD: &str = r#"{"session_id":"s","transcript_path":"/t","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"execute_command","tool_input":{"command":"git status --short && npm test","requires_approval":false,"description":"status and tests"}}"#;

fn median(mut v: Vec<Duration>) -> (Duration, Duration) {
    v.sort();
    (v[v.len() / 2], v[v.len() * 99 / 100])
}

fn spawn_times(program: &str, args: &[&str], runs: usize) -> Result<Vec<Duration>, String> {
    let mut out = Vec::with_capacity(runs);
    for i in 0..runs + 50 {
        let t = Instant::now();
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run {program}: {e}"))?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(PAYLOAD.as_bytes());
        }
        child.wait().map_err(|e| e.to_string())?;
        if i >= 50 {
            out.push(t.elapsed());
        }
    }
    Ok(out)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--spawn") {
        let Some(bin) = args.get(1) else {
            eprintln!("usage: entry_overhead --spawn <tokenjuice> [<baseline-binary>]");
            std::process::exit(2);
        };
        let baseline = args.get(2).map(String::as_str).unwrap_or("/bin/true");
        let runs = 1000;
        let hook = spawn_times(
            bin,
            &["codebuddy-pre-tool-use", "--wrap-launcher", bin],
            runs,
        );
        let base = spawn_times(baseline, &[], runs);
        match (hook, base) {
            (Ok(h), Ok(b)) => {
                let (hm, hp) = median(h);
                let (bm, bp) = median(b);
                println!("{runs} runs: hook median {hm:?} (p99 {hp:?}); {baseline} median {bm:?} (p99 {bp:?})");
            }
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        return;
    }
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let Ok(Target::Hook(spec)) = find("codebuddy") else {
        eprintln!("codebuddy host missing from the registry");
        std::process::exit(1);
    };
    let mut samples = Vec::with_capacity(n);
    let mut bytes = 0;
    for _ in 0..n {
        let t = Instant::now();
        let env = Env::from_process();
        let out = pre_tool_use(spec, PAYLOAD, Some("/usr/local/bin/tokenjuice"), &env);
        samples.push(t.elapsed());
        bytes += out.len();
    }
    let (m, p99) = median(samples);
    println!("{n} answers in-process, {bytes} bytes: median {m:?}, p99 {p99:?} per answer (including reading the environment)");
}
