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
    fn big_documents_keep_every_key_and_count_cuts() {
        let items: Vec<Value> = (0..2000)
            .map(|i| json!({"id": i, "name": format!("item-{i}"), "tags": ["a", "b"]}))
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
