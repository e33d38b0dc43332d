//! What can end a script command, and the exit code each gets. The codes are
//! documented in the README ("Commands for scripts"); [`exit_code`] is the one
//! place that maps errors to them.

use crate::api::{ApiError, ConfigError};
use crate::formats::OutputError;

use crate::session::SessionError;

/// Success.
pub const OK: u8 = 0;
/// Anything not listed below.
pub const FAILURE: u8 = 1;
/// A usage error: clap's own, or an argument refused before sending.
pub const USAGE: u8 = 2;
/// Credential, scope, plan or permission (401, 402, 403), missing
/// credentials or configuration, and mutations refused in read-only mode.
pub const ACCESS: u8 = 3;
/// The resource does not exist (404).
pub const NOT_FOUND: u8 = 4;
/// Still rate limited (429) after every retry.
pub const RATE_LIMITED: u8 = 5;
/// `changes --fail-on`: a change of a listed kind occurred.
pub const CHANGES_FOUND: u8 = 6;
/// The shared history database cannot be reached (down, refused, the
/// connection lost): worth retrying later, unlike a refusal.
pub const HISTORY_UNREACHABLE: u8 = 7;
/// A temporary failure worth retrying later (sysexits' `EX_TEMPFAIL`):
/// `snapshot --lock-timeout` passed while another job held the lock.
pub const TEMPFAIL: u8 = 75;

/// Every exit code and what it means, for the manual's EXIT STATUS.
pub const EXIT_CODES: &[(u8, &str)] = &[
    (OK, "success (a job that had nothing to record too)"),
    (FAILURE, "any failure not listed below"),
    (
        USAGE,
        "a usage error: a flag or an argument refused before sending",
    ),
    (
        ACCESS,
        "the key, a scope, the plan or a permission (401, 402, 403); missing credentials or configuration; a mutation refused in read-only mode",
    ),
    (
        NOT_FOUND,
        "the resource does not exist (404), or the snapshot asked for is not in the history",
    ),
    (RATE_LIMITED, "still rate limited (429) after every retry"),
    (
        CHANGES_FOUND,
        "changes --fail-on: a change of a listed kind occurred",
    ),
    (
        HISTORY_UNREACHABLE,
        "the shared history database cannot be reached: worth retrying later",
    ),
    (
        TEMPFAIL,
        "snapshot --lock-timeout passed while another snapshot held the lock (EX_TEMPFAIL): worth retrying later",
    ),
];

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Api(#[from] ApiError),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("{0}")]
    Usage(String),
    #[error("read-only mode ({origin}): refusing to {action}; nothing was sent")]
    ReadOnly {
        action: String,
        /// `--read-only` or the config file.
        origin: String,
    },
    #[error("deployment {id} failed{class}: {message}")]
    DeploymentFailed {
        id: String,
        class: String,
        message: String,
    },
    /// `publish --wait` stopped on a deployment that did not complete.
    #[error("deployment {id} {reason}")]
    DeploymentUnfinished { id: String, reason: String },
    #[error("cancelled: {0}")]
    Cancelled(String),
    #[error("cannot read the terminal: {0}")]
    Terminal(std::io::Error),
    #[error(transparent)]
    History(#[from] crate::history::HistoryError),
    /// The snapshot asked for is not in the local history.
    #[error("{0}")]
    NoSnapshot(String),
    /// `snapshot --lock-timeout` passed while another snapshot held the lock.
    #[error("{0}")]
    LockTimeout(String),
    /// A report could not be written where it was asked to go.
    #[error("{0}")]
    WriteFailed(String),
    /// `changes --fail-on` found changes of these kinds (with their counts).
    #[error("changes of a --fail-on kind occurred: {0}")]
    ChangesFound(String),
}

impl CliError {
    /// Output that stopped because the reader went away (`| head`): not an error.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Self::Output(error) if error.is_broken_pipe())
    }
}

/// The exit code of a failed command.
pub fn exit_code(error: &CliError) -> u8 {
    match error {
        CliError::Usage(_) => USAGE,
        CliError::Session(_) | CliError::ReadOnly { .. } => ACCESS,
        CliError::Api(error) => api_exit_code(error),
        CliError::Output(_) if error.is_broken_pipe() => OK,
        CliError::NoSnapshot(_) => NOT_FOUND,
        CliError::ChangesFound(_) => CHANGES_FOUND,
        CliError::LockTimeout(_) => TEMPFAIL,
        CliError::History(error) if error.is_unreachable() => HISTORY_UNREACHABLE,
        CliError::Output(_)
        | CliError::DeploymentFailed { .. }
        | CliError::DeploymentUnfinished { .. }
        | CliError::Cancelled(_)
        | CliError::Terminal(_)
        | CliError::WriteFailed(_)
        | CliError::History(_) => FAILURE,
    }
}

fn api_exit_code(error: &ApiError) -> u8 {
    match error {
        ApiError::Api(response) => match response.status {
            401..=403 => ACCESS,
            404 => NOT_FOUND,
            429 => RATE_LIMITED,
            _ => FAILURE,
        },
        ApiError::Config(ConfigError::InvalidArgument { .. }) => USAGE,
        ApiError::Config(_) => ACCESS,
        ApiError::Transport(_) | ApiError::Decode(_) | ApiError::Protocol(_) => FAILURE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ErrorResponse;
    use crate::api::model::ErrorType;

    fn api(status: u16, kind: ErrorType) -> CliError {
        CliError::Api(ApiError::Api(Box::new(ErrorResponse {
            status,
            kind,
            title: String::new(),
            detail: None,
            request_id: None,
            errors: vec![],
            props: Default::default(),
            retry_after: None,
            method: "GET".into(),
            path: "/v1/x".into(),
            unknown_outcome: false,
            after_unknown_outcome: false,
        })))
    }

    #[test]
    fn statuses_map_to_documented_codes() {
        assert_eq!(exit_code(&api(401, ErrorType::Unauthorized)), 3);
        assert_eq!(exit_code(&api(402, ErrorType::PaymentRequired)), 3);
        assert_eq!(exit_code(&api(403, ErrorType::InsufficientScope)), 3);
        assert_eq!(exit_code(&api(404, ErrorType::ProjectNotFound)), 4);
        assert_eq!(exit_code(&api(429, ErrorType::RateLimited)), 5);
        assert_eq!(exit_code(&api(400, ErrorType::InvalidRequest)), 1);
        assert_eq!(exit_code(&api(503, ErrorType::RequestTimeout)), 1);
        assert_eq!(exit_code(&CliError::Usage("x".into())), 2);
        let broken = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        assert_eq!(exit_code(&CliError::Output(OutputError::Io(broken))), 0);
    }
}
