//! What of a command the history keeps by default: the program's name and, for
//! programs built around subcommands, the subcommand. Never arguments, paths, patterns
//! or values: those can hold secrets or private data.

/// Programs whose first word is a subcommand (`git status`, `cargo test`, `kubectl get`).
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "apt",
    "apt-get",
    "aws",
    "az",
    "brew",
    "bun",
    "bundle",
    "cargo",
    "composer",
    "conda",
    "dart",
    "deno",
    "docker",
    "docker-compose",
    "dotnet",
    "flutter",
    "gcloud",
    "gh",
    "git",
    "go",
    "gradle",
    "gradlew",
    "helm",
    "hg",
    "jj",
    "kubectl",
    "mix",
    "mvn",
    "mvnw",
    "nix",
    "npm",
    "nx",
    "pdm",
    "pip",
    "pip3",
    "pipenv",
    "pnpm",
    "podman",
    "poetry",
    "rails",
    "rake",
    "rustup",
    "svn",
    "swift",
    "systemctl",
    "terraform",
    "tofu",
    "turbo",
    "uv",
    "yarn",
];

/// Options of these programs that take a separate value before the subcommand.
const VALUE_OPTIONS: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "-n",
    "--context",
    "--profile",
    "--region",
    "--manifest-path",
    "--project",
    "-p",
    "--file",
    "-f",
];

/// The last path component without a Windows executable extension.
fn basename(s: &str) -> &str {
    let base = s.rsplit(['/', '\\']).next().unwrap_or(s);
    for ext in [".exe", ".cmd", ".bat", ".EXE", ".CMD", ".BAT"] {
        if let Some(b) = base.strip_suffix(ext) {
            return b;
        }
    }
    base
}

fn is_plain_word(s: &str, max: usize) -> bool {
    !s.is_empty()
        && s.len() <= max
        && s.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && s.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b':' | b'.')
        })
}

/// `(program, subcommand)` of an argv. The program is kept only when it looks like a
/// program name (at most 40 chars of `[A-Za-z0-9._+-]`), else `""`.
pub fn signature(argv: &[String]) -> (String, Option<String>) {
    let Some(first) = argv.first() else {
        return (String::new(), None);
    };
    let prog = basename(first);
    let ok = !prog.is_empty()
        && prog.len() <= 40
        && prog
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'+'));
    if !ok {
        return (String::new(), None);
    }
    let prog_lc = prog.to_ascii_lowercase();
    if !SUBCOMMAND_PROGRAMS.contains(&prog_lc.as_str()) {
        return (prog.to_string(), None);
    }
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        if a.starts_with('-') {
            if VALUE_OPTIONS.contains(&a) {
                i += 1;
            }
            i += 1;
            continue;
        }
        if a.starts_with('+') {
            // cargo +nightly test
            i += 1;
            continue;
        }
        return (
            prog.to_string(),
            is_plain_word(a, 24).then(|| a.to_string()),
        );
    }
    (prog.to_string(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(s: &str) -> (String, Option<String>) {
        let argv: Vec<String> = s.split_whitespace().map(String::from).collect();
        signature(&argv)
    }

    #[test]
    fn subcommands_only_for_subcommand_programs() {
        assert_eq!(
            sig("git -C /repo status --short"),
            ("git".into(), Some("status".into()))
        );
        assert_eq!(
            sig("/usr/bin/cargo +nightly test -p x"),
            ("cargo".into(), Some("test".into()))
        );
        assert_eq!(
            sig("kubectl -n prod get pods"),
            ("kubectl".into(), Some("get".into()))
        );
        assert_eq!(sig("grep -r password src"), ("grep".into(), None));
        assert_eq!(sig("ls /home/someone/secret-project"), ("ls".into(), None));
        assert_eq!(sig("python3 manage.py"), ("python3".into(), None));
    }

    #[test]
    fn values_that_do_not_look_like_subcommands_are_dropped() {
        assert_eq!(sig("npm ghp_ABCDEFabcdef0123456789"), ("npm".into(), None));
        assert_eq!(sig("git /tmp/x"), ("git".into(), None));
        assert_eq!(sig("docker"), ("docker".into(), None));
        assert_eq!(sig("./weird$name arg"), (String::new(), None));
        assert_eq!(signature(&[]), (String::new(), None));
    }
}
