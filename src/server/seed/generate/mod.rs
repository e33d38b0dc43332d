//! A deterministic generator of synthetic enterprise workspaces of any size.
//!
//! Every value comes from one SplitMix64 stream drawn in a fixed order, so the
//! same seed and anchor give the same data: the parts below are called, and
//! draw, in the order they always have.

mod members;
mod project;
mod security;

use time::{Duration, OffsetDateTime};

use super::spec::GenerateSpec;
use super::words::ENTERPRISE_KEYS;
use crate::api::model::PublishAudience;
use crate::hash::{hash_str, mix64};
use crate::rng::SplitMix64;
use crate::server::auth::{Feature, Plan};
use crate::server::catalog::finding_kind;
use crate::server::store::{Baseline, Fixture, FixtureKey, WorkspaceRec};

/// What every part of one generation reads.
struct Generation {
    seed: u64,
    anchor: OffsetDateTime,
    workspace_id: String,
    /// The hostile set (`crate::hostile`), which names, descriptions and quotes draw on.
    hostile: Vec<String>,
}

impl Generation {
    /// A moment 1 to `max_days` days and some minutes before the anchor: the
    /// days drawn first, then the minutes.
    fn time_before(&self, rng: &mut SplitMix64, max_days: u64) -> OffsetDateTime {
        self.anchor
            - Duration::days(rng.below(max_days) as i64 + 1)
            - Duration::minutes(rng.below(1_440) as i64)
    }
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
        description: None,
        image_url: None,
        plan: Plan::Enterprise,
        features: vec![
            Feature::SecurityCenter,
            Feature::PiiDetection,
            Feature::Trash,
        ],
        created_at: anchor - days(900),
        updated_at: None,
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

    let generation = Generation {
        seed: spec.seed,
        anchor,
        workspace_id,
        hostile,
    };
    let people = members::members(&generation, spec.members, &mut rng, &mut fixture);
    for n in 0..spec.projects {
        project::project(&generation, &people, n, &mut rng, &mut fixture);
    }

    // Counts 30 days ago, for the insights deltas.
    let ws = &mut fixture.workspaces[0];
    let cutoff = anchor - days(30);
    ws.baseline_30d = Baseline {
        total_projects: fixture
            .projects
            .iter()
            .filter(|p| p.wire.created_at.is_none_or(|at| at < cutoff))
            .count() as i64,
        externally_published: (fixture
            .projects
            .iter()
            .filter(|p| {
                p.wire.is_published && p.wire.publish_audience == Some(PublishAudience::Public)
            })
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
