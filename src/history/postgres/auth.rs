//! How the password may travel (`require_auth`, as libpq names it), and the
//! connection that holds to it. The driver answers whatever the server asks
//! for: a cleartext password, an MD5 hash of it, SCRAM. So vantage opens the
//! connection itself: the driver is told to start TLS at once
//! (`sslnegotiation=direct`), and this connector does the SSLRequest and the
//! handshake for the `sslmode`, then reads the server's messages until the
//! authentication ended. A request for a method the URL does not allow ends
//! the connection before the driver sees it, so the password is never sent.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use postgres::Socket;
use postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect, TlsStream};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::tls::TlsMode;
use crate::history::HistoryError;

/// A way the server may have vantage prove who it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    /// No proof asked (`trust`, `peer`).
    None,
    /// The password itself, in clear text.
    Password,
    /// An MD5 hash of the password, which a man in the middle can replay.
    Md5,
    /// SCRAM-SHA-256: the password never leaves vantage.
    Scram,
    /// Kerberos, GSSAPI, SSPI: the driver cannot do them.
    Gss,
}

impl AuthMethod {
    const ALL: [Self; 5] = [
        Self::None,
        Self::Password,
        Self::Md5,
        Self::Scram,
        Self::Gss,
    ];

    /// libpq's name, as `require_auth` lists it.
    fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Password => "password",
            Self::Md5 => "md5",
            Self::Scram => "scram-sha-256",
            Self::Gss => "gss",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        match name {
            "none" => Some(Self::None),
            "password" => Some(Self::Password),
            "md5" => Some(Self::Md5),
            "scram-sha-256" => Some(Self::Scram),
            "gss" | "sspi" => Some(Self::Gss),
            _ => None,
        }
    }

    /// What the server asked for, said to someone deciding whether to allow it.
    fn asked(self) -> &'static str {
        match self {
            Self::None => "no authentication",
            Self::Password => "the password in clear text",
            Self::Md5 => "the password as an MD5 hash",
            Self::Scram => "SCRAM-SHA-256",
            Self::Gss => "Kerberos/GSSAPI/SSPI",
        }
    }
}

/// Which methods the server may ask for: `require_auth` in the URL, else
/// SCRAM (or none at all), so the password is never sent in clear text or as
/// MD5 unless the URL allows it by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequireAuth {
    allowed: [bool; 5],
}

impl Default for RequireAuth {
    fn default() -> Self {
        Self::only(&[AuthMethod::None, AuthMethod::Scram])
    }
}

impl RequireAuth {
    fn only(methods: &[AuthMethod]) -> Self {
        let mut allowed = [false; 5];
        for method in methods {
            allowed[*method as usize] = true;
        }
        Self { allowed }
    }

    /// libpq's list: `scram-sha-256,password` allows these; `!md5,!password`
    /// allows all but these; a list mixing the two is refused, as libpq does.
    pub fn parse(raw: &str) -> Result<Self, HistoryError> {
        let refuse = |why: String| HistoryError::Url(format!("require_auth={raw:?}: {why}"));
        let items: Vec<&str> = raw.split(',').map(str::trim).collect();
        let negated = items.iter().filter(|item| item.starts_with('!')).count();
        if negated != 0 && negated != items.len() {
            return Err(refuse(
                "negated and plain methods cannot be mixed (as libpq)".into(),
            ));
        }
        let mut listed = Vec::new();
        for item in &items {
            let name = item.trim_start_matches('!');
            let method = AuthMethod::from_name(name).ok_or_else(|| {
                refuse(format!(
                    "{:?} is not one of none, password, md5, scram-sha-256, gss, sspi",
                    crate::text::escape_invisible(name)
                ))
            })?;
            listed.push(method);
        }
        if negated == 0 {
            return Ok(Self::only(&listed));
        }
        let rest: Vec<AuthMethod> = AuthMethod::ALL
            .into_iter()
            .filter(|method| !listed.contains(method))
            .collect();
        Ok(Self::only(&rest))
    }

    pub fn allows(&self, method: AuthMethod) -> bool {
        self.allowed[method as usize]
    }

    /// The methods allowed, by libpq's names.
    fn listed(&self) -> String {
        AuthMethod::ALL
            .into_iter()
            .filter(|method| self.allows(*method))
            .map(AuthMethod::name)
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Why vantage ended a connection during authentication: carried inside the
/// driver's I/O error, and found there again (`refused_in`).
#[derive(Debug, thiserror::Error)]
#[error(
    "the server asked for {}; vantage refused to send it (allowed: require_auth={}); add {} to require_auth in the URL to allow it",
    .asked.asked(), .policy.listed(), .asked.name()
)]
pub struct AuthRefused {
    asked: AuthMethod,
    policy: RequireAuth,
}

/// The refusal inside a driver error, if that is why it failed.
pub fn refused_in(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut source = Some(error);
    while let Some(inner) = source {
        if let Some(refused) = inner.downcast_ref::<AuthRefused>() {
            return Some(refused.to_string());
        }
        if let Some(io) = inner.downcast_ref::<io::Error>()
            && let Some(refused) = io.get_ref().and_then(|e| e.downcast_ref::<AuthRefused>())
        {
            return Some(refused.to_string());
        }
        source = inner.source();
    }
    None
}

/// The connector handed to the driver (whose own TLS negotiation is off).
pub struct GuardedConnect {
    pub tls: TlsMode,
    /// `sslnegotiation=direct`: TLS at once, no SSLRequest (PostgreSQL 17).
    pub direct: bool,
    pub rustls: MakeRustlsConnect,
    pub policy: RequireAuth,
}

impl MakeTlsConnect<Socket> for GuardedConnect {
    type Stream = Guarded;
    type TlsConnect = GuardedHandshake;
    type Error = io::Error;

    fn make_tls_connect(&mut self, domain: &str) -> Result<GuardedHandshake, io::Error> {
        let Ok(rustls) = MakeTlsConnect::<Socket>::make_tls_connect(&mut self.rustls, domain);
        Ok(GuardedHandshake {
            tls: self.tls,
            direct: self.direct,
            rustls,
            policy: self.policy,
        })
    }
}

type RustlsHandshake = <MakeRustlsConnect as MakeTlsConnect<Socket>>::TlsConnect;
type RustlsStream = <MakeRustlsConnect as MakeTlsConnect<Socket>>::Stream;

pub struct GuardedHandshake {
    tls: TlsMode,
    direct: bool,
    rustls: RustlsHandshake,
    policy: RequireAuth,
}

/// PostgreSQL's SSLRequest: length 8, code 80877103.
const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];

impl TlsConnect<Socket> for GuardedHandshake {
    type Stream = Guarded;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<Guarded>> + Send>>;

    fn connect(self, mut socket: Socket) -> Self::Future {
        Box::pin(async move {
            let encrypted = match self.tls {
                TlsMode::Disable => false,
                _ if self.direct => true,
                mode => {
                    socket.write_all(&SSL_REQUEST).await?;
                    match socket.read_u8().await? {
                        b'S' => true,
                        b'N' if mode == TlsMode::Prefer => false,
                        b'N' => {
                            return Err(io::Error::other(format!(
                                "the server does not offer TLS, which sslmode={} requires",
                                mode.name()
                            )));
                        }
                        _ => {
                            return Err(io::Error::other(
                                "the server answered the SSLRequest with something else than S or N",
                            ));
                        }
                    }
                }
            };
            let inner = if encrypted {
                Inner::Tls(Box::new(self.rustls.connect(socket).await?))
            } else {
                Inner::Plain(socket)
            };
            Ok(Guarded {
                inner,
                watch: AuthWatch::new(self.policy),
            })
        })
    }
}

enum Inner {
    Plain(Socket),
    Tls(Box<RustlsStream>),
}

/// The connection, its reads watched until the authentication ended.
pub struct Guarded {
    inner: Inner,
    watch: AuthWatch,
}

impl TlsStream for Guarded {
    fn channel_binding(&self) -> ChannelBinding {
        match &self.inner {
            Inner::Plain(_) => ChannelBinding::none(),
            Inner::Tls(tls) => tls.channel_binding(),
        }
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        match &mut this.inner {
            Inner::Plain(socket) => ready!(Pin::new(socket).poll_read(cx, buf))?,
            Inner::Tls(tls) => ready!(Pin::new(tls.as_mut()).poll_read(cx, buf))?,
        }
        if let Err(refused) = this.watch.feed(&buf.filled()[before..]) {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                refused,
            )));
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.inner {
            Inner::Plain(socket) => Pin::new(socket).poll_write(cx, buf),
            Inner::Tls(tls) => Pin::new(tls.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.inner {
            Inner::Plain(socket) => Pin::new(socket).poll_flush(cx),
            Inner::Tls(tls) => Pin::new(tls.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.inner {
            Inner::Plain(socket) => Pin::new(socket).poll_shutdown(cx),
            Inner::Tls(tls) => Pin::new(tls.as_mut()).poll_shutdown(cx),
        }
    }
}

/// The server's messages read as they pass, until `AuthenticationOk`: a type
/// byte, a length (itself included), a body; an `R` message's body opens with
/// the request's code.
#[derive(Debug)]
struct AuthWatch {
    policy: RequireAuth,
    header: [u8; 5],
    header_len: usize,
    body_left: usize,
    code: [u8; 4],
    code_len: usize,
    /// The method the server asked for; `None` until it asked.
    asked: Option<AuthMethod>,
    done: bool,
}

impl AuthWatch {
    fn new(policy: RequireAuth) -> Self {
        Self {
            policy,
            header: [0; 5],
            header_len: 0,
            body_left: 0,
            code: [0; 4],
            code_len: 0,
            asked: None,
            done: false,
        }
    }

    fn feed(&mut self, mut bytes: &[u8]) -> Result<(), AuthRefused> {
        while !self.done && !bytes.is_empty() {
            if self.header_len < 5 {
                let take = (5 - self.header_len).min(bytes.len());
                self.header[self.header_len..self.header_len + take]
                    .copy_from_slice(&bytes[..take]);
                self.header_len += take;
                bytes = &bytes[take..];
                if self.header_len == 5 {
                    let length = u32::from_be_bytes([
                        self.header[1],
                        self.header[2],
                        self.header[3],
                        self.header[4],
                    ]) as usize;
                    // A length below 4 is the driver's to refuse: stop watching.
                    self.body_left = length.saturating_sub(4);
                    self.code_len = 0;
                    if self.body_left == 0 {
                        self.header_len = 0;
                    }
                }
                continue;
            }
            if self.header[0] == b'R' && self.code_len < 4 {
                let take = (4 - self.code_len).min(bytes.len()).min(self.body_left);
                self.code[self.code_len..self.code_len + take].copy_from_slice(&bytes[..take]);
                self.code_len += take;
                self.body_left -= take;
                bytes = &bytes[take..];
                if self.code_len == 4 {
                    self.request(u32::from_be_bytes(self.code))?;
                }
            } else {
                let take = self.body_left.min(bytes.len());
                self.body_left -= take;
                bytes = &bytes[take..];
            }
            if self.body_left == 0 {
                self.header_len = 0;
            }
        }
        Ok(())
    }

    /// An authentication request (`R`) with its code.
    fn request(&mut self, code: u32) -> Result<(), AuthRefused> {
        let method = match code {
            0 => {
                let method = self.asked.unwrap_or(AuthMethod::None);
                self.done = true;
                method
            }
            3 => AuthMethod::Password,
            5 => AuthMethod::Md5,
            // SASL and its continue and final steps.
            10..=12 => AuthMethod::Scram,
            2 | 6..=9 => AuthMethod::Gss,
            // Unknown to the driver too: it refuses it.
            _ => return Ok(()),
        };
        self.asked.get_or_insert(method);
        if self.policy.allows(method) {
            Ok(())
        } else {
            Err(AuthRefused {
                asked: method,
                policy: self.policy,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(code: u32) -> Vec<u8> {
        let mut message = vec![b'R', 0, 0, 0, 8];
        message.extend_from_slice(&code.to_be_bytes());
        message
    }

    #[test]
    fn require_auth_reads_as_libpq_reads_it() {
        let default = RequireAuth::default();
        assert!(default.allows(AuthMethod::Scram) && default.allows(AuthMethod::None));
        assert!(!default.allows(AuthMethod::Password) && !default.allows(AuthMethod::Md5));
        let listed = RequireAuth::parse("scram-sha-256,password").unwrap();
        assert!(listed.allows(AuthMethod::Password) && !listed.allows(AuthMethod::None));
        let negated = RequireAuth::parse("!md5,!password").unwrap();
        assert!(negated.allows(AuthMethod::Scram) && !negated.allows(AuthMethod::Md5));
        assert!(RequireAuth::parse("password,!md5").is_err());
        assert!(RequireAuth::parse("plaintext").is_err());
    }

    #[test]
    fn a_request_split_across_reads_is_still_seen() {
        let mut stream = vec![b'N', 0, 0, 0, 6, b'x', b'y'];
        stream.extend(auth(3));
        for split in 0..stream.len() {
            let mut watch = AuthWatch::new(RequireAuth::default());
            let first = watch.feed(&stream[..split]);
            let second = first.and_then(|()| watch.feed(&stream[split..]));
            assert!(second.is_err(), "split at {split}");
        }
        let mut watch = AuthWatch::new(RequireAuth::default());
        let mechanisms = b"SCRAM-SHA-256\0\0";
        let mut sasl = vec![b'R', 0, 0, 0, (8 + mechanisms.len()) as u8, 0, 0, 0, 10];
        sasl.extend_from_slice(mechanisms);
        sasl.extend(auth(0));
        sasl.extend(auth(3)); // after AuthenticationOk: not watched
        assert!(watch.feed(&sasl).is_ok());
        assert!(watch.done);
    }
}
