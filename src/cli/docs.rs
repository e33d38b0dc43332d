//! Shell completions (clap_complete) and the manual page (clap_mangen), both
//! generated from the `vantage` command definition.

use std::io::Write;

use clap::ValueEnum;

/// Shells `vantage completions` writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// Writes the completion script of `command` for `shell`.
pub fn completions(
    shell: Shell,
    command: &mut clap::Command,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let generator = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let name = command.get_name().to_owned();
    clap_complete::generate(generator, command, name, out);
    out.flush()
}

/// Writes the manual page of `command` (roff), with a section per subcommand.
pub fn man(command: clap::Command, out: &mut impl Write) -> std::io::Result<()> {
    let command = command.disable_help_subcommand(true);
    clap_mangen::Man::new(command.clone()).render(out)?;
    out.flush()
}
