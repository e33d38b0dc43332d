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
use crate::session::{GlobalArgs, Session, SessionError};

pub use cache::{Cache, Snapshot, Source};
pub use http::Format;
pub use poller::{Budget, PollPlan};

/// `vantage exporter`: contexts (`--context`) come later; one workspace for now.
#[derive(Args, Debug, Clone)]
pub struct ExporterArgs {
    /// Address to serve /metrics and /healthz on. Loopback unless you mean it.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9464")]
    pub listen: SocketAddr,
    /// Projects whose live visitors to report, by id (comma-separated).
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
    pub cache: Cache,
    cycles: watch::Receiver<u64>,
    poller: JoinHandle<()>,
    server: JoinHandle<std::io::Result<()>>,
}

impl RunningExporter {
    /// Waits until at least `n` poll cycles have finished.
    pub async fn wait_for_cycles(&mut self, n: u64) {
        // The sender lives in the poller task, which runs until stopped.
        let _ = self.cycles.wait_for(|done| *done >= n).await;
    }

    pub fn metrics_url(&self) -> String {
        format!("http://{}/metrics", self.addr)
    }

    /// Stops the poller and the server.
    pub fn stop(self) {
        self.poller.abort();
        self.server.abort();
    }

    /// Serves until the server fails (it does not end otherwise).
    pub async fn serve(self) -> Result<(), ExporterError> {
        let result = match self.server.await {
            Ok(served) => served.map_err(ExporterError::Serve),
            Err(join) => Err(ExporterError::Serve(std::io::Error::other(join))),
        };
        self.poller.abort();
        result
    }
}

/// Starts the poller and the metrics server on `listener`.
pub fn start(
    client: Client,
    plan: PollPlan,
    clock: Clock,
    listener: TcpListener,
) -> std::io::Result<RunningExporter> {
    let addr = listener.local_addr()?;
    let cache = Cache::default();
    let (cycles_sender, cycles) = watch::channel(0);
    let served = Arc::new(http::Served {
        workspace: plan.workspace.clone(),
        cache: cache.clone(),
        clock: clock.clone(),
    });
    let poller = poller::Poller::new(client, plan, cache.clone(), clock, cycles_sender);
    let poller = tokio::spawn(poller.run());
    let app = http::router(served);
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(RunningExporter {
        addr,
        cache,
        cycles,
        poller,
        server,
    })
}

/// The poll plan `args` describe for `workspace`.
pub fn plan(args: &ExporterArgs, workspace: String) -> PollPlan {
    PollPlan {
        workspace,
        watch: args
            .watch
            .iter()
            .map(|id| id.trim().to_owned())
            .filter(|id| !id.is_empty())
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
    let session = Session::connect(global)?;
    let workspace = session.workspace()?.to_owned();
    for warning in &session.warnings {
        eprintln!("warning: {warning}");
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
            eprintln!("warning: {warning}");
            tracing::warn!("{warning}");
        }
        let plan = plan(&args, workspace);
        tracing::info!(%addr, workspace = %plan.workspace, watched = plan.watch.len(), "exporter starting");
        let exporter = start(session.client, plan, Clock::system(), listener).map_err(ExporterError::Serve)?;
        eprintln!(
            "vantage exporter: serving {} (log: {})",
            exporter.metrics_url(),
            log.display()
        );
        tokio::select! {
            served = exporter.serve() => served,
            () = shutdown_signal() => {
                eprintln!("vantage exporter: shutting down");
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
