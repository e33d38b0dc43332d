//! `vantage history copy --to URL`: a local history (its snapshots, the marks
//! with their reviewers and the whole review log) copied into a shared one,
//! workspace by workspace. Running it again copies nothing twice: a snapshot
//! is copied only when it is newer than the shared history's newest of its
//! workspace (so snapshots stay in the order they were taken), and a log
//! entry only when the shared log does not hold it.

use time::OffsetDateTime;

use crate::cli::exit::CliError;
use crate::history::{
    Capture, HistoryLocation, LockWait, LogRead, PgTarget, Retention, ReviewEntry, Store,
};
use crate::session::GlobalArgs;

/// What the copy of one workspace came to.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Copied {
    snapshots: usize,
    /// Already in the shared history (taken at the same instant).
    present: usize,
    /// Older than the shared history's newest of the workspace, or without
    /// readable insights: left out.
    left_out: usize,
    log_entries: usize,
}

/// Nothing pruned while copying: the next snapshot prunes by the config.
/// Log entries copied in one transaction.
const LOG_PAGE: usize = 1000;

const KEEP_ALL: Retention = Retention {
    max_age: time::Duration::days(365 * 100),
    max_snapshots: u32::MAX,
};

pub fn run(to: &str, global: &GlobalArgs) -> Result<(), CliError> {
    if let Some(warning) =
        crate::history::postgres::password_on_command_line("history copy --to", to)
    {
        crate::stderr::line(warning);
    }
    let config = super::selected_history_config(global)?;
    // From the local file, whatever `history_url` says: that is what moves.
    let source = Store::open_at(&HistoryLocation::File(config.file()))?;
    let target =
        PgTarget::parse(to, config.password_command.clone())?.with_limits(config.session_limits());
    let mut target = super::open_store(&HistoryLocation::Database(target))?;
    let workspaces = source.workspaces()?;
    if workspaces.is_empty() {
        crate::stderr::line(format_args!(
            "{} holds no snapshot and no mark: nothing to copy",
            source.describe()
        ));
        return Ok(());
    }
    for workspace in &workspaces {
        let copied = copy_workspace(&source, &mut target, workspace)?;
        crate::stderr::line(format_args!(
            "workspace {} into {}: {}",
            crate::text::escape_invisible(workspace),
            target.describe(),
            describe(&copied)
        ));
    }
    Ok(())
}

/// `1 snapshot`, `2 snapshots`.
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn describe(copied: &Copied) -> String {
    let mut said = format!(
        "{} and {} copied",
        count(copied.snapshots, "snapshot"),
        count(copied.log_entries, "review log entry").replace("entrys", "entries")
    );
    if copied.present > 0 {
        said.push_str(&format!(
            "; {} there already",
            count(copied.present, "snapshot")
        ));
    }
    if copied.left_out > 0 {
        said.push_str(&format!(
            "; {} left out (older than the shared history's newest of this workspace, or without readable insights)",
            count(copied.left_out, "snapshot")
        ));
    }
    said
}

/// Copies one workspace, its snapshots under the workspace's snapshot lock
/// (a snapshot job waits for the copy), each one transaction.
fn copy_workspace(source: &Store, target: &mut Store, workspace: &str) -> Result<Copied, CliError> {
    let mut copied = Copied::default();
    target.lock_workspace(workspace, LockWait::Forever)?;
    let there: std::collections::HashSet<OffsetDateTime> = target
        .list(workspace)?
        .into_iter()
        .map(|info| info.taken_at)
        .collect();
    let newest = there.iter().max().copied();
    let snapshots = source.list(workspace)?;
    let last = snapshots.last().map(|info| info.id);
    for info in &snapshots {
        if there.contains(&info.taken_at) {
            copied.present += 1;
            continue;
        }
        if newest.is_some_and(|newest| info.taken_at < newest) {
            copied.left_out += 1;
            continue;
        }
        let snapshot = source.load(info)?;
        let Some(insights) = snapshot.insights else {
            copied.left_out += 1;
            continue;
        };
        // Only the newest snapshot keeps its first page (the instant start).
        let first_page = match Some(info.id) == last {
            true => source.first_page(info.id)?.unwrap_or_default(),
            false => Vec::new(),
        };
        target.record(
            &Capture {
                workspace_id: workspace.to_owned(),
                taken_at: info.taken_at,
                insights,
                projects: snapshot.projects,
                first_page,
                members: snapshot.members,
            },
            KEEP_ALL,
        )?;
        copied.snapshots += 1;
    }
    target.unlock_workspace(workspace)?;
    // The log a page at a time, each its own transaction: a rerun adds only
    // what is missing, so a copy cut short is finished by running it again.
    let mut page: Vec<ReviewEntry> = Vec::with_capacity(LOG_PAGE);
    let mut added = 0;
    source.each_review_entry(workspace, None, LogRead::Whole, &mut |entry| {
        page.push(entry);
        if page.len() == LOG_PAGE {
            added += target.import_review_log(workspace, &page)?;
            page.clear();
        }
        Ok(())
    })?;
    added += target.import_review_log(workspace, &page)?;
    copied.log_entries = added;
    Ok(copied)
}
