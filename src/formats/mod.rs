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
mod error;
pub mod findings;
pub mod flatten;
pub mod history;
pub mod json;
pub mod list;
pub mod listed;
pub mod members;
pub mod projects;
pub mod row;
pub mod table;
pub mod traffic;

pub use self::csv::CsvWriter;
pub use self::error::OutputError;
pub use self::flatten::{conform, flatten, inventory_item_template, nulls};
pub use self::json::{JsonArrayWriter, JsonLinesWriter};
