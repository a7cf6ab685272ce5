//! JSON with comments (`//`, `/* */`), as hosts write their settings files.

/// The byte ranges of `text`'s `//` and `/* */` comments outside strings. An unterminated
/// block comment is not one (the parser points at it).
pub fn comment_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let (mut i, mut in_string) = (0, false);
    while i < b.len() {
        let c = b[i];
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        let end = match (c, b.get(i + 1)) {
            (b'"', _) => {
                in_string = true;
                None
            }
            (b'/', Some(b'/')) => Some(
                b[i..]
                    .iter()
                    .position(|&x| x == b'\n')
                    .map_or(b.len(), |k| i + k),
            ),
            (b'/', Some(b'*')) => b[i + 2..]
                .windows(2)
                .position(|w| w == b"*/")
                .map(|k| i + 2 + k + 2),
            _ => None,
        };
        match end {
            Some(end) => {
                spans.push(i..end);
                i = end;
            }
            None => i += 1,
        }
    }
    spans
}

/// `text` with its comments ([`comment_spans`]) blanked to spaces, line breaks kept so
/// every position stays where it was; borrowed when it has none.
pub fn blank_comments(text: &str) -> std::borrow::Cow<'_, str> {
    let spans = comment_spans(text);
    if spans.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut o = text.as_bytes().to_vec();
    for r in spans {
        for x in &mut o[r] {
            if !matches!(*x, b'\n' | b'\r') {
                *x = b' ';
            }
        }
    }
    // a comment's bytes all became spaces (a multi-byte character's every byte), so the
    // text is still UTF-8
    std::borrow::Cow::Owned(String::from_utf8_lossy(&o).into_owned())
}

/// `text` holds a `//` or `/* */` comment outside its strings.
pub fn has_comments(text: &str) -> bool {
    !comment_spans(text).is_empty()
}
