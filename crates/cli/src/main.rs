//! tokenjuice: the smallest output that still holds every fact an AI coding agent needs.

mod bash_env_filter;
mod capture;
mod child;
mod drive;
mod hosts_cmd;
mod prefix;
mod reduce_cmd;
mod rules_env;
mod run_store;
mod store_cmd;
mod verify;
mod wrap;

use std::io::Write;

use clap::{Args, Parser, Subcommand, ValueEnum};
use tokenjuice_core::result::CompactResult;

#[derive(Parser)]
#[command(
    name = "tokenjuice",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("TOKENJUICE_BUILD"), ")"),
    about = "Compacts shell output for AI coding agents while keeping every fact they need",
    long_about = "tokenjuice runs a command (or reads its output) and prints a shorter, faithful version: \
every error, failing test, diagnostic location and summary count stays; progress bars, passing tests and \
repeated lines go. The exit code is always the command's.",
    after_help = "Examples:\n  tokenjuice wrap -- cargo test\n  tokenjuice wrap --format json --trace -- \"$SHELL\" -lc \"git status --short\"\n  cargo build 2>&1 | tokenjuice reduce --source-command \"cargo build\" --exit-code 101\n\nCalled by agents (written by `tokenjuice install`, not typed by hand):\n  tokenjuice --shell-prefix=<claude-code|codebuddy> '<host shell line>'   the agent's shell prefix\n  tokenjuice --codex-filter=<nonce> '<command>'   a Codex command's output, from its BASH_ENV script\n  tokenjuice --droid-filter=<nonce> '<command>'   a Droid command's output, from its BASH_ENV script"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a command and print a compacted version of its output; exits with the command's code.
    Wrap(WrapArgs),
    /// Reduce saved output from a file or stdin.
    Reduce(ReduceArgs),
    /// Machine protocol for host adapters: JSON in, JSON out.
    #[command(name = "reduce-json")]
    ReduceJson(ReduceJsonArgs),
    /// Check rule files (built-in, user, project) and optionally run their fixtures.
    Verify(VerifyArgs),
    /// Load, validate and run Claude-Code-style hooks exactly as a host would.
    Hooks(tokenjuice_hooks::cli::HooksArgs),
    /// Install tokenjuice into an agent (hook, extension or guidance file).
    Install(hosts_cmd::InstallArgs),
    /// Remove tokenjuice from an agent, keeping everything else in its config.
    Uninstall(hosts_cmd::UninstallArgs),
    /// Health: `doctor` reducer health from the run history; `doctor hooks` every agent
    /// integration; `doctor <host>` one of them. Exit 1 when broken.
    Doctor(store_cmd::DoctorArgs),
    /// List stored raw outputs (artifacts), newest first.
    Ls(store_cmd::LsArgs),
    /// Print a stored raw output, byte for byte.
    Cat(store_cmd::CatArgs),
    /// Tokens saved: totals, top reducers and commands, per day.
    Stats(store_cmd::StatsArgs),
    /// Commands that need a rule and rules that save little, from the history or one output.
    Discover(store_cmd::DiscoverArgs),
    /// Print a shell completion script: `source <(tokenjuice completions bash)`.
    Completions(CompletionsArgs),
    /// Print the man page (roff): `tokenjuice man | man -l -`; `--dir` writes one page per
    /// subcommand too.
    Man(ManArgs),
    /// The entrypoints agents call: `<host>-post-tool-use`, and older installs' `<host>-pre-tool-use`.
    #[command(external_subcommand)]
    HostEntry(Vec<String>),
}

#[derive(Args)]
struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

#[derive(Args)]
struct ManArgs {
    /// Write tokenjuice.1 and a page per subcommand (tokenjuice-wrap.1, …) into this folder
    /// instead of printing the main page.
    #[arg(long, value_name = "DIR")]
    dir: Option<std::path::PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Args, Clone, Copy)]
pub struct OutputOpts {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Include how the command was understood and why a rule was chosen (JSON `result.trace`).
    #[arg(long)]
    pub trace: bool,
}

#[derive(Args)]
struct ReductionOpts {
    /// Print the output unchanged, byte for byte (ratio 1).
    #[arg(long, visible_alias = "full")]
    raw: bool,
    /// Filters and dedupe only: nothing is cut (also TOKENJUICE_NO_OMISSION=1).
    #[arg(long)]
    no_omit: bool,
    /// Force a rule by id, e.g. tests/cargo-test.
    #[arg(long, value_name = "RULE_ID")]
    classifier: Option<String>,
}

/// What a run keeps on disk.
#[derive(Args)]
struct StoreOpts {
    /// Keep the raw output as an artifact; the omission marker then names `tokenjuice cat <id>`
    /// (also TOKENJUICE_STORE=1, or TOKENJUICE_<SOURCE>_STORE=1 for one host).
    #[arg(long)]
    store: bool,
    /// Do not record this run in the history (also TOKENJUICE_STATS=0).
    #[arg(long)]
    no_stats: bool,
}

#[derive(Args)]
struct WrapArgs {
    #[command(flatten)]
    out: OutputOpts,
    #[command(flatten)]
    red: ReductionOpts,
    #[command(flatten)]
    keep: StoreOpts,
    /// Who is calling (a host label such as claude-code or codebuddy), for stats.
    #[arg(long, value_name = "NAME")]
    source: Option<String>,
    /// The command and its arguments (after `--`).
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    command: Vec<String>,
}

#[derive(Args)]
struct ReduceArgs {
    /// A file holding the output; stdin when absent or `-`.
    file: Option<String>,
    #[command(flatten)]
    out: OutputOpts,
    #[command(flatten)]
    red: ReductionOpts,
    /// The command that produced the output, used to choose a rule.
    #[arg(long, value_name = "CMD")]
    source_command: Option<String>,
    /// The command's exit code; a failure keeps more context.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    exit_code: i32,
    /// The host's tool name (default exec).
    #[arg(long, value_name = "NAME", default_value = "exec")]
    tool_name: String,
    #[command(flatten)]
    keep: StoreOpts,
    /// Who is calling (a host label), for stats.
    #[arg(long, value_name = "NAME")]
    source: Option<String>,
}

#[derive(Args)]
struct ReduceJsonArgs {
    /// A file holding the JSON request; stdin when absent or `-`.
    file: Option<String>,
    #[command(flatten)]
    keep: StoreOpts,
    /// Who is calling (a host label), for stats (or `options.source` in the request).
    #[arg(long, value_name = "NAME")]
    source: Option<String>,
}

#[derive(Args)]
struct VerifyArgs {
    /// Also run the fixtures (built-in, and `*.fixture.json` beside user and project rules).
    #[arg(long)]
    fixtures: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// Print a result as text (`inlineText` + newline) or JSON (`{result, exitCode}`).
pub fn print_result(
    out: &mut dyn Write,
    result: &CompactResult,
    format: Format,
    exit_code: i32,
) -> std::io::Result<()> {
    match format {
        Format::Text => {
            out.write_all(result.inline_text.as_bytes())?;
            // an empty result is no output at all (not one blank line)
            if !result.inline_text.is_empty() && !result.inline_text.ends_with('\n') {
                out.write_all(b"\n")?;
            }
        }
        Format::Json => {
            let v = serde_json::json!({ "result": result, "exitCode": exit_code });
            serde_json::to_writer_pretty(&mut *out, &v).map_err(std::io::Error::other)?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// Test-only fault injection (debug builds): `TOKENJUICE_DEBUG_PANIC=<point>` panics at that point,
/// so the fail-open paths can be exercised by the real binary. Release builds ignore it.
pub fn fault_injection(point: &str) {
    #[cfg(debug_assertions)]
    if std::env::var("TOKENJUICE_DEBUG_PANIC").is_ok_and(|v| v == point) {
        panic!("injected fault at {point}");
    }
    #[cfg(not(debug_assertions))]
    let _ = point;
}

/// `tokenjuice man`: the main page on stdout, or every page into `--dir`.
fn man(a: ManArgs) -> i32 {
    use clap::CommandFactory;
    let cmd = Cli::command();
    let Some(dir) = a.dir else {
        let mut out = std::io::stdout().lock();
        return match clap_mangen::Man::new(cmd).render(&mut out) {
            Ok(()) => 0,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
            Err(e) => {
                eprintln!("tokenjuice: cannot write the man page: {e}");
                1
            }
        };
    };
    let write = || -> std::io::Result<Vec<std::path::PathBuf>> {
        std::fs::create_dir_all(&dir)?;
        let mut written = Vec::new();
        let mut pages = vec![("tokenjuice".to_string(), cmd.clone())];
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let name = format!("tokenjuice-{}", sub.get_name());
            pages.push((name.clone(), sub.clone().name(name)));
        }
        for (name, page) in pages {
            let path = dir.join(format!("{name}.1"));
            let mut buf = Vec::new();
            clap_mangen::Man::new(page).render(&mut buf)?;
            std::fs::write(&path, buf)?;
            written.push(path);
        }
        Ok(written)
    };
    match write() {
        Ok(paths) => {
            for p in paths {
                println!("{}", p.display());
            }
            0
        }
        Err(e) => {
            eprintln!(
                "tokenjuice: cannot write the man pages into {}: {e} (pick a folder you can write)",
                dir.display()
            );
            1
        }
    }
}

/// When this process started, for `TOKENJUICE_TIMING_LOG`.
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Appends `<our time> <the command's time>` in microseconds to the file named by
/// `TOKENJUICE_TIMING_LOG` (set by the end-to-end suite to measure, inside a real agent, the
/// time tokenjuice adds to a command: the first minus the second, plus process start).
fn log_timing() {
    let Some(path) = std::env::var_os("TOKENJUICE_TIMING_LOG") else {
        return;
    };
    let Some(started) = STARTED.get() else {
        return;
    };
    let total = started.elapsed().as_micros();
    let child = wrap::CHILD_MICROS.load(std::sync::atomic::Ordering::Relaxed);
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
    {
        use std::io::Write;
        let _ = writeln!(f, "{total} {child}");
    }
}

/// The subcommands agents run on every command (`wrap`, a host's hook entrypoint), parsed
/// without building the whole command-line interface: building every subcommand's clap
/// definition to read `wrap -- true` cost about a third of the instructions `wrap` runs.
/// `None` (help, a mistake, anything else) leaves it to the full parser, which says the same
/// as always.
fn hot_path(args: &[std::ffi::OsString]) -> Option<Cmd> {
    use clap::{Args as _, FromArgMatches};
    let first = args.get(1)?.to_str()?;
    if first == "wrap" {
        let cmd = WrapArgs::augment_args(clap::Command::new("wrap"));
        let m = cmd.try_get_matches_from(&args[1..]).ok()?;
        return WrapArgs::from_arg_matches(&m).ok().map(Cmd::Wrap);
    }
    if hosts_cmd::is_entry(first) {
        let rest: Option<Vec<String>> = args[1..]
            .iter()
            .map(|a| a.clone().into_string().ok())
            .collect();
        return rest.map(Cmd::HostEntry);
    }
    None
}

fn main() {
    STARTED.get_or_init(std::time::Instant::now);
    // Panics are caught and reported as one warning line (fail open); no backtrace noise.
    std::panic::set_hook(Box::new(|_| {}));
    // A host's shell prefix (`--shell-prefix=<host> '<line>'`) is read before clap: the host
    // decides this argv's shape, and it runs on every command, so it must start fast.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(host) = prefix::requested(&args) {
        let code = prefix::run(&host, &args);
        log_timing();
        std::process::exit(code);
    }
    if bash_env_filter::requested(&args).is_some() {
        std::process::exit(bash_env_filter::run(&args));
    }
    let cmd = hot_path(&args).unwrap_or_else(|| Cli::parse().cmd);
    let code = match cmd {
        Cmd::Wrap(a) => wrap::run(wrap::WrapOpts {
            no_omit: a.red.no_omit || rules_env::no_omission_env(),
            argv: a.command,
            out: a.out,
            raw: a.red.raw,
            classifier: a.red.classifier,
            source: a.source,
            store: a.keep.store,
            no_stats: a.keep.no_stats,
            host: None,
        }),
        Cmd::Reduce(a) => reduce_cmd::reduce(reduce_cmd::ReduceOpts {
            file: a.file,
            out: a.out,
            raw: a.red.raw,
            no_omit: a.red.no_omit || rules_env::no_omission_env(),
            classifier: a.red.classifier,
            source_command: a.source_command,
            exit_code: a.exit_code,
            tool_name: a.tool_name,
            store: a.keep.store,
            no_stats: a.keep.no_stats,
            source: a.source,
        }),
        Cmd::ReduceJson(a) => reduce_cmd::reduce_json(
            a.file.as_deref(),
            reduce_cmd::JsonStoreOpts {
                store: a.keep.store,
                no_stats: a.keep.no_stats,
                source: a.source,
            },
        ),
        Cmd::Verify(a) => verify::run(a.fixtures, a.format),
        Cmd::Hooks(a) => match tokenjuice_hooks::cli::run(a) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("tokenjuice hooks: error: {e:#}");
                1
            }
        },
        Cmd::Install(a) => hosts_cmd::install(a),
        Cmd::Uninstall(a) => hosts_cmd::uninstall(a),
        Cmd::Doctor(a) => match a.target.clone() {
            Some(target) => hosts_cmd::doctor(hosts_cmd::DoctorArgs {
                target: Some(target),
            }),
            None => store_cmd::run("doctor", || store_cmd::doctor(a)),
        },
        Cmd::HostEntry(args) => hosts_cmd::entry(args),
        Cmd::Ls(a) => store_cmd::run("ls", || store_cmd::ls(a)),
        Cmd::Cat(a) => store_cmd::run("cat", || store_cmd::cat(a)),
        Cmd::Stats(a) => store_cmd::run("stats", || store_cmd::stats(a)),
        Cmd::Discover(a) => store_cmd::run("discover", || store_cmd::discover(a)),
        Cmd::Completions(a) => {
            use clap::CommandFactory;
            clap_complete::generate(
                a.shell,
                &mut Cli::command(),
                "tokenjuice",
                &mut std::io::stdout(),
            );
            0
        }
        Cmd::Man(a) => man(a),
    };
    std::process::exit(code);
}
