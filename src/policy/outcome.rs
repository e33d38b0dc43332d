//! What a check found: each violation, failing or waived (with the waiver's
//! reason, who and until), and each project a policy could not judge. A
//! waiver applies while its `until` is ahead of the evaluation's clock; an
//! expired one stops applying by itself.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use time::OffsetDateTime;

use super::engine::{Policy, Rule, Severity, Verdict};
use crate::history::waivers::Waiver;

/// What a finding says of its project. `Unknown` is neither passing nor
/// failing: the policy could not judge the project (what it reads is not in
/// the document), and every report counts it apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingStatus {
    Failing,
    Waived,
    Unknown,
}

impl FindingStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Failing => "failing",
            Self::Waived => "waived",
            Self::Unknown => "unknown",
        }
    }

    /// Whether the finding is a violation (failing or waived), not a
    /// project the policy could not judge.
    pub fn is_violation(self) -> bool {
        self != Self::Unknown
    }
}

/// One violation, or one project a policy could not judge, as reported.
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

/// `verdicts` as findings: a violation waived where a standing waiver of
/// the policy and project applies at `now`, failing otherwise; an `unknown`
/// entry as `Unknown` (a waiver waives a violation, not a judgement that
/// could not be made), unless the policy also found the project in
/// violation: a project in `deny` is failing whatever `unknown` says.
pub fn apply_waivers(
    verdicts: Vec<Verdict>,
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
    // Only built when a policy yielded `unknown` entries: the common case
    // (the pack over a live read) pays nothing for it.
    let denied: HashSet<(String, String)> = if verdicts.iter().any(|v| v.rule == Rule::Unknown) {
        verdicts
            .iter()
            .filter(|verdict| verdict.rule == Rule::Deny)
            .map(|verdict| (verdict.policy_id.clone(), verdict.project_id.clone()))
            .collect()
    } else {
        HashSet::new()
    };
    verdicts
        .into_iter()
        .filter_map(|verdict| {
            let policy = by_id.get(verdict.policy_id.as_str())?;
            let (status, waiver) = match verdict.rule {
                Rule::Unknown => {
                    let key = (verdict.policy_id.clone(), verdict.project_id.clone());
                    if denied.contains(&key) {
                        return None;
                    }
                    (FindingStatus::Unknown, None)
                }
                Rule::Deny => {
                    let waiver = applying
                        .get(&(verdict.policy_id.as_str(), verdict.project_id.as_str()))
                        .copied();
                    let status = if waiver.is_some() {
                        FindingStatus::Waived
                    } else {
                        FindingStatus::Failing
                    };
                    (status, waiver)
                }
            };
            Some(Finding {
                policy: verdict.policy_id.clone(),
                severity: policy.meta.severity,
                project_name: names.get(&verdict.project_id).cloned(),
                project_id: verdict.project_id,
                message: verdict.message,
                status,
                waiver_reason: waiver.map(|w| w.reason.clone()),
                waived_by: waiver.and_then(|w| w.waived_by.clone()),
                waived_until: waiver.map(|w| w.until),
                remediation: policy.meta.remediation.clone(),
            })
        })
        .collect()
}
