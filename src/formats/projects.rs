//! A project as every list of projects shows it: the inventory's items, a
//! project read, the projects of `GET /v1/projects` and the workspaces. Each
//! shape declares its columns once; `vantage inventory|projects|workspaces`
//! write their tables from them, and CSV and JSON from the same values.

use serde_json::Value;

use super::row::{Field, Row, day, or_empty, published, when};
use super::table::Column;
use crate::api::model::{InventoryItem, Project, ProjectSummary, Workspace};

/// The columns every shape of a project shows (a project read, a project
/// list item: their fields share names), then the one column given.
macro_rules! project_fields {
    ($last:expr) => {
        [
            Field::fixed("ID", |project| project.id.clone()),
            Field::text("NAME", 12, |project| or_empty(project.name.as_ref())),
            Field::fixed("PUBLISHED", |project| {
                published(project.is_published, project.publish_audience.as_ref())
            }),
            Field::fixed("VISIBILITY", |project| {
                or_empty(project.visibility.as_ref())
            }),
            Field::fixed("LAST EDITED", |project| when(project.last_edited_at)),
            $last,
        ]
    };
}

/// The inventory's table: the reason for the priority (`WHY`) gives way
/// first, then the owner; visibility and the last edit are left out before
/// a name is cut. A PII count the service did not send is blank, never 0.
impl Row for InventoryItem {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("ID", |item| item.id.clone()),
        Field {
            column: Column::text("NAME", 10).yielding(2),
            cell: |item| or_empty(item.name.as_ref()),
        },
        Field::fixed("PRIORITY", |item| item.review_priority.to_string()),
        Field::text("WHY", 8, priority_reason),
        Field::number("PII", |item| {
            or_empty(
                item.matched_reason
                    .as_ref()
                    .map(|reason| reason.values.open_pii_finding_count),
            )
        }),
        Field::fixed("PUBLISHED", |item| {
            published(item.is_published, item.publish_audience.as_ref())
        }),
        Field {
            column: Column::fixed("VISIBILITY").droppable(0),
            cell: |item| or_empty(item.visibility.as_ref()),
        },
        Field::number("EDITS 7D", |item| item.edits_7d.to_string()),
        Field::number("VISIT 7D", |item| item.visitors_7d.to_string()),
        Field {
            column: Column::text("OWNER", 8).yielding(1),
            cell: |item| or_empty(item.owner.display_name.as_ref()),
        },
        Field {
            column: Column::fixed("LAST EDIT").droppable(1),
            cell: |item| day(item.last_edited_at),
        },
    ];

    fn csv_template() -> Option<Value> {
        Some(super::inventory_item_template())
    }
}

/// Why the project has its priority: the reason the service matched, else
/// the first of its explanation.
fn priority_reason(item: &InventoryItem) -> String {
    item.matched_reason
        .as_ref()
        .map(|reason| reason.label.clone())
        .or_else(|| {
            item.review_priority_explanation
                .first()
                .map(|reason| reason.label.clone())
        })
        .unwrap_or_default()
}

impl Row for Project {
    const FIELDS: &'static [Field<Self>] =
        &project_fields![Field::text("PREVIEW URL", 12, |project| {
            or_empty(project.preview_url.as_ref())
        })];
}

impl Row for ProjectSummary {
    const FIELDS: &'static [Field<Self>] =
        &project_fields![Field::fixed("WORKSPACE", |project| project
            .workspace_id
            .clone())];
}

impl Row for Workspace {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("ID", |workspace| workspace.id.clone()),
        Field::text("NAME", 12, |workspace| or_empty(workspace.name.as_ref())),
        Field::fixed("PLAN", |workspace| or_empty(workspace.plan.as_ref())),
        Field::number("PROJECTS", |workspace| or_empty(workspace.num_projects)),
        Field::fixed("CREATED", |workspace| day(workspace.created_at)),
    ];
}
