//! `vantage changes`: the diff of two snapshots, written in the chosen format;
//! the table groups changes by kind, the most serious first.

use std::collections::BTreeMap;

use super::Local;
use super::args::ChangesArgs;
use crate::cli::exit::CliError;
use crate::cli::options::Format;
use crate::cli::print::{write_list, write_one};
use crate::cli::progress::Progress;
use crate::formats::row::{Row, when};
use crate::formats::table;
use crate::history::{Change, ChangeKind, SnapshotInfo, SnapshotRef};

/// The two snapshots to compare: `--since` (default: the one before the later)
/// and `--until` (default: the newest).
fn pick(
    snapshots: &[SnapshotInfo],
    args: &ChangesArgs,
    workspace: &str,
) -> Result<(SnapshotInfo, SnapshotInfo), CliError> {
    let Some(newest) = snapshots.last() else {
        return Err(CliError::NoSnapshot(format!(
            "no snapshot of workspace {workspace} yet: run `vantage snapshot`, then again later"
        )));
    };
    let find = |id: i64| {
        snapshots
            .iter()
            .find(|s| s.id == id)
            .cloned()
            .ok_or_else(|| {
                CliError::NoSnapshot(format!(
                    "no snapshot {id} in workspace {workspace} (see `vantage snapshot list`)"
                ))
            })
    };
    let after = match args.until {
        Some(id) => find(id)?,
        None => newest.clone(),
    };
    let before = match args.since.as_ref().unwrap_or(&SnapshotRef::Previous) {
        SnapshotRef::Last | SnapshotRef::Previous => snapshots
            .iter()
            .rev()
            .find(|s| s.id < after.id)
            .cloned()
            .ok_or_else(|| {
                CliError::NoSnapshot(format!(
                    "no snapshot before snapshot {} ({}): take another with `vantage snapshot` later",
                    after.id,
                    when(Some(after.taken_at))
                ))
            })?,
        SnapshotRef::Id(id) => find(*id)?,
        SnapshotRef::At(at) => snapshots
            .iter()
            .rev()
            .find(|s| s.taken_at <= *at)
            .cloned()
            .ok_or_else(|| {
                CliError::NoSnapshot(format!(
                    "no snapshot taken by {} UTC; the oldest is snapshot {} ({} UTC)",
                    when(Some(*at)),
                    snapshots[0].id,
                    when(Some(snapshots[0].taken_at))
                ))
            })?,
    };
    if before.id > after.id {
        return Err(CliError::Usage(format!(
            "--since names snapshot {}, newer than snapshot {} (--until)",
            before.id, after.id
        )));
    }
    Ok((before, after))
}

pub async fn run(args: ChangesArgs, local: &Local) -> Result<(), CliError> {
    let format = args.output.resolve();
    let workspace = local.workspace.clone();
    let snapshots = local
        .store
        .with(move |store| store.list(&workspace))
        .await?;
    let (before, after) = pick(&snapshots, &args, &local.workspace)?;
    let (from, to) = (before.clone(), after.clone());
    let changes = local
        .store
        .with(move |store| store.changes(&from, &to))
        .await?;
    let alarming: BTreeMap<usize, (ChangeKind, usize)> = changes
        .iter()
        .filter(|change| args.fail_on.contains(&change.kind))
        .fold(BTreeMap::new(), |mut counts, change| {
            counts
                .entry(change.kind.seriousness_rank())
                .or_insert((change.kind.clone(), 0))
                .1 += 1;
            counts
        });
    let shown: Vec<Change> = changes
        .into_iter()
        .filter(|change| args.kind.is_empty() || args.kind.contains(&change.kind))
        .collect();
    if format.format == Format::Table {
        write_one(&shown, format, None, |width| {
            grouped_table(&shown, &before, &after, width)
        })?;
    } else {
        let stream = futures::stream::iter(shown.into_iter().map(Ok));
        write_list(stream, format, None, &Progress::hidden()).await?;
    }
    if alarming.is_empty() {
        return Ok(());
    }
    Err(CliError::ChangesFound(
        alarming
            .values()
            .map(|(kind, count)| format!("{kind} ({count})"))
            .collect::<Vec<_>>()
            .join(", "),
    ))
}

/// A line saying which snapshots are compared, then one table per kind, the
/// most serious kind first. Cells are sanitized by `table::render`.
fn grouped_table(
    changes: &[Change],
    before: &SnapshotInfo,
    after: &SnapshotInfo,
    width: usize,
) -> String {
    let mut out = format!(
        "Changes from snapshot {} ({} UTC) to snapshot {} ({} UTC): {}\n",
        before.id,
        when(Some(before.taken_at)),
        after.id,
        when(Some(after.taken_at)),
        match changes.len() {
            0 => "none".to_owned(),
            1 => "1 change".to_owned(),
            n => format!("{n} changes"),
        }
    );
    let columns = Change::columns();
    let mut start = 0;
    while start < changes.len() {
        let kind = &changes[start].kind;
        let end = start
            + changes[start..]
                .iter()
                .take_while(|change| &change.kind == kind)
                .count();
        let rows: Vec<Vec<String>> = changes[start..end]
            .iter()
            .map(|change| change.cells().into_iter().skip(1).collect())
            .collect();
        out.push_str(&format!("\n{kind} ({})\n", end - start));
        out.push_str(&table::render(&columns[1..], &rows, width));
        start = end;
    }
    out
}
