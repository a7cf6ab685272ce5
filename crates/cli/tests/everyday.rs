//! What a CLI user expects around the main job, on the real binary: shell completions that a
//! real bash and zsh load, man pages that render, and a `--version` that names the build.

mod common;

use std::process::Command;

use common::bin;

fn tokenjuice(args: &[&str]) -> std::process::Output {
    Command::new(bin())
        .args(args)
        .output()
        .expect("run tokenjuice")
}

/// A shell the test needs: present, or the test fails saying how to get it.
fn shell(name: &str) -> String {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        found,
        "{name} is needed by this test: install it (apt-get install {name}); .ci/run does"
    );
    name.to_string()
}

#[test]
fn bash_loads_the_completion_script_and_completes_subcommands_and_flags() {
    let script = tokenjuice(&["completions", "bash"]);
    assert!(script.status.success());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tj.bash");
    std::fs::write(&file, &script.stdout).unwrap();
    // load it, then ask the completion function what it offers after `tokenjuice st` and
    // after `tokenjuice stats --ch`
    let probe = format!(
        r#"set -e
source {f}
complete -p tokenjuice
COMP_WORDS=(tokenjuice st); COMP_CWORD=1; COMP_LINE="tokenjuice st"; COMP_POINT=${{#COMP_LINE}}
_tokenjuice tokenjuice st tokenjuice
echo "subcommands: ${{COMPREPLY[*]}}"
COMP_WORDS=(tokenjuice stats --ch); COMP_CWORD=2; COMP_LINE="tokenjuice stats --ch"; COMP_POINT=${{#COMP_LINE}}
_tokenjuice tokenjuice --ch stats
echo "flags: ${{COMPREPLY[*]}}"
"#,
        f = file.display()
    );
    let out = Command::new(shell("bash"))
        .args(["--norc", "--noprofile", "-c", &probe])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.trim().is_empty(), "{text}{err}");
    assert!(text.contains("-F _tokenjuice tokenjuice"), "{text}");
    assert!(text.contains("subcommands: stats"), "{text}");
    assert!(text.contains("flags: --chart"), "{text}");
}

#[test]
fn zsh_loads_the_completion_script() {
    let script = tokenjuice(&["completions", "zsh"]);
    assert!(script.status.success());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("_tokenjuice"), &script.stdout).unwrap();
    let probe = format!(
        "fpath=({} $fpath); autoload -Uz compinit; compinit -u -d {}/zcompdump; autoload -Uz _tokenjuice; print -r -- ${{_comps[tokenjuice]}}; whence -w _tokenjuice",
        dir.path().display(),
        dir.path().display()
    );
    let out = Command::new(shell("zsh"))
        .args(["-f", "-c", &probe])
        .env("HOME", dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.trim().is_empty(), "{text}{err}");
    assert!(text.contains("_tokenjuice"), "compdef registered: {text}");
    assert!(text.contains("_tokenjuice: function"), "{text}");
    // fish and powershell scripts are generated too
    for sh in ["fish", "powershell"] {
        let o = tokenjuice(&["completions", sh]);
        assert!(o.status.success() && o.stdout.len() > 200, "{sh}");
    }
    assert_eq!(tokenjuice(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn the_man_pages_render() {
    let page = tokenjuice(&["man"]);
    assert!(page.status.success());
    let roff = String::from_utf8_lossy(&page.stdout);
    assert!(
        roff.starts_with(".ie") || roff.contains(".TH tokenjuice 1"),
        "{roff}"
    );
    // rendered by the system's man (groff) when there is one
    if std::path::Path::new("/usr/bin/man").exists() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("tokenjuice.1");
        std::fs::write(&f, &page.stdout).unwrap();
        let out = Command::new("man")
            .args(["-l", "-P", "cat"])
            .arg(&f)
            .env("MANWIDTH", "80")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "SUBCOMMANDS"] {
            assert!(text.contains(section), "{section}: {text}");
        }
        assert!(
            text.contains("tokenjuice-wrap(1)") && text.contains("tokenjuice-stats(1)"),
            "{text}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let out = tokenjuice(&["man", "--dir", dir.path().to_str().unwrap()]);
    assert!(out.status.success());
    for name in [
        "tokenjuice.1",
        "tokenjuice-wrap.1",
        "tokenjuice-stats.1",
        "tokenjuice-completions.1",
    ] {
        let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(text.contains(".TH"), "{name}");
    }
    let wrap = std::fs::read_to_string(dir.path().join("tokenjuice-wrap.1")).unwrap();
    assert!(
        wrap.contains("exit"),
        "the wrap page has its own text: {wrap}"
    );
    // a folder that cannot be made: a clear error, exit 1
    let file = dir.path().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let out = tokenjuice(&["man", "--dir", file.join("sub").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write the man pages into"));
}

#[test]
fn version_names_the_commit_and_the_linking() {
    let out = tokenjuice(&["--version"]);
    assert!(out.status.success());
    let v = String::from_utf8(out.stdout).unwrap();
    let v = v.trim();
    let rest = v
        .strip_prefix(&format!("tokenjuice {} (", env!("CARGO_PKG_VERSION")))
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{v}"));
    let parts: Vec<&str> = rest.split(", ").collect();
    assert_eq!(parts.len(), 3, "{v}");
    assert!(
        parts[1] == "dynamic build" || parts[1] == "static build",
        "{v}"
    );
    assert!(parts[2].contains("linux"), "{v}");
    // built from this checkout: its commit
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    match head {
        Ok(h) if h.status.success() => {
            let head = String::from_utf8_lossy(&h.stdout).trim().to_string();
            assert!(
                parts[0] == head || parts[0] == format!("{head}-dirty"),
                "{v} vs HEAD {head}"
            );
        }
        _ => assert_eq!(parts[0], "unknown commit", "{v}"),
    }
}

#[test]
fn the_release_check_refuses_a_dynamically_linked_binary() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/release");
    let out = Command::new(&script)
        .args(["--check", bin().to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("is dynamically linked: it needs a dynamic loader")
            && err.contains("scripts/release"),
        "{err}"
    );
}

#[test]
fn binstall_metadata_names_what_the_release_script_packs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest: toml::Value =
        toml::from_str(&std::fs::read_to_string(root.join("Cargo.toml")).unwrap()).unwrap();
    let meta = &manifest["package"]["metadata"]["binstall"];
    let url = meta["pkg-url"].as_str().unwrap();
    let dir = meta["bin-dir"].as_str().unwrap();
    assert_eq!(meta["pkg-fmt"].as_str(), Some("tgz"));
    assert!(
        url.ends_with("/tokenjuice-{ version }-{ target }.tar.gz"),
        "{url}"
    );
    assert_eq!(
        dir,
        "tokenjuice-{ version }-{ target }/{ bin }{ binary-ext }"
    );
    let script = std::fs::read_to_string(root.join("../../scripts/release")).unwrap();
    assert!(
        script.contains("name=tokenjuice-$version-$target"),
        "the pack's name"
    );
    assert!(
        script.contains(r#"cp "$bin" "dist/$name/tokenjuice""#),
        "the binary's place in it"
    );
    assert!(script.contains(r#"tar -C dist -czf "dist/$name.tar.gz" "$name""#));
}
