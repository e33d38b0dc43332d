//! Writing command results to stdout in the chosen [`Format`]. JSON keeps the
//! API's field names (the model types serialized, in the contract's order);
//! lists are streamed page by page so memory stays flat; CSV and flattening
//! are `crate::output`'s rule; tables are `table`'s.

use std::io::{IsTerminal, StdoutLock, Write};
use std::pin::pin;

use futures::{Stream, StreamExt};
use serde::Serialize;
use serde_json::Value;

use super::args::Format;
use super::exit::CliError;
use super::progress::Progress;
use super::table::{self, Column};
use crate::api::ApiError;
use crate::output::{CsvWriter, JsonArrayWriter, OutputError};

/// The format asked for, else `table` on a terminal and `json` otherwise.
pub fn resolve(format: Option<Format>) -> Format {
    format.unwrap_or_else(|| {
        if std::io::stdout().is_terminal() {
            Format::Table
        } else {
            Format::Json
        }
    })
}

/// Whether a progress line may be drawn: stderr is a terminal, and stdout is
/// not the same screen being filled with data.
pub fn progress_visible(format: Format) -> bool {
    std::io::stderr().is_terminal() && (format == Format::Table || !std::io::stdout().is_terminal())
}

/// An item of a list, as a table row.
pub trait Row: Serialize {
    fn columns() -> &'static [Column];
    fn cells(&self) -> Vec<String>;
    /// The full shape of fields that may be `null` or an object, so CSV
    /// columns never depend on which item comes first (see [`conform`]).
    fn csv_template() -> Option<Value> {
        None
    }
}

/// Writes every item of `stream` (at most `max`), flushing as pages arrive.
/// On an error the output stops where it failed (a JSON array is left open, so
/// it cannot pass for a complete one) and the error is returned.
pub async fn write_list<T, S>(
    stream: S,
    format: Format,
    max: Option<u64>,
    progress: &Progress,
) -> Result<(), CliError>
where
    T: Row,
    S: Stream<Item = Result<T, ApiError>>,
{
    let limit = max.map_or(usize::MAX, |max| usize::try_from(max).unwrap_or(usize::MAX));
    // Items of one page are ready together: one chunk is (about) one page.
    let mut pages = pin!(stream.take(limit).ready_chunks(100));
    // Nothing is written before the first page arrives, so an error on it
    // leaves stdout empty.
    let mut sink: Option<ListSink<'_, T>> = None;
    while let Some(page) = pages.next().await {
        let count = page.len() as u64;
        let mut failure = None;
        for item in page {
            match item {
                Ok(item) => {
                    let sink = match &mut sink {
                        Some(sink) => sink,
                        None => sink.insert(ListSink::new(format, std::io::stdout().lock())?),
                    };
                    sink.write(&item)?;
                }
                Err(error) => {
                    failure = Some(error);
                    break;
                }
            }
        }
        if let Some(sink) = &mut sink {
            sink.flush()?;
        }
        if let Some(error) = failure {
            progress.clear();
            return Err(error.into());
        }
        progress.items(count);
    }
    progress.clear();
    match sink {
        Some(sink) => sink.finish()?,
        None => ListSink::<T>::new(format, std::io::stdout().lock())?.finish()?,
    }
    Ok(())
}

enum ListSink<'a, T> {
    Json(JsonArrayWriter<StdoutLock<'a>>),
    Jsonl(StdoutLock<'a>),
    Csv(CsvWriter<StdoutLock<'a>>),
    Table(
        StdoutLock<'a>,
        Vec<Vec<String>>,
        std::marker::PhantomData<T>,
    ),
}

impl<'a, T: Row> ListSink<'a, T> {
    fn new(format: Format, out: StdoutLock<'a>) -> Result<Self, OutputError> {
        Ok(match format {
            Format::Json => Self::Json(JsonArrayWriter::new(out)?),
            Format::Jsonl => Self::Jsonl(out),
            Format::Csv => Self::Csv(CsvWriter::with_template(out, T::csv_template())),
            Format::Table => Self::Table(out, Vec::new(), std::marker::PhantomData),
        })
    }

    fn write(&mut self, item: &T) -> Result<(), OutputError> {
        match self {
            Self::Json(writer) => writer.write(item),
            Self::Jsonl(out) => {
                serde_json::to_writer(&mut *out, item)?;
                out.write_all(b"\n")?;
                Ok(())
            }
            Self::Csv(writer) => writer.write(item),
            Self::Table(_, rows, _) => {
                rows.push(item.cells());
                Ok(())
            }
        }
    }

    fn flush(&mut self) -> Result<(), OutputError> {
        match self {
            Self::Jsonl(out) => out.flush()?,
            // The JSON and CSV writers sit on stdout's line buffer: each line is
            // written when it ends.
            Self::Json(_) | Self::Csv(..) | Self::Table(..) => {}
        }
        Ok(())
    }

    fn finish(self) -> Result<(), OutputError> {
        match self {
            Self::Json(writer) => drop(writer.finish()?),
            Self::Jsonl(mut out) => out.flush()?,
            Self::Csv(writer) => drop(writer.finish()?),
            Self::Table(mut out, rows, _) => {
                out.write_all(
                    table::render(T::columns(), &rows, table::output_width()).as_bytes(),
                )?;
                out.flush()?;
            }
        }
        Ok(())
    }
}

/// Writes one object: pretty JSON, one JSON line, one CSV row, or `table(width)`.
pub fn write_one<T: Serialize>(
    value: &T,
    format: Format,
    csv_template: Option<&Value>,
    table: impl FnOnce(usize) -> String,
) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, value).map_err(OutputError::from)?;
            out.write_all(b"\n").map_err(OutputError::from)?;
        }
        Format::Jsonl => {
            serde_json::to_writer(&mut out, value).map_err(OutputError::from)?;
            out.write_all(b"\n").map_err(OutputError::from)?;
        }
        Format::Csv => {
            let mut writer = CsvWriter::with_template(&mut out, csv_template.cloned());
            writer.write(value)?;
            writer.finish()?;
        }
        Format::Table => out
            .write_all(table(table::output_width()).as_bytes())
            .map_err(OutputError::from)?,
    }
    out.flush().map_err(OutputError::from)?;
    Ok(())
}

/// CSV rows under one header, across calls (watch mode). Each row reaches
/// stdout when its line ends.
pub struct CsvRows(Option<CsvWriter<std::io::Stdout>>);

impl CsvRows {
    pub fn new() -> Self {
        Self(None)
    }

    pub fn write<T: Serialize>(&mut self, item: &T) -> Result<(), OutputError> {
        self.0
            .get_or_insert_with(|| CsvWriter::new(std::io::stdout()))
            .write(item)
    }
}

impl Default for CsvRows {
    fn default() -> Self {
        Self::new()
    }
}
