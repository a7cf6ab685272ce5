//! A POSIX (bash-flavoured) shell parser for command strings.
//!
//! It understands what classification needs and never executes anything:
//! quotes (`'…'`, `"…"`, `$'…'`, `$"…"`), backslash escapes, line continuations,
//! comments, expansions (`$x`, `${…}`, `$(…)`, `$((…))`, backticks — kept as
//! literal text), heredocs (bodies are consumed and attached to their command),
//! redirections, subshells `( … )`, groups `{ …; }` and the list operators
//! `;` `&&` `||` `|` `|&` `&` and newlines.
//!
//! The parser is total: any input produces a [`Script`], unterminated quotes and
//! substitutions simply run to the end of the input (and set [`Script::incomplete`]).

/// A word after quote removal. Expansions are kept verbatim (`$HOME`, `$(pwd)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// Text after quote removal, with expansions left as written.
    pub text: String,
    /// True when any part of the word was quoted or escaped.
    pub quoted: bool,
    /// True when the word contains an unquoted or double-quoted expansion.
    pub expansion: bool,
    /// Length in bytes of `text` before the first quoted or escaped part.
    pub unquoted_prefix: usize,
}

/// How a list item is joined to the previous one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sep {
    /// `;` or a newline.
    Seq,
    /// `&&`
    And,
    /// `||`
    Or,
    /// The previous item was sent to the background with `&`.
    Background,
}

/// A redirection such as `2>&1`, `> out.txt` or `<<EOF`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub fd: Option<u32>,
    pub op: String,
    pub target: Word,
    /// The body of a heredoc (`<<` / `<<-`), when the operator is one.
    pub heredoc: Option<String>,
}

/// One command of a pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Simple(SimpleCommand),
    /// `( … )`
    Subshell(Script),
    /// `{ …; }`
    Group(Script),
}

/// `VAR=v … word word … redirections`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    pub assignments: Vec<(String, String)>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
}

impl SimpleCommand {
    pub fn argv(&self) -> Vec<String> {
        self.words.iter().map(|w| w.text.clone()).collect()
    }
}

/// Commands joined by `|` (or `|&`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pipeline {
    pub commands: Vec<Command>,
    /// `! pipeline`
    pub negated: bool,
}

/// One element of a list with the separator that precedes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub sep: Option<Sep>,
    pub pipeline: Pipeline,
}

/// A whole command string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Script {
    pub items: Vec<Item>,
    /// The input ended inside a quote, substitution or heredoc.
    pub incomplete: bool,
}

/// Parse a command string.
pub fn parse(src: &str) -> Script {
    let mut p = Parser {
        s: src.as_bytes(),
        src,
        i: 0,
        incomplete: false,
        pending_heredocs: Vec::new(),
        bodies: Vec::new(),
        depth: 0,
    };
    let mut script = p.list(None);
    script.incomplete |= p.incomplete;
    script
}

#[derive(Debug)]
enum Tok {
    Word(Word),
    /// An operator: `&&`, `||`, `;`, `;;`, `&`, `|`, `|&`, `(`, `)`, newline as "\n".
    Op(&'static str),
    Redir(Option<u32>, &'static str),
    Eof,
}

struct PendingHeredoc {
    delim: String,
    strip_tabs: bool,
    slot: usize,
}

struct Parser<'a> {
    s: &'a [u8],
    src: &'a str,
    i: usize,
    incomplete: bool,
    pending_heredocs: Vec<PendingHeredoc>,
    /// Heredoc bodies by slot, filled in when the parser reaches the end of the line.
    bodies: Vec<Option<String>>,
    depth: usize,
}

const REDIR_OPS: [&str; 12] = [
    "&>>", "<<<", "<<-", "&>", ">>", "<<", ">&", "<&", ">|", "<>", ">", "<",
];

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }

    fn starts_with(&self, pat: &str) -> bool {
        self.s[self.i..].starts_with(pat.as_bytes())
    }

    /// Skip blanks, line continuations and comments (not newlines).
    fn skip_blank(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\r') => self.i += 1,
                Some(b'\\') if self.peek_at(1) == Some(b'\n') => self.i += 2,
                Some(b'#') => {
                    while let Some(c) = self.peek() {
                        if c == b'\n' {
                            break;
                        }
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn next_tok(&mut self) -> Tok {
        self.skip_blank();
        let Some(c) = self.peek() else {
            return Tok::Eof;
        };
        match c {
            b'\n' => {
                self.i += 1;
                self.read_heredoc_bodies();
                return Tok::Op("\n");
            }
            b'&' if self.starts_with("&&") => {
                self.i += 2;
                return Tok::Op("&&");
            }
            b'|' if self.starts_with("||") => {
                self.i += 2;
                return Tok::Op("||");
            }
            b'|' if self.starts_with("|&") => {
                self.i += 2;
                return Tok::Op("|&");
            }
            b';' if self.starts_with(";;") => {
                self.i += 2;
                return Tok::Op(";;");
            }
            b';' => {
                self.i += 1;
                return Tok::Op(";");
            }
            b'|' => {
                self.i += 1;
                return Tok::Op("|");
            }
            b'(' => {
                self.i += 1;
                return Tok::Op("(");
            }
            b')' => {
                self.i += 1;
                return Tok::Op(")");
            }
            _ => {}
        }
        for op in REDIR_OPS {
            if self.starts_with(op) {
                self.i += op.len();
                return Tok::Redir(None, op);
            }
        }
        if c == b'&' {
            self.i += 1;
            return Tok::Op("&");
        }
        // fd-prefixed redirection: digits immediately followed by < or >
        if c.is_ascii_digit() {
            let mut j = self.i;
            while j < self.s.len() && self.s[j].is_ascii_digit() {
                j += 1;
            }
            if j < self.s.len() && (self.s[j] == b'<' || self.s[j] == b'>') && j - self.i <= 9 {
                let fd: u32 = self.src[self.i..j].parse().unwrap_or(0);
                self.i = j;
                for op in REDIR_OPS {
                    if self.starts_with(op) && !op.starts_with('&') {
                        self.i += op.len();
                        return Tok::Redir(Some(fd), op);
                    }
                }
            }
        }
        Tok::Word(self.word())
    }

    fn is_word_end(&self, c: u8) -> bool {
        matches!(
            c,
            b' ' | b'\t' | b'\r' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
        )
    }

    /// Read one word, performing quote removal.
    fn word(&mut self) -> Word {
        let mut text = String::new();
        let mut quoted = false;
        let mut expansion = false;
        let mut unquoted_prefix = None;
        let start = self.i;
        while let Some(c) = self.peek() {
            if unquoted_prefix.is_none() && matches!(c, b'\\' | b'\'' | b'"') {
                unquoted_prefix = Some(text.len());
            }
            if self.is_word_end(c) {
                // `<(` and `>(` process substitution inside a word are rare; treat as end.
                break;
            }
            match c {
                b'\\' => {
                    self.i += 1;
                    match self.peek() {
                        Some(b'\n') => self.i += 1,
                        Some(_) => {
                            quoted = true;
                            self.push_char(&mut text);
                        }
                        None => text.push('\\'),
                    }
                }
                b'\'' => {
                    quoted = true;
                    self.i += 1;
                    self.single_quoted(&mut text);
                }
                b'"' => {
                    quoted = true;
                    self.i += 1;
                    expansion |= self.double_quoted(&mut text);
                }
                b'$' if self.peek_at(1) == Some(b'\'') => {
                    quoted = true;
                    self.i += 2;
                    self.ansi_c_quoted(&mut text);
                }
                b'$' if self.peek_at(1) == Some(b'"') => {
                    quoted = true;
                    self.i += 2;
                    expansion |= self.double_quoted(&mut text);
                }
                b'$' => {
                    expansion |= self.dollar(&mut text);
                }
                b'`' => {
                    expansion = true;
                    self.backtick(&mut text);
                }
                _ => self.push_char(&mut text),
            }
        }
        if self.i == start {
            // Defensive: never loop forever on an unexpected byte.
            self.push_char(&mut text);
        }
        Word {
            unquoted_prefix: unquoted_prefix.unwrap_or(text.len()),
            text,
            quoted,
            expansion,
        }
    }

    /// Push the UTF-8 character at the cursor.
    fn push_char(&mut self, out: &mut String) {
        let rest = &self.src[self.i.min(self.s.len())..];
        if let Some(ch) = rest.chars().next() {
            out.push(ch);
            self.i += ch.len_utf8();
        }
    }

    fn single_quoted(&mut self, out: &mut String) {
        match self.src[self.i..].find('\'') {
            Some(k) => {
                out.push_str(&self.src[self.i..self.i + k]);
                self.i += k + 1;
            }
            None => {
                out.push_str(&self.src[self.i..]);
                self.i = self.s.len();
                self.incomplete = true;
            }
        }
    }

    /// Returns whether an expansion was seen.
    fn double_quoted(&mut self, out: &mut String) -> bool {
        let mut expansion = false;
        loop {
            let Some(c) = self.peek() else {
                self.incomplete = true;
                return expansion;
            };
            match c {
                b'"' => {
                    self.i += 1;
                    return expansion;
                }
                b'\\' => match self.peek_at(1) {
                    Some(b'$' | b'`' | b'"' | b'\\') => {
                        self.i += 1;
                        self.push_char(out);
                    }
                    Some(b'\n') => self.i += 2,
                    _ => {
                        out.push('\\');
                        self.i += 1;
                    }
                },
                b'$' => expansion |= self.dollar(out),
                b'`' => {
                    expansion = true;
                    self.backtick(out);
                }
                _ => self.push_char(out),
            }
        }
    }

    fn ansi_c_quoted(&mut self, out: &mut String) {
        loop {
            let Some(c) = self.peek() else {
                self.incomplete = true;
                return;
            };
            match c {
                b'\'' => {
                    self.i += 1;
                    return;
                }
                b'\\' => {
                    self.i += 1;
                    let Some(e) = self.peek() else {
                        out.push('\\');
                        self.incomplete = true;
                        return;
                    };
                    self.i += 1;
                    match e {
                        b'n' => out.push('\n'),
                        b't' => out.push('\t'),
                        b'r' => out.push('\r'),
                        b'a' => out.push('\u{7}'),
                        b'b' => out.push('\u{8}'),
                        b'e' | b'E' => out.push('\u{1b}'),
                        b'f' => out.push('\u{c}'),
                        b'v' => out.push('\u{b}'),
                        b'\\' => out.push('\\'),
                        b'\'' => out.push('\''),
                        b'"' => out.push('"'),
                        b'?' => out.push('?'),
                        b'x' => {
                            let v = self.hex_digits(2);
                            push_code(out, v);
                        }
                        b'u' => {
                            let v = self.hex_digits(4);
                            push_code(out, v);
                        }
                        b'U' => {
                            let v = self.hex_digits(8);
                            push_code(out, v);
                        }
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                match self.peek() {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.i += 1;
                                    }
                                    _ => break,
                                }
                            }
                            push_code(out, Some(v));
                        }
                        b'c' => {
                            // `\cX` is a control character for an ASCII X; after anything
                            // else (a character of several bytes) the text stays as written
                            match self.peek() {
                                Some(x) if x.is_ascii() => {
                                    self.i += 1;
                                    out.push(char::from(x & 0x1f));
                                }
                                Some(_) => {
                                    out.push_str("\\c");
                                    self.push_char(out);
                                }
                                None => {}
                            }
                        }
                        _ => {
                            out.push('\\');
                            self.i -= 1;
                            self.push_char(out);
                        }
                    }
                }
                _ => self.push_char(out),
            }
        }
    }

    fn hex_digits(&mut self, max: usize) -> Option<u32> {
        let mut v: u32 = 0;
        let mut n = 0;
        while n < max {
            match self.peek() {
                Some(d) if d.is_ascii_hexdigit() => {
                    v = v * 16 + char::from(d).to_digit(16).unwrap_or(0);
                    self.i += 1;
                    n += 1;
                }
                _ => break,
            }
        }
        (n > 0).then_some(v)
    }

    /// `$…` at the cursor; copies the expansion verbatim. Returns true for a real expansion.
    fn dollar(&mut self, out: &mut String) -> bool {
        let start = self.i;
        self.i += 1;
        match self.peek() {
            Some(b'(') => {
                self.i += 1;
                self.balanced(b'(', b')');
            }
            Some(b'{') => {
                self.i += 1;
                self.balanced(b'{', b'}');
            }
            Some(c) if c == b'_' || c.is_ascii_alphabetic() => {
                while let Some(c) = self.peek() {
                    if c == b'_' || c.is_ascii_alphanumeric() {
                        self.i += 1;
                    } else {
                        break;
                    }
                }
            }
            Some(c) if c.is_ascii_digit() || b"@*#?$!-".contains(&c) => self.i += 1,
            _ => {
                out.push('$');
                return false;
            }
        }
        out.push_str(&self.src[start..self.i]);
        true
    }

    /// Skip to the matching close byte, honouring quotes, escapes and nesting.
    fn balanced(&mut self, open: u8, close: u8) {
        let mut depth = 1usize;
        while let Some(c) = self.peek() {
            match c {
                b'\\' => {
                    self.i += 1;
                    self.push_skip();
                }
                b'\'' => {
                    self.i += 1;
                    let mut sink = String::new();
                    self.single_quoted(&mut sink);
                }
                b'"' => {
                    self.i += 1;
                    let mut sink = String::new();
                    self.double_quoted(&mut sink);
                }
                b'`' => {
                    let mut sink = String::new();
                    self.backtick(&mut sink);
                }
                b'$' if self.peek_at(1) == Some(b'(') || self.peek_at(1) == Some(b'{') => {
                    let mut sink = String::new();
                    self.dollar(&mut sink);
                }
                _ if c == open => {
                    depth += 1;
                    self.i += 1;
                }
                _ if c == close => {
                    depth -= 1;
                    self.i += 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => self.push_skip(),
            }
        }
        self.incomplete = true;
    }

    fn push_skip(&mut self) {
        let rest = &self.src[self.i.min(self.s.len())..];
        if let Some(ch) = rest.chars().next() {
            self.i += ch.len_utf8();
        }
    }

    fn backtick(&mut self, out: &mut String) {
        let start = self.i;
        self.i += 1;
        loop {
            match self.peek() {
                None => {
                    self.incomplete = true;
                    break;
                }
                Some(b'\\') => {
                    self.i += 1;
                    self.push_skip();
                }
                Some(b'`') => {
                    self.i += 1;
                    break;
                }
                Some(_) => self.push_skip(),
            }
        }
        out.push_str(&self.src[start..self.i]);
    }

    /// Called after a newline token: consume the bodies of pending heredocs.
    fn read_heredoc_bodies(&mut self) {
        let pending = std::mem::take(&mut self.pending_heredocs);
        for h in pending {
            let mut body = String::new();
            let mut found = false;
            while self.i < self.s.len() {
                let end = self.src[self.i..]
                    .find('\n')
                    .map_or(self.s.len(), |k| self.i + k);
                let line = &self.src[self.i..end];
                self.i = (end + 1).min(self.s.len());
                let cmp = if h.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                if cmp == h.delim {
                    found = true;
                    break;
                }
                body.push_str(if h.strip_tabs { cmp } else { line });
                body.push('\n');
                if end == self.s.len() {
                    break;
                }
            }
            if !found {
                self.incomplete = true;
            }
            if let Some(slot) = self.bodies.get_mut(h.slot) {
                *slot = Some(body);
            }
        }
    }

    /// Parse a list until EOF or the given closing token.
    fn list(&mut self, close: Option<&'static str>) -> Script {
        self.depth += 1;
        let mut b = ListBuilder::default();
        // Each heredoc gets a slot; bodies are patched into their redirects when the list ends.
        let mut heredoc_slots: Vec<(usize, usize, usize, usize)> = Vec::new(); // (item, cmd, redirect, slot)
        loop {
            match self.next_tok() {
                Tok::Eof => {
                    b.finish_pipeline(None);
                    if close.is_some() {
                        self.incomplete = true;
                    }
                    break;
                }
                Tok::Op(")") if close == Some(")") => {
                    b.finish_pipeline(None);
                    break;
                }
                Tok::Op("&&") => b.finish_pipeline(Some(Sep::And)),
                Tok::Op("||") => b.finish_pipeline(Some(Sep::Or)),
                Tok::Op(";" | "\n" | ";;") => b.finish_pipeline(Some(Sep::Seq)),
                Tok::Op("&") => b.finish_pipeline(Some(Sep::Background)),
                Tok::Op("|" | "|&") => b.finish_cmd(),
                Tok::Op("(") => {
                    b.finish_cmd();
                    if self.depth < 64 {
                        let inner = self.list(Some(")"));
                        b.pipeline.commands.push(Command::Subshell(inner));
                    }
                }
                Tok::Op(_) => {} // a stray `)`
                Tok::Redir(fd, op) => {
                    b.started = true;
                    self.skip_blank();
                    let target = match self.peek() {
                        Some(c) if !self.is_word_end(c) => self.word(),
                        _ => Word {
                            text: String::new(),
                            quoted: false,
                            expansion: false,
                            unquoted_prefix: 0,
                        },
                    };
                    let mut heredoc = None;
                    if op == "<<" || op == "<<-" {
                        self.bodies.push(None);
                        let slot = self.bodies.len() - 1;
                        self.pending_heredocs.push(PendingHeredoc {
                            delim: target.text.clone(),
                            strip_tabs: op == "<<-",
                            slot,
                        });
                        heredoc_slots.push((
                            b.script.items.len(),
                            b.pipeline.commands.len(),
                            b.cmd.redirects.len(),
                            slot,
                        ));
                        heredoc = Some(String::new());
                    }
                    b.cmd.redirects.push(Redirect {
                        fd,
                        op: op.to_string(),
                        target,
                        heredoc,
                    });
                }
                Tok::Word(w) => {
                    b.started = true;
                    if b.cmd.words.is_empty() {
                        if let Some(eq) = w.text[..w.unquoted_prefix].find('=') {
                            let name = &w.text[..eq];
                            if is_name(name) {
                                let value = w.text[eq + 1..].to_string();
                                b.cmd.assignments.push((name.to_string(), value));
                                continue;
                            }
                        }
                        let bare =
                            !w.quoted && b.cmd.assignments.is_empty() && b.cmd.redirects.is_empty();
                        if bare && w.text == "!" && b.pipeline.commands.is_empty() {
                            b.pipeline.negated = true;
                            continue;
                        }
                        if bare && w.text == "{" && self.depth < 64 {
                            let inner = self.group();
                            b.pipeline.commands.push(Command::Group(inner));
                            b.started = false;
                            continue;
                        }
                    }
                    b.cmd.words.push(w);
                }
            }
        }
        let mut script = b.script;
        for (item, c, r, slot) in heredoc_slots {
            let body = self.bodies.get_mut(slot).and_then(Option::take);
            if let Some(Item { pipeline, .. }) = script.items.get_mut(item) {
                if let Some(Command::Simple(sc)) = pipeline.commands.get_mut(c) {
                    if let Some(rd) = sc.redirects.get_mut(r) {
                        rd.heredoc = Some(body.unwrap_or_default());
                    }
                }
            }
        }
        self.depth -= 1;
        script
    }

    /// `{ list; }` — parse until a `}` word in command position.
    fn group(&mut self) -> Script {
        // Find the closing brace by parsing a list and stopping at a `}` word.
        // We reuse `list` on a sub-slice: scan for the matching `}` respecting quotes.
        let start = self.i;
        let mut depth = 1usize;
        let mut j = self.i;
        let s = self.s;
        let mut at_cmd_start = true;
        while j < s.len() {
            let c = s[j];
            match c {
                b'\\' => {
                    j += 2;
                    at_cmd_start = false;
                    continue;
                }
                b'\'' => {
                    j += 1;
                    while j < s.len() && s[j] != b'\'' {
                        j += 1;
                    }
                    j += 1;
                    at_cmd_start = false;
                    continue;
                }
                b'"' => {
                    j += 1;
                    while j < s.len() && s[j] != b'"' {
                        if s[j] == b'\\' {
                            j += 1;
                        }
                        j += 1;
                    }
                    j += 1;
                    at_cmd_start = false;
                    continue;
                }
                b';' | b'\n' | b'&' | b'|' => {
                    at_cmd_start = true;
                    j += 1;
                    continue;
                }
                b' ' | b'\t' => {
                    j += 1;
                    continue;
                }
                b'{' if at_cmd_start
                    && s.get(j + 1)
                        .is_none_or(|&n| n == b' ' || n == b'\t' || n == b'\n') =>
                {
                    depth += 1;
                }
                b'}' if at_cmd_start && s.get(j + 1).is_none_or(|&n| self.is_word_end(n)) => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            at_cmd_start = false;
            j += 1;
        }
        let end = j.min(s.len());
        let inner_src = &self.src[start..end];
        let mut inner = parse(inner_src);
        if j >= s.len() {
            inner.incomplete = true;
            self.incomplete = true;
        }
        self.i = (end + 1).min(s.len());
        inner
    }
}

/// Accumulates commands, pipelines and list items while a list is parsed.
#[derive(Default)]
struct ListBuilder {
    script: Script,
    pipeline: Pipeline,
    cmd: SimpleCommand,
    started: bool,
    sep: Option<Sep>,
}

impl ListBuilder {
    fn finish_cmd(&mut self) {
        if self.started {
            let cmd = std::mem::take(&mut self.cmd);
            self.pipeline.commands.push(Command::Simple(cmd));
        }
        self.started = false;
    }

    /// End the current pipeline; `next` is the separator that ended it.
    fn finish_pipeline(&mut self, next: Option<Sep>) {
        self.finish_cmd();
        if !self.pipeline.commands.is_empty() {
            let pipeline = std::mem::take(&mut self.pipeline);
            self.script.items.push(Item {
                sep: self.sep,
                pipeline,
            });
            self.sep = next;
        } else if !self.script.items.is_empty() && next.is_some() && next != Some(Sep::Seq) {
            // `a &&\n b`: an empty line between keeps the stronger operator.
            self.sep = next;
        } else if self.pipeline.negated {
            self.pipeline = Pipeline::default();
        }
    }
}

fn push_code(out: &mut String, v: Option<u32>) {
    match v.and_then(char::from_u32) {
        Some(ch) => out.push(ch),
        None => out.push('\u{fffd}'),
    }
}

/// A valid shell variable name.
pub fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c == '_' || c.is_ascii_alphabetic() => {}
        _ => return false,
    }
    chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

impl Script {
    /// Every simple command in the script, depth first, in order.
    pub fn simple_commands(&self) -> Vec<&SimpleCommand> {
        let mut out = Vec::new();
        for item in &self.items {
            for c in &item.pipeline.commands {
                collect_simple(c, &mut out);
            }
        }
        out
    }
}

fn collect_simple<'s>(c: &'s Command, out: &mut Vec<&'s SimpleCommand>) {
    match c {
        Command::Simple(sc) => out.push(sc),
        Command::Subshell(s) | Command::Group(s) => {
            for item in &s.items {
                for c in &item.pipeline.commands {
                    collect_simple(c, out);
                }
            }
        }
    }
}
