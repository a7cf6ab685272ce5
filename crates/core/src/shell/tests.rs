use super::*;
use proptest::prelude::*;

fn words(src: &str) -> Vec<Vec<String>> {
    parse(src)
        .simple_commands()
        .iter()
        .map(|c| c.argv())
        .collect()
}

fn seps(src: &str) -> Vec<Option<Sep>> {
    parse(src).items.iter().map(|i| i.sep).collect()
}

#[test]
fn plain_words() {
    assert_eq!(
        words("git status --short"),
        vec![vec!["git", "status", "--short"]]
    );
}

#[test]
fn quotes_and_escapes() {
    assert_eq!(
        words(r#"echo 'a b' "c d" e\ f"#),
        vec![vec!["echo", "a b", "c d", "e f"]]
    );
    assert_eq!(
        words(r#"echo "a \"q\" \$x \\ \z""#),
        vec![vec!["echo", r#"a "q" $x \ \z"#]]
    );
    assert_eq!(words("echo 'it'\\''s'"), vec![vec!["echo", "it's"]]);
}

#[test]
fn ansi_c_quotes() {
    assert_eq!(
        words(r"printf $'a\tb\n\x41\u00e9\101'"),
        vec![vec!["printf", "a\tb\nAéA"]]
    );
    assert_eq!(words(r"echo $'it\'s'"), vec![vec!["echo", "it's"]]);
}

#[test]
fn expansions_are_kept_verbatim() {
    let s = parse(r#"echo $(git rev-parse "HEAD~1") `date` ${HOME:-/x} $((1+2)) "$USER""#);
    let c = &s.simple_commands()[0];
    assert_eq!(
        c.argv(),
        vec![
            "echo",
            "$(git rev-parse \"HEAD~1\")",
            "`date`",
            "${HOME:-/x}",
            "$((1+2))",
            "$USER"
        ]
    );
    assert!(c.words[1].expansion && c.words[5].expansion);
    assert!(!s.incomplete);
}

#[test]
fn nested_substitution_with_operators_inside() {
    let s = parse("echo $(a && b; c | d) && git log");
    assert_eq!(s.items.len(), 2);
    assert_eq!(s.simple_commands()[1].argv(), vec!["git", "log"]);
}

#[test]
fn list_operators() {
    assert_eq!(
        seps("a; b && c || d & e\nf"),
        vec![
            None,
            Some(Sep::Seq),
            Some(Sep::And),
            Some(Sep::Or),
            Some(Sep::Background),
            Some(Sep::Seq)
        ]
    );
    let s = parse("cargo test 2>&1 | tail -n 20 | grep -v ok");
    assert_eq!(s.items.len(), 1);
    assert_eq!(s.items[0].pipeline.commands.len(), 3);
}

#[test]
fn redirections() {
    let s = parse("make 2>&1 >out.log < in.txt &> all");
    let c = &s.simple_commands()[0];
    assert_eq!(c.argv(), vec!["make"]);
    let r: Vec<(Option<u32>, &str, &str)> = c
        .redirects
        .iter()
        .map(|r| (r.fd, r.op.as_str(), r.target.text.as_str()))
        .collect();
    assert_eq!(
        r,
        vec![
            (Some(2), ">&", "1"),
            (None, ">", "out.log"),
            (None, "<", "in.txt"),
            (None, "&>", "all")
        ]
    );
}

#[test]
fn heredocs() {
    let s = parse("cat <<EOF > f.txt\nline $x; && not an op\nEOF\ngit status");
    let cmds = s.simple_commands();
    assert_eq!(cmds.len(), 2);
    assert_eq!(
        cmds[0].redirects[0].heredoc.as_deref(),
        Some("line $x; && not an op\n")
    );
    assert_eq!(cmds[1].argv(), vec!["git", "status"]);
    let s = parse("cat <<-'END'\n\tindented\n\tEND\necho done");
    assert_eq!(
        s.simple_commands()[0].redirects[0].heredoc.as_deref(),
        Some("indented\n")
    );
    assert_eq!(s.simple_commands()[1].argv(), vec!["echo", "done"]);
}

#[test]
fn assignments_and_comments() {
    let s = parse("FOO=1 BAR='x y' cargo test # run tests\nls");
    let c = &s.simple_commands()[0];
    assert_eq!(
        c.assignments,
        vec![("FOO".into(), "1".into()), ("BAR".into(), "x y".into())]
    );
    assert_eq!(c.argv(), vec!["cargo", "test"]);
    assert_eq!(s.items.len(), 2);
}

#[test]
fn subshells_and_groups() {
    let s = parse("(cd web && npm test) ; { make; make install; }");
    assert_eq!(s.items.len(), 2);
    assert!(matches!(
        s.items[0].pipeline.commands[0],
        Command::Subshell(_)
    ));
    assert!(matches!(s.items[1].pipeline.commands[0], Command::Group(_)));
    assert_eq!(s.simple_commands().len(), 4);
}

#[test]
fn line_continuation() {
    assert_eq!(words("cargo \\\n  test"), vec![vec!["cargo", "test"]]);
}

#[test]
fn unterminated_is_total() {
    assert!(parse("echo 'abc").incomplete);
    assert!(parse("echo \"abc").incomplete);
    assert!(parse("echo $(abc").incomplete);
    assert!(parse("cat <<EOF\nno end").incomplete);
}

#[test]
fn quote_roundtrip_examples() {
    for s in [
        "",
        "a b",
        "it's",
        "$HOME",
        "a;b",
        "x\ny",
        "é",
        "--grep=a;b",
        "*",
    ] {
        assert_eq!(
            words(&join(&["cmd", s])),
            vec![vec!["cmd".to_string(), s.to_string()]]
        );
    }
    assert_eq!(quote("src/main.rs"), "src/main.rs");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parse_never_panics(src in ".{0,200}") {
        let _ = parse(&src);
    }

    #[test]
    fn parse_never_panics_on_shell_soup(src in r#"[a-z '"$`\\(){};&|<>\n#=-]{0,120}"#) {
        let _ = parse(&src);
    }

    #[test]
    fn join_then_parse_gives_argv_back(argv in prop::collection::vec(".{0,20}", 1..6)) {
        // NUL cannot appear in a real argv.
        let argv: Vec<String> = argv.into_iter().map(|a| a.replace('\0', "")).collect();
        let mut full = vec!["cmd".to_string()];
        full.extend(argv);
        let parsed = words(&join(&full));
        prop_assert_eq!(parsed, vec![full]);
    }
}
