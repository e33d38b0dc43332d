use serde::{Deserialize, Serialize};

use crate::open_enum;

open_enum! {
    /// The error `type` token. Branch on it, never on `title`.
    pub enum ErrorType {
        InvalidRequest => "invalid_request",
        UnknownVersion => "unknown_version",
        UnknownBeta => "unknown_beta",
        UnsupportedBetaVersion => "unsupported_beta_version",
        ConflictingBetas => "conflicting_betas",
        Unauthorized => "unauthorized",
        PaymentRequired => "payment_required",
        Forbidden => "forbidden",
        InsufficientScope => "insufficient_scope",
        EmailNotVerified => "email_not_verified",
        SecurityCriticalFindings => "security_critical_findings",
        ProjectNotFound => "project_not_found",
        WorkspaceNotFound => "workspace_not_found",
        MemberNotFound => "member_not_found",
        AnalyticsNotFound => "analytics_not_found",
        PiiLabelsNotFound => "pii_labels_not_found",
        NotAcceptable => "not_acceptable",
        RetiredVersion => "retired_version",
        RetiredBeta => "retired_beta",
        RateLimited => "rate_limited",
        RequestTimeout => "request_timeout",
        NoSupportedVersion => "no_supported_version",
        /// Our own: a deployment id unknown for the project.
        DeploymentNotFound => "deployment_not_found",
        /// A security scan id unknown for the project (the real service's
        /// reference, DESIGN.md).
        SecurityScanNotFound => "security_scan_not_found",
        /// Our own: a route that does not exist.
        NotFound => "not_found",
        /// Our own: a route that exists, with another method.
        MethodNotAllowed => "method_not_allowed",
        /// Our own: the server failed unexpectedly.
        InternalError => "internal_error",
    }
}

/// One field error of `errors`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    pub message: String,
    #[serde(default)]
    pub location: Option<String>,
}

/// The error envelope; every field is always present on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    #[serde(rename = "type")]
    pub kind: ErrorType,
    pub title: String,
    pub status: u16,
    pub request_id: String,
    #[serde(default)]
    pub detail: Option<String>,
    #[serde(default)]
    pub errors: Option<Vec<FieldError>>,
    #[serde(default)]
    pub props: Option<serde_json::Map<String, serde_json::Value>>,
}
