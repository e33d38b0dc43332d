//! Unpublish (operation 4) and the publish operations the contract names; their
//! shapes are DESIGN.md's choices.

use std::sync::Arc;

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use super::{PathParams, blocking, change_project, find_project};
use crate::api::model::{
    AudienceSettings, AudienceTarget, Deployment, DeploymentErrorClass, DeploymentStatus, EmbedUrl,
    ErrorType, PublishAudience, ReviewPriority, validate_parent_origin,
};
use crate::hash::hash_str;
use crate::server::ServerState;
use crate::server::context::{Ctx, Validation, json_object_body};
use crate::server::errors::HttpError;
use crate::server::store::{Change, DeploymentOutcome, DeploymentRec, ProjectRec};

/// How long a deployment runs before it reaches its outcome.
pub const DEPLOYMENT_DURATION: Duration = Duration::seconds(3);
/// How long an embed URL stays valid.
const EMBED_URL_LIFETIME: Duration = Duration::hours(1);
/// Target types a custom audience may name. The contract shows `group`; users are
/// listed too ("Users granted through invitations ... are included").
const TARGET_TYPES: &[&str] = &["group", "user"];

pub async fn unpublish(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(project_id): PathParams<String>,
) -> Result<StatusCode, HttpError> {
    // A repeat is safe (204 as well). Audience and visibility are kept for
    // the next publish.
    change_project(ctx, app, project_id, |project| {
        std::mem::replace(&mut project.wire.is_published, false)
    })
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn publish(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(project_id): PathParams<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<Deployment>), HttpError> {
    let fields = json_object_body(&headers, body, &["audience"], false).await?;
    let mut validation = Validation::default();
    let audience = match fields.get("audience") {
        None | Some(Value::Null) => None,
        Some(value) => audience_field(value, &mut validation),
    };
    validation.finish()?;
    let app = app.clone();
    let deployment = blocking(move || {
        app.store.write(|data| {
            let project = find_project(data, &ctx, &project_id)?;
            if let Some(refs) = critical_findings(project) {
                return Err(HttpError::new(
                    StatusCode::FORBIDDEN,
                    ErrorType::SecurityCriticalFindings,
                    "Security critical findings",
                )
                .detail("critical security findings block publishing; fix them and scan again")
                .prop("finding_refs", json!(refs)));
            }
            let sequence = data.deployments.len() as u64 + 1;
            let id = format!(
                "dpl_{:016x}",
                hash_str(&format!("{}:{}:{}", project.wire.id, sequence, ctx.now))
            );
            let errors = project.security.values.error_count;
            let outcome = if errors > 0 {
                let noun = if errors == 1 { "error" } else { "errors" };
                DeploymentOutcome::Failure {
                    error_class: DeploymentErrorClass::Code,
                    error_message: format!("build failed: {errors} {noun} in the project's code"),
                }
            } else {
                DeploymentOutcome::Success {
                    url: published_url(project),
                }
            };
            let deployment = DeploymentRec {
                id,
                project_id: project.wire.id.clone(),
                created_at: ctx.now,
                completes_at: ctx.now + DEPLOYMENT_DURATION,
                audience,
                outcome,
                settled: false,
            };
            Ok((vec![Change::PutDeployment(deployment.clone())], deployment))
        })
    })
    .await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(deployment_view(&deployment, None)),
    ))
}

pub async fn get_deployment(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams((project_id, deployment_id)): PathParams<(String, String)>,
) -> Result<Json<Deployment>, HttpError> {
    app.store.read(|data| {
        let project = find_project(data, &ctx, &project_id)?;
        let deployment = data
            .deployments
            .get(&deployment_id)
            .filter(|d| d.project_id == project.wire.id)
            .ok_or_else(|| {
                HttpError::not_found(ErrorType::DeploymentNotFound, "Deployment not found")
            })?;
        Ok(Json(deployment_view(deployment, Some(ctx.now))))
    })
}

pub async fn update_settings(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(project_id): PathParams<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<AudienceSettings>, HttpError> {
    let fields = json_object_body(&headers, body, &["audience", "audience_targets"], true).await?;
    let mut validation = Validation::default();
    let audience = match fields.get("audience") {
        None => {
            validation.push("body.audience", "audience is required");
            None
        }
        Some(value) => audience_field(value, &mut validation),
    };
    let targets = match fields.get("audience_targets") {
        None | Some(Value::Null) => Vec::new(),
        Some(value) => targets_field(value, &mut validation),
    };
    if !targets.is_empty()
        && audience
            .as_ref()
            .is_some_and(|a| *a != PublishAudience::Custom)
    {
        validation.push(
            "body.audience_targets",
            "audience_targets may be given only with the custom audience",
        );
    }
    validation.finish()?;
    let updated = change_project(ctx, app, project_id, move |project| {
        project.wire.publish_audience = audience;
        project.wire.publish_audience_targets = targets;
        true
    })
    .await?;
    Ok(Json(settings_view(&updated)))
}

/// The answer of `PATCH /publish`: the resolved settings, not the project
/// (DESIGN.md). They are the stored setting, shown whether or not the app is
/// online; targets only for `custom`.
pub fn settings_view(project: &ProjectRec) -> AudienceSettings {
    let targets = if project.wire.publish_audience == Some(PublishAudience::Custom) {
        project.wire.publish_audience_targets.clone()
    } else {
        Vec::new()
    };
    AudienceSettings {
        audience: project.wire.publish_audience.clone(),
        audience_targets: targets,
    }
}

pub async fn embed_url(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(project_id): PathParams<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<EmbedUrl>, HttpError> {
    let fields = json_object_body(&headers, body, &["parent_origin"], true).await?;
    let origin = match fields.get("parent_origin") {
        Some(Value::String(origin)) if validate_parent_origin(origin).is_ok() => origin.clone(),
        Some(_) => {
            return Err(HttpError::invalid(
                "body.parent_origin",
                "parent_origin must be one exact https origin, e.g. https://example.com",
            ));
        }
        None => {
            return Err(HttpError::invalid(
                "body.parent_origin",
                "parent_origin is required",
            ));
        }
    };
    app.store.read(|data| {
        let project = find_project(data, &ctx, &project_id)?;
        let expires_at = ctx.now + EMBED_URL_LIFETIME;
        let token = hash_str(&format!(
            "{}|{}|{}|{}",
            String::from_utf8_lossy(&app.cursor_secret),
            project.wire.id,
            origin,
            expires_at.unix_timestamp()
        ));
        Ok(Json(EmbedUrl {
            embed_url: format!(
                "https://embed.vantage.invalid/{}?token={token:016x}",
                project.wire.id
            ),
            expires_at,
        }))
    })
}

/// The deployment as the API shows it at `now`; `None` means "just created".
pub fn deployment_view(deployment: &DeploymentRec, now: Option<OffsetDateTime>) -> Deployment {
    let finished = now.is_some_and(|now| deployment.completes_at <= now);
    let running = Deployment {
        id: deployment.id.clone(),
        status: DeploymentStatus::Running,
        url: None,
        error_class: None,
        error_message: None,
    };
    if !finished {
        return running;
    }
    match &deployment.outcome {
        DeploymentOutcome::Success { url } => Deployment {
            status: DeploymentStatus::Completed,
            url: Some(url.clone()),
            ..running
        },
        DeploymentOutcome::Failure {
            error_class,
            error_message,
        } => Deployment {
            status: DeploymentStatus::Error,
            error_class: Some(error_class.clone()),
            error_message: Some(error_message.clone()),
            ..running
        },
    }
}

/// Exposed secrets on a project that needs review block publishing.
fn critical_findings(project: &ProjectRec) -> Option<Vec<String>> {
    let security = &project.security;
    (security.review_priority == ReviewPriority::NeedsReview && security.values.secret_count > 0)
        .then(|| {
            (1..=security.values.secret_count)
                .map(|n| format!("{}:exposed_secret:{n}", project.wire.id))
                .collect()
        })
}

fn published_url(project: &ProjectRec) -> String {
    project
        .published_url
        .clone()
        .unwrap_or_else(|| format!("https://{}.apps.vantage.invalid", project.wire.id))
}

fn audience_field(value: &Value, validation: &mut Validation) -> Option<PublishAudience> {
    match value.as_str().and_then(PublishAudience::known) {
        Some(audience) => Some(audience),
        None => {
            validation.push(
                "body.audience",
                "audience must be one of: public, workspace, custom",
            );
            None
        }
    }
}

fn targets_field(value: &Value, validation: &mut Validation) -> Vec<AudienceTarget> {
    let Some(items) = value.as_array() else {
        validation.push("body.audience_targets", "audience_targets must be an array");
        return Vec::new();
    };
    let mut targets = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let id = item
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty());
        let kind = item
            .get("type")
            .and_then(Value::as_str)
            .filter(|kind| TARGET_TYPES.contains(kind));
        match (id, kind) {
            (Some(id), Some(kind)) => targets.push(AudienceTarget {
                id: id.to_owned(),
                kind: kind.to_owned(),
            }),
            _ => validation.push(
                format!("body.audience_targets[{index}]"),
                "each target needs a non-empty id and a type of group or user",
            ),
        }
    }
    targets
}
