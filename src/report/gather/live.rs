//! The report's live reads: the workspace, its insights, the inventory in
//! scope (every page, through the client's bounded walk and rate-limit
//! pacing), members with roles, and, within a budget, the latest scan and the
//! personal-data findings of the projects that need attention.

use futures::TryStreamExt;
use serde::Serialize;
use time::OffsetDateTime;

use super::{
    Details, Header, Inventory, Origin, Part, ProjectPii, ProjectScan, ReportMember, Source,
    attention_reasons,
};
use crate::api::model::{ErrorType, Insights, InventoryItem, Workspace};
use crate::api::{ApiError, Client, InventoryParams, MemberListParams, PageParams};

/// Items a page of the report's walks asks for (the contract's most).
const PAGE_SIZE: u32 = 100;

/// What the live reads take.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveOptions {
    pub base_url: String,
    /// The inventory's filters (the dashboard's current ones); the page size is set here.
    pub params: InventoryParams,
    /// The filters as words, for the header; `None`: the whole workspace.
    pub scope: Option<String>,
    /// Projects whose latest scan, and whose personal-data findings, are read
    /// in detail (each costs two or more requests).
    pub detail_projects: usize,
    /// Members read one by one for name and e-mail.
    pub member_reads: usize,
    pub generated_by: Option<String>,
}

/// The live parts of a report.
#[derive(Debug, Clone, Serialize)]
pub struct Live {
    pub header: Header,
    /// Risk distribution (`summary.risk`) and finding types with descriptions.
    pub insights: Part<Insights>,
    pub inventory: Part<Inventory>,
    /// Latest scan and findings per project needing attention.
    pub scans: Part<Details<ProjectScan>>,
    /// Personal-data findings of projects needing attention; missing where
    /// detection is not enabled on the workspace.
    pub pii: Part<Details<ProjectPii>>,
    pub members: Part<Vec<ReportMember>>,
}

/// An answer the service gave as an error (a gate, a missing feature)
/// becomes the part's reason; anything else (the network, a hostile walk)
/// ends the report: it would hold nothing true.
fn missing_or_fail<T>(what: &str, error: ApiError) -> Result<Part<T>, ApiError> {
    if error.response().is_some() {
        Ok(Part::missing(format!(
            "{what}: the service answered {error}"
        )))
    } else {
        Err(error)
    }
}

fn live(base_url: &str, as_of: Option<OffsetDateTime>, now: impl Fn() -> OffsetDateTime) -> Source {
    Source {
        origin: Origin::Live {
            base_url: base_url.to_owned(),
        },
        as_of,
        read_at: now(),
    }
}

/// Reads what the report shows live. `now` is the clock (injected in tests).
pub async fn gather_live(
    client: &Client,
    workspace_id: &str,
    options: &LiveOptions,
    now: impl Fn() -> OffsetDateTime + Copy,
) -> Result<Live, ApiError> {
    let base = options.base_url.as_str();
    let workspace: Part<Workspace> = match client.get_workspace(workspace_id).await {
        Ok(workspace) => Part::Present {
            source: live(base, None, now),
            value: workspace,
        },
        Err(error) => missing_or_fail("the workspace's name and plan", error)?,
    };
    let insights = match client.get_insights(workspace_id, &[]).await {
        Ok(insights) => Part::Present {
            source: live(base, insights.as_of, now),
            value: insights,
        },
        Err(error) => missing_or_fail("the security insights", error)?,
    };
    let inventory = match read_inventory(client, workspace_id, &options.params).await {
        Ok((inventory, as_of)) => Part::Present {
            source: live(base, as_of, now),
            value: inventory,
        },
        Err(error) => missing_or_fail("the project inventory", error)?,
    };
    let attention: Vec<&InventoryItem> = inventory.value().map_or_else(Vec::new, |inventory| {
        inventory
            .items
            .iter()
            .filter(|item| !attention_reasons(item, None).is_empty())
            .collect()
    });
    let scans = read_scans(client, &attention, options.detail_projects)
        .await
        .map_or_else(
            |error| missing_or_fail("the latest security scans", error),
            |details| {
                Ok(Part::Present {
                    source: live(base, None, now),
                    value: details,
                })
            },
        )?;
    let with_pii: Vec<&InventoryItem> = attention
        .iter()
        .copied()
        .filter(|item| {
            item.matched_reason
                .as_ref()
                .is_some_and(|reason| reason.values.open_pii_finding_count > 0)
        })
        .collect();
    let pii = match read_pii(client, &with_pii, options.detail_projects).await {
        Ok(details) => Part::Present {
            source: live(base, None, now),
            value: details,
        },
        Err(error)
            if matches!(
                error.kind(),
                Some(ErrorType::PiiLabelsNotFound | ErrorType::PaymentRequired)
            ) =>
        {
            Part::missing(format!(
                "personal-data detection is not enabled for this workspace (the service answered {error})"
            ))
        }
        Err(error) => missing_or_fail("the personal-data findings", error)?,
    };
    let members = match read_members(client, workspace_id, options.member_reads).await {
        Ok(members) => Part::Present {
            source: live(base, None, now),
            value: members,
        },
        Err(error) => missing_or_fail("the members", error)?,
    };
    let header = Header {
        workspace_id: workspace_id.to_owned(),
        workspace,
        generated_at: now(),
        generated_by: options.generated_by.clone(),
        vantage_version: crate::build_info::version_line(),
        api_version: client.api_version().to_owned(),
        base_url: options.base_url.clone(),
        scope: options.scope.clone(),
    };
    Ok(Live {
        header,
        insights,
        inventory,
        scans,
        pii,
        members,
    })
}

/// Every project in scope, page by page through the client's bounded walk,
/// with the first page's `as_of`.
async fn read_inventory(
    client: &Client,
    workspace_id: &str,
    params: &InventoryParams,
) -> Result<(Inventory, Option<OffsetDateTime>), ApiError> {
    let params = InventoryParams {
        limit: Some(PAGE_SIZE),
        ..params.clone()
    };
    let mut walk = client.inventory_walk(workspace_id, &params);
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    let mut first: Option<(i64, Option<OffsetDateTime>)> = None;
    loop {
        let page = client
            .list_inventory(workspace_id, &params, cursor.as_deref())
            .await?;
        if first.is_none() {
            walk.expect(u64::try_from(page.total).unwrap_or(0));
            first = Some((page.total, page.as_of));
        }
        let next = walk.follow(page.data.len(), &page.pagination)?;
        items.extend(page.data);
        match next {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let (total, as_of) = first.unwrap_or((0, None));
    Ok((Inventory { items, total }, as_of))
}

/// The newest scan of each of the first `budget` projects, and its findings.
/// A service without the scans list (404 `not_found`) fails the part.
async fn read_scans(
    client: &Client,
    projects: &[&InventoryItem],
    budget: usize,
) -> Result<Details<ProjectScan>, ApiError> {
    let mut read = Vec::new();
    for item in projects.iter().take(budget) {
        let first = PageParams { limit: Some(1) };
        let page = client.list_security_scans(&item.id, &first, None).await?;
        let scan = page.data.into_iter().next();
        let findings = match &scan {
            Some(scan) => {
                client
                    .scan_findings_stream(
                        &item.id,
                        &scan.id,
                        PageParams {
                            limit: Some(PAGE_SIZE),
                        },
                    )
                    .try_collect()
                    .await?
            }
            None => Vec::new(),
        };
        read.push(ProjectScan {
            project_id: item.id.clone(),
            scan,
            findings,
        });
    }
    Ok(Details {
        read,
        left_out: projects.len().saturating_sub(budget),
    })
}

/// The personal-data findings of the first `budget` projects.
async fn read_pii(
    client: &Client,
    projects: &[&InventoryItem],
    budget: usize,
) -> Result<Details<ProjectPii>, ApiError> {
    let mut read = Vec::new();
    for item in projects.iter().take(budget) {
        let findings = client
            .pii_stream(
                &item.id,
                PageParams {
                    limit: Some(PAGE_SIZE),
                },
            )
            .try_collect()
            .await?;
        read.push(ProjectPii {
            project_id: item.id.clone(),
            findings,
        });
    }
    Ok(Details {
        read,
        left_out: projects.len().saturating_sub(budget),
    })
}

/// Every member with its role (role-filtered lists), the first `reads` of
/// them read for name and e-mail.
async fn read_members(
    client: &Client,
    workspace_id: &str,
    reads: usize,
) -> Result<Vec<ReportMember>, ApiError> {
    let params = MemberListParams {
        limit: Some(PAGE_SIZE),
        ..MemberListParams::default()
    };
    let listed: Vec<_> = client
        .members_stream(workspace_id, params.clone())
        .try_collect()
        .await?;
    let mut roles = client.member_roles(workspace_id, &params, &listed).await?;
    let mut members = Vec::with_capacity(listed.len());
    for (index, member) in listed.into_iter().enumerate() {
        let detail = if index < reads {
            match client.get_member(workspace_id, &member.user_id).await {
                Ok(detail) => Some(detail),
                Err(error) if error.kind() == Some(&ErrorType::MemberNotFound) => None,
                Err(error) => return Err(error),
            }
        } else {
            None
        };
        members.push(ReportMember {
            role: roles.remove(&member.user_id),
            user_id: member.user_id,
            detail,
        });
    }
    Ok(members)
}
