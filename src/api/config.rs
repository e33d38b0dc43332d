//! [`ClientConfig`]: what a client is built from, and the checks on it that
//! need no network (the base URL).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;

use super::credentials::{ApiKey, AuthScheme};
use super::error::{ConfigError, one_line};
use super::events::EventCallback;
use super::model::API_VERSION;
use super::retry::RetryPolicy;
use super::sleeper::{Sleeper, TokioSleeper};

/// 32 MiB: a page of 100 items with every string at its longest is far
/// below it (DESIGN.md, "Every answer is capped").
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 32 * 1024 * 1024;

/// Everything a [`Client`](super::Client) needs. [`ClientConfig::new`] fills in the defaults.
#[derive(Clone)]
pub struct ClientConfig {
    /// e.g. `https://api.example.com`; `http://` only to a loopback host.
    pub base_url: String,
    pub credential: ApiKey,
    pub auth_scheme: AuthScheme,
    /// `Service-Version`; [`API_VERSION`] by default.
    pub api_version: String,
    /// `Service-Beta`, comma-joined; none by default.
    pub betas: Vec<String>,
    pub connect_timeout: Duration,
    /// Per attempt. Above the server's 60 s processing deadline by default, so
    /// a slow operation ends in its 503 rather than in our timeout.
    pub request_timeout: Duration,
    pub retry: RetryPolicy,
    /// The most one answer's body may hold; a larger one is refused unread
    /// (by its `Content-Length`) or as soon as the stream passes it.
    pub max_response_bytes: u64,
    /// The most items one walk over a list's pages reads, whatever `total`
    /// the service tells (`PageWalk::with_max_items`).
    pub max_walk_items: u64,
    /// Wait for `X-RateLimit-Reset` instead of drawing a 429.
    pub pacing: bool,
    pub user_agent: String,
    pub sleeper: Arc<dyn Sleeper>,
    /// Seeds the backoff jitter (tests); from the time when `None`.
    pub jitter_seed: Option<u64>,
    /// Called with every event, in the task that caused it.
    pub on_event: Option<EventCallback>,
}

impl ClientConfig {
    pub fn new(base_url: impl Into<String>, credential: ApiKey) -> Self {
        Self {
            base_url: base_url.into(),
            credential,
            auth_scheme: AuthScheme::default(),
            api_version: API_VERSION.to_owned(),
            betas: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(75),
            retry: RetryPolicy::default(),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            max_walk_items: super::page::DEFAULT_MAX_WALK_ITEMS,
            pacing: true,
            user_agent: format!("vantage/{}", env!("CARGO_PKG_VERSION")),
            sleeper: Arc::new(TokioSleeper),
            jitter_seed: None,
            on_event: None,
        }
    }
}

impl fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientConfig")
            .field("base_url", &self.base_url)
            .field("credential", &self.credential)
            .field("auth_scheme", &self.auth_scheme)
            .field("api_version", &self.api_version)
            .field("betas", &self.betas)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("retry", &self.retry)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("max_walk_items", &self.max_walk_items)
            .field("pacing", &self.pacing)
            .field("user_agent", &self.user_agent)
            .finish_non_exhaustive()
    }
}

/// `https://…`, or `http://` to a loopback host; no credentials, query or fragment.
pub fn validate_base_url(raw: &str) -> Result<Url, ConfigError> {
    let invalid = |reason: &str| ConfigError::InvalidBaseUrl {
        url: one_line(raw),
        reason: reason.to_owned(),
    };
    let url = Url::parse(raw.trim()).map_err(|err| invalid(&err.to_string()))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ConfigError::InvalidBaseUrl {
            url: "(hidden: it holds credentials)".into(),
            reason: "credentials do not belong in the URL; use an API key source".into(),
        });
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(invalid("it must not have a query or fragment"));
    }
    let host = url
        .host_str()
        .ok_or_else(|| invalid("it has no host"))?
        .to_owned();
    match url.scheme() {
        "https" => Ok(url),
        "http" => {
            if is_loopback_host(&host) {
                Ok(url)
            } else {
                Err(ConfigError::InsecureHttp { host })
            }
        }
        other => Err(invalid(&format!("scheme {other}:// is not http(s)"))),
    }
}

/// `localhost`, or an address in 127.0.0.0/8 or `::1`: a host whose traffic
/// stays on this machine. Plain http is allowed to it, and no proxy is used
/// for it.
pub fn is_loopback_host(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_matches(['[', ']'])
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_plain_http_to_remote_hosts() {
        for ok in [
            "https://api.example.com",
            "https://api.example.com/base/",
            "http://127.0.0.1:8080",
            "http://127.8.0.1",
            "http://localhost:3000",
            "http://[::1]:9000",
        ] {
            assert!(validate_base_url(ok).is_ok(), "{ok}");
        }
        assert_eq!(
            validate_base_url("http://api.example.com"),
            Err(ConfigError::InsecureHttp {
                host: "api.example.com".into()
            })
        );
        assert!(matches!(
            validate_base_url("http://10.0.0.5"),
            Err(ConfigError::InsecureHttp { .. })
        ));
        let with_password = validate_base_url("https://user:hunter2@api.example.com")
            .unwrap_err()
            .to_string();
        assert!(!with_password.contains("hunter2"), "{with_password}");
        for bad in ["ftp://x.example", "not a url", "https://x.example/?a=1"] {
            assert!(validate_base_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn config_debug_hides_the_key() {
        let config = ClientConfig::new(
            "https://api.example.com",
            ApiKey::new("vtg_super_secret").unwrap(),
        );
        let shown = format!("{config:?}");
        assert!(!shown.contains("super_secret"), "{shown}");
    }
}
