//! Writing API items as CSV and JSON, for exports from the TUI and for the script
//! commands. One rule for flattening: nested objects become dotted columns
//! (`owner.display_name`), arrays of scalars are joined with `|`, and arrays of
//! objects are written as compact JSON. Files keep the data as sent (no
//! sanitizing: a file is not a terminal).

use std::io::Write;

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("cannot write output: {0}")]
    Io(#[from] std::io::Error),
    #[error("cannot encode an item as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// Flattens one JSON value into `(column, cell)` pairs, in field order.
pub fn flatten(value: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    flatten_into(String::new(), value, &mut out);
    out
}

fn flatten_into(prefix: String, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, field) in map {
                let name = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten_into(name, field, out);
            }
        }
        other => out.push((prefix, cell(other))),
    }
}

fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => number.to_string(),
        Value::Array(items)
            if items
                .iter()
                .all(|item| !item.is_object() && !item.is_array()) =>
        {
            items.iter().map(cell).collect::<Vec<_>>().join("|")
        }
        other => other.to_string(),
    }
}

/// Quotes a CSV field when it needs it (RFC 4180).
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// Gives every `null` that `template` knows as an object the template's shape
/// (all leaves `null`), so that every row of a CSV has the same columns even
/// when the first row's nested object is null.
pub fn conform(value: &mut Value, template: &Value) {
    let (Value::Object(fields), Value::Object(shape)) = (value, template) else {
        return;
    };
    for (name, expected) in shape {
        match fields.get_mut(name) {
            Some(field @ Value::Null) if expected.is_object() => *field = nulls(expected),
            Some(field) => conform(field, expected),
            None => {}
        }
    }
}

/// `value` with every leaf replaced by `null`.
pub fn nulls(value: &Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(name, field)| (name.clone(), nulls(field)))
                .collect(),
        ),
        _ => Value::Null,
    }
}

/// The CSV shape of an inventory item: `matched_reason` may be null, and its
/// columns must be there all the same.
pub fn inventory_item_template() -> Value {
    use crate::api::model::{MatchedReason, ReasonValues, ReviewPriority};
    let reason = MatchedReason {
        id: String::new(),
        label: String::new(),
        detail: String::new(),
        category: String::new(),
        review_priority: ReviewPriority::Unscored,
        values: ReasonValues::default(),
    };
    let reason = serde_json::to_value(reason).unwrap_or(Value::Null);
    serde_json::json!({ "matched_reason": nulls(&reason) })
}

/// CSV with a header row taken from the first item (shaped by the template, if
/// any); later items are written in the header's columns (a column an item lacks
/// is left empty).
pub struct CsvWriter<W: Write> {
    out: W,
    header: Option<Vec<String>>,
    template: Option<Value>,
}

impl<W: Write> CsvWriter<W> {
    pub fn new(out: W) -> Self {
        Self::with_template(out, None)
    }

    /// A writer whose rows all take `template`'s shape (see [`conform`]).
    pub fn with_template(out: W, template: Option<Value>) -> Self {
        Self {
            out,
            header: None,
            template,
        }
    }

    pub fn write<T: Serialize>(&mut self, item: &T) -> Result<(), OutputError> {
        let mut value = serde_json::to_value(item)?;
        if let Some(template) = &self.template {
            conform(&mut value, template);
        }
        let pairs = flatten(&value);
        let header = match &self.header {
            Some(header) => header,
            None => {
                let names: Vec<String> = pairs.iter().map(|(name, _)| name.clone()).collect();
                let line: Vec<String> = names.iter().map(|name| csv_field(name)).collect();
                writeln!(self.out, "{}", line.join(","))?;
                self.header.insert(names)
            }
        };
        let row: Vec<String> = header
            .iter()
            .map(|name| {
                pairs
                    .iter()
                    .find(|(key, _)| key == name)
                    .map(|(_, value)| csv_field(value))
                    .unwrap_or_default()
            })
            .collect();
        writeln!(self.out, "{}", row.join(","))?;
        Ok(())
    }

    pub fn finish(mut self) -> Result<W, OutputError> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// A JSON array written item by item, so memory stays flat for any size.
pub struct JsonArrayWriter<W: Write> {
    out: W,
    count: usize,
}

impl<W: Write> JsonArrayWriter<W> {
    pub fn new(mut out: W) -> Result<Self, OutputError> {
        out.write_all(b"[")?;
        Ok(Self { out, count: 0 })
    }

    pub fn write<T: Serialize>(&mut self, item: &T) -> Result<(), OutputError> {
        if self.count > 0 {
            self.out.write_all(b",")?;
        }
        self.out.write_all(b"\n  ")?;
        serde_json::to_writer(&mut self.out, item)?;
        self.count += 1;
        Ok(())
    }

    pub fn finish(mut self) -> Result<W, OutputError> {
        if self.count > 0 {
            self.out.write_all(b"\n")?;
        }
        self.out.write_all(b"]\n")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flattens_predictably() {
        let value = json!({
            "id": "p1",
            "owner": {"display_name": "Ada"},
            "connectors": ["stripe", "github"],
            "edge_functions": [{"name": "a"}],
            "name": null,
            "count": 3,
            "ok": true
        });
        assert_eq!(
            flatten(&value),
            vec![
                ("id".into(), "p1".into()),
                ("owner.display_name".into(), "Ada".into()),
                ("connectors".into(), "stripe|github".into()),
                ("edge_functions".into(), "[{\"name\":\"a\"}]".into()),
                ("name".into(), "".into()),
                ("count".into(), "3".into()),
                ("ok".into(), "true".into()),
            ]
        );
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
    fn writes_csv_with_quoting() {
        let mut writer = CsvWriter::new(Vec::new());
        writer
            .write(&json!({"a": "x,y", "b": "say \"hi\"\nbye"}))
            .unwrap();
        writer.write(&json!({"a": "plain", "b": null})).unwrap();
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        assert_eq!(text, "a,b\n\"x,y\",\"say \"\"hi\"\"\nbye\"\nplain,\n");
    }

    #[test]
    fn writes_a_json_array_incrementally() {
        let mut writer = JsonArrayWriter::new(Vec::new()).unwrap();
        writer.write(&json!({"a": 1})).unwrap();
        writer.write(&json!({"a": 2})).unwrap();
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed, json!([{"a": 1}, {"a": 2}]));
        let empty = JsonArrayWriter::new(Vec::new()).unwrap().finish().unwrap();
        assert_eq!(serde_json::from_slice::<Value>(&empty).unwrap(), json!([]));
    }

    #[test]
    fn null_objects_take_the_template_shape() {
        let template = json!({"matched_reason": {"id": "x", "values": {"n": 1}}});
        let mut first = json!({"id": "p1", "matched_reason": null});
        conform(&mut first, &template);
        assert_eq!(
            first,
            json!({"id": "p1", "matched_reason": {"id": null, "values": {"n": null}}})
        );
        let mut second = json!({"id": "p2", "matched_reason": {"id": "r", "values": {"n": 3}}});
        let before = second.clone();
        conform(&mut second, &template);
        assert_eq!(second, before);
        let columns = |value: &Value| -> Vec<String> {
            flatten(value).into_iter().map(|(name, _)| name).collect()
        };
        assert_eq!(columns(&first), columns(&second));
    }
}
