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
        let v: Value = serde_json::from_str(t).ok()?;
        let mut lines = Vec::new();
        let mut omitted = 0u64;
        let mut records = 0u64;
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
    for (i, item) in a.iter().enumerate() {
        if cut > 0 && i == head {
            lines.push(format!("{indent}... {cut} more records omitted ..."));
            *omitted += cut as u64;
        }
        if cut > 0 && i >= head && i < head + cut {
            continue;
        }
        lines.push(format!("{indent}{}", one_line(item)));
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

    #[test]
    fn not_json() {
        let mut j = Box::new(JsonRecords::default());
        j.push("An error occurred (AccessDenied) when calling the ListBuckets operation");
        assert!(j.finish(254).is_none());
    }
}
