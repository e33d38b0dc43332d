//! A command's reads under a progress line on stderr, and one resource shown
//! whole: what every command that reads does before it writes.

use std::future::Future;

use serde::Serialize;

use super::exit::CliError;
use super::print::{Output, write_one};
use super::progress::{Progress, ProgressTask};
use super::views;
use crate::api::ApiError;
use crate::session::Session;

/// Awaits `read` under a progress line named `label`.
pub async fn read_one<T>(
    session: &Session,
    label: &str,
    output: Output,
    read: impl Future<Output = Result<T, ApiError>>,
) -> Result<T, CliError> {
    let (progress, _task) = start_progress(session, label, output);
    let value = read.await?;
    progress.clear();
    Ok(value)
}

/// Reads one resource as [`read_one`] does, and shows every field of it.
pub async fn show_one<T: Serialize>(
    session: &Session,
    label: &str,
    output: Output,
    read: impl Future<Output = Result<T, ApiError>>,
) -> Result<(), CliError> {
    let value = read_one(session, label, output, read).await?;
    write_one(&value, output, None, |width| {
        views::fields_table(&value, width)
    })
}

/// A progress line on stderr, drawn only where `output` allows one.
pub fn start_progress(session: &Session, label: &str, output: Output) -> (Progress, ProgressTask) {
    Progress::start(&session.client, label, output.progress_visible())
}
