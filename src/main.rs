use std::io;
use std::process::ExitCode;

use clap::Parser;

use kseg::cli::{Cli, Command};
use kseg::cmd::{self, is_broken_pipe, Outcome};

fn run(cli: Cli) -> anyhow::Result<Outcome> {
    if cli.no_progress {
        kseg::print::progress::never();
    }
    match cli.command {
        Command::DumpLog(args) => cmd::dump_log::run(args),
        Command::Summary(args) => cmd::summary::run(args),
        Command::Rescue(args) => cmd::rescue::run(*args),
        Command::Groups(args) => cmd::groups::run(args),
        Command::Transactions(args) => cmd::transactions::run(args),
        Command::Diff(args) => cmd::diff::run(args),
        Command::VerifyIndex(args) => cmd::verify_index::run(args),
        Command::Recover(args) => cmd::recover::run(args),
        Command::FindGroupPartition(args) => cmd::find_group_partition::run(args),
        Command::Lookup(args) => cmd::lookup::run(args),
        Command::Retention(args) => cmd::retention::run(args),
        Command::Compact(args) => cmd::compact::run(args),
        Command::Grep(args) => cmd::grep::run(*args),
        Command::Export(args) => cmd::export::run(*args),
        Command::MiniBroker(args) => cmd::mini_broker::run(*args),
        Command::Completions(args) => {
            cmd::completions::completions(args.shell, &mut io::stdout().lock())?;
            Ok(Outcome::Clean)
        }
        Command::Man => {
            cmd::completions::man(&mut io::stdout().lock())?;
            Ok(Outcome::Clean)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(outcome) => ExitCode::from(outcome as u8),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kseg: error: {e:#}");
            ExitCode::from(Outcome::Failed as u8)
        }
    }
}
