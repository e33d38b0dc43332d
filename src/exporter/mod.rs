//! `vantage exporter`: metrics for Prometheus, from a cache that a background
//! poller refreshes within the request budget. A scrape never calls the API.
//!
//! - [`cache`]: what the poller learned and what the client did;
//! - [`poller`]: the refresh loop and its budget;
//! - [`metrics`]: the cache as prometheus-client families;
//! - [`text004`]: the Prometheus text format 0.0.4, for scrapers that do not
//!   ask for OpenMetrics;
//! - [`http`]: `/metrics` with format negotiation, and `/healthz`.

pub mod cache;
pub mod http;
pub mod metrics;
pub mod poller;
pub mod text004;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::api::Client;
use crate::clock::Clock;
use crate::config::{ContextOrigin, LoadedConfig};
use crate::session::{ContextsError, FlagUse, GlobalArgs, Session, SessionError};

pub use cache::{Cache, Snapshot, Source};
pub use http::Format;
pub use poller::{Budget, PollPlan};

/// `vantage exporter`. The global `--context NAME`, repeated, serves several
/// contexts at once: each with its own client, poller and budget, and a
/// `context` label on every series.
#[derive(Args, Debug, Clone)]
pub struct ExporterArgs {
    /// Address to serve /metrics and /healthz on. Loopback unless you mean it.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9464")]
    pub listen: SocketAddr,
    /// Projects whose live visitors to report, by id (comma-separated); with
    /// several --context, CONTEXT:ID watches in one context only.
    #[arg(long, value_name = "ID,…", value_delimiter = ',')]
    pub watch: Vec<String>,
    /// How often to poll insights and the watched projects, e.g. 60s, 5m.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    pub interval: Duration,
    /// How often to walk the whole inventory (publish audience, visibility, personal data).
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_duration)]
    pub inventory_interval: Duration,
    /// Do not walk the inventory (it costs one request per 100 projects).
    #[arg(long)]
    pub no_inventory: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ExporterError {
    // Not transparent: the session error stays in the chain, for its exit code.
    #[error("{0}")]
    Session(#[from] SessionError),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot open the log file: {0}")]
    Log(std::io::Error),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("the metrics server stopped: {0}")]
    Serve(std::io::Error),
}

/// "60s", "5m", "1h", "1500ms"; a bare number is seconds. At least one second.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration such as 60s, 5m or 1h"))?;
    let duration = match unit.trim() {
        "" | "s" => Duration::from_secs(number),
        "ms" => Duration::from_millis(number),
        "m" => Duration::from_secs(number.saturating_mul(60)),
        "h" => Duration::from_secs(number.saturating_mul(3600)),
        _ => return Err(format!("{text:?}: the unit must be ms, s, m or h")),
    };
    if duration < Duration::from_secs(1) {
        return Err(format!("{text:?} is too short: at least 1s"));
    }
    Ok(duration)
}

/// An exporter at work: its address, and the count of poll cycles done.
pub struct RunningExporter {
    pub addr: SocketAddr,
    /// The first context's cache (the only one, unless several are served).
    pub cache: Cache,
    /// Every context's cache, in the order served.
    pub caches: Vec<Cache>,
    cycles: Vec<watch::Receiver<u64>>,
    pollers: Vec<JoinHandle<()>>,
    server: JoinHandle<std::io::Result<()>>,
}

/// One context to serve: its client and what to poll.
pub struct Target {
    /// The `context` label; `None` when only one context is served.
    pub context: Option<String>,
    pub client: Client,
    pub plan: PollPlan,
}

impl RunningExporter {
    /// Waits until every context's poller has finished at least `n` cycles.
    pub async fn wait_for_cycles(&mut self, n: u64) {
        for cycles in &mut self.cycles {
            // The sender lives in the poller task, which runs until stopped.
            let _ = cycles.wait_for(|done| *done >= n).await;
        }
    }

    pub fn metrics_url(&self) -> String {
        format!("http://{}/metrics", self.addr)
    }

    /// Stops the poller and the server.
    pub fn stop(self) {
        self.pollers.iter().for_each(JoinHandle::abort);
        self.server.abort();
    }

    /// Serves until the server fails (it does not end otherwise).
    pub async fn serve(self) -> Result<(), ExporterError> {
        let result = match self.server.await {
            Ok(served) => served.map_err(ExporterError::Serve),
            Err(join) => Err(ExporterError::Serve(std::io::Error::other(join))),
        };
        self.pollers.iter().for_each(JoinHandle::abort);
        result
    }
}

/// Starts the poller and the metrics server on `listener`, for one workspace.
pub fn start(
    client: Client,
    plan: PollPlan,
    clock: Clock,
    listener: TcpListener,
) -> std::io::Result<RunningExporter> {
    let target = Target {
        context: None,
        client,
        plan,
    };
    start_many(vec![target], clock, listener)
}

/// Starts one poller per target, each with its own cache and budget (each
/// client keeps its own credential's rate-limit state), and one metrics server
/// on `listener` for all of them.
pub fn start_many(
    targets: Vec<Target>,
    clock: Clock,
    listener: TcpListener,
) -> std::io::Result<RunningExporter> {
    let addr = listener.local_addr()?;
    let (mut contexts, mut caches) = (Vec::new(), Vec::new());
    let (mut cycles, mut pollers) = (Vec::new(), Vec::new());
    for target in targets {
        let cache = Cache::default();
        let (cycles_sender, cycles_receiver) = watch::channel(0);
        contexts.push(http::ServedContext {
            context: target.context,
            workspace: target.plan.workspace.clone(),
            cache: cache.clone(),
        });
        let poller = poller::Poller::new(
            target.client,
            target.plan,
            cache.clone(),
            clock.clone(),
            cycles_sender,
        );
        pollers.push(tokio::spawn(poller.run()));
        cycles.push(cycles_receiver);
        caches.push(cache);
    }
    let served = Arc::new(http::Served::new(contexts, clock));
    let app = http::router(served);
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(RunningExporter {
        addr,
        cache: caches.first().cloned().unwrap_or_default(),
        caches,
        cycles,
        pollers,
        server,
    })
}

/// The sessions to serve: the one context the flags and the file choose, or
/// each `--context` named (then without the flags that name one connection).
pub fn connect_contexts(
    global: &GlobalArgs,
) -> Result<Vec<(Option<String>, Session)>, SessionError> {
    if global.context.len() <= 1 {
        return Ok(vec![(None, Session::connect(global)?)]);
    }
    for (flag, given) in [
        ("--base-url", global.base_url.is_some()),
        ("--workspace", global.workspace.is_some()),
        ("--api-key-env", global.api_key_env.is_some()),
    ] {
        if given {
            return Err(ContextsError::FlagWithSeveral(flag).into());
        }
    }
    let config = LoadedConfig::load(global.config.as_deref())?;
    let mut sessions: Vec<(Option<String>, Session)> = Vec::new();
    for name in &global.context {
        if sessions
            .iter()
            .any(|(known, _)| known.as_deref() == Some(name))
        {
            return Err(ContextsError::Repeated(name.clone()).into());
        }
        let context = config.context(name, ContextOrigin::Flag)?;
        let session = Session::connect_to(global, config.clone(), context, FlagUse::ReadOnlyOnly)?;
        sessions.push((Some(name.clone()), session));
    }
    Ok(sessions)
}

/// The poll plan `args` describe for `workspace`.
pub fn plan(args: &ExporterArgs, workspace: String) -> PollPlan {
    context_plan(args, None, workspace)
}

/// The poll plan of one of several contexts: a watched id written
/// `CONTEXT:ID` is polled in that context only, a bare one in every context.
pub fn context_plan(args: &ExporterArgs, context: Option<&str>, workspace: String) -> PollPlan {
    PollPlan {
        workspace,
        watch: args
            .watch
            .iter()
            .map(|id| id.trim())
            .filter(|id| !id.is_empty())
            .filter_map(|id| match (context, id.split_once(':')) {
                (Some(name), Some((prefix, id))) => (prefix == name).then(|| id.to_owned()),
                _ => Some(id.to_owned()),
            })
            .collect(),
        interval: args.interval,
        inventory_interval: (!args.no_inventory).then_some(args.inventory_interval),
        names_interval: args.inventory_interval,
        budget: Budget::default(),
    }
}

/// The `vantage exporter` command: connects, logs to the log file, and serves
/// until interrupted.
pub fn main(global: &GlobalArgs, args: ExporterArgs) -> Result<(), ExporterError> {
    let mut targets = Vec::new();
    let mut warnings = Vec::new();
    for (context, session) in connect_contexts(global)? {
        let workspace = session.workspace()?.to_owned();
        for warning in &session.warnings {
            if !warnings.contains(warning) {
                warnings.push(warning.clone());
            }
        }
        targets.push(Target {
            plan: context_plan(&args, context.as_deref(), workspace),
            context,
            client: session.client,
        });
    }
    for warning in &warnings {
        crate::stderr::line(format_args!("warning: {warning}"));
    }
    let log = crate::logging::to_file(&crate::paths::data_dir()).map_err(ExporterError::Log)?;
    let runtime = tokio::runtime::Runtime::new().map_err(ExporterError::Runtime)?;
    runtime.block_on(async move {
        let listener = TcpListener::bind(args.listen)
            .await
            .map_err(|source| ExporterError::Listen {
                addr: args.listen,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| ExporterError::Listen {
            addr: args.listen,
            source,
        })?;
        if !addr.ip().is_loopback() {
            let warning = format!(
                "listening on {addr}, beyond this machine: anyone who can reach it reads the workspace's metrics"
            );
            crate::stderr::line(format_args!("warning: {warning}"));
            tracing::warn!("{warning}");
        }
        for target in &targets {
            tracing::info!(%addr, context = ?target.context, workspace = %target.plan.workspace, watched = target.plan.watch.len(), "exporter starting");
        }
        let exporter = start_many(targets, Clock::system(), listener).map_err(ExporterError::Serve)?;
        crate::stderr::line(format_args!(
            "vantage exporter: serving {} (log: {})",
            exporter.metrics_url(),
            log.display()
        ));
        tokio::select! {
            served = exporter.serve() => served,
            () = shutdown_signal() => {
                crate::stderr::line(format_args!("vantage exporter: shutting down"));
                Ok(())
            }
        }
    })
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_prometheus_ones() {
        assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1500ms"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("500ms").is_err());
        assert!(parse_duration("5d").is_err());
        assert!(parse_duration("s").is_err());
    }
}
