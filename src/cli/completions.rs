//! `compat completions SHELL`: a completion script for the shell, generated from the clap
//! definition (clap_complete), so it always knows every command and flag of this binary.

use clap::{Args, CommandFactory, ValueEnum};
use clap_complete::Shell as Generator;

use super::{Cli, Outcome};

/// The shells there are completions for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    /// Bash: save as ~/.local/share/bash-completion/completions/compat
    Bash,
    /// Zsh: save as `_compat` in a directory of your `$fpath`
    Zsh,
    /// fish: save as ~/.config/fish/completions/compat.fish
    Fish,
    /// PowerShell: dot-source it from your `$PROFILE`
    Powershell,
    /// Elvish: `eval` it from ~/.config/elvish/rc.elv
    Elvish,
}

#[derive(Debug, Args)]
#[command(after_long_help = "\
Example:
  compat completions bash > ~/.local/share/bash-completion/completions/compat")]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(args: &CompletionsArgs) -> Outcome {
    let shell = match args.shell {
        Shell::Bash => Generator::Bash,
        Shell::Zsh => Generator::Zsh,
        Shell::Fish => Generator::Fish,
        Shell::Powershell => Generator::PowerShell,
        Shell::Elvish => Generator::Elvish,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "compat", &mut script);
    Outcome::new(String::from_utf8_lossy(&script).into_owned(), true)
}
