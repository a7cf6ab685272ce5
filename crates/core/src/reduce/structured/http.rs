//! HTTP clients: `curl` (plain, `-i`, `-I`, `-v`) and `wget`.
//!
//! Kept: the status lines and response headers, the request line of `-v`, wget's
//! connection/response/saved lines, every error (`curl: (7) Failed to connect …`,
//! `ERROR 404: Not Found.`), and the body. A JSON body is minified — whole when it is
//! small; a big one has its long arrays cut to their first items with a count of what
//! was left out. A long non-JSON body keeps its head and tail with a count.
//! Dropped (counted): progress meters and bars, `*` connection chatter, default request
//! headers, `{ [n bytes data]` markers.

use serde_json::Value;

use super::{Structured, StructuredOutput};
use crate::reduce::text::clip_line;

const MAX_BODY_BYTES: usize = 1 << 20;
const BODY_HEAD: usize = 100;
const BODY_TAIL: usize = 30;
const MAX_LINE: usize = 2_000;
const MAX_KEPT: usize = 2_000;

#[derive(Debug)]
enum Seg {
    Line(String),
    Body,
}

#[derive(Default)]
pub struct Http {
    segs: Vec<Seg>,
    body: Vec<String>,
    body_bytes: usize,
    body_cut: u64,
    body_started: bool,
    in_headers: bool,
    noise: u64,
    kept_cut: u64,
    recognized: u64,
    /// The last curl progress row: (percent, total, received).
    last_progress: Option<(String, String, String)>,
}

fn is_time(t: &str) -> bool {
    t == "--:--:--" || {
        let p: Vec<&str> = t.split(':').collect();
        p.len() == 3
            && p.iter()
                .all(|x| !x.is_empty() && x.bytes().all(|c| c.is_ascii_digit()))
    }
}

/// A curl progress-meter line (header or row).
fn is_curl_progress(t: &str) -> bool {
    let s = t.trim();
    if s.contains("% Total") && s.contains("% Received") {
        return true;
    }
    if s.starts_with("Dload") && s.contains("Upload") {
        return true;
    }
    let toks: Vec<&str> = s.split_whitespace().collect();
    toks.len() >= 10
        && toks[0].bytes().all(|c| c.is_ascii_digit())
        && toks.iter().filter(|x| is_time(x)).count() >= 3
}

/// wget's progress: `     0K .......... .......... 50%  1.2M 0s` or the bar form.
fn is_wget_progress(t: &str) -> bool {
    let s = t.trim_start();
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && s[digits..].starts_with("K ") && s[digits + 2..].trim_start().starts_with('.')
    {
        return true;
    }
    s.contains("%[")
        && s.contains(']')
        && (s.contains("eta") || s.contains(" in ") || s.contains("/s"))
}

const DEFAULT_REQUEST_HEADERS: &[&str] = &["host:", "user-agent:", "accept: */*"];

impl Http {
    fn keep(&mut self, line: &str) {
        self.recognized += 1;
        if self.segs.len() < MAX_KEPT {
            self.segs
                .push(Seg::Line(clip_line(line, MAX_LINE).into_owned()));
        } else {
            self.kept_cut += 1;
        }
    }

    fn body_line(&mut self, line: &str) {
        if !self.body_started {
            self.body_started = true;
            self.segs.push(Seg::Body);
        }
        if self.body_bytes + line.len() < MAX_BODY_BYTES {
            self.body_bytes += line.len() + 1;
            self.body.push(line.to_string());
        } else {
            self.body_cut += 1;
        }
    }

    fn body_is_json(&self) -> bool {
        if self.body_cut > 0 {
            return false;
        }
        let text = self.body.join("\n");
        let t = text.trim();
        (t.starts_with('{') || t.starts_with('[')) && serde_json::from_str::<Value>(t).is_ok()
    }

    /// The body's lines, what was left out of it, and whether that count is of JSON items.
    fn render_body(&self) -> (Vec<String>, u64, bool) {
        let text = self.body.join("\n");
        let trimmed = text.trim();
        if self.body_cut == 0 {
            if let Some(v) = crate::reduce::json::parse_whole(trimmed) {
                let (lines, cut) = crate::reduce::json::summarize(&v, "JSON body");
                return (lines, cut, true);
            }
        }
        let mut out = Vec::new();
        let n = self.body.len();
        let mut omitted = self.body_cut;
        if n > BODY_HEAD + BODY_TAIL + 10 {
            out.extend(
                self.body[..BODY_HEAD]
                    .iter()
                    .map(|l| clip_line(l, MAX_LINE).into_owned()),
            );
            let cut = (n - BODY_HEAD - BODY_TAIL) as u64;
            omitted += cut;
            out.push(format!("... {cut} body lines omitted ..."));
            out.extend(
                self.body[n - BODY_TAIL..]
                    .iter()
                    .map(|l| clip_line(l, MAX_LINE).into_owned()),
            );
        } else {
            out.extend(
                self.body
                    .iter()
                    .map(|l| clip_line(l, MAX_LINE).into_owned()),
            );
        }
        if self.body_cut > 0 {
            out.push(format!(
                "... {} more body lines not kept ...",
                self.body_cut
            ));
        }
        (out, omitted, false)
    }
}

impl Structured for Http {
    fn push(&mut self, line: &str) {
        let t = line.trim_end();
        if is_curl_progress(t) {
            let toks: Vec<&str> = t.split_whitespace().collect();
            if toks.len() >= 12 && toks[0].bytes().all(|c| c.is_ascii_digit()) {
                self.last_progress = Some((
                    toks[0].to_string(),
                    toks[1].to_string(),
                    toks[3].to_string(),
                ));
            }
            self.noise += 1;
            self.recognized += 1;
            return;
        }
        if is_wget_progress(t) {
            self.noise += 1;
            self.recognized += 1;
            return;
        }
        // curl -v
        if let Some(rest) = t.strip_prefix("* ").or_else(|| (t == "*").then_some("")) {
            let lower = rest.to_ascii_lowercase();
            let bad = [
                "fail",
                "error",
                "refused",
                "could not",
                "couldn't",
                "unable",
                "timed out",
                "timeout",
                "certificate",
                "problem",
                "denied",
                "reset",
                "not found",
                "closed",
            ]
            .iter()
            .any(|w| lower.contains(w))
                && !lower.starts_with("closing connection")
                && !lower.contains("left intact");
            if bad {
                self.keep(t);
            } else {
                self.noise += 1;
                self.recognized += 1;
            }
            return;
        }
        if t.starts_with("{ [") || t.starts_with("} [") {
            self.noise += 1;
            self.recognized += 1;
            return;
        }
        if let Some(rest) = t.strip_prefix("> ").or_else(|| (t == ">").then_some("")) {
            let lower = rest.to_ascii_lowercase();
            if rest.is_empty() || DEFAULT_REQUEST_HEADERS.iter().any(|h| lower.starts_with(h)) {
                self.noise += 1;
                self.recognized += 1;
            } else {
                self.keep(t);
            }
            return;
        }
        if let Some(rest) = t.strip_prefix("< ").or_else(|| (t == "<").then_some("")) {
            if rest.is_empty() {
                self.noise += 1;
                self.recognized += 1;
            } else {
                self.keep(t);
            }
            return;
        }
        // curl -i / -I header block
        if t.starts_with("HTTP/")
            && t.split_whitespace()
                .nth(1)
                .is_some_and(|c| c.len() == 3 && c.bytes().all(|b| b.is_ascii_digit()))
        {
            self.in_headers = true;
            self.keep(t);
            return;
        }
        if self.in_headers {
            if t.is_empty() {
                self.in_headers = false;
                self.recognized += 1;
                return;
            }
            if t.contains(':') {
                self.keep(t);
                return;
            }
            self.in_headers = false;
        }
        // messages from curl and wget
        let lower = t.to_ascii_lowercase();
        if t.starts_with("curl: ")
            || t.starts_with("wget: ")
            || t.starts_with("Warning: ")
            || lower.starts_with("error ")
            || (t.starts_with("--20") && t.contains("://"))
            || t.starts_with("Resolving ")
            || t.starts_with("Connecting to ")
            || t.starts_with("Reusing existing connection")
            || t.starts_with("HTTP request sent")
            || t.starts_with("Proxy request sent")
            || t.starts_with("Length: ")
            || t.starts_with("Saving to: ")
            || t.starts_with("Location: ")
            || t.starts_with("Retrying.")
            || t.starts_with("Giving up.")
            || t.starts_with("FINISHED --")
            || t.starts_with("Downloaded: ")
            || t.starts_with("Total wall clock time")
            || t.starts_with("Converted links")
            || t.contains(" saved [")
            || t.contains("Remote file exists")
            || t.contains("Server response:")
            || t.starts_with("Cannot write to")
            || t.starts_with("Unable to establish")
        {
            self.keep(t);
            return;
        }
        if t.is_empty() && !self.body_started {
            self.noise += 1;
            return;
        }
        self.body_line(t);
    }

    fn finish(self: Box<Self>, _exit_code: i32) -> Option<StructuredOutput> {
        // trailing blank body lines
        let mut me = *self;
        let only_body = me.segs.iter().all(|s| matches!(s, Seg::Body));
        if only_body && me.last_progress.is_none() && (me.body.is_empty() || !me.body_is_json()) {
            // nothing of curl's or wget's own: plain text for the line rule
            return None;
        }
        while me.body.last().is_some_and(|l| l.trim().is_empty()) {
            me.body.pop();
        }
        let (body, body_omitted, json_body) = if me.body.is_empty() {
            (Vec::new(), 0, false)
        } else {
            me.render_body()
        };
        let mut lines = Vec::new();
        if me.body.is_empty() {
            // `curl -o file`: the meter's last row is the only word on what arrived
            if let Some((pct, total, received)) = &me.last_progress {
                if received != "0" {
                    me.segs.push(Seg::Line(format!(
                        "[curl: received {received} of {total} ({pct}%)]"
                    )));
                }
            }
        }
        let mut body = Some(body);
        for s in &me.segs {
            match s {
                Seg::Line(l) => lines.push(l.clone()),
                Seg::Body => lines.extend(body.take().unwrap_or_default()),
            }
        }
        if me.kept_cut > 0 {
            lines.push(format!("... {} more lines not shown ...", me.kept_cut));
        }
        Some(StructuredOutput {
            name: "http",
            lines,
            facts: Vec::new(),
            omitted: body_omitted + me.kept_cut,
            filtered: me.noise,
            facts_line: false,
            json_cut: json_body && body_omitted > 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Option<StructuredOutput> {
        crate::reduce::structured::feed(Box::<Http>::default(), text, 0)
    }

    #[test]
    fn verbose_curl_keeps_status_headers_and_minified_body() {
        let text = "*   Trying 127.0.0.1:8765...
* Connected to 127.0.0.1 (127.0.0.1) port 8765
> GET /api/health HTTP/1.1
> Host: 127.0.0.1:8765
> User-Agent: curl/7.88.1
> Accept: */*
>
< HTTP/1.0 200 OK
< Content-Type: application/json
<
{ [50 bytes data]
{
  \"status\": \"ok\",
  \"version\": \"1.4.0\"
}
* Closing connection 0
";
        let out = run(text).unwrap();
        let t = out.lines.join("\n");
        assert_eq!(
            t,
            "> GET /api/health HTTP/1.1\n< HTTP/1.0 200 OK\n< Content-Type: application/json\n{\"status\":\"ok\",\"version\":\"1.4.0\"}"
        );
        assert!(out.filtered >= 8);
    }

    #[test]
    fn big_json_arrays_are_cut_with_counts() {
        let items: Vec<String> = (0..500)
            .map(|i| format!("{{\"id\":{i},\"name\":\"item {i}\"}}"))
            .collect();
        let text = format!("{{\"items\":[{}],\"total\":500}}\n", items.join(","));
        let out = run(&format!(
            "HTTP/1.1 200 OK\ncontent-type: application/json\n\n{text}"
        ))
        .unwrap();
        let t = out.lines.join("\n");
        assert!(t.contains("HTTP/1.1 200 OK"), "{t}");
        assert!(
            t.contains("items: 500 records of id, name, one per line"),
            "{t}"
        );
        assert!(t.contains("more records not shown"), "{t}");
        assert!(t.contains("\n499,\"item 499\""), "{t}");
        assert!(t.contains("\"total\":500"), "{t}");
        assert!(out.omitted > 0);
    }

    #[test]
    fn errors_and_progress() {
        let text = "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current
                                 Dload  Upload   Total   Spent    Left  Speed
  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0
curl: (7) Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server
";
        let out = run(text).unwrap();
        assert_eq!(
            out.lines,
            vec!["curl: (7) Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server"]
        );
        assert_eq!(out.filtered, 3);
    }

    #[test]
    fn download_to_file_says_what_arrived() {
        let text = "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current
                                 Dload  Upload   Total   Spent    Left  Speed
100  683k  100  683k    0     0   120M      0 --:--:-- --:--:-- --:--:--  133M
";
        let out = run(text).unwrap();
        assert_eq!(out.lines, vec!["[curl: received 683k of 683k (100%)]"]);
        assert_eq!(out.filtered, 3);
    }

    #[test]
    fn plain_body_only_is_left_to_the_line_rule() {
        assert!(run("hello\nworld\n").is_none());
        let out = run("{\n  \"a\": [1, 2],\n  \"b\": null\n}\n").unwrap();
        assert_eq!(out.lines, vec!["{\"a\":[1,2],\"b\":null}"]);
    }
}
