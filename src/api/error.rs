//! The client's one error type.
//!
//! [`ApiError`] separates what the service answered ([`ApiError::Api`]), what went
//! wrong on the way ([`ApiError::Transport`]), answers we could not read
//! ([`ApiError::Decode`]) and configuration we refused ([`ApiError::Config`]).
//! Its `Display` is one line a person can act on; it never holds the key.

use std::fmt::{self, Write as _};
use std::time::Duration;

use serde_json::{Map, Value};

use super::model::{ErrorType, FieldError};
use super::retry::RetryReason;

/// The `type` given to a 503 that is not the service's envelope (a proxy's
/// own answer): whether the service acted is unknown.
pub(crate) const SERVICE_UNAVAILABLE: &str = "service_unavailable";

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The service answered with its error envelope.
    #[error("{0}")]
    Api(Box<ErrorResponse>),
    /// No answer: connecting failed, the connection dropped, or it timed out.
    #[error("{0}")]
    Transport(Box<TransportError>),
    /// An answer we could not read: not JSON, truncated, or another shape.
    #[error("{0}")]
    Decode(Box<DecodeError>),
    /// A configuration the client refuses to use.
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// An answer that reads fine but breaks a promise of the contract in a way
    /// that would keep the client busy forever: paging that does not end, a
    /// page longer than asked, an answer over the size cap.
    #[error("{0}")]
    Protocol(Box<ProtocolError>),
}

/// An error answer of the service.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorResponse {
    pub status: u16,
    /// The `type` token; unknown types are kept in `ErrorType::Unknown`.
    pub kind: ErrorType,
    pub title: String,
    pub detail: Option<String>,
    /// From the body, else the `X-Request-Id` header.
    pub request_id: Option<String>,
    pub errors: Vec<FieldError>,
    pub props: Map<String, Value>,
    /// `Retry-After`, when the answer carried one.
    pub retry_after: Option<Duration>,
    pub method: String,
    pub path: String,
    /// A mutation whose effect is unknown: it may have been applied (503
    /// `request_timeout` on a non-idempotent operation).
    pub unknown_outcome: bool,
    /// An earlier attempt of this call had an unknown outcome, so this answer
    /// may describe the state after our own write (e.g. 404 after a delete).
    pub after_unknown_outcome: bool,
}

/// How a request failed without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    /// The connection could not be made; the request was not sent.
    Connect,
    /// The connection dropped or was reset while sending or reading.
    ConnectionDropped,
    /// The request timeout elapsed.
    Timeout,
    /// Anything else reqwest reports (e.g. a redirect loop).
    Other,
    /// The answer was larger than `max_response_bytes`: refused, not retried.
    TooLarge,
    /// The TLS handshake failed (a certificate not trusted, expired or for
    /// another host; a peer that does not speak TLS): not retried, as curl and
    /// Go's client do not, since the same certificate comes back every time.
    Tls,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportError {
    pub kind: TransportKind,
    /// Whether the server may have received (and acted on) the request.
    pub may_have_been_sent: bool,
    pub method: String,
    pub path: String,
    /// The underlying error chain, without the URL.
    pub message: String,
    /// A mutation whose effect is unknown (the request may have been applied).
    pub unknown_outcome: bool,
}

/// An answer that is not what the contract describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub status: u16,
    pub request_id: Option<String>,
    pub method: String,
    pub path: String,
    /// Where in the JSON it failed, e.g. `data[3].review_priority` (`.` at the root).
    pub json_path: String,
    pub message: String,
    /// The start of the body, with control characters replaced, for a person to
    /// recognise e.g. a proxy's HTML error page.
    pub body_start: String,
}

/// See [`ApiError::Protocol`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolError {
    /// What vantage was doing, e.g. `list_inventory`.
    pub operation: String,
    pub method: String,
    pub path: String,
    /// What the service did, for a person.
    pub message: String,
}

/// Refused configuration. It never holds the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error(
        "refusing plain http:// to {host}: the API key would travel unencrypted; use https:// (http:// is allowed only for loopback hosts)"
    )]
    InsecureHttp { host: String },
    #[error("base URL {url:?} is not usable: {reason}")]
    InvalidBaseUrl { url: String, reason: String },
    #[error("invalid credential: {0}")]
    InvalidCredential(&'static str),
    #[error("invalid {name} header value {value:?}")]
    InvalidHeader { name: &'static str, value: String },
    #[error("invalid {name}: it {reason}")]
    InvalidArgument {
        name: &'static str,
        reason: &'static str,
    },
    #[error("cannot build the HTTP client: {0}")]
    HttpClient(String),
}

impl ApiError {
    /// The error envelope, when the service answered with one.
    pub fn response(&self) -> Option<&ErrorResponse> {
        match self {
            Self::Api(response) => Some(response),
            _ => None,
        }
    }

    /// The `type` token of an API error.
    pub fn kind(&self) -> Option<&ErrorType> {
        self.response().map(|r| &r.kind)
    }

    /// The HTTP status, when there was an answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Api(r) => Some(r.status),
            Self::Decode(d) => Some(d.status),
            _ => None,
        }
    }

    pub fn request_id(&self) -> Option<&str> {
        match self {
            Self::Api(r) => r.request_id.as_deref(),
            Self::Decode(d) => d.request_id.as_deref(),
            _ => None,
        }
    }

    /// A mutation that may or may not have been applied: check the resource
    /// before trying again.
    pub fn is_unknown_outcome(&self) -> bool {
        match self {
            Self::Api(r) => r.unknown_outcome,
            Self::Transport(t) => t.unknown_outcome,
            _ => false,
        }
    }

    /// Whether this failure is one the transport retries (429, 503
    /// `request_timeout`, a connection that failed, dropped or timed out), and
    /// whether the server may have acted on the request. Coming back to the
    /// caller, such an error means the retries ran out, or that a mutation's
    /// outcome is unknown: a mutation then reads back its goal state.
    pub fn retry_reason(&self) -> Option<(RetryReason, bool)> {
        match self {
            Self::Api(response) if response.status == 429 => {
                Some((RetryReason::RateLimited, false))
            }
            Self::Api(response)
                if response.status == 503 && response.kind == ErrorType::RequestTimeout =>
            {
                Some((RetryReason::RequestTimeout, true))
            }
            // A proxy's own 503: whether the service acted is unknown too.
            Self::Api(response)
                if response.status == 503
                    && response.kind == ErrorType::Unknown(SERVICE_UNAVAILABLE.into()) =>
            {
                Some((RetryReason::Unavailable, true))
            }
            Self::Transport(transport) => match transport.kind {
                TransportKind::Connect => Some((RetryReason::Connect, false)),
                TransportKind::ConnectionDropped => Some((RetryReason::ConnectionDropped, true)),
                TransportKind::Timeout => Some((RetryReason::Timeout, true)),
                TransportKind::Other | TransportKind::TooLarge | TransportKind::Tls => None,
            },
            _ => None,
        }
    }

    /// See [`ApiError::retry_reason`].
    pub fn is_transient(&self) -> bool {
        self.retry_reason().is_some()
    }

    /// `props.required_scopes` of `insufficient_scope`: any one suffices.
    pub fn required_scopes(&self) -> Vec<String> {
        self.prop_strings("required_scopes")
    }

    /// `props.required_plan` of a plan gate: `pro`, `business` or `enterprise`.
    pub fn required_plan(&self) -> Option<&str> {
        self.prop("required_plan").and_then(Value::as_str)
    }

    /// `props.required_features` of a feature gate: all are required.
    pub fn required_features(&self) -> Vec<String> {
        self.prop_strings("required_features")
    }

    /// `props.migration_url` of `retired_version` and `retired_beta`.
    pub fn migration_url(&self) -> Option<&str> {
        self.prop("migration_url").and_then(Value::as_str)
    }

    /// `props.finding_refs` of `security_critical_findings`.
    pub fn finding_refs(&self) -> Vec<String> {
        self.prop_strings("finding_refs")
    }

    /// `props.required_permissions` of `forbidden`: any one set suffices.
    pub fn required_permissions(&self) -> Vec<Vec<String>> {
        self.prop("required_permissions")
            .and_then(Value::as_array)
            .map(|sets| sets.iter().map(strings).collect())
            .unwrap_or_default()
    }

    fn prop(&self, name: &str) -> Option<&Value> {
        self.response().and_then(|r| r.props.get(name))
    }

    fn prop_strings(&self, name: &str) -> Vec<String> {
        self.prop(name).map(strings).unwrap_or_default()
    }

    pub(crate) fn transport(error: TransportError) -> Self {
        Self::Transport(Box::new(error))
    }

    pub(crate) fn decode(error: DecodeError) -> Self {
        Self::Decode(Box::new(error))
    }

    /// Marks a mutation's error as "may have been applied".
    pub(crate) fn mark_unknown_outcome(mut self) -> Self {
        match &mut self {
            Self::Api(r) => r.unknown_outcome = true,
            Self::Transport(t) => t.unknown_outcome = true,
            _ => {}
        }
        self
    }

    pub(crate) fn mark_after_unknown_outcome(mut self) -> Self {
        if let Self::Api(r) = &mut self {
            r.after_unknown_outcome = true;
        }
        self
    }
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

impl ErrorResponse {
    /// What a person can do about it, from the type and `props`.
    fn hint(&self) -> Option<String> {
        let list = |name: &str| {
            self.props
                .get(name)
                .map(strings)
                .filter(|items| !items.is_empty())
                .map(|items| items.join(", "))
        };
        match &self.kind {
            ErrorType::Unauthorized => Some(
                "check the API key (--api-key-env, SERVICE_API_KEY, api_key_command or api_key in the config file)".into(),
            ),
            ErrorType::InsufficientScope => {
                list("required_scopes").map(|s| format!("the key needs one of the scopes: {s}"))
            }
            ErrorType::PaymentRequired => {
                if let Some(plan) = self.props.get("required_plan").and_then(Value::as_str) {
                    Some(format!("needs the {plan} plan"))
                } else {
                    list("required_features").map(|f| format!("needs the workspace features: {f}"))
                }
            }
            ErrorType::SecurityCriticalFindings => {
                list("finding_refs").map(|f| format!("blocking findings: {f}"))
            }
            ErrorType::UnknownVersion | ErrorType::NoSupportedVersion => Some(
                "the server does not serve the pinned API version; change api_version in the config".into(),
            ),
            ErrorType::RetiredVersion | ErrorType::RetiredBeta => Some(
                match self.props.get("migration_url").and_then(Value::as_str) {
                    Some(url) => format!("migrate: {url}"),
                    None => "pin a supported version in the config".into(),
                },
            ),
            ErrorType::RateLimited => self
                .retry_after
                .map(|wait| format!("retry after {} s", wait.as_secs_f64().ceil())),
            _ => None,
        }
    }
}

impl fmt::Display for ErrorResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, |line| self.write_unescaped(line))
    }
}

impl ErrorResponse {
    fn write_unescaped(&self, f: &mut String) -> fmt::Result {
        write!(f, "{} (HTTP {})", self.kind, self.status)?;
        match &self.detail {
            // The contract's detail for this type speaks of mutations; a read
            // changed nothing, so what the client knows is said instead.
            Some(_) if self.kind == ErrorType::RequestTimeout && self.method == "GET" => write!(
                f,
                ": the processing deadline expired; a read changes nothing"
            )?,
            Some(detail) => write!(f, ": {detail}")?,
            None => write!(f, ": {}", self.title)?,
        }
        for error in &self.errors {
            match &error.location {
                Some(location) => write!(f, "; {}: {}", location, error.message)?,
                None => write!(f, "; {}", error.message)?,
            }
        }
        let said = |phrase: &str| {
            self.detail
                .as_deref()
                .is_some_and(|detail| detail.to_lowercase().contains(&phrase.to_lowercase()))
        };
        // Say each thing once: the server's detail may already hold the hint.
        if let Some(hint) = self.hint().filter(|hint| !said(hint)) {
            write!(f, "; {hint}")?;
        }
        if self.unknown_outcome {
            if said("before retrying") {
                write!(f, "; the change may or may not have been applied")?;
            } else {
                write!(f, "; {UNKNOWN_OUTCOME}")?;
            }
        }
        write!(f, " [{} {}", self.method, self.path)?;
        if let Some(id) = &self.request_id {
            write!(f, ", request_id {id}")?;
        }
        write!(f, "]")
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, |line| self.write_unescaped(line))
    }
}

impl TransportError {
    fn write_unescaped(&self, f: &mut String) -> fmt::Result {
        let what = match self.kind {
            TransportKind::Connect => "cannot connect",
            TransportKind::ConnectionDropped => "connection dropped",
            TransportKind::Timeout => "request timed out",
            TransportKind::Other => "request failed",
            TransportKind::TooLarge => "answer too large",
            TransportKind::Tls => "TLS handshake failed",
        };
        write!(
            f,
            "{what} ({}) [{} {}]",
            self.message, self.method, self.path
        )?;
        if self.unknown_outcome {
            write!(f, "; {UNKNOWN_OUTCOME}")?;
        }
        Ok(())
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, |line| self.write_unescaped(line))
    }
}

impl DecodeError {
    fn write_unescaped(&self, f: &mut String) -> fmt::Result {
        write!(
            f,
            "unreadable answer (HTTP {}) at {}: {}",
            self.status, self.json_path, self.message
        )?;
        if !self.body_start.is_empty() {
            write!(f, "; body starts \"{}\"", self.body_start)?;
        }
        write!(f, " [{} {}", self.method, self.path)?;
        if let Some(id) = &self.request_id {
            write!(f, ", request_id {id}")?;
        }
        write!(f, "]")
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} [{} {}]",
            self.operation,
            one_line(&self.message),
            self.method,
            self.path
        )
    }
}

const UNKNOWN_OUTCOME: &str = "the change may or may not have been applied, check before retrying";

/// Server text shown on one line, with control characters (and so terminal
/// escape sequences), bidi controls and other invisible characters made visible
/// instead of interpreted.
pub(crate) fn one_line(text: &str) -> String {
    crate::text::escape_invisible(text).into_owned()
}

/// The error on one line, with control characters (and so terminal escape
/// sequences), bidi controls and other invisible characters made visible
/// instead of interpreted: escaped whole, so no field of the envelope (an
/// unknown `type`, `request_id`, a location, every `props` string) is missed.
fn write_escaped(
    f: &mut fmt::Formatter<'_>,
    write: impl FnOnce(&mut String) -> fmt::Result,
) -> fmt::Result {
    let mut line = String::new();
    write(&mut line)?;
    f.write_str(&crate::text::escape_invisible(&line))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn response(kind: ErrorType, props: Value) -> ErrorResponse {
        ErrorResponse {
            status: 403,
            kind,
            title: "Insufficient scope".into(),
            detail: Some("the API key lacks a scope".into()),
            request_id: Some("req_1".into()),
            errors: vec![],
            props: props.as_object().cloned().unwrap_or_default(),
            retry_after: None,
            method: "PATCH".into(),
            path: "/v1/projects/p1".into(),
            unknown_outcome: false,
            after_unknown_outcome: false,
        }
    }

    #[test]
    fn accessors_read_props() {
        let error = ApiError::Api(Box::new(response(
            ErrorType::InsufficientScope,
            json!({"required_scopes": ["projects:write"], "required_plan": "enterprise",
                   "required_features": ["security_center", "pii_detection"],
                   "migration_url": "https://m", "finding_refs": ["a", "b"],
                   "required_permissions": [["x", "y"], ["z"]], "extra": 1}),
        )));
        assert_eq!(error.required_scopes(), ["projects:write"]);
        assert_eq!(error.required_plan(), Some("enterprise"));
        assert_eq!(
            error.required_features(),
            ["security_center", "pii_detection"]
        );
        assert_eq!(error.migration_url(), Some("https://m"));
        assert_eq!(error.finding_refs(), ["a", "b"]);
        assert_eq!(
            error.required_permissions(),
            vec![vec!["x".to_owned(), "y".to_owned()], vec!["z".to_owned()]]
        );
        assert_eq!(error.status(), Some(403));
        assert_eq!(error.request_id(), Some("req_1"));
    }

    #[test]
    fn display_is_one_actionable_line() {
        let error = ApiError::Api(Box::new(response(
            ErrorType::InsufficientScope,
            json!({"required_scopes": ["projects:write"]}),
        )));
        assert_eq!(
            error.to_string(),
            "insufficient_scope (HTTP 403): the API key lacks a scope; the key needs one of \
             the scopes: projects:write [PATCH /v1/projects/p1, request_id req_1]"
        );
        let mut unknown = response(ErrorType::Unknown("brand_new".into()), json!({}));
        unknown.detail = Some("line one\nline two \u{1b}[31m".into());
        let shown = ApiError::Api(Box::new(unknown)).to_string();
        assert!(shown.starts_with("brand_new (HTTP 403): line one\\nline two \\x1b[31m"));
        assert!(!shown.contains('\n') && !shown.contains('\u{1b}'));
    }

    #[test]
    fn nothing_is_said_twice() {
        let mut limited = response(ErrorType::RateLimited, json!({}));
        limited.status = 429;
        limited.detail = Some("retry after 1 s".into());
        limited.retry_after = Some(Duration::from_secs(1));
        let shown = ApiError::Api(Box::new(limited)).to_string();
        assert_eq!(shown.matches("retry after 1 s").count(), 1, "{shown}");

        let mut timeout = response(ErrorType::RequestTimeout, json!({}));
        timeout.status = 503;
        timeout.detail = Some(
            "the processing deadline expired; a mutation may still complete, so check the resource before retrying".into(),
        );
        timeout.unknown_outcome = true;
        let shown = ApiError::Api(Box::new(timeout)).to_string();
        assert_eq!(shown.matches("before retrying").count(), 1, "{shown}");
        assert!(
            shown.contains("may or may not have been applied"),
            "{shown}"
        );
    }

    #[test]
    fn a_timed_out_read_does_not_speak_of_mutations() {
        let mut timeout = response(ErrorType::RequestTimeout, json!({}));
        timeout.status = 503;
        timeout.method = "GET".into();
        timeout.detail = Some("a mutation may still complete, so check the resource".into());
        let shown = ApiError::Api(Box::new(timeout)).to_string();
        assert!(!shown.contains("mutation"), "{shown}");
        assert!(
            shown.starts_with("request_timeout (HTTP 503): the processing deadline expired"),
            "{shown}"
        );
    }
}
