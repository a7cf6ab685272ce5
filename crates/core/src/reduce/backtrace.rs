//! The frames of a Rust backtrace that are the standard library's (the panic machinery
//! at the top, the runtime's start at the bottom) said as one line each run, before any
//! cut: with `RUST_BACKTRACE=full` they are most of a backtrace's lines, and a cut for
//! size in its middle took the program's own frames, the ones that say where it failed.

/// A run of the standard library's frames being held.
#[derive(Debug, Default)]
struct Run {
    first: String,
    last: String,
    frames: usize,
    /// The run's lines as they came, given back as they are when the run is one frame.
    lines: Vec<String>,
}

/// Reads lines, inside a Rust backtrace holds the standard library's frames back and says
/// each run of them as one line.
#[derive(Debug, Default)]
pub struct Backtraces {
    /// Inside a backtrace (after its `stack backtrace:` line).
    inside: bool,
    /// The frame being read is held (one of the standard library's).
    holding: bool,
    run: Option<Run>,
}

/// Runs of fewer frames stay as they came.
const MIN_FRAMES: usize = 2;

impl Backtraces {
    /// `line` and what it lets go of, in order, to `out` (the session calls its parts on
    /// its own: [`inside`](Self::inside), [`look`](Self::look), [`push_inside`](Self::push_inside)).
    #[inline]
    pub fn push(&mut self, line: &str, out: &mut impl FnMut(&str)) {
        if !self.inside {
            out(line);
            self.look(line);
            return;
        }
        self.push_inside(line, out);
    }

    /// Inside a backtrace: lines go to [`push_inside`](Self::push_inside).
    #[inline]
    pub fn inside(&self) -> bool {
        self.inside
    }

    /// A line outside a backtrace (passed on as it is): does one start after it?
    #[inline]
    pub fn look(&mut self, line: &str) {
        if starts_backtrace(line) {
            self.inside = true;
        }
    }

    /// [`push`](Self::push) of a line inside a backtrace.
    #[inline(never)]
    pub fn push_inside(&mut self, line: &str, out: &mut impl FnMut(&str)) {
        let t = line.trim();
        if let Some(name) = frame_name(t) {
            let (number, _) = t.split_once(':').unwrap_or_default();
            if is_library(name) {
                let run = self.run.get_or_insert_with(|| Run {
                    first: number.to_string(),
                    ..Run::default()
                });
                run.last.clear();
                run.last.push_str(number);
                run.frames += 1;
                run.lines.push(line.to_string());
                self.holding = true;
                return;
            }
            self.holding = false;
            self.end_run(out);
            out(line);
            return;
        }
        if t.starts_with("at ") {
            match (&mut self.run, self.holding) {
                (Some(run), true) => run.lines.push(line.to_string()),
                _ => out(line),
            }
            return;
        }
        // the backtrace ended
        self.inside = false;
        self.holding = false;
        self.end_run(out);
        self.push(line, out);
    }

    /// The end of the output: a run held is let go of.
    pub fn finish(&mut self, out: &mut impl FnMut(&str)) {
        self.inside = false;
        self.holding = false;
        self.end_run(out);
    }

    fn end_run(&mut self, out: &mut impl FnMut(&str)) {
        let Some(run) = self.run.take() else {
            return;
        };
        if run.frames < MIN_FRAMES {
            for l in &run.lines {
                out(l);
            }
            return;
        }
        let indent = &run.lines[0][..run.lines[0].len() - run.lines[0].trim_start().len()];
        out(&format!(
            "{indent}{}–{}: {} frames of the Rust standard library and runtime ({} lines, not shown)",
            run.first,
            run.last,
            run.frames,
            run.lines.len()
        ));
    }
}

/// Whether a frame line (`  48:     0x7fa7… - start_thread`) is of a function of the
/// standard library or the runtime.
pub fn is_library_frame(line: &str) -> bool {
    frame_name(line.trim()).is_some_and(is_library)
}

/// `stack backtrace:` (a panic's, `RUST_BACKTRACE` set) or `Stack backtrace:` (anyhow's).
#[inline]
fn starts_backtrace(line: &str) -> bool {
    let b = line.as_bytes();
    // most lines end in anything but `:`: one comparison for them
    if b.last() != Some(&b':') && !b.last().is_some_and(u8::is_ascii_whitespace) {
        return false;
    }
    let t = line.trim();
    t.eq_ignore_ascii_case("stack backtrace:")
}

/// The function of a frame line (`  4: rp::parse`, `  14:     0x55ab… - core::panicking::panic_fmt`).
pub fn frame_name(t: &str) -> Option<&str> {
    let (number, rest) = t.split_once(':')?;
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rest = rest.trim_start();
    if rest.is_empty() {
        return None;
    }
    match rest.strip_prefix("0x") {
        Some(addr) => Some(addr.split_once(" - ").map_or("", |(_, name)| name.trim())),
        None => Some(rest),
    }
}

/// Whether the function is the standard library's or the runtime's: a path in `std`,
/// `core` or `alloc` (`std[e28293b1aa0f68bd]::…` in a full backtrace, `<core::… as …>`
/// for a trait method; its traits' methods on primitives), the panic machinery's symbols,
/// the C runtime's start and thread start, and frames with no name. A method of another
/// crate's trait is that crate's.
fn is_library(name: &str) -> bool {
    // `<&dyn core::ops::Fn<…> as …>::call`: the type the method is of
    let mut n = name.trim_start_matches(['<', '&']);
    for word in ["mut ", "dyn "] {
        n = n.strip_prefix(word).unwrap_or(n);
    }
    let head = n.split(['[', ':', '<', ' ']).next().unwrap_or("");
    // `<T as Trait>::f`: a trait of the program's (or a dependency's) is theirs
    let std_trait = name.split_once(" as ").is_none_or(|(_, t)| {
        let t = t.split(['[', ':']).next().unwrap_or("");
        matches!(t, "core" | "std" | "alloc")
    });
    if !std_trait {
        return false;
    }
    // the standard library's methods on a primitive (`<usize as core::slice::index::
    // SliceIndex<[T]>>::index`, `<[T]>::…`)
    let primitive = name.starts_with('<')
        && (n.starts_with('[')
            || matches!(
                head,
                "u8" | "u16"
                    | "u32"
                    | "u64"
                    | "u128"
                    | "usize"
                    | "i8"
                    | "i16"
                    | "i32"
                    | "i64"
                    | "i128"
                    | "isize"
                    | "f32"
                    | "f64"
                    | "bool"
                    | "char"
                    | "str"
            ));
    primitive
        || matches!(
            head,
            "std"
                | "core"
                | "alloc"
                | "__rustc"
                | "__rust_try"
                | "__rust_begin_short_backtrace"
                | "__rust_end_short_backtrace"
                | "rust_begin_unwind"
                | "main"
                | "_start"
                | "__libc_start_main"
                | "__libc_start_main_impl"
                | "__libc_start_call_main"
                | "start_thread"
                | "clone"
                | "clone3"
                | "__clone"
                | "__clone3"
                | ""
        )
        || name.starts_with("<unknown>")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(text: &str) -> Vec<String> {
        let mut b = Backtraces::default();
        let mut out = Vec::new();
        for l in text.lines() {
            b.push(l, &mut |x| out.push(x.to_string()));
        }
        b.finish(&mut |x| out.push(x.to_string()));
        out
    }

    const SHORT: &str = "\
thread 'main' panicked at src/main.rs:2:38:
not a number: ParseIntError { kind: InvalidDigit }
stack backtrace:
   0: __rustc::rust_begin_unwind
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/panicking.rs:689:5
   1: core::panicking::panic_fmt
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:80:14
   2: <usize as core::slice::index::SliceIndex<[T]>>::index
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/slice/index.rs:272:10
   3: rp::parse
             at ./src/main.rs:2:38
   4: <rp::Unit as core::fmt::Display>::fmt
             at ./src/main.rs:9:5
   5: <usize as rp::Port>::open
             at ./src/main.rs:12:5
   6: <alloc::vec::Vec<T> as rp::Ports>::open_all
             at ./src/main.rs:16:9
   7: core::ops::function::FnOnce::call_once
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/ops/function.rs:250:5
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.
";

    #[test]
    fn the_standard_library_frames_fold_and_the_programs_stay() {
        let out = fold(SHORT);
        assert_eq!(
            out,
            [
                "thread 'main' panicked at src/main.rs:2:38:",
                "not a number: ParseIntError { kind: InvalidDigit }",
                "stack backtrace:",
                "   0–2: 3 frames of the Rust standard library and runtime (6 lines, not shown)",
                "   3: rp::parse",
                "             at ./src/main.rs:2:38",
                "   4: <rp::Unit as core::fmt::Display>::fmt",
                "             at ./src/main.rs:9:5",
                // a trait of the program's on a primitive is the program's
                "   5: <usize as rp::Port>::open",
                "             at ./src/main.rs:12:5",
                "   6: <alloc::vec::Vec<T> as rp::Ports>::open_all",
                "             at ./src/main.rs:16:9",
                // one frame alone stays as it came
                "   7: core::ops::function::FnOnce::call_once",
                "             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/ops/function.rs:250:5",
                "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.",
            ]
        );
    }

    #[test]
    fn a_full_backtrace_keeps_the_programs_frames_and_its_dependencies() {
        let text = "\
stack backtrace:
   0:     0x55abf298cc4a - std[e28293b1aa0f68bd]::backtrace_rs::backtrace::libunwind::trace
                               at /rustc/5980/library/std/src/../../backtrace/src/backtrace/libunwind.rs:117:9
   1:     0x55abf299dbaa - core[c1f1a4ba060b9bfa]::fmt::write
   2:     0x55abf29589e7 - rp::parse::hf1177e28512d3c5c
                               at /tmp/ho10/rp/src/main.rs:2:38
   3:     0x55abf29589e8 - tokio::runtime::task::harness::poll::h11
   4:     0x55abf295b42b - __rust_try
   5:     0x55abf295ae14 - <&dyn core[c1f1a4ba060b9bfa]::ops::function::Fn<(), Output = i32> as core::ops::Fn>::call
   6:     0x7f9e1c2a8ea7 - start_thread
   7:     0x7f9e1c3c8a2f - clone
   8:                0x0 - <unknown>

thread 'main' panicked at src/main.rs:8:29:
";
        let out = fold(text);
        assert_eq!(
            out,
            [
                "stack backtrace:",
                "   0–1: 2 frames of the Rust standard library and runtime (3 lines, not shown)",
                "   2:     0x55abf29589e7 - rp::parse::hf1177e28512d3c5c",
                "                               at /tmp/ho10/rp/src/main.rs:2:38",
                "   3:     0x55abf29589e8 - tokio::runtime::task::harness::poll::h11",
                "   4–8: 5 frames of the Rust standard library and runtime (5 lines, not shown)",
                "",
                "thread 'main' panicked at src/main.rs:8:29:",
            ]
        );
    }

    #[test]
    fn lines_outside_a_backtrace_pass_as_they_are() {
        let text = "error: 3: not a frame\n  0: core::fmt::write\nStack backtrace:\n";
        assert_eq!(fold(text), text.lines().collect::<Vec<_>>());
        // a backtrace the output ends in lets go of its held run
        let out = fold("stack backtrace:\n   0: std::a\n   1: std::b\n");
        assert_eq!(out.len(), 2);
        assert!(out[1].contains("0–1: 2 frames"), "{out:?}");
    }
}
