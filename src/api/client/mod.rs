//! [`Client`]: one async method per operation of the contract.
//!
//! - `projects.rs`: the project operations. Mutations end in the state they
//!   verified (DESIGN.md, "Client rules"): when a mutation's outcome is unknown,
//!   or its retries ran out, the goal state is read back before it answers.
//! - `reads.rs`: analytics, personal data, members and the security center.
//! - `members.rs`: the member directory filled in (roles, names, e-mail).
//! - `workspaces.rs`: the workspaces a key reaches, and their projects' listing
//!   (shapes from the real service's reference, DESIGN.md).

/// Declares a list operation once: the value of a request for one page
/// (a struct of the path arguments, the parameters and the cursor, which is a
/// [`ListCall`]), and two methods of [`Client`]: one page at a cursor, and a
/// stream of every item over every page. The methods take the same path
/// arguments (`&str`) and the same parameter struct, sent through [`to_query`]:
/// `operation Name, page method, stream method, (path arguments) params: Type,
/// PageType => ItemType, at path`. Invoked outside `impl Client`: it writes
/// the struct beside the methods.
macro_rules! list_operation {
    (
        $(#[doc = $op_doc:literal])*
        operation $op:ident,
        $(#[doc = $page_doc:literal])*
        page $page_fn:ident,
        $(#[doc = $stream_doc:literal])*
        stream $stream_fn:ident,
        ($($arg:ident),*) $params:ident: $params_type:ty,
        $page:ty => $item:ty,
        at $path:expr $(,)?
    ) => {
        $(#[doc = $op_doc])*
        #[doc = ""]
        #[doc = concat!("Its page is [`Client::", stringify!($page_fn), "`]'s.")]
        #[derive(Debug, Clone, PartialEq)]
        pub struct $op {
            $(pub $arg: String,)*
            pub $params: $params_type,
            /// The page wanted: `None` for the first.
            pub cursor: Option<String>,
        }

        impl $crate::api::client::ListCall for $op {
            type Page = $page;

            fn call(
                self,
                client: &Client,
            ) -> impl std::future::Future<Output = Result<$page, ApiError>> + Send {
                async move {
                    client
                        .$page_fn($(&self.$arg,)* &self.$params, self.cursor.as_deref())
                        .await
                }
            }

            fn at(&self, cursor: Option<String>) -> Self {
                Self {
                    cursor,
                    ..self.clone()
                }
            }

            fn walk(&self) -> $crate::api::page::PageWalk {
                $(let $arg: &str = &self.$arg;)*
                let $params = &self.$params;
                let path: Result<String, ApiError> = $path;
                // A path that cannot be made fails the request itself; the
                // walk's errors then name the operation alone.
                $crate::api::page::PageWalk::new(
                    stringify!($page_fn),
                    path.unwrap_or_default(),
                    $params.limit,
                )
            }
        }

        impl Client {
            $(#[doc = $page_doc])*
            pub async fn $page_fn(
                &self,
                $($arg: &str,)*
                $params: &$params_type,
                cursor: Option<&str>,
            ) -> Result<$page, ApiError> {
                let path: Result<String, ApiError> = $path;
                self.get(path?, $crate::api::page::to_query($params, cursor)).await
            }

            $(#[doc = $stream_doc])*
            pub fn $stream_fn(
                &self,
                $($arg: &str,)*
                $params: $params_type,
            ) -> impl futures::Stream<Item = Result<$item, ApiError>> + Send + 'static {
                let path: Result<String, ApiError> = $path;
                self.paged::<$page>(stringify!($page_fn), path, $params, None)
            }
        }
    };
}

/// One page of a list operation as a value (declared by `list_operation!`
/// beside the client's method): what the dashboard asks for and its tests
/// compare; [`ListCall::call`] makes the request.
pub trait ListCall: std::fmt::Debug + Clone + PartialEq + Send + Sync + 'static {
    type Page: Send + 'static;

    fn call(
        self,
        client: &Client,
    ) -> impl std::future::Future<Output = Result<Self::Page, ApiError>> + Send;

    /// The same request for the page at `cursor`.
    fn at(&self, cursor: Option<String>) -> Self;

    /// The bounds of a walk that starts with this page (DESIGN.md, "Every
    /// walk is bounded"): the operation's name, its path and page size.
    fn walk(&self) -> PageWalk;
}

mod checked_page;
mod members;
mod projects;
mod reads;
mod security;
mod workspaces;

pub use checked_page::CheckedJson;
pub use members::FilledMember;

/// The list operations as values, one page each: whatever `list_operation!`
/// declares in these files, named here without a list to keep in step.
pub mod lists {
    pub use super::reads::*;
    pub use super::security::*;
    pub use super::workspaces::*;
}

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::Stream;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::broadcast;

use super::config::ClientConfig;
use super::error::{ApiError, ConfigError};
use super::events::ClientEvent;
use super::model::{InventoryItem, InventoryPage, Page};
use super::page::{Arrived, PageWalk, Parts, Query, guess_next_cursor, item_stream, to_query};
use super::ratelimit::RateLimitState;
use super::ratelimit::{Lane, Reserve};
use super::transport::{Answer, Call, Transport};

/// How [`Client::wait_for_deployment`] polls: the contract allows at most one
/// poll every 2 s, backing off toward 10 s while the deployment is not terminal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PollPolicy {
    pub first: Duration,
    pub max: Duration,
    pub factor: f64,
    /// How long to wait in all: a deployment still running then is returned
    /// as it is. Ten minutes by default, as long as a release build could take.
    pub timeout: Duration,
}

/// [`PollPolicy::timeout`] by default.
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(600);

impl Default for PollPolicy {
    fn default() -> Self {
        Self {
            first: Duration::from_secs(2),
            max: Duration::from_secs(10),
            factor: 1.5,
            timeout: DEFAULT_WAIT_TIMEOUT,
        }
    }
}

/// The contract: poll a deployment at most once every 2 seconds.
pub const MIN_POLL_INTERVAL: Duration = Duration::from_secs(2);

impl PollPolicy {
    /// The wait before the first poll: `first`, never under [`MIN_POLL_INTERVAL`].
    pub fn first_interval(&self) -> Duration {
        self.first.max(MIN_POLL_INTERVAL)
    }

    /// The wait after a poll that found the deployment running: `current`
    /// grown by `factor`, between [`MIN_POLL_INTERVAL`] and `max`.
    pub fn next_interval(&self, current: Duration) -> Duration {
        let floor = MIN_POLL_INTERVAL;
        current
            .mul_f64(self.factor.max(1.0))
            .clamp(floor, self.max.max(floor))
    }
}

/// The typed client. Cheap to clone; clones share the connection pool, the
/// rate-limit state of the credential, the retry budget and the event stream.
#[derive(Clone, Debug)]
pub struct Client {
    transport: Arc<Transport>,
    /// `ClientConfig::max_walk_items`, for every walk the client starts.
    max_walk_items: u64,
    /// Whose requests this handle sends (see [`Client::in_background`]).
    lane: Lane,
}

impl Client {
    pub fn new(config: ClientConfig) -> Result<Self, ConfigError> {
        Ok(Self {
            transport: Arc::new(Transport::new(&config)?),
            max_walk_items: config.max_walk_items,
            lane: Lane::User,
        })
    }

    /// A handle on the same client whose requests are background work: they
    /// wait rather than spend the last `reserve(limit)` requests of the
    /// window, which stay for the user's own (the pacer counts both).
    pub fn in_background(&self, reserve: Reserve) -> Self {
        Self {
            lane: Lane::Background { reserve },
            ..self.clone()
        }
    }

    /// The bounds of a walk that starts with `first`: the operation's own
    /// (`ListCall::walk`) and the configured most items.
    /// The service's address (what a report names as its source).
    pub fn base_url(&self) -> &str {
        self.transport.base().as_str()
    }

    /// The `Service-Version` the client pins.
    pub fn api_version(&self) -> &str {
        self.transport.pinned_version()
    }

    pub fn walk_of<L: ListCall>(&self, first: &L) -> PageWalk {
        first.walk().with_max_items(self.max_walk_items)
    }

    /// Every [`ClientEvent`] from now on. A subscriber that falls more than 1024
    /// events behind loses the oldest.
    pub fn subscribe(&self) -> broadcast::Receiver<ClientEvent> {
        self.transport.events.subscribe()
    }

    /// The credential's last known `X-RateLimit-*` state.
    pub fn rate_limit_state(&self) -> Option<RateLimitState> {
        self.transport.rate_limit_state()
    }

    /// The client's time: what a caller pacing itself by the rate limit waits on.
    pub fn sleeper(&self) -> Arc<dyn crate::api::Sleeper> {
        self.transport.sleeper.clone()
    }

    async fn get<T: DeserializeOwned>(&self, path: String, query: Query) -> Result<T, ApiError> {
        self.transport
            .execute(&Call::get(path, query.into_pairs()), self.lane)
            .await?
            .decode()
    }

    /// Every item of a list: pages of `P` fetched from `path` with `params`
    /// and each page's cursor, the walk bounded by a [`PageWalk`] named
    /// `operation` (`expected`: the item count the caller was told); a bad
    /// path argument is the stream's only item.
    fn paged<P: Paged>(
        &self,
        operation: &str,
        path: Result<String, ApiError>,
        params: impl Serialize + Send + 'static,
        expected: Option<u64>,
    ) -> impl Stream<Item = Result<P::Item, ApiError>> + Send + 'static {
        let client = self.clone();
        let (path, mut invalid) = match path {
            Ok(path) => (path, None),
            Err(error) => (String::new(), Some(error)),
        };
        let mut walk = PageWalk::new(operation, path.clone(), to_query(&params, None).limit())
            .with_max_items(self.max_walk_items);
        if let Some(expected) = expected {
            walk.expect(expected);
        }
        item_stream(walk, move |cursor| {
            let invalid = invalid.take();
            let client = client.clone();
            let path = path.clone();
            let query = to_query(&params, cursor.as_deref());
            async move {
                if let Some(error) = invalid {
                    return Err(error);
                }
                let answer = client
                    .transport
                    .execute(&Call::get(path, query.into_pairs()), client.lane)
                    .await?;
                Ok(Arrived {
                    next_guess: guess_next_cursor(&answer.body),
                    parse: Box::new(move || P::read(&answer).map(P::into_parts)),
                })
            }
        })
    }
}

/// A page of a list: its items, where the next page is, the list's total.
trait Paged: DeserializeOwned + Send + 'static {
    type Item: Send + 'static;

    /// The page an answer holds, as its declaration reads it.
    fn read(answer: &Answer) -> Result<Self, ApiError> {
        answer.decode()
    }

    fn into_parts(self) -> Parts<Self::Item>;
}

impl<T: DeserializeOwned + Send + 'static> Paged for Page<T> {
    type Item = T;
    fn into_parts(self) -> Parts<T> {
        Parts::new(self.data, self.pagination)
    }
}

impl Paged for InventoryPage {
    type Item = InventoryItem;
    fn into_parts(self) -> Parts<Self::Item> {
        Parts {
            total: Some(self.total.max(0) as u64),
            ..Parts::new(self.data, self.pagination)
        }
    }
}

fn json_body(value: &impl Serialize) -> Bytes {
    // Our request types are plain structs of strings and enums: they always serialize.
    Bytes::from(serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::credentials::ApiKey;

    #[test]
    fn debug_hides_the_key() {
        let config = ClientConfig::new(
            "https://api.example.com",
            ApiKey::new("vtg_super_secret").unwrap(),
        );
        let client = Client::new(config).unwrap();
        assert!(!format!("{client:?}").contains("super_secret"));
    }
}
