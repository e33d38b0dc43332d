//! One project: name, owner, timeline, publishing and activity; its personal
//! data and security posture come from `security`.

use time::Duration;

use super::members::People;
use super::security::{self, Exposure};
use super::{Generation, uuid_from};
use crate::api::model::{AudienceTarget, Project, PublishAudience, Visibility};
use crate::hash::{hash_str, mix64};
use crate::rng::SplitMix64;
use crate::server::seed::words::{ADJECTIVES, CONNECTORS, DESCRIPTIONS, EDGE_FUNCTIONS, NOUNS};
use crate::server::store::{Activity, AnalyticsProfile, Derived, Fixture, ProjectRec};

pub(super) fn project(
    generation: &Generation,
    people: &People,
    n: usize,
    rng: &mut SplitMix64,
    fixture: &mut Fixture,
) {
    let anchor = generation.anchor;
    let hostile = &generation.hostile;
    let id = format!(
        "prj_{:012x}",
        mix64(generation.seed ^ (n as u64).wrapping_mul(0x9E37)) & 0xffff_ffff_ffff
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
    let owner_left = !people.inactive.is_empty() && rng.chance(0.05);
    let owner_id = if rng.chance(0.02) {
        None
    } else if owner_left {
        Some(rng.pick(&people.inactive).clone())
    } else {
        people
            .active
            .get(rng.below(people.active.len() as u64) as usize)
            .map(|(id, _)| id.clone())
    };
    let created_at = generation.time_before(rng, 720);
    let age_days = (anchor - created_at).whole_days().max(1) as u64;
    let edited_ago = match rng.below(10) {
        0..=4 => rng.below(14.min(age_days)),
        5..=7 => 14 + rng.below(46),
        _ => 60 + rng.below(age_days.max(61) - 60 + 1),
    }
    .min(age_days);
    let never_edited = rng.chance(0.04);
    let last_edited_at = (!never_edited).then(|| {
        anchor - Duration::days(edited_ago as i64) - Duration::minutes(rng.below(1_440) as i64)
    });
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
                    uuid_from(&mut *rng)
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
    let open_pii = security::pii_findings(generation, n, &id, rng, fixture);
    let security = security::security_profile(
        generation,
        &id,
        Exposure {
            connectors,
            edge_functions,
            public: is_published && audience == Some(PublishAudience::Public),
            owner_inactive: owner_left || edited_ago >= 180 || never_edited,
            open_pii,
        },
        rng,
        fixture,
    );
    let has_commit = !never_edited || rng.chance(0.5);
    // The draws from `rng` below stay in this order: moving one moves every
    // value after it.
    let wire = Project {
        id: id.clone(),
        workspace_id: generation.workspace_id.clone(),
        name,
        description,
        created_at: (!rng.chance(0.01)).then_some(created_at),
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
        preview_url: (!rng.chance(0.05)).then(|| format!("https://preview--{id}.vantage.invalid")),
        is_published,
        publish_audience: audience,
        publish_audience_targets: audience_targets,
        visibility,
    };
    fixture.projects.push(ProjectRec {
        wire,
        updated_at,
        published_url: ever_published.then(|| format!("https://{id}.apps.vantage.invalid")),
        security,
        activity,
        analytics: ever_published.then(|| AnalyticsProfile {
            retention_days: if rng.chance(0.3) { 90 } else { 365 },
            daily_visitors,
        }),
        derived: Derived::default(),
    });
}
