//! Operation 11: the workspace security project inventory.
//!
//! Order of the list. The contract's rules, and ours where it is silent:
//!
//! - without `sort_by`: most recently edited first (`last_edited_at`, falling back
//!   to `updated_at`); with a `query`, best match first (as `relevance`, desc);
//! - the sort value runs in `sort_order` (default `desc`); tie-breaks that refine
//!   the same quantity (risk score under `review_priority`, last update under
//!   `relevance`) run in the same direction;
//! - name comparisons are case-insensitive (see `search::fold`); the `name`
//!   tie-break of `external_access_rank` is always alphabetical, unnamed first;
//! - the last tie-break is always the project id, ascending, which makes every
//!   key unique, as keyset pagination needs;
//! - `review_priority` puts unscored projects last in both directions, and
//!   `last_security_scan_at` never-scanned projects last in both directions;
//!   `name` puts unnamed projects first ascending and last descending.
//!
//! Parameter checks: malformed values answer 400 (all of them at once); then the
//! parameters that need personal-data detection answer 402; then the cursor; then
//! the workspace (404).

mod index;
#[cfg(test)]
mod index_tests;
mod item;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::sync::Arc;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use time::{Duration, OffsetDateTime};

use super::insights::{has_finding, is_externally_published};
use super::{PathParams, blocking, find_workspace};
use crate::api::model::{
    ActivityAsOf, ActivityGroup, InventoryPage, InventorySortBy, PublishAudience, ReviewPriority,
    SortOrder, Visibility,
};
use crate::server::ServerState;
use crate::server::auth::Feature;
use crate::server::catalog::{FINDING_KINDS, FindingKind, finding_kind};
use crate::server::context::{Ctx, QueryParams, Validation};
use crate::server::errors::HttpError;
use crate::server::paging::compact::{CompactKey, directed};
use crate::server::paging::{self, PageRequest};
use crate::server::search::{TextQuery, fold};
use crate::server::store::{Data, ProjectRec, WorkspaceRec};

/// `activity_group` boundaries: at most 14 days since the last edit is
/// `last_14_days`, at most 60 days `last_60_days`, anything older `older`.
const RECENT: Duration = Duration::days(14);
const ACTIVE: Duration = Duration::days(60);
/// Relevance weights: a match in the project name counts twice one in the owner's.
const NAME_WEIGHT: u32 = 2;
const OWNER_WEIGHT: u32 = 1;

pub async fn list(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(workspace_id): PathParams<String>,
) -> Result<Response, HttpError> {
    let params = InventoryRequest::parse(&ctx.query)?;
    params.require_features(ctx.principal.has_feature(Feature::PiiDetection))?;
    let binding = ctx.cursor_binding(&format!(
        "/v1/workspaces/{workspace_id}/security-center/insights/projects"
    ));
    let request = PageRequest::new(
        params.limit,
        params.cursor.as_deref(),
        &app.cursor_secret,
        &binding,
    )?;
    ctx.own_workspace(&workspace_id)?;
    // A page read from indexes already built costs about what it shows and
    // skips (well under a millisecond at 100,000 projects): it is answered
    // on the request's own task, since the hand-off to a blocking thread and
    // back cost about as much as the page itself on 2 cores. A page that
    // would build an index (up to a second) goes to a blocking thread.
    let state = Arc::clone(&app);
    let page_of = move |data: &Data, only_warm: bool| {
        if only_warm && !index::is_warm(data, &workspace_id, &params) {
            return None;
        }
        let page = find_workspace(data, &workspace_id).and_then(|workspace| {
            let selected = index::select(
                data,
                &workspace_id,
                &params,
                ctx.now,
                &request,
                &app.cursor_secret,
                &binding,
            )?;
            inventory_page(workspace, selected, params.applied_finding(), ctx.now)
        });
        Some(page)
    };
    let page = match state.store.read_eventual(|data| page_of(data, true)) {
        Some(page) => page?,
        None => {
            blocking(move || {
                state
                    .store
                    .read_eventual(|data| page_of(data, false))
                    .unwrap_or_else(|| Err(HttpError::internal("the inventory page was not read")))
            })
            .await?
        }
    };
    Ok(([(header::CONTENT_TYPE, "application/json")], page).into_response())
}

/// The validated query of one inventory request.
#[derive(Debug)]
pub struct InventoryRequest {
    pub limit: u32,
    pub cursor: Option<String>,
    pub filters: Filters,
    pub sort: Sort,
}

/// Filters of different parameters combine; values of one parameter match any.
#[derive(Debug, Default, Clone)]
pub struct Filters {
    pub query: Option<TextQuery>,
    pub activity_groups: Vec<ActivityGroup>,
    pub is_published: Option<bool>,
    pub visibility: Vec<Visibility>,
    pub has_pii: Option<bool>,
    pub has_connectors: Option<bool>,
    pub publish_audience: Vec<PublishAudience>,
    pub review_priority: Vec<ReviewPriority>,
    pub finding_types: Vec<&'static FindingKind>,
}

/// The order of the list, with the default already applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sort {
    pub by: InventorySortBy,
    pub descending: bool,
}

impl InventoryRequest {
    /// Every malformed parameter, as one 400.
    pub fn parse(query: &QueryParams) -> Result<Self, HttpError> {
        let mut v = Validation::default();
        let limit = v.check(query.limit());
        let cursor = v.check(query.one("cursor")).flatten().map(str::to_owned);
        let raw_text = v
            .check(query.one("query"))
            .flatten()
            .filter(|raw| !raw.trim().is_empty());
        let text = raw_text.and_then(|raw| v.check(TextQuery::parse(raw, "query.query")));
        let sort_by = v.check(query.one_enum("sort_by")).flatten();
        let sort_order = v.check(query.one_enum("sort_order")).flatten();
        if sort_order.is_some() && query.all("sort_by").next().is_none() {
            v.push("query.sort_order", "sort_order requires sort_by");
        }
        if sort_by == Some(InventorySortBy::Relevance) && raw_text.is_none() {
            v.push("query.sort_by", "sort_by=relevance requires a query");
        }
        let mut filters = Filters {
            query: text,
            activity_groups: v.check(query.enums("activity_group")).unwrap_or_default(),
            is_published: v.check(query.boolean("is_published")).flatten(),
            visibility: v.check(query.enums("visibility")).unwrap_or_default(),
            has_pii: v.check(query.boolean("has_pii")).flatten(),
            has_connectors: v.check(query.boolean("has_connectors")).flatten(),
            publish_audience: v.check(query.enums("publish_audience")).unwrap_or_default(),
            review_priority: v.check(query.enums("review_priority")).unwrap_or_default(),
            finding_types: Vec::new(),
        };
        if !filters.publish_audience.is_empty() && filters.is_published == Some(false) {
            v.push(
                "query.publish_audience",
                "publish_audience requires is_published to be true or omitted",
            );
        }
        for id in query.all("finding_type_id") {
            match finding_kind(id) {
                Some(kind) => {
                    if !filters.finding_types.iter().any(|k| k.id == kind.id) {
                        filters.finding_types.push(kind);
                    }
                }
                None => v.push(
                    "query.finding_type_id",
                    format!(
                        "unknown finding type id {id:?}; known ids: {}",
                        FINDING_KINDS
                            .iter()
                            .map(|k| k.id)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ),
            }
        }
        v.finish()?;
        // The default order: best match first with a query, else most recently edited.
        let default_by = if filters.query.is_some() {
            InventorySortBy::Relevance
        } else {
            InventorySortBy::LastEditedAt
        };
        let sort = Sort {
            by: sort_by.unwrap_or(default_by),
            descending: sort_order != Some(SortOrder::Asc),
        };
        Ok(Self {
            limit: limit.unwrap_or(paging::DEFAULT_LIMIT),
            cursor,
            filters,
            sort,
        })
    }

    /// 402 for the parameters that need personal-data detection.
    pub fn require_features(&self, pii_detection: bool) -> Result<(), HttpError> {
        let needs_pii = self.filters.has_pii.is_some()
            || self.sort.by == InventorySortBy::OpenPiiFindingCount
            || self
                .filters
                .finding_types
                .iter()
                .any(|kind| kind.needs_pii_detection);
        if needs_pii && !pii_detection {
            return Err(HttpError::features_required(&[
                Feature::PiiDetection.as_str()
            ]));
        }
        Ok(())
    }

    /// The finding type the list is narrowed to, when exactly one is given.
    pub fn applied_finding(&self) -> Option<&'static FindingKind> {
        match self.filters.finding_types.as_slice() {
            [only] => Some(only),
            _ => None,
        }
    }
}

/// When a project last changed for the activity rules: its last edit, or its last
/// update when never edited.
pub fn last_activity(project: &ProjectRec) -> OffsetDateTime {
    project.wire.last_edited_at.unwrap_or(project.updated_at)
}

pub fn activity_group(project: &ProjectRec, now: OffsetDateTime) -> ActivityGroup {
    activity_group_at(last_activity(project), now)
}

/// The group of a project last active at `last`.
fn activity_group_at(last: OffsetDateTime, now: OffsetDateTime) -> ActivityGroup {
    let age = now - last;
    if age <= RECENT {
        ActivityGroup::Last14Days
    } else if age <= ACTIVE {
        ActivityGroup::Last60Days
    } else {
        ActivityGroup::Older
    }
}

/// `publish_audience` sort rank: not published < workspace < custom < public.
/// An audience this build does not know ranks with `custom`.
pub fn audience_rank(project: &ProjectRec) -> i64 {
    if !project.wire.is_published {
        return 0;
    }
    match project.wire.publish_audience {
        None => 0,
        Some(PublishAudience::Workspace) => 1,
        Some(PublishAudience::Custom | PublishAudience::Unknown(_)) => 2,
        Some(PublishAudience::Public) => 3,
    }
}

/// `external_access_rank`: external collaborators (3) > shared users (2) >
/// publicly published (1) > none (0). Missing counts are 0.
pub fn external_access_rank(project: &ProjectRec) -> i64 {
    if project.security.external_collaborators > 0 {
        3
    } else if project.security.values.shared_user_count > 0 {
        2
    } else if is_externally_published(project) {
        1
    } else {
        0
    }
}

/// `review_priority` sort rank: needs_review (3) > review_recommended (2) >
/// no_review_needed (1); `None` for unscored (and unknown) projects.
fn priority_rank(priority: &ReviewPriority) -> Option<i64> {
    match priority {
        ReviewPriority::NeedsReview => Some(3),
        ReviewPriority::ReviewRecommended => Some(2),
        ReviewPriority::NoReviewNeeded => Some(1),
        ReviewPriority::Unscored | ReviewPriority::Unknown(_) => None,
    }
}

/// A timestamp as one sortable integer (nanoseconds since the epoch).
fn instant(at: OffsetDateTime) -> i64 {
    i64::try_from(at.unix_timestamp_nanos()).unwrap_or(i64::MAX)
}

/// The name as it sorts: case-folded, borrowed when already folded.
fn sort_name(name: &str) -> Cow<'_, str> {
    if name
        .bytes()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
    {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(fold(name))
    }
}

impl Sort {
    /// The sort key of a project; ends with the unique project id.
    fn key<'a>(&self, project: &'a ProjectRec, score: u32, open_pii: i64) -> CompactKey<'a> {
        let dir = |value: i64| directed(value, self.descending);
        let asc = |value: i64| directed(value, false);
        let activity = &project.activity;
        let named = i64::from(project.wire.name.is_some());
        let name = || sort_name(project.wire.name.as_deref().unwrap_or_default());
        let ints = match &self.by {
            InventorySortBy::Relevance => {
                [dir(i64::from(score)), dir(instant(project.updated_at)), 0]
            }
            InventorySortBy::ReviewPriority => {
                let rank = priority_rank(&project.security.review_priority);
                [
                    asc(i64::from(rank.is_none())),
                    dir(rank.unwrap_or(0)),
                    dir(project.security.risk_score),
                ]
            }
            InventorySortBy::Name => {
                return CompactKey::new([dir(named), 0, 0], &project.wire.id)
                    .with_text(name(), self.descending);
            }
            InventorySortBy::ExternalAccessRank => {
                return CompactKey::new(
                    [dir(external_access_rank(project)), asc(named), 0],
                    &project.wire.id,
                )
                .with_text(name(), false);
            }
            InventorySortBy::PublishAudience => [dir(audience_rank(project)), 0, 0],
            InventorySortBy::LastEditedAt | InventorySortBy::Unknown(_) => {
                [dir(instant(last_activity(project))), 0, 0]
            }
            InventorySortBy::RiskFactorCount => {
                [dir(project.security.explanation.len() as i64), 0, 0]
            }
            InventorySortBy::OpenPiiFindingCount => [dir(open_pii), 0, 0],
            InventorySortBy::Edits24h => [dir(activity.edits_24h), 0, 0],
            InventorySortBy::Edits7d => [dir(activity.edits_7d), 0, 0],
            InventorySortBy::Edits30d => [dir(activity.edits_30d), 0, 0],
            InventorySortBy::Visitors24h => [dir(activity.visitors_24h), 0, 0],
            InventorySortBy::Visitors7d => [dir(activity.visitors_7d), 0, 0],
            InventorySortBy::Visitors30d => [dir(activity.visitors_30d), 0, 0],
            InventorySortBy::LastSecurityScanAt => {
                let scanned = project.security.last_security_scan_at;
                [
                    asc(i64::from(scanned.is_none())),
                    dir(scanned.map_or(0, instant)),
                    0,
                ]
            }
        };
        CompactKey::new(ints, &project.wire.id)
    }
}

impl Filters {
    /// Every filter but the text query.
    #[cfg(test)]
    fn admits(&self, project: &ProjectRec, open_pii: i64, now: OffsetDateTime) -> bool {
        self.admits_at_rest(project, open_pii) && self.admits_activity(last_activity(project), now)
    }

    /// Whether the activity filter admits a project last active at `last`.
    fn admits_activity(&self, last: OffsetDateTime, now: OffsetDateTime) -> bool {
        self.activity_groups.is_empty()
            || self.activity_groups.contains(&activity_group_at(last, now))
    }

    /// Every filter but the text query and the activity groups (which move
    /// with the clock): what an index of the workspace can hold.
    fn admits_at_rest(&self, project: &ProjectRec, open_pii: i64) -> bool {
        self.is_published
            .is_none_or(|want| project.wire.is_published == want)
            && any_of(&self.visibility, project.wire.visibility.as_ref())
            && self.has_pii.is_none_or(|want| (open_pii > 0) == want)
            && self
                .has_connectors
                .is_none_or(|want| project.security.connectors.is_empty() != want)
            && any_of(&self.publish_audience, project.shown_audience())
            && any_of(
                &self.review_priority,
                Some(&project.security.review_priority),
            )
            && (self.finding_types.is_empty()
                || self
                    .finding_types
                    .iter()
                    .any(|kind| has_finding(project, kind)))
    }
}

/// A repeatable filter: empty matches everything, else any given value.
fn any_of<T: PartialEq>(wanted: &[T], value: Option<&T>) -> bool {
    wanted.is_empty() || value.is_some_and(|value| wanted.contains(value))
}

/// The page as JSON, spliced from the kept JSON of its items: the bytes of
/// serializing an [`InventoryPage`].
fn inventory_page(
    workspace: &WorkspaceRec,
    selected: index::Selected,
    applied: Option<&FindingKind>,
    now: OffsetDateTime,
) -> Result<Vec<u8>, HttpError> {
    let envelope = InventoryPage {
        data: Vec::new(),
        pagination: selected.pagination.clone(),
        total: selected.total,
        as_of: workspace.as_of,
        activity_as_of: Some(ActivityAsOf {
            edits_as_of: workspace.edits_as_of,
            visitors_as_of: workspace.visitors_as_of,
        }),
        applied_finding: applied.map(|kind| kind.with_count(selected.total)),
    };
    let unserializable = |_| HttpError::internal("the inventory page did not serialize");
    let envelope = serde_json::to_vec(&envelope).map_err(unserializable)?;
    let rest = envelope
        .strip_prefix(PAGE_START)
        .ok_or_else(|| HttpError::internal("the inventory page did not serialize"))?;
    // One allocation of the page's size: a page is over 100 KiB.
    let mut out = Vec::with_capacity(PAGE_START.len() + rest.len() + selected.items_len());
    out.extend_from_slice(PAGE_START);
    for (n, slot) in selected.slots.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        selected.write_item(&mut out, *slot, now, applied)?;
    }
    out.extend_from_slice(rest);
    Ok(out)
}

/// How a serialized [`InventoryPage`] starts; its items go right after.
const PAGE_START: &[u8] = b"{\"data\":[";
