//! The `vantage` command: it only parses arguments and dispatches.

#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand};
use color_eyre::eyre::Result;

use vantage::cli::ScriptCommand;
use vantage::cli::docs::Shell;
use vantage::config::LoadedConfig;
use vantage::server::serve::{FixtureSource, ServeOptions};
use vantage::server::{self, faults::Faults, ratelimit::RateLimit, seed};
use vantage::session::{GlobalArgs, Session};
use vantage::tui::launch;
use vantage::tui::runtime::Exit;
use vantage::tui::settings::{RefreshSecs, parse_refresh};

#[derive(Parser)]
#[command(
    name = "vantage",
    version,
    // Our own -V/--version, so that `--version --verbose` can add the target
    // and the glibc (as `rustc -Vv` does); clap's flag prints and exits at once.
    disable_version_flag = true,
    about = "A terminal dashboard for the Project and Workspace Management API v1",
    long_about = "A terminal dashboard for the Project and Workspace Management API v1.\n\n\
        Without a command it opens the dashboard on the configured service \
        (base_url, workspace_id and an API key: see config.example.toml). \
        `vantage demo` opens it on built-in demo data."
)]
struct Cli {
    /// Print the version, the commit and the build date (with --verbose: the target and the glibc it needs).
    #[arg(short = 'V', long)]
    version: bool,
    /// With --version: also the target and the glibc the binary needs.
    #[arg(long, requires = "version")]
    verbose: bool,
    /// Seconds between the dashboard's live refreshes, e.g. 5s or 2m [default: [tui] refresh_secs, else 10s].
    #[arg(long, value_name = "INTERVAL", value_parser = parse_refresh)]
    refresh: Option<RefreshSecs>,
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Open the dashboard on built-in demo data, served in-process.
    Demo(DemoArgs),
    /// Run the reference server of the API contract.
    Serve(Box<ServeArgs>),
    #[command(flatten)]
    Script(ScriptCommand),
    /// Serve metrics for Prometheus on /metrics (loopback by default).
    Exporter(vantage::exporter::ExporterArgs),
    /// Check this host's set-up: config, key, service, workspace, history,
    /// clock, terminal and directories; each line ✓, ! or ✗ with the fix.
    /// Exit 0 when no check fails (✗), else 1.
    Doctor(vantage::doctor::DoctorArgs),
    /// Print a shell completion script (e.g. `vantage completions bash > ~/.local/share/bash-completion/completions/vantage`).
    Completions {
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the manual page (roff), e.g. `vantage man | man -l -`.
    Man,
}

#[derive(Args)]
struct DemoArgs {
    /// Generate a synthetic workspace instead of the demo fixture: projects=N,members=M,seed=S.
    #[arg(long, value_name = "SPEC")]
    generate: Option<seed::GenerateSpec>,
    /// Seconds between the dashboard's live refreshes, e.g. 5s or 2m [default: [tui] refresh_secs, else 10s].
    #[arg(long, value_name = "INTERVAL", value_parser = parse_refresh)]
    refresh: Option<RefreshSecs>,
}

/// The longest `--consistency-lag-ms`: a day; beyond it, timestamps of pending
/// writes would leave the calendar's range.
const MAX_CONSISTENCY_LAG_MS: u64 = 86_400_000;

#[derive(Args)]
#[command(
    after_help = "Keys: the server's API keys come from its data. Print them with the same \
    data options the server runs with, while it runs or before:\n  \
    vantage serve --print-credentials                       (the demo: vtg_demo_enterprise_admin, ...)\n  \
    vantage serve --generate SPEC --print-credentials       (a generated workspace: keys from its seed)\n  \
    vantage serve --db PATH --print-credentials             (the keys in a database file)\n\
    The startup line prints the right one for the running server."
)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8787")]
    addr: SocketAddr,
    /// SQLite database file; without it, data lives in memory.
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    /// JSON fixture to load into a new database (format in README).
    #[arg(long, value_name = "FILE", conflicts_with = "generate")]
    fixture: Option<PathBuf>,
    /// Generate a synthetic enterprise workspace: projects=N,members=M,seed=S.
    #[arg(long, value_name = "SPEC")]
    generate: Option<seed::GenerateSpec>,
    /// Print the loaded keys as JSON and exit (with the same --db, --fixture or --generate as the server).
    #[arg(long)]
    print_credentials: bool,
    /// Write the data that would be loaded as a fixture file and exit.
    #[arg(long, value_name = "FILE")]
    export_fixture: Option<PathBuf>,
    /// Rate limit per key: N/SECONDS.
    #[arg(long, value_name = "N/SECONDS", default_value = "120/60")]
    rate_limit: RateLimit,
    /// Processing deadline per request, in milliseconds.
    #[arg(long, value_name = "N", default_value_t = 60_000)]
    deadline_ms: u64,
    /// How long lists, insights and member reads lag behind writes, in milliseconds (at most a day).
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(..=MAX_CONSISTENCY_LAG_MS))]
    consistency_lag_ms: u64,
    /// Injected faults, e.g. 429=0.1,503=0.05,reset=0.01,latency=20..300ms,timeout-after-commit=0.2,seed=7.
    #[arg(long, value_name = "SPEC")]
    faults: Option<Faults>,
}

fn main() -> std::process::ExitCode {
    // color-eyre reports panics; errors a person can fix are one plain line.
    if let Err(err) = color_eyre::install() {
        vantage::stderr::line(format_args!("warning: {err}"));
    }
    match run(Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(report) => {
            vantage::stderr::line(format_args!("error: {}", one_line(&report)));
            std::process::ExitCode::from(exit_code(&report))
        }
    }
}

/// The error and its causes on one line, leaving out a cause that the message
/// before it already quotes.
fn one_line(report: &color_eyre::Report) -> String {
    let mut line = String::new();
    for cause in report.chain() {
        let text = cause.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    line
}

/// As the script commands do: 3 for credentials and configuration, else 1.
fn exit_code(report: &color_eyre::Report) -> u8 {
    let configuration = report.chain().any(|cause| {
        cause.is::<vantage::session::SessionError>()
            || cause.is::<vantage::config::SettingsError>()
            || cause
                .downcast_ref::<launch::LaunchError>()
                .is_some_and(launch::LaunchError::is_configuration)
            || cause
                .downcast_ref::<vantage::demo::DemoError>()
                .is_some_and(vantage::demo::DemoError::is_configuration)
    });
    if configuration { 3 } else { 1 }
}

fn run(cli: Cli) -> Result<()> {
    if cli.version {
        let text = if cli.verbose {
            vantage::build_info::version_verbose()
        } else {
            vantage::build_info::version_line() + "\n"
        };
        print!("{text}");
        return Ok(());
    }
    // Said before the dashboard takes the terminal.
    if let Some(url) = &cli.global.history
        && let Some(warning) =
            vantage::history::postgres::password_on_command_line("--history", url)
    {
        vantage::stderr::line(warning);
    }
    match cli.command {
        None => dashboard(&cli.global, cli.refresh),
        Some(Command::Demo(args)) => demo(&cli.global, args, cli.refresh),
        Some(Command::Serve(args)) => serve(*args),
        Some(Command::Script(command)) => {
            std::process::exit(i32::from(vantage::cli::run(command, &cli.global)))
        }
        Some(Command::Exporter(args)) => Ok(vantage::exporter::main(&cli.global, args)?),
        Some(Command::Doctor(args)) => {
            std::process::exit(i32::from(vantage::doctor::run(&cli.global, &args)?))
        }
        Some(Command::Completions { shell }) => {
            vantage::cli::docs::completions(shell, &mut Cli::command(), &mut std::io::stdout())?;
            Ok(())
        }
        Some(Command::Man) => {
            vantage::cli::docs::man(Cli::command(), &mut std::io::stdout())?;
            Ok(())
        }
    }
}

/// The dashboard on the configured service. A terminal it cannot draw on, and
/// problems with the config or the key, are reported before the terminal is
/// touched.
fn dashboard(global: &GlobalArgs, refresh: Option<RefreshSecs>) -> Result<()> {
    vantage::tui::cursor_addressing::require()?;
    let session = Session::connect(global)?;
    // No workspace_id is fine: run_configured asks the service which ones the
    // key reaches (one is used, several are offered in a picker) before the
    // terminal is touched.
    for warning in &session.warnings {
        vantage::stderr::line(format_args!("warning: {warning}"));
    }
    let log = vantage::logging::to_file(&vantage::paths::data_dir())?;
    tracing::info!(log = %log.display(), "dashboard starting");
    let exit =
        tokio::runtime::Runtime::new()?.block_on(launch::run_configured(session, refresh))?;
    exit_like_the_signal(exit);
    Ok(())
}

/// `vantage demo`; `--refresh` may come before the command or after it.
fn demo(global: &GlobalArgs, args: DemoArgs, refresh: Option<RefreshSecs>) -> Result<()> {
    vantage::tui::cursor_addressing::require()?;
    let config = LoadedConfig::load(global.config.as_deref())?;
    vantage::logging::to_file(&vantage::paths::data_dir())?;
    let read_only = global.read_only || config.file.read_only.unwrap_or(false);
    let exit = tokio::runtime::Runtime::new()?.block_on(vantage::demo::run(
        args.generate,
        read_only,
        &config,
        args.refresh.or(refresh),
    ))?;
    exit_like_the_signal(exit);
    Ok(())
}

/// After a signal ended the dashboard (the terminal already restored), the
/// status shells expect: 130 for SIGINT, 131 SIGQUIT, 143 SIGTERM, 129 SIGHUP.
fn exit_like_the_signal(exit: Exit) {
    if matches!(exit, Exit::Signal(_)) {
        std::process::exit(i32::from(exit.code()));
    }
}

fn serve(args: ServeArgs) -> Result<()> {
    vantage::logging::to_stderr("info");
    let fixture = match (args.fixture, args.generate) {
        (Some(path), _) => FixtureSource::File(path),
        (None, Some(spec)) => FixtureSource::Generate(spec),
        (None, None) => FixtureSource::Demo,
    };
    server::serve::serve(ServeOptions {
        addr: args.addr,
        db: args.db,
        fixture,
        print_credentials: args.print_credentials,
        export_fixture: args.export_fixture,
        rate_limit: args.rate_limit,
        deadline: std::time::Duration::from_millis(args.deadline_ms),
        consistency_lag: time::Duration::milliseconds(args.consistency_lag_ms as i64),
        faults: args.faults.unwrap_or_default(),
    })?;
    Ok(())
}
