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
    /// Published to the public audience with at least one open
    /// personal-data finding; `None` in a summary recorded before it was
    /// counted (a reader counts the snapshot's states instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_with_pii: Option<i64>,
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
        let mut posture = Self {
            public_with_pii: Some(0),
            ..Self::default()
        };
        for project in projects {
            posture.projects += 1;
            *posture
                .by_priority
                .entry(project.review_priority.clone())
                .or_default() += 1;
            posture.published += i64::from(project.is_published);
            posture.public +=
                i64::from(project.is_published && project.audience.as_deref() == Some("public"));
            let with_pii = project.pii_open.is_some_and(|open| open > 0);
            posture.with_pii += i64::from(with_pii);
            let public = project.is_published && project.audience.as_deref() == Some("public");
            *posture.public_with_pii.get_or_insert(0) += i64::from(public && with_pii);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn project(
        id: &str,
        published: bool,
        audience: Option<&str>,
        pii: Option<i64>,
    ) -> ProjectState {
        ProjectState {
            id: id.to_owned(),
            is_published: published,
            audience: audience.map(str::to_owned),
            review_priority: "needs_review".to_owned(),
            pii_open: pii,
            ..ProjectState::default()
        }
    }

    #[test]
    fn public_with_personal_data_counts_only_what_is_both() {
        let projects = [
            project("a", true, Some("public"), Some(2)),
            project("b", true, Some("public"), Some(0)),
            project("c", true, Some("workspace"), Some(3)),
            project("d", false, None, Some(1)),
            project("e", true, Some("public"), None),
        ];
        let posture = Posture::count(&projects, &HashMap::new());
        assert_eq!(posture.public, 3);
        assert_eq!(posture.with_pii, 3);
        assert_eq!(posture.public_with_pii, Some(1));
    }

    #[test]
    fn a_summary_recorded_before_the_count_reads_back_without_it() {
        let older = r#"{"projects":1,"by_priority":{},"published":1,"public":1,"with_pii":1,"reviewed":0,"changed_since_review":0}"#;
        let read = Posture::from_json(Some(older))
            .expect("read")
            .expect("a summary");
        assert_eq!(read.public_with_pii, None, "unknown, never 0");
        let written = Posture::count(
            &[project("a", true, Some("public"), Some(1))],
            &HashMap::new(),
        );
        let again = Posture::from_json(Some(&written.to_json())).expect("read");
        assert_eq!(again, Some(written));
    }
}
