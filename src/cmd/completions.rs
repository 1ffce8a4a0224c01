//! `kseg completions SHELL` and `kseg man`, generated from the clap definitions.

use std::io::{self, Write};

use clap::CommandFactory;

use crate::cli::Cli;

pub fn completions(shell: clap_complete::Shell, out: &mut impl Write) -> io::Result<()> {
    // clap_complete panics when its writer fails (a closed stdout): generate into memory.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "kseg", &mut script);
    out.write_all(&script)
}

/// One man page: the top-level sections, then a section per subcommand with its options.
pub fn man(out: &mut impl Write) -> io::Result<()> {
    // The man page carries the bare version: the long one names a commit, and the page is
    // committed (completions/kseg.1) and must not change with every commit.
    let cmd = Cli::command().long_version(None::<&'static str>);
    let page = clap_mangen::Man::new(cmd.clone());
    page.render_title(out)?;
    page.render_name_section(out)?;
    page.render_synopsis_section(out)?;
    page.render_description_section(out)?;
    // One page is shipped: the subcommands are listed by their sections below, not as
    // kseg-<name>(1) pages (clap_mangen's subcommands section names those).
    writeln!(out, ".SH SUBCOMMANDS")?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        writeln!(out, ".TP")?;
        writeln!(out, "\\fBkseg {}\\fR", roff(sub.get_name()))?;
        if let Some(about) = sub.get_about() {
            writeln!(out, "{}", roff(&about.to_string()))?;
        }
        writeln!(
            out,
            "(section \\fBKSEG {}\\fR below)",
            roff(&sub.get_name().to_uppercase())
        )?;
    }
    for sub in cmd.get_subcommands() {
        let name = format!("kseg {}", sub.get_name());
        let sub = sub.clone().bin_name(name.clone());
        writeln!(out, ".SH \"{}\"", name.to_uppercase())?;
        if let Some(about) = sub.get_about() {
            writeln!(out, "{about}")?;
        }
        let sub_page = clap_mangen::Man::new(sub);
        let mut synopsis = Vec::new();
        sub_page.render_synopsis_section(&mut synopsis)?;
        // Demote the subcommand's own section headings below this section.
        let text = String::from_utf8_lossy(&synopsis).replace(".SH ", ".SS ");
        out.write_all(text.as_bytes())?;
        let mut options = Vec::new();
        sub_page.render_options_section(&mut options)?;
        out.write_all(
            String::from_utf8_lossy(&options)
                .replace(".SH ", ".SS ")
                .as_bytes(),
        )?;
    }
    page.render_version_section(out)
}

/// Text as roff prints it literally.
fn roff(text: &str) -> String {
    text.replace('\\', "\\e")
        .replace('-', "\\-")
        .replace('\'', "\\*(Aq")
}
