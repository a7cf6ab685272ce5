//! Embeds the built-in rules and fixtures from `<workspace>/rules`.
//!
//! For every rule it also writes its `id`, `family`, `priority` and `match` block as
//! static data, so classifying a command never parses JSON: only the winning rule's
//! JSON text is parsed at run time.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

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
    let mut fixtures = String::from("pub static BUILTIN_FIXTURES: &[(&str, &str)] = &[\n");
    for f in &files {
        let rel = f
            .strip_prefix(&rules_dir)
            .expect("walked below rules_dir")
            .to_string_lossy()
            .replace('\\', "/");
        let abs = f.canonicalize().expect("walked files exist");
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with(".fixture.json") {
            writeln!(
                fixtures,
                "    ({rel:?}, include_str!({:?})),",
                abs.display().to_string()
            )
            .ok();
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
            "    BuiltinRule {{ path: {rel:?}, id: {id:?}, family: {family:?}, priority: {priority:?}, matcher: StaticMatch {{ tool_names: {}, argv0: {}, git_subcommands: {}, argv_includes: {}, argv_includes_any: {}, command_includes: {}, command_includes_any: {} }}, json: include_str!({:?}) }},",
            list("toolNames"),
            list("argv0"),
            list("gitSubcommands"),
            groups("argvIncludes"),
            groups("argvIncludesAny"),
            list("commandIncludes"),
            list("commandIncludesAny"),
            abs.display().to_string()
        )
        .ok();
    }
    rules.push_str("];\n");
    fixtures.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("builtin_rules.rs");
    std::fs::write(out, format!("{rules}\n{fixtures}")).expect("write generated rules");
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
