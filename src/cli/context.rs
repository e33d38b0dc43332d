//! `vantage context list` and `vantage context use NAME`: the config file's
//! contexts (named connections). Neither needs a key, and neither ever prints one.

use std::path::{Path, PathBuf};

use clap::Subcommand;

use super::exit::CliError;
use super::options::OutputArgs;
use super::print::{Field, Row, write_list};
use super::progress::Progress;
use crate::config::{ContextOrigin, ContextSummary, LoadedConfig, SettingsError};
use crate::session::{GlobalArgs, SessionError};

#[derive(Subcommand, Debug, Clone)]
pub enum ContextCommand {
    /// The contexts of the config file; the one in use is marked (never a key).
    List {
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Make NAME the current context (rewrites only current_context in the file).
    Use {
        /// A context's name, as `vantage context list` shows it.
        name: String,
    },
}

impl Row for ContextSummary {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("CURRENT", |context| yes_or_blank(context.current, "*")),
        Field::text("NAME", 8, |context| context.name.clone()),
        Field::text("BASE URL", 12, |context| {
            context.base_url.clone().unwrap_or_default()
        }),
        Field::fixed("WORKSPACE", |context| {
            context.workspace_id.clone().unwrap_or_default()
        }),
        Field::fixed("KEY", |context| context.key_source.clone()),
        Field::fixed("READ-ONLY", |context| {
            yes_or_blank(context.read_only, "yes")
        }),
    ];
}

fn yes_or_blank(flag: bool, mark: &str) -> String {
    if flag { mark } else { "" }.to_owned()
}

/// Runs `vantage context …`.
pub async fn execute(command: ContextCommand, global: &GlobalArgs) -> Result<(), CliError> {
    let config = LoadedConfig::load(global.config.as_deref()).map_err(SessionError::from)?;
    match command {
        ContextCommand::List { output } => {
            // Marked: the context a command would use now (flag, environment, file).
            let current = config
                .select_context(global.context_name().map_err(SessionError::from)?, |name| {
                    std::env::var(name).ok()
                })
                .map_err(SessionError::from)?;
            let rows = config.context_summaries(&current.name);
            // Through the same writers as every other command.
            let stream = futures::stream::iter(rows.into_iter().map(Ok));
            write_list(stream, output.resolve(), None, &Progress::hidden()).await
        }
        ContextCommand::Use { name } => {
            let path = config_path(&config)?;
            // Known names only: the error lists them.
            config
                .context(&name, ContextOrigin::Flag)
                .map_err(SessionError::from)?;
            write_current_context(&path, &name).map_err(SessionError::from)?;
            crate::stderr::line(format_args!(
                "current context: {name} (in {})",
                path.display()
            ));
            Ok(())
        }
    }
}

fn config_path(config: &LoadedConfig) -> Result<PathBuf, CliError> {
    match (&config.path, config.exists) {
        (Some(path), true) => Ok(path.clone()),
        _ => Err(CliError::Session(SessionError::Settings(
            SettingsError::Invalid {
                path: config.shown_path(),
                key: "contexts",
                reason: "there is no config file to choose a context in; create it first \
                         (see config.example.toml)"
                    .into(),
            },
        ))),
    }
}

/// Rewrites `current_context` in place: the rest of the file stays as written,
/// and the file keeps its mode (it may hold keys).
fn write_current_context(path: &Path, name: &str) -> Result<(), SettingsError> {
    crate::config::rewrite(path, "current_context", false, |text| {
        crate::config::set_current_context(text, name)
    })
}
