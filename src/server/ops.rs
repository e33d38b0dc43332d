//! The operations table and the per-request context handlers work with.
//!
//! Checks run in one order for every route (README, "Order of checks"):
//!
//! 1. `Accept` (406);
//! 2. `Service-Version`, then `Service-Beta` (400, 410, 503);
//! 3. the credential (401);
//! 4. the rate limit (429);
//! 5. injected faults;
//! 6. routing (404, 405);
//! 7. scope (403);
//! 8. plan (402 `required_plan`);
//! 9. features (402 `required_features`);
//! 10. path, query and body validation (400, and feature gates that depend on a
//!     parameter);
//! 11. the resource (404).
//!
//! Steps 6 to 11 run under the processing deadline (503 `request_timeout`).
//! Steps 1 to 6 live in the pipeline (`router.rs`), 7 to 9 in [`Ctx::authorize`],
//! 10 and 11 in each handler.

use std::sync::{Arc, Mutex};

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde_json::Value;
use time::OffsetDateTime;

use super::auth::{Feature, Plan, Principal, Scope};
use super::errors::{HttpError, field_error};
use crate::api::model::FieldError;

/// What an operation needs, and the query parameters it declares.
#[derive(Debug)]
pub struct Operation {
    pub scope: Scope,
    pub plan: Plan,
    pub features: &'static [Feature],
    pub query: &'static [&'static str],
}

const fn op(
    scope: Scope,
    plan: Plan,
    features: &'static [Feature],
    query: &'static [&'static str],
) -> Operation {
    Operation {
        scope,
        plan,
        features,
        query,
    }
}

use Feature::SecurityCenter;
use Plan::{Business, Enterprise};
use Scope::{ProjectsRead, ProjectsWrite, WorkspacesRead};

const PAGED: &[&str] = &["limit", "cursor"];

pub const GET_PROJECT: Operation = op(ProjectsRead, Business, &[], &[]);
pub const UPDATE_PROJECT: Operation = op(ProjectsWrite, Business, &[], &[]);
pub const DELETE_PROJECT: Operation = op(ProjectsWrite, Business, &[], &[]);
pub const UNPUBLISH_PROJECT: Operation = op(ProjectsWrite, Business, &[], &[]);
pub const PUBLISH_PROJECT: Operation = op(ProjectsWrite, Business, &[], &[]);
pub const GET_DEPLOYMENT: Operation = op(ProjectsRead, Business, &[], &[]);
pub const UPDATE_PUBLISH_SETTINGS: Operation = op(ProjectsWrite, Business, &[], &[]);
/// An embed URL changes nothing in the project: a read scope is enough (our choice).
pub const CREATE_EMBED_URL: Operation = op(ProjectsRead, Business, &[], &[]);
pub const GET_REALTIME: Operation = op(ProjectsRead, Business, &[], &[]);
pub const GET_BREAKDOWNS: Operation = op(ProjectsRead, Business, &[], &["starts_at", "ends_at"]);
/// Detection being off answers 404 `pii_labels_not_found`, checked by the handler.
pub const LIST_PII: Operation = op(ProjectsRead, Enterprise, &[], PAGED);
pub const GET_SCAN: Operation = op(ProjectsRead, Business, &[], &[]);
pub const LIST_SCAN_FINDINGS: Operation = op(ProjectsRead, Business, &[], PAGED);
pub const GET_MEMBER: Operation = op(WorkspacesRead, Business, &[], &[]);
pub const LIST_MEMBERS: Operation = op(
    WorkspacesRead,
    Business,
    &[],
    &[
        "limit",
        "cursor",
        "query",
        "role",
        "sort_by",
        "sort_order",
        "scim_managed",
    ],
);
pub const GET_INSIGHTS: Operation = op(
    WorkspacesRead,
    Business,
    &[SecurityCenter],
    &["review_priority"],
);
pub const LIST_INVENTORY: Operation = op(
    WorkspacesRead,
    Enterprise,
    &[SecurityCenter],
    &[
        "limit",
        "cursor",
        "query",
        "sort_by",
        "sort_order",
        "activity_group",
        "is_published",
        "visibility",
        "has_pii",
        "has_connectors",
        "publish_audience",
        "review_priority",
        "finding_type_id",
    ],
);
pub const LIST_WORKSPACE_PROJECTS: Operation = op(WorkspacesRead, Business, &[], PAGED);

/// What the pipeline hands to handlers through request extensions.
#[derive(Clone)]
pub struct Ctx {
    pub principal: Principal,
    pub request_id: String,
    pub now: OffsetDateTime,
    pub query: QueryParams,
    /// The operation that matched, for the unknown-query-parameter headers.
    pub matched: Arc<Mutex<Option<&'static Operation>>>,
}

impl Ctx {
    /// Steps 7 to 9 of the order of checks: scope, plan, features.
    pub fn authorize(&self, operation: &'static Operation) -> Result<&Principal, HttpError> {
        *self.matched.lock().unwrap_or_else(|p| p.into_inner()) = Some(operation);
        self.principal.require_scope(operation.scope)?;
        self.principal.require_plan(operation.plan)?;
        self.principal.require_features(operation.features)?;
        Ok(&self.principal)
    }

    /// 404 `workspace_not_found` unless `workspace_id` is the key's own workspace:
    /// another workspace answers exactly as a missing one.
    pub fn own_workspace(&self, workspace_id: &str) -> Result<(), HttpError> {
        if workspace_id == self.principal.workspace_id {
            Ok(())
        } else {
            Err(HttpError::workspace_not_found())
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Ctx {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Ctx>()
            .cloned()
            .ok_or_else(|| HttpError::internal("request context missing"))
    }
}

/// Decoded query parameters, in order, repeats kept.
#[derive(Debug, Clone, Default)]
pub struct QueryParams(pub Vec<(String, String)>);

impl QueryParams {
    pub fn parse(raw: Option<&str>) -> Self {
        Self(
            raw.map(|q| {
                form_urlencoded::parse(q.as_bytes())
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect()
            })
            .unwrap_or_default(),
        )
    }

    /// Every value of a (repeatable) parameter.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.0
            .iter()
            .filter(move |(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The value of a parameter that may be given once.
    pub fn one<'a>(&'a self, name: &'a str) -> Result<Option<&'a str>, FieldError> {
        let mut values = self.all(name);
        let first = values.next();
        if values.next().is_some() {
            return Err(field_error(
                format!("query.{name}"),
                format!("{name} may be given only once"),
            ));
        }
        Ok(first)
    }

    /// `limit`: 1 to `max`, `default` when omitted.
    pub fn limit(&self, default: u32, max: u32) -> Result<u32, FieldError> {
        match self.one("limit")? {
            None => Ok(default),
            Some(raw) => match raw.parse::<u32>() {
                Ok(limit) if (1..=max).contains(&limit) => Ok(limit),
                _ => Err(field_error(
                    "query.limit",
                    format!("limit must be an integer from 1 to {max}"),
                )),
            },
        }
    }

    /// A boolean parameter: `true` or `false`.
    pub fn boolean(&self, name: &str) -> Result<Option<bool>, FieldError> {
        match self.one(name)? {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(_) => Err(field_error(
                format!("query.{name}"),
                format!("{name} must be true or false"),
            )),
        }
    }

    /// A repeatable enum parameter; every value must be one `parse` knows.
    pub fn enums<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Option<T>,
        allowed: &[&str],
    ) -> Result<Vec<T>, FieldError> {
        let mut out = Vec::new();
        for raw in self.all(name) {
            match parse(raw) {
                Some(value) if allowed.contains(&raw) => out.push(value),
                _ => {
                    return Err(field_error(
                        format!("query.{name}"),
                        format!("{name} must be one of: {}", allowed.join(", ")),
                    ));
                }
            }
        }
        Ok(out)
    }

    /// A single enum parameter.
    pub fn one_enum<T>(
        &self,
        name: &str,
        parse: impl Fn(&str) -> Option<T>,
        allowed: &[&str],
    ) -> Result<Option<T>, FieldError> {
        match self.one(name)? {
            None => Ok(None),
            Some(raw) => match parse(raw) {
                Some(value) if allowed.contains(&raw) => Ok(Some(value)),
                _ => Err(field_error(
                    format!("query.{name}"),
                    format!("{name} must be one of: {}", allowed.join(", ")),
                )),
            },
        }
    }
}

/// Collects field errors so that one 400 names every bad input.
#[derive(Debug, Default)]
pub struct Validation(Vec<FieldError>);

impl Validation {
    pub fn check<T>(&mut self, result: Result<T, FieldError>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.0.push(error);
                None
            }
        }
    }

    pub fn push(&mut self, location: impl Into<String>, message: impl Into<String>) {
        self.0.push(field_error(location, message));
    }

    pub fn is_clean(&self) -> bool {
        self.0.is_empty()
    }

    pub fn finish(self) -> Result<(), HttpError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(HttpError::validation(self.0))
        }
    }
}

/// The largest request body read, in bytes.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// Reads a request body. Handlers take the body unread (`axum::body::Body`) and
/// call this after `ctx.authorize`, so an oversized body cannot jump the scope and
/// plan checks, and is answered 400 `invalid_request` like any malformed body.
pub async fn read_body(body: axum::body::Body) -> Result<axum::body::Bytes, HttpError> {
    axum::body::to_bytes(body, MAX_BODY_BYTES)
        .await
        .map_err(|_| {
            HttpError::invalid(
                "body",
                format!("the body could not be read or is larger than {MAX_BODY_BYTES} bytes"),
            )
        })
}

/// Parses a JSON object body, refusing fields the operation does not take.
pub fn json_object_body(
    headers: &axum::http::HeaderMap,
    body: &[u8],
    allowed_fields: &[&str],
    required: bool,
) -> Result<serde_json::Map<String, Value>, HttpError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return if required {
            Err(HttpError::invalid("body", "a JSON object body is required"))
        } else {
            Ok(serde_json::Map::new())
        };
    }
    if let Some(content_type) = headers.get(axum::http::header::CONTENT_TYPE) {
        let is_json = content_type
            .to_str()
            .unwrap_or_default()
            .split(';')
            .next()
            .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"));
        if !is_json {
            return Err(HttpError::invalid(
                "header.Content-Type",
                "the body must be sent as application/json",
            ));
        }
    }
    let value: Value = serde_json::from_slice(body)
        .map_err(|err| HttpError::invalid("body", format!("the body is not valid JSON: {err}")))?;
    let Value::Object(map) = value else {
        return Err(HttpError::invalid("body", "the body must be a JSON object"));
    };
    let mut validation = Validation::default();
    for key in map.keys() {
        if !allowed_fields.contains(&key.as_str()) {
            validation.push(
                format!("body.{key}"),
                format!("{key} is not a field this operation accepts"),
            );
        }
    }
    validation.finish()?;
    Ok(map)
}
