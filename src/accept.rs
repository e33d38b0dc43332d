//! The accept loop of vantage's HTTP servers (`vantage serve` and
//! `vantage exporter`): HTTP/1.1 connections with a bounded header-read time
//! and a cap on open connections, so that idle or slow clients (slowloris)
//! can neither hold a connection forever nor run the process out of file
//! descriptors. A leaf: both servers import it, neither imports the other.

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
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            max_connections: 1024,
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
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
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
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(err) => {
                // Out of descriptors and the like: wait a little rather than spin.
                tracing::warn!(error = %err, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let service = router
            .clone()
            .map_request(|request: Request<Incoming>| request.map(Body::new));
        let io = TokioIo::new(wrap(stream));
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let _permit = permit;
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
                _ = stop.changed() => connection.as_mut().graceful_shutdown(),
            }
            if let Err(err) = connection.await {
                tracing::debug!(error = %err, "connection ended");
            }
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    drop(stop_rx);
    stop_tx.closed().await;
}
