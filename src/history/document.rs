//! States kept as documents: a state is stored as its JSON body, with the
//! version of its shape and a digest of its content (equal states share one
//! stored row). A store backend keeps `(kind, shape, digest, body)` and knows
//! nothing of the fields; what "changed since review" compares is a list of
//! named fields ([`NamedField`]), read from the bodies by key.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A state stored as a document.
pub trait Document: Serialize + DeserializeOwned {
    /// What kind of state this is (`project`, `member`, `insights`).
    const KIND: &'static str;
    /// The version of the document's shape: raised when a field is added, so a
    /// comparison knows which fields an older document could not hold.
    const SHAPE: u32;
}

/// A state ready to store: its body, shape and digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredDocument {
    pub kind: &'static str,
    pub shape: u32,
    pub digest: [u8; 16],
    pub body: String,
}

impl StoredDocument {
    pub fn of<T: Document>(state: &T) -> Self {
        // Serializing plain strings, numbers and arrays cannot fail; an empty
        // body would only make two states share a digest, never lose one.
        let body = serde_json::to_string(state).unwrap_or_default();
        Self::from_body(T::KIND, T::SHAPE, body)
    }

    /// The digest covers the kind and the shape too: the same body in a newer
    /// shape is another document.
    pub fn from_body(kind: &'static str, shape: u32, body: String) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(kind.as_bytes());
        hasher.update([0]);
        hasher.update(shape.to_le_bytes());
        hasher.update(body.as_bytes());
        let full = hasher.finalize();
        let mut digest = [0u8; 16];
        digest.copy_from_slice(&full[..16]);
        Self {
            kind,
            shape,
            digest,
            body,
        }
    }
}

/// A document read back for a comparison: its shape and its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapedBody {
    pub shape: u32,
    pub body: Value,
}

/// How a field's change is said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// Only its name (`name`): the values are long, or said elsewhere.
    Name,
    /// `visibility: workspace_edit → workspace_view`.
    Values,
    /// A count: `open PII 2 → 3`.
    Count,
    /// A sorted list: `finding types: +secret −pii`.
    Set,
}

/// One field of a document that a comparison looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedField {
    /// The document's key.
    pub key: &'static str,
    /// What a reviewer reads.
    pub label: &'static str,
    pub shown: Shown,
    /// The first shape that holds the field: an older document never had it,
    /// so comparing it with a newer one would flag a change nobody made.
    pub since_shape: u32,
    /// `null` means "not known" (not read within the budget), never a value.
    pub null_is_unknown: bool,
}

impl NamedField {
    pub const fn new(key: &'static str, label: &'static str, shown: Shown) -> Self {
        Self {
            key,
            label,
            shown,
            since_shape: 1,
            null_is_unknown: false,
        }
    }

    /// A field added in a later `shape`: a comparison with an older state
    /// skips it.
    #[allow(
        dead_code,
        reason = "how a field added in a later shape is declared; none is yet"
    )]
    pub const fn since(self, shape: u32) -> Self {
        Self {
            since_shape: shape,
            ..self
        }
    }

    pub const fn unknown_when_null(self) -> Self {
        Self {
            null_is_unknown: true,
            ..self
        }
    }
}

/// One field that differs, with both values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldChange {
    /// The document's key (`visibility`).
    pub field: String,
    /// As a reviewer reads it: `visibility: workspace_edit → workspace_view`.
    pub summary: String,
    pub before: Value,
    pub after: Value,
}

impl fmt::Display for FieldChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary)
    }
}

/// A value as a reviewer reads it.
fn said(value: &Value) -> String {
    match value {
        Value::Null => "none".to_owned(),
        Value::String(text) => text.clone(),
        Value::Array(items) => items.iter().map(said).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items.iter().map(said).collect(),
        Value::Null => Vec::new(),
        other => vec![said(other)],
    }
}

fn summary(field: &NamedField, before: &Value, after: &Value) -> String {
    let label = field.label;
    match field.shown {
        Shown::Name => label.to_owned(),
        Shown::Values => format!("{label}: {} → {}", said(before), said(after)),
        Shown::Count => format!("{label} {} → {}", said(before), said(after)),
        Shown::Set => {
            let (old, new) = (strings(before), strings(after));
            let mut parts: Vec<String> = new
                .iter()
                .filter(|value| !old.contains(value))
                .map(|value| format!("+{value}"))
                .collect();
            parts.extend(
                old.iter()
                    .filter(|value| !new.contains(value))
                    .map(|value| format!("−{value}")),
            );
            format!("{label}: {}", parts.join(" "))
        }
    }
}

/// The fields of `fields` that differ from `before` to `after`. A field is
/// compared only when both documents' shapes hold it, and, where null means
/// unknown, only when both know it.
pub fn changed_fields(
    fields: &[NamedField],
    before: &ShapedBody,
    after: &ShapedBody,
) -> Vec<FieldChange> {
    let oldest_shape = before.shape.min(after.shape);
    fields
        .iter()
        .filter(|field| field.since_shape <= oldest_shape)
        .filter_map(|field| {
            let old = before.body.get(field.key).unwrap_or(&Value::Null);
            let new = after.body.get(field.key).unwrap_or(&Value::Null);
            let unknown = field.null_is_unknown && (old.is_null() || new.is_null());
            (old != new && !unknown).then(|| FieldChange {
                field: field.key.to_owned(),
                summary: summary(field, old, new),
                before: old.clone(),
                after: new.clone(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn shaped(shape: u32, body: Value) -> ShapedBody {
        ShapedBody { shape, body }
    }

    const FIELDS: &[NamedField] = &[
        NamedField::new("name", "name", Shown::Name),
        NamedField::new("visibility", "visibility", Shown::Values),
        NamedField::new("pii_open", "open PII", Shown::Count).unknown_when_null(),
        NamedField::new("finding_types", "finding types", Shown::Set),
    ];

    #[test]
    fn fields_that_differ_are_named_as_a_reviewer_reads_them() {
        let before = shaped(
            1,
            json!({"name": "a", "visibility": "workspace_edit", "pii_open": 2, "finding_types": ["pii", "x"]}),
        );
        let after = shaped(
            1,
            json!({"name": "b", "visibility": "workspace_view", "pii_open": 3, "finding_types": ["secret", "x"]}),
        );
        let said: Vec<String> = changed_fields(FIELDS, &before, &after)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            said,
            [
                "name",
                "visibility: workspace_edit → workspace_view",
                "open PII 2 → 3",
                "finding types: +secret −pii"
            ]
        );
    }

    #[test]
    fn an_unknown_count_is_no_change() {
        let before = shaped(1, json!({"name": "a", "pii_open": null}));
        let after = shaped(1, json!({"name": "a", "pii_open": 4}));
        assert!(changed_fields(FIELDS, &before, &after).is_empty());
    }

    /// The upgrade that adds a field: a document of the older shape lacks it,
    /// the newer one holds it; the mark made on the older one stays unchanged.
    #[test]
    fn a_field_added_in_a_newer_shape_flips_nothing() {
        let mut fields = FIELDS.to_vec();
        fields.push(NamedField::new("deployed", "deployed", Shown::Values).since(2));
        let before = shaped(1, json!({"name": "a", "visibility": "private"}));
        let after = shaped(
            2,
            json!({"name": "a", "visibility": "private", "deployed": true}),
        );
        assert!(changed_fields(&fields, &before, &after).is_empty());
        // Between two documents that both hold it, it is compared.
        let later = shaped(
            2,
            json!({"name": "a", "visibility": "private", "deployed": false}),
        );
        assert_eq!(changed_fields(&fields, &after, &later)[0].field, "deployed");
    }

    #[test]
    fn the_digest_covers_kind_shape_and_body() {
        let a = StoredDocument::from_body("project", 1, "{}".into());
        assert_eq!(a, StoredDocument::from_body("project", 1, "{}".into()));
        assert_ne!(
            a.digest,
            StoredDocument::from_body("member", 1, "{}".into()).digest
        );
        assert_ne!(
            a.digest,
            StoredDocument::from_body("project", 2, "{}".into()).digest
        );
    }
}
