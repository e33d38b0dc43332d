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
mod command;
pub mod http;
pub(crate) mod metrics;
pub mod policy;
pub mod poller;
pub(crate) mod process;
pub mod standing;
pub(crate) mod text004;
pub mod web;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::accept::ConnectionLimits;
use crate::api::Client;
use crate::clock::Clock;
use crate::session::SessionError;

pub use cache::{Cache, Snapshot, Source};
pub use command::{connect_contexts, main};
pub use http::Format;
pub use poller::{Budget, PollPlan};

/// `vantage exporter`. The global `--context NAME`, repeated, serves several
/// contexts at once: each with its own client, poller and budget, and a
/// `context` label on every series. The web flags are node_exporter's.
#[derive(Args, Debug, Clone)]
pub struct ExporterArgs {
    /// Address to serve the metrics and /healthz on. Off loopback it needs
    /// --web.config.file (TLS, basic auth) or --insecure-listen.
    #[arg(long = "web.listen-address", visible_alias = "listen", value_name = "ADDR", default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// Path under which to serve the metrics.
    #[arg(long = "web.telemetry-path", value_name = "PATH", default_value = "/metrics", value_parser = parse_telemetry_path)]
    pub telemetry_path: String,
    /// A web config file in the Prometheus exporter toolkit's format
    /// (tls_server_config, basic_auth_users), read again when it changes.
    #[arg(long = "web.config.file", value_name = "FILE")]
    pub web_config_file: Option<PathBuf>,
    /// Serve off loopback without a web config file: metrics in the clear,
    /// to anyone who reaches the address.
    #[arg(long)]
    pub insecure_listen: bool,
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
    /// Policies to evaluate on the review history's newest snapshot, as
    /// `vantage check --policy` (repeatable; `builtin` is the pack). Default:
    /// the built-in pack and the config dir's policies/.
    #[arg(long, value_name = "FILE|DIR")]
    pub policy: Vec<PathBuf>,
    /// Evaluate the policies at least this often; sooner when the history
    /// changes (a snapshot, a mark, a waiver), checked every --interval.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = parse_duration)]
    pub policy_interval: Duration,
    /// Do not evaluate policies (vantage_policy_* series).
    #[arg(long, conflicts_with = "policy")]
    pub no_policy: bool,
    /// Connections served at once; more wait until one closes.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Connections one client address may hold at once; more are closed.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_PER_PEER)]
    pub max_connections_per_peer: usize,
    /// How long a client has to send its request's headers (slow or idle
    /// clients are closed after it).
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub header_read_timeout: Duration,
    /// How long an answer may wait for a client that does not read it.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub write_timeout: Duration,
    /// How long an answer may take to leave, from its request's arrival.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    pub request_deadline: Duration,
}

/// Loopback, on a port outside the Prometheus wiki's allocations (README,
/// "Prometheus and Grafana": 9100-9999 are all taken, 9464 is OpenTelemetry's).
pub const DEFAULT_LISTEN: &str = "127.0.0.1:19464";

/// Scrapers are few: node_exporter serves 40 requests at once by default
/// (`--web.max-requests`); a little more room, and far below the descriptors
/// a process gets (1,024 by default), so idle clients cannot starve the poller.
pub const DEFAULT_MAX_CONNECTIONS: usize = 64;

/// A Prometheus pair scrapes one connection each, a browser opens six: eight
/// per address leaves room for them while one host cannot take every place.
pub const DEFAULT_MAX_PER_PEER: usize = 8;

impl ExporterArgs {
    /// The limits of the metrics server's connections.
    pub fn connection_limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            header_read_timeout: self.header_read_timeout,
            max_connections: self.max_connections,
            write_timeout: Some(self.write_timeout),
            request_deadline: Some(self.request_deadline),
            max_per_peer: Some(self.max_connections_per_peer),
        }
    }
}

/// The limits the exporter serves within unless told otherwise.
pub fn default_limits() -> ConnectionLimits {
    ConnectionLimits {
        max_connections: DEFAULT_MAX_CONNECTIONS,
        write_timeout: Some(Duration::from_secs(10)),
        request_deadline: Some(Duration::from_secs(30)),
        max_per_peer: Some(DEFAULT_MAX_PER_PEER),
        ..ConnectionLimits::default()
    }
}

/// A telemetry path: absolute, plain (letters, digits, `/`, `-`, `_`, `.`),
/// and not one of the exporter's own pages.
pub fn parse_telemetry_path(text: &str) -> Result<String, String> {
    let plain = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | '.'));
    if !text.starts_with('/') || text.len() < 2 || !plain || text.contains("//") {
        return Err(format!(
            "{text:?}: a path such as /metrics (letters, digits, /, -, _ and . only)"
        ));
    }
    if text == "/healthz" {
        return Err("/healthz is the health check, not the metrics".to_owned());
    }
    Ok(text.to_owned())
}

#[derive(Debug, thiserror::Error)]
pub enum ExporterError {
    // Not transparent: the session error stays in the chain, for its exit code.
    #[error("{0}")]
    Session(#[from] SessionError),
    #[error(
        "refusing to serve the metrics on {addr}, beyond this machine, without --web.config.file: their labels carry project names. Give a web config with TLS and basic auth (see README, \"Prometheus and Grafana\"), or --insecure-listen to serve them in the clear"
    )]
    Insecure { addr: SocketAddr },
    #[error("--web.config.file: {0}")]
    WebConfig(#[from] web::WebConfigError),
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
    #[error(transparent)]
    Policy(#[from] crate::policy::PolicyError),
    #[error("the review history: {0}")]
    History(String),
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
    /// `https` when a web config's TLS is in force at start, else `http`.
    pub scheme: &'static str,
    pub telemetry_path: String,
    /// The first context's cache (the only one, unless several are served).
    pub cache: Cache,
    /// Every context's cache, in the order served.
    pub caches: Vec<Cache>,
    cycles: Vec<watch::Receiver<u64>>,
    pollers: Vec<JoinHandle<()>>,
    server: JoinHandle<()>,
}

/// One context to serve: its client and what to poll.
pub struct Target {
    /// The `context` label; `None` when only one context is served.
    pub context: Option<String>,
    pub client: Client,
    pub plan: PollPlan,
}

impl RunningExporter {
    /// Evaluates `plan`'s policies for the context at `index` (in the order
    /// served) beside its poller, checking every `check_every`.
    pub fn watch_policies(
        &mut self,
        index: usize,
        plan: policy::PolicyPlan,
        workspace: String,
        clock: Clock,
        check_every: Duration,
    ) {
        let Some(cache) = self.caches.get(index) else {
            return;
        };
        let watch = policy::PolicyWatch::new(plan, workspace, cache.clone());
        self.pollers
            .push(tokio::spawn(policy::run(watch, clock, check_every)));
    }

    /// Waits until every context's poller has finished at least `n` cycles.
    pub async fn wait_for_cycles(&mut self, n: u64) {
        for cycles in &mut self.cycles {
            // The sender lives in the poller task, which runs until stopped.
            let _ = cycles.wait_for(|done| *done >= n).await;
        }
    }

    pub fn metrics_url(&self) -> String {
        format!("{}://{}{}", self.scheme, self.addr, self.telemetry_path)
    }

    /// Stops the poller and the server.
    pub fn stop(self) {
        self.pollers.iter().for_each(JoinHandle::abort);
        self.server.abort();
    }

    /// Serves until the server fails (it does not end otherwise).
    pub async fn serve(self) -> Result<(), ExporterError> {
        let result = match self.server.await {
            Ok(()) => Ok(()),
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

/// [`start_limited`] with the default connection limits.
pub fn start_many(
    targets: Vec<Target>,
    clock: Clock,
    listener: TcpListener,
) -> std::io::Result<RunningExporter> {
    start_limited(targets, clock, listener, default_limits())
}

/// [`start_with`] on `/metrics` without a web config.
pub fn start_limited(
    targets: Vec<Target>,
    clock: Clock,
    listener: TcpListener,
    limits: ConnectionLimits,
) -> std::io::Result<RunningExporter> {
    let options = ServeOptions {
        limits,
        ..ServeOptions::default()
    };
    start_with(targets, clock, listener, options)
}

/// How the metrics are served: the connections' limits, the telemetry
/// path, and the web config (TLS, basic auth), if any.
#[derive(Clone)]
pub struct ServeOptions {
    pub limits: ConnectionLimits,
    pub telemetry_path: String,
    pub web: Option<Arc<web::WebConfig>>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            limits: default_limits(),
            telemetry_path: "/metrics".to_owned(),
            web: None,
        }
    }
}

/// Starts one poller per target, each with its own cache and budget (each
/// client keeps its own credential's rate-limit state), and one metrics server
/// on `listener` for all of them, as `options` say.
pub fn start_with(
    targets: Vec<Target>,
    clock: Clock,
    listener: TcpListener,
    options: ServeOptions,
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
    let app = http::router(served, &options.telemetry_path, options.web.clone());
    let scheme = match &options.web {
        Some(web) if web.serves_tls() => "https",
        _ => "http",
    };
    let web = options.web.clone();
    let serving = crate::accept::serve_with(
        listener,
        app,
        options.limits,
        move |stream, peer| web::handshake(web.clone(), stream, peer),
        std::future::pending(),
    );
    let server = tokio::spawn(serving);
    Ok(RunningExporter {
        addr,
        scheme,
        telemetry_path: options.telemetry_path,
        cache: caches.first().cloned().unwrap_or_default(),
        caches,
        cycles,
        pollers,
        server,
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_telemetry_path_is_plain_and_not_taken() {
        assert_eq!(parse_telemetry_path("/metrics"), Ok("/metrics".into()));
        assert_eq!(
            parse_telemetry_path("/vantage/metrics"),
            Ok("/vantage/metrics".into())
        );
        for refused in [
            "metrics", "/", "/healthz", "/{id}", "/:x", "/a b", "//m", "/m?x",
        ] {
            assert!(parse_telemetry_path(refused).is_err(), "{refused}");
        }
    }

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
