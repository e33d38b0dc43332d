//! The checks every answer of the service goes through, declared once, in
//! [`ANSWER_CHECKS`] (ARCHITECTURE.md: how to add a check on every answer).
//! A check either tells the user something about an answer (a
//! [`ClientEvent`], which the commands print as a warning and log) or refuses
//! a successful answer's body as it is decoded, naming where and why.
//!
//! Not here, because they are no check of a whole answer: the cap on a
//! body's size (`read_capped`, while it is read), the rate-limit headers
//! (`ratelimit.rs`, which paces the next request), an error answer's
//! envelope (`failures.rs`) and a walk's bounds (`page/walk.rs`).

use super::{Answer, UNKNOWN_PARAMS_HEADER, UNKNOWN_PARAMS_OMITTED_HEADER, VERSION_HEADER, nul};
use crate::api::error::one_line;
use crate::api::events::ClientEvent;

/// What a check knows besides the answer.
pub(super) struct Expected<'a> {
    /// The `Service-Version` every request pins.
    pub pinned_version: &'a str,
}

/// Why a successful answer's body is refused: where in the JSON, and what.
pub(super) struct Refusal {
    pub json_path: String,
    pub message: String,
}

/// What a check does with an answer.
pub(super) enum Check {
    /// Every answer, an error answer too, as it arrives: something to tell.
    Notice(fn(&Answer, &Expected) -> Option<ClientEvent>),
    /// A 2xx answer's body as it is decoded (an error envelope is shown,
    /// never stored): refused, with why.
    Refuse(fn(&Answer) -> Option<Refusal>),
}

/// One check of [`ANSWER_CHECKS`].
pub(super) struct AnswerCheck {
    /// What it checks, in a few words.
    pub name: &'static str,
    /// Told once per client, not once per answer.
    pub once: bool,
    pub check: Check,
}

/// Every check on every answer, in the order they run.
pub(super) const ANSWER_CHECKS: &[AnswerCheck] = &[
    AnswerCheck {
        name: "query parameters the service ignored",
        once: false,
        check: Check::Notice(ignored_query_parameters),
    },
    AnswerCheck {
        name: "the API version served against the one pinned",
        once: true,
        check: Check::Notice(version_served),
    },
    AnswerCheck {
        name: "an id holding U+0000 (NUL)",
        once: false,
        check: Check::Refuse(id_with_nul),
    },
];

fn header<'a>(answer: &'a Answer, name: &str) -> Option<&'a str> {
    answer.headers.get(name).and_then(|v| v.to_str().ok())
}

/// `X-Service-Unknown-Query-Params`: the client and the service may not
/// speak the same version of a list's filters.
fn ignored_query_parameters(answer: &Answer, _: &Expected) -> Option<ClientEvent> {
    let names = header(answer, UNKNOWN_PARAMS_HEADER)?;
    Some(ClientEvent::UnknownQueryParams {
        method: answer.method.to_string(),
        path: answer.path.clone(),
        names: names
            .split(',')
            .map(|name| one_line(name.trim()))
            .filter(|name| !name.is_empty())
            .collect(),
        omitted: header(answer, UNKNOWN_PARAMS_OMITTED_HEADER)
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0),
    })
}

/// The `Service-Version` echoed is not the one pinned.
fn version_served(answer: &Answer, expected: &Expected) -> Option<ClientEvent> {
    let served = header(answer, VERSION_HEADER)?;
    (served != expected.pinned_version).then(|| ClientEvent::VersionMismatch {
        pinned: expected.pinned_version.to_owned(),
        served: one_line(served),
    })
}

/// An id with a NUL cannot be kept by the shared history (`nul.rs`).
fn id_with_nul(answer: &Answer) -> Option<Refusal> {
    Some(Refusal {
        json_path: nul::id_with_nul(&answer.body)?,
        message: "an id holds U+0000 (NUL), which vantage refuses: the shared history cannot \
                  store it"
            .to_owned(),
    })
}
