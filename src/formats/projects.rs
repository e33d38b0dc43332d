//! A project as every list of projects shows it: the inventory's items, a
//! project read, the projects of `GET /v1/projects` and the workspaces. Each
//! shape declares its columns once; `vantage inventory|projects|workspaces`
//! write their tables from them, and CSV and JSON from the same values.

use serde_json::Value;

use super::listed::{Cell, Listed};
use super::row::{Field, Row, day, or_empty, published, when};
use super::table::Column;
use crate::api::model::{ActivityGroup, InventoryItem, Project, ProjectSummary, Workspace};

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

/// An inventory item's field (named so the closures' type is known).
type ItemField = Field<InventoryItem>;

/// Families of the dashboard's inventory columns: one measure over windows.
const ACTIVITY: u8 = 1;
const EDITS: u8 = 2;
const VISITS: u8 = 3;

/// An inventory item's fields, in the order `:columns` lists them: the
/// command's table (the reason for the priority, `WHY`, gives way first, then
/// the owner; visibility and the last edit are left out before a name is cut;
/// a PII count the service did not send is blank, never 0), the dashboard's
/// inventory columns and the project screen's facts. A field added to the
/// item is shown everywhere by one line here (see ARCHITECTURE.md, "How to
/// add a field").
impl Row for InventoryItem {
    const FIELDS: &'static [Field<Self>] = &[
        ItemField::fixed("ID", |item| item.id.clone())
            // `prj_` and twelve hex digits.
            .listed(Listed::new("id", "ID", 16, 1).cell(|item| Cell::Quiet(item.id.clone()))),
        ItemField::new(Column::text("NAME", 10).yielding(2), |item| {
            or_empty(item.name.as_ref())
        })
        .listed(
            Listed::new("name", "Name", 0, 10)
                .sorts(&["name"])
                .cell(|_| Cell::ByScreen),
        ),
        ItemField::fixed("PRIORITY", |item| item.review_priority.to_string()).listed(
            Listed::new("priority", "Priority", 15, Listed::<Self>::STAYS)
                .sorts(&["review_priority", "risk_factor_count"])
                .cell(|item| Cell::Priority(item.review_priority.clone())),
        ),
        ItemField::text("WHY", 8, priority_reason),
        ItemField::number("PII", |item| or_empty(open_pii(item))).listed(
            Listed::new("pii", "PII", 4, 6)
                .sorts(&["open_pii_finding_count"])
                .cell(|_| Cell::ByScreen),
        ),
        // The project's policy violations (the waived ones in dim): the
        // dashboard's evaluation, not the service's, so only it lists them.
        ItemField::number("POLICY", |_| String::new())
            .off_table()
            .listed(Listed::new("policy", "Policy", 7, 1).cell(|_| Cell::ByScreen)),
        ItemField::fixed("PUBLISHED", |item| {
            published(item.is_published, item.publish_audience.as_ref())
        }),
        ItemField::fixed("AUDIENCE", audience).off_table().listed(
            Listed::new("audience", "Audience", 9, 8)
                .sorts(&["publish_audience", "external_access_rank"]),
        ),
        ItemField::new(Column::fixed("VISIBILITY").droppable(0), |item| {
            or_empty(item.visibility.as_ref())
        })
        .listed(Listed::new("visibility", "Visibility", 14, 2)),
        ItemField::fixed("ACTIVITY", |item| {
            match &item.activity_group {
                ActivityGroup::Last14Days => "14 d",
                ActivityGroup::Last60Days => "60 d",
                ActivityGroup::Older => "older",
                ActivityGroup::Unknown(raw) => raw.as_str(),
            }
            .to_owned()
        })
        .off_table()
        .listed(Listed::new("activity", "Activity", 8, 3).family(ACTIVITY)),
        ItemField::number("EDITS 24H", |item| item.edits_24h.to_string())
            .off_table()
            .listed(
                Listed::new("edits_24h", "Edits 24h", 8, 5)
                    .family(EDITS)
                    .sorts(&["edits_24h"])
                    .cell(|item| Cell::Count(item.edits_24h)),
            ),
        ItemField::number("EDITS 7D", |item| item.edits_7d.to_string()).listed(
            Listed::new("edits_7d", "Edits 7d", 8, 5)
                .family(EDITS)
                .sorts(&["edits_7d"])
                .cell(|item| Cell::Count(item.edits_7d)),
        ),
        ItemField::number("EDITS 30D", |item| item.edits_30d.to_string())
            .off_table()
            .listed(
                Listed::new("edits_30d", "Edits 30d", 8, 5)
                    .family(EDITS)
                    .sorts(&["edits_30d"])
                    .cell(|item| Cell::Count(item.edits_30d)),
            ),
        ItemField::number("VISIT 24H", |item| item.visitors_24h.to_string())
            .off_table()
            .listed(
                Listed::new("visitors_24h", "Visit 24h", 8, 6)
                    .family(VISITS)
                    .sorts(&["visitors_24h"])
                    .cell(|item| Cell::Count(item.visitors_24h)),
            ),
        ItemField::number("VISIT 7D", |item| item.visitors_7d.to_string()).listed(
            Listed::new("visitors_7d", "Visit 7d", 8, 6)
                .family(VISITS)
                .sorts(&["visitors_7d"])
                .cell(|item| Cell::Count(item.visitors_7d)),
        ),
        ItemField::number("VISIT 30D", |item| item.visitors_30d.to_string())
            .off_table()
            .listed(
                Listed::new("visitors_30d", "Visit 30d", 8, 6)
                    .family(VISITS)
                    .sorts(&["visitors_30d"])
                    .cell(|item| Cell::Count(item.visitors_30d)),
            ),
        ItemField::new(Column::text("OWNER", 8).yielding(1), |item| {
            or_empty(item.owner.display_name.as_ref())
        })
        .listed(Listed::new("owner", "Owner", OWNER_WIDTH, 7)),
        ItemField::new(Column::fixed("LAST EDIT").droppable(1), |item| {
            day(item.last_edited_at)
        })
        .listed(
            Listed::new("last_edited", "Edited", 8, 3)
                .family(ACTIVITY)
                .sorts(&["last_edited_at"])
                .cell(|item| Cell::Ago(item.last_edited_at, "—")),
        ),
        ItemField::number("MESSAGES", |item| item.message_count.to_string())
            .off_table()
            .fact_with("Messages", |item| Cell::Count(item.message_count)),
        ItemField::fixed("LAST SCAN", |item| when(item.last_security_scan_at))
            .off_table()
            .listed(
                Listed::new("last_scan", "Last scan", 10, 4)
                    .sorts(&["last_security_scan_at"])
                    .cell(last_scan),
            )
            .fact("Last scan"),
        ItemField::text("URL", 12, |item| or_empty(item.url.as_ref()))
            .off_table()
            .fact_with("App URL", |item| Cell::Link(item.url.clone())),
        ItemField::text("CONNECTORS", 12, |item| item.connectors.join(", "))
            .off_table()
            .fact_with("Connectors", |item| Cell::Values(item.connectors.clone())),
        ItemField::text("FUNCTIONS", 12, |item| functions(item).join(", "))
            .off_table()
            .fact_with("Functions", |item| Cell::Values(functions(item))),
    ];

    fn csv_template() -> Option<Value> {
        Some(super::inventory_item_template())
    }
}

/// The owner column's narrowest: the dashboard widens it into spare width.
pub const OWNER_WIDTH: u16 = 14;

/// When it was last scanned; `never` when it never was.
fn last_scan(item: &InventoryItem) -> Cell {
    Cell::Ago(item.last_security_scan_at, "never")
}

/// Open personal-data findings; `None` when the service did not say.
fn open_pii(item: &InventoryItem) -> Option<i64> {
    item.matched_reason
        .as_ref()
        .map(|reason| reason.values.open_pii_finding_count)
}

/// Who may open the published app; `offline` while it is not published.
fn audience(item: &InventoryItem) -> String {
    match (&item.publish_audience, item.is_published) {
        (Some(audience), true) => audience.to_string(),
        _ => "offline".to_owned(),
    }
}

/// The names of its edge functions.
fn functions(item: &InventoryItem) -> Vec<String> {
    item.edge_functions.iter().map(|f| f.name.clone()).collect()
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
