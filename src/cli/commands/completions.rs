//! `ravenpost completions SHELL`: a shell completion script.

use std::io::Write;

use crate::cli::failure::{Failure, io};

/// Print a shell completion script: `ravenpost completions bash > ~/.local/share/bash-completion/completions/ravenpost`
/// (zsh: a file `_ravenpost` in a folder of $fpath; fish: ~/.config/fish/completions/ravenpost.fish).
#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// `ravenpost completions SHELL`: the script for `ravenpost`.
pub(crate) fn run(a: CompletionsArgs, out: &mut impl Write) -> Result<(), Failure> {
    let mut cmd = <crate::cli::Cli as clap::CommandFactory>::command();
    // Into memory first: clap_complete panics on a failed write (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "ravenpost", &mut script);
    out.write_all(&script).map_err(io)
}
