//! Whether a command already runs through `tokenjuice wrap` (the model may run one so, as
//! the guidance files ask): such a result is left as it is.

use tokenjuice_core::normalize::basename;
use tokenjuice_core::shell::{self, Command, Sep};

/// True when `command` already runs through `tokenjuice wrap` (bare, an absolute launcher,
/// a package-manager shim, a Homebrew Cellar path, `.exe/.cmd/.bat`, `npx tokenjuice`, or
/// `node …/main.js … wrap`), possibly after `cd x &&` / `VAR=v` / `env …` prefixes.
pub fn is_already_wrapped(command: &str) -> bool {
    parsed_is_wrap(command) || windows_path_is_wrap(command)
}

/// A Windows launcher path (`C:\\tools\\tokenjuice.exe wrap …`) loses its backslashes to
/// POSIX quote removal; look at the raw words too.
fn windows_path_is_wrap(command: &str) -> bool {
    let words: Vec<String> = command
        .split_whitespace()
        .map(|w| w.trim_matches(['"', '\'']).to_string())
        .collect();
    words.first().is_some_and(|w| w.contains('\\')) && argv_is_wrap(&words)
}

fn parsed_is_wrap(command: &str) -> bool {
    let script = shell::parse(command);
    for (i, item) in script.items.iter().enumerate() {
        let Some(Command::Simple(simple)) = item.pipeline.commands.first() else {
            return false;
        };
        let argv = simple.argv();
        let a0 = argv.first().map(|a| basename(a)).unwrap_or("");
        let next_is_and = script
            .items
            .get(i + 1)
            .is_some_and(|n| n.sep == Some(Sep::And));
        if matches!(a0, "cd" | "pushd") && next_is_and && item.pipeline.commands.len() == 1 {
            continue;
        }
        return argv_is_wrap(&argv);
    }
    false
}

fn argv_is_wrap(argv: &[String]) -> bool {
    let mut i = 0;
    if argv.first().map(|a| basename(a)) == Some("env") {
        i = 1;
        while argv
            .get(i)
            .is_some_and(|a| a.starts_with('-') || a.contains('='))
        {
            i += 1;
        }
    }
    let Some(a0) = argv.get(i) else {
        return false;
    };
    let name = basename(a0).to_ascii_lowercase();
    let rest = &argv[i + 1..];
    match name.as_str() {
        "tokenjuice" => wrap_before_dashes(rest),
        "npx" | "pnpx" | "bunx" => rest
            .iter()
            .position(|a| basename(a) == "tokenjuice")
            .is_some_and(|p| wrap_before_dashes(&rest[p + 1..])),
        "node" | "nodejs" | "bun" => rest
            .iter()
            .position(|a| crate::launcher::is_node_script(a))
            .is_some_and(|p| wrap_before_dashes(&rest[p + 1..])),
        _ => false,
    }
}

fn wrap_before_dashes(args: &[String]) -> bool {
    args.iter()
        .take_while(|a| a.as_str() != "--")
        .any(|a| a == "wrap")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_forms_are_recognised() {
        for c in [
            "tokenjuice wrap -- git status",
            "tokenjuice wrap --raw -- pnpm --help",
            "/usr/local/bin/tokenjuice wrap -- ls",
            "/home/u/.local/share/pnpm/tokenjuice wrap -- ls",
            "/opt/homebrew/Cellar/tokenjuice/0.9.0/bin/tokenjuice wrap -- ls",
            "C:\\tools\\tokenjuice.exe wrap -- dir",
            "tokenjuice.cmd wrap -- dir",
            "TOKENJUICE.BAT wrap -- dir",
            "node /abs/dist/cli/main.js wrap -- ls",
            "node /abs/dist/cli/main.js --x wrap --raw -- ls",
            "npx tokenjuice wrap -- ls",
            "cd /tmp && tokenjuice wrap -- ls",
            "cd a && cd b && /usr/bin/tokenjuice wrap --raw -- ls",
            "FOO=1 tokenjuice wrap -- ls",
            "env FOO=1 tokenjuice wrap -- ls",
            "'/path with space/tokenjuice' wrap -- ls",
        ] {
            assert!(is_already_wrapped(c), "{c}");
        }
    }

    #[test]
    fn other_commands_are_not_wrapped() {
        for c in [
            "git status",
            "echo tokenjuice wrap",
            "tokenjuice verify",
            "tokenjuice reduce -- wrap",
            "node script.js",
            "node main.js -- wrap",
            "cd /tmp; tokenjuice-other wrap",
            "ls | tokenjuice wrap",
            "",
            "mytokenjuice wrap -- ls",
        ] {
            assert!(!is_already_wrapped(c), "{c}");
        }
    }
}
