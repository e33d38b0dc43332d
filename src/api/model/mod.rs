//! Wire types: the JSON shapes of the v1 contract, defined once and shared by
//! the client, the CLI, the TUI and the reference server.
//!
//! Every enum tolerates values it does not know (`Unknown(String)` keeps the raw
//! string), and unknown JSON fields are ignored, as the contract's evolution rules
//! require.

pub(crate) mod analytics;
pub(crate) mod error;
pub(crate) mod insights;
pub(crate) mod inventory;
pub(crate) mod member;
pub(crate) mod pii;
pub(crate) mod project;
pub(crate) mod publish;
pub(crate) mod scan;
pub(crate) mod traffic;
pub(crate) mod workspace;

pub use analytics::*;
pub use error::*;
pub use insights::*;
pub use inventory::*;
pub use member::*;
pub use pii::*;
pub use project::*;
pub use publish::*;
pub use scan::*;
pub use traffic::*;
pub use workspace::*;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// The API version this build speaks and pins by default.
pub const API_VERSION: &str = "2026-09-11";

/// An enum of the contract, seen the same way by every layer: clap values, query
/// parameters, the server's parsing. `open_enum!` implements it.
pub trait WireEnum: Clone + Send + Sync + Sized + 'static {
    /// Every value this build knows, in declaration order.
    fn known_values() -> &'static [Self];
    /// The wire spelling.
    fn wire(&self) -> &str;
    /// Parses the wire spelling; unknown values are kept as `Unknown`.
    fn from_wire(raw: &str) -> Self;
    /// The wire spellings of every known value, e.g. for an error message.
    fn wire_names() -> Vec<&'static str> {
        Self::known_values()
            .iter()
            .map(|value| value.wire())
            .collect()
    }
}

/// A clap parser accepting every known value of `T`, for a flag of that
/// enum (`value_parser = wire::<Visibility>()`).
pub fn wire<T: WireEnum>() -> impl TypedValueParser<Value = T> {
    wire_subset(T::known_values())
}

/// A clap parser accepting only `values`.
pub fn wire_subset<T: WireEnum>(values: &'static [T]) -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(values.iter().map(|value| PossibleValue::new(value.wire())))
        .map(|raw| T::from_wire(&raw))
}

/// Defines a string enum that keeps unknown values in `Unknown(String)`.
#[macro_export]
macro_rules! open_enum {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident => $value:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $($(#[$vmeta])* $variant,)+
            /// A value this build does not know; kept as sent.
            Unknown(String),
        }

        impl $name {
            /// Every value this build knows, in declaration order.
            pub const KNOWN: &'static [$name] = &[$($name::$variant),+];

            /// The wire spelling.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $value,)+
                    Self::Unknown(raw) => raw,
                }
            }

            /// Parses the wire spelling; unknown values are kept.
            pub fn parse(raw: &str) -> Self {
                match raw {
                    $($value => Self::$variant,)+
                    other => Self::Unknown(other.to_owned()),
                }
            }

            /// Parses only a value this build knows.
            pub fn known(raw: &str) -> Option<Self> {
                match Self::parse(raw) {
                    Self::Unknown(_) => None,
                    known => Some(known),
                }
            }

            /// Whether this is a value this build knows.
            pub fn is_known(&self) -> bool {
                !matches!(self, Self::Unknown(_))
            }
        }

        impl $crate::api::model::WireEnum for $name {
            fn known_values() -> &'static [Self] {
                Self::KNOWN
            }
            fn wire(&self) -> &str {
                self.as_str()
            }
            fn from_wire(raw: &str) -> Self {
                Self::parse(raw)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = ::std::convert::Infallible;
            fn from_str(raw: &str) -> Result<Self, Self::Err> {
                Ok(Self::parse(raw))
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                // The text is only looked at: a known value is read without
                // copying it (serde's `Cow<str>` would copy every one).
                struct Wire;
                impl ::serde::de::Visitor<'_> for Wire {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str("a string")
                    }
                    fn visit_str<E: ::serde::de::Error>(self, raw: &str) -> Result<$name, E> {
                        Ok($name::parse(raw))
                    }
                }
                deserializer.deserialize_str(Wire)
            }
        }
    };
}

/// `pagination` of every list response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pagination {
    pub has_more: bool,
    #[serde(default)]
    pub next_cursor: Option<String>,
}

/// `{data: [...], pagination}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page<T> {
    pub data: Vec<T>,
    pub pagination: Pagination,
}

open_enum! {
    /// `sort_order` of list operations.
    pub enum SortOrder {
        Asc => "asc",
        Desc => "desc",
    }
}

/// The contract's default order when `sort_by` is given without `sort_order`.
impl Default for SortOrder {
    fn default() -> Self {
        SortOrder::Desc
    }
}

open_enum! {
    /// Review priority of a finding type or an inventory item.
    pub enum ReviewPriority {
        NeedsReview => "needs_review",
        ReviewRecommended => "review_recommended",
        NoReviewNeeded => "no_review_needed",
        Unscored => "unscored",
    }
}

impl ReviewPriority {
    /// Rank for "higher review priority first": lower is more urgent.
    pub fn urgency_rank(&self) -> u8 {
        match self {
            Self::NeedsReview => 0,
            Self::ReviewRecommended => 1,
            Self::NoReviewNeeded => 2,
            Self::Unscored => 3,
            Self::Unknown(_) => 4,
        }
    }
}

/// RFC 3339 timestamps, as the contract writes them (UTC, `Z`), always with
/// milliseconds (`crate::timefmt::rfc3339`), so that they sort as text.
pub use crate::timefmt::serde_rfc3339 as rfc3339;

/// Formats a timestamp as the contract does: RFC 3339 in UTC, with milliseconds.
pub fn format_timestamp(at: OffsetDateTime) -> String {
    crate::timefmt::rfc3339(at).unwrap_or_else(|| at.unix_timestamp().to_string())
}

/// Parses an RFC 3339 timestamp with any offset.
pub fn parse_timestamp(raw: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(raw, &time::format_description::well_known::Rfc3339).ok()
}
