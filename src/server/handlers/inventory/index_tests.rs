//! The indexed inventory returns exactly what the full scan returned: the same
//! pages, cursors and totals, for random workspaces, filters, sorts and text
//! queries, across pages and after writes.

use proptest::prelude::*;
use serde_json::json;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

use super::item::{inventory_item, matched_reason};
use super::{InventoryRequest, activity_group, index};
use crate::api::model::{Pagination, ReviewPriority};
use crate::server::context::QueryParams;
use crate::server::errors::HttpError;
use crate::server::paging::PageRequest;
use crate::server::paging::compact::{CompactKey, paginate_compact};
use crate::server::search::{TextQuery, fold};
use crate::server::store::{Change, Data, ProjectRec, WorkspaceRec};

const SECRET: &[u8] = b"index-test-secret";
const BINDING: &str = "/v1/workspaces/ws_a/security-center/insights/projects";
const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);
/// Few distinct words and values, so ties, shared trigrams and empty results all occur.
const WORDS: &[&str] = &[
    "Budget", "budgets", "ÉTÉ", "app", "Tracker", "buDGet", "zeta", "al",
];
const OWNERS: &[&str] = &["Ann Budge", "bob", "Cléo Tracker", "dee"];

#[derive(Debug, Clone)]
struct Shape {
    workspace: bool,
    name: Option<(usize, usize)>,
    owner: Option<usize>,
    published: bool,
    audience: Option<usize>,
    visibility: Option<usize>,
    priority: usize,
    risk: i64,
    small: [i64; 4],
    edited_days: Option<i64>,
    updated_days: i64,
    scanned_days: Option<i64>,
    findings: usize,
    connectors: bool,
    pii: i64,
}

fn shape() -> impl Strategy<Value = Shape> {
    (
        (
            prop::bool::weighted(0.85),
            prop::option::weighted(0.85, (0..WORDS.len(), 0..WORDS.len())),
            prop::option::weighted(0.8, 0..OWNERS.len()),
            any::<bool>(),
            prop::option::of(0..4usize),
            prop::option::of(0..3usize),
            0..5usize,
            0..4i64,
        ),
        (
            prop::array::uniform4(0..3i64),
            prop::option::of(0..90i64),
            0..90i64,
            prop::option::of(0..3i64),
            0..16usize,
            any::<bool>(),
            0..3i64,
        ),
    )
        .prop_map(
            |(
                (workspace, name, owner, published, audience, visibility, priority, risk),
                (small, edited_days, updated_days, scanned_days, findings, connectors, pii),
            )| Shape {
                workspace,
                name,
                owner,
                published,
                audience,
                visibility,
                priority,
                risk,
                small,
                edited_days,
                updated_days,
                scanned_days,
                findings,
                connectors,
                pii,
            },
        )
}

fn project(index: usize, shape: &Shape) -> ProjectRec {
    let at = |days: i64| NOW - Duration::days(days) - Duration::hours(index as i64 % 3);
    let name = shape
        .name
        .map(|(a, b)| format!("{} {}", WORDS[a], WORDS[b]));
    let owner = shape.owner.map(|o| OWNERS[o].to_owned());
    let kinds = [
        "public_security_exposure",
        "public_pii_exposure",
        "external_collaborator_access",
        "inactive_owner",
    ];
    let priority = [
        "needs_review",
        "review_recommended",
        "no_review_needed",
        "unscored",
        "later",
    ][shape.priority];
    let audience = shape
        .audience
        .map(|a| ["public", "workspace", "custom", "friends_only"][a]);
    let visibility = shape
        .visibility
        .map(|v| ["restricted", "workspace_edit", "workspace_view"][v]);
    let findings: Vec<&str> = kinds
        .iter()
        .enumerate()
        .filter(|(bit, _)| shape.findings & (1 << bit) != 0)
        .map(|(_, id)| *id)
        .collect();
    let mut p: ProjectRec = serde_json::from_value(json!({
        "id": format!("prj_{:03}", (index * 7919) % 1000),
        "workspace_id": if shape.workspace { "ws_a" } else { "ws_b" },
        "name": name,
        "updated_at": "2026-01-01T00:00:00Z",
        "is_published": shape.published,
        "audience": audience,
        "visibility": visibility,
        "security": {
            "review_priority": priority,
            "risk_score": shape.risk,
            "connectors": if shape.connectors { vec!["stripe"] } else { vec![] },
            "finding_type_ids": findings,
            "external_collaborators": shape.small[0] % 2,
            // Reasons for the findings, in reverse, and one with text to escape.
            "explanation": findings.iter().rev().map(|id| json!({
                "id": id, "label": format!("Label \"{id}\"\n"), "detail": "<d>, \\",
                "category": "c", "review_priority": priority,
            })).collect::<Vec<_>>(),
        },
        "activity": {
            "edits_24h": shape.small[0], "edits_7d": shape.small[1], "edits_30d": shape.small[2],
            "visitors_24h": shape.small[3], "visitors_7d": shape.small[1] * shape.small[2],
            "visitors_30d": shape.small[3] + shape.small[0],
        },
    }))
    .unwrap();
    p.updated_at = at(shape.updated_days);
    p.wire.last_edited_at = shape.edited_days.map(at);
    p.security.last_security_scan_at = shape.scanned_days.map(at);
    p.derived.open_pii = shape.pii;
    p.derived.name_folded = p.wire.name.as_deref().map(fold);
    p.derived.owner_name_folded = owner.as_deref().map(fold);
    p.derived.owner_name = owner;
    p
}

fn workspace(id: &str) -> WorkspaceRec {
    serde_json::from_value(json!({
        "id": id, "name": id, "plan": "enterprise", "created_at": "2025-01-01T00:00:00Z",
    }))
    .unwrap()
}

fn data(shapes: &[Shape]) -> Data {
    let mut data = Data::default();
    for id in ["ws_a", "ws_b"] {
        data.workspaces.insert(id.to_owned(), workspace(id));
    }
    for (index, shape) in shapes.iter().enumerate() {
        let p = project(index, shape);
        data.projects.insert(p.wire.id.clone(), p);
    }
    data
}

/// Query strings: each parameter present or not, values from their enums.
fn query() -> impl Strategy<Value = String> {
    let sorts = [
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
    let texts = [
        "budget",
        "BUDG",
        "été app",
        "tracker budget",
        "al",
        "ann",
        "zzz",
        "get ud",
    ];
    (
        prop::option::of(prop::sample::select(texts.to_vec())),
        prop::option::of(prop::sample::select(sorts.to_vec())),
        prop::option::of(prop::sample::select(vec!["asc", "desc"])),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        prop::sample::subsequence(
            vec![
                "visibility=restricted",
                "visibility=workspace_view",
                "publish_audience=public",
                "publish_audience=custom",
                "review_priority=unscored",
                "review_priority=needs_review",
                "finding_type_id=inactive_owner",
                "finding_type_id=public_pii_exposure",
                "activity_group=last_14_days",
                "activity_group=older",
            ],
            0..3,
        ),
        1..7u32,
    )
        .prop_map(
            |(text, sort, order, published, pii, connectors, extra, limit)| {
                let mut parts = vec![format!("limit={limit}")];
                parts.extend(text.map(|t| format!("query={}", t.replace(' ', "%20"))));
                parts.extend(sort.map(|s| format!("sort_by={s}")));
                if sort.is_some() {
                    parts.extend(order.map(|o| format!("sort_order={o}")));
                }
                parts.extend(published.map(|b| format!("is_published={b}")));
                parts.extend(pii.map(|b| format!("has_pii={b}")));
                parts.extend(connectors.map(|b| format!("has_connectors={b}")));
                parts.extend(extra.into_iter().map(str::to_owned));
                parts.join("&")
            },
        )
}

/// The page, its pagination and the total, by a scan of the whole workspace
/// `ws_a`: what the indexes replaced, kept as the oracle of these tests.
fn full_scan<'d>(
    data: &'d Data,
    params: &InventoryRequest,
    request: &PageRequest,
) -> Result<(Vec<&'d ProjectRec>, Pagination, i64), HttpError> {
    let mut matcher = params.filters.query.as_ref().map(TextQuery::matcher);
    let mut keyed: Vec<(CompactKey, &ProjectRec)> = Vec::new();
    for project in data.workspace_projects("ws_a") {
        let open_pii = project.derived.open_pii;
        if !params.filters.admits(project, open_pii, NOW) {
            continue;
        }
        let score = match &mut matcher {
            Some(matcher) => match matcher.score(&index::search_fields(project)) {
                Some(score) => score,
                None => continue,
            },
            None => 0,
        };
        keyed.push((params.sort.key(project, score, open_pii), project));
    }
    let total = keyed.len() as i64;
    let (page, pagination) = paginate_compact(keyed, request, SECRET, BINDING)?;
    Ok((page, pagination, total))
}

/// Every page of `raw` by both paths; they must agree page by page.
fn assert_same_pages(data: &Data, raw: &str) {
    let Ok(params) = InventoryRequest::parse(&QueryParams::parse(Some(raw))) else {
        return;
    };
    let mut cursor: Option<String> = None;
    for _ in 0..200 {
        let request = PageRequest::new(params.limit, cursor.as_deref(), SECRET, BINDING).unwrap();
        let scan = full_scan(data, &params, &request).unwrap();
        let indexed = index::select(data, "ws_a", &params, NOW, &request, SECRET, BINDING).unwrap();
        // The next page reads only what this one built: it is answered on
        // the request's task (the handler asks `is_warm`).
        assert!(index::is_warm(data, "ws_a", &params), "{raw}: not warm");
        let ids = |page: &[&ProjectRec]| page.iter().map(|p| p.wire.id.clone()).collect::<Vec<_>>();
        let indexed_page = indexed.projects();
        assert_eq!(
            indexed_page.len(),
            indexed.slots.len(),
            "{raw}: a slot without its project"
        );
        let indexed_projects: Vec<&ProjectRec> = indexed_page.iter().map(|(_, p)| *p).collect();
        assert_eq!(
            ids(&indexed_projects),
            ids(&scan.0),
            "{raw} after {cursor:?}"
        );
        assert_eq!(indexed.pagination, scan.1, "{raw}");
        assert_eq!(indexed.total, scan.2, "{raw}");
        // Each item the page writes from the index is the item serialized.
        let applied = params.applied_finding();
        for (slot, project) in indexed_page {
            assert!(
                indexed.index().item(slot).is_some(),
                "{}: no kept JSON, the slow path",
                project.wire.id
            );
            let mut written = Vec::new();
            indexed
                .write_item(&mut written, slot, NOW, applied)
                .unwrap();
            let group = activity_group(project, NOW);
            let item = inventory_item(project, group, matched_reason(project, applied));
            assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(&item).unwrap(),
                "{raw}"
            );
        }
        match scan.1.next_cursor {
            Some(next) if scan.1.has_more => cursor = Some(next),
            _ => return,
        }
    }
    panic!("{raw}: more pages than projects");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn indexed_pages_equal_the_full_scan(
        shapes in prop::collection::vec(shape(), 0..60),
        queries in prop::collection::vec(query(), 1..6),
        late_queries in prop::collection::vec(query(), 1..4),
        rename in any::<prop::sample::Index>(),
    ) {
        let mut data = data(&shapes);
        if let Ok(params) = InventoryRequest::parse(&QueryParams::parse(Some(&queries[0]))) {
            // Nothing is built yet: the first page goes to a blocking thread.
            prop_assert!(!index::is_warm(&data, "ws_a", &params));
        }
        for raw in &queries {
            assert_same_pages(&data, raw);
        }
        // Writes maintain the indexes: the next reads see them.
        if let Some(shape) = shapes.first() {
            let mut added = project(shapes.len(), shape);
            added.wire.workspace_id = "ws_a".into();
            added.wire.name = Some("Budget app added".into());
            data.apply(&Change::PutProject(Box::new(added)));
        }
        for raw in &queries {
            assert_same_pages(&data, raw);
        }
        // A project that leaves the workspace is gone from its indexes, the
        // kept ones and those first built after it left.
        let leaving = data.projects.values().find(|p| p.wire.workspace_id == "ws_a").cloned();
        if let Some(mut project) = leaving {
            project.wire.workspace_id = "ws_b".into();
            data.apply(&Change::PutProject(Box::new(project)));
            for raw in queries.iter().chain(&late_queries) {
                assert_same_pages(&data, raw);
            }
        }
        if let Some(id) = data.projects.keys().nth(rename.index(data.projects.len().max(1))).cloned() {
            let mut project = data.projects[&id].clone();
            project.wire.name = Some("Budget tracker renamed".into());
            project.wire.is_published = !project.wire.is_published;
            project.security.risk_score += 7;
            // What the review priority filter and sort read.
            project.security.review_priority = match project.security.review_priority {
                ReviewPriority::NeedsReview => ReviewPriority::NoReviewNeeded,
                _ => ReviewPriority::NeedsReview,
            };
            data.apply(&Change::PutProject(Box::new(project)));
            for raw in &queries {
                assert_same_pages(&data, raw);
            }
            data.apply(&Change::DeleteProject { id, soft: false, at: NOW });
            for raw in &queries {
                assert_same_pages(&data, raw);
            }
        }
    }
}
