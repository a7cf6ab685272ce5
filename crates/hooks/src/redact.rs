//! Secret redaction for logs.
//!
//! Three layers, all tested against both leaks and over-redaction:
//! - **key names**: a key is sensitive when one of its words (split on `_`, `-`, `.`,
//!   spaces and camelCase) is `password`, `passwd`, `pwd`, `passphrase`, `secret`,
//!   `token`, `credential(s)`, `auth`, `authorization`, `cookie`, `apikey`, or when two
//!   adjacent words are `api key`, `access key`, `private key`, `session key`, `client
//!   secret`. Whole words only: `author`, `monkey`, `primaryKey`, `tokenizer` and
//!   `max_tokens` are not secrets.
//! - **assignments** in text: `KEY=value`, `KEY: value`, `"key": "value"`, `--key value`,
//!   `--key=value` and `scheme://user:password@host` with a sensitive key.
//! - **bare tokens** with a recognisable shape: `sk-…`, `ghp_…`/`github_pat_…`, AWS access
//!   key ids (`AKIA…`/`ASIA…`), Slack `xox?-…`, Google `AIza…`, GitLab `glpat-…`, Stripe
//!   `sk_live_…`, npm `npm_…`, JWTs, `Bearer <token>` and PEM private-key blocks.
//! - **tools that take a secret in a short flag or a positional argument**: `mysql`/
//!   `mysqldump`/`mariadb`/`mysqladmin` `-p<password>`, `curl -u user:password`,
//!   `redis-cli -a <password>`, `sshpass -p <password>`, `docker`/`podman`/`helm`/`nerdctl`
//!   `login -p <password>`, `aws configure set <secret key> <value>` — also inside a quoted
//!   `sh -c '…'`.
//! - Key words match as a word or as the end of one (`PGPASSWORD`, `DBPASSWORD`,
//!   `GITHUB_TOKEN`), never as a beginning (`tokenizer`).

use std::sync::OnceLock;

use regex::{Captures, Regex};
use serde_json::{Map, Value};

/// The replacement text.
pub const REDACTED: &str = "[REDACTED]";

const SENSITIVE_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "token",
    "credential",
    "credentials",
    "auth",
    "authorization",
    "cookie",
    "apikey",
    "privatekey",
    "accesskey",
    "secretkey",
    "sessionkey",
    "clientsecret",
    "bearer",
];
const SENSITIVE_PAIRS: &[(&str, &str)] = &[
    ("api", "key"),
    ("access", "key"),
    ("private", "key"),
    ("session", "key"),
    ("client", "secret"),
    ("secret", "key"),
];

fn words(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Words that are secret keys also at the end of a longer word (`pgpassword`).
const SENSITIVE_SUFFIXES: &[&str] = &["password", "passwd", "passphrase", "secret", "token"];

/// True when a key name denotes a secret.
pub fn is_sensitive_key(key: &str) -> bool {
    let w = words(key);
    if w.iter().any(|x| {
        SENSITIVE_WORDS.contains(&x.as_str())
            || SENSITIVE_SUFFIXES
                .iter()
                .any(|s| x.len() > s.len() && x.ends_with(s))
    }) {
        return true;
    }
    w.windows(2).any(|p| {
        SENSITIVE_PAIRS
            .iter()
            .any(|(a, b)| p[0] == *a && p[1] == *b)
    })
}

struct Patterns {
    /// Tools with a secret in a short flag: group 1 is kept, group 2 is the secret.
    tool_flags: Vec<Regex>,
    /// `aws configure set <key> <value>`.
    aws_set: Regex,
    pem: Regex,
    bearer: Regex,
    url_credentials: Regex,
    flag: Regex,
    assignment: Regex,
    tokens: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = |s: &str| match Regex::new(s) {
            Ok(r) => r,
            // The patterns are constants; a failure here is a bug caught by the tests.
            Err(e) => panic!("redaction pattern {s:?} is invalid: {e}"),
        };
        // the rest of one command: no `;`, `&`, `|`, newline or closing quote in between
        const SAME_CMD: &str = r#"[^;&|\n'"]*?"#;
        let tool = |head: &str, flag: &str| {
            re(&format!(
                r#"(\b(?:{head}){SAME_CMD}\s{flag}['"]?)([^\s'"]+)"#
            ))
        };
        Patterns {
            tool_flags: vec![
                // -p directly followed by the password (mysql's own syntax; `-p` alone asks)
                tool("mysql|mysqldump|mariadb|mysqladmin|mariadb-dump", "-p"),
                tool("redis-cli", r"-a\s+"),
                tool("sshpass", r"-p\s*"),
                tool(
                    r#"(?:docker|podman|helm|nerdctl)\s+(?:[^;&|\n'"]*?\s)?login"#,
                    r"-p\s*",
                ),
                // curl -u user:password: the user stays
                re(r#"(\bcurl[^;&|\n'"]*?\s(?:-u\s*|--user(?:\s+|=))[^\s:'"]+:)([^\s'"]+)"#),
            ],
            aws_set: re(r#"\baws\s+configure\s+set\s+([A-Za-z0-9_.-]+)\s+([^\s'"]+)"#),
            pem: re(
                r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----",
            ),
            bearer: re(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{8,}"),
            url_credentials: re(r"([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]+:)([^\s@/]+)(@)"),
            flag: re(r#"(--?)([A-Za-z][A-Za-z0-9_-]*)(=|\s+)(["']?)([^\s"']+)"#),
            assignment: re(
                r#"([A-Za-z_][A-Za-z0-9_.-]*)(["']?\s*[:=]\s*)(["']?)([^\s"',;&|)}\]]+)"#,
            ),
            tokens: re(concat!(
                r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}",
                r"|\bgh[pousr]_[A-Za-z0-9]{20,}",
                r"|\bgithub_pat_[A-Za-z0-9_]{20,}",
                r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
                r"|\bxox[abposr]-[A-Za-z0-9-]{10,}",
                r"|\bAIza[0-9A-Za-z_-]{35}",
                r"|\bglpat-[A-Za-z0-9_-]{20,}",
                r"|\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}",
                r"|\bnpm_[A-Za-z0-9]{36}\b",
                r"|\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
            )),
        }
    })
}

/// Redacts secrets in free text (a command line, an output, a log message).
pub fn redact_text(text: &str) -> String {
    let p = patterns();
    let mut owned = text.to_string();
    for r in &p.tool_flags {
        owned = r
            .replace_all(&owned, |c: &Captures| format!("{}{REDACTED}", &c[1]))
            .into_owned();
    }
    let owned = p
        .aws_set
        .replace_all(&owned, |c: &Captures| {
            if is_sensitive_key(&c[1]) {
                format!("aws configure set {} {REDACTED}", &c[1])
            } else {
                c[0].to_string()
            }
        })
        .into_owned();
    let s = p.pem.replace_all(&owned, REDACTED);
    let s = p.tokens.replace_all(&s, REDACTED);
    let s = p
        .bearer
        .replace_all(&s, |c: &Captures| format!("{}{}{REDACTED}", &c[1], &c[2]));
    let s = p
        .url_credentials
        .replace_all(&s, |c: &Captures| format!("{}{REDACTED}{}", &c[1], &c[3]));
    let s = p.flag.replace_all(&s, |c: &Captures| {
        if is_sensitive_key(&c[2]) && &c[5] != REDACTED {
            format!("{}{}{}{}{REDACTED}", &c[1], &c[2], &c[3], &c[4])
        } else {
            c[0].to_string()
        }
    });
    let s = p.assignment.replace_all(&s, |c: &Captures| {
        let value = &c[4];
        let scheme_word =
            value.eq_ignore_ascii_case("bearer") || value.eq_ignore_ascii_case("basic");
        if is_sensitive_key(&c[1]) && !value.starts_with("[REDACTED") && !scheme_word {
            format!("{}{}{}{REDACTED}", &c[1], &c[2], &c[3])
        } else {
            c[0].to_string()
        }
    });
    s.into_owned()
}

/// Redacts a JSON value: sensitive keys lose their values, strings are scanned with
/// [`redact_text`], and `{"name": "password", "value": …}` pairs lose their value.
pub fn redact_value(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(redact_text(s)),
        Value::Array(a) => Value::Array(a.iter().map(redact_value).collect()),
        Value::Object(o) => {
            let named_secret = ["name", "key"].iter().any(|k| {
                o.get(*k)
                    .and_then(Value::as_str)
                    .is_some_and(is_sensitive_key)
            });
            let mut out = Map::new();
            for (k, val) in o {
                let secret = is_sensitive_key(k) || (named_secret && k == "value");
                let redacted = if secret && !val.is_null() && !matches!(val, Value::Bool(_)) {
                    Value::String(REDACTED.into())
                } else {
                    redact_value(val)
                };
                out.insert(k.clone(), redacted);
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_names_are_whole_words() {
        for k in [
            "password",
            "DB_PASSWORD",
            "apiKey",
            "api_key",
            "API-KEY",
            "x-api-key",
            "accessToken",
            "auth_token",
            "AWS_SECRET_ACCESS_KEY",
            "clientSecret",
            "Authorization",
            "passwd",
            "session_key",
            "privateKey",
        ] {
            assert!(is_sensitive_key(k), "{k} should be sensitive");
        }
        for k in [
            "author",
            "monkey",
            "primaryKey",
            "keyboard",
            "tokenizer",
            "max_tokens",
            "authority",
            "passage",
            "keys",
            "name",
            "secretary",
        ] {
            assert!(!is_sensitive_key(k), "{k} should not be sensitive");
        }
    }

    #[test]
    fn assignments_are_redacted_in_every_common_form() {
        let cases = [
            (
                "export API_KEY=abcdef1234567890",
                "export API_KEY=[REDACTED]",
            ),
            (
                "PASSWORD='hunter2' make deploy",
                "PASSWORD='[REDACTED]' make deploy",
            ),
            (
                r#"{"password": "hunter2", "user": "bob"}"#,
                r#"{"password": "[REDACTED]", "user": "bob"}"#,
            ),
            (
                "mysql --password hunter2 -u bob",
                "mysql --password [REDACTED] -u bob",
            ),
            (
                "curl --api-key=xyz123 https://x",
                "curl --api-key=[REDACTED] https://x",
            ),
            (
                "git clone https://bob:s3cret@github.com/x.git",
                "git clone https://bob:[REDACTED]@github.com/x.git",
            ),
            ("token: abc.def", "token: [REDACTED]"),
        ];
        for (input, want) in cases {
            assert_eq!(redact_text(input), want, "{input}");
        }
    }

    #[test]
    fn bare_tokens_are_redacted() {
        let secrets = [
            "sk-abcdefghijklmnopqrstuvwx",
            "sk-ant-api03-abcdefghijklmnopqrstu",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "github_pat_11ABCDEFG0123456789_abcdefghijkl",
            "AKIAIOSFODNN7EXAMPLE",
            "xoxb-1234567890-abcdefghij",
            "AIzaSyA1234567890abcdefghijklmnopqrstuv",
            "glpat-abcdefghijklmnopqrstu",
            "sk_live_abcdefghijklmnop1234",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ];
        for s in secrets {
            let text = format!("run with {s} now");
            let out = redact_text(&text);
            assert!(!out.contains(s), "{s} leaked: {out}");
            assert!(out.contains(REDACTED), "{out}");
            assert!(
                out.starts_with("run with ") && out.ends_with(" now"),
                "{out}"
            );
        }
        let out = redact_text("curl -H 'Authorization: Bearer abcdef123456789' x");
        assert!(!out.contains("abcdef123456789"), "{out}");
        let pem = "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\ndone";
        assert_eq!(redact_text(pem), "key:\n[REDACTED]\ndone");
    }

    #[test]
    fn ordinary_text_is_untouched() {
        for s in [
            "git commit -m 'fix author field'",
            "monkey=banana author=alice",
            "ls -la /tmp && echo done",
            "npm install --save-dev typescript",
            "cargo test --package tokenjuice-hooks",
            "the key insight is speed",
            "sk-short",
        ] {
            assert_eq!(redact_text(s), s);
        }
    }

    #[test]
    fn json_values_are_walked() {
        let v = json!({
            "command": "deploy --token abcdefgh12345",
            "env": {"GITHUB_TOKEN": "ghp_x", "HOME": "/home/u", "author": "alice"},
            "headers": [{"name": "Authorization", "value": "Basic dXNlcjpwYXNz"}, {"name": "Accept", "value": "json"}],
            "apiKey": null,
            "count": 3
        });
        let r = redact_value(&v);
        assert_eq!(r["command"], "deploy --token [REDACTED]");
        assert_eq!(r["env"]["GITHUB_TOKEN"], REDACTED);
        assert_eq!(r["env"]["HOME"], "/home/u");
        assert_eq!(r["env"]["author"], "alice");
        assert_eq!(r["headers"][0]["value"], REDACTED);
        assert_eq!(r["headers"][1]["value"], "json");
        assert_eq!(r["apiKey"], Value::Null);
        assert_eq!(r["count"], 3);
    }

    #[test]
    fn twenty_common_secret_shapes_never_survive_and_ordinary_commands_do() {
        let secrets: &[(&str, &str)] = &[
            ("mysql -u root -pPassw0rd shop", "Passw0rd"),
            (
                "sh -c 'mysql -uroot -pPassw0rd -e \"select 1\"'",
                "Passw0rd",
            ),
            ("mysqldump -h db -pS3cr3t! shop > dump.sql", "S3cr3t!"),
            ("curl -u alice:hunter22 https://api.example.com", "hunter22"),
            ("curl --user alice:hunter22 https://x", "hunter22"),
            ("PGPASSWORD=pgSecret1 psql -h db", "pgSecret1"),
            ("redis-cli -h cache -a r3disPass ping", "r3disPass"),
            ("sshpass -p 'sshPass9' ssh host", "sshPass9"),
            ("sshpass -psshPass9 ssh host", "sshPass9"),
            ("docker login -u bob -p dockPass7 registry.io", "dockPass7"),
            ("podman login registry.io -p podPass7", "podPass7"),
            (
                "aws configure set aws_secret_access_key wJalrXUtnFEMIK7MDENG",
                "wJalrXUtnFEMIK7MDENG",
            ),
            ("export GITHUB_TOKEN=abcd1234efgh", "abcd1234efgh"),
            ("git clone https://bob:gitPass5@github.com/x/y", "gitPass5"),
            (
                "curl -H 'Authorization: Bearer abcdefghijklmnop' x",
                "abcdefghijklmnop",
            ),
            (
                "npm config set //registry/:_authToken=npmTok123456",
                "npmTok123456",
            ),
            ("psql postgres://app:dbPass3@db/shop", "dbPass3"),
            ("tool --password=topsecret1", "topsecret1"),
            (
                "tool --api-key sk-abcdefghijklmnopqrstu",
                "sk-abcdefghijklmnopqrstu",
            ),
            (
                "echo ghp_abcdefghijklmnopqrstuvwxyz0123",
                "ghp_abcdefghijklmnopqrstuvwxyz0123",
            ),
            ("MYSQL_PWD=myPwd4 mysql shop", "myPwd4"),
            ("DBPASSWORD=dbpw9 ./migrate", "dbpw9"),
        ];
        for (cmd, secret) in secrets {
            let r = redact_text(cmd);
            assert!(!r.contains(secret), "{cmd} -> {r}");
            assert!(r.contains(REDACTED), "{cmd} -> {r}");
        }
        // the parts that are not secrets stay readable
        assert_eq!(
            redact_text("curl -u alice:hunter22 https://x"),
            "curl -u alice:[REDACTED] https://x"
        );
        assert_eq!(
            redact_text("mysql -u root -pPassw0rd shop"),
            "mysql -u root -p[REDACTED] shop"
        );
        let ordinary = [
            "mysql -u root -p shop",
            "grep -p pattern file",
            "ls -a -p /tmp",
            "docker run -p 8080:80 nginx",
            "aws configure set region eu-west-1",
            "curl -o out.html https://example.com",
            "redis-cli -h cache ping",
            "python train.py --max_tokens 100 --tokenizer bpe",
            "cargo test -p tokenjuice-core",
            "git commit -m 'set password rules'",
        ];
        for cmd in ordinary {
            assert_eq!(redact_text(cmd), cmd, "over-redacted");
        }
    }
}
