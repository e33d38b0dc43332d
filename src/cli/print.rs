//! Printing command results on stdout in the chosen [`Format`], through the
//! shared writers of `crate::formats`. JSON keeps the API's field names (the
//! model types serialized, in the contract's order); lists are streamed page by
//! page so memory stays flat.

use std::io::{IsTerminal, Write};
use std::pin::pin;

use futures::{Stream, StreamExt};
use serde::Serialize;
use serde_json::Value;

use super::exit::CliError;
use super::options::{Format, OutputArgs};
use super::progress::Progress;
use super::stdout::{PageBytes, StdoutPages};
use crate::api::{ApiError, CheckedJson};
use crate::formats::list::ListWriter;
use crate::formats::{CsvWriter, JsonLinesWriter, OutputError, json};

pub use crate::formats::table::DEFAULT_WIDTH;

/// How a command prints: the format, and the CSV formula guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Output {
    pub format: Format,
    /// `--csv-raw-formulas`: no leading `'` on cells that look like formulas.
    pub csv_raw_formulas: bool,
}

impl OutputArgs {
    /// The format asked for, else `table` on a terminal and `json` otherwise.
    pub fn resolve(&self) -> Output {
        Output {
            format: self.format.unwrap_or_else(|| {
                if std::io::stdout().is_terminal() {
                    Format::Table
                } else {
                    Format::Json
                }
            }),
            csv_raw_formulas: self.csv_raw_formulas,
        }
    }
}

impl Output {
    /// Whether a progress line may be drawn: stderr is a terminal, and stdout is
    /// not the same screen being filled with data.
    pub fn progress_visible(self) -> bool {
        crate::stderr::is_terminal()
            && (self.format == Format::Table || !std::io::stdout().is_terminal())
    }

    fn csv<W: Write>(self, out: W, template: Option<Value>) -> CsvWriter<W> {
        CsvWriter::with_template(out, template).raw_formulas(self.csv_raw_formulas)
    }
}

/// The terminal's width when stdout is one, else [`DEFAULT_WIDTH`].
pub fn output_width() -> usize {
    if std::io::stdout().is_terminal() {
        crossterm::terminal::size()
            .map(|(columns, _)| usize::from(columns))
            .ok()
            .filter(|&columns| columns > 0)
            .unwrap_or(DEFAULT_WIDTH)
    } else {
        DEFAULT_WIDTH
    }
}

pub use crate::formats::row::{Field, Row};

/// A list item passed through as the server's JSON text, for `json` and
/// `jsonl` only: the JSON writers write its text ([`Row::json_text`]) and
/// still make its bytes inert.
pub struct RawItem(pub CheckedJson);

impl Row for RawItem {
    const FIELDS: &'static [Field<Self>] = &[];

    fn json_text(&self) -> Option<&str> {
        Some(self.0.get())
    }
}

/// Any serializer but the JSON writers (which write [`Row::json_text`])
/// reads the text as JSON again.
impl Serialize for RawItem {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_json::value::RawValue::from_string(self.0.get().to_owned())
            .map_err(serde::ser::Error::custom)?
            .serialize(serializer)
    }
}

/// Writes every item of `stream` (at most `max`), flushing as pages arrive.
/// On an error the output stops where it failed (a JSON array is left open, so
/// it cannot pass for a complete one) and the error is returned.
pub async fn write_list<T, S>(
    stream: S,
    output: Output,
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
    let bytes = PageBytes::default();
    // Nothing is written before the first page arrives, so an error on it
    // leaves stdout empty.
    let mut sink: Option<ListSink<T>> = None;
    let mut out = StdoutPages::start();
    while let Some(page) = pages.next().await {
        let count = page.len() as u64;
        let mut failure = None;
        for item in page {
            match item {
                Ok(item) => {
                    let sink = match &mut sink {
                        Some(sink) => sink,
                        None => sink.insert(output.list_sink(bytes.clone())?),
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
            // Each page reaches the reader when it has arrived.
            sink.flush()?;
            out = out.send(&bytes).await?;
        }
        if let Some(error) = failure {
            progress.clear();
            out.finish().await?;
            return Err(error.into());
        }
        progress.items(count);
    }
    progress.clear();
    output.end_list(sink, &bytes)?;
    let out = out.send(&bytes).await?;
    out.finish().await?;
    Ok(())
}

/// Items written to stdout at a time by [`write_each`].
const EACH_PAGE: usize = 256;

/// What [`write_each`] hands its filler: writes one item.
pub type WriteItem<'a, T> = dyn FnMut(T) -> Result<(), OutputError> + Send + 'a;

/// Writes every item `fill` hands to its writer, in `output`'s format, to
/// stdout a page at a time as they come: a list the history reads a row at a
/// time (the review log, the marks) is never held whole. (A table is drawn
/// at the end, as every table is: its columns are as wide as their widest
/// cell.) On an error the output stops where it failed, as [`write_list`]'s.
pub fn write_each<T: Row + Send>(
    output: Output,
    fill: impl FnOnce(&mut WriteItem<'_, T>) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let bytes = PageBytes::default();
    let drain = |bytes: &PageBytes| -> Result<(), OutputError> {
        let page = bytes.take();
        if !page.is_empty() {
            let mut out = std::io::stdout().lock();
            out.write_all(&page)?;
            out.flush()?;
        }
        Ok(())
    };
    // Nothing is written before the first item, so an error before it
    // leaves stdout empty.
    let mut sink: Option<ListSink<T>> = None;
    let mut pending = 0;
    let filled = fill(&mut |item: T| {
        let sink = match &mut sink {
            Some(sink) => sink,
            None => sink.insert(output.list_sink(bytes.clone())?),
        };
        sink.write(&item)?;
        pending += 1;
        if pending == EACH_PAGE {
            pending = 0;
            sink.flush()?;
            drain(&bytes)?;
        }
        Ok(())
    });
    if let Err(error) = filled {
        if let Some(sink) = &mut sink {
            sink.flush()?;
            drain(&bytes)?;
        }
        return Err(error);
    }
    output.end_list(sink, &bytes)?;
    drain(&bytes)?;
    Ok(())
}

/// A list's writer in the chosen format, into the page's bytes: written to
/// stdout a page at a time (stdout alone is line-buffered, one write to the
/// pipe per JSON line or CSV row).
type ListSink<T> = ListWriter<T, PageBytes>;

impl Output {
    fn list_sink<T: Row>(self, out: PageBytes) -> Result<ListSink<T>, OutputError> {
        ListWriter::new(self.format.into(), out, self.csv_raw_formulas)
    }

    /// Ends a list: the sink's, or an empty one when no item came (`[]`,
    /// a table's header).
    fn end_list<T: Row>(
        self,
        sink: Option<ListSink<T>>,
        bytes: &PageBytes,
    ) -> Result<(), OutputError> {
        let sink = match sink {
            Some(sink) => sink,
            None => self.list_sink::<T>(bytes.clone())?,
        };
        sink.finish(output_width())?;
        Ok(())
    }
}

/// Writes one object: pretty JSON, one JSON line, one CSV row, or `table(width)`.
pub fn write_one<T: Serialize>(
    value: &T,
    output: Output,
    csv_template: Option<&Value>,
    table: impl FnOnce(usize) -> String,
) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match output.format {
        Format::Json => {
            json::to_writer_pretty(&mut out, value).map_err(OutputError::from)?;
            out.write_all(b"\n").map_err(OutputError::from)?;
        }
        Format::Jsonl => JsonLinesWriter::new(&mut out).write(value)?,
        Format::Csv => {
            let mut writer = output.csv(&mut out, csv_template.cloned());
            writer.write(value)?;
            writer.finish()?;
        }
        Format::Table => out
            .write_all(table(output_width()).as_bytes())
            .map_err(OutputError::from)?,
    }
    out.flush().map_err(OutputError::from)?;
    Ok(())
}

/// CSV rows under one header, across calls (watch mode). Each row reaches
/// stdout as it is written.
pub struct CsvRows {
    writer: Option<CsvWriter<std::io::Stdout>>,
    output: Output,
}

impl CsvRows {
    pub fn new(output: Output) -> Self {
        Self {
            writer: None,
            output,
        }
    }

    pub fn write<T: Serialize>(&mut self, item: &T) -> Result<(), OutputError> {
        let output = self.output;
        let writer = self
            .writer
            .get_or_insert_with(|| output.csv(std::io::stdout(), None));
        writer.write(item)?;
        writer.flush()
    }
}
