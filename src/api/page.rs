//! List parameters and pagination.
//!
//! Parameters are typed with the model's enums, and each parameter set is
//! declared once, as a struct whose fields are the wire names: it becomes a
//! query through serde ([`to_query`]). `None` is left out, repeatable parameters
//! are sent as repeated keys, booleans as `true`/`false`. Streams follow `next_cursor`
//! while `has_more` is true, with the same filters and sort; an empty page with
//! `has_more` is not the end.

use std::future::Future;

use futures::stream::{self, Stream, TryStreamExt};
use serde::Serialize;
use serde_json::Value;

use super::error::{ApiError, DecodeError};
use super::model::{
    ActivityGroup, InventorySortBy, MemberSortBy, Pagination, PublishAudience, ReviewPriority,
    Role, SortOrder, Visibility,
};

/// Query pairs, in the order added.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Query(pub Vec<(String, String)>);

impl Query {
    pub fn one(&mut self, name: &str, value: Option<impl ToString>) -> &mut Self {
        if let Some(value) = value {
            self.0.push((name.to_owned(), value.to_string()));
        }
        self
    }

    pub fn each<T: ToString>(&mut self, name: &str, values: &[T]) -> &mut Self {
        self.0.extend(
            values
                .iter()
                .map(|value| (name.to_owned(), value.to_string())),
        );
        self
    }

    pub fn cursor(&mut self, cursor: Option<&str>) -> &mut Self {
        self.one("cursor", cursor)
    }

    pub fn into_pairs(self) -> Vec<(String, String)> {
        self.0
    }

    /// One field of a parameter struct: nothing for `null`, a key per item of
    /// a list, the plain text of a scalar.
    fn field(&mut self, name: &str, value: Value) {
        match value {
            Value::Null => {}
            Value::Array(items) => items.into_iter().for_each(|item| self.field(name, item)),
            Value::String(text) => self.0.push((name.to_owned(), text)),
            scalar => self.0.push((name.to_owned(), scalar.to_string())),
        }
    }
}

/// The query of a parameter struct (fields in declaration order), then `cursor`.
pub fn to_query(params: &impl Serialize, cursor: Option<&str>) -> Query {
    let mut query = Query::default();
    // Parameter structs are plain fields of strings, numbers, booleans and
    // enums: they always serialize to an object.
    if let Ok(Value::Object(fields)) = serde_json::to_value(params) {
        for (name, value) in fields {
            query.field(&name, value);
        }
    }
    query.cursor(cursor);
    query
}

/// `limit` alone: the PII, scan findings and workspace project lists.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PageParams {
    /// 1 to 100; the server's default (50) when `None`.
    pub limit: Option<u32>,
}

/// Parameters of `GET /v1/projects`: the workspaces (1 to 10, repeated
/// `workspace_id`) and the page size.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProjectListParams {
    pub workspace_id: Vec<String>,
    pub limit: Option<u32>,
}

/// Parameters of the workspace member list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MemberListParams {
    pub limit: Option<u32>,
    /// Searches display name, username and e-mail.
    pub query: Option<String>,
    /// Matches any given role.
    pub role: Vec<Role>,
    pub sort_by: Option<MemberSortBy>,
    /// Requires `sort_by`.
    pub sort_order: Option<SortOrder>,
    pub scim_managed: Option<bool>,
}

/// Parameters of the security project inventory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct InventoryParams {
    pub limit: Option<u32>,
    /// Free text over project name and owner.
    pub query: Option<String>,
    pub sort_by: Option<InventorySortBy>,
    /// Requires `sort_by`.
    pub sort_order: Option<SortOrder>,
    pub activity_group: Vec<ActivityGroup>,
    pub is_published: Option<bool>,
    pub visibility: Vec<Visibility>,
    pub has_pii: Option<bool>,
    /// The connected-service filter (DESIGN.md names it `has_connectors`).
    pub has_connectors: Option<bool>,
    pub publish_audience: Vec<PublishAudience>,
    pub review_priority: Vec<ReviewPriority>,
    pub finding_type_id: Vec<String>,
}

/// The items of every page, as the stream is read. `fetch(cursor)` returns one
/// page as it [`Arrived`]; `path` names the list in errors. The request for
/// page N+1 is sent as soon as page N's cursor is known, so it travels while
/// the reader handles page N: at most one request is ahead of the reader, and
/// dropping the stream aborts it. The cursor is first read from the body's
/// tail, so the next request leaves before the page is parsed; the parse then
/// confirms it (a wrong guess is aborted and the parsed cursor asked for).
/// Needs a tokio runtime.
pub(crate) fn item_stream<T, F, Fut>(
    path: String,
    fetch: F,
) -> impl Stream<Item = Result<T, ApiError>> + Send + 'static
where
    T: Send + 'static,
    F: FnMut(Option<String>) -> Fut + Send + 'static,
    Fut: Future<Output = Result<Arrived<T>, ApiError>> + Send + 'static,
{
    let start = Prefetch {
        fetch,
        path,
        ahead: Ahead::Start,
    };
    stream::try_unfold(start, |mut state| async move {
        let (cursor, in_flight) = match std::mem::replace(&mut state.ahead, Ahead::Done) {
            Ahead::Start => (None, state.spawn(None)),
            Ahead::InFlight(cursor, in_flight) => (cursor, in_flight),
            Ahead::Fail(error) => return Err(error),
            Ahead::Done => return Ok(None),
        };
        let arrived = in_flight.join().await?;
        let guessed = arrived
            .next_guess
            .filter(|next| !next.is_empty() && Some(next) != cursor.as_ref())
            .map(|next| (next.clone(), state.spawn(Some(next))));
        if guessed.is_some() {
            // Lets the request leave before the parse: on a current-thread
            // runtime (the commands') a spawned task runs only when we yield.
            tokio::task::yield_now().await;
        }
        let (items, pagination) = (arrived.parse)()?;
        // The page's items come out before any error about what follows it.
        let mut asked_late = false;
        state.ahead = match follow(&pagination, cursor.as_deref(), &state.path) {
            Ok(Some(next)) => match guessed {
                Some((guess, in_flight)) if guess == next => Ahead::InFlight(Some(next), in_flight),
                // A wrong guess is dropped here, which aborts its request.
                _ => {
                    asked_late = true;
                    let in_flight = state.spawn(Some(next.clone()));
                    Ahead::InFlight(Some(next), in_flight)
                }
            },
            Ok(None) => Ahead::Done,
            Err(error) => Ahead::Fail(error),
        };
        if asked_late {
            // Still before the page is written, as above.
            tokio::task::yield_now().await;
        }
        Ok(Some((items, state)))
    })
    .map_ok(|items| stream::iter(items.into_iter().map(Ok)))
    .try_flatten()
}

/// One page as it arrived: the next page's cursor as its body's tail tells it
/// (a guess, `None` when the tail says nothing plain), and the parse of the body.
pub(crate) struct Arrived<T> {
    pub(crate) next_guess: Option<String>,
    pub(crate) parse: Box<dyn FnOnce() -> PageResult<T> + Send>,
}

impl<T: Send + 'static> Arrived<T> {
    /// A page already parsed, with no guess.
    #[cfg(test)]
    fn parsed(page: (Vec<T>, Pagination)) -> Self {
        Self {
            next_guess: None,
            parse: Box::new(move || Ok(page)),
        }
    }
}

/// The next cursor of a list page's body, read without parsing it: the plain
/// string after the last `"next_cursor":`, when the last `"has_more":` says
/// `true`. The service writes the pagination object last and compactly; any
/// other body gives `None`, and the parse decides alone.
pub(crate) fn guess_next_cursor(body: &[u8]) -> Option<String> {
    let after = |key: &[u8]| {
        let at = body.windows(key.len()).rposition(|window| window == key)?;
        Some(&body[at + key.len()..])
    };
    if !after(b"\"has_more\":")?.starts_with(b"true") {
        return None;
    }
    let rest = after(b"\"next_cursor\":\"")?;
    let end = rest.iter().position(|&byte| byte == b'"')?;
    let cursor = &rest[..end];
    let plain = cursor
        .iter()
        .all(|byte| byte.is_ascii_alphanumeric() || b"-_.~+/=".contains(byte));
    (plain && !cursor.is_empty()).then(|| String::from_utf8_lossy(cursor).into_owned())
}

struct Prefetch<F, T> {
    fetch: F,
    path: String,
    ahead: Ahead<T>,
}

type PageResult<T> = Result<(Vec<T>, Pagination), ApiError>;

impl<F, Fut, T> Prefetch<F, T>
where
    T: Send + 'static,
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<Arrived<T>, ApiError>> + Send + 'static,
{
    fn spawn(&mut self, cursor: Option<String>) -> InFlight<T> {
        InFlight(tokio::spawn((self.fetch)(cursor)))
    }
}

enum Ahead<T> {
    /// Nothing asked yet: the first page is fetched when the stream is first polled.
    Start,
    /// The request for the page at this cursor is on its way.
    InFlight(Option<String>, InFlight<T>),
    Fail(ApiError),
    Done,
}

/// A page request running as a task of its own; aborted when dropped.
struct InFlight<T>(tokio::task::JoinHandle<Result<Arrived<T>, ApiError>>);

impl<T> InFlight<T> {
    async fn join(mut self) -> Result<Arrived<T>, ApiError> {
        match (&mut self.0).await {
            Ok(page) => page,
            // The task is ours and never aborted while awaited: a join error
            // is a panic in the fetch, which belongs to the reader.
            Err(error) => std::panic::resume_unwind(error.into_panic()),
        }
    }
}

impl<T> Drop for InFlight<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The cursor of the next page, or `None` at the end. A page that claims more
/// but gives no new cursor would loop forever: that is an error.
fn follow(
    pagination: &Pagination,
    current: Option<&str>,
    path: &str,
) -> Result<Option<String>, ApiError> {
    if !pagination.has_more {
        return Ok(None);
    }
    match pagination.next_cursor.as_deref() {
        Some(next) if !next.is_empty() && Some(next) != current => Ok(Some(next.to_owned())),
        _ => Err(ApiError::decode(DecodeError {
            status: 200,
            request_id: None,
            method: "GET".into(),
            path: path.to_owned(),
            json_path: "pagination.next_cursor".into(),
            message: "has_more is true but next_cursor is missing or repeats the last cursor"
                .into(),
            body_start: String::new(),
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;
    use std::sync::{Arc, Mutex};

    #[test]
    fn repeatable_parameters_repeat_and_booleans_are_words() {
        let params = InventoryParams {
            limit: Some(100),
            query: Some("budget app".into()),
            sort_by: Some(InventorySortBy::Visitors7d),
            sort_order: Some(SortOrder::Asc),
            activity_group: vec![ActivityGroup::Last14Days, ActivityGroup::Older],
            is_published: Some(true),
            visibility: vec![Visibility::Restricted],
            has_pii: Some(false),
            has_connectors: Some(true),
            publish_audience: vec![PublishAudience::Public, PublishAudience::Custom],
            review_priority: vec![ReviewPriority::Unscored],
            finding_type_id: vec!["inactive_owner".into()],
        };
        let pairs = to_query(&params, Some("c1")).into_pairs();
        let shown: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(
            shown,
            [
                "limit=100",
                "query=budget app",
                "sort_by=visitors_7d",
                "sort_order=asc",
                "activity_group=last_14_days",
                "activity_group=older",
                "is_published=true",
                "visibility=restricted",
                "has_pii=false",
                "has_connectors=true",
                "publish_audience=public",
                "publish_audience=custom",
                "review_priority=unscored",
                "finding_type_id=inactive_owner",
                "cursor=c1",
            ]
        );
        let members = MemberListParams {
            role: vec![Role::Owner, Role::Unknown("auditor".into())],
            scim_managed: Some(false),
            ..Default::default()
        };
        let shown: Vec<String> = to_query(&members, None)
            .into_pairs()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        assert_eq!(shown, ["role=owner", "role=auditor", "scim_managed=false"]);
        assert!(to_query(&InventoryParams::default(), None).0.is_empty());
    }

    fn pagination(has_more: bool, next: Option<&str>) -> Pagination {
        Pagination {
            has_more,
            next_cursor: next.map(str::to_owned),
        }
    }

    #[tokio::test]
    async fn follows_cursors_through_empty_pages() {
        let pages: Vec<(Vec<u32>, Pagination)> = vec![
            (vec![1, 2], pagination(true, Some("a"))),
            (vec![], pagination(true, Some("b"))),
            (vec![3], pagination(false, None)),
        ];
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let items: Vec<u32> = item_stream("/v1/list".into(), move |cursor| {
            log.lock().unwrap().push(cursor.clone());
            let index = match cursor.as_deref() {
                None => 0,
                Some("a") => 1,
                _ => 2,
            };
            let page = pages[index].clone();
            async move { Ok(Arrived::parsed(page)) }
        })
        .map(Result::unwrap)
        .collect()
        .await;
        assert_eq!(items, [1, 2, 3]);
        assert_eq!(
            *seen.lock().unwrap(),
            [None, Some("a".to_owned()), Some("b".to_owned())]
        );
    }

    #[tokio::test]
    async fn prefetching_asks_for_the_next_page_before_the_reader_wants_it() {
        let pages: Vec<(Vec<u32>, Pagination)> = vec![
            (vec![1, 2], pagination(true, Some("a"))),
            (vec![], pagination(true, Some("b"))),
            (vec![3], pagination(false, None)),
        ];
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let stream = item_stream("/v1/list".into(), move |cursor| {
            log.lock().unwrap().push(cursor.clone());
            let index = match cursor.as_deref() {
                None => 0,
                Some("a") => 1,
                _ => 2,
            };
            let page = pages[index].clone();
            async move { Ok(Arrived::parsed(page)) }
        });
        let mut stream = std::pin::pin!(stream);
        assert_eq!(stream.next().await.unwrap().unwrap(), 1);
        // Page 1 is in the reader's hands and page 2 is already asked for.
        assert_eq!(*seen.lock().unwrap(), [None, Some("a".to_owned())]);
        let rest: Vec<u32> = stream.map(Result::unwrap).collect().await;
        assert_eq!(rest, [2, 3]);
        assert_eq!(
            *seen.lock().unwrap(),
            [None, Some("a".to_owned()), Some("b".to_owned())]
        );
        let stuck: Vec<Result<u32, ApiError>> = item_stream("/v1/list".into(), |_| async {
            Ok(Arrived::parsed((vec![7], pagination(true, None))))
        })
        .collect()
        .await;
        assert_eq!(stuck.len(), 2);
        assert!(stuck[1].is_err());
    }

    /// `#[tokio::test]` runs on a current-thread runtime, as the commands do:
    /// the next request must have left (its future polled) before this page
    /// is parsed, or the server would sit idle while we parse.
    #[tokio::test]
    async fn the_guessed_request_leaves_before_the_page_is_parsed() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let fetch_log = log.clone();
        let stream = item_stream("/v1/list".into(), move |cursor: Option<String>| {
            let log = fetch_log.clone();
            async move {
                let name = cursor.unwrap_or_else(|| "first".into());
                log.lock().unwrap().push(format!("sent {name}"));
                let last = name == "b";
                let next = if name == "first" { "a" } else { "b" };
                let parse_log = log.clone();
                Ok(Arrived {
                    next_guess: (!last).then(|| next.to_owned()),
                    parse: Box::new(move || {
                        parse_log.lock().unwrap().push(format!("parsed {name}"));
                        Ok((vec![0u8], pagination(!last, (!last).then_some(next))))
                    }),
                })
            }
        });
        assert_eq!(stream.count().await, 3);
        assert_eq!(
            *log.lock().unwrap(),
            [
                "sent first",
                "sent a",
                "parsed first",
                "sent b",
                "parsed a",
                "parsed b"
            ]
        );
    }

    #[test]
    fn the_next_cursor_is_guessed_from_a_compact_tail_only() {
        let page = |tail: &str| format!(r#"{{"data":[{{"next_cursor":"in_an_item"}}],{tail}}}"#);
        let guess = |tail: &str| guess_next_cursor(page(tail).as_bytes());
        assert_eq!(
            guess(r#""pagination":{"has_more":true,"next_cursor":"c_2-x=="}"#).as_deref(),
            Some("c_2-x==")
        );
        assert_eq!(
            guess(r#""pagination":{"has_more":false,"next_cursor":null}"#),
            None
        );
        assert_eq!(
            guess(r#""pagination":{"has_more":true,"next_cursor":"a\"b"}"#),
            None
        );
        assert_eq!(
            guess(r#""pagination":{"has_more": true,"next_cursor":"c"}"#),
            None
        );
        assert_eq!(guess_next_cursor(b"not json"), None);
    }

    #[tokio::test]
    async fn a_wrong_guess_is_dropped_and_the_parsed_cursor_followed() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let items: Vec<u32> = item_stream("/v1/list".into(), move |cursor: Option<String>| {
            log.lock().unwrap().push(cursor.clone());
            let page = match cursor.as_deref() {
                None => (vec![1], pagination(true, Some("right"))),
                Some("right") => (vec![2], pagination(false, None)),
                _ => (vec![99], pagination(false, None)),
            };
            let next_guess = cursor.is_none().then(|| "wrong".to_owned());
            async move {
                Ok(Arrived {
                    next_guess,
                    parse: Box::new(move || Ok(page)),
                })
            }
        })
        .map(Result::unwrap)
        .collect()
        .await;
        assert_eq!(items, [1, 2]);
        assert_eq!(
            *seen.lock().unwrap(),
            [None, Some("wrong".to_owned()), Some("right".to_owned())]
        );
    }

    #[tokio::test]
    async fn a_stuck_cursor_ends_with_an_error_not_a_loop() {
        let results: Vec<Result<u32, ApiError>> = item_stream("/v1/list".into(), |_| async {
            Ok(Arrived::parsed((vec![7], pagination(true, None))))
        })
        .collect()
        .await;
        assert_eq!(results.len(), 2);
        assert_eq!(*results[0].as_ref().unwrap(), 7);
        assert!(
            matches!(&results[1], Err(ApiError::Decode(d)) if d.json_path == "pagination.next_cursor")
        );
        let repeated: Vec<Result<u32, ApiError>> = item_stream("/v1/list".into(), |_| async {
            Ok(Arrived::parsed((vec![], pagination(true, Some("same")))))
        })
        .collect()
        .await;
        assert_eq!(repeated.len(), 1, "the second page repeats the cursor");
        assert!(repeated[0].is_err());
    }
}
