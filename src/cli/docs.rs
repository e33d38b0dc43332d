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
    // Rendered in memory first: the generator panics when a write fails.
    let mut script = Vec::new();
    clap_complete::generate(generator, command, name, &mut script);
    write_quietly(out, &script)
}

/// Writes the manual page of `command` (roff), with a section per subcommand.
pub fn man(command: clap::Command, out: &mut impl Write) -> std::io::Result<()> {
    let command = command.disable_help_subcommand(true);
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut page)?;
    write_quietly(out, &page)
}

/// Writes `bytes`; a reader that stopped early (`| head -1`) is no error, as
/// for any Unix filter.
fn write_quietly(out: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pipe whose reader left after the first bytes.
    struct ClosedEarly(usize);

    impl Write for ClosedEarly {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            let n = buf.len().min(self.0);
            self.0 -= n;
            Ok(n)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_reader_that_leaves_early_is_no_error() {
        let command = clap::Command::new("vantage").subcommand(clap::Command::new("man"));
        assert!(man(command.clone(), &mut ClosedEarly(10)).is_ok());
        let mut command = command;
        assert!(completions(Shell::Bash, &mut command, &mut ClosedEarly(10)).is_ok());
    }
}
