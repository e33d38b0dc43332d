use std::collections::BTreeMap;

use super::to_value;
use crate::policy::input::{
    FindingTypeInput, InsightsInput, MatchedReasonInput, MemberInput, OwnerInput, PolicyInput,
    ProjectInput, ReviewInput, Source, SourceKind, Sources, WorkspaceInput,
};

/// The tree as the engine parses the document's JSON, compared through
/// `Debug`, which shows every node (null, absent, array or object).
fn parsed(input: &PolicyInput) -> String {
    let json = serde_json::to_string(input).unwrap();
    format!("{:?}", regorus::Value::from_json_str(&json).unwrap())
}

#[test]
fn the_document_becomes_the_tree_its_json_would_parse_to() {
    let source = Source {
        from: SourceKind::Snapshot,
        at: "2026-11-28T12:00:00.000Z".into(),
        snapshot_id: Some(7),
    };
    let mut input = PolicyInput {
        version: 1,
        evaluated_at: "2026-11-28T12:00:00.000Z".into(),
        sources: Sources {
            workspace: source.clone(),
            projects: source.clone(),
            members: source,
            reviews: Source {
                from: SourceKind::History,
                at: "2026-11-28T12:00:00.000Z".into(),
                snapshot_id: None,
            },
        },
        workspace: WorkspaceInput {
            id: "ws_1".into(),
            plan: Some("enterprise".into()),
            insights: Some(InsightsInput {
                as_of: None,
                total_projects: 2,
                externally_published: 1,
                workspace_members: 1,
                needs_review: 1,
                review_recommended: 0,
                no_review_needed: 1,
                findings: vec![FindingTypeInput {
                    id: "public_pii_exposure".into(),
                    title: "Public personal data".into(),
                    category: "security".into(),
                    review_priority: "needs_review".into(),
                    project_count: 1,
                }],
            }),
        },
        projects: vec![ProjectInput {
            id: "prj_plain".into(),
            ..ProjectInput::default()
        }],
        members: Vec::new(),
    };
    input.projects.push(ProjectInput {
        id: "prj_édition \"quoted\"\n".into(),
        name: Some(None),
        description: None,
        edit_count: Some(-3),
        visitors_7d: Some(i64::MAX),
        edits_24h: Some(0),
        is_published: Some(false),
        connectors: Some(Vec::new()),
        owner: Some(OwnerInput {
            display_name: Some(None),
        }),
        matched_reason: Some(Some(MatchedReasonInput {
            id: "pii".into(),
            label: None,
            review_priority: Some("needs_review".into()),
            values: Some(BTreeMap::from([
                ("open_pii_finding_count".into(), 2),
                ("zeta".into(), i64::MIN),
            ])),
        })),
        review: Some(ReviewInput {
            marked_at: "2026-11-01T00:00:00.000Z".into(),
            reviewer: None,
            changed_since_review: Some(true),
            changed_fields: vec!["name".into(), "visibility".into()],
        }),
        ..ProjectInput::default()
    });
    input.members.push(MemberInput {
        user_id: "usr_1".into(),
        kind: "user".into(),
        role: None,
        name: Some(None),
    });
    let built = to_value(&input).unwrap();
    assert_eq!(format!("{built:?}"), parsed(&input));
}
