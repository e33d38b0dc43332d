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

/// Writes the manual page of `command` (roff): clap_mangen's sections, but
/// the commands listed here with what they do (no `vantage-CMD(1)` page is
/// shipped, so none is named), then ENVIRONMENT, FILES and EXIT STATUS.
pub fn man(command: clap::Command, out: &mut impl Write) -> std::io::Result<()> {
    let command = command.disable_help_subcommand(true);
    let man = clap_mangen::Man::new(command.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    commands_section(&command, &mut page)?;
    environment_section(&mut page)?;
    files_section(&mut page)?;
    exit_status_section(&mut page)?;
    // clap_mangen's own render asks the same first (it unwraps the version).
    if command.get_version().is_some() || command.get_long_version().is_some() {
        man.render_version_section(&mut page)?;
    }
    write_quietly(out, once_preamble(&page).as_bytes())
}

/// Each of clap_mangen's sections starts with roff's preamble (the `Aq`
/// string); the page keeps the first.
fn once_preamble(page: &[u8]) -> String {
    const PREAMBLE: &str = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";
    let text = String::from_utf8_lossy(page);
    match text.split_once(PREAMBLE) {
        Some((before, after)) => format!("{before}{PREAMBLE}{}", after.replace(PREAMBLE, "")),
        None => text.into_owned(),
    }
}

/// Text made safe for roff: a backslash and a hyphen escaped, a line that
/// would start with a control character guarded.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    escaped
        .lines()
        .map(|line| {
            if line.starts_with('.') || line.starts_with('\'') {
                format!("\\&{line}")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One `.TP` entry: the term in bold, then its text.
fn entry(out: &mut impl Write, term: &str, text: &str) -> std::io::Result<()> {
    writeln!(out, ".TP\n\\fB{}\\fR\n{}", roff_text(term), roff_text(text))
}

fn commands_section(command: &clap::Command, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, ".SH COMMANDS")?;
    writeln!(
        out,
        "{}",
        roff_text("Each command's own flags: vantage COMMAND --help.")
    )?;
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
        entry(out, &format!("vantage {}", sub.get_name()), &about)?;
        for nested in sub.get_subcommands().filter(|nested| !nested.is_hide_set()) {
            let about = nested
                .get_about()
                .map(ToString::to_string)
                .unwrap_or_default();
            entry(
                out,
                &format!("vantage {} {}", sub.get_name(), nested.get_name()),
                &about,
            )?;
        }
    }
    Ok(())
}

fn environment_section(out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, ".SH ENVIRONMENT")?;
    writeln!(
        out,
        "{}",
        roff_text("A flag wins over its variable, a variable over the config file.")
    )?;
    for variable in crate::session::environment::VARIABLES {
        entry(
            out,
            variable.name,
            &format!("Stands for {}.", variable.stands_for),
        )?;
    }
    entry(
        out,
        "NO_COLOR, TERM, COLORTERM",
        "The dashboard's colours: none with NO_COLOR, else as deep as the terminal says.",
    )
}

fn files_section(out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, ".SH FILES")?;
    entry(
        out,
        "~/.config/vantage/config.toml",
        "The config file (the platform's config dir; --config or VANTAGE_CONFIG name another). config.example.toml in the release describes every key.",
    )?;
    entry(
        out,
        "~/.local/share/vantage/",
        "The data dir (0700): vantage.log (0600), history.sqlite3 (the local review history) and exports.",
    )
}

fn exit_status_section(out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, ".SH \"EXIT STATUS\"")?;
    for (code, meaning) in super::exit::EXIT_CODES {
        entry(out, &code.to_string(), meaning)?;
    }
    Ok(())
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
