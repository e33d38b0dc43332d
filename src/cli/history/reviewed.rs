//! `vantage reviewed list|mark|unmark|log`: reviewed marks per workspace, and
//! the log of who marked or unmarked what.

use time::OffsetDateTime;

use super::Local;
use super::args::ReviewedCommand;
use crate::api::ApiError;
use crate::cli::exit::CliError;
use crate::cli::print::{write_each, write_one};
use crate::cli::views::fields_table;
use crate::formats::OutputError;
use crate::formats::row::when;
use crate::history::{HistoryError, LogRead, MarkScope, NewMark, SeenState};
use crate::session::{GlobalArgs, Session};

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

pub async fn run(
    command: ReviewedCommand,
    local: &Local,
    global: &GlobalArgs,
) -> Result<(), CliError> {
    let workspace = local.workspace.clone();
    match command {
        ReviewedCommand::List { output } => {
            local
                .store
                .with(move |store| {
                    write_each(output.resolve(), |write| {
                        let mut failed = None;
                        let read =
                            store.each_reviewed_mark(&workspace, MarkScope::All, &mut |mark| {
                                write(mark).map_err(|error| stop(&mut failed, error))
                            });
                        finished(read, failed)
                    })
                })
                .await
        }
        ReviewedCommand::Mark {
            project_id,
            note,
            output,
        } => {
            let format = output.resolve();
            let now = OffsetDateTime::now_utc();
            let (seen, said) = seen_now(local, global, &project_id, now).await?;
            let new = NewMark {
                project_id: project_id.clone(),
                note,
                reviewer: local.config.reviewer_name(),
                seen,
            };
            let live_state = new.seen.is_some();
            let mark = local
                .store
                .with(move |store| store.mark_reviewed(&workspace, &new, now))
                .await?;
            let what = match (said, mark.reviewed_state_at) {
                (Said::Live, _) if live_state => {
                    "marked reviewed as the service shows it now (read live)".to_owned()
                }
                (Said::Live, _) => format!(
                    "read live, but no snapshot holds project {project_id} yet (its inventory fields): changes are measured from the next snapshot that does"
                ),
                (Said::Offline(why), Some(at)) => format!(
                    "{why}: marked reviewed as the newest snapshot ({} UTC) shows it",
                    when(Some(at))
                ),
                (Said::Offline(why), None) => format!(
                    "{why}, and no snapshot holds project {project_id} yet: changes are measured from the next snapshot that does"
                ),
            };
            crate::stderr::line(format_args!("{what}"));
            write_one(&mark, format, None, |width| fields_table(&mark, width))
        }
        ReviewedCommand::Log { verify: true, .. } => {
            let entries = local
                .store
                .with(move |store| store.check_review_log(&workspace))
                .await?;
            crate::stderr::line(format_args!(
                "the review log of workspace {} in {} is intact: {entries} entries, each chained to the one before",
                local.workspace,
                local.store.describe()
            ));
            Ok(())
        }
        ReviewedCommand::Log {
            project_id, output, ..
        } => {
            local
                .store
                .with(move |store| {
                    write_each(output.resolve(), |write| {
                        let mut failed = None;
                        let read = store.each_review_entry(
                            &workspace,
                            project_id.as_deref(),
                            LogRead::Shown,
                            &mut |entry| write(entry).map_err(|error| stop(&mut failed, error)),
                        );
                        finished(read, failed)
                    })
                })
                .await
        }
        ReviewedCommand::Unmark { project_id } => {
            let reviewer = local.config.reviewer_name();
            let now = OffsetDateTime::now_utc();
            let project = project_id.clone();
            let removed = local
                .store
                .with(move |store| {
                    store.unmark_reviewed(&workspace, &project, reviewer.as_deref(), now)
                })
                .await?;
            if removed {
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

/// Where the state a mark holds came from.
enum Said {
    /// A read of the project just now.
    Live,
    /// Not from the service, and why: the newest snapshot's state is held.
    Offline(String),
}

/// The project as it is now, for the mark to hold: one read of the project
/// laid over the newest snapshot's state of it (the inventory's fields only
/// a snapshot holds). Only a service out of reach (or no key) falls back to
/// the snapshot alone; any other refusal (the project is gone, a key without
/// the scope) is the command's error: nothing is marked.
async fn seen_now(
    local: &Local,
    global: &GlobalArgs,
    project_id: &str,
    now: OffsetDateTime,
) -> Result<(Option<SeenState>, Said), CliError> {
    let session = match Session::connect(global) {
        Ok(session) => session,
        Err(error) => {
            let why = format!(
                "the service was not asked ({})",
                crate::text::escape_invisible(&error.to_string())
            );
            return Ok((None, Said::Offline(why)));
        }
    };
    let project = match session.client.get_project(project_id).await {
        Ok(project) => project,
        Err(error) if unreachable(&error) => {
            let why = format!(
                "the service could not be reached ({})",
                crate::text::escape_invisible(&error.to_string())
            );
            return Ok((None, Said::Offline(why)));
        }
        Err(error) => return Err(error.into()),
    };
    let (workspace, project_id) = (local.workspace.clone(), project_id.to_owned());
    let seen = local
        .store
        .with(move |store| store.latest_project_state(&workspace, &project_id))
        .await?
        .map(|(_, state)| SeenState {
            state: state.with_project(&project),
            read_at: now,
        });
    Ok((seen, Said::Live))
}

/// No answer, or the service unavailable after the client's retries.
fn unreachable(error: &ApiError) -> bool {
    match error {
        ApiError::Transport(_) => true,
        ApiError::Api(response) => response.status >= 500,
        _ => false,
    }
}
