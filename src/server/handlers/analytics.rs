//! Operations 5 and 6: realtime analytics and analytics breakdowns, answered
//! from the deterministic visitor model (`server/analytics_model.rs`).

use std::ops::RangeInclusive;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use time::{Date, OffsetDateTime, UtcOffset};

use super::{PathParams, find_project_or};
use crate::api::model::{Breakdowns, ErrorType, FieldError, Realtime, parse_timestamp};
use crate::server::ServerState;
use crate::server::analytics_model::{VisitorModel, dates_in, retained_range};
use crate::server::context::Ctx;
use crate::server::errors::{HttpError, field_error};
use crate::server::store::{AnalyticsProfile, Data, ProjectRec};

/// The longest breakdowns range: the UTC date of `ends_at` at most this many days
/// after that of `starts_at`. (So "the last 365 days", from now minus 365 days to
/// now, is accepted, though it touches 366 dates.)
pub const MAX_RANGE_DAYS: i64 = 365;

pub async fn realtime(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(project_id): PathParams<String>,
) -> Result<Json<Realtime>, HttpError> {
    app.store.read(|data| {
        let (project, profile) = analytics_of(data, &ctx, &project_id, unknown_project)?;
        // Offline, nobody can be visiting; the buckets are still there, at zero.
        let model = VisitorModel::new(&project.wire.id, profile);
        Ok(Json(model.realtime(ctx.now, project.wire.is_published)))
    })
}

pub async fn breakdowns(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(project_id): PathParams<String>,
) -> Result<Json<Breakdowns>, HttpError> {
    let (starts_at, ends_at) = match (
        required_timestamp(&ctx, "starts_at"),
        required_timestamp(&ctx, "ends_at"),
    ) {
        (Ok(starts_at), Ok(ends_at)) => (starts_at, ends_at),
        // One 400 names both when both are bad.
        (starts_at, ends_at) => {
            return Err(HttpError::validation(
                starts_at.err().into_iter().chain(ends_at.err()).collect(),
            ));
        }
    };
    let (first, last) = date_span(starts_at, ends_at)?;
    if (last - first).whole_days() > MAX_RANGE_DAYS {
        return Err(HttpError::invalid(
            "query.ends_at",
            format!("the range may span at most {MAX_RANGE_DAYS} days"),
        ));
    }
    app.store.read(|data| {
        // History stays readable after the app went offline: no check of
        // `is_published` here, unlike the realtime view.
        let (model, live) = model_over(data, &ctx, &project_id, (first, last), unknown_project)?;
        Ok(Json(model.breakdowns(dates_in(live), ctx.now)))
    })
}

/// The UTC dates of `starts_at` and `ends_at`, which must not come first.
pub(super) fn date_span(
    starts_at: OffsetDateTime,
    ends_at: OffsetDateTime,
) -> Result<(Date, Date), HttpError> {
    if ends_at < starts_at {
        return Err(HttpError::invalid(
            "query.ends_at",
            "ends_at must not be before starts_at",
        ));
    }
    Ok((starts_at.date(), ends_at.date()))
}

/// The 404 of the analytics operations (the only 404 type they name).
pub(super) fn analytics_not_found() -> HttpError {
    HttpError::not_found(ErrorType::AnalyticsNotFound, "Analytics not found")
}

/// A missing project, as realtime and breakdowns answer it.
fn unknown_project() -> HttpError {
    analytics_not_found().detail("no project with this id in the key's workspace")
}

/// The project and its analytics: a missing project answers `missing()`, one
/// never published 404 `analytics_not_found`.
fn analytics_of<'a>(
    data: &'a Data,
    ctx: &Ctx,
    project_id: &str,
    missing: impl FnOnce() -> HttpError,
) -> Result<(&'a ProjectRec, &'a AnalyticsProfile), HttpError> {
    let project = find_project_or(data, ctx, project_id, missing)?;
    let profile = project.analytics.as_ref().ok_or_else(|| {
        analytics_not_found()
            .detail("the project has never been published, so it has no visitor analytics")
    })?;
    Ok((project, profile))
}

/// The visitor model of a project with analytics, and the dates of `first..=last`
/// that hold analytics at the request's time (retention, the project's creation,
/// the future).
pub(super) fn model_over(
    data: &Data,
    ctx: &Ctx,
    project_id: &str,
    (first, last): (Date, Date),
    missing: impl FnOnce() -> HttpError,
) -> Result<(VisitorModel, RangeInclusive<Date>), HttpError> {
    let (project, profile) = analytics_of(data, ctx, project_id, missing)?;
    let live = retained_range(
        first,
        last,
        ctx.now,
        profile.retention_days,
        project.wire.created_at,
    );
    Ok((VisitorModel::new(&project.wire.id, profile), live))
}

/// A required RFC 3339 query parameter, any offset, converted to UTC. A time
/// whose UTC form leaves the calendar (`9999-12-31T23:59:59-23:59`) is refused.
pub(super) fn required_timestamp(ctx: &Ctx, name: &str) -> Result<OffsetDateTime, FieldError> {
    let location = format!("query.{name}");
    match ctx.query.one(name)? {
        None => Err(field_error(location, format!("{name} is required"))),
        Some(raw) => parse_timestamp(raw)
            .and_then(|at| at.checked_to_offset(UtcOffset::UTC))
            .ok_or_else(|| {
                field_error(
                    location,
                    format!(
                        "{name} must be an RFC 3339 timestamp between the years 0000 and 9999, e.g. 2026-11-01T00:00:00Z"
                    ),
                )
            }),
    }
}
