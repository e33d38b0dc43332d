//! Traffic over time, `GET /v1/projects/{id}/analytics`: an operation the real
//! service's reference shows beyond the contract (DESIGN.md). Answered from the
//! same visitor model as realtime and breakdowns, so the numbers agree.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;

use super::PathParams;
use super::analytics::{analytics_not_found, date_span, model_over, required_timestamp};
use crate::api::model::{
    DEFAULT_GRANULARITY, Granularity, MAX_DAILY_RANGE_DAYS, MAX_HOURLY_RANGE_DAYS, Traffic,
};
use crate::server::ServerState;
use crate::server::context::Ctx;
use crate::server::errors::HttpError;

pub async fn get(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(project_id): PathParams<String>,
) -> Result<Json<Traffic>, HttpError> {
    let starts_at = required_timestamp(&ctx, "starts_at");
    let ends_at = required_timestamp(&ctx, "ends_at");
    let granularity = ctx.query.one_enum::<Granularity>("granularity");
    let (starts_at, ends_at, granularity) = match (starts_at, ends_at, granularity) {
        (Ok(starts_at), Ok(ends_at), Ok(granularity)) => (
            starts_at,
            ends_at,
            granularity.unwrap_or(DEFAULT_GRANULARITY),
        ),
        // One 400 names every bad parameter.
        (starts_at, ends_at, granularity) => {
            return Err(HttpError::validation(
                starts_at
                    .err()
                    .into_iter()
                    .chain(ends_at.err())
                    .chain(granularity.err())
                    .collect(),
            ));
        }
    };
    let (first, last) = date_span(starts_at, ends_at)?;
    let longest = match granularity {
        Granularity::Hour => MAX_HOURLY_RANGE_DAYS,
        _ => MAX_DAILY_RANGE_DAYS,
    };
    if (last - first).whole_days() > longest {
        return Err(HttpError::invalid(
            "query.ends_at",
            format!("the range may span at most {longest} days with granularity {granularity}"),
        ));
    }
    app.store.read(|data| {
        // This operation answers only its own 404 type (DESIGN.md): a missing
        // project and a never-published one alike.
        let (model, live) =
            model_over(data, &ctx, &project_id, (first, last), analytics_not_found)?;
        Ok(Json(model.traffic(
            first,
            last,
            live,
            &granularity,
            ctx.now,
        )))
    })
}
