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

client_call! {
    UpdateProject { project_id: String, update: ProjectUpdate } -> Project,
    |services| services.client.update_project(&project_id, &update)
}

client_call! {
    DeleteProject { project_id: String } -> (),
    |services| services.client.delete_project(&project_id)
}

client_call! {
    Unpublish { project_id: String } -> (),
    |services| services.client.unpublish_project(&project_id)
}

client_call! {
    Publish {
        project_id: String,
        /// `None` keeps the project's saved audience.
        audience: Option<PublishAudience>,
    } -> Deployment,
    |services| services.client.publish_project(&project_id, &PublishRequest { audience })
}

client_call! {
    /// `PATCH /publish`: the published app's audience; answers the resolved
    /// settings, not the project.
    UpdatePublishSettings { project_id: String, settings: PublishSettings } -> AudienceSettings,
    |services| services.client.update_publish_settings(&project_id, &settings)
}

client_call! {
    CreateEmbedUrl { project_id: String, parent_origin: String } -> EmbedUrl,
    |services| services.client.create_embed_url(&project_id, &parent_origin)
}
