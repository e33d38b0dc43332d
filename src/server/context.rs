//! The per-request context handlers work with: the caller, the operation the
//! route table matched, the query; and the readers of query and body.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde_json::Value;
use time::OffsetDateTime;

use super::auth::Principal;
use super::errors::{HttpError, field_error};
use super::ops::Operation;
use super::paging::{self, PageRequest};
use crate::api::model::{FieldError, WireEnum};

/// What the pipeline learned about the caller (steps 1 to 5), handed to the
/// route layer through request extensions.
#[derive(Clone)]
pub struct Admission {
    pub principal: Principal,
    pub request_id: String,
    pub now: OffsetDateTime,
    pub query: QueryParams,
}

/// What handlers work with: the admitted caller and the operation the route
/// table matched, whose scope, plan and features were already checked.
#[derive(Clone)]
pub struct Ctx {
    pub principal: Principal,
    pub request_id: String,
    pub now: OffsetDateTime,
    pub query: QueryParams,
    pub operation: &'static Operation,
}

impl Ctx {
    pub fn new(admission: Admission, operation: &'static Operation) -> Self {
        Self {
            principal: admission.principal,
            request_id: admission.request_id,
            now: admission.now,
            query: admission.query,
            operation,
        }
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

    /// What a list's cursors are bound to: the operation, the path, and the query
    /// parameters the operation declares (undeclared ones are ignored, so they
    /// must not invalidate a cursor either).
    pub fn cursor_binding(&self, path: &str) -> String {
        let declared: Vec<(String, String)> = self
            .query
            .0
            .iter()
            .filter(|(key, _)| self.operation.query.contains(&key.as_str()))
            .cloned()
            .collect();
        paging::binding(self.operation.name, path, &declared)
    }

    /// `limit` and `cursor` of a list, the cursor checked against `binding`; both
    /// bad give one 400 naming both.
    pub fn page_request(&self, secret: &[u8], binding: &str) -> Result<PageRequest, HttpError> {
        let mut validation = Validation::default();
        let limit = validation.check(self.query.limit());
        let cursor = validation.check(self.query.one("cursor"));
        validation.finish()?;
        PageRequest::new(
            limit.unwrap_or(paging::DEFAULT_LIMIT),
            cursor.flatten(),
            secret,
            binding,
        )
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

    /// `limit`: 1 to [`paging::MAX_LIMIT`], [`paging::DEFAULT_LIMIT`] when omitted.
    pub fn limit(&self) -> Result<u32, FieldError> {
        let max = paging::MAX_LIMIT;
        match self.one("limit")? {
            None => Ok(paging::DEFAULT_LIMIT),
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

    /// A repeatable enum parameter; every value must be one this build knows.
    pub fn enums<T: WireEnum>(&self, name: &str) -> Result<Vec<T>, FieldError> {
        self.enums_among(name, T::known_values())
    }

    /// A repeatable enum parameter whose values must be among `allowed`.
    pub fn enums_among<T: WireEnum>(
        &self,
        name: &str,
        allowed: &[T],
    ) -> Result<Vec<T>, FieldError> {
        self.all(name)
            .map(|raw| among(&format!("query.{name}"), raw, allowed))
            .collect()
    }

    /// A single enum parameter; its value must be one this build knows.
    pub fn one_enum<T: WireEnum>(&self, name: &str) -> Result<Option<T>, FieldError> {
        self.one(name)?
            .map(|raw| among(&format!("query.{name}"), raw, T::known_values()))
            .transpose()
    }
}

/// The value of `allowed` spelled `raw`, or the field error at `location`
/// (`query.<name>` or `body.<name>`) listing them.
pub fn among<T: WireEnum>(location: &str, raw: &str, allowed: &[T]) -> Result<T, FieldError> {
    allowed
        .iter()
        .find(|value| value.wire() == raw)
        .cloned()
        .ok_or_else(|| {
            let names: Vec<&str> = allowed.iter().map(WireEnum::wire).collect();
            let name = location.rsplit('.').next().unwrap_or(location);
            field_error(
                location,
                format!("{name} must be one of: {}", names.join(", ")),
            )
        })
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

/// Reads and parses a JSON object body, refusing fields the operation does not
/// take. Handlers take the body unread (`axum::body::Body`) and call this after
/// the path checks, and always after the route layer's scope and plan checks;
/// an oversized body is answered 400 `invalid_request` like any malformed body.
pub async fn json_object_body(
    headers: &axum::http::HeaderMap,
    body: axum::body::Body,
    allowed_fields: &[&str],
    required: bool,
) -> Result<serde_json::Map<String, Value>, HttpError> {
    let body = axum::body::to_bytes(body, MAX_BODY_BYTES)
        .await
        .map_err(|_| {
            HttpError::invalid(
                "body",
                format!("the body could not be read or is larger than {MAX_BODY_BYTES} bytes"),
            )
        })?;
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
    let value: Value = serde_json::from_slice(&body)
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
