//! What a check found: each violation, failing or waived (with the waiver's
//! reason, who and until). A waiver applies while its `until` is ahead of
//! the evaluation's clock; an expired one stops applying by itself.

use std::collections::HashMap;

use serde::Serialize;
use time::OffsetDateTime;

use super::engine::{Policy, Severity, Violation};
use crate::history::waivers::Waiver;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingStatus {
    Failing,
    Waived,
}

impl FindingStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Failing => "failing",
            Self::Waived => "waived",
        }
    }
}

/// One violation, as reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub policy: String,
    pub severity: Severity,
    pub project_id: String,
    /// The project's name, when known.
    pub project_name: Option<String>,
    pub message: String,
    pub status: FindingStatus,
    pub waiver_reason: Option<String>,
    pub waived_by: Option<String>,
    #[serde(with = "crate::timefmt::serde_rfc3339::option")]
    pub waived_until: Option<OffsetDateTime>,
    pub remediation: String,
}

/// `violations` as findings: waived where a standing waiver of the policy and
/// project applies at `now`.
pub fn apply_waivers(
    violations: Vec<Violation>,
    policies: &[Policy],
    waivers: &[Waiver],
    names: &HashMap<String, String>,
    now: OffsetDateTime,
) -> Vec<Finding> {
    let by_id: HashMap<&str, &Policy> = policies
        .iter()
        .map(|policy| (policy.meta.id.as_str(), policy))
        .collect();
    let applying: HashMap<(&str, &str), &Waiver> = waivers
        .iter()
        .filter(|waiver| waiver.applies_at(now))
        .map(|waiver| {
            (
                (waiver.policy_id.as_str(), waiver.project_id.as_str()),
                waiver,
            )
        })
        .collect();
    violations
        .into_iter()
        .filter_map(|violation| {
            let policy = by_id.get(violation.policy_id.as_str())?;
            let waiver = applying
                .get(&(violation.policy_id.as_str(), violation.project_id.as_str()))
                .copied();
            Some(Finding {
                policy: violation.policy_id.clone(),
                severity: policy.meta.severity,
                project_name: names.get(&violation.project_id).cloned(),
                project_id: violation.project_id,
                message: violation.message,
                status: if waiver.is_some() {
                    FindingStatus::Waived
                } else {
                    FindingStatus::Failing
                },
                waiver_reason: waiver.map(|w| w.reason.clone()),
                waived_by: waiver.and_then(|w| w.waived_by.clone()),
                waived_until: waiver.map(|w| w.until),
                remediation: policy.meta.remediation.clone(),
            })
        })
        .collect()
}
