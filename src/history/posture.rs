//! A snapshot's posture: how many projects it holds by review priority, how
//! many are published, public, with open personal data, reviewed, and changed
//! since their review. Counted once, as the snapshot is recorded, and kept
//! with it: a year of posture reads in one query (`Store::posture`), what the
//! report charts.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::HistoryError;
use super::document::ShapedBody;
use super::model::ProjectState;

/// The counts of one snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Posture {
    pub projects: i64,
    /// By `review_priority` as the service spelled it.
    pub by_priority: BTreeMap<String, i64>,
    pub published: i64,
    /// Published to the public audience.
    pub public: i64,
    /// With at least one open personal-data finding.
    pub with_pii: i64,
    /// With a standing reviewed mark.
    pub reviewed: i64,
    /// Reviewed, and differing from the reviewed state in a named field.
    pub changed_since_review: i64,
}

/// A snapshot's posture, with the snapshot it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PostureAt {
    pub snapshot: i64,
    #[serde(with = "crate::timefmt::serde_rfc3339")]
    pub taken_at: OffsetDateTime,
    #[serde(flatten)]
    pub posture: Posture,
}

impl Posture {
    /// Counts `projects`; `marks`: the standing marks by project, each with
    /// its reviewed state when one is held.
    pub fn count<'a>(
        projects: impl IntoIterator<Item = &'a ProjectState>,
        marks: &HashMap<String, Option<ShapedBody>>,
    ) -> Self {
        let mut posture = Self::default();
        for project in projects {
            posture.projects += 1;
            *posture
                .by_priority
                .entry(project.review_priority.clone())
                .or_default() += 1;
            posture.published += i64::from(project.is_published);
            posture.public +=
                i64::from(project.is_published && project.audience.as_deref() == Some("public"));
            posture.with_pii += i64::from(project.pii_open.is_some_and(|open| open > 0));
            if let Some(reviewed) = marks.get(&project.id) {
                posture.reviewed += 1;
                let changed = reviewed
                    .as_ref()
                    .is_some_and(|state| !project.changed_since(state).is_empty());
                posture.changed_since_review += i64::from(changed);
            }
        }
        posture
    }

    /// As stored beside its snapshot.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Read back; `None` for a snapshot recorded without one.
    pub fn from_json(raw: Option<&str>) -> Result<Option<Self>, HistoryError> {
        raw.map(|raw| {
            serde_json::from_str(raw)
                .map_err(|error| HistoryError::Corrupt(format!("a snapshot's posture: {error}")))
        })
        .transpose()
    }
}

/// A stored reviewed state, read for [`Posture::count`].
pub fn shaped(shape: Option<u32>, body: Option<&str>) -> Option<ShapedBody> {
    Some(ShapedBody {
        shape: shape?,
        body: serde_json::from_str(body?).ok()?,
    })
}
