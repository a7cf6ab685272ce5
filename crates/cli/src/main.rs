use clap::Parser;

#[derive(Parser)]
#[command(name = "tokenjuice", version, about)]
struct Cli {}

fn main() {
    let _ = Cli::parse();
}
