//! A list as a stream of its items, the next page asked for while the reader
//! handles this one, every page checked by the walk's [`PageWalk`].

use std::future::Future;

use futures::stream::{self, Stream, TryStreamExt};

use super::super::error::ApiError;
use super::super::model::Pagination;
use super::walk::PageWalk;

/// The items of every page, as the stream is read. `fetch(cursor)` returns one
/// page as it [`Arrived`]; `walk` bounds the walk and names the list in
/// errors. The request for
/// page N+1 is sent as soon as page N's cursor is known, so it travels while
/// the reader handles page N: at most one request is ahead of the reader, and
/// dropping the stream aborts it. The cursor is first read from the body's
/// tail, so the next request leaves before the page is parsed; the parse then
/// confirms it (a wrong guess is aborted and the parsed cursor asked for).
/// Needs a tokio runtime.
pub(crate) fn item_stream<T, F, Fut>(
    walk: PageWalk,
    fetch: F,
) -> impl Stream<Item = Result<T, ApiError>> + Send + 'static
where
    T: Send + 'static,
    F: FnMut(Option<String>) -> Fut + Send + 'static,
    Fut: Future<Output = Result<Arrived<T>, ApiError>> + Send + 'static,
{
    let start = Prefetch {
        fetch,
        walk,
        ahead: Ahead::Start,
    };
    stream::try_unfold(start, |mut state| async move {
        let (asked, in_flight) = match std::mem::replace(&mut state.ahead, Ahead::Done) {
            Ahead::Start => (None, state.spawn(None)),
            Ahead::InFlight(asked, in_flight) => (asked, in_flight),
            Ahead::Fail(error) => return Err(error),
            Ahead::Done => return Ok(None),
        };
        let arrived = in_flight.join().await?;
        let guessed = arrived
            .next_guess
            .filter(|next| !next.is_empty() && Some(next) != asked.as_ref())
            .filter(|next| state.walk.is_new(next))
            .map(|next| (next.clone(), state.spawn(Some(next))));
        if guessed.is_some() {
            // Lets the request leave before the parse: on a current-thread
            // runtime (the commands') a spawned task runs only when we yield.
            tokio::task::yield_now().await;
        }
        let Parts {
            items,
            pagination,
            total,
        } = (arrived.parse)()?;
        if let Some(total) = total {
            state.walk.expect(total);
        }
        // The page's items come out before any error about what follows it.
        let mut asked_late = false;
        state.ahead = match state.walk.follow(items.len(), &pagination) {
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

/// One page read: its items, where the next page is, and the list's total when
/// the page says it (the inventory's `total`).
pub(crate) struct Parts<T> {
    pub(crate) items: Vec<T>,
    pub(crate) pagination: Pagination,
    pub(crate) total: Option<u64>,
}

impl<T> Parts<T> {
    pub(crate) fn new(items: Vec<T>, pagination: Pagination) -> Self {
        Self {
            items,
            pagination,
            total: None,
        }
    }
}

impl<T: Send + 'static> Arrived<T> {
    /// A page already parsed, with no guess.
    #[cfg(test)]
    fn parsed(page: (Vec<T>, Pagination)) -> Self {
        Self {
            next_guess: None,
            parse: Box::new(move || Ok(Parts::new(page.0, page.1))),
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
    walk: PageWalk,
    ahead: Ahead<T>,
}

type PageResult<T> = Result<Parts<T>, ApiError>;

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

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;
    use std::sync::{Arc, Mutex};

    fn walk() -> PageWalk {
        PageWalk::new("list_things", "/v1/list", None)
    }

    fn pagination(has_more: bool, next: Option<&str>) -> Pagination {
        Pagination {
            has_more,
            next_cursor: next.map(str::to_owned),
        }
    }

    /// The cursors a list's pages were asked for with, in order.
    type Asked = Arc<Mutex<Vec<Option<String>>>>;

    /// A list of three pages, the middle one empty, and the cursors each
    /// page was asked for with.
    fn three_pages() -> (impl Stream<Item = Result<u32, ApiError>>, Asked) {
        let pages: Vec<(Vec<u32>, Pagination)> = vec![
            (vec![1, 2], pagination(true, Some("a"))),
            (vec![], pagination(true, Some("b"))),
            (vec![3], pagination(false, None)),
        ];
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let stream = item_stream(walk(), move |cursor| {
            log.lock().unwrap().push(cursor.clone());
            let index = match cursor.as_deref() {
                None => 0,
                Some("a") => 1,
                _ => 2,
            };
            let page = pages[index].clone();
            async move { Ok(Arrived::parsed(page)) }
        });
        (stream, seen)
    }

    #[tokio::test]
    async fn follows_cursors_through_empty_pages() {
        let (stream, seen) = three_pages();
        let items: Vec<u32> = stream.map(Result::unwrap).collect().await;
        assert_eq!(items, [1, 2, 3]);
        assert_eq!(
            *seen.lock().unwrap(),
            [None, Some("a".to_owned()), Some("b".to_owned())]
        );
    }

    #[tokio::test]
    async fn prefetching_asks_for_the_next_page_before_the_reader_wants_it() {
        let (stream, seen) = three_pages();
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
        let stuck: Vec<Result<u32, ApiError>> = item_stream(walk(), |_| async {
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
        let stream = item_stream(walk(), move |cursor: Option<String>| {
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
                        Ok(Parts::new(
                            vec![0u8],
                            pagination(!last, (!last).then_some(next)),
                        ))
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
        let items: Vec<u32> = item_stream(walk(), move |cursor: Option<String>| {
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
                    parse: Box::new(move || Ok(Parts::new(page.0, page.1))),
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
        let results: Vec<Result<u32, ApiError>> = item_stream(walk(), |_| async {
            Ok(Arrived::parsed((vec![7], pagination(true, None))))
        })
        .collect()
        .await;
        assert_eq!(results.len(), 2);
        assert_eq!(*results[0].as_ref().unwrap(), 7);
        assert!(
            matches!(&results[1], Err(ApiError::Protocol(p)) if p.message.contains("no next_cursor"))
        );
        let repeated: Vec<Result<u32, ApiError>> = item_stream(walk(), |_| async {
            Ok(Arrived::parsed((vec![], pagination(true, Some("same")))))
        })
        .collect()
        .await;
        assert_eq!(repeated.len(), 1, "the second page repeats the cursor");
        assert!(repeated[0].is_err());
    }
}
