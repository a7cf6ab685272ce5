//! Shell command strings: parsing ([`lex`]) and quoting ([`quote`], [`join`]).

pub mod lex;

pub use lex::{
    is_name, parse, Command, Item, Pipeline, Redirect, Script, Sep, SimpleCommand, Word,
};

/// Quote one word for a POSIX shell so that it is read back as exactly `s`.
pub fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'_' | b'@' | b'%' | b'+' | b'=' | b':' | b',' | b'.' | b'/' | b'-'
                )
        })
    {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for ch in s.chars() {
        if ch == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(ch);
        }
    }
    out.push('\'');
    out
}

/// Join argv into one command string that a POSIX shell splits back into the same words.
pub fn join<S: AsRef<str>>(argv: &[S]) -> String {
    let mut out = String::new();
    for (i, a) in argv.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&quote(a.as_ref()));
    }
    out
}

#[cfg(test)]
mod tests;
