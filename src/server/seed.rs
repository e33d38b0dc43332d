//! Data to serve: the built-in demo fixture, fixture files, and a deterministic
//! generator of synthetic workspaces of any size.
//!
//! Timestamps in generated data are relative to an anchor (the start of the current
//! UTC day when serving), so the same seed and the same day give the same data and
//! the demo always looks recent. A fixture file may name its own `reference_time`;
//! its timestamps are then moved by the same amount as the anchor is after it.

use serde_json::Value;
use time::{Duration, OffsetDateTime, Time};

use super::auth::{Feature, Plan, Scope};
use super::catalog::finding_kind;
use super::store::*;
use crate::api::model::{
    AudienceTarget, PiiSource, PiiStatus, PublishAudience, Reason, ReasonValues, ReviewPriority,
    Role, ScanFinding, Visibility,
};
use crate::clock::{SplitMix64, hash_str, mix64};

/// The built-in demo fixture.
pub const DEMO_FIXTURE: &str = include_str!("../../assets/demo-fixture.json");

#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    /// JSON that is not well-formed, or does not match the fixture format, at
    /// `path` (e.g. `projects[3].visibility`).
    #[error("fixture {origin}: at {path}: {message}")]
    Parse {
        origin: String,
        /// Where in the document, e.g. `workspaces[0].name`.
        path: String,
        message: String,
    },
    #[error("fixture {origin}: {what} leaves the years -9999 to 9999")]
    OutOfRange { origin: String, what: String },
    #[error("cannot read fixture {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("--generate: {0}")]
    Spec(String),
}

/// The start of the current UTC day: the anchor of generated timestamps.
pub fn today_anchor(now: OffsetDateTime) -> OffsetDateTime {
    now.to_offset(time::UtcOffset::UTC)
        .replace_time(Time::MIDNIGHT)
}

/// A fixture's top-level document: the data, and optionally the time it was
/// written against.
#[derive(serde::Deserialize)]
struct FixtureFile {
    #[serde(default, with = "crate::api::model::rfc3339::option")]
    reference_time: Option<OffsetDateTime>,
    #[serde(flatten)]
    data: Value,
}

/// Parses a fixture document, moving its timestamps to `anchor` when it names a
/// `reference_time`.
pub fn parse_fixture(
    text: &str,
    origin: &str,
    anchor: OffsetDateTime,
) -> Result<Fixture, SeedError> {
    let parse_err = |error: serde_path_to_error::Error<serde_json::Error>| SeedError::Parse {
        origin: origin.to_owned(),
        path: match error.path().to_string().as_str() {
            "." => "top level".to_owned(),
            path => path.to_owned(),
        },
        message: error.inner().to_string(),
    };
    let file: FixtureFile =
        serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(text))
            .map_err(parse_err)?;
    let mut data = file.data;
    if let Some(reference) = file.reference_time {
        shift_timestamps(&mut data, anchor - reference).map_err(|what| SeedError::OutOfRange {
            origin: origin.to_owned(),
            what,
        })?;
    }
    serde_path_to_error::deserialize(data).map_err(parse_err)
}

pub fn load_fixture_file(
    path: &std::path::Path,
    anchor: OffsetDateTime,
) -> Result<Fixture, SeedError> {
    let text = std::fs::read_to_string(path).map_err(|source| SeedError::Read {
        path: path.display().to_string(),
        source,
    })?;
    parse_fixture(&text, &path.display().to_string(), anchor)
}

pub fn demo_fixture(anchor: OffsetDateTime) -> Result<Fixture, SeedError> {
    parse_fixture(DEMO_FIXTURE, "assets/demo-fixture.json", anchor)
}

/// Serializes a fixture with `reference_time`, the format `parse_fixture` reads.
pub fn fixture_to_json(fixture: &Fixture, reference_time: OffsetDateTime) -> String {
    let mut value = serde_json::to_value(fixture).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        let mut ordered = serde_json::Map::new();
        ordered.insert(
            "reference_time".into(),
            Value::String(crate::api::model::format_timestamp(reference_time)),
        );
        ordered.append(map);
        value = Value::Object(ordered);
    }
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

/// Moves every timestamp field (`*_at`, `*_as_of`, `as_of`) by `delta`; a
/// timestamp pushed out of the calendar's range is returned as `Err`.
fn shift_timestamps(value: &mut Value, delta: Duration) -> Result<(), String> {
    match value {
        Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                let is_time = key.ends_with("_at") || key.ends_with("as_of");
                match field {
                    Value::String(text) if is_time => {
                        if let Some(at) = crate::api::model::parse_timestamp(text) {
                            let moved = at
                                .checked_add(delta)
                                .ok_or_else(|| format!("{key} {text} moved by reference_time"))?;
                            *text = crate::api::model::format_timestamp(moved);
                        }
                    }
                    other => shift_timestamps(other, delta)?,
                }
            }
            Ok(())
        }
        Value::Array(items) => items
            .iter_mut()
            .try_for_each(|item| shift_timestamps(item, delta)),
        _ => Ok(()),
    }
}

/// `--generate projects=N,members=M,seed=S`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenerateSpec {
    pub projects: usize,
    pub members: usize,
    pub seed: u64,
}

impl Default for GenerateSpec {
    fn default() -> Self {
        Self {
            projects: 200,
            members: 60,
            seed: 1,
        }
    }
}

impl std::str::FromStr for GenerateSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut spec = GenerateSpec::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = part
                .split_once('=')
                .ok_or_else(|| format!("{part:?} is not name=value"))?;
            let number: u64 = value
                .trim()
                .parse()
                .map_err(|_| format!("{name}: {value:?} is not a whole number"))?;
            match name.trim() {
                "projects" => spec.projects = number as usize,
                "members" => spec.members = number as usize,
                "seed" => spec.seed = number,
                other => {
                    return Err(format!(
                        "unknown setting {other:?}; known: projects, members, seed"
                    ));
                }
            }
        }
        if spec.projects > 1_000_000 || spec.members > 1_000_000 {
            return Err("at most 1,000,000 projects and members".into());
        }
        if spec.members == 0 {
            return Err("members must be at least 1 (projects need an owner)".into());
        }
        Ok(spec)
    }
}

/// Labels and scopes of the enterprise workspace's keys.
const ENTERPRISE_KEYS: &[(&str, &[Scope])] = &[
    ("enterprise-admin", &Scope::ALL),
    (
        "enterprise-readonly",
        &[Scope::ProjectsRead, Scope::WorkspacesRead],
    ),
    ("projects-read", &[Scope::ProjectsRead]),
    ("workspaces-read", &[Scope::WorkspacesRead]),
];

const ADJECTIVES: &[&str] = &[
    "Budget",
    "Customer",
    "Team",
    "Inventory",
    "Recipe",
    "Fitness",
    "Travel",
    "Invoice",
    "Support",
    "Event",
    "Marketing",
    "Sales",
    "Hiring",
    "Learning",
    "Booking",
    "Feedback",
    "Analytics",
    "Payroll",
    "Garden",
    "Music",
    "Property",
    "Clinic",
    "Volunteer",
    "Fleet",
];
const NOUNS: &[&str] = &[
    "tracker",
    "portal",
    "dashboard",
    "planner",
    "hub",
    "manager",
    "board",
    "studio",
    "app",
    "assistant",
    "directory",
    "console",
    "log",
    "journal",
    "map",
    "finder",
    "desk",
    "kit",
];
const FIRST_NAMES: &[&str] = &[
    "Ada",
    "Grace",
    "Linus",
    "Margaret",
    "Alan",
    "Barbara",
    "Dennis",
    "Frances",
    "Ken",
    "Radia",
    "Tim",
    "Katherine",
    "Guido",
    "Hedy",
    "Donald",
    "Sophie",
    "José",
    "Zoë",
    "Mei",
    "Arjun",
    "Olga",
    "Kwame",
    "Aiko",
    "Léa",
    "Mateo",
    "Nadia",
    "Søren",
    "Fatima",
    "Yusuf",
    "Ingrid",
];
const LAST_NAMES: &[&str] = &[
    "Lovelace",
    "Hopper",
    "Torvalds",
    "Hamilton",
    "Turing",
    "Liskov",
    "Ritchie",
    "Allen",
    "Thompson",
    "Perlman",
    "Berners-Lee",
    "Johnson",
    "van Rossum",
    "Lamarr",
    "Knuth",
    "Wilson",
    "García",
    "Müller",
    "Chen",
    "Patel",
    "Ivanova",
    "Mensah",
    "Tanaka",
    "Dubois",
    "Rossi",
    "Haddad",
    "Kierkegaard",
    "Nakamura",
    "Okafor",
    "Larsen",
];
const CONNECTORS: &[&str] = &[
    "supabase",
    "stripe",
    "github",
    "openai",
    "slack",
    "resend",
    "twilio",
    "google_sheets",
];
const EDGE_FUNCTIONS: &[&str] = &[
    "send-email",
    "stripe-webhook",
    "daily-digest",
    "sync-crm",
    "generate-report",
    "ai-chat",
    "image-resize",
    "auth-callback",
];
const DESCRIPTIONS: &[&str] = &[
    "A web app to keep track of monthly spending with charts and CSV import.",
    "Internal portal where customers file support tickets and follow their status.",
    "Shared planner for the team's sprints, with a kanban board and reminders.",
    "Landing page with a waitlist form that stores sign-ups in the database.",
    "Booking system for appointments with e-mail confirmations and a calendar view.",
    "Dashboard that pulls sales numbers from Stripe and shows weekly trends.",
];
const PII_QUOTES: &[&str] = &[
    "my email is jane.doe@example.com",
    "call me on +1 415 555 0132",
    "Customer: Maria Gonzalez, 12 Rue de Rivoli, Paris",
    "SSN 078-05-1120 for the payroll import",
    "card 4111 1111 1111 1111 exp 12/29",
    "DOB 1987-04-12, passport X1234567",
    "insert into users values ('bob@example.org', 'hunter2')",
];

/// A UUID-shaped identifier from the generator (version 4 layout, never nil).
fn uuid_from(rng: &mut SplitMix64) -> String {
    let hi = rng.next_u64();
    let lo = rng.next_u64() | 1;
    let bytes = ((u128::from(hi) << 64) | u128::from(lo)).to_be_bytes();
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .hyphenated()
        .to_string()
}

/// A deterministic enterprise workspace of any size, with its four keys.
pub fn generate(spec: GenerateSpec, anchor: OffsetDateTime) -> Fixture {
    let mut rng = SplitMix64::new(mix64(spec.seed));
    let workspace_id = format!("ws_gen{:08x}", mix64(spec.seed) as u32);
    let mut fixture = Fixture::default();
    let hostile = crate::hostile::hostile_strings();
    let days = |n: i64| Duration::days(n);

    fixture.workspaces.push(WorkspaceRec {
        id: workspace_id.clone(),
        name: format!("Generated workspace (seed {})", spec.seed),
        plan: Plan::Enterprise,
        features: vec![
            Feature::SecurityCenter,
            Feature::PiiDetection,
            Feature::Trash,
        ],
        created_at: anchor - days(900),
        baseline_30d: Baseline::default(),
        as_of: Some(anchor - Duration::hours(2)),
        edits_as_of: Some(anchor - Duration::hours(1)),
        visitors_as_of: Some(anchor - Duration::minutes(30)),
    });
    for (label, scopes) in ENTERPRISE_KEYS {
        fixture.keys.push(FixtureKey {
            label: (*label).to_owned(),
            key: format!(
                "vtg_{}_{:016x}",
                label.replace('-', "_"),
                mix64(spec.seed ^ hash_str(label))
            ),
            workspace_id: workspace_id.clone(),
            scopes: scopes.to_vec(),
        });
    }

    // Members.
    let mut active_users = Vec::new();
    let mut inactive_users = Vec::new();
    for n in 0..spec.members {
        let user_id = uuid_from(&mut rng);
        let first = *rng.pick(FIRST_NAMES);
        let last = *rng.pick(LAST_NAMES);
        let handle = format!(
            "{}.{}{}",
            first.to_lowercase(),
            last.to_lowercase().replace(' ', ""),
            n
        );
        let no_email = rng.chance(0.03);
        let no_name = rng.chance(0.03);
        let display_name = if no_name {
            None
        } else if n % 23 == 7 {
            Some(hostile[n / 23 % hostile.len()].clone())
        } else {
            Some(format!("{first} {last}"))
        };
        let role = if n == 0 {
            Role::Owner
        } else {
            match rng.below(100) {
                0..=1 => Role::Owner,
                2..=9 => Role::Admin,
                10..=69 => Role::Member,
                70..=84 => Role::Collaborator,
                _ => Role::Viewer,
            }
        };
        let status = match (n, rng.below(100)) {
            (0, _) => MEMBERSHIP_ACTIVE,
            (_, 0..=5) => "pending",
            (_, 6..=7) => "suspended",
            _ => MEMBERSHIP_ACTIVE,
        };
        let invited_at =
            anchor - days(rng.below(1_000) as i64 + 1) - Duration::minutes(rng.below(1_440) as i64);
        let joined_at = (status != "pending")
            .then(|| invited_at + Duration::minutes(rng.below(4 * 1_440) as i64 + 5));
        fixture.users.push(UserRec {
            id: user_id.clone(),
            email: (!no_email).then(|| format!("{handle}@example.com")),
            username: Some(handle),
        });
        fixture.memberships.push(MembershipRec {
            id: format!("mem_{n:07}"),
            workspace_id: workspace_id.clone(),
            user_id: user_id.clone(),
            role,
            status: status.to_owned(),
            display_name,
            joined_at,
            invited_at: Some(invited_at),
            scim_managed: rng.chance(0.3),
        });
        if status == MEMBERSHIP_ACTIVE {
            active_users.push((user_id, fixture.memberships.len() - 1));
        } else {
            inactive_users.push(user_id);
        }
    }

    // Projects.
    for n in 0..spec.projects {
        let id = format!(
            "prj_{:012x}",
            mix64(spec.seed ^ (n as u64).wrapping_mul(0x9E37)) & 0xffff_ffff_ffff
        );
        let name = if rng.chance(0.03) {
            None
        } else {
            let base = format!("{} {}", rng.pick(ADJECTIVES), rng.pick(NOUNS));
            Some(if n >= ADJECTIVES.len() * NOUNS.len() / 4 {
                format!("{base} {}", n % 97)
            } else {
                base
            })
        };
        // A few projects are named by an attacker; no name is over 100 code points.
        let name = if n % 19 == 7 {
            let short: Vec<&String> = hostile
                .iter()
                .filter(|s| s.chars().count() <= 100)
                .collect();
            Some(short[n / 19 % short.len()].clone())
        } else {
            name
        };
        let description = match rng.below(20) {
            0..=2 => None,
            3 => Some(hostile[n % hostile.len()].clone()),
            _ => Some(rng.pick(DESCRIPTIONS).to_string()),
        };
        // Owners are mostly active members; a few left the workspace.
        let owner_left = !inactive_users.is_empty() && rng.chance(0.05);
        let owner_id = if rng.chance(0.02) {
            None
        } else if owner_left {
            Some(rng.pick(&inactive_users).clone())
        } else {
            active_users
                .get(rng.below(active_users.len() as u64) as usize)
                .map(|(id, _)| id.clone())
        };
        let created_at =
            anchor - days(rng.below(720) as i64 + 1) - Duration::minutes(rng.below(1_440) as i64);
        let age_days = (anchor - created_at).whole_days().max(1) as u64;
        let edited_ago = match rng.below(10) {
            0..=4 => rng.below(14.min(age_days)),
            5..=7 => 14 + rng.below(46),
            _ => 60 + rng.below(age_days.max(61) - 60 + 1),
        }
        .min(age_days);
        let never_edited = rng.chance(0.04);
        let last_edited_at = (!never_edited)
            .then(|| anchor - days(edited_ago as i64) - Duration::minutes(rng.below(1_440) as i64));
        let updated_at = last_edited_at.unwrap_or(created_at);
        let ever_published = rng.chance(0.5);
        let is_published = ever_published && rng.chance(0.85);
        let audience = ever_published.then(|| match rng.below(10) {
            0..=4 => PublishAudience::Public,
            5..=7 => PublishAudience::Workspace,
            _ => PublishAudience::Custom,
        });
        let audience_targets = if audience == Some(PublishAudience::Custom) {
            (0..1 + rng.below(3))
                .map(|t| AudienceTarget {
                    id: if t == 0 {
                        format!("grp_{:06x}", rng.below(0xff_ffff))
                    } else {
                        uuid_from(&mut rng)
                    },
                    kind: if t == 0 {
                        "group".into()
                    } else {
                        "user".into()
                    },
                })
                .collect()
        } else {
            Vec::new()
        };
        let visibility = match rng.below(20) {
            0 => None,
            1..=4 => Some(Visibility::Restricted),
            5..=7 => Some(Visibility::WorkspaceView),
            _ => Some(Visibility::WorkspaceEdit),
        };
        let connectors: Vec<String> = CONNECTORS
            .iter()
            .filter(|_| rng.chance(0.18))
            .map(|c| (*c).to_owned())
            .collect();
        let edge_functions: Vec<String> = EDGE_FUNCTIONS
            .iter()
            .filter(|_| rng.chance(0.12))
            .map(|c| (*c).to_owned())
            .collect();
        let recent = edited_ago < 14 && !never_edited;
        let edits_30d = if edited_ago < 30 {
            rng.below(120) as i64
        } else {
            0
        };
        let edits_7d = if edited_ago < 7 {
            (edits_30d as u64 * (3 + rng.below(5)) / 10) as i64
        } else {
            0
        };
        let edits_24h = if edited_ago < 1 { edits_7d / 4 } else { 0 };
        let daily_visitors = if ever_published {
            (rng.unit().powi(3) * 2_000.0) as u32 + 1
        } else {
            0
        };
        let visitors = |d: u32| {
            if is_published {
                i64::from(daily_visitors) * i64::from(d)
            } else {
                0
            }
        };
        let activity = Activity {
            edit_count: edits_30d + rng.below(2_000) as i64,
            message_count: rng.below(3_000) as i64,
            edits_24h,
            edits_7d,
            edits_30d,
            visitors_24h: visitors(1),
            visitors_7d: visitors(7),
            visitors_30d: visitors(30),
        };

        // PII findings.
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
                    id: format!("pii_{:012x}", mix64(hash_str(&id) ^ f) & 0xffff_ffff_ffff),
                    project_id: id.clone(),
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

        // Security posture.
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
        let public = is_published && audience == Some(PublishAudience::Public);
        let owner_inactive = owner_left || edited_ago >= 180 || never_edited;
        let mut finding_type_ids = Vec::new();
        let mut explanation = Vec::new();
        let reason =
            |id: &str, label: &str, detail: String, category: &str, priority: ReviewPriority| {
                Reason {
                    id: id.to_owned(),
                    label: label.to_owned(),
                    detail,
                    category: category.to_owned(),
                    review_priority: priority,
                }
            };
        if scored {
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
        }
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
            let scan_id = format!("scn_{:012x}", mix64(hash_str(&id)) & 0xffff_ffff_ffff);
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
                        description: Some(
                            "Reported by the project's latest security scan.".to_owned(),
                        ),
                        scanner_name: rng.pick(&["supabase_lov", "agent_security"]).to_string(),
                        status: rng.pick(&["open", "open", "fixed", "ignored"]).to_string(),
                        created_at: scanned_at,
                        updated_at: scanned_at,
                    });
                }
            }
            fixture.scans.push(ScanRec {
                id: scan_id,
                project_id: id.clone(),
                status: "completed".to_owned(),
                commit_sha: Some(format!(
                    "{:040x}",
                    u128::from(mix64(hash_str(&id) ^ 7)) << 32
                )),
                started_at: Some(scanned_at - Duration::minutes(3)),
                finished_at: Some(scanned_at),
                requested_scanners: vec!["supabase_lov".into(), "agent_security".into()],
                findings,
            });
        }
        let top = explanation.first().cloned();
        let has_commit = !never_edited || rng.chance(0.5);
        fixture.projects.push(ProjectRec {
            id: id.clone(),
            workspace_id: workspace_id.clone(),
            name,
            description,
            created_at: (!rng.chance(0.01)).then_some(created_at),
            updated_at,
            last_edited_at,
            latest_commit_sha: has_commit.then(|| {
                format!(
                    "{:016x}{:016x}{:08x}",
                    mix64(hash_str(&id)),
                    mix64(n as u64),
                    n
                )
            }),
            latest_screenshot_url: has_commit
                .then(|| format!("https://screenshots.vantage.invalid/{id}.png")),
            owner_id,
            preview_url: (!rng.chance(0.05))
                .then(|| format!("https://preview--{id}.vantage.invalid")),
            is_published,
            audience,
            audience_targets,
            visibility,
            published_url: ever_published.then(|| format!("https://{id}.apps.vantage.invalid")),
            security: SecurityProfile {
                connectors,
                edge_functions,
                last_security_scan_at,
                review_priority,
                risk_score,
                explanation,
                values,
                finding_type_ids,
                external_collaborators,
            },
            activity,
            analytics: ever_published.then(|| AnalyticsProfile {
                retention_days: if rng.chance(0.3) { 90 } else { 365 },
                daily_visitors,
            }),
            derived: Derived::default(),
        });
        let _ = (recent, top);
    }

    // Counts 30 days ago, for the insights deltas.
    let ws = &mut fixture.workspaces[0];
    let cutoff = anchor - days(30);
    ws.baseline_30d = Baseline {
        total_projects: fixture
            .projects
            .iter()
            .filter(|p| p.created_at.is_none_or(|at| at < cutoff))
            .count() as i64,
        externally_published: (fixture
            .projects
            .iter()
            .filter(|p| p.is_published && p.audience == Some(PublishAudience::Public))
            .count() as i64
            * 9)
            / 10,
        workspace_members: fixture
            .memberships
            .iter()
            .filter(|m| m.is_active() && m.joined_at.is_some_and(|at| at < cutoff))
            .count() as i64,
    };
    debug_assert!(fixture.projects.iter().all(|p| {
        p.security
            .finding_type_ids
            .iter()
            .all(|id| finding_kind(id).is_some())
    }));
    fixture
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn same_seed_same_data() {
        let anchor = datetime!(2026-11-22 00:00 UTC);
        let spec = GenerateSpec {
            projects: 300,
            members: 80,
            seed: 9,
        };
        let a = serde_json::to_string(&generate(spec, anchor)).unwrap();
        let b = serde_json::to_string(&generate(spec, anchor)).unwrap();
        assert_eq!(a, b);
        let c =
            serde_json::to_string(&generate(GenerateSpec { seed: 10, ..spec }, anchor)).unwrap();
        assert_ne!(a, c);
    }

    #[test]
    fn generated_data_is_a_valid_fixture_with_hostile_strings() {
        let anchor = datetime!(2026-11-22 00:00 UTC);
        let fixture = generate(
            GenerateSpec {
                projects: 400,
                members: 100,
                seed: 3,
            },
            anchor,
        );
        assert_eq!(fixture.projects.len(), 400);
        assert_eq!(fixture.memberships.len(), 100);
        let ids: std::collections::HashSet<_> = fixture.projects.iter().map(|p| &p.id).collect();
        assert_eq!(ids.len(), 400, "project ids are unique");
        let hostile = |s: &str| s.chars().any(|c| c.is_control());
        assert!(
            fixture
                .projects
                .iter()
                .any(|p| p.description.as_deref().is_some_and(hostile))
        );
        assert!(
            fixture
                .memberships
                .iter()
                .any(|m| m.display_name.as_deref().is_some_and(hostile))
        );
        assert!(fixture.pii_findings.iter().any(|f| hostile(&f.quote)));
        // Every short hostile string names a project: formulas, C1, bidi and all.
        let names: Vec<&str> = fixture
            .projects
            .iter()
            .filter_map(|p| p.name.as_deref())
            .collect();
        for expected in crate::hostile::hostile_strings() {
            if expected.chars().count() <= 100 {
                assert!(names.contains(&expected.as_str()), "{expected:?}");
            }
        }
        let store = Store::open(None, crate::clock::Clock::system(), Duration::ZERO).unwrap();
        store.seed(&fixture).unwrap();
    }

    #[test]
    fn fixture_timestamps_follow_the_anchor() {
        let reference = datetime!(2026-01-01 00:00 UTC);
        let anchor = datetime!(2026-01-11 00:00 UTC);
        let fixture = generate(
            GenerateSpec {
                projects: 5,
                members: 3,
                seed: 1,
            },
            reference,
        );
        let text = fixture_to_json(&fixture, reference);
        let moved = parse_fixture(&text, "test", anchor).unwrap();
        assert_eq!(
            moved.projects[0].updated_at,
            fixture.projects[0].updated_at + Duration::days(10)
        );
        assert_eq!(moved.projects[0].name, fixture.projects[0].name);
    }

    #[test]
    fn the_demo_fixture_loads() {
        let fixture = demo_fixture(datetime!(2026-11-22 00:00 UTC)).unwrap();
        let labels: Vec<&str> = fixture.keys.iter().map(|k| k.label.as_str()).collect();
        for label in [
            "enterprise-admin",
            "enterprise-readonly",
            "projects-read",
            "workspaces-read",
            "business-admin",
            "pro-admin",
        ] {
            assert!(labels.contains(&label), "{label}");
        }
        let store = Store::open(None, crate::clock::Clock::system(), Duration::ZERO).unwrap();
        store.seed(&fixture).unwrap();
    }
}
