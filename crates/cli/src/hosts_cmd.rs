//! `tokenjuice install|uninstall|doctor <host>` and the hook entrypoints the hosts call
//! (`<host>-pre-tool-use`, `<host>-post-tool-use`). The logic lives in `tokenjuice-hosts`.

use std::io::{Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};

use clap::Args;
use tokenjuice_hosts::registry::{self, Mechanism, Target};
use tokenjuice_hosts::{Env, Health};

use crate::rules_env;

#[derive(Args)]
pub struct InstallArgs {
    /// The host: codebuddy, cursor, claude-code, codex, pi, gemini-cli, qwen-code,
    /// copilot-cli, vscode-copilot, droid, devin, opencode, or a guidance target
    /// (agents-md, cursor-rules, windsurf, …).
    pub host: String,
    /// Point the hook at this build (the running binary's absolute path) instead of the
    /// tokenjuice found on PATH.
    #[arg(long)]
    pub local: bool,
}

#[derive(Args)]
pub struct UninstallArgs {
    /// The host to remove tokenjuice from.
    pub host: String,
}

#[derive(Args)]
pub struct DoctorArgs {
    /// `hooks` for every host, or one host id.
    pub target: Option<String>,
}

pub fn install(a: InstallArgs) -> i32 {
    let env = Env::from_process();
    let result = registry::find(&a.host).and_then(|t| tokenjuice_hosts::install(t, a.local, &env));
    match result {
        Ok(r) => {
            println!("tokenjuice installed into {}", r.host);
            for l in &r.lines {
                println!("  {l}");
            }
            0
        }
        Err(e) => {
            eprintln!("tokenjuice install: error: {e}");
            1
        }
    }
}

pub fn uninstall(a: UninstallArgs) -> i32 {
    let env = Env::from_process();
    match registry::find(&a.host).and_then(|t| tokenjuice_hosts::uninstall(t, &env)) {
        Ok(r) => {
            let verb = if r.changed {
                "removed tokenjuice from"
            } else {
                "no change for"
            };
            println!("{verb} {}", r.host);
            for l in &r.lines {
                println!("  {l}");
            }
            0
        }
        Err(e) => {
            eprintln!("tokenjuice uninstall: error: {e}");
            1
        }
    }
}

pub fn doctor(a: DoctorArgs) -> i32 {
    let env = Env::from_process();
    match a.target.as_deref() {
        None | Some("hooks") => doctor_all(&env),
        Some(name) => match registry::find(name) {
            Ok(t) => {
                let d = tokenjuice_hosts::diagnose(t, &env);
                print!("{}", d.render());
                i32::from(d.health() == Health::Broken)
            }
            Err(e) => {
                eprintln!("tokenjuice doctor: error: {e}");
                1
            }
        },
    }
}

fn doctor_all(env: &Env) -> i32 {
    let mut worst = Health::Ok;
    let mut not_installed = Vec::new();
    let mut installed = 0;
    for t in registry::all() {
        let d = tokenjuice_hosts::diagnose(t, env);
        let h = d.health();
        if h == Health::Disabled && d.problems.iter().all(|p| p.health == Health::Disabled) {
            not_installed.push(t.id());
            continue;
        }
        installed += 1;
        worst = worst.max(h);
        let path = d
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        println!("{}: {} ({}) {path}", t.id(), h, t.mechanism().as_str());
        for p in &d.problems {
            println!("  {}: {}\n    fix: {}", p.health, p.what, p.fix);
        }
        if matches!(t, Target::Hook(_)) && h == Health::Ok {
            if let Some(f) = d
                .facts
                .iter()
                .find(|f| f.starts_with("the rewritten") || f.contains("compacted"))
            {
                println!("  ok: {f}");
            }
        }
    }
    if installed == 0 {
        println!("no tokenjuice integration is installed");
    }
    println!("not installed: {}", not_installed.join(", "));
    let hosts = |unsupported: bool| -> Vec<&str> {
        registry::HOOK_HOSTS
            .iter()
            .filter(|h| h.mechanism != Mechanism::Guidance)
            .filter(|h| (h.mechanism == Mechanism::Unsupported) == unsupported)
            .map(|h| h.id)
            .collect()
    };
    println!(
        "install one with `tokenjuice install <host>`; agents it plugs into: {}; not supported \
         (install refuses and says why): {}",
        hosts(false).join(", "),
        hosts(true).join(", ")
    );
    let overall = if installed == 0 {
        Health::Disabled
    } else {
        worst
    };
    println!("health: {overall}");
    i32::from(overall == Health::Broken)
}

/// Largest hook payload read.
const MAX_PAYLOAD: u64 = 64 << 20;

/// A hook entrypoint an agent calls (current or retired), by its subcommand name.
pub fn is_entry(name: &str) -> bool {
    registry::by_entry_subcommand(name).is_some() || registry::retired_entry_host(name).is_some()
}

pub fn entry(args: Vec<String>) -> i32 {
    let name = args.first().map(String::as_str).unwrap_or("");
    let Some(spec) = registry::by_entry_subcommand(name) else {
        if let Some(host) = registry::retired_entry_host(name) {
            // An older install still calls this; answer "no change" (a non-zero exit would
            // reach the model as an error after every command) and say how to migrate.
            eprintln!("tokenjuice: `{name}` is no longer used; run `tokenjuice install {}` to migrate this hook", host.id);
            println!("{{}}");
            return 0;
        }
        eprintln!("error: unrecognized subcommand '{name}'\n\nUsage: tokenjuice <COMMAND>\n\nFor more information, try '--help'.");
        return 2;
    };
    if matches!(spec.mechanism, Mechanism::Unsupported | Mechanism::BashEnv) {
        // An older install still calls this (`--wrap-launcher` and all): change nothing (its
        // rewrite changed what the agent allowed) and say how to remove it.
        eprintln!("tokenjuice: this {} hook is no longer used (`tokenjuice doctor {}` says why and what to do)", spec.id, spec.id);
        println!("{}", tokenjuice_hosts::entry::NO_CHANGE);
        return 0;
    }
    let mut input = String::new();
    if spec.mechanism == Mechanism::SessionBashEnv {
        // prints nothing: a SessionStart hook's output would reach the model
        let _ = std::io::stdin()
            .lock()
            .take(MAX_PAYLOAD)
            .read_to_string(&mut input);
        let done = catch_unwind(AssertUnwindSafe(|| {
            tokenjuice_hosts::droid_env::session_start(&input, &Env::from_process())
        }));
        match done {
            Ok(Ok(())) => {}
            Ok(Err(why)) => eprintln!("tokenjuice: {why}"),
            Err(_) => {
                eprintln!("tokenjuice: the SessionStart hook failed; commands run as they are")
            }
        }
        return 0;
    }
    let answer = match std::io::stdin()
        .lock()
        .take(MAX_PAYLOAD)
        .read_to_string(&mut input)
    {
        Err(_) => tokenjuice_hosts::entry::NO_CHANGE.to_string(),
        Ok(_) => catch_unwind(AssertUnwindSafe(|| {
            crate::fault_injection("host-entry");
            if spec.mechanism == Mechanism::PostToolReplace {
                let rules = rules_env::load_for_run();
                tokenjuice_hosts::entry::post_tool_use(spec, &input, &rules.rules)
            } else {
                tokenjuice_hosts::entry::pre_tool_use(spec, &input)
            }
        }))
        .unwrap_or_else(|_| tokenjuice_hosts::entry::NO_CHANGE.to_string()),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = out.write_all(answer.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
    0
}
