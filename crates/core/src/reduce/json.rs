//! Whole-output JSON: minified and kept whole when small; a big document keeps its
//! shape — every key — with long arrays cut to their first items and long strings
//! clipped, each cut counted.

use serde_json::Value;

use super::text::clip_line;

/// Minified JSON up to this size is shown whole.
pub const JSON_WHOLE: usize = 6000;
/// A summarized document aims at this size.
pub const JSON_TARGET: usize = 6000;

/// Lines for a JSON document and how many items/strings were cut (0 when shown whole).
pub fn summarize(v: &Value, what: &str) -> (Vec<String>, u64) {
    let whole = serde_json::to_string(v).unwrap_or_default();
    if let Some(t) = tables(v, &whole) {
        return t;
    }
    if whole.len() <= JSON_WHOLE {
        return (vec![whole], 0);
    }
    for k in [20usize, 10, 5, 3, 2, 1] {
        let mut cut = (0u64, 0u64);
        let small = shrink(v, k, &mut cut);
        let s = serde_json::to_string(&small).unwrap_or_default();
        if s.len() <= JSON_TARGET || k == 1 {
            let strings = if cut.1 > 0 {
                format!("; {} strings over 200 chars clipped", cut.1)
            } else {
                String::new()
            };
            let note = format!(
                "[{what}, {} chars minified: arrays cut to their first {k} items, {} items not shown{strings}]",
                whole.len(),
                cut.0
            );
            return (
                vec![note, clip_line(&s, 4 * JSON_TARGET).into_owned()],
                (cut.0 + cut.1).max(1),
            );
        }
    }
    (vec![whole], 0)
}

/// Most characters of table rows shown for one array; past it the middle rows are counted.
const TABLE_ROWS_CHARS: usize = 2400;

/// An array of four or more objects that all have the same fields, read as a table: each
/// field's name is said once, a field with one value in every record is said once, and
/// each record is one line of the other fields' values (JSON literals, comma-separated).
/// Nested objects count by their leaves (`stock.count`); arrays and empty objects are
/// values. Nothing is left out but rows past [`TABLE_ROWS_CHARS`], which are counted.
pub struct Table<'a> {
    pub columns: Vec<String>,
    pub constant: Vec<(String, &'a Value)>,
    pub rows: Vec<Vec<&'a Value>>,
}

impl<'a> Table<'a> {
    pub fn of(items: &'a [Value]) -> Option<Table<'a>> {
        if items.len() < 4 {
            return None;
        }
        let mut records: Vec<Vec<(String, &'a Value)>> = Vec::with_capacity(items.len());
        for item in items {
            let Value::Object(fields) = item else {
                return None;
            };
            if fields.is_empty() {
                return None;
            }
            let mut leaves = Vec::new();
            if !leaves_of(item, "", &mut leaves) {
                return None;
            }
            if let Some(first) = records.first() {
                if first.len() != leaves.len() || first.iter().zip(&leaves).any(|(a, b)| a.0 != b.0)
                {
                    return None;
                }
            }
            records.push(leaves);
        }
        let names: Vec<String> = records[0].iter().map(|(k, _)| k.clone()).collect();
        let same: Vec<bool> = (0..names.len())
            .map(|i| records.iter().all(|r| r[i].1 == records[0][i].1))
            .collect();
        let constant = (0..names.len())
            .filter(|&i| same[i])
            .map(|i| (names[i].clone(), records[0][i].1))
            .collect();
        let columns = (0..names.len())
            .filter(|&i| !same[i])
            .map(|i| names[i].clone())
            .collect();
        let rows = records
            .iter()
            .map(|r| {
                (0..names.len())
                    .filter(|&i| !same[i])
                    .map(|i| r[i].1)
                    .collect()
            })
            .collect();
        Some(Table {
            columns,
            constant,
            rows,
        })
    }

    /// The heading (`items: 40 records of id, name; in every record tags=["a"]`), then one
    /// line per record; past `budget` characters the middle rows are counted, not shown.
    /// Returns the lines and the records not shown.
    pub fn render(&self, name: &str, budget: usize) -> (Vec<String>, u64) {
        let n = self.rows.len();
        let mut head = format!("{name}{n} records");
        if !self.columns.is_empty() {
            head.push_str(&format!(" of {}, one per line", self.columns.join(", ")));
        }
        if !self.constant.is_empty() {
            let same: Vec<String> = self
                .constant
                .iter()
                .map(|(k, v)| format!("{k}={}", literal(v)))
                .collect();
            head.push_str(&format!("; in every record {}", same.join(", ")));
        }
        let mut lines = vec![head];
        if self.columns.is_empty() {
            return (lines, 0);
        }
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| {
                let cells: Vec<String> = r.iter().map(|v| literal(v)).collect();
                clip_line(&cells.join(","), 4000).into_owned()
            })
            .collect();
        let total: usize = rows.iter().map(|r| r.len() + 1).sum();
        if total <= budget {
            lines.extend(rows);
            return (lines, 0);
        }
        // the first rows up to three quarters of the budget, the last ones up to the rest
        let (mut front, mut used) = (0, 0);
        while front < n && used + rows[front].len() < budget * 3 / 4 {
            used += rows[front].len() + 1;
            front += 1;
        }
        let mut back = n;
        while back > front + 1 && used + rows[back - 1].len() < budget {
            used += rows[back - 1].len() + 1;
            back -= 1;
        }
        let cut = (back - front) as u64;
        lines.extend(rows[..front].iter().cloned());
        lines.push(format!("… {cut} more records not shown"));
        lines.extend(rows[back..].iter().cloned());
        (lines, cut)
    }
}

/// The scalar leaves of `v` by dotted path, in order; false when a field name holds a dot
/// (the path would be ambiguous).
fn leaves_of<'a>(v: &'a Value, prefix: &str, out: &mut Vec<(String, &'a Value)>) -> bool {
    match v {
        Value::Object(m) if !m.is_empty() => m.iter().all(|(k, x)| {
            !k.contains('.')
                && leaves_of(
                    x,
                    &if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    },
                    out,
                )
        }),
        _ => {
            out.push((prefix.to_string(), v));
            true
        }
    }
}

fn literal(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A document whose arrays of records read as tables: a top-level array, or the arrays
/// directly under a top-level object (the rest of which stays JSON, each such array
/// marked `[N records below]`). Only when that is clearly smaller than the minified text.
fn tables(v: &Value, whole: &str) -> Option<(Vec<String>, u64)> {
    let mut lines = Vec::new();
    let mut cut = 0;
    match v {
        Value::Array(items) => {
            let t = Table::of(items)?;
            let (l, c) = t.render("", TABLE_ROWS_CHARS);
            lines = l;
            cut = c;
        }
        Value::Object(m) => {
            let mut rest = serde_json::Map::new();
            let mut below = Vec::new();
            for (k, x) in m {
                match x {
                    Value::Array(items) => match Table::of(items) {
                        Some(t) => {
                            rest.insert(
                                k.clone(),
                                Value::String(format!("[{} records below]", items.len())),
                            );
                            below.push((k, t));
                        }
                        None => {
                            rest.insert(k.clone(), x.clone());
                        }
                    },
                    _ => {
                        rest.insert(k.clone(), x.clone());
                    }
                }
            }
            if below.is_empty() {
                return None;
            }
            let other = serde_json::to_string(&Value::Object(rest)).unwrap_or_default();
            if other.len() > JSON_WHOLE {
                return None;
            }
            lines.push(other);
            for (k, t) in below {
                let (l, c) = t.render(&format!("{k}: "), TABLE_ROWS_CHARS);
                lines.extend(l);
                cut += c;
            }
        }
        _ => return None,
    }
    let len: usize = lines.iter().map(|l| l.len() + 1).sum();
    (len * 4 <= whole.len() * 3).then_some((lines, cut))
}

/// Parse `text` when the whole of it is one JSON object or array.
pub fn parse_whole(text: &str) -> Option<Value> {
    let t = text.trim();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    serde_json::from_str(t).ok()
}

/// A copy of `v` with arrays cut to their first `k` items (a marker string says how
/// many went) and long strings clipped; `cut` counts (items, strings).
pub fn shrink(v: &Value, k: usize, cut: &mut (u64, u64)) -> Value {
    match v {
        Value::Array(a) => {
            let mut out: Vec<Value> = a.iter().take(k).map(|x| shrink(x, k, cut)).collect();
            if a.len() > k {
                let rest = (a.len() - k) as u64;
                cut.0 += rest;
                out.push(Value::String(format!("… +{rest} more items")));
            }
            Value::Array(out)
        }
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(key, x)| (key.clone(), shrink(x, k, cut)))
                .collect(),
        ),
        Value::String(s) if s.chars().count() > 200 => {
            cut.1 += 1;
            Value::String(clip_line(s, 200).into_owned())
        }
        _ => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn small_documents_stay_whole() {
        let (lines, cut) = summarize(&json!({"a": [1, 2, 3], "b": "x"}), "JSON");
        assert_eq!(lines, vec![r#"{"a":[1,2,3],"b":"x"}"#]);
        assert_eq!(cut, 0);
    }

    #[test]
    fn records_with_the_same_fields_read_as_a_table() {
        let items: Vec<Value> = (0..2000)
            .map(|i| json!({"id": i, "name": format!("item-{i}"), "tags": ["a", "b"], "at": {"zone": "eu", "rack": i % 7}}))
            .collect();
        let v = json!({"total": 2000, "items": items, "next": "cursor-abc"});
        let (lines, cut) = summarize(&v, "JSON output");
        assert_eq!(
            lines[0],
            r#"{"total":2000,"items":"[2000 records below]","next":"cursor-abc"}"#
        );
        assert_eq!(
            lines[1],
            r#"items: 2000 records of id, name, at.rack, one per line; in every record tags=["a","b"], at.zone="eu""#
        );
        assert_eq!(lines[2], r#"0,"item-0",0"#);
        assert_eq!(lines.last().unwrap(), r#"1999,"item-1999",4"#);
        let gap = lines
            .iter()
            .find(|l| l.ends_with("more records not shown"))
            .unwrap();
        assert_eq!(gap, &format!("… {cut} more records not shown"));
        assert_eq!(lines.len() as u64 - 3 + cut, 2000);
        let shown: usize = lines[2..].iter().map(|l| l.len() + 1).sum();
        assert!(shown <= TABLE_ROWS_CHARS + 40, "{shown}");
        // a top-level array
        let list: Vec<Value> = (0..6)
            .map(|i| json!({"name": format!("svc-{i}"), "ready": i != 3, "kind": "Service"}))
            .collect();
        assert_eq!(
            summarize(&Value::Array(list), "JSON").0,
            vec![
                r#"6 records of name, ready, one per line; in every record kind="Service""#,
                r#""svc-0",true"#,
                r#""svc-1",true"#,
                r#""svc-2",true"#,
                r#""svc-3",false"#,
                r#""svc-4",true"#,
                r#""svc-5",true"#,
            ]
        );
        // not where a table would not be clearly smaller, nor where fields differ
        let small: Vec<Value> = (0..4).map(|i| json!({"id": i, "ok": true})).collect();
        assert_eq!(
            summarize(&Value::Array(small), "JSON").0,
            vec![
                r#"[{"id":0,"ok":true},{"id":1,"ok":true},{"id":2,"ok":true},{"id":3,"ok":true}]"#
            ]
        );
        // records with no fields at all stay JSON
        let empty = Value::Array(vec![json!({}); 40]);
        assert_eq!(
            summarize(&empty, "JSON").0,
            vec![serde_json::to_string(&empty).unwrap()]
        );
        let mixed = json!([{"a": 1}, {"a": 2}, {"a": 3}, {"b": 4}]);
        assert_eq!(
            summarize(&mixed, "JSON").0,
            vec![r#"[{"a":1},{"a":2},{"a":3},{"b":4}]"#]
        );
    }

    #[test]
    fn big_documents_keep_every_key_and_count_cuts() {
        // not records with the same fields: the document is cut to its first items
        let items: Vec<Value> = (0..2000)
            .map(|i| json!([i, format!("item-{i}"), ["a", "b"]]))
            .collect();
        let v = json!({"total": 2000, "items": items, "next": "cursor-abc"});
        let (lines, cut) = summarize(&v, "JSON output");
        assert!(lines[0].starts_with("[JSON output, "), "{}", lines[0]);
        assert!(
            lines[1].contains("\"total\":2000") && lines[1].contains("\"next\":\"cursor-abc\"")
        );
        assert!(lines[1].contains("more items"));
        assert!(cut >= 1980, "{cut}");
        assert!(lines[1].len() <= 4 * JSON_TARGET);
    }

    #[test]
    fn only_whole_json_parses() {
        assert!(parse_whole(" [1,2] \n").is_some());
        assert!(parse_whole("{\"a\":1} trailing").is_none());
        assert!(parse_whole("plain").is_none());
    }
}
