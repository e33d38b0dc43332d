//! Members: users and their memberships; a few are inactive, unnamed, or named
//! from the hostile set.

use time::Duration;

use super::{Generation, uuid_from};
use crate::api::model::Role;
use crate::rng::SplitMix64;
use crate::server::seed::words::{FIRST_NAMES, LAST_NAMES};
use crate::server::store::{Fixture, MEMBERSHIP_ACTIVE, MembershipRec, UserRec};

/// Who may own a project: active users (with the index of their membership),
/// and users who left the workspace.
pub(super) struct People {
    pub active: Vec<(String, usize)>,
    pub inactive: Vec<String>,
}

pub(super) fn members(
    generation: &Generation,
    count: usize,
    rng: &mut SplitMix64,
    fixture: &mut Fixture,
) -> People {
    let hostile = &generation.hostile;
    let mut active_users = Vec::new();
    let mut inactive_users = Vec::new();
    for n in 0..count {
        let user_id = uuid_from(rng);
        let first = *rng.pick(FIRST_NAMES);
        let last = *rng.pick(LAST_NAMES);
        let handle = format!(
            "{}.{}{}",
            first.to_lowercase(),
            last.to_lowercase().replace(' ', ""),
            n
        );
        let no_email = rng.chance(0.03);
        let no_name = rng.chance(0.03);
        let display_name = if no_name {
            None
        } else if n % 23 == 7 {
            Some(hostile[n / 23 % hostile.len()].clone())
        } else {
            Some(format!("{first} {last}"))
        };
        let role = if n == 0 {
            Role::Owner
        } else {
            match rng.below(100) {
                0..=1 => Role::Owner,
                2..=9 => Role::Admin,
                10..=69 => Role::Member,
                70..=84 => Role::Collaborator,
                _ => Role::Viewer,
            }
        };
        let status = match (n, rng.below(100)) {
            (0, _) => MEMBERSHIP_ACTIVE,
            (_, 0..=5) => "pending",
            (_, 6..=7) => "suspended",
            _ => MEMBERSHIP_ACTIVE,
        };
        let invited_at = generation.time_before(rng, 1_000);
        let joined_at = (status != "pending")
            .then(|| invited_at + Duration::minutes(rng.below(4 * 1_440) as i64 + 5));
        fixture.users.push(UserRec {
            id: user_id.clone(),
            email: (!no_email).then(|| format!("{handle}@example.com")),
            username: Some(handle),
        });
        fixture.memberships.push(MembershipRec {
            id: format!("mem_{n:07}"),
            workspace_id: generation.workspace_id.clone(),
            user_id: user_id.clone(),
            role,
            status: status.to_owned(),
            display_name,
            joined_at,
            invited_at: Some(invited_at),
            scim_managed: rng.chance(0.3),
        });
        if status == MEMBERSHIP_ACTIVE {
            active_users.push((user_id, fixture.memberships.len() - 1));
        } else {
            inactive_users.push(user_id);
        }
    }
    People {
        active: active_users,
        inactive: inactive_users,
    }
}
