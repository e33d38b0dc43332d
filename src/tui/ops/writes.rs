//! The API's writes to a project, as the project screen and the inventory's
//! bulk changes ask for them. The client resolves a write of unknown outcome
//! (DESIGN.md, "Client rules"): a delete whose retry finds no project counts
//! as done.

use crate::api::model::{
    AudienceSettings, Deployment, EmbedUrl, Project, ProjectUpdate, PublishAudience,
    PublishRequest, PublishSettings,
};
use crate::tui::effect::ErrorInfo;
use crate::tui::request::Operation;
use crate::tui::services::Services;

#[derive(Debug, Clone, PartialEq)]
pub struct UpdateProject {
    pub project_id: String,
    pub update: ProjectUpdate,
}

impl Operation for UpdateProject {
    type Output = Project;

    async fn run(self, services: &Services) -> Result<Project, ErrorInfo> {
        let done = services
            .client
            .update_project(&self.project_id, &self.update);
        done.await.map_err(|error| services.api_failure(&error))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeleteProject {
    pub project_id: String,
}

impl Operation for DeleteProject {
    type Output = ();

    async fn run(self, services: &Services) -> Result<(), ErrorInfo> {
        services
            .client
            .delete_project(&self.project_id)
            .await
            .map_err(|error| services.api_failure(&error))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpublish {
    pub project_id: String,
}

impl Operation for Unpublish {
    type Output = ();

    async fn run(self, services: &Services) -> Result<(), ErrorInfo> {
        services
            .client
            .unpublish_project(&self.project_id)
            .await
            .map_err(|error| services.api_failure(&error))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Publish {
    pub project_id: String,
    /// `None` keeps the project's saved audience.
    pub audience: Option<PublishAudience>,
}

impl Operation for Publish {
    type Output = Deployment;

    async fn run(self, services: &Services) -> Result<Deployment, ErrorInfo> {
        let request = PublishRequest {
            audience: self.audience,
        };
        let done = services.client.publish_project(&self.project_id, &request);
        done.await.map_err(|error| services.api_failure(&error))
    }
}

/// `PATCH /publish`: the published app's audience; answers the resolved
/// settings, not the project.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdatePublishSettings {
    pub project_id: String,
    pub settings: PublishSettings,
}

impl Operation for UpdatePublishSettings {
    type Output = AudienceSettings;

    async fn run(self, services: &Services) -> Result<AudienceSettings, ErrorInfo> {
        let done = services
            .client
            .update_publish_settings(&self.project_id, &self.settings);
        done.await.map_err(|error| services.api_failure(&error))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateEmbedUrl {
    pub project_id: String,
    pub parent_origin: String,
}

impl Operation for CreateEmbedUrl {
    type Output = EmbedUrl;

    async fn run(self, services: &Services) -> Result<EmbedUrl, ErrorInfo> {
        let done = services
            .client
            .create_embed_url(&self.project_id, &self.parent_origin);
        done.await.map_err(|error| services.api_failure(&error))
    }
}
