//! Whole-output JSON: minified and kept whole when small; a big document keeps its
//! shape — every key — with long arrays cut to their first items and long strings
//! clipped, each cut counted.

use serde_json::Value;

use super::text::clip_line;

/// Minified JSON up to this size is shown whole.
pub const JSON_WHOLE: usize = 12_000;
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
    cut_to_fit(v, &format!("{what}, {} chars minified", whole.len()))
}

/// `v` with its arrays cut to their first items, as few as it takes to come near
/// [`JSON_TARGET`], and long strings clipped: a note saying so (`[{what}: arrays cut …]`),
/// then the document on one line. Returns the lines and the items and strings cut.
fn cut_to_fit(v: &Value, what: &str) -> (Vec<String>, u64) {
    let mut out = (Vec::new(), 0);
    for k in [20usize, 10, 5, 3, 2, 1] {
        let mut cut = (0u64, 0u64);
        let mut small = shrink(v, k, &mut cut);
        let mut s = serde_json::to_string(&small).unwrap_or_default();
        let mut maps = 0;
        if k == 1 && s.len() > 4 * JSON_TARGET {
            // still too big to show whole: maps of many big values (npm's `versions`, an
            // OpenAPI document's `paths`) keep their first and last entries and name the
            // other keys, rather than the middle of the text being cut at random
            maps = shrink_maps(&mut small, &mut cut);
            s = serde_json::to_string(&small).unwrap_or_default();
        }
        if s.len() <= JSON_TARGET || k == 1 {
            let strings = if cut.1 > 0 {
                format!("; {} strings over 200 chars clipped", cut.1)
            } else {
                String::new()
            };
            let maps = if maps > 0 {
                format!(
                    "; {maps} big {} cut to the first {MAP_HEAD} and last {MAP_TAIL} entries, the others' keys named",
                    if maps == 1 { "map" } else { "maps" }
                )
            } else {
                String::new()
            };
            let note = format!(
                "[{what}: arrays cut to their first {k} items{maps}, {} items not shown{strings}]",
                cut.0
            );
            out = (
                vec![note, clip_line(&s, 4 * JSON_TARGET).into_owned()],
                (cut.0 + cut.1).max(1),
            );
            break;
        }
    }
    out
}

/// A big map keeps this many first entries ...
const MAP_HEAD: usize = 3;
/// ... and this many last ones.
const MAP_TAIL: usize = 2;
/// A map is big from this many entries, most holding objects or arrays, and this many
/// characters of JSON.
const MAP_BIG_ENTRIES: usize = 12;
/// Most characters of the keys a cut map names.
const MAP_KEYS_CHARS: usize = 4000;

/// Cuts each big map in `v` (see [`MAP_BIG_ENTRIES`]) to its first [`MAP_HEAD`] and last
/// [`MAP_TAIL`] entries, with one `"…"` entry between naming the others' keys; counts the
/// entries left out in `cut.0`. Returns how many maps were cut.
fn shrink_maps(v: &mut Value, cut: &mut (u64, u64)) -> u64 {
    match v {
        Value::Array(a) => a.iter_mut().map(|x| shrink_maps(x, cut)).sum(),
        Value::Object(m) => {
            let mut n: u64 = m.values_mut().map(|x| shrink_maps(x, cut)).sum();
            let big_values = m
                .values()
                .filter(|x| matches!(x, Value::Object(_) | Value::Array(_)))
                .count();
            if m.len() >= MAP_BIG_ENTRIES
                && big_values * 2 >= m.len()
                && !m.contains_key("…")
                && serde_json::to_string(&*m).map_or(0, |t| t.len()) > JSON_TARGET
            {
                let keys: Vec<String> = m.keys().cloned().collect();
                let middle = &keys[MAP_HEAD..keys.len() - MAP_TAIL];
                let mut named = Vec::new();
                let mut len = 0;
                for k in middle {
                    len += k.len() + 2;
                    if len > MAP_KEYS_CHARS {
                        break;
                    }
                    named.push(k.as_str());
                }
                let more = if named.len() < middle.len() {
                    format!(", … {} more", middle.len() - named.len())
                } else {
                    String::new()
                };
                let note = format!(
                    "+{} more entries, not shown: {}{more}",
                    middle.len(),
                    named.join(", ")
                );
                let mut kept = serde_json::Map::new();
                for (i, (k, x)) in std::mem::take(m).into_iter().enumerate() {
                    if i == MAP_HEAD {
                        kept.insert("…".into(), Value::String(note.clone()));
                    }
                    if i < MAP_HEAD || i >= keys.len() - MAP_TAIL {
                        kept.insert(k, x);
                    }
                }
                *m = kept;
                cut.0 += middle.len() as u64;
                n += 1;
            }
            n
        }
        _ => 0,
    }
}

/// Characters of table rows shown for one table; past them the middle rows are counted.
const TABLE_ROWS_CHARS: usize = 2400;
/// Longest array or object a table cell may hold.
const MAX_CELL: usize = 400;
/// Rows a table shows at least when they fit [`JSON_TARGET`] characters (records of long
/// fields: hashes, URLs), whatever the characters budget.
const TABLE_MIN_ROWS: usize = 20;

/// Four or more objects with (mostly) the same fields, read as a table: an array of them,
/// an object whose every value is one (`"versions": {"1.0.0": {…}, …}`, the key then
/// being the first cell of each row), or an object whose every value is an array of them
/// (PyPI's `"releases": {"2.31.0": [{…}, {…}], …}`: one row per record, its key first; a
/// key with an empty array is named in the heading). Each field's name is said once, a
/// field with one value in every record is said once, so is a field whose value is its
/// row's key in every record, and each record is one line of the other fields' values
/// (JSON literals, comma-separated; an empty cell is a field that record does not have).
/// Nested objects count by their leaves (`stock.count`); arrays and empty objects are
/// values, each at most [`MAX_CELL`] characters. Every record must have at least half of
/// all the fields. Nothing is left out but rows past [`TABLE_ROWS_CHARS`] (or the first
/// [`TABLE_MIN_ROWS`]), which are counted, their keys named when they are few enough.
pub struct Table<'a> {
    pub columns: Vec<String>,
    pub constant: Vec<(String, &'a Value)>,
    /// One cell per column; None where the record lacks the field.
    pub rows: Vec<Vec<Option<&'a Value>>>,
    /// A map of records: each row's key (its first cell); empty for an array.
    keys: Vec<&'a str>,
    /// Fields whose value is the row's key in every record (npm's `version`).
    key_fields: Vec<String>,
    /// A map of arrays of records: how many keys, and those whose array is empty.
    groups: Option<(usize, Vec<&'a str>)>,
    /// Some record lacks some field.
    sparse: bool,
}

/// Most characters of the keys of the rows a table leaves out, named after its count.
const CUT_KEYS_CHARS: usize = JSON_TARGET;

impl<'a> Table<'a> {
    pub fn of(items: &'a [Value]) -> Option<Table<'a>> {
        Self::build(items.iter().map(|v| (None, v)).collect())
    }

    /// A map whose every value is a record, keyed by the map's keys.
    pub fn of_map(map: &'a serde_json::Map<String, Value>) -> Option<Table<'a>> {
        Self::build(map.iter().map(|(k, v)| (Some(k.as_str()), v)).collect())
    }

    /// A map whose every value is an array of records: one row per record, keyed by the
    /// map key its array is under.
    pub fn of_map_of_arrays(map: &'a serde_json::Map<String, Value>) -> Option<Table<'a>> {
        let mut items = Vec::new();
        let mut empty = Vec::new();
        for (k, v) in map {
            let Value::Array(a) = v else {
                return None;
            };
            if a.is_empty() {
                empty.push(k.as_str());
            }
            items.extend(a.iter().map(|x| (Some(k.as_str()), x)));
        }
        let mut t = Self::build(items)?;
        t.groups = Some((map.len(), empty));
        Some(t)
    }

    fn build(items: Vec<(Option<&'a str>, &'a Value)>) -> Option<Table<'a>> {
        if items.len() < 4 {
            return None;
        }
        let mut records: Vec<Vec<(String, &'a Value)>> = Vec::with_capacity(items.len());
        let mut names: Vec<String> = Vec::new();
        for (_, item) in &items {
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
            for (k, _) in &leaves {
                if !names.contains(k) {
                    names.push(k.clone());
                }
            }
            records.push(leaves);
        }
        if records.iter().any(|r| r.len() * 2 < names.len()) {
            return None;
        }
        let cell = |r: &[(String, &'a Value)], name: &str| {
            r.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
        };
        let cells: Vec<Vec<Option<&'a Value>>> = records
            .iter()
            .map(|r| names.iter().map(|n| cell(r, n)).collect())
            .collect();
        let keys: Vec<&'a str> = items.iter().filter_map(|(k, _)| *k).collect();
        // a field that is its row's key in every record (`"1.2.0": {"version": "1.2.0"}`)
        let is_key: Vec<bool> = (0..names.len())
            .map(|i| {
                !keys.is_empty()
                    && cells
                        .iter()
                        .zip(&keys)
                        .all(|(r, k)| matches!(r[i], Some(Value::String(s)) if s == k))
            })
            .collect();
        let same: Vec<bool> = (0..names.len())
            .map(|i| {
                is_key[i] || cells[0][i].is_some() && cells.iter().all(|r| r[i] == cells[0][i])
            })
            .collect();
        let key_fields = (0..names.len())
            .filter(|&i| is_key[i])
            .map(|i| names[i].clone())
            .collect();
        let constant = (0..names.len())
            .filter(|&i| same[i] && !is_key[i])
            .map(|i| (names[i].clone(), cells[0][i].expect("same: present")))
            .collect();
        let columns: Vec<String> = (0..names.len())
            .filter(|&i| !same[i])
            .map(|i| names[i].clone())
            .collect();
        let rows: Vec<Vec<Option<&'a Value>>> = cells
            .iter()
            .map(|r| {
                (0..names.len())
                    .filter(|&i| !same[i])
                    .map(|i| r[i])
                    .collect()
            })
            .collect();
        // a record holding a big nested value (a list of dependency objects) does not read
        // as a row: the summarized document keeps more of it
        if cells
            .iter()
            .flatten()
            .flatten()
            .any(|v| matches!(v, Value::Array(_) | Value::Object(_)) && literal(v).len() > MAX_CELL)
        {
            return None;
        }
        let sparse = rows.iter().any(|r| r.iter().any(Option::is_none));
        Some(Table {
            columns,
            constant,
            rows,
            keys,
            key_fields,
            groups: None,
            sparse,
        })
    }

    /// The heading (`items: 40 records of id, name; in every record tags=["a"]`), then one
    /// line per record; past `budget` characters the middle rows are counted, not shown.
    /// Returns the lines and the records not shown.
    pub fn render(&self, name: &str, budget: usize) -> (Vec<String>, u64) {
        let n = self.rows.len();
        let mut head = format!("{name}{n} records");
        if let Some((groups, empty)) = &self.groups {
            head.push_str(&format!(" under {groups} keys"));
            if !empty.is_empty() {
                let names: Vec<String> = empty.iter().map(|k| key_literal(k)).collect();
                head.push_str(&format!(
                    " ({} with none: {})",
                    empty.len(),
                    names.join(", ")
                ));
            }
        }
        let keyed = !self.keys.is_empty();
        if !self.columns.is_empty() || keyed {
            let key = if keyed { "key, " } else { "" };
            head.push_str(&format!(
                " of {key}{}, one per line",
                self.columns.join(", ")
            ));
        }
        if self.sparse {
            head.push_str(" (an empty cell: the record has no such field)");
        }
        let same: Vec<String> = self
            .key_fields
            .iter()
            .map(|k| format!("{k} is its key"))
            .chain(
                self.constant
                    .iter()
                    .map(|(k, v)| format!("{k}={}", literal(v))),
            )
            .collect();
        if !same.is_empty() {
            head.push_str(&format!("; in every record {}", same.join(", ")));
        }
        let mut lines = vec![head];
        if self.columns.is_empty() && !keyed {
            return (lines, 0);
        }
        let rows: Vec<String> = self
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let key = self.keys.get(i).map(|k| key_literal(k));
                let cells: Vec<String> = key
                    .into_iter()
                    .chain(r.iter().map(|v| v.map(literal).unwrap_or_default()))
                    .collect();
                clip_line(&cells.join(","), 4000).into_owned()
            })
            .collect();
        let total: usize = rows.iter().map(|r| r.len() + 1).sum();
        // wide records: at least the first rows, within a summarized document's size
        let first: usize = rows.iter().take(TABLE_MIN_ROWS).map(|r| r.len() + 1).sum();
        let budget = budget.max(first.min(JSON_TARGET));
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
        lines.push(format!(
            "… {cut} more records not shown{}",
            self.cut_keys(front, back)
        ));
        lines.extend(rows[back..].iter().cloned());
        (lines, cut)
    }
}

impl Table<'_> {
    /// `, keys "a", "b"`: the keys of rows `front..back` (each once), when they fit in
    /// [`CUT_KEYS_CHARS`]; nothing for an array's rows or too many keys.
    fn cut_keys(&self, front: usize, back: usize) -> String {
        let Some(keys) = self.keys.get(front..back) else {
            return String::new();
        };
        let mut names: Vec<String> = Vec::new();
        let mut len = 0;
        for (i, k) in keys.iter().enumerate() {
            if i > 0 && keys[i - 1] == *k {
                continue;
            }
            let name = key_literal(k);
            len += name.len() + 2;
            if len > CUT_KEYS_CHARS {
                return String::new();
            }
            names.push(name);
        }
        if names.is_empty() {
            return String::new();
        }
        format!(", keys {}", names.join(", "))
    }
}

fn key_literal(k: &str) -> String {
    serde_json::to_string(k).unwrap_or_default()
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
    let whole_table = match v {
        Value::Array(items) => Table::of(items),
        Value::Object(m) => Table::of_map(m).or_else(|| Table::of_map_of_arrays(m)),
        _ => None,
    };
    if let Some(t) = whole_table {
        (lines, cut) = t.render("", TABLE_ROWS_CHARS);
    } else if let Value::Object(m) = v {
        let mut rest = serde_json::Map::new();
        let mut below = Vec::new();
        for (k, x) in m {
            let table = match x {
                Value::Array(items) => Table::of(items),
                Value::Object(records) => {
                    Table::of_map(records).or_else(|| Table::of_map_of_arrays(records))
                }
                _ => None,
            };
            match table {
                Some(t) => {
                    let n = t.rows.len();
                    rest.insert(k.clone(), Value::String(format!("[{n} records below]")));
                    below.push((k, t));
                }
                None => {
                    rest.insert(k.clone(), x.clone());
                }
            }
        }
        if below.is_empty() {
            return None;
        }
        let rest = Value::Object(rest);
        let other = serde_json::to_string(&rest).unwrap_or_default();
        if other.len() <= JSON_WHOLE {
            lines.push(other);
        } else {
            // the rest is big too (a long README in PyPI's `info`): cut as a document is
            (lines, cut) = cut_to_fit(&rest, "the rest of the document");
        }
        for (k, t) in below {
            let (l, c) = t.render(&format!("{k}: "), TABLE_ROWS_CHARS);
            lines.extend(l);
            cut += c;
        }
    } else {
        return None;
    }
    let len: usize = lines.iter().map(|l| l.len() + 1).sum();
    (len * 4 <= whole.len() * 3).then_some((lines, cut))
}

/// JSON lines (one object per line: `buf … --error-format json`, structured logs) whose
/// objects read as one table that is shown whole within this many characters.
const JSON_LINES_CHARS: usize = 24_000;

/// JSON lines as one table ([`Table`]): field names once, one line of values per object,
/// every object kept. None unless there are four or more lines, every non-blank one an
/// object, they make a table, the whole of it fits [`JSON_LINES_CHARS`], and it is
/// clearly smaller than the lines were.
pub fn json_lines(text: &str) -> Option<crate::reduce::structured::StructuredOutput> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() < 4 || !lines.iter().all(|l| l.trim_start().starts_with('{')) {
        return None;
    }
    let items: Vec<Value> = lines
        .iter()
        .map(|l| {
            serde_json::from_str::<Value>(l)
                .ok()
                .filter(Value::is_object)
        })
        .collect::<Option<_>>()?;
    let table = Table::of(&items)?;
    let (out, cut) = table.render("JSON lines: ", JSON_LINES_CHARS);
    let size: usize = out.iter().map(|l| l.len() + 1).sum();
    let raw: usize = lines.iter().map(|l| l.len() + 1).sum();
    (cut == 0 && size * 4 <= raw * 3).then(|| crate::reduce::structured::StructuredOutput {
        name: "json-lines",
        lines: out,
        ..Default::default()
    })
}

/// Parse `text` when the whole of it is one JSON object or array.
pub fn parse_whole(text: &str) -> Option<Value> {
    let t = text.trim();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    serde_json::from_str(t).ok()
}

/// Follows whether the bytes seen so far can be the start of one JSON document (an object
/// or array, whitespace around it), in one pass and without holding them: an output too big
/// to keep by default is kept while it is one document (a `kubectl get -o json` of a big
/// cluster) and let go as soon as it is not (JSON lines, a log).
#[derive(Debug, Default, Clone)]
pub struct DocScan {
    depth: u32,
    started: bool,
    closed: bool,
    in_string: bool,
    /// The chunk ended right after a backslash inside a string.
    escaped: bool,
    broken: bool,
}

impl DocScan {
    /// Read the next bytes; false once they cannot be part of one document.
    pub fn feed(&mut self, bytes: &[u8]) -> bool {
        let mut i = 0;
        if self.escaped && !bytes.is_empty() {
            self.escaped = false;
            i = 1;
        }
        while !self.broken && i < bytes.len() {
            if self.in_string {
                match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
                    None => return true,
                    Some(j) if bytes[i + j] == b'\\' => {
                        i += j + 2;
                        if i > bytes.len() {
                            self.escaped = true;
                        }
                    }
                    Some(j) => {
                        self.in_string = false;
                        i += j + 1;
                    }
                }
                continue;
            }
            let b = bytes[i];
            i += 1;
            if b.is_ascii_whitespace() {
                continue;
            }
            if self.closed || (!self.started && b != b'{' && b != b'[') {
                self.broken = true;
                break;
            }
            self.started = true;
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    self.closed = self.depth == 0;
                }
                _ => {}
            }
        }
        !self.broken
    }

    /// The document began and ended (whether it is valid JSON, parsing tells).
    pub fn complete(&self) -> bool {
        self.closed && !self.broken
    }
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
    fn a_doc_scan_follows_one_document_across_chunks() {
        let doc = br#" {"a": [1, {"b": "x}\"y"}], "c": "]]"}
 "#;
        // every split of the document into two chunks reads the same
        for cut in 0..=doc.len() {
            let mut s = DocScan::default();
            assert!(s.feed(&doc[..cut]) && s.feed(&doc[cut..]), "cut at {cut}");
            assert!(s.complete(), "cut at {cut}");
        }
        // an escaped quote split right after its backslash
        let mut s = DocScan::default();
        assert!(s.feed(br#"["a\"#) && s.feed(br#""]"]"#));
        assert!(s.complete());
        // unfinished, then more than one document, then not a document at all
        let mut s = DocScan::default();
        assert!(s.feed(b"[1, [2"));
        assert!(!s.complete());
        let mut s = DocScan::default();
        assert!(!s.feed(b"{\"a\": 1}\n{\"a\": 2}\n"));
        assert!(!s.complete());
        assert!(!DocScan::default().feed(b"  total 12\n"));
    }

    #[test]
    fn json_lines_read_as_one_table_only_when_every_object_fits() {
        let line = |i: usize| {
            format!(
                r#"{{"path":"a/f{i}.proto","start_line":{i},"type":"FIELD_SAME_TYPE","message":"Field \"{i}\" changed type"}}"#
            )
        };
        let text: String = (1..=10).map(|i| line(i) + "\n").collect();
        let out = json_lines(&text).unwrap();
        assert_eq!(
            out.lines[0],
            "JSON lines: 10 records of path, start_line, message, one per line; in every record type=\"FIELD_SAME_TYPE\""
        );
        assert_eq!(out.lines.len(), 11);
        assert_eq!(
            out.lines[10],
            r#""a/f10.proto",10,"Field \"10\" changed type""#
        );
        // a line that is not an object (a stack trace in a log) leaves it to the rule
        assert!(json_lines(&format!("{text}    at handler (app.js:1:1)\n")).is_none());
        // too few lines, or too many to show every one
        let three: String = (1..=3).map(|i| line(i) + "\n").collect();
        assert!(json_lines(&three).is_none());
        let many: String = (1..=1000).map(|i| line(i) + "\n").collect();
        assert!(json_lines(&many).is_none());
    }

    #[test]
    fn a_document_of_up_to_twelve_thousand_characters_stays_whole() {
        // three findings of a linter, each with its own fields: no table, no cut
        let files: Vec<Value> = (0..4)
            .map(|i| {
                json!({format!("src/f{i}.php"): {"errors": 12, "messages": (0..12)
                    .map(|k| json!({"line": k * 7 + i, "message": format!("Parameter #{k} of method Foo::bar{i}() expects int, string given and this text is long enough to matter."), "ignorable": true}))
                    .collect::<Vec<_>>()}})
            })
            .collect();
        let v = json!({"totals": {"errors": 0, "file_errors": 48}, "files": files});
        let whole = serde_json::to_string(&v).unwrap();
        assert!(
            whole.len() > 6000 && whole.len() <= JSON_WHOLE,
            "{}",
            whole.len()
        );
        let (lines, cut) = summarize(&v, "JSON output");
        assert_eq!(cut, 0);
        assert_eq!(lines, vec![whole]);
    }

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
    fn a_map_of_records_reads_as_a_keyed_table_and_missing_fields_are_empty_cells() {
        let mut versions = serde_json::Map::new();
        for i in 0..6 {
            let mut r =
                json!({"version": format!("1.{i}.0"), "license": "MIT", "tags": ["x", "y"]});
            if i >= 4 {
                r["types"] = json!("index.d.ts");
            }
            versions.insert(format!("1.{i}.0"), r);
        }
        let v = json!({"name": "pad", "versions": versions, "latest": "1.5.0"});
        let (lines, cut) = summarize(&v, "JSON");
        assert_eq!(cut, 0);
        assert_eq!(
            lines,
            vec![
                r#"{"name":"pad","versions":"[6 records below]","latest":"1.5.0"}"#.to_string(),
                r#"versions: 6 records of key, types, one per line (an empty cell: the record has no such field); in every record version is its key, license="MIT", tags=["x","y"]"#.into(),
                r#""1.0.0","#.into(),
                r#""1.1.0","#.into(),
                r#""1.2.0","#.into(),
                r#""1.3.0","#.into(),
                r#""1.4.0","index.d.ts""#.into(),
                r#""1.5.0","index.d.ts""#.into(),
            ]
        );
        // one record's version that is not its key keeps the column
        versions["1.2.0"]["version"] = json!("1.2.0-rc1");
        let v = json!({"name": "pad", "versions": versions});
        let lines = summarize(&v, "JSON").0;
        assert!(
            lines[1].starts_with("versions: 6 records of key, version, types,"),
            "{}",
            lines[1]
        );
        assert_eq!(lines[4], r#""1.2.0","1.2.0-rc1","#);
        // wide records (hashes, URLs): 20 are shown though they pass 2400 chars
        let wide: Vec<Value> = (0..30)
            .map(
                |i| json!({"id": i, "hash": format!("{i:0>200}"), "url": format!("https://x/{i}")}),
            )
            .collect();
        let (lines, cut) = summarize(&Value::Array(wide), "JSON");
        assert_eq!(cut, 10, "{lines:?}");
        assert_eq!(lines.len(), 1 + 20 + 1, "{lines:?}");
        // records holding big nested values are not a table
        let fat: Vec<Value> = (0..5)
            .map(|i| json!({"name": format!("p{i}"), "deps": (0..40).map(|d| json!({"name": format!("d{d}"), "req": "^1"})).collect::<Vec<_>>()}))
            .collect();
        assert!(Table::of(&fat).is_none());
        // records sharing less than half of the fields are not a table
        let mut m = serde_json::Map::new();
        for i in 0..5 {
            m.insert(
                format!("k{i}"),
                json!({format!("only{i}a"): 1, format!("only{i}b"): 2, "common": 3}),
            );
        }
        assert!(Table::of_map(&m).is_none());
    }

    #[test]
    fn a_map_of_arrays_of_records_reads_as_one_table_and_names_every_key() {
        // PyPI's `releases`: each version's files, some versions with none
        let mut releases = serde_json::Map::new();
        for i in 0..120 {
            let files: Vec<Value> = (0..i % 3)
                .map(|f| {
                    json!({"filename": format!("pkg-1.{i}.{f}.tar.gz"), "size": 1000 + i * 10 + f,
                        "digests": {"sha256": format!("{:0>64x}", i * 7 + f)}, "yanked": false})
                })
                .collect();
            releases.insert(format!("1.{i}"), Value::Array(files));
        }
        let v = json!({"info": {"name": "pkg", "version": "1.119"}, "releases": releases});
        let (lines, cut) = summarize(&v, "JSON body");
        assert_eq!(
            lines[0],
            r#"{"info":{"name":"pkg","version":"1.119"},"releases":"[120 records below]"}"#
        );
        let empty: Vec<String> = (0..120).step_by(3).map(|i| format!("\"1.{i}\"")).collect();
        assert_eq!(
            lines[1],
            format!(
                "releases: 120 records under 120 keys (40 with none: {}) of key, filename, size, digests.sha256, one per line; in every record yanked=false",
                empty.join(", ")
            )
        );
        assert_eq!(
            lines[2],
            format!(r#""1.1","pkg-1.1.0.tar.gz",1010,"{:0>64x}""#, 7)
        );
        // the rows left out are counted, and each of their keys named once
        let gap = lines.iter().find(|l| l.starts_with("… ")).unwrap();
        assert!(cut > 0);
        let shown: Vec<&str> = lines[2..]
            .iter()
            .filter(|l| l.starts_with('"'))
            .map(|l| l.split(',').next().unwrap())
            .collect();
        assert_eq!(shown.len() as u64 + cut, 120);
        for i in (0..120).filter(|i| i % 3 != 0) {
            let key = format!("\"1.{i}\"");
            assert!(
                shown.contains(&key.as_str())
                    || gap.contains(&format!(" {key},"))
                    || gap.ends_with(&key),
                "{key} is neither shown nor named: {gap}"
            );
        }
        assert_eq!(gap.matches("\"1.50\"").count(), 1, "{gap}");
        // the rest of the document is big too (a long README): cut as a document is, and
        // the table still follows it
        let readme = "Long description. ".repeat(1000);
        let v = json!({"info": {"name": "pkg", "description": readme}, "releases": releases});
        let (lines, cut) = summarize(&v, "JSON body");
        assert_eq!(
            lines[0],
            "[the rest of the document: arrays cut to their first 20 items, 0 items not shown; 1 strings over 200 chars clipped]"
        );
        assert!(lines[1].starts_with(r#"{"info":{"name":"pkg","description":"Long description. "#));
        assert!(
            lines[1].ends_with(r#""releases":"[120 records below]"}"#),
            "{}",
            lines[1]
        );
        assert!(lines[2].starts_with("releases: 120 records under 120 keys (40 with none: "));
        assert!(cut > 1);
        // keys too many to name are only counted
        let mut long = serde_json::Map::new();
        for i in 0..400 {
            long.insert(
                format!("a-rather-long-release-name-{i:04}"),
                json!([{"hash": format!("{i:0>300}"), "n": i}]),
            );
        }
        let lines = summarize(&json!({ "releases": long }), "JSON").0;
        let gap = lines.iter().find(|l| l.starts_with("… ")).unwrap();
        assert!(gap.ends_with(" more records not shown"), "{gap}");
        // an array that is not one of records leaves the map to the summary
        releases.insert("2.0".into(), json!(["not", "records"]));
        assert!(Table::of_map_of_arrays(&releases).is_none());
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
    fn a_map_of_many_big_values_keeps_its_first_and_last_entries_and_names_the_others() {
        // npm's registry document: each version's manifest, with fields differing too much
        // between versions to make a table
        let mut versions = serde_json::Map::new();
        for i in 0..200 {
            let deps: serde_json::Map<String, Value> = (0..i % 30)
                .map(|d| (format!("dep-{i}-{d}"), json!(format!("^{d}.0.0"))))
                .collect();
            versions.insert(
                format!("1.{i}.0"),
                json!({"version": format!("1.{i}.0"), "dependencies": deps,
                    "dist": {"tarball": format!("https://r.example/p-1.{i}.0.tgz")}}),
            );
        }
        let time: serde_json::Map<String, Value> = (0..200)
            .map(|i| {
                (
                    format!("1.{i}.0"),
                    json!(format!("2026-01-{:02}", i % 28 + 1)),
                )
            })
            .collect();
        let v = json!({"name": "p", "versions": versions, "time": time});
        let (lines, cut) = summarize(&v, "JSON body");
        assert!(
            lines[0].contains(
                "1 big map cut to the first 3 and last 2 entries, the others' keys named"
            ),
            "{}",
            lines[0]
        );
        let doc: Value = serde_json::from_str(&lines[1]).expect("the summary is whole JSON");
        let kept: Vec<&String> = doc["versions"].as_object().unwrap().keys().collect();
        assert_eq!(kept, ["1.0.0", "1.1.0", "1.2.0", "…", "1.198.0", "1.199.0"]);
        let named = doc["versions"]["…"].as_str().unwrap();
        assert!(
            named.starts_with("+195 more entries, not shown: 1.3.0, 1.4.0, "),
            "{named}"
        );
        assert!(named.ends_with(", 1.197.0"), "{named}");
        // a map of short values is left whole: every version's date
        assert_eq!(doc["time"].as_object().unwrap().len(), 200);
        assert!(cut >= 195);
    }

    #[test]
    fn only_whole_json_parses() {
        assert!(parse_whole(" [1,2] \n").is_some());
        assert!(parse_whole("{\"a\":1} trailing").is_none());
        assert!(parse_whole("plain").is_none());
    }
}
