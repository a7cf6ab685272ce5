//! Reads of `package-lock.json` (`cat package-lock.json`): thousands of lines an agent
//! never needs whole. Kept: the package name and version, lockfileVersion, how many
//! packages are locked (dev / optional / peer), every direct dependency with the version
//! actually locked, and packages locked at more than one version. The file itself is one
//! `git show`/`cat --raw` away, and the omission note says so.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Structured, StructuredOutput, WholeText};

/// Lock files larger than this are left to the line reduction (bounded memory).
const MAX_BYTES: usize = 12 << 20;

#[derive(Default)]
pub struct PackageLock {
    text: WholeText<MAX_BYTES>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Lock {
    name: Option<String>,
    version: Option<String>,
    #[serde(rename = "lockfileVersion")]
    lockfile_version: Option<u32>,
    packages: BTreeMap<String, Pkg>,
    /// lockfileVersion 1
    dependencies: BTreeMap<String, Pkg>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Pkg {
    version: Option<String>,
    dev: bool,
    optional: bool,
    peer: bool,
    dependencies: BTreeMap<String, String>,
    #[serde(rename = "devDependencies")]
    dev_dependencies: BTreeMap<String, String>,
}

impl Structured for PackageLock {
    fn push(&mut self, line: &str) {
        self.text.push(line);
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        let t = self.text.get()?;
        let lock: Lock = serde_json::from_str(t).ok()?;
        let v2 = !lock.packages.is_empty();
        let entries: Vec<(&str, &Pkg)> = if v2 {
            lock.packages
                .iter()
                .filter(|(k, _)| !k.is_empty())
                .map(|(k, p)| (k.as_str(), p))
                .collect()
        } else {
            lock.dependencies
                .iter()
                .map(|(k, p)| (k.as_str(), p))
                .collect()
        };
        if lock.lockfile_version.is_none() && entries.is_empty() {
            return None;
        }
        let name_of =
            |k: &str| -> String { k.rsplit("node_modules/").next().unwrap_or(k).to_string() };
        let mut lines = Vec::new();
        lines.push(format!(
            "package-lock.json: {}@{} (lockfileVersion {})",
            lock.name.as_deref().unwrap_or("?"),
            lock.version.as_deref().unwrap_or("?"),
            lock.lockfile_version.map_or("?".into(), |v| v.to_string())
        ));
        let dev = entries.iter().filter(|(_, p)| p.dev).count();
        let optional = entries.iter().filter(|(_, p)| p.optional).count();
        let peer = entries.iter().filter(|(_, p)| p.peer).count();
        lines.push(format!(
            "{} packages locked ({dev} dev, {optional} optional, {peer} peer)",
            entries.len()
        ));
        // direct dependencies, with the version locked at the top level
        let root = lock.packages.get("");
        let locked = |name: &str| -> String {
            let key = format!("node_modules/{name}");
            lock.packages
                .get(&key)
                .or_else(|| lock.dependencies.get(name))
                .and_then(|p| p.version.clone())
                .unwrap_or_else(|| "not locked".into())
        };
        for (label, deps) in [
            ("dependencies", root.map(|r| &r.dependencies)),
            ("devDependencies", root.map(|r| &r.dev_dependencies)),
        ] {
            let Some(deps) = deps.filter(|d| !d.is_empty()) else {
                continue;
            };
            let items: Vec<String> = deps
                .iter()
                .map(|(n, range)| format!("{n} {range} → {}", locked(n)))
                .collect();
            lines.push(format!("{label} ({}): {}", items.len(), items.join(", ")));
        }
        // the same package locked at several versions
        let mut versions: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (k, p) in &entries {
            if let Some(v) = &p.version {
                let list = versions.entry(name_of(k)).or_default();
                if !list.contains(v) {
                    list.push(v.clone());
                }
            }
        }
        let multi: Vec<String> = versions
            .iter()
            .filter(|(_, v)| v.len() > 1)
            .map(|(n, v)| {
                let mut v = v.clone();
                v.sort();
                format!("{n} ({})", v.join(", "))
            })
            .collect();
        if !multi.is_empty() {
            let shown: Vec<&String> = multi.iter().take(40).collect();
            let more = if multi.len() > 40 {
                format!(" … +{} more", multi.len() - 40)
            } else {
                String::new()
            };
            lines.push(format!(
                "locked at several versions ({}): {}{more}",
                multi.len(),
                shown
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Some(StructuredOutput {
            name: "package-lock",
            lines,
            facts: vec![("package".into(), entries.len() as u64)],
            omitted: self.text.lines,
            filtered: 0,
            facts_line: false,
            json_cut: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarizes_a_v3_lock() {
        let text = r#"{
  "name": "app", "version": "1.2.0", "lockfileVersion": 3, "requires": true,
  "packages": {
    "": { "name": "app", "version": "1.2.0", "dependencies": { "ms": "^2.1.3" }, "devDependencies": { "vitest": "^3.0.0" } },
    "node_modules/ms": { "version": "2.1.3" },
    "node_modules/vitest": { "version": "3.2.4", "dev": true },
    "node_modules/a/node_modules/ms": { "version": "2.0.0", "dev": true }
  }
}"#;
        let out =
            crate::reduce::structured::feed(Box::new(PackageLock::default()), text, 0).unwrap();
        let t = out.lines.join("\n");
        assert!(
            t.contains("package-lock.json: app@1.2.0 (lockfileVersion 3)"),
            "{t}"
        );
        assert!(
            t.contains("3 packages locked (2 dev, 0 optional, 0 peer)"),
            "{t}"
        );
        assert!(t.contains("dependencies (1): ms ^2.1.3 → 2.1.3"), "{t}");
        assert!(
            t.contains("devDependencies (1): vitest ^3.0.0 → 3.2.4"),
            "{t}"
        );
        assert!(t.contains("ms (2.0.0, 2.1.3)"), "{t}");
    }

    #[test]
    fn not_a_lock_file() {
        let mut r = Box::new(PackageLock::default());
        r.push("{\"hello\": 1}");
        assert!(r.finish(0).is_none());
    }
}
