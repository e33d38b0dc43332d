//! `vantage snapshot`: walk the workspace and record it; `snapshot list` and
//! `snapshot prune`.

use std::time::Duration;

use time::OffsetDateTime;

use super::args::{SnapshotArgs, SnapshotCommand};
use super::{Local, history_config};
use crate::cli::exit::CliError;
use crate::cli::options::Format;
use crate::cli::print::{Field, Output, Row, write_list, write_one};
use crate::cli::progress::Progress;
use crate::cli::views::{fields_table, when};
use crate::cli::workspaces::resolve_workspace;
use crate::history::walk::{self, WalkEvent, WalkOptions};
use crate::history::{Retention, SnapshotInfo, Store, WorkspaceLock};
use crate::session::{GlobalArgs, Session};

impl Row for SnapshotInfo {
    const FIELDS: &'static [Field<Self>] = &[
        Field::number("ID", |info| info.id.to_string()),
        Field::fixed("TAKEN AT (UTC)", |info| when(Some(info.taken_at))),
        Field::number("PROJECTS", |info| info.projects.to_string()),
        Field::number("MEMBERS", |info| info.members.to_string()),
    ];
}

pub async fn run(args: SnapshotArgs, global: &GlobalArgs) -> Result<(), CliError> {
    match args.command {
        Some(SnapshotCommand::List { output }) => {
            let local = Local::open(global).await?;
            let snapshots = local.store.list(&local.workspace)?;
            let format = output.resolve();
            let stream = futures::stream::iter(snapshots.into_iter().map(Ok));
            write_list(stream, format, None, &Progress::hidden()).await
        }
        Some(SnapshotCommand::Prune {
            keep,
            older_than_days,
        }) => {
            let mut local = Local::open(global).await?;
            let configured = local.config.retention();
            let retention = Retention {
                max_age: older_than_days.map_or(configured.max_age, |days| {
                    time::Duration::days(i64::from(days))
                }),
                max_snapshots: keep.unwrap_or(configured.max_snapshots),
            };
            let removed =
                local
                    .store
                    .prune(&local.workspace, retention, OffsetDateTime::now_utc())?;
            let left = local.store.list(&local.workspace)?.len();
            crate::stderr::line(format_args!("pruned {removed} snapshots; {left} kept"));
            Ok(())
        }
        None => take(args.format, args.if_older_than, args.skip_if_busy, global).await,
    }
}

/// The workspace's newest snapshot when it is no older than `max_age`
/// (`--if-older-than`): another job, or another reviewer, took it.
fn fresh_enough(
    store: &Store,
    workspace: &str,
    max_age: time::Duration,
    now: OffsetDateTime,
) -> Result<Option<SnapshotInfo>, CliError> {
    Ok(store
        .latest_snapshot(workspace)?
        .filter(|latest| now - latest.taken_at <= max_age))
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

async fn take(
    format: Option<Format>,
    if_older_than: Option<time::Duration>,
    skip_if_busy: bool,
    global: &GlobalArgs,
) -> Result<(), CliError> {
    let session = Session::connect(global)?;
    for warning in &session.warnings {
        crate::stderr::line(format_args!("warning: {warning}"));
    }
    // As `inventory` finds it: configured, or the one the key reaches.
    let workspace = resolve_workspace(&session).await?;
    let config = history_config(&session.config, &session.context, global)?;
    // Open the history before walking: one that cannot be written fails
    // before any request is spent.
    let mut store = super::open_store(&config.location()?)?;
    // Two snapshots of one workspace never interleave: the second waits for
    // the first (and then walks after it), or skips.
    if store.lock_workspace(&workspace, false)? == WorkspaceLock::Busy {
        let shown = crate::text::escape_invisible(&workspace);
        if skip_if_busy {
            crate::stderr::line(format_args!(
                "another snapshot of workspace {shown} is being taken in {}; skipping this one (--skip-if-busy)",
                store.describe()
            ));
            return Ok(());
        }
        crate::stderr::line(format_args!(
            "another snapshot of workspace {shown} is being taken in {}; waiting for it to finish, then taking this one",
            store.describe()
        ));
        store.lock_workspace(&workspace, true)?;
    }
    // After the lock: a job that waited for another's snapshot finds it fresh.
    if let Some(max_age) = if_older_than
        && let Some(fresh) = fresh_enough(&store, &workspace, max_age, OffsetDateTime::now_utc())?
    {
        crate::stderr::line(format_args!(
            "snapshot {} of workspace {} was taken {} UTC, within {}: nothing recorded",
            fresh.id,
            crate::text::escape_invisible(&workspace),
            when(Some(fresh.taken_at)),
            describe_age(max_age)
        ));
        return Ok(());
    }
    let previous = match store.latest_snapshot(&workspace)? {
        Some(info) => Some(store.load(&info)?),
        None => None,
    };
    let on_terminal = crate::stderr::is_terminal();
    let (progress, _task) = Progress::start(&session.client, "snapshot", on_terminal);
    let window = Duration::from_secs(config.rate_window_secs);
    // Asked for by the user: paced by the client alone, no reserve kept.
    let options = WalkOptions {
        detail_requests: config.detail_requests,
        window,
        reserve: None,
    };
    let (capture, report) = walk::capture(
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
    )
    .await?;
    progress.clear();
    let info = store.record(&capture, config.retention())?;
    store.unlock_workspace(&workspace)?;
    if report.detail_failures > 0 {
        crate::stderr::line(format_args!(
            "warning: {} member or project reads failed; those names or audience targets are unknown in this snapshot",
            report.detail_failures
        ));
    }
    match format {
        Some(format) => write_one(
            &info,
            Output {
                format,
                csv_raw_formulas: false,
            },
            None,
            |width| fields_table(&info, width),
        )?,
        None if on_terminal => {
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
            crate::stderr::line(format_args!("{line}"));
        }
        None => {}
    }
    Ok(())
}
