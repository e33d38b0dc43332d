//! The review log's hash chain, as both stores keep it: each entry holds
//! `sha256(previous entry's hash ‖ its canonical fields)`, chained per
//! workspace in the order of the entries' ids. A row changed, removed or
//! inserted out of order breaks the chain at that row or the next, and
//! [`Verifier`] names the first entry that does not match. The stores compute
//! a new entry's hash when they insert it (under the chain's lock), and the
//! migrations compute it for the entries written before the chain existed.

use sha2::{Digest, Sha256};

/// The fields of one entry the chain covers: who, what, when, the note, and
/// a waiver's terms.
/// (The reviewed state is not: a snapshot may give a mark its state later.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainFields {
    pub workspace_id: String,
    pub project_id: String,
    pub action: String,
    pub at_ms: i64,
    /// The name the client gave.
    pub reviewer: Option<String>,
    /// The database role that wrote it (the shared store only).
    pub role: Option<String>,
    pub note: Option<String>,
    /// A waive entry's policy and end; `None` for a mark or an unmark.
    pub waiver: Option<WaiverTerms>,
}

/// What a waive entry holds beyond a mark's fields (its reason is the note).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaiverTerms {
    pub policy_id: String,
    pub until_ms: i64,
}

/// One stored entry of the chain, as [`Verifier`] reads it.
#[derive(Debug, Clone)]
pub struct ChainRow {
    pub id: i64,
    pub fields: ChainFields,
    /// `None` when the row holds none (damage, or a row written around vantage).
    pub hash: Option<Vec<u8>>,
}

/// Tells the canonical encoding's version apart from any later one.
const DOMAIN: &[u8] = b"vantage review log v1\0";

/// A text field: absent (0), or present (1) with its length in bytes.
fn field(hasher: &mut Sha256, value: Option<&str>) {
    match value {
        None => hasher.update([0u8]),
        Some(text) => {
            hasher.update([1u8]);
            hasher.update((text.len() as u64).to_be_bytes());
            hasher.update(text.as_bytes());
        }
    }
}

/// The hash of the entry `fields` after an entry whose hash is `previous`
/// (`None` for a workspace's first entry).
pub fn link(previous: Option<&[u8]>, fields: &ChainFields) -> Vec<u8> {
    let mut hasher = Sha256::new();
    hasher.update(DOMAIN);
    // The previous hash, length-prefixed like any field (none: length 0).
    hasher.update((previous.map_or(0, <[u8]>::len) as u64).to_be_bytes());
    hasher.update(previous.unwrap_or_default());
    field(&mut hasher, Some(&fields.workspace_id));
    field(&mut hasher, Some(&fields.project_id));
    field(&mut hasher, Some(&fields.action));
    hasher.update(fields.at_ms.to_be_bytes());
    field(&mut hasher, fields.reviewer.as_deref());
    field(&mut hasher, fields.role.as_deref());
    field(&mut hasher, fields.note.as_deref());
    // After the fields every entry has, so a mark's hash is what it was
    // before waivers joined the log.
    if let Some(terms) = &fields.waiver {
        field(&mut hasher, Some(&terms.policy_id));
        hasher.update(terms.until_ms.to_be_bytes());
    }
    hasher.finalize().to_vec()
}

/// The first entry of a workspace's log that does not match its chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenLink {
    /// The entry's id (`reviewed log` shows it).
    pub id: i64,
    pub project_id: String,
    pub action: String,
    pub at_ms: i64,
    /// Whether the row holds no hash at all.
    pub missing: bool,
}

/// What a walk over a workspace's chain found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainCheck {
    /// Entries read (up to the first broken one, or all).
    pub entries: u64,
    pub broken: Option<BrokenLink>,
}

/// Chains entries written before the chain existed, as the schema step that
/// adds it reads them: workspace by workspace, each in id order. Keeps the
/// previous hash only.
#[derive(Debug, Default)]
pub struct Chainer {
    previous: Option<(String, Vec<u8>)>,
}

impl Chainer {
    /// The hash of `fields`, the next entry: chained to the one before it
    /// when that was of the same workspace, else the workspace's first.
    pub fn next(&mut self, fields: &ChainFields) -> Vec<u8> {
        let before = self
            .previous
            .as_ref()
            .filter(|(workspace, _)| *workspace == fields.workspace_id)
            .map(|(_, hash)| hash.as_slice());
        let hash = link(before, fields);
        self.previous = Some((fields.workspace_id.clone(), hash.clone()));
        hash
    }
}

/// Walks a workspace's chain in id order, one row at a time; keeps the
/// previous hash only, so memory stays flat in the number of entries.
#[derive(Debug, Default)]
pub struct Verifier {
    previous: Option<Vec<u8>>,
    entries: u64,
    broken: Option<BrokenLink>,
}

impl Verifier {
    /// Takes the next row; `false` once a broken one is found (read no more).
    pub fn next(&mut self, row: ChainRow) -> bool {
        if self.broken.is_some() {
            return false;
        }
        self.entries += 1;
        let expected = link(self.previous.as_deref(), &row.fields);
        if row.hash.as_deref() != Some(expected.as_slice()) {
            self.broken = Some(BrokenLink {
                id: row.id,
                project_id: row.fields.project_id,
                action: row.fields.action,
                at_ms: row.fields.at_ms,
                missing: row.hash.is_none(),
            });
            return false;
        }
        self.previous = Some(expected);
        true
    }

    pub fn finish(self) -> ChainCheck {
        ChainCheck {
            entries: self.entries,
            broken: self.broken,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(note: Option<&str>) -> ChainFields {
        ChainFields {
            workspace_id: "ws".into(),
            project_id: "p1".into(),
            action: "mark".into(),
            at_ms: 1_700_000_000_000,
            reviewer: Some("ada".into()),
            role: Some("ada_role".into()),
            note: note.map(str::to_owned),
            waiver: None,
        }
    }

    #[test]
    fn the_chainer_chains_within_a_workspace_and_starts_each_anew() {
        let mut chainer = Chainer::default();
        let first = chainer.next(&fields(Some("a")));
        assert_eq!(first, link(None, &fields(Some("a"))));
        let second = chainer.next(&fields(Some("b")));
        assert_eq!(second, link(Some(&first), &fields(Some("b"))));
        let mut elsewhere = fields(Some("c"));
        elsewhere.workspace_id = "ws2".into();
        assert_eq!(chainer.next(&elsewhere), link(None, &elsewhere));
    }

    #[test]
    fn every_field_and_the_previous_hash_move_the_link() {
        let first = link(None, &fields(Some("fine")));
        assert_eq!(first.len(), 32);
        assert_ne!(first, link(None, &fields(None)), "a note removed");
        assert_ne!(first, link(None, &fields(Some(""))), "absent is not empty");
        assert_ne!(first, link(Some(&first), &fields(Some("fine"))));
        let mut moved = fields(Some("fine"));
        moved.role = None;
        moved.reviewer = Some("ada_role".into());
        assert_ne!(first, link(None, &moved), "fields never run together");
        let mut waived = fields(Some("fine"));
        waived.waiver = Some(WaiverTerms {
            policy_id: "stale_scan".into(),
            until_ms: 1,
        });
        let waiver = link(None, &waived);
        assert_ne!(first, waiver, "a waiver's terms are covered");
        waived.waiver = Some(WaiverTerms {
            policy_id: "stale_scan".into(),
            until_ms: 2,
        });
        assert_ne!(waiver, link(None, &waived), "its end too");
    }

    #[test]
    fn the_first_row_that_does_not_match_is_named() {
        let one = link(None, &fields(Some("a")));
        let two = link(Some(&one), &fields(Some("b")));
        let row = |id, note: &str, hash: &[u8]| ChainRow {
            id,
            fields: fields(Some(note)),
            hash: Some(hash.to_vec()),
        };
        let mut intact = Verifier::default();
        assert!(intact.next(row(1, "a", &one)) && intact.next(row(2, "b", &two)));
        assert_eq!(intact.finish().broken, None);
        let mut changed = Verifier::default();
        assert!(changed.next(row(1, "a", &one)));
        assert!(!changed.next(row(2, "changed", &two)));
        assert_eq!(changed.finish().broken.map(|b| b.id), Some(2));
        // The first entry removed: the second no longer follows nothing.
        let mut removed = Verifier::default();
        assert!(!removed.next(row(2, "b", &two)));
        assert_eq!(removed.finish().broken.map(|b| b.id), Some(2));
    }
}
