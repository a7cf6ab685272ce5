//! In-process cost of a pre-tool hook answer (parse payload, check, resolve the shell,
//! rewrite, serialize), without process startup:
//! `cargo run --release -p tokenjuice-hosts --example entry_overhead [iterations]`.

use std::time::Instant;

use tokenjuice_hosts::entry::pre_tool_use;
use tokenjuice_hosts::registry::{find, Target};
use tokenjuice_hosts::Env;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let Ok(Target::Hook(spec)) = find("codebuddy") else {
        eprintln!("codebuddy host missing from the registry");
        std::process::exit(1);
    };
    let payload = r#"{"session_id":"s","transcript_path":"/t","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"execute_command","tool_input":{"command":"git status --short && npm test","requires_approval":false,"description":"status and tests"}}"#;
    let mut samples = Vec::with_capacity(n);
    let mut bytes = 0;
    for _ in 0..n {
        let t = Instant::now();
        let env = Env::from_process();
        let out = pre_tool_use(spec, payload, Some("/usr/local/bin/tokenjuice"), &env);
        samples.push(t.elapsed());
        bytes += out.len();
    }
    samples.sort();
    let median = samples[n / 2];
    let p99 = samples[n * 99 / 100];
    println!("{n} answers, {bytes} bytes: median {median:?}, p99 {p99:?} per answer (including reading the environment)");
}
