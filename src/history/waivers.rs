//! Waivers: a policy's violation by one project accepted for a while, with
//! the reason, who and until when. Both stores keep every waiver given
//! (append-only, as the review log); the newest of a policy and project is
//! the one that stands, and it applies until its `until` passes, by itself.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::HistoryError;
use super::read::{from_ms, to_ms};

/// The longest a waiver's reason is kept.
pub const MAX_REASON_CHARS: usize = 1000;

/// A waiver as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waiver {
    pub policy_id: String,
    pub project_id: String,
    pub reason: String,
    /// It stops applying at this instant.
    #[serde(with = "crate::timefmt::serde_rfc3339")]
    pub until: OffsetDateTime,
    #[serde(with = "crate::timefmt::serde_rfc3339")]
    pub waived_at: OffsetDateTime,
    /// Who: in a shared history the database role, else the reviewer's name.
    pub waived_by: Option<String>,
}

impl Waiver {
    /// Whether it still applies at `now`.
    pub fn applies_at(&self, now: OffsetDateTime) -> bool {
        now < self.until
    }
}

/// A waiver to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWaiver {
    pub policy_id: String,
    pub project_id: String,
    pub reason: String,
    pub until: OffsetDateTime,
    /// The name the reviewer gave (config `reviewer`); a shared history
    /// records the database role instead.
    pub by: Option<String>,
}

impl NewWaiver {
    /// The waiver as a store keeps it once given at `now` by `by` (its times
    /// to the millisecond, as both stores keep them).
    pub(super) fn given(
        &self,
        now: OffsetDateTime,
        by: Option<String>,
    ) -> Result<Waiver, HistoryError> {
        Ok(Waiver {
            policy_id: self.policy_id.clone(),
            project_id: self.project_id.clone(),
            reason: self.reason.clone(),
            until: from_ms(to_ms(self.until), "review.until_ms")?,
            waived_at: from_ms(to_ms(now), "review.at_ms")?,
            waived_by: by,
        })
    }

    /// The rules a waiver must meet, whichever store keeps it.
    pub fn check(&self, now: OffsetDateTime) -> Result<(), String> {
        if self.policy_id.trim().is_empty() || self.project_id.trim().is_empty() {
            return Err("a waiver names a policy and a project".into());
        }
        if self.reason.trim().is_empty() {
            return Err("a waiver needs a reason (--reason TEXT)".into());
        }
        if self.reason.chars().count() > MAX_REASON_CHARS {
            return Err(format!(
                "a waiver's reason is at most {MAX_REASON_CHARS} characters"
            ));
        }
        if self.until <= now {
            return Err(format!(
                "--until {} is not in the future",
                crate::timefmt::date_time(self.until)
            ));
        }
        Ok(())
    }
}

/// The newest waiver of each policy and project among `all` (oldest first).
pub fn standing(all: Vec<Waiver>) -> Vec<Waiver> {
    let mut newest: std::collections::BTreeMap<(String, String), Waiver> = Default::default();
    for waiver in all {
        newest.insert(
            (waiver.policy_id.clone(), waiver.project_id.clone()),
            waiver,
        );
    }
    newest.into_values().collect()
}
