//! `wrap --store`, `ls` and `cat` as a user runs them: exact bytes back, private files,
//! ids that cannot escape the store, retention, and a store that cannot be written.

mod common;

use common::Sandbox;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// `tokenjuice` in the sandbox with no store settings inherited from the caller.
fn tj(sb: &Sandbox) -> assert_cmd::Command {
    sb.store_cmd()
}

fn home(sb: &Sandbox) -> PathBuf {
    sb.path("data/tokenjuice")
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// The artifact id named in text output (`tokenjuice cat tj_…`).
fn named_id(text: &str) -> Option<String> {
    let at = text.find("tokenjuice cat tj_")? + "tokenjuice cat ".len();
    Some(text[at..at + 15].to_string())
}

fn only_artifact(sb: &Sandbox) -> String {
    let out = tj(sb).args(["ls", "--format", "json"]).output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 1, "{v}");
    list[0]["id"].as_str().unwrap().to_string()
}

/// Bytes a test command prints: every byte value, invalid UTF-8, multi-byte
/// characters (some split across the 64 KiB pipe reads), CR, NUL and ANSI.
fn tricky_bytes() -> Vec<u8> {
    let mut v = Vec::new();
    for i in 0..3000u32 {
        v.extend_from_slice(format!("line {i}: é中🦀 ok\r\n").as_bytes());
        if i % 100 == 0 {
            v.extend((0..=255u8).collect::<Vec<_>>());
            v.extend_from_slice(b"\xff\xfe\xc3\x28 \x1b[31mred\x1b[0m\0\n");
        }
    }
    v.extend_from_slice(&"é".repeat(40_000).into_bytes());
    v.extend_from_slice(b"no newline at the end \xe2\x82");
    v
}

#[test]
fn stored_output_comes_back_byte_identical() {
    let sb = Sandbox::new();
    let data = tricky_bytes();
    let file = sb.path("work/data.log");
    std::fs::write(&file, &data).unwrap();
    // reading a log is not an exact file read (logs are condensed): it is reduced, and cut
    let out = tj(&sb)
        .args(["wrap", "--store", "--", "sh", "-c", "cat data.log; exit 3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("exit 3\n"), "{text}");
    let id = named_id(&text).unwrap_or_else(|| panic!("no `tokenjuice cat <id>` in:\n{text}"));
    assert_eq!(id, only_artifact(&sb));
    let back = tj(&sb).args(["cat", &id]).output().unwrap();
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    assert!(
        back.stdout == data,
        "cat returned {} bytes, want {}",
        back.stdout.len(),
        data.len()
    );
    assert!(back.stderr.is_empty());

    // JSON: the text with invalid bytes replaced, and it says so
    let j = tj(&sb)
        .args(["cat", &id, "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    assert_eq!(v["id"], id);
    assert_eq!(v["lossless"], false);
    assert_eq!(
        v["rawText"].as_str().unwrap(),
        String::from_utf8_lossy(&data)
    );
    assert_eq!(v["metadata"]["rawBytes"], data.len() as u64);
    assert_eq!(v["metadata"]["exitCode"], 3);
}

#[test]
fn multi_byte_text_is_lossless_in_json_too() {
    let sb = Sandbox::new();
    let text = "naïve café 中文 🦀 \"quoted\" \\ tab\t\n".repeat(5000);
    std::fs::write(sb.path("work/u.txt"), &text).unwrap();
    let out = tj(&sb)
        .args([
            "wrap",
            "--store",
            "--format",
            "json",
            "--",
            "sh",
            "-c",
            "cat u.txt",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = v["result"]["rawRef"]["id"].as_str().unwrap().to_string();
    let path = v["result"]["rawRef"]["path"].as_str().unwrap();
    assert!(Path::new(path).starts_with(home(&sb)), "{path}");
    assert_eq!(v["result"]["rawRef"]["storage"], "file");
    let j = tj(&sb)
        .args(["cat", &id, "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    assert_eq!(v["lossless"], true);
    assert_eq!(v["rawText"].as_str().unwrap(), text);
    let raw = tj(&sb).args(["cat", &id]).output().unwrap();
    assert_eq!(raw.stdout, text.as_bytes());
}

#[test]
fn raw_mode_still_stores_and_stays_byte_identical() {
    let sb = Sandbox::new();
    let data = tricky_bytes();
    std::fs::write(sb.path("work/data.bin"), &data).unwrap();
    let out = tj(&sb)
        .args(["wrap", "--store", "--raw", "--", "sh", "-c", "cat data.bin"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout == data);
    let id = only_artifact(&sb);
    let back = tj(&sb).args(["cat", &id]).output().unwrap();
    assert!(back.stdout == data);
}

#[test]
fn artifact_files_are_private() {
    let sb = Sandbox::new();
    tj(&sb)
        .args(["wrap", "--store", "--", "sh", "-c", "seq 1 2000"])
        .assert()
        .success();
    let id = only_artifact(&sb);
    let dir = home(&sb).join("artifacts");
    assert_eq!(mode(&home(&sb)), 0o700);
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join(format!("{id}.raw.gz"))), 0o600);
    assert_eq!(mode(&dir.join(format!("{id}.json"))), 0o600);
    assert_eq!(mode(&home(&sb).join("history.sqlite3")), 0o600);
    // nothing else is left behind (no temporary parts)
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn ids_that_try_to_leave_the_store_are_refused() {
    let sb = Sandbox::new();
    tj(&sb)
        .args(["wrap", "--store", "--", "sh", "-c", "seq 1 2000"])
        .assert()
        .success();
    // a file outside the artifact directory that a traversal would reach
    std::fs::write(home(&sb).join("secret.raw.gz"), b"not yours").unwrap();
    for bad in [
        "../secret",
        "../../etc/passwd",
        "/etc/passwd",
        "tj_../../secr",
        "tj_0123456789AB",
        "tj_0123456789a",
        "tj_0123456789abc",
        "tj_0123456789ab/",
        "tj_01234567\n9ab",
        ".",
        "",
    ] {
        let out = tj(&sb).args(["cat", "--", bad]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
        assert!(out.stdout.is_empty(), "{bad:?} printed something");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("is not an artifact id"), "{bad:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let out = tj(&sb).args(["cat", "tj_000000000000"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no artifact tj_000000000000"));
}

#[test]
fn host_switch_stores_for_that_host_only() {
    let sb = Sandbox::new();
    let out = tj(&sb)
        .env("TOKENJUICE_CODEBUDDY_STORE", "1")
        .args(["wrap", "--source", "cursor", "--", "sh", "-c", "seq 1 3000"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(named_id(&String::from_utf8_lossy(&out.stdout)).is_none());
    let out = tj(&sb)
        .env("TOKENJUICE_CODEBUDDY_STORE", "1")
        .args([
            "wrap",
            "--source",
            "codebuddy",
            "--",
            "sh",
            "-c",
            "seq 1 3000",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let id = named_id(&text).unwrap_or_else(|| panic!("{text}"));
    assert_eq!(id, only_artifact(&sb));
    let listed = tj(&sb).args(["ls", "--format", "json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(v[0]["source"], "codebuddy");
    assert_eq!(v[0]["command"], "seq");
    let text = tj(&sb).arg("ls").output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains(&id) && text.contains("seq"), "{text}");
}

/// Lines that do not fold into one another (different words), so reductions cut them.
fn varied_lines(n: usize) -> String {
    let words = [
        "apple", "broker", "cinder", "delta", "ember", "fjord", "grain", "harbor", "island",
        "jungle", "kettle", "lantern",
    ];
    (0..n)
        .map(|i| {
            let w: Vec<&str> = (0..4)
                .map(|k| words[(i * 7 + k * 5 + i / 3) % words.len()])
                .collect();
            format!("{} {} {} {}\n", w[0], w[1], w[2], w[3])
        })
        .collect()
}

#[test]
fn a_store_that_cannot_be_written_costs_only_the_artifact() {
    let sb = Sandbox::new();
    std::fs::write(
        sb.path("data/blocker"),
        b"a file where a directory should be",
    )
    .unwrap();
    sb.write("work/varied.log", &varied_lines(3000)); // a log: condensed, not an exact read
    let out = tj(&sb)
        .env("TOKENJUICE_HOME", sb.path("data/blocker/tj"))
        .args([
            "wrap",
            "--store",
            "--",
            "sh",
            "-c",
            "cat varied.log; echo done; exit 4",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("exit 4\n") && text.contains("done"),
        "{text}"
    );
    assert!(
        text.contains("--raw"),
        "the marker falls back to --raw: {text}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot keep the raw output"), "{err}");
}

#[test]
fn retention_keeps_the_store_within_its_size() {
    let sb = Sandbox::new();
    // incompressible output, ~600 KB per run; a 1 MiB budget holds one or two
    std::fs::write(
        sb.path("work/gen.sh"),
        "od -An -tx1 -v -N 300000 /dev/urandom\n",
    )
    .unwrap();
    let mut ids = Vec::new();
    for _ in 0..4 {
        let out = tj(&sb)
            .env("TOKENJUICE_RETENTION_MB", "1")
            .args(["wrap", "--store", "--", "sh", "gen.sh"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        ids.push(named_id(&text).unwrap_or_else(|| panic!("{text}")));
    }
    let out = tj(&sb).args(["ls", "--format", "json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let left: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert!(
        left.contains(&ids[3].as_str()),
        "the newest stays: {left:?}"
    );
    assert!(
        !left.contains(&ids[0].as_str()),
        "the oldest went: {left:?}"
    );
    let total: u64 = v
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["storedBytes"].as_u64().unwrap())
        .sum();
    assert!(total <= 1 << 20, "{total}");
    // a gone artifact says so
    let out = tj(&sb).args(["cat", &ids[0]]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("retention"));
}

#[test]
fn retention_by_age_removes_old_artifacts() {
    let sb = Sandbox::new();
    tj(&sb)
        .args(["wrap", "--store", "--", "sh", "-c", "seq 1 3000"])
        .assert()
        .success();
    let old = only_artifact(&sb);
    // make it 40 days old
    let meta = home(&sb).join(format!("artifacts/{old}.json"));
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&meta).unwrap()).unwrap();
    v["createdMs"] = (v["createdMs"].as_i64().unwrap() - 40 * 86_400_000).into();
    std::fs::write(&meta, v.to_string()).unwrap();
    tj(&sb)
        .args(["wrap", "--store", "--", "sh", "-c", "seq 1 3000"])
        .assert()
        .success();
    let now = only_artifact(&sb);
    assert_ne!(now, old);
    // unless retention says keep them longer
    let sb = Sandbox::new();
    tj(&sb)
        .args(["wrap", "--store", "--", "sh", "-c", "seq 1 3000"])
        .assert()
        .success();
    let old = only_artifact(&sb);
    let meta = home(&sb).join(format!("artifacts/{old}.json"));
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&meta).unwrap()).unwrap();
    v["createdMs"] = (v["createdMs"].as_i64().unwrap() - 40 * 86_400_000).into();
    std::fs::write(&meta, v.to_string()).unwrap();
    tj(&sb)
        .env("TOKENJUICE_RETENTION_DAYS", "90")
        .args(["wrap", "--store", "--", "sh", "-c", "seq 1 3000"])
        .assert()
        .success();
    let out = tj(&sb).args(["ls", "--format", "json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
}

#[test]
fn the_per_artifact_cap_is_said_on_cat() {
    let sb = Sandbox::new();
    let out = tj(&sb)
        .env("TOKENJUICE_ARTIFACT_MAX_MB", "1")
        .args(["wrap", "--store", "--", "sh", "-c", "seq 1 400000"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("has the first 1.0 MiB"), "{text}");
    let id = named_id(&text).unwrap();
    let back = tj(&sb).args(["cat", &id]).output().unwrap();
    assert_eq!(back.stdout.len(), 1 << 20);
    assert!(String::from_utf8_lossy(&back.stderr).contains("first 1048576 of"));
}

#[test]
fn reduce_and_reduce_json_store_too() {
    let sb = Sandbox::new();
    let input: String = (0..3000).map(|i| format!("row {i}\n")).collect();
    let out = tj(&sb)
        .args(["reduce", "--store", "--source-command", "seq 1 3000"])
        .write_stdin(input.clone())
        .output()
        .unwrap();
    let id = named_id(&String::from_utf8_lossy(&out.stdout)).unwrap();
    assert_eq!(
        tj(&sb).args(["cat", &id]).output().unwrap().stdout,
        input.as_bytes()
    );

    let req = serde_json::json!({"input": {"command": "seq 1 3000", "combinedText": input, "exitCode": 0},
                                  "options": {"store": true, "source": "codex"}});
    let out = tj(&sb)
        .arg("reduce-json")
        .write_stdin(req.to_string())
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id2 = v["rawRef"]["id"].as_str().unwrap();
    assert!(v["inlineText"]
        .as_str()
        .unwrap()
        .contains(&format!("tokenjuice cat {id2}")));
    assert_eq!(
        tj(&sb).args(["cat", id2]).output().unwrap().stdout,
        input.as_bytes()
    );
}
