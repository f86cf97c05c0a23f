//! `compat man`: the manual page, generated from the clap definition (clap_mangen), for the
//! whole command on one page: the usual sections for `compat` itself, then a section per
//! command (`COMPAT VALIDATE`, `COMPAT CATALOG IMPORT`, ...) with its synopsis, description,
//! options by heading and example, so `man compat` answers what each `--help` does.

use std::fmt::Write as _;

use clap::CommandFactory;
use clap_mangen::Man;

use super::{Cli, Outcome};

pub const EXAMPLE: &str = "\
Example:
  compat man > compat.1 && man ./compat.1";

pub fn run() -> Outcome {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build(); // names each command `compat validate`, `compat catalog import`, ...
    let root = Man::new(command.clone());
    let mut page = String::from(PREAMBLE);
    page += &section(|w| root.render_title(w));
    page += &section(|w| root.render_name_section(w));
    page += &section(|w| root.render_synopsis_section(w));
    page += &section(|w| root.render_description_section(w));
    page += &section(|w| root.render_options_section(w));
    for leaf in leaves(&command) {
        page += &command_section(leaf);
    }
    page += &section(|w| root.render_extra_section(w)).replacen(
        ".SH EXTRA\nExample:",
        ".SH EXAMPLE",
        1,
    );
    page += &section(|w| root.render_version_section(w));
    Outcome::new(page, true)
}

/// The commands that run something (`catalog import`, not `catalog`), in definition order,
/// without the hidden ones.
fn leaves(command: &clap::Command) -> Vec<&clap::Command> {
    command
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .flat_map(|c| {
            if c.has_subcommands() {
                leaves(c)
            } else {
                vec![c]
            }
        })
        .collect()
}

/// One command as a section of the page: its name as the heading, then its synopsis, its
/// description, its options under sub-headings (`Options`, `Limits`) and its example.
fn command_section(command: &clap::Command) -> String {
    let man = Man::new(command.clone());
    let name = command.get_bin_name().unwrap_or_else(|| command.get_name());
    let mut text = format!(".SH \"{}\"\n", name.to_uppercase());
    let mut body = section(|w| man.render_synopsis_section(w));
    body += &section(|w| man.render_description_section(w));
    body += &section(|w| man.render_options_section(w));
    if command.get_after_long_help().is_some() {
        body += &section(|w| man.render_extra_section(w));
    }
    for line in body.lines() {
        match line.strip_prefix(".SH ") {
            // The synopsis and the description come first, the example last: no heading.
            Some("SYNOPSIS" | "DESCRIPTION" | "EXTRA") => text += ".PP\n",
            Some(heading) => {
                let mut title = heading.to_lowercase();
                title[..1].make_ascii_uppercase();
                let _ = writeln!(text, ".SS {title}");
            }
            None => {
                text += line;
                text.push('\n');
            }
        }
    }
    text
}

/// What the roff crate puts before every part it renders (the `\*(Aq` apostrophe string);
/// the page needs it once, at the top.
const PREAMBLE: &str = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";

/// A part of the page rendered to text, without the preamble.
fn section(render: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    render(&mut out).expect("writing to memory cannot fail");
    let text = String::from_utf8_lossy(&out);
    text.strip_prefix(PREAMBLE).unwrap_or(&text).to_owned()
}
