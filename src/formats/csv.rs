//! CSV for people and spreadsheets, through the `csv` crate (RFC 4180 quoting).
//!
//! A header row is taken from the first item (shaped by a template, if any);
//! later items are written in the header's columns, a column an item lacks left
//! empty. Every cell (header included) is made visible by
//! [`escape_invisible`], and, unless turned off, guarded against formula
//! injection (OWASP): a cell starting with `=`, `+`, `-`, `@`, tab or CR gets a
//! leading `'`, unless it is a plain number.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;

use serde::Serialize;
use serde_json::Value;

use super::error::OutputError;
use super::flatten::{conform, flatten};
use crate::text::escape_invisible;

pub struct CsvWriter<W: Write> {
    out: ::csv::Writer<W>,
    /// Column name to position, from the first item.
    header: Option<HashMap<String, usize>>,
    template: Option<Value>,
    formula_guard: bool,
}

impl<W: Write> CsvWriter<W> {
    /// A writer with the formula guard on and no template.
    pub fn new(out: W) -> Self {
        Self::with_template(out, None)
    }

    /// A writer whose rows all take `template`'s shape (see [`conform`]).
    pub fn with_template(out: W, template: Option<Value>) -> Self {
        Self {
            out: ::csv::WriterBuilder::new()
                .has_headers(false)
                .from_writer(out),
            header: None,
            template,
            formula_guard: true,
        }
    }

    /// Writes cells that look like formulas as they are (`--csv-raw-formulas`).
    /// Invisible characters are still escaped.
    pub fn raw_formulas(mut self, raw: bool) -> Self {
        self.formula_guard = !raw;
        self
    }

    pub fn write<T: Serialize + ?Sized>(&mut self, item: &T) -> Result<(), OutputError> {
        let mut value = serde_json::to_value(item)?;
        if let Some(template) = &self.template {
            conform(&mut value, template);
        }
        let pairs = flatten(&value);
        let guard = self.formula_guard;
        let header = match &self.header {
            Some(header) => header,
            None => {
                self.out.write_record(
                    pairs
                        .iter()
                        .map(|(name, _)| human_cell(name, guard).into_owned()),
                )?;
                let columns = pairs
                    .iter()
                    .enumerate()
                    .map(|(index, (name, _))| (name.clone(), index))
                    .collect();
                self.header.insert(columns)
            }
        };
        let mut row = vec![String::new(); header.len()];
        for (name, cell) in &pairs {
            if let Some(&index) = header.get(name) {
                row[index] = human_cell(cell, guard).into_owned();
            }
        }
        self.out.write_record(&row)?;
        Ok(())
    }

    /// Hands what is buffered to the underlying writer.
    pub fn flush(&mut self) -> Result<(), OutputError> {
        self.out.flush()?;
        Ok(())
    }

    pub fn finish(self) -> Result<W, OutputError> {
        let mut out = self
            .out
            .into_inner()
            .map_err(|error| OutputError::Io(error.into_error()))?;
        out.flush()?;
        Ok(out)
    }
}

/// One cell as people and spreadsheets may see it.
fn human_cell(raw: &str, formula_guard: bool) -> Cow<'_, str> {
    let visible = escape_invisible(raw);
    if formula_guard && looks_like_formula(raw) {
        Cow::Owned(format!("'{visible}"))
    } else {
        visible
    }
}

/// Starts with a character a spreadsheet reads as a formula, and is not a
/// plain number (`-12`, `+3.5`, `-1e-3`).
fn looks_like_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r']) && !is_plain_number(cell)
}

fn is_plain_number(cell: &str) -> bool {
    cell.chars()
        .all(|ch| ch.is_ascii_digit() || matches!(ch, '+' | '-' | '.' | 'e' | 'E'))
        && cell.chars().any(|ch| ch.is_ascii_digit())
        && cell.parse::<f64>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn csv(items: &[Value], raw: bool) -> String {
        let mut writer = CsvWriter::new(Vec::new()).raw_formulas(raw);
        for item in items {
            writer.write(item).unwrap();
        }
        String::from_utf8(writer.finish().unwrap()).unwrap()
    }

    #[test]
    fn a_null_object_in_the_first_row_keeps_its_columns() {
        let template = json!({"reason": {"id": null, "n": null}});
        let mut writer = CsvWriter::with_template(Vec::new(), Some(template));
        writer.write(&json!({"a": 1, "reason": null})).unwrap();
        writer
            .write(&json!({"a": 2, "reason": {"id": "x", "n": 3}}))
            .unwrap();
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        assert_eq!(text, "a,reason.id,reason.n\n1,,\n2,x,3\n");
    }

    #[test]
    fn quotes_and_makes_line_breaks_visible() {
        let text = csv(
            &[
                json!({"a": "x,y", "b": "say \"hi\"\nbye"}),
                json!({"a": "plain", "b": null}),
            ],
            false,
        );
        assert_eq!(text, "a,b\n\"x,y\",\"say \"\"hi\"\"\\nbye\"\nplain,\n");
    }

    #[test]
    fn a_later_item_keeps_the_header_columns() {
        let text = csv(
            &[json!({"a": 1, "b": 2}), json!({"b": 3, "c": 4, "a": 5})],
            false,
        );
        assert_eq!(text, "a,b\n1,2\n5,3\n");
    }

    #[test]
    fn formulas_get_a_leading_quote_unless_raw_or_a_number() {
        let cells = [
            ("=1+1", "'=1+1"),
            ("+1-2", "'+1-2"),
            ("-cmd", "'-cmd"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=x", "'\\t=x"),
            ("\r=x", "'\\r=x"),
            ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"),
            ("-12", "-12"),
            ("+3.5", "+3.5"),
            ("-1e-3", "-1e-3"),
            ("-", "'-"),
            ("-inf", "'-inf"),
            ("a=b", "a=b"),
        ];
        for (raw, guarded) in cells {
            let text = csv(&[json!({ "c": raw })], false);
            let row = text.lines().nth(1).unwrap().to_owned();
            let expected = if guarded.contains([',', '"']) {
                format!("\"{}\"", guarded.replace('"', "\"\""))
            } else {
                guarded.to_owned()
            };
            assert_eq!(row, expected, "{raw:?}");
        }
        let raw = csv(&[json!({"c": "=1+1", "d": "\u{1b}[2J"})], true);
        assert_eq!(raw, "c,d\n=1+1,\\x1b[2J\n");
    }

    #[test]
    fn hostile_strings_come_out_visible_and_guarded() {
        let hostile = crate::hostile::hostile_strings();
        let items: Vec<Value> = hostile.iter().map(|text| json!({ "name": text })).collect();
        let text = csv(&items, false);
        let mut reader = ::csv::ReaderBuilder::new().from_reader(text.as_bytes());
        let rows: Vec<String> = reader
            .records()
            .map(|record| record.unwrap()[0].to_owned())
            .collect();
        assert_eq!(rows.len(), hostile.len());
        for (row, raw) in rows.iter().zip(&hostile) {
            assert_eq!(row.trim_start_matches('\''), escape_invisible(raw));
        }
    }
}
