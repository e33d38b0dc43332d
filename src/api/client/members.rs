//! The member directory filled in. A list item carries only `user_id` and
//! `type` (api-v1.md), so what a reviewer reads (name, e-mail, role, joined)
//! takes role-filtered lists and one member read per row. `vantage members`
//! (its table and CSV) and the dashboard's export of Members fill their rows
//! here, so they read the same columns the same way; every request goes
//! through the transport, which paces on the rate limit's headers.

use std::collections::{HashMap, HashSet};
use std::pin::pin;

use futures::{StreamExt, TryStreamExt};

use super::super::error::ApiError;
use super::super::model::{ErrorType, Member, MemberRef, Role};
use super::super::page::MemberListParams;
use super::super::ratelimit::Reserve;
use super::Client;

/// One member of a list, with what the other reads told of it; `None` where
/// the service did not say (a role this build does not know, a member who
/// left between the list and the read).
#[derive(Debug, Clone, PartialEq)]
pub struct FilledMember {
    pub member: MemberRef,
    pub role: Option<Role>,
    pub detail: Option<Member>,
}

impl Client {
    /// `listed` (members of `params`' list) with their roles and details.
    pub async fn fill_members(
        &self,
        workspace_id: &str,
        params: &MemberListParams,
        listed: Vec<MemberRef>,
    ) -> Result<Vec<FilledMember>, ApiError> {
        let mut roles = self.member_roles(workspace_id, params, &listed).await?;
        let mut filled = Vec::with_capacity(listed.len());
        for member in listed {
            let detail = match self.get_member(workspace_id, &member.user_id).await {
                Ok(detail) => Some(detail),
                Err(error) if error.kind() == Some(&ErrorType::MemberNotFound) => None,
                Err(error) => return Err(error),
            };
            let role = roles.remove(&member.user_id);
            filled.push(FilledMember {
                member,
                role,
                detail,
            });
        }
        Ok(filled)
    }

    /// As [`Client::fill_members`], within the request budget: a member
    /// whose read would take the window below `reserve` is left without its
    /// detail (and counted), as the dashboard's members screen leaves it;
    /// the reads go four at a time, in the list's order.
    pub async fn fill_members_within(
        &self,
        workspace_id: &str,
        params: &MemberListParams,
        listed: Vec<MemberRef>,
        reserve: Reserve,
    ) -> Result<(Vec<FilledMember>, usize), ApiError> {
        let mut roles = self.member_roles(workspace_id, params, &listed).await?;
        let reads = futures::stream::iter(listed.into_iter().map(|member| async move {
            let now = self.sleeper().now();
            if !reserve.allows(self.rate_limit_state(), now, 0) {
                return Ok((member, None, true));
            }
            match self.get_member(workspace_id, &member.user_id).await {
                Ok(detail) => Ok((member, Some(detail), false)),
                Err(error) if error.kind() == Some(&ErrorType::MemberNotFound) => {
                    Ok((member, None, false))
                }
                Err(error) => Err(error),
            }
        }))
        .buffered(4);
        let mut reads = pin!(reads);
        let mut filled = Vec::new();
        let mut left_out = 0;
        while let Some((member, detail, unread)) = reads.try_next().await? {
            left_out += usize::from(unread);
            let role = roles.remove(&member.user_id);
            filled.push(FilledMember {
                member,
                role,
                detail,
            });
        }
        Ok((filled, left_out))
    }

    /// The role of each of `listed`: the one `params` names alone, else
    /// learned from one role-filtered list per role asked for (list items
    /// carry none), in the contract's order, stopping once every listed
    /// member has one. A member of a role this build does not know keeps none.
    pub async fn member_roles(
        &self,
        workspace_id: &str,
        params: &MemberListParams,
        listed: &[MemberRef],
    ) -> Result<HashMap<String, Role>, ApiError> {
        let asked = match params.role.as_slice() {
            [] => Role::KNOWN,
            asked => asked,
        };
        if let [only] = asked {
            let ids = listed.iter().map(|member| member.user_id.clone());
            return Ok(ids.map(|id| (id, only.clone())).collect());
        }
        let wanted: HashSet<&str> = listed.iter().map(|m| m.user_id.as_str()).collect();
        let mut roles = HashMap::new();
        for role in asked {
            if roles.len() == wanted.len() {
                break;
            }
            // The same filters, one role, in the service's default order.
            let filtered = MemberListParams {
                role: vec![role.clone()],
                sort_by: None,
                sort_order: None,
                ..params.clone()
            };
            let mut stream = pin!(self.members_stream(workspace_id, filtered));
            while let Some(member) = stream.try_next().await? {
                if wanted.contains(member.user_id.as_str()) {
                    roles.insert(member.user_id, role.clone());
                }
            }
        }
        Ok(roles)
    }
}
