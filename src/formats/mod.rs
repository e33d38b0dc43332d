//! The writers of every output format, shared by the script commands and the
//! dashboard's exports, so that a rule of "Output that is safe to look at"
//! (DESIGN.md) holds in every destination (file, pipe or terminal):
//!
//! - `table` and `csv` are for people: every control, DEL, C1, bidi control and
//!   invisible format character is written as a visible escape
//!   ([`crate::text::escape_invisible`]); CSV also guards against formula
//!   injection unless asked not to.
//! - `json` and `jsonl` are lossless: the same characters are written as
//!   `\uXXXX` escapes, so the bytes are inert on a screen and the parsed value is
//!   the server's.
//!
//! Flattening (for CSV and field tables) is [`flatten`]'s one rule.

pub mod csv;
pub mod flatten;
pub mod json;
pub mod table;

pub use self::csv::CsvWriter;
pub use self::flatten::{conform, flatten, inventory_item_template, nulls};
pub use self::json::{JsonArrayWriter, JsonLinesWriter};

#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("cannot write output: {0}")]
    Io(#[from] std::io::Error),
    #[error("cannot encode an item as JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("cannot write CSV: {0}")]
    Csv(String),
}

impl OutputError {
    /// The reader went away (`| head`): not worth reporting.
    pub fn is_broken_pipe(&self) -> bool {
        let kind = match self {
            Self::Io(error) => Some(error.kind()),
            Self::Json(error) => error.io_error_kind(),
            Self::Csv(_) => None,
        };
        kind == Some(std::io::ErrorKind::BrokenPipe)
    }
}

impl From<::csv::Error> for OutputError {
    fn from(error: ::csv::Error) -> Self {
        match error.into_kind() {
            ::csv::ErrorKind::Io(error) => Self::Io(error),
            other => Self::Csv(format!("{other:?}")),
        }
    }
}
