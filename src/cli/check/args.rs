//! Arguments of `vantage check`, `check waive`, `check waivers` and `check test`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use time::OffsetDateTime;

use crate::cli::options::parse_instant;
use crate::history::SnapshotRef;
use crate::policy::Severity;

/// `table`, `json`, `jsonl`, `csv` or `junit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Json,
    Jsonl,
    Csv,
    Table,
    /// JUnit XML for CI: a test suite per policy, a test case per project
    /// (a violation is a failure, a waived one is skipped).
    Junit,
}

#[derive(Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true)]
pub struct CheckArgs {
    #[command(subcommand)]
    pub command: Option<CheckCommand>,
    /// A policy file, or a folder of them (`*.rego`; `*_test.rego` are tests);
    /// repeatable. `builtin` names the built-in pack. [default: the built-in
    /// pack and the `policies/` folder beside the config file]
    #[arg(long, value_name = "FILE|DIR|builtin")]
    pub policy: Vec<PathBuf>,
    /// Evaluate only these policies (by id); repeatable or comma-separated.
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub only: Vec<String>,
    /// Evaluate a stored snapshot instead of reading the service (no API
    /// request): `last` [default], a snapshot id, or a date.
    #[arg(long, value_name = "last|DATE|SNAPSHOT_ID", num_args = 0..=1,
          default_missing_value = "newest", value_parser = parse_snapshot)]
    pub from_snapshot: Option<SnapshotRef>,
    /// Exit with code 8 when a violation of this severity or worse is not
    /// waived.
    #[arg(long, value_name = "SEVERITY", default_value = "info", value_parser = parse_severity)]
    pub fail_on: Severity,
    /// Evaluate as of this instant (ages, `time.now_ns()`, waivers' expiry):
    /// YYYY-MM-DD or RFC 3339 [default: now].
    #[arg(long, value_name = "TIME", value_parser = parse_instant)]
    pub now: Option<OffsetDateTime>,
    /// Output format [default: table on a terminal, json otherwise].
    #[arg(long, short = 'o', value_enum, value_name = "FORMAT")]
    pub format: Option<CheckFormat>,
    /// CSV: write cells that start with = + - @ tab or CR as they are.
    #[arg(long)]
    pub csv_raw_formulas: bool,
    /// Print the input document the policies read (JSON) instead of checking.
    #[arg(long, conflicts_with = "input")]
    pub print_input: bool,
    /// Evaluate this input document (as `--print-input` wrote it) instead of
    /// reading the workspace: no API request.
    #[arg(long, value_name = "FILE", conflicts_with = "from_snapshot")]
    pub input: Option<PathBuf>,
}

#[derive(Subcommand, Debug, Clone)]
pub enum CheckCommand {
    /// Waive one policy's violation by one project until a date, with a
    /// reason; recorded in the review history with who and when (shared on
    /// a team's PostgreSQL history).
    Waive {
        policy: String,
        project_id: String,
        /// Why the violation is accepted.
        #[arg(long, value_name = "TEXT")]
        reason: String,
        /// When the waiver stops applying: YYYY-MM-DD (midnight UTC) or RFC 3339.
        #[arg(long, value_name = "DATE", value_parser = parse_instant)]
        until: OffsetDateTime,
        #[command(flatten)]
        output: crate::cli::options::OutputArgs,
    },
    /// The waivers that apply now (the newest of each policy and project).
    Waivers {
        /// The ones that lapsed instead.
        #[arg(long, conflicts_with = "all")]
        expired: bool,
        /// Every waiver ever given, oldest first, with who and when: the
        /// waivers' audit trail (the store keeps them append-only).
        #[arg(long)]
        all: bool,
        /// As of this instant [default: now].
        #[arg(long, value_name = "TIME", value_parser = parse_instant)]
        now: Option<OffsetDateTime>,
        #[command(flatten)]
        output: crate::cli::options::OutputArgs,
    },
    /// Run the Rego unit tests (`test_` rules of `*_test.rego`) of policy
    /// files or folders [default: the built-in pack's].
    Test {
        /// A folder or file of policies and their tests; repeatable.
        #[arg(long, value_name = "FILE|DIR|builtin")]
        policy: Vec<PathBuf>,
        /// `time.now_ns()` in the tests [default: now].
        #[arg(long, value_name = "TIME", value_parser = parse_instant)]
        now: Option<OffsetDateTime>,
    },
}

fn parse_severity(raw: &str) -> Result<Severity, String> {
    Severity::parse(raw)
        .ok_or_else(|| "expected one of critical, high, medium, low, info".to_owned())
}

fn parse_snapshot(raw: &str) -> Result<SnapshotRef, String> {
    match raw {
        "newest" | "last" => Ok(SnapshotRef::Last),
        other => crate::cli::history::args::parse_since(other).map(|reference| match reference {
            // `last` means the newest here: the snapshot to evaluate.
            SnapshotRef::Previous => SnapshotRef::Last,
            reference => reference,
        }),
    }
}
