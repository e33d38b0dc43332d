//! `vantage analytics`: a project's realtime visitors (once, or watched in
//! place), its traffic and its breakdowns.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use super::args::AnalyticsCommand;
use super::exit::CliError;
use super::options::Format;
use super::print::{CsvRows, Output, output_width, write_one};
use super::read::{read_one, start_progress};
use super::views;
use crate::session::Session;

pub(crate) async fn run(session: &Session, command: AnalyticsCommand) -> Result<(), CliError> {
    match command {
        AnalyticsCommand::Realtime {
            project_id,
            watch,
            interval,
            count,
            output,
        } => {
            let output = output.resolve();
            let refreshes = if watch { count } else { Some(1) };
            realtime(
                session,
                &project_id,
                output,
                Duration::from_secs(interval),
                refreshes,
            )
            .await
        }
        AnalyticsCommand::Traffic(args) => super::traffic::run(session, args).await,
        AnalyticsCommand::Breakdowns {
            project_id,
            from,
            to,
            output,
        } => {
            let output = output.resolve();
            let read = session.client.get_breakdowns(&project_id, from, to);
            let breakdowns = read_one(session, "breakdowns", output, read).await?;
            if output.format == Format::Csv {
                let mut rows = CsvRows::new(output);
                for row in crate::formats::traffic::breakdown_rows(&breakdowns) {
                    rows.write(&row)?;
                }
                return Ok(());
            }
            write_one(&breakdowns, output, None, |width| {
                views::breakdowns_table(&breakdowns, width)
            })
        }
    }
}

/// Shows realtime analytics `refreshes` times (`None`: until Ctrl-C), every
/// `interval`. On a terminal the table is redrawn in place.
async fn realtime(
    session: &Session,
    project_id: &str,
    output: Output,
    interval: Duration,
    refreshes: Option<u64>,
) -> Result<(), CliError> {
    let watching = refreshes != Some(1);
    let in_place = watching && output.format == Format::Table && std::io::stdout().is_terminal();
    let (progress, _task) = start_progress(session, "realtime", output);
    let mut csv = CsvRows::new(output);
    let mut drawn_lines = 0usize;
    let mut shown = 0u64;
    let refresh_loop = async {
        loop {
            let realtime = session.client.get_realtime(project_id).await?;
            progress.clear();
            match output.format {
                Format::Csv => csv.write(&realtime)?,
                Format::Table if watching => {
                    let mut text = views::realtime_table(&realtime, output_width());
                    text.push_str(&format!(
                        "updated {} UTC; every {} s, Ctrl-C to stop\n",
                        views::clock_time(time::OffsetDateTime::now_utc()),
                        interval.as_secs()
                    ));
                    let mut out = std::io::stdout().lock();
                    let erase = if in_place && drawn_lines > 0 {
                        format!("\x1b[{drawn_lines}A\x1b[J")
                    } else if drawn_lines > 0 {
                        "\n".to_owned()
                    } else {
                        String::new()
                    };
                    out.write_all(format!("{erase}{text}").as_bytes())
                        .and_then(|()| out.flush())
                        .map_err(crate::formats::OutputError::from)?;
                    drawn_lines = text.lines().count();
                }
                _ => write_one(&realtime, output, None, |width| {
                    views::realtime_table(&realtime, width)
                })?,
            }
            shown += 1;
            if refreshes.is_some_and(|limit| shown >= limit) {
                return Ok::<(), CliError>(());
            }
            tokio::time::sleep(interval).await;
        }
    };
    tokio::select! {
        result = refresh_loop => result,
        _ = tokio::signal::ctrl_c(), if watching => {
            progress.clear();
            Ok(())
        }
    }
}
