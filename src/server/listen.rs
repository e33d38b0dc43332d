//! The server's connections: the shared accept loop (`crate::accept`: a
//! bounded header-read time, a cap on open connections), and the error
//! envelope on hyper's own rejections.
//!
//! hyper answers a request it cannot parse by itself (a 400 for a bad request
//! line or header, 414 for a URI over its limit, 431 for too large or too many
//! headers), with an empty body, before any of our code sees a request. Those
//! answers are recognised on their way out (a 4xx head without `X-Request-Id`,
//! which every answer of ours carries) and replaced by the contract's envelope.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::Router;
use axum::http::StatusCode;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

use super::errors::HttpError;
use super::state::{ConnectionLimits, ServerState};
use crate::api::model::ErrorType;

/// Serves `router` on `listener` until `shutdown` fires, then lets the requests
/// in flight finish; hyper's bare rejections go out as envelopes.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    app: Arc<ServerState>,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) {
    let wrap = move |stream| EnvelopeOnRejections::new(stream, app.clone());
    crate::accept::serve(listener, router, limits, wrap, shutdown).await;
}

/// A connection whose outgoing bare rejections by hyper become envelopes.
struct EnvelopeOnRejections {
    stream: TcpStream,
    app: Arc<ServerState>,
    /// A replacement answer not yet fully written, and how much of it was.
    pending: Option<(Vec<u8>, usize)>,
}

impl EnvelopeOnRejections {
    fn new(stream: TcpStream, app: Arc<ServerState>) -> Self {
        Self {
            stream,
            app,
            pending: None,
        }
    }

    /// Writes what is left of the replacement answer.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.pending {
            if *written == bytes.len() {
                self.pending = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.stream).poll_write(cx, &bytes[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for EnvelopeOnRejections {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for EnvelopeOnRejections {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        if let Some(status) = hyper_rejection(buf) {
            let request_id = self.app.next_request_id();
            tracing::info!(%status, %request_id, "request refused by the HTTP parser");
            self.pending = Some((envelope_answer(status, &request_id), 0));
            // The bare answer counts as written; the envelope goes in its place,
            // and what the socket does not take now goes on the next flush.
            if let Poll::Ready(Err(err)) = self.poll_pending(cx) {
                return Poll::Ready(Err(err));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    /// hyper hands a head and its body over as slices, the body never copied
    /// into its own buffer (a page is over 100 KiB). A head is whole in the
    /// first slice it writes, so a bare rejection is found there.
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if let Some(first) = bufs.iter().find(|buf| !buf.is_empty())
            && hyper_rejection(first).is_some()
        {
            return self.poll_write(cx, first);
        }
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// The status of a bare rejection written by hyper itself: a 400, 414 or 431
/// head without `X-Request-Id`. Only a head can match: every body we send is
/// JSON, where CR and LF are escaped, so no body holds a head's blank line.
fn hyper_rejection(bytes: &[u8]) -> Option<StatusCode> {
    let rest = bytes.strip_prefix(b"HTTP/1.1 ")?;
    let status = match rest.get(..4)? {
        b"400 " => StatusCode::BAD_REQUEST,
        b"414 " => StatusCode::URI_TOO_LONG,
        b"431 " => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        _ => return None,
    };
    let head_end = bytes.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&bytes[..head_end]).to_ascii_lowercase();
    let ours = head.contains("\r\nx-request-id:");
    (!ours).then_some(status)
}

/// The error of a request hyper refused.
fn rejection_error(status: StatusCode) -> HttpError {
    let detail = match status {
        StatusCode::URI_TOO_LONG => "the request URI is longer than this server reads",
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => {
            "the request headers are too large or too many"
        }
        _ => {
            "the request line or a header could not be parsed (e.g. a control or non-ASCII byte in the path)"
        }
    };
    let title = status.canonical_reason().unwrap_or("Invalid request");
    HttpError::new(status, ErrorType::InvalidRequest, title).detail(detail)
}

/// A whole HTTP/1.1 answer carrying the envelope; the connection then closes.
fn envelope_answer(status: StatusCode, request_id: &str) -> Vec<u8> {
    let body = serde_json::to_vec(&rejection_error(status).body(request_id)).unwrap_or_default();
    let mut answer = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nx-request-id: {request_id}\r\nconnection: close\r\ndate: {}\r\n\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or_default(),
        body.len(),
        httpdate::fmt_http_date(std::time::SystemTime::now()),
    )
    .into_bytes();
    answer.extend_from_slice(&body);
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_only_bare_rejections() {
        let bare =
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        assert_eq!(
            hyper_rejection(bare),
            Some(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE)
        );
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\nx-request-id: req_1\r\n\r\n{}";
        assert_eq!(hyper_rejection(ours), None);
        assert_eq!(hyper_rejection(b"HTTP/1.1 200 OK\r\n\r\n"), None);
        assert_eq!(hyper_rejection(b"\x00\x00\x12\x04"), None);
    }
}
