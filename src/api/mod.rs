//! The typed client for the v1 contract, and its wire types.
//!
//! [`Client`] is the one way the TUI and the CLI talk to the service: one async
//! method per operation, [`ApiError`] for every failure, streams over lists,
//! one retry loop with rate-limit pacing, and [`ClientEvent`]s for what it does.

pub(crate) mod client;
pub(crate) mod config;
pub(crate) mod credentials;
pub(crate) mod error;
pub(crate) mod events;
pub mod model;
pub mod page;
mod paths;
pub(crate) mod ratelimit;
pub(crate) mod retry;
pub mod sleeper;
pub(crate) mod transport;

/// The list operations as values, one page each (`list_operation!`), all of
/// them, and as one module (`api::lists`) for a glob.
pub use client::ListCall;
pub use client::lists::{self, *};
pub use client::{CheckedJson, Client, FilledMember, MIN_POLL_INTERVAL, PollPolicy};
pub use config::ClientConfig;
pub use credentials::{ApiKey, AuthScheme};
pub use error::{
    ApiError, ConfigError, DecodeError, ErrorResponse, ProtocolError, TransportError, TransportKind,
};
pub use events::{ClientEvent, EventCallback};
pub use page::{InventoryParams, MemberListParams, PageParams, ProjectListParams};
pub use ratelimit::{RateLimitState, Reserve};
pub use retry::{BudgetPolicy, RetryPolicy, RetryReason};
pub use sleeper::{ManualSleeper, Sleeper, TokioSleeper};
pub use transport::POOL_IDLE_TIMEOUT;
