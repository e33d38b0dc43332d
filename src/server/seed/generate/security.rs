//! A project's personal-data findings and security posture: the counts its
//! latest scan found, the finding types and reasons they add up to, its review
//! priority, risk score, and the scan itself.

use time::{Duration, OffsetDateTime};

use super::Generation;
use crate::api::model::{PiiSource, PiiStatus, Reason, ReasonValues, ReviewPriority, ScanFinding};
use crate::hash::{hash_str, mix64};
use crate::rng::SplitMix64;
use crate::server::seed::words::PII_QUOTES;
use crate::server::store::{Fixture, PiiRec, ScanRec, SecurityProfile};

/// What a project exposes, as the posture weighs it.
pub(super) struct Exposure {
    pub connectors: Vec<String>,
    pub edge_functions: Vec<String>,
    /// Published to everyone.
    pub public: bool,
    /// The owner left, or nothing was edited for 180 days.
    pub owner_inactive: bool,
    pub open_pii: i64,
}

/// The project's personal-data findings; returns how many are open.
pub(super) fn pii_findings(
    generation: &Generation,
    n: usize,
    id: &str,
    rng: &mut SplitMix64,
    fixture: &mut Fixture,
) -> i64 {
    let anchor = generation.anchor;
    let hostile = &generation.hostile;
    let mut open_pii = 0;
    if rng.chance(0.3) {
        for f in 0..1 + rng.below(8) {
            let status = match rng.below(10) {
                0..=5 => PiiStatus::Open,
                6..=7 => PiiStatus::Ignored,
                _ => PiiStatus::Fixed,
            };
            if status == PiiStatus::Open {
                open_pii += 1;
            }
            let quote = if (n + f as usize) % 11 == 3 {
                hostile[(n + f as usize) % hostile.len()].clone()
            } else {
                rng.pick(PII_QUOTES).to_string()
            };
            fixture.pii_findings.push(PiiRec {
                id: format!("pii_{:012x}", mix64(hash_str(id) ^ f) & 0xffff_ffff_ffff),
                project_id: id.to_owned(),
                // Some findings share a time, so ties by id matter.
                found_at: anchor - Duration::hours((rng.below(24 * 90) / 3 * 3) as i64),
                quote,
                source: rng
                    .pick(&[PiiSource::Chat, PiiSource::Code, PiiSource::Database])
                    .clone(),
                status,
            });
        }
    }
    open_pii
}

/// The security profile, and the project's latest scan into `fixture`.
pub(super) fn security_profile(
    generation: &Generation,
    id: &str,
    exposure: Exposure,
    rng: &mut SplitMix64,
    fixture: &mut Fixture,
) -> SecurityProfile {
    let anchor = generation.anchor;
    let Exposure {
        connectors,
        edge_functions,
        public,
        owner_inactive,
        open_pii,
    } = exposure;
    let scored = rng.chance(0.92);
    let values = ReasonValues {
        connector_count: connectors.len() as i64,
        edge_function_count: edge_functions.len() as i64,
        error_count: if rng.chance(0.15) {
            1 + rng.below(4) as i64
        } else {
            0
        },
        info_count: rng.below(6) as i64,
        open_pii_finding_count: open_pii,
        secret_count: if rng.chance(0.06) {
            1 + rng.below(2) as i64
        } else {
            0
        },
        shared_user_count: if rng.chance(0.3) {
            1 + rng.below(12) as i64
        } else {
            0
        },
        warning_count: rng.below(5) as i64,
    };
    let external_collaborators = if rng.chance(0.12) {
        1 + rng.below(3) as i64
    } else {
        0
    };
    let (finding_type_ids, explanation) = if scored {
        reasons(&values, external_collaborators, public, owner_inactive)
    } else {
        (Vec::new(), Vec::new())
    };
    let review_priority = if !scored {
        ReviewPriority::Unscored
    } else {
        explanation
            .iter()
            .map(|r| r.review_priority.clone())
            .min_by_key(|p| p.urgency_rank())
            .unwrap_or(ReviewPriority::NoReviewNeeded)
    };
    let risk_score = if scored {
        values.error_count * 10
            + values.secret_count * 25
            + open_pii * 5
            + values.warning_count * 2
            + external_collaborators * 8
            + i64::from(public) * 15
    } else {
        0
    };
    let last_security_scan_at =
        scored.then(|| anchor - Duration::hours(rng.below(24 * 30) as i64 + 1));
    if let Some(scanned_at) = last_security_scan_at {
        fixture
            .scans
            .push(latest_scan(id, scanned_at, &values, rng));
    }
    SecurityProfile {
        connectors,
        edge_functions,
        last_security_scan_at,
        review_priority,
        risk_score,
        explanation,
        values,
        finding_type_ids,
        external_collaborators,
    }
}

/// The finding types and reasons of a scored project.
fn reasons(
    values: &ReasonValues,
    external_collaborators: i64,
    public: bool,
    owner_inactive: bool,
) -> (Vec<String>, Vec<Reason>) {
    let open_pii = values.open_pii_finding_count;
    let mut finding_type_ids = Vec::new();
    let mut explanation = Vec::new();
    let reason =
        |id: &str, label: &str, detail: String, category: &str, priority: ReviewPriority| Reason {
            id: id.to_owned(),
            label: label.to_owned(),
            detail,
            category: category.to_owned(),
            review_priority: priority,
        };
    if public && (values.error_count > 0 || values.secret_count > 0) {
        finding_type_ids.push("public_security_exposure".to_owned());
        explanation.push(reason(
            "public_security_exposure",
            "Public app with security issues",
            format!(
                "{} errors and {} exposed secrets in the latest scan",
                values.error_count, values.secret_count
            ),
            "exposure",
            ReviewPriority::NeedsReview,
        ));
    }
    if public && open_pii > 0 {
        finding_type_ids.push("public_pii_exposure".to_owned());
        explanation.push(reason(
            "public_pii_exposure",
            "Public app with personal data",
            format!("{open_pii} open personal-data findings"),
            "data",
            ReviewPriority::NeedsReview,
        ));
    }
    if external_collaborators > 0 {
        finding_type_ids.push("external_collaborator_access".to_owned());
        explanation.push(reason(
            "external_collaborator_access",
            "External collaborators",
            format!("{external_collaborators} people outside the workspace can edit"),
            "exposure",
            ReviewPriority::ReviewRecommended,
        ));
    }
    if owner_inactive {
        finding_type_ids.push("inactive_owner".to_owned());
        explanation.push(reason(
            "inactive_owner",
            "Inactive owner",
            "the owner left or has not edited for 180 days".to_owned(),
            "exposure",
            ReviewPriority::NoReviewNeeded,
        ));
    }
    if values.shared_user_count > 0 {
        explanation.push(reason(
            "shared_users",
            "Shared with users",
            format!("shared with {} users", values.shared_user_count),
            "exposure",
            ReviewPriority::NoReviewNeeded,
        ));
    }
    (finding_type_ids, explanation)
}

/// The project's latest scan, finished at `scanned_at`, with a finding per
/// error, warning and info the posture counts.
fn latest_scan(
    id: &str,
    scanned_at: OffsetDateTime,
    values: &ReasonValues,
    rng: &mut SplitMix64,
) -> ScanRec {
    let scan_id = format!("scn_{:012x}", mix64(hash_str(id)) & 0xffff_ffff_ffff);
    let levels = [
        ("error", values.error_count),
        ("warn", values.warning_count),
        ("info", values.info_count),
    ];
    let mut findings = Vec::new();
    for (level, count) in levels {
        for k in 0..count {
            findings.push(ScanFinding {
                id: format!("{scan_id}_{level}_{k}"),
                category: rng
                    .pick(&["rls", "secrets", "dependencies", "auth"])
                    .to_string(),
                level: level.to_owned(),
                name: format!("{level} finding {}", k + 1),
                description: Some("Reported by the project's latest security scan.".to_owned()),
                scanner_name: rng.pick(&["supabase_lov", "agent_security"]).to_string(),
                status: rng.pick(&["open", "open", "fixed", "ignored"]).to_string(),
                created_at: scanned_at,
                updated_at: scanned_at,
            });
        }
    }
    ScanRec {
        id: scan_id,
        project_id: id.to_owned(),
        status: "completed".to_owned(),
        commit_sha: Some(format!(
            "{:040x}",
            u128::from(mix64(hash_str(id) ^ 7)) << 32
        )),
        started_at: Some(scanned_at - Duration::minutes(3)),
        finished_at: Some(scanned_at),
        requested_scanners: vec!["supabase_lov".into(), "agent_security".into()],
        findings,
    }
}
