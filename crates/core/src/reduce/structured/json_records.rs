//! Whole-output JSON from cloud CLIs (`aws … ` default output, `az …`, `gcloud --format json`):
//! indentation goes and every record stays. A top-level array, or the arrays directly under
//! a top-level object (`{"Buckets": […], "Owner": {…}}`), print one minified element per
//! line under a `key (N):` heading; other values print as `key: value`. Very long records
//! (over 20,000 characters) are clipped with a marker; past [`MAX_RECORDS`] per array the rest is counted.
//! An array of four or more records with the same fields prints as a table instead
//! ([`crate::reduce::json::Table`]): field names once, then one line of values per record.

use serde_json::Value;

use super::{Structured, StructuredOutput, WholeText};
use crate::reduce::text::clip_line;

const MAX_BYTES: usize = 8 << 20;
const MAX_RECORDS: usize = 300;
const MAX_RECORD_CHARS: usize = 20_000;
/// Most characters of table rows per array (records with the same fields).
const TABLE_CHARS: usize = 64 * 1024;

#[derive(Default)]
pub struct JsonRecords {
    text: WholeText<MAX_BYTES>,
}

impl JsonRecords {
    pub fn push_line(&mut self, line: &str) {
        self.text.push(line);
    }

    /// The reduction, or None when the text is not one JSON value.
    pub fn render(&self) -> Option<StructuredOutput> {
        let t = self.text.get()?;
        if !(t.starts_with('{') || t.starts_with('[')) {
            return None;
        }
        let mut v: Value = serde_json::from_str(t).ok()?;
        let mut lines = Vec::new();
        let mut omitted = 0u64;
        let mut records = 0u64;
        let applied = drop_last_applied(&mut v);
        if applied > 0 {
            lines.push(format!(
                "[{applied} `{LAST_APPLIED}` {} not shown: each is a copy of the manifest `kubectl apply` was given]",
                if applied == 1 { "annotation" } else { "annotations" }
            ));
        }
        match &v {
            Value::Array(a) => array(a, None, &mut lines, &mut omitted, &mut records),
            Value::Object(o) => {
                for (k, v) in o {
                    match v {
                        Value::Array(a) if !a.is_empty() => {
                            array(a, Some(k), &mut lines, &mut omitted, &mut records)
                        }
                        other => lines.push(format!("{k}: {}", one_line(other))),
                    }
                }
            }
            _ => return None,
        }
        Some(StructuredOutput {
            name: "json-records",
            lines,
            facts: vec![("record".into(), records)],
            omitted,
            filtered: 0,
            facts_line: false,
            json_cut: omitted > 0,
        })
    }
}

/// The annotation `kubectl apply` keeps on every object it applied: the whole manifest
/// again, as an escaped JSON string (often the longest field of a record).
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Removes [`LAST_APPLIED`] from every `annotations` object in `v`; how many went. An
/// `annotations` object left empty stays (`{}`), as kubectl shows one.
fn drop_last_applied(v: &mut Value) -> u64 {
    match v {
        Value::Object(m) => {
            let mut n = 0;
            for (k, x) in m.iter_mut() {
                if k == "annotations" {
                    if let Value::Object(a) = x {
                        n += u64::from(a.shift_remove(LAST_APPLIED).is_some());
                    }
                } else {
                    n += drop_last_applied(x);
                }
            }
            n
        }
        Value::Array(a) => a.iter_mut().map(drop_last_applied).sum(),
        _ => 0,
    }
}

fn one_line(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
    };
    clip_line(&s, MAX_RECORD_CHARS).into_owned()
}

fn array(
    a: &[Value],
    key: Option<&String>,
    lines: &mut Vec<String>,
    omitted: &mut u64,
    records: &mut u64,
) {
    // records with the same fields: a table (every value kept, field names said once)
    if let Some(t) = crate::reduce::json::Table::of(a) {
        let name = key.map(|k| format!("{k}: ")).unwrap_or_default();
        let (l, cut) = t.render(&name, TABLE_CHARS);
        lines.extend(l);
        *omitted += cut;
        *records += a.len() as u64;
        return;
    }
    let indent = if let Some(k) = key {
        lines.push(format!("{k} ({}):", a.len()));
        "  "
    } else {
        ""
    };
    *records += a.len() as u64;
    let head = MAX_RECORDS * 3 / 4;
    let cut = a.len().saturating_sub(MAX_RECORDS);
    let shared = Shared::of(a);
    if let Some(sh) = &shared {
        lines.push(format!(
            "{indent}(in every record: {})",
            one_line(&sh.fields)
        ));
    }
    for (i, item) in a.iter().enumerate() {
        if cut > 0 && i == head {
            lines.push(format!("{indent}... {cut} more records omitted ..."));
            *omitted += cut as u64;
        }
        if cut > 0 && i >= head && i < head + cut {
            continue;
        }
        let text = match &shared {
            Some(sh) => one_line(&sh.strip(item)),
            None => one_line(item),
        };
        lines.push(format!("{indent}{text}"));
    }
}

/// The fields every record of an array has with the same value (`"kind":"Pod"`,
/// `"metadata":{"namespace":"default"}`, `"spec":{"dnsPolicy":"ClusterFirst"}` in a
/// `kubectl get pods -o json`), said once before the records, which then hold the rest.
/// Nested objects are followed field by field; any other value (an array, a string) is
/// shared only when it is equal in every record. Used only when it makes the text shorter.
struct Shared {
    fields: Value,
}

impl Shared {
    /// Fewer records than this are printed as they are.
    const MIN_RECORDS: usize = 3;

    fn of(items: &[Value]) -> Option<Shared> {
        if items.len() < Self::MIN_RECORDS || !items.iter().all(Value::is_object) {
            return None;
        }
        let refs: Vec<&Value> = items.iter().collect();
        let fields = common(&refs)?;
        let shared = Shared { fields };
        // what it saves: the shared text in every record, less the line that says it once
        let once = serde_json::to_string(&shared.fields).ok()?.len() + 20;
        let before: usize = items.iter().map(|v| one_line(v).len()).sum();
        let after: usize = items.iter().map(|v| one_line(&shared.strip(v)).len()).sum();
        (after + once < before * 9 / 10).then_some(shared)
    }

    /// The record without the shared fields (an object left empty goes too).
    fn strip(&self, item: &Value) -> Value {
        let mut v = item.clone();
        strip(&mut v, &self.fields);
        v
    }
}

/// What all the values share: equal values whole; objects key by key (a key every one has,
/// with a shared part), in the first one's order.
fn common(values: &[&Value]) -> Option<Value> {
    let first = values[0];
    if let Value::Object(o) = first {
        if values.iter().all(|v| v.is_object()) && !o.is_empty() {
            let mut out = serde_json::Map::new();
            for (k, v) in o {
                let children: Option<Vec<&Value>> = values.iter().map(|x| x.get(k)).collect();
                let Some(mut children) = children else {
                    continue;
                };
                children[0] = v;
                if let Some(c) = common(&children) {
                    out.insert(k.clone(), c);
                }
            }
            return (!out.is_empty()).then_some(Value::Object(out));
        }
    }
    values[1..]
        .iter()
        .all(|v| *v == first)
        .then(|| first.clone())
}

fn strip(v: &mut Value, shared: &Value) {
    let (Value::Object(o), Value::Object(s)) = (v, shared) else {
        return;
    };
    for (k, sv) in s {
        let remove = match o.get_mut(k) {
            Some(child @ Value::Object(_)) if sv.is_object() => {
                strip(child, sv);
                child.as_object().is_some_and(|c| c.is_empty())
            }
            Some(_) => true,
            None => false,
        };
        if remove {
            o.shift_remove(k);
        }
    }
}

impl Structured for JsonRecords {
    fn push(&mut self, line: &str) {
        self.push_line(line);
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        self.render()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubectl_apply_copies_of_the_manifest_are_counted_not_shown() {
        let item = |name: &str| {
            format!(
                r#"{{"kind":"Deployment","metadata":{{"name":"{name}","annotations":{{"deployment.kubernetes.io/revision":"1","kubectl.kubernetes.io/last-applied-configuration":"{{\"kind\":\"Deployment\",\"metadata\":{{\"name\":\"{name}\"}}}}\n"}}}},"spec":{{"replicas":2}}}}"#
            )
        };
        let text = format!(
            r#"{{"apiVersion":"v1","items":[{},{}],"kind":"List"}}"#,
            item("api"),
            item("web")
        );
        let mut r = JsonRecords::default();
        for l in text.lines() {
            r.push_line(l);
        }
        let out = r.render().unwrap();
        let t = out.lines.join("\n");
        assert!(t.starts_with("[2 `kubectl.kubernetes.io/last-applied-configuration` annotations not shown: each is a copy of the manifest `kubectl apply` was given]"), "{t}");
        assert!(!t.contains("last-applied-configuration\\\""), "{t}");
        assert!(!t.contains(r#"\"kind\""#), "{t}");
        assert!(t.contains("deployment.kubernetes.io/revision"), "{t}");
        assert!(
            t.contains(r#""name":"api""#) && t.contains(r#""name":"web""#),
            "{t}"
        );
    }

    #[test]
    fn arrays_under_keys_one_record_a_line() {
        let text = r#"{
    "Buckets": [
        {
            "Name": "shop-exports",
            "CreationDate": "2026-11-01T10:00:00+00:00"
        },
        {
            "Name": "shop-logs",
            "CreationDate": "2026-10-01T10:00:00+00:00"
        }
    ],
    "Owner": {
        "ID": "abc"
    }
}"#;
        let out =
            crate::reduce::structured::feed(Box::new(JsonRecords::default()), text, 0).unwrap();
        assert_eq!(
            out.lines,
            vec![
                "Buckets (2):",
                r#"  {"Name":"shop-exports","CreationDate":"2026-11-01T10:00:00+00:00"}"#,
                r#"  {"Name":"shop-logs","CreationDate":"2026-10-01T10:00:00+00:00"}"#,
                r#"Owner: {"ID":"abc"}"#,
            ]
        );
    }

    /// Puts the shared fields back into a record.
    fn merge(into: &mut Value, shared: &Value) {
        if let (Value::Object(o), Value::Object(s)) = (into, shared) {
            for (k, v) in s {
                match o.get_mut(k) {
                    Some(child) => merge(child, v),
                    None => {
                        o.insert(k.clone(), v.clone());
                    }
                }
            }
        }
    }

    #[test]
    fn fields_every_record_shares_are_said_once_and_nothing_is_lost() {
        // labels with dots and nested arrays: no table
        let pod = |name: &str, node: &str, restarts: u32| {
            serde_json::json!({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "shop",
                    "labels": {"app.kubernetes.io/part-of": "shop", "app.kubernetes.io/name": name}},
                "spec": {"nodeName": node, "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler",
                    "containers": [{"name": name, "image": "registry.example.com/shop/app:1.0"}]},
                "status": {"phase": "Running", "containerStatuses": [{"restartCount": restarts}]}
            })
        };
        let items = vec![
            pod("web", "pool-a", 0),
            pod("api", "pool-b", 1),
            pod("worker", "pool-a", 7),
        ];
        let text = serde_json::to_string_pretty(&serde_json::json!({"items": items})).unwrap();
        let out =
            crate::reduce::structured::feed(Box::new(JsonRecords::default()), &text, 0).unwrap();
        assert_eq!(out.lines[0], "items (3):");
        assert_eq!(
            out.lines[1],
            r#"  (in every record: {"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","labels":{"app.kubernetes.io/part-of":"shop"}},"spec":{"dnsPolicy":"ClusterFirst","schedulerName":"default-scheduler"},"status":{"phase":"Running"}})"#
        );
        assert_eq!(
            out.lines[4],
            r#"  {"metadata":{"name":"worker","labels":{"app.kubernetes.io/name":"worker"}},"spec":{"nodeName":"pool-a","containers":[{"name":"worker","image":"registry.example.com/shop/app:1.0"}]},"status":{"containerStatuses":[{"restartCount":7}]}}"#
        );
        // every record is its line and the shared fields, whole
        let shared: Value = serde_json::from_str(
            out.lines[1]
                .trim()
                .strip_prefix("(in every record: ")
                .and_then(|l| l.strip_suffix(')'))
                .unwrap(),
        )
        .unwrap();
        for (line, item) in out.lines[2..].iter().zip(&items) {
            let mut v: Value = serde_json::from_str(line.trim()).unwrap();
            merge(&mut v, &shared);
            assert_eq!(&v, item);
        }
        // records that share little are printed as they are
        let few = serde_json::json!([{"a": 1, "k": "x"}, {"a": 2, "k": "x"}, {"a": 3, "k": "x"}]);
        let out =
            crate::reduce::structured::feed(Box::new(JsonRecords::default()), &few.to_string(), 0)
                .unwrap();
        assert!(
            !out.lines.join("\n").contains("in every record"),
            "{:?}",
            out.lines
        );
    }

    #[test]
    fn not_json() {
        let mut j = Box::new(JsonRecords::default());
        j.push("An error occurred (AccessDenied) when calling the ListBuckets operation");
        assert!(j.finish(254).is_none());
    }
}
