use clap::{Parser, Subcommand};

mod hooks_cmd;

#[derive(Parser)]
#[command(name = "tokenjuice", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Load, validate and run Claude-Code-style hooks exactly as a host would
    Hooks(hooks_cmd::HooksArgs),
}

fn main() {
    let cli = Cli::parse();
    if let Some(Command::Hooks(args)) = cli.command {
        match hooks_cmd::run(args) {
            Ok(code) => std::process::exit(code),
            Err(e) => {
                eprintln!("tokenjuice hooks: error: {e:#}");
                std::process::exit(1);
            }
        }
    }
}
