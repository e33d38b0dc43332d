//! TLS for the metrics server: rustls with ring, as the rest of vantage, and
//! the stream a connection is served on, TLS or plain.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

use super::WebConfig;
use crate::accept::WriteTimeout;

/// The stream under hyper: the accepted connection's writes are guarded by
/// the write timeout either way.
type Guarded = WriteTimeout<TcpStream>;

/// A server config from PEM text: the certificate chain and its key.
pub(super) fn acceptor(cert_pem: &str, key_pem: &str) -> Result<TlsAcceptor, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert_pem.as_bytes())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("cert_file holds no readable certificate: {e}"))?;
    if certs.is_empty() {
        return Err("cert_file holds no certificate".to_owned());
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes())
        .map_err(|e| format!("key_file holds no readable private key: {e}"))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| format!("the certificate and key do not go together: {e}"))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// The accepted connection as the configuration in force wants it: through
/// a TLS handshake, or plain without a web config's TLS. A handshake that
/// fails closes the connection (said in the log at debug: scanners do it).
pub async fn handshake(
    web: Option<Arc<WebConfig>>,
    stream: Guarded,
    peer: SocketAddr,
) -> Option<MaybeTls> {
    let tls = web.and_then(|web| web.current().tls.clone());
    let Some(acceptor) = tls else {
        return Some(MaybeTls::Plain(stream));
    };
    match acceptor.accept(stream).await {
        Ok(stream) => Some(MaybeTls::Tls(Box::new(stream))),
        Err(error) => {
            tracing::debug!(%peer, %error, "TLS handshake failed");
            None
        }
    }
}

/// A served connection, TLS or plain.
pub enum MaybeTls {
    Plain(Guarded),
    Tls(Box<TlsStream<Guarded>>),
}

impl AsyncRead for MaybeTls {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(stream) => Pin::new(stream).poll_read(cx, buf),
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for MaybeTls {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Plain(stream) => Pin::new(stream).poll_write(cx, buf),
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(stream) => Pin::new(stream).poll_flush(cx),
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(stream) => Pin::new(stream).poll_shutdown(cx),
            Self::Tls(stream) => Pin::new(stream.as_mut()).poll_shutdown(cx),
        }
    }
}
