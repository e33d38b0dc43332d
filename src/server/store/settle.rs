//! Deployments that finished: their outcome applied to the projects.

use time::OffsetDateTime;

use super::{AnalyticsProfile, Change, Data, DeploymentOutcome, DeploymentRec, ProjectRec};
use crate::api::model::PublishAudience;

/// Applies every deployment finished by `now`: a success publishes the project
/// with the deployment's audience, or the retained one, or `public`.
pub fn settle_deployments(data: &Data, now: OffsetDateTime) -> Vec<Change> {
    let mut changes = Vec::new();
    let mut due: Vec<&DeploymentRec> = data
        .deployments
        .values()
        .filter(|d| !d.settled && d.completes_at <= now)
        .collect();
    due.sort_by_key(|d| (d.completes_at, d.id.clone()));
    let mut touched: std::collections::HashMap<String, ProjectRec> = Default::default();
    for deployment in due {
        let mut settled = deployment.clone();
        settled.settled = true;
        changes.push(Change::PutDeployment(settled));
        let DeploymentOutcome::Success { url } = &deployment.outcome else {
            continue;
        };
        let Some(project) = touched
            .get(&deployment.project_id)
            .cloned()
            .or_else(|| data.projects.get(&deployment.project_id).cloned())
        else {
            continue;
        };
        let mut project = project;
        project.wire.is_published = true;
        project.wire.publish_audience = deployment
            .audience
            .clone()
            .or(project.wire.publish_audience)
            .or(Some(PublishAudience::Public));
        project.published_url = Some(url.clone());
        project.updated_at = deployment.completes_at;
        if project.analytics.is_none() {
            project.analytics = Some(AnalyticsProfile {
                retention_days: 365,
                daily_visitors: 40,
            });
        }
        touched.insert(project.wire.id.clone(), project);
    }
    changes.extend(
        touched
            .into_values()
            .map(|p| Change::PutProject(Box::new(p))),
    );
    changes
}
