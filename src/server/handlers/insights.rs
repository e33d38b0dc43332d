//! Operation 10: workspace security insights.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;

use super::{PathParams, blocking, find_workspace};
use crate::api::model::{
    Insights, InsightsSummary, Metric, PublishAudience, ReviewPriority, RiskCounts,
};
use crate::server::ServerState;
use crate::server::auth::Feature;
use crate::server::catalog::{FINDING_KINDS, FindingKind};
use crate::server::context::{Ctx, Validation};
use crate::server::errors::HttpError;
use crate::server::store::{Data, ProjectRec, WorkspaceRec};

/// `delta_window` of every summary metric: the deltas compare with the workspace
/// 30 days ago (our wording; the contract only says it describes the window).
pub const DELTA_WINDOW: &str = "30d";

/// Values `review_priority` takes here; `unscored` is an inventory-only value.
const FINDING_PRIORITIES: &[ReviewPriority] = &[
    ReviewPriority::NeedsReview,
    ReviewPriority::ReviewRecommended,
    ReviewPriority::NoReviewNeeded,
];

pub async fn get(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(workspace_id): PathParams<String>,
) -> Result<Json<Insights>, HttpError> {
    let mut validation = Validation::default();
    let priorities = validation
        .check(ctx.query.enums_among("review_priority", FINDING_PRIORITIES))
        .unwrap_or_default();
    validation.finish()?;
    ctx.own_workspace(&workspace_id)?;
    let pii_detection = ctx.principal.has_feature(Feature::PiiDetection);
    let insights = blocking(move || {
        app.store.read_eventual(|data| {
            let workspace = find_workspace(data, &workspace_id)?;
            Ok(workspace_insights(
                data,
                workspace,
                pii_detection,
                &priorities,
            ))
        })
    })
    .await?;
    Ok(Json(insights))
}

/// Finding types shown to a workspace: those needing personal-data detection are
/// left out without it. Catalog order is higher review priority first.
pub fn visible_kinds(pii_detection: bool) -> impl Iterator<Item = &'static FindingKind> {
    FINDING_KINDS
        .iter()
        .filter(move |kind| pii_detection || !kind.needs_pii_detection)
}

/// Whether a project appears under a finding type.
pub fn has_finding(project: &ProjectRec, kind: &FindingKind) -> bool {
    project
        .security
        .finding_type_ids
        .iter()
        .any(|id| id == kind.id)
}

/// Published to everyone: counted as externally published.
pub fn is_externally_published(project: &ProjectRec) -> bool {
    project.wire.is_published && project.wire.publish_audience == Some(PublishAudience::Public)
}

fn workspace_insights(
    data: &Data,
    workspace: &WorkspaceRec,
    pii_detection: bool,
    priorities: &[ReviewPriority],
) -> Insights {
    let kinds: Vec<&FindingKind> = visible_kinds(pii_detection)
        .filter(|kind| priorities.is_empty() || priorities.contains(&kind.review_priority))
        .collect();
    let mut finding_counts = vec![0_i64; kinds.len()];
    let mut total_projects = 0;
    let mut externally_published = 0;
    let mut risk = RiskCounts::default();
    for project in data.workspace_projects(&workspace.id) {
        total_projects += 1;
        if is_externally_published(project) {
            externally_published += 1;
        }
        match project.security.review_priority {
            ReviewPriority::NeedsReview => risk.needs_review += 1,
            ReviewPriority::ReviewRecommended => risk.review_recommended += 1,
            ReviewPriority::NoReviewNeeded => risk.no_review_needed += 1,
            // Unscored (and values this build does not know) are not counted.
            ReviewPriority::Unscored | ReviewPriority::Unknown(_) => {}
        }
        for (kind, count) in kinds.iter().zip(finding_counts.iter_mut()) {
            if has_finding(project, kind) {
                *count += 1;
            }
        }
    }
    let members = data.active_members(&workspace.id).count() as i64;
    let baseline = &workspace.baseline_30d;
    Insights {
        as_of: workspace.as_of,
        findings: kinds
            .iter()
            .zip(finding_counts)
            .map(|(kind, count)| kind.with_count(count))
            .collect(),
        summary: InsightsSummary {
            total_projects: metric(total_projects, baseline.total_projects),
            externally_published: metric(externally_published, baseline.externally_published),
            workspace_members: metric(members, baseline.workspace_members),
            risk,
        },
    }
}

fn metric(value: i64, thirty_days_ago: i64) -> Metric {
    Metric {
        value,
        delta_30d: value - thirty_days_ago,
        delta_window: DELTA_WINDOW.to_owned(),
    }
}
