//! `vantage reviewed list|mark|unmark|log`: reviewed marks per workspace, and
//! the log of who marked or unmarked what.

use time::OffsetDateTime;

use super::Local;
use super::args::ReviewedCommand;
use crate::cli::exit::CliError;
use crate::cli::print::{Field, Row, write_each, write_one};
use crate::cli::views::{fields_table, when};
use crate::formats::OutputError;
use crate::history::{
    HistoryError, LogRead, MarkScope, NewMark, ReviewEntry, ReviewMark, shown_reviewer,
};

/// The writer failed: kept in `failed`, and the history's read is stopped.
fn stop(failed: &mut Option<OutputError>, error: OutputError) -> HistoryError {
    *failed = Some(error);
    HistoryError::Stopped
}

/// A read written as it came: the writer's failure first (it stopped the
/// read), else the read's own.
fn finished(read: Result<(), HistoryError>, failed: Option<OutputError>) -> Result<(), CliError> {
    match failed {
        Some(error) => Err(error.into()),
        None => Ok(read?),
    }
}

impl Row for ReviewMark {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("PROJECT", |mark| mark.project_id.clone()),
        Field::text("NAME", 8, |mark| mark.name.clone().unwrap_or_default()),
        Field::fixed("MARKED AT (UTC)", |mark| when(Some(mark.marked_at))),
        Field::text("BY", 4, |mark| {
            shown_reviewer(mark.reviewer.as_deref(), mark.display_name.as_deref())
        }),
        Field::text("SINCE", 12, |mark| match mark.changed_since_review {
            Some(false) => format!("✓ {}", mark.since_review()),
            _ => mark.since_review(),
        }),
        Field::text("NOTE", 6, |mark| mark.note.clone().unwrap_or_default()),
    ];
}

impl Row for ReviewEntry {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("ID", |event| event.id.to_string()),
        Field::fixed("AT (UTC)", |event| when(Some(event.at))),
        Field::fixed("ACTION", |event| event.action.as_str().to_owned()),
        Field::text("BY", 4, |event| {
            shown_reviewer(event.reviewer.as_deref(), event.display_name.as_deref())
        }),
        Field::fixed("PROJECT", |event| event.project_id.clone()),
        Field::text("NOTE", 6, |event| event.note.clone().unwrap_or_default()),
    ];
}

pub async fn run(command: ReviewedCommand, local: &mut Local) -> Result<(), CliError> {
    match command {
        ReviewedCommand::List { output } => write_each(output.resolve(), |write| {
            let mut failed = None;
            let read =
                local
                    .store
                    .each_reviewed_mark(&local.workspace, MarkScope::All, &mut |mark| {
                        write(mark).map_err(|error| stop(&mut failed, error))
                    });
            finished(read, failed)
        }),
        ReviewedCommand::Mark {
            project_id,
            note,
            output,
        } => {
            let format = output.resolve();
            // From a script there is no loaded row: the newest snapshot's
            // state is what is marked reviewed.
            let new = NewMark {
                project_id: project_id.clone(),
                note,
                reviewer: local.config.reviewer_name(),
                seen: None,
            };
            let mark =
                local
                    .store
                    .mark_reviewed(&local.workspace, &new, OffsetDateTime::now_utc())?;
            match mark.reviewed_state_at {
                Some(at) => crate::stderr::line(format_args!(
                    "marked reviewed as the newest snapshot ({} UTC) shows it",
                    when(Some(at))
                )),
                None => crate::stderr::line(format_args!(
                    "note: no snapshot holds project {project_id} yet; changes are measured from the next snapshot that does"
                )),
            }
            write_one(&mark, format, None, |width| fields_table(&mark, width))
        }
        ReviewedCommand::Log { verify: true, .. } => {
            let entries = local.store.check_review_log(&local.workspace)?;
            crate::stderr::line(format_args!(
                "the review log of workspace {} in {} is intact: {entries} entries, each chained to the one before",
                local.workspace,
                local.store.describe()
            ));
            Ok(())
        }
        ReviewedCommand::Log {
            project_id, output, ..
        } => write_each(output.resolve(), |write| {
            let mut failed = None;
            let read = local.store.each_review_entry(
                &local.workspace,
                project_id.as_deref(),
                LogRead::Shown,
                &mut |entry| write(entry).map_err(|error| stop(&mut failed, error)),
            );
            finished(read, failed)
        }),
        ReviewedCommand::Unmark { project_id } => {
            let reviewer = local.config.reviewer_name();
            let now = OffsetDateTime::now_utc();
            if local.store.unmark_reviewed(
                &local.workspace,
                &project_id,
                reviewer.as_deref(),
                now,
            )? {
                crate::stderr::line(format_args!(
                    "project {project_id} is no longer marked reviewed"
                ));
            } else {
                crate::stderr::line(format_args!(
                    "project {project_id} was not marked reviewed: nothing to remove"
                ));
            }
            Ok(())
        }
    }
}
