//! Operations 1 to 3.

use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde_json::Value;

use super::{PathParams, blocking, change_project, find_project};
use crate::api::model::{Project, Visibility, WireEnum, validate_project_name};
use crate::server::ServerState;
use crate::server::auth::Feature;
use crate::server::context::{Ctx, Validation, among, json_object_body};
use crate::server::errors::HttpError;
use crate::server::store::{Change, ProjectRec};

pub async fn get_project(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(project_id): PathParams<String>,
) -> Result<Json<Project>, HttpError> {
    app.store
        .read(|data| find_project(data, &ctx, &project_id).map(ProjectRec::shown))
        .map(Json)
}

pub async fn update_project(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(project_id): PathParams<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Project>, HttpError> {
    let fields = json_object_body(&headers, body, &["name", "visibility"], true).await?;
    let mut validation = Validation::default();
    let name = match fields.get("name") {
        None => None,
        Some(Value::String(name)) => match validate_project_name(name) {
            Ok(()) => Some(name.clone()),
            Err(err) => {
                validation.push("body.name", err.to_string());
                None
            }
        },
        Some(_) => {
            validation.push("body.name", "name must be a string");
            None
        }
    };
    let visibility = match fields.get("visibility") {
        None => None,
        Some(Value::String(raw)) => {
            validation.check(among("body.visibility", raw, Visibility::known_values()))
        }
        Some(_) => {
            validation.push("body.visibility", "visibility must be a string");
            None
        }
    };
    validation.finish()?;
    let updated = change_project(ctx, app, project_id, move |project| {
        if let Some(name) = name {
            project.wire.name = Some(name);
        }
        if let Some(visibility) = visibility {
            project.wire.visibility = Some(visibility);
        }
        true
    })
    .await?;
    Ok(Json(updated.shown()))
}

pub async fn delete_project(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(project_id): PathParams<String>,
) -> Result<StatusCode, HttpError> {
    let app = app.clone();
    blocking(move || {
        app.store.write(|data| {
            find_project(data, &ctx, &project_id)?;
            // Where trash is available the row stays, restorable from the editor.
            let soft = ctx.principal.has_feature(Feature::Trash);
            Ok::<_, HttpError>((
                vec![Change::DeleteProject {
                    id: project_id.clone(),
                    soft,
                    at: ctx.now,
                }],
                (),
            ))
        })
    })
    .await?;
    Ok(StatusCode::NO_CONTENT)
}
