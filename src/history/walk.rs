//! The snapshot walk: insights, the whole inventory, the member list (one walk
//! per role, since list items carry no role), and member and project reads
//! where the request budget allows. The walk only reads; nothing is recorded
//! until it has finished (see [`super::Store::record`]).

use std::collections::HashMap;
use std::time::Duration;

use time::OffsetDateTime;

use super::model::{Capture, MemberState, ProjectState, Snapshot, target_keys};
use crate::api::model::{ErrorType, MemberRef, Role};
use crate::api::page::Pages;
use crate::api::{
    ApiError, Client, InventoryParams, ListInventory, ListMembers, MemberListParams, Reserve,
};

/// Items per request: the contract's maximum.
pub const PAGE_SIZE: u32 = 100;

/// What the walk will cost, said before it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkPlan {
    pub projects: i64,
    pub members: i64,
    /// List requests, the insights read included.
    pub list_requests: u64,
    /// At most this many member and project reads on top.
    pub detail_requests: u64,
    /// `None` when the service reported no rate limit.
    pub estimate: Option<Duration>,
    pub rate_limit: Option<(u32, u32)>,
}

impl WalkPlan {
    /// E.g. "about 260 requests (20000 projects, 5000 members) plus up to 100
    /// member reads; about 3 min at 120 requests per 60 s".
    pub fn describe(&self, window: Duration) -> String {
        let mut text = format!(
            "about {} requests ({} projects, {} members)",
            self.list_requests, self.projects, self.members
        );
        if self.detail_requests > 0 {
            text.push_str(&format!(
                " plus up to {} member and project reads within the budget",
                self.detail_requests
            ));
        }
        match (self.estimate, self.rate_limit) {
            (Some(estimate), Some((limit, remaining))) => text.push_str(&format!(
                "; {} at {limit} requests per {} s ({remaining} left now)",
                describe_duration(estimate),
                window.as_secs()
            )),
            _ => text.push_str("; no rate limit reported"),
        }
        text
    }
}

/// "under a minute", "about 3 min".
pub fn describe_duration(duration: Duration) -> String {
    let secs = duration.as_secs();
    if secs < 60 {
        "under a minute".to_owned()
    } else {
        format!("about {} min", secs.div_ceil(60))
    }
}

/// What the walk reports as it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalkEvent {
    Planned(WalkPlan),
    /// A new phase: "inventory", "members (owner)", "member reads", …
    Phase(String),
    /// Items fetched in the current phase.
    Items(u64),
}

/// What the walk could not read within the budget, for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalkReport {
    pub detail_reads: u64,
    /// Members whose name stays unknown.
    pub names_unknown: u64,
    /// Custom-audience projects whose targets stay unknown.
    pub targets_unknown: u64,
    /// Detail reads that failed (the field stays unknown).
    pub detail_failures: u64,
}

/// How the walk spends the budget.
#[derive(Debug, Clone, Copy)]
pub struct WalkOptions {
    /// At most this many member and project reads.
    pub detail_requests: u32,
    /// The rate limit's window, for the estimate.
    pub window: Duration,
    /// The requests kept for the user's own actions out of a limit: a
    /// background walk's requests go as background work
    /// ([`Client::in_background`]), which waits for the window rather than go
    /// below them. `None`: a snapshot the user asked for.
    pub reserve: Option<Reserve>,
}

/// Requests that fit in `requests` beyond `remaining`, at `limit` per `window`.
pub fn estimate(requests: u64, limit: u32, remaining: u32, window: Duration) -> Duration {
    let beyond = requests.saturating_sub(u64::from(remaining));
    if beyond == 0 || limit == 0 {
        return Duration::ZERO;
    }
    window * u32::try_from(beyond.div_ceil(u64::from(limit))).unwrap_or(u32::MAX)
}

/// Walks the workspace. `previous` (the newest snapshot) lends names of
/// members already known, so only new members cost a read.
pub async fn capture(
    client: &Client,
    workspace_id: &str,
    previous: Option<&Snapshot>,
    options: WalkOptions,
    now: impl Fn() -> OffsetDateTime,
    mut report_event: impl FnMut(WalkEvent),
) -> Result<(Capture, WalkReport), ApiError> {
    // Dated when the walk begins (see `Capture::taken_at`).
    let started = now();
    let background;
    let client = match options.reserve {
        Some(reserve) => {
            background = client.in_background(reserve);
            &background
        }
        None => client,
    };
    let insights = client.get_insights(workspace_id, &[]).await?;
    let projects_total = insights.summary.total_projects.value.max(0);
    let members_total = insights.summary.workspace_members.value.max(0);
    let pages = |items: i64| (items as u64).div_ceil(u64::from(PAGE_SIZE)).max(1);
    let list_requests = 1 + pages(projects_total) + pages(members_total) + Role::KNOWN.len() as u64;
    let rate = client.rate_limit_state();
    let plan = WalkPlan {
        projects: projects_total,
        members: members_total,
        list_requests,
        detail_requests: u64::from(options.detail_requests),
        estimate: rate
            .map(|rate| estimate(list_requests, rate.limit, rate.remaining, options.window)),
        rate_limit: rate.map(|rate| (rate.limit, rate.remaining)),
    };
    report_event(WalkEvent::Planned(plan));

    report_event(WalkEvent::Phase("inventory".into()));
    let params = InventoryParams {
        limit: Some(PAGE_SIZE),
        ..InventoryParams::default()
    };
    let mut projects = Vec::with_capacity(room_for(projects_total));
    let mut first_page = None;
    // A service whose paging never ends must not keep the snapshot walking.
    let first = ListInventory {
        workspace_id: workspace_id.to_owned(),
        params,
        cursor: None,
    };
    let mut pages = Pages::new(client, first);
    pages.expect(projects_total as u64);
    while !pages.is_done() {
        let Some(page) = pages.next(client).await else {
            break;
        };
        let page = page?;
        projects.extend(page.data.iter().map(ProjectState::from_item));
        report_event(WalkEvent::Items(page.data.len() as u64));
        if first_page.is_none() {
            // Descriptions are free text the agent wrote, which may quote
            // personal data: the history keeps none.
            let mut items = page.data;
            for item in &mut items {
                item.description = None;
            }
            first_page = Some(items);
        }
    }

    let mut members = walk_members(client, workspace_id, members_total, &mut report_event).await?;

    let mut report = WalkReport::default();
    report_event(WalkEvent::Phase("project and member reads".into()));
    let known: HashMap<&str, &MemberState> = previous
        .map(|snapshot| {
            snapshot
                .members
                .iter()
                .map(|m| (m.user_id.as_str(), m))
                .collect()
        })
        .unwrap_or_default();
    for member in &mut members {
        if let Some(earlier) = known.get(member.user_id.as_str()) {
            member.name.clone_from(&earlier.name);
            member.name_read = earlier.name_known();
        }
    }
    let unnamed = members.iter().filter(|m| !m.name_known()).count() as u32;
    let custom = projects.iter().filter(|p| p.needs_targets()).count() as u32;
    // A quarter of the reads for audience targets (who can open a published
    // app), the rest for names, which carry over to later snapshots while
    // targets are read again each time; what one side does not need, the
    // other may use.
    let mut reads_left = options.detail_requests;
    let mut target_reads = custom.min((reads_left / 4).max(reads_left.saturating_sub(unnamed)));
    reads_left -= target_reads;
    for project in projects.iter_mut().filter(|p| p.needs_targets()) {
        if !may_read(&mut target_reads) {
            report.targets_unknown += 1;
            continue;
        }
        report.detail_reads += 1;
        match client.get_project(&project.id).await {
            Ok(read) => {
                project.audience_targets = Some(target_keys(&read.publish_audience_targets))
            }
            Err(_) => report.detail_failures += 1,
        }
        report_event(WalkEvent::Items(1));
    }
    reads_left += target_reads;
    // The oldest unknown first: those an earlier snapshot already listed
    // unnamed, then those who just joined; successive snapshots name them all.
    let mut unnamed: Vec<&mut MemberState> =
        members.iter_mut().filter(|m| !m.name_known()).collect();
    unnamed.sort_by_key(|m| !known.contains_key(m.user_id.as_str()));
    for member in unnamed {
        if !may_read(&mut reads_left) {
            report.names_unknown += 1;
            continue;
        }
        report.detail_reads += 1;
        match client.get_member(workspace_id, &member.user_id).await {
            Ok(read) => {
                member.name = read.name;
                member.name_read = true;
            }
            Err(error) => {
                // A member who left between the list and the read keeps no name.
                if error.kind() != Some(&ErrorType::MemberNotFound) {
                    report.detail_failures += 1;
                }
            }
        }
        report_event(WalkEvent::Items(1));
    }
    Ok((
        Capture {
            workspace_id: workspace_id.to_owned(),
            taken_at: started,
            insights,
            projects,
            first_page: first_page.unwrap_or_default(),
            members,
        },
        report,
    ))
}

/// Whether a detail read fits: the configured count is not spent. The read
/// then waits its turn as every request of the walk does (the reserve of a
/// background walk, the client's pacing), so the names a budget allows are
/// read, not skipped because the list walk spent the window.
fn may_read(reads_left: &mut u32) -> bool {
    if *reads_left == 0 {
        return false;
    }
    *reads_left -= 1;
    true
}

/// Every member with a role: one filtered walk per role the contract lists
/// (list items carry no role). When those find fewer members than insights
/// counts, one unfiltered walk finds the rest, whose role stays unknown.
async fn walk_members(
    client: &Client,
    workspace_id: &str,
    expected: i64,
    report_event: &mut impl FnMut(WalkEvent),
) -> Result<Vec<MemberState>, ApiError> {
    let mut members: Vec<MemberState> = Vec::with_capacity(room_for(expected));
    let mut seen: HashMap<String, usize> = HashMap::new();
    for role in Role::KNOWN {
        report_event(WalkEvent::Phase(format!("members ({role})")));
        let listed = list_members(
            client,
            workspace_id,
            vec![role.clone()],
            expected,
            report_event,
        )
        .await?;
        for member in listed {
            // Listed twice (the role changed during the walk): the later walk wins.
            match seen.get(&member.user_id) {
                Some(&index) => members[index].role = Some(role.as_str().to_owned()),
                None => {
                    seen.insert(member.user_id.clone(), members.len());
                    members.push(MemberState::from_ref(&member, Some(role.as_str())));
                }
            }
        }
    }
    if (members.len() as i64) < expected {
        report_event(WalkEvent::Phase("members (other roles)".into()));
        let everyone =
            list_members(client, workspace_id, Vec::new(), expected, report_event).await?;
        for member in everyone {
            if !seen.contains_key(&member.user_id) {
                seen.insert(member.user_id.clone(), members.len());
                members.push(MemberState::from_ref(&member, None));
            }
        }
    }
    Ok(members)
}

/// Every member of `roles` (empty: of any role), every page, a page at a
/// time so each request waits its turn; the walk stops past the `expected`
/// members insights counts.
async fn list_members(
    client: &Client,
    workspace_id: &str,
    roles: Vec<Role>,
    expected: i64,
    report_event: &mut impl FnMut(WalkEvent),
) -> Result<Vec<MemberRef>, ApiError> {
    let params = MemberListParams {
        limit: Some(PAGE_SIZE),
        role: roles,
        ..MemberListParams::default()
    };
    let mut listed: Vec<MemberRef> = Vec::new();
    // A service whose paging never ends must not keep the snapshot walking.
    let first = ListMembers {
        workspace_id: workspace_id.to_owned(),
        params,
        cursor: None,
    };
    let mut pages = Pages::new(client, first);
    pages.expect(expected.max(0) as u64);
    while !pages.is_done() {
        let Some(page) = pages.next(client).await else {
            break;
        };
        let page = page?;
        report_event(WalkEvent::Items(page.data.len() as u64));
        listed.extend(page.data);
    }
    Ok(listed)
}

/// Room reserved for a list of `count` items, as the service counted them:
/// its word sizes a hint, never an allocation (a made-up count of 10^15, or
/// one below zero, must not abort the walk). The list still grows as it must.
fn room_for(count: i64) -> usize {
    const MOST_RESERVED: i64 = 100_000;
    count.clamp(0, MOST_RESERVED) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_counts_whole_windows_beyond_the_remaining_budget() {
        let minute = Duration::from_secs(60);
        assert_eq!(estimate(100, 120, 120, minute), Duration::ZERO);
        assert_eq!(estimate(256, 120, 120, minute), Duration::from_secs(120));
        assert_eq!(estimate(121, 120, 0, minute), Duration::from_secs(120));
    }
}
