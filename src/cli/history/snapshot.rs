//! `vantage snapshot`: walk the workspace and record it; `snapshot list` and
//! `snapshot prune`.

use std::time::Duration;

use time::OffsetDateTime;

use super::args::{SnapshotArgs, SnapshotCommand};
use super::{HeldStore, Local, history_config};
use crate::cli::exit::CliError;
use crate::cli::print::{Output, write_list, write_one};
use crate::cli::progress::Progress;
use crate::cli::views::fields_table;
use crate::cli::workspaces::resolve_workspace;
use crate::formats::row::when;
use crate::history::walk::{self, WalkEvent, WalkOptions};
use crate::history::{
    CLOCK_SKEW, Freshness, HistoryError, LockWait, Retention, SnapshotInfo, Store, WorkspaceLock,
};
use crate::session::{GlobalArgs, Session};

pub async fn run(args: SnapshotArgs, global: &GlobalArgs) -> Result<(), CliError> {
    match args.command.clone() {
        Some(SnapshotCommand::List { output }) => {
            let local = Local::open(global).await?;
            let workspace = local.workspace.clone();
            let snapshots = local
                .store
                .with(move |store| store.list(&workspace))
                .await?;
            let format = output.resolve();
            let stream = futures::stream::iter(snapshots.into_iter().map(Ok));
            write_list(stream, format, None, &Progress::hidden()).await
        }
        Some(SnapshotCommand::Prune {
            keep,
            older_than_days,
            policy,
            dry_run,
        }) => {
            let local = Local::open(global).await?;
            if let Some(policy) = policy.policy() {
                return super::prune::keeping(&local, policy, dry_run).await;
            }
            let configured = local.config.retention();
            let retention = Retention {
                max_age: older_than_days.map_or(configured.max_age, |days| {
                    time::Duration::days(i64::from(days))
                }),
                max_snapshots: keep.unwrap_or(configured.max_snapshots),
            };
            if dry_run {
                return Err(CliError::Usage(
                    "--dry-run goes with the --keep-last/--keep-daily/--keep-weekly/--keep-monthly rules".into(),
                ));
            }
            let workspace = local.workspace.clone();
            let (removed, left) = local
                .store
                .with(move |store| {
                    let removed = store.prune(&workspace, retention, OffsetDateTime::now_utc())?;
                    Ok::<_, HistoryError>((removed, store.list(&workspace)?.len()))
                })
                .await?;
            crate::stderr::line(format_args!("pruned {removed} snapshots; {left} kept"));
            Ok(())
        }
        Some(SnapshotCommand::Posture { output }) => {
            let local = Local::open(global).await?;
            super::prune::posture(&local, output).await
        }
        None => take(&args, global).await,
    }
}

/// The workspace's newest snapshot when it is fresh for `max_age`
/// (`--if-older-than`): another job, or another reviewer, took it. One dated
/// in the future is not (`SnapshotInfo::freshness`): it is said on stderr,
/// and a new one is recorded.
fn fresh_enough(
    store: &Store,
    workspace: &str,
    max_age: time::Duration,
    now: OffsetDateTime,
) -> Result<Option<SnapshotInfo>, CliError> {
    let Some(latest) = store.latest_snapshot(workspace)? else {
        return Ok(None);
    };
    Ok(match latest.freshness(max_age, now) {
        Freshness::Fresh => Some(latest),
        Freshness::Stale => None,
        Freshness::Future => {
            crate::stderr::line(format_args!(
                "snapshot {} of workspace {} is dated {} UTC, in the future (a clock ahead by more \
                 than {} minutes, or a wrong record): it does not count as fresh; recording a new one",
                latest.id,
                crate::text::escape_invisible(workspace),
                when(Some(latest.taken_at)),
                CLOCK_SKEW.whole_minutes()
            ));
            None
        }
    })
}

/// `90m`, `6h`, `2d`: a duration as `--if-older-than` takes it.
fn describe_age(age: time::Duration) -> String {
    let minutes = age.whole_minutes();
    if minutes % (24 * 60) == 0 {
        format!("{}d", minutes / (24 * 60))
    } else if minutes % 60 == 0 {
        format!("{}h", minutes / 60)
    } else {
        format!("{minutes}m")
    }
}

/// How often a snapshot asks its history, while it walks, whether the
/// connection that holds the workspace's lock is still there: a lost one
/// ends the job at once instead of after a walk it could not record.
const CONNECTION_CHECK_EVERY: Duration = Duration::from_secs(2);

/// Runs `walk`, asking `store` every [`CONNECTION_CHECK_EVERY`] whether its
/// connection is still there; the first "no" ends the walk with that error.
async fn while_connected<T>(
    store: &HeldStore,
    walk: impl std::future::Future<Output = Result<T, CliError>>,
) -> Result<T, CliError> {
    let mut walk = std::pin::pin!(walk);
    loop {
        tokio::select! {
            done = &mut walk => return done,
            () = tokio::time::sleep(CONNECTION_CHECK_EVERY) => {
                store.with(|store| store.still_connected()).await?;
            }
        }
    }
}

/// A job's lines about what went well: on a terminal, or with `--verbose`;
/// off a terminal a job that succeeds is silent (cron mails nothing).
struct Say {
    chatty: bool,
}

impl Say {
    fn line(&self, text: std::fmt::Arguments<'_>) {
        if self.chatty {
            crate::stderr::line(text);
        }
    }
}

async fn take(args: &SnapshotArgs, global: &GlobalArgs) -> Result<(), CliError> {
    let session = Session::connect(global)?;
    for warning in &session.warnings {
        crate::stderr::line(format_args!("warning: {warning}"));
    }
    let on_terminal = crate::stderr::is_terminal();
    let say = Say {
        chatty: on_terminal || args.verbose,
    };
    // As `inventory` finds it: configured, or the one the key reaches.
    let workspace = resolve_workspace(&session).await?;
    let config = history_config(&session.config, &session.context, global)?;
    // Open the history before walking: one that cannot be written fails
    // before any request is spent.
    let store = HeldStore::open(config.location()?).await?;
    // Two snapshots of one workspace never interleave: the second waits for
    // the first (and then walks after it), or skips.
    if lock(&store, &workspace, LockWait::No).await? == WorkspaceLock::Busy {
        let shown = crate::text::escape_invisible(&workspace);
        if args.skip_if_busy {
            say.line(format_args!(
                "another snapshot of workspace {shown} is being taken in {}; skipping this one (--skip-if-busy)",
                store.describe()
            ));
            return Ok(());
        }
        say.line(format_args!(
            "another snapshot of workspace {shown} is being taken in {}; waiting for it to finish, then taking this one",
            store.describe()
        ));
        let wait = LockWait::UpTo(args.lock_timeout);
        if lock(&store, &workspace, wait).await? == WorkspaceLock::TimedOut {
            return Err(CliError::LockTimeout(format!(
                "another snapshot of workspace {shown} in {} held its lock for all of --lock-timeout {}; \
                 no snapshot taken (a job that froze holds it until it ends: see `pg_locks` or the lock file)",
                store.describe(),
                describe_wait(args.lock_timeout)
            )));
        }
    }
    // After the lock: a job that waited for another's snapshot finds it fresh.
    let held = workspace.clone();
    if let Some(max_age) = args.if_older_than
        && let Some(fresh) = store
            .with(move |store| fresh_enough(store, &held, max_age, OffsetDateTime::now_utc()))
            .await?
    {
        say.line(format_args!(
            "snapshot {} of workspace {} was taken {} UTC, within {}: nothing recorded",
            fresh.id,
            crate::text::escape_invisible(&workspace),
            when(Some(fresh.taken_at)),
            describe_age(max_age)
        ));
        return Ok(());
    }
    let held = workspace.clone();
    let previous = store
        .with(move |store| match store.latest_snapshot(&held)? {
            Some(info) => store.load(&info).map(Some),
            None => Ok(None),
        })
        .await?;
    let (progress, _task) =
        Progress::start_job(&session.client, "snapshot", on_terminal, args.verbose);
    let window = Duration::from_secs(config.rate_window_secs);
    // Asked for by the user: paced by the client alone, no reserve kept.
    let options = WalkOptions {
        detail_requests: config.detail_requests,
        window,
        reserve: None,
    };
    let walk = walk::capture(
        &session.client,
        &workspace,
        previous.as_ref(),
        options,
        OffsetDateTime::now_utc,
        |event| match event {
            WalkEvent::Planned(plan) if on_terminal => progress.message(&format!(
                "snapshot of {workspace}: {}",
                plan.describe(window)
            )),
            WalkEvent::Planned(_) => {}
            WalkEvent::Phase(phase) => progress.waiting(format!("snapshot: {phase}")),
            WalkEvent::Items(count) => progress.items(count),
        },
    );
    let (capture, report) = while_connected(&store, async { Ok(walk.await?) }).await?;
    progress.clear();
    let (held, retention) = (workspace.clone(), config.retention());
    let info = store
        .with(move |store| {
            let info = store.record(&capture, retention)?;
            store.unlock_workspace(&held)?;
            Ok::<_, HistoryError>(info)
        })
        .await?;
    if report.detail_failures > 0 {
        crate::stderr::line(format_args!(
            "warning: {} member or project reads failed; those names or audience targets are unknown in this snapshot",
            report.detail_failures
        ));
    }
    match args.format {
        Some(format) => write_one(
            &info,
            Output {
                format,
                csv_raw_formulas: false,
            },
            None,
            |width| fields_table(&info, width),
        )?,
        None => {
            let mut line = format!(
                "snapshot {} recorded: {} projects, {} members ({} reads for names and audience targets)",
                info.id, info.projects, info.members, report.detail_reads
            );
            if report.names_unknown + report.targets_unknown > 0 {
                line.push_str(&format!(
                    "; left for a later snapshot by the budget: {} member names, {} audience target lists",
                    report.names_unknown, report.targets_unknown
                ));
            }
            say.line(format_args!("{line}"));
        }
    }
    Ok(())
}

/// Takes the workspace's snapshot lock, waiting as `wait` says (minutes,
/// maybe) on a blocking thread.
async fn lock(
    store: &HeldStore,
    workspace: &str,
    wait: LockWait,
) -> Result<WorkspaceLock, CliError> {
    let workspace = workspace.to_owned();
    store
        .with(move |store| store.lock_workspace(&workspace, wait))
        .await
}

/// `10m`, `90s`, `1h30m`: a duration as `--lock-timeout` takes it.
fn describe_wait(wait: Duration) -> String {
    let secs = wait.as_secs();
    let (hours, minutes, seconds) = (secs / 3600, secs % 3600 / 60, secs % 60);
    let mut text = String::new();
    for (value, unit) in [(hours, "h"), (minutes, "m"), (seconds, "s")] {
        if value > 0 {
            text.push_str(&format!("{value}{unit}"));
        }
    }
    if text.is_empty() {
        format!("{} ms", wait.as_millis())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::HistoryLocation;

    /// A snapshot job waiting minutes for another's lock leaves the runtime's
    /// one thread free: here the holder lets go from a task on that thread.
    #[test]
    fn a_wait_for_the_workspace_lock_leaves_the_runtime_free() {
        let dir = tempfile::tempdir().unwrap();
        let location = HistoryLocation::File(dir.path().join("history.sqlite3"));
        let mut holder = Store::open_at(&location).unwrap();
        assert_eq!(
            holder.lock_workspace("w1", LockWait::No).unwrap(),
            WorkspaceLock::Taken
        );
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let outcome = runtime.block_on(async {
            let store = HeldStore::open(location.clone()).await.unwrap();
            let waiting = lock(&store, "w1", LockWait::UpTo(Duration::from_secs(20)));
            let release = async {
                tokio::task::yield_now().await;
                holder.unlock_workspace("w1").unwrap();
            };
            tokio::join!(waiting, release).0.unwrap()
        });
        // Blocking the runtime's thread, the wait would outlast the holder: TimedOut.
        assert!(
            matches!(
                outcome,
                WorkspaceLock::Taken | WorkspaceLock::TakenAfterWaiting
            ),
            "{outcome:?}"
        );
    }
}
