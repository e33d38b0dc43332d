//! What keeps one connection from holding the server: writes that stall
//! ([`WriteTimeout`]), answers that take too long to leave
//! ([`RequestClock`]), and one peer's share of the places ([`PeerCount`]).

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// A stream whose writes fail with `TimedOut` once one has made no progress
/// for the timeout: the peer stopped reading. Reads pass through.
pub struct WriteTimeout<Io> {
    io: Io,
    timeout: Option<Duration>,
    /// Started when a write first could not go on; reset by any progress.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<Io> WriteTimeout<Io> {
    pub fn new(io: Io, timeout: Option<Duration>) -> Self {
        Self {
            io,
            timeout,
            stalled: None,
        }
    }

    pub fn into_inner(self) -> Io {
        self.io
    }

    /// `poll` is a write, flush or shutdown of the stream: pending for longer
    /// than the timeout, it is an error.
    fn guard<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: impl FnOnce(Pin<&mut Io>, &mut Context<'_>) -> Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>>
    where
        Io: Unpin,
    {
        match poll(Pin::new(&mut self.io), cx) {
            Poll::Ready(result) => {
                self.stalled = None;
                Poll::Ready(result)
            }
            Poll::Pending => {
                let Some(timeout) = self.timeout else {
                    return Poll::Pending;
                };
                let stalled = self
                    .stalled
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
                match stalled.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the peer read nothing within the write timeout",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl<Io: AsyncRead + Unpin> AsyncRead for WriteTimeout<Io> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<Io: AsyncWrite + Unpin> AsyncWrite for WriteTimeout<Io> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.guard(cx, |io, cx| io.poll_write(cx, buf))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.guard(cx, |io, cx| io.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.guard(cx, |io, cx| io.poll_flush(cx))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.guard(cx, |io, cx| io.poll_shutdown(cx))
    }
}

/// When the connection's latest request arrived, for its deadline.
#[derive(Clone)]
pub(super) struct RequestClock {
    started: Instant,
    /// Milliseconds after `started`, plus one; 0 before the first request.
    latest: Arc<AtomicU64>,
}

impl Default for RequestClock {
    fn default() -> Self {
        Self {
            started: Instant::now(),
            latest: Arc::default(),
        }
    }
}

impl RequestClock {
    /// A request arrived now.
    pub(super) fn arrived(&self) {
        let millis = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX - 1);
        self.latest.store(millis + 1, Ordering::Relaxed);
    }

    /// Resolves once `deadline` has passed since the latest request arrived
    /// with no newer one since: its answer (or the wait for the next request,
    /// which the header-read timeout ends sooner) took too long. Never
    /// without a deadline.
    pub(super) async fn overdue(&self, deadline: Option<Duration>) {
        let Some(deadline) = deadline else {
            return std::future::pending().await;
        };
        let mut seen = self.latest.load(Ordering::Relaxed);
        loop {
            let from = match seen {
                // No request yet: the header-read timeout guards the wait.
                0 => Instant::now(),
                millis => self.started + Duration::from_millis(millis - 1),
            };
            tokio::time::sleep_until(from + deadline).await;
            let now = self.latest.load(Ordering::Relaxed);
            if now == seen && now != 0 {
                return;
            }
            seen = now;
        }
    }
}

/// Open connections by peer address.
#[derive(Clone, Default)]
pub(super) struct PeerCount {
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl PeerCount {
    /// A place for one more connection of `peer`, or `None` when it holds
    /// `cap` already. The place is given back when dropped.
    pub(super) fn enter(&self, peer: IpAddr, cap: Option<usize>) -> Option<PeerPlace> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let count = open.entry(peer).or_default();
        if cap.is_some_and(|cap| *count >= cap.max(1)) {
            return None;
        }
        *count += 1;
        Some(PeerPlace {
            peers: self.clone(),
            peer,
        })
    }
}

/// One connection's place in its peer's share.
pub(super) struct PeerPlace {
    peers: PeerCount,
    peer: IpAddr,
}

impl Drop for PeerPlace {
    fn drop(&mut self) {
        let mut open = self.peers.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = open.get_mut(&self.peer) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.peer);
            }
        }
    }
}
