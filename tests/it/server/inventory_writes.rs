//! The inventory's `review_priority=needs_review&sort_by=name&sort_order=asc`
//! page after writes: the server answers it from indexes kept beside the data
//! and maintained on each write (rename, publish settings, unpublish,
//! visibility, delete), so after every write each page, walked with its
//! cursors, must be the list worked out here the slow way from the fixture
//! and the writes: every needs_review project of the workspace, sorted.

use reqwest::Method;
use serde_json::{Value, json};
use time::Duration;
use vantage::api::model::ReviewPriority;
use vantage::server::ratelimit::RateLimit;
use vantage::server::seed::{self, GenerateSpec};
use vantage::server::store::ProjectRec;

use super::support::{call, get};
use crate::common::*;

const PAGE: &str = "review_priority=needs_review&sort_by=name&sort_order=asc";

/// The fixture's projects of one workspace as the writes leave them.
struct Model {
    projects: Vec<ProjectRec>,
}

impl Model {
    fn project(&mut self, id: &str) -> &mut ProjectRec {
        self.projects.iter_mut().find(|p| p.wire.id == id).unwrap()
    }

    /// The page's list the slow way: filter every project, sort the lot.
    /// Names compare case-folded, unnamed first, then by id.
    fn needs_review(&self) -> Vec<&ProjectRec> {
        let mut list: Vec<&ProjectRec> = self
            .projects
            .iter()
            .filter(|p| p.security.review_priority == ReviewPriority::NeedsReview)
            .collect();
        list.sort_by(|a, b| {
            folded(a)
                .cmp(&folded(b))
                .then_with(|| a.wire.id.cmp(&b.wire.id))
        });
        list
    }
}

/// A name as the list sorts it: case-folded; unnamed (`None`) first.
fn folded(project: &ProjectRec) -> Option<String> {
    let name = project.wire.name.as_deref()?;
    Some(name.chars().flat_map(char::to_lowercase).collect())
}

/// The fields of an item the writes change, as the contract shows them.
fn shown(item: &Value) -> Value {
    json!({
        "id": item["id"],
        "name": item["name"],
        "is_published": item["is_published"],
        "publish_audience": item["publish_audience"],
        "url": item["url"],
        "visibility": item["visibility"],
        "review_priority": item["review_priority"],
    })
}

/// The same fields of a project of the model.
fn expected(project: &ProjectRec) -> Value {
    let url = if project.wire.is_published {
        project
            .published_url
            .clone()
            .or(project.wire.preview_url.clone())
    } else {
        project.wire.preview_url.clone()
    };
    json!({
        "id": project.wire.id,
        "name": project.wire.name,
        "is_published": project.wire.is_published,
        "publish_audience": if project.wire.is_published { json!(project.wire.publish_audience) } else { Value::Null },
        "url": url,
        "visibility": project.wire.visibility,
        "review_priority": "needs_review",
    })
}

struct Inventory {
    base: String,
    key: String,
    path: String,
}

impl Inventory {
    /// One page of `limit` after `cursor`: its items, total and next cursor.
    async fn page(&self, limit: usize, cursor: Option<&str>) -> (Vec<Value>, i64, Option<String>) {
        let mut path = format!("{}?{PAGE}&limit={limit}", self.path);
        if let Some(cursor) = cursor {
            path.push_str(&format!("&cursor={cursor}"));
        }
        let reply = get(&self.base, &path, &self.key).await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.text);
        let body = reply.json();
        let next = body["pagination"]["next_cursor"]
            .as_str()
            .map(str::to_owned);
        assert_eq!(body["pagination"]["has_more"], json!(next.is_some()));
        let items = body["data"].as_array().unwrap().clone();
        (items, body["total"].as_i64().unwrap(), next)
    }

    /// Every page, walked with its cursors.
    async fn walk(&self, limit: usize) -> (Vec<Value>, i64) {
        let (mut items, total, mut cursor) = self.page(limit, None).await;
        while let Some(after) = cursor {
            let (page, page_total, next) = self.page(limit, Some(&after)).await;
            assert_eq!(page_total, total);
            assert_eq!(page.len(), if next.is_some() { limit } else { page.len() });
            items.extend(page);
            cursor = next;
        }
        (items, total)
    }

    /// The walk equals the model's list, item by item.
    async fn assert_matches(&self, model: &Model, what: &str) {
        let want: Vec<Value> = model.needs_review().into_iter().map(expected).collect();
        for limit in [7, 100] {
            let (items, total) = self.walk(limit).await;
            let got: Vec<Value> = items.iter().map(shown).collect();
            assert_eq!(got, want, "after {what}, pages of {limit}");
            assert_eq!(total, want.len() as i64, "after {what}");
        }
    }

    async fn write(&self, method: Method, path: &str, body: Option<Value>) {
        let mut request = call(method, &self.base, path).key(&self.key);
        if let Some(body) = body {
            request = request.json(body.to_string());
        }
        let reply = request.send().await;
        assert!(reply.status / 100 == 2, "{path}: {}", reply.text);
    }
}

#[tokio::test]
async fn the_needs_review_page_follows_every_write() {
    for lag in [Duration::ZERO, Duration::seconds(2)] {
        follows_every_write(lag).await;
    }
}

async fn follows_every_write(lag: Duration) {
    let spec = GenerateSpec {
        projects: 400,
        members: 120,
        seed: 7,
    };
    let fixture = seed::generate(spec, seed::today_anchor(T0));
    let admin = fixture.keys.iter().find(|k| k.label == "enterprise-admin");
    let key = admin.unwrap().key.clone();
    let workspace = fixture.workspaces[0].id.clone();
    let mut model = Model {
        projects: (fixture.projects.iter())
            .filter(|p| p.wire.workspace_id == workspace)
            .cloned()
            .collect(),
    };
    let (server, clock) = server_with(move |config| {
        config.fixture = fixture;
        config.consistency_lag = lag;
        config.rate_limit = RateLimit {
            limit: 1_000_000,
            window: Duration::seconds(60),
        };
    })
    .await;
    let inventory = Inventory {
        base: server.base_url(),
        key,
        path: format!("/v1/workspaces/{workspace}/security-center/insights/projects"),
    };
    // Read first, so the writes maintain built indexes rather than build them.
    inventory.assert_matches(&model, "nothing").await;
    let listed: Vec<String> = model
        .needs_review()
        .iter()
        .map(|p| p.wire.id.clone())
        .collect();
    assert!(listed.len() > 20, "the fixture has needs_review projects");
    let (_, _, cursor) = inventory.page(7, None).await;
    let at_cursor = |p: &ProjectRec| (folded(p), p.wire.id.clone());
    let cursor_key = at_cursor(model.needs_review()[6]);
    let other = model.projects.iter().find(|p| {
        p.security.review_priority != ReviewPriority::NeedsReview && p.wire.name.is_some()
    });
    let other = other.unwrap().wire.id.clone();
    let published = model
        .needs_review()
        .into_iter()
        .find(|p| p.wire.is_published);
    let published = published.unwrap().wire.id.clone();

    let rename = |name: &str| Some(json!({ "name": name }));
    let project_path = |id: &str| format!("/v1/projects/{id}");
    let mut writes: Vec<(&str, Method, String, Option<Value>)> = vec![
        // The last of the list goes first, the first to the end, in case
        // unlike the rest.
        (
            "a rename to the front",
            Method::PATCH,
            project_path(&listed[listed.len() - 1]),
            rename("AAA aardvark"),
        ),
        (
            "a rename to the end",
            Method::PATCH,
            project_path(&listed[0]),
            rename("zzz Zebra"),
        ),
        (
            "a rename within the list",
            Method::PATCH,
            project_path(&listed[9]),
            rename("Mmm middle"),
        ),
        (
            "a rename outside the list",
            Method::PATCH,
            project_path(&other),
            rename("AAA other"),
        ),
        (
            "the visibility",
            Method::PATCH,
            project_path(&listed[12]),
            Some(json!({ "visibility": "restricted" })),
        ),
        (
            "the audience",
            Method::PATCH,
            format!("{}/publish", project_path(&published)),
            Some(json!({ "audience": "workspace" })),
        ),
        (
            "unpublishing",
            Method::DELETE,
            format!("{}/publish", project_path(&published)),
            None,
        ),
        ("a delete", Method::DELETE, project_path(&listed[3]), None),
    ];
    for (what, method, path, body) in writes.drain(..) {
        inventory.write(method, &path, body.clone()).await;
        let id = path.split('/').nth(3).unwrap().to_owned();
        let project = model.project(&id);
        match (what, body) {
            ("a delete", _) => model.projects.retain(|p| p.wire.id != id),
            ("unpublishing", _) => project.wire.is_published = false,
            ("the audience", Some(body)) => {
                project.wire.publish_audience =
                    serde_json::from_value(body["audience"].clone()).unwrap();
            }
            (_, Some(body)) => {
                if let Some(name) = body["name"].as_str() {
                    project.wire.name = Some(name.to_owned());
                }
                if let Some(visibility) = body.get("visibility") {
                    project.wire.visibility = serde_json::from_value(visibility.clone()).unwrap();
                }
            }
            (_, None) => unreachable!(),
        }
        // The list is eventually consistent: it shows a write `lag` later.
        clock.advance(lag + Duration::milliseconds(1));
        inventory.assert_matches(&model, what).await;
    }

    // The renamed project leads the list, literally.
    let (first, _, _) = inventory.page(1, None).await;
    assert_eq!(first[0]["name"], json!("AAA aardvark"), "lag {lag}");
    // A cursor issued before the writes goes on after its key: the projects
    // that sort after it now, in the new order.
    let mut after_cursor = Vec::new();
    let mut next = cursor;
    while let Some(after) = next {
        let (page, _, more) = inventory.page(7, Some(&after)).await;
        after_cursor.extend(page.iter().map(shown));
        next = more;
    }
    let want: Vec<Value> = (model.needs_review().into_iter())
        .filter(|p| at_cursor(p) > cursor_key)
        .map(expected)
        .collect();
    assert_eq!(after_cursor, want, "lag {lag}");
    assert_eq!(want.last().unwrap()["name"], json!("zzz Zebra"));
}
