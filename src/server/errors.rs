//! The server's one error type. Handlers return it; the pipeline renders it into
//! the contract's envelope, with the request id, in one place.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::api::model::{ErrorBody, ErrorType, FieldError};

/// The server's HTTP error: an error answer of the API, before the request id
/// is known. (The client's view of such an answer is `api::ApiError`.)
#[derive(Debug, Clone)]
pub struct HttpError {
    pub status: StatusCode,
    pub kind: ErrorType,
    /// `Retry-After` seconds, for 429.
    pub retry_after: Option<u64>,
    /// Boxed to keep `Result<_, HttpError>` small on the hot path.
    text: Box<ErrorText>,
}

#[derive(Debug, Clone)]
struct ErrorText {
    title: String,
    detail: Option<String>,
    errors: Option<Vec<FieldError>>,
    props: Option<Map<String, Value>>,
}

impl HttpError {
    pub fn new(status: StatusCode, kind: ErrorType, title: impl Into<String>) -> Self {
        Self {
            status,
            kind,
            retry_after: None,
            text: Box::new(ErrorText {
                title: title.into(),
                detail: None,
                errors: None,
                props: None,
            }),
        }
    }

    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        self.text.detail = Some(detail.into());
        self
    }

    pub fn prop(mut self, key: &str, value: Value) -> Self {
        self.text
            .props
            .get_or_insert_with(Map::new)
            .insert(key.to_owned(), value);
        self
    }

    /// 400 `invalid_request`, `validation failed`, with field errors.
    pub fn validation(errors: Vec<FieldError>) -> Self {
        let mut error = Self::new(
            StatusCode::BAD_REQUEST,
            ErrorType::InvalidRequest,
            "Invalid request",
        )
        .detail("validation failed");
        error.text.errors = Some(errors);
        error
    }

    /// 400 `invalid_request` for one field.
    pub fn invalid(location: impl Into<String>, message: impl Into<String>) -> Self {
        Self::validation(vec![field_error(location, message)])
    }

    pub fn unauthorized(detail: &str) -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            ErrorType::Unauthorized,
            "Unauthorized",
        )
        .detail(detail)
    }

    pub fn insufficient_scope(acceptable: &[&str]) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            ErrorType::InsufficientScope,
            "Insufficient scope",
        )
        .detail("the API key lacks a scope this operation needs")
        .prop("required_scopes", json!(acceptable))
    }

    pub fn plan_required(plan: &str) -> Self {
        Self::new(
            StatusCode::PAYMENT_REQUIRED,
            ErrorType::PaymentRequired,
            "Payment required",
        )
        .detail(format!("this operation needs the {plan} plan or higher"))
        .prop("required_plan", json!(plan))
    }

    pub fn features_required(features: &[&str]) -> Self {
        Self::new(
            StatusCode::PAYMENT_REQUIRED,
            ErrorType::PaymentRequired,
            "Payment required",
        )
        .detail(format!(
            "this operation needs the workspace feature {}",
            features.join(", ")
        ))
        .prop("required_features", json!(features))
    }

    pub fn not_found(kind: ErrorType, title: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, kind, title)
    }

    pub fn project_not_found() -> Self {
        Self::not_found(ErrorType::ProjectNotFound, "Project not found")
    }

    pub fn workspace_not_found() -> Self {
        Self::not_found(ErrorType::WorkspaceNotFound, "Workspace not found")
    }

    pub fn rate_limited(retry_after: u64) -> Self {
        let mut error = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorType::RateLimited,
            "Rate limit exceeded",
        )
        .detail(format!("retry after {retry_after} s"));
        error.retry_after = Some(retry_after);
        error
    }

    pub fn request_timeout() -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorType::RequestTimeout,
            "Request timeout",
        )
        .detail("the processing deadline expired; a mutation may still complete, so check the resource before retrying")
    }

    pub fn internal(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorType::InternalError,
            "Internal error",
        )
        .detail(detail)
    }

    /// The envelope, with every field present, in the contract's order.
    pub fn body(&self, request_id: &str) -> ErrorBody {
        ErrorBody {
            kind: self.kind.clone(),
            title: self.text.title.clone(),
            status: self.status.as_u16(),
            request_id: request_id.to_owned(),
            detail: self.text.detail.clone(),
            errors: self.text.errors.clone(),
            props: self.text.props.clone(),
        }
    }
}

pub fn field_error(location: impl Into<String>, message: impl Into<String>) -> FieldError {
    FieldError {
        message: message.into(),
        location: Some(location.into()),
    }
}

impl IntoResponse for HttpError {
    /// The body is written by the pipeline, which knows the request id: the
    /// error travels to it as a response extension.
    fn into_response(self) -> Response {
        let mut response = self.status.into_response();
        response.extensions_mut().insert(self);
        response
    }
}

/// Store failures surface as 500s with a generic message; the cause goes to the log.
impl From<super::store::StoreError> for HttpError {
    fn from(err: super::store::StoreError) -> Self {
        tracing::error!(error = %err, "store failure");
        Self::internal("the store failed; see the server log")
    }
}
