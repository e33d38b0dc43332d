//! A fake service on 127.0.0.1:0 that answers with one trick a hostile service
//! could play (issue 22): paging that never ends, pages longer than asked,
//! bodies far larger than any honest answer, a rate-limit reset 10^9 s away,
//! a proxy's non-JSON 429 or 503, a deployment that never ends. Everything
//! else it answers honestly, so a walk gets as far as the trick.
//!
//! It is bounded: it counts every request, and past `MAX_REQUESTS` it answers
//! 410 `hostile_service_exhausted`, so a client that does not stop by itself
//! fails with that error (and the count says how far it went) instead of
//! hanging the test.
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use futures::stream::{self, StreamExt};
use serde_json::{Value, json};

/// Requests answered before the service gives up on the client.
pub const MAX_REQUESTS: u64 = 2_000;

/// The one trick a service plays.
#[derive(Debug, Clone, PartialEq)]
pub enum Trick {
    /// Every list answers honestly: three projects, one page.
    Honest,
    /// Lists answer one item per page and cursors A, B, A, B, … with `has_more`.
    CursorCycle,
    /// Lists answer empty pages with `has_more` and a new cursor each time.
    EndlessEmpty,
    /// Lists answer one page of this many items, whatever `limit` asked.
    LongPage(usize),
    /// The inventory's one honest page, padded with an ignored field of this
    /// many bytes; streamed without a length, never held in memory.
    PaddedBody(u64),
    /// Answers announce a `Content-Length` of 10^12 bytes and send a few.
    HugeLength,
    /// Every answer says `X-RateLimit-Remaining: 0`, reset 10^9 s from now.
    ResetFarAway,
    /// The first answer is a proxy's HTML page with this status (429 or 503).
    NonJsonFirst(u16),
    /// The inventory's second item lacks `id`.
    ItemWithoutId,
    /// The inventory's items hold `1e400`, beyond what a number can be.
    NumberTooLarge,
    /// The inventory's second item has an id with a NUL (`\u0000`) in it.
    NulInId,
    /// `GET /publish/{deployment}` answers this status, forever.
    Deployment(&'static str),
    /// Insights counts projects and members beyond any real workspace (and
    /// below zero): a client that reserves room for them runs out of memory.
    HugeCounts(i64),
    /// Lists answer one item per page and a fresh cursor each time, the
    /// inventory telling `total: 10^15`: no bound the service sets ends it.
    EndlessFresh,
    /// Lists answer one item per page and a fresh cursor of this many bytes,
    /// the inventory telling `total: 10^15`.
    LongCursors(usize),
}

/// The `total` [`Trick::EndlessFresh`] tells.
pub const HUGE_TOTAL: u64 = 1_000_000_000_000_000;

#[derive(Clone)]
struct Service {
    trick: Trick,
    requests: Arc<AtomicU64>,
}

/// A running hostile service.
pub struct Hostile {
    pub base_url: String,
    requests: Arc<AtomicU64>,
}

impl Hostile {
    /// Requests received so far.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }
}

/// Starts a service playing `trick`.
pub async fn start(trick: Trick) -> Hostile {
    let service = Service {
        trick,
        requests: Arc::default(),
    };
    let requests = service.requests.clone();
    let app = axum::Router::new().fallback(answer).with_state(service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Hostile {
        base_url: format!("http://{address}"),
        requests,
    }
}

/// A valid inventory item.
pub fn item(n: usize) -> Value {
    super::items::inventory_item(json!({"id": format!("prj_{n}"), "name": format!("Project {n}")}))
}

fn member(n: usize) -> Value {
    json!({"user_id": format!("usr_{n}"), "type": "user"})
}

fn insights(trick: &Trick) -> Value {
    let metric = |value: i64| json!({"value": value, "delta_30d": 0, "delta_window": "30d"});
    let (projects, members) = match trick {
        Trick::HugeCounts(count) => (*count, *count),
        Trick::EndlessFresh => (HUGE_TOTAL as i64, HUGE_TOTAL as i64),
        _ => (3, 2),
    };
    json!({
        "as_of": null,
        "findings": [],
        "summary": {
            "total_projects": metric(projects), "externally_published": metric(3),
            "workspace_members": metric(members),
            "risk": {"needs_review": 3, "review_recommended": 0, "no_review_needed": 0}
        }
    })
}

fn pagination(next: Option<String>) -> Value {
    json!({"has_more": next.is_some(), "next_cursor": next})
}

/// A list page: `items`, the next cursor, and for the inventory its total.
fn list_page(inventory: bool, items: Vec<Value>, next: Option<String>) -> Value {
    let mut page = json!({"data": items, "pagination": pagination(next)});
    if inventory {
        page["total"] = json!(3);
        page["as_of"] = Value::Null;
        page["activity_as_of"] = Value::Null;
        page["applied_finding"] = Value::Null;
    }
    page
}

fn json_response(status: u16, body: &Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = StatusCode::from_u16(status).unwrap();
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static("application/json"));
    response
}

fn error(status: u16, kind: &str) -> Response {
    json_response(
        status,
        &json!({"type": kind, "title": kind, "detail": null, "request_id": "req_hostile"}),
    )
}

async fn answer(State(service): State<Service>, request: Request) -> Response {
    let count = service.requests.fetch_add(1, Ordering::SeqCst) + 1;
    if count > MAX_REQUESTS {
        return error(410, "hostile_service_exhausted");
    }
    let path = request.uri().path().to_owned();
    let cursor = request.uri().query().and_then(|query| {
        form_urlencoded::parse(query.as_bytes())
            .find(|(name, _)| name == "cursor")
            .map(|(_, value)| value.into_owned())
    });
    let mut response = match &service.trick {
        Trick::NonJsonFirst(status) if count == 1 => {
            let mut response = Response::new(Body::from(
                "<html><body><h1>Service Unavailable</h1>proxy</body></html>",
            ));
            *response.status_mut() = StatusCode::from_u16(*status).unwrap();
            response
                .headers_mut()
                .insert("content-type", HeaderValue::from_static("text/html"));
            return response;
        }
        Trick::HugeLength => {
            // A few bytes of the announced 10^12, then nothing: a client that
            // believes the length waits (or allocates) for the rest.
            let body = Body::from_stream(
                stream::once(async { Ok::<_, std::io::Error>(Bytes::from_static(b"{\"data\":[")) })
                    .chain(stream::pending()),
            );
            let mut response = Response::new(body);
            response
                .headers_mut()
                .insert("content-length", HeaderValue::from_static("1000000000000"));
            return response;
        }
        _ => route(&service.trick, &request, &path, cursor),
    };
    if service.trick == Trick::ResetFarAway {
        let reset = time::OffsetDateTime::now_utc().unix_timestamp() + 1_000_000_000;
        let headers = response.headers_mut();
        headers.insert("x-ratelimit-limit", HeaderValue::from_static("100"));
        headers.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
        headers.insert("x-ratelimit-reset", reset.to_string().parse().unwrap());
    }
    response
}

fn route(trick: &Trick, request: &Request, path: &str, cursor: Option<String>) -> Response {
    let method = request.method().as_str();
    if path.ends_with("/security-center/insights") {
        return json_response(200, &insights(trick));
    }
    let inventory = path.ends_with("/security-center/insights/projects");
    if inventory || path.ends_with("/members") {
        return list(trick, inventory, cursor);
    }
    if method == "POST" && path.ends_with("/publish") {
        return json_response(
            202,
            &json!({"id": "dep_1", "status": "running", "url": null,
                    "error_class": null, "error_message": null}),
        );
    }
    if path.contains("/publish/") {
        let status = match trick {
            Trick::Deployment(status) => status,
            _ => "completed",
        };
        return json_response(
            200,
            &json!({"id": "dep_1", "status": status, "url": null,
                    "error_class": null, "error_message": null}),
        );
    }
    error(404, "not_found")
}

fn list(trick: &Trick, inventory: bool, cursor: Option<String>) -> Response {
    let one = |n: usize| if inventory { item(n) } else { member(n) };
    match trick {
        Trick::CursorCycle => {
            let next = if cursor.as_deref() == Some("A") {
                "B"
            } else {
                "A"
            };
            json_response(200, &list_page(inventory, vec![one(1)], Some(next.into())))
        }
        Trick::EndlessEmpty => {
            let n: u64 = cursor
                .as_deref()
                .and_then(|c| c.trim_start_matches('c').parse().ok())
                .unwrap_or(0);
            json_response(
                200,
                &list_page(inventory, vec![], Some(format!("c{}", n + 1))),
            )
        }
        Trick::EndlessFresh => {
            let n = page_number(cursor.as_deref());
            let mut page = list_page(inventory, vec![one(n)], Some(format!("f{}", n + 1)));
            if inventory {
                page["total"] = json!(HUGE_TOTAL);
            }
            json_response(200, &page)
        }
        Trick::LongCursors(bytes) => {
            let n = page_number(cursor.as_deref());
            let next = format!("f{}-{}", n + 1, "x".repeat(*bytes));
            let next: String = next.chars().take(*bytes).collect();
            let mut page = list_page(inventory, vec![one(n)], Some(next));
            if inventory {
                page["total"] = json!(HUGE_TOTAL);
            }
            json_response(200, &page)
        }
        Trick::LongPage(count) => {
            let items = (0..*count).map(one).collect();
            json_response(200, &list_page(inventory, items, None))
        }
        Trick::ItemWithoutId if inventory => {
            let mut no_id = item(1);
            no_id.as_object_mut().unwrap().remove("id");
            json_response(200, &list_page(inventory, vec![item(0), no_id], None))
        }
        Trick::NumberTooLarge if inventory => {
            // serde_json's Value cannot hold 1e400: the text is edited.
            let page = list_page(inventory, vec![item(0), item(1)], None)
                .to_string()
                .replacen("\"edit_count\":1", "\"edit_count\":1e400", 2);
            json_text(&page)
        }
        Trick::NulInId if inventory => {
            let mut nul = item(1);
            nul["id"] = json!("prj_\u{0}1");
            json_response(200, &list_page(inventory, vec![item(0), nul], None))
        }
        Trick::PaddedBody(bytes) if inventory => padded(*bytes),
        _ => json_response(200, &list_page(inventory, (1..=3).map(one).collect(), None)),
    }
}

/// The page a fresh cursor `f<n>…` asks for; the first without one.
fn page_number(cursor: Option<&str>) -> usize {
    cursor
        .and_then(|cursor| cursor.strip_prefix('f'))
        .and_then(|rest| rest.split('-').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn json_text(body: &str) -> Response {
    let mut response = Response::new(Body::from(body.to_owned()));
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static("application/json"));
    response
}

/// The honest inventory page with `"padding": "xxx…"` of `bytes` bytes in
/// front, streamed in 64 KiB chunks of one static buffer.
fn padded(bytes: u64) -> Response {
    static CHUNK: [u8; 65_536] = [b'x'; 65_536];
    let page = list_page(true, (1..=3).map(item).collect(), None).to_string();
    let head = Bytes::from_static(b"{\"padding\":\"");
    let tail = Bytes::from(format!("\",{}", &page[1..]));
    let full = bytes / CHUNK.len() as u64;
    let rest = (bytes % CHUNK.len() as u64) as usize;
    let middle = stream::iter(0..full)
        .map(|_| Bytes::from_static(&CHUNK))
        .chain(stream::iter([Bytes::from_static(&CHUNK[..rest])]));
    let body = stream::iter([head])
        .chain(middle)
        .chain(stream::iter([tail]))
        .map(Ok::<_, std::io::Error>);
    let mut response = Response::new(Body::from_stream(body));
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static("application/json"));
    response
}

/// Bytes that are not UTF-8, as a hostile service may send them in a body or a
/// header: C1 controls as single raw bytes (an 8-bit CSI, OSC, DCS, ST), stray
/// continuation bytes and an overlong encoding. None may reach a terminal raw.
pub fn hostile_bytes() -> Vec<Vec<u8>> {
    vec![
        b"raw c1 \x9b2J \x9d0;title\x07 \x90q\x9c \x9f apc \x85 nel".to_vec(),
        b"invalid \xff\xfe \xc0\xaf overlong \xe2\x80 cut".to_vec(),
        b"\x1b[6n \x9b6n dsr".to_vec(),
    ]
}
