use super::*;

fn n(cmd: &str) -> Normalized {
    normalize(Some(cmd), None)
}

fn argv(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn plain_command() {
    let r = n("git status --short");
    assert_eq!(r.argv, argv(&["git", "status", "--short"]));
    assert_eq!(r.via, Via::Original);
    assert!(!r.compound && !r.exact_read);
}

#[test]
fn unwraps_shell_bodies_from_argv() {
    let a = argv(&["/bin/bash", "-lc", "git status --short"]);
    let r = normalize(None, Some(&a));
    assert_eq!(r.argv, argv(&["git", "status", "--short"]));
    assert_eq!(r.via, Via::ShellBody);
    assert_eq!(r.shell_body.as_deref(), Some("git status --short"));
    for shell in ["sh", "zsh", "fish", "dash", "ksh", "/usr/bin/zsh"] {
        for flag in ["-c", "-lc", "-ic", "-ec"] {
            let a = argv(&[shell, flag, "cargo test"]);
            assert_eq!(
                normalize(None, Some(&a)).argv,
                argv(&["cargo", "test"]),
                "{shell} {flag}"
            );
        }
    }
    let a = argv(&["bash", "-o", "pipefail", "-c", "make"]);
    assert_eq!(normalize(None, Some(&a)).argv, argv(&["make"]));
    let a = argv(&["bash", "--login", "-c", "bash -c 'npm test'"]);
    assert_eq!(normalize(None, Some(&a)).argv, argv(&["npm", "test"]));
}

#[test]
fn argv_is_never_resplit() {
    let a = argv(&["git", "log", "--oneline", "--grep=a;b && c"]);
    let r = normalize(None, Some(&a));
    assert!(!r.compound);
    assert_eq!(r.argv, a);
    assert_eq!(r.command, "git log --oneline '--grep=a;b && c'");
}

#[test]
fn strips_env_and_wrappers() {
    assert_eq!(
        n("RUST_LOG=debug cargo test").argv,
        argv(&["cargo", "test"])
    );
    assert_eq!(
        n("env -i FOO=1 BAR=2 pytest -x").argv,
        argv(&["pytest", "-x"])
    );
    assert_eq!(
        n("sudo -u root apt-get install -y jq").argv,
        argv(&["apt-get", "install", "-y", "jq"])
    );
    assert_eq!(
        n("time nice -n 5 timeout 60 make -j4").argv,
        argv(&["make", "-j4"])
    );
    assert_eq!(
        n("timeout -s KILL 5m npm test").argv,
        argv(&["npm", "test"])
    );
    assert_eq!(n("RUST_LOG=debug cargo test").via, Via::Effective);
}

#[test]
fn skips_setup_segments() {
    let r = n("cd web && npm test");
    assert_eq!(r.argv, argv(&["npm", "test"]));
    assert!(!r.compound);
    assert_eq!(r.via, Via::Effective);
    assert_eq!(
        n("set -euo pipefail; export CI=1; source .env && cargo build").argv,
        argv(&["cargo", "build"])
    );
    assert_eq!(
        n("if [ -f .venv/bin/activate ]; then . .venv/bin/activate; fi; pytest").argv,
        argv(&["pytest"])
    );
    assert_eq!(
        n("mkdir -p out && cd out && cmake ..").argv,
        argv(&["cmake", ".."])
    );
    // a loop writing files prints nothing; one that prints is a command of its own
    assert_eq!(
        n("for i in 1 2; do printf 'x' > m$i.c; done && make -k").argv,
        argv(&["make", "-k"])
    );
    assert!(n("for f in *.ts; do echo $f; done && npx tsc").compound);
    assert_eq!(
        n("cd x && git add -A && git status --short").argv,
        argv(&["git", "status", "--short"])
    );
    assert_eq!(
        n("command -v jq >/dev/null && jq . f.json").argv,
        argv(&["jq", ".", "f.json"])
    );
    assert_eq!(n("(cd sub && make)").argv, argv(&["make"]));
}

#[test]
fn compound_commands_are_flagged() {
    for c in [
        "grep x a; echo hi; dig example.com",
        "cargo build && cargo test",
        "npm run dev & curl localhost",
        "make\nmake install",
    ] {
        let r = n(c);
        assert!(r.compound, "{c}");
        assert!(r.argv.is_empty(), "{c}");
    }
    // echo's output must never be read as part of another command's output
    for c in [
        "cargo test; echo \"exit=$?\"",
        "git status && echo \"it's done\"",
    ] {
        assert!(n(c).compound, "{c}");
    }
    // echo into a file prints nothing
    let r = n("echo x > notes.txt && git status");
    assert!(!r.compound);
    assert_eq!(r.argv, argv(&["git", "status"]));
    // nor does any command whose stdout goes to a file, nor `python -m venv`
    for (c, want) in [
        (
            "d=$(mktemp -d) && cd $d && npm init -y >/dev/null && npm install x >/dev/null 2>&1 && npm ls --all",
            &["npm", "ls", "--all"][..],
        ),
        ("cargo build &> build.log; grep -c warning build.log", &["grep", "-c", "warning", "build.log"]),
        ("python3 -m venv v && v/bin/pip install requests", &["v/bin/pip", "install", "requests"]),
        ("make > /tmp/out 2>/tmp/err && make test", &["make", "test"]),
    ] {
        let r = n(c);
        assert!(!r.compound, "{c}");
        assert_eq!(r.argv, argv(want), "{c}");
    }
    // output moved to stderr or to another descriptor is still printed
    for c in [
        "echo hi >&2 && cargo test",
        "cargo build 2>/dev/null && cargo test",
        "cat <<EOF > /dev/stdout && ls",
    ] {
        let r = n(c);
        assert!(r.compound || r.exact_read, "{c}");
    }
}

#[test]
fn pipelines() {
    assert_eq!(n("git log | head -20").argv, argv(&["git", "log"]));
    assert_eq!(
        n("cargo test 2>&1 | tee out.log | tail -50").argv,
        argv(&["cargo", "test"])
    );
    assert_eq!(
        n("rg TODO src | sort | uniq -c").argv,
        argv(&["rg", "TODO", "src"])
    );
    assert_eq!(
        n("curl -s https://x | python3 -m json.tool").argv,
        argv(&["json.tool"])
    );
    assert_eq!(
        n("curl -s https://x | python3 -m json.tool").typed_argv,
        argv(&["python3", "-m", "json.tool"])
    );
    assert_eq!(n("ps aux | grep node").argv, argv(&["ps", "aux"]));
    assert_eq!(n("ps aux | grep node").pipeline.len(), 2);
}

#[test]
fn exact_reads() {
    for c in [
        "cat src/main.rs",
        "head -n 50 src/lib.rs",
        "tail -20 README.md",
        "sed -n '10,40p' src/main.rs",
        "nl -ba Cargo.toml",
        "bat src/x.rs",
        "jq . package.json",
        "cat Cargo.toml | grep version",
        "git show HEAD~1:src/main.rs",
        "yq .services compose.yml",
        // compound: one part reads files, so the mixed output is not cut
        "cat src/a.rs; cat src/b.rs",
        "cat Cargo.toml && cargo build",
        "cd crates/core && head -n 40 src/lib.rs && ls",
    ] {
        assert!(n(c).exact_read, "{c}");
    }
    assert!(n("cat a.rs; cat b.rs").compound);
    // `exit` prints nothing: the command before it is the one whose output this is
    assert_eq!(n("cargo test; exit $?").argv, argv(&["cargo", "test"]));
    assert!(!n("cargo test; exit $?").compound);
    assert!(n("cat a.rs; cat b.rs")
        .notes
        .iter()
        .any(|x| x.contains("reads files")));
    for c in [
        "tail -n 2000 app.log",
        "tail -f server.out",
        "cat /var/log/syslog",
        "git show HEAD",
        "sed -i s/a/b/ f",
        "ls -la",
        "cargo test | head",
        "cargo build && cargo test",
        "cat app.log; tail -n 5000 server.log",
    ] {
        assert!(!n(c).exact_read, "{c}");
    }
    // a log read whole or followed is compacted; a log read by a number of lines is not
    assert!(!n("tail /var/log/syslog").exact_read);
    assert!(!n("tail -f app.log").exact_read);
    assert!(!n("tail -n 501 app.log").exact_read);
    // a signed count is no bound: from line 1 to the end, all but the last five lines
    assert!(!n("tail -n +1 app.log").exact_read);
    assert!(!n("head -n -5 app.log").exact_read);
    for c in [
        "tail -n 500 app.log",
        "tail -n 200 /var/log/dpkg.log",
        "tail -n200 app.log",
        "tail -200 app.log",
        "head --lines=50 logs/build.log",
        "head -n 30 server.out",
    ] {
        assert!(n(c).exact_read, "{c}");
    }
}

#[test]
fn git_subcommands() {
    let g = |c: &str| git_subcommand(&n(c).argv).map(str::to_string);
    assert_eq!(
        g("git -C repo -c color.ui=never status"),
        Some("status".into())
    );
    assert_eq!(g("git --no-pager log --oneline"), Some("log".into()));
    assert_eq!(g("/usr/bin/git diff"), Some("diff".into()));
    assert_eq!(g("ls"), None);
}

#[test]
fn basenames() {
    assert_eq!(basename("/usr/local/bin/tokenjuice"), "tokenjuice");
    assert_eq!(basename("C:\\bin\\git.exe"), "git");
    assert_eq!(basename("npm.cmd"), "npm");
}

#[test]
fn package_runners_classify_as_the_tool_they_run() {
    for (cmd, tool) in [
        ("npx prisma generate", "prisma"),
        ("npx --yes -p typescript tsc --noEmit", "tsc"),
        ("pnpm exec vitest run", "vitest"),
        ("pnpm dlx create-vite app", "create-vite"),
        ("yarn dlx eslint .", "eslint"),
        ("yarn cdk diff", "cdk"),
        ("yarn jest --ci", "jest"),
        ("npm exec -- jest --ci", "jest"),
        ("bunx tsc", "tsc"),
        ("poetry run pytest -x", "pytest"),
        ("pipx run black .", "black"),
        ("python3 -m pytest -q", "pytest"),
        ("python3.12 -m pip install x", "pip"),
    ] {
        let norm = n(cmd);
        assert_eq!(norm.argv.first().map(String::as_str), Some(tool), "{cmd}");
        assert_eq!(
            norm.typed_argv.first(),
            Some(&cmd.split(' ').next().unwrap().to_string()),
            "{cmd}"
        );
    }
    // yarn's own commands are yarn's
    for c in [
        "yarn install",
        "yarn add left-pad",
        "yarn run build",
        "yarn --version",
        "yarn",
    ] {
        assert_eq!(n(c).argv[0], "yarn", "{c}");
    }
    // runners with nothing to run stay as they are
    assert_eq!(n("npx").argv, argv(&["npx"]));
    assert_eq!(n("uv run").argv, argv(&["uv", "run"]));
    // uv run, with its options, and a runner behind a runner
    assert_eq!(
        n("uv run --with rich -p 3.12 pytest -x").argv,
        argv(&["pytest", "-x"])
    );
    assert_eq!(n("uv run python -m pytest").argv, argv(&["pytest"]));
    assert_eq!(n("python3 script.py").argv, argv(&["python3", "script.py"]));
}

#[test]
fn a_pipeline_sized_by_its_last_head_or_tail() {
    for (c, want) in [
        ("nm -D libc.so.6 | head -300", Some(300)),
        ("strings a.out | head -n 400", Some(400)),
        ("dpkg -L git | tail --lines=50", Some(50)),
        ("nm -D libc.so.6 | head -3000", None),
        ("nm -D libc.so.6 | head", None),
        ("nm -D libc.so.6 | tail -n +5", None),
        ("nm -D libc.so.6 | tail -f -n 20", None),
        ("head -n 20 notes.txt", None),
        ("nm -D libc.so.6 | head -n 20 | sort", None),
    ] {
        assert_eq!(n(c).sized_by_pipe(), want, "{c}");
    }
}
