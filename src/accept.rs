//! The accept loop of vantage's HTTP servers (`vantage serve` and
//! `vantage exporter`): HTTP/1.1 connections with a bounded header-read time
//! and a cap on open connections, so that idle or slow clients (slowloris)
//! can neither hold a connection forever nor run the process out of file
//! descriptors. The exporter adds a write timeout, a deadline per request and
//! a cap per peer (`guard.rs`), so clients that send requests and never read
//! the answers cannot hold it either. A leaf: both servers import it, neither
//! imports the other.

mod guard;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tower::ServiceExt;

pub use guard::WriteTimeout;
use guard::{PeerCount, RequestClock};

/// Limits of the connection layer.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// How long a client has to send a request's headers, counted from the
    /// moment the server waits for them; an idle keep-alive connection waits for
    /// its next request's headers, so it is closed after this time too.
    pub header_read_timeout: Duration,
    /// Connections served at once; further ones are not accepted and wait in
    /// the kernel's listen backlog (as Go's `netutil.LimitListener` does), so
    /// they hold no descriptor of ours and are served in turn.
    pub max_connections: usize,
    /// A write that makes no progress for this long closes the connection:
    /// the client does not read its answers.
    pub write_timeout: Option<Duration>,
    /// A request's answer must be written within this time of the request's
    /// arrival, or the connection is closed (a client that reads a byte now
    /// and then evades the write timeout, not this).
    pub request_deadline: Option<Duration>,
    /// Connections one peer address may hold at once; a further one is
    /// closed at once, so one host cannot take every place.
    pub max_per_peer: Option<usize>,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            max_connections: 1024,
            write_timeout: None,
            request_deadline: None,
            max_per_peer: None,
        }
    }
}

/// Serves `router` on `listener` within `limits` until `shutdown` fires, then
/// lets the requests in flight finish. `wrap` turns each accepted stream into
/// the connection hyper reads and writes.
pub async fn serve<Io>(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    wrap: impl Fn(TcpStream) -> Io,
    shutdown: impl Future<Output = ()>,
) where
    Io: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let handshake = |stream: WriteTimeout<TcpStream>, _peer: SocketAddr| {
        std::future::ready(Some(wrap(stream.into_inner())))
    };
    serve_with(listener, router, limits, handshake, shutdown).await;
}

/// [`serve`], with an asynchronous `handshake` (TLS, say) that turns each
/// accepted stream, its writes already under the write timeout, into the
/// connection hyper reads and writes, or into `None` to close it. The
/// handshake has the header-read timeout to finish.
pub async fn serve_with<Io, Handshake>(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    handshake: impl Fn(WriteTimeout<TcpStream>, SocketAddr) -> Handshake,
    shutdown: impl Future<Output = ()>,
) where
    Io: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    Handshake: Future<Output = Option<Io>> + Send + 'static,
{
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let peers = PeerCount::default();
    // Each connection holds a receiver; `closed()` fires when all are gone.
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => permit,
            () = &mut shutdown => break,
        };
        let Ok(permit) = permit else { break };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(err) => {
                // Out of descriptors and the like: wait a little rather than spin.
                tracing::warn!(error = %err, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(peer_place) = peers.enter(peer.ip(), limits.max_per_peer) else {
            tracing::debug!(peer = %peer.ip(), "connection closed: the peer holds its share");
            continue;
        };
        let requests = RequestClock::default();
        let stamp = requests.clone();
        let service = router
            .clone()
            .map_request(move |request: Request<Incoming>| {
                stamp.arrived();
                request.map(Body::new)
            });
        let handshake = handshake(WriteTimeout::new(stream, limits.write_timeout), peer);
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let _peer_place = peer_place;
            let io = match tokio::time::timeout(limits.header_read_timeout, handshake).await {
                Ok(Some(io)) => TokioIo::new(io),
                Ok(None) => return,
                Err(_) => {
                    tracing::debug!(%peer, "connection closed: no handshake in time");
                    return;
                }
            };
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read_timeout);
            let connection = builder.serve_connection(io, TowerToHyperService::new(service));
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                served = connection.as_mut() => {
                    if let Err(err) = served {
                        tracing::debug!(error = %err, "connection ended");
                    }
                    return;
                }
                () = requests.overdue(limits.request_deadline) => {
                    tracing::debug!(%peer, "connection closed: an answer overran its deadline");
                    return;
                }
                _ = stop.changed() => connection.as_mut().graceful_shutdown(),
            }
            tokio::select! {
                served = connection => {
                    if let Err(err) = served {
                        tracing::debug!(error = %err, "connection ended");
                    }
                }
                () = requests.overdue(limits.request_deadline) => {}
            }
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    drop(stop_rx);
    stop_tx.closed().await;
}

/// Whether `ip` is a loopback address (`127.0.0.0/8`, `::1`, or IPv4
/// loopback mapped into IPv6).
pub fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}
