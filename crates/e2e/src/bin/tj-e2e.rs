//! `tj-e2e run SPEC.json [OUT.json]`: run one scripted agent session against the fake model
//! and write what happened (exit, output, every request, the tool results) as JSON.
//! The e2e tests start it inside `unshare -n` so the agent can reach only loopback.
//!
//! `tj-e2e report REPORT_DIR DOC.md`: rewrite the table between the `e2e-table` markers of
//! DOC.md from the last run's per-host reports (`target/e2e-report/<host>.json`).
//!
//! Started through a link named `zsh`, `bash` or `sh`: runs that real shell and logs how long
//! it took (see the library's `span` module).

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv0 = std::env::args().next().unwrap_or_default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    // started as a shell (a link named `zsh`, `bash` or `sh`): time that shell
    if let Some(shell) = tokenjuice_e2e::span::shell_name(&argv0) {
        return tokenjuice_e2e::span::run(&argv0, shell, &args);
    }
    if let (Some("report"), Some(dir), Some(doc)) =
        (args.first().map(String::as_str), args.get(1), args.get(2))
    {
        return match tokenjuice_e2e::report::rewrite(
            std::path::Path::new(dir),
            std::path::Path::new(doc),
        ) {
            Ok(n) => {
                println!("{doc}: table of {n} hosts written");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("tj-e2e report: {e}");
                ExitCode::from(1)
            }
        };
    }
    let (Some("run"), Some(spec_path)) = (args.first().map(String::as_str), args.get(1)) else {
        eprintln!("usage: tj-e2e run SPEC.json [OUT.json] | tj-e2e report REPORT_DIR DOC.md");
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
