//! Data to serve: the built-in demo fixture, fixture files, and a deterministic
//! generator of synthetic workspaces of any size.
//!
//! Timestamps in generated data are relative to an anchor (the start of the current
//! UTC day when serving), so the same seed and the same day give the same data and
//! the demo always looks recent. A fixture file may name its own `reference_time`;
//! its timestamps are then moved by the same amount as the anchor is after it.

mod fixture;
mod generate;
mod spec;
mod words;

use time::{OffsetDateTime, Time};

pub use fixture::{demo_fixture, fixture_to_json, load_fixture_file, parse_fixture};
pub use generate::generate;
pub use spec::GenerateSpec;

/// The built-in demo fixture.
pub const DEMO_FIXTURE: &str = include_str!("../../../assets/demo-fixture.json");

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::store::{Fixture, Store};
    use time::Duration;
    use time::macros::datetime;

    fn generated(projects: usize, members: usize, seed: u64, anchor: OffsetDateTime) -> Fixture {
        let spec = GenerateSpec {
            projects,
            members,
            seed,
        };
        generate(spec, anchor)
    }

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
        // Every 19th project is named from the hostile set: 600 name each one.
        let fixture = generated(600, 100, 3, datetime!(2026-11-22 00:00 UTC));
        assert_eq!(fixture.projects.len(), 600);
        assert_eq!(fixture.memberships.len(), 100);
        let ids: std::collections::HashSet<_> =
            fixture.projects.iter().map(|p| &p.wire.id).collect();
        assert_eq!(ids.len(), 600, "project ids are unique");
        let hostile = |s: &str| s.chars().any(|c| c.is_control());
        assert!(
            fixture
                .projects
                .iter()
                .any(|p| p.wire.description.as_deref().is_some_and(hostile))
        );
        assert!(
            fixture
                .memberships
                .iter()
                .any(|m| m.display_name.as_deref().is_some_and(hostile))
        );
        assert!(
            fixture
                .pii_findings
                .iter()
                .any(|f| hostile(&f.finding.quote))
        );
        // Every short hostile string names a project: formulas, C1, bidi and all.
        let names: Vec<&str> = fixture
            .projects
            .iter()
            .filter_map(|p| p.wire.name.as_deref())
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
        let fixture = generated(5, 3, 1, reference);
        let text = fixture_to_json(&fixture, reference);
        let moved = parse_fixture(&text, "test", anchor).unwrap();
        assert_eq!(
            moved.projects[0].updated_at,
            fixture.projects[0].updated_at + Duration::days(10)
        );
        assert_eq!(moved.projects[0].wire.name, fixture.projects[0].wire.name);
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
