//! A project as the store keeps it: the wire `Project` itself, and what only
//! the server knows of it. A field added to the wire type is stored, read from
//! a fixture and served with no edit here.
//!
//! One JSON object holds both parts (the fixture format, and each row of the
//! database). It is read key by key: the server's own keys are taken out as
//! they come, every other key goes on to the wire type's own `Deserialize`, so
//! an error names its path (`projects[1].visibility`) as it would on a plain
//! struct. serde's `flatten` buffers the object first and loses those paths.

use serde::Serialize;
use serde::de::value::{BoolDeserializer, MapAccessDeserializer, StringDeserializer};
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, Visitor};
use time::OffsetDateTime;

use super::{Activity, AnalyticsProfile, Derived, SecurityProfile};
use crate::api::model::{Project, PublishAudience, rfc3339};

#[derive(Debug, Clone, Serialize)]
pub struct ProjectRec {
    /// The resource's own fields. Its `publish_audience` (and targets) is the
    /// setting, kept while the app is offline: [`ProjectRec::shown`] says what
    /// a read shows.
    #[serde(flatten)]
    pub wire: Project,
    /// Last update of any kind; the fallback of `last_edited_at` sorts.
    #[serde(with = "rfc3339")]
    pub updated_at: OffsetDateTime,
    /// Address of the published app.
    pub published_url: Option<String>,
    pub security: SecurityProfile,
    pub activity: Activity,
    /// Visitor analytics; `None` for a project that was never published.
    pub analytics: Option<AnalyticsProfile>,
    /// Facts derived from other records when the store loads; never stored.
    #[serde(skip)]
    pub derived: Derived,
}

impl ProjectRec {
    /// The audience as reads show it: only while the app is published.
    pub fn shown_audience(&self) -> Option<&PublishAudience> {
        self.wire
            .is_published
            .then_some(self.wire.publish_audience.as_ref())
            .flatten()
    }

    /// The Project resource as the contract shows it: the audience only
    /// while published, its targets only for `custom`.
    pub fn shown(&self) -> Project {
        let mut shown = self.wire.clone();
        shown.publish_audience = self.shown_audience().cloned();
        if shown.publish_audience != Some(PublishAudience::Custom) {
            shown.publish_audience_targets.clear();
        }
        shown
    }
}

/// The server's own keys of the object, in [`ProjectRec`]'s order.
const SERVER_KEYS: [&str; 5] = [
    "updated_at",
    "published_url",
    "security",
    "activity",
    "analytics",
];

/// Keys of earlier fixtures and databases, read as the wire's names.
const OLD_NAMES: [(&str, &str); 2] = [
    ("audience", "publish_audience"),
    ("audience_targets", "publish_audience_targets"),
];

/// The wire requires `is_published`; a record may leave it out (never published).
const IS_PUBLISHED: &str = "is_published";

impl<'de> Deserialize<'de> for ProjectRec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(RecordVisitor)
    }
}

struct RecordVisitor;

impl<'de> Visitor<'de> for RecordVisitor {
    type Value = ProjectRec;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a project record")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ProjectRec, A::Error> {
        let mut keys = WireKeys {
            map,
            own: ServerPart::default(),
            is_published: KeyState::Absent,
        };
        let wire = Project::deserialize(MapAccessDeserializer::new(&mut keys))?;
        let own = keys.own;
        Ok(ProjectRec {
            wire,
            updated_at: own
                .updated_at
                .ok_or_else(|| de::Error::missing_field("updated_at"))?,
            published_url: own.published_url,
            security: own.security,
            activity: own.activity,
            analytics: own.analytics,
            derived: Derived::default(),
        })
    }
}

/// The server's part, filled in as its keys come by.
#[derive(Default)]
struct ServerPart {
    seen: [bool; SERVER_KEYS.len()],
    updated_at: Option<OffsetDateTime>,
    published_url: Option<String>,
    security: SecurityProfile,
    activity: Activity,
    analytics: Option<AnalyticsProfile>,
}

/// Where `is_published` stands: given by the object, or absent and given as
/// `false` after the object's own keys (`Defaulting` while that is read).
#[derive(PartialEq)]
enum KeyState {
    Absent,
    Given,
    Defaulting,
    Defaulted,
}

/// The record's map as the wire type sees it: the server's keys taken out,
/// old names read as new ones, `is_published: false` when it was left out.
struct WireKeys<A> {
    map: A,
    own: ServerPart,
    is_published: KeyState,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for WireKeys<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if self.is_published == KeyState::Defaulted {
            // The object's keys are all read: the map is not asked again.
            return Ok(None);
        }
        loop {
            let Some(key) = self.map.next_key::<String>()? else {
                if self.is_published != KeyState::Absent {
                    return Ok(None);
                }
                self.is_published = KeyState::Defaulting;
                return seed
                    .deserialize(key_name(IS_PUBLISHED.to_owned()))
                    .map(Some);
            };
            if let Some(index) = SERVER_KEYS.iter().position(|own| *own == key) {
                self.map.next_value_seed(OwnValue {
                    index,
                    own: &mut self.own,
                })?;
                continue;
            }
            let key = match OLD_NAMES.iter().find(|(old, _)| *old == key) {
                Some((_, new)) => (*new).to_owned(),
                None => key,
            };
            if key == IS_PUBLISHED {
                self.is_published = KeyState::Given;
            }
            return seed.deserialize(key_name(key)).map(Some);
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        if self.is_published == KeyState::Defaulting {
            self.is_published = KeyState::Defaulted;
            return seed.deserialize(BoolDeserializer::new(false));
        }
        self.map.next_value_seed(seed)
    }
}

fn key_name<E: de::Error>(key: String) -> StringDeserializer<E> {
    StringDeserializer::new(key)
}

/// The value of the server's key `SERVER_KEYS[index]`, read in place, so an
/// error inside it keeps its path.
struct OwnValue<'a> {
    index: usize,
    own: &'a mut ServerPart,
}

impl<'de> DeserializeSeed<'de> for OwnValue<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, value: D) -> Result<(), D::Error> {
        let own = self.own;
        if std::mem::replace(&mut own.seen[self.index], true) {
            return Err(de::Error::duplicate_field(SERVER_KEYS[self.index]));
        }
        match SERVER_KEYS[self.index] {
            "updated_at" => own.updated_at = Some(rfc3339::deserialize(value)?),
            "published_url" => own.published_url = Deserialize::deserialize(value)?,
            "security" => own.security = Deserialize::deserialize(value)?,
            "activity" => own.activity = Deserialize::deserialize(value)?,
            _ => own.analytics = Deserialize::deserialize(value)?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(value: serde_json::Value) -> Result<ProjectRec, String> {
        serde_path_to_error::deserialize(value)
            .map_err(|error| format!("at {}: {}", error.path(), error.inner()))
    }

    #[test]
    fn a_record_reads_both_parts_and_writes_them_back_alike() {
        let text = json!({
            "id": "prj_1", "workspace_id": "ws_1", "name": "Budget",
            "updated_at": "2026-01-02T03:04:05.000Z", "is_published": true,
            "publish_audience": "custom",
            "publish_audience_targets": [{"id": "grp_1", "type": "group"}],
            "published_url": "https://budget.example",
            "security": {"risk_score": 7}, "activity": {"edit_count": 3},
            "analytics": {"retention_days": 90, "daily_visitors": 4}
        });
        let record = read(text).unwrap();
        assert_eq!(record.wire.name.as_deref(), Some("Budget"));
        assert_eq!(record.security.risk_score, 7);
        assert_eq!(record.activity.edit_count, 3);
        let again = read(serde_json::to_value(&record).unwrap()).unwrap();
        assert_eq!(again.wire, record.wire);
        assert_eq!(again.updated_at, record.updated_at);
        assert_eq!(
            serde_json::to_value(&again).unwrap(),
            serde_json::to_value(&record).unwrap()
        );
    }

    #[test]
    fn old_names_and_a_missing_is_published_still_read() {
        let record = read(json!({
            "id": "p", "workspace_id": "w", "updated_at": "2026-01-01T00:00:00Z",
            "audience": "public", "audience_targets": []
        }))
        .unwrap();
        assert!(!record.wire.is_published);
        assert_eq!(record.wire.publish_audience, Some(PublishAudience::Public));
        assert_eq!(record.shown_audience(), None);
        // Read from text, as the database's rows are.
        let text = r#"{"id": "p", "workspace_id": "w", "updated_at": "2026-01-01T00:00:00Z"}"#;
        let record: ProjectRec = serde_json::from_str(text).unwrap();
        assert!(!record.wire.is_published);
    }

    #[test]
    fn errors_name_the_field_of_either_part() {
        let base = || json!({"id": "p", "workspace_id": "w", "updated_at": "2026-01-01T00:00:00Z"});
        let with = |key: &str, value: serde_json::Value| {
            let mut object = base();
            object[key] = value;
            read(object).unwrap_err()
        };
        assert_eq!(
            with("visibility", json!(7)),
            "at visibility: invalid type: integer `7`, expected a string"
        );
        assert_eq!(
            with("audience", json!(false)),
            "at audience: invalid type: boolean `false`, expected a string"
        );
        assert_eq!(
            with("security", json!({"risk_score": "high"})),
            "at security.risk_score: invalid type: string \"high\", expected i64"
        );
        assert_eq!(
            with("is_published", json!("yes")),
            "at is_published: invalid type: string \"yes\", expected a boolean"
        );
        let mut no_time = base();
        no_time.as_object_mut().unwrap().remove("updated_at");
        assert_eq!(
            read(no_time).unwrap_err(),
            "at .: missing field `updated_at`"
        );
        let mut no_workspace = base();
        no_workspace.as_object_mut().unwrap().remove("workspace_id");
        assert_eq!(
            read(no_workspace).unwrap_err(),
            "at .: missing field `workspace_id`"
        );
    }
}
