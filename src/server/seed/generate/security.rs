//! A project's personal-data findings and security posture: the counts its
//! latest scan found, the finding types and reasons they add up to, its review
//! priority, risk score, and the scan itself.

use time::{Duration, OffsetDateTime};

use super::Generation;
use crate::api::model::{
    FindingLevel, FindingStatus, PiiFinding, PiiSource, PiiStatus, Reason, ReasonValues,
    ReviewPriority, SECRET_CATEGORY, ScanFinding, ScanStatus, SecurityScan,
};
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
                project_id: id.to_owned(),
                finding: PiiFinding {
                    id: format!("pii_{:012x}", mix64(hash_str(id) ^ f) & 0xffff_ffff_ffff),
                    // Some findings share a time, so ties by id matter.
                    found_at: anchor - Duration::hours((rng.below(24 * 90) / 3 * 3) as i64),
                    quote,
                    source: rng
                        .pick(&[PiiSource::Chat, PiiSource::Code, PiiSource::Database])
                        .clone(),
                    status,
                },
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
        let scans = project_scans(generation, id, scanned_at, &values, rng);
        fixture.scans.extend(scans);
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

/// Categories of scan findings, with what a finding of each is called.
const CATEGORIES: [(&str, [&str; 3]); 4] = [
    (
        "data_exposure",
        [
            "Table readable without a row-level policy",
            "Storage bucket lists its files to anyone",
            "API returns other users' records",
        ],
    ),
    (
        "access_control",
        [
            "Admin route checks the role in the browser only",
            "Policy grants write access to every signed-in user",
            "Function runs with the service role",
        ],
    ),
    (
        "dependencies",
        [
            "Package with a known vulnerability",
            "Outdated framework version",
            "Unpinned dependency",
        ],
    ),
    (
        "auth",
        [
            "Password reset link does not expire",
            "Session token kept in local storage",
            "Sign-up without e-mail confirmation",
        ],
    ),
];
const SCANNERS: [&str; 2] = ["supabase_lov", "agent_security"];

/// The project's scans: the latest finished at `scanned_at`, whose open
/// findings count exactly what the posture's `values` say (an error, warning
/// or info finding per count, a `secrets` finding per secret; fixed and
/// ignored ones besides), and a few older ones. Draws on the shared stream
/// exactly as it always has (three per counted finding), the rest on a stream
/// of the project's own.
fn project_scans(
    generation: &Generation,
    id: &str,
    scanned_at: OffsetDateTime,
    values: &ReasonValues,
    rng: &mut SplitMix64,
) -> Vec<ScanRec> {
    let mut own = SplitMix64::new(mix64(hash_str(id) ^ generation.seed ^ 0x5ca7_5ca7));
    let scan_id = format!("scn_{:012x}", mix64(hash_str(id)) & 0xffff_ffff_ffff);
    let mut findings = Vec::new();
    let levels = [
        (FindingLevel::Error, values.error_count),
        (FindingLevel::Warn, values.warning_count),
        (FindingLevel::Info, values.info_count),
    ];
    for (level, count) in levels {
        for k in 0..count {
            let category = rng.pick(&CATEGORIES);
            let scanner = rng.pick(&SCANNERS);
            // The shared stream's old status draw: one in two also has a
            // resolved sibling from an earlier commit.
            let resolved = rng.pick(&[
                None,
                None,
                Some(FindingStatus::Fixed),
                Some(FindingStatus::Ignored),
            ]);
            let finding_id = format!("{scan_id}_{level}_{k}");
            let finding = scan_finding(
                generation,
                &mut own,
                &finding_id,
                category,
                scanner,
                level.clone(),
                FindingStatus::Open,
                scanned_at,
            );
            findings.push(finding);
            if let Some(status) = resolved {
                let sibling = scan_finding(
                    generation,
                    &mut own,
                    &format!("{finding_id}_{status}"),
                    category,
                    scanner,
                    level.clone(),
                    status.clone(),
                    scanned_at,
                );
                findings.push(sibling);
            }
        }
    }
    for k in 0..values.secret_count {
        findings.push(ScanFinding {
            id: format!("{scan_id}_secret_{k}"),
            category: SECRET_CATEGORY.to_owned(),
            level: FindingLevel::Error,
            name: "Secret key committed to the code".to_owned(),
            description: Some(
                "An API key is written in the project's code, where anyone who can open it reads it. Move it to a secret and rotate it."
                    .to_owned(),
            ),
            scanner_name: "agent_security".to_owned(),
            status: FindingStatus::Open,
            created_at: scanned_at - Duration::days(own.below(20) as i64),
            updated_at: scanned_at,
        });
    }
    let commit = |n: u64| format!("{:040x}", u128::from(mix64(hash_str(id) ^ 7 ^ n)) << 32);
    let mut scans = vec![ScanRec {
        project_id: id.to_owned(),
        scan: SecurityScan {
            id: scan_id.clone(),
            status: ScanStatus::Completed,
            commit_sha: Some(commit(0)),
            started_at: Some(scanned_at - Duration::minutes(3)),
            finished_at: Some(scanned_at),
            requested_scanners: SCANNERS.iter().map(|s| (*s).to_owned()).collect(),
        },
        findings,
    }];
    // Older scans: finished, or failed without findings.
    let mut at = scanned_at;
    for n in 1..=own.below(4) {
        at -= Duration::hours(12 + own.below(24 * 14) as i64);
        let failed = own.chance(0.15);
        let older_id = format!("{scan_id}_{n}");
        let findings = if failed {
            Vec::new()
        } else {
            (0..own.below(6))
                .map(|k| {
                    let category = own.pick(&CATEGORIES);
                    let scanner = own.pick(&SCANNERS);
                    let level = own
                        .pick(&[FindingLevel::Error, FindingLevel::Warn, FindingLevel::Info])
                        .clone();
                    let status = own
                        .pick(&[
                            FindingStatus::Open,
                            FindingStatus::Fixed,
                            FindingStatus::Ignored,
                        ])
                        .clone();
                    scan_finding(
                        generation,
                        &mut own,
                        &format!("{older_id}_{level}_{k}"),
                        category,
                        scanner,
                        level,
                        status,
                        at,
                    )
                })
                .collect()
        };
        scans.push(ScanRec {
            project_id: id.to_owned(),
            scan: SecurityScan {
                id: older_id,
                status: if failed {
                    ScanStatus::Failed
                } else {
                    ScanStatus::Completed
                },
                commit_sha: Some(commit(n)),
                started_at: Some(at - Duration::minutes(2 + own.below(5) as i64)),
                finished_at: Some(at),
                requested_scanners: vec![(*own.pick(&SCANNERS)).to_owned()],
            },
            findings,
        });
    }
    scans
}

/// One finding; now and then its name or description is one of the hostile
/// strings, as an attacker who can write code could make it.
#[allow(clippy::too_many_arguments)]
fn scan_finding(
    generation: &Generation,
    own: &mut SplitMix64,
    id: &str,
    (category, names): &(&str, [&str; 3]),
    scanner: &str,
    level: FindingLevel,
    status: FindingStatus,
    scanned_at: OffsetDateTime,
) -> ScanFinding {
    let hostile = &generation.hostile;
    let mut name = (*own.pick(names)).to_owned();
    let mut description = format!(
        "{name}. Found by {scanner} in the project's code; see the finding's category ({category}) for how to fix it."
    );
    if !hostile.is_empty() && own.chance(0.08) {
        name = hostile[own.below(hostile.len() as u64) as usize].clone();
    }
    if !hostile.is_empty() && own.chance(0.08) {
        description = format!(
            "{description} Matched text: {}",
            hostile[own.below(hostile.len() as u64) as usize]
        );
    }
    let created_at = scanned_at - Duration::days(own.below(30) as i64);
    let updated_at = if status == FindingStatus::Open {
        created_at
    } else {
        scanned_at
    };
    ScanFinding {
        id: id.to_owned(),
        category: (*category).to_owned(),
        level,
        name,
        description: Some(description),
        scanner_name: scanner.to_owned(),
        status,
        created_at,
        updated_at,
    }
}
