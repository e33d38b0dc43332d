//! The one writer of a list, in every format: the commands' stdout, the
//! dashboard's `ctrl-s` exports and the inventory's export all write through
//! [`ListWriter`], so a list's bytes are the same wherever they go. JSON, JSON
//! lines and CSV come from the item's serde shape (CSV through its
//! [`Row::csv_template`]); a table from its [`Row`] declaration.

use std::io::Write;
use std::marker::PhantomData;

use super::row::Row;
use super::table;
use super::{CsvWriter, JsonArrayWriter, JsonLinesWriter, OutputError};

/// The formats a list is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFormat {
    /// One JSON array of every item.
    Json,
    /// One JSON object per line.
    Jsonl,
    /// A header row, then a row per item; nested fields become dotted columns.
    Csv,
    /// Aligned columns, drawn whole at the end (columns as wide as their
    /// widest cell).
    Table,
}

/// Items of type `T` written to `W` in one [`ListFormat`].
pub struct ListWriter<T, W: Write> {
    sink: Sink<W>,
    items: PhantomData<fn(&T)>,
}

enum Sink<W: Write> {
    Json(JsonArrayWriter<W>),
    Jsonl(JsonLinesWriter<W>),
    Csv(Box<CsvWriter<W>>),
    Table(W, Vec<Vec<String>>),
}

impl<T: Row, W: Write> ListWriter<T, W> {
    /// A writer of `format` into `out`; `raw_formulas` turns CSV's formula
    /// guard off (`--csv-raw-formulas`). A JSON array opens at once.
    pub fn new(format: ListFormat, out: W, raw_formulas: bool) -> Result<Self, OutputError> {
        let sink = match format {
            ListFormat::Json => Sink::Json(JsonArrayWriter::new(out)?),
            ListFormat::Jsonl => Sink::Jsonl(JsonLinesWriter::new(out)),
            ListFormat::Csv => Sink::Csv(Box::new(
                CsvWriter::with_template(out, T::csv_template()).raw_formulas(raw_formulas),
            )),
            ListFormat::Table => Sink::Table(out, Vec::new()),
        };
        Ok(Self {
            sink,
            items: PhantomData,
        })
    }

    pub fn write(&mut self, item: &T) -> Result<(), OutputError> {
        match &mut self.sink {
            Sink::Json(writer) => match item.json_text() {
                Some(json) => writer.write_text(json),
                None => writer.write(item),
            },
            Sink::Jsonl(writer) => match item.json_text() {
                Some(json) => writer.write_text(json),
                None => writer.write(item),
            },
            Sink::Csv(writer) => writer.write(item),
            Sink::Table(_, rows) => {
                rows.push(item.cells());
                Ok(())
            }
        }
    }

    /// Moves what the format holds into `W` (a table waits for its end).
    pub fn flush(&mut self) -> Result<(), OutputError> {
        match &mut self.sink {
            Sink::Json(writer) => writer.flush(),
            Sink::Jsonl(writer) => writer.flush(),
            Sink::Csv(writer) => writer.flush(),
            Sink::Table(..) => Ok(()),
        }
    }

    /// Ends the list (closes a JSON array, draws a table `width` cells wide)
    /// and hands `W` back, flushed.
    pub fn finish(self, width: usize) -> Result<W, OutputError> {
        match self.sink {
            Sink::Json(writer) => writer.finish(),
            Sink::Jsonl(writer) => writer.finish(),
            Sink::Csv(writer) => writer.finish(),
            Sink::Table(mut out, rows) => {
                out.write_all(table::render(&T::columns(), &rows, width).as_bytes())?;
                out.flush()?;
                Ok(out)
            }
        }
    }
}
