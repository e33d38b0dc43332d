//! An error as the dashboard shows it: what a person can act on, and the gate
//! (plan, feature, scope, …) that explains a refusal.

use time::OffsetDateTime;

use crate::api::ApiError;
use crate::api::model::{ErrorType, FieldError};
use crate::clock::Clock;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// 402 with `required_plan`.
    Plan(String),
    /// 402 with `required_features`.
    Features(Vec<String>),
    /// 403 `insufficient_scope` with `required_scopes`.
    Scopes(Vec<String>),
    /// A 404 that means a feature is off (e.g. `pii_labels_not_found`).
    FeatureOff(String),
    /// A 404 whose type stands for more than one cause: what the service
    /// said, and each cause it may mean, never one picked for it.
    NotFound(String),
    /// 400 `invalid_request` with field errors: what to fix, field by field.
    Fields(Vec<FieldError>),
    /// `security_critical_findings`: the findings that block publishing.
    BlockingFindings(Vec<String>),
}

impl Gate {
    /// One line for the screen. Plans, features, scopes, locations and finding
    /// refs are the service's words: the dashboard's rule applies here, before
    /// any screen or the error log shows them.
    pub fn explain(&self) -> String {
        crate::text::sanitize_line(&self.explain_unescaped()).into_owned()
    }

    fn explain_unescaped(&self) -> String {
        match self {
            Gate::Plan(plan) => {
                format!("This needs the {plan} plan. Ask a workspace owner to upgrade.")
            }
            Gate::Features(features) => format!(
                "This needs the workspace feature{} {}.",
                if features.len() == 1 { "" } else { "s" },
                features.join(", ")
            ),
            Gate::Scopes(scopes) => format!(
                "The API key lacks a scope: create a key with {}.",
                scopes.join(" or ")
            ),
            Gate::FeatureOff(kind) => {
                format!("The feature is not enabled for this workspace ({kind}).")
            }
            Gate::NotFound(said) => said.clone(),
            Gate::Fields(fields) => {
                let each: Vec<String> = fields
                    .iter()
                    .map(|field| match &field.location {
                        Some(location) => format!("{location}: {}", field.message),
                        None => field.message.clone(),
                    })
                    .collect();
                format!("The server refused the input: {}.", each.join("; "))
            }
            Gate::BlockingFindings(refs) => format!(
                "Publishing is blocked by critical security findings: {}. Resolve them first.",
                refs.join(", ")
            ),
        }
    }
}

/// What kind of error an [`ErrorInfo`] is: the service's `type`, or one of
/// the dashboard's own. Code branches on it, never on its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The service's error `type`.
    Service(ErrorType),
    /// The history is out of reach (the shared database is down): the App
    /// retries with backoff.
    HistoryAway,
    /// The shared database kept the request waiting past `lock_timeout_secs`
    /// or `statement_timeout_secs` (a teammate's lock): away as
    /// [`ErrorKind::HistoryAway`] is, said as waiting.
    HistoryWaiting,
    /// The dashboard's own request budget ran out.
    RequestBudget,
}

impl ErrorKind {
    /// The token shown beside the error (`type project_not_found`).
    pub fn as_str(&self) -> &str {
        match self {
            Self::Service(kind) => kind.as_str(),
            Self::HistoryAway => "history_unreachable",
            Self::HistoryWaiting => "history_waiting",
            Self::RequestBudget => "request_budget",
        }
    }

    /// Whether the history is away or kept it waiting: worth retrying later.
    pub fn is_history_away(&self) -> bool {
        matches!(self, Self::HistoryAway | Self::HistoryWaiting)
    }
}

impl From<ErrorType> for ErrorKind {
    fn from(kind: ErrorType) -> Self {
        Self::Service(kind)
    }
}

/// A service's `type` as sent (an unknown one kept).
impl From<&str> for ErrorKind {
    fn from(raw: &str) -> Self {
        Self::Service(ErrorType::parse(raw))
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error as the TUI shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorInfo {
    pub status: Option<u16>,
    pub kind: Option<ErrorKind>,
    pub detail: Option<String>,
    pub request_id: Option<String>,
    /// One line a person can act on.
    pub summary: String,
    pub gate: Option<Gate>,
    pub at: OffsetDateTime,
}

impl ErrorInfo {
    /// A failure that is not the service's answer (a local file, connecting
    /// to another context): what happened, and when.
    pub fn local(summary: String, at: OffsetDateTime) -> Self {
        Self {
            status: None,
            kind: None,
            detail: None,
            request_id: None,
            summary,
            gate: None,
            at,
        }
    }

    /// Whether the service answered with this `type`.
    pub fn is_service(&self, wanted: ErrorType) -> bool {
        self.kind == Some(ErrorKind::Service(wanted))
    }

    /// The token shown for the kind, `error` when there is none.
    pub fn kind_str(&self) -> &str {
        self.kind.as_ref().map_or("error", ErrorKind::as_str)
    }
}

/// What 404 `analytics_not_found` may mean.
pub const ANALYTICS_NOT_FOUND: &str = "No analytics (404 analytics_not_found): the project is not published, or it is gone or not visible to this key.";
/// What 404 `pii_labels_not_found` may mean.
pub const PII_NOT_FOUND: &str = "No personal-data findings (404 pii_labels_not_found): detection is off for this workspace, or the project is gone.";

/// The error as the TUI shows it, with what a gate needs spelled out.
pub fn error_info(error: &ApiError, clock: &Clock) -> ErrorInfo {
    let kind = error.kind();
    let gate = if let Some(plan) = error.required_plan() {
        Some(Gate::Plan(plan.to_owned()))
    } else if !error.required_features().is_empty() {
        Some(Gate::Features(error.required_features()))
    } else if !error.required_scopes().is_empty() {
        Some(Gate::Scopes(error.required_scopes()))
    } else {
        match kind {
            // Each 404 type stands for a missing project too (DESIGN.md, "404
            // types"): the words name every cause it may mean.
            Some(ErrorType::PiiLabelsNotFound) => Some(Gate::NotFound(PII_NOT_FOUND.into())),
            Some(ErrorType::AnalyticsNotFound) => Some(Gate::NotFound(ANALYTICS_NOT_FOUND.into())),
            Some(ErrorType::SecurityCriticalFindings) => {
                Some(Gate::BlockingFindings(error.finding_refs()))
            }
            Some(ErrorType::InvalidRequest)
                if error.response().is_some_and(|r| !r.errors.is_empty()) =>
            {
                error.response().map(|r| Gate::Fields(r.errors.clone()))
            }
            _ => None,
        }
    };
    ErrorInfo {
        status: error.status(),
        kind: kind.cloned().map(ErrorKind::Service),
        detail: error.response().and_then(|r| r.detail.clone()),
        request_id: error.request_id().map(str::to_owned),
        summary: error.to_string(),
        gate,
        at: clock.now(),
    }
}
