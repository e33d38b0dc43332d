//! `vantage serve`: the reference server as a program, from options to shutdown.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

use super::faults::Faults;
use super::ratelimit::RateLimit;
use super::seed::{self, GenerateSpec, SeedError};
use super::state::{ServerConfig, ServerError, ServerState};
use super::store::{self, Data};
use crate::clock::Clock;

/// Where the data of a new database comes from.
#[derive(Debug, Clone)]
pub enum FixtureSource {
    /// The built-in demo workspace.
    Demo,
    /// A fixture file (format in README).
    File(PathBuf),
    /// A synthetic enterprise workspace.
    Generate(GenerateSpec),
}

/// What `vantage serve` was asked to do.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub addr: SocketAddr,
    /// SQLite file; `None` keeps the data in memory.
    pub db: Option<PathBuf>,
    pub fixture: FixtureSource,
    /// Print the loaded keys as JSON and exit.
    pub print_credentials: bool,
    /// Write the data that would be loaded as a fixture file and exit.
    pub export_fixture: Option<PathBuf>,
    pub rate_limit: RateLimit,
    pub deadline: std::time::Duration,
    pub consistency_lag: time::Duration,
    pub faults: Faults,
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Fixture(#[from] SeedError),
    #[error(transparent)]
    Server(#[from] ServerError),
    #[error("cannot write {}: {source}", .path.display())]
    Export {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write to standard output: {0}")]
    Stdout(std::io::Error),
    #[error("cannot render the credentials: {0}")]
    Credentials(#[from] serde_json::Error),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}

/// Runs `vantage serve` until SIGINT or SIGTERM (or does its one-shot job).
pub fn serve(options: ServeOptions) -> Result<(), ServeError> {
    let anchor = seed::today_anchor(time::OffsetDateTime::now_utc());
    let fixture = match &options.fixture {
        FixtureSource::File(path) => seed::load_fixture_file(path, anchor)?,
        FixtureSource::Generate(spec) => seed::generate(*spec, anchor),
        FixtureSource::Demo => seed::demo_fixture(anchor)?,
    };
    if let Some(path) = &options.export_fixture {
        return std::fs::write(path, seed::fixture_to_json(&fixture, anchor)).map_err(|source| {
            ServeError::Export {
                path: path.clone(),
                source,
            }
        });
    }
    let key_hint = key_hint(&options);
    let mut config = ServerConfig::local(fixture);
    config.addr = options.addr;
    config.db = options.db;
    config.rate_limit = options.rate_limit;
    config.deadline = options.deadline;
    config.clock = Clock::system();
    config.consistency_lag = options.consistency_lag;
    config.faults = options.faults;
    if options.print_credentials {
        let fixture = config.fixture.clone();
        let data = match &config.db {
            // Possibly a running server's file: read it without taking its lock.
            Some(path) if store::exists_with_data(path) => {
                store::read_existing(path).map_err(ServerError::Store)?
            }
            _ => ServerState::new(config)?.store.read(Data::clone),
        };
        return print_to_stdout(&super::credentials_json(&data, &fixture)?);
    }
    let runtime = tokio::runtime::Runtime::new().map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let running = super::start(config).await?;
        let (workspaces, projects) = running
            .app
            .store
            .read(|data| (data.workspaces.len(), data.projects.len()));
        crate::stderr::line(format_args!(
            "vantage serve: listening on {} ({workspaces} workspaces, {projects} projects); keys: {key_hint}",
            running.base_url()
        ));
        shutdown_signal().await;
        crate::stderr::line(format_args!("vantage serve: shutting down"));
        running.stop().await;
        Ok(())
    })
}

/// The command that prints this server's keys: the same data (`--db`) and
/// the same seed (`--fixture`, `--generate`), since a generated workspace's
/// keys come from its seed and the demo's keys would be refused.
pub fn key_hint(options: &ServeOptions) -> String {
    let mut hint = String::from("vantage serve");
    if let Some(db) = &options.db {
        hint.push_str(" --db ");
        hint.push_str(&shell_word(&db.to_string_lossy()));
    }
    match &options.fixture {
        FixtureSource::Demo => {}
        FixtureSource::File(path) => {
            hint.push_str(" --fixture ");
            hint.push_str(&shell_word(&path.to_string_lossy()));
        }
        FixtureSource::Generate(spec) => hint.push_str(&format!(" --generate {spec}")),
    }
    hint.push_str(" --print-credentials");
    hint
}

/// `word` as one shell word: as it is when it needs no quoting, else in
/// single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Prints `text` and a newline; a reader that went away (`| head`) is not an
/// error, and never a panic as `println!` would make it.
fn print_to_stdout(text: &str) -> Result<(), ServeError> {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        written => written.map_err(ServeError::Stdout),
    }
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(db: Option<&str>, fixture: FixtureSource) -> ServeOptions {
        ServeOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            db: db.map(PathBuf::from),
            fixture,
            print_credentials: false,
            export_fixture: None,
            rate_limit: RateLimit::default(),
            deadline: std::time::Duration::from_secs(60),
            consistency_lag: time::Duration::ZERO,
            faults: Faults::default(),
        }
    }

    #[test]
    fn the_key_hint_names_the_same_data_and_seed() {
        let spec: GenerateSpec = "projects=20,members=5,seed=7".parse().unwrap();
        assert_eq!(
            key_hint(&options(None, FixtureSource::Generate(spec))),
            "vantage serve --generate projects=20,members=5,seed=7 --print-credentials"
        );
        assert_eq!(
            key_hint(&options(None, FixtureSource::Demo)),
            "vantage serve --print-credentials"
        );
        assert_eq!(
            key_hint(&options(
                Some("/tmp/my data/v.db"),
                FixtureSource::File(PathBuf::from("it's.json"))
            )),
            r"vantage serve --db '/tmp/my data/v.db' --fixture 'it'\''s.json' --print-credentials"
        );
    }
}
