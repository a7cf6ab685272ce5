//! `tj-e2e run SPEC.json [OUT.json]`: run one scripted agent session against the fake model
//! and write what happened (exit, output, every request, the tool results) as JSON.
//! The e2e tests start it inside `unshare -n` so the agent can reach only loopback.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some("run"), Some(spec_path)) = (args.first().map(String::as_str), args.get(1)) else {
        eprintln!("usage: tj-e2e run SPEC.json [OUT.json]");
        return ExitCode::from(2);
    };
    let spec = std::fs::read_to_string(spec_path)
        .map_err(|e| format!("{spec_path}: {e}"))
        .and_then(|t| serde_json::from_str(&t).map_err(|e| format!("{spec_path}: {e}")))
        .and_then(|v| tokenjuice_e2e::session::Spec::from_json(&v));
    let spec = match spec {
        Ok(s) => s,
        Err(e) => {
            eprintln!("tj-e2e: {e}");
            return ExitCode::from(2);
        }
    };
    match tokenjuice_e2e::session::run(&spec) {
        Ok(o) => {
            let text = o.to_json().to_string();
            match args.get(2) {
                Some(out) => {
                    if let Err(e) = std::fs::write(out, text) {
                        eprintln!("tj-e2e: {out}: {e}");
                        return ExitCode::from(1);
                    }
                }
                None => println!("{text}"),
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("tj-e2e: {e}");
            ExitCode::from(1)
        }
    }
}
