//! `tokenjuice ls | cat | stats | discover | doctor`: what the store holds and what the
//! history says.

use std::io::{IsTerminal, Read, Write};
use tokenjuice_core::result::Kind;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};

use tokenjuice_core::compact::{plan, Finish, Request};
use tokenjuice_store::artifact::{self, CopyError};
use tokenjuice_store::discover::{self, Candidate, Thresholds};
use tokenjuice_store::doctor::{self, Verdict};
use tokenjuice_store::history::History;
use tokenjuice_store::report::{self, By, Group, Report, Sums};
use tokenjuice_store::timefmt::{self, TimeZone};
use tokenjuice_store::{spool, Home, Settings, StoreError};

use crate::run_store::human_bytes;
use crate::{rules_env, Format};

#[derive(Args)]
pub struct LsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Args)]
pub struct CatArgs {
    /// The artifact id (tj_ and 12 hex digits), as named by an omission marker or `tokenjuice ls`.
    pub id: String,
    /// text: the exact raw bytes; json: {id, metadata, rawText (invalid UTF-8 replaced), lossless}.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StatsFormat {
    Text,
    Json,
    Csv,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ByArg {
    Reducer,
    Command,
    Source,
    Family,
    Day,
}

impl From<ByArg> for By {
    fn from(b: ByArg) -> By {
        match b {
            ByArg::Reducer => By::Reducer,
            ByArg::Command => By::Command,
            ByArg::Source => By::Source,
            ByArg::Family => By::Family,
            ByArg::Day => By::Day,
        }
    }
}

#[derive(Args)]
pub struct StatsArgs {
    /// Only runs since: 30m, 24h, 7d, 2w, today, yesterday, a date (2026-05-01) or an RFC 3339 time. Default: all kept history.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// One breakdown, every row (default: top reducers, top commands and the last days).
    #[arg(long, value_enum)]
    pub by: Option<ByArg>,
    /// Zone for days and dates: local, utc, an IANA name (Europe/Paris) or an offset (+02:00).
    #[arg(long, default_value = "local", value_name = "ZONE")]
    pub timezone: String,
    /// Output format (csv: one breakdown, by day unless --by says otherwise).
    #[arg(long, value_enum, default_value_t = StatsFormat::Text)]
    pub format: StatsFormat,
    /// Only runs from this source (host label).
    #[arg(long, value_name = "NAME")]
    pub source: Option<String>,
    /// A chart of tokens saved per day, one line per day (plain `#` bars off a terminal, so
    /// it reads the same in a CI log); the last `--days` days unless `--since` says otherwise.
    #[arg(long, conflicts_with_all = ["by", "format"])]
    pub chart: bool,
    /// Days the chart shows, today included.
    #[arg(long, default_value_t = 30, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=400), requires = "chart")]
    pub days: u16,
}

#[derive(Args)]
pub struct DiscoverArgs {
    /// Judge one saved output (a file, or - for stdin) instead of the history.
    pub file: Option<String>,
    /// The command that produced FILE's output.
    #[arg(long, value_name = "CMD")]
    pub source_command: Option<String>,
    /// FILE's command exit code.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    pub exit_code: i32,
    /// The host's tool name for FILE (default exec).
    #[arg(long, value_name = "NAME", default_value = "exec")]
    pub tool_name: String,
    /// Only runs since (as for stats). Default: all kept history.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Show at most this many candidates.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Args)]
pub struct DoctorArgs {
    /// Without a target: reducer health from the run history. Host targets (`hooks`,
    /// `<host>`) check integrations.
    pub target: Option<String>,
    /// Only runs since (as for stats). Default: 30d.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

fn settings() -> Settings {
    Settings::from_env()
}

fn home(s: &Settings) -> Result<Home> {
    s.home.clone().ok_or_else(|| StoreError::NoHome.into())
}

/// Run a store command; errors become one `tokenjuice <cmd>: error: …` line and exit 1.
pub fn run(name: &str, f: impl FnOnce() -> Result<i32>) -> i32 {
    match f() {
        Ok(code) => code,
        // the reader went away (`tokenjuice ls | head`): nothing to say
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
                    || c.downcast_ref::<serde_json::Error>()
                        .and_then(|j| j.io_error_kind())
                        == Some(std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            0
        }
        Err(e) => {
            eprintln!("tokenjuice {name}: error: {e:#}");
            1
        }
    }
}

// ---------------------------------------------------------------- ls

pub fn ls(a: LsArgs) -> Result<i32> {
    let s = settings();
    let home = home(&s)?;
    let list = artifact::list(&home)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match a.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &list)?;
            writeln!(out)?;
        }
        Format::Text => {
            if list.is_empty() {
                writeln!(
                    out,
                    "no artifacts in {} (keep one with `tokenjuice wrap --store -- <command>`)",
                    home.artifact_dir().display()
                )?;
                return Ok(0);
            }
            let tz = timefmt::local_zone();
            writeln!(
                out,
                "{:<15}  {:<16}  {:>9}  {:>9}  {:>4}  {:<20}  RULE",
                "ID", "CREATED", "RAW", "STORED", "EXIT", "COMMAND"
            )?;
            for l in &list {
                let m = &l.meta;
                let raw = if m.truncated {
                    format!("{}+", human_bytes(m.kept_bytes))
                } else {
                    human_bytes(m.raw_bytes)
                };
                writeln!(
                    out,
                    "{:<15}  {:<16}  {:>9}  {:>9}  {:>4}  {:<20}  {}",
                    l.id,
                    timefmt::format_ms(m.created_ms, &tz),
                    raw,
                    human_bytes(m.stored_bytes),
                    m.exit_code
                        .map(|c| c.to_string())
                        .unwrap_or_else(|| "-".into()),
                    m.command.as_deref().unwrap_or("-"),
                    m.rule_id.as_deref().unwrap_or("-"),
                )?;
            }
        }
    }
    Ok(0)
}

// ---------------------------------------------------------------- cat

pub fn cat(a: CatArgs) -> Result<i32> {
    let s = settings();
    let home = home(&s)?;
    let (id, mut reader) = artifact::open(&home, &a.id)?;
    let meta = artifact::meta(&home, &id);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match a.format {
        Format::Text => match reader.copy_to(&mut out) {
            Ok(_) => {}
            Err(CopyError::Write(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(0),
            Err(CopyError::Write(e)) => return Err(e).context("writing to stdout"),
            Err(CopyError::Read(e)) => {
                let _ = out.flush();
                return Err(e.into());
            }
        },
        Format::Json => {
            write!(out, "{{\"id\":")?;
            serde_json::to_writer(&mut out, id.as_str())?;
            write!(out, ",\"metadata\":")?;
            serde_json::to_writer(&mut out, &meta)?;
            write!(out, ",\"rawText\":\"")?;
            let mut esc = JsonStringWriter::new(&mut out);
            let res = reader.copy_to(&mut esc);
            let lossless = esc.finish()?;
            match res {
                Ok(_) => {}
                Err(CopyError::Write(e)) => return Err(e).context("writing to stdout"),
                Err(CopyError::Read(e)) => return Err(e.into()),
            }
            writeln!(out, "\",\"lossless\":{lossless}}}")?;
        }
    }
    out.flush().ok();
    if let Some(m) = meta.filter(|m| m.truncated) {
        eprintln!(
            "tokenjuice cat: note: {} holds the first {} of {} bytes the command printed (per-artifact cap; TOKENJUICE_ARTIFACT_MAX_MB raises it)",
            id, m.kept_bytes, m.raw_bytes
        );
    }
    Ok(0)
}

/// Writes bytes as the inside of a JSON string, in constant memory: UTF-8 split
/// across writes is joined, invalid bytes become U+FFFD (and `lossless` turns false).
struct JsonStringWriter<'a, W: Write> {
    out: &'a mut W,
    carry: Vec<u8>,
    lossless: bool,
}

impl<'a, W: Write> JsonStringWriter<'a, W> {
    fn new(out: &'a mut W) -> Self {
        JsonStringWriter {
            out,
            carry: Vec::new(),
            lossless: true,
        }
    }

    fn emit(&mut self, s: &str) -> std::io::Result<()> {
        let mut start = 0;
        for (i, c) in s.char_indices() {
            let esc: Option<String> = match c {
                '"' => Some("\\\"".into()),
                '\\' => Some("\\\\".into()),
                '\n' => Some("\\n".into()),
                '\r' => Some("\\r".into()),
                '\t' => Some("\\t".into()),
                c if (c as u32) < 0x20 || c == '\u{7f}' => Some(format!("\\u{:04x}", c as u32)),
                _ => None,
            };
            if let Some(e) = esc {
                self.out.write_all(&s.as_bytes()[start..i])?;
                self.out.write_all(e.as_bytes())?;
                start = i + c.len_utf8();
            }
        }
        self.out.write_all(&s.as_bytes()[start..])
    }

    /// Flush a trailing incomplete sequence (as U+FFFD); true when every byte was valid UTF-8.
    fn finish(mut self) -> std::io::Result<bool> {
        if !self.carry.is_empty() {
            self.lossless = false;
            self.carry.clear();
            self.emit("\u{fffd}")?;
        }
        Ok(self.lossless)
    }
}

impl<W: Write> Write for JsonStringWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut data = std::mem::take(&mut self.carry);
        data.extend_from_slice(buf);
        let mut rest: &[u8] = &data;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    self.emit(s)?;
                    break;
                }
                Err(e) => {
                    let (ok, bad) = rest.split_at(e.valid_up_to());
                    // SAFETY-free: valid_up_to guarantees `ok` is UTF-8
                    self.emit(std::str::from_utf8(ok).unwrap_or_default())?;
                    match e.error_len() {
                        Some(n) => {
                            self.lossless = false;
                            self.emit("\u{fffd}")?;
                            rest = &bad[n..];
                        }
                        None => {
                            // an incomplete sequence at the end: wait for more bytes
                            self.carry = bad.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

// ---------------------------------------------------------------- stats

struct Window {
    from_ms: i64,
    to_ms: i64,
}

fn window(
    h: &History,
    since: Option<&str>,
    tz: &TimeZone,
    default_since: Option<&str>,
) -> Result<Window> {
    let now = tokenjuice_store::now_ms();
    let from_ms = match since.or(default_since) {
        Some(s) => timefmt::parse_since(s, now, tz)?,
        None => report::first_run_ms(h)?.unwrap_or(now),
    };
    Ok(Window {
        from_ms,
        to_ms: now + 1,
    })
}

/// Open the history for a report (after adding any records still in the spool);
/// `None` when there is none yet.
fn open_history(home: &Home) -> Result<Option<History>> {
    let _ = tokenjuice_store::history::flush_spool(home, 1_000);
    Ok(History::open_existing(home)?)
}

pub fn stats(a: StatsArgs) -> Result<i32> {
    let s = settings();
    let home = home(&s)?;
    let tz = timefmt::zone(&a.timezone)?;
    let by = a.by.map(By::from);
    let Some(h) = open_history(&home)? else {
        return empty_stats(&s, &home, a.format);
    };
    let mut w = window(&h, a.since.as_deref(), &tz, None)?;
    if a.chart && a.since.is_none() {
        // the last N calendar days, today included
        let mut first = timefmt::day_of(w.to_ms - 1, &tz);
        for _ in 1..a.days {
            first = first.yesterday().unwrap_or(first);
        }
        w.from_ms = timefmt::start_of_day(first, &tz);
    }
    let report = match &a.source {
        Some(src) => report::build_for_source(
            &h,
            w.from_ms,
            w.to_ms,
            &tz,
            &tokenjuice_store::record::normalize_source(Some(src)),
        )?,
        None => report::build(&h, w.from_ms, w.to_ms, &tz)?,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match a.format {
        StatsFormat::Json => {
            let v = match by {
                None => serde_json::to_value(&report)?,
                Some(b) => serde_json::json!({
                    "fromMs": report.from_ms,
                    "toMs": report.to_ms,
                    "timezone": report.timezone,
                    "totals": report.totals,
                    "ratio": report.ratio,
                    "savedPct": report.saved_pct,
                    "by": b.name(),
                    "groups": report.groups(b),
                }),
            };
            serde_json::to_writer_pretty(&mut out, &v)?;
            writeln!(out)?;
        }
        StatsFormat::Csv => {
            let b = by.unwrap_or(By::Day);
            writeln!(
                out,
                "{},runs,raw_tokens,reduced_tokens,saved_tokens,ratio,raw_bytes,reduced_bytes",
                b.name()
            )?;
            for g in report.groups(b) {
                writeln!(
                    out,
                    "{},{},{},{},{},{:.4},{},{}",
                    csv_field(&g.key),
                    g.sums.runs,
                    g.sums.raw_tokens,
                    g.sums.reduced_tokens,
                    g.sums.saved_tokens,
                    g.ratio,
                    g.sums.raw_bytes,
                    g.sums.reduced_bytes
                )?;
            }
        }
        StatsFormat::Text if a.chart => {
            write_chart(&mut out, &report, &Style::detect())?;
        }
        StatsFormat::Text => {
            let style = Style::detect();
            write_stats_text(&mut out, &report, by, &style)?;
        }
    }
    Ok(0)
}

/// Width of the longest bar of the chart.
const CHART_WIDTH: usize = 40;

/// Tokens saved per day, one line per day with a bar scaled to the best day: the date and
/// weekday, the bar, the tokens saved, then runs and the share saved. Days with no runs are
/// shown (an empty bar); a day whose output grew has no bar and a negative number.
fn write_chart(out: &mut dyn Write, r: &Report, style: &Style) -> Result<()> {
    let tz = timefmt::zone(&r.timezone).unwrap_or(TimeZone::UTC);
    let days = &r.days;
    let max = days.iter().map(|d| d.sums.saved_tokens).max().unwrap_or(0);
    let per = (max.max(1) as f64 / CHART_WIDTH as f64).max(1.0);
    writeln!(
        out,
        "{} {} → {} ({}), {} saved in {} run{}",
        style.bold("tokens saved per day"),
        timefmt::format_ms(r.from_ms, &tz)
            .split_whitespace()
            .next()
            .unwrap_or(""),
        timefmt::format_ms(r.to_ms - 1, &tz)
            .split_whitespace()
            .next()
            .unwrap_or(""),
        r.timezone,
        short(r.totals.saved_tokens),
        r.totals.runs,
        if r.totals.runs == 1 { "" } else { "s" }
    )?;
    if days.is_empty() {
        writeln!(out, "no runs in this window")?;
        return Ok(());
    }
    writeln!(
        out,
        "scale: {} = {} tokens saved",
        if style.bars { "█" } else { "#" },
        short(per.round() as i64)
    )?;
    for d in days {
        let saved = d.sums.saved_tokens;
        let cells = if saved > 0 {
            ((saved as f64 / per).round() as usize).clamp(1, CHART_WIDTH)
        } else {
            0
        };
        let bar = if style.bars {
            let b = "█".repeat(cells);
            if style.color && cells > 0 {
                format!("\x1b[32m{b}\x1b[0m")
            } else {
                b
            }
        } else {
            "#".repeat(cells)
        };
        let weekday = timefmt::weekday_short(&d.key);
        let detail = if d.sums.runs == 0 {
            String::new()
        } else {
            format!(
                "  {} run{}, {:.0}% saved",
                d.sums.runs,
                if d.sums.runs == 1 { "" } else { "s" },
                (1.0 - d.ratio) * 100.0
            )
        };
        writeln!(
            out,
            "{} {weekday} {bar}{} {:>7}{detail}",
            d.key,
            " ".repeat(CHART_WIDTH - cells),
            short(saved)
        )?;
    }
    Ok(())
}

fn empty_stats(s: &Settings, home: &Home, format: StatsFormat) -> Result<i32> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match format {
        StatsFormat::Json => writeln!(
            out,
            "{}",
            serde_json::json!({"totals": Sums::default(), "ratio": 1.0, "savedPct": 0.0, "reducers": [], "commands": [], "sources": [], "families": [], "days": []})
        )?,
        StatsFormat::Csv => writeln!(
            out,
            "day,runs,raw_tokens,reduced_tokens,saved_tokens,ratio,raw_bytes,reduced_bytes"
        )?,
        StatsFormat::Text => {
            writeln!(
                out,
                "no runs recorded yet in {}",
                home.history_path().display()
            )?;
            if !s.history {
                writeln!(out, "history is off (TOKENJUICE_STATS or [history] enabled = false in the config file)")?;
            }
        }
    }
    Ok(0)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Terminal styling: bars only on a terminal, colour only when NO_COLOR is unset.
struct Style {
    bars: bool,
    color: bool,
}

impl Style {
    fn detect() -> Style {
        let tty =
            std::io::stdout().is_terminal() && std::env::var("TERM").map_or(true, |t| t != "dumb");
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            bars: tty,
            color: tty && !no_color,
        }
    }

    fn bar(&self, value: f64, max: f64, width: usize) -> String {
        if !self.bars || max <= 0.0 || value <= 0.0 {
            return String::new();
        }
        const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
        let eighths = ((value / max) * (width * 8) as f64).round().max(1.0) as usize;
        let mut s = "█".repeat(eighths / 8);
        s.push_str(PARTS[eighths % 8]);
        if self.color {
            format!("  \x1b[32m{s}\x1b[0m")
        } else {
            format!("  {s}")
        }
    }

    fn bold(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[1m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
}

/// 950, 12.3k, 4.1M.
fn short(n: i64) -> String {
    let a = n.unsigned_abs() as f64;
    let sign = if n < 0 { "-" } else { "" };
    if a >= 1e9 {
        format!("{sign}{:.1}G", a / 1e9)
    } else if a >= 1e6 {
        format!("{sign}{:.1}M", a / 1e6)
    } else if a >= 1e4 {
        format!("{sign}{:.0}k", a / 1e3)
    } else if a >= 1e3 {
        format!("{sign}{:.1}k", a / 1e3)
    } else {
        format!("{n}")
    }
}

fn write_groups(
    out: &mut dyn Write,
    title: &str,
    groups: &[Group],
    limit: usize,
    style: &Style,
) -> std::io::Result<()> {
    if groups.is_empty() {
        return Ok(());
    }
    let shown = &groups[..groups.len().min(limit)];
    let width = shown
        .iter()
        .map(|g| g.key.chars().count().min(40))
        .chain(std::iter::once(title.chars().count()))
        .max()
        .unwrap_or(8);
    writeln!(out)?;
    writeln!(
        out,
        "{}",
        style.bold(&format!(
            "{title:<width$}  {:>6}  {:>7}  {:>7}  {:>6}",
            "runs", "raw", "saved", "saved%"
        ))
    )?;
    let max = shown
        .iter()
        .map(|g| g.sums.saved_tokens.max(0) as f64)
        .fold(0.0, f64::max);
    for g in shown {
        let key: String = g.key.chars().take(40).collect();
        writeln!(
            out,
            "{key:<width$}  {:>6}  {:>7}  {:>7}  {:>5.0}%{}",
            g.sums.runs,
            short(g.sums.raw_tokens as i64),
            short(g.sums.saved_tokens),
            g.sums.saved_pct(),
            style.bar(g.sums.saved_tokens.max(0) as f64, max, 16)
        )?;
    }
    if groups.len() > shown.len() {
        writeln!(
            out,
            "… {} more (--by shows all)",
            groups.len() - shown.len()
        )?;
    }
    Ok(())
}

fn write_stats_text(out: &mut dyn Write, r: &Report, by: Option<By>, style: &Style) -> Result<()> {
    let tz = timefmt::zone(&r.timezone).unwrap_or(TimeZone::UTC);
    let t = &r.totals;
    writeln!(
        out,
        "{} {} → {} ({}) · {} run{}",
        style.bold("tokenjuice stats"),
        timefmt::format_ms(r.from_ms, &tz),
        timefmt::format_ms(r.to_ms - 1, &tz),
        r.timezone,
        t.runs,
        if t.runs == 1 { "" } else { "s" }
    )?;
    if t.runs == 0 {
        writeln!(out, "no runs in this window")?;
        return Ok(());
    }
    writeln!(
        out,
        "tokens: {} raw → {} shown · saved {} ({:.1}%) · ratio {:.2}",
        short(t.raw_tokens as i64),
        short(t.reduced_tokens as i64),
        short(t.saved_tokens),
        r.saved_pct,
        r.ratio
    )?;
    writeln!(
        out,
        "bytes:  {} raw → {} shown · {} failed · {} to the fallback · {} raw or exact reads · {} capture-truncated",
        human_bytes(t.raw_bytes),
        human_bytes(t.reduced_bytes),
        r.failed_runs,
        r.fallback_runs,
        r.raw_runs,
        r.capture_truncated_runs
    )?;
    match by {
        Some(b) => {
            let groups = r.groups(b);
            let title = if b == By::Day {
                format!("day ({})", r.timezone)
            } else {
                b.name().to_string()
            };
            write_groups(out, &title, groups, usize::MAX, style)?;
        }
        None => {
            write_groups(out, "top reducers", &r.reducers, 5, style)?;
            write_groups(out, "top commands", &r.commands, 5, style)?;
            if r.sources.len() > 1 {
                write_groups(out, "sources", &r.sources, 5, style)?;
            }
            let days = &r.days[r.days.len().saturating_sub(7)..];
            write_groups(out, &format!("last days ({})", r.timezone), days, 7, style)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- discover

pub fn discover(a: DiscoverArgs) -> Result<i32> {
    if a.file.is_some() || a.source_command.is_some() {
        return discover_one(a);
    }
    let s = settings();
    let home = home(&s)?;
    let tz = timefmt::local_zone();
    let Some(h) = open_history(&home)? else {
        println!(
            "no runs recorded yet in {}; nothing to discover",
            home.history_path().display()
        );
        return Ok(0);
    };
    let w = window(&h, a.since.as_deref(), &tz, None)?;
    let mut cands = discover::candidates(&h, w.from_ms, w.to_ms, &Thresholds::default())?;
    let total = cands.len();
    cands.truncate(a.limit);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match a.format {
        Format::Json => {
            serde_json::to_writer_pretty(
                &mut out,
                &serde_json::json!({"fromMs": w.from_ms, "toMs": w.to_ms, "total": total, "candidates": cands}),
            )?;
            writeln!(out)?;
        }
        Format::Text => {
            if cands.is_empty() {
                writeln!(
                    out,
                    "no candidates since {}: no command keeps falling to the generic fallback and no rule saves too little",
                    timefmt::format_ms(w.from_ms, &tz)
                )?;
                return Ok(0);
            }
            writeln!(
                out,
                "{total} candidate{} since {}, most tokens at stake first:",
                if total == 1 { "" } else { "s" },
                timefmt::format_ms(w.from_ms, &tz)
            )?;
            for c in &cands {
                write_candidate(&mut out, c)?;
            }
            if total > cands.len() {
                writeln!(out, "… {} more (--limit)", total - cands.len())?;
            }
        }
    }
    Ok(0)
}

fn write_candidate(out: &mut dyn Write, c: &Candidate) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<12}  {:<28}  {:>4} runs  {:>7} tokens at stake (kept {:.0}%){}",
        c.kind.as_str(),
        c.key,
        c.runs,
        short(c.at_stake_tokens as i64),
        c.ratio * 100.0,
        c.top_command
            .as_ref()
            .map(|t| format!(", mostly `{t}`"))
            .unwrap_or_default()
    )?;
    writeln!(out, "              → {}", c.suggestion)
}

fn discover_one(a: DiscoverArgs) -> Result<i32> {
    let mut input: Box<dyn Read> = match a.file.as_deref() {
        None | Some("-") => Box::new(std::io::stdin().lock()),
        Some(p) => Box::new(std::fs::File::open(p).with_context(|| format!("cannot read {p}"))?),
    };
    let rules = rules_env::load_for_run();
    let req = Request {
        tool_name: &a.tool_name,
        command: a.source_command.as_deref(),
        argv: None,
        classifier: None,
        raw: false,
        no_omit: false,
        ..Request::default()
    };
    let p = plan(&req, &rules.rules);
    let mut session = p.session();
    let mut buf = vec![0u8; 256 << 10];
    loop {
        match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => session.push(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => bail!("reading the output: {e}"),
        }
    }
    let result = session.finish(a.exit_code, &Finish::default());
    let mode = if result.compaction.has(Kind::ExactReadPassthrough) {
        "exact-read"
    } else if result.compaction.has(Kind::RawPassthrough) {
        "raw"
    } else {
        "reduced"
    };
    let single = discover::judge(
        &result.classification.matched_reducer,
        mode,
        result.stats.raw_tokens,
        result.stats.reduced_tokens,
        &Thresholds::default(),
    );
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match a.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &single)?;
            writeln!(out)?;
        }
        Format::Text => {
            writeln!(
                out,
                "{}: {} ({} → {} tokens)",
                single.verdict, single.explanation, single.raw_tokens, single.reduced_tokens
            )?;
            match single.verdict.as_str() {
                "missing-rule" => {
                    let argv = &p.norm.argv;
                    let (prog, sub) = tokenjuice_store::signature::signature(argv);
                    if !prog.is_empty() {
                        let mut m = format!("\"argv0\": [\"{prog}\"]");
                        if let Some(s) = sub {
                            m.push_str(&format!(", \"argvIncludes\": [[\"{s}\"]]"));
                        }
                        writeln!(out, "→ write a rule with \"match\": {{{m}}} (docs/rules.md), then `tokenjuice verify`")?;
                    } else {
                        writeln!(out, "→ pass --source-command so the output can be matched to a rule")?;
                    }
                }
                "weak-rule" => writeln!(
                    out,
                    "→ override `{}` by id in ~/.config/tokenjuice/rules (skipPatterns, summarize, keep-blocks); `--trace` shows why lines were kept",
                    single.rule_id
                )?,
                _ => {}
            }
        }
    }
    Ok(0)
}

// ---------------------------------------------------------------- doctor

pub fn doctor(a: DoctorArgs) -> Result<i32> {
    let s = settings();
    let home = home(&s)?;
    let tz = timefmt::local_zone();
    let history_path = home.history_path();
    let opened = open_history(&home);
    let arts = artifact::list(&home).unwrap_or_default();
    let art_bytes: u64 = arts.iter().map(|a| a.meta.stored_bytes).sum();
    let pending = spool::pending(&home.spool_path());
    let (h, broken) = match opened {
        Ok(h) => (h, None),
        Err(e) => (None, Some(e.to_string())),
    };
    let check = h.as_ref().and_then(|h| {
        h.quick_check()
            .err()
            .map(|e| e.to_string())
            .or_else(|| h.quick_check().ok().flatten())
    });
    let broken = broken.or(check);
    let health = match &h {
        Some(h) => {
            let w = window(h, a.since.as_deref(), &tz, Some("30d"))?;
            Some((doctor::health(h, w.from_ms, w.to_ms)?, w))
        }
        None => None,
    };
    let store = serde_json::json!({
        "path": history_path,
        "exists": history_path.exists(),
        "bytes": tokenjuice_store::history::disk_bytes(&history_path),
        "runs": h.as_ref().and_then(|h| h.count().ok()),
        "pending": pending,
        "broken": broken,
        "recording": s.history,
        "keepCommands": s.keep_commands,
        "retentionDays": s.retention_days,
        "maxBytes": s.max_bytes,
        "artifacts": arts.len(),
        "artifactBytes": art_bytes,
        "configFile": s.config_file,
        "settingsProblems": s.problems,
    });
    let code = if broken.is_some() { 1 } else { 0 };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if a.format == Format::Json {
        let v = serde_json::json!({
            "verdict": if broken.is_some() { "broken" } else { health.as_ref().map_or("warn", |(h, _)| h.verdict.as_str()) },
            "health": health.as_ref().map(|(h, _)| h),
            "store": store,
        });
        serde_json::to_writer_pretty(&mut out, &v)?;
        writeln!(out)?;
        return Ok(code);
    }
    if let Some(b) = &broken {
        writeln!(out, "verdict: broken — the run history cannot be read: {b}")?;
        writeln!(
            out,
            "fix: move {} aside (the next recorded run starts a new one)",
            history_path.display()
        )?;
    }
    match &health {
        None if broken.is_none() => {
            writeln!(
                out,
                "verdict: warn — no run history yet at {}",
                history_path.display()
            )?;
            if !s.history {
                writeln!(
                    out,
                    "history is off: unset TOKENJUICE_STATS or set [history] enabled = true"
                )?;
            } else {
                writeln!(out, "run commands through `tokenjuice wrap -- …` (or a host integration) and check again")?;
            }
        }
        None => {}
        Some((hl, w)) => {
            writeln!(
                out,
                "verdict: {} — reducer health since {}",
                hl.verdict.as_str(),
                timefmt::format_ms(w.from_ms, &tz)
            )?;
            for r in &hl.reasons {
                writeln!(out, "  - {r}")?;
            }
            if hl.totals.runs > 0 {
                writeln!(
                    out,
                    "runs {} · tokens {} → {} (ratio {:.2}, average per run {:.2}) · fallback {:.0}% of runs, {:.0}% of tokens",
                    hl.totals.runs,
                    short(hl.totals.raw_tokens as i64),
                    short(hl.totals.reduced_tokens as i64),
                    hl.ratio,
                    hl.average_run_ratio,
                    hl.fallback_share_runs * 100.0,
                    hl.fallback_share_tokens * 100.0
                )?;
            }
            if !hl.weak.is_empty() {
                writeln!(out, "weak rules:")?;
                for c in hl.weak.iter().take(5) {
                    write_candidate(&mut out, c)?;
                }
            }
            if !hl.missing.is_empty() {
                writeln!(out, "commands without a rule:")?;
                for c in hl.missing.iter().take(5) {
                    write_candidate(&mut out, c)?;
                }
            }
            if !hl.advice.is_empty() {
                writeln!(out, "what to do:")?;
                for a in &hl.advice {
                    writeln!(out, "  - {a}")?;
                }
            }
            if hl.verdict == Verdict::Good && hl.advice.is_empty() {
                writeln!(out, "nothing to do")?;
            }
        }
    }
    writeln!(
        out,
        "history: {} ({}, {} runs, {} pending) · artifacts: {} ({}) · keep {} days / {} · recording {}{}",
        history_path.display(),
        human_bytes(tokenjuice_store::history::disk_bytes(&history_path)),
        h.as_ref().and_then(|h| h.count().ok()).unwrap_or(0),
        pending,
        arts.len(),
        human_bytes(art_bytes),
        s.retention_days,
        human_bytes(s.max_bytes),
        if s.history { "on" } else { "off" },
        if s.keep_commands { " (with redacted command lines)" } else { "" }
    )?;
    for p in &s.problems {
        writeln!(out, "settings: ignored {p}")?;
    }
    Ok(code)
}
