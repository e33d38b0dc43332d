//! The API's reads, as the screens ask for them. A list's page is the value
//! `list_operation!` declares beside the client's method (`ListInventory`,
//! `ListMembers`, …: its ids, parameters and cursor), an operation as it is;
//! the other reads are one call of the client each, declared here with the
//! client's own parameter types, the workspace the context's (the [`Services`]).

use time::OffsetDateTime;

use crate::api::model::{
    Breakdowns, Deployment, Granularity, Insights, Member, Project, Realtime, ReviewPriority,
    Traffic, Workspace,
};
use crate::api::{ListCall, Reserve};
use crate::tui::effect::ErrorInfo;
use crate::tui::request::Operation;
use crate::tui::services::Services;

/// A list operation of the client (`list_operation!`) is an operation as it
/// is: its value names the path's ids, the parameters and the cursor.
impl<L: ListCall> Operation for L {
    type Output = L::Page;

    async fn run(self, services: &Services) -> Result<L::Page, ErrorInfo> {
        self.call(&services.client)
            .await
            .map_err(|error| services.api_failure(&error))
    }
}

client_call! {
    /// `GET /v1/workspaces/{id}`: the workspace the dashboard shows.
    GetWorkspace {} -> Workspace,
    |services| services.client.get_workspace(&services.workspace_id)
}

client_call! {
    /// The security insights, the finding types filtered by review priority.
    GetInsights { review_priority: Vec<ReviewPriority> } -> Insights,
    |services| services.client.get_insights(&services.workspace_id, &review_priority)
}

client_call! {
    GetProject { project_id: String } -> Project,
    |services| services.client.get_project(&project_id)
}

client_call! {
    /// A poll of a deployment's status.
    GetDeployment { project_id: String, deployment_id: String } -> Deployment,
    |services| services.client.get_deployment(&project_id, &deployment_id)
}

/// A member's details. A fill (a row on screen the user is not looking at)
/// is background work, as the snapshot's walk is: it waits for the window
/// rather than spend the reserve kept for the user's own requests.
#[derive(Debug, Clone, PartialEq)]
pub struct GetMember {
    pub user_id: String,
    pub fill: bool,
}

impl Operation for GetMember {
    type Output = Member;

    async fn run(self, services: &Services) -> Result<Member, ErrorInfo> {
        let client = if self.fill {
            services.client.in_background(Reserve::DASHBOARD)
        } else {
            services.client.clone()
        };
        client
            .get_member(&services.workspace_id, &self.user_id)
            .await
            .map_err(|error| services.api_failure(&error))
    }
}

client_call! {
    GetRealtime { project_id: String } -> Realtime,
    |services| services.client.get_realtime(&project_id)
}

client_call! {
    GetBreakdowns {
        project_id: String,
        starts_at: OffsetDateTime,
        ends_at: OffsetDateTime,
    } -> Breakdowns,
    |services| services.client.get_breakdowns(&project_id, starts_at, ends_at)
}

client_call! {
    GetTraffic {
        project_id: String,
        starts_at: OffsetDateTime,
        ends_at: OffsetDateTime,
        granularity: Granularity,
    } -> Traffic,
    |services| services.client.get_traffic(&project_id, starts_at, ends_at, &granularity)
}
