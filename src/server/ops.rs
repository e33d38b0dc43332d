//! The operations table: what each operation needs, and the query parameters it declares.
//!
//! Checks run in one order for every route (README, "Order of checks"):
//!
//! 1. `Accept` (406);
//! 2. `Service-Version`, then `Service-Beta` (400, 410, 503);
//! 3. the credential (401);
//! 4. the rate limit (429);
//! 5. injected faults;
//! 6. routing (404, 405);
//! 7. scope (403);
//! 8. plan (402 `required_plan`);
//! 9. features (402 `required_features`);
//! 10. path, query and body validation (400, and feature gates that depend on a
//!     parameter);
//! 11. the resource (404).
//!
//! Steps 6 to 11 run under the processing deadline (503 `request_timeout`).
//! Steps 1 to 6 live in the pipeline (`router.rs`); 7 to 9 in the route layer
//! that the route table (`router.rs`) puts on every operation's handler
//! (`access::authorize`); 10 and 11 in each handler.

use super::auth::{Feature, Plan, Scope};

/// What an operation needs, and the query parameters it declares.
#[derive(Debug)]
pub struct Operation {
    /// The operation's name; list cursors are bound to it.
    pub name: &'static str,
    pub scope: Scope,
    pub plan: Plan,
    pub features: &'static [Feature],
    pub query: &'static [&'static str],
}

const fn op(
    name: &'static str,
    scope: Scope,
    plan: Plan,
    features: &'static [Feature],
    query: &'static [&'static str],
) -> Operation {
    Operation {
        name,
        scope,
        plan,
        features,
        query,
    }
}

use Feature::SecurityCenter;
use Plan::{Business, Enterprise};
use Scope::{ProjectsRead, ProjectsWrite, WorkspacesRead};

const PAGED: &[&str] = &["limit", "cursor"];

pub const GET_PROJECT: Operation = op("get_project", ProjectsRead, Business, &[], &[]);
pub const UPDATE_PROJECT: Operation = op("update_project", ProjectsWrite, Business, &[], &[]);
pub const DELETE_PROJECT: Operation = op("delete_project", ProjectsWrite, Business, &[], &[]);
pub const UNPUBLISH_PROJECT: Operation = op("unpublish_project", ProjectsWrite, Business, &[], &[]);
pub const PUBLISH_PROJECT: Operation = op("publish_project", ProjectsWrite, Business, &[], &[]);
pub const GET_DEPLOYMENT: Operation = op("get_deployment", ProjectsRead, Business, &[], &[]);
pub const UPDATE_PUBLISH_SETTINGS: Operation =
    op("update_publish_settings", ProjectsWrite, Business, &[], &[]);
/// The reference asks `projects:write` for an embed URL (DESIGN.md).
pub const CREATE_EMBED_URL: Operation = op("create_embed_url", ProjectsWrite, Business, &[], &[]);
pub const GET_REALTIME: Operation = op("get_realtime", ProjectsRead, Business, &[], &[]);
pub const GET_BREAKDOWNS: Operation = op(
    "get_breakdowns",
    ProjectsRead,
    Business,
    &[],
    &["starts_at", "ends_at"],
);
/// Beyond the contract: traffic over time (DESIGN.md); `granularity` is our name.
pub const GET_TRAFFIC: Operation = op(
    "get_traffic",
    ProjectsRead,
    Business,
    &[],
    &["starts_at", "ends_at", "granularity"],
);
/// Detection being off answers 404 `pii_labels_not_found`, checked by the handler.
pub const LIST_PII: Operation = op("list_pii", ProjectsRead, Enterprise, &[], PAGED);
/// Beyond the contract: the real service's reference shows it (DESIGN.md).
pub const LIST_SCANS: Operation = op("list_security_scans", ProjectsRead, Business, &[], PAGED);
pub const GET_SCAN: Operation = op("get_scan", ProjectsRead, Business, &[], &[]);
pub const LIST_SCAN_FINDINGS: Operation =
    op("list_scan_findings", ProjectsRead, Business, &[], PAGED);
pub const GET_MEMBER: Operation = op("get_member", WorkspacesRead, Business, &[], &[]);
pub const LIST_MEMBERS: Operation = op(
    "list_members",
    WorkspacesRead,
    Business,
    &[],
    &[
        "limit",
        "cursor",
        "query",
        "role",
        "sort_by",
        "sort_order",
        "scim_managed",
    ],
);
pub const GET_INSIGHTS: Operation = op(
    "get_insights",
    WorkspacesRead,
    Business,
    &[SecurityCenter],
    &["review_priority"],
);
pub const LIST_INVENTORY: Operation = op(
    "list_inventory",
    WorkspacesRead,
    Enterprise,
    &[SecurityCenter],
    &[
        "limit",
        "cursor",
        "query",
        "sort_by",
        "sort_order",
        "activity_group",
        "is_published",
        "visibility",
        "has_pii",
        "has_connectors",
        "publish_audience",
        "review_priority",
        "finding_type_id",
    ],
);
/// `GET /v1/projects?workspace_id=W` (DESIGN.md: the reference's listing of a
/// workspace's projects): the scope follows the workspace it lists.
pub const LIST_PROJECTS: Operation = op(
    "list_projects",
    WorkspacesRead,
    Business,
    &[],
    &["workspace_id", "limit", "cursor"],
);
/// `GET /v1/workspaces` and `GET /v1/workspaces/{id}` (DESIGN.md: beyond the
/// contract). Plan and scope are not shown; we ask what every workspace read asks.
pub const LIST_WORKSPACES: Operation = op("list_workspaces", WorkspacesRead, Business, &[], PAGED);
pub const GET_WORKSPACE: Operation = op("get_workspace", WorkspacesRead, Business, &[], &[]);
