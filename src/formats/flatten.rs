//! One rule for flattening an item into columns (CSV, field tables): nested
//! objects become dotted columns (`owner.display_name`), arrays of scalars are
//! joined with `|`, and arrays of objects are written as compact JSON. Cells are
//! raw text here; the writers make them safe.

use serde_json::Value;

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
