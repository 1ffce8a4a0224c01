//! `kseg completions SHELL` and `kseg man`, generated from the clap definitions.

use std::io::{self, Write};

use clap::CommandFactory;

use crate::cli::Cli;

pub fn completions(shell: clap_complete::Shell, out: &mut impl Write) -> io::Result<()> {
    clap_complete::generate(shell, &mut Cli::command(), "kseg", out);
    Ok(())
}

pub fn man(out: &mut impl Write) -> io::Result<()> {
    clap_mangen::Man::new(Cli::command()).render(out)
}
