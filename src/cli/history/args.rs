//! Arguments of `snapshot`, `changes` and `reviewed`.

use clap::{Args, Subcommand};
use time::OffsetDateTime;

use crate::cli::options::{OutputArgs, wire};
use crate::history::{ChangeKind, SnapshotRef};

/// The local review history's commands, flattened into the script commands.
#[derive(Subcommand, Debug, Clone)]
pub enum HistoryCommand {
    /// Record the workspace as it is now (insights, every project, members) in the
    /// local history; `snapshot list` and `snapshot prune` look after it.
    Snapshot(SnapshotArgs),
    /// What changed between two snapshots [default: the last two].
    Changes(ChangesArgs),
    /// Projects marked reviewed, kept locally per workspace.
    #[command(subcommand)]
    Reviewed(ReviewedCommand),
    /// The history itself: `history copy --to postgres://…` moves a local one
    /// into a shared one; `history migrate --dry-run` says what an upgrade does.
    #[command(subcommand)]
    History(HistoryAdmin),
}

#[derive(Subcommand, Debug, Clone)]
pub enum HistoryAdmin {
    /// Copy the local history file (snapshots, marks with their reviewers,
    /// the review log) into a shared PostgreSQL history; running it again
    /// copies nothing twice.
    Copy {
        /// The shared history: postgres://USER@HOST:PORT/DB (a password from
        /// PGPASSWORD, ~/.pgpass or history_password_command, never here).
        #[arg(long, value_name = "URL")]
        to: String,
    },
    /// Bring the history's schema up to this vantage's version (every
    /// vantage does when it first opens it; older ones then refuse it).
    Migrate {
        /// Say what migrating would do (from which version to which, each
        /// step), and change nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SnapshotArgs {
    #[command(subcommand)]
    pub command: Option<SnapshotCommand>,
    /// Print the recorded snapshot in this format (otherwise one line on a
    /// terminal, nothing in cron).
    #[arg(long, short = 'o', value_enum, value_name = "FORMAT")]
    pub format: Option<crate::cli::options::Format>,
    /// Record only when the workspace's newest snapshot is older than this
    /// (30m, 6h, 1d), else say so and exit 0: one job for a team, from cron.
    #[arg(long, value_name = "DURATION", value_parser = crate::history::config::parse_duration)]
    pub if_older_than: Option<time::Duration>,
    /// When another snapshot of the workspace is being taken (by anyone on a
    /// shared history): exit 0 without one, instead of waiting for it and
    /// then taking this one.
    #[arg(long)]
    pub skip_if_busy: bool,
    /// How long to wait for another snapshot of the workspace (a job that
    /// froze holds its lock): past it, exit 75 (EX_TEMPFAIL) without one.
    #[arg(long, value_name = "DURATION", default_value = "10m",
          value_parser = crate::cli::options::parse_duration, conflicts_with = "skip_if_busy")]
    pub lock_timeout: std::time::Duration,
    /// Say what happened even when it went well: off a terminal a snapshot
    /// job that succeeds prints nothing ("nothing recorded", waits for the
    /// rate limit or for another job's lock).
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

#[derive(Subcommand, Debug, Clone)]
pub enum SnapshotCommand {
    /// The workspace's snapshots, oldest first.
    List {
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Remove snapshots beyond the retention ([history] retention_days and
    /// retention_snapshots in the config file, or these flags), or as restic
    /// and borg do with --keep-last/--keep-daily/--keep-weekly/--keep-monthly.
    /// A snapshot a standing reviewed mark refers to is kept, and said.
    Prune {
        /// Keep at most the newest N snapshots.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        keep: Option<u32>,
        /// Remove snapshots older than this many days.
        #[arg(long, value_name = "DAYS")]
        older_than_days: Option<u32>,
        #[command(flatten)]
        policy: KeepArgs,
        /// List what would be removed and why the others stay; remove nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// The posture at each snapshot, oldest first: projects by review
    /// priority, published, public, with open personal data, reviewed, and
    /// changed since review.
    Posture {
        #[command(flatten)]
        output: OutputArgs,
    },
}

/// `snapshot prune --keep-*`: the rules of restic's and borg's `forget`.
#[derive(Args, Debug, Clone, Default)]
pub struct KeepArgs {
    /// Keep the N newest snapshots.
    #[arg(long, value_name = "N", conflicts_with_all = ["keep", "older_than_days"])]
    pub keep_last: Option<u32>,
    /// Keep the newest snapshot of each of the N newest days (UTC) that have one.
    #[arg(long, value_name = "N", conflicts_with_all = ["keep", "older_than_days"])]
    pub keep_daily: Option<u32>,
    /// Keep the newest snapshot of each of the N newest ISO weeks that have one.
    #[arg(long, value_name = "N", conflicts_with_all = ["keep", "older_than_days"])]
    pub keep_weekly: Option<u32>,
    /// Keep the newest snapshot of each of the N newest months that have one.
    #[arg(long, value_name = "N", conflicts_with_all = ["keep", "older_than_days"])]
    pub keep_monthly: Option<u32>,
}

impl KeepArgs {
    /// The policy, when any --keep-* rule was given.
    pub fn policy(&self) -> Option<crate::history::retention::KeepPolicy> {
        let given = [
            self.keep_last,
            self.keep_daily,
            self.keep_weekly,
            self.keep_monthly,
        ];
        given
            .iter()
            .any(Option::is_some)
            .then(|| crate::history::retention::KeepPolicy {
                last: self.keep_last.unwrap_or(0),
                daily: self.keep_daily.unwrap_or(0),
                weekly: self.keep_weekly.unwrap_or(0),
                monthly: self.keep_monthly.unwrap_or(0),
            })
    }
}

#[derive(Args, Debug, Clone)]
pub struct ChangesArgs {
    /// The earlier snapshot: `last` (the one before the newest), a date
    /// (YYYY-MM-DD or RFC 3339: the newest snapshot taken by then) or a snapshot id.
    #[arg(long, value_name = "last|DATE|SNAPSHOT_ID", value_parser = parse_since)]
    pub since: Option<SnapshotRef>,
    /// The later snapshot [default: the newest].
    #[arg(long, value_name = "SNAPSHOT_ID", value_parser = clap::value_parser!(i64).range(1..))]
    pub until: Option<i64>,
    /// Show only changes of these kinds.
    #[arg(long, value_name = "KIND", value_delimiter = ',', value_parser = wire::<ChangeKind>())]
    pub kind: Vec<ChangeKind>,
    /// Exit with code 6 when a change of one of these kinds occurred.
    #[arg(long, value_name = "KIND", value_delimiter = ',', value_parser = wire::<ChangeKind>())]
    pub fail_on: Vec<ChangeKind>,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Subcommand, Debug, Clone)]
pub enum ReviewedCommand {
    /// Every project marked reviewed, and whether it changed since.
    List {
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Mark a project reviewed (again: the note and the time are replaced).
    Mark {
        project_id: String,
        /// A note kept with the mark.
        #[arg(long, value_name = "TEXT")]
        note: Option<String>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Remove a project's mark.
    Unmark { project_id: String },
    /// Who marked, unmarked or waived what, and when, with the note (a
    /// waiver's reason, its policy and end): every entry of the workspace's
    /// review log (one project's when given), oldest first.
    Log {
        project_id: Option<String>,
        /// Check the log along its hash chain instead of printing it: exits
        /// non-zero naming the first entry that was changed, or after which
        /// one was removed or inserted out of order.
        #[arg(long, conflicts_with = "project_id")]
        verify: bool,
        #[command(flatten)]
        output: OutputArgs,
    },
}

/// `last`, a snapshot id, `YYYY-MM-DD` (the end of that UTC day) or an RFC 3339 timestamp.
pub(crate) fn parse_since(raw: &str) -> Result<SnapshotRef, String> {
    if raw == "last" {
        return Ok(SnapshotRef::Previous);
    }
    if let Ok(id) = raw.parse::<i64>() {
        return if id > 0 {
            Ok(SnapshotRef::Id(id))
        } else {
            Err("a snapshot id is a positive number".into())
        };
    }
    if let Some(at) = crate::api::model::parse_timestamp(raw) {
        return Ok(SnapshotRef::At(at));
    }
    let format = time::macros::format_description!("[year]-[month]-[day]");
    time::Date::parse(raw, format)
        .map(|date| {
            let end_of_day: OffsetDateTime =
                date.next_day().unwrap_or(date).midnight().assume_utc();
            SnapshotRef::At(end_of_day - time::Duration::milliseconds(1))
        })
        .map_err(|_| "expected last, a snapshot id, YYYY-MM-DD or an RFC 3339 timestamp".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_last_ids_and_dates() {
        assert_eq!(parse_since("last").unwrap(), SnapshotRef::Previous);
        assert_eq!(parse_since("12").unwrap(), SnapshotRef::Id(12));
        assert_eq!(
            parse_since("2026-11-01").unwrap(),
            SnapshotRef::At(time::macros::datetime!(2026-11-01 23:59:59.999 UTC))
        );
        assert!(parse_since("0").is_err());
        assert!(parse_since("yesterday").is_err());
    }
}
