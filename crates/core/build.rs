//! Embeds the built-in rules and fixtures from `<workspace>/rules`.
//!
//! For every rule it also writes its `id`, `family`, `priority` and `match` block as
//! static data, so classifying a command never parses JSON: only the winning rule's
//! JSON text is parsed at run time.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A rule as embedded: minified, without its `description` (prose for people, read by
/// tools/coverage from the rule file; nothing at run time reads it). Key order does not
/// matter to the rule's meaning.
fn embedded_rule(v: &serde_json::Value) -> String {
    let mut v = v.clone();
    if let Some(m) = v.as_object_mut() {
        m.remove("description");
        // the id, family and match block are embedded once, as `BuiltinRule`'s fields
        // (`BuiltinRule::rule` puts them back)
        m.insert("match".into(), serde_json::json!({}));
        m.insert("id".into(), serde_json::json!(""));
        m.insert("family".into(), serde_json::json!(""));
    }
    serde_json::to_string(&v).expect("a parsed value serializes")
}

/// A fixture as embedded: minified, without its `about` (where the output came from, prose
/// for people; tools/coverage reads it from the file) and `$schema`. Nothing else changes.
fn embedded_fixture(text: &str, rel: &str) -> String {
    let mut v: serde_json::Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{rel}: not JSON: {e}"));
    if let Some(m) = v.as_object_mut() {
        m.remove("about");
        m.remove("$schema");
    }
    serde_json::to_string(&v).expect("a parsed value serializes")
}

fn main() {
    let manifest =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let rules_dir = manifest.join("../../rules");
    println!("cargo:rerun-if-changed={}", rules_dir.display());
    let mut files = Vec::new();
    if rules_dir.is_dir() {
        walk(&rules_dir, &mut files);
    }
    files.sort();
    let mut rules = String::from("pub static BUILTIN_RULES: &[BuiltinRule] = &[\n");
    // Fixtures are only read by `verify --fixtures` and the tests: they are stored
    // deflate-compressed (path NUL text NUL …) so they cost the binary ~6x less.
    let mut fixture_blob: Vec<u8> = Vec::new();
    let mut fixture_count = 0usize;
    for f in &files {
        let rel = f
            .strip_prefix(&rules_dir)
            .expect("walked below rules_dir")
            .to_string_lossy()
            .replace('\\', "/");
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with(".fixture.json") {
            let text =
                std::fs::read_to_string(f).unwrap_or_else(|e| panic!("read {}: {e}", f.display()));
            assert!(!text.contains('\0'), "{rel}: a NUL byte in a fixture");
            fixture_blob.extend_from_slice(rel.as_bytes());
            fixture_blob.push(0);
            fixture_blob.extend_from_slice(embedded_fixture(&text, &rel).as_bytes());
            fixture_blob.push(0);
            fixture_count += 1;
            continue;
        }
        if !name.ends_with(".json") || name.ends_with(".schema.json") {
            continue;
        }
        let text =
            std::fs::read_to_string(f).unwrap_or_else(|e| panic!("read {}: {e}", f.display()));
        let v: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("built-in rule {rel} is not valid JSON: {e}"));
        let id = v["id"]
            .as_str()
            .unwrap_or_else(|| panic!("built-in rule {rel} has no id"));
        let family = v["family"]
            .as_str()
            .unwrap_or_else(|| panic!("built-in rule {rel} has no family"));
        let priority = v["priority"].as_f64().unwrap_or(0.0);
        let m = &v["match"];
        let list = |k: &str| -> String {
            match m.get(k).and_then(|x| x.as_array()) {
                Some(a) => format!(
                    "Some(&[{}])",
                    a.iter()
                        .map(|s| format!(
                            "{:?}",
                            s.as_str()
                                .unwrap_or_else(|| panic!("{rel}: match.{k} must hold strings"))
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => "None".into(),
            }
        };
        let groups = |k: &str| -> String {
            match m.get(k).and_then(|x| x.as_array()) {
                Some(a) => format!(
                    "Some(&[{}])",
                    a.iter()
                        .map(|g| format!(
                            "&[{}]",
                            g.as_array()
                                .unwrap_or_else(|| panic!("{rel}: match.{k} must hold lists"))
                                .iter()
                                .map(|s| format!("{:?}", s.as_str().unwrap_or("")))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => "None".into(),
            }
        };
        writeln!(
            rules,
            "    BuiltinRule {{ path: {rel:?}, id: {id:?}, family: {family:?}, priority: {priority:?}, matcher: StaticMatch {{ tool_names: {}, argv0: {}, git_subcommands: {}, argv_includes: {}, argv_includes_any: {}, command_includes: {}, command_includes_any: {} }}, json: {:?} }},",
            list("toolNames"),
            list("argv0"),
            list("gitSubcommands"),
            groups("argvIncludes"),
            groups("argvIncludesAny"),
            list("commandIncludes"),
            list("commandIncludesAny"),
            embedded_rule(&v)
        )
        .ok();
    }
    rules.push_str("];\n");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut enc, &fixture_blob).expect("compress fixtures");
    let z = enc.finish().expect("compress fixtures");
    std::fs::write(out_dir.join("builtin_fixtures.deflate"), z).expect("write fixtures");
    let fixtures = format!(
        "/// Built-in fixtures, deflate-compressed: `path NUL text NUL` for each of {fixture_count}.\n\
         pub static BUILTIN_FIXTURES_DEFLATE: &[u8] = include_bytes!(concat!(env!(\"OUT_DIR\"), \"/builtin_fixtures.deflate\"));\n\
         pub const BUILTIN_FIXTURE_COUNT: usize = {fixture_count};\n"
    );
    std::fs::write(
        out_dir.join("builtin_rules.rs"),
        format!("{rules}\n{fixtures}"),
    )
    .expect("write generated rules");
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}
