//! The environment variables that stand in for flags and config keys, so a
//! container, a Kubernetes CronJob or a systemd unit needs no config file.
//! Each is declared on its flag (`GlobalArgs`, clap's `env`): a flag wins over
//! its variable, the variable over the config file. [`VARIABLES`] is every
//! variable an operator sets, in the order of README's table ("Configuration
//! from the environment"); a test keeps the two alike.

/// `--config FILE`.
pub const CONFIG: &str = "VANTAGE_CONFIG";
/// `--base-url URL` (`base_url`).
pub const BASE_URL: &str = "VANTAGE_BASE_URL";
/// `--workspace ID` (`workspace_id`).
pub const WORKSPACE: &str = "VANTAGE_WORKSPACE";
/// `--read-only` (`read_only`): `true`/`1`/`yes` set it.
pub const READ_ONLY: &str = "VANTAGE_READ_ONLY";

/// An environment variable vantage reads, and what it stands for.
pub struct Variable {
    pub name: &'static str,
    /// The flag or config key it stands for.
    pub stands_for: &'static str,
    /// Whether its value is a secret (never shown, not even by `doctor`).
    pub secret: bool,
}

/// Every variable an operator may set, as README's table lists them.
pub const VARIABLES: &[Variable] = &[
    Variable {
        name: CONFIG,
        stands_for: "--config",
        secret: false,
    },
    Variable {
        name: crate::config::CONTEXT_ENV,
        stands_for: "--context, current_context",
        secret: false,
    },
    Variable {
        name: BASE_URL,
        stands_for: "--base-url, base_url",
        secret: false,
    },
    Variable {
        name: WORKSPACE,
        stands_for: "--workspace, workspace_id",
        secret: false,
    },
    Variable {
        name: crate::config::API_KEY_ENV,
        stands_for: "api_key",
        secret: true,
    },
    Variable {
        name: READ_ONLY,
        stands_for: "--read-only, read_only",
        secret: false,
    },
    Variable {
        // history::config::HISTORY_URL_ENV (session does not import history).
        name: "VANTAGE_HISTORY_URL",
        stands_for: "--history, history_url",
        secret: false,
    },
    Variable {
        // history::config::RETENTION_DAYS_ENV.
        name: "VANTAGE_RETENTION_DAYS",
        stands_for: "retention_days",
        secret: false,
    },
    Variable {
        // history::config::RETENTION_SNAPSHOTS_ENV.
        name: "VANTAGE_RETENTION_SNAPSHOTS",
        stands_for: "retention_snapshots",
        secret: false,
    },
    Variable {
        name: "PGPASSWORD",
        stands_for: "the shared history's password",
        secret: true,
    },
    Variable {
        name: "VANTAGE_LOG",
        stands_for: "the log's level (info, debug)",
        secret: false,
    },
];
