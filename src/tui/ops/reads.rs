//! The API's reads, as the screens ask for them: one operation per call of
//! the client, with the client's own parameter types (a list's filters and
//! page size are the `list_operation!` methods' parameters), and the cursor of
//! the page wanted. The workspace is the context's, from the [`Services`].

use time::OffsetDateTime;

use crate::api::model::{
    Breakdowns, Deployment, Granularity, Insights, InventoryPage, Member, Page, Project, Realtime,
    ReviewPriority, ScanFinding, SecurityScan, Traffic, Workspace,
};
use crate::api::{InventoryParams, ListCall, PageParams};
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

/// Declares an operation that is one call of the client: its struct, and the
/// call, made with the struct's fields bound by name.
macro_rules! read {
    (
        $(#[doc = $doc:literal])*
        $name:ident { $($field:ident: $type:ty),* $(,)? } -> $output:ty,
        |$services:ident| $call:expr
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $(pub $field: $type,)*
        }

        impl Operation for $name {
            type Output = $output;

            async fn run(self, $services: &Services) -> Result<$output, ErrorInfo> {
                #[allow(unused_variables)]
                let Self { $($field),* } = self;
                $call.await.map_err(|error| $services.api_failure(&error))
            }
        }
    };
}

read! {
    /// `GET /v1/workspaces/{id}`: the workspace the dashboard shows.
    GetWorkspace {} -> Workspace,
    |services| services.client.get_workspace(&services.workspace_id)
}

read! {
    /// The security insights, the finding types filtered by review priority.
    GetInsights { review_priority: Vec<ReviewPriority> } -> Insights,
    |services| services.client.get_insights(&services.workspace_id, &review_priority)
}

read! {
    /// One page of the inventory; the filters are the api's own parameters,
    /// the page size among them.
    ListInventory { params: InventoryParams, cursor: Option<String> } -> InventoryPage,
    |services| services.client.list_inventory(&services.workspace_id, &params, cursor.as_deref())
}

read! {
    GetProject { project_id: String } -> Project,
    |services| services.client.get_project(&project_id)
}

read! {
    /// A poll of a deployment's status.
    GetDeployment { project_id: String, deployment_id: String } -> Deployment,
    |services| services.client.get_deployment(&project_id, &deployment_id)
}

read! {
    GetMember { user_id: String } -> Member,
    |services| services.client.get_member(&services.workspace_id, &user_id)
}

read! {
    GetRealtime { project_id: String } -> Realtime,
    |services| services.client.get_realtime(&project_id)
}

read! {
    GetBreakdowns {
        project_id: String,
        starts_at: OffsetDateTime,
        ends_at: OffsetDateTime,
    } -> Breakdowns,
    |services| services.client.get_breakdowns(&project_id, starts_at, ends_at)
}

read! {
    GetTraffic {
        project_id: String,
        starts_at: OffsetDateTime,
        ends_at: OffsetDateTime,
        granularity: Granularity,
    } -> Traffic,
    |services| services.client.get_traffic(&project_id, starts_at, ends_at, &granularity)
}

read! {
    /// The first page of a project's scans, newest first.
    ListSecurityScans { project_id: String } -> Page<SecurityScan>,
    |services| services.client.list_security_scans(
        &project_id,
        &PageParams { limit: Some(100) },
        None,
    )
}

read! {
    /// One page of a scan's findings.
    ListScanFindings {
        project_id: String,
        scan_id: String,
        cursor: Option<String>,
        limit: u32,
    } -> Page<ScanFinding>,
    |services| services.client.list_scan_findings(
        &project_id,
        &scan_id,
        &PageParams { limit: Some(limit) },
        cursor.as_deref(),
    )
}
