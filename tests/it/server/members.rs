//! Reference server, operations 8 and 9 over loopback: one workspace member,
//! and the member list with its filters, sorts and cursors. Expected orders are
//! recomputed here from the contract's rules, independently of the server.

use std::cmp::Ordering;

use crate::common::*;
use serde_json::{Value, json};
use time::Duration;
use vantage::clock::Clock;
use vantage::server::ratelimit::RateLimit;
use vantage::server::seed::{GenerateSpec, generate, today_anchor};
use vantage::server::store::{Fixture, MembershipRec};
use vantage::server::{RunningServer, ServerConfig, start};

async fn server_on(fixture: Fixture) -> RunningServer {
    let mut config = ServerConfig::local(fixture);
    config.clock = Clock::manual(T0);
    config.rate_limit = RateLimit {
        limit: 1_000_000,
        window: Duration::seconds(60),
    };
    start(config).await.expect("server starts")
}

/// A generated enterprise workspace: hundreds of members, some pending or
/// suspended, some without a name or e-mail, some with hostile names.
fn generated() -> (Fixture, String, String) {
    let mut fixture = generate(
        GenerateSpec {
            projects: 3,
            members: 320,
            seed: 11,
        },
        today_anchor(T0),
    );
    // Rare cases of the sort rules, made certain: neither name nor e-mail,
    // only an e-mail, a blank name, and equal names (ties by membership id).
    for n in [5, 9, 13, 17, 21, 22, 40] {
        let membership = &mut fixture.memberships[n];
        let user = fixture
            .users
            .iter_mut()
            .find(|u| u.id == membership.user_id)
            .unwrap();
        match n {
            5 | 9 => {
                membership.display_name = None;
                user.email = None;
            }
            13 => membership.display_name = None,
            17 => membership.display_name = Some("   ".to_owned()),
            _ => membership.display_name = Some("Ada Lovelace".to_owned()),
        }
    }
    let workspace = fixture.workspaces[0].id.clone();
    let key = fixture
        .keys
        .iter()
        .find(|k| k.label == "enterprise-readonly")
        .unwrap()
        .key
        .clone();
    (fixture, workspace, key)
}

/// Query parameters of one request, in order.
type Query<'a> = &'a [(&'a str, &'a str)];

async fn get(
    server: &RunningServer,
    key: &str,
    path: &str,
    query: &[(&str, &str)],
) -> (u16, Value) {
    let response = http()
        .get(format!("{}{path}", server.base_url()))
        .header("Service-API-Key", key)
        .query(query)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn assert_error(status: u16, body: &Value, expected_status: u16, kind: &str, locations: &[&str]) {
    assert_eq!(status, expected_status, "{body}");
    assert_eq!(body["type"], kind, "{body}");
    assert_eq!(body["status"], expected_status);
    if locations.is_empty() {
        assert_eq!(body["errors"], Value::Null, "{body}");
    } else {
        let found: Vec<&str> = body["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["location"].as_str().unwrap())
            .collect();
        assert_eq!(found, locations, "{body}");
    }
}

fn members_path(workspace: &str) -> String {
    format!("/v1/workspaces/{workspace}/members")
}

/// Every page of a list, following `next_cursor`; returns the user ids in order.
async fn walk(
    server: &RunningServer,
    key: &str,
    workspace: &str,
    params: &[(&str, &str)],
    limit: usize,
) -> Vec<String> {
    let limit_text = limit.to_string();
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..1_000 {
        let mut query: Vec<(&str, &str)> = params.to_vec();
        query.push(("limit", &limit_text));
        if let Some(cursor) = &cursor {
            query.push(("cursor", cursor));
        }
        let (status, body) = get(server, key, &members_path(workspace), &query).await;
        assert_eq!(status, 200, "{params:?}: {body}");
        let page = body["data"].as_array().unwrap();
        assert!(page.len() <= limit);
        for item in page {
            assert_eq!(item.as_object().unwrap().len(), 2, "{item}");
            assert_eq!(item["type"], "user");
            ids.push(item["user_id"].as_str().unwrap().to_owned());
        }
        match body["pagination"]["has_more"].as_bool().unwrap() {
            false => {
                assert_eq!(body["pagination"]["next_cursor"], Value::Null);
                return ids;
            }
            true => {
                cursor = Some(
                    body["pagination"]["next_cursor"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                )
            }
        }
    }
    panic!("pagination did not end");
}

// ------------------------------------------------ the contract's rules, restated

/// A member as the list rules see it.
#[derive(Clone)]
struct Row {
    membership_id: String,
    user_id: String,
    role_rank: u8,
    role: String,
    scim: bool,
    joined: Option<i128>,
    /// Display name, else e-mail, lowercased; None when neither.
    sort_name: Option<String>,
    searchable: Vec<String>,
}

fn rows(fixture: &Fixture, workspace: &str) -> Vec<Row> {
    let precedence = ["owner", "admin", "member", "collaborator", "viewer"];
    fixture
        .memberships
        .iter()
        .filter(|m| m.workspace_id == workspace && m.status == "active")
        .map(|m: &MembershipRec| {
            let user = fixture.users.iter().find(|u| u.id == m.user_id);
            let email = user.and_then(|u| u.email.clone());
            let present = |s: &Option<String>| s.clone().filter(|s| !s.trim().is_empty());
            Row {
                membership_id: m.id.clone(),
                user_id: m.user_id.clone(),
                role_rank: precedence
                    .iter()
                    .position(|r| *r == m.role.as_str())
                    .unwrap() as u8,
                role: m.role.as_str().to_owned(),
                scim: m.scim_managed,
                joined: m
                    .joined_at
                    .or(m.invited_at)
                    .map(|t| t.unix_timestamp_nanos()),
                sort_name: present(&m.display_name)
                    .or_else(|| present(&email))
                    .map(|n| n.to_lowercase()),
                searchable: [
                    m.display_name.clone(),
                    user.and_then(|u| u.username.clone()),
                    email,
                ]
                .into_iter()
                .flatten()
                .map(|f| f.to_lowercase())
                .collect(),
            }
        })
        .collect()
}

/// Terms of 3 or more characters, lowercased; each must match some field.
/// Per term: 3 = a whole field, 2 = the start of a field or of a word, 1 = inside.
fn score(row: &Row, query: &str) -> Option<i64> {
    let mut total = 0;
    for term in query
        .split_whitespace()
        .filter(|t| t.chars().count() >= 3)
        .map(str::to_lowercase)
    {
        let best = row
            .searchable
            .iter()
            .map(|field| {
                let word_start = field
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|w| w.starts_with(&term));
                if *field == term {
                    3
                } else if field.starts_with(&term) || word_start {
                    2
                } else if field.contains(&term) {
                    1
                } else {
                    0
                }
            })
            .max()
            .unwrap_or(0);
        if best == 0 {
            return None;
        }
        total += best;
    }
    Some(total)
}

/// Sorts `rows` as the contract says for `sort_by`/`sort_order`/`query`.
fn expected_order(
    mut rows: Vec<Row>,
    sort_by: Option<&str>,
    descending: bool,
    query: Option<&str>,
) -> Vec<String> {
    let scored = |row: &Row| query.and_then(|q| score(row, q)).unwrap_or(0);
    let has_terms = query.is_some_and(|q| q.split_whitespace().any(|t| t.chars().count() >= 3));
    let flip = |ordering: Ordering| {
        if descending {
            ordering.reverse()
        } else {
            ordering
        }
    };
    // Most recent join first; no date at all counts as the oldest.
    let recent_first = |a: &Row, b: &Row| b.joined.cmp(&a.joined);
    rows.sort_by(|a, b| {
        let primary = match sort_by {
            None => {
                let relevance = if has_terms {
                    scored(b).cmp(&scored(a))
                } else {
                    Ordering::Equal
                };
                relevance
                    .then(a.role_rank.cmp(&b.role_rank))
                    .then(recent_first(a, b))
            }
            // None < Some: members with neither name nor e-mail first ascending.
            Some("display_name") => flip(a.sort_name.cmp(&b.sort_name)),
            Some("joined_at") => flip(a.joined.cmp(&b.joined)),
            // Descending puts the highest role (owner) first.
            Some("role") => flip(b.role_rank.cmp(&a.role_rank)),
            Some("relevance") => flip(scored(a).cmp(&scored(b))).then(recent_first(a, b)),
            Some(other) => panic!("no rule for {other}"),
        };
        primary.then(a.membership_id.cmp(&b.membership_id))
    });
    rows.into_iter().map(|r| r.user_id).collect()
}

// ------------------------------------------------------------- member detail

#[tokio::test]
async fn member_detail_shape() {
    let fixture = demo();
    let member = fixture
        .memberships
        .iter()
        .find(|m| m.workspace_id == ENTERPRISE_WS && m.status == "active")
        .unwrap()
        .clone();
    let user = fixture
        .users
        .iter()
        .find(|u| u.id == member.user_id)
        .unwrap()
        .clone();
    let server = server_on(fixture).await;
    let path = format!("/v1/workspaces/{ENTERPRISE_WS}/members/{}", member.user_id);
    let (status, body) = get(&server, WORKSPACES_READ, &path, &[]).await;
    assert_eq!(status, 200, "{body}");
    let ts = |t: Option<time::OffsetDateTime>| t.map(vantage::api::model::format_timestamp);
    assert_eq!(
        body,
        json!({
            "user_id": member.user_id,
            "workspace_id": ENTERPRISE_WS,
            "type": "user",
            "email": user.email,
            "name": member.display_name,
            "joined_at": ts(member.joined_at),
            "invited_at": ts(member.invited_at),
        })
    );
    assert!(body["joined_at"].as_str().unwrap().ends_with('Z'));
    // Any spelling of the same UUID finds the member.
    let upper = format!(
        "/v1/workspaces/{ENTERPRISE_WS}/members/{}",
        member.user_id.to_uppercase()
    );
    let (status, same) = get(&server, WORKSPACES_READ, &upper, &[]).await;
    assert_eq!(status, 200);
    assert_eq!(same, body);
}

#[tokio::test]
async fn member_detail_gates() {
    let fixture = demo();
    let active = |ws: &str| {
        fixture
            .memberships
            .iter()
            .find(|m| m.workspace_id == ws && m.status == "active")
            .unwrap()
            .user_id
            .clone()
    };
    let acme_member = active(ENTERPRISE_WS);
    let globex_member = active(BUSINESS_WS);
    let pending = fixture
        .memberships
        .iter()
        .find(|m| m.workspace_id == ENTERPRISE_WS && m.status == "pending")
        .unwrap()
        .user_id
        .clone();
    let server = server_on(fixture).await;
    let path = |ws: &str, user: &str| format!("/v1/workspaces/{ws}/members/{user}");
    let nil = "00000000-0000-0000-0000-000000000000";
    let unknown = "5f0c8a8e-9b7a-4b53-8d3c-0c6f2d1e4a77";
    let cases: &[(&str, String, u16, &str, &[&str])] = &[
        (
            WORKSPACES_READ,
            path(ENTERPRISE_WS, "not-a-uuid"),
            400,
            "invalid_request",
            &["path.user_id"],
        ),
        (
            WORKSPACES_READ,
            path(ENTERPRISE_WS, nil),
            400,
            "invalid_request",
            &["path.user_id"],
        ),
        (
            WORKSPACES_READ,
            path(ENTERPRISE_WS, "12345"),
            400,
            "invalid_request",
            &["path.user_id"],
        ),
        // Validation comes before the resource: a bad id in another workspace is a 400.
        (
            WORKSPACES_READ,
            path(BUSINESS_WS, nil),
            400,
            "invalid_request",
            &["path.user_id"],
        ),
        (
            WORKSPACES_READ,
            path(BUSINESS_WS, &globex_member),
            404,
            "workspace_not_found",
            &[],
        ),
        (
            WORKSPACES_READ,
            path("ws_nowhere", &acme_member),
            404,
            "workspace_not_found",
            &[],
        ),
        (
            WORKSPACES_READ,
            path(ENTERPRISE_WS, &pending),
            404,
            "member_not_found",
            &[],
        ),
        (
            WORKSPACES_READ,
            path(ENTERPRISE_WS, unknown),
            404,
            "member_not_found",
            &[],
        ),
        // A real user, of another workspace.
        (
            WORKSPACES_READ,
            path(ENTERPRISE_WS, &globex_member),
            404,
            "member_not_found",
            &[],
        ),
        (
            PROJECTS_READ,
            path(ENTERPRISE_WS, &acme_member),
            403,
            "insufficient_scope",
            &[],
        ),
        (
            PRO_ADMIN,
            path(PRO_WS, &acme_member),
            402,
            "payment_required",
            &[],
        ),
        (
            BUSINESS_ADMIN,
            path(BUSINESS_WS, &globex_member),
            200,
            "",
            &[],
        ),
    ];
    for (key, path, status, kind, locations) in cases {
        let (got, body) = get(&server, key, path, &[]).await;
        if *status == 200 {
            assert_eq!(got, 200, "{path}: {body}");
        } else {
            assert_error(got, &body, *status, kind, locations);
        }
    }
}

#[tokio::test]
async fn suspended_members_are_not_found() {
    let (fixture, workspace, key) = generated();
    let suspended = fixture
        .memberships
        .iter()
        .find(|m| m.status == "suspended")
        .expect("the generator makes suspended members")
        .user_id
        .clone();
    let server = server_on(fixture).await;
    let (status, body) = get(
        &server,
        &key,
        &format!("/v1/workspaces/{workspace}/members/{suspended}"),
        &[],
    )
    .await;
    assert_error(status, &body, 404, "member_not_found", &[]);
}

// ------------------------------------------------------------- member list

#[tokio::test]
async fn member_list_literal_json() {
    let fixture = demo();
    let globex = rows(&fixture, BUSINESS_WS);
    let owner = globex
        .iter()
        .find(|r| r.role == "owner")
        .unwrap()
        .user_id
        .clone();
    let member = globex
        .iter()
        .find(|r| r.role == "member")
        .unwrap()
        .user_id
        .clone();
    let server = server_on(fixture).await;
    let (status, body) = get(&server, BUSINESS_ADMIN, &members_path(BUSINESS_WS), &[]).await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({
            "data": [
                {"user_id": owner, "type": "user"},
                {"user_id": member, "type": "user"},
            ],
            "pagination": {"has_more": false, "next_cursor": null},
        })
    );
    let (status, body) = get(&server, BUSINESS_ADMIN, &members_path(ENTERPRISE_WS), &[]).await;
    assert_error(status, &body, 404, "workspace_not_found", &[]);
}

#[tokio::test]
async fn member_list_walks_in_every_order() {
    let (fixture, workspace, key) = generated();
    let all = rows(&fixture, &workspace);
    assert!(all.len() > 250, "{}", all.len());
    assert!(
        all.iter().any(|r| r.sort_name.is_none()),
        "some have neither name nor e-mail"
    );
    let pending = fixture
        .memberships
        .iter()
        .filter(|m| m.status != "active")
        .count();
    assert!(pending > 0);
    let server = server_on(fixture).await;

    // Default page size 50.
    let (_, body) = get(&server, &key, &members_path(&workspace), &[]).await;
    assert_eq!(body["data"].as_array().unwrap().len(), 50);

    let walked = walk(&server, &key, &workspace, &[], 37).await;
    assert_eq!(
        walked,
        expected_order(all.clone(), None, true, None),
        "default order"
    );
    for sort_by in ["display_name", "joined_at", "role"] {
        for order in [None, Some("asc"), Some("desc")] {
            let mut params = vec![("sort_by", sort_by)];
            if let Some(order) = order {
                params.push(("sort_order", order));
            }
            let descending = order != Some("asc");
            let walked = walk(&server, &key, &workspace, &params, 23).await;
            let expected = expected_order(all.clone(), Some(sort_by), descending, None);
            assert_eq!(walked.len(), all.len(), "{params:?}: completeness");
            assert_eq!(walked, expected, "{params:?}");
        }
    }
    for query in ["ada", "lovelace", "example.com", "ada lovelace", "mar"] {
        let matching: Vec<Row> = all
            .iter()
            .filter(|r| score(r, query).is_some())
            .cloned()
            .collect();
        assert!(!matching.is_empty(), "{query} matches someone");
        let walked = walk(&server, &key, &workspace, &[("query", query)], 9).await;
        assert_eq!(
            walked,
            expected_order(matching.clone(), None, true, Some(query)),
            "query {query}"
        );
        for order in ["asc", "desc"] {
            let params = [
                ("query", query),
                ("sort_by", "relevance"),
                ("sort_order", order),
            ];
            let walked = walk(&server, &key, &workspace, &params, 11).await;
            let expected = expected_order(
                matching.clone(),
                Some("relevance"),
                order == "desc",
                Some(query),
            );
            assert_eq!(walked, expected, "{params:?}");
        }
        let params = [("query", query), ("sort_by", "display_name")];
        let walked = walk(&server, &key, &workspace, &params, 50).await;
        assert_eq!(
            walked,
            expected_order(matching, Some("display_name"), true, Some(query)),
            "{params:?}"
        );
    }
}

#[tokio::test]
async fn member_list_filters_match_brute_force() {
    let (fixture, workspace, key) = generated();
    let all = rows(&fixture, &workspace);
    let server = server_on(fixture).await;
    let ids = |keep: &dyn Fn(&Row) -> bool| -> Vec<String> {
        expected_order(
            all.iter().filter(|r| keep(r)).cloned().collect(),
            None,
            true,
            None,
        )
    };
    for role in ["owner", "admin", "member", "viewer", "collaborator"] {
        let walked = walk(&server, &key, &workspace, &[("role", role)], 40).await;
        assert_eq!(walked, ids(&|r| r.role == role), "role {role}");
        assert!(
            !walked.is_empty(),
            "the generator makes every role ({role})"
        );
    }
    let walked = walk(
        &server,
        &key,
        &workspace,
        &[("role", "owner"), ("role", "viewer")],
        40,
    )
    .await;
    assert_eq!(walked, ids(&|r| r.role == "owner" || r.role == "viewer"));
    for scim in [true, false] {
        let text = scim.to_string();
        let walked = walk(&server, &key, &workspace, &[("scim_managed", &text)], 40).await;
        assert_eq!(walked, ids(&|r| r.scim == scim), "scim_managed={scim}");
        assert!(!walked.is_empty());
        let params = [
            ("scim_managed", text.as_str()),
            ("role", "member"),
            ("role", "admin"),
        ];
        let walked = walk(&server, &key, &workspace, &params, 40).await;
        assert_eq!(
            walked,
            ids(&|r| r.scim == scim && (r.role == "member" || r.role == "admin")),
            "{params:?}"
        );
    }
    // Only short terms: as if there were no query.
    let everyone = walk(&server, &key, &workspace, &[], 100).await;
    for query in ["ab", "ab c de", "  ", "Zo ë"] {
        let walked = walk(&server, &key, &workspace, &[("query", query)], 100).await;
        assert_eq!(walked, everyone, "query {query:?}");
    }
    // Case does not matter.
    let lower = walk(&server, &key, &workspace, &[("query", "ada")], 100).await;
    let upper = walk(&server, &key, &workspace, &[("query", "ADA")], 100).await;
    assert_eq!(lower, upper);
    let none = walk(&server, &key, &workspace, &[("query", "zzzqqq")], 100).await;
    assert!(none.is_empty());
}

#[tokio::test]
async fn member_list_validation_and_cursor_misuse() {
    let (fixture, workspace, key) = generated();
    let server = server_on(fixture).await;
    let path = members_path(&workspace);
    let long = "a".repeat(1_001);
    let longest = "é".repeat(1_000);
    let cases: &[(Query, &[&str])] = &[
        (&[("limit", "0")], &["query.limit"]),
        (&[("limit", "101")], &["query.limit"]),
        (&[("query", &long)], &["query.query"]),
        (&[("role", "superuser")], &["query.role"]),
        (&[("role", "owner"), ("role", "")], &["query.role"]),
        (&[("sort_by", "email")], &["query.sort_by"]),
        (&[("sort_by", "relevance")], &["query.sort_by"]),
        (
            &[("sort_by", "relevance"), ("query", "   ")],
            &["query.sort_by"],
        ),
        (&[("sort_order", "asc")], &["query.sort_order"]),
        (
            &[("sort_by", "role"), ("sort_order", "up")],
            &["query.sort_order"],
        ),
        (&[("scim_managed", "yes")], &["query.scim_managed"]),
        (
            &[("sort_by", "role"), ("sort_by", "role")],
            &["query.sort_by"],
        ),
    ];
    for (query, locations) in cases {
        let (status, body) = get(&server, &key, &path, query).await;
        assert_error(status, &body, 400, "invalid_request", locations);
    }
    let (status, _) = get(&server, &key, &path, &[("query", &longest)]).await;
    assert_eq!(
        status, 200,
        "1000 characters are allowed, whatever their bytes"
    );
    let (status, _) = get(
        &server,
        &key,
        &path,
        &[("sort_by", "relevance"), ("query", "ab")],
    )
    .await;
    assert_eq!(status, 200, "a query of short terms still allows relevance");

    let (_, body) = get(
        &server,
        &key,
        &path,
        &[("sort_by", "joined_at"), ("limit", "5")],
    )
    .await;
    let cursor = body["pagination"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_owned();
    let ok = [
        ("sort_by", "joined_at"),
        ("limit", "7"),
        ("cursor", cursor.as_str()),
    ];
    assert_eq!(
        get(&server, &key, &path, &ok).await.0,
        200,
        "another limit is fine"
    );
    let mut tampered = cursor.clone();
    tampered.replace_range(0..1, if cursor.starts_with('A') { "B" } else { "A" });
    let misuse: &[&[(&str, &str)]] = &[
        &[("sort_by", "role"), ("cursor", &cursor)],
        &[
            ("sort_by", "joined_at"),
            ("sort_order", "asc"),
            ("cursor", &cursor),
        ],
        &[
            ("sort_by", "joined_at"),
            ("role", "admin"),
            ("cursor", &cursor),
        ],
        &[("cursor", &cursor)],
        &[("sort_by", "joined_at"), ("cursor", &tampered)],
        &[("sort_by", "joined_at"), ("cursor", "garbage")],
    ];
    for query in misuse {
        let (status, body) = get(&server, &key, &path, query).await;
        assert_error(status, &body, 400, "invalid_request", &["query.cursor"]);
    }
    // The cursor is an input: checked (400) before the workspace (404).
    let (status, body) = get(
        &server,
        &key,
        &members_path("ws_elsewhere"),
        &[("sort_by", "joined_at"), ("cursor", &cursor)],
    )
    .await;
    assert_error(status, &body, 400, "invalid_request", &["query.cursor"]);
}
