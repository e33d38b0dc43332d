//! Operations 10 and 11 (security insights and the project inventory) and the
//! workspace project listing, over loopback, against the demo fixture and
//! generated ones. Expected results are recomputed here from the fixture data and
//! the contract's rules, independently of the server's code.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use crate::common::{self, *};
use reqwest::StatusCode;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};
use vantage::api::model::{PiiStatus, PublishAudience, ReviewPriority};
use vantage::server::auth::Feature;
use vantage::server::ratelimit::RateLimit;
use vantage::server::seed::{self, GenerateSpec};
use vantage::server::store::{Fixture, ProjectRec};
use vantage::server::{RunningServer, ServerConfig};

const CATALOG: [(&str, &str, bool); 4] = [
    ("public_security_exposure", "needs_review", false),
    ("public_pii_exposure", "needs_review", true),
    ("external_collaborator_access", "review_recommended", false),
    ("inactive_owner", "no_review_needed", false),
];

const SORTS: [&str; 15] = [
    "relevance",
    "review_priority",
    "name",
    "publish_audience",
    "last_edited_at",
    "risk_factor_count",
    "open_pii_finding_count",
    "external_access_rank",
    "edits_24h",
    "edits_7d",
    "edits_30d",
    "visitors_24h",
    "visitors_7d",
    "visitors_30d",
    "last_security_scan_at",
];

/// A server under test, with the data it was seeded from.
struct Subject {
    server: RunningServer,
    clock: vantage::clock::Clock,
    fixture: Fixture,
    key: String,
    workspace: String,
}

fn generated(projects: usize, members: usize, seed: u64) -> Fixture {
    seed::generate(
        GenerateSpec {
            projects,
            members,
            seed,
        },
        seed::today_anchor(T0),
    )
}

fn generated_key(fixture: &Fixture) -> String {
    fixture
        .keys
        .iter()
        .find(|key| key.label == "enterprise-admin")
        .map(|key| key.key.clone())
        .unwrap()
}

async fn subject(fixture: Fixture, key: &str, workspace: &str) -> Subject {
    subject_with(fixture, key, workspace, |_| {}).await
}

async fn subject_with(
    fixture: Fixture,
    key: &str,
    workspace: &str,
    adjust: impl FnOnce(&mut ServerConfig),
) -> Subject {
    let seeded = fixture.clone();
    let (server, clock) = server_with(move |config| {
        config.fixture = fixture;
        // Full walks make many requests; the limit is not under test here.
        config.rate_limit = RateLimit {
            limit: 1_000_000,
            window: Duration::seconds(60),
        };
        adjust(config);
    })
    .await;
    Subject {
        server,
        clock,
        fixture: seeded,
        key: key.to_owned(),
        workspace: workspace.to_owned(),
    }
}

async fn demo_subject() -> Subject {
    subject(demo(), ENTERPRISE_ADMIN, ENTERPRISE_WS).await
}

async fn generated_subject() -> Subject {
    let fixture = generated(400, 120, 7);
    let key = generated_key(&fixture);
    let workspace = fixture.workspaces[0].id.clone();
    subject(fixture, &key, &workspace).await
}

async fn get_as(server: &RunningServer, key: &str, path: &str) -> (StatusCode, Value) {
    let response = http()
        .get(format!("{}{path}", server.base_url()))
        .header("Service-API-Key", key)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let body = response.json::<Value>().await.unwrap_or(Value::Null);
    (status, body)
}

impl Subject {
    async fn get(&self, path: &str) -> (StatusCode, Value) {
        get_as(&self.server, &self.key, path).await
    }

    fn insights_path(&self) -> String {
        format!("/v1/workspaces/{}/security-center/insights", self.workspace)
    }

    fn inventory_path(&self) -> String {
        format!(
            "/v1/workspaces/{}/security-center/insights/projects",
            self.workspace
        )
    }

    fn projects(&self) -> Vec<&ProjectRec> {
        self.fixture
            .projects
            .iter()
            .filter(|p| p.wire.workspace_id == self.workspace)
            .collect()
    }

    fn pii_detection(&self) -> bool {
        self.fixture
            .workspaces
            .iter()
            .find(|w| w.id == self.workspace)
            .unwrap()
            .features
            .contains(&Feature::PiiDetection)
    }

    /// Every item of the inventory under `params`, page by page, checking the
    /// pagination envelope and `total` on the way.
    async fn walk_inventory(&self, params: &str, limit: usize) -> (Vec<Value>, i64) {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut total = None;
        for _ in 0..1_000 {
            let mut path = format!("{}?limit={limit}", self.inventory_path());
            if !params.is_empty() {
                path.push('&');
                path.push_str(params);
            }
            if let Some(cursor) = &cursor {
                path.push_str("&cursor=");
                path.push_str(cursor);
            }
            let (status, body) = self.get(&path).await;
            assert_eq!(status, StatusCode::OK, "{path}: {body}");
            let page = body["data"].as_array().unwrap();
            assert!(page.len() <= limit);
            let page_total = body["total"].as_i64().unwrap();
            assert_eq!(*total.get_or_insert(page_total), page_total, "{params}");
            items.extend(page.iter().cloned());
            let has_more = body["pagination"]["has_more"].as_bool().unwrap();
            if !has_more {
                assert_eq!(body["pagination"]["next_cursor"], Value::Null);
                return (items, total.unwrap());
            }
            assert_eq!(page.len(), limit, "a page before the last is full");
            cursor = Some(
                body["pagination"]["next_cursor"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
            );
        }
        panic!("the walk did not end");
    }
}

fn ids(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .map(|item| item["id"].as_str().unwrap().to_owned())
        .collect()
}

// ---------------------------------------------------------------------------
// Independent model of the contract's rules over fixture data.

fn open_pii(fixture: &Fixture) -> HashMap<String, i64> {
    let mut counts = HashMap::new();
    for finding in &fixture.pii_findings {
        if finding.finding.status == PiiStatus::Open {
            *counts.entry(finding.project_id.clone()).or_insert(0) += 1;
        }
    }
    counts
}

fn owner_name(fixture: &Fixture, project: &ProjectRec) -> Option<String> {
    let owner = project.wire.owner_id.as_deref()?;
    let mut memberships: Vec<_> = fixture
        .memberships
        .iter()
        .filter(|m| m.workspace_id == project.wire.workspace_id && m.user_id == owner)
        .collect();
    memberships.sort_by_key(|m| m.status != "active");
    memberships.first().and_then(|m| m.display_name.clone())
}

fn last_edit(project: &ProjectRec) -> OffsetDateTime {
    project.wire.last_edited_at.unwrap_or(project.updated_at)
}

fn activity_group(project: &ProjectRec) -> &'static str {
    let age = T0 - last_edit(project);
    if age <= Duration::days(14) {
        "last_14_days"
    } else if age <= Duration::days(60) {
        "last_60_days"
    } else {
        "older"
    }
}

fn shown_audience(project: &ProjectRec) -> Option<&str> {
    if project.wire.is_published {
        project
            .wire
            .publish_audience
            .as_ref()
            .map(PublishAudience::as_str)
    } else {
        None
    }
}

fn lower(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).collect()
}

/// The contract's relevance, as documented in `server::search`: every term of 3+
/// characters must occur in the name or the owner's name; name matches weigh 2,
/// owner matches 1; exact field 3, word start 2, elsewhere 1.
fn relevance(query: &str, name: Option<&str>, owner: Option<&str>) -> Option<i64> {
    let mut terms: Vec<String> = Vec::new();
    for word in query.split_whitespace() {
        let term = lower(word);
        if term.chars().count() >= 3 && !terms.contains(&term) {
            terms.push(term);
        }
    }
    let quality = |field: &str, term: &str| -> i64 {
        if field == term {
            return 3;
        }
        let mut best = 0;
        let mut start = 0;
        while let Some(found) = field[start..].find(term) {
            let at = start + found;
            let before = field[..at].chars().last();
            best = best.max(if before.is_none_or(|c| !c.is_alphanumeric()) {
                2
            } else {
                1
            });
            start = at + field[at..].chars().next().unwrap().len_utf8();
        }
        best
    };
    let mut total = 0;
    for term in &terms {
        let in_name = name.map_or(0, |n| 2 * quality(&lower(n), term));
        let in_owner = owner.map_or(0, |o| quality(&lower(o), term));
        let best = in_name.max(in_owner);
        if best == 0 {
            return None;
        }
        total += best;
    }
    Some(total)
}

fn priority_rank(priority: &ReviewPriority) -> Option<i64> {
    match priority {
        ReviewPriority::NeedsReview => Some(3),
        ReviewPriority::ReviewRecommended => Some(2),
        ReviewPriority::NoReviewNeeded => Some(1),
        _ => None,
    }
}

fn audience_rank(project: &ProjectRec) -> i64 {
    match shown_audience(project) {
        None => 0,
        Some("workspace") => 1,
        Some("custom") => 2,
        Some("public") => 3,
        Some(other) => panic!("unexpected audience {other}"),
    }
}

fn external_rank(project: &ProjectRec) -> i64 {
    if project.security.external_collaborators > 0 {
        3
    } else if project.security.values.shared_user_count > 0 {
        2
    } else if shown_audience(project) == Some("public") {
        1
    } else {
        0
    }
}

/// What the test knows about one project, for filtering and ordering.
struct Row<'a> {
    project: &'a ProjectRec,
    open_pii: i64,
    owner: Option<String>,
    score: i64,
}

/// The contract's order for `sort_by`/`sort_order` (see the inventory module
/// docs for the choices where the contract is silent). `None` is the default.
fn expected_order(
    by: Option<&str>,
    descending: bool,
    with_query: bool,
    a: &Row,
    b: &Row,
) -> Ordering {
    let dir = |order: Ordering| if descending { order.reverse() } else { order };
    let (pa, pb) = (a.project, b.project);
    let by = by.unwrap_or(if with_query {
        "relevance"
    } else {
        "last_edited_at"
    });
    let name_key = |p: &ProjectRec| p.wire.name.as_deref().map(lower);
    let primary = match by {
        "relevance" => dir(a.score.cmp(&b.score)).then(dir(pa.updated_at.cmp(&pb.updated_at))),
        "review_priority" => {
            let (ra, rb) = (
                priority_rank(&pa.security.review_priority),
                priority_rank(&pb.security.review_priority),
            );
            ra.is_none()
                .cmp(&rb.is_none())
                .then(dir(ra.cmp(&rb)))
                .then(dir(pa.security.risk_score.cmp(&pb.security.risk_score)))
        }
        "name" => dir(name_key(pa).cmp(&name_key(pb))),
        "publish_audience" => dir(audience_rank(pa).cmp(&audience_rank(pb))),
        "last_edited_at" => dir(last_edit(pa).cmp(&last_edit(pb))),
        "risk_factor_count" => dir(pa
            .security
            .explanation
            .len()
            .cmp(&pb.security.explanation.len())),
        "open_pii_finding_count" => dir(a.open_pii.cmp(&b.open_pii)),
        "external_access_rank" => {
            dir(external_rank(pa).cmp(&external_rank(pb))).then(name_key(pa).cmp(&name_key(pb)))
        }
        "edits_24h" => dir(pa.activity.edits_24h.cmp(&pb.activity.edits_24h)),
        "edits_7d" => dir(pa.activity.edits_7d.cmp(&pb.activity.edits_7d)),
        "edits_30d" => dir(pa.activity.edits_30d.cmp(&pb.activity.edits_30d)),
        "visitors_24h" => dir(pa.activity.visitors_24h.cmp(&pb.activity.visitors_24h)),
        "visitors_7d" => dir(pa.activity.visitors_7d.cmp(&pb.activity.visitors_7d)),
        "visitors_30d" => dir(pa.activity.visitors_30d.cmp(&pb.activity.visitors_30d)),
        "last_security_scan_at" => {
            let (sa, sb) = (
                pa.security.last_security_scan_at,
                pb.security.last_security_scan_at,
            );
            sa.is_none().cmp(&sb.is_none()).then(dir(sa.cmp(&sb)))
        }
        other => panic!("unknown sort {other}"),
    };
    primary.then(pa.wire.id.cmp(&pb.wire.id))
}

fn rows<'a>(subject: &'a Subject, query: Option<&str>) -> Vec<Row<'a>> {
    let pii = open_pii(&subject.fixture);
    subject
        .projects()
        .into_iter()
        .filter_map(|project| {
            let owner = owner_name(&subject.fixture, project);
            let score = match query {
                Some(query) => relevance(query, project.wire.name.as_deref(), owner.as_deref())?,
                None => 0,
            };
            Some(Row {
                project,
                open_pii: pii.get(&project.wire.id).copied().unwrap_or(0),
                owner,
                score,
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Operation 10: insights.

fn expected_findings(subject: &Subject, priorities: &[&str]) -> Vec<(String, i64)> {
    CATALOG
        .iter()
        .filter(|(_, _, needs_pii)| subject.pii_detection() || !needs_pii)
        .filter(|(_, priority, _)| priorities.is_empty() || priorities.contains(priority))
        .map(|(id, _, _)| {
            let count = subject
                .projects()
                .iter()
                .filter(|p| p.security.finding_type_ids.iter().any(|f| f == id))
                .count() as i64;
            ((*id).to_owned(), count)
        })
        .collect()
}

fn expected_summary(subject: &Subject) -> Value {
    let workspace = subject
        .fixture
        .workspaces
        .iter()
        .find(|w| w.id == subject.workspace)
        .unwrap();
    let projects = subject.projects();
    let total = projects.len() as i64;
    let public = projects
        .iter()
        .filter(|p| shown_audience(p) == Some("public"))
        .count() as i64;
    let members = subject
        .fixture
        .memberships
        .iter()
        .filter(|m| m.workspace_id == subject.workspace && m.status == "active")
        .count() as i64;
    let risk = |priority: ReviewPriority| {
        projects
            .iter()
            .filter(|p| p.security.review_priority == priority)
            .count() as i64
    };
    let baseline = &workspace.baseline_30d;
    json!({
        "total_projects": {"value": total, "delta_30d": total - baseline.total_projects, "delta_window": "30d"},
        "externally_published": {"value": public, "delta_30d": public - baseline.externally_published, "delta_window": "30d"},
        "workspace_members": {"value": members, "delta_30d": members - baseline.workspace_members, "delta_window": "30d"},
        "risk": {
            "needs_review": risk(ReviewPriority::NeedsReview),
            "no_review_needed": risk(ReviewPriority::NoReviewNeeded),
            "review_recommended": risk(ReviewPriority::ReviewRecommended),
        },
    })
}

#[tokio::test]
async fn insights_list_every_finding_type_with_counts_and_a_workspace_wide_summary() {
    for subject in [demo_subject().await, generated_subject().await] {
        let (status, body) = subject.get(&subject.insights_path()).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let findings: Vec<(String, i64)> = body["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["id"].as_str().unwrap().to_owned(),
                    f["project_count"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(findings, expected_findings(&subject, &[]));
        assert_eq!(body["summary"], expected_summary(&subject));
        let as_of = subject
            .fixture
            .workspaces
            .iter()
            .find(|w| w.id == subject.workspace)
            .unwrap()
            .as_of;
        assert_eq!(
            body["as_of"],
            json!(as_of.map(vantage::api::model::format_timestamp))
        );
    }
    // One finding type, literally.
    let subject = demo_subject().await;
    let (_, body) = subject.get(&subject.insights_path()).await;
    let count = expected_findings(&subject, &[])[0].1;
    assert_eq!(
        body["findings"][0],
        json!({
            "id": "public_security_exposure",
            "title": "Publicly published with security issues",
            "description": "The app is published to everyone and its latest security scan reports errors or exposed secrets.",
            "category": "exposure",
            "review_priority": "needs_review",
            "project_count": count,
        })
    );
}

#[tokio::test]
async fn the_review_priority_filter_narrows_findings_only() {
    let subject = demo_subject().await;
    let (_, unfiltered) = subject.get(&subject.insights_path()).await;
    let cases: [&[&str]; 4] = [
        &["needs_review"],
        &["review_recommended"],
        &["no_review_needed"],
        &["no_review_needed", "needs_review"],
    ];
    for priorities in cases {
        let query: Vec<String> = priorities
            .iter()
            .map(|p| format!("review_priority={p}"))
            .collect();
        let (status, body) = subject
            .get(&format!("{}?{}", subject.insights_path(), query.join("&")))
            .await;
        assert_eq!(status, StatusCode::OK);
        let ids: Vec<(String, i64)> = body["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["id"].as_str().unwrap().to_owned(),
                    f["project_count"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            ids,
            expected_findings(&subject, priorities),
            "{priorities:?}"
        );
        assert_eq!(body["summary"], unfiltered["summary"]);
    }
    for bad in ["unscored", "urgent", ""] {
        let (status, body) = subject
            .get(&format!(
                "{}?review_priority={bad}",
                subject.insights_path()
            ))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(body["type"], "invalid_request");
        assert_eq!(body["errors"][0]["location"], "query.review_priority");
    }
}

#[tokio::test]
async fn plans_and_workspaces_gate_insights_and_the_inventory() {
    let (server, _) = demo_server().await;
    // Business: insights without the personal-data type; no inventory.
    let (status, body) = get_as(
        &server,
        BUSINESS_ADMIN,
        &format!("/v1/workspaces/{BUSINESS_WS}/security-center/insights"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let ids: Vec<&str> = body["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "public_security_exposure",
            "external_collaborator_access",
            "inactive_owner"
        ]
    );
    let inventory = |ws: &str| format!("/v1/workspaces/{ws}/security-center/insights/projects");
    let (status, body) = get_as(&server, BUSINESS_ADMIN, &inventory(BUSINESS_WS)).await;
    assert_eq!(status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(body["type"], "payment_required");
    assert_eq!(body["props"], json!({"required_plan": "enterprise"}));
    // Pro: neither.
    let (status, body) = get_as(
        &server,
        PRO_ADMIN,
        &format!("/v1/workspaces/{PRO_WS}/security-center/insights"),
    )
    .await;
    assert_eq!(status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(body["props"]["required_plan"], "business");
    let (status, body) = get_as(&server, PRO_ADMIN, &inventory(PRO_WS)).await;
    assert_eq!(status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(body["props"]["required_plan"], "enterprise");
    // A project-scoped key lacks the workspace scope.
    let (status, body) = get_as(&server, PROJECTS_READ, &inventory(ENTERPRISE_WS)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["type"], "insufficient_scope");
    // Another workspace answers as a missing one.
    for path in [
        format!("/v1/workspaces/{BUSINESS_WS}/security-center/insights"),
        inventory(BUSINESS_WS),
        inventory("ws_nope"),
        format!("/v1/projects?workspace_id={BUSINESS_WS}"),
    ] {
        let (status, body) = get_as(&server, ENTERPRISE_READONLY, &path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(body["type"], "workspace_not_found");
    }
}

// ---------------------------------------------------------------------------
// Operation 11: inventory.

#[tokio::test]
async fn an_inventory_item_reads_as_the_contract_shows_it() {
    let subject = demo_subject().await;
    let (status, body) = subject
        .get(&format!(
            "{}?query=volunteer%20planner&limit=1",
            subject.inventory_path()
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body["data"][0],
        common::items::inventory_item(json!({
            "id": "prj_70256702db4f",
            "name": "Volunteer planner",
            "description": "Shared planner for the team's sprints, with a kanban board and reminders.",
            "url": "https://prj_70256702db4f.apps.vantage.invalid",
            "visibility": "restricted",
            "connectors": ["twilio"],
            "edge_functions": [
                {"name": "stripe-webhook"}, {"name": "daily-digest"}, {"name": "sync-crm"},
                {"name": "image-resize"}, {"name": "auth-callback"}
            ],
            "edit_count": 1742,
            "message_count": 1598,
            "edits_7d": 43,
            "edits_30d": 72,
            "visitors_24h": 357,
            "visitors_7d": 2499,
            "visitors_30d": 10710,
            "last_edited_at": "2026-11-17T01:04:00.000Z",
            "last_security_scan_at": "2026-10-26T00:00:00.000Z",
            "owner": {"display_name": "Sophie Hamilton"},
            "review_priority": "review_recommended",
            "review_priority_explanation": [{
                "id": "external_collaborator_access",
                "label": "External collaborators",
                "detail": "1 people outside the workspace can edit",
                "category": "exposure",
                "review_priority": "review_recommended"
            }],
            "matched_reason": {
                "id": "external_collaborator_access",
                "label": "External collaborators",
                "detail": "1 people outside the workspace can edit",
                "category": "exposure",
                "review_priority": "review_recommended",
                "values": {
                    "connector_count": 1, "edge_function_count": 5, "error_count": 0,
                    "info_count": 2, "open_pii_finding_count": 0, "secret_count": 0,
                    "shared_user_count": 0, "warning_count": 0
                }
            }
        }))
    );
    assert_eq!(body["as_of"], "2026-11-21T22:00:00.000Z");
    assert_eq!(body["applied_finding"], Value::Null);
    let workspace = &subject.fixture.workspaces[0];
    assert_eq!(
        body["activity_as_of"],
        json!({
            "edits_as_of": workspace.edits_as_of.map(vantage::api::model::format_timestamp),
            "visitors_as_of": workspace.visitors_as_of.map(vantage::api::model::format_timestamp),
        })
    );
}

/// A filter as a query string and as a predicate over the fixture.
type Filter = (&'static str, fn(&Row) -> bool);

fn filters() -> Vec<Filter> {
    vec![
        ("", |_| true),
        ("is_published=true", |r| r.project.wire.is_published),
        ("is_published=false", |r| !r.project.wire.is_published),
        ("activity_group=last_14_days", |r| {
            activity_group(r.project) == "last_14_days"
        }),
        ("activity_group=last_60_days&activity_group=older", |r| {
            activity_group(r.project) != "last_14_days"
        }),
        ("visibility=restricted&visibility=workspace_view", |r| {
            matches!(
                r.project.wire.visibility.as_ref().map(|v| v.as_str()),
                Some("restricted" | "workspace_view")
            )
        }),
        ("has_pii=true", |r| r.open_pii > 0),
        ("has_pii=false", |r| r.open_pii == 0),
        ("has_connectors=true", |r| {
            !r.project.security.connectors.is_empty()
        }),
        ("has_connectors=false", |r| {
            r.project.security.connectors.is_empty()
        }),
        ("publish_audience=public", |r| {
            shown_audience(r.project) == Some("public")
        }),
        (
            "publish_audience=custom&publish_audience=workspace&is_published=true",
            |r| matches!(shown_audience(r.project), Some("custom" | "workspace")),
        ),
        ("review_priority=unscored", |r| {
            r.project.security.review_priority == ReviewPriority::Unscored
        }),
        (
            "review_priority=needs_review&review_priority=no_review_needed",
            |r| {
                matches!(
                    r.project.security.review_priority,
                    ReviewPriority::NeedsReview | ReviewPriority::NoReviewNeeded
                )
            },
        ),
        ("finding_type_id=inactive_owner", |r| {
            r.project
                .security
                .finding_type_ids
                .iter()
                .any(|f| f == "inactive_owner")
        }),
        (
            "finding_type_id=public_pii_exposure&finding_type_id=external_collaborator_access",
            |r| {
                r.project
                    .security
                    .finding_type_ids
                    .iter()
                    .any(|f| f == "public_pii_exposure" || f == "external_collaborator_access")
            },
        ),
        (
            "is_published=true&has_connectors=true&review_priority=review_recommended",
            |r| {
                r.project.wire.is_published
                    && !r.project.security.connectors.is_empty()
                    && r.project.security.review_priority == ReviewPriority::ReviewRecommended
            },
        ),
    ]
}

#[tokio::test]
async fn every_filter_selects_what_the_fixture_says_in_the_default_order() {
    for subject in [demo_subject().await, generated_subject().await] {
        let all = rows(&subject, None);
        for (params, keep) in filters() {
            let mut expected: Vec<&Row> = all.iter().filter(|r| keep(r)).collect();
            expected.sort_by(|a, b| expected_order(None, true, false, a, b));
            let expected: Vec<&str> = expected
                .iter()
                .map(|r| r.project.wire.id.as_str())
                .collect();
            let (items, total) = subject.walk_inventory(params, 100).await;
            assert_eq!(ids(&items), expected, "{params}");
            assert_eq!(total, expected.len() as i64, "{params}");
        }
    }
}

#[tokio::test]
async fn query_matches_name_and_owner_best_match_first() {
    let subject = generated_subject().await;
    let some_owner = subject
        .projects()
        .iter()
        .find_map(|p| owner_name(&subject.fixture, p).filter(|n| n.is_ascii() && n.contains(' ')))
        .unwrap();
    let surname = some_owner.split(' ').next_back().unwrap().to_owned();
    let some_name = subject.projects()[3].wire.name.clone().unwrap();
    let first_word = some_name.split(' ').next().unwrap().to_uppercase();
    for query in [
        surname.clone(),
        first_word.clone(),
        format!("{first_word} {surname}"),
        format!("a {first_word} zz"),
        "no such project anywhere".to_owned(),
        "ab cd".to_owned(),
    ] {
        let encoded: String = form_urlencoded::byte_serialize(query.as_bytes()).collect();
        let mut expected = rows(&subject, Some(&query));
        expected.sort_by(|a, b| expected_order(None, true, true, a, b));
        let (items, total) = subject
            .walk_inventory(&format!("query={encoded}"), 50)
            .await;
        let expected_ids: Vec<&str> = expected
            .iter()
            .map(|r| r.project.wire.id.as_str())
            .collect();
        assert_eq!(ids(&items), expected_ids, "query {query:?}");
        assert_eq!(total, expected.len() as i64);
        for (item, row) in items.iter().zip(&expected) {
            assert_eq!(item["owner"]["display_name"], json!(row.owner));
        }
    }
}

#[tokio::test]
async fn every_sort_walks_all_pages_in_order_both_ways_demo() {
    every_sort_walks_all_pages_in_order_both_ways(demo_subject().await).await;
}

#[tokio::test]
async fn every_sort_walks_all_pages_in_order_both_ways_generated() {
    every_sort_walks_all_pages_in_order_both_ways(generated_subject().await).await;
}

async fn every_sort_walks_all_pages_in_order_both_ways(subject: Subject) {
    {
        let all_rows = rows(&subject, None);
        // A query with several matches of different quality, so relevance and its
        // tie-break are both exercised.
        let (query, query_rows) = ["lan", "ann", "ing", "app", "hub", "ada"]
            .into_iter()
            .map(|query| (query, rows(&subject, Some(query))))
            .find(|(_, rows)| {
                let scores: HashSet<i64> = rows.iter().map(|r| r.score).collect();
                rows.len() >= 3 && scores.len() >= 2
            })
            .expect("a query with varied matches");
        for sort in SORTS {
            for order in ["asc", "desc"] {
                let (rows, params) = if sort == "relevance" {
                    (
                        &query_rows,
                        format!("query={query}&sort_by={sort}&sort_order={order}"),
                    )
                } else {
                    (&all_rows, format!("sort_by={sort}&sort_order={order}"))
                };
                let mut expected: Vec<&Row> = rows.iter().collect();
                expected.sort_by(|a, b| {
                    expected_order(Some(sort), order == "desc", sort == "relevance", a, b)
                });
                let expected: Vec<&str> = expected
                    .iter()
                    .map(|r| r.project.wire.id.as_str())
                    .collect();
                let (items, total) = subject.walk_inventory(&params, 29).await;
                let got = ids(&items);
                assert_eq!(got, expected, "{params}");
                assert_eq!(total, expected.len() as i64, "{params}");
                let unique: HashSet<&String> = got.iter().collect();
                assert_eq!(unique.len(), got.len(), "{params}: each project once");
            }
        }
        // sort_order defaults to desc.
        let (default_desc, _) = subject.walk_inventory("sort_by=edits_7d", 50).await;
        let (explicit_desc, _) = subject
            .walk_inventory("sort_by=edits_7d&sort_order=desc", 50)
            .await;
        assert_eq!(ids(&default_desc), ids(&explicit_desc));
    }
}

#[tokio::test]
async fn one_finding_type_is_applied_and_explains_each_item() {
    for subject in [demo_subject().await, generated_subject().await] {
        for (id, _, _) in CATALOG {
            let (status, body) = subject
                .get(&format!(
                    "{}?finding_type_id={id}&limit=100",
                    subject.inventory_path()
                ))
                .await;
            assert_eq!(status, StatusCode::OK, "{body}");
            let total = body["total"].as_i64().unwrap();
            let expected_count = expected_findings(&subject, &[])
                .into_iter()
                .find(|(f, _)| f == id)
                .unwrap()
                .1;
            assert_eq!(total, expected_count, "{id}");
            assert_eq!(body["applied_finding"]["id"], id);
            assert_eq!(body["applied_finding"]["project_count"], total);
            for item in body["data"].as_array().unwrap() {
                assert_eq!(item["matched_reason"]["id"], id, "{item}");
            }
        }
        // Two types: no applied finding; the reason is the top explanation entry.
        let (_, body) = subject
            .get(&format!(
                "{}?finding_type_id=inactive_owner&finding_type_id=external_collaborator_access&limit=100",
                subject.inventory_path()
            ))
            .await;
        assert_eq!(body["applied_finding"], Value::Null);
        for item in body["data"].as_array().unwrap() {
            assert_eq!(
                item["matched_reason"]["id"],
                item["review_priority_explanation"][0]["id"]
            );
        }
        // With a filter on top, the applied count follows the filtered total.
        let (_, body) = subject
            .get(&format!(
                "{}?finding_type_id=inactive_owner&is_published=true",
                subject.inventory_path()
            ))
            .await;
        assert_eq!(body["applied_finding"]["project_count"], body["total"]);
    }
}

#[tokio::test]
async fn open_pii_values_come_from_the_findings() {
    let subject = generated_subject().await;
    let pii = open_pii(&subject.fixture);
    let (items, _) = subject
        .walk_inventory("sort_by=open_pii_finding_count&sort_order=desc", 100)
        .await;
    let mut with_reason = 0;
    for item in &items {
        if item["matched_reason"].is_null() {
            continue;
        }
        with_reason += 1;
        let id = item["id"].as_str().unwrap();
        assert_eq!(
            item["matched_reason"]["values"]["open_pii_finding_count"],
            pii.get(id).copied().unwrap_or(0)
        );
    }
    assert!(with_reason > 0);
}

#[tokio::test]
async fn malformed_parameters_answer_400_at_their_location() {
    let subject = demo_subject().await;
    let cases = [
        ("limit=0", "query.limit"),
        ("limit=101", "query.limit"),
        ("limit=abc", "query.limit"),
        ("sort_by=size", "query.sort_by"),
        ("sort_order=asc", "query.sort_order"),
        ("sort_by=name&sort_order=up", "query.sort_order"),
        ("sort_by=relevance", "query.sort_by"),
        ("sort_by=relevance&query=", "query.sort_by"),
        ("activity_group=yesterday", "query.activity_group"),
        ("is_published=yes", "query.is_published"),
        ("visibility=private", "query.visibility"),
        ("has_pii=1", "query.has_pii"),
        ("has_connectors=maybe", "query.has_connectors"),
        ("publish_audience=everyone", "query.publish_audience"),
        (
            "publish_audience=public&is_published=false",
            "query.publish_audience",
        ),
        ("review_priority=urgent", "query.review_priority"),
        ("finding_type_id=nope", "query.finding_type_id"),
        ("cursor=abc", "query.cursor"),
    ];
    for (params, location) in cases {
        let (status, body) = subject
            .get(&format!("{}?{params}", subject.inventory_path()))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{params}: {body}");
        assert_eq!(body["type"], "invalid_request");
        assert_eq!(body["detail"], "validation failed");
        assert_eq!(body["errors"][0]["location"], location, "{params}");
    }
    let long = "x".repeat(1001);
    let (status, body) = subject
        .get(&format!("{}?query={long}", subject.inventory_path()))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["errors"][0]["location"], "query.query");
    let (status, _) = subject
        .get(&format!(
            "{}?query={}",
            subject.inventory_path(),
            "x".repeat(1000)
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    // publish_audience is fine with is_published=true or omitted.
    for params in [
        "publish_audience=public&is_published=true",
        "publish_audience=public",
    ] {
        let (status, _) = subject
            .get(&format!("{}?{params}", subject.inventory_path()))
            .await;
        assert_eq!(status, StatusCode::OK, "{params}");
    }
}

#[tokio::test]
async fn personal_data_parameters_need_detection() {
    let mut fixture = generated(120, 30, 11);
    fixture.workspaces[0]
        .features
        .retain(|feature| *feature != Feature::PiiDetection);
    let key = generated_key(&fixture);
    let workspace = fixture.workspaces[0].id.clone();
    let subject = subject(fixture, &key, &workspace).await;
    for params in [
        "has_pii=true",
        "has_pii=false",
        "sort_by=open_pii_finding_count",
        "finding_type_id=public_pii_exposure",
        "finding_type_id=inactive_owner&finding_type_id=public_pii_exposure",
    ] {
        let (status, body) = subject
            .get(&format!("{}?{params}", subject.inventory_path()))
            .await;
        assert_eq!(status, StatusCode::PAYMENT_REQUIRED, "{params}");
        assert_eq!(body["type"], "payment_required");
        assert_eq!(
            body["props"],
            json!({"required_features": ["pii_detection"]})
        );
    }
    // Unknown ids are still a 400, and the other types work.
    let (status, _) = subject
        .get(&format!(
            "{}?finding_type_id=nope",
            subject.inventory_path()
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = subject
        .get(&format!(
            "{}?finding_type_id=inactive_owner",
            subject.inventory_path()
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    // Insights leave the personal-data type out.
    let (_, body) = subject.get(&subject.insights_path()).await;
    let ids: Vec<&str> = body["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(!ids.contains(&"public_pii_exposure"));
    assert_eq!(ids.len(), 3);
}

#[tokio::test]
async fn cursors_are_bound_to_their_filters_and_sort() {
    let subject = demo_subject().await;
    let first = format!("{}?limit=5&sort_by=name", subject.inventory_path());
    let (_, body) = subject.get(&first).await;
    let cursor = body["pagination"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_owned();
    // The same parameters (another limit, an undeclared parameter) accept it.
    for params in [
        "limit=5&sort_by=name",
        "limit=7&sort_by=name",
        "sort_by=name&unknown=1",
    ] {
        let (status, _) = subject
            .get(&format!(
                "{}?{params}&cursor={cursor}",
                subject.inventory_path()
            ))
            .await;
        assert_eq!(status, StatusCode::OK, "{params}");
    }
    for params in [
        "limit=5&sort_by=name&sort_order=asc",
        "limit=5&sort_by=edits_7d",
        "limit=5&sort_by=name&is_published=true",
        "limit=5",
    ] {
        let (status, body) = subject
            .get(&format!(
                "{}?{params}&cursor={cursor}",
                subject.inventory_path()
            ))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{params}");
        assert_eq!(body["errors"][0]["location"], "query.cursor");
    }
    let mut tampered = cursor.clone().into_bytes();
    tampered[3] = if tampered[3] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    let (status, body) = subject
        .get(&format!(
            "{}?limit=5&sort_by=name&cursor={tampered}",
            subject.inventory_path()
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["errors"][0]["location"], "query.cursor");
    // A cursor of the project listing is not one of the inventory.
    let (_, body) = subject
        .get(&format!(
            "/v1/projects?workspace_id={}&limit=5",
            subject.workspace
        ))
        .await;
    let other = body["pagination"]["next_cursor"].as_str().unwrap();
    let (status, _) = subject
        .get(&format!(
            "{}?limit=5&cursor={other}",
            subject.inventory_path()
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn lists_show_a_rename_only_after_the_consistency_lag() {
    let fixture = demo();
    let project = first_project(&fixture, ENTERPRISE_WS);
    let subject = subject_with(fixture, ENTERPRISE_ADMIN, ENTERPRISE_WS, |config| {
        config.consistency_lag = Duration::seconds(5);
    })
    .await;
    let response = http()
        .patch(format!(
            "{}/v1/projects/{project}",
            subject.server.base_url()
        ))
        .header("Service-API-Key", ENTERPRISE_ADMIN)
        .json(&json!({"name": "Zebracorn lighthouse"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let (_, body) = subject.get(&format!("/v1/projects/{project}")).await;
    assert_eq!(
        body["name"], "Zebracorn lighthouse",
        "strongly consistent read"
    );
    let search = format!("{}?query=zebracorn", subject.inventory_path());
    let listing = format!("/v1/projects?workspace_id={ENTERPRISE_WS}&limit=100");
    let listed_name = |body: &Value| {
        body["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == project.as_str())
            .map(|p| p["name"].clone())
    };
    let (_, body) = subject.get(&search).await;
    assert_eq!(body["total"], 0, "the inventory lags");
    let (_, body) = subject.get(&listing).await;
    assert_ne!(listed_name(&body), Some(json!("Zebracorn lighthouse")));
    subject.clock.advance(Duration::seconds(4));
    let (_, body) = subject.get(&search).await;
    assert_eq!(body["total"], 0, "still within the lag");
    subject.clock.advance(Duration::seconds(2));
    let (_, body) = subject.get(&search).await;
    assert_eq!(body["total"], 1);
    assert_eq!(body["data"][0]["id"], project.as_str());
    let (_, body) = subject.get(&listing).await;
    assert_eq!(listed_name(&body), Some(json!("Zebracorn lighthouse")));
}

/// Search compares a name kept current on every write: a renamed project is
/// found by its new name and no longer by its old one.
#[tokio::test]
async fn search_finds_a_project_by_its_new_name() {
    let (server, _clock) = common::demo_server().await;
    let fixture = common::demo();
    let project = common::first_project(&fixture, common::ENTERPRISE_WS);
    let http = common::http();
    let base = server.base_url();
    let patch = http
        .patch(format!("{base}/v1/projects/{project}"))
        .header("Service-API-Key", common::ENTERPRISE_ADMIN)
        .json(&serde_json::json!({"name": "Zebra Quasar"}))
        .send()
        .await
        .unwrap();
    assert_eq!(patch.status(), 200);
    let search = |query: &str| {
        let url = format!(
            "{base}/v1/workspaces/{}/security-center/insights/projects?query={query}",
            common::ENTERPRISE_WS
        );
        let http = http.clone();
        async move {
            let page: serde_json::Value = http
                .get(url)
                .header("Service-API-Key", common::ENTERPRISE_ADMIN)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            page["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|item| item["id"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(search("quasar").await, vec![project.clone()]);
    assert_eq!(search("ZEBRA").await, vec![project.clone()]);
    let old_name = fixture
        .projects
        .iter()
        .find(|p| p.wire.id == project)
        .and_then(|p| p.wire.name.clone())
        .unwrap();
    let old_term = old_name
        .split_whitespace()
        .find(|term| term.chars().count() >= 3)
        .unwrap()
        .to_owned();
    let found = search(&old_term).await;
    assert!(!found.contains(&project), "the old name no longer matches");
}

/// The inventory's filters are declared once for the client, the command's
/// flags, the palette and saved views (`api::InventoryParams`); the server
/// declares the same query parameters, `cursor` besides, and no other.
#[test]
fn the_server_declares_every_inventory_parameter_the_client_sends() {
    use vantage::api::InventoryParams;
    use vantage::api::model::{ActivityGroup, InventorySortBy, SortOrder, Visibility, WireEnum};

    let every = InventoryParams {
        limit: Some(10),
        query: Some("ledger".into()),
        sort_by: Some(InventorySortBy::Name),
        sort_order: Some(SortOrder::Asc),
        activity_group: ActivityGroup::known_values().to_vec(),
        is_published: Some(true),
        visibility: Visibility::known_values().to_vec(),
        has_pii: Some(true),
        has_connectors: Some(false),
        publish_audience: PublishAudience::known_values().to_vec(),
        review_priority: ReviewPriority::known_values().to_vec(),
        finding_type_id: vec!["inactive_owner".into()],
    };
    let mut sent: Vec<String> = vantage::api::page::to_query(&every, Some("c1"))
        .into_pairs()
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    sent.dedup();
    sent.sort();
    let mut declared = vantage::server::ops::LIST_INVENTORY.query.to_vec();
    declared.sort();
    assert_eq!(sent, declared);
}
