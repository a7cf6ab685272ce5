//! Writing an edited JSON settings file back so that every byte the edit did not touch stays
//! as the user wrote it: their indentation and spacing, string escapes (`\u00e9`), number
//! forms (`1.0e2`, a 30-digit integer that a float would round), a byte-order mark, a missing
//! final newline. Only the values that changed are rendered anew, in the file's own style.
//!
//! The original text is walked once into a tree of byte ranges (containers, members, the
//! whitespace between them). Rendering walks that tree beside the old and the new value: a
//! subtree whose value did not change is copied from the original bytes; an object keeps
//! its members' own spacing, drops the removed ones and appends the added ones in the style
//! of its last member; an array keeps its unchanged elements and matches the rest in order.
//! The result is parsed again and must equal the new value, or the caller falls back to a
//! plain pretty rendering.

use std::ops::Range;

use serde_json::{Map, Value};

/// Nesting deeper than this is rendered plainly (serde_json refuses deeper input anyway).
const MAX_DEPTH: usize = 128;

enum Node {
    Scalar(Range<usize>),
    Object {
        span: Range<usize>,
        members: Vec<Member>,
        /// Whitespace between the last member (or `{`) and `}`.
        close: Range<usize>,
    },
    Array {
        span: Range<usize>,
        items: Vec<Item>,
        close: Range<usize>,
    },
}

struct Member {
    /// Whitespace before the key.
    lead: Range<usize>,
    key_raw: Range<usize>,
    key: String,
    /// From the end of the key to the start of the value (`: `, ` : `, …).
    colon: Range<usize>,
    value: Node,
    /// Between the value and the comma after it (a comment there); empty for the last.
    after: Range<usize>,
}

struct Item {
    lead: Range<usize>,
    value: Node,
    after: Range<usize>,
}

impl Node {
    fn span(&self) -> Range<usize> {
        match self {
            Node::Scalar(r) => r.clone(),
            Node::Object { span, .. } | Node::Array { span, .. } => span.clone(),
        }
    }
}

struct Parser<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    /// Whitespace, and the `//` and `/* */` comments in it (a file whose host allows them).
    fn ws(&mut self) -> Range<usize> {
        let start = self.pos;
        loop {
            match (self.b.get(self.pos), self.b.get(self.pos + 1)) {
                (Some(b' ' | b'\t' | b'\n' | b'\r'), _) => self.pos += 1,
                (Some(b'/'), Some(b'/')) => {
                    self.pos = self.b[self.pos..]
                        .iter()
                        .position(|&c| c == b'\n')
                        .map_or(self.b.len(), |k| self.pos + k);
                }
                (Some(b'/'), Some(b'*')) => {
                    match self.b[self.pos + 2..].windows(2).position(|w| w == b"*/") {
                        Some(k) => self.pos += 2 + k + 2,
                        None => break,
                    }
                }
                _ => break,
            }
        }
        start..self.pos
    }

    fn string(&mut self) -> Option<Range<usize>> {
        let start = self.pos;
        if self.b.get(self.pos) != Some(&b'"') {
            return None;
        }
        self.pos += 1;
        loop {
            match self.b.get(self.pos)? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    return Some(start..self.pos);
                }
                _ => self.pos += 1,
            }
        }
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        let start = self.pos;
        match *self.b.get(self.pos)? {
            b'{' => {
                self.pos += 1;
                let mut members = Vec::new();
                loop {
                    let lead = self.ws();
                    if self.b.get(self.pos) == Some(&b'}') && members.is_empty() {
                        self.pos += 1;
                        return Some(Node::Object {
                            span: start..self.pos,
                            members,
                            close: lead,
                        });
                    }
                    let key_raw = self.string()?;
                    let key: String = serde_json::from_slice(&self.b[key_raw.clone()]).ok()?;
                    let colon_start = self.pos;
                    self.ws();
                    if self.b.get(self.pos) != Some(&b':') {
                        return None;
                    }
                    self.pos += 1;
                    self.ws();
                    let colon = colon_start..self.pos;
                    let value = self.value(depth + 1)?;
                    let trail = self.ws();
                    members.push(Member {
                        lead,
                        key_raw,
                        key,
                        colon,
                        value,
                        after: trail.start..trail.start,
                    });
                    match self.b.get(self.pos)? {
                        b',' => {
                            if let Some(m) = members.last_mut() {
                                m.after = trail;
                            }
                            self.pos += 1;
                        }
                        b'}' => {
                            self.pos += 1;
                            return Some(Node::Object {
                                span: start..self.pos,
                                members,
                                close: trail,
                            });
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    let lead = self.ws();
                    if self.b.get(self.pos) == Some(&b']') && items.is_empty() {
                        self.pos += 1;
                        return Some(Node::Array {
                            span: start..self.pos,
                            items,
                            close: lead,
                        });
                    }
                    let value = self.value(depth + 1)?;
                    let trail = self.ws();
                    items.push(Item {
                        lead,
                        value,
                        after: trail.start..trail.start,
                    });
                    match self.b.get(self.pos)? {
                        b',' => {
                            if let Some(it) = items.last_mut() {
                                it.after = trail;
                            }
                            self.pos += 1;
                        }
                        b']' => {
                            self.pos += 1;
                            return Some(Node::Array {
                                span: start..self.pos,
                                items,
                                close: trail,
                            });
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => self.string().map(Node::Scalar),
            _ => {
                while self.b.get(self.pos).is_some_and(|c| {
                    !matches!(c, b',' | b']' | b'}' | b'/' | b' ' | b'\t' | b'\n' | b'\r')
                }) {
                    self.pos += 1;
                }
                (self.pos > start).then_some(Node::Scalar(start..self.pos))
            }
        }
    }
}

struct Style<'a> {
    src: &'a str,
    /// One level of indentation (the file's own).
    unit: &'a str,
    /// The original is on one line: new values are written compactly too.
    compact: bool,
}

impl Style<'_> {
    /// `v` rendered fresh, its continuation lines indented under `indent`.
    fn fresh(&self, out: &mut String, v: &Value, indent: &str) {
        if self.compact {
            out.push_str(&serde_json::to_string(v).unwrap_or_else(|_| "null".into()));
            return;
        }
        let text = pretty(v, self.unit);
        out.push_str(&text.replace('\n', &format!("\n{indent}")));
    }

    fn text(&self, r: &Range<usize>) -> &str {
        &self.src[r.clone()]
    }

    /// The spacing before a new member or element, after the pattern of `lead` without the
    /// comments it may hold: its last line break and indentation, or one space.
    fn new_lead<'b>(&'b self, lead: &Range<usize>) -> &'b str {
        let text = self.text(lead);
        if !text.contains('/') {
            return text;
        }
        match text.rfind('\n') {
            Some(i) if !text[i..].contains('/') => &text[i..],
            _ => " ",
        }
    }

    /// The indentation a lead puts its value at (`indent` when the lead has no line break).
    fn indent_of<'b>(&'b self, lead: &Range<usize>, indent: &'b str) -> &'b str {
        let lead = self.text(lead);
        match lead.rfind('\n') {
            Some(i) => &lead[i + 1..],
            None => indent,
        }
    }

    fn render(&self, out: &mut String, node: &Node, old: &Value, new: &Value, indent: &str) {
        if old == new {
            out.push_str(self.text(&node.span()));
            return;
        }
        match (node, old, new) {
            (
                Node::Object { members, close, .. },
                Value::Object(old_map),
                Value::Object(new_map),
            ) if !members.is_empty() && !new_map.is_empty() && unique_keys(members) => {
                let last = members.last().expect("not empty");
                // a comment on the last member's line (`"a": 1 // why`) stays with it when a
                // member is added after it on a new line
                let close_text = self.text(close);
                let same_line = close_text
                    .find('\n')
                    .map(|i| &close_text[..i])
                    .filter(|t| t.contains('/') && self.new_lead(&last.lead).starts_with('\n'));
                let mut moved = false;
                let mut after_last = false;
                out.push('{');
                for (i, (k, v)) in new_map.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    match (members.iter().find(|m| m.key == *k), old_map.get(k)) {
                        (Some(m), Some(old_v)) => {
                            out.push_str(self.text(&m.lead));
                            out.push_str(self.text(&m.key_raw));
                            out.push_str(self.text(&m.colon));
                            let inner = self.indent_of(&m.lead, indent);
                            self.render(out, &m.value, old_v, v, inner);
                            out.push_str(self.text(&m.after));
                            after_last = m.key == last.key;
                        }
                        _ => {
                            if let Some(comment) = same_line.filter(|_| after_last && !moved) {
                                out.push_str(comment);
                                moved = true;
                            }
                            out.push_str(self.new_lead(&last.lead));
                            out.push_str(&serde_json::to_string(k).unwrap_or_default());
                            out.push_str(self.text(&last.colon));
                            self.fresh(out, v, self.indent_of(&last.lead, indent));
                            after_last = false;
                        }
                    }
                }
                match same_line.filter(|_| moved) {
                    Some(comment) => out.push_str(&close_text[comment.len()..]),
                    None => out.push_str(close_text),
                }
                out.push('}');
            }
            (Node::Array { items, close, .. }, Value::Array(old_arr), Value::Array(new_arr))
                if !items.is_empty() && !new_arr.is_empty() && items.len() == old_arr.len() =>
            {
                let last = items.last().expect("not empty");
                let mut next = 0;
                out.push('[');
                for (j, v) in new_arr.iter().enumerate() {
                    if j > 0 {
                        out.push(',');
                    }
                    if let Some(i) = (next..items.len()).find(|&i| old_arr[i] == *v) {
                        out.push_str(self.text(&items[i].lead));
                        out.push_str(self.text(&items[i].value.span()));
                        out.push_str(self.text(&items[i].after));
                        next = i + 1;
                    } else if next < items.len() && same_container(&old_arr[next], v) {
                        let it = &items[next];
                        out.push_str(self.text(&it.lead));
                        let inner = self.indent_of(&it.lead, indent);
                        self.render(out, &it.value, &old_arr[next], v, inner);
                        out.push_str(self.text(&it.after));
                        next += 1;
                    } else {
                        out.push_str(self.new_lead(&last.lead));
                        self.fresh(out, v, self.indent_of(&last.lead, indent));
                    }
                }
                out.push_str(self.text(close));
                out.push(']');
            }
            _ => self.fresh(out, new, indent),
        }
    }
}

/// Every comment of `original` is in `written` (as many times).
fn keeps_comments(original: &str, written: &str) -> bool {
    let comments = |t: &str| -> Vec<String> {
        let mut c: Vec<String> = crate::files::comment_spans(t)
            .into_iter()
            .map(|r| t[r].trim_end().to_string())
            .collect();
        c.sort_unstable();
        c
    };
    let mut have = comments(written).into_iter().peekable();
    comments(original).into_iter().all(|c| {
        while have.peek().is_some_and(|h| *h < c) {
            have.next();
        }
        have.next_if(|h| *h == c).is_some()
    })
}

fn unique_keys(members: &[Member]) -> bool {
    let mut keys: Vec<&str> = members.iter().map(|m| m.key.as_str()).collect();
    keys.sort_unstable();
    keys.windows(2).all(|w| w[0] != w[1])
}

fn same_container(a: &Value, b: &Value) -> bool {
    matches!(
        (a, b),
        (Value::Object(_), Value::Object(_)) | (Value::Array(_), Value::Array(_))
    )
}

/// Pretty JSON indented by `unit`, without a trailing newline.
pub fn pretty(v: &Value, unit: &str) -> String {
    use serde::Serialize;
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    if v.serialize(&mut ser).is_err() {
        return "null".into();
    }
    String::from_utf8(buf).unwrap_or_else(|_| "null".into())
}

/// `new` written over `original` (the file's whole text) keeping every untouched byte, or
/// `None` when the original cannot be followed (it is not one JSON object, it repeats a key
/// where the edit happened, …) and the caller should render plainly.
pub fn render_keeping(original: &str, new: &Map<String, Value>, unit: &str) -> Option<String> {
    let (bom, body) = match original.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", original),
    };
    let old: Value = serde_json::from_str(&crate::files::blank_comments(body)).ok()?;
    let mut p = Parser {
        b: body.as_bytes(),
        pos: 0,
    };
    let head = p.ws();
    let root = p.value(0)?;
    let tail = p.ws();
    if p.pos != body.len() || !old.is_object() {
        return None;
    }
    let span = root.span();
    let style = Style {
        src: body,
        unit,
        compact: !body[span.clone()].contains('\n'),
    };
    let mut out = String::with_capacity(original.len() + 256);
    out.push_str(bom);
    out.push_str(&body[head]);
    style.render(&mut out, &root, &old, &Value::Object(new.clone()), "");
    out.push_str(&body[tail]);
    // the safety net: what we wrote must read back as exactly the new document, with every
    // comment of the original still in it
    let written = out.strip_prefix('\u{feff}').unwrap_or(&out);
    let back: Value = serde_json::from_str(&crate::files::blank_comments(written)).ok()?;
    (back.as_object() == Some(new) && keeps_comments(body, written)).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit(original: &str, f: impl FnOnce(&mut Map<String, Value>)) -> String {
        let body = original.strip_prefix('\u{feff}').unwrap_or(original);
        let mut m: Map<String, Value> = serde_json::from_str(body).unwrap();
        f(&mut m);
        render_keeping(original, &m, "  ").expect("kept")
    }

    #[test]
    fn untouched_members_keep_their_bytes() {
        let original = "\u{feff}{\n  \"name\" : \"caf\\u00e9\",\n    \"ratio\": 1.0e2,\n  \"big\": 123456789012345678901234567890,\n  \"hooks\": {}\n}";
        let out = edit(original, |m| {
            m.insert("env".into(), json!({"A": "1"}));
        });
        assert_eq!(
            out,
            "\u{feff}{\n  \"name\" : \"caf\\u00e9\",\n    \"ratio\": 1.0e2,\n  \"big\": 123456789012345678901234567890,\n  \"hooks\": {},\n  \"env\": {\n    \"A\": \"1\"\n  }\n}"
        );
    }

    #[test]
    fn comments_stay_where_they_were_and_new_members_do_not_copy_them() {
        let original =
            "{\n  \"a\": 1 /* after a */,\n  // about b\n  \"b\": [1 // one\n  , 2]\n}\n";
        let mut m: Map<String, Value> =
            serde_json::from_str(&crate::files::blank_comments(original)).unwrap();
        m.insert("c".into(), json!(3));
        m["b"] = json!([1, 2, 3]);
        let out = render_keeping(original, &m, "  ").expect("kept");
        assert_eq!(
            out,
            "{\n  \"a\": 1 /* after a */,\n  // about b\n  \"b\": [1 // one\n  , 2, 3],\n  \"c\": 3\n}\n"
        );
        // dropping the member a comment sits in would lose it: declined
        m.remove("a");
        assert!(render_keeping(original, &m, "  ").is_none());
    }

    #[test]
    fn a_changed_array_keeps_the_elements_it_still_has() {
        let original = "{\"hooks\":{\"PreToolUse\":[ {\"matcher\":\"Bash\", \"n\": 1.50},\n\t{\"x\":[1,2]} ]}}";
        let out = edit(original, |m| {
            let arr = m["hooks"]["PreToolUse"].as_array_mut().unwrap();
            arr.push(json!({"ours": true}));
        });
        assert_eq!(
            out,
            "{\"hooks\":{\"PreToolUse\":[ {\"matcher\":\"Bash\", \"n\": 1.50},\n\t{\"x\":[1,2]},\n\t{\n\t  \"ours\": true\n\t} ]}}"
        );
        let out = edit(original, |m| {
            m["hooks"]["PreToolUse"].as_array_mut().unwrap().remove(0);
        });
        assert_eq!(out, "{\"hooks\":{\"PreToolUse\":[\n\t{\"x\":[1,2]} ]}}");
        // an element changed inside keeps its own spacing around the change
        let out = edit(original, |m| {
            m["hooks"]["PreToolUse"][1]["x"]
                .as_array_mut()
                .unwrap()
                .push(json!(3));
        });
        assert_eq!(
            out,
            "{\"hooks\":{\"PreToolUse\":[ {\"matcher\":\"Bash\", \"n\": 1.50},\n\t{\"x\":[1,2,3]} ]}}"
        );
    }

    #[test]
    fn removed_members_take_their_spacing_with_them() {
        let original = "{\n   \"a\": 1,\n   \"env\": {\"X\": \"1\"},\n   \"z\": [1.0]\n}\n";
        let out = edit(original, |m| {
            m.shift_remove("env");
        });
        assert_eq!(out, "{\n   \"a\": 1,\n   \"z\": [1.0]\n}\n");
        let out = edit(original, |m| {
            m.shift_remove("z");
        });
        assert_eq!(out, "{\n   \"a\": 1,\n   \"env\": {\"X\": \"1\"}\n}\n");
    }

    #[test]
    fn an_empty_container_filled_is_indented_under_its_key() {
        let original = "{\n\t\"hooks\": {}\n}";
        let body: Map<String, Value> = serde_json::from_str(original).unwrap();
        let mut m = body.clone();
        m["hooks"] = json!({"Stop": [{"hooks": []}]});
        let out = render_keeping(original, &m, "\t").unwrap();
        assert_eq!(
            out,
            "{\n\t\"hooks\": {\n\t\t\"Stop\": [\n\t\t\t{\n\t\t\t\t\"hooks\": []\n\t\t\t}\n\t\t]\n\t}\n}"
        );
    }

    #[test]
    fn what_cannot_be_followed_is_declined() {
        let m: Map<String, Value> = serde_json::from_str("{\"a\":2}").unwrap();
        assert!(render_keeping("[1]", &m, "  ").is_none());
        assert!(render_keeping("{\"a\":1", &m, "  ").is_none());
        // a repeated key where the edit happened: serde keeps the last, the object is
        // written anew
        assert_eq!(
            render_keeping("{\"a\":1,\"a\":3}", &m, "  ").as_deref(),
            Some("{\"a\":2}")
        );
    }

    use proptest::prelude::*;

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-1000i64..1000).prop_map(|n| json!(n)),
            "[a-z\u{e9} ]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map("[a-e]{1,3}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Whatever the layout and the edit, the text written reads back as exactly the
        /// edited document, and with no edit it is the original byte for byte.
        #[test]
        fn any_edit_reads_back_as_the_document(
            doc in prop::collection::btree_map("[a-e]{1,3}", value(), 1..6),
            indent in prop_oneof![Just(None), Just(Some("  ")), Just(Some("\t")), Just(Some("    "))],
            key in "[a-f]{1,3}",
            new_value in value(),
            remove in any::<bool>(),
            nested in any::<bool>(),
        ) {
            let doc: Map<String, Value> = doc.into_iter().collect();
            let original = match indent {
                None => serde_json::to_string(&doc).unwrap(),
                Some(unit) => pretty(&Value::Object(doc.clone()), unit) + "\n",
            };
            let unit = indent.unwrap_or("  ");
            prop_assert_eq!(render_keeping(&original, &doc, unit), Some(original.clone()));
            let mut edited = doc.clone();
            if nested {
                // inside the first container member: a key added, or an element pushed
                for v in edited.values_mut() {
                    match v {
                        Value::Object(m) => {
                            m.insert(key.clone(), new_value.clone());
                            break;
                        }
                        Value::Array(a) => {
                            a.push(new_value.clone());
                            break;
                        }
                        _ => {}
                    }
                }
            }
            if remove {
                edited.shift_remove(&key);
            } else {
                edited.insert(key.clone(), new_value);
            }
            let out = render_keeping(&original, &edited, unit);
            prop_assert!(out.is_some(), "declined: {original}");
            let back: Map<String, Value> = serde_json::from_str(&out.unwrap()).unwrap();
            prop_assert_eq!(back, edited);
        }

        /// A file with comments on any of its lines (at the end, or before the line's
        /// content): unchanged it is given back byte for byte; a new key keeps every comment
        /// and reads back as the edited document; a key replaced or removed may be declined
        /// (a comment in its value would go), never written without a comment.
        #[test]
        fn comments_are_kept_or_the_edit_is_declined(
            doc in prop::collection::btree_map("[a-e]{1,3}", value(), 1..6),
            marks in prop::collection::vec(0u8..3, 64),
            key in "[a-f]{1,3}",
            new_value in value(),
            remove in any::<bool>(),
        ) {
            let doc: Map<String, Value> = doc.into_iter().collect();
            let plain = pretty(&Value::Object(doc.clone()), "  ");
            let mut original = String::new();
            for (n, line) in plain.lines().enumerate() {
                let content = line.trim_start();
                let lead = &line[..line.len() - content.len()];
                match marks.get(n).copied().unwrap_or(0) {
                    1 => original.push_str(&format!("{line} // c{n}\n")),
                    2 => original.push_str(&format!("{lead}/* b{n} */ {content}\n")),
                    _ => original.push_str(&format!("{line}\n")),
                }
            }
            prop_assert_eq!(render_keeping(&original, &doc, "  "), Some(original.clone()));
            let mut edited = doc.clone();
            if remove {
                edited.shift_remove(&key);
            } else {
                edited.insert(key.clone(), new_value);
            }
            let out = render_keeping(&original, &edited, "  ");
            // a new key (or removing one that is not there) touches no comment
            if !doc.contains_key(&key) {
                prop_assert!(out.is_some(), "declined: {original}");
            }
            if let Some(out) = out {
                let back: Map<String, Value> =
                    serde_json::from_str(&crate::files::blank_comments(&out)).unwrap();
                prop_assert_eq!(back, edited);
                prop_assert!(keeps_comments(&original, &out), "{original}\n=>\n{out}");
            }
        }
    }
}
