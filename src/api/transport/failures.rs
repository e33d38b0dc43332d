//! What a failed exchange becomes: the service's error envelope read into
//! [`ApiError::Api`] (a proxy's 429 or 503 page too), and the transport's own
//! failures described on one line.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::super::error::{ApiError, ErrorResponse, SERVICE_UNAVAILABLE, one_line};
use super::super::model::{ErrorType, FieldError};
use super::Answer;

/// The error envelope, read leniently: only `type` is needed. Anything else is a
/// decode error (e.g. a proxy's HTML page).
pub(super) fn error_from(answer: Answer, retry_after: Option<Duration>) -> ApiError {
    #[derive(Deserialize)]
    struct Envelope {
        #[serde(rename = "type")]
        kind: ErrorType,
        #[serde(default)]
        title: Option<String>,
        #[serde(default)]
        detail: Option<String>,
        #[serde(default)]
        request_id: Option<String>,
        #[serde(default)]
        errors: Option<Vec<Value>>,
        #[serde(default)]
        props: Option<Map<String, Value>>,
    }
    let envelope: Envelope = match answer.decode() {
        Ok(envelope) => envelope,
        Err(ApiError::Decode(decode)) if matches!(answer.status, 429 | 503) => {
            return proxy_refusal(answer, retry_after, &decode.body_start);
        }
        Err(ApiError::Decode(mut decode)) => {
            decode.message = format!("not the error envelope: {}", decode.message);
            return ApiError::Decode(decode);
        }
        Err(other) => return other,
    };
    let errors = envelope
        .errors
        .unwrap_or_default()
        .into_iter()
        .map(|value| FieldError {
            message: value
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("(no message)")
                .to_owned(),
            location: value
                .get("location")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
        .collect();
    ApiError::Api(Box::new(ErrorResponse {
        status: answer.status,
        title: envelope.title.unwrap_or_else(|| envelope.kind.to_string()),
        kind: envelope.kind,
        detail: envelope.detail,
        request_id: envelope.request_id.or(answer.request_id),
        errors,
        props: envelope.props.unwrap_or_default(),
        retry_after,
        method: answer.method.to_string(),
        path: answer.path,
        unknown_outcome: false,
        after_unknown_outcome: false,
    }))
}

/// A 429 or 503 whose body is not the error envelope: a proxy's or a load
/// balancer's own page. The status is what counts, as for curl's `--retry`
/// and Go's client-go, so it is retried like the service's own.
fn proxy_refusal(answer: Answer, retry_after: Option<Duration>, body_start: &str) -> ApiError {
    let (kind, title) = if answer.status == 429 {
        (ErrorType::RateLimited, "Too Many Requests")
    } else {
        (
            ErrorType::Unknown(SERVICE_UNAVAILABLE.into()),
            "Service Unavailable",
        )
    };
    ApiError::Api(Box::new(ErrorResponse {
        status: answer.status,
        kind,
        title: title.into(),
        detail: Some(format!(
            "the answer is not the service's error envelope (a proxy's?); body starts \"{body_start}\""
        )),
        request_id: answer.request_id,
        errors: Vec::new(),
        props: Map::new(),
        retry_after,
        method: answer.method.to_string(),
        path: answer.path,
        unknown_outcome: false,
        after_unknown_outcome: false,
    }))
}

/// Whether a connect error is the TLS handshake's: rustls reports a
/// certificate it refuses, or bytes that are not TLS, as an I/O error of kind
/// `InvalidData` (wrapped in another by the connector); a refused or reset
/// connection has another kind.
pub(super) fn is_tls_failure(error: &reqwest::Error) -> bool {
    fn invalid_data(io: &std::io::Error) -> bool {
        io.kind() == std::io::ErrorKind::InvalidData
            || io
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<std::io::Error>())
                .is_some_and(invalid_data)
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(invalid_data)
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// The error and its causes on one line, without the URL.
pub(super) fn error_chain(error: &reqwest::Error) -> String {
    let mut message = error.to_string();
    if let Some(url) = error.url() {
        message = message.replace(&format!(" for url ({url})"), "");
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    one_line(&message)
}

/// The first 120 characters of a body, control characters made visible.
pub(super) fn body_start(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(480)]);
    one_line(&text.chars().take(120).collect::<String>())
}

/// Whether a request failed because its connection closed before any
/// answer came (hyper's "connection closed before message completed", or a
/// reset): what a pooled connection closed by the server as it was reused
/// looks like. A failure to connect is not this.
pub(super) fn dropped_before_answer(error: &reqwest::Error) -> bool {
    if error.is_connect() || error.is_timeout() {
        return false;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(cause) = source {
        if cause
            .downcast_ref::<hyper::Error>()
            .is_some_and(hyper::Error::is_incomplete_message)
        {
            return true;
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::BrokenPipe
            )
        {
            return true;
        }
        source = cause.source();
    }
    false
}
